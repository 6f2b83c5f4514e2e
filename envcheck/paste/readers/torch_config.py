"""``print(torch.__config__.show())`` pasted on its own (PyTorch's maintainers ask for it beside nvidia-smi)::

    PyTorch built with:
      - GCC 9.3
      - CUDA Runtime 11.7
      - NVCC architecture flags: -gencode;arch=compute_37,code=sm_37;-gencode;arch=compute_50,code=sm_50;...
      - CuDNN 8.5

From its ``PyTorch built with:`` line through its ``  - item`` lines (an item may wrap onto a line of its own, as
``Build settings:`` does). Read by the same function as detectron2's and OpenMMLab's copy of the block
(:func:`.detectron2.built_item`): the CUDA and cuDNN torch was built with, its arch list (an arch list is a fact on
its own: with a GPU the text names, the engine decides ``gpu-arch-unsupported`` even where the release is unknown)."""

from __future__ import annotations

from typing import List, Sequence

from envcheck.paste.readers import detectron2
from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "torch config"
_MAX = 40  # lines of one block at most


def detect(c: Line) -> int:
    if c.s != "PyTorch built with:":
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < _MAX and text_of(c.lines[j]).startswith("- "):
        j += 1
    return j - c.i


def read(lines: Sequence[str]) -> Partial:
    out: List[Fact] = []
    for ln in lines[1:]:
        s = text_of(ln)
        out += detectron2.built_item(s[2:].strip(), s)
    return partial(NAME, [Fact("format", NAME, text_of(lines[0]))] + out if out else [])
