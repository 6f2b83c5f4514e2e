"""Ollama's GPU discovery lines as its debug log (``OLLAMA_DEBUG=1``) prints them, pasted without (or before) the
``msg="inference compute"`` line that :mod:`envcheck.paste.readers.llm_runtimes` reads:

* Ollama 0.5 / 0.6's probe of the driver's libcuda (bare, behind ``time=... level=DEBUG`` fields or journald's
  ``2月 21 13:31:11 tc ollama[285585]: `` prefix)::

      calling cuDriverGetVersion
      raw version 0x2ef4
      CUDA driver version: 12.2
      [GPU-10347b1b-ad86-a6ac-53c1-c475d85294da] CUDA totalMem 32501 mb
      [GPU-10347b1b-ad86-a6ac-53c1-c475d85294da] Compute Capability 7.0
      ... msg="updating cuda memory data" gpu=GPU-f65bf98e-... name="Tesla V100-PCIE-32GB" ...

  (ollama/ollama#8963, #9245, #9508): ``CUDA driver version: 12.2`` is cuDriverGetVersion's answer, the CUDA of the
  driver (what nvidia-smi's header calls "CUDA Version"); each GPU, in the order of its first UUID, with its compute
  capability, memory (MiB) and name;
* Ollama 0.1.2x's NVML probe (ollama/ollama#2573, #1813): ``CUDA driver version: 546.01`` is NVML's driver version
  (nvmlSystemGetDriverVersion, three parts or two), and ``[0] CUDA device name: NVIDIA GeForce RTX 3060`` names GPU 0.

Which of the two a ``CUDA driver version:`` value is, its form says: a CUDA release (``12.2``) or a driver release
(``546.01``, ``535.161.07``); anything else is not read. A block is the run of Ollama's discovery lines from the first
line read (``dlsym:``, ``calling ...``, ``device count``, the ``[GPU-...]`` / ``[N] CUDA`` rows, ``level=DEBUG`` lines)
up to Ollama's ``msg="inference compute"`` line, which stays llm_runtimes' to read.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, gpu_name, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "ollama debug discovery"
#: journald's / docker's prefix or Ollama's own ``time=... level=DEBUG source=...`` fields before the message
_HEAD = r"(?:^|\]: |\s)"
#: the driver line only at the start of a line or behind a log prefix's "]: " (not a sentence's or a bullet's words)
_DRIVER = re.compile(r"(?:^|\]: )CUDA driver version: (?P<v>\d{1,3}\.\d{1,3}(?:\.\d{1,3})?)\s*$")
_UUID_ROW = re.compile(_HEAD + r"\[(?P<id>GPU-[0-9a-f-]{8,40})\] (?:CUDA totalMem (?P<mem>\d{1,7}) mb"
                       r"|Compute Capability (?P<cc>\d{1,2}\.\d))\s*$")
_NVML_NAME = re.compile(_HEAD + r"\[(?P<idx>\d{1,2})\] CUDA device name: (?P<name>\S.{0,80}?)\s*$")
_MEMDATA = re.compile(r'msg="updating cuda memory data" gpu=(?P<id>GPU-[0-9a-f-]{8,40}) name="(?P<name>[^"]{1,80})"')
#: the other lines of the probe, which keep a block going
_OTHER = re.compile(_HEAD + r"(?:dlsym: |calling cu|raw version 0x|device count \d|initializing /|releasing cuda driver"
                    r"|nvmlDeviceGet\w{1,30} failed|\[GPU-[0-9a-f-]{8,40}\] CUDA \w{1,12}Mem|\[\d{1,2}\] CUDA )|level=DEBUG ")
_CUDA = re.compile(r"^\d{1,2}\.\d{1,2}$")
_RELEASE = re.compile(r"^\d{3}\.\d{2,3}(?:\.\d{2,3})?$")
_MAX = 400  # lines of one block at most


def _first(s: str) -> bool:
    return bool(("CUDA driver version: " in s and _DRIVER.search(s)) or ("[GPU-" in s and _UUID_ROW.search(s))
                or ("CUDA device name: " in s and _NVML_NAME.search(s)) or ("updating cuda memory data" in s
                                                                             and _MEMDATA.search(s)))


def detect(c: Line) -> int:
    if not _first(c.s):
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < _MAX:
        s = text_of(c.lines[j])
        if 'msg="inference compute"' in s or not (_first(s) or _OTHER.search(s[:400])):
            break  # Ollama's own summary line is llm_runtimes' to read
        j += 1
    return j - c.i


def _driver(s: str) -> List[Fact]:
    m = _DRIVER.search(s)
    if not m:
        return []
    v = m.group("v")
    if _CUDA.match(v):
        return [Fact("smi_cuda", v, s)]
    return [Fact("driver", v, s), Fact("seen:driver", s, s)] if _RELEASE.match(v) else []


def _gpu(idx: int, name: Optional[str], cc: Optional[str], mem: Optional[int], s: str) -> List[Fact]:
    return [Fact("gpu", (idx, name, cc, mem), s), Fact("seen:gpu", s, s)]


def _row(s: str, order: Dict[str, int]) -> List[Fact]:
    m = _UUID_ROW.search(s) if "[GPU-" in s else None
    if m:
        idx = order.setdefault(m.group("id"), len(order))
        return _gpu(idx, None, m.group("cc"), int(m.group("mem")) if m.group("mem") else None, s)
    m = _MEMDATA.search(s) if "updating cuda memory data" in s else None
    if m:
        idx = order.setdefault(m.group("id"), len(order))
        return _gpu(idx, gpu_name(m.group("name")), None, None, s)
    m = _NVML_NAME.search(s) if "CUDA device name: " in s else None
    return _gpu(int(m.group("idx")), gpu_name(m.group("name")), None, None, s) if m else []


def read(lines: Sequence[str]) -> Partial:
    out: List[Fact] = []
    order: Dict[str, int] = {}
    for ln in lines:
        s = text_of(ln)
        out += _driver(s) if "CUDA driver version: " in s else _row(s, order)
    return partial(NAME, out + [Fact("format", NAME, text_of(lines[0]))] if out else [])
