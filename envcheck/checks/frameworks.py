"""Framework-build findings: CPU-only builds, GPU architectures, Python, conflicts, toolkit, known-bad."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence

from envcheck.checks import Context
from envcheck.checks._util import label, suggest_build
from envcheck.matrix import Matrix
from envcheck.engine.builds import Build
from envcheck.engine.stack import pins_conflict, toolkit_for_extensions
from envcheck.engine.status import Status
from envcheck.model import Environment, Finding, Framework, Severity
from envcheck.matrix.fixes import render_fix
from envcheck.versions import plain_spec_contains


def check_cpu_only(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    if not (env.driver.present and env.gpus):
        return []
    out = []
    for fw in env.frameworks.values():
        if fw.name == "onnxruntime":
            out += _onnxruntime_cpu(env, matrix, fw)
            continue
        if fw.cpu_only is not True or fw.name not in ("torch", "tensorflow", "jax"):
            continue
        gpus = ", ".join(f"{g.name}" for g in env.gpus[:4])
        out.append(Finding("framework-cpu-only", Severity.WARNING,
                           f"{label(fw)} is a CPU-only build, but this machine has NVIDIA GPU(s): {gpus}.",
                           cpu_only_fix(env, matrix, fw), fw.evidence, fw.name))
    return out


def _onnxruntime_cpu(env: Environment, matrix: Matrix, fw: Framework) -> List[Finding]:
    """ONNX Runtime's CPU package beside onnxruntime-gpu (engine.onnxruntime.cpu_shadows_gpu) on a machine with NVIDIA
    GPUs."""
    from envcheck.engine.onnxruntime import CPU, GPU, cpu_shadows_gpu

    gpus = ", ".join(f"{g.name}" for g in env.gpus[:4])
    shadow = cpu_shadows_gpu(env.packages)
    if shadow is not None:
        return [Finding("framework-cpu-only", Severity.WARNING,
                        f"ONNX Runtime may be its CPU build here: {shadow.reason} (NVIDIA GPU(s): {gpus}).",
                        cpu_only_fix(env, matrix, fw),
                        f"packages: {CPU} {env.packages[CPU]}, {GPU} {env.packages[GPU]}", fw.name)]
    # the CPU package alone: often a dependency (rembg, ...) nobody runs on the GPU; nothing here shows its CUDA
    # provider was wanted, so it is no finding (explain says it where the text asks for CUDAExecutionProvider)
    return []


def cpu_only_fix(env: Environment, matrix: Matrix, fw: Framework) -> str:
    """The fix for a CPU-only build of ``fw`` (also used by explain's pasted-report ranking)."""
    if fw.name == "torch":
        fix = suggest_build(env, matrix, fw)
        return (f"Install a CUDA build: `{fix}`" if fix else
                "Install a CUDA build from https://download.pytorch.org/whl/ (see `envcheck fix`).")
    if fw.name == "onnxruntime":
        from envcheck.engine.onnxruntime import CPU, GPU

        if env.packages.get(CPU) and env.packages.get(GPU):
            return (f"pip uninstall -y {CPU} {GPU} && pip install '{GPU}=={env.packages[GPU]}' (keep only the GPU "
                    "package; it includes the CPU provider too).")
        return (f"pip uninstall -y {CPU} && pip install {GPU} (`envcheck fix --want {GPU}` picks a release whose CUDA "
                "the driver runs).")
    if fw.name == "tensorflow":
        if (env.python.platform or "").lower().startswith("win") and fw.distribution != "tensorflow-cpu":
            return _windows_tf_fix(matrix, fw)
        if fw.distribution == "tensorflow-cpu":
            return f"pip uninstall -y {fw.distribution} && pip install 'tensorflow[and-cuda]=={fw.version}'"
        last = _last_windows_gpu_tf(matrix)
        return (f"pip install 'tensorflow[and-cuda]=={fw.version}' (Linux"
                + (f"; native Windows GPU builds end with {last.version})" if last else ")"))
    fix = suggest_build(env, matrix, fw)
    if fix:
        return f"Install a CUDA build: `{fix}`"
    from envcheck.engine.builds import jax_builds, version_key

    builds = jax_builds(matrix)
    newest = max((b.version for b in builds), key=version_key, default=None)
    extras = sorted({b.variant for b in builds if b.version == newest and b.variant}, reverse=True)
    if not extras:
        return "Install a CUDA build of jax (see `envcheck fix --want jax`)."
    return f"pip install -U 'jax[{extras[0]}]'" + "".join(f" (or jax[{e}])" for e in extras[1:])


def _last_windows_gpu_tf(matrix: Matrix) -> Optional[Build]:
    """The last TensorFlow release with a native-Windows GPU build, from the matrix (``windows_gpu``)."""
    from envcheck.engine.builds import tensorflow_builds, version_key

    return max(tensorflow_builds(matrix, "windows-x86_64"), key=lambda b: version_key(b.version), default=None)


def _windows_tf_fix(matrix: Matrix, fw: Framework) -> str:
    """TensorFlow on native Windows: the GPU builds there end with the last series whose matrix row has
    ``windows_gpu = true`` (2.10; TF 2.11.1 release notes: "TensorFlow 2.10 was the last TensorFlow release that
    supported GPU on native-Windows. Starting with TensorFlow 2.11, you will need to install TensorFlow in WSL2, or
    install tensorflow-cpu and, optionally, try the TensorFlow-DirectML-Plugin")."""
    wsl = (f"run TensorFlow in WSL2 (`pip install 'tensorflow[and-cuda]=={fw.version}'` inside a WSL2 "
           "distribution, NVIDIA driver installed on Windows only)")
    last = _last_windows_gpu_tf(matrix)
    if last is None:
        return f"TensorFlow {fw.version} has no GPU build for native Windows: {wsl}."
    py = f", Python {last.python[0]}-{last.python[-1]}" if last.python else ""
    return (f"TensorFlow {fw.version} has no GPU build for native Windows (the last one is {last.version}): {wsl}; "
            f"or stay on native Windows with `pip install \"tensorflow=={last.version}\"` (tested with CUDA "
            f"{last.cuda} and cuDNN {last.cudnn}{py}); or keep a CPU build and, optionally, try the "
            "TensorFlow-DirectML-Plugin.")


def _spec_map(fw_requires: Sequence[str]) -> Dict[str, str]:
    out = {}
    for r in fw_requires:
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(.*)$", r)
        if m:
            out[m.group(1).lower()] = m.group(2).strip()
    return out


def check_conflict(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    """Two frameworks whose Requires-Dist pins of one NVIDIA wheel cannot share an environment (the engine's
    :func:`~envcheck.engine.stack.pins_conflict`)."""
    fws = [f for f in env.frameworks.values() if f.requires]
    out = []
    for i, a in enumerate(fws):
        for b in fws[i + 1:]:
            sa, sb = _spec_map(a.requires), _spec_map(b.requires)
            for dist in sorted(d for d in set(sa) & set(sb) if d.startswith("nvidia-")):
                inst = env.packages.get(dist)
                if pins_conflict(sa[dist], sb[dist], inst).status is not Status.NO:
                    continue
                out.append(Finding(
                    "framework-conflict", Severity.ERROR,
                    f"{label(a)} needs {dist}{sa[dist]} but {label(b)} needs {dist}{sb[dist]}: one environment "
                    "cannot satisfy both, so one framework loads a cuDNN/CUDA library it was not built for.",
                    "Use versions whose pins agree (`envcheck fix --want torch --want tensorflow`), or put each "
                    "framework in its own virtual environment.",
                    f"Requires-Dist of {a.distribution}: {dist}{sa[dist]}; of {b.distribution}: {dist}{sb[dist]}"
                    + (f"; installed {dist} {inst}" if inst else ""), "frameworks"))
    return out


def check_toolkit(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    """The CUDA toolkit (nvcc) against torch's CUDA, for extension builds (the engine's
    :func:`~envcheck.engine.stack.toolkit_for_extensions`)."""
    fw = env.frameworks.get("torch")
    if not env.toolkit.version or fw is None or not fw.cuda:
        return []
    answer = toolkit_for_extensions(env.toolkit.version, fw.cuda)
    if answer.status is Status.UNKNOWN or (answer.status is Status.RUNS and not answer.caveat):
        return []
    where = f"nvcc {env.toolkit.nvcc or env.toolkit.version}" + (f" in {env.toolkit.root}" if env.toolkit.root else "")
    mm = ".".join(fw.cuda.split(".")[:2])
    if answer.status is Status.NO:
        return [Finding("cuda-toolkit-mismatch", Severity.WARNING,
                        f"The CUDA toolkit here is {env.toolkit.version} but {label(fw)} was built with CUDA {fw.cuda}: "
                        "building CUDA extensions (flash-attn, apex, custom ops) will fail with 'The detected CUDA "
                        "version mismatches the version that was used to compile PyTorch'.",
                        f"Only matters when compiling extensions: install the CUDA {mm} toolkit and point "
                        f"CUDA_HOME at it (e.g. `export CUDA_HOME=/usr/local/cuda-{mm}`), or use a torch build "
                        f"for CUDA {env.toolkit.version.split('.')[0]}.x.", where, "toolkit")]
    return [Finding("cuda-toolkit-mismatch", Severity.INFO,
                    f"The CUDA toolkit ({env.toolkit.version}) and {label(fw)} (CUDA {fw.cuda}) differ in the minor "
                    "version only; extension builds usually work (PyTorch warns).",
                    None, where, "toolkit")]


def _component_versions(env: Environment, name: str) -> List[str]:
    if name == "cudnn":  # copies a program can load (torch/lib's bundled copy is private to torch)
        return [c.version for c in env.copies("cudnn") if c.version and c.source != "torch"]
    if name == "driver":
        return [env.driver.version.raw] if env.driver.version else []
    if name == "cuda":
        return [env.driver.cuda] if env.driver.cuda else []
    if name == "toolkit":
        return [env.toolkit.nvcc or env.toolkit.version] if env.toolkit.version else []
    if name == "gpu_cc":  # compute capabilities of the GPUs a program sees
        return sorted({g.compute_capability for g in env.visible_gpus if g.compute_capability})
    v: Optional[str] = env.packages.get(name.lower())
    return [v] if v else []


def _first_in(spec: Any, versions: List[str]) -> Optional[str]:
    """The first of ``versions`` (a local label dropped) that the specifier ``spec`` holds; None when none does or
    ``spec`` is not a specifier. Plain release numbers are compared without packaging (importing its specifiers
    costs ``envcheck status`` ~5-19 ms); any other form asks packaging."""
    if isinstance(spec, str):
        fast = [plain_spec_contains(spec, v.split("+")[0]) for v in versions]
        if all(x is not None for x in fast):
            return next((v for v, x in zip(versions, fast) if x), None)
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        ss = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    for v in versions:
        try:
            if Version(v.split("+")[0]) in ss:
                return v
        except (InvalidVersion, ValueError):
            continue
    return None


def check_known_bad(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    rows = matrix.known_bad() if env.frameworks or env.copies("cudnn") else []
    # cheap pre-filter: every component of the rule must be present at all
    rows = [r for r in rows if isinstance(r.get("when"), dict) and r["when"]
            and all(_component_versions(env, c) for c in r["when"])]
    if not rows:
        return []
    out = []
    for row in rows:
        when = row.get("when") or {}
        matched: List[str] = []
        for comp, spec in when.items():
            hit = _first_in(spec, _component_versions(env, comp))
            if hit is None:
                matched = []
                break
            matched.append(f"{comp} {hit}")
        if matched and len(matched) == len(when):
            out.append(Finding("known-bad-combination", Severity.ERROR, f"{row.get('summary')} ({', '.join(matched)})",
                               render_fix(row["fix"]) if isinstance(row.get("fix"), str) else None,
                               f"envcheck matrix known_bad {row.get('id')}: {row.get('source')}",
                               "frameworks"))
    return out
