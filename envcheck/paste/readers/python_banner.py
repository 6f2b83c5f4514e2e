"""The interactive interpreter's banner, pasted with a REPL session or a launcher's log: ``Python 3.10.11
(tags/v3.10.11:7d4cc5a, Apr  5 2023, 00:38:17) [MSC v.1929 64 bit (AMD64)] on win32``, ``Python 3.12.5 | Intel
Corporation | (main, Sep  9 2024, 23:35:37) [GCC 14.1.0] on linux``, and the first line alone where a launcher
breaks it (``Python 3.8.10 (default, May 26 2023, 14:05:08)``), or a line that is only ``Python 3.10.11``: the Python's
version, and its platform where the banner ends with ``on win32`` / ``on linux`` / ``on darwin``."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "python banner"
_BANNER = re.compile(r"^(?:>>>\s{0,3})?Python\s(?P<v>[23]\.\d{1,2}\.\d{1,2})(?:[abc]|rc)?\d{0,2}\+?\s{1,3}"
                     r"(?:\|[^|]{1,80}\|\s{1,3})?\((?:main|default|tags/|heads/|v\d|bpo-|[A-Z][a-z]{2}\s)[^()]{0,120}\)"
                     r"\s{0,3}(?:\[[^\]]{1,120}\]\s{0,3}(?:on\s(?P<plat>win32|linux2?|darwin|cygwin))?)?\s*$")
#: a line that is only a Python version ("Python 3.10.11" under a report's "### Versions")
_BARE = re.compile(r"^Python\s(?P<v>[23]\.\d{1,2}\.\d{1,2})\s*$", re.I)
_PLATFORM = {"win32": "win32", "linux": "linux", "linux2": "linux", "darwin": "darwin", "cygwin": "win32"}


def _facts(s: str) -> List[Fact]:
    m = _BANNER.match(s) or _BARE.match(s) if s.startswith(("Python ", "python ", ">>>")) else None
    if not m:
        return []
    out = [Fact("python", m.group("v"), s), Fact("seen:python", s[:300], s), Fact("format", NAME, s)]
    if m.re is _BANNER and m.group("plat"):
        out.append(Fact("platform", _PLATFORM[m.group("plat")], s))
    return out


def detect(c: Line) -> int:
    return 1 if _facts(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    return partial(NAME, _facts(text_of(lines[0])) if lines else [])
