"""The console lines of the Stable Diffusion web UIs and trainers about the machine:

* AUTOMATIC1111's version checks: ``You are running torch 1.13.1+cu117.`` (the installed torch; the next line's
  ``The program is tested to work with torch 2.0.0.`` is what it wants, not read) and ``This program is tested with
  3.10.6 Python, but you have 3.11.2.`` (the Python is the second);
* kohya_ss / SD.Next's start-up (behind their ``18:57:10-093130 INFO     `` stamp, or the bare ``INFO     `` of
  kohya_ss before v22.2): ``nVidia toolkit detected`` (its setup found nvidia-smi: the CUDA stack is wanted), ``Torch 2.7.0+cu128``, ``Torch
  backend: nVidia CUDA 12.8 cuDNN 90701`` (the build's CUDA and cuDNN), ``Torch detected GPU: NVIDIA GeForce MX110
  VRAM 2048 Arch (5, 0) Cores 2`` (a GPU, its compute capability and memory; one line per GPU, in order).

Prose that says the same words ("If you are running torch 2.1.2 with Cuda 12.1 ...") is not read: each form is the
whole line."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.parse.versions import cudnn_digits
from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "sd webui console"
_TV = r"\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:\+[\w.]{1,20})?"
_A1111_TORCH = re.compile(r"^You are running torch (?P<v>" + _TV + r")\.$")
_A1111_PY = re.compile(r"^This program is tested with 3\.\d{1,2}\.\d{1,2} Python, but you have (?P<v>3\.\d{1,2}\.\d{1,2})\.?$")
#: kohya_ss / SD.Next's level column, behind a time stamp (``18:57:10-093130 INFO``) or alone (kohya_ss before v22.2)
_STAMP = re.compile(r"^(?:\d{2}:\d{2}:\d{2}-\d{3,6}\s{1,3})?INFO\s{1,8}")
#: kohya_ss's "nVidia toolkit detected": its setup found nvidia-smi (the NVIDIA driver), i.e. the CUDA stack is wanted
_K_NVIDIA = re.compile(r"^nVidia toolkit detected\s*$")
_K_TORCH = re.compile(r"^Torch (?P<v>" + _TV + r")\s*$")
_K_BACKEND = re.compile(r"^Torch backend: nVidia CUDA (?P<cuda>\d{1,2}\.\d{1,2}) cuDNN (?P<cudnn>\d{3,6})\s*$")
_K_GPU = re.compile(r"^Torch detected GPU: (?P<name>\S.{0,80}?) VRAM (?P<mem>\d{1,7}) Arch \((?P<maj>\d{1,2}), "
                    r"(?P<min>\d)\) Cores \d{1,4}\s*$")
Facts = List[Fact]


def _kohya(body: str, s: str, gpu_idx: int) -> Facts:
    m = _K_TORCH.match(body)
    if m:
        return [Fact("torch.version", m.group("v"), s), Fact("seen:torch", s, s)]
    m = _K_BACKEND.match(body)
    if m:
        cudnn = cudnn_digits(m.group("cudnn"))
        return [Fact("torch.cuda", m.group("cuda"), s)] + ([Fact("torch.cudnn", cudnn, s)] if cudnn else [])
    if _K_NVIDIA.match(body):
        return [Fact("seen:gpu-intent", s, s)]
    m = _K_GPU.match(body)
    if m:
        cc = f"{m.group('maj')}.{m.group('min')}"
        return [Fact("gpu", (gpu_idx, m.group("name").strip(), cc, int(m.group("mem"))), s), Fact("seen:gpu", s, s)]
    return []


def _facts(s: str, gpu_idx: int = 0) -> Facts:
    m = _A1111_TORCH.match(s)
    if m:
        return [Fact("torch.version", m.group("v"), s), Fact("seen:torch", s, s)]
    m = _A1111_PY.match(s)
    if m:
        return [Fact("python", m.group("v"), s)]
    sm = _STAMP.match(s)
    return _kohya(s[sm.end():].strip(), s, gpu_idx) if sm else []


def detect(c: Line) -> int:
    if not (c.s.startswith(("You are running torch", "This program is tested with")) or "INFO" in c.s[:30]):
        return 0
    if not _facts(c.s):
        return 0
    j = c.i + 1  # a kohya block: the following stamped lines of the same form (several GPUs in order)
    while j < len(c.lines) and j - c.i < 64 and _STAMP.match(text_of(c.lines[j])) and _facts(text_of(c.lines[j])):
        j += 1
    return j - c.i


def read(lines: Sequence[str]) -> Partial:
    out: Facts = []
    gpus = 0
    for ln in lines:
        got = _facts(text_of(ln), gpus)
        gpus += any(f.field == "gpu" for f in got)
        out += got
    return partial(NAME, out + [Fact("format", NAME, text_of(lines[0]))] if out else [])
