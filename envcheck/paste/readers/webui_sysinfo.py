"""The Stable Diffusion web UI's Sysinfo JSON (AUTOMATIC1111's ``modules/sysinfo.py``, Forge's copy of it), as users
paste it into the bug template's "Sysinfo" field: its ``"Torch env info": { ... }`` object is PyTorch's
``collect_env`` as JSON (``torch.utils.collect_env.get_env_info()._asdict()``), one ``"key": value`` a line:

    "Torch env info": {
        "torch_version": "2.2.0+cu121",
        "cuda_compiled_version": "12.1",
        "python_version": "3.10.6 (tags/v3.10.6:9c7b4bd, ...) [MSC v.1932 64 bit (AMD64)] (64-bit runtime)",
        "is_cuda_available": "False",
        "nvidia_driver_version": null,
        "nvidia_gpu_models": null,
        ...

(AUTOMATIC1111/stable-diffusion-webui#15432, #15137, #17038). Each field is read as collect_env's own field of the
same name is (:mod:`~envcheck.paste.readers.collect_env`): ``null`` is unknown, except ``cuda_compiled_version``
next to a torch version, which is ``torch.version.cuda`` (``None``: a CPU or ROCm build); ``nvidia_gpu_models`` holds
``GPU N: NAME`` rows joined by ``\\n`` (a bare name where torch named one device, a ROCm build's too). The object's
other fields (the pip list, the CPU info) and the JSON's other keys are not read here.
"""

from __future__ import annotations

import json
import re
from typing import Any, List, Optional, Sequence

from envcheck.paste.readers import collect_env, vendor_fields
from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "webui sysinfo"
_HEAD = re.compile(r'^"Torch env info"\s{0,3}:\s{0,3}\{\s*$')
#: one field of the object: a JSON string (escapes kept), null, a boolean or a number, then its comma
_FIELD = re.compile(r'^"(?P<k>[a-z_]{2,40})"\s{0,3}:\s{0,3}(?P<v>"(?:[^"\\]|\\.){0,2000}"|null|true|false|-?\d{1,12}(?:\.\d{1,12})?)'
                    r"\s{0,3},?\s*$")
_GPU_ROW = re.compile(r"^GPU\s{0,2}(?P<idx>\d{1,3})\s{0,2}:\s{0,2}(?P<name>.{1,120}?)\s*$")
_MAX = 600  # lines of the object at most (its pip list is inside it)
#: the object's keys -> collect_env's field of the same meaning
_AS = {"torch_version": "PyTorch version", "cuda_compiled_version": "CUDA used to build PyTorch",
       "hip_compiled_version": "ROCM used to build PyTorch", "python_version": "Python version",
       "python_platform": "Python platform", "os": "OS", "is_cuda_available": "Is CUDA available",
       "cuda_runtime_version": "CUDA runtime version", "nvidia_driver_version": "Nvidia driver version",
       "hip_runtime_version": "HIP runtime version", "miopen_runtime_version": "MIOpen runtime version"}

Facts = List[Fact]


def _end(lines: Sequence[str], i: int) -> int:
    j = i + 1
    while j < len(lines) and j - i <= _MAX:
        if text_of(lines[j]).startswith("}"):
            return j + 1
        j += 1
    return j


def detect(c: Line) -> int:
    if "torch env info" in c.low and _HEAD.match(c.s):
        return _end(c.lines, c.i) - c.i
    return 0


def _value(raw: str) -> Optional[Any]:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _gpus(value: str, line: str) -> Facts:
    out: Facts = []
    for k, row in enumerate(r.strip() for r in value.split("\n") if r.strip()):
        m = _GPU_ROW.match(row)
        if m:
            out.append(collect_env.gpu_fact(int(m.group("idx")), m.group("name"), line))
        elif k == 0:
            out.append(collect_env.gpu_fact(0, row, line))  # one device named bare (torch's name of it, a ROCm build's)
            break
    return out + [Fact("seen:gpu", line.strip()[:300], line)] if out else []


def read(lines: Sequence[str]) -> Partial:
    out: Facts = []
    torch_known = False
    for ln in lines[1:]:
        m = _FIELD.match(text_of(ln))
        if not m:
            continue
        key, value = m.group("k"), _value(m.group("v"))
        if key == "nvidia_gpu_models":
            out += _gpus(value, ln) if isinstance(value, str) else []
            continue
        if key == "cuda_compiled_version" and value is None and torch_known:
            value = "None"  # torch.version.cuda is None: no CUDA build (collect_env prints it so)
        if key not in _AS or not isinstance(value, str):
            continue
        facts = collect_env.kv_facts(_AS[key], value.strip(), [ln])
        torch_known = torch_known or (key == "torch_version" and any(f.field == "seen:torch" for f in facts))
        out += facts
    if any(f.field == "torch.hip!" for f in out):  # a ROCm build's devices are AMD's (as collect_env reads them)
        out = [vendor_fields.amd_gpu(f.value[0], f.value[1] or "", f.line) if f.field == "gpu" else f
               for f in out]
    return partial(NAME, out + [Fact("format", NAME, text_of(lines[0]))] if out else [])
