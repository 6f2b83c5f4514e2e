"""``nvidia-smi --version`` (drivers from 2024 on): ``NVIDIA-SMI version  : 550.54.15``, ``NVML version``, ``DRIVER
version  : 550.54.15``, ``CUDA Version  : 12.4`` (and ``GSP Firmware Version``). The driver is the ``DRIVER version``
line's (under WSL it is the Windows driver, which the ``NVIDIA-SMI version`` line is not); ``CUDA Version`` is the
driver's CUDA (``driver.cuda``), as in the table's header. Each line may carry a shell comment's ``# `` (a script's
listing); a block cut before its ``DRIVER version`` line gives no driver. R610 on: ``DRIVER version : Deprecated,
see "KMD version" instead`` and ``CUDA version : Deprecated, ...``, then ``KMD version : 610.57.04`` and ``CUDA UMD
version : 13.3`` (the same facts under their new names)."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "nvidia-smi --version"
_LINE = re.compile(r"^(?:#\s{0,3})?(?P<key>NVIDIA-SMI version|NVML version|DRIVER version|KMD version|CUDA [Vv]ersion|"
                   r"CUDA UMD version|GSP Firmware Version)\s{0,20}:\s{0,5}(?P<val>\S{1,40}(?: [^\n]{0,80})?)\s*$")


def detect(c: Line) -> int:
    if "NVIDIA-SMI version" not in c.s or not _LINE.match(c.s):
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < 6 and _LINE.match(text_of(c.lines[j])):
        j += 1
    return j - c.i


def read(lines: Sequence[str]) -> Partial:
    out: List[Fact] = []
    for ln in lines:
        s = text_of(ln)
        m = _LINE.match(s)
        if not m:
            continue
        key, val = m.group("key"), m.group("val").strip()
        if key in ("DRIVER version", "KMD version") and re.match(r"^\d{2,4}\.\d{1,3}(?:\.\d{1,3})?$", val):
            out += [Fact("driver", val, s), Fact("seen:driver", s, s)]
        elif key.startswith("CUDA") and re.match(r"^\d{1,2}\.\d{1,2}$", val):
            out.append(Fact("smi_cuda", val, s))
    return partial(NAME, out + [Fact("format", NAME, text_of(lines[0]))] if out else [])
