"""detectron2's ``collect_env`` table (two columns separated by spaces, ``sys.platform  linux``) and its
``PyTorch built with`` block (``- CUDA Runtime 11.3``, ``- CuDNN 8.2``, ``- NVCC architecture flags``)."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.parse.versions import cudnn_from_torch_print
from envcheck.paste.readers.base import NVCC_BUILD, NVCC_RELEASE, VER, Fact, Line, Partial, clean, first_version, \
    gpu_name, mm, partial

__all__ = ["NAME", "detect", "read", "looks_detectron2", "row", "built_item"]

NAME = "detectron2"
_ROW = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9 _.,$()/-]{0,40}?)\s{2,}(?P<val>\S(?:.*\S)?)\s*$")
_ARCH = re.compile(r"^(?P<name>.+?)\s*\(arch=(?P<cc>\d+\.\d+)\)\s*$")
Facts = List[Fact]


def looks_detectron2(s: str) -> bool:
    return bool(re.match(r"^sys\.platform\s{2,}\S", s.strip()))


def _end(lines: Sequence[str], start: int) -> int:
    in_built = False
    i = start
    while i < len(lines) and i - start < 200:
        s = lines[i].strip()
        if s.startswith("PyTorch built with"):
            in_built = True
        elif in_built and s and not s.startswith(("-", " ")):
            return i
        i += 1
    return i


def detect(c: Line) -> int:
    return _end(c.lines, c.i) - c.i if looks_detectron2(c.s) else 0


def built_item(item: str, line: str) -> Facts:
    """One item of torch's ``PyTorch built with:`` block (``CUDA Runtime 11.3``, ``CuDNN 8.2``, ``NVCC architecture
    flags: ...``): the CUDA / cuDNN torch was built with, its arch list. Shared with :mod:`.mmcv_env`."""
    m = re.match(r"^CUDA Runtime\s+(" + VER + ")", item)
    if m:
        return [Fact("torch.cuda", mm(m.group(1)), line)]
    # (pastes40) torch 2.4 and later add the CUDA the loaded cuDNN was built against: "CuDNN 90.1  (built against CUDA
    # 12.4)" (ATen's Version.cpp; lmdeploy check_env of InternLM/lmdeploy#4049: "CuDNN 91.0.2  (built against CUDA 12.9)")
    m = re.match(r"^CuDNN\s+(\d+\.\d+(?:\.\d+)?)(?:\s{1,3}\(built against CUDA \d{1,2}\.\d{1,2}\))?\s*$", item)
    if m:
        return [Fact("torch.cudnn", cudnn_from_torch_print(m.group(1)) or m.group(1), line)]
    if item.startswith("NVCC architecture flags:"):
        archs = sorted(set(re.findall(r"code=(sm_\d+|compute_\d+)", item)),
                       key=lambda a: (a.startswith("compute"), int(re.sub(r"\D", "", a))))
        if archs:
            return [Fact("torch.arch_list", tuple(archs), line)]
    return []


def _nvcc(val: str, line: str) -> Facts:
    m = NVCC_RELEASE.search(val)
    if m:
        return [Fact("nvcc", val.strip() + "\n", line)]
    m = NVCC_BUILD.search(val)
    if m:
        return [Fact("toolkit_release", f"{int(m.group(1))}.{int(m.group(2))}", line)]
    m = re.match(r"^CUDA\s+(\d+\.\d+)\s*$", val.strip())
    return [Fact("toolkit_release", m.group(1), line)] if m else []


def _gpus(key: str, val: str, line: str) -> Facts:
    idxs = [int(x) for x in key[4:].split(",") if x.strip().isdigit()]
    m = _ARCH.match(val.strip())
    name, cc = (m.group("name"), m.group("cc")) if m else (val.strip(), None)
    return [Fact("gpu", (idx, gpu_name(name), cc, None), line) for idx in idxs] + [Fact("seen:gpu", f"{key} {val}", line)]


def row(key: str, val: str, line: str) -> Facts:
    """One ``key``/``val`` row of a torch-based env report (``Python``, ``PyTorch``, ``GPU 0,1``, ``NVCC`` /
    ``CUDA compiler``, ``Driver version``, ``sys.platform``). Shared with :mod:`.mmcv_env`."""
    k = key.lower()
    if k == "python":
        v = first_version(val)
        return [Fact("python", v, line)] if v else []
    if k == "pytorch":
        v = clean(val)
        v = v.split(" ")[0].split("@")[0].strip() if v else None
        return ([Fact("torch.version", v, line)] if v and re.match(r"^\d+\.\d+", v) else []) + [
            Fact("seen:torch", f"PyTorch {val}", line)]
    if re.match(r"^gpu [\d,]+$", k):
        return _gpus(key, val, line)
    if k == "driver version":
        v = clean(val)
        return [Fact("driver", v, line)] if v and re.match(r"^\d+\.\d+(\.\d+)*$", v) else []
    if k in ("cuda compiler", "nvcc"):
        return _nvcc(val, line)
    if k == "sys.platform":
        v = val.strip()
        p = "win32" if v.startswith("win") else v if v in ("linux", "darwin") else None
        return [Fact("platform", p, line)] if p else []
    return []


def read(lines: Sequence[str]) -> Partial:
    out: Facts = [Fact("format", "detectron2 collect_env", lines[0] if lines else "")]
    in_built = False
    for ln in lines:
        s = ln.strip()
        if s.startswith("PyTorch built with"):
            in_built = True
        elif in_built and s.startswith("- "):
            out += built_item(s[2:], ln)
        elif not in_built:
            m = _ROW.match(s)
            if m:
                out += row(m.group("key").strip(), m.group("val"), ln)
    return partial(NAME, out)
