"""PaddlePaddle's reports: ``paddle.utils.run_check()`` and the version report of its issue template."""

from __future__ import annotations

from typing import Sequence

from envcheck.paste.readers.base import Line, Partial, partial

__all__ = ["NAME", "detect", "read"]

NAME = "paddle"


def detect(c: Line) -> int:
    return 0


def read(lines: Sequence[str]) -> Partial:
    return partial(NAME, [])
