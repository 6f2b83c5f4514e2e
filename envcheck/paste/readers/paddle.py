"""PaddlePaddle's ``paddle.utils.run_check()`` verdict: "PaddlePaddle works well on 1 GPU." / "PaddlePaddle works
well on 4 GPUs." (python/paddle/utils/install_check.py): the report shows Paddle reaching a GPU; and
``paddle.version.show()`` (``commit: <hash>`` / ``full_version: 2.5.1`` then ``cuda: 11.2`` / ``cudnn: 8.1.1``, the
CUDA and cuDNN the wheel was built with: ``paddle.version.cuda()`` / ``cudnn()``, PaddlePaddle/Paddle#36556).

Paddle's other lines are read elsewhere: its device lines ("Please NOTE: device: 0, GPU Compute Capability: 7.5,
Driver API Version: 11.2, Runtime API Version: 11.2", "device: 0, cuDNN Version: 8.1.") by the knowledge base's
patterns (:mod:`~envcheck.paste.readers.log_facts`), its package rows (``paddlepaddle-gpu==2.5.2.post120``) by
:mod:`~envcheck.paste.readers.packages` and the Chinese templates' bullets by :mod:`~envcheck.paste.readers.zh_template`.
"""

from __future__ import annotations

import re
from typing import Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "paddle run_check"
_WORKS = re.compile(r"^PaddlePaddle works well on (\d{1,4}) GPUs?\.?\s*$")


#: the first line of paddle.version.show() (an old one starts at its commit, a newer one at full_version)
_SHOW_START = re.compile(r"^(?:commit:\s{0,3}[0-9a-f]{7,40}|full_version:\s{0,3}\d+\.\d+\.\d+\S{0,20})\s*$")
_SHOW_LINE = re.compile(r"^(?P<key>[a-z_]{2,20}):\s{0,3}(?P<val>\S{0,60})\s*$")


def _show_end(lines: Sequence[str], i: int) -> int:
    j = i
    while j < len(lines) and j - i < 24 and _SHOW_LINE.match(text_of(lines[j])):
        j += 1
    return j


def detect(c: Line) -> int:
    if _WORKS.match(c.s):
        return 1
    if _SHOW_START.match(c.s):
        j = _show_end(c.lines, c.i)
        keys = {_SHOW_LINE.match(text_of(ln)).group("key") for ln in c.lines[c.i:j]}  # type: ignore[union-attr]
        return j - c.i if {"cuda", "cudnn"} <= keys else 0
    return 0


def _show(lines: Sequence[str]) -> Partial:
    out = [Fact("format", "paddle.version.show()", lines[0])]
    for ln in lines:
        m = _SHOW_LINE.match(text_of(ln))
        if m and m.group("key") in ("cuda", "cudnn") and re.fullmatch(r"\d+\.\d+(?:\.\d+)?", m.group("val")):
            out.append(Fact(f"paddle.{m.group('key')}", m.group("val"), ln))
    return partial(NAME, out)


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    if _SHOW_START.match(s):
        return _show(lines)
    if not _WORKS.match(s):
        return partial(NAME, [])
    return partial(NAME, [Fact("format", NAME, s), Fact("gpu_works", "paddle", s), Fact("seen:gpu-works", s, s)])
