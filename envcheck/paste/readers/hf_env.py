"""``transformers-cli env`` / ``diffusers-cli env`` / ``accelerate env`` blocks, with or without their header:
``- `PyTorch version (GPU?)`: 2.1.0+cu121 (True)``, ``- Platform: Linux-...``, ``- GPU type: NVIDIA A10G``."""

from __future__ import annotations

from typing import Sequence

from envcheck.paste.readers import fields
from envcheck.paste.readers.base import Line, Partial, partial, text_of, KV

__all__ = ["NAME", "detect", "read"]

NAME = "transformers/accelerate env"


def detect(c: Line) -> int:
    km = c.km
    return 1 if km and fields.hf_field(km.group("key"), km.group("val"), c.s) is not None else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0])
    km = KV.match(s)
    return partial(NAME, (fields.hf_field(km.group("key"), km.group("val"), s) or []) if km else [])
