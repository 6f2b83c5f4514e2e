"""What the local-LLM runtimes print about the GPUs they found, as users paste their logs:

* llama.cpp / ggml: ``ggml_cuda_init: found 2 CUDA devices:`` (or ``... devices (Total VRAM: 24075 MiB):``; before
  2024 ``ggml_init_cublas: found 1 CUDA devices:``) and its ``  Device 0: NVIDIA GeForce RTX 3090, compute capability
  8.6, VMM: yes[, VRAM: 24564 MiB]`` lines (without ``VMM`` before 2024; behind llama.cpp's ``0.00.137.305 I `` time
  stamp too; behind journald's ``Sep 04 14:24:56 host ollama[1461072]:`` prefix, ollama#6637; with the next log line
  glued on after the VRAM when a terminal's wrapped lines were pasted as one, audio.cpp#227); the Device lines pasted
  without their header line (LLamaSharp#162's "Device 0: Quadro P400, compute capability 6.1" under "My computer
  setup") are read the same;
* Ollama's server log: ``msg="inference compute" id=GPU-... library=cuda variant=v12 compute=8.9 driver=12.4
  name="NVIDIA GeForce RTX 4090" total="23.6 GiB"``, one line per GPU (behind journald's prefix too). ``driver=`` is
  the CUDA version of the driver (``cuDriverGetVersion``, what nvidia-smi's header calls ``CUDA Version``).

A ROCm build's lines (``found 1 ROCm devices``, ``library=rocm``) are not NVIDIA GPUs and are not read; a name cut by
journald (``name="N>``) is not read.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "llm runtime"
_GGML_HEAD = re.compile(r"ggml_(?:cuda_init|init_cublas): found (?P<n>\d{1,3}) CUDA devices\b")
_DEVICE_BODY = (r"Device (?P<idx>\d{1,3}): (?P<name>[^,]{1,80}), compute capability (?P<cc>\d{1,2}\.\d)(?:, VMM: (?:yes|no))?"
                r"(?:, VRAM: (?P<mem>\d{1,7}) MiB)?"
                # the line's end, or the next log line glued on after a run of spaces (a terminal's wrapped lines
                # pasted as one: "...VRAM: 11172 MiB      ggml_cuda_graph_set_enabled: ...", audio.cpp#227)
                r"(?:\s*$|\s{2,}(?=[a-z_]{2,40}:\s))")
#: a Device line by itself (the header's block or a headerless run): bare, behind llama.cpp's ``0.00.137.305 I `` time
#: stamp, or behind journald's ``Sep 04 14:24:56 FORGE ollama[1461072]:`` (a localized journalctl's "jan 27" too)
_GGML_DEVICE = re.compile(r"^(?:\d{1,4}\.\d{2}\.\d{3}\.\d{3} [A-Z] {1,3}"
                          r"|[A-Za-z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]{1,64} [\w.-]{1,64}(?:\[\d{1,9}\])?:\s{1,8})?"
                          + _DEVICE_BODY)
#: a Device line under its header: behind whatever prefix the runtime's host put before each line of the block
#: (LocalAI's "stderr   Device 0: Tesla T4, compute capability 7.5", LocalAI#944; a supervisor's "[llama] "), the
#: header above it vouching for the form
_GGML_DEVICE_UNDER = re.compile(r"^.{0,160}?(?<![\w\"'])" + _DEVICE_BODY)
_OLLAMA = 'msg="inference compute"'
_KV = re.compile(r'(?P<k>[a-z_]{1,20})=(?P<v>"[^"]{0,200}"|[^\s"]{1,100})')
_MAX = 64  # GPU lines of one block at most
Facts = List[Fact]


def _ggml_end(lines: Sequence[str], i: int, under: bool = True) -> int:
    pattern = _GGML_DEVICE_UNDER if under else _GGML_DEVICE
    j = i + 1
    while j < len(lines) and j - i <= _MAX and pattern.match(text_of(lines[j])):
        j += 1
    return j


def _ollama_end(lines: Sequence[str], i: int) -> int:
    j = i + 1
    while j < len(lines) and j - i < _MAX and _OLLAMA in lines[j][:2000]:
        j += 1
    return j


def _ggml_head_or_device(line: str) -> bool:
    s = text_of(line)
    return bool(("ggml_" in s and _GGML_HEAD.search(s)) or _GGML_DEVICE.match(s))


def detect(c: Line) -> int:
    if "ggml_" in c.s and _GGML_HEAD.search(c.s):
        return _ggml_end(c.lines, c.i) - c.i
    # Device lines without their header: the first of a run (the header's block reads the run under a header)
    if "compute capability" in c.low and _GGML_DEVICE.match(c.s) and not (
            c.i > 0 and _ggml_head_or_device(c.lines[c.i - 1])):
        return _ggml_end(c.lines, c.i, under=False) - c.i
    if _OLLAMA in c.s:
        return _ollama_end(c.lines, c.i) - c.i
    return 0


def _ggml(lines: Sequence[str]) -> Facts:
    out: Facts = []
    under = bool(_GGML_HEAD.search(text_of(lines[0])))
    for ln in (lines[1:] if under else lines):
        s = text_of(ln)
        m = (_GGML_DEVICE_UNDER if under else _GGML_DEVICE).match(s)
        if m:
            mem = int(m.group("mem")) if m.group("mem") else None
            out += [Fact("gpu", (int(m.group("idx")), m.group("name").strip(), m.group("cc"), mem), s),
                    Fact("seen:gpu", s, s)]
    return out


def _ollama_fields(s: str) -> Optional[Dict[str, str]]:
    rest = s[s.find(_OLLAMA) + len(_OLLAMA):][:2000]
    kv = {m.group("k"): m.group("v").strip('"') for m in _KV.finditer(rest)}
    return kv if kv.get("library", "").lower() == "cuda" else None


def _ollama(lines: Sequence[str]) -> Facts:
    out: Facts = []
    for idx, ln in enumerate(lines):
        s = text_of(ln)
        kv = _ollama_fields(s)
        if kv is None:
            continue
        if re.match(r"^\d{1,2}\.\d{1,2}$", kv.get("driver", "")):
            out.append(Fact("smi_cuda", kv["driver"], s))
        cc = kv.get("compute") if re.match(r"^\d{1,2}\.\d$", kv.get("compute", "")) else None
        name = kv.get("name") or None  # a name journald cut (name="N>) has no closing quote: not read
        if name or cc:
            out += [Fact("gpu", (idx, name, cc, None), s), Fact("seen:gpu", s, s)]
    return out


def read(lines: Sequence[str]) -> Partial:
    if not lines:
        return partial(NAME, [])
    first = text_of(lines[0])
    out = _ggml(lines) if _GGML_HEAD.search(first) or _GGML_DEVICE.match(first) else _ollama(lines)
    return partial(NAME, out + [Fact("format", NAME, text_of(lines[0]))] if out else [])
