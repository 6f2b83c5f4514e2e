"""Ultralytics' banner: ``Ultralytics YOLOv8.0.20 🚀 Python-3.10.9 torch-1.13.1+cu117 CUDA:0 (NVIDIA GeForce RTX
3090, 24268MiB)`` (``YOLOv5 🚀 v7.0-...`` too), with the further ``CUDA:1 (...)`` lines of a multi-GPU machine."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import VER, Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "ultralytics"
_BANNER = re.compile(r"(?:Ultralytics\s+(?:YOLOv?\S+|\d+\.\d+\S*)|\bYOLOv\d+\S*)\s.*?Python-(?P<py>" + VER +
                     r")\s+torch-(?P<torch>\S+)(?P<rest>.*)$")
_DEVICE = re.compile(r"CUDA:(?P<idx>\d+)\s*\((?P<name>[^,()]+(?:\([^)]*\)[^,()]*)?),\s*(?P<mem>\d+)\s*MiB\)")


def detect(c: Line) -> int:
    if not _BANNER.search(c.s):
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < 64:
        cont = _DEVICE.search(c.lines[j])
        if not cont or c.lines[j][: cont.start()].strip():
            break
        j += 1
    return j - c.i


def _gpu(dm: "re.Match[str]", line: str) -> Fact:
    return Fact("gpu", (int(dm.group("idx")), dm.group("name").strip(), None, int(dm.group("mem"))), line)


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    m = _BANNER.search(s)
    if not m:
        return partial(NAME, [])
    out: List[Fact] = [Fact("format", NAME, s), Fact("seen:torch", s, s), Fact("seen:gpu", s, s),
                       Fact("python", m.group("py"), s), Fact("torch.version", m.group("torch"), s)]
    out += [_gpu(dm, s) for dm in _DEVICE.finditer(m.group("rest"))]
    for ln in lines[1:]:
        dm = _DEVICE.search(ln)
        if dm:
            out.append(_gpu(dm, ln))
    return partial(NAME, out)
