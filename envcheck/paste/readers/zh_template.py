"""Chinese issue templates' environment bullets (PaddlePaddle, PaddleOCR, Langchain-Chatchat, OpenMMLab, ...):
``- 操作系统：``, ``4）系统环境：windows 10. python: 3.7.3``, ``- Python 版本 / Python version: 3.10.12``; the key holds a
CJK character (or the line a full-width mark), the separator is ``:`` or the full-width ``：``. A key that is not a
known label, or a value that does not look like what it names, is left alone."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.paste.readers import fields, kv_keys
from envcheck.paste.readers.base import GPU_COUNT, MEM, Fact, Line, Partial, first_version, partial, text_of

__all__ = ["NAME", "detect", "read", "CJK"]

NAME = "chinese template"
_ZH_KV = re.compile(r"^(?:[-*\u2022]\s{0,4}|\d{1,2}\s{0,2}[)\uff09.\u3001]\s{0,4})?\**\s{0,4}(?P<key>[^\s:\uff1a*][^:\uff1a]{0,60}?)"
                    r"\s{0,4}\**\s{0,4}[:\uff1a]\s{0,4}\**\s{0,4}(?P<val>.*)$")
#: the longest value read (trailing blanks apart). Checked after the match: a lazy ``.{0,500}?`` before ``\s*$``
#: tried every length against the rest of the line (0.1 s per 2,000-character line of blanks; review25)
_MAX_VAL = 500
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
#: the kinds of label this reader reads (the labels: the one key table, :mod:`envcheck.paste.readers.kv_keys`)
_ZH_KINDS = ("os", "python", "gpu", "driver", "torch")
#: what a GPU's name starts with / holds (a value that is a GPU, not "有" or a memory size)
_GPU_WORD = re.compile(r"(?i)(?:geforce|rtx|gtx|tesla|quadro|titan|nvidia|\b[ahlvpkt]\d{1,3}\b|\b[ahlvpkt]\d{1,3}\s?(?:pcie|sxm))")
_PY_IN = re.compile(r"(?i)\bpython\s{0,3}[:\uff1a]?\s{0,3}v?(\d\.\d{1,2}(?:\.\d{1,2})?)(?![\d.])")
_PADDLE_IN = re.compile(r"(?i)\b(paddlepaddle(?:-gpu)?)\s{0,20}(?:==\s{0,3}|\s)(\d+\.\d+\.\d+(?:\.post\d+|rc\d*)?)(?![\w.])")
Facts = List[Fact]
#: "my ... <name> is <version>" in a Chinese sentence; a clause ends at a sentence mark. The owner may also be said by
#: what the writer uses: "用的python版本是3.8 torch版本用的1.12.1+cu113" (a CSDN post, tests/data/pastes/pastes21b): a
#: sentence that says "用的" / "使用的" / "安装的" (used / installed) names the versions of the machine it ran on, each
#: "<name>版本" then takes 是 / 为 / 用的 (is / used); a torch version keeps its local tag (+cu113, +cpu)
_MINE = re.compile(r"(?:(?:我的|用的|使用的|安装的|装的)[^。！？!?]{0,60}?|(?<=\s)|^)(?<![A-Za-z])(?P<name>py)?"
                   r"(?P<what>torch|python)\s{0,2}(?:版本)?\s{0,2}(?:是|为|=|用的)"
                   r"\s{0,2}v?(?P<v>\d\.\d{1,2}(?:\.\d{1,2})?)(?P<tag>\+(?:cu\d{2,3}|cpu))?(?![\d.])", re.I)
#: a sentence that says whose versions it gives: the writer's ("我的") or what the writer used / installed
_OWNER = re.compile(r"我的|用的|使用的|安装的|装的")
_WANTED = re.compile(r"要求|需要|必须|推荐|建议|应该|吗|？|\?")


def _gpu(val: str, s: str) -> Optional[Facts]:
    n = re.split(r"[,\uff0c;\uff1b\u3001(\uff08]", val, maxsplit=1)[0]
    n = MEM.sub("", re.sub(r"^(?:gpu|显卡)?\s{0,2}(?:型号)?\s{0,2}[:\uff1a]?\s{0,2}", "", n, flags=re.I)).strip(" ,")
    cm = GPU_COUNT.match(n)
    count, name = (int(cm.group("n")), cm.group("name").strip()) if cm else (1, n)
    if not name or not _GPU_WORD.search(name) or CJK.search(name):
        return None
    return [Fact("gpu", (idx, name, None, None), s) for idx in range(count)] + [Fact("seen:gpu", s, s)]


def _field(kind: str, val: str, s: str) -> Optional[Facts]:
    """The facts of one known label; None when its value does not look like what it names."""
    if kind == "os":
        py = _PY_IN.search(val)
        return fields.tf_os(val, s) + ([Fact("python", py.group(1), s)] if py else [])
    if kind == "python":
        v = first_version(val)
        return [Fact("python", v, s)] if v else []
    if kind == "gpu":
        return _gpu(val, s)
    got = fields.bullet_field("driver version" if kind == "driver" else "pytorch version", val, s)
    return got or None


def _facts(s: str) -> Optional[Facts]:
    m = _ZH_KV.match(s)
    if not m or len(m.group("val").rstrip()) > _MAX_VAL or not (CJK.search(m.group("key"))
                                                                or CJK.search(s[: m.start("key")])):
        return None
    kind = kv_keys.kind_of(m.group("key"))
    kinds = [kind] if kind in _ZH_KINDS else []
    val = m.group("val").strip().strip("`*").strip()
    out: Facts = []
    pm = _PADDLE_IN.search(val)
    if pm:
        out += [Fact("package", (pm.group(1), pm.group(2), None), s), Fact("format", "environment bullets", s)]
    if not kinds:
        return out or None
    got = _field(kinds[0], val, s)
    if got is None:
        return out or None
    return out + got + [Fact("format", "environment bullets", s)]


def _mine(s: str) -> Optional[Facts]:
    """The versions a Chinese sentence says the reporter's machine has (see the module's text)."""
    if len(s) > 300 or not _OWNER.search(s) or _WANTED.search(s):
        return None
    out: Facts = []
    for m in _MINE.finditer(s):
        what = m.group("what").lower()
        if what == "torch":
            out += [Fact("torch.version", m.group("v") + (m.group("tag") or ""), s), Fact("seen:torch", s, s)]
        elif m.group("name") is None:
            out.append(Fact("python", m.group("v"), s))
    return out + [Fact("format", "environment bullets", s)] if out else None


def detect(c: Line) -> int:
    if c.km:
        return 0
    return 1 if _facts(c.s) is not None or _mine(c.s) is not None else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    return partial(NAME, (_facts(s) or _mine(s) or []) if s else [])
