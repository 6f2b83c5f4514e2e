"""Whose machine a report in a pasted thread describes (issue 20, attack34).

A bug report pasted with its thread holds the reporter's environment and often others': a maintainer answering "works
on my machine, my env: ..." with their own ``collect_env`` or ``pip list``, another user quoted. Those reports describe
another machine; read as the reporter's, they put a second torch, driver or GPU in the facts (or replace the
reporter's). :class:`ThreadWatch` follows the thread's author lines (``author · description|comment|review · date``,
the form of a thread copied with its headers) and says, line by line, whether a line belongs to another author's
environment:

* in a comment by another author than the description's, once a line of it says the environment is the writer's own
  ("my env:", "my environment is", "on my machine", "here is mine", "I'm using RTX 2080Ti, CUDA 10.2", "I have torch
  1.8.1 and cuda 11.1", "Same here with torch LTS (torch-1.8.2+cu111)"; or, outside a
  quote, "I can't reproduce it", "Tested on:", "I tested the code on ...", a line "Environment:", a collect_env the
  writer ran, also from its first field without its "Collecting environment information..." line: attack35, facts22,
  facts29; the output one "should get", "the expected output ... would be:": infer24), up to the
  next author line;
* in a quote block (``>`` lines) that says the same ("> my env: ..."): the quoted words are someone else's, up to the
  block's end, whoever quotes them.

The reporter's own "my env:" in the description (or in a later comment of theirs) is theirs. Without author lines the
text is one author's. :meth:`ThreadWatch.speaker` says who wrote the current line (the reporter, another author, one
whose role the text does not show, or a text without author lines): a thread's resolution weighs by it
(:mod:`envcheck.engine.resolution`).

A question about the addressee's versions pairs with the next comment by another author (issue 20, facts22):

* when the answer is the reporter's ("What's the output of nvidia-smi?" -> the reporter's next comment ``410.48,,``),
  :meth:`ThreadWatch.answer` names the kind asked for on the answer's first lines, so that a bare value there is read
  as that fact (:func:`envcheck.paste.readers.key_value.answer` checks it);
* when the answer is another's (the reporter asks "what's your GPU?" or "想知道作者...使用的cuda版本" and the maintainer
  answers with their own GPU or nvidia-smi), the whole answering comment is that author's environment.

A question never states a fact itself, and a question that names several kinds pairs no bare value. Linear: one
bounded pattern per line.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Deque, Optional, Tuple

__all__ = ["ThreadWatch"]

#: a thread's author line, as a thread copied with its headers holds it
_AUTHOR = re.compile(r"^(?P<who>[\w.\[\]-]{1,60}) · (?P<kind>description|comment|review[\w ]{0,20}) · \d{4}-\d\d-\d\d")
#: the search index's mark where an excerpt begins inside a post: "[turn 0 by NAME, continued]" (turn 0 is the issue's
#: description, a later turn a comment): what follows is that author's post (tfcudnn38: 95 texts of the sets carry it)
_TURN = re.compile(r"^\[turn (?P<turn>\d{1,4}) by (?P<who>[\w.\[\]-]{1,60}), continued\]$")
#: the writer says what follows is their own environment
_OWN_ENV = re.compile(
    r"(?i)(?<![\w'])(?:my|our)\s{1,2}(?:env|environment|setup|configuration|config|versions?)(?:\s{1,2}(?:is|are))?"
    r"\s{0,2}[:：]|(?<![\w'])(?:my|our)\s{1,2}(?:env|environment|setup)\s{1,2}(?:is|are)\b"
    r"|(?<![\w'])on\s{1,2}(?:my|our)\s{1,2}(?:machine|side|end|system|computer|box|server|workstation)(?![\w'])"
    r"|(?<![\w'])here(?:'s|\s{1,2}is)\s{1,2}(?:mine|my\s{1,2}(?:env|environment|setup))(?![\w'])"
    # "I'm using RTX 2080Ti, CUDA 10.2, ... cuDNN8.3.0" in another's comment (VinAIResearch/CPM#9): the writer's own
    # machine ("I trained and tested the code on ..." is _RAN_HERE's)
    r"|(?<![\w'])(?:i'm|i\s{1,2}am|we're|we\s{1,2}are)\s{1,2}using\s{1,2}(?:an?\s{1,2})?(?:rtx|gtx|tesla|nvidia|geforce|cuda|torch"
    r"|pytorch|python|driver)(?![\w'])"
    # "I have torch 1.8.1 and cuda 11.1 and I'm still getting this error", "Same here with torch LTS (torch-1.8.2+cu111)"
    # in another's comment (apex#1314, pastes24): the writer's own versions
    r"|(?<![\w'])(?:i\s{1,2}have|i've\s{1,2}got|same\s{1,2}(?:here|issue|problem|error)\s{1,2}(?:with|on|using))\s{1,2}"
    r"(?:an?\s{1,2})?(?:rtx|gtx|tesla|nvidia|geforce|cuda|torch|pytorch|python|driver|tensorflow)(?![\w'])"
    # (attack42) "Same error here, my driver version is 410.48" in another's comment: the writer's own driver (read as
    # the reporter's, it met the reporter's torch in pypi29's assumed-build driver check)
    r"|(?<![\w'])(?:my|our)\s{1,2}(?:nvidia\s{1,2})?(?:driver|gpu|card|cuda|cudnn|torch|pytorch)(?:\s{1,2}version)?"
    r"(?:\s{1,2}(?:is|was)(?![\w'])|\s{0,2}[:：])")
#: (attack35) what another author's reply says it ran, without "my": "I can't reproduce it", "Tested on:", a line
#: "Environment:", a collect_env the writer ran. Not looked for in quotes or the reporter's own comments: the reporter
#: quoting their own collect_env, or giving their "Environment:", speaks of their machine
_RAN_HERE = re.compile(
    r"(?i)(?<![\w'])(?:can(?:not|'t|’t)|could\s{1,2}not|couldn't|unable\s{1,2}to|failed\s{1,2}to)\s{1,2}reproduce(?![\w'])"
    r"|(?<![\w'])tested\s{1,2}(?:it\s{1,2}|this\s{1,2}|the\s{1,2}code\s{1,2})?(?:on|with)(?![\w'])"
    r"|^(?:environment|env|versions?|setup|system\s{1,2}info(?:rmation)?)\s{0,2}[:：]\s{0,3}$"
    r"|^Collecting\s{1,2}environment\s{1,2}information"
    # (facts29) the same collect_env pasted from its first field, without the "Collecting environment information..."
    # line: "I have the same question, please help" then ```PyTorch version: 1.3.1 ... (pytorch#30071)
    r"|^PyTorch\s{1,2}version\s{0,2}[:：]?\s{0,2}\d")

#: (infer24) what another author's reply shows as the output one should get, not what a machine printed: "The expected
#: output for the nightly binaries + CUDA 11.8 would be:" (pytorch#95121, a maintainer's example), "you should see:",
#: "it should look like this:": the block after it is no machine's environment, up to the next author line
_EXAMPLE = re.compile(
    r"(?i)(?:(?<![\w'])expected\s{1,2}output|(?<![\w'])(?:should|would)\s{1,2}(?:be|see|get|look\s{1,2}like|print|show"
    r"|return)(?![\w'])).{0,100}[:：]\s{0,3}$")


#: a line asks something (English, Chinese, Japanese, Russian question marks and words)
_ASKS = re.compile(r"[?\uff1f]|请问|想知道|多少|什么|哪个|吗")
#: ... of the addressee ("your", "you use", "作者" the author, "您" / "你" you; not the greeting "你好")
_TO_YOU = re.compile(r"(?i)(?<![\w'])(?:your|you|author's)(?![\w'])|作者|您|你(?!好)")
#: the kind of fact a question asks for, by its words; the first kind named wins only alone (see :func:`_asked_kind`)
_KIND_WORDS: Tuple[Tuple[str, "re.Pattern[str]"], ...] = (
    ("driver", re.compile(r"(?i)driver|nvidia-smi|驱动|ドライバ|драйвер")),
    ("cuda", re.compile(r"(?i)(?<![a-z0-9])cuda(?![a-z0-9-])")),
    ("torch", re.compile(r"(?i)(?<![a-z0-9])(?:py)?torch(?![a-z0-9])")),
    ("python", re.compile(r"(?i)(?<![a-z0-9])python(?![a-z0-9])")),
    ("gpu", re.compile(r"(?i)(?<![a-z0-9])(?:gpu|graphics card|video card)(?![a-z0-9])|显卡")),
)
#: a question about the GPU's size or count, not its model: "how much memory", "how many GPUs", "VRAM", "显存"
_QUANTITY = re.compile(r"(?i)how\s{1,2}(?:much|many|big)|(?<![a-z])v?ram(?![a-z])|memory|显存|内存|多大")
#: how many lines of the answering comment may hold the bare answer (after its @mentions)
_ANSWER_LINES = 2


def _asked_kind(s: str) -> Optional[str]:
    """The kind a question line asks the addressee for ("" when it asks of their environment in general, or of several
    kinds; None when the line is no such question). A driver question may name the GPU ("update the gpu driver?")."""
    if len(s) > 300 or not _ASKS.search(s) or not _TO_YOU.search(s):
        return None
    kinds = [k for k, pat in _KIND_WORDS if pat.search(s)]
    if "gpu" in kinds and ("driver" in kinds or _QUANTITY.search(s)):
        # a driver question may name the GPU; "How much memory does your GPU have?" asks a size, not which GPU
        # (whisperX#315: "16gb VRAM, large-v2, 20 batch size" is no GPU's name)
        kinds.remove("gpu")
    if kinds:
        return kinds[0] if len(kinds) == 1 else ""
    return "" if re.search(r"(?i)\b(?:version|setup|environment|env)\b|版本|环境", s) else None


#: how much of the post before a bare confirmation is kept (its last lines, and characters): an advice and the command
#: block that follows it ("Install OneAPI and run these in CMD ... oneapi-vars.bat ... env\\vars.bat", then how to start
#: the program: vladmandic/sdnext#3548, prose28)
_PREV_LINES = 6
_PREV_CHARS = 400
#: a code fence line (```, ```bash): no text of the post, it takes no place in its kept tail
_FENCE = re.compile(r"^(?:`{3}|~{3})[\w+-]{0,20}$")


class ThreadWatch:
    """Fed every line of a pasted text in order; :meth:`foreign` says whether it belongs to another author's
    environment (see the module's docstring)."""

    def __init__(self) -> None:
        self._reporter: Optional[str] = None
        self._author: Optional[str] = None
        self._first: Optional[str] = None  # the first author of the text
        self._other_env = False  # another author's comment has said its environment follows
        self._quote_env = False  # the current quote block has said its environment follows
        self._asker: Optional[str] = None  # who asked the addressee's versions last, and of what kind
        self._asked: Optional[str] = None
        self._answer_left = 0  # lines of the reporter's answering comment that may still hold the bare answer
        self._answer_for: Optional[str] = None  # the kind that answer is of
        self._answer_kind: Optional[str] = None  # the kind asked, on the line just fed (see :meth:`answer`)
        self._block: Deque[str] = deque(maxlen=_PREV_LINES)  # the last lines of the current author's post
        self._prev: Optional[str] = None  # the tail of the post before the current one
        self._prev_author: Optional[str] = None

    def answered(self) -> Optional[str]:
        """The tail of the post just before the current one (its last lines, at most :data:`_PREV_CHARS`
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
        self._answer_kind = None
        if " · " in s:
            m = _AUTHOR.match(s)
            if m:
                if self._author is not None:
                    self._prev = " ".join(self._block)[-_PREV_CHARS:] or None
                    self._prev_author = self._author
                self._block.clear()
                self._new_comment(m.group("who"), m.group("kind"))
                return False
        elif s.startswith("[turn ") and self._author is None:
            t = _TURN.match(s)
            if t:
                self._new_comment(t.group("who"), "description" if t.group("turn") == "0" else "comment")
                return False
        self._pair(s)
        quoted = s.startswith(">")
        if s and not quoted and self._author is not None and not _FENCE.match(s):
            self._block.append(s[:_PREV_CHARS])
        if not quoted:
            self._quote_env = False
        if len(s) <= 400 and _OWN_ENV.search(s):
            if quoted:
                self._quote_env = True
            elif self._reporter is not None and self._author not in (None, self._reporter):
                self._other_env = True
        elif (not quoted and len(s) <= 400 and self._reporter is not None and self._author not in (None, self._reporter)
              and _RAN_HERE.search(s)):
            self._other_env = True
        elif not quoted and len(s) <= 400 and self._author not in (None, self._reporter or self._first) \
                and _EXAMPLE.search(s):
            self._other_env = True  # another author's example output (the first author stands for the reporter
            # where the excerpt begins with a comment)
        return self._other_env or (quoted and self._quote_env)

    def answer(self) -> Optional[str]:
        """The kind of fact a question asked for, when the line just fed to :meth:`foreign` may be its bare answer in
        the reporter's next comment; None otherwise."""
        return self._answer_kind

    def _new_comment(self, who: str, kind: str) -> None:
        self._author = who
        self._first = self._first or who
        if self._reporter is None:
            self._reporter = who if kind == "description" else None
        self._other_env = self._quote_env = False
        self._answer_left = 0
        if self._asker is None or who == self._asker:
            return
        # the first comment by another author after a question about the addressee's versions answers it
        if who != self._reporter and self._reporter is not None:
            self._other_env = True  # another author's own versions
        elif self._asked:
            self._answer_left, self._answer_for = _ANSWER_LINES, self._asked
        self._answer_kind = None
        self._asker = self._asked = None

    def _pair(self, s: str) -> None:
        if self._answer_left and s and not re.match(r"^@[\w-]{1,40}\s*$", s):
            self._answer_left -= 1
            self._answer_kind = self._answer_for
        if self._author is not None and s and not s.startswith(">"):
            kind = _asked_kind(s)
            if kind is not None:
                self._asker, self._asked = self._author, kind
