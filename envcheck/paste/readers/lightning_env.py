"""PyTorch Lightning's ``python collect_env_details.py`` (its bug template's "Current environment"), every layout of
its source, Lightning-AI/pytorch-lightning ``requirements/collect_env_details.py``:

* 2020 (PR #1234): lower-case sections and tab-indented keys, no markers::

      cuda:
      \tGPU:
      \t\tGeForce GTX 1050
      \tavailable:           True
      \tversion:             10.0
      packages:
      \tpyTorch_version:     1.4.0+cu100
      system:
      \tpython:              3.6.9

* 2022 (#13815, #14017): ``* CUDA:`` / ``\\t- GPU:`` / ``\\t\\t- NVIDIA GeForce RTX 3090`` / ``\\t- available: True`` /
  ``\\t- version: 11.3``, ``* Packages:`` with ``- pyTorch_version: 1.12.0+cu113``, ``* System:`` with ``- python:``;
* 2023 on (#17226, printed inside ``<details>``): the same, ``* Lightning:`` and ``* Packages:`` listing every
  distribution (``- torch: 2.1.1``), ``"GPU": None`` on a machine where torch sees none.

What each key is, from the source: ``CUDA/GPU`` is ``torch.cuda.get_device_name(i)`` for every device torch sees
(GPU *i*, in order; ``None``: torch sees no GPU), ``CUDA/available`` is ``torch.cuda.is_available()``,
``CUDA/version`` is ``torch.version.cuda`` (the torch build's CUDA; ``None``: a CPU-only build),
``pyTorch_version`` / ``torch`` is ``torch.__version__``, ``System/python`` is ``platform.python_version()`` and
``System/OS`` is ``platform.system()``; the ``Packages`` / ``Lightning`` rows (2023 on: every installed distribution,
``{dist.metadata["Name"]: dist.version}``) are package rows.
"""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.paste.readers import fields
from envcheck.paste.readers.base import Fact, Line, Partial, gpu_name, mm, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "lightning collect_env_details"

#: a section header of the report: ``cuda:`` (2020) or ``* CUDA:`` (2022 on)
_SECTION = re.compile(r"^(?:\*\s{1,3})?(?P<name>cuda|packages|system|lightning):\s*$", re.I)
#: a key line under a section: ``\tversion:   10.0``, ``\t- available:   True`` (the value may be empty: a list follows)
_KEY = re.compile(r"^(?:-\s{1,3})?(?P<key>[A-Za-z][\w.-]{0,40}):(?:\s{1,40}(?P<val>\S.{0,200}?))?\s*$")
#: a list item under ``GPU:`` / ``architecture:``: ``\t\t- NVIDIA A100-SXM4-80GB`` or (2020) ``\t\tGeForce GTX 1050``
_ITEM = re.compile(r"^(?:-\s{1,3})?(?P<val>\S.{0,120}?)\s*$")
_MAX = 400  # lines of one report (every installed distribution is listed since 2023)


def _indent(raw: str) -> int:
    """The depth of a line: its leading tabs (the source indents with tabs), or its leading blanks / 4."""
    head = raw[: len(raw) - len(raw.lstrip())]
    return head.count("\t") + (len(head.replace("\t", "")) // 4)


def detect(c: Line) -> int:
    m = _SECTION.match(c.s)
    if not m or m.group("name").lower() != "cuda" or _indent(c.line) != 0:
        return 0
    nxt = [text_of(x) for x in c.lines[c.i + 1:c.i + 4]]
    if not any(re.match(r"^(?:-\s{1,3})?(?:GPU|available):", x) for x in nxt):
        return 0
    return _span(c.lines, c.i)


def _span(lines: Sequence[str], start: int) -> int:
    """From the ``CUDA`` header to the last line of the report: indented lines and the other sections' headers."""
    end = start + 1
    for j in range(start + 1, min(len(lines), start + _MAX)):
        raw = lines[j]
        if not raw.strip():
            continue
        if _indent(raw) == 0 and not _SECTION.match(raw.strip()):
            break
        end = j + 1
    return end - start


def _cuda_key(key: str, val: Optional[str], line: str) -> List[Fact]:
    v = (val or "").strip()
    if key == "available":
        return [Fact("seen:cuda-available", line.strip()[:300], line)] + fields.gpu_state("torch", v, line)
    if key == "version":
        if v.lower() == "none":
            return [Fact("torch._cuda_none", True, line), Fact("seen:torch-cuda", line.strip()[:300], line)]
        got = mm(v)
        return [Fact("torch.cuda", got, line), Fact("seen:torch-cuda", line.strip()[:300], line)] if got else []
    return []


def _version_key(section: str, key: str, val: Optional[str], line: str) -> List[Fact]:
    v = (val or "").strip()
    if section in ("packages", "lightning") and key.lower() in ("pytorch_version", "torch") and re.match(r"^\d", v):
        return [Fact("torch.version", v, line), Fact("seen:torch", line.strip()[:300], line)]
    if section in ("packages", "lightning") and re.match(r"^\d{1,4}(?:\.\w{1,12}){0,5}(?:\+[\w.]{1,30})?$", v):
        return [Fact("package", (key, v, None), line)]  # every installed distribution (2023 on): name -> version
    if section == "system" and key == "python" and re.match(r"^[23]\.\d{1,2}(?:\.\d{1,3})?$", v):
        return [Fact("python", v, line)]
    if section == "system" and key == "OS":
        plat = {"windows": "win32", "linux": "linux", "darwin": "darwin"}.get(v.lower())
        return [Fact("platform", plat, line)] if plat else []
    return []


def read(lines: Sequence[str]) -> Partial:
    out: List[Fact] = [Fact("format", NAME, lines[0] if lines else "")]
    section, listing, gpus = "", "", 0
    for raw in lines:
        s = text_of(raw)
        sec = _SECTION.match(s) if _indent(raw) == 0 else None
        if sec:
            section, listing = sec.group("name").lower(), ""
            continue
        km = _KEY.match(s)
        if km and (km.group("val") is not None or _indent(raw) <= 1):
            key, val = km.group("key"), km.group("val")
            listing = key if val is None else ""
            if section == "cuda":
                out += _cuda_key(key, val, raw)
            out += _version_key(section, key, val, raw)
            continue
        im = _ITEM.match(s)
        if im and section == "cuda" and listing == "GPU" and im.group("val").lower() != "none":
            name = gpu_name(im.group("val"))
            if name:
                out += [Fact("gpu", (gpus, name, None, None), raw), Fact("seen:gpu", raw.strip()[:300], raw)]
                gpus += 1
    return partial(NAME, out)
