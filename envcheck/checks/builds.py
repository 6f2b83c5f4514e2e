"""Installed framework builds x this machine, through the one engine: driver-too-old, gpu-arch-unsupported,
python-unsupported, and a ``not-checked`` note for every constraint that could not be decided."""

from __future__ import annotations

from typing import List, Optional

from envcheck.checks import Context
from envcheck.checks._util import cuda_major, driver_advice_text, label, suggest_build
from envcheck.matrix import Matrix
from envcheck.model import Environment, Finding, Framework, Severity

__all__ = ["check_installed_builds"]


def _driver_finding(env: Environment, matrix: Matrix, fw: Framework, why: str, need: Optional[str],
                    never: bool, how: str = "") -> Finding:
    """``why``: the engine's whole reason; ``how``: only the driver rule's part of it, when the driver's
    CUDA is too low (the message names the build and the driver itself, and the fix the driver needed)."""
    d = env.driver
    drv = f"driver {d.version}" if d.version else "the driver"
    cmaj = cuda_major(fw)
    cuda = f"CUDA {fw.cuda}" if fw.cuda else (f"CUDA {cmaj}.x" if cmaj else "CUDA")
    if fw.name == "onnxruntime" and not fw.cuda and not cmaj:
        from envcheck.engine.onnxruntime import ort_needs

        feeds = ort_needs(matrix, fw.version)  # the builds its version may be, one per package feed
        if feeds:
            cuda = " or ".join(dict.fromkeys(n.cuda_text for n in feeds)) + " (by package feed)"
    if never:
        msg = f"{label(fw)} cannot run here: {why}."
        fix = ("No newer driver will ever support this GPU with this build: use an older release built for a CUDA "
               "this driver branch supports (`envcheck fix`), or a newer GPU.")
    else:
        if how.startswith("the driver supports"):  # the rule says what the driver supports: say it once
            said = how.replace("the driver", drv, 1)
        elif how and d.cuda is None and d.version and how.startswith(f"driver {d.version} "):
            said = how  # the driver's own CUDA is unknown; its version alone is below the build's lowest driver
        elif how:
            said = f"{drv} supports CUDA {d.cuda or '?'} at most ({how})"
        else:
            said = f"{drv} supports CUDA {d.cuda or '?'} at most: {why}"
        msg = (f"{label(fw)} was built with {cuda}, but {said}. "
               "CUDA calls fail with 'CUDA driver version is insufficient for CUDA runtime version'.")
        fix = "Upgrade the NVIDIA driver" + (f" to >= {need}" if need else "") + "."
        dc = [g for g in env.visible_gpus if (matrix.gpu(g.name) or {}).get("segment") == "datacenter"]
        if dc and len(dc) == len(env.visible_gpus):
            fix += (" On these data-center GPUs the CUDA forward-compatibility package (`cuda-compat-X-Y` for the "
                    "build's CUDA, its libcuda first on the library path) also works with this driver branch.")
        alt = suggest_build(env, matrix, fw)
        if alt:
            fix += f" Or keep this driver and install a build that runs on it: `{alt}`."
        else:
            advice = driver_advice_text(env, matrix, fw)
            if advice:
                fix += " " + advice
    ev = f"driver {d.version or '?'} (CUDA {d.cuda or 'unknown'}, from {d.cuda_source or d.source or '?'}); " \
         f"{fw.name}.cuda = {fw.cuda or '?'}" + (f" (from {fw_cuda_source(fw)})" if fw_cuda_source(fw) else "")
    return Finding("driver-too-old", Severity.ERROR, msg, fix, ev, fw.name)


def fw_cuda_source(fw: Framework) -> Optional[str]:
    return getattr(fw, "cuda_source", None)


def _arch_finding(env: Environment, matrix: Matrix, fw: Framework, why: str, arch_source: Optional[str]) -> Finding:
    gpus = ", ".join(f"GPU {g.index} ({g.name}, compute capability {g.compute_capability})"
                     for g in env.visible_gpus if g.compute_capability) or "this GPU"
    # torch's own capability check (engine.rules.capability_check): the kernels load, the build's CUDA libraries fail
    symptom = ("Its CUDA library calls (cuBLAS, cuDNN) fail on this GPU, the failures that made torch add this check "
               "(pytorch/pytorch#21468)." if "capability check" in why else
               "Kernels fail with 'no kernel image is available for execution on the device'.")
    msg = f"{label(fw)} cannot run its CUDA kernels on {gpus}: {why}. {symptom}"
    alt = suggest_build(env, matrix, fw)
    if alt:
        fix = f"Install a build compiled for this GPU: `{alt}`."
    elif fw.name == "tensorflow":
        fix = ("Use a TensorFlow release compiled for this GPU (`envcheck fix --want tensorflow`), or build from "
               "source with TF_CUDA_COMPUTE_CAPABILITIES including this GPU.")
    else:
        fix = (_no_build_fix(env, matrix, fw) or
               f"Choose a {fw.name} release/variant compiled for this GPU (`envcheck fix`); newer CUDA variants drop "
               "old GPUs, older ones lack new GPUs.")
    ev = f"arch list from {arch_source or 'the matrix'}; compute capability from " + ", ".join(
        sorted({str(g.cc_source) for g in env.visible_gpus if g.compute_capability}))
    return Finding("gpu-arch-unsupported", Severity.ERROR, msg, fix, ev, fw.name)


def _no_build_fix(env: Environment, matrix: Matrix, fw: Framework) -> Optional[str]:
    """When every GPU is older than the oldest compute capability any CUDA toolkit in the matrix can target
    (compute capability 1.x/2.x parts: CUDA 6.5 and 8.0 were their last toolkits), no release or variant of any
    framework helps: say so instead of "choose a build"."""
    from envcheck.engine.rules import below_every_toolkit

    low = below_every_toolkit(matrix, [g.compute_capability for g in env.visible_gpus if g.compute_capability])
    if low is None:
        return None
    return (f"No current CUDA build of {fw.name} supports this GPU: its compute capability is older than every "
            f"target of the CUDA toolkits envcheck knows (the oldest is {low}). Run on the CPU "
            "(device='cpu'), or use a newer GPU.")


def _arch_list_alone(env: Environment, matrix: Matrix) -> List[Finding]:
    """A build's own arch list is a fact on its own: with the release unknown (no version), a GPU whose
    compute capability the list cannot run (engine.rules.arch_ok) is still gpu-arch-unsupported."""
    from envcheck.engine.rules import arch_ok

    out: List[Finding] = []
    for fw in env.frameworks.values():
        arch = getattr(fw, "arch_list", None)
        if fw.version or not arch or getattr(fw, "cpu_only", False):
            continue
        bad = [g for g in env.visible_gpus if g.compute_capability and arch_ok(arch, g.compute_capability) is False]
        if bad:
            why = (f"its arch list ({' '.join(arch)}) has no kernel for compute capability "
                   + ", ".join(sorted({str(g.compute_capability) for g in bad})) + " (release unknown)")
            out.append(_arch_finding(env, matrix, fw, why, getattr(fw, "arch_source", None)))
    return out


def check_installed_builds(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    from envcheck.engine import evaluate, machine_from_env
    from envcheck.engine.builds import installed_build

    out_arch = _arch_list_alone(env, matrix)
    fws = [fw for fw in env.frameworks.values() if fw.name in ("torch", "tensorflow", "jax", "cupy") and fw.version]
    fws += [fw for fw in env.frameworks.values() if fw.name == "onnxruntime" and fw.version and not fw.cpu_only
            and fw.distribution == "onnxruntime-gpu"]
    paddle = _paddle_build(env)
    if paddle is not None:
        fws.append(paddle)
    if not fws:
        return out_arch
    machine = machine_from_env(env, matrix)
    out: List[Finding] = []
    for fw in fws:
        b = installed_build(matrix, fw)
        v = evaluate(matrix, b, machine)
        if "python" in v.failed and b.python:
            out.append(Finding("python-unsupported", Severity.WARNING,
                               f"{label(fw)} publishes wheels for Python {', '.join(b.python)}, not Python "
                               f"{machine.python}.",
                               f"Use Python {b.python[-1]} (or another listed version) for this release, or pick a "
                               f"{fw.name} release that supports Python {machine.python} (`envcheck fix`).",
                               f"python {env.python.version}; matrix row source {b.source or 'the release table'}",
                               fw.name))
        if (not b.gpu and fw.cpu_only is None and fw is not paddle and machine.has_driver
                and not (fw.rocm or fw.hip or fw.xpu or (fw.mps or {}).get("built"))):
            # a version alone (a package list): whether this is a CUDA or a CPU build is not known, so nothing
            # about the driver or the GPUs was checked - said, not passed over as fine
            out.append(Finding("not-checked", Severity.INFO,
                               f"{label(fw)}: whether this is a CUDA or a CPU build is not known (only its version "
                               "was read), so it was not checked against the driver and the GPUs.",
                               _not_checked_fix(fw.name),
                               f"{fw.distribution or fw.name} {fw.version}: no build facts "
                               f"({fw.name}.json / requires.json) and no local version label", fw.name))
            continue
        if not b.gpu or (not fw.cuda and (fw.rocm or fw.hip or fw.xpu or (fw.mps or {}).get("built"))):
            continue  # CPU, or a ROCm / XPU / MPS build: checks.vendors judges those (contract §9)
        if "arch" in v.failed or "cudnn" in v.failed:
            why = "; ".join(v.failed[k] for k in ("arch", "cudnn") if k in v.failed)
            out.append(_arch_finding(env, matrix, fw, why, b.arch_source))
        # the driver's own CUDA unknown, its version below the build's lowest driver: where the GPU's architecture
        # already rules the build out, that decides (a driver upgrade would not help), and the driver is not said
        gpu_decides = ("arch" in v.failed or "cudnn" in v.failed) and machine.driver_cuda is None
        if "driver" in v.failed and machine.has_driver and not gpu_decides:
            need = str(v.required_driver) if v.required_driver else None
            out.append(_driver_finding(env, matrix, fw, v.failed["driver"], need, v.never, v.driver_how))
        if fw is paddle:
            continue  # only its CUDA is known (the wheel label): nothing else to report as not checked
        unknown = [u for u in v.unknown if not (u.startswith("the Python version") and not machine.has_driver)]
        if unknown and machine.has_driver and not v.failed:
            out.append(Finding("not-checked", Severity.INFO,
                               f"{label(fw)}: not everything could be checked: " + "; ".join(unknown) + ".",
                               _not_checked_fix(fw.name),
                               f"{b.label}: " + " | ".join(v.lines), fw.name))
    return out_arch + out


def _paddle_build(env: Environment) -> Optional[Framework]:
    """A PaddlePaddle GPU wheel whose ``.postNNN`` label names its CUDA (``paddlepaddle-gpu 2.3.2.post112``: CUDA
    11.2): the driver must run that CUDA, as for any other build (the engine's driver rule, compat_matrix/cuda.toml).
    Paddle is not one of the environment's frameworks; only the label is known of it."""
    from envcheck.parse.versions import paddle_cuda_from_version

    ver = (env.packages.get("paddlepaddle-gpu") or "").split("=")[0]
    cuda = paddle_cuda_from_version(ver)
    if not cuda:
        return None
    return Framework(name="paddle", version=ver, distribution="paddlepaddle-gpu", cuda=cuda,
                     cuda_source=f"the wheel label {ver}", cpu_only=False, evidence="packages.json")


def _not_checked_fix(framework: str) -> str:
    """How to supply what a build check lacked: torch's arch list and cuDNN come from ``--deep``; for the other
    frameworks nothing at run time lists the architectures, a real kernel on the GPU (smoke) is the check."""
    from envcheck.engine import arch_list_reader

    reader = arch_list_reader(framework)
    if reader == "deep":
        deep = "`envcheck status --deep` (reads the arch list and cuDNN from the installed build)"
    elif reader == "smoke":
        deep = f"`envcheck smoke --framework {framework}` (runs real kernels of the installed build on each GPU)"
    else:
        deep = "`envcheck status --deep` (runtime facts of the installed build)"
    return (f"Give envcheck the missing facts: {deep}, `--interpreter PYTHON` (the training venv's python), "
            "or a fuller snapshot (`envcheck snapshot`).")
