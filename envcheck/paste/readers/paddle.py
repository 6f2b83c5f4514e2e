"""PaddlePaddle's ``paddle.utils.run_check()`` verdict: "PaddlePaddle works well on 1 GPU." / "PaddlePaddle works
well on 4 GPUs." (python/paddle/utils/install_check.py): the report shows Paddle reaching a GPU.

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


def detect(c: Line) -> int:
    return 1 if _WORKS.match(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    if not _WORKS.match(s):
        return partial(NAME, [])
    return partial(NAME, [Fact("format", NAME, s), Fact("gpu_works", "paddle", s), Fact("seen:gpu-works", s, s)])
