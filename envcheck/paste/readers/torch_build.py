"""A bare torch build string in a bullet list: ``- torch 2.1.0+cu121``, ``* 2.0.1+cu118``, ``- PyTorch: 1.13.1+cpu``,
``- 2.2.0+rocm5.7``, or on a line of its own after the package's name (``pytorch 2.0.1+cu118``, ``torch 1.12.1+cu113``),
in backticks with a note after it (``- `torch 2.10.0+cu128`, ...``), and a pip list row written as a bullet
(``- torch    2.1.2``, with pip's column spacing): torch's version (its local label then gives the build's CUDA / ROCm / XPU)."""

from __future__ import annotations

import re
from typing import Optional, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, in_requirements_file, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "torch version"
_BARE_TORCH = re.compile(r"^(?:[-*\u2022]\s+(?:(?:py)?torch\s*(?:==|:|\s)\s*v?)?|(?:py)?torch\s*(?:==|:|\s)\s*v?)"
                         r"(?P<v>[12]\.\d{1,2}\.\d{1,2}\+(?:cu\d{2,3}|cpu|rocm\d+\.\d+(?:\.\d+)?|xpu))\s*$", re.I)


#: a pip list row written as a bullet (``- torch                     2.1.2``: the name, then pip's column spacing, then the
#: version alone); one space is prose or a requirement ("- torch 2.1"), not this form
_BULLET_ROW = re.compile(r"^[-*\u2022]\s+(?:py)?torch\s{2,}(?P<v>[12]\.\d{1,2}\.\d{1,2})\s*$", re.I)
#: the build string in backticks, a note after it (``- `torch 2.10.0+cu128`, `torch.version.cuda == "12.8"` ``)
_TICKED = re.compile(r"^[-*\u2022]\s+`(?:py)?torch(?:\s{1,3}|={1,2})v?(?P<v>[12]\.\d{1,2}\.\d{1,2}\+(?:cu\d{2,3}|cpu"
                     r"|rocm\d+\.\d+(?:\.\d+)?|xpu))`(?:[\s,;].{0,300})?$", re.I)


def _match(s: str) -> "Optional[re.Match[str]]":
    if "+" in s:
        return _BARE_TORCH.match(s) or _TICKED.match(s)
    return _BULLET_ROW.match(s)


def detect(c: Line) -> int:
    # a requirements file's pin (under its --index-url line) is what someone asks pip for, not the installed torch; a
    # list introduced as advice ("The README recommends:", "Your version should be:") neither (attack35)
    from envcheck.paste.readers.bare_versions import introduced_as_not_mine

    return 1 if _match(c.s) and not in_requirements_file(c) and not introduced_as_not_mine(c, _match, advice_only=True) else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    m = _match(s)
    return partial(NAME, [Fact("torch.version", m.group("v"), s), Fact("seen:torch", s, s), Fact("format", NAME, s)]
                   if m else [])
