"""Build the :class:`~envcheck.model.Environment` from a :class:`~envcheck.snapshot.Source`.

This is where captures meet parsers. A capture that is missing, failed or unreadable becomes a
fact ("not found") or a :class:`~envcheck.model.ProbeProblem`; nothing here raises on bad input.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Dict, List, Optional, Tuple

from envcheck.matrix import Matrix
from envcheck.model import (DriverVersion, Driver, Environment, Framework, Gpu, Host, LibCopy, ProbeProblem,
                            PythonInfo, Toolkit, cc_tuple, cuda_tuple)
from envcheck.parse.captures import is_wsl, load_json_object, parse_os_release, parse_requires
from envcheck.parse.cuda_version import parse_version_json, parse_version_txt
from envcheck.parse.cudnn_header import parse_cudnn_header
from envcheck.parse.ldconfig import is_native, parse_ldconfig
from envcheck.parse.libraries import LibFile, parse_libraries_txt, parse_library_path
from envcheck.parse.nvcc import parse_nvcc
from envcheck.parse.nvidia_smi import LIB_MISMATCH, classify_error, parse_query_csv, parse_table
from envcheck.parse.proc_driver import parse_proc_driver_version, parse_sys_module_version
from envcheck.proc import FAILED, NOT_FOUND, TIMED_OUT, UNREADABLE, Capture
from envcheck.snapshot import KEYS, Source

__all__ = ["collect", "build_environment", "parse_visible_devices"]

#: pip distribution stem that ships each library family
_PIP_STEM = {
    "cudnn": "nvidia-cudnn", "cudart": "nvidia-cuda-runtime", "cublas": "nvidia-cublas",
    "nvrtc": "nvidia-cuda-nvrtc", "cufft": "nvidia-cufft", "curand": "nvidia-curand",
    "cusparse": "nvidia-cusparse", "cusolver": "nvidia-cusolver", "nccl": "nvidia-nccl",
    "nvjitlink": "nvidia-nvjitlink", "cupti": "nvidia-cuda-cupti",
}


def collect(source: Source, matrix: Matrix) -> Environment:
    """Read every capture of ``source`` and build the environment."""
    return build_environment(source.all(), matrix, description=source.description)


def _cuda_int(v: Any) -> Optional[str]:
    """12040 -> "12.4" (the CUDA_VERSION integer encoding: 1000*major + 10*minor)."""
    if isinstance(v, int) and not isinstance(v, bool) and 1000 <= v < 100000:
        return f"{v // 1000}.{(v % 1000) // 10}"
    return None


def _cudnn_int(v: Any) -> Optional[str]:
    """torch.backends.cudnn.version(): 8902 -> "8.9.2" (cuDNN < 9), 90100 -> "9.1.0" (cuDNN >= 9)."""
    if isinstance(v, int) and not isinstance(v, bool) and v > 0:
        if v >= 10000:
            return f"{v // 10000}.{(v % 10000) // 100}.{v % 100}"
        return f"{v // 1000}.{(v % 1000) // 100}.{v % 100}"
    if isinstance(v, str) and re.match(r"^\d+(\.\d+){0,3}$", v):
        return v
    return None


def parse_visible_devices(value: Optional[str]) -> Optional[List[str]]:
    """``CUDA_VISIBLE_DEVICES`` -> the listed entries (``[]``: none visible), ``None`` when unset.

    CUDA stops at the first invalid entry, and "-1" hides every device."""
    if value is None:
        return None
    out: List[str] = []
    for part in value.split(","):
        p = part.strip()
        if not p:
            if out:
                break
            continue
        if re.match(r"^-?\d+$", p):
            if int(p) < 0:
                break
            out.append(str(int(p)))
        elif re.match(r"^(GPU|MIG)-[0-9A-Za-z/-]+$", p):
            out.append(p)
        else:
            break
    return out


def _short3(v: Optional[str]) -> Optional[str]:
    if not v:
        return None
    parts = v.split("+")[0].split(".")
    return ".".join(parts[:3])


def _problem_for(key: str, cap: Capture) -> Optional[ProbeProblem]:
    if cap.status in (TIMED_OUT, UNREADABLE):
        return ProbeProblem(key, cap.status, cap.detail)
    if cap.status == FAILED and key not in ("nvidia-smi.txt", "nvidia-smi-query.csv"):
        return ProbeProblem(key, cap.status, cap.detail)
    return None


def build_environment(caps: Dict[str, Capture], matrix: Matrix, description: str = "live") -> Environment:
    def cap(key: str) -> Capture:
        return caps.get(key) or Capture(NOT_FOUND, detail=f"{key}: not captured")

    def text(key: str) -> Optional[str]:
        c = cap(key)
        return c.text if c.has_text else None

    problems: List[ProbeProblem] = []
    for k in KEYS:
        p = _problem_for(k, cap(k))
        if p:
            problems.append(p)
    notes: List[str] = []

    # -- host / python ---------------------------------------------------------------------------
    meta = load_json_object(text("meta.json")) or {}
    env_raw = load_json_object(text("environ.json")) or {}
    env = {str(k): str(v) for k, v in env_raw.items() if isinstance(v, (str, int, float))}
    osr = parse_os_release(text("os-release.txt"))
    wsl = is_wsl(text("proc-version.txt"))
    cont = load_json_object(text("container.json")) or {}
    container = None
    cgroup = str(cont.get("cgroup", ""))
    if "kubepods" in cgroup or env.get("KUBERNETES_SERVICE_HOST"):
        container = "kubernetes"
    elif cont.get("dockerenv") or "docker" in cgroup:
        container = "docker"
    elif cont.get("containerenv"):
        container = "podman"
    dev = cont.get("dev_nvidia")
    host = Host(hostname=meta.get("hostname") if isinstance(meta.get("hostname"), str) else None,
                os_name=osr.get("PRETTY_NAME"), wsl=wsl, container=container, env=env,
                dev_nvidia=tuple(x for x in dev if isinstance(x, str)) if isinstance(dev, list) else ())
    pj = load_json_object(text("python.json")) or {}

    def s(v: Any) -> Optional[str]:
        return v if isinstance(v, str) else None

    python = PythonInfo(version=s(pj.get("version")), implementation=s(pj.get("implementation")),
                        platform=s(pj.get("platform")), machine=s(pj.get("machine")), glibc=s(pj.get("glibc")),
                        executable=s(pj.get("executable")))
    pk = load_json_object(text("packages.json")) or {}
    packages = {str(k).lower(): str(v) for k, v in pk.items() if isinstance(v, str)}

    # -- driver --------------------------------------------------------------------------------
    sys_ver = parse_sys_module_version(text("sys-module-nvidia-version.txt"))
    proc = parse_proc_driver_version(text("proc-driver-version.txt"))
    nvml = load_json_object(text("nvml.json")) or {}
    libcuda = load_json_object(text("libcuda.json")) or {}
    smi_cap = cap("nvidia-smi.txt")
    smi = parse_table(text("nvidia-smi.txt"))
    query = parse_query_csv(text("nvidia-smi-query.csv"))

    kernel = DriverVersion.parse(sys_ver) or (DriverVersion.parse(proc.version) if proc else None)
    nvml_ver = DriverVersion.parse(s(nvml.get("driver_version")))
    smi_ver = DriverVersion.parse(smi.driver_version)
    query_ver = next((DriverVersion.parse(g.driver_version) for g in query.gpus if g.driver_version), None)
    version, vsource = None, None
    for v, src in ((kernel, "/sys/module/nvidia/version" if sys_ver else "/proc/driver/nvidia/version"),
                   (nvml_ver, "NVML"), (smi_ver, "nvidia-smi"), (query_ver, "nvidia-smi --query-gpu")):
        if v is not None:
            version, vsource = v, src
            break
    if wsl and (nvml_ver or smi_ver):  # WSL2: no kernel module; the Windows driver is what counts
        version, vsource = (nvml_ver, "NVML") if nvml_ver else (smi_ver, "nvidia-smi")

    cuda, csource = None, None
    if _cuda_int(nvml.get("cuda_driver_version")):
        cuda, csource = _cuda_int(nvml.get("cuda_driver_version")), "NVML"
    elif smi.cuda_version:
        cuda, csource = smi.cuda_version, "nvidia-smi"
    libcuda_cuda = _cuda_int(libcuda.get("driver_cuda"))
    libcuda_path = s(libcuda.get("path"))
    if cuda is None and libcuda_cuda and not (libcuda_path and "compat" in libcuda_path):
        cuda, csource = libcuda_cuda, "libcuda"
    if cuda is None and version is not None:
        derived, how = matrix.driver_highest_cuda(version, windows=bool(wsl))
        if derived:
            cuda, csource = derived, f"envcheck matrix ({how})"

    # errors: nvidia-smi's text, NVML's error string
    error, error_text, error_origin = None, None, None
    if smi.error:
        error, error_text, error_origin = smi.error, smi.error_line, "nvidia-smi"
    nvml_err = s(nvml.get("error"))
    if nvml_err and nvml.get("code") != "not-found":
        kind, _ = classify_error(nvml_err)
        kind = kind or "other"
        if error is None or (kind == LIB_MISMATCH and error != LIB_MISMATCH):
            error, error_text, error_origin = kind, f"NVML: {nvml_err}", "NVML"

    # the user-space NVML library's own version, from its real file name (libnvidia-ml.so.535.104.05)
    lib_paths = parse_libraries_txt(text("libraries.txt"))
    ld_entries = [e for e in parse_ldconfig(text("ldconfig.txt")) if is_native(e, python.machine)]
    nvml_file = None
    nvml_file_ver = None
    for p in lib_paths:
        lf = parse_library_path(p)
        if lf and lf.family == "nvidia-ml" and lf.version and "/compat" not in p:
            nvml_file, nvml_file_ver = p, DriverVersion.parse(lf.version)
            break

    override = None
    uv_over = env.get("UV_CUDA_DRIVER_VERSION")
    conda_over = env.get("CONDA_OVERRIDE_CUDA")
    if uv_over is not None and DriverVersion.parse(uv_over):
        version, vsource, override = DriverVersion.parse(uv_over), "UV_CUDA_DRIVER_VERSION", "UV_CUDA_DRIVER_VERSION"
        derived, how = matrix.driver_highest_cuda(version)
        cuda, csource = derived, f"envcheck matrix ({how})" if derived else None
        notes.append(f"Driver facts taken from UV_CUDA_DRIVER_VERSION={uv_over} (planning override), "
                     "not from this machine.")
    elif uv_over is not None:
        notes.append(f"UV_CUDA_DRIVER_VERSION={uv_over!r} is not a driver version; ignored.")
    if conda_over is not None:
        if conda_over.strip() == "":
            cuda, csource, override = None, "CONDA_OVERRIDE_CUDA", "CONDA_OVERRIDE_CUDA"
            notes.append("CONDA_OVERRIDE_CUDA is set to the empty string: planning for a machine without CUDA.")
        elif cuda_tuple(conda_over):
            t = cuda_tuple(conda_over)
            cuda, csource = f"{t[0]}.{t[1]}", "CONDA_OVERRIDE_CUDA"
            override = (override + "+CONDA_OVERRIDE_CUDA") if override else "CONDA_OVERRIDE_CUDA"
            notes.append(f"The driver's CUDA is taken from CONDA_OVERRIDE_CUDA={conda_over} (planning override), "
                         "not from this machine.")
        else:
            notes.append(f"CONDA_OVERRIDE_CUDA={conda_over!r} is not a CUDA version; ignored.")

    caps_env = env.get("NVIDIA_DRIVER_CAPABILITIES")
    if caps_env is not None and smi_cap.status == NOT_FOUND:
        capset = {c.strip() for c in caps_env.split(",")}
        if not capset & {"utility", "all"}:
            notes.append(f"NVIDIA_DRIVER_CAPABILITIES={caps_env!r} lacks 'utility', so the container runtime did not "
                         "mount nvidia-smi / NVML; add 'utility' (or use 'all') to see the driver and GPUs.")
    driver = Driver(version=version, cuda=cuda, cuda_source=csource,
                    kernel_module=proc.kernel_module if proc else None, kernel_version=kernel,
                    nvml_version=nvml_ver or nvml_file_ver, nvml_library_file=nvml_file,
                    libcuda_cuda=libcuda_cuda, libcuda_path=libcuda_path, libcuda_file=s(libcuda.get("file")),
                    source=vsource, override=override, error=error, error_text=error_text,
                    error_origin=error_origin)

    # -- GPUs --------------------------------------------------------------------------------------
    gpus_by_index: Dict[int, Dict[str, Any]] = {}
    nv_gpus = nvml.get("gpus") if isinstance(nvml.get("gpus"), list) else []
    for g in nv_gpus:
        if isinstance(g, dict) and isinstance(g.get("index"), int):
            d = gpus_by_index.setdefault(g["index"], {})
            d.setdefault("name", s(g.get("name")))
            cc = cc_tuple(g.get("compute_capability"))
            if cc:
                d.setdefault("cc", (f"{cc[0]}.{cc[1]}", "NVML"))
            if isinstance(g.get("memory_total_mib"), int):
                d.setdefault("mem", g["memory_total_mib"])
            d.setdefault("uuid", s(g.get("uuid")))
            if isinstance(g.get("mig"), bool):
                d.setdefault("mig", g["mig"])
    for i, g in enumerate(query.gpus):
        idx = g.index if g.index is not None else i
        d = gpus_by_index.setdefault(idx, {})
        if not d.get("name") and g.name:
            d["name"] = g.name
        if "cc" not in d and g.compute_capability:
            d["cc"] = (g.compute_capability, "nvidia-smi")
        if d.get("mem") is None and g.memory_total_mib is not None:
            d["mem"] = g.memory_total_mib
    for g in smi.gpus:
        d = gpus_by_index.setdefault(g.index, {})
        if not d.get("name"):
            d["name"] = g.name
        if d.get("mem") is None and g.memory_total_mib is not None:
            d["mem"] = g.memory_total_mib
        if d.get("mig") is None and g.mig_enabled is not None:
            d["mig"] = g.mig_enabled

    visible = parse_visible_devices(env.get("CUDA_VISIBLE_DEVICES"))
    gpus: List[Gpu] = []
    for idx in sorted(gpus_by_index):
        d = gpus_by_index[idx]
        row = matrix.gpu(d.get("name")) if d.get("name") else None
        cc, cc_src = d.get("cc", (None, None))
        if cc is None and row is not None:
            cc, cc_src = row.get("compute_capability"), "envcheck GPU table"
        vis = True
        if visible is not None:
            vis = str(idx) in visible or (d.get("uuid") is not None and any(
                d["uuid"].startswith(v) or v.startswith(d["uuid"]) for v in visible if not v.isdigit()))
        gpus.append(Gpu(index=idx, name=d.get("name"), compute_capability=cc, cc_source=cc_src,
                        memory_mib=d.get("mem"), uuid=d.get("uuid"), mig=d.get("mig"), visible=vis,
                        segment=row.get("segment") if row else None))

    # -- toolkit -------------------------------------------------------------------------------------
    nv = parse_nvcc(text("nvcc.txt"))
    full = parse_version_json(text("cuda-version.json")) or parse_version_txt(text("cuda-version.txt"))
    tk_version = nv.release if nv else None
    tk_source = "nvcc --version" if nv else None
    if tk_version is None and full:
        t = cuda_tuple(full)
        tk_version, tk_source = f"{t[0]}.{t[1]}" if t else None, "version.json/version.txt"
    nvcc_origin = cap("nvcc.txt").origin if cap("nvcc.txt").has_text else ""
    root = env.get("CUDA_HOME") or env.get("CUDA_PATH") or None
    if root is None and nvcc_origin.endswith(" --version") and "/" in nvcc_origin:
        cand = posixpath.dirname(posixpath.dirname(nvcc_origin[: -len(" --version")]))
        root = cand if cand not in ("/", "/usr", "/usr/local", "/opt") else None
    toolkit = Toolkit(version=tk_version, nvcc=nv.version if nv else None, full_version=full, root=root,
                      source=tk_source)

    # -- libraries -------------------------------------------------------------------------------------
    libraries = _library_copies(ld_entries, lib_paths, env, packages, text("cudnn_version.h"),
                                cap("cudnn_version.h").origin)

    # -- frameworks ------------------------------------------------------------------------------------
    req = load_json_object(text("requires.json")) or {}
    frameworks = _frameworks(text, packages, req, libraries, matrix, python)

    return Environment(source=description, host=host, python=python, driver=driver, gpus=tuple(gpus),
                       toolkit=toolkit, libraries=tuple(libraries), frameworks=frameworks, packages=packages,
                       visible_devices=env.get("CUDA_VISIBLE_DEVICES"),
                       nvidia_visible_devices=env.get("NVIDIA_VISIBLE_DEVICES"), problems=tuple(problems),
                       notes=tuple(notes))


def _location(directory: str, ld_dirs: set, ld_path: List[str], conda: Optional[str]) -> str:
    d = directory.rstrip("/")
    if re.search(r"/(site|dist)-packages/nvidia/[^/]+/lib$", d):
        return "pip"
    if re.search(r"/(site|dist)-packages/torch/lib$", d):
        return "torch"
    if re.search(r"/(site|dist)-packages/", d):
        return "pip"
    if conda and (d == conda.rstrip("/") + "/lib" or d.startswith(conda.rstrip("/") + "/")):
        return "conda"
    if d.endswith("/compat") or "/compat/" in d:
        return "compat"
    if d in ld_dirs:
        return "ldconfig"
    if d in ld_path:
        return "LD_LIBRARY_PATH"
    if d.startswith("/usr/lib/wsl"):
        return "wsl"
    if re.match(r"^/usr/local/cuda[^/]*/", d + "/") or "/targets/" in d:
        return "toolkit"
    return "other"


def _owner(family: str, major: Optional[int], loc: str, packages: Dict[str, str],
           directory: str) -> Tuple[Optional[str], Optional[str]]:
    """(distribution, its version) that owns a pip-installed library copy."""
    if loc == "torch":
        return "torch", packages.get("torch")
    if loc != "pip":
        return None, None
    stem = _PIP_STEM.get(family)
    if not stem:
        return None, None
    cands = [(n, v) for n, v in packages.items() if n == stem or re.match(re.escape(stem) + r"-cu\d+$", n)]
    if family == "cudnn" and major is not None:
        cands = [(n, v) for n, v in cands if v.split(".")[0] == str(major)] or cands
    elif major is not None:
        exact = [(n, v) for n, v in cands if n.endswith(f"-cu{major}") or (n == stem and v.split(".")[0] == str(major))]
        cands = exact or cands
    if "/nvidia/cu13/" in directory + "/":
        cands = [(n, v) for n, v in cands if not re.search(r"-cu1[0-2]$", n)] or cands
    return cands[0] if cands else (None, None)


def _library_copies(ld_entries, lib_paths: List[str], env: Dict[str, str], packages: Dict[str, str],
                    header: Optional[str], header_origin: str) -> List[LibCopy]:
    ld_dirs = {posixpath.dirname(e.path) for e in ld_entries}
    ld_path = [d.rstrip("/") for d in env.get("LD_LIBRARY_PATH", "").split(":") if d.startswith("/")]
    conda = env.get("CONDA_PREFIX")
    files: List[LibFile] = []
    seen = set()
    for e in ld_entries:
        lf = parse_library_path(e.path) or parse_library_path(e.soname)
        if lf and e.path not in seen:
            seen.add(e.path)
            files.append(LibFile(path=e.path, family=lf.family, name=posixpath.basename(e.path),
                                 component=lf.component, suffix=parse_library_path(e.soname).suffix
                                 if parse_library_path(e.soname) else lf.suffix))
    for p in lib_paths:
        lf = parse_library_path(p)
        if lf and p not in seen:
            seen.add(p)
            files.append(lf)
    groups: Dict[Tuple[str, str, Optional[int]], List[LibFile]] = {}
    order: List[Tuple[str, str, Optional[int]]] = []
    for f in files:
        if f.family in ("cuda", "nvidia-ml"):
            key = (f.directory.rstrip("/"), f.family, None)
        else:
            if f.major is None:
                continue  # an unversioned development symlink (libcudnn.so): not what programs load
            key = (f.directory.rstrip("/"), f.family, f.major)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(f)
    header_ver = parse_cudnn_header(header)
    header_prefix = None
    if header_ver and header_origin and "/" in header_origin:
        header_prefix = posixpath.dirname(posixpath.dirname(header_origin.split(" ")[0]))
    copies: List[LibCopy] = []
    for key in order:
        directory, family, major = key
        fs = groups[key]
        loc = _location(directory, ld_dirs, ld_path, conda)
        main_name = {"cudnn": "libcudnn.so", "cudart": "libcudart.so", "cublas": "libcublas.so",
                     "cuda": "libcuda.so", "nvidia-ml": "libnvidia-ml.so"}.get(family)
        main = [f for f in fs if main_name and f.name.startswith(main_name + ".")] or fs
        soname = sorted(main, key=lambda f: len(f.suffix))[0]
        version, vsrc = None, None
        versioned = sorted((f for f in main if f.version), key=lambda f: f.suffix, reverse=True)
        if versioned:
            version, vsrc = versioned[0].version, "file name"
        owner, owner_ver = _owner(family, major, loc, packages, directory)
        if version is None and owner and owner != "torch" and owner_ver:
            version, vsrc = _short3(owner_ver), f"pip distribution {owner}"
        if version is None and family == "cudnn" and header_ver and header_prefix and major is not None \
                and header_ver.split(".")[0] == str(major) and (directory.startswith(header_prefix + "/")):
            version, vsrc = header_ver, "cudnn_version.h"
        on_path = directory in ld_dirs or directory in ld_path
        copies.append(LibCopy(family=family, major=major, version=version, version_source=vsrc, path=soname.path,
                              directory=directory, source=loc, owner=owner, on_search_path=on_path,
                              files=tuple(f.path for f in fs)))
    return copies


def _marker_env(python: PythonInfo, extra: str = "") -> Dict[str, str]:
    return {"python_version": python.minor or "3.11", "python_full_version": python.version or "3.11.0",
            "sys_platform": python.platform or "linux", "platform_system": "Linux",
            "platform_machine": python.machine or "x86_64", "implementation_name": "cpython",
            "platform_python_implementation": python.implementation or "CPython", "os_name": "posix", "extra": extra}


def _requirement_pins(lines: List[str], python: PythonInfo) -> Dict[str, str]:
    """``{dist: specifier}`` of Requires-Dist lines whose markers hold on this platform (no extras)."""
    from envcheck.parse.requirements import requirement_pins

    return requirement_pins(lines, _marker_env(python))


def _extra_pins(lines: List[str], extra: str, python: PythonInfo) -> Dict[str, str]:
    """The pins that only the ``extra`` brings (e.g. TensorFlow's ``and-cuda``)."""
    from envcheck.parse.requirements import requirement_pins

    base = requirement_pins(lines, _marker_env(python))
    with_extra = requirement_pins(lines, _marker_env(python, extra))
    return {k: v for k, v in with_extra.items() if k not in base}


def _pinned_version(spec: Optional[str]) -> Optional[str]:
    if spec and re.match(r"^==\s*[\d.]+$", spec.strip()):
        return spec.strip()[2:].strip()
    return None


def _frameworks(text, packages: Dict[str, str], req: Dict[str, Any], libraries: List[LibCopy], matrix: Matrix,
                python: PythonInfo) -> Dict[str, Framework]:
    out: Dict[str, Framework] = {}
    tj = load_json_object(text("torch.json"))
    if tj is not None or "torch" in packages:
        tj = tj or {}
        version = tj.get("version") if isinstance(tj.get("version"), str) else packages.get("torch")
        tcuda = tj.get("cuda") if isinstance(tj.get("cuda"), str) else None
        hip = tj.get("hip") if isinstance(tj.get("hip"), str) else None
        lines = parse_requires(req.get("torch"))
        pins = _requirement_pins(lines, python) if lines else {}
        cudnn, csrc = None, None
        runtime = {k: tj[k] for k in ("cuda_available", "device_count", "cuda_error", "cudnn_error", "deep_error")
                   if k in tj}
        if _cudnn_int(tj.get("cudnn")):
            cudnn, csrc = _cudnn_int(tj.get("cudnn")), "torch.backends.cudnn.version()"
        if cudnn is None:
            for name, spec in pins.items():
                if name.startswith("nvidia-cudnn-cu") and _pinned_version(spec):
                    cudnn, csrc = _short3(_pinned_version(spec)), f"Requires-Dist {name}{spec}"
        variant = None
        if version and "+" in version:
            variant = version.split("+", 1)[1]
        elif tcuda:
            t = cuda_tuple(tcuda)
            variant = f"cu{t[0]}{t[1]}" if t else None
        elif not hip and version:
            variant = "cpu"
        mrow = matrix.torch_variant(version, variant) if version and variant else None
        if cudnn is None and tcuda:
            bundled = [c for c in libraries if c.family == "cudnn" and c.source == "torch" and c.version]
            if bundled:
                cudnn, csrc = bundled[0].version, "torch/lib"
            elif mrow and mrow.get("cudnn"):
                cudnn, csrc = str(mrow["cudnn"]), "envcheck matrix"
        arch, asrc = None, None
        if isinstance(tj.get("arch_list"), list) and tj["arch_list"]:
            arch, asrc = tuple(str(a) for a in tj["arch_list"]), "torch.cuda.get_arch_list()"
        elif mrow and tcuda:
            key = "compute_capabilities"
            if python.machine in ("aarch64", "arm64") and mrow.get("compute_capabilities_aarch64"):
                key = "compute_capabilities_aarch64"
            ccs = mrow.get(key)
            if ccs:
                arch = tuple(f"sm_{c.replace('.', '')}" for c in ccs) + tuple(
                    f"compute_{c.replace('.', '')}" for c in (mrow.get("ptx") or []))
                asrc = f"envcheck matrix (torch {version.split('+')[0]} {variant})"
        out["torch"] = Framework(
            name="torch", version=version, distribution="torch", cuda=tcuda, cudnn=cudnn, cudnn_source=csrc,
            cpu_only=(tcuda is None and hip is None) if version else None, rocm=hip, arch_list=arch, arch_source=asrc,
            requires=tuple(f"{n}{s}" for n, s in sorted(pins.items())), runtime=runtime,
            evidence=tj.get("source") if isinstance(tj.get("source"), str) else "torch/version.py",
            build_info={"variant": variant})
    tfj = load_json_object(text("tensorflow.json"))
    tf_dist = next((n for n in ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-intel")
                    if n in packages), None)
    if tfj is not None or tf_dist:
        tfj = tfj or {}
        version = tfj.get("version") if isinstance(tfj.get("version"), str) else packages.get(tf_dist or "")
        dist = tfj.get("distribution") if isinstance(tfj.get("distribution"), str) else tf_dist
        is_cuda = tfj.get("is_cuda_build")
        tcuda = tfj.get("cuda_version") if isinstance(tfj.get("cuda_version"), str) and tfj.get("cuda_version") else None
        if tcuda and not cuda_tuple(tcuda):
            tcuda = None
        elif tcuda:
            t = cuda_tuple(tcuda)
            tcuda = f"{t[0]}.{t[1]}"
        tcudnn = tfj.get("cudnn_version") if isinstance(tfj.get("cudnn_version"), str) and tfj.get(
            "cudnn_version") else None
        csrc = "build_info" if tcudnn else None
        mrow = matrix.tf_release(version) if version else None
        if tcudnn and mrow and mrow.get("cudnn") and str(mrow["cudnn"]).split(".")[0] == tcudnn.split(".")[0] \
                and len(tcudnn.split(".")) < len(str(mrow["cudnn"]).split(".")):
            tcudnn, csrc = str(mrow["cudnn"]), "build_info + envcheck matrix (tested build configuration)"
        caps = tfj.get("cuda_compute_capabilities")
        arch = tuple(str(c) for c in caps) if isinstance(caps, list) and caps else None
        lines = parse_requires(req.get(dist or "tensorflow"))
        and_cuda = _extra_pins(lines, "and-cuda", python) if lines else {}
        cpu_only = None
        if is_cuda is False or dist == "tensorflow-cpu":
            cpu_only = True
        elif is_cuda is True:
            cpu_only = False
        out["tensorflow"] = Framework(
            name="tensorflow", version=version, distribution=dist, cuda=tcuda if cpu_only is not True else None,
            cudnn=tcudnn if cpu_only is not True else None, cudnn_source=csrc, cpu_only=cpu_only, arch_list=arch,
            arch_source="build_info" if arch else None,
            requires=tuple(f"{n}{s}" for n, s in sorted(and_cuda.items())),
            build_info={k: v for k, v in tfj.items() if k not in ("source",)},
            evidence=tfj.get("source") if isinstance(tfj.get("source"), str) else "build_info.py",
            runtime={k: tfj[k] for k in ("gpus_visible", "gpu_error", "deep_error") if k in tfj})
    if "jax" in packages or "jaxlib" in packages:
        plugin = next((n for n in sorted(packages) if re.match(r"^jax-cuda\d+-(plugin|pjrt)$", n)), None)
        major = re.match(r"^jax-cuda(\d+)", plugin).group(1) if plugin else None
        out["jax"] = Framework(name="jax", version=packages.get("jax"), distribution="jax",
                               cuda=None, cpu_only=plugin is None,
                               build_info={"jaxlib": packages.get("jaxlib"), "cuda_plugin": plugin,
                                           "plugin_version": packages.get(plugin) if plugin else None,
                                           "cuda_major": int(major) if major else None},
                               requires=tuple(parse_requires(req.get(plugin))) if plugin else ())
    cupy = next((n for n in sorted(packages) if re.match(r"^cupy(-cuda\d+x?|-rocm.*)?$", n)), None)
    if cupy:
        m = re.match(r"^cupy-cuda(\d+?)(\d|x)$", cupy)
        ccuda = None
        if m and m.group(2) != "x":
            ccuda = f"{m.group(1)}.{m.group(2)}"
        out["cupy"] = Framework(name="cupy", version=packages.get(cupy), distribution=cupy, cuda=ccuda,
                                build_info={"cuda_major": int(m.group(1)) if m else None})
    return out
