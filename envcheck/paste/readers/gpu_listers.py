"""GPU listers other than nvidia-smi in a bug report: CUDA samples' ``deviceQuery`` / ``deviceQueryDrv`` (from its
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

_DQ_START = re.compile(r"^(?:\S{0,200}deviceQuery(?:Drv)?(?:\.exe)? Starting\.\.\.|CUDA Device Query \((?:Runtime|Driver) "
                       r"API\)|Detected \d{1,4} CUDA Capable device\(s\))")
_DQ_DEVICE = re.compile(r'^Device \d{1,4} ?: "[^"\n]{1,160}"')
_DQ_KEY = re.compile(r"^(?:CUDA Driver Version|CUDA Capability Major)")
_NCC_START = re.compile(r"^NVRM version:[ \t]+\d{2,4}(?:\.\d{1,4}){1,3}[ \t]*$")
_NCC_NEXT = re.compile(r"^CUDA version:[ \t]+\d")
#: a line that belongs to either form's block (stripped): an indented key of deviceQuery, its counts, devices,
#: summary and peer lines, a container-cli field
_IN_BLOCK = re.compile(r"^(?:Device \d|Detected \d|There (?:is|are) |CUDA |Total |Maximum |Max |Warp size|Memory |GPU |"
                       r"L2 |Texture |Concurrent |Run time |Integrated |Support |Alignment |Device |Compute |"
                       r"Cooperative |Host |Multi-|\(\s{0,3}\d{1,4}\) Multiprocessors|Number of |MapSMtoCores|"
                       r"> Peer access|< Default|deviceQuery|Result = |\.\.\.|NVRM version|Model|Brand|Bus Location|"
                       r"Architecture|MIG )")


def _starts(c: Line) -> bool:
    s = c.s
    if _DQ_START.match(s):
        return True
    nxt = [ln.strip() for ln in c.lines[c.i + 1:c.i + 3]]
    if _DQ_DEVICE.match(s):
        return any(_DQ_KEY.match(n) for n in nxt)
    return bool(_NCC_START.match(s)) and any(_NCC_NEXT.match(n) for n in nxt)


def detect(c: Line) -> int:
    if not _starts(c):
        return 0
    lines, i = c.lines, c.i
    j, blanks = i + 1, 0
    while j < len(lines) and j - i < 2000:
        s = lines[j].strip()
        if not s:
            blanks += 1
            if blanks > 2:
                break
        elif _IN_BLOCK.match(s) or lines[j][:1] in (" ", "\t"):
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
    out: List[Fact] = [Fact("format", NAME, first)]
    if got is None or got.form not in ("deviceQuery", "nvidia-container-cli info"):
        return partial(NAME, out)
    if got.driver_version:
        line = f"{got.form}: NVRM version: {got.driver_version}"
        out += [Fact("driver", got.driver_version, line), Fact("seen:driver", line, line)]
    if got.cuda_version:
        line = f"{got.form}: CUDA Driver Version {got.cuda_version}"
        out += [Fact("smi_cuda", got.cuda_version, line), Fact("seen:driver", line, line)]
    for g in got.gpus:
        if g.name:
            out += [Fact("gpu", (g.index, gpu_name(g.name), g.compute_capability, g.memory_mib), g.name),
                    Fact("seen:gpu", g.name, g.name)]
    return partial(NAME, out)
