"""A GitHub issue form as it arrives in an issue: each field is a ``### Heading`` with its answer on the next
non-blank line (InvokeAI's form: ``### GPU model`` then ``RTX 5060 TI``; ``### Operating system`` then ``Windows``),
and a JSON object of versions pasted into a field (InvokeAI's "Python dependencies": ``"torch" : "2.6.0+cu124" ,``).

Both are read with the keys and value checks of hand-written bullets (:func:`fields.bullet_field`; a heading in another
language or two, "### Python version | Python 版本", by the key table of :mod:`~envcheck.paste.readers.kv_keys`): a heading whose
name is not one of those keys ("### Version number", "### GPU VRAM") and an answer that does not look like what the
key names are not read, and GitHub's ``_No response_`` for an empty field is unknown."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.paste.readers import fields, kv_keys
from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "issue form"

#: a form field's heading: GitHub renders each field's label as a level-3 heading
_HEAD = re.compile(r"^#{3}\s{1,3}(?P<key>[^\s#].{1,80}?)\s*$")
#: one ``"name" : "value"`` member of a JSON object on its own line (aligned with blanks, a comma after it)
_JSON_KV = re.compile(r'^\s{0,12}"(?P<key>[A-Za-z][\w .-]{0,40})"\s{0,40}:\s{0,40}"(?P<val>[^"\n]{1,80})"\s{0,40},?\s*$')
#: an answer line: not a heading, a fence, a list, a table or an object
_NOT_ANSWER = ("#", "`", "-", "*", "|", "{", "[", ">", "<")


def _answer(c: Line) -> Optional[int]:
    """The index of a heading's answer: the next non-blank line, at most two lines down, if it is a short value."""
    for k in (c.i + 1, c.i + 2):
        if k >= len(c.lines):
            return None
        t = text_of(c.lines[k]).strip()
        if not t:
            continue
        return k if len(t) <= 80 and not t.startswith(_NOT_ANSWER) else None
    return None


def _heading_facts(head: str, answer: str) -> List[Fact]:
    m = _HEAD.match(head)
    if not m:
        return []
    # a bilingual label ("Python version | Python 版本", a Chinese repository's form) names its kind in the key table
    key = kv_keys.CANONICAL.get(kv_keys.kind_of(m.group("key")) or "", m.group("key"))
    got = fields.bullet_field(key, answer.strip(), answer.strip())
    return got + [Fact("format", NAME, answer.strip())] if got else []


def _json_facts(s: str) -> List[Fact]:
    m = _JSON_KV.match(s)
    if not m:
        return []
    got = fields.bullet_field(m.group("key"), m.group("val"), s.strip())
    return got + [Fact("format", NAME, s.strip())] if got else []


def detect(c: Line) -> int:
    if _HEAD.match(c.s):
        k = _answer(c)
        return k - c.i + 1 if k is not None and _heading_facts(c.s, text_of(c.lines[k])) else 0
    return 1 if '"' in c.s and _json_facts(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    if not lines:
        return partial(NAME, [])
    first = text_of(lines[0])
    if _HEAD.match(first):
        return partial(NAME, _heading_facts(first, text_of(lines[-1])))
    return partial(NAME, _json_facts(first))
