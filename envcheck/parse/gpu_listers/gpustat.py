"""``gpustat`` (wookayin/gpustat, gpustat/core.py ``print_formatted``): a header "hostname  timestamp  driver"
(the driver version from gpustat 0.5 on; older ones print "hostname  timestamp" only) and one row a GPU:

    [0] Tesla V100-SXM2-16GB | 35'C,   0 % |   239 / 16384 MB |

(``°C`` in newer versions, ``??`` for a value NVML did not give, optional fan / power columns between, the process
list after the last bar). The memory is NVML's total in MiB (printed "MB"). gpustat lists every GPU NVML shows, so
the rows from index 0 without a gap are the whole list; it answers only through a loaded driver."""

from __future__ import annotations

import re
from typing import List, Optional

from envcheck.parse.gpu_listers.common import Listed, ListedGpu, mib, plain_lines

__all__ = ["FORM", "detect", "read"]

FORM = "gpustat"

_ROW = re.compile(r"^\[(\d{1,4})\][ \t]+(\S[^|\n]{0,120}?)[ \t]*\|[ \t]*(?:\d{1,3}|\?\?)[ \t]*(?:'|\u00b0|\u00ba)?C,")
_MEM = re.compile(r"\|[ \t]*(?:\d{1,9}|\?\?)[ \t]*/[ \t]*(\d{1,9}|\?\?)[ \t]*(MB|MiB)\b")
_HEADER = re.compile(r"^\S{1,120}[ \t]{2,}\S[^\n]{4,60}?(?:[ \t]{2,}(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?))?[ \t]*$")


def detect(text: Optional[str]) -> bool:
    if not text:
        return False
    return any(_ROW.match(ln) and _MEM.search(ln) for ln in plain_lines(text))


def read(text: Optional[str]) -> Optional[Listed]:
    """The GPUs (name, memory) and the header's driver version. None when the text is not gpustat's."""
    if not text or not detect(text):
        return None
    lines = plain_lines(text)
    gpus: List[ListedGpu] = []
    header: Optional["re.Match[str]"] = None
    for i, ln in enumerate(lines):
        m = _ROW.match(ln)
        if not m or len(gpus) >= 1024:
            continue
        if not gpus:
            prev = next((p for p in reversed(lines[max(0, i - 3):i]) if p), "")
            header = _HEADER.match(prev)
        mem = _MEM.search(ln)
        gpus.append(ListedGpu(index=int(m.group(1)), name=m.group(2),
                              memory_mib=mib(mem.group(1), mem.group(2)) if mem else None))
    whole = header is not None and [g.index for g in gpus] == list(range(len(gpus)))
    return Listed(form=FORM, driver_version=header.group(1) if header else None, gpus=tuple(gpus),
                  complete=whole, driver_loaded=True)
