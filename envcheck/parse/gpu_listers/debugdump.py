"""``nvidia-debugdump -l`` / ``--list`` (Windows: ``nvdebugdump --list``), a tool of the driver package that lists the
GPUs through the loaded driver:

    Found 1 NVIDIA devices
            Device ID:              0
            Device name:            GeForce GTX 1080   (*PrimaryCard)
            GPU internal ID:        GPU-317aeb22-e67c-fc01-1c11-55d6f2d6094a

("(*PrimaryCard)" marks the GPU driving the display; "GPU internal ID" is the UUID on newer drivers, a board serial or
"Unknown" on older ones). It names neither the driver's version nor its CUDA. The list is whole when the "Found N"
count matches the devices shown (0 to N-1)."""

from __future__ import annotations

import re
from typing import List, Optional

from envcheck.parse.gpu_listers.common import Listed, ListedGpu, plain_lines

__all__ = ["FORM", "detect", "read"]

FORM = "nvidia-debugdump"

_FOUND = re.compile(r"^Found[ \t]+(\d{1,4})[ \t]+NVIDIA devices?[ \t]*$")
_ID = re.compile(r"^Device ID:[ \t]*(\d{1,4})[ \t]*$")
_NAME = re.compile(r"^Device name:[ \t]*(\S[^\n]{0,160}?)[ \t]*$")
_UUID = re.compile(r"^GPU internal ID:[ \t]*(GPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"
                   r"[ \t]*$")
_PRIMARY = re.compile(r"[ \t]*\(\*PrimaryCard\)$")


def detect(text: Optional[str]) -> bool:
    if not text or "NVIDIA device" not in text:
        return False
    lines = plain_lines(text)
    return any(_FOUND.match(ln) for ln in lines) and any(_ID.match(ln) for ln in lines)


def read(text: Optional[str]) -> Optional[Listed]:
    """The GPUs listed (name, UUID) and whether the list is whole; None when the text is not this form."""
    if not text or not detect(text):
        return None
    found: Optional[int] = None
    ids: List[int] = []
    gpus: List[ListedGpu] = []
    for ln in plain_lines(text):
        m = _FOUND.match(ln)
        if m and found is None:
            found = int(m.group(1))
            continue
        m = _ID.match(ln)
        if m and len(ids) < 1024:
            ids.append(int(m.group(1)))
            continue
        m = _NAME.match(ln)
        if m and len(gpus) < len(ids):
            gpus.append(ListedGpu(index=ids[len(gpus)], name=_PRIMARY.sub("", m.group(1)) or None))
            continue
        m = _UUID.match(ln)
        if m and gpus and gpus[-1].uuid is None and len(gpus) == len(ids):
            last = gpus[-1]
            gpus[-1] = ListedGpu(index=last.index, name=last.name, uuid=m.group(1))
    whole = found is not None and len(gpus) == found and sorted(g.index for g in gpus) == list(range(found))
    return Listed(form=FORM, gpus=tuple(gpus), complete=whole if gpus else None, driver_loaded=bool(gpus),
                  note="`nvidia-debugdump -l` (the GPUs, listed through the loaded driver): it names neither the "
                       "driver's version nor the CUDA it supports")
