"""InvokeAI's start-up log, which its bug form asks for under "### System Information"
(invoke-ai/InvokeAI#8554)::

    [2025-09-10 11:38:19,917]::[InvokeAI]::INFO --> Using torch device: NVIDIA GeForce GTX 1060 with Max-Q D
    [2025-09-10 11:38:21,004]::[InvokeAI]::INFO --> cuDNN version: 90701

Its ``cuDNN version`` line prints ``torch.backends.cudnn.version()`` (its ``check_cudnn``, invokeai/app/util/startup_utils.py):
torch's own cuDNN (``90701`` -> 9.7.1, ``8902`` -> 8.9.2). The device line is not read: a copied log often wraps it
inside the name (``Max-Q D`` / ``esign``), and the name it would give is then cut."""

from __future__ import annotations

import re
from typing import Sequence

from envcheck.parse.versions import cudnn_digits
from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "invokeai log"

_CUDNN = re.compile(r"::\[InvokeAI\]::INFO\s{1,3}-->\s{1,3}cuDNN version:\s{1,3}(?P<v>\d{4,6})\s*$")


def detect(c: Line) -> int:
    return 1 if "[InvokeAI]" in c.s and _CUDNN.search(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    m = _CUDNN.search(s)
    c = cudnn_digits(m.group("v")) if m else None
    return partial(NAME, [Fact("torch.cudnn", c, s), Fact("format", NAME, s)] if c else [])
