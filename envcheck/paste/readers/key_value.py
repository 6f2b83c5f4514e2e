"""One ``key <separator> value`` line in any language a report is written in (issue 20, facts22): the key is looked up in
the one key table (:mod:`envcheck.paste.readers.kv_keys`: ``Версия драйвера``, ``ドライバのバージョン``, ``显卡驱动版本``,
``Treiberversion``, ``Driver Version``, ...), the separator is any of ``:``, the full-width ``：``, ``=``, ``->``, ``=>``,
``→`` or a tab, with or without blanks around it (aligned columns: ``Driver version       : 595.71.05``), or, for a
driver's version, a blank alone (``Driver Version 545.23.08``, ``ドライバのバージョン 531.14``); the line may
be a bullet, a numbered item, bold, or a code comment (``# torch version: 2.4.0a0+git0b331fd``, a repro's header).

The value is checked by the reader of its kind (:func:`envcheck.paste.readers.fields.bullet_field`): a driver's version
has its dots (``Driver 13.0`` is a CUDA version, ``驱动 430`` a branch: neither is read), a Python's is one, a GPU's is a
name. Unknown stays unknown: a value that does not parse is no fact (``Python版本：py31013``). A question ("What is your
driver version?"), a wish ("CUDA 11.8 is required") or a range ("CUDA 11.x or later", "驱动 >= 450") states nothing.

:func:`answer` reads a bare value given as the answer to a question about one kind (:mod:`envcheck.paste.thread` pairs
them): "What's the output of nvidia-smi?" then, in the reporter's next comment, ``410.48,,``.

Linear: one bounded pattern per line, the value at most :data:`_MAX` characters.
"""

from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

from envcheck.paste.readers import fields, kv_keys
from envcheck.paste.readers.base import Fact, Line, Partial, first_version, partial, remembered, text_of

__all__ = ["NAME", "detect", "read", "answer", "split"]

NAME = "key-value line"
_MAX = 200  # characters of a line read by this reader
#: what may stand before the key: a bullet, a numbered item ("1.", "2)", "3、"), a code comment's "#" (not a
#: Markdown heading's "##"), a quote's ">"
_PREFIX = re.compile(r"^(?:[-*\u2022+]\s{1,3}|\d{1,2}\s{0,2}[.)\uff09\u3001]\s{0,3}|#\s{1,3})?")
#: the separator between key and value: the first of these in the line (blanks around it are the value's / key's);
#: ``=`` only between blanks ("Driver Version = 535.54.03": not a package pin's ``python=3.8``)
_SEP = re.compile(r"(?:\s{0,40}(?:[:\uff1a\u2192]|->|=>|\t)|\s{1,40}=(?=\s))\s{0,40}")
#: the kinds a blank alone may part from their value (a version, the line's last word): a driver's only ("CUDA 12.8"
#: alone is a list's heading, a tool's column or a toolkit tried as often as the one installed)
_BARE_KINDS = ("driver",)
_LAST = re.compile(r"^(?P<key>.{1,60}?)\s{1,8}(?P<val>v?\d[\w.+-]{0,40})$")
#: a value that is no installed version: a range, a floor, a wish ("11.x or later", ">= 450", "以上", "需要")
_NOT_STATED = re.compile(r"(?i)\b(?:or\s{1,2}(?:later|higher|newer|above|greater)|and\s{1,2}(?:above|later|up)|at\s{1,2}least"
                         r"|required|recommended|minimum|needed)\b|\d\.x\b|>=?|≥|\+$|以上|以后|及以上|需要|要求|推荐|建议"
                         r"|以降|이상|или выше")
_QUESTION = re.compile(r"[?\uff1f]|吗|多少|什么")


def split(s: str) -> Optional[Tuple[str, str, str]]:
    """(kind, key, value) of a key-value line, or None: the key must be one of the table's."""
    t = _PREFIX.sub("", s[:_MAX], count=1).strip()
    comment = s.lstrip().startswith("#")  # a code comment: only with its separator ("# CUDA 10.2" labels a command)
    t = t.replace("**", "").strip()
    if not t or t.startswith("#") or _QUESTION.search(t):
        return None
    m = _SEP.search(t, 1)
    if m and m.start() <= 60:
        key, val = t[:m.start()], t[m.end():]
        kind = kv_keys.kind_of(key)
        if kind is not None:
            return kind, key.strip(), val.strip().strip("`").strip()
    if m or comment:
        return None
    b = _LAST.match(t)
    if b:
        kind = kv_keys.kind_of(b.group("key"))
        if kind in _BARE_KINDS:
            return kind, b.group("key").strip(), b.group("val")
    return None


def _value_facts(kind: str, val: str, line: str) -> List[Fact]:
    """The facts a value of ``kind`` states (none when it does not look like one)."""
    if not val or _NOT_STATED.search(val):
        return []
    if kind == "tensorflow":
        v = first_version(val)
        return [Fact("tf.version", v, line), Fact("seen:tensorflow", line, line)] if v and re.match(r"^\d", val) else []
    if kind == "os":
        return []  # the platform is the template readers' (a bare OS name says nothing of a version)
    return [f for f in fields.bullet_field(kv_keys.CANONICAL[kind], val, line) if f.field != "format"]


@remembered  # (a pure function of the line, asked by detect and read)
def _facts(s: str) -> List[Fact]:
    got = split(s)
    if got is None:
        return []
    out = _value_facts(got[0], got[2], s)
    return out + [Fact("format", NAME, s)] if out else []


#: words of a size or a setting, not of a GPU's name, in a bare answer to "what GPU?"
_NOT_A_NAME = re.compile(r"(?i)(?<![a-z])(?:v?ram|memory|batch|model\s{1,2}size)(?![a-z])")


def answer(kind: str, raw: str) -> Partial:
    """A bare value given as the answer to a question about ``kind`` ("410.48,,"): its facts, or an empty partial."""
    s = text_of(raw[:_MAX]).strip().rstrip(",.;!\uff0c\u3002 ").strip("`*").strip()
    if kind not in kv_keys.CANONICAL or not s or len(s) > 40 or _QUESTION.search(s):
        return partial(NAME, [])
    if kind == "gpu" and _NOT_A_NAME.search(s):
        return partial(NAME, [])  # "16gb VRAM, large-v2, 20 batch size" answers with sizes, names no GPU (whisperX#315)
    out = _value_facts(kind, s, raw.strip())
    return partial(NAME, out + [Fact("format", NAME, raw.strip())] if out else [])


def detect(c: Line) -> int:
    if len(c.s) > _MAX or not _facts(c.s):
        return 0
    # a list introduced as advice ("Your version should be:", "The README recommends:"): no facts, as for the
    # bullet reader (attack35)
    from envcheck.paste.readers.bare_versions import introduced_as_not_mine

    return 0 if introduced_as_not_mine(c, _facts, advice_only=True) else 1


def read(lines: Sequence[str]) -> Partial:
    return partial(NAME, _facts(text_of(lines[0])) if lines else [])
