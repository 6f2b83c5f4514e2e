"""``rocminfo``'s output pasted in a report (whole, as ROCm's issue template asks for it, or cut: from an ``Agent N``
block, or its ``Name`` / ``Marketing Name`` lines alone), read by :func:`envcheck.parse.rocminfo.parse_rocminfo`, the
reader a snapshot's ``rocminfo.txt`` gets: each agent of ``Device Type: GPU`` (or, in a cut paste, whose ``Name`` is
a gfx target) is an AMD GPU of the machine with its marketing name, gfx target and device id (``Chip ID``). The CPU
agent of an APU ("AMD Ryzen 7 7840HS w/ Radeon 780M Graphics") is not a GPU.

The span starts at a line only rocminfo prints (``ROCk module ... is loaded``, ``HSA System Attributes``, ``HSA
Agents``, the ``*******`` rule above an ``Agent N`` line, or an agent's ``Name:`` followed by its aligned value, a
gfx target) and runs while the lines keep rocminfo's shape: its rules and headings, and ``Key:`` lines whose value is
aligned in a column (two or more blanks after the colon) or that open a group (``Cache Info:``); it ends at ``***
Done ***`` or at the first other line (a report's ``Key: value`` with one blank is not rocminfo's)."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import MAXLINE, Fact, Line, Partial, gpu_name, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "rocminfo"
_START = re.compile(r"^(?:ROCk module (?:version \S+ )?is (?:NOT )?loaded|HSA System Attributes|HSA Agents)\s*$")
_RULE = re.compile(r"^(?:\*{5,}|=+)\s*$")
_AGENT = re.compile(r"^Agent \d{1,4}\s*$")
_NAME_GFX = re.compile(r"^Name:\s{2,}gfx[0-9a-f]{3,4}\b")
#: a key aligned in rocminfo's column ("Marketing Name:          AMD Radeon PRO W6600"), a group opening
#: ("Cache Info:", "Pool Info:", "ISA Info:"), a "Pool 1" / "ISA 1" heading, a dimension row ("x    1024(0x400)")
_BODY = re.compile(r"^(?:[A-Za-z][\w .()/,-]{0,48}:(?:\s{2,}\S.*|[ \t]*)|(?:Pool|ISA) \d{1,3}|[xyz]\s+\d.*|"
                   r"\*{5,}|=+|Agent \d{1,4}|HSA (?:System Attributes|Agents)|GPU:|CPU:)$")
_DONE = "*** Done ***"
_MAX = 20000  # lines of one output (a node of 8 GPUs prints about 1,500)


def _starts(c: Line) -> bool:
    if _START.match(c.s) or _NAME_GFX.match(c.s):
        return True
    nxt = text_of(c.lines[c.i + 1]) if c.i + 1 < len(c.lines) else ""
    return bool(_RULE.match(c.s) and c.s.startswith("*") and _AGENT.match(nxt))


def detect(c: Line) -> int:
    if not _starts(c):
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < _MAX:
        s = text_of(c.lines[j])
        if s == _DONE:
            return j - c.i + 1
        if not s:
            # one blank line inside (a paste's line breaks): go on only where rocminfo's shape goes on
            nxt = text_of(c.lines[j + 1]) if j + 1 < len(c.lines) else ""
            if not nxt or not _BODY.match(nxt):
                break
        elif not _BODY.match(s):
            break
        j += 1
    return j - c.i


def read(lines: Sequence[str]) -> Partial:
    from envcheck.parse.rocminfo import parse_rocminfo

    # the lines as pasted (an agent's keys are known by their two-blank indent), a Markdown quote taken off
    text = "\n".join(re.sub(r"^\s{0,3}> ?", "", ln[:MAXLINE]) for ln in lines) + "\n"
    out: List[Fact] = []
    for n, g in enumerate(parse_rocminfo(text).gpus):
        name = gpu_name(g.name) if g.name else None
        line = next((text_of(ln) for ln in lines if (name and name in ln) or (g.gfx and g.gfx in ln)), text_of(lines[0]))
        out.append(Fact("vgpu", (n, name, "amd", g.gfx, NAME, g.device_id), line))
    if out:
        out.append(Fact("format", NAME, text_of(lines[0])))
    return partial(NAME, out)
