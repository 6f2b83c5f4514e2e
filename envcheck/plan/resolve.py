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

import re
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from envcheck.engine import Machine, Verdict, evaluate, machine_from_env
from envcheck.engine.advice import advice_from_verdicts
from envcheck.engine.builds import (NO_CPU_BUILD, Build, cpu_build, jax_builds, tensorflow_builds, torch_builds,
                                    version_key as _vkey)
from envcheck.engine import dropped_arch
from envcheck.engine.cupy import cupy_builds, cupy_system_libs_ok, parse_cupy_name
from envcheck.engine.rules import driver_upgrade_needed
from envcheck.engine.stack import jax_beside_torch, tensorflow_on_torch_libraries
from envcheck.errors import UsageError
from envcheck.known import NVIDIA_LIB_DIRS, TORCH_FAMILY
from envcheck.matrix import Matrix
from envcheck.model import Environment
from envcheck.versions import DriverVersion, cuda_tuple, spec_contains

__all__ = ["Target", "Want", "Build", "Plan", "target_from_env", "parse_wants", "wants_from_env", "resolve",
           "PLAN_SCHEMA"]

PLAN_SCHEMA = "envcheck/plan/1"

# ----------------------------------------------------------------------------------------------
# inputs


#: the machine a plan is for (the engine's Machine)
Target = Machine


@dataclass
class Want:
    name: str  # torch | torchvision | torchaudio | tensorflow | jax
    spec: Any  # packaging SpecifierSet
    text: str
    extras: Tuple[str, ...] = ()
    installed: Optional[str] = None  # the installed version this want came from (no --want)
    installed_variant: Optional[str] = None  # its local version label ("cu124", "cpu"), when it has one


def target_from_env(env: Environment, matrix: Matrix, *, python: Optional[str] = None,
                    driver: Optional[str] = None, ccs: Sequence[str] = (), gpus: Sequence[str] = (),
                    platform: Optional[str] = None) -> Target:
    """The target machine: what the Environment says, with command-line overrides."""
    return machine_from_env(env, matrix, python=python, driver=driver, ccs=ccs, gpus=gpus, platform=platform)


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
        extras = tuple(sorted(r.extras))
        cupy_dist = parse_cupy_name(name)
        if cupy_dist is not None:
            if not cupy_dist[1]:
                raise UsageError(f"--want {r.name}: per-minor CuPy wheels ended with CuPy 12; ask for 'cupy' or "
                                 "cupy-cuda11x / cupy-cuda12x / cupy-cuda13x")
            name, extras = "cupy", tuple(sorted(set(extras) | {f"cuda{cupy_dist[0]}x"}))
        if name == "onnxruntime":
            raise UsageError(f"--want {r.name}: 'onnxruntime' is ONNX Runtime's CPU package; ask for 'onnxruntime-gpu' "
                             "(the plan picks a release whose CUDA the machine runs)")
        if name == "onnxruntime-gpu":
            name = "onnxruntime"  # the framework; its package is onnxruntime-gpu
        if name not in TORCH_FAMILY + ("tensorflow", "jax", "cupy", "onnxruntime"):
            raise UsageError(f"--want {r.name}: envcheck plans torch, torchvision, torchaudio, tensorflow, jax, cupy and "
                             "onnxruntime-gpu")
        if r.marker is not None or r.url:
            raise UsageError(f"--want {text!r}: markers and URLs are not supported here")
        if any(w.name == name for w in out):
            raise UsageError(f"--want {name} given twice")
        out.append(Want(name=name, spec=r.specifier, text=text, extras=extras))
    return out


def wants_from_env(env: Environment) -> List[Want]:
    """Without --want: the frameworks installed now (from the package list, else from the framework's own
    files, e.g. a snapshot's torch.json), at their installed versions when they can work."""
    from packaging.specifiers import SpecifierSet

    out: List[Want] = []
    for name in ("torch", "torchvision", "torchaudio", "tensorflow", "jax"):
        v = env.packages.get(name)
        if name == "tensorflow" and not v:
            v = env.packages.get("tensorflow-gpu") or env.packages.get("tensorflow-cpu")
        if not v and name in env.frameworks:
            v = env.frameworks[name].version
        present = name in env.packages or name in env.frameworks or (
            name == "tensorflow" and ("tensorflow-gpu" in env.packages or "tensorflow-cpu" in env.packages))
        if not v and not present:
            continue
        # installed with an unknown version (an empty or missing version string): still a want, of any version
        base, _, local = (v or "").partition("+")
        out.append(Want(name=name, spec=SpecifierSet(), text=name,
                        installed=base if base and _is_version(base) else None, installed_variant=local or None))
    # CuPy: installed as a CUDA wheel (cupy-cuda12x ...)
    for dist in sorted(env.packages):
        got = parse_cupy_name(dist)
        if got is not None and got[1]:
            base = str(env.packages.get(dist) or "").split("+", 1)[0]
            # any CUDA major: the installed release first (any of its wheels), else whatever runs here
            out.append(Want(name="cupy", spec=SpecifierSet(), text="cupy",
                            installed=base if base and _is_version(base) else None))
            break
    return out


def _is_version(v: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        Version(v)
    except (InvalidVersion, ValueError):  # ValueError: more digits than int() converts
        return False
    return True


def _rank(v: Verdict) -> Tuple[Any, ...]:
    """Preference within acceptable builds: verified first (an unverified build only when no verified
    one exists), then the newest release, full driver support, the strategy, then CUDA."""
    b = v.build
    c = cuda_tuple(b.cuda) or (0, 0)
    # under full support the newest CUDA; under minor-version compatibility the one closest to the driver
    cuda_pref = c if v.full_support else tuple(-x for x in c)
    strategy = {"system": 2, "and-cuda": 1, "shared": 2}.get(b.variant or "", 0)
    return (not v.unknown, _vkey(b.version), v.full_support, strategy, cuda_pref, b.pypi_default)


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
    considered: List[Verdict] = field(default_factory=list)  # every candidate the engine judged (not output)

    def packages(self) -> List[Dict[str, Any]]:
        out: List[Dict[str, Any]] = []
        caps = {id(v.build): v.caps for v in self.verdicts}
        for b in self.builds:
            variant = b.variant if b.variant not in ("system", "shared") else None
            name = b.companions.get("package", b.framework) if b.framework in ("tensorflow", "cupy", "onnxruntime") \
                else b.framework
            out.append({"name": name, "version": b.version, "variant": variant, "index_url": b.index_url,
                        "find_links": b.find_links, "extras": list(b.extras), "cuda": b.cuda, "cudnn": b.cudnn})
            for comp in ("torchvision", "torchaudio"):
                if comp in b.companions and comp in self._companions_wanted:
                    out.append({"name": comp, "version": b.companions[comp], "variant": variant,
                                "index_url": b.index_url, "find_links": b.find_links, "extras": [], "cuda": b.cuda,
                                "cudnn": None})
            for cname, cver in caps.get(id(b), {}).items():
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
    return spec_contains(want.spec, version)


def _candidates(matrix: Matrix, framework: str, target: Target, wants: Dict[str, Want]) -> List[Build]:
    if framework == "torch":
        return _torch_candidates(matrix, target, wants)
    if framework == "tensorflow":
        w = wants.get("tensorflow")
        out = [b for b in tensorflow_builds(matrix, target.platform) if _spec_ok(w, b.version)]
        if w is not None and "and-cuda" in w.extras:
            out = [b for b in out if b.variant == "and-cuda"]
        return out
    if framework == "cupy":
        w = wants.get("cupy")
        out = [b for b in cupy_builds(matrix, target.platform) if _spec_ok(w, b.version)]
        if w is not None:
            dists = [e for e in w.extras if e.startswith("cuda")]
            if dists:
                out = [b for b in out if b.variant in dists]
        return out
    if framework == "onnxruntime":
        from envcheck.engine.onnxruntime import ort_builds

        w = wants.get("onnxruntime")
        return [b for b in ort_builds(matrix) if _spec_ok(w, b.version)]
    if framework == "jax":
        w = wants.get("jax")
        out = [b for b in jax_builds(matrix, target.platform) if _spec_ok(w, b.version)]
        cudas = [e for e in (w.extras if w is not None else ()) if e.startswith("cuda")]
        return [b for b in out if b.variant in cudas] if cudas else out
    return []


def _torch_candidates(matrix: Matrix, target: Target, wants: Dict[str, Want]) -> List[Build]:
    """torch builds matching the torch want, whose torchvision / torchaudio match theirs."""
    companions = [(c, wants[c]) for c in ("torchvision", "torchaudio") if c in wants]
    return [b for b in torch_builds(matrix, target.platform, target.platform_known) if _spec_ok(wants.get("torch"), b.version)
            and all(b.companions.get(c) is not None and _spec_ok(w, b.companions[c]) for c, w in companions)]


def _verdicts(matrix: Matrix, builds: List[Build], target: Target) -> List[Verdict]:
    out = []
    for b in builds:
        # TensorFlow's system variant: the engine checks the system's libraries itself (engine.stack)
        libs_ok = cupy_system_libs_ok(b, target.system_cudart) if b.framework == "cupy" and not b.extras else True
        out.append(evaluate(matrix, b, target, cuda_libs_ok=libs_ok))
    dropped_arch(out, target.ccs)
    return out


def _best(verdicts: List[Verdict]) -> Optional[Verdict]:
    ok = [v for v in verdicts if v.ok]
    return max(ok, key=_rank) if ok else None


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
    if not plan.satisfiable and not needs:
        # blocked by the driver: the driver that lifts it (contract §5 driver.required_min)
        lifted = [DriverVersion.parse(str(lift.get("min"))) for lift in plan.lifts if lift.get("constraint") == "driver"]
        needs = [d for d in lifted if d is not None]
    plan.required_driver = max(needs) if needs else None
    if plan.required_driver is None:
        plan.upgrade_needed = False if plan.satisfiable else None
    elif target.driver is None:
        plan.upgrade_needed = None
    else:
        plan.upgrade_needed = driver_upgrade_needed(target.driver, plan.required_driver)
    for v in plan.verdicts:
        for u in v.unknown:
            plan.notes.append(f"{v.build.label}: unverified: {u} - run `envcheck smoke` after installing")
    for b in plan.builds:
        if b.framework == "torch" and b.variant == "cpu" and b.index_url and not matrix.torch_variant(b.version, "cpu"):
            plan.notes.append(f"{b.label}: the matrix has no cpu row for this release, so its index ({b.index_url}) "
                              "is PyTorch's usual one, not read from a source")
    return plan


def _single(matrix: Matrix, fw: str, target: Target, wants: Dict[str, Want]) -> Tuple[Optional[Verdict], List[Verdict]]:
    vs = _verdicts(matrix, _candidates(matrix, fw, target, wants), target)
    # keeping what works: the installed build itself (its variant too) when the engine finds it runs
    w = wants.get(fw)
    if w is not None and w.installed and w.installed_variant and w.spec:
        same = [v for v in vs if v.ok and v.build.variant == w.installed_variant and v.build.version == w.installed]
        if same:
            return max(same, key=_rank), vs
    return _best(vs), vs


def _failure_reason(c: str, best: Verdict, target: Target) -> str:
    b = best.build
    if c == "driver":
        need = f" (needs driver >= {best.required_driver})" if best.required_driver else ""
        if best.never or best.driver_max is not None:
            return best.failed["driver"]
        if target.driver is None and target.driver_cuda is None:
            return f"no NVIDIA driver was found on this machine; {b.label} needs one{need}"
        why = best.failed.get("driver", "")
        detail = f": {why}" if "first driver for" in why else ""  # a GPU generation's first branch binds
        return f"the driver {target.driver or ''} (CUDA {target.driver_cuda or '?'}) is too old for {b.label}{need}{detail}"
    if c == "python":
        return f"Python {target.python} has no wheels for {b.label} (it has {', '.join(b.python)})"
    if c == "libraries" and b.framework == "cupy":
        return (f"{b.label} loads the CUDA libraries of a CUDA {b.cuda}+ toolkit on the system (its wheel has no ctk "
                "extra), and none is here")
    if c == "libraries":
        return f"{b.label} needs CUDA {b.cuda} and cuDNN {b.cudnn} installed on the system, and they are not here"
    return best.failed[c]


def _lift(c: str, best: Verdict, target: Target) -> Dict[str, Any]:
    """What lifts constraint ``c`` for the build ``best``."""
    b = best.build
    if c == "driver" and best.driver_max is not None:
        return {"constraint": "driver", "action": f"install a driver of the R{best.driver_max.major} branch, the last "
                                                  "that supports this GPU", "max_branch": str(best.driver_max)}
    if c == "driver" and best.never:
        return {"constraint": "driver", "action": "none: no driver that runs this build supports this GPU; choose an "
                                                  "older release built for a CUDA its driver branch supports",
                "min": None}
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
    if b.framework == "cupy":
        return {"constraint": "libraries", "action": f"install a CUDA {b.cuda}+ toolkit of the same major system-wide"}
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
            "torch" if fw == "torch" else fw, "package" if fw == "cupy" else "release")) if isinstance(v, str)},
            key=_vkey)
        rng = f" (the matrix knows {known[0]} to {known[-1]})" if known else ""
        reason = f"no {fw} build in the matrix matches {specs}{rng}{_update_hint()}"
        lifts.append({"constraint": "spec", "action": f"relax {specs}"})
        return reason, lifts, alts
    # the builds that fail exactly one constraint say what lifts it
    order = ("driver", "arch", "python", "platform", "libraries")
    reasons: List[str] = []
    no_driver = target.driver is None and target.driver_cuda is None
    companions = tuple(w for w in wants if w in ("torchvision", "torchaudio"))
    advice = advice_from_verdicts(verdicts)
    for c in order:
        only = [v for v in verdicts if set(v.failed) == {c}]
        if not only:
            continue
        best = max(only, key=_rank)
        reasons.append(_failure_reason(c, best, target))
        lift = _lift(c, best, target)
        if c == "driver" and advice is not None and best.driver_max is None and not best.never:
            # both upgrades: the smallest that runs a build, and the newest build's floor (engine/advice.py)
            lift = {"constraint": "driver", "action": advice.sentence(target.driver), "min": str(advice.smallest),
                    **advice.to_dict()}
            if not advice.same:
                sv = next(v for v in verdicts if v.build is advice.smallest_build)
                p = Plan(True, None, [sv.build], [sv], target=target)
                p._companions_wanted = companions
                _finish(p, target, matrix)
                p.upgrade_needed = None if no_driver else True
                alts.append((f"with the smallest driver upgrade (>= {advice.smallest})", p))
        lifts.append(lift)
        if c == "driver":
            p = Plan(True, None, [best.build], [best], target=target)
            p._companions_wanted = companions
            _finish(p, target, matrix)
            p.upgrade_needed = None if no_driver else True
            alts.append((f"with a driver of the R{best.driver_max.major} branch" if best.driver_max is not None
                         else "after a driver upgrade", p))
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
    cb = cpu_build(matrix, fw, base.version, target.platform, target.platform_known)
    if cb is not None:
        cv = evaluate(matrix, cb, target)
        if cv.ok:
            p = Plan(True, None, [cb], [cv], target=target)
            p._companions_wanted = tuple(w for w in wants if w in ("torchvision", "torchaudio"))
            alts.append(("CPU only (no GPU acceleration)", _finish(p, target, matrix)))
    return reason, lifts, alts


def _any_spec() -> Any:
    from packaging.specifiers import SpecifierSet

    return SpecifierSet()


def resolve(matrix: Matrix, target: Target, wants: List[Want], cpu: bool = False,
            require_gpu: bool = False) -> Plan:
    """The plan for ``wants`` on ``target``; ``cpu``: the CPU builds, asked for explicitly.

    On a machine with no NVIDIA driver and no sign of an NVIDIA GPU the plan is the CPU builds (as uv's
    ``--torch-backend=auto`` and light-the-torch decide), and says why; ``require_gpu`` plans for a GPU
    all the same (unsatisfiable until a driver is there, with that lift).
    """
    if not wants:
        raise UsageError("nothing to plan: no framework is installed here; name one with --want (e.g. --want torch)")
    wmap = {w.name: w for w in wants}
    companions = tuple(w.name for w in wants if w.name in ("torchvision", "torchaudio"))
    if cpu:
        return resolve_cpu(matrix, target, wmap, companions)
    # installed releases the matrix has no row for (a nightly, a source or NGC build, a release newer than the
    # matrix): whether they run is not known, so they are neither judged nor replaced (status checks them with
    # what the build itself says)
    unlisted, keep_notes = _unlisted_installed(matrix, wants)
    if unlisted:
        wants = [w for w in wants if w.name not in unlisted]
        wmap = {w.name: w for w in wants}
        companions = tuple(w.name for w in wants if w.name in ("torchvision", "torchaudio"))
        if not wants:
            plan = Plan(True, None, target=target, upgrade_needed=False)
            plan.notes = list(target.notes) + keep_notes
            return plan
    unknown_gpu = not target.gpu_signs and not target.driver_captured
    # no driver capture at all (a snapshot made by hand): whether there is a GPU is not known; an installed CUDA
    # build is then the one sign of what the machine is for, and is not swapped for a CPU build on that unknown
    cuda_installed = any(re.match(r"^cu\d{2,3}$", w.installed_variant or "") for w in wants)
    if not target.gpu_signs and not require_gpu and not (unknown_gpu and cuda_installed):
        plan = _keep_installed(matrix, wants, wmap, partial(resolve_cpu, matrix, target, companions=companions))
        why = ("no NVIDIA driver and no sign of an NVIDIA GPU in this snapshot, which holds no driver or GPU capture "
               "either (nvidia-smi.txt, proc-driver-version.txt, nvml.json): whether this machine has an NVIDIA GPU "
               "is not known; planned: the CPU builds" if unknown_gpu else
               "no NVIDIA driver and no sign of an NVIDIA GPU on this machine, so the CPU builds")
        plan.notes = list(target.notes) + [
            f"{why}: give --require-gpu (or --driver / --gpu) to plan for a GPU"] + [
            n for n in plan.notes if "as asked (--cpu)" not in n]
        plan.notes += keep_notes
        return plan
    plan = _keep_installed(matrix, wants, wmap, partial(resolve_wants, matrix, target, companions=companions))
    if unknown_gpu and not require_gpu:
        plan.notes.insert(0, "this snapshot holds no driver or GPU capture, so whether this machine has an NVIDIA GPU "
                             "is not known: planned for the installed CUDA build, with the driver and GPU unchecked "
                             "(give --driver / --gpu, or add nvidia-smi.txt to the snapshot)")
    plan.notes = list(target.notes) + plan.notes + keep_notes
    return plan


def _unlisted_installed(matrix: Matrix, wants: List[Want]) -> Tuple[Set[str], List[str]]:
    """Without --want: the installed frameworks whose installed release the matrix has no row for because it is a
    pre-release / source build or newer than the matrix (the whole torch family with torch, whose companions pair
    with it), and a note for each: they are kept as they are, never swapped for an older listed release."""
    from envcheck.engine.freshness import not_in_matrix

    names: Set[str] = set()
    notes: List[str] = []
    for w in wants:
        if not w.installed or w.spec or w.name in ("torchvision", "torchaudio"):
            continue
        got = not_in_matrix(matrix, w.name, w.installed)
        if got is None or got[0] == "unlisted":
            continue  # an old release the matrix does not list: replaced by one it can check (and said why)
        why = got[1]
        group = [x.name for x in wants if x.name in TORCH_FAMILY] if w.name == "torch" else [w.name]
        names.update(group)
        label = w.installed + (f"+{w.installed_variant}" if w.installed_variant else "")
        also = [g for g in group if g != w.name]
        notes.append(f"keeps the installed {w.name} {label}" + (f" (and its {', '.join(also)})" if also else "")
                     + f" as it is: {why}, so whether it runs here is not known and no replacement is planned for "
                     f"it (`envcheck status` checks it with what the build itself says; --want {w.name}==VERSION "
                     "plans a listed release)")
    return names, notes


def _keep_installed(matrix: Matrix, wants: List[Want], wmap: Dict[str, Want], plan_for: Callable[..., Plan]) -> Plan:
    """Without --want: the installed versions are kept when a plan with them fits (their own build too, when it
    runs); a version or build that is replaced is named, with the reason."""
    from packaging.specifiers import SpecifierSet

    pinned = {w.name: Want(w.name, SpecifierSet(f"=={w.installed}"), f"{w.name}=={w.installed}", w.extras,
                           w.installed, w.installed_variant)
              for w in wants if w.installed and not w.spec}
    if not pinned:
        return plan_for(wmap=wmap)
    first = plan_for(wmap={**wmap, **pinned})
    if first.satisfiable:
        first.notes = ["keeps the installed versions: " + ", ".join(p.text for p in pinned.values())] \
            + _replaced_builds(first, pinned) + first.notes
        return first
    plan = plan_for(wmap=wmap)
    chosen = {b.framework: b for b in plan.builds}
    replaced = [f"{w.name} {w.installed}" + (f" with {chosen[w.name].version}" if w.name in chosen else "")
                for w in pinned.values()]
    # a limit of the planner (a set of frameworks it does not plan together) or of the matrix (a release it does not
    # list) is not a fact about the machine
    from envcheck.engine.freshness import not_in_matrix

    unlisted = [f"{w.name} {w.installed} is {got[1]}" for w in pinned.values()
                for got in [not_in_matrix(matrix, w.name, w.installed)] if got is not None]
    if unlisted:
        verdict = ("whether the installed versions work here is not known (" + "; ".join(unlisted) + "), so the plan "
                   "uses releases the matrix can check")
    elif "not planned by envcheck" in (first.reason or ""):
        verdict = f"envcheck plans no environment that keeps them: {first.reason}"
    else:
        verdict = f"the installed versions cannot work here: {first.reason}"
    plan.notes = [f"replaces the installed {', '.join(replaced)}: {verdict}"] + plan.notes
    return plan


def _replaced_builds(plan: Plan, pinned: Dict[str, Want]) -> List[str]:
    """The kept versions whose installed build (variant) is swapped for another, and the engine's reason."""
    out = []
    for b in plan.builds:
        w = pinned.get(b.framework)
        if w is None or not w.installed_variant or b.variant == w.installed_variant:
            continue
        why = next((v.failed for v in plan.considered if v.build.framework == b.framework
                    and v.build.variant == w.installed_variant and v.build.version == w.installed), None)
        if why is None and b.variant == "cpu":
            why = {"gpu": f"this machine has no NVIDIA GPU, so the CUDA libraries of the {w.installed_variant} build "
                          "go unused (the installed build keeps running on the CPU as it is)"}
        out.append(f"replaces the installed {b.framework} {w.installed}+{w.installed_variant} with the "
                   f"{b.variant or 'default'} build of the same version"
                   + (": " + "; ".join(why.values()) if why else ""))
    return out


def resolve_cpu(matrix: Matrix, target: Target, wmap: Dict[str, Want], companions: Tuple[str, ...] = ()) -> Plan:
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
        elif fw in ("cupy", "onnxruntime"):
            versions = []  # CuPy has no CPU build; onnxruntime-gpu's CPU twin is another package (onnxruntime)
        else:
            versions = [r.get("jax") for r in matrix.rows("jax", "release") if _spec_ok(wmap.get("jax"), str(r.get("jax")))]
        vs = [evaluate(matrix, b, target) for b in (cpu_build(matrix, fw, v, target.platform, target.platform_known) for v in versions
                                                   if isinstance(v, str)) if b is not None]
        ok = [v for v in vs if v.ok]
        if not ok:
            why = "; ".join(dict.fromkeys(f for v in vs for f in v.failed.values())) or NO_CPU_BUILD.get(fw) \
                or "no release matches"
            plan = Plan(False, f"no CPU build of {fw} fits: {why}", target=target)
            plan._companions_wanted = companions
            return _finish(plan, target, matrix)
        chosen.append(max(ok, key=lambda v: _vkey(v.build.version)))
    plan = Plan(True, None, [v.build for v in chosen], chosen, target=target,
                notes=["CPU-only builds, as asked (--cpu): no GPU acceleration"])
    plan._companions_wanted = companions
    return _finish(plan, target, matrix)


def resolve_wants(matrix: Matrix, target: Target, wmap: Dict[str, Want], companions: Tuple[str, ...] = ()) -> Plan:
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
        plan = Plan(True, None, [best.build], [best], target=target, considered=singles[fws[0]][1])
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
            tb = tv.build
            if fw == "tensorflow":
                pick = _first_pairing(tf_shared, partial(_pair_shared, tb), why_not)
                if pick is not None:
                    env = _shared_env(target)
            else:  # jax, cupy: the same CUDA major as torch, and no pin against torch's
                pick = _first_pairing(oks[fw], partial(_pair_jax, tb), why_not)
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
        why_not.append(" and ".join(fws) + " in one environment are not planned by envcheck without torch")
    # no shared environment: two
    parts = []
    for fw in fws:
        best = singles[fw][0]
        assert best is not None
        p = Plan(True, None, [best.build], [best], target=target)
        p._companions_wanted = companions if fw == "torch" else ()
        parts.append(_finish(p, target, matrix))
    labels = " and ".join(p.builds[0].label for p in parts)
    reason = ("no versions of " + " and ".join(fws) + " share one CUDA/cuDNN in one environment here"
              + (f" ({'; '.join(why_not)})" if why_not else "") + f"; use two environments: {labels}")
    plan = Plan(False, reason, target=target, split=parts,
                lifts=[{"constraint": "together", "action": "install each framework in its own venv"}])
    plan._companions_wanted = companions
    return _finish(plan, target, matrix)


def _pair_shared(tb: Build, c: Verdict) -> Optional[str]:
    a = tensorflow_on_torch_libraries(tb, c.build)
    return None if a.ok else a.reason


def _pair_jax(tb: Build, c: Verdict) -> Optional[str]:
    a = jax_beside_torch(tb, c.build)
    return None if a.ok else a.reason


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


def _update_hint() -> str:
    """`envcheck matrix update` is suggested only when it has a default source to update from (without
    one, `matrix update` needs `--from URL`, which nobody publishes yet: suggesting it would send the
    user nowhere)."""
    from envcheck.matrix import download

    source = getattr(download, "DEFAULT_SOURCE", None) or getattr(download, "DEFAULT_URL", None)
    return "; `envcheck matrix update` may know newer releases" if source else ""
