"""DeepSpeed's ``ds_report`` environment block, as DeepSpeed's bug template asks for it::

    DeepSpeed general environment info:
    torch install path ............... ['/opt/conda/lib/python3.8/site-packages/torch']
    torch version .................... 2.0.1+cu117
    deepspeed install path ........... ['/opt/conda/lib/python3.8/site-packages/deepspeed']
    deepspeed info ................... 0.10.0, unknown, unknown
    torch cuda version ............... 11.7
    torch hip version ................ None
    nvcc version ..................... 11.3
    deepspeed wheel compiled w. ...... torch 2.0, cuda 11.7

(since 0.13 each value in brackets, ``torch version .... ['2.1.0']``). Read: the torch in use and its CUDA, the
toolkit of the nvcc DeepSpeed's op builder found (major.minor), the Python of the install paths. ``deepspeed wheel
compiled w.`` is what DeepSpeed's own wheel was built against, not the machine's torch: not read. The block ends at the
first line that is not ``key ..... value`` (a fence, a blank line)."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.paste.readers import observe
from envcheck.paste.readers.base import Fact, Line, Partial, clean, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "ds_report"
_HEAD = "DeepSpeed general environment info:"
#: "key ....... value": a key of words, a run of dots, the value (linear: the dots are one run between two literals)
_ROW = re.compile(r"^(?P<key>[a-z][a-z /().]{1,40}?) \.{2,60} ?(?P<val>\S.{0,1500})$")
_VER = re.compile(r"^\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:[a-z]{1,5}\d{0,10})?(?:\+[\w.]{1,30})?$")
_MAX = 40  # rows of one block at most
Facts = List[Fact]


def _value(raw: str) -> Optional[str]:
    """A value as printed, or the one element of ``['2.1.0']``."""
    v = raw.strip()
    if v.startswith("[") and v.endswith("]"):
        inner = [x.strip().strip("'\"") for x in v[1:-1].split(",")]
        v = inner[0] if len(inner) == 1 else ""
    return clean(v)


def _row(s: str) -> Facts:
    m = _ROW.match(s)
    if not m:
        return []
    key, val = m.group("key").strip(), _value(m.group("val"))
    if key in ("torch install path", "deepspeed install path"):
        return [f for f in observe.line_facts(s, s.lower()) if f.field == "python_path"]
    if not val or not _VER.match(val):
        return []
    if key == "torch version":
        return [Fact("torch.version", val, s), Fact("seen:torch", s, s)]
    if key == "torch cuda version":
        return [Fact("torch.cuda", val, s)]
    if key == "nvcc version":
        return [Fact("toolkit_release", val, s)]
    return []


def _is_row(lines: Sequence[str], j: int) -> bool:
    return bool(_ROW.match(text_of(lines[j])))


def detect(c: Line) -> int:
    if c.s != _HEAD:
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i <= _MAX and (_is_row(c.lines, j) or text_of(c.lines[j]).startswith("---")):
        j += 1
    return j - c.i


def read(lines: Sequence[str]) -> Partial:
    out: Facts = []
    for ln in lines[1:]:
        out += _row(text_of(ln))
    return partial(NAME, [Fact("format", NAME, text_of(lines[0]))] + out if out else [])
