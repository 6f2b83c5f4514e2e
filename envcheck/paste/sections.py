"""Read the environment reports in a pasted text and turn them into raw captures (contract §1).

A bug report often carries the facts of the machine the error came from: PyTorch's ``collect_env``
(every layout: before 1.8 ``Is debug build: No``; 1.8-1.12; 1.13-2.x with ``ROCM used to build``;
2.5+ with ``Is XPU available``; vLLM's copy and its sectioned ``Key     : value`` layout; detectron2's
table; DocTR's variant), ``pip list`` / ``pip freeze`` / ``conda list`` rows, nvidia-smi tables and
errors, ``nvcc -V``, ``ldconfig -p | grep``, TensorFlow's issue-template fields,
``jax.print_environment_info()``, ``transformers-cli env`` / ``diffusers-cli env`` /
``accelerate env`` and Ultralytics banners.

:func:`read_report` turns such a text into a :class:`Report`: the *captures* (snapshot key -> text,
so that :class:`~envcheck.paste.source.PasteSource` feeds the same parsers as ``status``) and the
*facts* (contract §4: only what the text makes certain, unknown = ``None``).

What the reports get wrong, and how it is read here:

* collect_env's ``cuDNN version: Probably one of the following`` lists the system's copies found
  with ``ldconfig -p`` (not the one torch loads): they become ldconfig entries, never torch's cuDNN;
* its ``CUDA runtime version`` is nvcc's (the toolkit), not torch's CUDA;
* ``Could not collect`` / ``N/A`` / ``No CUDA`` mean unknown, except ``CUDA used to build PyTorch``
  next to a known torch version: ``torch.version.cuda`` cannot fail to be read, so ``None`` /
  ``Could not collect`` there means a CPU (or ROCm) build.

Nothing here raises on odd input; every line is read at most a bounded number of characters.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

__all__ = ["Report", "read_report", "UNKNOWN_VALUES"]

#: values that mean "unknown" in the reports
UNKNOWN_VALUES = {"", "n/a", "na", "none", "could not collect", "no cuda", "not available", "unknown",
                  "<fill in>", "-", "not found", "<not set>"}
_MAXLINE = 2000

# --------------------------------------------------------------------------- small readers
_VER = r"\d+(?:\.\d+)*"
# no two adjacent repeats that can share characters (``\s*\**\s*`` split a run of blanks every way:
# cubic, 50 s for one line of 2,000 blanks), and the value ends at its last non-blank in one step
_KV = re.compile(r"^\s*(?:[-*]\s*)?(?:\*+\s*)?`?(?P<key>[A-Za-z][A-Za-z0-9 _/().?,`-]{1,60}?)`?\s*(?:\*+\s*)?[:：]"
                 r"\s*(?:\*+\s*)?(?P<val>(?:.*\S)?)\s*$")
_SECTIONED = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9 _/().?-]{1,40}?)\s{2,}:\s(?P<val>.*)$")
_D2_ROW = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9 _.,$()/-]{0,40}?)\s{2,}(?P<val>\S(?:.*\S)?)\s*$")
_GPU_LINE = re.compile(r"^\s*GPU\s*(?P<idx>\d+)\s*[:：]\s*(?P<name>.+?)\s*$")
_UUID = re.compile(r"\s*\(UUID:[^)]*\)\s*$")
_SMI_HEADER = re.compile(r"NVIDIA-SMI\s+\d+\.\d+")
_SMI_ERRORS = ("nvidia-smi has failed", "failed to initialize nvml", "no devices were found",
               "unable to determine the device handle", "couldn't communicate with the nvidia driver")
_NVCC_RELEASE = re.compile(r"Cuda compilation tools,\s*release\s*(\d+\.\d+),\s*V(\d+(?:\.\d+)+)")
_NVCC_BUILD = re.compile(r"\bBuild\s+cuda_(\d+)\.(\d+)")
_LDCONFIG = re.compile(r"^\s*(lib[\w.+-]+\.so[\w.]*)\s+\(([^)]*)\)\s+=>\s+(/\S+)\s*$")
_PIP_FREEZE = re.compile(r"^\s*(?:\[(?:pip3?|conda)\]\s+)?(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(?P<ver>\d[\w.+!-]*)\s*$")
_PIP_ROW = re.compile(r"^\s*(?:\[(?:pip3?|conda)\]\s+)?(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s+(?P<ver>\d[\w.+!-]*)"
                      r"(?:\s+(?P<build>[\w.+!<>-]+))?(?:\s+(?P<chan>[\w./:-]+))?\s*$")
_RELEVANT = re.compile(r"^(torch|torchvision|torchaudio|pytorch|pytorch-cuda|tensorflow(-gpu|-cpu|-intel)?|tf-nightly"
                       r"|jax|jaxlib|jax-cuda\d+-(plugin|pjrt)|cupy(-cuda\w+)?|nvidia-[a-z0-9-]+|cudatoolkit|cudnn"
                       r"|cuda-version|cuda-runtime|cuda-cudart|paddlepaddle(-gpu)?|onnxruntime(-gpu)?|xformers"
                       r"|vllm|triton|keras)$")
_ULTRA = re.compile(r"(?:Ultralytics\s+(?:YOLOv?\S+|\d+\.\d+\S*)|\bYOLOv\d+\S*)\s.*?Python-(?P<py>" + _VER + r")\s+torch-(?P<torch>\S+)"
                    r"(?P<rest>.*)$")
_ULTRA_DEV = re.compile(r"CUDA:(?P<idx>\d+)\s*\((?P<name>[^,()]+(?:\([^)]*\)[^,()]*)?),\s*(?P<mem>\d+)\s*MiB\)")
#: a conda transaction plan row: "  jaxlib   conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1"
_CONDA_PLAN = re.compile(r"^\s*(?P<name>[A-Za-z0-9][\w.-]*)\s+[\w.-]+/[\w-]+::(?P=name)-(?P<ver>\d[\w.!+]*)-(?P<build>\S+?)"
                         r"(?:\s.*)?$")
#: a ``pip list`` row without its header (``pip list | grep nvidia``): name, two or more spaces, a version
_PIP_BARE = re.compile(r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s{2,}(?P<ver>\d[\w.+!-]*)\s*$")
#: "3x NVIDIA RTX A6000", "2 x RTX 3090": a count of one GPU model
_GPU_COUNT = re.compile(r"^(?P<n>[1-9]\d?)\s*[x×]\s*(?P<name>\S.*)$", re.I)
_D2_ARCH = re.compile(r"^(?P<name>.+?)\s*\(arch=(?P<cc>\d+\.\d+)\)\s*$")
_MEM = re.compile(r"[\s,(]*\d+(?:\.\d+)?\s*(?:GB|GiB|G|MB|MiB)\)?\s*$", re.I)


def _clean(v: Optional[str]) -> Optional[str]:
    if v is None:
        return None
    s = v.strip().strip("`*").strip()
    return None if s.lower() in UNKNOWN_VALUES else s


def _first_version(v: Optional[str]) -> Optional[str]:
    """"3.9.16 (main, May 17 2023 ...)" -> "3.9.16"; "tf2.9.1" -> "2.9.1"; "v2.13.0-rc1" keeps "2.13.0"."""
    if not v:
        return None
    m = re.match(r"^\s*(?:tf\s*|v|tensorflow[- ]?|python\s*)?(\d+\.\d+(?:\.\d+)*(?:[a-z]+\d*)?(?:\+[\w.]+)?)", v, re.I)
    return m.group(1) if m else None


def _mm(v: Optional[str]) -> Optional[str]:
    """"10.1.243" -> "10.1"."""
    if not v:
        return None
    m = re.match(r"^(\d+)\.(\d+)", v)
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _gpu_name(raw: str) -> Optional[str]:
    n = _UUID.sub("", raw).strip()
    return _clean(n)


# --------------------------------------------------------------------------- the report
@dataclass
class Report:
    """What one pasted text says about the machine it came from."""

    captures: Dict[str, str] = field(default_factory=dict)  # snapshot key -> text
    statuses: Dict[str, str] = field(default_factory=dict)  # snapshot key -> capture status ("failed")
    facts: Dict[str, Any] = field(default_factory=dict)  # contract §4 facts
    formats: List[str] = field(default_factory=list)  # the report formats seen, in order
    lines: Dict[str, str] = field(default_factory=dict)  # "torch" / "gpu" / "driver" / "nvidia-smi" -> a line read

    @property
    def found(self) -> bool:
        return bool(self.formats)


class _State:
    """Facts gathered while reading, before they become captures and the facts document."""

    def __init__(self) -> None:
        self.formats: List[str] = []
        self.torch: Dict[str, Any] = {}
        self.torch_cpu = False
        self.torch_hip: Optional[str] = None
        self.tf: Dict[str, Any] = {}
        self.jax: Dict[str, Any] = {}
        self.python: Optional[str] = None
        self.platform: Optional[str] = None  # "win32" | "linux" | "darwin"
        self.machine: Optional[str] = None
        self.wsl_release: Optional[str] = None
        self.driver: Optional[str] = None
        self.smi_cuda: Optional[str] = None  # "CUDA Version : 12.2" of an `nvidia-smi -q` block
        self.claims: Dict[str, str] = {}
        self.pkg_block = 0  # > 0 inside a `pip list` / `conda list` block (lines left to trust a row)
        self.python_path: Optional[str] = None  # "3.9" from an install path (".../lib/python3.9/site-packages/")  # what the user says is installed (TF template's CUDA/cuDNN field)
        self.gpus: Dict[int, Dict[str, Any]] = {}  # index -> {name, cc, mem}
        self.amd = False
        self.smi: List[str] = []  # nvidia-smi tables / error texts
        self.smi_failed = False
        self.nvcc: Optional[str] = None  # text for nvcc.txt
        self.toolkit_release: Optional[str] = None  # a "CUDA compiler  Build cuda_11.5" line
        self.version_txt: Optional[str] = None
        self.ld: List[str] = []
        self.packages: Dict[str, str] = {}
        self.conda_pypi: List[str] = []
        self.logged = False  # a framework's log line stated a fact (the text may hold no report at all)
        self.cudnn_loaded: List[str] = []  # cuDNN versions a framework's log says it loaded
        self.built: Dict[str, Dict[str, str]] = {}  # framework -> {"cuda"/"cudnn": version it says it was built with}
        self.driver_cuda: Optional[str] = None  # "found version 10010" of torch's driver-too-old error  # `conda list` rows of pip-installed distributions ("torch 2.1.0 pypi_0")
        self.proc_driver: Optional[str] = None
        self.lines: Dict[str, str] = {}  # what -> the first line it was read from (evidence)
        self.gpu_works: List[str] = []  # frameworks the report shows running on a GPU ("Is CUDA available: True")
        self.gpu_fails: List[str] = []  # ... and those it shows not reaching one ("(False)", "Is CUDA available: False")
        self.docker: Optional[str] = None  # "docker run ... without GPUs | the in-container failure line", see _docker_no_gpus

    def saw(self, what: str, line: str) -> None:
        self.lines.setdefault(what, line.strip()[:300])

    def fmt(self, name: str) -> None:
        if name not in self.formats:
            self.formats.append(name)

    def gpu(self, idx: int, name: Optional[str], cc: Optional[str] = None, mem: Optional[int] = None) -> None:
        if not name or idx < 0 or idx > 1024:
            return
        d = self.gpus.setdefault(idx, {})
        d.setdefault("name", name)
        if cc:
            d.setdefault("cc", cc)
        if mem:
            d.setdefault("mem", mem)

    def package(self, name: str, version: str, build: Optional[str] = None) -> None:
        n = _norm(name)
        if not _RELEVANT.match(n):
            return
        v = version + (f"={build}" if build and not build.startswith(("pypi", "<", "pip")) and build != "pypi_0" else "")
        if build and build.startswith("pypi"):
            self.conda_pypi.append(n)
        if "=" in v and n in self.packages and "=" not in self.packages[n] and self.packages[n] == version:
            self.packages[n] = v  # `[pip3] torch==2.1.0` then `[conda] pytorch 2.1.0 py3.9_cuda12.1_...`: keep the build
        self.packages.setdefault(n, v)


# --------------------------------------------------------------------------- collect_env and friends
def _torch_version(st: _State, val: Optional[str]) -> None:
    v = _clean(val)
    if v:
        v = v.split(" ")[0].split("@")[0].strip()
        if re.match(r"^\d+\.\d+", v):
            st.torch.setdefault("version", v)


def _gpu_state(st: _State, fw: str, val: Optional[str]) -> None:
    """Whether the report shows ``fw`` reaching a GPU: ``True``/``Yes`` or ``False``/``No``."""
    v = (val or "").strip().strip("`*()").strip().lower()
    if v in ("true", "yes"):
        st.gpu_works.append(fw)
    elif v in ("false", "no"):
        st.gpu_fails.append(fw)


def _cuda_build(st: _State, val: Optional[str]) -> None:
    raw = (val or "").strip().lower()
    if raw in ("none", "could not collect", "n/a", ""):
        if not st.torch.get("_version_na"):  # torch imported: torch.version.cuda is None (a CPU build)
            st.torch.setdefault("_cuda_none", True)
        return
    mm = _mm(raw)
    if mm:
        st.torch.setdefault("cuda", mm)


def _gpu_value(st: _State, lines: List[str], i: int, val: str) -> int:
    """``GPU models and configuration:`` with its value on the line or on the ``GPU N: ...`` lines below."""
    v = (val or "").strip()
    m = _GPU_LINE.match(v) if v else None
    if m:
        st.gpu(int(m.group("idx")), _gpu_name(m.group("name")))
    elif v and _clean(v) and not v.lower().startswith("gpu "):
        st.gpu(0, _gpu_name(v))  # before 1.8 a single GPU was printed without "GPU 0:"
    j = i + 1
    while j < len(lines) and j - i <= 64:
        m = _GPU_LINE.match(lines[j])
        if not m:
            break
        st.gpu(int(m.group("idx")), _gpu_name(m.group("name")))
        j += 1
    return j - 1


def _cudnn_value(st: _State, lines: List[str], i: int, val: str) -> int:
    """collect_env's cuDNN line: paths of the system's copies (ldconfig -p on Linux)."""
    paths: List[str] = []
    v = (val or "").strip()
    if v.startswith("/"):
        paths.append(v)
    j = i
    if "probably one of the following" in v.lower() or not v:
        j = i + 1
        while j < len(lines) and j - i <= 64 and lines[j].strip().startswith("/"):
            paths.append(lines[j].strip())
            j += 1
        j -= 1
    for p in paths:
        base = p.rsplit("/", 1)[-1]
        m = re.match(r"^(lib[\w+-]+\.so(?:\.\d+)?)", base)
        if m:
            st.ld.append(f"\t{m.group(1)} (libc6,x86-64) => {p}")
    return j


def _kv_torch_version(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    if _clean(val) is None:  # "PyTorch version: N/A": collect_env could not import torch at all
        st.torch.setdefault("_version_na", True)
    _torch_version(st, val)
    st.saw("torch", lines[i])
    return i


def _kv_cuda_build(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    _cuda_build(st, val)
    st.saw("torch-cuda", lines[i])
    return i


def _kv_cuda_available(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    st.saw("cuda-available", lines[i])
    _gpu_state(st, "torch", val)
    return i


def _kv_rocm(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    v = _clean(val)
    if v:
        st.torch_hip = v
        st.saw("torch-rocm", lines[i])
    return i


def _kv_xpu(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    v = _clean(val)
    if v and v.lower() not in ("n/a", "none", "false"):
        st.torch["_xpu"] = True
        st.saw("torch-xpu", lines[i])
    return i


def _kv_python(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    v = _first_version(val)
    if v:
        st.python = st.python or v
    return i


def _kv_python_platform(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    low = val.lower()
    if low.startswith("windows"):
        st.platform = st.platform or "win32"
    elif low.startswith("linux"):
        st.platform = st.platform or "linux"
        if "microsoft" in low:
            st.wsl_release = st.wsl_release or val.split("-x86_64")[0].replace("Linux-", "")
    elif low.startswith("macos") or low.startswith("darwin"):
        st.platform = st.platform or "darwin"
    mm = re.search(r"(x86_64|aarch64|arm64|AMD64)", val)
    if mm:
        st.machine = st.machine or mm.group(1).replace("AMD64", "x86_64")
    return i


def _kv_os(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    low = val.lower()
    if "windows" in low:
        st.platform = st.platform or "win32"
    elif "mac" in low:
        st.platform = st.platform or "darwin"
    elif _clean(val):
        st.platform = st.platform or "linux"
    mm = re.search(r"\((x86_64|aarch64|arm64)\)", val)
    if mm:
        st.machine = st.machine or mm.group(1)
    return i


def _kv_cuda_runtime(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    v = _clean(val)
    if v and re.match(r"^\d+\.\d+(\.\d+)?$", v):
        st.nvcc = st.nvcc or f"Cuda compilation tools, release {_mm(v)}, V{v}\n"
    return i


def _kv_gpus(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    j = _gpu_value(st, lines, i, val)
    st.saw("gpu", lines[i] if _clean(val) else lines[min(i + 1, j)])
    return j


def _kv_driver(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    v = _clean(val)
    if v and re.match(r"^\d+\.\d+(\.\d+)*$", v):
        st.driver = st.driver or v
        st.saw("driver", lines[i])
    return i


def _kv_cudnn(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    return _cudnn_value(st, lines, i, val)


def _kv_hf_pytorch(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    _read_hf_env(st, key, val)  # transformers-cli env's line inside a collect_env-looking block
    return i


#: collect_env's fields (lower case, without a trailing "?") -> the reader of its value
_TORCH_KV = {
    "pytorch version (gpu": _kv_hf_pytorch, "pytorch version": _kv_torch_version, "pytorch": _kv_torch_version,
    "cuda used to build pytorch": _kv_cuda_build, "is cuda available": _kv_cuda_available,
    "rocm used to build pytorch": _kv_rocm, "xpu used to build pytorch": _kv_xpu, "python version": _kv_python,
    "python platform": _kv_python_platform, "os": _kv_os, "cuda runtime version": _kv_cuda_runtime,
    "gpu models and configuration": _kv_gpus, "nvidia driver version": _kv_driver, "driver version": _kv_driver,
    "cudnn version": _kv_cudnn,
}


def _torch_kv(st: _State, key: str, val: str, lines: List[str], i: int) -> int:
    """One ``key: value`` line of a collect_env block; returns the index of the last line it used."""
    k = key.strip().lower().rstrip("?").strip()
    handler = _TORCH_KV.get(k)
    if handler is not None:
        return handler(st, key, val, lines, i)
    if not _read_hf_env(st, key, val):  # variants (DocTR's) add "TensorFlow version: 2.5.0" and the like
        _read_tf_field(st, key, val)
    return i


_COLLECT_KEYS = ("pytorch version", "is debug build", "cuda used to build pytorch", "rocm used to build pytorch",
                 "is cuda available", "cuda runtime version", "gpu models and configuration",
                 "nvidia driver version", "cudnn version", "hip runtime version", "is xnnpack available",
                 "cuda_module_loading set to", "is xpu available", "xpu used to build pytorch",
                 "miopen runtime version")


def _starts_other(s: str, low: str) -> bool:
    """A line where another report begins (ends a collect_env block)."""
    return bool((_SMI_HEADER.search(s) and "driver version" in low) or s.startswith("nvcc: NVIDIA")
                or low.startswith("collecting environment information") or _looks_detectron2(s)
                or any(e in low for e in _SMI_ERRORS))


def _read_collect_env(st: _State, lines: List[str], start: int) -> int:
    """A collect_env block (flat or sectioned), from ``start``; returns the index after it."""
    st.fmt("collect_env")
    i = start
    quiet = 0
    while i < len(lines) and quiet < 12:
        line = lines[i]
        s = line.strip()
        m = _SECTIONED.match(s) or _KV.match(s)
        low = s.lower()
        if i > start and _starts_other(s, low):
            break
        if low.startswith("pytorch version ") and ":" not in s:  # "PyTorch version 1.5.0" as retyped
            _torch_version(st, s[len("pytorch version "):])
            quiet = 0
        elif m:
            key = m.group("key")
            i = _torch_kv(st, key, m.group("val"), lines, i)
            quiet = 0
        elif s.startswith("[pip") or s.startswith("[conda]"):
            _package_line(st, s)
            quiet = 0
        elif s and not s.startswith(("=", "-", "`", "#")):
            quiet += 1
        i += 1
    return i


def _read_detectron2(st: _State, lines: List[str], start: int) -> int:
    """detectron2's ``collect_env`` table (two-column, spaces) and its ``PyTorch built with`` block."""
    st.fmt("detectron2 collect_env")
    i = start
    in_built = False
    while i < len(lines) and i - start < 200:
        s = lines[i].rstrip()
        st_ = s.strip()
        if st_.startswith("PyTorch built with"):
            in_built = True
        elif in_built and st_.startswith("- "):
            item = st_[2:]
            m = re.match(r"^CUDA Runtime\s+(" + _VER + ")", item)
            if m:
                st.torch.setdefault("cuda", _mm(m.group(1)))
            m = re.match(r"^CuDNN\s+(\d+\.\d+(?:\.\d+)?)\s*$", item)
            if m:
                st.torch.setdefault("cudnn", m.group(1))
            if item.startswith("NVCC architecture flags:"):
                archs = sorted(set(re.findall(r"code=(sm_\d+|compute_\d+)", item)),
                               key=lambda a: (a.startswith("compute"), int(re.sub(r"\D", "", a))))
                if archs:
                    st.torch.setdefault("arch_list", archs)
        elif in_built and st_ and not st_.startswith(("-", " ")):
            break
        elif not in_built:
            m = _D2_ROW.match(st_)
            if m:
                _d2_row(st, m.group("key").strip(), m.group("val"))
            elif st_ and not st_.startswith("-") and i - start > 3 and not lines[i].startswith(" "):
                pass
        i += 1
    return i


def _d2_row(st: _State, key: str, val: str) -> None:
    k = key.lower()
    if k == "python":
        st.python = st.python or _first_version(val)
    elif k == "pytorch":
        _torch_version(st, val)
        st.saw("torch", f"PyTorch {val}")
    elif k in ("gpu available", "cuda available"):
        pass
    elif re.match(r"^gpu [\d,]+$", k):
        idxs = [int(x) for x in k[4:].split(",") if x.strip().isdigit()]
        m = _D2_ARCH.match(val.strip())
        name, cc = (m.group("name"), m.group("cc")) if m else (val.strip(), None)
        for idx in idxs:
            st.gpu(idx, _gpu_name(name), cc)
        st.saw("gpu", f"{key} {val}")
    elif k == "driver version":
        v = _clean(val)
        if v and re.match(r"^\d+\.\d+(\.\d+)*$", v):
            st.driver = st.driver or v
    elif k in ("cuda compiler", "nvcc"):
        m = _NVCC_RELEASE.search(val)
        if m:
            st.nvcc = st.nvcc or val.strip() + "\n"
            return
        m = _NVCC_BUILD.search(val)
        if m:
            st.toolkit_release = st.toolkit_release or f"{int(m.group(1))}.{int(m.group(2))}"
            return
        m = re.match(r"^CUDA\s+(\d+\.\d+)\s*$", val.strip())
        if m:
            st.toolkit_release = st.toolkit_release or m.group(1)
    elif k == "sys.platform":
        v = val.strip()
        st.platform = st.platform or ("win32" if v.startswith("win") else v if v in ("linux", "darwin") else None)


# --------------------------------------------------------------------------- single-line formats
def _package_line(st: _State, s: str) -> bool:
    m = _PIP_FREEZE.match(s)
    if m:
        st.package(m.group("name"), m.group("ver"))
        return True
    m = _PIP_ROW.match(s)
    if m and _RELEVANT.match(_norm(m.group("name"))):
        st.package(m.group("name"), m.group("ver"), m.group("build"))
        return True
    return False


def _read_hf_env(st: _State, key: str, val: str) -> bool:
    """transformers-cli / diffusers-cli / accelerate env bullets."""
    k = key.strip().strip("`").lower().replace("`", "")
    if k in ("pytorch version (gpu?)", "tensorflow version (gpu?)", "jax version", "jaxlib version", "gpu type",
             "flax version (cpu?/gpu?/tpu?)") or re.match(r"^[a-z_]+ version$", k) and k.split()[0] in (
             "transformers", "diffusers", "accelerate", "peft", "trl", "datasets", "huggingface_hub"):
        st.fmt("transformers/accelerate env")
    if k == "pytorch version (gpu?)":
        st.saw("torch", f"PyTorch version (GPU?): {val}")
        m = re.match(r"^\s*(\S+)\s*(?:\((True|False)\))?", val)
        if m and _clean(m.group(1)) and re.match(r"^\d", m.group(1)):
            st.torch.setdefault("version", m.group(1))
            _gpu_state(st, "torch", m.group(2))
        return True
    if k == "tensorflow version (gpu?)":
        m = re.match(r"^\s*(\d\S*)", val)
        if m:
            st.tf.setdefault("version", m.group(1))
        return True
    if k == "jax version":
        v = _first_version(val)
        if v:
            st.jax.setdefault("version", v)
        return True
    if k == "jaxlib version":
        v = _first_version(val)
        if v:
            st.jax.setdefault("jaxlib", v)
        return True
    if k == "python version":
        v = _first_version(val)
        if v:
            st.python = st.python or v
        return True
    if k == "platform":
        low = val.lower()
        if low.startswith("linux"):
            st.platform = st.platform or "linux"
            if "microsoft" in low:
                st.wsl_release = st.wsl_release or val.strip().split("-x86_64")[0].replace("Linux-", "")
        elif low.startswith("windows"):
            st.platform = st.platform or "win32"
        elif low.startswith("macos"):
            st.platform = st.platform or "darwin"
        return True
    if k == "gpu type":
        n = _clean(val)
        if n:
            st.gpu(0, n)
        return True
    return False


def _read_env_bullet(st: _State, key: str, val: str, line: str) -> bool:
    """Hand-written environment bullets (``- **PyTorch version**: 2.5.1``, the old PyTorch template's
    ``- PyTorch Version (e.g., 1.0): 1.3``, ``- NVIDIA driver version: 535.161.07``, ``- GPU: 3x RTX A6000``):
    only values that look like what the key names are read."""
    k = re.sub(r"\s*\([^)]*\)", "", key.strip().strip("`*").lower()).strip()
    v = (val or "").strip().strip("`*").strip()
    if k in ("pytorch version", "pytorch", "torch version", "torch"):
        m = re.match(r"^v?(\d+\.\d+(?:\.\d+)?(?:[a-z]+\d*)?(?:\+[\w.]+)?)(?:\s|,|$)", v)
        if m:
            st.torch.setdefault("version", m.group(1))
            st.saw("torch", line)
            st.fmt("environment bullets")
        return bool(m)
    if k in ("nvidia driver version", "nvidia driver", "driver version", "gpu driver version", "gpu driver"):
        m = re.match(r"^(\d{3}\.\d{2,3}(?:\.\d{2,3})?)(?:\s|,|$)", v)
        if m:
            st.driver = st.driver or m.group(1)
            st.saw("driver", line)
            st.fmt("environment bullets")
        return bool(m)
    if k in ("gpu", "gpus", "gpu model", "gpu models", "gpu models and configuration", "graphics card"):
        n = _clean(_MEM.sub("", v).strip(" ,("))
        if not n or re.match(r"^(n/?a|none|no|cpu|yes)\b", n, re.I) or not re.search(r"[A-Za-z]", n):
            return False
        cm = _GPU_COUNT.match(n)
        count, name = (int(cm.group("n")), cm.group("name").strip()) if cm else (1, n)
        for idx in range(count):
            st.gpu(idx, name)
        st.saw("gpu", line)
        st.fmt("environment bullets")
        return True
    return False


#: Chinese issue templates' environment bullets (PaddlePaddle, PaddleOCR, Langchain-Chatchat, OpenMMLab, ...):
#: ``- 操作系统：``, ``4）系统环境：windows 10. python: 3.7.3``, ``- Python 版本 / Python version: 3.10.12``; the key holds a
#: CJK character (or the line a full-width mark), the separator is ``:`` or the full-width ``：``
_ZH_KV = re.compile(r"^(?:[-*\u2022]\s{0,4}|\d{1,2}\s{0,2}[)\uff09.\u3001]\s{0,4})?\**\s{0,4}(?P<key>[^\s:\uff1a*][^:\uff1a]{0,60}?)"
                    r"\s{0,4}\**\s{0,4}[:\uff1a]\s{0,4}\**\s{0,4}(?P<val>.{0,500}?)\s*$")
_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
#: label (lower case, parentheses dropped, one side of a "中文 / English" pair) -> the field it fills
_ZH_KEYS = {
    **dict.fromkeys(("操作系统", "操作系统及版本", "操作系统版本", "系统环境", "系统", "系统版本", "运行环境", "system environment",
                     "operating system and version", "operating system", "os"), "os"),
    **dict.fromkeys(("python版本", "python 版本", "python版本号", "python 版本号", "python version", "python"), "python"),
    **dict.fromkeys(("显卡", "显卡型号", "gpu型号", "gpu 型号", "显卡信息", "gpu", "gpu信息"), "gpu"),
    **dict.fromkeys(("驱动版本", "驱动", "显卡驱动", "显卡驱动版本", "nvidia驱动版本", "nvidia 驱动版本", "gpu驱动版本",
                     "nvidia driver version", "driver version"), "driver"),
    **dict.fromkeys(("pytorch版本", "pytorch 版本", "torch版本", "torch 版本", "pytorch version"), "torch"),
}
#: what a GPU's name starts with / holds (a value that is a GPU, not "有" or a memory size)
_GPU_WORD = re.compile(r"(?i)(?:geforce|rtx|gtx|tesla|quadro|titan|nvidia|\b[ahlvpkt]\d{1,3}\b|\b[ahlvpkt]\d{1,3}\s?(?:pcie|sxm))")
_PY_IN = re.compile(r"(?i)\bpython\s{0,3}[:\uff1a]?\s{0,3}v?(\d\.\d{1,2}(?:\.\d{1,2})?)(?![\d.])")
_PADDLE_IN = re.compile(r"(?i)\b(paddlepaddle(?:-gpu)?)\s{0,20}(?:==\s{0,3}|\s)(\d+\.\d+\.\d+(?:\.post\d+|rc\d*)?)(?![\w.])")


def _read_zh_bullet(st: _State, s: str) -> bool:
    """A Chinese issue template's environment bullet, read into the fields the English bullets fill; a key
    that is not a known label, or a value that does not look like what it names, is left alone."""
    m = _ZH_KV.match(s)
    if not m or not (_CJK.search(m.group("key")) or _CJK.search(s[: m.start("key")])):
        return False
    parts = [re.sub(r"\s{2,}", " ", re.sub(r"[(\uff08][^)\uff09]{0,60}[)\uff09]", "", p)).strip().lower()
             for p in m.group("key").split("/")]
    kinds = [_ZH_KEYS[p] for p in parts if p in _ZH_KEYS]
    val = m.group("val").strip().strip("`*").strip()
    pm = _PADDLE_IN.search(val)
    if pm:
        st.package(pm.group(1), pm.group(2))
        st.fmt("environment bullets")
    if not kinds:
        return bool(pm)
    kind = kinds[0]
    if kind == "os":
        _tf_os(st, val)
        py = _PY_IN.search(val)
        if py:
            st.python = st.python or py.group(1)
    elif kind == "python":
        v = _first_version(val)
        if v:
            st.python = st.python or v
    elif kind == "gpu":
        n = re.split(r"[,\uff0c;\uff1b\u3001(\uff08]", val, maxsplit=1)[0]
        n = _MEM.sub("", re.sub(r"^(?:gpu|显卡)?\s{0,2}(?:型号)?\s{0,2}[:\uff1a]?\s{0,2}", "", n, flags=re.I)).strip(" ,")
        cm = _GPU_COUNT.match(n)
        count, name = (int(cm.group("n")), cm.group("name").strip()) if cm else (1, n)
        if not name or not _GPU_WORD.search(name) or _CJK.search(name):
            return False
        for idx in range(count):
            st.gpu(idx, name)
        st.saw("gpu", s)
    elif kind in ("driver", "torch"):
        return _read_env_bullet(st, "driver version" if kind == "driver" else "pytorch version", val, s)
    st.fmt("environment bullets")
    return True


#: a driver named in a user-typed field ("Driver Version: 561.17", "driver 535.104", "NVIDIA driver 470"); "CUDA
#: Driver API v12.0" is the CUDA version the driver supports, not a driver
_DRIVER_IN = re.compile(r"(?i)\bdriver(?:\s{1,3}version)?\s{0,3}[:=\uff1a]?\s{0,3}v?(?P<v>\d{3}\.\d{1,3}(?:\.\d{1,3})?|\d{3})(?![\d.])")


_TF_TEMPLATE_KEYS = {"tensorflow version", "tensorflow version (use command below)", "tensorflow version (you are using)"}


def _tf_os(st: _State, val: str) -> None:
    """TensorFlow's "OS platform and distribution" field: native Windows ("Windows 11 24h2") or Linux; a
    Windows line that names WSL ("Windows 11 + WSL2", "Ubuntu 22.04 in WSL2") runs the Linux wheel."""
    low = (_clean(val) or "").lower()
    if not low or low in ("-", "n/a", "na"):
        return
    if "wsl" in low or re.search(r"\b(linux|ubuntu|debian|centos|fedora|rhel|red hat|arch|manjaro|mint|suse)\b", low):
        st.platform = st.platform or "linux"
    elif re.search(r"\b(windows|win\s?1[01]|win\s?7)\b", low):
        st.platform = st.platform or "win32"
        st.saw("os", val.strip())
    elif re.search(r"\b(mac\s?os|macos|os x|darwin)\b", low):
        st.platform = st.platform or "darwin"


#: "11.0 / 8.0.4", "CUDA 11.2, cuDNN 8.1", "cuda 12.3 cudnn 8.9.7": what the user says is installed
_CLAIM_CUDA = re.compile(r"(?i)(?:\bcuda\s*(?:toolkit\s*)?v?)?(?<![\d.])(?P<v>\d{1,2}\.\d)(?:\.\d+)?(?![\d.])")
_CLAIM_CUDNN = re.compile(r"(?i)(?:cudnn\s*v?|/\s*v?)(?P<v>\d\.\d{1,2}(?:\.\d{1,3})?)(?![\d.])")


def _claim(st: _State, val: str) -> None:
    """The template's CUDA/cuDNN field, kept as the user's claim about the machine (facts ``claims``), never
    as a detected version: the first CUDA-looking version, and a cuDNN one after "cudnn" or a slash."""
    v = (val or "")[:200]
    if not _clean(v) or _DRIVER_IN.search(v) and not re.search(r"(?i)cuda", v):
        return
    cm = _CLAIM_CUDA.search(v)
    dm = _CLAIM_CUDNN.search(v)
    labelled = bool(cm and re.search(r"(?i)cuda", cm.group(0)))
    # a lone "8.1" is as likely a cuDNN as a CUDA: unlabelled, only CUDA >= 10 (no cuDNN major reached 10)
    if cm and (not dm or cm.start() < dm.start()) and (labelled or int(cm.group("v").split(".")[0]) >= 10):
        st.claims.setdefault("cuda", cm.group("v"))
    if dm:
        st.claims.setdefault("cudnn", dm.group("v"))
    if st.claims:
        st.claims.setdefault("from", f"CUDA/cuDNN version: {v.strip()}")
        st.saw("gpu-intent", st.claims["from"])


def _read_tf_field(st: _State, key: str, val: str) -> bool:
    k = key.strip().lower()
    if k in _TF_TEMPLATE_KEYS:
        v = _first_version(val)
        if v:
            st.tf.setdefault("version", v)
            st.saw("tensorflow", f"TensorFlow version: {val.strip()}")
            st.fmt("tensorflow template")
        return True
    if k in ("os platform and distribution", "os platform and distribution (e.g., linux ubuntu 16.04)"):
        _tf_os(st, val)
        return True
    if k in ("cuda/cudnn version", "cuda/cudnn version (if compiling from source)"):
        # the user's own words: never the installed toolkit (nvcc's pasted output is read as nvcc), but a driver
        # it names is the driver's version
        dm = _DRIVER_IN.search(val or "")
        if dm:
            st.driver = st.driver or dm.group("v")
            st.saw("driver", f"CUDA/cuDNN version: {val.strip()}")
            st.fmt("tensorflow template")
        if _NVCC_RELEASE.search(val or ""):
            st.nvcc = st.nvcc or _NVCC_RELEASE.search(val or "").group(0) + "\n"  # type: ignore[union-attr]
        _claim(st, val)
        return True
    if k == "gpu model and memory":
        n = _clean(val)
        if n and not re.match(r"^(n/?a|none|no|cpu)\b", n, re.I):
            n2 = _MEM.sub("", n).strip(" ,(")
            if n2:
                st.gpu(0, n2)
                st.fmt("tensorflow template")
        return True
    return False


# --------------------------------------------------------------------------- nvidia-smi, nvcc
def _read_smi_table(st: _State, lines: List[str], i: int) -> int:
    """The nvidia-smi table whose header line is ``lines[i]``; returns the index of its last line."""
    st.fmt("nvidia-smi")
    start = i
    if i > 0 and lines[i - 1].strip().startswith("+"):
        start = i - 1
    header = lines[i]
    k = header.find("NVIDIA-SMI")
    if k > 0 and not header[:k].strip().startswith("|"):
        header = "| " + header[k:]  # "nvidia-smi:NVIDIA-SMI 450.51.05  Driver Version ..." as retyped
    out = [lines[start]] if start < i else []
    out.append(header)
    st.saw("nvidia-smi", header.strip(" |"))
    j = i + 1
    while j < len(lines) and j - i < 400:
        s = lines[j].strip()
        if not s:
            # a blank line between the GPU table and the process table
            if j + 1 < len(lines) and lines[j + 1].strip().startswith(("+", "|")):
                out.append("")
                j += 1
                continue
            break
        if not s.startswith(("|", "+")):
            break
        out.append(lines[j].rstrip())
        j += 1
    st.smi.append("\n".join(out) + "\n")
    return j - 1


#: the first line of an ``nvidia-smi -q`` block: its banner, or its top-level driver line
_Q_START = re.compile(r"^(?:=+NVSMI LOG=+|Driver Version[ \t.]{2,}:[ \t]*\d+\.\d+)")


def _read_smi_q(st: _State, lines: List[str], i: int) -> int:
    """An ``nvidia-smi -q`` block (whole or cut) starting at ``lines[i]``: read by the one -q reader of
    parse.nvidia_smi (the one snapshots use). Returns the index of its last line."""
    from envcheck.parse.nvidia_smi import parse_q

    st.fmt("nvidia-smi -q")
    j = i + 1
    blanks = 0
    while j < len(lines) and j - i < 4000:
        s = lines[j].strip()
        if not s:
            blanks += 1
            if blanks > 1:
                break
            j += 1
            continue
        blanks = 0
        if ":" not in s and not re.match(r"^[A-Za-z][A-Za-z0-9 ()/-]*$", s):
            break
        j += 1
    q = parse_q("\n".join(lines[i:j]))
    if q.driver_version:
        st.driver = st.driver or q.driver_version
        st.saw("driver", f"nvidia-smi -q: Driver Version : {q.driver_version}")
    if q.cuda_version:
        st.smi_cuda = st.smi_cuda or q.cuda_version
    for g in q.gpus:
        if g.name and q.gpus_complete is not None:
            st.gpu(g.index, _gpu_name(g.name))
            st.saw("gpu", g.name)
    return j - 1


def _read_smi_error(st: _State, line: str) -> None:
    st.fmt("nvidia-smi")
    st.smi_failed = True
    s = line.strip().strip('"').replace("\u2018", "'").replace("\u2019", "'")
    st.smi.append(s + "\n")
    st.saw("nvidia-smi", s)


def _read_nvcc(st: _State, lines: List[str], i: int) -> int:
    """``nvcc -V`` from its first line (or from a lone ``Cuda compilation tools`` line)."""
    st.fmt("nvcc")
    out: List[str] = []
    j = i
    while j < len(lines) and j - i < 6:
        s = lines[j].strip()
        k = s.find("Cuda compilation tools")
        if k > 0:
            s = s[k:]
        if j > i and not (s.startswith(("Copyright", "Built on", "Cuda compilation", "Build cuda"))):
            break
        out.append(s)
        j += 1
    text = "\n".join(out) + "\n"
    if _NVCC_RELEASE.search(text):
        st.nvcc = text  # nvcc's own output beats collect_env's "CUDA runtime version"
    return j - 1


# --------------------------------------------------------------------------- facts stated by framework log lines
#: torch (torch/cuda/__init__.py _check_capability): "NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not
#: compatible with the current PyTorch installation. The current PyTorch install supports CUDA capabilities sm_37 ..."
_TORCH_SM = re.compile(r"(?:UserWarning:\s*)?(?P<name>[A-Za-z][^:\n]{1,80}?) with CUDA capability sm_(?P<sm>\d{2,3})\s+is not "
                       r"compatible with the current PyTorch installation\.?(?:\s*The current PyTorch install supports "
                       r"CUDA capabilities (?P<archs>(?:\s*(?:sm|compute)_\d{2,3}a?)+)\.?)?")
#: its next line when the warning is wrapped: "The current PyTorch install supports CUDA capabilities sm_37 sm_50 ..."
_TORCH_ARCHS = re.compile(r"^The current PyTorch install supports CUDA capabilities (?P<archs>(?:\s*(?:sm|compute)_\d{2,3}a?)+)\.?")
#: TensorFlow (gpu_device.cc): "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 10794 MB memory:
#: -> device: 0, name: NVIDIA GeForce RTX 3080 Ti, pci bus id: 0000:01:00.0, compute capability: 8.6"
_TF_DEVICE = re.compile(r"Created (?:TensorFlow )?device .{0,120}?device: (?P<idx>\d{1,3}), name: (?P<name>[^,\n]{1,80}), "
                        r"pci bus id: [\w:.]{1,20}, compute capability: (?P<cc>\d{1,2}\.\d)")
#: XLA's cuda_dnn.cc (TensorFlow, JAX): "Loaded cuDNN version 8100"
_LOADED_CUDNN = re.compile(r"\bLoaded cuDNN version (?P<v>\d{4,6})\b")
#: XLA's cuda_dnn.cc: "Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4."
_CUDNN_RUNTIME = re.compile(r"Loaded runtime CuDNN library: (?P<rt>\d+\.\d+\.\d+)(?: \(\d+\))? but source was compiled "
                            r"with: (?P<src>\d+\.\d+\.\d+)", re.I)
#: jax/_src/xla_bridge.py _version_check: "Found CUDA version 12010, but JAX was built against version 12020, ..."
_JAX_FOUND = re.compile(r"Found (?P<what>CUDA|cuDNN) version (?P<found>\d{4,6}), but JAX was built against version "
                        r"(?P<built>\d{4,6})")
#: torch (c10/cuda): "The NVIDIA driver on your system is too old (found version 10010)."
_TORCH_OLD_DRIVER = re.compile(r"The NVIDIA driver on your system is too old \(found version (?P<v>\d{4,6})\)")
#: `nvidia-smi -L`: "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5d0a...)"
_SMI_L = re.compile(r"^GPU (?P<idx>\d{1,3}): (?P<name>[^()]{2,80}?(?: \([a-z]{2,12}\))?) \(UUID: (?:GPU-[0-9a-fA-F-]{8,}|\[removed\])\)\s*$")


#: an install path names the Python: ".../lib/python3.9/site-packages/torch/...", "...\\Python39\\lib\\site-packages"
_PY_PATH = re.compile(r"(?i)(?:[/\\]lib[/\\]python(3)\.(\d{1,2})[/\\](?:site|dist)-packages|[/\\]python(?=3\d)(3)(\d{1,2})"
                      r"[/\\]lib[/\\]site-packages)")
#: the program itself asks for the GPU: a CUDA device, ``.cuda()``, TensorFlow's GPU list, torch.cuda.is_available()
_GPU_INTENT = re.compile(r"""(?i)device\s*=\s*['"]cuda|\.cuda\(\)|\.to\(\s*['"]cuda|list_physical_devices\(\s*['"]GPU"""
                         r"""|torch\.cuda\.is_available\(\)|deserialize object on a CUDA device|['"]cuda:\d""")
#: a bare torch build string in a bullet list: "- torch 2.1.0+cu121", "* 2.0.1+cu118", "- PyTorch: 1.13.1+cpu"
_BARE_TORCH = re.compile(r"^[-*\u2022]\s+(?:(?:py)?torch\s*(?:==|:|\s)\s*v?)?(?P<v>[12]\.\d{1,2}\.\d{1,2}\+(?:cu\d{2,3}|cpu"
                         r"|rocm\d+\.\d+(?:\.\d+)?))\s*$", re.I)


def _read_log_fact(st: _State, s: str) -> bool:
    """A framework's own log line that states a fact of the machine; True when the line was one.

    Only what the sentence itself makes certain is taken: a GPU's name with its compute capability, the
    cuDNN a framework loaded and the one it was built with, the driver's CUDA (torch's "found version")."""
    from envcheck.parse.versions import cuda_from_int, cudnn_from_int

    if len(s) > _MAXLINE:
        return False
    m = _TORCH_SM.search(s)
    if m:
        sm = m.group("sm")
        _log_gpu(st, _gpu_name(m.group("name").strip()), f"{int(sm[:-1])}.{sm[-1]}")
        if m.group("archs"):
            st.torch.setdefault("arch_list", m.group("archs").split())
        st.saw("gpu", s)
        st.logged = True
        st.torch["_sm_warning"] = True
        return True
    m = _TORCH_ARCHS.match(s)
    if m and st.torch.get("_sm_warning"):
        st.torch.setdefault("arch_list", m.group("archs").split())
        return True
    m = _TF_DEVICE.search(s)
    if m:
        st.gpu(int(m.group("idx")), _gpu_name(m.group("name")), m.group("cc"))
        if m.group("idx") in ("0",) or not st.lines.get("gpu"):
            st.saw("gpu", s)
        st.logged = True
        return True
    m = _CUDNN_RUNTIME.search(s)
    if m:
        st.cudnn_loaded.append(m.group("rt"))
        # the source path names the framework: TensorFlow's own tree, or jaxlib's vendored copy of it
        fw = "jax" if "external/org_tensorflow/" in s else "tensorflow" if re.search(
            r"(?:^|[\s\]])tensorflow/(?:stream_executor|core)/", s) else "xla"
        st.built.setdefault(fw, {}).setdefault("cudnn", m.group("src"))
        st.logged = True
        return True
    m = _LOADED_CUDNN.search(s)
    if m:
        v = cudnn_from_int(int(m.group("v")))
        if v:
            st.cudnn_loaded.append(v)
            st.logged = True
        return bool(v)
    m = _JAX_FOUND.search(s)
    if m:
        conv = cuda_from_int if m.group("what") == "CUDA" else cudnn_from_int
        found, built = conv(int(m.group("found"))), conv(int(m.group("built")))
        if found and built:
            if m.group("what") == "cuDNN":
                st.cudnn_loaded.append(found)
            st.built.setdefault("jax", {}).setdefault(m.group("what").lower(), built)
            st.logged = True
        return True
    m = _TORCH_OLD_DRIVER.search(s)
    if m:
        v = cuda_from_int(int(m.group("v")))
        if v:
            st.driver_cuda = st.driver_cuda or v
            st.saw("driver", s)
            st.logged = True
        return bool(v)
    m = _SMI_L.match(s)
    if m:
        st.gpu(int(m.group("idx")), _gpu_name(m.group("name")))
        st.saw("gpu", s)
        st.logged = True
        return True
    return False


def _log_gpu(st: _State, name: Optional[str], cc: str) -> None:
    """A GPU named by a warning that does not give its index: the listed GPU of that name, else GPU 0 when
    no GPU is listed yet."""
    if not name:
        return
    same = [i for i, g in st.gpus.items() if g.get("name") == name]
    for i in same:
        st.gpus[i].setdefault("cc", cc)
    if not same and not st.gpus:
        st.gpu(0, name, cc)


# --------------------------------------------------------------------------- the reader
def _looks_detectron2(s: str) -> bool:
    return bool(re.match(r"^sys\.platform\s{2,}\S", s.strip()))


@dataclass(frozen=True)
class _Line:
    """One line as the readers see it: the lines, its index, the line cut to _MAXLINE, stripped of a Markdown
    quote (``s``), lower-cased (``low``), and its ``key: value`` match."""

    lines: List[str]
    i: int
    line: str
    s: str
    low: str
    km: Optional["re.Match[str]"]


def _next_value(lines: List[str], i: int) -> int:
    """The index of the first non-empty line within three after ``i`` (or where the search stopped)."""
    j = i + 1
    while j < len(lines) and j - i < 4 and not lines[j].strip():
        j += 1
    return j


def _r_detectron2(st: _State, c: _Line) -> Optional[int]:
    return _read_detectron2(st, c.lines, c.i) if _looks_detectron2(c.s) else None


def _r_bare_torch(st: _State, c: _Line) -> Optional[int]:
    bm = _BARE_TORCH.match(c.s) if "+" in c.s else None
    if not bm or st.torch.get("version"):
        return None
    _torch_version(st, bm.group("v"))
    st.saw("torch", c.s)
    st.fmt("torch version")
    return c.i + 1


def _r_log_fact(st: _State, c: _Line) -> Optional[int]:
    return c.i + 1 if _read_log_fact(st, c.s) else None


def _r_collect_env(st: _State, c: _Line) -> Optional[int]:
    low, s = c.low, c.s
    if low.startswith("collecting environment information") or (
            _SECTIONED.match(s) or c.km or low.startswith("pytorch version ")) and any(
            low.startswith(k) for k in ("pytorch version", "cuda used to build pytorch")):
        return _read_collect_env(st, c.lines, c.i + (1 if low.startswith("collecting") else 0))
    return None


def _r_smi_table(st: _State, c: _Line) -> Optional[int]:
    return _read_smi_table(st, c.lines, c.i) + 1 if _SMI_HEADER.search(c.s) and "driver version" in c.low else None


def _r_smi_q(st: _State, c: _Line) -> Optional[int]:
    return _read_smi_q(st, c.lines, c.i) + 1 if _Q_START.match(c.s) else None


def _r_smi_error(st: _State, c: _Line) -> Optional[int]:
    if not any(e in c.low.replace("\u2018", "'").replace("\u2019", "'") for e in _SMI_ERRORS):
        return None
    _read_smi_error(st, c.s)
    return c.i + 1


def _r_nvcc(st: _State, c: _Line) -> Optional[int]:
    if c.s.startswith("nvcc: NVIDIA (R) Cuda compiler") or (
            "cuda compilation tools" in c.low and _NVCC_RELEASE.search(c.s)):
        return _read_nvcc(st, c.lines, c.i) + 1
    return None


def _r_ldconfig(st: _State, c: _Line) -> Optional[int]:
    if not _LDCONFIG.match(c.line):
        return None
    st.fmt("ldconfig")
    st.ld.append(c.line.rstrip())
    return c.i + 1


_PROC_DRIVER = re.compile(r"^(?:\$\s*)?NVRM version:\s*NVIDIA.*Kernel Module\s+(" + _VER + ")")
_VERSION_TXT = re.compile(r"^CUDA Version\s+(\d+\.\d+\.\d+)\s*$")


def _r_driver_files(st: _State, c: _Line) -> Optional[int]:
    """/proc/driver/nvidia/version's first line; the toolkit's version.txt."""
    if _PROC_DRIVER.match(c.s):
        st.fmt("/proc/driver/nvidia/version")
        st.proc_driver = c.s + "\n"
        return c.i + 1
    if _VERSION_TXT.match(c.s):
        st.version_txt = c.s + "\n"
        st.fmt("cuda version.txt")
        return c.i + 1
    return None


def _r_ultralytics(st: _State, c: _Line) -> Optional[int]:
    m = _ULTRA.search(c.s)
    if not m:
        return None
    st.fmt("ultralytics")
    st.saw("torch", c.s)
    st.saw("gpu", c.s)
    st.python = st.python or m.group("py")
    st.torch.setdefault("version", m.group("torch"))
    for dm in _ULTRA_DEV.finditer(m.group("rest")):
        st.gpu(int(dm.group("idx")), dm.group("name").strip(), mem=int(dm.group("mem")))
    lines, i = c.lines, c.i
    j = i + 1
    while j < len(lines) and j - i < 64:
        cont = _ULTRA_DEV.search(lines[j])
        if not cont or lines[j][: cont.start()].strip():
            break
        st.gpu(int(cont.group("idx")), cont.group("name").strip(), mem=int(cont.group("mem")))
        j += 1
    return j


_JAX_VERSION = re.compile(r"^(jax|jaxlib):\s+(" + _VER + r"\S*)\s*$")
_JAX_DEVICES = re.compile(r"^jax\.devices\s*\(.*?\):\s*\[(.*)")
# jax >= 0.4.2x prints one line instead of the device list (jax/_src/environment_info.py):
#   device info: {devices()[0].device_kind}-{device_count()}, {local_device_count()} local devices"
# device_kind is "cpu" on the CPU backend, "TPU ..." on TPUs and the GPU's name on a GPU backend
_JAX_DEVICE_INFO = re.compile(r'^device info:\s*(\S.{0,200}?)-(\d{1,6}),\s*\d{1,6}\s+local devices"?\s*$')


def _r_jax_env(st: _State, c: _Line) -> Optional[int]:
    """jax.print_environment_info()."""
    s = c.s
    m = _JAX_VERSION.match(s)
    if m:
        st.fmt("jax.print_environment_info")
        st.jax.setdefault("version" if m.group(1) == "jax" else "jaxlib", m.group(2))
        return c.i + 1
    if not st.jax:
        return None
    m = _JAX_DEVICES.match(s)
    if m:
        # print_environment_info prints jaxlib without its local label (+cuda11.cudnn805): GPU devices
        # are what proves a GPU build
        st.jax["devices"] = "gpu" if re.search(r"\b(Gpu|Cuda|Rocm)Device|\bcuda\(id=", m.group(1)) else "cpu"
        (st.gpu_works if st.jax["devices"] == "gpu" else st.gpu_fails).append("jax")
        return c.i + 1
    m = _JAX_DEVICE_INFO.match(s)
    if m:
        kind = m.group(1).strip().lower()
        if kind == "cpu":
            st.jax["devices"] = "cpu"
            st.gpu_fails.append("jax")
        elif not kind.startswith("tpu"):
            st.jax["devices"] = "gpu"
            st.gpu_works.append("jax")
        return c.i + 1
    if re.match(r"^python:\s+\d", s):
        st.python = st.python or _first_version(s.split(":", 1)[1])
        return c.i + 1
    return None


def _r_package_lists(st: _State, c: _Line) -> Optional[int]:
    """pip list / conda list (their headers start a block of rows), conda transaction plans, pip freeze."""
    s = c.s
    if re.match(r"^Package\s+Version\b", s) or re.match(r"^#\s*Name\s+Version\s+Build", s) or \
            c.low.startswith("# packages in environment"):
        st.fmt("pip list" if s.startswith("Package") else "conda list")
        st.pkg_block = 2000
        return c.i + 1
    m = _CONDA_PLAN.match(s)
    if m and _RELEVANT.match(_norm(m.group("name"))):
        st.fmt("conda transaction plan")
        st.package(m.group("name"), m.group("ver"), m.group("build"))
        st.saw("package", s)
        return c.i + 1
    m = _PIP_BARE.match(s) if not st.pkg_block else None
    if m and _RELEVANT.match(_norm(m.group("name"))):
        st.fmt("pip list")
        st.package(m.group("name"), m.group("ver"))
        return c.i + 1
    if s.startswith(("[pip", "[conda]")) or st.pkg_block > 0 or _PIP_FREEZE.match(s):
        if _package_line(st, s):
            st.fmt("pip/conda packages")
        if st.pkg_block > 0:
            st.pkg_block -= 1
        return c.i + 1
    return None


def _r_env_bullets(st: _State, c: _Line) -> Optional[int]:
    """key: value forms (transformers-cli env, accelerate env, env bullets), Chinese templates' bullets."""
    km = c.km
    if km and (_read_hf_env(st, km.group("key"), km.group("val"))
               or _read_env_bullet(st, km.group("key"), km.group("val"), c.s)):
        return c.i + 1
    if not km and _read_zh_bullet(st, c.s):
        return c.i + 1
    return None


def _r_jax_accelerator(st: _State, c: _Line) -> Optional[int]:
    """JAX's issue form: "### Which accelerator(s) are you using?" and "GPU" on a later line."""
    if not re.match(r"^#{2,4}\s*which accelerator\(s\) are you using\?\s*$", c.low):
        return None
    lines, i = c.lines, c.i
    j = _next_value(lines, i)
    if j < len(lines) and re.search(r"\bGPU\b", lines[j][:200]) and not lines[j].strip().startswith("#"):
        st.saw("gpu-intent", f"{c.s} {lines[j].strip()}")
    return j if j > i else i + 1


def _r_tf_template(st: _State, c: _Line) -> Optional[int]:
    """TensorFlow's issue template: a field on one line, its value on a later line, or a "### ..." heading."""
    km, lines, i = c.km, c.lines, c.i
    if km and not km.group("val").strip("`* ") and km.group("key").strip().lower() in _TF_TEMPLATE_KEYS | {
            "python version", "gpu model and memory", "cuda/cudnn version"}:
        # a template field whose value is on a later line ("- TensorFlow version:\n\n`2.2.0`")
        j = _next_value(lines, i)
        if j < len(lines) and not _KV.match(lines[j].strip()) and not lines[j].strip().startswith("#"):
            key = km.group("key").strip().lower()
            if key == "python version":
                st.python = st.python or _first_version(lines[j].strip().strip("`"))
            else:
                _read_tf_field(st, key, lines[j].strip().strip("`"))
            return j + 1
    if km and _read_tf_field(st, km.group("key"), km.group("val")):
        return i + 1
    return _tf_heading(st, c)


_TF_HEADING = re.compile(r"^#{2,4}\s*(tensorflow version|python version|gpu model and memory|os platform and "
                         r"distribution|cuda/cudnn version)\s*$")


def _tf_heading(st: _State, c: _Line) -> Optional[int]:
    """"### Tensorflow Version" form heading, the value on the next non-empty line."""
    hm = _TF_HEADING.match(c.low)
    if not hm:
        return None
    lines = c.lines
    j = _next_value(lines, c.i)
    if j >= len(lines) or lines[j].strip().startswith("#"):
        return None
    val = lines[j].strip()
    if hm.group(1) == "python version":
        if st.tf or "tensorflow template" in st.formats:
            st.python = st.python or _first_version(val)
    else:
        _read_tf_field(st, hm.group(1), val)
    return j + 1


def _r_tf_version_assign(st: _State, c: _Line) -> Optional[int]:
    if re.match(r"^tf\.__version__\s*=", c.s):
        v = _first_version(c.s.split("=", 1)[1])
        if v:
            st.tf.setdefault("version", v)
            st.fmt("tensorflow version")
    return None


#: The readers, in the order they are tried on each line (the first that takes the line wins; a reader that
#: takes a block returns the index after it). The order is the merge order too: a field keeps the first
#: value read (``st.python = st.python or v``), so an earlier report in the text wins over a later one, and
#: a tool's own output read before a user-typed field. Adding a form = one reader here (and its tests).
_READERS: Tuple[Callable[[_State, _Line], Optional[int]], ...] = (
    _r_detectron2, _r_bare_torch, _r_log_fact, _r_collect_env, _r_smi_table, _r_smi_q, _r_smi_error, _r_nvcc,
    _r_ldconfig, _r_driver_files, _r_ultralytics, _r_jax_env, _r_package_lists, _r_env_bullets,
    _r_jax_accelerator, _r_tf_template, _r_tf_version_assign,
)


def _observe(st: _State, s: str, low: str) -> None:
    """Facts a line shows without being a report's line: the Python of an install path, the program asking
    for the GPU. The line still goes to the readers."""
    if st.python_path is None and "-packages" in low:
        pm = _PY_PATH.search(s)
        if pm:
            major, minor = [g for g in pm.groups() if g]
            st.python_path = f"{major}.{minor}"
    if "gpu-intent" not in st.lines and ("cuda" in low or "gpu" in low) and _GPU_INTENT.search(s):
        st.saw("gpu-intent", s)


def read_lines(lines: List[str]) -> Report:
    """Read every report in ``lines`` (the kept lines of a pasted text) with the readers of _READERS."""
    st = _State()
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i][:_MAXLINE]
        s = line.strip().lstrip("> ").strip() if line.lstrip().startswith(">") else line.strip()
        if not s:
            i += 1
            continue
        low = s.lower()
        if not _looks_detectron2(s):
            _observe(st, s, low)
        c = _Line(lines, i, line, s, low, _KV.match(s))
        nxt = None
        for reader in _READERS:
            nxt = reader(st, c)
            if nxt is not None:
                break
        i = nxt if nxt is not None else i + 1
    st.docker = _docker_no_gpus(lines)
    return _finish(st)


#: ``docker run`` (not ``nvidia-docker run``, which adds the GPUs itself) and the options that give a container GPUs
_DOCKER_RUN = re.compile(r"(?<![\w-])docker\s{1,4}(?:container\s{1,4})?run\s")
_DOCKER_GPU_OPT = re.compile(r"--gpus\b|--runtime[= ]{1,3}nvidia|NVIDIA_VISIBLE_DEVICES|nvidia\.com/gpu|--device[= ]{1,3}/dev/nvidia")
#: inside that container: no GPU, no driver, no nvidia-smi (the toolkit mounts it only into GPU containers)
_IN_CONTAINER_NO_GPU = re.compile(
    r"(?i)nvidia-smi\b.{0,40}?\bnot found|nvidia-smi.{0,20}?command not found|executable file not found.{0,40}?nvidia-smi"
    r"|no CUDA-capable device is detected|Found no NVIDIA driver on your system|No CUDA GPUs are available"
    r"|CUDA available\s{0,3}[:=]?\s{0,3}False\b|cuda\.is_available\(\)\s{0,3}(?:->|=|:|returns?)?\s{0,3}False\b")


_GPU_REACHED = re.compile(r"(?i)CUDA available\s{0,3}[:=]?\s{0,3}True\b|cuda\.is_available\(\)\s{0,3}(?:->|=|:|returns?)?\s{0,3}True\b")


def _docker_no_gpus(lines: List[str]) -> Optional[str]:
    """A ``docker run`` line without a GPU option, then (from inside that container) a line showing no GPU there:
    "docker run line | failure line"; None when the text shows any container started with GPUs (a daemon whose
    default runtime is nvidia gives GPUs without the option, so the failure must be shown, not assumed)."""
    run: Optional[str] = None
    fail: Optional[str] = None
    for raw in lines[:20000]:
        s = raw[:_MAXLINE].strip()
        if _DOCKER_RUN.search(s):
            if _DOCKER_GPU_OPT.search(s):
                return None
            run = run or s
        elif run and _GPU_REACHED.search(s):
            return None  # a GPU reached after all (another try, another container): not this cause
        elif run and not fail and _IN_CONTAINER_NO_GPU.search(s):
            fail = s
    return f"{run[:200]} | {fail[:200]}" if run and fail else None


def _gpu_captures(st: _State, rep: Report) -> None:
    """GPUs and driver as --query-gpu style rows (only what was printed; [N/A] elsewhere), nvidia-smi's text."""
    caps = rep.captures
    if st.amd or st.torch_hip:
        st.gpus = {}  # a ROCm machine's GPUs are not NVIDIA's
    if st.gpus:
        rows = ["index, name, driver_version, compute_cap, memory.total [MiB]"]
        for idx in sorted(st.gpus):
            g = st.gpus[idx]
            name = str(g.get("name", "")).replace(",", " ")
            rows.append(f"{idx}, {name}, {st.driver or '[N/A]'}, {g.get('cc') or '[N/A]'}, "
                        f"{str(g['mem']) + ' MiB' if g.get('mem') else '[N/A]'}")
        caps["nvidia-smi-query.csv"] = "\n".join(rows) + "\n"
    elif st.driver:
        caps["nvml.json"] = json.dumps({"driver_version": st.driver})
    if st.smi:
        tables = [t for t in st.smi if "NVIDIA-SMI" in t]
        caps["nvidia-smi.txt"] = tables[0] if tables else st.smi[0]
        if not tables and st.smi_failed:
            rep.statuses["nvidia-smi.txt"] = "failed"


def _tool_captures(st: _State, caps: Dict[str, str]) -> None:
    """nvcc, the toolkit's version.txt, /proc/driver/nvidia/version, ldconfig, WSL's kernel, python.json."""
    if st.nvcc:
        caps["nvcc.txt"] = st.nvcc
    elif st.toolkit_release:
        caps["nvcc.txt"] = f"Cuda compilation tools, release {st.toolkit_release}, V{st.toolkit_release}\n"
    if st.version_txt:
        caps["cuda-version.txt"] = st.version_txt
    if st.proc_driver:
        caps["proc-driver-version.txt"] = st.proc_driver
    if st.ld:
        caps["ldconfig.txt"] = "\n".join(dict.fromkeys(st.ld)) + "\n"
    if st.wsl_release:
        caps["proc-version.txt"] = f"Linux version {st.wsl_release}\n"
    py = {k: v for k, v in (("version", st.python), ("platform", st.platform), ("machine", st.machine)) if v}
    if py:
        py.setdefault("implementation", "CPython")
        caps["python.json"] = json.dumps(py)


def _packages(st: _State) -> Dict[str, str]:
    """The packages the text lists, plus the framework versions a report names outside a package list."""
    packages = dict(st.packages)
    if "torch" not in packages and "pytorch" in packages:
        packages["torch"] = packages["pytorch"]  # conda's name for it
    if st.tf.get("version") and not any(k.startswith(("tensorflow", "tf-nightly")) for k in packages):
        packages["tensorflow"] = st.tf["version"]
    for k in ("version", "jaxlib"):
        if st.jax.get(k) and st.jax.get("devices") != "gpu":  # a GPU build whose label was not printed: unknown
            packages.setdefault("jax" if k == "version" else "jaxlib", st.jax[k])
    return packages


def _torch_json(st: _State, tver: str) -> Dict[str, Any]:
    tj: Dict[str, Any] = {"version": tver}
    if st.torch.get("cuda"):
        tj["cuda"] = st.torch["cuda"]
    elif st.torch.get("_cuda_none") and not st.torch_hip:
        tj["cuda"] = None  # torch.version.cuda is None: not a CUDA build
    if st.torch_hip:
        tj["hip"] = st.torch_hip
    if st.torch.get("cudnn"):
        parts = [int(x) for x in str(st.torch["cudnn"]).split(".")[:3]] + [0, 0]
        tj["cudnn"] = parts[0] * (10000 if parts[0] >= 9 else 1000) + parts[1] * 100 + parts[2]
    if st.torch.get("arch_list"):
        tj["arch_list"] = st.torch["arch_list"]
    return tj


def _torch_capture(st: _State, caps: Dict[str, str], packages: Dict[str, str]) -> None:
    """torch.json from collect_env's fields; the package list keeps only a torch row of the imported version."""
    tver = st.torch.get("version")
    if not tver:
        return
    caps["torch.json"] = json.dumps(_torch_json(st, tver))
    same = [packages[k] for k in ("torch", "pytorch") if (packages.get(k) or "").split("=")[0] == tver]
    same.sort(key=lambda v: "=" not in v)  # a conda row with its build string first
    if same and "=" in same[0] and _torch_conda_build(st, packages, tver) is None:
        same = [same[0].split("=")[0]]  # the conda build is not certainly the torch imported
    if same:
        packages["torch"] = same[0]
    elif packages.get("torch"):
        del packages["torch"]  # collect_env's torch.__version__ is the one imported


def _finish(st: _State) -> Report:
    """The captures (snapshot files) and the facts of everything read, in the merge order documented in
    docs/explain.md: GPUs and driver, tools, Python, packages, torch; the first value read of a field wins."""
    rep = Report(formats=list(st.formats), lines=dict(st.lines))
    for key, seen in (("gpu-works", st.gpu_works), ("gpu-fails", st.gpu_fails)):
        if seen:
            rep.lines[key] = ",".join(dict.fromkeys(seen))
    if st.docker:
        rep.lines["docker-no-gpus"] = st.docker
    if not st.formats:
        if st.logged:  # a log whose own lines state facts, no report: the facts alone (no machine to check)
            rep.facts = _facts(st, {})
        return rep
    _gpu_captures(st, rep)
    _tool_captures(st, rep.captures)
    packages = _packages(st)
    _torch_capture(st, rep.captures, packages)
    if packages:
        rep.captures["packages.json"] = json.dumps(packages, sort_keys=True)
    rep.facts = _facts(st, packages)
    return rep


def _torch_conda_build(st: _State, packages: Dict[str, str], tver: str) -> Optional[str]:
    """The conda build string of the torch imported (``py3.9_cuda12.1_cudnn8.9.2_0``), or ``None``: a
    ``torch``/``pytorch`` conda row of the same version; none when conda also lists a pip-installed torch
    (``torch 2.1.0 pypi_0``: which one was imported is not certain)."""
    if "torch" in st.conda_pypi or "pytorch" in st.conda_pypi:
        return None
    for k in ("pytorch", "torch"):
        v = packages.get(k) or ""
        if "=" in v and v.split("=", 1)[0] == tver.split("+")[0]:
            return v.split("=", 1)[1]
    return None


def _torch_facts(st: _State, packages: Dict[str, str], tver: str) -> Dict[str, Any]:
    """torch's version, CUDA and cuDNN: collect_env's fields first ("CUDA used to build PyTorch" wins), then
    the ``+cuXYZ`` label, the conda build string of the same version, and on Linux the one pip
    ``nvidia-cudnn-cuNN`` wheel a pip torch built with CUDA NN >= 12 loads. Evidence that contradicts the
    fields is not used."""
    from envcheck.parse.versions import cuda_from_conda_build, cuda_from_local_label, cudnn_short

    cpu = bool(st.torch.get("_cuda_none"))
    cuda = st.torch.get("cuda")
    cudnn = st.torch.get("cudnn")
    lab = cuda_from_local_label(tver)
    if cuda is None and not cpu and lab is not None:
        cuda = lab.cuda
    build = _torch_conda_build(st, packages, tver)
    cb = cuda_from_conda_build(build) if build else None
    if cb and not cpu and (cuda is None or cuda == cb[0]):
        cuda = cuda or cb[0]
        cudnn = cudnn or cb[1]
    elif cuda and not cpu and not cudnn and build is None and st.platform == "linux" and (lab is None or (
            lab.kind == "cuda" and lab.cuda == cuda)) and re.match(r"^\d+\.\d+(\.\d+)?(\+cu\d+)?$", tver):
        major = cuda.split(".")[0]
        wheels = [k for k in packages if re.match(r"^nvidia-cudnn-cu\d+$", k)]
        if wheels == [f"nvidia-cudnn-cu{major}"]:
            cudnn = cudnn_short(packages[wheels[0]].split("=")[0])
    out: Dict[str, Any] = {"version": tver, "cuda": None if cpu else cuda, "cudnn": None if cpu else cudnn}
    lm = re.search(r"\+rocm(\d+\.\d+)", tver)
    rocm = _rocm_mm(st.torch_hip) or _rocm_mm(lm.group(1) if lm else None)
    if rocm:
        out["rocm"] = rocm  # contract §9: the ROCm/HIP major.minor the build used, never the raw HIP string
        out["cuda"] = None
    if st.torch.get("_xpu") or "+xpu" in tver:
        out["xpu"] = True
        out["cuda"] = None
    return out


def _rocm_mm(v: Optional[str]) -> Optional[str]:
    """"6.1.40091-a8dbc0c19" / "3.0.19493-36529b1" / "6.2" -> "6.1" / "3.0" / "6.2"."""
    m = re.match(r"^\s*(\d+)\.(\d+)", v or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def _facts(st: _State, packages: Dict[str, str]) -> Dict[str, Any]:
    """Contract §4 ``facts``: only what the text makes certain."""
    from envcheck.parse.nvidia_smi import parse_table

    smi = parse_table(next((t for t in st.smi if "NVIDIA-SMI" in t), None))
    driver = st.driver or smi.driver_version
    gpus: List[Dict[str, Any]] = []
    seen = set()
    for idx in sorted(st.gpus):
        g = st.gpus[idx]
        gpus.append({"index": idx, "name": g.get("name"), "compute_capability": g.get("cc")})
        seen.add(idx)
    for r in smi.gpus:
        if r.index is not None and r.index not in seen:
            gpus.append({"index": r.index, "name": r.name, "compute_capability": None})
    gpus.sort(key=lambda g: g["index"])
    nv = None
    if st.nvcc:
        m = _NVCC_RELEASE.search(st.nvcc)
        if m:
            nv = (m.group(1), m.group(2))
    toolkit = {"version": _mm(nv[0]) if nv else st.toolkit_release, "nvcc": nv[1] if nv else None}
    fws: Dict[str, Any] = {}
    tver = st.torch.get("version") or (packages.get("torch") or "").split("=")[0] or None
    if tver:
        fws["torch"] = _torch_facts(st, packages, tver)
    tfv = st.tf.get("version") or next((packages[k].split("=")[0] for k in ("tensorflow", "tensorflow-gpu",
                                        "tensorflow-cpu", "tf-nightly") if packages.get(k)), None)
    if tfv:
        fws["tensorflow"] = {"version": tfv, "cuda": None, "cudnn": None}
    jv = st.jax.get("version") or (packages.get("jax") or "").split("=")[0] or None
    if jv or st.jax.get("jaxlib"):
        fws["jax"] = {"version": jv, "jaxlib": st.jax.get("jaxlib") or (packages.get("jaxlib") or "").split("=")[0]
                      or None, "cuda": None, "cudnn": None}
    xla = st.built.get("xla", {})
    for name in ("tensorflow", "jax"):
        built = dict(st.built.get(name, {}))
        if xla and (name == "jax" or "jax" not in st.built) and [k for k in ("tensorflow", "jax") if k in fws or k in
                                                                  st.built] == [name]:
            built.setdefault("cudnn", xla["cudnn"])  # XLA's cuDNN line, when only this framework is in the text
        if built:
            fw = fws.setdefault(name, {"version": None, "cuda": None, "cudnn": None})
            for k, v in built.items():
                if fw.get(k) is None:
                    fw[k] = v
    # torch's "found version 10010" and the cuDNN a log says it loaded are certain too, but the hand-written
    # facts of the paste sets keep driver.cuda to nvidia-smi's field and carry no top-level cudnn list: they
    # stay in the state (st.driver_cuda, st.cudnn_loaded) for the lead to decide, not in the facts
    out = {"driver": {"version": driver, "cuda": smi.cuda_version or st.smi_cuda},
           "gpus": gpus, "python": {"version": st.python or st.python_path}, "toolkit": toolkit, "frameworks": fws}
    if st.claims:
        # the user's own words about the machine: a claim, not a detected fact (docs/explain.md)
        out["claims"] = dict(st.claims)
    return out


def read_report(text: str) -> Report:
    """Read every environment report in ``text``; ``Report.found`` is false when there is none."""
    return read_lines(text.splitlines())

