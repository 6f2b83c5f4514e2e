"""A Markdown table of the environment, as issue forms and hand-written reports paste it: ``| OS | Windows 11 |``,
``| GPU | NVIDIA GeForce RTX 5070 Ti (572.83) |``, ``| Python | 3.13.5 (64-bit) |``, ``| PyTorch | 2.1.0+cu121 |``,
a ``| Package | Version |`` table of packages. Each two-cell row is read as the bullet of the same key would be
(:func:`~envcheck.paste.readers.fields.bullet_field`, the env blocks' :func:`~envcheck.paste.readers.fields.hf_field`);
a row whose key is a relevant package and whose value a version is a package row. The header and its ``|---|---|``
rule, and rows of any other shape, are left alone."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers import fields
from envcheck.paste.readers.base import RELEVANT, Fact, Line, Partial, listed, norm, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "markdown table"
MAX_ROWS = 200
_ROW = re.compile(r"^\|(?P<k>[^|]{1,80})\|(?P<v>[^|]{0,300})\|\s*$")
_RULE = re.compile(r"^\|(?:\s{0,3}:?-{2,}:?\s{0,3}\|){2,}\s*$")
#: a header naming versions that are asked for, not installed (``| Requirement | Minimum version |``, ``| Package |
#: Supported |``): a table of what a project needs, not of the machine
_WANTED = re.compile(r"requir|minim|\bmin\b|maxim|\bmax\b|support|recommend|tested|expected|compatib|latest|needed|"
                     r"\btarget|\bwanted|\bpinned", re.I)
Facts = List[Fact]


def _row(s: str) -> Facts:
    m = _ROW.match(s)
    if not m or _RULE.match(s):
        return []
    key, val = m.group("k").strip().strip("*`").strip(), m.group("v").strip()
    if not key or not val or listed(val):
        return []
    got = fields.hf_field(key, val, s)
    if not got or all(f.field == "format" for f in got):
        got = fields.bullet_field(key, val, s)
    if not got and RELEVANT.match(norm(key)) and re.match(r"^v?\d+\.\d+", val.strip("`")):
        got = [Fact("package", (key, val.strip("`").lstrip("v").split()[0], None), s)]
    return [f for f in got if f.field != "format"]


def _data_rows(lines: Sequence[str]) -> List[str]:
    """The table's rows without its header (the row right above the ``|---|---|`` rule) and the rule."""
    rows = [text_of(ln) for ln in lines]
    head = {k - 1 for k, s in enumerate(rows) if _RULE.match(s)}
    if any(0 <= k < len(rows) and _WANTED.search(rows[k]) for k in head):
        return []
    return [s for k, s in enumerate(rows) if k not in head and not _RULE.match(s)]


def _end(lines: Sequence[str], i: int) -> int:
    j = i
    while j < len(lines) and j - i < MAX_ROWS and text_of(lines[j]).startswith("|"):
        j += 1
    return j


def detect(c: Line) -> int:
    if not c.s.startswith("|") or c.i > 0 and text_of(c.lines[c.i - 1]).startswith("|"):
        return 0
    j = _end(c.lines, c.i)
    return j - c.i if any(_row(s) for s in _data_rows(c.lines[c.i:j])) else 0


def read(lines: Sequence[str]) -> Partial:
    out: Facts = [f for s in _data_rows(lines) for f in _row(s)]
    return partial(NAME, out + [Fact("format", NAME, lines[0])] if out else [])
