"""Hand-written environment bullets (``- **PyTorch version**: 2.5.1``, the old PyTorch template's ``- PyTorch
Version (e.g., 1.0): 1.3``, ``- NVIDIA driver version: 535.161.07``, ``- GPU: 3x RTX A6000``)."""

from __future__ import annotations

from typing import List, Sequence

from envcheck.paste.readers import fields
from envcheck.paste.readers.base import KV, Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "environment bullets"


def _facts(s: str) -> List[Fact]:
    km = KV.match(s)
    return fields.bullet_field(km.group("key"), km.group("val"), s) if km else []


def detect(c: Line) -> int:
    return 1 if _facts(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    return partial(NAME, _facts(text_of(lines[0])) if lines else [])
