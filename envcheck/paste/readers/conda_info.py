"""The ``virtual packages`` of ``conda info``, as conda-forge's and the frameworks' bug templates ask for it::

       virtual packages : __archspec=1=zen4
                          __conda=26.5.3=0
                          __cuda=12.8=0
                          __glibc=2.35=0

Read: ``__cuda=12.8`` is the CUDA version the driver supports (conda asks libcuda, as nvidia-smi's header does):
``driver.cuda``. ``__cuda=0`` (no usable driver answered) and a block without ``__cuda`` say nothing. ``conda info``'s
``python version`` is the Python of conda's own base install, not of the environment in use: not read (the reader takes
the whole block, from its ``active environment`` / ``conda version`` / ``virtual packages`` row through its rows and
their indented list lines, so that no other reader reads that row either)."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "conda info"
#: conda info's rows: a padded key, " : ", a value; its list values go on in lines indented under the value
_ROW = re.compile(r"^(?P<key>[a-z][a-z -]{1,30}?) {0,3}: {0,3}(?P<val>.{0,500})$")
_START = ("active environment", "active env location", "conda version", "virtual packages")
_CUDA = re.compile(r"^__cuda=(?P<v>\d{1,2}\.\d{1,2})=")
_MAX = 120  # lines of one block at most


def _in_block(raw: str) -> bool:
    s = text_of(raw)
    return bool(_ROW.match(s)) or (raw[:12].strip() == "" and bool(s) and not s.startswith(("$", ">")))


def detect(c: Line) -> int:
    m = _ROW.match(c.s)
    if not m or m.group("key").strip() not in _START:
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < _MAX and _in_block(c.lines[j]):
        j += 1
    return j - c.i


def read(lines: Sequence[str]) -> Partial:
    out: List[Fact] = []
    for ln in lines:
        s = text_of(ln)
        m = _ROW.match(s)
        pkg = m.group("val").strip() if m and m.group("key").strip() == "virtual packages" else s
        cm = _CUDA.match(pkg)
        if cm:
            out += [Fact("smi_cuda", cm.group("v"), s), Fact("seen:driver", s, s)]
    # the block is conda's: its "python version" (conda's base Python) is read by no other reader
    return partial(NAME, [Fact("format", NAME, text_of(lines[0]))] + out)
