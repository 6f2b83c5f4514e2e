"""``ldconfig -p | grep cud`` rows: ``libcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8``."""

from __future__ import annotations

import re
from typing import Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial

__all__ = ["NAME", "detect", "read"]

NAME = "ldconfig"
_ROW = re.compile(r"^\s*(lib[\w.+-]+\.so[\w.]*)\s+\(([^)]*)\)\s+=>\s+(/\S+)\s*$")


def detect(c: Line) -> int:
    return 1 if _ROW.match(c.line) else 0


def read(lines: Sequence[str]) -> Partial:
    return partial(NAME, [f for ln in lines if _ROW.match(ln)
                          for f in (Fact("format", NAME, ln), Fact("ld", ln.rstrip(), ln))])
