"""The environment rows of ``python -m xformers.info``, as xFormers' and the Stable Diffusion UIs' bug reports paste it::

    pytorch.version:                                   2.0.1+cu118
    pytorch.cuda:                                      available
    gpu.compute_capability:                            8.9
    gpu.name:                                          NVIDIA GeForce RTX 4070
    build.info:                                        available
    build.cuda_version:                                1108
    build.python_version:                              3.10.11
    build.torch_version:                               2.0.1+cu118

From its ``pytorch.version`` row through the ``key:   value`` rows after it. Read: the torch in use, whether it reached
CUDA (``pytorch.cuda: available`` / ``not available``), GPU 0's name and compute capability (the ``gpu.*`` rows name
the device torch uses). The ``build.*`` rows are what xFormers itself was built with (its CI's Python, torch, CUDA and
nvcc), not the machine's: not read. A ROCm torch (``+rocm``) names an AMD GPU there (``gpu.compute_capability: 11.0``
is its gfx11 target): no NVIDIA GPU is read from it."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

from envcheck.paste.readers.base import Fact, Line, Partial, clean, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "xformers.info"
_ROW = re.compile(r"^(?P<key>[A-Za-z_][\w.@-]{0,80}):\s{1,80}(?P<val>.{0,300})$")
_MAX = 60  # rows after pytorch.version at most
Facts = List[Fact]


def detect(c: Line) -> int:
    if not c.s.startswith("pytorch.version:"):
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < _MAX and _ROW.match(text_of(c.lines[j])):
        j += 1
    return j - c.i


def _rows(lines: Sequence[str]) -> List[Tuple[str, Optional[str], str]]:
    out: List[Tuple[str, Optional[str], str]] = []
    for ln in lines:
        s = text_of(ln)
        m = _ROW.match(s)
        if m:
            out.append((m.group("key"), clean(m.group("val")), s))
    return out


def _torch(val: Optional[str], s: str) -> Facts:
    if val and re.match(r"^\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:[a-z]{1,5}\d{0,10})?(?:\+[\w.]{1,30})?$", val):
        return [Fact("torch.version", val, s), Fact("seen:torch", s, s)]
    return []


def read(lines: Sequence[str]) -> Partial:
    rows = _rows(lines)
    torch = next((v for k, v, _ in rows if k == "pytorch.version"), None) or ""
    amd = "+rocm" in torch or any(k == "gpu.name" and v and re.search(r"\b(?:AMD|Radeon|Instinct)\b", v) for k, v, _ in rows)
    out: Facts = []
    for key, val, s in rows:
        if key == "pytorch.version":
            out += _torch(val, s)
        elif key == "pytorch.cuda" and val in ("available", "not available"):
            out.append(Fact("gpu_works" if val == "available" else "gpu_fails", "torch", s))
        elif key == "gpu.name" and val and not amd:
            out += [Fact("gpu", (0, val, None, None), s), Fact("seen:gpu", s, s)]
        elif key == "gpu.compute_capability" and val and not amd and re.match(r"^\d{1,2}\.\d$", val):
            out.append(Fact("gpu", (0, None, val, None), s))
    return partial(NAME, [Fact("format", NAME, text_of(lines[0]))] + out if out else [])
