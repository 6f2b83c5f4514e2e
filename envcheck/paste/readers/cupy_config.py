"""CuPy's ``cupy.show_config()`` (``python -c 'import cupy; cupy.show_config()'``), as CuPy's bug template asks for it::

    OS                           : Linux-5.4.0-117-generic-x86_64-with-glibc2.29
    Python Version               : 3.8.10
    CuPy Version                 : 10.5.0
    CUDA Root                    : /usr/local/cuda
    CUDA Build Version           : 11040
    CUDA Driver Version          : 11040
    CUDA Runtime Version         : 11040
    ...
    Device 0 Name                : GRID T4-4C
    Device 0 Compute Capability  : 75

(CuPy 7-9 print fewer rows, with less padding: ``CuPy Version          : 7.0.0rc1``). Read: the Python, CuPy's
version (a package row), ``CUDA Driver Version`` (``cudaDriverGetVersion``: the CUDA the driver supports, what
nvidia-smi's header calls ``CUDA Version``: ``11040`` -> ``11.4``; CuPy 14 prints ``12070``), the CuPy build's facts
(``frameworks.cupy``: ``CUDA Build Version`` the CUDA it was built with, ``NVRTC Version`` ``(12, 4)`` the NVRTC that
compiles its kernels, ``cuDNN Version`` ``7605`` the cuDNN it loaded), each ``Device N Name`` /
``Device N Compute Capability`` (``75`` -> ``7.5``). The block starts at its ``OS`` or ``CuPy Version`` row and
holds only ``Key   : value`` rows; a value that is an error (``CUDARuntimeError(...)``) or ``None`` is not read. A ROCm
build's block (``CuPy Platform : AMD ROCm``, ``CUDA Root : /opt/rocm``) prints HIP's facts under those CUDA names: only
its Python, CuPy's version and the GPUs' names are read (attack52)."""

from __future__ import annotations

import re
from typing import Dict, List, Sequence, Tuple

from envcheck.parse.versions import cuda_from_int, cudnn_from_int
from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "cupy show_config"
#: "Key   : value": a key of words, at least one blank, a colon (linear: one run of blanks between two literals)
_ROW = re.compile(r"^(?P<key>[A-Za-z][\w .()/-]{0,40}?) {1,40}: (?P<val>.{0,1500})$")
_MAX = 80  # rows of one block at most
Facts = List[Fact]


def _start(lines: Sequence[str], i: int) -> bool:
    """Row ``i`` opens a show_config block: its ``CuPy Version`` row, or the ``OS`` row with that row within the next
    two (CuPy 9+ prints ``OS`` and ``Python Version`` first)."""
    m = _ROW.match(text_of(lines[i]))
    if not m:
        return False
    key = m.group("key").strip()
    if key == "CuPy Version":
        return True
    if key != "OS":
        return False
    return any(text_of(ln).startswith("CuPy Version") for ln in lines[i + 1:i + 3])


def detect(c: Line) -> int:
    if not c.s.startswith(("OS", "CuPy Version")) or not _start(c.lines, c.i):
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < _MAX and _ROW.match(text_of(c.lines[j])):
        j += 1
    return j - c.i


def _device(key: str, val: str, s: str, gpus: Dict[int, List[str]]) -> None:
    m = re.match(r"^Device (\d{1,3}) (Name|Compute Capability)$", key)
    if not m:
        return
    row = gpus.setdefault(int(m.group(1)), ["", ""])
    if m.group(2) == "Name":
        row[0] = val
    elif re.match(r"^\d{2,3}$", val):
        row[1] = f"{int(val) // 10}.{int(val) % 10}"


def _row(key: str, val: str, s: str) -> Facts:
    if key == "Python Version" and re.match(r"^[23]\.\d{1,2}\.\d{1,3}$", val):
        return [Fact("python", val, s)]
    if key == "CuPy Version" and re.match(r"^\d{1,2}\.\d{1,2}\.\d{1,3}(?:[a-z]{1,5}\d{0,3})?$", val):
        return [Fact("package", ("cupy", val, None), s), Fact("seen:cupy", s, s)]
    number = cuda_from_int(int(val)) if re.match(r"^\d{4,6}$", val) else None
    if key == "CUDA Driver Version" and number:  # 11040 -> "11.4", 9020 -> "9.2"
        return [Fact("smi_cuda", number, s), Fact("seen:driver", s, s)]
    if key == "CUDA Build Version" and number:  # the CUDA this CuPy was built with
        return [Fact("cupy.cuda", number, s)]
    nvrtc = re.match(r"^\((\d{1,2}), (\d{1,2})\)$", val)
    if key == "NVRTC Version" and nvrtc:  # "(12, 4)": the NVRTC that compiles CuPy's kernels at run time
        return [Fact("cupy.nvrtc", f"{int(nvrtc.group(1))}.{int(nvrtc.group(2))}", s)]
    cudnn = cudnn_from_int(int(val)) if key == "cuDNN Version" and re.match(r"^\d{4,6}$", val) else None
    return [Fact("cupy.cudnn", cudnn, s)] if cudnn else []  # the cuDNN loaded (7605 -> 7.6.5); "None": not loaded


def _hip(rows: Sequence[Tuple[str, str]]) -> bool:
    """(attack52) A ROCm build of CuPy prints its HIP facts under the CUDA rows' names: ``CuPy Platform : AMD ROCm``
    (CuPy 9+), ``CUDA Root : /opt/rocm``, a ``hipcc PATH`` row, a ``Device 0 Arch : gfx906`` row (cupy/cupy#5961,
    #4108): its ``NVRTC Version`` "(9, 0)" is hipRTC's, its ``Compute Capability`` "96" a gcnArch, its CUDA versions
    HIP's."""
    for key, val in rows:
        low = val.lower()
        if (key == "CuPy Platform" and "rocm" in low or key == "CUDA Root" and "rocm" in low
                or key.lower().startswith("hipcc") or re.match(r"^Device \d{1,3} Arch$", key) and low.startswith("gfx")):
            return True
    return False


def read(lines: Sequence[str]) -> Partial:
    out: Facts = []
    gpus: Dict[int, List[str]] = {}
    rows = []
    for ln in lines:
        s = text_of(ln)
        m = _ROW.match(s)
        if m:
            rows.append((m.group("key").strip(), m.group("val").strip(), s))
    hip = _hip([(k, v) for k, v, _ in rows])
    for key, val, s in rows:
        if hip and key not in ("Python Version", "CuPy Version"):
            _device(key, val if key.endswith("Name") else "", s, gpus)  # the GPU's name, no compute capability
            continue
        out += _row(key, val, s)
        _device(key, val, s, gpus)
    for idx in sorted(gpus):
        name, cc = gpus[idx]
        if name or cc:
            out += [Fact("gpu", (idx, name or None, cc or None, None), f"Device {idx}"), Fact("seen:gpu", name, name)]
    return partial(NAME, [Fact("format", NAME, text_of(lines[0]))] + out if out else [])
