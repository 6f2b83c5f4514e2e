"""The one compatibility engine: a build x a machine -> a verdict of three values.

``evaluate(matrix, build, machine)`` answers RUNS, DOES NOT RUN or UNKNOWN, with one reason per
constraint and, for UNKNOWN, the facts that were missing. The constraints:

* **platform** — the build is published for the machine's platform; macOS has no CUDA.
* **python** — the release has wheels for the machine's Python.
* **arch** — every GPU's compute capability is compiled into the build (SASS of the same major and a
  lower or equal minor, or PTX at or below it); when the build's list is unknown, the range its CUDA
  toolkit can target decides what it can (a GPU outside that range does not run), else UNKNOWN.
* **cudnn** — the cuDNN the build brings or pins has kernels for every GPU (cuDNN 9.11+ has none below
  Turing): a floating pin is capped below the first cuDNN without them.
* **driver** — the build's CUDA runs on the driver: fully, or through minor-version compatibility (same
  major, driver >= the major's floor; CUDA 11+ only; never for PTX JIT, which needs full support); and
  the driver branch supports the GPU's generation (its first and last branch, from the matrix).
  A forward-compatibility libcuda (cuda-compat) that is newer than the kernel driver runs the build only when
  every GPU supports forward compatibility (NVIDIA's list, the matrix's ``[[forward_compat]]`` rows); on a GPU
  that does not, the build is judged on the kernel driver, and a build that runs there runs only once that
  libcuda is off the library path (said as a ``condition:`` line).
* **libraries** — a build that uses system CUDA libraries (TensorFlow's system variant) finds them
  (:func:`envcheck.engine.stack.system_libraries`).

Status checks, ``fix``, ``matrix why``, explain's fixes and smoke all ask :func:`evaluate` and the rules of
:mod:`envcheck.engine.rules` and :mod:`envcheck.engine.stack`; nothing else implements a part of them
(tests/test_code_rules.py holds that no version comparison happens outside the engine and the matrix).
See docs/architecture.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from envcheck.engine import rules
from envcheck.engine.builds import Build, version_key
from envcheck.engine.stack import system_libraries
from envcheck.engine.status import Status
from envcheck.errors import UsageError
from envcheck.matrix import Matrix
from envcheck.model import Environment
from envcheck.versions import DriverVersion, cc_tuple, cuda_tuple, spec_contains

__all__ = ["Build", "Machine", "Status", "Verdict", "evaluate", "machine_from_env", "CONSTRAINTS", "dropped_arch", "arch_verdict",
           "best_build", "arch_list_reader", "machine_from_facts"]

CONSTRAINTS = ("platform", "python", "arch", "cudnn", "driver", "libraries")


@dataclass(frozen=True)
class Machine:
    """The machine a build is judged for. ``None`` / empty: unknown."""

    driver: Optional[DriverVersion] = None
    driver_cuda: Optional[str] = None  # the highest CUDA the driver supports
    ccs: Tuple[str, ...] = ()  # compute capabilities of the GPUs (unique, sorted)
    gpu_names: Tuple[str, ...] = ()
    unknown_gpus: Tuple[str, ...] = ()  # GPUs whose compute capability is not known
    python: Optional[str] = None  # "3.11"
    platform: str = "linux-x86_64"
    #: False where nothing names the platform (no --platform, no python.json naming platform and machine): the
    #: builds are those of ``platform``, each unverified for it, and every command names its index
    platform_known: bool = True
    windows_driver: bool = False  # a Windows driver (native Windows or WSL2): Windows driver floors apply
    system_cudnn: Tuple[str, ...] = ()  # versions of cuDNN copies loadable from the system (not pip/conda)
    system_cudart: Tuple[str, ...] = ()  # CUDA runtime versions loadable from the system
    gpu_signs: bool = False  # an NVIDIA GPU is seen or expected here (GPUs listed, /dev/nvidia*, a driver error)
    gpus_known: bool = True  # False: the GPU list may be incomplete
    #: a driver answered though neither its version nor its CUDA is known (``nvidia-smi -L``, a Jetson table
    #: whose driver field is N/A): there is a driver, and what it runs is unknown
    driver_seen: bool = False
    #: False where the source holds no driver capture at all (a hand-made snapshot without nvidia-smi.txt,
    #: proc-driver-version.txt, nvml.json ...): "no driver" is then unknown, not a fact
    driver_captured: bool = True
    #: False where the source holds neither ldconfig.txt nor libraries.txt (a hand-made snapshot): which CUDA
    #: runtime / cuDNN the system has is then unknown, not "none"
    libraries_captured: bool = True
    libcuda_cuda: Optional[str] = None  # the CUDA of the libcuda that loads, when newer than the kernel driver's
    libcuda_path: Optional[str] = None
    gpu_segments: Tuple[Tuple[str, Optional[str]], ...] = ()  # (GPU name, gpus.toml segment) of the named GPUs
    notes: Tuple[str, ...] = ()

    @property
    def has_driver(self) -> bool:
        return self.driver is not None or self.driver_cuda is not None or self.driver_seen

    def to_dict(self) -> Dict[str, Any]:
        return {"driver": str(self.driver) if self.driver else None, "driver_cuda": self.driver_cuda,
                "compute_capabilities": list(self.ccs), "gpus": list(self.gpu_names), "python": self.python,
                "platform": self.platform if self.platform_known else None}


@dataclass
class Verdict:
    """Whether one build runs on the machine: the constraints it fails, what could not be checked, the report's lines."""

    build: Build
    failed: Dict[str, str] = field(default_factory=dict)  # constraint -> why it fails
    unknown: List[str] = field(default_factory=list)  # what could not be checked, and how to supply it
    lines: List[str] = field(default_factory=list)  # one line per constraint, for the report
    required_driver: Optional[DriverVersion] = None
    full_support: bool = False
    caps: Dict[str, str] = field(default_factory=dict)  # exact pins the machine needs (nvidia-cudnn capped)
    never: bool = False  # no driver that runs this build supports the GPU (a retired generation)
    driver_how: str = ""  # when the driver's CUDA is too low: the rule's own reason (rules.driver_runs)
    driver_unknown: bool = False  # the driver's CUDA support is unknown: nothing is said about it
    driver_max: Optional[DriverVersion] = None  # the installed driver is newer than the GPU's last branch
    forward_compat: str = ""  # the build runs only through a forward-compatibility libcuda: how

    @property
    def ok(self) -> bool:
        return not self.failed

    @property
    def status(self) -> Status:
        if self.failed:
            return Status.NO
        return Status.UNKNOWN if self.unknown else Status.RUNS


def arch_list_reader(framework: str) -> str:
    """What tells an installed build's architecture list when the matrix has none: ``deep`` (the deep probe reads
    ``torch.cuda.get_arch_list()``), ``smoke`` (nothing lists it at run time; only a real kernel on the GPU tells:
    jax, tensorflow) or ``none`` (cupy and the rest: runtime facts only)."""
    return {"torch": "deep", "jax": "smoke", "tensorflow": "smoke"}.get(framework, "none")


# Whose rule the capability-check verdict states. torch 1.0.0 / 1.1.0 predate pytorch/pytorch#21468, so their own
# _check_capability does not say it: the wording names the check, not the judged release's code (attack38).
CAPABILITY_CHECK_WHO = "the capability check torch added in pytorch/pytorch#21468"


def _check_arch(matrix: Matrix, b: Build, m: Machine, v: Verdict) -> bool:
    """The arch constraint; returns whether some GPU is reached only through PTX (needs full driver support)."""
    ptx_needed = False
    for cc in m.ccs:
        needs = rules.capability_check(matrix, b.cuda, cc) if b.framework == "torch" else None
        if needs:
            v.failed["arch"] = (f"{b.label} is built with CUDA {b.cuda}: a GPU of compute capability {cc} needs a build "
                                f"made with CUDA {needs} or newer ({CAPABILITY_CHECK_WHO})")
            continue
        if not b.arch:
            reach, why = rules.toolkit_reach(matrix, b.cuda, cc)
            if reach is False:
                v.failed["arch"] = f"{b.label}: {why}"
                continue
            reader = arch_list_reader(b.framework)
            if b.installed and reader == "deep":
                v.unknown.append(f"compute capability {cc}: the architecture list of {b.label} is not known "
                                 "(`envcheck status --deep` reads it from the installed build)")
            elif b.installed and reader == "smoke":
                v.unknown.append(f"compute capability {cc}: the architecture list of {b.label} is not known "
                                 f"(`envcheck smoke --framework {b.framework}` runs real kernels on the GPU)")
            else:
                v.unknown.append(f"compute capability {cc}: the matrix has no architecture list for {b.label}")
            continue
        ok = rules.arch_ok(b.arch, cc)
        if ok is False and b.arch_floor and rules.above_every_target(b.arch, cc):
            # a floor only while some toolkit of the build's CUDA major targets the GPU: no CUDA 11.x NVRTC builds for
            # a Blackwell GPU (11.8's newest target is 9.0), so cupy-cuda11x stays a failure there (attack50)
            reach, why = rules.toolkit_reach(matrix, (b.cuda or "").split(".", 1)[0], cc)
            if reach is False:
                v.failed["arch"] = f"{b.label}: {why}"
            else:
                v.unknown.append(f"compute capability {cc}: {b.arch_floor}")
            continue
        if ok is False and b.ptx_unlisted and rules.above_every_target(b.arch, cc):
            ptx_needed = True  # the build's unlisted PTX targets are all older than this GPU: the driver JIT-compiles
            continue
        if ok is False:
            v.failed["arch"] = (f"{b.label} is compiled for {' '.join(b.arch)}; "
                                f"not for compute capability {cc} (sm_{cc.replace('.', '')})")
        elif ok and not rules.arch_ok(rules.sass_only(b.arch), cc):
            ptx_needed = True
    if m.unknown_gpus:
        v.unknown.append(f"compute capability unknown for {', '.join(m.unknown_gpus)} (give --gpu NAME or --cc X.Y)")
    elif not m.ccs and (m.has_driver or not m.driver_captured):
        v.unknown.append("no GPU is known, so the architectures could not be checked (give --gpu NAME or --cc X.Y)")
    return ptx_needed


def arch_verdict(matrix: Matrix, b: Build, cc: str) -> Tuple[Optional[bool], str]:
    """The arch constraint alone for one build and one compute capability (:func:`_check_arch`, the rule ``evaluate``
    applies): (False, why) the build has no code that runs there; (True, how) it has (SASS, or PTX the driver
    JIT-compiles); (None, what is missing) unknown - never a guess (a build whose list the matrix lacks is decided only
    where no build of its CUDA could reach the GPU)."""
    v = Verdict(build=b)
    ptx = _check_arch(matrix, b, Machine(ccs=(cc,)), v)
    if "arch" in v.failed:
        return False, v.failed["arch"]
    if v.unknown:
        return None, v.unknown[0]
    return True, "through PTX (JIT-compiled by the driver)" if ptx else f"compiled for {' '.join(b.arch)}"


def _check_cudnn(matrix: Matrix, b: Build, m: Machine, v: Verdict) -> None:
    """cuDNN's own oldest GPU: a build bringing or pinning a cuDNN without kernels for a GPU fails it."""
    for cc in m.ccs:
        thr = rules.cudnn_gpu_threshold(matrix, cc)
        if thr is None:
            continue
        pin_name = next((n for n in b.pins if n.startswith("nvidia-cudnn-cu")), None)
        spec_text = b.pins.get(pin_name) if pin_name else None
        if spec_text and not spec_text.startswith("=="):
            from packaging.specifiers import InvalidSpecifier, SpecifierSet

            try:
                spec = SpecifierSet(spec_text)
            except InvalidSpecifier:
                continue
            if not any(spec_contains(spec, x) for x in (thr, thr + ".0", "9.99")):
                continue
            ok = [w for w in rules.known_cudnn_wheels(matrix)
                  if version_key(w) < version_key(thr) and spec_contains(spec, w)]
            if ok and pin_name:
                v.caps[pin_name] = ok[-1]
                v.lines.append(f"cudnn: {pin_name} capped at {ok[-1]}: cuDNN >= {thr} has no kernels for "
                               f"compute capability {cc}")
            else:
                v.failed["cudnn"] = (f"{b.label} needs {pin_name}{spec_text}, and cuDNN >= {thr} has no kernels for "
                                     f"compute capability {cc}")
            continue
        dnn = b.cudnn
        if dnn and "." in dnn and version_key(dnn) >= version_key(thr):
            v.failed["cudnn"] = (f"{b.label} uses cuDNN {dnn}; cuDNN >= {thr} has no kernels for compute "
                                 f"capability {cc}")


#: where the installed build says its CUDA version (what ``status --deep`` reads)
_CUDA_ATTR = {"torch": "torch.version.cuda", "tensorflow": "tf.sysconfig.get_build_info()['cuda_version']",
              "jax": "the jax CUDA plugin's version", "cupy": "cupy.cuda.runtime.runtimeGetVersion()"}


def _check_driver(matrix: Matrix, b: Build, m: Machine, v: Verdict, ptx_needed: bool) -> None:
    if not b.cuda:
        v.driver_unknown = b.gpu  # a GPU build of an unknown CUDA: its driver line is "unknown", not a verdict
        if m.has_driver:
            v.unknown.append(f"the CUDA version {b.label} was built with is unknown, so the driver could not be "
                             f"checked (`envcheck status --deep` reads {_CUDA_ATTR.get(b.framework, 'the build')})")
        return
    need = _check_generations(matrix, b, m, v, rules.driver_need(matrix, b.cuda, m.windows_driver, ptx_needed))
    if "driver" in v.failed:
        return
    if not m.has_driver and not m.driver_captured:
        v.driver_unknown = True
        v.unknown.append("the NVIDIA driver is not known (not captured or not read: give --driver VERSION, or a "
                         "snapshot with nvidia-smi's table in nvidia-smi.txt)" + (f"; this build needs >= {need}" if need else ""))
        return
    if not m.has_driver:
        v.failed["driver"] = "no NVIDIA driver found" + (f"; this build needs >= {need}" if need else "")
        return
    ok, how = rules.driver_runs(matrix, m.driver_cuda, m.driver, b.cuda or "", windows=m.windows_driver)
    have, want = cuda_tuple(m.driver_cuda), cuda_tuple(b.cuda)
    if ok is False and rules.forward_compat_in_use(m.driver_cuda, m.libcuda_cuda, m.libcuda_path):
        ok, how = _forward_compat(matrix, b, m, v, how)
        if ok is None:
            return
    v.full_support = bool(have and want and have >= want)
    if ok is False:
        v.driver_how = how
        v.failed["driver"] = f"{b.label} is built with CUDA {b.cuda}: {how}" + (f"; needs driver >= {need}" if need else "")
    elif ok is None:
        v.driver_unknown = True
        v.unknown.append("the driver's CUDA support is unknown (no nvidia-smi / NVML / libcuda answer)")
    elif ptx_needed and not v.full_support:
        v.failed["driver"] = (f"{b.label} reaches compute capability {', '.join(m.ccs)} only through PTX, and PTX "
                              f"JIT needs a driver with full CUDA {b.cuda} support" + (f" (>= {need})" if need else ""))


def _check_generations(matrix: Matrix, b: Build, m: Machine, v: Verdict,
                       need: Optional[DriverVersion]) -> Optional[DriverVersion]:
    """The driver branches of each GPU's generation (its first and last branch): the driver the build needs
    then (a generation's first branch may raise it); fails ``v`` when no driver, or not this one, fits."""
    v.required_driver = need
    for cc, name in _gpus(m):
        first, last, gen = rules.gpu_driver_window(matrix, cc, name, windows=m.windows_driver)
        gen_s = f"{gen} GPUs" if gen else f"compute capability {cc}"
        if last is not None and need is not None and need.major > last.major:
            v.never = True
            v.failed["driver"] = (f"{b.label} needs driver >= {need}, and no such driver supports {gen_s} "
                                  f"(their last driver branch is R{last.major})")
            return need
        if first is not None and (need is None or first > need):
            need = first
            v.required_driver = first
        if m.driver is not None and first is not None and m.driver < first:
            v.failed["driver"] = f"driver {m.driver} is older than the first driver for {gen_s} ({first})"
            return need
        if m.driver is not None and last is not None and m.driver.major > last.major:
            v.failed["driver"] = (f"driver {m.driver} no longer supports {gen_s}: their last driver branch is "
                                  f"R{last.major} (no newer driver will support them)")
            v.driver_max = last
            return need
    return need


def _forward_compat(matrix: Matrix, b: Build, m: Machine, v: Verdict, how: str) -> Tuple[Optional[bool], str]:
    """The kernel driver does not run ``b``, and a forward-compatibility libcuda loads: it runs ``b`` when it
    supports the build's CUDA and every GPU supports forward compatibility (NVIDIA's list, from the matrix)."""
    lib = f"the forward-compatibility libcuda (CUDA {m.libcuda_cuda})"
    fc, want = cuda_tuple(m.libcuda_cuda), cuda_tuple(b.cuda)
    if not fc or not want or fc < want:
        return False, f"{how}; {lib} does not reach CUDA {b.cuda} either"
    gpus = m.gpu_segments or tuple((n, None) for n in m.gpu_names)
    fwd, why, _ = rules.forward_compat(matrix, gpus)
    if fwd is True:
        v.forward_compat = f"CUDA forward compatibility ({lib}; {why})"
        v.required_driver = None  # the kernel driver is no limit while the compat libcuda loads
        return True, v.forward_compat
    if fwd is None:
        v.unknown.append(f"{b.label} runs here only through {lib}: {why}")
        return None, how
    return False, f"{how}; {lib} does not help: {why} (CUDA fails with Error 804)"


def _forward_compat_condition(matrix: Matrix, m: Machine, v: Verdict) -> None:
    """A forward-compatibility libcuda the GPUs do not support fails every CUDA call (Error 804), whatever the
    build: a build the kernel driver runs runs only once that libcuda is off the library path."""
    if not rules.forward_compat_in_use(m.driver_cuda, m.libcuda_cuda, m.libcuda_path):
        return
    fwd, why, _ = rules.forward_compat(matrix, m.gpu_segments or tuple((n, None) for n in m.gpu_names))
    if fwd is False:
        v.lines.append(f"condition: remove the forward-compatibility libcuda (CUDA {m.libcuda_cuda}"
                       + (f", {m.libcuda_path}" if m.libcuda_path else "") + f") from the library path: {why}")


def _gpus(m: Machine) -> List[Tuple[str, Optional[str]]]:
    return [(cc, None) for cc in m.ccs]


def evaluate(matrix: Matrix, b: Build, m: Machine, cuda_libs_ok: bool = True) -> Verdict:
    """Whether build ``b`` runs on machine ``m``: RUNS, DOES NOT RUN (with every failing constraint) or
    UNKNOWN (with the facts that were missing)."""
    v = Verdict(build=b)
    _check_platform(b, m, v)
    _check_python(b, m, v)
    if b.gpu:
        ptx_needed = _check_arch(matrix, b, m, v)
        _check_cudnn(matrix, b, m, v)
        _check_driver(matrix, b, m, v, ptx_needed)
    if b.gpu and b.variant == "system" and not b.installed:
        libs = system_libraries(b, m.system_cudnn, m.system_cudart)
        if libs.status is not Status.RUNS and not m.libraries_captured:
            v.unknown.append(f"the system's CUDA runtime and cuDNN, which {b.label} loads, were not captured (add "
                             "ldconfig.txt: `ldconfig -p`, or libraries.txt)")
        elif libs.status is not Status.RUNS:
            v.failed["libraries"] = libs.reason
    if not cuda_libs_ok:  # the caller's own library rule said no (CuPy's system CUDA: engine/cupy.py)
        v.failed["libraries"] = "the CUDA/cuDNN libraries this build loads are not on this machine"
    v.lines.extend(f"{k}: NO - {v.failed[k]}" for k in CONSTRAINTS if k in v.failed)
    if b.gpu and "forward-compatibility libcuda" not in v.failed.get("driver", ""):
        _forward_compat_condition(matrix, m, v)
    if not v.failed:
        v.lines.extend(_ok_lines(b, m, v))
    v.lines.extend(f"unknown: {u}" for u in v.unknown)
    return v


def _check_platform(b: Build, m: Machine, v: Verdict) -> None:
    if not m.platform_known and b.gpu and not b.installed:
        v.unknown.append(f"the platform is not known, so whether {b.label} is published for it was not checked (give "
                         "--platform, or a snapshot with python.json)")
    if b.platforms and m.platform not in b.platforms:
        v.failed["platform"] = f"{b.label} is not published for {m.platform} (only {', '.join(b.platforms)})"
    elif not b.platforms and m.platform != "linux-x86_64" and b.gpu and not b.installed:
        v.unknown.append(f"platform {m.platform} not confirmed by the matrix")
    if b.gpu and m.platform.startswith("macos"):
        v.failed["platform"] = "macOS has no CUDA: NVIDIA GPU builds do not run there"


def _check_python(b: Build, m: Machine, v: Verdict) -> None:
    if not m.python:
        v.unknown.append("the Python version is unknown (give --python X.Y, or --interpreter PYTHON)")
    elif b.python and m.python not in b.python:
        v.failed["python"] = f"{b.label} has wheels for Python {', '.join(b.python)}, not {m.python}"
    elif not b.python:
        v.unknown.append(f"Python {m.python} support of {b.label} is not in the matrix")


def _ok_lines(b: Build, m: Machine, v: Verdict) -> List[str]:
    """The report lines of a build that fails no constraint."""
    how = "not needed (CPU build)" if not b.gpu else "unknown" if v.driver_unknown else (
        v.forward_compat or ("full support" if v.full_support else "minor-version compatibility"))
    out = ["driver: " + how + (f" (needs >= {v.required_driver})" if b.gpu and v.required_driver else "")]
    if b.gpu and m.ccs and b.arch and b.ptx_unlisted and not all(rules.arch_ok(b.arch, cc) for cc in m.ccs):
        out.append(f"gpu: SASS for {' '.join(b.arch)}, and PTX for targets the matrix does not list (all older than "
                   f"{', '.join(m.ccs)}): the driver JIT-compiles it at first start (can take many minutes)")
    elif b.gpu and m.ccs and b.arch:
        out.append(f"gpu: compiled for {' '.join(b.arch)} - covers {', '.join(m.ccs)}")
    if m.python and b.python:
        out.append(f"python {m.python}: ok")
    return out


def dropped_arch(verdicts: List[Verdict], ccs: Sequence[str]) -> None:
    """A release never brings back an architecture an earlier release of the framework dropped.

    So an unverified build (no arch list in the matrix) fails for a GPU that is older than every architecture
    of a verified build of the same framework and CUDA major and an equal or earlier release (a CUDA 13 build
    dropping Maxwell says nothing of the same release's CUDA 12 build: jax 0.7.2). Not a law of nature: jaxlib 0.4.21
    moved its oldest target from sm_52 to sm_50, so every jax row carries its own list and this never decides one.
    Updates ``verdicts`` in place.
    """
    def line(b: Build) -> Tuple[str, Optional[int]]:
        t = cuda_tuple(b.cuda) if b.cuda else None
        return b.framework, (t[0] if t else None)

    for cc in ccs:
        dropped_at: Dict[Tuple[str, Optional[int]], Tuple[Any, ...]] = {}
        for v in verdicts:
            b = v.build
            if b.arch and b.gpu and rules.below_oldest(b.arch, cc):
                k = version_key(b.version)
                if line(b) not in dropped_at or k < dropped_at[line(b)]:
                    dropped_at[line(b)] = k
        if not dropped_at:
            continue
        for v in verdicts:
            b = v.build
            at = dropped_at.get(line(b))
            if b.gpu and not b.arch and at is not None and version_key(b.version) >= at and "arch" not in v.failed:
                v.failed["arch"] = (f"{b.label}: compute capability {cc} was already dropped by an equal or "
                                    "earlier release of the same framework (architectures never come back)")
                v.unknown = [u for u in v.unknown if not u.startswith(f"compute capability {cc}")]
                v.lines.insert(0, f"arch: NO - {v.failed['arch']}")


def best_build(matrix: Matrix, builds: Sequence[Build], m: Machine,
               ignore: Sequence[str] = (), verdicts: Optional[Dict[int, "Verdict"]] = None) -> Optional[Build]:
    """The build to name when only one is wanted: among ``builds`` that do not fail (constraints in ``ignore``
    aside), one from an index first, then the newest release, then the lowest CUDA (the widest driver reach).
    ``verdicts``: the builds' verdicts on ``m`` worked out so far (``id(build)`` -> :func:`evaluate`'s), filled in
    here: a caller asking again of the same builds and machine with other constraints ignored evaluates none twice."""
    # the builds in that order (the first of equal ones first: a stable sort), each evaluated until one passes: the
    # first that does is the one the whole list's best is (a machine's log named 194 builds, each evaluated before)
    def key(b: Build) -> Tuple[Any, ...]:
        return (bool(b.index_url), version_key(b.version), tuple(-x for x in (cuda_tuple(b.cuda) or (0, 0))))

    skip = set(ignore)
    seen: Dict[int, Verdict] = {} if verdicts is None else verdicts
    for b in sorted(builds, key=key, reverse=True):
        v = seen.get(id(b))
        if v is None:
            v = seen[id(b)] = evaluate(matrix, b, m)
        if not set(v.failed) - skip:
            return b
    return None


def _platform(env: Environment) -> str:
    plat = (env.python.platform or "linux").lower()
    mach = (env.python.machine or "x86_64").lower()
    mach = {"amd64": "x86_64", "arm64": "aarch64"}.get(mach, mach)
    if plat.startswith("win"):
        return f"windows-{mach}"
    if plat.startswith("darwin") or plat.startswith("mac"):
        return f"macos-{mach}"
    return f"linux-{mach}"


#: the snapshot files that tell whether an NVIDIA driver is there (contract §1)
DRIVER_CAPTURE_FILES = ("nvidia-smi.txt", "nvidia-smi-query.csv", "proc-driver-version.txt",
                        "sys-module-nvidia-version.txt", "libcuda.json", "nvml.json")


def _driver_seen(env: Environment) -> bool:
    """A driver answered: it is present, or NVML loaded and refused to open the devices ("Failed to initialize NVML:
    Unknown Error" / "Insufficient Permissions": a driver is there, its version unknown)."""
    from envcheck.parse.nvidia_smi import NVML_UNKNOWN

    d = env.driver
    return d.present or NVML_UNKNOWN in (d.smi_state, d.error)


def _driver_captured(env: Environment) -> bool:
    """Some capture tells whether a driver is there. An nvidia-smi.txt whose form was not recognised tells nothing
    (contract §1: unknown, never a failure of nvidia-smi), so alone it is no driver capture."""
    keys: Tuple[str, ...] = DRIVER_CAPTURE_FILES
    if (env.driver.smi_form == "unrecognised" or env.driver.smi_note) and env.driver.error is None:
        keys = tuple(k for k in keys if k != "nvidia-smi.txt")
    return env.captured(*keys)


def _other_vendor_only(env: Environment) -> bool:
    """An AMD / Intel / Apple machine with no NVIDIA device on its PCI bus: without an NVIDIA capture its NVIDIA
    driver is absent, not unknown (a CUDA build does not run there)."""
    acc = env.accel
    return acc.vendor in ("amd", "intel", "apple") and "0x10de" not in acc.pci_vendors and not env.host.dev_nvidia


def machine_from_facts(facts: Dict[str, str], matrix: Optional[Matrix]) -> Machine:
    """The machine flat facts describe (explain's facts of a log: ``driver``, ``cc`` or ``gpu``, ``python``, ``os``):
    a GPU's compute capability from the matrix's GPU row, the driver's highest CUDA from its branch."""
    drv = DriverVersion.parse(facts["driver"]) if facts.get("driver") else None
    cc = facts.get("cc")
    if not cc and facts.get("gpu") and matrix is not None:
        row = matrix.gpu(facts["gpu"])
        cc = row.get("compute_capability") if row else None
    windows = facts.get("os") == "windows"
    drv_cuda = facts.get("driver_cuda")
    if drv is not None and not drv_cuda and matrix is not None:
        drv_cuda, _ = matrix.driver_highest_cuda(drv, windows=windows)
    py = facts.get("python")
    if py:
        t = py.split(".")
        py = ".".join(t[:2]) if len(t) >= 2 else None
    return Machine(driver=drv, driver_cuda=drv_cuda, ccs=(cc,) if cc else (), gpu_names=(facts["gpu"],)
                   if facts.get("gpu") else (), python=py, platform="windows-x86_64" if windows else "linux-x86_64",
                   windows_driver=windows, gpu_signs=True)


def machine_from_env(env: Environment, matrix: Matrix, *, python: Optional[str] = None,
                     driver: Optional[str] = None, ccs: Sequence[str] = (), gpus: Sequence[str] = (),
                     platform: Optional[str] = None) -> Machine:
    """The machine an Environment describes, with command-line overrides (``--driver``, ``--cc``, ``--gpu``,
    ``--python``, ``--platform``)."""
    notes: List[str] = []
    drv = env.driver.version
    drv_cuda = env.driver.cuda
    windows = bool(env.host.wsl) or (platform or "").startswith("win")
    if driver:
        drv = DriverVersion.parse(driver)
        if drv is None:
            raise UsageError(f"not a driver version: {driver!r}")
        drv_cuda, _ = matrix.driver_highest_cuda(drv, windows=windows)
    cc_list, names, segments, unknown = _gpus_of(env, matrix, ccs, gpus, notes)
    py = _python_minor(python) if python else env.python.minor
    sys_cudnn = tuple(sorted({c.version for c in env.copies("cudnn")
                              if c.version and c.source in ("ldconfig", "LD_LIBRARY_PATH", "toolkit", "wsl")
                              and (c.on_search_path or c.source == "toolkit")}))
    sys_cudart = tuple(sorted({c.version for c in env.copies("cudart")
                               if c.version and c.source in ("ldconfig", "LD_LIBRARY_PATH", "toolkit")
                               and (c.on_search_path or c.source == "toolkit")}))
    plat = platform or _platform(env)
    known = bool(platform) or bool(env.python.platform and env.python.machine) or env.source == "command line"
    if not known:
        notes.append(f"the platform is not known (no python.json naming its platform and machine): the builds are "
                     f"checked as {plat}'s and each command names its index (give --platform)")
    nvd = (env.nvidia_visible_devices or "").strip().lower()
    signs = bool(env.gpus or cc_list or gpus or drv is not None or drv_cuda is not None or env.host.dev_nvidia
                 or env.driver.error_origin == "nvidia-smi"  # nvidia-smi is installed: a GPU machine
                 or (env.driver.error not in (None, "no-driver")) or nvd not in ("", "void", "none")
                 or env.host.env.get("NVIDIA_REQUIRE_CUDA"))
    return Machine(driver=drv, driver_cuda=drv_cuda, ccs=tuple(sorted(set(cc_list), key=lambda c: cc_tuple(c) or (0, 0))),
                   gpu_names=tuple(names), unknown_gpus=tuple(unknown), python=py, platform=plat, platform_known=known,
                   windows_driver=windows or plat.startswith("windows"), system_cudnn=sys_cudnn,
                   system_cudart=sys_cudart, gpu_signs=signs, gpus_known=env.gpus_known,
                   driver_seen=_driver_seen(env) and not driver,
                   driver_captured=bool(driver) or _driver_captured(env) or _other_vendor_only(env),
                   libraries_captured=env.captured("ldconfig.txt", "libraries.txt"),
                   libcuda_cuda=env.driver.libcuda_cuda if not driver else None,
                   libcuda_path=env.driver.libcuda_path if not driver else None, gpu_segments=tuple(segments),
                   notes=tuple(notes))


def _python_minor(python: str) -> str:
    t = cuda_tuple(python)
    if t is None or "." not in python:
        raise UsageError(f"not a Python version: {python!r} (expected X.Y)")
    return f"{t[0]}.{t[1]}"


def _gpus_of(env: Environment, matrix: Matrix, ccs: Sequence[str], gpus: Sequence[str], notes: List[str]
             ) -> Tuple[List[str], List[str], List[Tuple[str, Optional[str]]], List[str]]:
    """(compute capabilities, GPU names, (name, segment) pairs, GPUs of unknown compute capability) from
    ``--cc`` / ``--gpu``, else from the Environment's visible GPUs."""
    cc_list: List[str] = []
    names: List[str] = []
    segments: List[Tuple[str, Optional[str]]] = []
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
        segments.append((g, row.get("segment")))
    if ccs or gpus:
        return cc_list, names, segments, unknown
    if env.gpus and not env.visible_gpus:
        notes.append("no GPU is visible to this process (CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES); "
                     "the plan is made for every GPU the driver lists")
    for gpu in env.visible_gpus or list(env.gpus):
        if gpu.fault:
            continue  # a GPU the driver cannot talk to runs nothing (its own finding says so)
        row = matrix.gpu(gpu.name) if gpu.name else None
        cc = gpu.compute_capability or (row.get("compute_capability") if row else None)
        if cc:
            cc_list.append(cc)
        else:
            unknown.append(gpu.name or f"GPU {gpu.index}")
        names.append(gpu.name or f"GPU {gpu.index}")
        if gpu.name:
            segments.append((gpu.name, gpu.segment or (row or {}).get("segment")))
    return cc_list, names, segments, unknown
