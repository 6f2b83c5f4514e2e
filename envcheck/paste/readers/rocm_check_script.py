"""The end of a widely shared ROCm check script's output (damico's ``test-rocm.py`` gist, quoted in ROCm and
InvokeAI threads, e.g. invoke-ai/InvokeAI#3967)::

    Everything fine! You can run PyTorch code inside of:
    --->  AMD Ryzen 9 3950X 16-Core Processor
    --->  gfx1032

Each ``---> `` line names an agent rocminfo lists; an agent named by a gfx target is an AMD GPU of the machine (its
gfx target read, its marketing name not printed there). A CPU agent is no GPU."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "rocm check script"
_HEAD = re.compile(r"^Everything fine! You can run PyTorch code inside of:\s*$")
_AGENT = re.compile(r"^--->\s{1,4}(?P<name>\S.{0,120}?)\s*$")
_GFX = re.compile(r"^gfx[0-9a-f]{3,4}$")
_MAX = 64  # agents of one machine


def detect(c: Line) -> int:
    if "everything fine" not in c.low or not _HEAD.match(c.s):
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i <= _MAX and _AGENT.match(text_of(c.lines[j])):
        j += 1
    return j - c.i if j > c.i + 1 else 0


def read(lines: Sequence[str]) -> Partial:
    out: List[Fact] = []
    for ln in lines[1:]:
        m = _AGENT.match(text_of(ln))
        if m and _GFX.match(m.group("name")):
            out.append(Fact("vgpu", (len(out), None, "amd", m.group("name"), NAME, None),
                            ln))
    if out:
        out.append(Fact("format", NAME, text_of(lines[0])))
    return partial(NAME, out)
