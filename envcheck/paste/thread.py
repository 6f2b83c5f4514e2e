"""Whose machine a report in a pasted thread describes (issue 20, attack34).

A bug report pasted with its thread holds the reporter's environment and often others': a maintainer answering "works
on my machine, my env: ..." with their own ``collect_env`` or ``pip list``, another user quoted. Those reports describe
another machine; read as the reporter's, they put a second torch, driver or GPU in the facts (or replace the
reporter's). :class:`ThreadWatch` follows the thread's author lines (``author · description|comment|review · date``,
the form of a thread copied with its headers) and says, line by line, whether a line belongs to another author's
environment:

* in a comment by another author than the description's, once a line of it says the environment is the writer's own
  ("my env:", "my environment is", "on my machine", "here is mine"), up to the next author line;
* in a quote block (``>`` lines) that says the same ("> my env: ..."): the quoted words are someone else's, up to the
  block's end, whoever quotes them.

The reporter's own "my env:" in the description (or in a later comment of theirs) is theirs. Without author lines the
text is one author's. :meth:`ThreadWatch.speaker` says who wrote the current line (the reporter, another author, one
whose role the text does not show, or a text without author lines): a thread's resolution weighs by it
(:mod:`envcheck.engine.resolution`). Linear: one bounded pattern per line.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Deque, Optional

__all__ = ["ThreadWatch"]

#: a thread's author line, as a thread copied with its headers holds it
_AUTHOR = re.compile(r"^(?P<who>[\w.\[\]-]{1,60}) · (?P<kind>description|comment|review[\w ]{0,20}) · \d{4}-\d\d-\d\d")
#: the writer says what follows is their own environment
_OWN_ENV = re.compile(
    r"(?i)(?<![\w'])(?:my|our)\s{1,2}(?:env|environment|setup|configuration|config|versions?)(?:\s{1,2}(?:is|are))?"
    r"\s{0,2}[:：]|(?<![\w'])(?:my|our)\s{1,2}(?:env|environment|setup)\s{1,2}(?:is|are)\b"
    r"|(?<![\w'])on\s{1,2}(?:my|our)\s{1,2}(?:machine|side|end|system|computer|box|server|workstation)(?![\w'])"
    r"|(?<![\w'])here(?:'s|\s{1,2}is)\s{1,2}(?:mine|my\s{1,2}(?:env|environment|setup))(?![\w'])")


#: how much of the post before a bare confirmation is kept (its last lines, and characters)
_ANSWER_LINES = 4
_ANSWER_CHARS = 300


class ThreadWatch:
    """Fed every line of a pasted text in order; :meth:`foreign` says whether it belongs to another author's
    environment (see the module's docstring)."""

    def __init__(self) -> None:
        self._reporter: Optional[str] = None
        self._author: Optional[str] = None
        self._other_env = False  # another author's comment has said its environment follows
        self._quote_env = False  # the current quote block has said its environment follows
        self._block: Deque[str] = deque(maxlen=_ANSWER_LINES)  # the last lines of the current author's post
        self._prev: Optional[str] = None  # the tail of the post before the current one
        self._prev_author: Optional[str] = None

    def answered(self) -> Optional[str]:
        """The tail of the post just before the current one (its last lines, at most :data:`_ANSWER_CHARS`
        characters) where another author wrote it: what a bare "That fixed it, thanks!" of the current author confirms.
        None without author lines or where the post before is the same author's."""
        if self._author is None or self._prev is None or self._prev_author == self._author:
            return None
        return self._prev

    def speaker(self) -> str:
        """Who wrote the line last fed: ``reporter`` (the description's author, in the description or a later comment),
        ``other`` (another author), ``unknown`` (author lines, but the description's is not in the text: an excerpt
        that begins with a comment) or ``text`` (no author line yet: one author's text)."""
        if self._author is None:
            return "text"
        if self._reporter is None:
            return "unknown"
        return "reporter" if self._author == self._reporter else "other"

    def foreign(self, raw: str) -> bool:
        """Whether line ``raw`` (as pasted) is part of another author's environment."""
        s = raw.strip()
        if " · " in s:
            m = _AUTHOR.match(s)
            if m:
                if self._author is not None:
                    self._prev = " ".join(self._block)[-_ANSWER_CHARS:] or None
                    self._prev_author = self._author
                self._block.clear()
                self._author = m.group("who")
                if self._reporter is None:
                    self._reporter = self._author if m.group("kind") == "description" else None
                self._other_env = self._quote_env = False
                return False
        quoted = s.startswith(">")
        if s and not quoted and self._author is not None:
            self._block.append(s[:_ANSWER_CHARS])
        if not quoted:
            self._quote_env = False
        if len(s) <= 400 and _OWN_ENV.search(s):
            if quoted:
                self._quote_env = True
            elif self._reporter is not None and self._author not in (None, self._reporter):
                self._other_env = True
        return self._other_env or (quoted and self._quote_env)
