"""PyTorch's ``collect_env`` in every layout: before 1.8 (``Is debug build: No``), 1.8-1.12, 1.13-2.x with
``ROCM used to build PyTorch`` / ``HIP runtime version`` / ``MIOpen runtime version``, 2.5+ with ``Is XPU
available`` / ``XPU used to build PyTorch``, vLLM's copy and its sectioned ``Key     : value`` layout, DocTR's
variant (extra ``TensorFlow version`` lines), Markdown bullets of the same fields.

What the report gets wrong, and how it is read here:

* ``cuDNN version: Probably one of the following`` lists the system's copies found with ``ldconfig -p`` (not the
  one torch loads): they become ldconfig entries, never torch's cuDNN;
* ``CUDA runtime version`` is nvcc's (the toolkit), not torch's CUDA;
* ``Could not collect`` / ``N/A`` / ``No CUDA`` mean unknown, except ``CUDA used to build PyTorch`` next to a
  known torch version: ``torch.version.cuda`` cannot fail to be read, so ``None`` / ``Could not collect`` there
  means a CPU (or ROCm) build.
"""

from __future__ import annotations

import re
from typing import Callable, Dict, Iterator, List, Sequence, Tuple

from envcheck.parse.nvidia_smi import failure_line
from envcheck.paste.readers import fields, linux_kernel, macos, vendor_fields
from envcheck.paste.readers.base import (
    KV, MAXLINE, SECTIONED, Fact, Line, Partial, clean, first_version, gpu_name, mm, partial, text_of,
)
from envcheck.paste.readers.packages import package_row

__all__ = ["NAME", "detect", "gpu_fact", "kv_facts", "read", "starts_other"]

NAME = "collect_env"
_GPU_LINE = re.compile(r"^\s*GPU\s*(?P<idx>\d+)\s*[:：]\s*(?P<name>.+?)\s*$")
_SMI_HEADER = re.compile(r"NVIDIA-SMI\s+\d+\.\d+")
#: a line of collect_env's own fields (a paste cut above "PyTorch version" starts at one of them) and the fields
#: only collect_env prints: three of these within a few lines are a collect_env block
_OWN_KEYS = ("python version", "python platform", "is cuda available", "is xpu available", "xpu used to build pytorch",
             "rocm used to build pytorch", "cuda runtime version", "gpu models and configuration")
_ONLY_KEYS = ("is cuda available", "cuda_module_loading set to", "nvidia driver version", "hip runtime version",
              "is xpu available", "xpu used to build pytorch", "is xnnpack available", "miopen runtime version",
              "cuda runtime version", "rocm used to build pytorch", "intel gpu models")
#: fields whose value is the lines below them: bullets (XPU), a CPU name (macOS)
_BULLETED = ("intel gpu models onboard", "intel gpu models detected", "intel gpu driver version")

Facts = List[Fact]


def starts_other(s: str, low: str) -> bool:
    """A line where another report begins (ends a collect_env block)."""
    return bool((_SMI_HEADER.search(s) and "driver version" in low) or s.startswith("nvcc: NVIDIA")
                or low.startswith("collecting environment information") or re.match(r"^sys\.platform\s{2,}\S", s)
                or failure_line(low))


def detect(c: Line) -> int:
    low, s = c.low, c.s
    if low.startswith("collecting environment information") or (
            SECTIONED.match(s) or c.km or low.startswith("pytorch version ")) and any(
            low.startswith(k) for k in ("pytorch version", "cuda used to build pytorch")):
        return _end(c.lines, c.i) - c.i
    if c.km and (low.startswith(_OWN_KEYS) and _cut_block(c.lines, c.i) or low.startswith(_BULLETED)):
        return _end(c.lines, c.i) - c.i
    return 0


def _cut_block(lines: Sequence[str], i: int) -> bool:
    """A collect_env whose top was not pasted: this line and the next eight hold three fields only collect_env
    prints."""
    seen = {k for ln in lines[i:i + 9] for k in _ONLY_KEYS if text_of(ln).lower().startswith(k)}
    return len(seen) >= 3


# --------------------------------------------------------------------------- the walk over a block
def _continuation(lines: Sequence[str], i: int, key: str, val: str) -> int:
    """The last line a field uses: ``GPU N: ...`` lines under ``GPU models and configuration``, the paths
    under ``cuDNN version: Probably one of the following``."""
    k = key.strip().lower().rstrip("?").strip()
    j = i + 1
    if k == "gpu models and configuration":
        while j < len(lines) and j - i <= 64 and _GPU_LINE.match(text_of(lines[j])):  # a quoted block's "> GPU 0: ..."
            j += 1
    elif k == "cudnn version" and ("probably one of the following" in val.lower() or not val.strip()):
        while j < len(lines) and j - i <= 64 and lines[j].strip().startswith("/"):
            j += 1
    elif k in _BULLETED:
        while j < len(lines) and j - i <= 256 and re.match(r"^\s*(?:[*-]\s|\[\d|N/A\s*$)", lines[j]):
            j += 1
    elif k == "cpu" and not val.strip() and j < len(lines) and vendor_fields.apple_cpu(lines[j:j + 1]):
        j += 1
    return j - 1


def _walk(lines: Sequence[str], start: int) -> Iterator[Tuple[int, int, str]]:
    """(first, last, kind) of each item of the block from ``start``: kind "kv", "retyped", "pkg"."""
    i = start
    quiet = 0
    while i < len(lines) and quiet < 12:
        s = text_of(lines[i])
        low = s.lower()
        if i > start and starts_other(s, low):
            return
        m = SECTIONED.match(s) or KV.match(s)
        if low.startswith("pytorch version ") and ":" not in s:  # "PyTorch version 1.5.0" as retyped
            yield i, i, "retyped"
            quiet = 0
        elif m:
            j = _continuation(lines, i, m.group("key"), m.group("val"))
            yield i, j, "kv"
            i, quiet = j, 0
        elif s.startswith("[pip") or s.startswith("[conda]"):
            yield i, i, "pkg"
            quiet = 0
        elif s and not s.startswith(("=", "-", "`", "#")):
            quiet += 1
        i += 1


def _end(lines: Sequence[str], start: int) -> int:
    last = start
    for _, j, _ in _walk(lines, start + (1 if lines[start].strip().lower().startswith("collecting") else 0)):
        last = j
    return last + 1


# --------------------------------------------------------------------------- the fields
def _f_torch_version(val: str, lines: Sequence[str], i: int) -> Facts:
    out = [Fact("seen:torch", lines[i].strip()[:300], lines[i])]
    if clean(val) is None:  # "PyTorch version: N/A": collect_env could not import torch at all
        out.append(Fact("torch._version_na", True, lines[i]))
    return out + fields.torch_version(val, lines[i])


def _f_cuda_build(val: str, lines: Sequence[str], i: int) -> Facts:
    out = [Fact("seen:torch-cuda", lines[i].strip()[:300], lines[i])]
    raw = (val or "").strip().lower()
    if raw in ("none", "could not collect", "n/a", ""):
        # torch imported: torch.version.cuda is None (a CPU build); dropped at the merge when the block's
        # "PyTorch version" was N/A (torch not imported)
        return out + [Fact("torch._cuda_none", True, lines[i])]
    v = mm(raw)
    return out + ([Fact("torch.cuda", v, lines[i])] if v else [])


def _f_cuda_available(val: str, lines: Sequence[str], i: int) -> Facts:
    return [Fact("seen:cuda-available", lines[i].strip()[:300], lines[i])] + fields.gpu_state("torch", val, lines[i])


def _f_rocm(val: str, lines: Sequence[str], i: int) -> Facts:
    v = clean(val)
    return [Fact("torch.hip!", v, lines[i]), Fact("seen:torch-rocm", lines[i].strip()[:300], lines[i])] if v else []


def _f_xpu(val: str, lines: Sequence[str], i: int) -> Facts:
    v = clean(val)
    if v and v.lower() not in ("n/a", "none", "false"):
        return [Fact("torch._xpu", True, lines[i]), Fact("seen:torch-xpu", lines[i].strip()[:300], lines[i])]
    return []


def _f_xpu_available(val: str, lines: Sequence[str], i: int) -> Facts:
    """``Is XPU available: True``: torch's XPU backend sees an Intel GPU on that machine."""
    v = (clean(val) or "").lower()
    return [Fact("xpu_available", v == "true", lines[i])] if v in ("true", "false") else []


def _f_python(val: str, lines: Sequence[str], i: int) -> Facts:
    v = first_version(val)
    return [Fact("python", v, lines[i])] if v else []


def _f_python_platform(val: str, lines: Sequence[str], i: int) -> Facts:
    mac = vendor_fields.mac_platform(val, lines[i])
    if mac:
        return mac
    out = fields.platform_facts(val, lines[i]) + linux_kernel.platform_kernel(val, lines[i])
    m = re.search(r"(x86_64|aarch64|arm64|AMD64)", val)
    return out + ([Fact("machine", m.group(1).replace("AMD64", "x86_64"), lines[i])] if m else [])


def _f_os(val: str, lines: Sequence[str], i: int) -> Facts:
    low = val.lower()
    out: Facts = []
    mac = vendor_fields.macos_os(val, lines[i])
    if mac:
        return mac
    if "windows" in low:
        out.append(Fact("platform", "win32", lines[i]))
    elif "mac" in low:
        out.append(Fact("platform", "darwin", lines[i]))
    elif clean(val):
        out.append(Fact("platform", "linux", lines[i]))
    m = re.search(r"\((x86_64|aarch64|arm64)\)", val)
    return out + ([Fact("machine", m.group(1), lines[i])] if m else [])


def _f_cuda_runtime(val: str, lines: Sequence[str], i: int) -> Facts:
    v = clean(val)
    if v and re.match(r"^\d+\.\d+(\.\d+)?$", v):
        return [Fact("nvcc", f"Cuda compilation tools, release {mm(v)}, V{v}\n", lines[i])]
    return []


def _f_gpus(val: str, lines: Sequence[str], i: int) -> Facts:
    """``GPU models and configuration:`` with its value on the line or on the ``GPU N: ...`` lines below."""
    out: Facts = []
    v = (val or "").strip()
    m = _GPU_LINE.match(v) if v else None
    if m:
        out.append(gpu_fact(int(m.group("idx")), m.group("name"), lines[i]))
    elif v and clean(v) and not v.lower().startswith("gpu "):
        out.append(gpu_fact(0, v, lines[i]))  # before 1.8 a single GPU was printed without "GPU 0:"
    for j in range(i + 1, len(lines)):
        m = _GPU_LINE.match(text_of(lines[j]))
        if m:
            out.append(gpu_fact(int(m.group("idx")), m.group("name"), lines[j]))
    seen = lines[i] if clean(val) else lines[min(i + 1, len(lines) - 1)]
    return out + [Fact("seen:gpu", seen.strip()[:300], seen)]


def gpu_fact(idx: int, raw: str, line: str) -> Fact:
    """A GPU of collect_env's list. An AMD GPU (its "(gfx1100)" target, the NoGCNArchName mark, an AMD name) is a
    ``vgpu`` of vendor amd; :func:`read` makes every GPU of a ROCm build's block one."""
    if vendor_fields.looks_amd(raw):
        return vendor_fields.amd_gpu(idx, raw, line)
    return Fact("gpu", (idx, gpu_name(raw), None, None), line)


def _f_driver(val: str, lines: Sequence[str], i: int) -> Facts:
    v = clean(val)
    if v and re.match(r"^\d+\.\d+(\.\d+)*$", v):
        return [Fact("driver", v, lines[i]), Fact("seen:driver", lines[i].strip()[:300], lines[i])]
    return []


def _f_cudnn(val: str, lines: Sequence[str], i: int) -> Facts:
    """collect_env's cuDNN line: paths of the system's copies (ldconfig -p on Linux)."""
    v = (val or "").strip()
    paths = [v] if v.startswith("/") else []
    paths += [ln.strip() for ln in lines[i + 1:] if ln.strip().startswith("/")]
    out: Facts = []
    for p in paths:
        m = re.match(r"^(lib[\w+-]+\.so(?:\.\d+)?)", p.rsplit("/", 1)[-1])
        if m:
            out.append(Fact("ld", f"\t{m.group(1)} (libc6,x86-64) => {p}", p))
    return out


def _f_hip_runtime(val: str, lines: Sequence[str], i: int) -> Facts:
    """``HIP runtime version: 6.2.41133``: the HIP runtime of the machine (a ROCm build's torch has its own)."""
    v = clean(val)
    return [Fact("hip_runtime", v, lines[i])] if v and re.match(r"^\d+\.\d+", v) else []


def _f_miopen(val: str, lines: Sequence[str], i: int) -> Facts:
    """``MIOpen runtime version: 3.0.0``: the MIOpen of torch's build (collect_env reads torch's build config)."""
    v = clean(val)
    return [Fact("torch.miopen", v, lines[i])] if v and re.match(r"^\d+\.\d+", v) else []


def _f_intel_onboard(val: str, lines: Sequence[str], i: int) -> Facts:
    return vendor_fields.intel_onboard(lines[1:])


def _f_intel_detected(val: str, lines: Sequence[str], i: int) -> Facts:
    return vendor_fields.intel_detected(lines[1:])[0]


def _f_cpu(val: str, lines: Sequence[str], i: int) -> Facts:
    f = vendor_fields.apple_cpu(lines[1:] if not val.strip() else [val])
    return [f, Fact("seen:apple-cpu", f"CPU: {f.value}", f.line)] if f else []


def _f_hf_pytorch(val: str, lines: Sequence[str], i: int) -> Facts:
    return fields.hf_field("pytorch version (gpu?)", val, lines[i]) or []


_Field = Callable[[str, Sequence[str], int], Facts]
#: collect_env's fields (lower case, without a trailing "?") -> the reader of its value
_FIELDS: Dict[str, _Field] = {
    "pytorch version (gpu": _f_hf_pytorch, "pytorch version": _f_torch_version, "pytorch": _f_torch_version,
    "cuda used to build pytorch": _f_cuda_build, "is cuda available": _f_cuda_available,
    "rocm used to build pytorch": _f_rocm, "xpu used to build pytorch": _f_xpu, "is xpu available": _f_xpu_available,
    "python version": _f_python,
    "python platform": _f_python_platform, "os": _f_os, "cuda runtime version": _f_cuda_runtime,
    "gpu models and configuration": _f_gpus, "nvidia driver version": _f_driver, "driver version": _f_driver,
    "cudnn version": _f_cudnn, "hip runtime version": _f_hip_runtime, "miopen runtime version": _f_miopen,
    "intel gpu models onboard": _f_intel_onboard, "intel gpu models detected": _f_intel_detected, "cpu": _f_cpu,
}


def kv_facts(key: str, val: str, span: Sequence[str]) -> Facts:
    k = key.strip().lower().rstrip("?").strip()
    handler = _FIELDS.get(k)
    if handler is not None:
        return handler(val, span, 0)
    # variants (DocTR's) add "TensorFlow version: 2.5.0" and the like
    got = fields.hf_field(key, val, span[0])
    return got if got is not None else (fields.tf_field(key, val, span[0]) or [])


def _item(lines: Sequence[str], i: int, j: int, kind: str) -> Facts:
    s = text_of(lines[i])
    if kind == "retyped":
        return fields.torch_version(s[len("pytorch version "):], lines[i])
    if kind == "pkg":
        return package_row(s, lines[i]) or []
    m = SECTIONED.match(s) or KV.match(s)
    if m is None:
        return []
    span = [s] + list(lines[i + 1:j + 1])
    return kv_facts(m.group("key"), m.group("val"), span)


def _unglued(lines: Sequence[str]) -> Sequence[str]:
    """A terminal copy can glue the first field to the banner ("Collecting environment information...<blanks>PyTorch
    version: 2.7.0+rocm6.3"): the field is put on a line of its own."""
    first = lines[0][:MAXLINE] if lines else ""
    k = first.lower().find("pytorch version:")
    if k > 0 and first.strip().lower().startswith("collecting environment information"):
        return [first[:k].rstrip(), first[k:]] + list(lines[1:])
    return lines


def read(lines: Sequence[str]) -> Partial:
    lines = _unglued(lines)
    start = 1 if lines and lines[0].strip().lower().startswith("collecting") else 0
    out: Facts = [Fact("format", "collect_env", lines[0] if lines else "")]
    version_na = False
    for i, j, kind in _walk(lines, start):
        facts = _item(lines, i, j, kind)
        version_na = version_na or any(f.field == "torch._version_na" for f in facts)
        out += [f for f in facts if not (version_na and f.field == "torch._cuda_none")]
    out += [f for ln in lines if "mps" in ln.lower() for f in macos.mps_state(text_of(ln), ln)]  # REPL lines in the block
    if any(f.field == "torch.hip!" for f in out):
        # a ROCm build lists the GPUs HIP sees: AMD's, whatever their names look like
        out = [vendor_fields.amd_gpu(f.value[0], f.value[1] or "", f.line) if f.field == "gpu" else f for f in out]
    return partial(NAME, _detected_first(out))


def _detected_first(out: Facts) -> Facts:
    """collect_env lists Intel GPUs twice (onboard, then detected by torch): the detected list is torch's own, so
    where both are there the onboard names only complete it (same count) or give the count (more onboard)."""
    det = [f for f in out if f.field == "vgpu" and f.value[4] == "torch.xpu"]
    if not det:
        return out
    onboard = [f for f in out if f.field == "vgpu" and f.value[4] == "collect_env onboard"]
    rest = [f for f in out if not (f.field == "vgpu" and f.value[4] in ("torch.xpu", "collect_env onboard"))]
    return rest + det + [f for f in onboard if f.value[0] not in {d.value[0] for d in det}]


