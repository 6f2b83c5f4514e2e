"""``cat /proc/driver/nvidia/gpus/*/information`` (the NVIDIA kernel module's procfs, kernel-open/nvidia/nv-procfs.c:
"Model:", "IRQ:", "GPU UUID:", "Video BIOS:", "Bus Type:", "DMA Size:", "DMA Mask:", "Bus Location:", "Device Minor:",
"GPU Firmware:" (GSP drivers), "GPU Excluded:" ("Blacklisted:" before R450)), one block a GPU; the pre-R300
``/proc/driver/nvidia/cards/N`` ("Model:", "IRQ:", "Video BIOS:", "Card Type:") the same way.

The files exist only while the module is loaded. "GPU Firmware" is the GSP firmware the module loaded, which ships
with the driver under its own version (/lib/firmware/nvidia/<version>/) and must match it: it is the driver's
version. Nothing else names the driver or its CUDA; each file is one GPU, so whether all were pasted is unknown.
The order of the blocks is the GPUs' (the glob's PCI order), not the "Device Minor" number."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from envcheck.parse.gpu_listers.common import Listed, ListedGpu, plain_lines

__all__ = ["FORM", "detect", "read"]

FORM = "/proc/driver/nvidia/gpus"

_MODEL = re.compile(r"^Model:[ \t]+(\S[^\n]{0,160}?)[ \t]*$")
_OWN = re.compile(r"^(?:IRQ|Video BIOS|Bus Type|Card Type|DMA Size|DMA Mask|Bus Location|Device Minor|GPU Excluded|"
                  r"Blacklisted|GPU Firmware|GPU UUID):[ \t]")
_FIELD = re.compile(r"^(GPU UUID|Bus Location|GPU Firmware):[ \t]+(\S{1,80})[ \t]*$")
_OTHER = re.compile(r"^(?:Device Index|Architecture|Brand):[ \t]")  # nvidia-container-cli info's own fields
_UUID = re.compile(r"^GPU-[0-9a-fA-F]{8}-[0-9a-fA-F-]{27}$")
_FIRMWARE = re.compile(r"^\d{3}\.\d{1,3}(?:\.\d{1,3})?$")


def detect(text: Optional[str]) -> bool:
    if not text:
        return False
    lines = plain_lines(text)
    return any(_MODEL.match(ln) for ln in lines) and sum(1 for ln in lines if _OWN.match(ln)) >= 2 \
        and not any(_OTHER.match(ln) for ln in lines)


def read(text: Optional[str]) -> Optional[Listed]:
    """The GPUs (model, UUID, bus) and, from "GPU Firmware", the driver version. None when not this form."""
    if not text or not detect(text):
        return None
    blocks: List[Dict[str, Any]] = []
    for ln in plain_lines(text):
        m = _MODEL.match(ln)
        if m and len(blocks) < 1024:
            blocks.append({"Model": m.group(1)})
            continue
        f = _FIELD.match(ln)
        if f and blocks:
            blocks[-1].setdefault(f.group(1), f.group(2))
    firmware = {b["GPU Firmware"] for b in blocks if _FIRMWARE.match(b.get("GPU Firmware", ""))}
    gpus = tuple(ListedGpu(index=i, name=b["Model"], uuid=b["GPU UUID"] if _UUID.match(b.get("GPU UUID", "")) else None,
                           bus_id=b.get("Bus Location")) for i, b in enumerate(blocks))
    return Listed(form=FORM, driver_version=firmware.pop() if len(firmware) == 1 else None, gpus=gpus,
                  complete=False if gpus else None, driver_loaded=bool(gpus))
