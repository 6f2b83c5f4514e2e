"""Turn generic fixes into exact ones with the facts at hand: what the log itself prints (driver version,
compute capability, framework versions: the ``[[fact]]`` rows of errors.toml), what a pasted environment
report says, and (when given) what was detected; the builds and verdicts come from the compatibility
engine (:mod:`envcheck.engine`), the same one ``fix`` uses.

One function per fix kind, each taking the match, the Environment (or None), the matrix and the flat
facts. ``refine`` never raises for odd environments: every step is guarded, and what it could not work
out is simply not added. A fix whose ``when`` condition the facts contradict is dropped (unknown facts
keep it).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple, TypeVar

from envcheck.checks import cuda_major
from envcheck.checks.pipeline import build_status
from envcheck.facts import flat_facts
from envcheck.matrix import Matrix
from envcheck.engine import machine_from_facts as machine_from_facts  # explain's name for the engine's
from envcheck.engine.report import STACK_IDS as STACK_IDS  # the findings that mean the stack is broken
from envcheck.model import DriverVersion, Environment, Finding, Framework
from envcheck.versions import cc_tuple

if TYPE_CHECKING:
    from envcheck.explain import Match

__all__ = ["refine", "STACK_IDS", "env_facts", "flat_facts", "machine_from_facts", "apply_when"]

# which library family's soname carries the CUDA major, its NVIDIA pip wheel and its cuda-toolkit extra: cuda.toml
# ``[[cuda_library]]`` (engine.rules.library_soname / library_wheel / library_toolkit_extra)


def _pin(fw: Framework, prefix: str) -> Optional[Tuple[str, str]]:
    for r in fw.requires:
        m = re.match(r"^(" + re.escape(prefix) + r"\d+)\s*==\s*([\w.]+)$", r)
        if m:
            return m.group(1), m.group(2)
    return None


def _framework_for(match: "Match", env: Optional[Environment]) -> Optional[Framework]:
    if env is None:
        return None
    fws = env.frameworks
    if match.captures.get("framework") == "torch" or match.framework == "torch":
        return fws.get("torch")
    for name in ("tensorflow", "jax", "torch"):
        fw = fws.get(name)
        if fw is not None and not fw.cpu_only:
            return fw
    return None


def _cudnn_pin_for(fw: Framework, matrix: Optional[Matrix]) -> Optional[str]:
    """The exact `nvidia-cudnn-cuNN==V` requirement the framework build pins, from its metadata or the matrix."""
    from envcheck.engine.builds import cudnn_pin

    p = _pin(fw, "nvidia-cudnn-cu")
    if p:
        return f"{p[0]}=={p[1]}"
    return cudnn_pin(matrix, fw)  # the matrix's pin for the build (its torch variant, its TensorFlow release)


def env_facts(env: Optional[Environment]) -> Dict[str, str]:
    """The flat facts (names of errors.toml's ``[[fact]]`` rows) of a detected Environment."""
    out: Dict[str, str] = {}
    if env is None:
        return out
    if env.driver.version is not None:
        out["driver"] = str(env.driver.version)
    if env.driver.cuda:
        out["driver_cuda"] = str(env.driver.cuda)
    gpus = env.visible_gpus or list(env.gpus)
    if gpus:
        out.update({k: str(v) for k, v in (("cc", gpus[0].compute_capability), ("gpu", gpus[0].name)) if v})
    if env.accel.l4t:  # a Jetson (its L4T release): the fixes' `when = "jetson"`, as the text's naming of the board
        out["jetson"] = f"L4T {env.accel.l4t}"
    os_name = (env.host.os_name or "").lower()
    if "windows" in os_name and not env.host.wsl:  # the fixes' `when = "windows"`, as a text's DLL names
        out["windows"] = env.host.os_name or "Windows"
    if env.python.version:
        out["python"] = str(env.python.version)
    for name, fw in env.frameworks.items():
        if fw.version:
            out[name] = str(fw.version)
        if name == "torch" and fw.cuda:
            out["torch_cuda"] = str(fw.cuda)
    ort = [v for k, v in sorted(env.packages.items()) if k in ("onnxruntime", "onnxruntime-gpu")]
    if ort:  # the report's package list shows ONNX Runtime (errors.toml's fact "onnxruntime" read off a log's lines)
        out["onnxruntime"] = str(ort[0] or "installed")
    return out


def _match_facts(m: "Match", facts: Dict[str, str]) -> Dict[str, str]:
    """The facts, with what the match's own line says (sm_XY, a compute capability, a driver CUDA)."""
    f = dict(facts)
    if m.framework:  # the matched line is this framework's own wording (errors.toml ``framework``): fixes can say
        f[f"log_{m.framework}"] = m.framework  # "when = '!log_torch'" (TensorFlow's memory growth for a torch OOM)
    cc = cc_tuple(m.captures.get("sm"))  # sm_86, sm_90a, compute_120: the one reading of an architecture
    if cc:
        f["cc"] = f"{cc[0]}.{cc[1]}"
    if m.captures.get("cc"):
        f["cc"] = m.captures["cc"]
    for k in ("driver_cuda", "driver", "cuda_major", "cudnn_major"):
        if m.captures.get(k):
            f.setdefault(k, m.captures[k])
    return f


def _cudnn_mismatch(m: "Match", env: Optional[Environment], matrix: Optional[Matrix],
                    facts: Optional[Dict[str, str]] = None) -> List[str]:
    compiled, loaded = m.captures.get("compiled"), m.captures.get("loaded")
    out: List[str] = []
    fw = _framework_for(m, env)
    if fw is not None:
        pin = _cudnn_pin_for(fw, matrix)
        if pin:
            out.append(f"pip install '{pin}'  (the cuDNN that {fw.distribution or fw.name} {fw.version} is built "
                       f"for{'; the log says it was compiled with ' + compiled if compiled else ''})")
        if loaded and env is not None:
            for c in env.copies("cudnn"):
                if c.version and (c.version == loaded or c.version.startswith(loaded + ".")
                                  or loaded.startswith(c.version + ".")):
                    if c.source == "LD_LIBRARY_PATH":
                        out.append(f"Remove {c.directory} from LD_LIBRARY_PATH: it holds the cuDNN {c.version} "
                                   "that is loaded instead")
                    elif c.source in ("ldconfig", "conda", "toolkit", "other"):
                        out.append(f"The cuDNN {c.version} that gets loaded is {c.path} ({c.source}); make sure "
                                   "the pinned one is found first, or upgrade that copy")
    if compiled and not out:
        maj = compiled.split(".")[0]
        cm = cuda_major(fw) if fw else None
        wheel, note = _cudnn_wheel(matrix, int(maj), cm)
        if not wheel and cm is None:
            # the machine's CUDA major is not the log's build's: the wheel of a CUDA major this cuDNN is built for
            wheel, note = _cudnn_wheel(matrix, int(maj), None)
        need = (f"a cuDNN {maj}.x at least as new as the {compiled} the build was compiled with"
                + (f" (loaded: {loaded})" if loaded else ""))
        out.append(f"pip install '{wheel}>={compiled},<{int(maj) + 1}'{note}: {need}" if wheel
                   else f"The build needs {need}; {note}")
    return out


def _lib_major(lib: str) -> Optional[int]:
    m = re.search(r"\.so\.(\d+)", lib)
    if m:
        return int(m.group(1))
    m = re.search(r"64_(\d+)\.dll$", lib)
    if not m:
        return None
    # Windows names carry the major, or major and minor run together before CUDA 11.1: cudart64_110.dll is CUDA
    # 11.0, cudart64_101.dll 10.1, cudart64_90.dll 9.0 (cublas64_12.dll, cudnn64_8.dll: the major alone)
    from envcheck.engine.rules import windows_dll_major

    return windows_dll_major(int(m.group(1)))


def _cudnn_missing(m: "Match", env: Optional[Environment], matrix: Optional[Matrix],
                   facts: Optional[Dict[str, str]] = None) -> List[str]:
    lib = m.captures.get("lib", "")
    maj = _lib_major(lib)
    out: List[str] = []
    if env is not None:
        for fw in env.frameworks.values():
            if fw.cpu_only:
                continue
            pin = _cudnn_pin_for(fw, matrix)
            if pin and (maj is None or pin.split("==")[1].split(".")[0] == str(maj)):
                out.append(f"pip install '{pin}'  (the cuDNN {fw.distribution or fw.name} {fw.version} needs)")
                break
        if maj is not None:
            for c in env.copies("cudnn"):
                if c.major == maj and not c.on_search_path and c.source not in ("pip", "torch"):
                    out.append(f"A cuDNN {c.version or maj} exists at {c.directory}: export "
                               f"LD_LIBRARY_PATH={c.directory}:$LD_LIBRARY_PATH")
                    break
    if not out and maj is not None:
        wheel, note = _cudnn_wheel(matrix, maj, None)
        out.append(f"pip install '{wheel}>={maj},<{maj + 1}'  ({lib} is cuDNN {maj}){note}" if wheel
                   else f"{lib} is cuDNN {maj}: {note}")
    return out


def _cudnn_wheel(matrix: Optional[Matrix], cudnn_major: int, cuda_major: Optional[int]) -> Tuple[str, str]:
    from envcheck.engine.rules import cudnn_wheel

    return cudnn_wheel(matrix, cudnn_major, cuda_major)


def _runtime_missing(m: "Match", env: Optional[Environment], matrix: Optional[Matrix],
                     facts: Optional[Dict[str, str]] = None) -> List[str]:
    lib = m.captures.get("lib", "").lower()
    fam = re.match(r"^(?:lib)?([a-z]+)", lib)
    fam_s = fam.group(1) if fam else ""
    from envcheck.engine.rules import library_soname, library_toolkit_extra, library_wheel, nvidia_wheel_kind

    wheel, soname = library_wheel(matrix, fam_s), library_soname(matrix, fam_s)
    if wheel is None or soname == "cudnn":  # (cuDNN's own library is cudnn-missing's)
        return []
    stem = f"{wheel}-cu"
    known = str(m.captures.get("cuda_major") or "")
    maj = int(known) if known.isdigit() else _lib_major(lib) if soname == "cuda" else None
    if env is not None:
        for fw in env.frameworks.values():
            p = _pin(fw, stem)
            if p and (maj is None or p[0].endswith(str(maj))):
                return [f"pip install '{p[0]}=={p[1]}'  (pinned by {fw.distribution or fw.name} {fw.version})"]
        if maj is None:
            for fw in env.frameworks.values():
                if not fw.cpu_only and cuda_major(fw):
                    maj = cuda_major(fw)
                    break
    extra = library_toolkit_extra(matrix, fam_s)
    kind = nvidia_wheel_kind(matrix, maj) if maj is not None else None
    if env is not None and extra and kind in (None, "toolkit"):
        for fw in env.frameworks.values():  # CUDA 13 builds pin NVIDIA's cuda-toolkit metapackage, not -cuNN wheels
            ctk = next((r.split("==", 1)[1].strip() for r in fw.requires if re.match(r"^cuda-toolkit\s*==", r)), None)
            if ctk and (maj is None or ctk.split(".")[0] == str(maj)):
                return [f"pip install 'cuda-toolkit[{extra}]=={ctk}'  (pinned by {fw.distribution or fw.name} "
                        f"{fw.version}; provides {lib})"]
    if maj is None:
        return []
    if kind == "toolkit":
        # from CUDA 13 NVIDIA's library wheels have no -cuNN suffix (nvidia-cuda-runtime-cu13 is an empty 0.0.1
        # placeholder on PyPI); the cuda-toolkit metapackage installs them by extra, as torch and CuPy pin it
        return [f"pip install 'cuda-toolkit[{extra}]=={maj}.*'  (provides {lib}; CUDA {maj})"] if extra else []
    if kind == "none":
        # NVIDIA's pip wheels of the CUDA libraries start with CUDA 11: no wheel carries this one
        return [f"No pip wheel carries CUDA {maj}'s libraries ({lib}): install the CUDA {maj}.x toolkit and put its "
                f"library folder on the library path (conda: cudatoolkit={maj}.x), or use a build for CUDA 11 or newer"]
    return [f"pip install {stem}{maj}  (provides {lib}; CUDA {maj})"]


def _driver_from_text(m: "Match", matrix: Matrix, facts: Dict[str, str]) -> List[str]:
    """The log printed the driver version and the CUDA the program needs: name the driver to install (the
    engine's :func:`~envcheck.engine.rules.driver_upgrade`)."""
    from envcheck.engine.rules import driver_upgrade

    drv = DriverVersion.parse(facts["driver"]) if facts.get("driver") else None
    cuda = facts.get("torch_cuda") or facts.get("cuda")
    if drv is None or not cuda:
        return []
    adv = driver_upgrade(matrix, cuda, drv, windows=facts.get("os") == "windows")
    if adv.need is None or adv.enough:
        return []
    text = f"Upgrade the NVIDIA driver from {drv} to >= {adv.need} (the program uses CUDA {cuda}"
    if adv.names_full_beside_need:
        text += f"; >= {adv.full} gives full CUDA {cuda} support"
    return [text + ")"]


def _other_vendor(env: Environment) -> bool:
    from envcheck.engine.vendors import machine_vendor

    return machine_vendor(env) in ("amd", "intel", "apple")


def _nvidia_machine(env: Optional[Environment]) -> bool:
    from envcheck.engine.vendors import machine_vendor

    return env is not None and machine_vendor(env) == "nvidia"


def _hip_own(m: "Match") -> bool:
    """HIP's own failure line (``hipErrorInsufficientDriver``, "HIP error: ..."): where the machine is not known to be
    NVIDIA's (HIP also runs over CUDA), its fix is HIP's (ROCm's), not CUDA's driver floors (attack34)."""
    return str(m.signature or "").startswith("hip-")


def _driver_too_old(m: "Match", env: Optional[Environment], matrix: Optional[Matrix],
                    facts: Optional[Dict[str, str]] = None) -> List[str]:
    if matrix is None or (facts or {}).get("jetson"):
        return []  # a Jetson: its driver is L4T's, not one of the matrix's desktop / server drivers (the cause's own fix)
    if "not-cuda-floor" in m.says:
        return []  # the driver is too old for OptiX, not for a CUDA release: no CUDA floor applies (errors.toml says)
    if env is None and facts:
        got = _driver_from_text(m, matrix, facts)
        if got:
            return got
    windows = bool(env and env.host.wsl)
    out: List[str] = []
    for fw in (_cuda_builds(env) if env is not None else []):
        if not fw.cuda or env is None:
            continue
        text, short = _upgrade_for_build(matrix, fw, env.driver.version, windows)
        if text:
            out.append(text)
        if short:
            from envcheck.checks import driver_advice_text

            advice = driver_advice_text(env, matrix, fw)  # engine/advice.py: the smallest upgrade and the newest
            if advice:
                out.append(advice)
    return out or _driver_floor_advice(m, matrix, windows)


def _upgrade_for_build(matrix: Matrix, fw: Framework, cur: Optional[DriverVersion],
                       windows: bool) -> Tuple[Optional[str], bool]:
    """(the driver an installed CUDA build needs, from the engine's driver upgrade rule; whether the current
    driver is below the build's floor)."""
    from envcheck.engine.rules import driver_upgrade

    adv = driver_upgrade(matrix, str(fw.cuda), cur, windows=windows)
    if adv.upgrade_to is None:
        return None, False
    if adv.runs_fully:
        # this driver already runs the installed build fully: "upgrade from 580.159.04 to >= 580" would be false
        return (f"This machine's driver {cur} already runs {fw.distribution or fw.name} {fw.version} (built with CUDA "
                f"{fw.cuda}), so that build is not what needs a newer driver: look in the traceback for a CUDA "
                "extension or library built with a newer CUDA than this driver supports, or the log came from "
                "another machine (`envcheck explain --no-detect` reads it alone)"), False
    text = f"Upgrade the NVIDIA driver{' from ' + str(cur) if cur else ''} to >= {adv.upgrade_to}"
    text += f" ({fw.distribution or fw.name} {fw.version} is built with CUDA {fw.cuda}"
    if adv.names_floor_and_full:
        text += (f"; >= {adv.floor} runs any CUDA {str(fw.cuda).split('.')[0]}.x build, >= {adv.full} gives full "
                 f"CUDA {fw.cuda} support")
    return text + ")", adv.enough is False


def _driver_floor_advice(m: "Match", matrix: Matrix, windows: bool) -> List[str]:
    """No installed build to go by: the floors of every CUDA major the driver does not reach (the matrix's
    majors, the engine's floors), and the builds that run on it as it is."""
    from envcheck.engine.rules import driver_cuda_major, majors_above, minor_compat_floors, newest_variant_of_major

    out: List[str] = []
    have = m.captures.get("driver_cuda")
    floors = minor_compat_floors(matrix, windows)
    reached = driver_cuda_major(have)
    parts = [f"CUDA {k}.x builds need a driver >= {v}" for k, v in majors_above(floors, have).items()]
    if parts:
        out.append((f"The driver supports CUDA {have} at most. " if reached is not None else "")
                   + "; ".join(parts) + " (Linux, minor-version compatibility)")
    if reached is not None and reached in floors:
        example = newest_variant_of_major(matrix, reached)
        out.append(f"Or keep this driver and install a build for CUDA {reached}.x"
                   + (f" (e.g. a {example} wheel, or an older {reached}.x one)" if example else "")
                   + f", which runs on drivers >= {floors[reached]}")
    return out


def _cuda_builds(env: Environment) -> List[Framework]:
    from envcheck.engine.builds import cuda_builds

    return cuda_builds(env)


def _arch_unsupported(m: "Match", env: Optional[Environment], matrix: Optional[Matrix],
                      facts: Optional[Dict[str, str]] = None) -> List[str]:
    """The newest build (of the framework the log is about) that has the GPU's compute capability and runs
    on the driver, through the engine; or, when no build has it, say so instead of a generic upgrade."""
    from envcheck.engine import best_build, evaluate
    from envcheck.engine.builds import tensorflow_builds, torch_builds, version_key

    if m.floor == "gpu-generation":  # the evidence wording's errors.toml ``floor`` (kb.FLOORS)
        return []  # a kernel library's floor for a GPU generation: no torch build lifts it (the cause's own fixes)
    f = dict(facts or {})
    gfx = m.captures.get("gfx") or f.get("gfx")
    if not gfx and env is not None and env.accel.vendor == "amd" and not env.gpus:
        # an AMD machine (its pasted rocminfo, or lspci -nn's device id through ROCm's device table): its one target
        targets = {g.gfx for g in env.accel.gpus if g.gfx}
        gfx = targets.pop() if len(targets) == 1 and all(g.gfx for g in env.accel.gpus) else None
    if gfx and matrix is not None:  # an AMD GPU target the log names (rocBLAS, TensorFlow-ROCm): the ROCm builds
        from envcheck.engine.vendors import gfx_fix_lines, windows_text

        windows = windows_text(m.evidence) or (env is not None and (env.python.platform or "").startswith("win"))
        return gfx_fix_lines(matrix, gfx, env.host.env.get("HSA_OVERRIDE_GFX_VERSION") if env is not None else None,
                             windows=windows)
    cc = f.get("cc")
    if cc is None and env is not None and env.visible_gpus and env.visible_gpus[0].compute_capability:
        cc = env.visible_gpus[0].compute_capability
    if cc is None or matrix is None:
        return []
    f["cc"] = cc
    tf = m.framework == "tensorflow" or ("tensorflow" in f and "torch" not in f)
    if env is not None and not tf and "torch" not in env.frameworks and m.framework != "torch":
        return []
    # only where the log is this machine's: its own arch list (torch's "not compatible" warning) decides otherwise,
    # and a compute capability it prints that no GPU here has says it came from elsewhere
    log_torch = str((facts or {}).get("torch") or "").split("+")[0]
    here_torch = str(env.frameworks["torch"].version or "").split("+")[0] if (
        env is not None and "torch" in env.frameworks) else ""
    same = env is not None and not (f.get("arch_list") or m.captures.get("arch_list")) and (
        (facts or {}).get("cc") is None or any(g.compute_capability == cc for g in env.visible_gpus)) and (
        not log_torch or log_torch == here_torch)  # a torch the log names that is not this one: another machine
    # only the wordings of a missing kernel image (not FlashAttention's "Ampere or newer", a GPU-generation limit)
    kernel = "missing-kernel-image" in m.says  # (errors.toml ``says``)
    covered = _installed_covers(env, matrix, cc) if env is not None and same and kernel and not tf else None
    if covered:
        return [covered]
    fw, builds = ("TensorFlow", tensorflow_builds(matrix)) if tf else ("PyTorch", torch_builds(matrix))
    mach = machine_from_facts(f, matrix)
    if env is not None and env.driver.version is not None and not f.get("driver"):
        from envcheck.engine import machine_from_env

        from envcheck.errors import UsageError

        try:
            mach = machine_from_env(env, matrix, ccs=[cc])
        except UsageError as exc:  # the log's compute capability is not X.Y: the log's own facts are used
            m.notes.append(f"the machine's facts were not used for the architecture fix: {exc}")
    gpu_builds = [b for b in builds if b.gpu and b.arch]
    ignore = ("python",) if mach.has_driver else ("python", "driver")  # an unknown driver is no failure here
    verdicts: Dict[int, Any] = {}  # (each build evaluated once on this machine, whatever is ignored)
    chosen = best_build(matrix, gpu_builds, mach, ignore, verdicts)
    name = f" ({f['gpu']})" if f.get("gpu") else ""
    if chosen is None:
        if not gpu_builds:
            return []
        with_arch = best_build(matrix, gpu_builds, mach, ignore + ("driver", "cudnn", "platform", "libraries"),
                               verdicts)
        if with_arch is not None:
            # builds with this architecture exist; what stops them here is not the architecture (the engine's
            # reason for the newest of them, e.g. a driver branch that no longer supports this generation)
            why = "; ".join((verdicts.get(id(with_arch)) or evaluate(matrix, with_arch, mach)).failed.values())
            return [f"{fw} builds that include compute capability {cc} exist ({with_arch.label} is the newest), but "
                    f"none runs on this machine: {why}"]
        vs = sorted({b.version for b in gpu_builds}, key=version_key)
        return [f"No current CUDA build of {fw} supports this GPU{name}: none of the {fw} builds envcheck knows "
                f"({vs[0]} to {vs[-1]}) includes compute capability {cc}. Run on the CPU (device='cpu'), or use a "
                "GPU the builds support; an older framework release only helps if it was built for this GPU."]
    b = chosen
    if tf:
        pkg = b.companions.get("package", "tensorflow")  # tensorflow-gpu up to 2.0: PyPI's tensorflow is CPU-only
        return [f"pip install {pkg}=={b.version}  (TensorFlow {b.version} includes compute capability {cc})"]
    if not b.index_url:
        return [f"pip install torch=={b.version}  (PyTorch {b.version} {b.variant or ''} includes compute capability "
                f"{cc})"]
    return [f"pip install torch=={b.version} --index-url {b.index_url}  (PyTorch {b.version} {b.variant} includes "
            f"compute capability {cc})"]


def _installed_covers(env: Environment, matrix: Matrix, cc: str) -> Optional[str]:
    """The installed torch's own arch list (torch.json, or the matrix's row for its build) already holds this
    GPU's compute capability: then another torch build is not the fix, and saying so is the machine's line."""
    from envcheck.engine.builds import installed_build
    from envcheck.engine.rules import arch_ok

    fw = env.frameworks.get("torch")
    if fw is None or not fw.version or fw.cpu_only:
        return None
    b = installed_build(matrix, fw)
    if not b.arch or arch_ok(b.arch, cc) is not True:
        return None
    return (f"This machine's torch {fw.version} is compiled for {' '.join(b.arch)} (from {b.arch_source}), which "
            f"covers this GPU's compute capability {cc}: another torch build is not the fix. The kernel that failed is "
            "not one of torch's own: a CUDA extension or library built without this architecture (rebuild it with "
            f"TORCH_CUDA_ARCH_LIST='{cc}'), or the log came from another machine (`envcheck explain --no-detect`).")


def _dead_ends_when(m: "Match", facts: Dict[str, str], kb: Any) -> None:
    """Drop the dead ends whose condition (errors.toml's dead_end ``when``) the facts contradict: "the Linux loader never
    searches PATH" said to a Windows text, whose DLLs are found on PATH."""
    from envcheck.explain.kb import check_when

    cause = kb.causes.get(m.id)
    whens = dict(cause.dead_end_whens) if cause is not None else {}
    if not whens:
        return
    keep = [i for i, t in enumerate(m.dead_ends) if check_when(whens.get(t, ""), facts) is not False]
    if len(keep) != len(m.dead_ends):
        m.dead_ends = [m.dead_ends[i] for i in keep]
        m.dead_end_sources = [m.dead_end_sources[i] for i in keep if i < len(m.dead_end_sources)]


def apply_when(m: "Match", facts: Dict[str, str], kb: Any = None) -> None:
    """Drop the fixes whose condition the facts contradict (an RTX 50xx fix for a compute capability 2.1 GPU), and the
    dead ends (with ``kb``, the knowledge base: their conditions are its causes')."""
    from envcheck.explain.kb import check_when

    if kb is not None:
        _dead_ends_when(m, facts, kb)
    whens = list(m.fix_whens) + [""] * (len(m.fixes) - len(m.fix_whens))
    keep = [i for i, w in enumerate(whens) if not w or check_when(w, facts) is not False]
    if len(keep) == len(m.fixes) or not keep:
        return
    m.fixes = [m.fixes[i] for i in keep]
    m.fix_sources = [m.fix_sources[i] for i in keep if i < len(m.fix_sources)]
    m.fix_whens = [whens[i] for i in keep]


#: the handlers whose exact fixes are NVIDIA's own (CUDA / cuDNN wheels, driver floors): not run for a machine whose
#: accelerator is AMD's, Intel's or Apple's (contract §9; drop_nvidia_only keeps envcheck's own fixes)
_NVIDIA_HANDLERS = frozenset({"cudnn-version-mismatch", "cudnn-missing", "cuda-runtime-missing", "driver-too-old"})

#: the fix handlers, by cause id: each takes (match, Environment or None, matrix, facts) -> exact fixes
def _cpu_only(m: "Match", env: Optional[Environment], matrix: Optional[Matrix],
              facts: Optional[Dict[str, str]] = None) -> List[str]:
    """torch says it has no CUDA, but the torch installed here is a CUDA build: installing the CUDA build is not
    the fix; another interpreter / environment (or another machine) ran the program."""
    if env is None or "torch-build-no-cuda" not in m.says:  # torch's own wordings (errors.toml ``says``)
        return []
    fw = env.frameworks.get("torch")
    if fw is None or fw.cpu_only is not False or not fw.cuda:
        return []
    log_torch = str((facts or {}).get("torch") or "").split("+")[0]
    if log_torch and log_torch != str(fw.version or "").split("+")[0]:
        return []  # the log names another torch: it is that one's build
    return [f"This machine's torch {fw.version} is a CUDA build (CUDA {fw.cuda}), so installing the CUDA build is not "
            "the fix: the program ran in another Python or environment with a CPU-only torch (check "
            "`python -c \"import sys, torch; print(sys.executable, torch.__version__, torch.version.cuda)\"` there), "
            "or the log came from another machine (`envcheck explain --no-detect`)."]


def _toolkit_arch(m: "Match", env: Optional[Environment], matrix: Optional[Matrix],
                  facts: Optional[Dict[str, str]] = None) -> List[str]:
    """A compiler refusing the architecture the line names (nvcc's "Unsupported gpu architecture 'sm_XY'", "Value
    'sm_XY' is not defined for option 'gpu-architecture'", ptxas' for 'gpu-name': every cuda-toolkit-mismatch wording
    that captures ``sm``): which CUDA toolkits build that architecture (the matrix's toolkit targets), so the fix says
    whether this toolchain is too old for it or too new (the architecture dropped)."""
    sm = m.captures.get("sm") or ""
    if not sm or matrix is None:
        return []
    from envcheck.engine.rules import arch_toolkits

    t = cc_tuple(sm)
    a = arch_toolkits(matrix, sm) if t else None
    if t is None or a is None:
        return []
    cc = f"{t[0]}.{t[1]}"
    if a.verdict == "none":
        return [f"No CUDA toolkit envcheck's matrix lists builds {sm} (compute capability {cc}; the matrix lists CUDA "
                f"{a.oldest_listed} and later, so a toolkit older than that may have): check the architecture named in "
                "the build flags."]
    if a.verdict == "all":
        return [f"{sm} (compute capability {cc}) is built by every CUDA toolkit envcheck's matrix lists (CUDA "
                f"{a.first} and later): check the architecture named in the build flags and which nvcc runs "
                "(`nvcc --version`)."]
    if a.verdict == "newer-toolkit":
        return [f"{sm} (compute capability {cc}) is built by CUDA {a.first} and later: the compiler that refused it (nvcc "
                f"or ptxas) is older than that; build with CUDA {a.first}+ (CUDA_HOME / PATH pointing at it)."]
    since = f"CUDA {a.first} to {a.last} only" if a.first_known else (f"CUDA {a.last} and older toolkits only "
                                                                      f"(envcheck's matrix lists them from CUDA {a.first})")
    return [f"{sm} (compute capability {cc}) is built by {since}: a newer compiler dropped it. Build "
            f"with CUDA {a.last} or older, or leave {sm} out of the build's architectures (TORCH_CUDA_ARCH_LIST, "
            "-gencode flags, CMAKE_CUDA_ARCHITECTURES) where the GPUs it is for do not need it."]


_HANDLERS = {"cudnn-version-mismatch": _cudnn_mismatch, "cudnn-missing": _cudnn_missing,
             "cuda-runtime-missing": _runtime_missing, "driver-too-old": _driver_too_old,
             "gpu-arch-unsupported": _arch_unsupported, "framework-cpu-only": _cpu_only,
             "cuda-toolkit-mismatch": _toolkit_arch}

_T = TypeVar("_T")


def _guard(notes: List[str], what: str, default: _T, step: Callable[..., _T], *args: Any) -> _T:
    """The one guard of explain's refinement: ``step(*args)``; a step that fails leaves ``default``, and what
    failed (and why) is recorded in ``notes`` (the match's notes, in the report), never hidden."""
    try:
        return step(*args)
    except Exception as exc:  # noqa: BLE001 - recorded in the notes below; explain goes on with the rest
        notes.append(f"envcheck could not {what}: {type(exc).__name__}: {exc}")
        return default


def refine(matches: List["Match"], env: Optional[Environment], matrix: Optional[Matrix],
           facts: Optional[Dict[str, str]] = None, notes: Optional[List[str]] = None) -> List["Match"]:
    """Exact fixes for ``matches`` from the facts at hand (see the module docstring). ``notes``: where a match is
    dropped because the facts show its cause is not what its line would say, what is known instead (the document's
    top-level notes)."""
    from envcheck.engine.vendors import text_machine_facts

    facts = text_machine_facts(env, facts)  # a Mac a sentence names is not the machine a Windows / Linux report shows
    matches[:] = [m for m in matches if not _same_extension_build(m) and not _unsaid(m, env, facts, matrix)]
    problems: List[str] = []
    empty: Dict[str, str] = {}
    all_facts = _guard(problems, "read the facts of this machine", empty, env_facts, env)
    all_facts.update(facts or {})
    _guard(problems, "check the driver beside a refused kernel image", None, _driver_new_enough, matches, all_facts,
           matrix, notes)
    from envcheck.explain.kb import load_kb

    kb = _guard(problems, "read the knowledge base's conditions", None, load_kb, matrix)
    for m in matches:
        f = _match_facts(m, all_facts)
        _guard(m.notes, "check the fixes' conditions against the facts", None, apply_when, m, f, kb)
    findings = None
    if env is not None and matrix is not None:
        findings = _guard(problems, "check this machine (the status pipeline)", None, _status_findings, env, matrix)
    for m in matches:
        m.notes.extend(x for x in problems if x not in m.notes)
    if env is not None or facts:
        _guard(problems, "read the log's cause with this machine's facts", None, _recast, matches, env, matrix,
               facts or {})
    if facts:
        _guard(problems, "read a libcuda / kernel module pair in a container", None, _compat_libcuda, matches,
               matrix, facts)
    if env is None:  # the text alone: a ROCm / XPU / MPS log gets no NVIDIA-only fix (contract §9)
        from envcheck.explain.vendors import drop_nvidia_only

        drop_nvidia_only(matches, None, all_facts)
    if env is None and matrix is None:
        _zluda_library(matches, all_facts)
        return matches
    other = env is not None and _guard(problems, "read this machine's vendor", False, _other_vendor, env)
    for m in matches:
        exact: List[str] = []
        h = _HANDLERS.get(m.id)
        if h is not None and not ((other or (_hip_own(m) and not _nvidia_machine(env))) and m.id in _NVIDIA_HANDLERS):
            f = _match_facts(m, all_facts)
            none: List[str] = []
            exact = _guard(m.notes, f"work out the exact fix ({h.__name__.strip('_')})", none, h, m, env, matrix, f)
        if env is not None:
            exact += _machine_lines(m, env, findings)
        _prepend_machine_fixes(m, exact)
    if env is not None and findings:
        _add_known_bad(matches, findings, matrix)
    if env is not None:  # contract §9: no NVIDIA-only fix on an AMD / Intel / Apple machine (or, where the machine's
        from envcheck.explain.vendors import drop_nvidia_only  # accelerator is not known, on the log's)

        drop_nvidia_only(matches, env, all_facts)
    _zluda_library(matches, all_facts)
    return matches


def _zluda_library(matches: List["Match"], facts: Dict[str, str]) -> None:
    """A CUDA library that did not load from a ZLUDA install (engine.vendors.zluda_library_advice): its fixes are
    ZLUDA's HIP SDK dependencies, not NVIDIA's packages (attack40: patientx/ComfyUI-Zluda#147 was told to install
    nvidia-cublas-cu11, and before that, that no CUDA install makes a CUDA build use the AMD GPU)."""
    from envcheck.engine.vendors import zluda_library_advice

    for m in matches:
        advice = zluda_library_advice(m.id, facts)
        if advice is None:
            continue
        m.notes.append("read on a ZLUDA install: the CUDA library that did not load is ZLUDA's stand-in")
        m.fixes, m.fix_sources, m.fix_whens = [advice], ["envcheck"], [""]
        m.machine = [advice]
        m.dead_ends, m.dead_end_sources = [], []


def _unsaid(m: "Match", env: Optional[Environment], facts: Optional[Dict[str, str]], matrix: Optional[Matrix]) -> bool:
    """A match whose line names no cause on the machine the log shows (engine.vendors): a program's own "CUDA is not
    available" check where no other vendor's GPU is shown (cuda_check_speaks), XLA's ptxas floor notice on a JetPack 4
    Jetson (jetpack_ptxas_notice). It is dropped: the cause is left unknown, not stated falsely."""
    from envcheck.engine.vendors import cuda_check_speaks, jetpack_ptxas_notice

    return not cuda_check_speaks(m.says, env, facts) or jetpack_ptxas_notice(m.says, m.captures, facts, matrix) \
        or _library_not_older(m, env, facts, matrix) or _cublas_arch_on_new_gpu(m, env, facts, matrix)


def _cublas_arch_on_new_gpu(m: "Match", env: Optional[Environment], facts: Optional[Dict[str, str]],
                            matrix: Optional[Matrix]) -> bool:
    """cuBLAS's CUBLAS_STATUS_ARCH_MISMATCH (``says`` ``cublas-arch-check``) read as the GPU's architecture: cuBLAS
    documents it as "usually caused by compute capability lower than 5.0". Where every GPU the text names is known
    (compat_matrix/gpus.toml or a report's capability) and of 5.0 or more - a Tesla V100 (NVIDIA/FasterTransformer#286),
    an RTX 3090 whose cuBLAS 11.4.1 raised it for an FP16 GEMM until CUDA 11.2's (JuliaGPU/CUDA.jl#609) - the line
    does not say the GPU is too old: dropped (cuBLAS's own status match stays; attack48). A GPU not known keeps it."""
    if "cublas-arch-check" not in m.says:
        return False
    from envcheck.engine.rules import capabilities_at_least, named_gpu_ccs

    f = facts or {}
    # a report's GPUs (their capability where it printed one, else the table's by name) and the GPUs the facts name
    gpus = [(g.name, g.compute_capability) for g in (env.gpus if env else []) if g.name or g.compute_capability]
    ccs = [str(cc) if cc else next(iter(named_gpu_ccs(matrix, [name or ""])), "") for name, cc in gpus]
    ccs += [next(iter(named_gpu_ccs(matrix, [f[k]])), "") for k in ("nvidia_gpu", "gpu") if f.get(k)]
    if not ccs or "" in ccs:
        return False  # no GPU named, or one whose capability is not known: the line keeps its reading
    return capabilities_at_least(ccs, "5.0")


def _library_not_older(m: "Match", env: Optional[Environment], facts: Optional[Dict[str, str]],
                       matrix: Optional[Matrix]) -> bool:
    """A CUDA math library's internal error (``says`` ``library-arch-check``: cuFFT's CUFFT_INTERNAL_ERROR) names
    gpu-arch-unsupported only where the text names a GPU the library's release is older than
    (engine.rules.library_older_than_gpu: the build's CUDA before the first toolkit that builds the GPU's
    architecture, or not stated); elsewhere (no GPU known, a library new enough for every GPU named) the line does not
    say why it failed (low memory, a bug): dropped. The verdict is kept in the match's notes."""
    if "library-arch-check" not in m.says:
        return False
    from envcheck.engine.rules import library_older_than_gpu, named_gpu_ccs

    f = facts or {}
    gpus = [g for g in env.accel.gpus if g.vendor in (None, "nvidia")] if env else []
    ccs = named_gpu_ccs(matrix, [g.name for g in gpus if g.name] + [f[k] for k in ("nvidia_gpu", "gpu") if f.get(k)],
                        [g.compute_capability for g in gpus if g.compute_capability])
    torch = env.frameworks.get("torch") if env else None
    cuda = (torch.cuda if torch else None) or f.get("torch_cuda") or f.get("text_torch_cuda")
    verdict, why = library_older_than_gpu(matrix, cuda, ccs)
    if verdict is False or not why:
        return True
    m.notes.append(("the library's build is older than the GPU: " if verdict else "likely, not verified: ") + why)
    return False


def _driver_new_enough(matches: List["Match"], facts: Dict[str, str], matrix: Optional[Matrix],
                       notes: Optional[List[str]]) -> None:
    """A driver-too-old match of a refused kernel image (a signature with errors.toml's ``ptxas_cuda_major``: Triton's
    "device kernel image is invalid") where the facts show a driver new enough for the CUDA in play
    (the engine's verdict: :func:`envcheck.engine.verdicts.driver_new_enough_note`): dropped, its note kept."""
    from envcheck.engine.verdicts import driver_new_enough_note

    keep = []
    for m in matches:
        note = driver_new_enough_note(m.id, m.ptxas_cuda_major, _match_facts(m, facts), matrix)
        if note is None:
            keep.append(m)
        elif notes is not None and note not in notes:
            notes.append(note)
    matches[:] = keep


def _same_extension_build(m: "Match") -> bool:
    """A report of an extension built for one torch that names the same build as the one in use (xformers' "built
    for: PyTorch 2.6.0+cu118 ... (you have 2.6.0+cu118)"): no mismatch is shown (engine.rules.extension_build_differs),
    so the line is no evidence of extension-abi-mismatch (the engine's verdict:
    :func:`envcheck.engine.verdicts.same_extension_build`)."""
    from envcheck.engine.verdicts import same_extension_build

    return same_extension_build(m.id, m.captures)


def _compat_libcuda(matches: List["Match"], matrix: Optional[Matrix], facts: Dict[str, str]) -> None:
    """A driver/library mismatch whose libcuda is of a later driver branch than the kernel module, in a text that runs
    in a container (the fact docker_gpus, or a CUDA image named: cuda_image): the image's or the injected cuda-compat
    libcuda on a GPU that does not take it (engine.verdicts.compat_libcuda_recast), read as forward-compat-unsupported with
    that cause's title and fixes; its evidence and line stay."""
    from envcheck.engine.verdicts import compat_libcuda_recast
    from envcheck.explain.kb import load_kb

    for m in list(matches):
        new = compat_libcuda_recast(m.id, m.captures, facts)
        if new is None:
            continue
        if any(o.id == new for o in matches):
            matches.remove(m)  # the cause is said already (CUDA's 804 beside the pair): the pair is its symptom
            continue
        cause = load_kb(matrix).causes.get(new)
        if cause is None:
            return
        m.notes.append(f"read as {new}: the libcuda ({m.captures.get('dso_version')}) is of a later driver branch than "
                       f"the kernel module ({m.captures.get('kernel_version')}) inside a container - a forward-"
                       "compatibility libcuda (cuda-compat) that this GPU or this kernel module's branch does not take "
                       "(NVIDIA's CUDA Compatibility guide: data-center GPUs, NGC Server Ready RTX SKUs and Jetson boards "
                       "only); the line alone says "
                       "driver-library-mismatch")
        m.id, m.title, m.source = new, cause.title, cause.source
        m.fixes = [t for t, _, _ in cause.fixes]
        m.fix_sources = [src for _, src, _ in cause.fixes]
        m.fix_whens = [w for _, _, w in cause.fixes]
        m.dead_ends = [t for t, _ in cause.dead_ends]
        m.dead_end_sources = [src for _, src in cause.dead_ends]
        m.score = max(m.score, float(cause.weight))


def _recast(matches: List["Match"], env: Optional[Environment], matrix: Optional[Matrix],
            facts: Optional[Dict[str, str]] = None) -> None:
    """A match whose line means another cause on the machine the log came from (engine.vendors.recast_cause: the
    log's own facts, else this machine's) takes that cause's title, fixes and dead ends; its evidence and line stay."""
    from envcheck.engine.vendors import cpu_reading_void, cuda_check_on_amd, log_directml, log_intel_gpu, log_intel_stack, log_says_no_nvidia, \
        log_vendor, log_vendor_advice, machine_vendor, recast_cause, vendor_mismatch_advice
    from envcheck.engine.verdicts import recast_is_rocm_elsewhere
    from envcheck.explain.kb import load_kb
    from envcheck.explain.vendors import vendor_fix_rows

    # a "no CUDA in this torch" line beside a ROCm torch: no cause of its own (engine.vendors.cpu_reading_void)
    matches[:] = [m for m in matches if not cpu_reading_void(m.id, m.says, env, facts)]
    # PyTorch's CUDA capability check naming an AMD GPU: a ROCm build's stand-in numbers (engine.vendors.cuda_check_on_amd)
    matches[:] = [m for m in matches if not cuda_check_on_amd(m.says, facts)]
    kb = None
    dup: List["Match"] = []
    for m in matches:
        new = recast_cause(m.id, m.says, env, facts)
        if new is None:
            continue
        if any(o.id == new for o in matches):
            dup.append(m)  # the cause it means is said already: the line's own reading is not said beside it
            continue
        kb = kb or load_kb(matrix)
        cause = kb.causes.get(new)
        if cause is None:
            continue
        if recast_is_rocm_elsewhere(m.id):  # a ROCm build finding no AMD GPU on another vendor's GPU (log or machine)
            _recast_rocm_elsewhere(m, cause, env, facts)
            continue
        from_log = log_vendor(facts) or ("intel" if new == "framework-vendor-mismatch" and (log_intel_stack(facts) or log_intel_gpu(facts))
                                       else None)
        said = not from_log and new == "framework-vendor-mismatch" and (log_says_no_nvidia(facts)
                                                                        or log_directml(facts))
        where = "the machine the log shows" if from_log or said else "this machine"
        m.notes.append(f"read as {new} on {where} (its accelerator is not NVIDIA's): the line alone says {m.id}")
        line_cause, m.id, m.title, m.source = m.id, new, cause.title, cause.source
        # the cause's fixes for this machine's vendor (its ROCm fix on AMD, its XPU fix on Intel), after the engine's
        vendor = from_log or (machine_vendor(env) if env is not None else None)
        rows = [cause.fixes[i] for i in vendor_fix_rows([t for t, _, _ in cause.fixes], vendor)]
        advice = log_vendor_advice(facts, m.says, line_cause) if from_log or said else (
            vendor_mismatch_advice(env) if env is not None else None)
        m.fixes = ([advice] if advice else []) + [t for t, _, _ in rows]
        m.fix_sources = (["envcheck"] if advice else []) + [src for _, src, _ in rows]
        m.fix_whens = ([""] if advice else []) + [w for _, _, w in rows]
        m.machine = [advice] if advice else m.machine
        ends = [d for d in cause.dead_ends if vendor in (None, "amd") or "ROCm" not in d[0]]  # AMD's, on AMD only
        m.dead_ends = [t for t, _ in ends]
        m.dead_end_sources = [src for _, src in ends]
        m.score = max(m.score, float(cause.weight))
    if dup:
        matches[:] = [m for m in matches if all(m is not d for d in dup)]


def _recast_rocm_elsewhere(m: "Match", cause: Any, env: Optional[Environment], facts: Optional[Dict[str, str]]) -> None:
    """engine.vendors.recast_cause's ROCm build that finds no AMD GPU where the log (or this machine) shows another
    vendor's: framework-vendor-mismatch, with what that machine needs first (envcheck's own line: it names the other
    vendor's build, which the AMD log's NVIDIA-only filter would otherwise drop) and no AMD-only dead end."""
    from envcheck.engine.vendors import rocm_build_elsewhere

    note, advice = rocm_build_elsewhere(env, facts)
    m.notes.append(note)
    m.id, m.title, m.source = cause.id, cause.title, cause.source
    m.fixes, m.fix_sources, m.fix_whens = [advice], ["envcheck"], [""]
    m.machine = [advice]
    m.dead_ends, m.dead_end_sources = [], []
    m.score = max(m.score, float(cause.weight))


def _status_findings(env: Environment, matrix: Any) -> Optional[List[Finding]]:
    return build_status(env=env, matrix=matrix).findings


#: a finding's words that name NVIDIA's stack (its driver, nvidia-smi, libcuda): not said beside another vendor's failure
_NAMES_NVIDIA = re.compile(r"nvidia|libcuda|nvml", re.IGNORECASE)


def _machine_lines(m: "Match", env: Environment, findings: Optional[List[Finding]]) -> List[str]:
    """What this machine's own findings add to a match of the same id (and two ids that read the machine). A match
    that is another vendor's own failure line (errors.toml ``vendor``: PyTorch's XPU build finding no Intel GPU driver)
    takes no finding that speaks of NVIDIA's stack (a pasted report's facts read as an NVIDIA machine without a
    driver): contract §9."""
    exact: List[str] = [f"This machine: {f.message} Fix: {f.fix}" for f in findings or [] if f.id == m.id and f.fix
                        and not (m.vendor and _NAMES_NVIDIA.search(f"{f.message} {f.fix}"))]
    d = env.driver
    if m.id == "driver-library-mismatch" and d.kernel_version and d.nvml_version and d.kernel_version != d.nvml_version:
        exact.insert(0, f"This machine: kernel module {d.kernel_version}, driver libraries {d.nvml_version} - reboot "
                        "to load the matching module")
    if m.id == "cudnn-bad-param" and findings is not None:
        stack_errors = [f for f in findings if f.severity == "error" and f.id in STACK_IDS]
        if stack_errors:
            exact.append("This machine's GPU stack has problems, fix them first: " + "; ".join(
                f"[{f.id}] {f.message}" for f in stack_errors[:3]))
        else:
            exact.insert(0, _bad_param_line(env, findings))
    return exact


#: the captures that tell each part of an NVIDIA stack (contract §1); all of a part's missing from a hand-made
#: snapshot: that part is unknown
_STACK_PARTS = (("the NVIDIA driver", ("nvidia-smi.txt", "proc-driver-version.txt", "nvml.json")),
                ("the installed frameworks", ("packages.json", "torch.json", "tensorflow.json")),
                ("cuDNN", ("ldconfig.txt", "libraries.txt", "cudnn_version.h")))


def _bad_param_line(env: Environment, findings: List[Finding]) -> str:
    """cuDNN / MIOpen BAD_PARAM with no stack error on this machine: the program's own call is the likely cause.
    "Looks healthy" only where the stack was read; what was not captured or not checked is named instead. The
    batch-norm epsilon floor is cuDNN's (its headers'), not said on another vendor's machine."""
    other = _other_vendor(env)
    unknown = [part for part, keys in _STACK_PARTS if all(k in env.not_captured for k in keys)
               and not (other and part != "the installed frameworks")]
    for comp in sorted({f.component for f in findings if f.id == "not-checked" and f.component} - {"gpu"}):
        if not any(comp in part for part in unknown):  # "driver" is already said as "the NVIDIA driver"
            unknown.append(comp)
    checks = ("check the batch (not empty), input shapes (spatial size >= kernel, the rank the layer expects), dtype "
              "(float32/float16, not integer) and batch-norm epsilon")
    if not other:
        checks += " (>= CUDNN_BN_MIN_EPSILON: 1e-5 in the cuDNN 4.0 to 7.1 headers, 0.0 in cuDNN 7.6's)"
    if unknown:
        return (f"envcheck found no error in what it read of this machine (not captured or not checked: "
                f"{', '.join(unknown)}), so the program's own call is the likely cause: {checks}.")
    if other:
        return f"envcheck finds no problem in this machine's GPU stack, so the program's own call is at fault: {checks}."
    return ("This machine's GPU stack looks healthy (envcheck finds no driver/CUDA/cuDNN problem), so the program's "
            f"own call is at fault: {checks}.")


def _prepend_machine_fixes(m: "Match", exact: List[str]) -> None:
    new = list(dict.fromkeys(exact))
    if not new:
        return
    m.machine = new
    m.fixes = new + m.fixes
    m.fix_sources = ["envcheck"] * len(new) + m.fix_sources
    m.fix_whens = [""] * len(new) + list(m.fix_whens)


def _add_known_bad(matches: List["Match"], findings: List[Finding], matrix: Optional[Matrix]) -> None:
    """Known-bad combinations of this machine, when the log shows a GPU-stack failure (the engine's verdict:
    :func:`envcheck.engine.verdicts.known_bad_beside`), added under the first such line."""
    from envcheck.engine.verdicts import gpu_stack_failure, known_bad_beside

    f = known_bad_beside({m.id for m in matches}, findings)
    if f is None:
        return
    from envcheck.explain import Match
    from envcheck.explain.kb import load_kb

    cause = load_kb(matrix).causes.get(f.id)
    if cause is None:
        return
    first = min((m for m in matches if gpu_stack_failure(m.id)), key=lambda x: x.line_no)
    matches.append(Match(
        id=f.id, title=cause.title, evidence=first.evidence, line_no=first.line_no,
        fixes=[f"{f.message} Fix: {f.fix}"] + [t for t, _, _ in cause.fixes],
        dead_ends=[t for t, _ in cause.dead_ends], score=float(cause.weight) + 1,
        source=cause.source, signature="machine", machine=[f.message]))
