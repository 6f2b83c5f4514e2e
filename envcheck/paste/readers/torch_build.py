"""A bare torch build string in a bullet list: ``- torch 2.1.0+cu121``, ``* 2.0.1+cu118``, ``- PyTorch: 1.13.1+cpu``,
``- 2.2.0+rocm5.7``, or on a line of its own after the package's name (``pytorch 2.0.1+cu118``, ``torch 1.12.1+cu113``):
torch's version (its local label then gives the build's CUDA / ROCm / XPU)."""

from __future__ import annotations

import re
from typing import Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "torch version"
_BARE_TORCH = re.compile(r"^(?:[-*\u2022]\s+(?:(?:py)?torch\s*(?:==|:|\s)\s*v?)?|(?:py)?torch\s*(?:==|:|\s)\s*v?)"
                         r"(?P<v>[12]\.\d{1,2}\.\d{1,2}\+(?:cu\d{2,3}|cpu|rocm\d+\.\d+(?:\.\d+)?|xpu))\s*$", re.I)


def detect(c: Line) -> int:
    return 1 if "+" in c.s and _BARE_TORCH.match(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    m = _BARE_TORCH.match(s)
    return partial(NAME, [Fact("torch.version", m.group("v"), s), Fact("seen:torch", s, s), Fact("format", NAME, s)]
                   if m else [])
