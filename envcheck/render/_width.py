"""Fit rendered text to a width: long lines wrap under their own label, over-long paths are
shortened in the middle. Pure string functions; the CLI chooses the width."""

from __future__ import annotations

import re
import textwrap
from typing import List, Optional

__all__ = ["fit", "shorten_middle", "DEFAULT_WIDTH", "MIN_WIDTH"]

#: the width used when the output is not a terminal and COLUMNS is not set
DEFAULT_WIDTH = 100
#: narrower requests are raised to this (a line needs room for a label and a few words)
MIN_WIDTH = 40

ELLIPSIS = "..."

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# where a continuation line starts: under the text after a label ("1. ", "- ", "fix: ", a word or
# two and a colon), else four columns in from the line's own indentation
_HANG = re.compile(r"(\s*)((?:\d+\. )|(?:- )|(?:[A-Za-z][\w ]{0,24}: ))?")


def _visible(s: str) -> int:
    return len(_ANSI.sub("", s))


def shorten_middle(s: str, n: int) -> str:
    """``s`` if it has at most ``n`` characters, else its start and end around ``...``, ``n`` long.

    A path keeps its first folder and its file name when they fit: the middle is what repeats
    (``/usr/local/lib/python3.11/site-packages/...``) and what says least."""
    if len(s) <= n:
        return s
    if n <= len(ELLIPSIS) + 2:
        return s[:n]
    keep = n - len(ELLIPSIS)
    tail = keep - keep // 2
    # prefer to cut at a "/" so that whole names stay readable
    cut = s.find("/", len(s) - tail)
    if cut != -1 and len(s) - cut >= tail // 2:
        tail = len(s) - cut
    head = keep - tail
    return s[:head] + ELLIPSIS + s[len(s) - tail:]


def _shorten_words(line: str, room: int) -> str:
    """Shorten every word (a path, a URL) that cannot fit on a line of ``room`` characters."""
    if room < 8:
        return line
    parts = re.split(r"(\s+)", line)
    return "".join(shorten_middle(p, room) if len(p) > room and not p.isspace() and "\x1b" not in p else p
                   for p in parts)


def _fit_line(line: str, width: int) -> List[str]:
    if _visible(line) <= width:
        return [line]
    m = _HANG.match(_ANSI.sub("", line))
    lead = len(m.group(1)) if m else 0
    hang = lead + (len(m.group(2)) if m and m.group(2) else 4)
    if hang > width // 2:
        hang = lead + 4
    if hang >= width - 10:
        hang = min(lead, 4)
    first = line[:lead]
    body = _shorten_words(line[lead:], width - hang)
    wrapped = textwrap.wrap(body, width=width, initial_indent=first, subsequent_indent=" " * hang,
                            break_long_words=False, break_on_hyphens=False)
    return wrapped or [line]


def fit(text: str, width: Optional[int]) -> str:
    """``text`` with every line longer than ``width`` wrapped (continuation lines indented under
    the line's label) and words too long for any line shortened in the middle. ``None``: as is."""
    if not width:
        return text
    width = max(int(width), MIN_WIDTH)
    out: List[str] = []
    for line in text.split("\n"):
        out.extend(_fit_line(line, width))
    return "\n".join(out)
