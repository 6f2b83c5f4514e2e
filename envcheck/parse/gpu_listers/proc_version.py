"""``cat /proc/driver/nvidia/version`` (the NVIDIA kernel module's procfs, nv-procfs.c / kernel-open's
``nv_procfs_read_version``): its first line names the module that is loaded now,

    NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023
    NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  (dvs-builder@U16-...)  ...

(the same line :func:`envcheck.parse.proc_driver.parse_proc_driver_version` reads from ``proc-driver-version.txt``;
a Jetson's "NVIDIA UNIX Kernel Module for aarch64  34.1.1" names its L4T release, not a driver, and is not read).
The file exists only while the module is loaded: the driver is there and its version is that one. It lists no GPU
and does not name the CUDA the driver supports; the pre-R300 ``/proc/driver/nvidia/cards/N`` or the later
``gpus/*/information`` files pasted below it (:mod:`envcheck.parse.gpu_listers.proc_gpus`) add the GPU models,
never a whole list."""

from __future__ import annotations

from typing import Optional

from envcheck.parse.gpu_listers import proc_gpus
from envcheck.parse.gpu_listers.common import Listed, MAX_LINE, MAX_LINES
from envcheck.parse.proc_driver import parse_proc_driver_version

__all__ = ["FORM", "detect", "read"]

FORM = "/proc/driver/nvidia/version"

_NOTE = ("`/proc/driver/nvidia/version` (the loaded kernel module's version): it does not name the CUDA the driver "
         "supports, and lists no GPU (the /proc cards or information files pasted with it name some, never all)")


def _version(text: str) -> Optional[str]:
    lines = (ln[:MAX_LINE] for ln in text.split("\n", MAX_LINES)[:MAX_LINES] if "NVRM version:" in ln)
    got = parse_proc_driver_version("\n".join(lines))
    return got.version if got else None


def detect(text: Optional[str]) -> bool:
    return bool(text) and "NVRM version:" in (text or "") and _version(text or "") is not None


def read(text: Optional[str]) -> Optional[Listed]:
    """The loaded module's version (and the GPU models of /proc information files pasted with it). None when the
    text holds no NVRM version line of a driver."""
    if not text or "NVRM version:" not in text:
        return None
    version = _version(text)
    if version is None:
        return None
    cards = proc_gpus.read(text)
    gpus = cards.gpus if cards else ()
    return Listed(form=FORM, driver_version=version, gpus=gpus, complete=False if gpus else None,
                  driver_loaded=True, note=_NOTE)
