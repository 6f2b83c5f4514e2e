"""``dcgmi discovery -l`` (NVIDIA DCGM, dcgmi/Query.cpp): "N GPU(s) found." then a boxed table

    | GPU ID | Device Information                  |
    | 0      | Name: NVIDIA T4G                    |
    |        | PCI Bus ID: 00000000:00:1F.0        |
    |        | Device UUID: GPU-9ca02968-...       |

(newer DCGM adds NvSwitch / CPU sections after it). DCGM reads the GPUs through NVML: a loaded driver. It prints no
driver version or CUDA."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from envcheck.parse.gpu_listers.common import Listed, ListedGpu, plain_lines

__all__ = ["FORM", "detect", "read"]

FORM = "dcgmi discovery"

_COUNT = re.compile(r"^(\d{1,4}) GPUs? found\.")
_NAME = re.compile(r"^\|[ \t]*(\d{1,4})[ \t]*\|[ \t]*Name:[ \t]*(\S[^|\n]{0,120}?)[ \t]*\|?$")
_FIELD = re.compile(r"^\|[ \t]*\|[ \t]*(PCI Bus ID|Device UUID):[ \t]*(\S{1,80})[ \t]*\|?$")
_HEAD = re.compile(r"^\|[ \t]*GPU ID[ \t]*\|[ \t]*Device Information")
#: DCGM's own marks for a value it could not read (dcgm_structs.h: DCGM_STR_BLANK "<<<NULL>>>", DCGM_STR_NOT_FOUND
#: "<<<NOT_FOUND>>>", DCGM_STR_NOT_SUPPORTED, DCGM_STR_NOT_PERMISSIONED): no name at all, unknown (NVIDIA/DCGM#229:
#: "Name: <<<NULL>>>" for every H100 SXM of a machine)
_BLANK = re.compile(r"^<<<[A-Z_]{1,40}>>>$")


def detect(text: Optional[str]) -> bool:
    if not text:
        return False
    lines = plain_lines(text)
    return any(_HEAD.match(ln) for ln in lines) and any(_NAME.match(ln) for ln in lines)


def read(text: Optional[str]) -> Optional[Listed]:
    if not text or not detect(text):
        return None
    count: Optional[int] = None
    rows: List[Dict[str, Any]] = []
    for ln in plain_lines(text):
        c, n, f = _COUNT.match(ln), _NAME.match(ln), _FIELD.match(ln)
        if c and count is None:
            count = int(c.group(1))
        elif n and len(rows) < 1024:
            rows.append({"index": int(n.group(1)), "name": None if _BLANK.match(n.group(2)) else n.group(2)})
        elif f and rows:
            rows[-1].setdefault(f.group(1), f.group(2))
    gpus = tuple(ListedGpu(index=r["index"], name=r["name"], bus_id=r.get("PCI Bus ID"),
                           uuid=r.get("Device UUID") if str(r.get("Device UUID", "")).startswith("GPU-") else None)
                 for r in rows)
    complete = count is not None and [g.index for g in gpus] == list(range(count))
    return Listed(form=FORM, gpus=gpus, complete=complete, driver_loaded=True)
