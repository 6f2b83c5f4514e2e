"""The environment sections of a report that no reader could read: a heading such as ``### Environment``, ``System
Info``, ``## Versions``, ``### Your current environment``, ``**Environment**:``, ``基础环境`` whose lines (up to the next
heading) gave no fact. Such a section is said as unknown (a ``note``: ``not-checked``, naming the section and the
version-like tokens it shows), never read as a failure and never filled with a default."""

from __future__ import annotations

import re
from typing import List, Optional

from envcheck.paste.readers.base import Fact, Partial, partial

__all__ = ["SectionWatch"]

NAME = "unread section"
_ENV_HEADING = re.compile(
    r"^(?:#{1,6}\s{0,3}|\*\*\s{0,2})?(?P<what>(?:your\s{1,3}current\s{1,3})?(?:environment|env|system\s{1,3}info(?:rmation)?"
    r"|versions?|system|setup|platform)(?:\s{1,3}(?:info(?:rmation)?|details))?|基础环境|运行环境|软件环境|系统环境|环境(?:信息)?)"
    r"\s{0,2}(?:\*\*)?\s{0,2}[:：]?\s{0,2}(?:\*\*)?\s{0,2}$", re.I)
#: what ends a section: another Markdown heading or a bold label alone on its line
_ANY_HEADING = re.compile(r"^(?:#{1,6}\s|\*\*[^*]{1,80}\*\*\s{0,2}[:：]?\s{0,2}$)")
_VERSION = re.compile(r"(?<![\w.])\d{1,3}\.\d{1,3}(?:\.\d{1,5})?(?![\w.])")
_MAX_LINES = 400


class SectionWatch:
    """Follows the environment section the segmenter is in; :meth:`line` is told each non-blank line and whether a
    reader read facts from it, and returns the note of a section that closed without any."""

    def __init__(self) -> None:
        self.title: Optional[str] = None
        self.lines = 0
        self.read = False
        self.versions: List[str] = []

    def line(self, s: str, read: bool) -> Optional[Partial]:
        """``s``: the stripped line; ``read``: a reader read a fact from the lines starting here."""
        out = None
        is_heading = len(s) <= 120 and bool(_ANY_HEADING.match(s) or _ENV_HEADING.match(s))
        if is_heading or self.lines >= _MAX_LINES:
            out = self.close()
            hm = _ENV_HEADING.match(s) if is_heading else None
            if hm:
                self.title = hm.group("what").strip()
            return out
        if self.title is not None:
            self.lines += 1
            self.read = self.read or read
            if len(self.versions) < 3:
                self.versions += _VERSION.findall(s[:300])[: 3 - len(self.versions)]
        return out

    def close(self) -> Optional[Partial]:
        title, lines, read, versions = self.title, self.lines, self.read, self.versions
        self.title, self.lines, self.read, self.versions = None, 0, False, []
        if title is None or read or lines == 0:
            return None
        shows = (f"; it shows version-like values ({', '.join(versions)}) whose meaning is not known" if versions
                 else "; it holds no version envcheck can read (prose or an image)")
        note = (f"not-checked: the section '{title[:60]}' ({lines} line(s)) is in a form envcheck does not read, so "
                f"nothing was read from it{shows}; run `envcheck snapshot` on that machine, or paste there the output "
                "of `python -m torch.utils.collect_env` and of the GPU's own tool (nvidia-smi, rocm-smi or amd-smi, "
                "xpu-smi; system_profiler SPDisplaysDataType on a Mac)")
        return partial(NAME, [Fact("note", note, title)])
