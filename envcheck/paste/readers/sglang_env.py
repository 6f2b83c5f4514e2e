"""SGLang's ``python3 -m sglang.check_env`` block, as SGLang's bug template asks for it (its "Environment" field)::

    Python: 3.11.9 (main, Apr 19 2024, 16:48:06) [GCC 11.2.0]
    CUDA available: True
    GPU 0: Tesla T4
    GPU 0 Compute Capability: 7.5
    CUDA_HOME: /usr/local/cuda-12.6
    NVCC: Cuda compilation tools, release 12.6, V12.6.20
    CUDA Driver Version: 535.54.03
    PyTorch: 2.3.1+cu121
    sglang: 0.2.10
    flashinfer: 0.1.3
    ...

(older releases print no ``Compute Capability`` row; several identical GPUs share one row: ``GPU 0,1,2,3: NVIDIA
H100 80GB HBM3``). Unlike OpenMMLab's block (readers/mmcv_env.py) it has no ``sys.platform`` row: it starts at its
``Python:`` row, with ``CUDA available:`` within the next two. Read: the Python, ``CUDA available`` (torch's
``torch.cuda.is_available()``), each GPU with its compute capability, nvcc's release line, ``CUDA Driver Version``
(the driver's version, what nvidia-smi prints as ``Driver Version``) and ``PyTorch`` (the torch in use). The
package rows (``sglang: 0.2.10``, ``vllm: 0.5.3.post1``) are not facts of the CUDA stack and are not read."""

from __future__ import annotations

import re
from typing import Dict, List, Sequence, Tuple

from envcheck.paste.readers import fields
from envcheck.paste.readers.base import Fact, Line, Partial, gpu_name, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "sglang check_env"
#: "Key: value": a key of words (linear: bounded runs, one literal colon)
_ROW = re.compile(r"^(?P<key>[A-Za-z][\w .(),/-]{0,48}?):(?: (?P<val>.{0,1500}))?$")
_PYTHON = re.compile(r"^Python: (?P<v>3\.\d{1,2}\.\d{1,3})\b")
_GPU = re.compile(r"^GPU (?P<idx>\d{1,3}(?:,\d{1,3}){0,15})$")
_CC = re.compile(r"^GPU (?P<idx>\d{1,3}(?:,\d{1,3}){0,15}) Compute Capability$")
_DRIVER = re.compile(r"^\d{3}\.\d{2,3}(?:\.\d{2,3})?$")
_TORCH = re.compile(r"^\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:[a-z]+\d*)?(?:\.dev\d+)?(?:\+[\w.]{1,30})?$")
_MAX = 80  # rows of one block at most
Facts = List[Fact]


def detect(c: Line) -> int:
    if not c.s.startswith("Python: ") or not _PYTHON.match(c.s):
        return 0
    if not any(text_of(ln).startswith("CUDA available:") for ln in c.lines[c.i + 1:c.i + 3]):
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < _MAX and _ROW.match(text_of(c.lines[j])):
        j += 1
    return j - c.i


def _gpus(key: str, val: str, gpus: Dict[int, Tuple[str, str]]) -> None:
    gm = _GPU.match(key)
    cm = _CC.match(key) if gm is None else None
    m = gm or cm
    if m is None:
        return
    for idx in (int(x) for x in m.group("idx").split(",")):
        name, cc = gpus.get(idx, ("", ""))
        if gm:
            name = gpu_name(val) or ""
        elif re.match(r"^\d{1,2}\.\d$", val):
            cc = val
        gpus[idx] = (name, cc)


def _row(key: str, val: str, s: str) -> Facts:
    if key == "CUDA available" and val in ("True", "False"):
        return fields.gpu_state("torch", val, s)
    if key == "NVCC" and val.startswith("Cuda compilation tools"):
        return [Fact("nvcc", val + "\n", s)]
    if key == "CUDA Driver Version" and _DRIVER.match(val):
        return [Fact("driver", val, s), Fact("seen:driver", s, s)]
    if key == "PyTorch" and _TORCH.match(val):
        return [Fact("torch.version", val, s), Fact("seen:torch", s, s)]
    return []


def read(lines: Sequence[str]) -> Partial:
    if not lines:
        return partial(NAME, [])
    first = text_of(lines[0])
    pm = _PYTHON.match(first)
    out: Facts = [Fact("format", NAME, first)] + ([Fact("python", pm.group("v"), first)] if pm else [])
    gpus: Dict[int, Tuple[str, str]] = {}
    for ln in lines[1:]:
        s = text_of(ln)
        m = _ROW.match(s)
        if not m:
            continue
        key, val = m.group("key").strip(), (m.group("val") or "").strip()
        out += _row(key, val, s)
        _gpus(key, val, gpus)
    for idx in sorted(gpus):
        name, cc = gpus[idx]
        if name:
            out += [Fact("gpu", (idx, name, cc or None, None), f"GPU {idx}: {name}"), Fact("seen:gpu", name, name)]
    return partial(NAME, out)
