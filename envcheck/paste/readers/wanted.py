"""Sections that list versions a project *wants*, not the ones installed: a heading or label line such as ``##
Supported versions``, ``Requirements:``, ``my requirements.txt``, ``environment.yml``, ``**Tested with:**``,
``Dependencies``, ``环境要求`` and the block under it (a fenced block, or the lines up to the next blank line or
heading); a ``Supported Python versions: 3.8, 3.9`` line alone. Their package tables, ``torch==2.0.1`` rows and
Python lists say nothing of the machine: this reader takes those lines so that no other reader reads them as installed
versions, and says so in a ``note`` (explain's ``notes``: ``not-checked``, naming the section)."""

from __future__ import annotations

import re
from typing import Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "wanted versions"
_MARK = r"(?:#{1,6}\s{0,3})?(?:[-*]\s{1,3})?(?:\*\*|__)?\s{0,2}"
_END = r"\s{0,2}(?:\*\*|__)?\s{0,2}[:：]?\s{0,2}(?:\*\*|__)?\s{0,2}$"
#: the words that make a section one of wanted versions (the start of the heading / label): a list of requirements,
#: or "supported / required / tested ..." naming what (a version, an environment, a package: "Minimum reproducible
#: example" is not one)
_NAMED = (r"(?:supported|required|recommended|tested|minimum|compatible)\b[^:：]{0,40}?\b(?:versions?|environments?|env"
          r"|configurations?|setups?|platforms?|python|(?:py)?torch|cuda|tensorflow|software|packages|librar(?:y|ies)"
          r"|stack|with|on)\b[^:：]{0,30}?")
_WANTED = r"(?:(?:requirements?|dependencies|prerequisites|install(?:ation)?\s{1,3}requirements)\b[^:：]{0,50}?|" + _NAMED + ")"
_FILES = r"(?:[\w./-]{0,60}requirements[\w.-]{0,30}\.(?:txt|in)|environment\.ya?ml|setup\.py|pyproject\.toml)"
_WHOSE = r"(?:here(?:'s|\s{1,3}is|\s{1,3}are)\s{1,3})?(?:(?:my|the|our|project'?s?)\s{1,3})?"
_HEADING = re.compile(r"^" + _MARK + _WHOSE + r"(?P<what>" + _WANTED + r"|"
                      + _FILES + r"|环境要求|依赖(?:版本)?|推荐环境|运行环境要求)" + _END, re.I)
#: a one-line label with its values: ``Supported Python versions: 3.8, 3.9, 3.10``, ``Requires: torch>=2.0``
_LABEL = re.compile(r"^" + _MARK + r"(?P<what>" + _NAMED + r"|requires)\s{0,2}(?:\*\*|__)?\s{0,2}[:：]\s{0,2}\S", re.I)
_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)")
_NEXT_HEADING = re.compile(r"^\s{0,3}(?:#{1,6}\s|\*\*[^*]{1,80}\*\*\s*[:：]?\s*$)")
_MAX = 400  # lines of a section taken at most


def _block_end(lines: Sequence[str], i: int) -> int:
    """The end (exclusive) of the block under the heading at ``i``: a fenced block, or the lines up to a blank line
    or the next heading; up to two blank lines between the heading and the block."""
    j, n = i + 1, min(len(lines), i + 1 + _MAX)
    while j < n and j < i + 3 and not lines[j].strip():
        j += 1
    if j < n and _FENCE.match(lines[j]):
        k = j + 1
        while k < n and not _FENCE.match(lines[k]):
            k += 1
        return min(k + 1, n)
    while j < n and lines[j].strip() and not _NEXT_HEADING.match(lines[j]):
        j += 1
    return j


def detect(c: Line) -> int:
    if len(c.s) > 120 or not c.s or "capability is" in c.low:
        return 0  # "The minimum required Cuda capability is 6.0." (TensorFlow's line, wrapped) states a floor
    if _HEADING.match(c.s):
        return max(1, _block_end(c.lines, c.i) - c.i)
    return 1 if _LABEL.match(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    m = _HEADING.match(s) or _LABEL.match(s)
    if not m:
        return partial(NAME, [])
    what = m.group("what").strip()
    rows = sum(1 for ln in lines[1:] if ln.strip() and not _FENCE.match(ln))
    said = f"{rows} line(s) under it" if rows else "its values"
    note = (f"not-checked: the section '{what[:60]}' lists versions wanted or supported, not the installed ones; "
            f"{said} are not read as facts of the machine (paste `pip list` or `python -m torch.utils.collect_env` "
            "output for those)")
    return partial(NAME, [Fact("note", note, s)])
