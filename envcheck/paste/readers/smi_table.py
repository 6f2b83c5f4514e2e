"""The ``nvidia-smi`` table (Jetson's Tegra table too), from its ``NVIDIA-SMI x.y  Driver Version: ...`` header
(a ``+----+`` rule above it is kept). The table's text becomes the paste's ``nvidia-smi.txt``, read by
:func:`envcheck.parse.nvidia_smi.parse_table` like a snapshot's; its driver, CUDA and GPUs are facts."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "nvidia-smi"
_HEADER = re.compile(r"NVIDIA-SMI\s+\d+\.\d+")


_BUS = re.compile(r"^\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]\s")
_INDEX = re.compile(r"^\s*\d{1,3}\s+\S")


def _is_header(s: str) -> bool:
    low = s.lower()
    m = _HEADER.search(s)
    # R610+ prints "KMD Version: 610.43.02   CUDA UMD Version: 13.3" where older drivers print "Driver Version"; the
    # driver's words come after nvidia-smi's version (a bullet "- Driver Version: NVIDIA-SMI 440.33.01" is no header);
    # a header narrowed by hand to fit a page writes "Driver Ver:"
    return m is not None and (low.find("driver ver", m.end()) >= 0 or low.find("kmd version", m.end()) >= 0)


def _is_gpu_row(s: str) -> bool:
    """``|  13  NVIDIA RTX 4000 Ada Gene...    On  |   00000000:C9:00.0 Off |`` (a GPU's first row)."""
    cells = s.strip().split("|")
    return len(cells) >= 4 and not cells[0].strip() and bool(_INDEX.match(cells[1])) and bool(_BUS.match(cells[2]))


def detect(c: Line) -> int:
    lines, i = c.lines, c.i
    if c.s.startswith("+") and i + 1 < len(lines) and _is_header(text_of(lines[i + 1])):
        return 1 + _span(lines, i + 1)  # the rule over the header is part of the table
    if c.s.startswith(("+", "|=")) and i + 1 < len(lines) and _is_gpu_row(text_of(lines[i + 1])):
        # an excerpt of GPU rows without the header: under a rule, or under the "|===|" line that ends the column
        # titles (their lines cut or retyped above it: THUDM/gpt2-chitchat#19's first GPU row sat there)
        return 1 + _span(lines, i + 1)
    return _span(lines, i) if _is_header(c.s) else 0


def _span(lines: Sequence[str], i: int) -> int:
    from envcheck.parse.nvidia_smi import clean_capture, unprefix_table_line

    j = i + 1
    while j < len(lines) and j - i < 400:
        # a table line as the snapshot reader takes it: box-drawing borders, escaped pipes, a comment mark undone
        s = unprefix_table_line(clean_capture(lines[j])).strip()
        if not s:
            # a blank line between the GPU table and the process table
            if j + 1 < len(lines) and lines[j + 1].strip().startswith(("+", "|")):
                j += 1
                continue
            break
        if not s.startswith(("|", "+")):
            break
        j += 1
    return j - i


def read(lines: Sequence[str]) -> Partial:
    """``lines``: the header line (or the ``+---+`` rule over it) and the table under it."""
    above = ""
    if lines and not _is_header(lines[0]):
        above, lines = lines[0], lines[1:]
    if not lines:
        return partial(NAME, [])
    if not _is_header(lines[0]):  # GPU rows without the header: the rows are the capture, no driver line
        text = "\n".join([above] + [ln.rstrip() for ln in lines]) + "\n"
        return partial(NAME, [Fact("format", NAME, lines[0]), Fact("smi", text, lines[0])])
    header = lines[0]
    k = header.find("NVIDIA-SMI")
    if k > 0 and not header[:k].strip().startswith("|"):
        header = "| " + header[k:]  # "nvidia-smi:NVIDIA-SMI 450.51.05  Driver Version ..." as retyped
    out = ([above] if above.strip().startswith("+") else []) + [header] + [ln.rstrip() for ln in lines[1:]]
    text = "\n".join(out) + "\n"
    facts: List[Fact] = [Fact("format", NAME, header), Fact("seen:nvidia-smi", header.strip(" |"), header),
                         Fact("smi", text, header)]
    return partial(NAME, facts)
