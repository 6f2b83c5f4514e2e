"""ComfyUI's own lines about the machine, as users paste them from its console, its log file or its bug-report
"System Information" block:

* the start-up lines ``pytorch version: 2.7.0+cu128``, ``Device: cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync``
  and the Manager's ``** Python version: 3.12.9 (tags/v3.12.9:...) [MSC v.1942 64 bit (AMD64)]``, bare or behind the
  log's time stamp (``[2024-11-06 23:40:40.835] ``, ``2024-10-19 01:10:47,703 - root - INFO - ``,
  ``2025-10-21T21:59:20.643944 - ``, journald's ``Mär 08 02:15:09 evo comfy-ui[301326]: ``, docker compose's
  ``comfyui-trellis  | ``, a level ``[INFO] ``);
* the Crystools node's start-up lines ``[Crystools INFO] 0) NVIDIA GeForce RTX 3060`` (GPU 0) and ``[Crystools INFO]
  NVIDIA Driver: 581.57`` (an AMD machine's ``NVIDIA Driver: AMD Driver: Unknown`` is not read);
* the System Information block's device line ``- **Name:** cuda:0 NVIDIA GeForce RTX 5070 Ti : cudaMallocAsync``
  (its ``**Python Version:**`` / ``**PyTorch Version:**`` bullets are read by the bullet reader).

A device that is not an NVIDIA GPU (``cpu``, ``privateuseone`` or a ROCm build's ``cuda:0 AMD Radeon``) is not read as a
GPU: its vendor is not NVIDIA's and this form does not say which it is. ``Device: xpu`` (``xpu:0 ...``) says the torch in
use is an XPU build (Intel's GPU; contract §9), not a CPU-only one.
"""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.parse import log_stamp
from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read", "strip_stamp"]

NAME = "comfyui"
#: journald's ``Mär 08 02:15:09 host unit[pid]: `` and docker compose's ``service  | ``
_PREFIX = re.compile(r"^(?:[^\W\d_]{3,4}\.?\s{1,2}\d{1,2}\s\d{2}:\d{2}:\d{2}\s[\w.-]{1,64}\s[\w.@-]{1,64}(?:\[\d{1,10}\])?:\s"
                     r"|[\w.-]{1,64}\s{1,4}\|\s)")
_LEVEL = re.compile(r"^\[(?:INFO|WARNING|WARN|DEBUG|ERROR)\]\s{1,3}")
_DEVICE = re.compile(r"^(?:[-*]\s{1,3})?(?:Device:|\*\*Name:\*\*)\s{1,3}cuda:(?P<idx>\d{1,2})\s{1,3}"
                     r"(?P<name>\S(?:[^:]{0,80}\S)?)\s{1,3}:\s{1,3}(?:cudaMallocAsync|native)\s*$")
_NOT_NVIDIA = re.compile(r"(?i)\b(?:AMD|Radeon|Intel|Arc|Instinct)\b")
_CRYS_GPU = re.compile(r"^\[Crystools INFO\] (?P<idx>\d{1,2})\) (?P<name>(?:NVIDIA|Tesla|Quadro)\b[^:]{1,80}?)\s*$")
_CRYS_DRIVER = re.compile(r"^\[Crystools INFO\] NVIDIA Driver: (?P<v>\d{3}\.\d{2,3}(?:\.\d{2,3})?)\s*$")
#: the device line of an Intel GPU: ``Device: xpu`` (IPEX builds), ``Device: xpu:0 Intel(R) Arc(TM) A770 Graphics : native``
_XPU_DEVICE = re.compile(r"^Device:\s{1,3}xpu(?::\d{1,2})?(?:\s.{0,120})?$")
_TORCH = re.compile(r"^pytorch version:\s{1,3}(?P<v>\d+\.\d+(?:\.\d+)?(?:[a-z]+\d*)?(?:\+[\w.]{1,30})?)\s*$")
_PYTHON = re.compile(r"^\*\*\s{1,3}Python version:\s{1,3}(?P<v>3\.\d{1,2}\.\d{1,2})\b")


def strip_stamp(s: str) -> str:
    """``s`` without a leading log time stamp, journald / docker compose prefix and level."""
    m = _PREFIX.match(s)
    if m:
        s = s[m.end():]
    s = log_stamp.strip(s)
    m = _LEVEL.match(s)
    return s[m.end():].strip() if m else s.strip()


def _crystools(s: str) -> List[Fact]:
    m = _CRYS_GPU.match(s)
    if m:
        return [Fact("gpu", (int(m.group("idx")), m.group("name"), None, None), s), Fact("seen:gpu", s, s),
                Fact("format", NAME, s)]
    m = _CRYS_DRIVER.match(s)
    return [Fact("driver", m.group("v"), s), Fact("seen:driver", s, s), Fact("format", NAME, s)] if m else []


def _facts(s: str) -> List[Fact]:
    if s.startswith("[Crystools INFO]"):
        return _crystools(s)
    body = strip_stamp(s)
    dm = _DEVICE.match(body)
    if dm:
        name = dm.group("name")
        if _NOT_NVIDIA.search(name):
            return []
        return [Fact("gpu", (int(dm.group("idx")), name, None, None), s), Fact("seen:gpu", s, s),
                Fact("format", NAME, s)]
    if _XPU_DEVICE.match(body):  # ComfyUI runs on torch's xpu device: an XPU build of torch (IPEX or torch+xpu)
        # ComfyUI takes the xpu device only where torch.xpu.is_available(): the XPU backend sees an Intel GPU
        return [Fact("torch._xpu", True, s), Fact("xpu_available", True, s), Fact("seen:torch-xpu", s, s),
                Fact("format", NAME, s)]
    tm = _TORCH.match(body)
    if tm:
        return [Fact("torch.version", tm.group("v"), s), Fact("seen:torch", s, s), Fact("format", NAME, s)]
    pm = _PYTHON.match(body)
    if pm:
        return [Fact("python", pm.group("v"), s), Fact("format", NAME, s)]
    return []


def detect(c: Line) -> int:
    if ("cuda:" not in c.low and "version:" not in c.low and "crystools" not in c.low and "device: xpu" not in c.low) \
            or len(c.s) > 400:
        return 0
    return 1 if _facts(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    return partial(NAME, _facts(text_of(lines[0])) if lines else [])
