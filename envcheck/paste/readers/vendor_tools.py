"""Intel's ``sycl-ls`` and Apple's ``system_profiler SPDisplaysDataType`` pasted in a report: the snapshot files they
are (``sycl-ls.txt``, ``system-profiler-displays.txt``, contract §9), handed on as pasted (a ``tool`` fact) and read
by the snapshot's own parsers, so that a machine the text shows to be Intel's or Apple's gets no NVIDIA-only fix.

* ``sycl-ls``: its device lines, ``[level_zero:gpu][level_zero:0] Intel(R) oneAPI Unified Runtime over Level-Zero,
  Intel(R) Arc(TM) A770 Graphics 12.55.8 [1.3.29735+27]`` (and the older ``[opencl:gpu:2] ...``,
  ``[ext_oneapi_level_zero:gpu:0] ...`` forms), one after another. A GPU of another backend (``ext_oneapi_cuda``,
  ``hip``) is not an Intel GPU: the cuda backend's are NVIDIA GPUs, the hip backend's AMD GPUs with their gfx target.
* ``system_profiler``: from its ``Graphics/Displays:`` heading, the indented lines under it. An Apple GPU (``Chipset
  Model: Apple M3``) is the machine's; a Mac's Radeon or Intel GPU is read by the snapshot's parser (contract §9: on a
  Mac the vendor is Apple).
"""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import MAXLINE, Fact, Line, Partial, gpu_name, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "sycl-ls / system_profiler"
_SYCL = re.compile(r"^\[(?:ext_oneapi_)?(?:level_zero|opencl|cuda|hip|host|native_cpu):[a-z]{2,5}(?::\d{1,3})?\]"
                   r"(?:\[[a-z_]{2,30}:\d{1,3}\])?\s+\S")
_DISPLAYS = re.compile(r"^Graphics/Displays:\s*$")
_MAX = 2000


def detect(c: Line) -> int:
    if _SYCL.match(c.s):
        j = c.i + 1
        while j < len(c.lines) and j - c.i < _MAX and _SYCL.match(text_of(c.lines[j])):
            j += 1
        return j - c.i
    if _DISPLAYS.match(c.s):
        j = c.i + 1
        while j < len(c.lines) and j - c.i < _MAX:
            raw = c.lines[j][:MAXLINE]
            if raw.strip() and not raw[:1].isspace():
                break  # the first line back at the left margin ends the output
            j += 1
        return j - c.i
    return 0


def _sycl(lines: Sequence[str]) -> Partial:
    from envcheck.parse.intel import nvidia_gpus_seen, parse_sycl_ls, sycl_ls_amd_gpus

    text = "\n".join(text_of(ln) for ln in lines) + "\n"
    r = parse_sycl_ls(text)
    out: List[Fact] = [Fact("vgpu", (g.index, gpu_name(g.name or ""), "nvidia", None, "sycl-ls"), text_of(lines[0]))
                       for g in nvidia_gpus_seen(None, text)]  # the cuda backend's GPUs (contract §9)
    out += [Fact("vgpu", (g.index, gpu_name(g.name) if g.name else None, "amd", g.gfx, "sycl-ls", g.device_id),
                 text_of(lines[0])) for g in sycl_ls_amd_gpus(text)]  # the hip backend's
    intel = [d for d in r.devices if d.type == "gpu" and d.backend in ("level_zero", "opencl")
             and re.search(r"\bIntel\b", d.name + " " + d.platform)]
    names = list(dict.fromkeys(d.name for d in intel))
    for n, name in enumerate(names):
        out.append(Fact("vgpu", (n, gpu_name(name), "intel", None, "sycl-ls"), text_of(lines[0])))
    if r.recognised:
        out += [Fact("tool", ("sycl-ls.txt", text), text_of(lines[0])), Fact("format", "sycl-ls", text_of(lines[0]))]
    if any(d.backend == "level_zero" for d in intel):
        out.append(Fact("xpu_level_zero", True, text_of(lines[0])))
    return partial("sycl-ls", out)


def _displays(lines: Sequence[str]) -> Partial:
    from envcheck.parse.macos import parse_system_profiler

    text = "\n".join(ln[:MAXLINE] for ln in lines) + "\n"
    gpus = parse_system_profiler(text)
    if not gpus:
        return partial("system_profiler", [])
    out = [Fact("tool", ("system-profiler-displays.txt", text), text_of(lines[0])),
           Fact("format", "system_profiler", text_of(lines[0])), Fact("platform", "darwin", text_of(lines[0]))]
    for n, g in enumerate(gpus):
        if g.vendor == "apple":
            out.append(Fact("vgpu", (n, gpu_name(g.name or ""), "apple", None, "system_profiler"), text_of(lines[0])))
            out.append(Fact("apple_cpu", True, text_of(lines[0])))  # an Apple GPU is an Apple silicon SoC's
    return partial("system_profiler", out)


def read(lines: Sequence[str]) -> Partial:
    return _sycl(lines) if _SYCL.match(text_of(lines[0])) else _displays(lines)
