"""GPU listers other than nvidia-smi in a bug report (gpustat's rows, the /proc information files and ``dcgmi
discovery -l`` too): CUDA samples' ``deviceQuery`` / ``deviceQueryDrv`` (from its
"CUDA Device Query (...)" title, its "Detected N CUDA Capable device(s)" count or a 'Device 0: "..."' line with the
sample's keys under it, to its "Result = PASS/FAIL") and ``nvidia-container-cli info`` (from "NVRM version:" with
"CUDA version:" under it), read by the snapshot's readers (:mod:`envcheck.parse.gpu_listers`) for what they make
certain: deviceQuery's "CUDA Driver Version" is the driver's CUDA (nvidia-smi's "CUDA Version"); its devices, their
memory and compute capability; nvidia-container-cli's "NVRM version" is the driver, "Architecture" the compute
capability. The sample's own CUDA runtime version is not the machine's toolkit: not read."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, gpu_name, partial

__all__ = ["NAME", "detect", "read"]

NAME = "gpu lister"
#: the listers whose facts a paste takes: those that answer through the driver (lspci's PCI names are not the
#: names the driver gives, and a paste of lspci beside nvidia-smi would name one GPU twice)
_READ = ("deviceQuery", "nvidia-container-cli info", "gpustat", "/proc/driver/nvidia/gpus", "dcgmi discovery", "glxinfo",
         "nvidia-debugdump")
#: glxinfo names the GPU that renders the X screen, not its index: ``gpu_rendering``, the GPU list only where nothing
#: else in the text lists GPUs (nvidia-smi's table beside it is the list)
_NAMED_ONLY = ("glxinfo",)

_DQ_START = re.compile(r"^(?:\S{0,200}deviceQuery(?:Drv)?(?:\.exe)? Starting\.\.\.|CUDA Device Query \((?:Runtime|Driver) "
                       r"API\)|Detected \d{1,4} CUDA Capable device\(s\))")
_DQ_DEVICE = re.compile(r'^Device \d{1,4} ?: "[^"\n]{1,160}"')
_DQ_KEY = re.compile(r"^(?:CUDA Driver Version|CUDA Capability Major)")
_NCC_START = re.compile(r"^NVRM version:[ \t]+\d{2,4}(?:\.\d{1,4}){1,3}[ \t]*$")
_NCC_NEXT = re.compile(r"^CUDA version:[ \t]+\d")
#: a line that belongs to either form's block (stripped): an indented key of deviceQuery, its counts, devices,
#: summary and peer lines, a container-cli field
_IN_BLOCK = re.compile(r"^(?:Device \d|Detected \d|There (?:is|are) |CUDA |Total |Maximum |Max |Warp size|Memory |GPU |"
                       r"Clock rate|Supports |Persisting |Kernel |Pinned |Quick Mode|Starting\.\.\.|"
                       r"L2 |Texture |Concurrent |Run time |Integrated |Support |Alignment |Device |Compute |"
                       r"Cooperative |Host |Multi-|\(\s{0,3}\d{1,4}\) Multiprocessors|Number of |MapSMtoCores|"
                       r"> Peer access|Peer access|< Default|deviceQuery|Result = |\.\.\.|NVRM version|Model|Brand|Bus Location|"
                       r"Architecture|MIG |\[\d{1,4}\] |IRQ:|Video BIOS:|Bus Type:|DMA |Device Minor:|GPU Excluded:|"
                       r"Blacklisted:|GPU Firmware:|\||\+-|\**OpenGL |direct rendering:|Dedicated video memory:|"
                       r"Total available memory:|Currently available dedicated|Found \d)")


#: gpustat's GPU row; the /proc information file's first field and the ones after it; dcgmi's count and table head
_GS_ROW = re.compile(r"^\[\d{1,4}\][ \t]+\S[^|\n]{0,120}\|[ \t]*(?:\d{1,3}|\?\?)[ \t]*(?:'|\u00b0|\u00ba)?C,[^\n]{0,80}\|"
                     r"[ \t]*(?:\d{1,9}|\?\?)[ \t]*/[ \t]*\d{1,9}[ \t]*MB")
_GS_HEADER = re.compile(r"^\S{1,120}[ \t]{2,}\S[^\n]{4,60}?(?:[ \t]{2,}\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)?[ \t]*$")
_PG_MODEL = re.compile(r"^Model:[ \t]+\S")
_PG_NEXT = re.compile(r"^(?:IRQ|GPU UUID|Bus Location|Video BIOS):[ \t]")
_DC_START = re.compile(r"^\|[ \t]*GPU ID[ \t]*\|[ \t]*Device Information")
_DC_COUNT = re.compile(r"^\d{1,4} GPUs? found\.$")
_MARKS = re.compile(r"^(?:[ \t]*(?:#|//|>)[ \t]?)+")
#: glxinfo's lines of NVIDIA's OpenGL driver (its vendor string, a version string naming the driver); the renderer
#: line starts the block where one of them follows
_GL_START = re.compile(r"^\**OpenGL (?:vendor string:[ \t]{0,16}NVIDIA Corporation|(?:core profile |ES profile )?version "
                       r"string:[^\n]{0,40}?NVIDIA[ \t]{1,8}\d{2,3}\.)")
_GL_RENDERER = re.compile(r"^OpenGL renderer string:[ \t]")
#: nvidia-debugdump -l's count line, with a "Device ID:" line after it
_DD_FOUND = re.compile(r"^Found \d{1,4} NVIDIA devices?$")


def _plain(line: str) -> str:
    """A line without a comment / quote mark before it ("# ", "// ", "> "), stripped."""
    return _MARKS.sub("", line[:2000]).strip()


def _starts(c: Line) -> bool:
    s = _plain(c.s)

    def nxt() -> List[str]:  # the next two lines, made plain only where the line's own form asks for them
        return [_plain(ln) for ln in c.lines[c.i + 1:c.i + 3]]

    if _DQ_START.match(s) or _DC_START.match(s) or _GL_START.match(s):
        return True
    if _GL_RENDERER.match(s):
        return any(_GL_START.match(n) for n in nxt())
    if _DD_FOUND.match(s):
        return any(n.startswith("Device ID:") for n in nxt())
    if _DC_COUNT.match(s):
        return any(n.startswith("+-") or _DC_START.match(n) for n in nxt())
    if _DQ_DEVICE.match(s):
        return any(_DQ_KEY.match(n) for n in nxt())
    if _GS_ROW.match(s) or (_GS_HEADER.match(s) and any(_GS_ROW.match(n) for n in nxt()[:1])):
        return True
    if _PG_MODEL.match(s):
        return any(_PG_NEXT.match(n) for n in nxt())
    return bool(_NCC_START.match(s)) and any(_NCC_NEXT.match(n) for n in nxt())


def detect(c: Line) -> int:
    if not _starts(c):
        return 0
    lines, i = c.lines, c.i
    j, blanks = i + 1, 0
    while j < len(lines) and j - i < 2000:
        s = _plain(lines[j])
        if not s:
            blanks += 1
            if blanks > 2:
                break
        elif _IN_BLOCK.match(s):
            blanks = 0
            if s.startswith("Result = "):
                return j + 1 - i
        else:
            break
        j += 1
    return j - i


def read(lines: Sequence[str]) -> Partial:
    from envcheck.parse.gpu_listers import read_listing

    text = "\n".join(lines) + "\n"
    got = read_listing(text)
    first = lines[0].strip() if lines else ""
    if got is None or got.form not in _READ:
        return partial(NAME, [])  # lines like a lister's that no lister's reader reads: nothing said
    out: List[Fact] = [Fact("format", NAME, first)]
    if got.driver_version:
        line = f"{got.form}: NVRM version: {got.driver_version}"
        out += [Fact("driver", got.driver_version, line), Fact("seen:driver", line, line)]
    if got.cuda_version:
        line = f"{got.form}: CUDA Driver Version {got.cuda_version}"
        out += [Fact("smi_cuda", got.cuda_version, line), Fact("seen:driver", line, line)]
    for g in got.gpus:
        if g.name and got.form in _NAMED_ONLY:
            out += [Fact("gpu_rendering", gpu_name(g.name), g.name), Fact("seen:gpu", g.name, g.name)]
        elif g.name:
            out += [Fact("gpu", (g.index, gpu_name(g.name), g.compute_capability, g.memory_mib), g.name),
                    Fact("seen:gpu", g.name, g.name)]
    return partial(NAME, out)
