"""``jax.print_environment_info()`` (``jax:``/``jaxlib:``/``python:`` lines, ``jax.devices (...): [...]`` or, from
jax 0.4.2x, ``device info: NVIDIA A100-SXM4-40GB-1, 1 local devices``) and JAX's issue form question
"### Which accelerator(s) are you using?" answered "GPU" on a later line."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers import fields
from envcheck.paste.readers.base import VER, Fact, Line, Partial, first_version, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "jax.print_environment_info"
_VERSION = re.compile(r"^(jax|jaxlib):\s+(" + VER + r"\S*)\s*$")
_DEVICES = re.compile(r"^jax\.devices\s*\(.*?\):\s*\[(.*)")
# jax >= 0.4.2x prints one line instead of the device list (jax/_src/environment_info.py):
#   device info: {devices()[0].device_kind}-{device_count()}, {local_device_count()} local devices"
# device_kind is "cpu" on the CPU backend, "TPU ..." on TPUs and the GPU's name on a GPU backend
_DEVICE_INFO = re.compile(r'^device info:\s*(\S.{0,200}?)-(\d{1,6}),\s*\d{1,6}\s+local devices"?\s*$')
#: a line of the block: ``key: value`` with a lower-case key ("numpy:", "process_count:", "jax.devices (1 total ...):")
_IN_BLOCK = re.compile(r"^(?:[a-z_][\w.]*(?:\s\([^)]{0,40}\))?:\s|device info:)")
_ACCELERATOR = re.compile(r"^#{2,4}\s*which accelerator\(s\) are you using\?\s*$")
Facts = List[Fact]


def detect(c: Line) -> int:
    if _VERSION.match(c.s):
        j = c.i + 1
        while j < len(c.lines) and j - c.i < 40 and _IN_BLOCK.match(text_of(c.lines[j])):
            j += 1
        return j - c.i
    if _ACCELERATOR.match(c.low):
        j = c.i + 1
        while j < len(c.lines) and j - c.i < 4 and not c.lines[j].strip():
            j += 1
        return j + 1 - c.i if j < len(c.lines) else 1  # the answer's line is part of the question
    return 0


def _device_line(s: str) -> Facts:
    m = _DEVICES.match(s)
    if m:
        # print_environment_info prints jaxlib without its local label (+cuda11.cudnn805): GPU devices
        # are what proves a GPU build
        gpu = bool(re.search(r"\b(Gpu|Cuda|Rocm)Device|\bcuda\(id=", m.group(1)))
        return [Fact("jax.devices!", "gpu" if gpu else "cpu", s), Fact("gpu_works" if gpu else "gpu_fails", "jax", s)]
    m = _DEVICE_INFO.match(s)
    if m:
        kind = m.group(1).strip().lower()
        if kind == "cpu":
            return [Fact("jax.devices!", "cpu", s), Fact("gpu_fails", "jax", s)]
        if not kind.startswith("tpu"):
            return [Fact("jax.devices!", "gpu", s), Fact("gpu_works", "jax", s)]
    return []


def _line(s: str) -> Facts:
    m = _VERSION.match(s)
    if m:
        return [Fact("format", NAME, s), Fact("jax.version" if m.group(1) == "jax" else "jax.jaxlib", m.group(2), s)]
    if s.startswith("platform: "):
        return fields.platform_facts(s[len("platform: "):], s)
    if re.match(r"^python:\s+\d", s):
        v = first_version(s.split(":", 1)[1])
        return [Fact("python", v, s)] if v else []
    return _device_line(s)


def read(lines: Sequence[str]) -> Partial:
    if not lines:
        return partial(NAME, [])
    first = text_of(lines[0])
    if _ACCELERATOR.match(first.lower()):
        last = lines[-1]
        if len(lines) > 1 and re.search(r"\bGPU\b", last[:200]) and not last.strip().startswith("#"):
            return partial("jax issue form", [Fact("seen:gpu-intent", f"{first} {last.strip()}", last)])
        return partial("jax issue form", [])
    out: Facts = []
    for ln in lines:
        out += _line(text_of(ln))
    return partial(NAME, out)
