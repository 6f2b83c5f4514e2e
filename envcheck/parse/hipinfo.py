"""``hipInfo`` (``hipinfo`` on Windows: the HIP SDK's and TheRock's device lister; ``hipInfo`` of the HIP samples on
Linux): one block per device, ``device#  N`` then ``Name:``, ``totalGlobalMem:``, ``isIntegrated:``,
``gcnArchName:`` ... (snapshot file ``hipinfo.txt``, contract §9). Pure; bad input gives an empty list.

What a paste does to it is read too: the blocks quoted ("> "), indented, cut to a few lines, with the HIP runtime's
``AMD_LOG_LEVEL`` trace lines (``:3:...hip_device_runtime.cpp:...``) in between, a paste that starts inside the first
block (its ``Name:`` line, no ``device#``)."""

from __future__ import annotations

import re
from typing import Dict, List, Optional

from envcheck.model import Gpu
from envcheck.parse.gfx import normalize_gfx
from envcheck.parse.limits import gpu_list

__all__ = ["parse_hipinfo"]

# "device#                           0" / "Name:                             AMD Radeon RX 7900 XTX" (two spaces or more
# between the key and its value; a key of hipInfo's own)
_FIELD = re.compile(r"^[ \t>]{0,12}(device#|Name|gcnArchName|totalGlobalMem|isIntegrated):[ \t]*(\S[^\n]{0,200}?)"
                    r"[ \t]*$")
_DEVICE = re.compile(r"^[ \t>]{0,12}device#[ \t]+(\d{1,4})[ \t]*$")
_MEM = re.compile(r"^(\d{1,7}(?:\.\d{1,3})?)[ \t]*(GB|MB)$")


def _mib(value: Optional[str]) -> Optional[int]:
    """``23.98 GB`` -> 24556 (hipInfo divides by 1024: its GB are GiB); None where not that form."""
    m = _MEM.match(value or "")
    if not m:
        return None
    return int(round(float(m.group(1)) * (1024 if m.group(2) == "GB" else 1)))


def _gpu(f: Dict[str, str], i: int) -> Optional[Gpu]:
    gfx = normalize_gfx(f.get("gcnArchName"))
    name = f.get("Name")
    if not gfx and not name:
        return None
    return Gpu(index=i, name=name, vendor="amd", gfx=gfx, memory_mib=_mib(f.get("totalGlobalMem")), source="hipInfo")


@gpu_list
def parse_hipinfo(text: Optional[str]) -> List[Gpu]:
    """The devices hipInfo lists: name, gfx target (``gfx1010:xnack-`` -> ``gfx1010``), memory. A block counts
    where it has a ``gcnArchName`` (hipInfo's own key: a text without one is not hipInfo's)."""
    if not text or "gcnArchName" not in text:
        return []
    blocks: List[Dict[str, str]] = []
    cur: Optional[Dict[str, str]] = None
    for line in text[: 4 * 1024 * 1024].splitlines()[:200000]:
        if _DEVICE.match(line):
            cur = {}
            blocks.append(cur)
            continue
        m = _FIELD.match(line)
        if not m or m.group(1) == "device#":
            continue
        key, value = m.group(1), m.group(2)
        if cur is None or (key == "Name" and "Name" in cur):
            cur = {}  # a paste that starts inside a block, or a block whose "device#" line was cut
            blocks.append(cur)
        cur.setdefault(key, value)
    out: List[Gpu] = []
    for b in blocks:
        if "gcnArchName" not in b:
            continue
        g = _gpu(b, len(out))
        if g is not None:
            out.append(g)
    return out
