"""An AMD GPU that a title or a sentence names beside ROCm / HIP on the same line ("torch.cuda.is_available() return
false with ROCm5.4.3 and RX6800", ROCm/ROCm#2354): the machine's accelerator is AMD's (fact ``amd_prose``: the model as
written). Both on one line: an AMD model alone may be a card compared with, or another machine's; ROCm alone is a
software stack an NVIDIA user can name too. A line that also names an NVIDIA model is left to
:mod:`~envcheck.paste.readers.prose_gpu` (which GPU is the machine's is then not certain). The top-level ``vendor``
follows from it only where nothing in the text shows an NVIDIA GPU or driver
(:func:`envcheck.paste.report_vendors.facts`). Lines no reader above took; no ``format`` (prose is no report)."""

from __future__ import annotations

import re
from typing import Sequence

from envcheck.paste.readers.base import MAXLINE, Fact, Line, Partial, partial, text_of
from envcheck.paste.readers.prose_gpu import gpu_models, modern_gpu_models

__all__ = ["NAME", "detect", "read"]

NAME = "prose amd gpu"

#: a Radeon / Instinct model: "RX6800", "RX 6650 XT", "Radeon RX 7900 XTX", "Radeon VII", "Radeon Pro W7900", "Vega 64",
#: "Instinct MI250X", "MI300X"
_AMD_GPU = re.compile(
    r"(?i)(?<![\w-])(?:amd\s{1,2})?(?:radeon\s{1,2})?(?P<name>rx\s{0,2}[4-9]\d{2,3}(?:\s{0,2}(?:xtx|xt|gre|m)(?![a-z]))?"
    r"|radeon\s{1,2}(?:vii|pro\s{1,2}w?\d{4})|vega\s{0,2}(?:56|64)|(?:instinct\s{1,2})?mi\d{2,3}x?)(?![\w-])")
#: the AMD software stack named on the same line
_ROCM = re.compile(r"(?i)rocm|(?<![a-z])hip(?:error|(?![a-z]))|gfx\d{3,4}|hsa_override")
#: the line speaks of another machine or another person's ("in my other PC", "My friend has an RX 7900 XTX with ROCm 6.0
#: and it works for him": attack45): its GPU is not this machine's
ELSEWHERE = re.compile(r"(?i)(?<![\w'])(?:(?:my|our|his|her|their|the|an?)\s{1,2}(?:other|old|older|previous|former|second)"
                        r"\s{1,2}|another\s{1,2}|(?:an?|my)\s{1,2}(?:friend|colleague|brother)'?s\s{1,2})(?:pc|computer|machine"
                        r"|laptop|desktop|box|rig|server|workstation)s?(?![\w'])|(?<![\w'])(?:an?|my|his|her)\s{1,2}(?:friend"
                        r"|colleague|co-?worker|brother|sister)\s{1,2}(?:has|had|have|uses|used|owns|runs)\s")


def _amd(s: str) -> str:
    if "rocm" not in s.lower() and "hip" not in s.lower() and "gfx" not in s.lower() and "hsa" not in s.lower():
        return ""
    m = _AMD_GPU.search(s[:MAXLINE])
    if not m or not _ROCM.search(s[:MAXLINE]) or gpu_models(s) or modern_gpu_models(s) or ELSEWHERE.search(s[:MAXLINE]):
        return ""
    return re.sub(r"\s{2,}", " ", m.group(0).strip())


def detect(c: Line) -> int:
    return 1 if _amd(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    name = _amd(s)
    return partial(NAME, [Fact("amd_prose", name, s), Fact("seen:amd-prose", s, s)] if name else [])
