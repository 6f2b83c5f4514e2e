"""Prose that one line does not hold (issue 20): a sentence split over lines and a line too long to read whole.

The prose readers (:mod:`~envcheck.paste.readers.prose_facts`, :mod:`~envcheck.paste.readers.prose_cause`) read one
line at a time, each pattern bounded to :data:`LIMIT` characters. Two forms users post daily put a sentence elsewhere:

* **a sentence split over lines**: GitHub's hard-wrapped prose and e-mail replies ("... it has dumbed" / "> down torch
  to no cuda"), a bullet continued on the next line, a command on its own line in the middle of a sentence ("adding
  "--gpus all" to" / ``docker run ... --gpus all ...`` / "fixed the problem."). :class:`Joiner` keeps the lines of the
  sentence being read (at most :data:`MAX_LINES` lines, :data:`LIMIT` characters, one blank line between two of them)
  and reads the joined text once a line continues the one before; a line continues it where the one before ends
  without closing its sentence (``.``, ``!``, ``?``, ``:``, ``;``) and either ends with a word that cannot end one
  ("to", "and", "with", "my", ...) or the line starts in lower case, with a command (a backtick, a shell prompt) or
  the one before was a command. Headers, table rows, code fences, list items and a thread's author lines start no
  continuation. Only what the joined text shows and none of its lines showed alone is added.
* **a line over** :data:`LIMIT` **characters** (a paragraph typed as one line): :func:`pieces` cuts it into pieces of
  whole sentences of at most :data:`LIMIT` characters (a sentence longer than that into :data:`LIMIT`-character
  windows at a blank), each read as a line.

Both are linear by construction: each line is part of at most :data:`MAX_LINES` joined texts of at most :data:`LIMIT`
characters, and a long line's pieces cover it, each character in at most two (a sentence cut inside repeats its
last :data:`_OVERLAP` characters in the next piece).
"""

from __future__ import annotations

import re
from typing import Callable, List, Optional, Set

from envcheck.paste.readers.base import Fact

__all__ = ["LIMIT", "MAX_LINES", "pieces", "leaves_open", "Joiner", "SENTENCE_END", "sentence_start", "sentence_stop"]

#: the longest text a prose reader reads at once (its patterns are bounded for this length)
LIMIT = 400
#: the most lines one joined sentence spans
MAX_LINES = 3
#: where a sentence ends inside a line: its closing mark, then a blank (a version's dot is followed by a digit)
_END = re.compile(r"[.!?;。！？；](?=\s)")
#: where a sentence ends, for the prose readers that judge one sentence (a dot of a version number is not: a space or
#: the line's end follows)
SENTENCE_END = re.compile(r"[.!?;。！？；](?:\s|$)")
#: a line that closes its sentence (or introduces a block: "I get this error:")
_CLOSED = re.compile(r"[.!?:;。！？：；]\s{0,3}$|\.\)$|[)\]]\.?$")
#: a last word that cannot end a sentence: a preposition, an article, a conjunction, a possessive, an auxiliary
_DANGLING = re.compile(r"(?i)(?<![\w'-])(?:to|and|or|but|with|without|against|of|the|a|an|my|our|your|is|are|was|were|by|for|from"
                       r"|in|on|at|via|using|that|than|as|then|so|because|installed|install|ran|run|running|get|got"
                       r"|says?|shows?|returns?|reveals?|reports?|prints?|version|like)\s{0,3}$")
#: a line that is no sentence's part (a header, a table row, a fence, a thread's author line, a log's timestamp or
#: level, a traceback's frame, an exception)
_BLOCK = re.compile(r"^(?:#|\||```|~~~|\[\w{1,12}\]|\d{4}-\d\d-\d\d|\d\d:\d\d|File\s\"|Traceback"
                    r"|[A-Z][\w.]{0,60}(?:Error|Exception|Warning):)|\s·\s(?:description|comment|review)\s·\s")
#: a list item's start: it starts a sentence (an item's text may go on on the next line)
_ITEM = re.compile(r"^(?:[-*+•]\s|\d{1,3}[.)]\s)")
#: a line that is a command (in backticks, after a shell prompt, or a tool's name)
_COMMAND = re.compile(r"^(?:`|\$\s|>>>\s|(?:sudo\s)?(?:docker|pip3?|conda|python3?|nvidia-smi|nvcc|apt(?:-get)?|uv)\s)")
_LOWER_START = re.compile(r"^[a-z]")

LineReader = Callable[[str], List[Fact]]


#: a Markdown link's target (``[text](https://...)``) and a bare web address: no part of a sentence, and what makes
#: most long lines long
_LINK = re.compile(r"(?<=\])\((?:https?://|/|\.\.?/)[^()\s]{0,2000}\)|(?<![\w/])https?://[^\s<>()\]\[`'\"]{1,2000}")


#: how much of a sentence cut inside (at a blank) the next piece repeats
_OVERLAP = 80


def pieces(s: str, limit: int = LIMIT) -> List[str]:
    """``s`` (a line longer than ``limit``) without its link targets and web addresses, cut into consecutive pieces of
    whole sentences, each at most ``limit`` characters; a sentence longer than ``limit`` is cut at the last blank
    before the limit (or at the limit), the next piece repeating up to :data:`_OVERLAP` characters before the cut."""
    s = _LINK.sub("", s)
    out: List[str] = []
    start = 0
    n = len(s)
    while start < n:
        if n - start <= limit:
            out.append(s[start:])
            break
        stop = start + limit
        cut = -1
        for m in _END.finditer(s, start, stop):
            cut = m.end()
        if cut <= start:
            blank = s.rfind(" ", start + limit // 2, stop)
            cut = blank if blank > start else stop
            out.append(s[start:cut])
            # cut inside a sentence: the next piece starts again up to _OVERLAP characters before the cut (at a blank),
            # so that the words before its first version stay with it ("... I am honestly not" | "using torch 2.1.0":
            # read alone, the second piece stated the version; attack35). It still starts past limit // 2 - _OVERLAP
            # characters after this one did: linear.
            back = s.find(" ", cut - _OVERLAP, cut)
            start = back + 1 if back > start else cut
        else:
            out.append(s[start:cut])
            start = cut
        while start < n and s[start] == " ":
            start += 1
    return [p.strip() for p in out if p.strip()]


def leaves_open(line: str) -> bool:
    """Whether a prose line ends on a word that cannot end a sentence ("... recommends using"): its sentence goes on
    on the next line."""
    return len(line) <= LIMIT and not _CLOSED.search(line) and not _BLOCK.search(line) and bool(_DANGLING.search(line))


def _continues(before: str, after: str, before_command: bool) -> bool:
    """Whether line ``after`` continues the sentence line ``before`` left open."""
    if _CLOSED.search(before) or _BLOCK.search(before) or _BLOCK.search(after) or _ITEM.match(after):
        return False
    return bool(_DANGLING.search(before) or _LOWER_START.match(after) or _COMMAND.match(after) or before_command)


def _key(f: Fact) -> str:
    """What makes a fact of a joined sentence new: its field; for a thread's resolution, its sentence too (a line's
    bare "fixed the problem." is not the joined "adding --gpus all to docker run ... fixed the problem.")."""
    return f"{f.field}|{f.value}" if f.field == "seen:resolution" else f.field


class Joiner:
    """Reads sentences split over lines: fed the text of each line no report reader takes (``None`` for a line a reader
    takes, ``""`` for a blank one), it returns what the joined sentence shows beyond what its lines showed alone.
    ``read``: the prose readers of one line (text -> facts)."""

    def __init__(self, read: LineReader):
        self._read = read
        self._lines: List[str] = []
        self._seen: Set[str] = set()  # the fields the run's lines showed alone
        self._blanks = 0
        self._command = False  # the last line of the run is a command

    def _reset(self) -> None:
        self._lines, self._seen, self._blanks, self._command = [], set(), 0, False

    def feed(self, s: Optional[str], alone: List[Fact]) -> List[Fact]:
        """Line ``s`` (stripped) and what it showed alone; returns the facts of the joined sentence it ends."""
        if s is None or len(s) > LIMIT:
            self._reset()
            return []
        if not s:
            self._blanks += 1
            if self._blanks > 1:
                self._reset()
            return []
        out: List[Fact] = []
        if self._lines and _continues(self._lines[-1], s, self._command):
            self._lines.append(s)
            text = " ".join(self._lines)
            if len(text) <= LIMIT:
                new = [f for f in self._read(text) if _key(f) not in self._seen and f.field != "prose"]
                seen = {_key(f) for f in alone}
                out = [f for f in new if _key(f) not in seen]
            if len(self._lines) >= MAX_LINES or len(text) > LIMIT:
                self._lines = self._lines[-1:]
                self._seen = set()
        else:
            self._lines = [s]
            self._seen = set()
        self._seen |= {_key(f) for f in alone} | {_key(f) for f in out}
        self._blanks = 0
        self._command = bool(_COMMAND.match(s))
        return out


def sentence_start(s: str, at: int) -> int:
    """Where the sentence holding ``s[at]`` starts (after the last :data:`SENTENCE_END` before ``at``)."""
    begin = 0
    for m in SENTENCE_END.finditer(s, 0, at):
        begin = m.end()
    return begin


def sentence_stop(s: str, at: int) -> int:
    """Where the sentence holding ``s[at]`` stops (the end of the first :data:`SENTENCE_END` from ``at``, else the
    line's end)."""
    stop = SENTENCE_END.search(s, at)
    return stop.end() if stop else len(s)
