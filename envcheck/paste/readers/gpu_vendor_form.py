"""An issue form's GPU field whose answer is a vendor choice, not a GPU model (heldout/rounds/tmpl28-inventory.md):

* Ollama's bug form (.github/ISSUE_TEMPLATE/10_bug_report.yml): ``### GPU`` then ``Nvidia`` / ``AMD`` / ``Intel`` /
  ``Apple`` / ``Other`` (a multiple choice: ``Nvidia, AMD``), or typed by hand, one a line (``GPU0: Intel``,
  ``GPU1: Nvidia``);
* InvokeAI's 2023 form: ``### GPU`` then ``cuda`` / ``amd`` / ``mps`` / ``cpu``;
* InvokeAI's later form: ``### GPU vendor`` then ``Nvidia (CUDA)`` / ``AMD (ROCm)``, and its ``### GPU model`` after it.

The choice names the machine's accelerator vendor, never a GPU (fact ``vendor_form``: ``amd``, ``intel``, ``apple``;
NVIDIA's needs no fact: an NVIDIA machine is the default). Only one vendor chosen counts (two: which one runs is not
said); ``mps`` (an Intel Mac's AMD GPU is MPS too), ``cpu``, ``Other`` say no vendor. After an AMD / Intel choice the
``### GPU model`` answer is that vendor's GPU (``R9700 AI Pro``, a name with no AMD mark), read with its vendor; after
an NVIDIA choice the model is left to :mod:`~envcheck.paste.readers.issue_form`."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

from envcheck.paste.readers.base import MEM, Fact, Line, Partial, clean, gpu_name, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "issue form gpu vendor"

_HEAD = re.compile(r"^#{3}\s{1,3}GPU(?:\s{1,3}vendor)?\s*$", re.I)
_MODEL_HEAD = re.compile(r"^#{3}\s{1,3}GPU\s{1,3}model\s*$", re.I)
#: one choice: "Nvidia", "AMD (ROCm)", "Nvidia (CUDA)", "Apple Silicon (MPS)", "cuda", "mps", "None (CPU)", "Other",
#: typed per GPU ("GPU0: Intel")
_CHOICE = re.compile(r"^(?:GPU\s{0,2}\d{1,2}\s{0,2}:\s{0,3})?(?P<v>nvidia|amd|intel|apple(?:\s{1,2}silicon)?|cuda|rocm|mps|cpu"
                     r"|none|other)(?:\s{0,3}\((?:cuda|rocm|mps|metal|xpu|cpu)\))?$", re.I)
_VENDOR = {"nvidia": "nvidia", "cuda": "nvidia", "amd": "amd", "rocm": "amd", "intel": "intel", "apple": "apple",
           "apple silicon": "apple"}
#: the answer's lines: at most this many choices typed one a line
_MAX_ANSWER = 4


def _choices(s: str) -> Optional[List[str]]:
    """The vendor words of one answer line ("Nvidia, AMD": two), or None when the line is no choice."""
    out: List[str] = []
    for part in s.split(","):
        m = _CHOICE.match(part.strip())
        if not m:
            return None
        out.append(re.sub(r"\s+", " ", m.group("v").lower()))
    return out


def _next_filled(lines: Sequence[str], i: int) -> int:
    """The first non-blank line within two after ``i`` (or ``len(lines)``)."""
    for k in (i + 1, i + 2):
        if k < len(lines) and text_of(lines[k]):
            return k
    return len(lines)


def _answer(lines: Sequence[str], i: int) -> Tuple[List[str], int]:
    """The choices answered under the heading on line ``i`` and the index of the answer's last line (``i``: none)."""
    k = _next_filled(lines, i)
    got: List[str] = []
    last = i
    while k < len(lines) and len(got) < _MAX_ANSWER:
        c = _choices(text_of(lines[k]))
        if c is None:
            break
        got += c
        last = k
        k += 1
    return got, last


def _model(lines: Sequence[str], last: int) -> int:
    """The index of the ``### GPU model`` answer right after the vendor's answer (``last``: none)."""
    k = _next_filled(lines, last)
    if k >= len(lines) or not _MODEL_HEAD.match(text_of(lines[k])):
        return last
    a = _next_filled(lines, k)
    if a >= len(lines) or text_of(lines[a]).startswith(("#", "`", "|", "[", "{")) or len(text_of(lines[a])) > 80:
        return last
    return a


def _vendor(choices: Sequence[str]) -> Optional[str]:
    vendors = {_VENDOR.get(c) for c in choices}
    return vendors.pop() if len(vendors) == 1 else None  # None: no vendor (cpu, mps, other) or two


def detect(c: Line) -> int:
    if not _HEAD.match(c.s):
        return 0
    got, last = _answer(c.lines, c.i)
    if not got:
        return 0
    if _vendor(got) in ("amd", "intel"):
        last = _model(c.lines, last)
    return last - c.i + 1


def read(lines: Sequence[str]) -> Partial:
    if not lines or not _HEAD.match(text_of(lines[0])):
        return partial(NAME, [])
    got, last = _answer(lines, 0)
    vendor = _vendor(got)
    first = text_of(lines[0])
    facts: List[Fact] = [Fact("format", NAME, first)] if got else []
    if vendor in ("amd", "intel", "apple"):
        facts.append(Fact("vendor_form", vendor, text_of(lines[last])))
    if vendor in ("amd", "intel") and last < len(lines) - 1:
        name = clean(MEM.sub("", gpu_name(text_of(lines[-1])) or "").strip(" ,("))  # "RX 7900 XTX (24GB)": no memory
        if name and _MODEL_HEAD.match(text_of(lines[_next_filled(lines, last)])):
            facts.append(Fact("vgpu", (0, name, vendor, None, NAME), text_of(lines[-1])))
    return partial(NAME, facts)
