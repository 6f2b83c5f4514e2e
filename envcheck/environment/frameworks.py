"""Framework builds (torch, tensorflow, jax, cupy): the CUDA / cuDNN each was built with, from every capture.

Each fact comes from the best capture there is and falls back through the others; ``cuda_source`` /
``cudnn_source`` / ``arch_source`` say which one spoke, and captures that disagree leave a note.

torch CUDA: ``torch.json`` (``torch.version.cuda``) > the ``+cu128`` local version label > a conda
build string (``py3.10_cuda11.8_cudnn8.7.0_0``) > the exact ``nvidia-cuda-runtime-cu12==12.4.127`` pin
of its Requires-Dist (``requires.json``) > the one installed ``nvidia-cuda-runtime-cuNN`` wheel
(``packages.json``, only when nothing above exists).
tensorflow CUDA: ``tensorflow.json`` (build_info) > the ``tensorflow[and-cuda]`` pins > a conda build string.
jax: ``jax-cuda12-plugin`` / ``jax-cuda12-pjrt`` (major only) > jaxlib's ``+cuda110`` / ``+cuda12.cudnn89`` label.
cupy: the distribution name (``cupy-cuda117`` -> 11.7, ``cupy-cuda12x`` -> major 12).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from envcheck.environment._common import Caps, s, MatrixFacts
from envcheck.model import Framework, LibCopy, PythonInfo
from envcheck.parse.captures import load_json_object, parse_requires
from envcheck.parse.versions import (cupy_dist_cuda, LocalLabel, cuda_from_conda_build, cuda_from_local_label, cuda_from_nvidia_pins,
                                     cuda_major_minor, cudnn_from_int, cudnn_from_nvidia_pins, cudnn_short)

__all__ = ["build_frameworks", "split_conda_version"]

_TF_DISTS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-intel")


# what a PEP 440 version (or a conda one) begins with: an epoch or a digit, after an optional "v"
_VERSION_HEAD = re.compile(r"^[vV]?[0-9]")


def split_conda_version(value: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """A packages.json value -> (version, conda build string or None).

    ``"2.5.1+cu124"`` -> ("2.5.1+cu124", None); a ``conda list`` style value ``"2.1.0=py3.10_cuda11.8_cudnn8.7.0_0"``
    or ``"2.1.0 py3.10_cuda11.8_cudnn8.7.0_0"`` -> ("2.1.0", "py3.10_cuda11.8_cudnn8.7.0_0")."""
    if not value:
        return None, None
    v = value.strip()
    if not _VERSION_HEAD.match(v):  # "NaN", "latest", "unknown": not a version (build_packages notes it)
        return None, None
    m = re.match(r"^([0-9][0-9A-Za-z.+!_-]*?)(?:\s*=\s*|\s+)([A-Za-z0-9_.+-]+)$", v)
    if m and not m.group(2)[0].isdigit():
        return m.group(1), m.group(2)
    return (v or None), None


_SYSTEM = {"linux": ("Linux", "posix"), "win32": ("Windows", "nt"), "cygwin": ("CYGWIN_NT", "posix"),
           "darwin": ("Darwin", "posix")}


def _marker_env(python: PythonInfo, extra: str = "") -> Dict[str, str]:
    """The PEP 508 marker variables this Python's facts give; an unknown fact is left out (never a default), so
    that a marker needing it is skipped and said."""
    env: Dict[str, str] = {"extra": extra}
    if python.minor:
        env["python_version"] = python.minor
    if python.version:
        env["python_full_version"] = python.version
    if python.machine:
        env["platform_machine"] = python.machine
    plat = (python.platform or "").lower()
    if plat:
        env["sys_platform"] = plat
        system = _SYSTEM.get(plat) or next((v for k, v in _SYSTEM.items() if plat.startswith(k)), None)
        if system:
            env["platform_system"], env["os_name"] = system
    if python.implementation:
        env["platform_python_implementation"] = python.implementation
        env["implementation_name"] = python.implementation.lower()
    return env


def _requirement_pins(c: Caps, dist: str, lines: List[str], python: PythonInfo, extra: str = "") -> Dict[str, str]:
    """``{dist: specifier}`` of Requires-Dist lines whose markers hold on this platform (with ``extra``); the
    lines whose markers need an unknown fact are skipped, and a note says which."""
    from envcheck.parse.requirements import requirement_pins

    skipped: List[str] = []
    pins = requirement_pins(lines, _marker_env(python, extra), skipped)
    for line in skipped[:5]:
        c.note(f"{dist}: Requires-Dist {line}: the marker is not evaluated and the line is skipped (not-checked)")
    return pins


def _extra_pins(c: Caps, dist: str, lines: List[str], extra: str, python: PythonInfo) -> Dict[str, str]:
    """The pins that only the ``extra`` brings (e.g. TensorFlow's ``and-cuda``)."""
    base = _requirement_pins(c, dist, lines, python)
    with_extra = _requirement_pins(c, dist, lines, python, extra)
    return {k: v for k, v in with_extra.items() if k not in base}


def _pick(c: Caps, what: str, cands: List[Tuple[str, str]]) -> Tuple[Optional[str], Optional[str]]:
    """The first (value, source); a note for each later candidate that disagrees."""
    if not cands:
        return None, None
    value, source = cands[0]
    for v, src in cands[1:]:
        if v != value:
            c.note(f"{what}: {source} says {value} but {src} says {v}; using {source}.")
    return value, source


def _major(v: Optional[str]) -> Optional[int]:
    head = (v or "").split(".")[0]
    return int(head) if head.isdigit() else None


def _installed_runtime(packages: Dict[str, str]) -> Optional[Tuple[str, str]]:
    """(CUDA major.minor, "installed nvidia-cuda-runtime-cu12 12.4.127") when exactly one runtime wheel is installed."""
    found = [(n, v) for n, v in sorted(packages.items()) if re.match(r"^nvidia-cuda-runtime(-cu\d{2})?$", n)]
    if len(found) != 1:
        return None
    name, ver = found[0]
    cuda = cuda_major_minor(ver.split("+")[0])
    return (cuda, f"installed {name} {ver}") if cuda else None


def _rocm_mm(hip: Optional[str]) -> Optional[str]:
    """torch.version.hip / a ``+rocm6.2.4`` label -> the ROCm major.minor (``"6.2"``)."""
    m = re.match(r"^\s*(\d+)\.(\d+)", hip or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def _mps_facts(tj: Dict[str, Any], version: Optional[str], python: PythonInfo) -> Optional[Dict[str, Any]]:
    """``{"built", "available"}``: from ``--deep`` (torch.backends.mps) where captured; on macOS without it,
    every torch >= 1.12 wheel for macOS is built with MPS (``built`` True, ``available`` unknown)."""
    raw = tj.get("mps")
    if isinstance(raw, dict):
        b, a = raw.get("built"), raw.get("available")
        return {"built": b if isinstance(b, bool) else None, "available": a if isinstance(a, bool) else None}
    if (python.platform or "").startswith("darwin") and version:
        m = re.match(r"^(\d+)\.(\d+)", version)
        if m and (int(m.group(1)), int(m.group(2))) >= (1, 12):
            return {"built": True, "available": None}
    return None


def _torch(c: Caps, packages: Dict[str, str], req: Dict[str, Any], libraries: List[LibCopy], matrix: MatrixFacts,
           python: PythonInfo) -> Optional[Framework]:
    tj_raw = load_json_object(c.text("torch.json"))
    pk_ver, pk_build = split_conda_version(packages.get("torch"))
    if tj_raw is None and pk_ver is None and packages.get("torch") is None:
        return None
    tj = tj_raw or {}
    tj_ver = s(tj.get("version"))
    version = tj_ver or pk_ver
    # PyPI's default-index wheels carry no local label in their METADATA (2.11.0) while torch.__version__ says
    # 2.11.0+cu130: the same build, nothing to note
    if tj_ver and pk_ver and tj_ver != pk_ver and not ("+" not in pk_ver and tj_ver.split("+")[0] == pk_ver):
        c.note(f"torch: torch.json says version {tj_ver} but packages.json says {pk_ver}; using torch.json.")
    hip = s(tj.get("hip"))
    lines = parse_requires(req.get("torch"))
    pins = _requirement_pins(c, "torch", lines, python) if lines else {}
    label: Optional[LocalLabel] = cuda_from_local_label(version) or cuda_from_local_label(pk_ver)
    build = s(tj.get("conda_build")) or pk_build
    conda = cuda_from_conda_build(build)
    arch: Optional[Tuple[str, ...]] = None
    asrc: Optional[str] = None
    if isinstance(tj.get("arch_list"), list) and tj["arch_list"]:
        arch = tuple(str(a) for a in tj["arch_list"] if isinstance(a, (str, int)))[:64] or None
        asrc = "torch.cuda.get_arch_list()" if arch else None

    cands = _torch_cuda_candidates(tj, label, pk_ver if pk_ver != version else None, conda, build, pins)
    if not cands and tj_raw is None and not lines and not (label is not None and label.kind in ("cpu", "rocm", "xpu")):
        inst = _installed_runtime(packages)
        if inst:
            cands.append(inst)
    # torch.json saying ``cuda: null`` for a known version is authoritative: not a CUDA build
    says_no_cuda = tj_raw is not None and tj_ver is not None and "cuda" in tj and tj.get("cuda") is None
    if says_no_cuda and cands:
        c.note(f"torch: torch.json says torch.version.cuda is None but {cands[0][1]} says CUDA {cands[0][0]}; "
               "using torch.json (not a CUDA build).")
        cands = []
    cuda, csrc = _pick(c, "torch's CUDA", cands)

    if label is not None and label.kind == "rocm" and not hip:
        hip = label.label[4:] or None
    cpu_only = _torch_cpu_only(cuda, says_no_cuda, hip, label, arch, version)
    if cpu_only is None and not cuda and version and _conda_cpu_build(build):
        cpu_only = True  # the conda build string names a CPU build (pytorch channel "py3.7_cpu_0", conda-forge "cpu_py311h...")
    # contract §9: a ROCm, XPU or MPS build is never cpu_only
    xpu_v = s(tj.get("xpu"))
    is_xpu = bool(xpu_v) or (label is not None and label.kind == "xpu") or None
    mps = _mps_facts(tj, version, python)
    if hip or is_xpu or (mps and mps.get("built")):
        cpu_only = False

    variant = None
    if label is not None and label.kind:
        variant = label.label.split(".")[0]
    elif cuda:
        variant = "cu" + cuda.replace(".", "")
    elif cpu_only and not hip:
        variant = "cpu"
    mrow = matrix.torch_variant(version, variant) if version and variant else None

    cudnn, cudnn_src = _torch_cudnn(tj, conda, build, pins, libraries, mrow if cuda else None, bool(cuda))
    if arch is None and mrow and cuda:
        arch = _matrix_arch(mrow, python)
        asrc = f"envcheck matrix (torch {(version or '').split('+')[0]} {variant})" if arch else None
    runtime: Dict[str, Any] = {k: tj[k] for k in ("cuda_available", "device_count", "cuda_error", "cudnn_error", "deep_error")
               if k in tj}
    cmaj = _major(cuda) if cuda else (label.cuda_major if label is not None else None)
    return Framework(
        name="torch", version=version, distribution="torch", cuda=cuda, cuda_source=csrc, cuda_major=cmaj,
        cudnn=cudnn, cudnn_source=cudnn_src, cpu_only=cpu_only, rocm=_rocm_mm(hip), hip=hip, xpu=is_xpu, mps=mps,
        arch_list=arch, arch_source=asrc,
        requires=tuple(f"{n}{sp}" for n, sp in sorted(pins.items())), runtime=runtime,
        evidence=s(tj.get("source")) or ("torch.json" if tj_raw is not None else "packages.json"),
        build_info={"variant": variant})


def _torch_cuda_candidates(tj: Dict[str, Any], label: Optional[LocalLabel], pk_ver: Optional[str],
                           conda: Optional[Tuple[str, Optional[str]]], build: Optional[str],
                           pins: Dict[str, str]) -> List[Tuple[str, str]]:
    """(CUDA version, where it was read) for torch, most direct first. ``pk_ver``: packages.json's version where
    it differs from the one used."""
    cands: List[Tuple[str, str]] = []
    tj_cuda = cuda_major_minor(tj.get("cuda"))
    if tj_cuda:
        cands.append((tj_cuda, "torch.json"))
    if label is not None and label.cuda:
        cands.append((label.cuda, f"local version label +{label.label}"))
    pk_label = cuda_from_local_label(pk_ver) if pk_ver else None
    if pk_label is not None and pk_label.cuda:
        cands.append((pk_label.cuda, f"packages.json's local version label +{pk_label.label}"))
    if conda:
        cands.append((conda[0], f"conda build string {build}"))
    pin = cuda_from_nvidia_pins(pins)
    if pin:
        cands.append((pin[0], f"{pin[1]} pin"))
    return cands


_CONDA_CPU = re.compile(r"^(?:py\d\.\d{1,2}_)?cpu(?:_|$)")


def _conda_cpu_build(build: Optional[str]) -> bool:
    """A conda build string of a CPU-only build: the pytorch channel's ``py3.7_cpu_0``, conda-forge's
    ``cpu_py311h...``, ``cpu_generic_py310h...`` (a ``cuda...`` build never starts so)."""
    return bool(build) and len(build or "") <= 200 and _CONDA_CPU.match(str(build).lower()) is not None


def _torch_cpu_only(cuda: Optional[str], says_no_cuda: bool, hip: Optional[str], label: Optional[LocalLabel],
                    arch: Optional[Tuple[str, ...]], version: Optional[str]) -> Optional[bool]:
    """Whether torch is a CPU-only build by CUDA / HIP facts alone (None: not known)."""
    if cuda:
        cpu_only: Optional[bool] = False
    elif says_no_cuda:
        cpu_only = hip is None
    elif label is not None and label.kind == "cpu":
        cpu_only = True
    elif label is not None and label.kind == "rocm":
        cpu_only = False
    elif arch:
        cpu_only = False  # an arch list means a GPU build even where its CUDA version is not known
    else:
        cpu_only = None
    if version is None:
        cpu_only = cpu_only if cuda or arch else None
    return cpu_only


def _torch_cudnn(tj: Dict[str, Any], conda: Optional[Tuple[str, Optional[str]]], build: Optional[str],
                 pins: Dict[str, str], libraries: List[LibCopy], mrow: Optional[Dict[str, Any]],
                 cuda: bool) -> Tuple[Optional[str], Optional[str]]:
    """(cuDNN version, where it was read) of torch: its own answer, its conda build or pins, then (a CUDA build)
    the copy in torch/lib, then the matrix row ``mrow``."""
    cudnn_c: List[Tuple[str, str]] = []
    tj_cudnn = cudnn_from_int(tj.get("cudnn"))
    if tj_cudnn:
        cudnn_c.append((tj_cudnn, "torch.backends.cudnn.version()"))
    if conda and conda[1]:
        cudnn_c.append((conda[1], f"conda build string {build}"))
    cpin = cudnn_from_nvidia_pins(pins)
    if cpin:
        cudnn_c.append((cpin[0], f"Requires-Dist {cpin[1]}"))
    if cudnn_c:
        return cudnn_c[0]
    if cuda:
        bundled = [x for x in libraries if x.family == "cudnn" and x.source == "torch" and x.version
                   and x.version_source != "soname"]
        if bundled:
            return bundled[0].version, "torch/lib"
        if mrow and mrow.get("cudnn"):
            return str(mrow["cudnn"]), "envcheck matrix"
    return None, None


def _matrix_arch(mrow: Dict[str, Any], python: PythonInfo) -> Optional[Tuple[str, ...]]:
    """The arch list of a torch build from its matrix row (the aarch64 list on an aarch64 Python)."""
    key = "compute_capabilities"
    if python.machine in ("aarch64", "arm64") and mrow.get("compute_capabilities_aarch64"):
        key = "compute_capabilities_aarch64"
    ccs = mrow.get(key)
    if not ccs:
        return None
    return tuple(f"sm_{x.replace('.', '')}" for x in ccs) + tuple(
        f"compute_{x.replace('.', '')}" for x in (mrow.get("ptx") or []))


def _tensorflow(c: Caps, packages: Dict[str, str], req: Dict[str, Any], matrix: MatrixFacts,
                python: PythonInfo) -> Optional[Framework]:
    tfj_raw = load_json_object(c.text("tensorflow.json"))
    tf_dist = next((n for n in _TF_DISTS if n in packages), None)
    if tfj_raw is None and tf_dist is None:
        return None
    tfj = tfj_raw or {}
    pk_ver, pk_build = split_conda_version(packages.get(tf_dist or ""))
    version = s(tfj.get("version")) or pk_ver
    dist = s(tfj.get("distribution")) or tf_dist
    is_cuda = tfj.get("is_cuda_build")
    lines = parse_requires(req.get(dist or "tensorflow"))
    and_cuda = _extra_pins(c, dist or "tensorflow", lines, "and-cuda", python) if lines else {}
    build = s(tfj.get("conda_build")) or pk_build
    conda = cuda_from_conda_build(build)

    cands: List[Tuple[str, str]] = []
    bi_cuda = cuda_major_minor(tfj.get("cuda_version")) if tfj.get("cuda_version") else None
    if bi_cuda:
        cands.append((bi_cuda, "build_info"))
    pin = cuda_from_nvidia_pins(and_cuda)
    if pin:
        cands.append((pin[0], f"tensorflow[and-cuda] pin {pin[1]}"))
    if conda:
        cands.append((conda[0], f"conda build string {build}"))
    cpu_only = None
    no_windows_gpu = _no_windows_gpu_build(matrix, version, python)
    if is_cuda is False or dist == "tensorflow-cpu" or (no_windows_gpu and is_cuda is not True):
        cpu_only = True
    elif is_cuda is True or dist == "tensorflow-gpu":
        cpu_only = False
    if cpu_only is True:
        cands = []
    cuda, csrc = _pick(c, "TensorFlow's CUDA", cands)
    if cuda and cpu_only is None:
        cpu_only = False

    cudnn_c: List[Tuple[str, str]] = []
    bi_cudnn = cudnn_short(tfj.get("cudnn_version")) if tfj.get("cudnn_version") else None
    if bi_cudnn:
        cudnn_c.append((bi_cudnn, "build_info"))
    cpin = cudnn_from_nvidia_pins(and_cuda)
    if cpin:
        cudnn_c.append((cpin[0], f"tensorflow[and-cuda] pin {cpin[1]}"))
    if conda and conda[1]:
        cudnn_c.append((conda[1], f"conda build string {build}"))
    tcudnn, cudnn_src = (cudnn_c[0] if cudnn_c and cpu_only is not True else (None, None))
    mrow = matrix.tf_release(version) if version else None
    if tcudnn and cudnn_src == "build_info" and mrow and mrow.get("cudnn") \
            and str(mrow["cudnn"]).split(".")[0] == tcudnn.split(".")[0] \
            and len(tcudnn.split(".")) < len(str(mrow["cudnn"]).split(".")):
        tcudnn, cudnn_src = str(mrow["cudnn"]), "build_info + envcheck matrix (tested build configuration)"
    caps = tfj.get("cuda_compute_capabilities")
    arch = tuple(str(x) for x in caps) if isinstance(caps, list) and caps else None
    if arch and cpu_only is None:
        cpu_only = False
    return Framework(
        name="tensorflow", version=version, distribution=dist, cuda=cuda if cpu_only is not True else None,
        cuda_source=csrc if cpu_only is not True else None, cuda_major=_major(cuda) if cpu_only is not True else None,
        cudnn=tcudnn, cudnn_source=cudnn_src, cpu_only=cpu_only, arch_list=arch,
        arch_source="build_info" if arch else None,
        requires=tuple(f"{n}{sp}" for n, sp in sorted(and_cuda.items())),
        build_info={k: v for k, v in tfj.items() if k not in ("source",)},
        evidence=s(tfj.get("source")) or ("tensorflow.json" if tfj_raw is not None else "packages.json")
        + (f"; {no_windows_gpu}" if no_windows_gpu and is_cuda is None else ""),
        runtime={k: tfj[k] for k in ("gpus_visible", "gpu_error", "deep_error") if k in tfj})


def _no_windows_gpu_build(matrix: MatrixFacts, version: Optional[str], python: PythonInfo) -> Optional[str]:
    """Why TensorFlow ``version`` is a CPU-only build here, when it runs on native Windows (``sys.platform``
    'win32'; WSL2 reports linux) and the matrix row of its series says it has no native-Windows GPU build
    (``windows_gpu = false``, 2.11 and later); None otherwise (a series the matrix does not know: unknown)."""
    if not version or not (python.platform or "").lower().startswith("win"):
        return None
    row = matrix.tf_release(version)
    if not row or row.get("windows_gpu") is not False:
        return None
    return (f"envcheck matrix: TensorFlow {row.get('version')} has no native-Windows GPU build "
            "(windows_gpu = false: its GPU builds run in WSL2)")


def _jax(c: Caps, packages: Dict[str, str], req: Dict[str, Any]) -> Optional[Framework]:
    if "jax" not in packages and "jaxlib" not in packages:
        return None
    plugin = next((n for n in sorted(packages) if re.match(r"^jax-cuda\d+-(plugin|pjrt)$", n)), None)
    pm = re.match(r"^jax-cuda(\d+)", plugin) if plugin else None
    jaxlib_ver, jaxlib_build = split_conda_version(packages.get("jaxlib"))
    label = cuda_from_local_label(jaxlib_ver)
    conda = cuda_from_conda_build(jaxlib_build)
    cands: List[Tuple[str, str]] = []
    if label is not None and label.cuda:
        cands.append((label.cuda, f"local version label +{label.label} (jaxlib)"))
    if conda:
        cands.append((conda[0], f"conda build string {jaxlib_build} (jaxlib)"))
    cuda, csrc = _pick(c, "jaxlib's CUDA", cands)
    major: Optional[int] = _major(cuda) if cuda else None
    if major is None and pm:
        major, csrc = int(pm.group(1)), f"distribution name {plugin}"
    elif major is None and label is not None and label.cuda_major:
        major, csrc = label.cuda_major, f"local version label +{label.label} (jaxlib)"
    if pm and major is not None and int(pm.group(1)) != major:
        c.note(f"jax: {plugin} is for CUDA {pm.group(1)} but jaxlib {jaxlib_ver} is built for CUDA {major}.")
    cudnn = label.cudnn if label is not None else None
    if cudnn is None and conda and conda[1]:
        cudnn = conda[1]
    gpu_build = major is not None
    if gpu_build:
        cpu_only: Optional[bool] = False
    elif jaxlib_ver is not None or "jax" in packages:
        cpu_only = True  # a jaxlib without a CUDA plugin or a +cuda label runs on the CPU only
    else:
        cpu_only = None
    return Framework(name="jax", version=split_conda_version(packages.get("jax"))[0], distribution="jax",
                     cuda=cuda, cuda_source=csrc, cuda_major=major, cudnn=cudnn,
                     cudnn_source=f"local version label +{label.label} (jaxlib)" if label is not None and label.cudnn
                     else (f"conda build string {jaxlib_build}" if cudnn else None),
                     cpu_only=cpu_only,
                     build_info={"jaxlib": packages.get("jaxlib"), "cuda_plugin": plugin,
                                 "plugin_version": packages.get(plugin) if plugin else None, "cuda_major": major},
                     requires=tuple(parse_requires(req.get(plugin))) if plugin else (), evidence="packages.json")


def _cupy(packages: Dict[str, str]) -> Optional[Framework]:
    dist = next((n for n in sorted(packages) if n.startswith("cupy") and re.match(r"^cupy(-cuda\d+x?|-rocm.*)?$", n)),
                None)
    if not dist:
        return None
    got = cupy_dist_cuda(dist)  # cupy-cuda117: CUDA 11.7; cupy-cuda12x: any CUDA 12
    major, cuda = got if got else (None, None)
    rocm = dist[len("cupy-rocm-"):].replace("-", ".") if dist.startswith("cupy-rocm-") else None
    info: Dict[str, Any] = {"cuda_major": major}
    # pip's NVRTC of the same major (nvidia-cuda-nvrtc-cu12 12.8.93; CUDA 13's is nvidia-cuda-nvrtc): the compiler
    # CuPy may load at run time (engine/cupy.py reads it as one candidate, never as the one loaded)
    nvrtc = packages.get(f"nvidia-cuda-nvrtc-cu{major}") or packages.get("nvidia-cuda-nvrtc") if major else None
    mm = re.match(r"^(\d+)\.(\d+)", nvrtc or "")
    if mm and int(mm.group(1)) == major:
        info["nvrtc"] = f"{mm.group(1)}.{mm.group(2)}"
    return Framework(name="cupy", version=split_conda_version(packages.get(dist))[0], distribution=dist, cuda=cuda,
                     cuda_source=f"distribution name {dist}" if got else None, cuda_major=major,
                     cpu_only=False if (got or rocm) else None, rocm=rocm,
                     build_info=info, evidence="packages.json")


#: a conda onnxruntime's build string naming its CUDA ("gpu_cuda124py312h05d824c_0", "py312h5bbf1a5_0_cuda")
_CONDA_ORT_CUDA = re.compile(r"cuda(\d{2})(\d)")


def _ort_cuda(row: Dict[str, Any]) -> Tuple[Optional[str], Optional[int]]:
    """(major.minor, major) of an onnxruntime.toml row's CUDA: "11.8" -> ("11.8", 11); "12" (the table's 12.x) ->
    (None, 12): only the major is stated."""
    cuda, major = str(row.get("cuda") or ""), row.get("cuda_major")
    return (cuda if "." in cuda else None), (major if isinstance(major, int) else None)


def _onnxruntime(c: Caps, packages: Dict[str, str], matrix: MatrixFacts) -> Optional[Framework]:
    """ONNX Runtime from its distributions' metadata (never imported): ``onnxruntime`` is the CPU build,
    ``onnxruntime-gpu`` the CUDA one; the CUDA / cuDNN a GPU release needs come from onnxruntime.toml, per feed (the
    installed version does not say which feed it came from: where the feeds differ, both are kept, the fact unknown).
    Both distributions installed is kept in ``build_info["packages"]`` (they share the ``onnxruntime`` module folder)."""
    gpu_v, gpu_b = split_conda_version(packages.get("onnxruntime-gpu"))
    cpu_v, cpu_b = split_conda_version(packages.get("onnxruntime"))
    if not gpu_v and not cpu_v:
        return None
    both = {k: v for k, v in (("onnxruntime", cpu_v), ("onnxruntime-gpu", gpu_v)) if v}
    info: Dict[str, Any] = {"packages": both}
    if not gpu_v:
        if cpu_b and "cuda" in cpu_b:  # conda's onnxruntime has CUDA builds under the same name
            cm = _CONDA_ORT_CUDA.search(cpu_b)
            return Framework(name="onnxruntime", version=cpu_v, distribution="onnxruntime",
                             cuda=f"{cm.group(1)}.{cm.group(2)}" if cm else None,
                             cuda_source=f"conda build string {cpu_b}" if cm else None, cpu_only=False,
                             build_info=info, evidence="packages.json")
        return Framework(name="onnxruntime", version=cpu_v, distribution="onnxruntime", cpu_only=True,
                         build_info=info, evidence="packages.json")
    rows = matrix.onnxruntime_releases(gpu_v or "")
    info["feeds"] = [{"feed": r.get("feed"), "cuda": r.get("cuda"), "cuda_major": r.get("cuda_major"),
                      "cudnn_major": r.get("cudnn_major"), "source": r.get("source")} for r in rows]
    cuda, major, cudnn, src = None, None, None, None
    if rows and len({(str(r.get("cuda")), r.get("cudnn_major")) for r in rows}) == 1:
        cuda, major = _ort_cuda(rows[0])
        cudnn = str(rows[0].get("cudnn_major"))
        src = f"onnxruntime.toml ({rows[0].get('feed')} feed): {rows[0].get('source')}"
    elif len(rows) > 1:
        c.note(f"onnxruntime-gpu {gpu_v}: its CUDA / cuDNN depend on the package feed it came from, which the installed "
               "version does not say (" + "; ".join(f"{r.get('feed')}: CUDA {r.get('cuda')}, cuDNN "
                                                     f"{r.get('cudnn_major')}" for r in rows) + ")")
    return Framework(name="onnxruntime", version=gpu_v, distribution="onnxruntime-gpu", cuda=cuda, cuda_source=src,
                     cuda_major=major if cuda is None else None, cudnn=cudnn, cudnn_source=src, cpu_only=False,
                     build_info=info, evidence="packages.json")


def build_frameworks(c: Caps, packages: Dict[str, str], libraries: List[LibCopy], matrix: MatrixFacts,
                     python: PythonInfo) -> Dict[str, Framework]:
    req = load_json_object(c.text("requires.json")) or {}
    req = {re.sub(r"[-_.]+", "-", str(k)).lower(): v for k, v in req.items()}
    out: Dict[str, Framework] = {}
    for fw in (_torch(c, packages, req, libraries, matrix, python), _tensorflow(c, packages, req, matrix, python),
               _jax(c, packages, req), _cupy(packages), _onnxruntime(c, packages, matrix)):
        if fw is not None:
            out[fw.name] = fw
    return out
