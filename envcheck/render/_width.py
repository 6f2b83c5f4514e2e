"""Fit rendered text to a width: long lines wrap under their own label, over-long paths are
shortened in the middle. Pure string functions; the CLI chooses the width."""

from __future__ import annotations

import re
from typing import List, Optional

from envcheck import lazyre

__all__ = ["fit", "shorten_middle", "wrap", "DEFAULT_WIDTH", "MIN_WIDTH"]

#: the width used when the output is not a terminal and COLUMNS is not set
DEFAULT_WIDTH = 100
#: narrower requests are raised to this (a line needs room for a label and a few words)
MIN_WIDTH = 40

ELLIPSIS = "..."

_ANSI = lazyre.compile(r"\x1b\[[0-9;]*m")
# where a continuation line starts: under the text after a label ("1. ", "- ", "fix: ", a word or
# two and a colon), else four columns in from the line's own indentation
_HANG = lazyre.compile(r"(\s*)((?:\d+\. )|(?:- )|(?:[A-Za-z][\w ]{0,24}: ))?")


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


# textwrap's whitespace (ASCII only) and its chunking without hyphen breaks
_WS = "\t\n\x0b\x0c\r "
_WS_RUN = lazyre.compile(r"([\t\n\x0b\x0c\r ]+)")
_TO_SPACE = str.maketrans({c: " " for c in _WS})


def wrap(text: str, width: int, initial_indent: str = "", subsequent_indent: str = "") -> List[str]:
    """``textwrap.wrap(text, width, initial_indent=..., subsequent_indent=..., break_long_words=False,
    break_on_hyphens=False)``, line for line (tests/test_render_wrap.py compares them), without importing
    textwrap on the status path (its import compiles several patterns: ~0.5 ms of a ~55 ms run)."""
    chunks = [c for c in _WS_RUN.split(text.expandtabs().translate(_TO_SPACE)) if c]
    chunks.reverse()
    lines: List[str] = []
    while chunks:
        indent = subsequent_indent if lines else initial_indent
        room = width - len(indent)
        if chunks[-1].strip() == "" and lines:
            del chunks[-1]
        cur: List[str] = []
        n = 0
        while chunks and n + len(chunks[-1]) <= room:
            n += len(chunks[-1])
            cur.append(chunks.pop())
        if chunks and len(chunks[-1]) > room and not cur:
            cur.append(chunks.pop())  # a word longer than the line stays whole, on a line of its own
        if cur and cur[-1].strip() == "":
            del cur[-1]
        if cur:
            lines.append(indent + "".join(cur))
    return lines


def _fit_line(line: str, width: int) -> List[str]:
    if len(line) <= width or _visible(line) <= width:  # (never more visible characters than characters)
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
    wrapped = wrap(body, width, initial_indent=first, subsequent_indent=" " * hang)
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
