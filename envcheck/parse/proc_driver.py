"""Parse ``/proc/driver/nvidia/version`` and ``/sys/module/nvidia/version`` (the loaded kernel module)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional
from envcheck import lazyre

__all__ = ["ProcDriver", "parse_proc_driver_version", "parse_sys_module_version"]


@dataclass(frozen=True)
class ProcDriver:
    """The kernel module's version line of ``/proc/driver/nvidia/version``."""

    version: str  # as printed, e.g. "535.104.05"
    kernel_module: str  # "open" | "proprietary"
    arch: Optional[str] = None  # "x86_64", "aarch64", ...


# Proprietary: NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023
# Open:        NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  (dvs-builder@U16-I3-B03-4-1)  Thu Feb 22 01:25:25 UTC 2024
# Arm:         NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104.05  ...
_OPEN = lazyre.compile(r"NVRM version:.*?\bOpen Kernel Module(?:\s+for\s+(\S+))?\s+(\d+(?:\.\d+){1,3})\b")
_PROP = lazyre.compile(r"NVRM version:.*?\b(?:UNIX\s+(\S+)\s+)?Kernel Module\s+(\d+(?:\.\d+){1,3})\b")


def _l4t(version: str) -> bool:
    """A release number below NVIDIA's driver branches (the first were 1xx): a Jetson's L4T release ("34.1.1",
    "35.3.1"), which its module prints where a desktop's prints the driver's version."""
    return int(version.split(".")[0]) < 100


def parse_proc_driver_version(text: Optional[str]) -> Optional[ProcDriver]:
    """The kernel module's version and kind, or ``None`` when the text holds no NVRM line."""
    if not text:
        return None
    for line in text.splitlines():
        at = line.find("NVRM version:")
        if at < 0:
            continue
        # match at the first "NVRM version:" only: searching would retry the lazy ".*?" from every
        # repeated occurrence (quadratic on long garbage lines)
        m = _OPEN.match(line, at)
        if m:
            if _l4t(m.group(2)):
                return None  # a Jetson's (L4T 35+, nixGL#139): "Open Kernel Module for aarch64  35.3.1" is its L4T release
            return ProcDriver(version=m.group(2), kernel_module="open", arch=m.group(1))
        m = _PROP.match(line, at)
        if m and not _l4t(m.group(2)):
            arch = m.group(1)
            if arch and arch.lower() in ("open",):
                arch = None
            return ProcDriver(version=m.group(2), kernel_module="proprietary", arch=arch)
    return None


def parse_sys_module_version(text: Optional[str]) -> Optional[str]:
    """``/sys/module/nvidia/version`` holds just "535.104.05\\n"."""
    if not text:
        return None
    m = re.match(r"^\s*(\d+(?:\.\d+){1,3})\s*$", text)
    return m.group(1) if m else None
