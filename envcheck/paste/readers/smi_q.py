"""``nvidia-smi -q`` (``-a``; whole, ``-d MEMORY``, or cut anywhere) from its ``==NVSMI LOG==`` banner, its
top-level ``Driver Version : ...`` or ``Attached GPUs : N`` line, or a ``GPU 00000000:82:00.0`` section line with
its keys indented under it (a part pasted from the middle), read by :func:`envcheck.parse.nvidia_smi.parse_q` (the reader a snapshot's
``nvidia-smi.txt`` gets). "CUDA Version : Not Found" (a vGPU host) is unknown, never a version."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, gpu_name, partial

__all__ = ["NAME", "detect", "read"]

NAME = "nvidia-smi -q"
#: the first line of an ``nvidia-smi -q`` block: its banner, or its top-level driver line
_START = re.compile(r"^(?:=+NVSMI LOG=+|(?:Driver|KMD) Version[ \t.]{2,}:[ \t]*\d+\.\d+|Attached v?GPUs[ \t.]{2,}:[ \t]*\d{1,3}$)")
#: a part pasted from the middle: a GPU's section line, "GPU 00000000:82:00.0", under which its keys are indented
_GPU_SECTION = re.compile(r"^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$")
_GPU_KEY = re.compile(r"^[ \t]{2,}(?:Product Name|Product Brand|FB Memory Usage|Minor Number|GPU UUID)\b")


def _starts(c: Line) -> bool:
    if _START.match(c.s):
        return True
    return bool(_GPU_SECTION.match(c.s)) and c.i + 1 < len(c.lines) and bool(_GPU_KEY.match(c.lines[c.i + 1]))


def detect(c: Line) -> int:
    if not _starts(c):
        return 0
    lines, i = c.lines, c.i
    j = i + 1
    blanks = 0
    while j < len(lines) and j - i < 4000:
        s = lines[j].strip()
        if not s:
            blanks += 1
            if blanks > 1:
                break
            j += 1
            continue
        blanks = 0
        if ":" not in s and not re.match(r"^[A-Za-z][A-Za-z0-9 ()/-]*$", s):
            break
        j += 1
    return j - i


def read(lines: Sequence[str]) -> Partial:
    from envcheck.parse.nvidia_smi import parse_q

    text = "\n".join(lines) + "\n"
    q = parse_q(text)
    # the text is the paste's nvidia-smi.txt too: parse_smi reads it by its content, as in a snapshot
    out: List[Fact] = [Fact("format", NAME, lines[0] if lines else ""), Fact("smi", text, lines[0] if lines else "")]
    if q.driver_version:
        line = f"nvidia-smi -q: Driver Version : {q.driver_version}"
        out += [Fact("driver", q.driver_version, line), Fact("seen:driver", line, line)]
    if q.cuda_version:
        out.append(Fact("smi_cuda", q.cuda_version, f"CUDA Version : {q.cuda_version}"))
    for g in q.gpus:
        if g.name and q.gpus_complete is not None:
            out += [Fact("gpu", (g.index, gpu_name(g.name), None, g.memory_total_mib), g.name),
                    Fact("seen:gpu", g.name, g.name)]
    return partial(NAME, out)
