"""The resolver: wants + a machine (driver, GPUs, Python, platform) + the matrix -> a plan.

Pure: no I/O beyond the matrix. The CLI (``envcheck fix``) prints, :mod:`envcheck.plan_files`
writes files, :mod:`envcheck.plan.apply` builds venvs.

Rules (each one a reason a build is rejected, so that an unsatisfiable plan can say which
constraint failed and what lifts it):

* **driver** — the build's CUDA must run on the driver: fully (the driver's own CUDA >= the
  build's) or through minor-version compatibility (same major, driver >= that major's floor).
  Minor-version compatibility does not cover PTX JIT: a GPU that the build reaches only through
  PTX needs full support.
* **arch** — every GPU's compute capability must be compiled into the build (SASS of the same
  major and a lower or equal minor, or PTX at or below it). A build whose architecture list the
  matrix does not know is *unverified*: chosen only when no verified build exists, and said so.
* **python** — the release has wheels for the target Python.
* **platform** — the variant is published for the target platform (linux-x86_64, linux-aarch64,
  windows-x86_64); TensorFlow's native-Windows GPU builds stop at the release the matrix says.
* **spec** — the user's requirement (``torch==2.5.*``).

Several frameworks in one environment must share one CUDA major and one cuDNN: TensorFlow is then
installed without its ``and-cuda`` extra and loads the NVIDIA libraries torch's wheels bring
(exported through ``LD_LIBRARY_PATH``), which is sound when torch's CUDA and cuDNN are the same
major and at least as new as TensorFlow's build. When no pair exists the plan is unsatisfiable
and proposes two environments.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from envcheck.checks._util import PYTORCH_INDEX, arch_ok, driver_runs
from envcheck.errors import UsageError
from envcheck.matrix import Matrix
from envcheck.model import DriverVersion, Environment, cc_tuple, cuda_tuple

__all__ = ["Target", "Want", "Build", "Plan", "target_from_env", "parse_wants", "wants_from_env", "resolve",
           "PLAN_SCHEMA"]

PLAN_SCHEMA = "envcheck/plan/1"
TORCH_FAMILY = ("torch", "torchvision", "torchaudio")
# torch wheels for a CUDA X.Y variant pin these NVIDIA wheels at an X.Y.* version (cuda-runtime 12.4.127 for
# cu124, cublas 12.4.5.8, ...); the library folders are what TensorFlow needs when it shares them.
NVIDIA_LIB_DIRS = ("cublas", "cuda_cupti", "cuda_nvrtc", "cuda_runtime", "cudnn", "cufft", "curand", "cusolver",
                   "cusparse", "nccl", "nvjitlink")


# ----------------------------------------------------------------------------------------------
# inputs


@dataclass
class Target:
    """The machine a plan is for."""

    driver: Optional[DriverVersion] = None
    driver_cuda: Optional[str] = None
    ccs: Tuple[str, ...] = ()  # compute capabilities of the GPUs the plan must run on (unique, sorted)
    gpu_names: Tuple[str, ...] = ()
    unknown_gpus: Tuple[str, ...] = ()  # GPUs whose compute capability is not known
    python: Optional[str] = None  # "3.11"
    platform: str = "linux-x86_64"
    windows_driver: bool = False  # a Windows driver (native Windows or WSL2): Windows driver floors apply
    system_cudnn: Tuple[str, ...] = ()  # versions of cuDNN copies loadable from the system (not pip/conda)
    system_cudart: Tuple[str, ...] = ()  # CUDA runtime versions loadable from the system
    notes: Tuple[str, ...] = ()

    def to_dict(self) -> Dict[str, Any]:
        return {"driver": str(self.driver) if self.driver else None, "driver_cuda": self.driver_cuda,
                "compute_capabilities": list(self.ccs), "gpus": list(self.gpu_names), "python": self.python,
                "platform": self.platform}


@dataclass
class Want:
    name: str  # torch | torchvision | torchaudio | tensorflow | jax
    spec: Any  # packaging SpecifierSet
    text: str
    extras: Tuple[str, ...] = ()
    installed: Optional[str] = None  # the installed version this want came from (no --want)


def _platform(env: Environment) -> str:
    plat = (env.python.platform or "linux").lower()
    mach = (env.python.machine or "x86_64").lower()
    mach = {"amd64": "x86_64", "arm64": "aarch64"}.get(mach, mach)
    if plat.startswith("win"):
        return f"windows-{mach}"
    if plat.startswith("darwin") or plat.startswith("mac"):
        return f"macos-{mach}"
    return f"linux-{mach}"


def target_from_env(env: Environment, matrix: Matrix, *, python: Optional[str] = None,
                    driver: Optional[str] = None, ccs: Sequence[str] = (), gpus: Sequence[str] = (),
                    platform: Optional[str] = None) -> Target:
    """The target machine: what the Environment says, with command-line overrides."""
    notes: List[str] = []
    drv = env.driver.version
    drv_cuda = env.driver.cuda
    if driver:
        drv = DriverVersion.parse(driver)
        if drv is None:
            raise UsageError(f"not a driver version: {driver!r}")
        drv_cuda, _ = matrix.driver_highest_cuda(drv, windows=bool(env.host.wsl) or (platform or "").startswith("win"))
    cc_list: List[str] = []
    names: List[str] = []
    unknown: List[str] = []
    for c in ccs:
        t = cc_tuple(c)
        if t is None:
            raise UsageError(f"not a compute capability: {c!r} (expected X.Y, e.g. 8.6)")
        cc_list.append(f"{t[0]}.{t[1]}")
    for g in gpus:
        row = matrix.gpu(g)
        if row is None:
            raise UsageError(f"GPU {g!r} is not in the GPU table; give --cc X.Y instead")
        cc_list.append(row["compute_capability"])
        names.append(g)
    if not ccs and not gpus:
        seen = env.visible_gpus or list(env.gpus)
        if env.gpus and not env.visible_gpus:
            notes.append("no GPU is visible to this process (CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES); "
                         "the plan is made for every GPU the driver lists")
        for g in seen:
            cc = g.compute_capability
            if not cc and g.name:
                row = matrix.gpu(g.name)
                cc = row.get("compute_capability") if row else None
            if cc:
                cc_list.append(cc)
            else:
                unknown.append(g.name or f"GPU {g.index}")
            names.append(g.name or f"GPU {g.index}")
    py = python or env.python.minor
    if python:
        t = cuda_tuple(python)
        if t is None:
            raise UsageError(f"not a Python version: {python!r} (expected X.Y)")
        py = f"{t[0]}.{t[1]}"
    sys_cudnn = tuple(sorted({c.version for c in env.copies("cudnn")
                              if c.version and c.source in ("ldconfig", "LD_LIBRARY_PATH", "toolkit", "wsl")
                              and (c.on_search_path or c.source == "toolkit")}))
    sys_cudart = tuple(sorted({c.version for c in env.copies("cudart")
                               if c.version and c.source in ("ldconfig", "LD_LIBRARY_PATH", "toolkit")
                               and (c.on_search_path or c.source == "toolkit")}))
    plat = platform or _platform(env)
    return Target(driver=drv, driver_cuda=drv_cuda, ccs=tuple(sorted(set(cc_list), key=lambda c: cc_tuple(c) or (0, 0))),
                  gpu_names=tuple(names), unknown_gpus=tuple(unknown), python=py, platform=plat,
                  windows_driver=bool(env.host.wsl) or plat.startswith("windows"),
                  system_cudnn=sys_cudnn, system_cudart=sys_cudart, notes=tuple(notes))


def parse_wants(reqs: Iterable[str]) -> List[Want]:
    from packaging.requirements import InvalidRequirement, Requirement

    out: List[Want] = []
    for text in reqs:
        try:
            r = Requirement(text)
        except InvalidRequirement as exc:
            raise UsageError(f"--want {text!r} is not a PEP 508 requirement ({exc})") from exc
        name = r.name.lower().replace("_", "-")
        if name in ("pytorch",):
            name = "torch"
        if name in ("tensorflow-gpu", "tensorflow-cpu", "tf-nightly"):
            raise UsageError(f"--want {r.name}: ask for 'tensorflow' (the plan picks the GPU flavour); "
                             "tensorflow-gpu ended with 2.11 and tensorflow-cpu has no GPU support")
        if name in ("jaxlib", "jax-cuda12-plugin", "jax-cuda13-plugin"):
            raise UsageError(f"--want {r.name}: ask for 'jax' (the plan picks jaxlib and the CUDA plugin)")
        if name not in TORCH_FAMILY + ("tensorflow", "jax"):
            raise UsageError(f"--want {r.name}: envcheck plans torch, torchvision, torchaudio, tensorflow and jax")
        if r.marker is not None or r.url:
            raise UsageError(f"--want {text!r}: markers and URLs are not supported here")
        if any(w.name == name for w in out):
            raise UsageError(f"--want {name} given twice")
        out.append(Want(name=name, spec=r.specifier, text=text, extras=tuple(sorted(r.extras))))
    return out


def wants_from_env(env: Environment) -> List[Want]:
    """Without --want: the frameworks installed now, at their installed versions when they can work."""
    from packaging.specifiers import SpecifierSet

    out: List[Want] = []
    for name in ("torch", "torchvision", "torchaudio", "tensorflow", "jax"):
        v = env.packages.get(name)
        if name == "tensorflow" and not v:
            v = env.packages.get("tensorflow-gpu") or env.packages.get("tensorflow-cpu")
        if not v:
            continue
        out.append(Want(name=name, spec=SpecifierSet(), text=name, installed=v.split("+", 1)[0]))
    return out


# ----------------------------------------------------------------------------------------------
# builds


@dataclass
class Build:
    framework: str  # torch | tensorflow | jax
    version: str
    variant: Optional[str]  # cu124 | cpu | and-cuda | system | shared | cuda12 ...
    cuda: Optional[str] = None
    cudnn: Optional[str] = None
    python: Tuple[str, ...] = ()
    platforms: Tuple[str, ...] = ()
    arch: Tuple[str, ...] = ()  # sm_XY / compute_XY; empty: unknown (or not needed for CPU)
    index_url: Optional[str] = None  # None: PyPI
    find_links: Optional[str] = None  # a pip --find-links page (old PyTorch releases), with a local-version pin
    pypi_default: bool = False
    companions: Dict[str, str] = field(default_factory=dict)  # torchvision/torchaudio versions
    extras: Tuple[str, ...] = ()
    pins: Dict[str, str] = field(default_factory=dict)  # pip pins of NVIDIA wheels (name -> specifier)
    source: Optional[str] = None
    caps: Dict[str, str] = field(default_factory=dict)  # extra exact pins the machine needs (name -> version)

    @property
    def label(self) -> str:
        return f"{self.framework} {self.version}" + (f" ({self.variant})" if self.variant else "")

    @property
    def gpu(self) -> bool:
        return bool(self.cuda)


def _vkey(v: str) -> Tuple:
    from packaging.version import InvalidVersion, Version

    try:
        return (Version(v),)
    except InvalidVersion:
        return (Version("0"),)


def _arch(caps: Iterable[str], ptx: Iterable[str]) -> Tuple[str, ...]:
    return tuple([f"sm_{str(c).replace('.', '')}" for c in caps] + [f"compute_{str(c).replace('.', '')}" for c in ptx])


def torch_builds(matrix: Matrix, target: Target) -> List[Build]:
    out: List[Build] = []
    for rel in matrix.rows("torch", "release"):
        v = rel.get("version")
        if not isinstance(v, str):
            continue
        comp = {k: rel[k] for k in ("torchvision", "torchaudio") if isinstance(rel.get(k), str)}
        for var in matrix.torch_variants(v):
            name = var.get("variant")
            if not isinstance(name, str) or name.startswith("rocm") or name == "cpu":
                continue  # CPU builds are only ever the explicit fallback (cpu_build)
            plat = target.platform
            caps = var.get("compute_capabilities")
            if plat.startswith("windows") and var.get("compute_capabilities_windows"):
                caps = var.get("compute_capabilities_windows")
            elif plat == "linux-aarch64" and var.get("compute_capabilities_aarch64"):
                caps = var.get("compute_capabilities_aarch64")
            elif plat != "linux-x86_64" and not var.get(f"compute_capabilities_{plat.split('-')[0]}"):
                # the main list is the Linux x86_64 build's; other platforms' lists differ at times
                caps = None if (var.get("platforms") and plat not in var.get("platforms")) else caps
                if plat.startswith("windows") or plat == "linux-aarch64":
                    caps = None
            default = rel.get("pypi_default_variant") == name and plat == "linux-x86_64"
            links = var.get("find_links") if not default and not var.get("index_url") else None
            url = None if default or links else (var.get("index_url") or PYTORCH_INDEX + name)
            cuda = var.get("cuda") if name.startswith("cu") else None
            pin = var.get("cudnn_pin")
            pins: Dict[str, str] = {}
            if isinstance(pin, str) and "==" in pin:
                pn, pv = pin.split("==", 1)
                pins[pn.strip()] = "==" + pv.strip()
            out.append(Build(
                framework="torch", version=v, variant=name, cuda=cuda, cudnn=var.get("cudnn"),
                python=tuple(var.get("python") or rel.get("python") or ()),
                platforms=tuple(var.get("platforms") or ()),
                arch=_arch(caps or (), var.get("ptx") or ()) if cuda and caps else (),
                index_url=url, find_links=links, pypi_default=default, companions=comp, pins=pins,
                source=var.get("source") or rel.get("source")))
    return out


def tensorflow_builds(matrix: Matrix, target: Target) -> List[Build]:
    out: List[Build] = []
    for rel in matrix.rows("tensorflow", "release"):
        patches = rel.get("patches") or ([rel["version"]] if isinstance(rel.get("version"), str) else [])
        caps = rel.get("compute_capabilities") or []
        arch = _arch(caps, rel.get("ptx") or ())
        pkg = rel.get("package") or "tensorflow"
        windows = target.platform.startswith("windows")
        cuda = rel.get("windows_cuda") if windows and rel.get("windows_cuda") else rel.get("cuda")
        cudnn = rel.get("windows_cudnn") if windows and rel.get("windows_cudnn") else rel.get("cudnn")
        for v in patches:
            if not isinstance(v, str):
                continue
            common = dict(framework="tensorflow", version=v, cuda=cuda, cudnn=cudnn,
                          python=tuple(rel.get("python") or ()), arch=arch, source=rel.get("source"))
            if windows:
                if rel.get("windows_gpu"):
                    out.append(Build(variant="system", platforms=("windows-x86_64",), **common))
                continue
            plats = ("linux-x86_64",)
            if isinstance(rel.get("and_cuda"), dict) and rel["and_cuda"]:
                out.append(Build(variant="and-cuda", platforms=plats, extras=("and-cuda",),
                                 pins={k: str(s) for k, s in rel["and_cuda"].items()}, **common))
            b = Build(variant="system", platforms=plats, **common)
            if pkg != "tensorflow":
                b.companions = {"package": pkg}
            out.append(b)
    return out


def jax_builds(matrix: Matrix, target: Target) -> List[Build]:
    out: List[Build] = []
    for rel in matrix.rows("jax", "release"):
        v = rel.get("jax")
        plugins = rel.get("cuda_plugins") or []
        if not isinstance(v, str) or not plugins:
            continue
        for plugin in plugins:
            if not isinstance(plugin, str):
                continue
            major = plugin.replace("jax-cuda", "").replace("-plugin", "")
            if not major.isdigit():
                continue
            extra = f"cuda{major}"
            cuda_min = rel.get("cuda_min") if str(rel.get("cuda", "")).startswith(major) else None
            pins = {}
            if rel.get("cudnn_min") and cuda_min:
                pins[f"nvidia-cudnn-cu{major}"] = ">=" + str(rel["cudnn_min"])
            out.append(Build(framework="jax", version=v, variant=extra, cuda=cuda_min or f"{major}.0",
                             cudnn=rel.get("cudnn_min"), python=tuple(rel.get("python") or ()),
                             platforms=("linux-x86_64", "linux-aarch64"), extras=(extra,), pins=pins,
                             companions={"jaxlib": str(rel.get("jaxlib") or v)}, source=rel.get("source")))
    return out


def cpu_build(matrix: Matrix, framework: str, version: str, target: Target) -> Optional[Build]:
    """The CPU build of a release (the explicit fallback; never chosen silently)."""
    if framework == "torch":
        rel = matrix.torch_release(version) or {}
        var = matrix.torch_variant(version, "cpu")
        default_cpu = target.platform in ("windows-x86_64", "macos-arm64", "macos-x86_64", "linux-aarch64")
        url = None if default_cpu else ((var or {}).get("index_url") or PYTORCH_INDEX + "cpu")
        comp = {k: rel[k] for k in ("torchvision", "torchaudio") if isinstance(rel.get(k), str)}
        return Build(framework="torch", version=version, variant="cpu", python=tuple(rel.get("python") or ()),
                     platforms=tuple((var or {}).get("platforms") or ()), index_url=url, companions=comp,
                     source=(var or rel).get("source"))
    if framework == "tensorflow":
        rel = matrix.tf_release(version) or {}
        return Build(framework="tensorflow", version=version, variant="cpu", python=tuple(rel.get("python") or ()),
                     source=rel.get("source"))
    if framework == "jax":
        return Build(framework="jax", version=version, variant="cpu", source=None)
    return None


# ----------------------------------------------------------------------------------------------
# evaluation


@dataclass
class Verdict:
    build: Build
    failed: Dict[str, str] = field(default_factory=dict)  # constraint -> why
    unverified: List[str] = field(default_factory=list)
    lines: List[str] = field(default_factory=list)  # one line per constraint, for the report
    required_driver: Optional[DriverVersion] = None
    full_support: bool = False

    @property
    def ok(self) -> bool:
        return not self.failed


def _driver_need(matrix: Matrix, b: Build, target: Target, ptx_needed: bool) -> Optional[DriverVersion]:
    t = cuda_tuple(b.cuda)
    if t is None:
        return None
    win = target.windows_driver
    floor = matrix.minor_compat_floor(t[0], windows=win)
    full = matrix.toolkit_min_driver(b.cuda, windows=win) if "." in str(b.cuda) else None
    if ptx_needed or floor is None:
        return full or floor
    return floor


def evaluate(matrix: Matrix, b: Build, target: Target, cuda_libs_ok: bool = True) -> Verdict:
    v = Verdict(build=b)
    # platform
    if b.platforms and target.platform not in b.platforms:
        v.failed["platform"] = f"{b.label} is not published for {target.platform} (only {', '.join(b.platforms)})"
    elif not b.platforms and target.platform != "linux-x86_64" and b.gpu:
        v.unverified.append(f"platform {target.platform} not confirmed by the matrix")
    if b.gpu and target.platform.startswith("macos"):
        v.failed["platform"] = "macOS has no CUDA: NVIDIA GPU builds do not run there"
    # python
    if target.python:
        if b.python and target.python not in b.python:
            v.failed["python"] = (f"{b.label} has wheels for Python {', '.join(b.python)}, not {target.python}")
        elif not b.python:
            v.unverified.append(f"Python {target.python} support not in the matrix")
    # arch
    ptx_needed = False
    if b.gpu:
        for cc in target.ccs:
            if not b.arch:
                targets = matrix.toolkit_targets(b.cuda) if b.cuda else None
                if targets and arch_ok(_arch(targets, ()), cc) is False and \
                        cc_tuple(cc) < min(cc_tuple(t) or (99, 0) for t in targets):
                    # older than anything the build's CUDA toolkit can compile for: no build of it has this GPU
                    v.failed["arch"] = (f"{b.label} is built with CUDA {b.cuda}, which cannot compile for compute "
                                        f"capability {cc} (its oldest target is {min(targets, key=cc_tuple)})")
                    continue
                v.unverified.append(f"compute capability {cc}: the matrix has no architecture list for {b.label}")
                continue
            sass = [a for a in b.arch if not a.startswith("compute_")]
            ok = arch_ok(b.arch, cc)
            if ok is False:
                v.failed["arch"] = (f"{b.label} is compiled for {' '.join(b.arch)}; "
                                    f"not for compute capability {cc} (sm_{cc.replace('.', '')})")
            elif ok and not arch_ok(sass, cc):
                ptx_needed = True
        if target.unknown_gpus:
            v.unverified.append(f"compute capability unknown for {', '.join(target.unknown_gpus)}")
    # cuDNN's own oldest GPU (cuDNN 9.11+ has no kernels below Turing)
    if b.gpu and target.ccs:
        _cudnn_gpu_floor(matrix, b, target, v)
    # driver
    if b.gpu:
        need = _driver_need(matrix, b, target, ptx_needed)
        v.required_driver = need
        if target.driver is None and target.driver_cuda is None:
            v.failed["driver"] = "no NVIDIA driver found" + (f"; this build needs >= {need}" if need else "")
        else:
            ok, how = driver_runs(matrix, target.driver_cuda, target.driver, b.cuda, windows=target.windows_driver)
            have = cuda_tuple(target.driver_cuda)
            want = cuda_tuple(b.cuda)
            v.full_support = bool(have and want and have >= want)
            if ok is False:
                v.failed["driver"] = (f"{b.label} is built with CUDA {b.cuda}: {how}"
                                      + (f"; needs driver >= {need}" if need else ""))
            elif ok is None:
                v.unverified.append("the driver's CUDA support is unknown")
            elif ptx_needed and not v.full_support:
                v.failed["driver"] = (f"{b.label} reaches compute capability {', '.join(target.ccs)} only through PTX, "
                                      f"and PTX JIT needs a driver with full CUDA {b.cuda} support"
                                      + (f" (>= {need})" if need else ""))
    if not cuda_libs_ok:
        v.failed["libraries"] = "the CUDA/cuDNN libraries this build loads are not on this machine"
    for k in ("platform", "python", "arch", "driver"):
        if k in v.failed:
            v.lines.append(f"{k}: NO - {v.failed[k]}")
    if not v.failed:
        v.lines.append("driver: " + ("not needed" if not b.gpu else
                                     ("full support" if v.full_support else "minor-version compatibility")
                                     + (f" (needs >= {v.required_driver})" if v.required_driver else "")))
        if b.gpu and target.ccs and b.arch:
            v.lines.append(f"gpu: compiled for {' '.join(b.arch)} - covers {', '.join(target.ccs)}")
        if target.python:
            v.lines.append(f"python {target.python}: ok")
    for u in v.unverified:
        v.lines.append(f"unverified: {u}")
    return v


def _cudnn_threshold(matrix: Matrix, cc: str) -> Optional[str]:
    """The oldest cuDNN release the matrix says has no kernels for compute capability ``cc``."""
    t = cc_tuple(cc)
    best = None
    for r in matrix.rows("cudnn", "release"):
        floor = cc_tuple(r.get("min_compute_capability"))
        v = r.get("version")
        if t and floor and floor > t and isinstance(v, str) and (best is None or _vkey(v) < _vkey(best)):
            best = v
    return best


def _known_cudnn_wheels(matrix: Matrix) -> List[str]:
    """nvidia-cudnn-cuXX versions the matrix knows exist (the ones torch variants pin)."""
    out = {str(r.get("cudnn")) for r in matrix.rows("torch", "variant") if str(r.get("cudnn", "")).count(".") == 3}
    return sorted(out, key=_vkey)


def _cudnn_gpu_floor(matrix: Matrix, b: Build, target: Target, v: "Verdict") -> None:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    for cc in target.ccs:
        thr = _cudnn_threshold(matrix, cc)
        if thr is None:
            continue
        pin_name = next((n for n in b.pins if n.startswith("nvidia-cudnn-cu")), None)
        spec_text = b.pins.get(pin_name) if pin_name else None
        if spec_text and not spec_text.startswith("=="):
            try:
                spec = SpecifierSet(spec_text)
            except InvalidSpecifier:
                continue
            if not any(spec.contains(x, prereleases=True) for x in (thr, thr + ".0", "9.99")) and \
                    not spec.contains(thr, prereleases=True):
                continue
            ok = [w for w in _known_cudnn_wheels(matrix) if _vkey(w) < _vkey(thr) and spec.contains(w, prereleases=True)]
            if ok:
                b.caps[pin_name] = ok[-1]
                v.lines.append(f"cudnn: {pin_name} capped at {ok[-1]}: cuDNN >= {thr} has no kernels for "
                               f"compute capability {cc}")
            else:
                v.failed["arch"] = (f"{b.label} needs {pin_name}{spec_text}, and cuDNN >= {thr} has no kernels for "
                                    f"compute capability {cc}")
            continue
        if b.cudnn and _vkey(b.cudnn) >= _vkey(thr):
            v.failed["arch"] = (f"{b.label} uses cuDNN {b.cudnn}; cuDNN >= {thr} has no kernels for compute "
                                f"capability {cc}")


def _rank(v: Verdict) -> Tuple:
    """Preference within acceptable builds: verified first (an unverified build only when no verified
    one exists), then the newest release, full driver support, the strategy, then CUDA."""
    b = v.build
    c = cuda_tuple(b.cuda) or (0, 0)
    # under full support the newest CUDA; under minor-version compatibility the one closest to the driver
    cuda_pref = c if v.full_support else tuple(-x for x in c)
    strategy = {"system": 2, "and-cuda": 1, "shared": 2}.get(b.variant or "", 0)
    return (not v.unverified, _vkey(b.version), v.full_support, strategy, cuda_pref, b.pypi_default)


# ----------------------------------------------------------------------------------------------
# the plan


@dataclass
class Plan:
    satisfiable: bool
    reason: Optional[str]
    builds: List[Build] = field(default_factory=list)
    verdicts: List[Verdict] = field(default_factory=list)
    target: Optional[Target] = None
    notes: List[str] = field(default_factory=list)
    lifts: List[Dict[str, Any]] = field(default_factory=list)  # {"constraint", "action"}
    alternatives: List[Tuple[str, "Plan"]] = field(default_factory=list)
    split: List["Plan"] = field(default_factory=list)
    env: Dict[str, str] = field(default_factory=dict)
    upgrade_needed: Optional[bool] = None
    required_driver: Optional[DriverVersion] = None

    def packages(self) -> List[Dict[str, Any]]:
        out: List[Dict[str, Any]] = []
        for b in self.builds:
            variant = b.variant if b.variant not in ("system", "shared") else None
            name = b.companions.get("package", b.framework) if b.framework == "tensorflow" else b.framework
            out.append({"name": name, "version": b.version, "variant": variant, "index_url": b.index_url,
                        "find_links": b.find_links, "extras": list(b.extras), "cuda": b.cuda, "cudnn": b.cudnn})
            for comp in ("torchvision", "torchaudio"):
                if comp in b.companions and comp in self._companions_wanted:
                    out.append({"name": comp, "version": b.companions[comp], "variant": variant,
                                "index_url": b.index_url, "find_links": b.find_links, "extras": [], "cuda": b.cuda,
                                "cudnn": None})
            for cname, cver in b.caps.items():
                out.append({"name": cname, "version": cver, "variant": None, "index_url": b.index_url, "extras": [],
                            "cuda": None, "cudnn": None})
            if b.framework == "jax" and b.variant != "cpu":
                out.append({"name": "jaxlib", "version": b.companions.get("jaxlib", b.version), "variant": None,
                            "index_url": None, "extras": [], "cuda": None, "cudnn": None})
        return out

    _companions_wanted: Tuple[str, ...] = ()


def _spec_ok(want: Optional[Want], version: str) -> bool:
    if want is None:
        return True
    return want.spec.contains(version, prereleases=True)


def _candidates(matrix: Matrix, framework: str, target: Target, wants: Dict[str, Want]) -> List[Build]:
    if framework == "torch":
        builds = torch_builds(matrix, target)
        tv, ta, tw = wants.get("torchvision"), wants.get("torchaudio"), wants.get("torch")
        keep = []
        for b in builds:
            if not _spec_ok(tw, b.version):
                continue
            ok = True
            for comp, w in (("torchvision", tv), ("torchaudio", ta)):
                if w is None:
                    continue
                cv = b.companions.get(comp)
                if cv is None or not _spec_ok(w, cv):
                    ok = False
            if ok:
                keep.append(b)
        return keep
    if framework == "tensorflow":
        w = wants.get("tensorflow")
        out = [b for b in tensorflow_builds(matrix, target) if _spec_ok(w, b.version)]
        if w is not None and "and-cuda" in w.extras:
            out = [b for b in out if b.variant == "and-cuda"]
        return out
    if framework == "jax":
        w = wants.get("jax")
        out = [b for b in jax_builds(matrix, target) if _spec_ok(w, b.version)]
        if w is not None:
            cudas = [e for e in w.extras if e.startswith("cuda")]
            if cudas:
                out = [b for b in out if b.variant in cudas]
        return out
    return []


def _system_libs_ok(b: Build, target: Target) -> bool:
    """TensorFlow without pip CUDA: the system must have its cuDNN (same major, >= minor) and CUDA runtime."""
    need_dnn = cuda_tuple(b.cudnn)
    need_cuda = cuda_tuple(b.cuda)
    if need_dnn is None or need_cuda is None:
        return False
    dnn_ok = any((cuda_tuple(v) or (0, 0))[0] == need_dnn[0] and (cuda_tuple(v) or (0, 0)) >= need_dnn
                 for v in target.system_cudnn)
    rt_ok = any((cuda_tuple(v) or (0, 0))[0] == need_cuda[0] and (cuda_tuple(v) or (0, 0)) >= need_cuda
                for v in target.system_cudart)
    return dnn_ok and rt_ok


def _verdicts(matrix: Matrix, builds: List[Build], target: Target) -> List[Verdict]:
    out = []
    for b in builds:
        libs_ok = True
        if b.framework == "tensorflow" and b.variant == "system":
            libs_ok = _system_libs_ok(b, target)
        out.append(evaluate(matrix, b, target, cuda_libs_ok=libs_ok))
    _old_arch_rule(out, target)
    return out


def _below_oldest(arch: Sequence[str], cc: str) -> bool:
    """Whether ``cc`` is older than every architecture of a build (and no PTX reaches it)."""
    t = cc_tuple(cc)
    ts = [cc_tuple(a.split("_", 1)[-1].rstrip("af")) for a in arch]
    ts = [x for x in ts if x]
    return bool(t and ts and t < min(ts))


def _old_arch_rule(verdicts: List[Verdict], target: Target) -> None:
    """A release never brings back an architecture an earlier release of the framework dropped.

    So an unverified build (no arch list in the matrix) fails for a GPU that is older than every
    architecture of a verified build of the same framework and an equal or earlier release.
    """
    for cc in target.ccs:
        dropped_at = None
        for v in verdicts:
            b = v.build
            if b.arch and b.gpu and _below_oldest(b.arch, cc):
                k = _vkey(b.version)
                dropped_at = k if dropped_at is None or k < dropped_at else dropped_at
        if dropped_at is None:
            continue
        for v in verdicts:
            b = v.build
            if b.gpu and not b.arch and _vkey(b.version) >= dropped_at and "arch" not in v.failed:
                v.failed["arch"] = (f"{b.label}: compute capability {cc} was already dropped by an equal or "
                                    "earlier release of the same framework (architectures never come back)")
                v.unverified = [u for u in v.unverified if not u.startswith(f"compute capability {cc}")]
                v.lines.insert(0, f"arch: NO - {v.failed['arch']}")


def _best(verdicts: List[Verdict]) -> Optional[Verdict]:
    ok = [v for v in verdicts if v.ok]
    return max(ok, key=_rank) if ok else None


def _shared_ok(torch_b: Build, tf_b: Build) -> Optional[str]:
    """None when TensorFlow ``tf_b`` can run on the NVIDIA wheels that torch ``torch_b`` installs; else why not."""
    if not torch_b.cuda or not torch_b.pins:
        return f"{torch_b.label} does not install NVIDIA libraries from pip"
    tc, fc = cuda_tuple(torch_b.cuda), cuda_tuple(tf_b.cuda)
    if not tc or not fc:
        return "CUDA version unknown"
    if tc[0] != fc[0]:
        return f"CUDA {torch_b.cuda} (torch) and {tf_b.cuda} (tensorflow) are different majors"
    if tc < fc:
        return f"torch's CUDA {torch_b.cuda} libraries are older than tensorflow's CUDA {tf_b.cuda}"
    td, fd = cuda_tuple(torch_b.cudnn), cuda_tuple(tf_b.cudnn)
    if not td or not fd:
        return "cuDNN version unknown"
    if td[0] != fd[0] or td < fd:
        return (f"torch brings cuDNN {torch_b.cudnn}; tensorflow {tf_b.version} needs cuDNN {fd[0]}.x >= {tf_b.cudnn} "
                "(same major, equal or higher minor)")
    return None


def _shared_env(target: Target) -> Dict[str, str]:
    py = target.python or "3"
    base = f"${{VIRTUAL_ENV}}/lib/python{py}/site-packages/nvidia"
    dirs = ":".join(f"{base}/{d}/lib" for d in NVIDIA_LIB_DIRS)
    return {"LD_LIBRARY_PATH": dirs + "${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"}


def _group_frameworks(wants: List[Want]) -> List[str]:
    fws: List[str] = []
    for w in wants:
        fw = "torch" if w.name in TORCH_FAMILY else w.name
        if fw not in fws:
            fws.append(fw)
    return fws


def _finish(plan: Plan, target: Target, matrix: Matrix) -> Plan:
    needs = [v.required_driver for v in plan.verdicts if v.required_driver is not None]
    plan.required_driver = max(needs) if needs else None
    if plan.required_driver is None:
        plan.upgrade_needed = False if plan.satisfiable else None
    elif target.driver is None:
        plan.upgrade_needed = None
    else:
        plan.upgrade_needed = target.driver < plan.required_driver
    for v in plan.verdicts:
        for u in v.unverified:
            plan.notes.append(f"{v.build.label}: {u} - run `envcheck smoke` after installing")
    return plan


def _single(matrix: Matrix, fw: str, target: Target, wants: Dict[str, Want]) -> Tuple[Optional[Verdict], List[Verdict]]:
    vs = _verdicts(matrix, _candidates(matrix, fw, target, wants), target)
    return _best(vs), vs


def _failure_reason(c: str, best: Verdict, target: Target) -> str:
    b = best.build
    if c == "driver":
        if target.driver is None and target.driver_cuda is None:
            return "no NVIDIA driver was found on this machine"
        return f"the driver {target.driver or ''} (CUDA {target.driver_cuda or '?'}) is too old for {b.label}"
    if c == "python":
        return f"Python {target.python} has no wheels for {b.label} (it has {', '.join(b.python)})"
    if c == "libraries":
        return f"{b.label} needs CUDA {b.cuda} and cuDNN {b.cudnn} installed on the system, and they are not here"
    return best.failed[c]


def _lift(c: str, best: Verdict, target: Target) -> Dict[str, Any]:
    """What lifts constraint ``c`` for the build ``best``."""
    b = best.build
    if c == "driver":
        need = best.required_driver
        verb = "install an NVIDIA driver" if target.driver is None and target.driver_cuda is None \
            else "upgrade the NVIDIA driver to"
        return {"constraint": "driver", "action": f"{verb} >= {need}" if need else verb.replace(" to", ""),
                "min": str(need) if need else None}
    if c == "python":
        cur = cuda_tuple(target.python) or (3, 0)
        pick = min(b.python, key=lambda p: abs((cuda_tuple(p) or (0, 0))[1] - cur[1])) if b.python else None
        return {"constraint": "python", "action": f"use Python {pick}" if pick else "use another Python",
                "python": pick}
    if c == "arch":
        return {"constraint": "arch", "action": "choose a release still compiled for this GPU, or a newer GPU"}
    if c == "platform":
        return {"constraint": "platform", "action": "use Linux x86_64 (WSL2 on Windows)"}
    return {"constraint": "libraries", "action": f"install CUDA {b.cuda} and cuDNN {b.cudnn} system-wide, or choose "
                                                 "a newer release with pip CUDA wheels (and-cuda)"}


def _describe_failure(matrix: Matrix, fw: str, target: Target, wants: Dict[str, Want],
                      verdicts: List[Verdict]) -> Tuple[str, List[Dict[str, Any]], List[Tuple[str, Plan]]]:
    """Why nothing fits, what lifts it, and the alternative plans."""
    specs = ", ".join(w.text for w in wants.values() if (w.name in TORCH_FAMILY) == (fw == "torch")
                      and (fw == "torch" or w.name == fw)) or fw
    lifts: List[Dict[str, Any]] = []
    alts: List[Tuple[str, Plan]] = []
    if not verdicts:
        known = sorted({v for v in (r.get("version") or r.get("jax") for r in matrix.rows(
            "torch" if fw == "torch" else fw, "release")) if isinstance(v, str)}, key=_vkey)
        rng = f" (the matrix knows {known[0]} to {known[-1]})" if known else ""
        reason = f"no {fw} build in the matrix matches {specs}{rng}; `envcheck matrix update` may know newer releases"
        lifts.append({"constraint": "spec", "action": f"relax {specs}"})
        return reason, lifts, alts
    # the builds that fail exactly one constraint say what lifts it
    order = ("driver", "arch", "python", "platform", "libraries")
    reasons: List[str] = []
    no_driver = target.driver is None and target.driver_cuda is None
    companions = tuple(w for w in wants if w in ("torchvision", "torchaudio"))
    for c in order:
        only = [v for v in verdicts if set(v.failed) == {c}]
        if not only:
            continue
        best = max(only, key=_rank)
        reasons.append(_failure_reason(c, best, target))
        lifts.append(_lift(c, best, target))
        if c == "driver":
            p = Plan(True, None, [best.build], [best], target=target)
            p._companions_wanted = companions
            _finish(p, target, matrix)
            p.upgrade_needed = None if no_driver else True
            alts.append(("after a driver upgrade", p))
    if not reasons:
        # every build fails on several counts: describe the closest (fewest failures, newest)
        fewest = min(len(v.failed) for v in verdicts)
        best = max((v for v in verdicts if len(v.failed) == fewest), key=_rank)
        reasons.append("; ".join(best.failed.values()))
        lifts.extend(_lift(c, best, target) for c in order if c in best.failed)
    reason = f"no {fw} build matching {specs} runs here: " + "; ".join(dict.fromkeys(reasons))
    # with the current machine, any version
    if any(w.spec for k, w in wants.items() if (k in TORCH_FAMILY) == (fw == "torch")):
        free = {k: Want(k, _any_spec(), k, w.extras) for k, w in wants.items()}
        bv, _ = _single(matrix, fw, target, free)
        if bv is not None:
            p = Plan(True, None, [bv.build], [bv], target=target)
            p._companions_wanted = tuple(w for w in wants if w in ("torchvision", "torchaudio"))
            alts.append(("on this machine as it is, another version", _finish(p, target, matrix)))
    # the CPU build, explicitly
    newest = max(verdicts, key=lambda v: _vkey(v.build.version)).build
    cands = [v.build for v in verdicts if "python" not in v.failed and "platform" not in v.failed]
    base = max(cands, key=lambda b: _vkey(b.version)) if cands else newest
    cb = cpu_build(matrix, fw, base.version, target)
    if cb is not None:
        cv = evaluate(matrix, cb, target)
        if cv.ok:
            p = Plan(True, None, [cb], [cv], target=target)
            p._companions_wanted = tuple(w for w in wants if w in ("torchvision", "torchaudio"))
            alts.append(("CPU only (no GPU acceleration)", _finish(p, target, matrix)))
    return reason, lifts, alts


def _any_spec():
    from packaging.specifiers import SpecifierSet

    return SpecifierSet()


def resolve(matrix: Matrix, target: Target, wants: List[Want], cpu: bool = False) -> Plan:
    """The plan for ``wants`` on ``target``; ``cpu``: the CPU builds, asked for explicitly."""
    if not wants:
        raise UsageError("nothing to plan: no framework is installed here; name one with --want (e.g. --want torch)")
    wmap = {w.name: w for w in wants}
    companions = tuple(w.name for w in wants if w.name in ("torchvision", "torchaudio"))
    if cpu:
        return resolve_cpu(matrix, target, wmap, companions)
    notes = list(target.notes)
    # installed wants: keep the installed version when it can work, else say why and plan another
    pinned = {}
    for w in wants:
        if w.installed and not w.spec:
            from packaging.specifiers import SpecifierSet

            pinned[w.name] = Want(w.name, SpecifierSet(f"=={w.installed}"), f"{w.name}=={w.installed}", w.extras,
                                  w.installed)
    if pinned:
        first = resolve_wants(matrix, target, {**wmap, **pinned}, companions)
        if first.satisfiable:
            first.notes = notes + ["keeps the installed versions: " + ", ".join(p.text for p in pinned.values())] \
                + first.notes
            return first
        plan = resolve_wants(matrix, target, wmap, companions)
        plan.notes = notes + [f"the installed versions cannot work here: {first.reason}"] + plan.notes
        return plan
    plan = resolve_wants(matrix, target, wmap, companions)
    plan.notes = notes + plan.notes
    return plan


def resolve_cpu(matrix: Matrix, target: Target, wmap: Dict[str, Want], companions: Tuple[str, ...]) -> Plan:
    """CPU-only builds (``fix --cpu``): the newest release of each framework with wheels for this Python."""
    chosen: List[Verdict] = []
    for fw in _group_frameworks(list(wmap.values())):
        if fw == "torch":
            versions = [r.get("version") for r in matrix.rows("torch", "release")
                        if _spec_ok(wmap.get("torch"), str(r.get("version")))
                        and all(w is None or (isinstance(r.get(c), str) and _spec_ok(w, r[c]))
                                for c, w in (("torchvision", wmap.get("torchvision")),
                                             ("torchaudio", wmap.get("torchaudio"))))]
        elif fw == "tensorflow":
            versions = [v for r in matrix.rows("tensorflow", "release") for v in (r.get("patches") or [])
                        if _spec_ok(wmap.get("tensorflow"), str(v))]
        else:
            versions = [r.get("jax") for r in matrix.rows("jax", "release") if _spec_ok(wmap.get("jax"), str(r.get("jax")))]
        vs = [evaluate(matrix, b, target) for b in (cpu_build(matrix, fw, v, target) for v in versions
                                                   if isinstance(v, str)) if b is not None]
        ok = [v for v in vs if v.ok]
        if not ok:
            why = "; ".join(dict.fromkeys(f for v in vs for f in v.failed.values())) or "no release matches"
            plan = Plan(False, f"no CPU build of {fw} fits: {why}", target=target)
            plan._companions_wanted = companions
            return _finish(plan, target, matrix)
        chosen.append(max(ok, key=lambda v: _vkey(v.build.version)))
    plan = Plan(True, None, [v.build for v in chosen], chosen, target=target,
                notes=["CPU-only builds, as asked (--cpu): no GPU acceleration"])
    plan._companions_wanted = companions
    return _finish(plan, target, matrix)


def resolve_wants(matrix: Matrix, target: Target, wmap: Dict[str, Want], companions: Tuple[str, ...]) -> Plan:
    fws = _group_frameworks(list(wmap.values()))
    singles: Dict[str, Tuple[Optional[Verdict], List[Verdict]]] = {fw: _single(matrix, fw, target, wmap) for fw in fws}
    # one framework, or each alone first
    failed = [fw for fw in fws if singles[fw][0] is None]
    if failed:
        fw = failed[0]
        reason, lifts, alts = _describe_failure(matrix, fw, target, wmap, singles[fw][1])
        plan = Plan(False, reason, target=target, lifts=lifts, alternatives=alts)
        plan._companions_wanted = companions
        return _finish(plan, target, matrix)
    if len(fws) == 1:
        best = singles[fws[0]][0]
        assert best is not None
        plan = Plan(True, None, [best.build], [best], target=target)
        plan._companions_wanted = companions
        return _finish(plan, target, matrix)
    return _resolve_together(matrix, target, wmap, fws, singles, companions)


def _resolve_together(matrix: Matrix, target: Target, wmap: Dict[str, Want], fws: List[str],
                      singles: Dict[str, Tuple[Optional[Verdict], List[Verdict]]],
                      companions: Tuple[str, ...]) -> Plan:
    oks = {fw: sorted([v for v in singles[fw][1] if v.ok], key=_rank, reverse=True) for fw in fws}
    # TensorFlow next to torch: plain tensorflow on torch's NVIDIA wheels ("shared")
    tf_shared: List[Verdict] = []
    if "tensorflow" in fws and "torch" in fws:
        seen = set()
        for v in singles["tensorflow"][1]:
            b = v.build
            if b.variant not in ("system", "and-cuda") or b.version in seen:
                continue
            if set(v.failed) - {"libraries"}:
                continue
            seen.add(b.version)
            sb = Build(framework="tensorflow", version=b.version, variant="shared", cuda=b.cuda, cudnn=b.cudnn,
                       python=b.python, platforms=b.platforms, arch=b.arch, source=b.source,
                       companions=dict(b.companions))
            sv = evaluate(matrix, sb, target)
            if sv.ok:
                tf_shared.append(sv)
        tf_shared.sort(key=_rank, reverse=True)
    why_not: List[str] = []
    others = [fw for fw in fws if fw != "torch"]
    # torch candidates are in preference order: the first that pairs with every other framework wins
    for tv in oks.get("torch", []):
        chosen = [tv]
        env: Dict[str, str] = {}
        for fw in others:
            if fw == "tensorflow":
                pick = _first_pairing(tf_shared, lambda c: _shared_ok(tv.build, c.build), why_not)
                if pick is not None:
                    env = _shared_env(target)
            else:
                pick = _first_pairing(oks["jax"], lambda c: _jax_with_torch(tv.build, c.build), why_not)
            if pick is None:
                break
            chosen.append(pick)
        else:
            plan = Plan(True, None, [v.build for v in chosen], chosen, target=target, env=env)
            plan._companions_wanted = companions
            if env:
                plan.notes.append("tensorflow is installed without its and-cuda extra and uses the NVIDIA libraries "
                                  "of torch's wheels: source envcheck.env (LD_LIBRARY_PATH) before starting Python")
            return _finish(plan, target, matrix)
    if "torch" not in fws:
        why_not.append("tensorflow and jax in one environment are not planned by envcheck")
    # no shared environment: two
    parts = []
    for fw in fws:
        b = singles[fw][0]
        assert b is not None
        p = Plan(True, None, [b.build], [b], target=target)
        p._companions_wanted = companions if fw == "torch" else ()
        parts.append(_finish(p, target, matrix))
    labels = " and ".join(p.builds[0].label for p in parts)
    reason = ("no versions of " + " and ".join(fws) + " share one CUDA/cuDNN in one environment here"
              + (f" ({'; '.join(why_not)})" if why_not else "") + f"; use two environments: {labels}")
    plan = Plan(False, reason, target=target, split=parts,
                lifts=[{"constraint": "together", "action": "install each framework in its own venv"}])
    plan._companions_wanted = companions
    return _finish(plan, target, matrix)


def _first_pairing(cands: List[Verdict], why: Callable[[Verdict], Optional[str]],
                   why_not: List[str]) -> Optional[Verdict]:
    """The first candidate (in preference order) ``why`` finds nothing against; collects a few reasons."""
    for c in cands:
        w = why(c)
        if w is None:
            return c
        if len(why_not) < 3 and w not in why_not:
            why_not.append(w)
    return None


def _jax_with_torch(tb: Build, jb: Build) -> Optional[str]:
    tc, jc = cuda_tuple(tb.cuda), cuda_tuple(jb.cuda)
    if not tc or not jc or tc[0] != jc[0]:
        return f"CUDA majors differ ({tb.label}: {tb.cuda}, {jb.label}: {jb.cuda})"
    for name, spec in jb.pins.items():
        if name in tb.pins:
            from packaging.specifiers import SpecifierSet

            pv = tb.pins[name].lstrip("=")
            if not SpecifierSet(spec).contains(pv, prereleases=True):
                return f"{tb.label} pins {name}=={pv}; {jb.label} needs {name}{spec}"
        elif tb.cudnn and name.startswith("nvidia-cudnn"):
            from packaging.specifiers import SpecifierSet

            if not SpecifierSet(spec).contains(tb.cudnn, prereleases=True):
                return f"{tb.label} brings cuDNN {tb.cudnn}; {jb.label} needs {spec}"
    return None
