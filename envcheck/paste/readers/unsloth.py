"""Unsloth's start-up banner, from its format strings (unsloth/models/llama.py, loader.py, vision.py; 2024-2026):

* ``   \\\\   /|    NVIDIA GeForce GTX 1070. Num GPUs = 1. Max memory: 7.909 GB. Platform: Linux.`` (before 2025
  ``   \\\\   /|    GPU: Tesla T4. Max memory: 14.748 GB. Platform = Linux.``): the first GPU's name
  (``torch.cuda.get_device_properties(0).name``);
* ``O^O/ \\_/ \\    Torch: 2.5.1+cu124. CUDA: 6.1. CUDA Toolkit: 12.4. Triton: 3.1.0`` (before 2025
  ``Pytorch: 2.3.0. CUDA = 6.1. CUDA Toolkit = 11.8.``): ``torch.__version__``, then ``CUDA:`` is that GPU's compute
  capability (``gpu_stats.major.minor``, not a CUDA release) and ``CUDA Toolkit:`` is ``torch.version.cuda``.
  A ROCm or XPU machine's line says ``ROCm Toolkit: ...`` / ``Intel Toolkit: ...`` instead: its GPU is not an NVIDIA
  one, so no GPU, capability or CUDA is read from it (the torch version is).
"""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "unsloth"
_GPU = re.compile(r"(?:/\|\s{1,8})?(?:GPU: )?(?P<name>[A-Za-z][^.|\n]{1,79}?)\. (?:Num GPUs = (?P<n>\d{1,3})\. )?"
                  r"Max memory: \d{1,4}(?:\.\d{1,4})? GB\. Platform(?: =|:) ")
_TORCH = re.compile(r"(?:^|\s)(?:Torch|Pytorch): (?P<torch>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?[\w.+-]{0,40}?)\. "
                    r"(?:CUDA(?::| =) (?P<cc>\d{1,2}\.\d{1,2})\. CUDA Toolkit(?::| =) (?P<cuda>\d{1,2}\.\d{1,2}|None)"
                    r"|(?P<other>ROCm|Intel) Toolkit: )")


def detect(c: Line) -> int:
    if "Max memory:" not in c.s or not _GPU.search(c.s):
        return 0
    nxt = c.lines[c.i + 1] if c.i + 1 < len(c.lines) else ""
    return 2 if _TORCH.search(text_of(nxt)) else 1


def read(lines: Sequence[str]) -> Partial:
    first = text_of(lines[0]) if lines else ""
    g = _GPU.search(first)
    if not g:
        return partial(NAME, [])
    second = text_of(lines[1]) if len(lines) > 1 else ""
    t = _TORCH.search(second)
    out: List[Fact] = [Fact("format", NAME, first)]
    if t:
        out += [Fact("seen:torch", second, second), Fact("torch.version", t.group("torch"), second)]
        if t.group("cuda") and t.group("cuda") != "None":
            out.append(Fact("torch.cuda", t.group("cuda"), second))
    if t is None or t.group("other"):
        return partial(NAME, out)  # no Torch line, or an AMD / Intel GPU: its name is not an NVIDIA GPU's
    out += [Fact("gpu", (0, g.group("name").strip(), t.group("cc"), None), first), Fact("seen:gpu", first, first)]
    return partial(NAME, out)
