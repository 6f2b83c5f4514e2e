"""``nvcc -V`` (``nvcc --version``) from its first line, or a lone ``Cuda compilation tools, release 11.8, V11.8.89``
line. nvcc's own output replaces a toolkit version derived from collect_env's ``CUDA runtime version``."""

from __future__ import annotations

from typing import List, Sequence

from envcheck.paste.readers.base import NVCC_RELEASE, Fact, Line, Partial, partial

__all__ = ["NAME", "detect", "read"]

NAME = "nvcc"
_LINES = ("Copyright", "Built on", "Cuda compilation", "Build cuda")


def _cut(s: str) -> str:
    k = s.find("Cuda compilation tools")
    return s[k:] if k > 0 else s


def detect(c: Line) -> int:
    if not (c.s.startswith("nvcc: NVIDIA (R) Cuda compiler") or (
            "cuda compilation tools" in c.low and NVCC_RELEASE.search(c.s))):
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < 6 and _cut(c.lines[j].strip()).startswith(_LINES):
        j += 1
    return j - c.i


def read(lines: Sequence[str]) -> Partial:
    text = "\n".join(_cut(ln.strip()) for ln in lines) + "\n"
    out: List[Fact] = [Fact("format", NAME, lines[0] if lines else "")]
    if NVCC_RELEASE.search(text):
        out.append(Fact("nvcc!", text, lines[0]))
    return partial(NAME, out)
