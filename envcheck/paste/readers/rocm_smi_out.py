"""``rocm-smi``'s output pasted in a report (any of its views: the concise table, ``--showproductname``,
``--showall``): from its banner line ``==== ROCm System Management Interface ====`` (printed by every rocm-smi
since ROCm 1.x, in ``rocm_smi.py``'s ``printLogSpacer(headerString)``) to its closing ``==== End of ROCm SMI Log
====`` (``footerString``), read by :func:`envcheck.parse.rocm_smi.parse_rocm_smi`, the reader a snapshot's
``rocm-smi.txt`` gets. Each GPU it lists is an AMD GPU of the machine (contract §9): its name and gfx target where
printed, never guessed."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import MAXLINE, Fact, Line, Partial, gpu_name, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "rocm-smi"
#: the banner, also glued to the Markdown fence opened before it ("```====... ROCm System Management Interface ====")
_BANNER = re.compile(r"^(?:```[a-z]{0,10})?=+\s*ROCm System Management Interface\s*=+$")
_FOOTER = re.compile(r"^=+\s*End of ROCm SMI Log\s*=+$")
_MAX = 4096  # lines of one output (a node of 8 GPUs with --showall prints a few hundred)


def detect(c: Line) -> int:
    if not _BANNER.match(c.s):
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < _MAX:
        s = text_of(c.lines[j])
        if _FOOTER.match(s):
            return j - c.i + 1
        if not s:
            break  # rocm-smi prints no blank line between its banner and its footer: a paste cut before the footer
        j += 1
    return j - c.i  # cut before its footer: read what is there, and leave the rest of the text to the other readers


def _unquoted(line: str) -> str:
    return re.sub(r"^\s{0,3}> ?", "", line)


def read(lines: Sequence[str]) -> Partial:
    from envcheck.parse.rocm_smi import parse_rocm_smi

    # the lines as pasted (the concise table's second name line is known by its indent), a Markdown quote taken off
    text = "\n".join(_unquoted(ln[:MAXLINE]) for ln in lines) + "\n"
    out: List[Fact] = []
    for n, g in enumerate(parse_rocm_smi(text).gpus):
        idx = g.index if g.index is not None else n
        name = gpu_name(g.name) if g.name else None
        line = next((text_of(ln) for ln in lines if f"GPU[{idx}]" in ln or (name and name in ln)), text_of(lines[0]))
        out.append(Fact("vgpu", (idx, name, "amd", g.gfx, NAME, g.device_id), line))
    if out:
        out.append(Fact("format", NAME, text_of(lines[0])))
    return partial(NAME, out)
