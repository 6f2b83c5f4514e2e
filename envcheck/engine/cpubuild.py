"""A CPU-only framework build where the text shows the GPU was wanted: issue 20's family "a ``+cpu`` torch (or a
CPU-only TensorFlow / jaxlib) where the program itself shows CUDA was wanted". ``status``'s own check needs a
reachable driver and GPUs, which a pasted report often leaves out; these rules decide from the report's Environment
and what the text shows (:class:`~envcheck.engine.textclaims.TextClaims`). The fix text is the checks layer's
(``checks.frameworks.cpu_only_fix``), handed in by the caller as ``fix``.
"""

from __future__ import annotations

import re
from typing import Callable, List, Optional

from envcheck.engine.builds import pypi_torch_is_cpu
from envcheck.engine.textclaims import TextClaims
from envcheck.model import Environment, Finding, Framework, Severity

__all__ = ["cpu_build_wanted_gpu", "cuda_build_shown", "gpu_wanted", "ort_providers_cpu", "pypi_torch_cpu",
           "wheel_platform", "windows_torch_unlabelled"]

Fix = Callable[[Framework], str]

#: packages that are only installed to run CUDA code
_CUDA_PACKAGES = re.compile(r"^(?:cudatoolkit|pytorch-cuda|cudnn|cuda-(?:runtime|cudart|nvcc|toolkit|version)"
                            r"|nvidia-[a-z-]+-cu\d+)$")


def _cut(line: str, n: int = 160) -> str:
    return line if len(line) <= n else line[:n - 3] + "..."


def _label(fw: Framework) -> str:
    return f"{fw.distribution or fw.name} {fw.version or '(unknown version)'}"


def gpu_wanted(env: Environment, claims: TextClaims) -> Optional[str]:
    """What shows that the CUDA stack was wanted on that machine (the program asking for the GPU, an NVIDIA GPU, a
    driver, nvcc, packages only installed to run CUDA code), or None."""
    if claims.gpu_intent:
        return claims.gpu_intent
    if env.gpus:
        return "NVIDIA GPU " + ", ".join(str(g.name) for g in env.gpus[:2] if g.name)
    if env.driver.version is not None:
        return f"NVIDIA driver {env.driver.version}"
    if env.toolkit.version:
        return f"the CUDA {env.toolkit.version} toolkit (nvcc)"
    pk = sorted(p for p in env.packages if _CUDA_PACKAGES.match(p))
    if pk:
        return "CUDA packages " + ", ".join(pk[:3])
    return None


def cpu_build_wanted_gpu(env: Environment, claims: TextClaims, fix: Fix) -> List[Finding]:
    """``framework-cpu-only`` for each CPU-only torch / TensorFlow / JAX build (not a ROCm one) next to what shows the
    CUDA stack was wanted (:func:`gpu_wanted`): the reason the GPU goes unused."""
    from envcheck.engine.onnxruntime import cpu_shadows_gpu, provider_wanted

    out = []
    ort = env.frameworks.get("onnxruntime")
    shadow = cpu_shadows_gpu(env.packages)
    if ort is not None and shadow is not None:  # both packages (onnxruntime-gpu itself shows the GPU was wanted)
        out.append(Finding("framework-cpu-only", Severity.WARNING,
                           f"ONNX Runtime may be its CPU build: {shadow.reason}.", fix(ort), ort.evidence, ort.name))
    elif ort is not None and ort.cpu_only is True and provider_wanted(claims):
        # the CPU package alone is often a dependency nobody runs on the GPU: a cause only where the text asks ONNX
        # Runtime for its CUDA provider
        out.append(Finding("framework-cpu-only", Severity.WARNING,
                           f"{_label(ort)} is ONNX Runtime's CPU package (only CPUExecutionProvider), but the text asks "
                           f"for its CUDA provider ({provider_wanted(claims)}).", fix(ort), ort.evidence, ort.name))
    else:  # the providers ONNX Runtime printed (whatever package list the text shows)
        out += ort_providers_cpu(claims)
    wanted = gpu_wanted(env, claims)
    if not wanted:
        return out
    for fw in env.frameworks.values():
        if fw.cpu_only is not True or fw.name not in ("torch", "tensorflow", "jax") or fw.rocm:
            continue
        out.append(Finding("framework-cpu-only", Severity.WARNING,
                           f"{_label(fw)} is a CPU-only build, but the pasted report shows the CUDA stack was wanted "
                           f"({wanted}).", fix(fw), fw.evidence, fw.name))
    return out


def ort_providers_cpu(claims: TextClaims) -> List[Finding]:
    """``framework-cpu-only`` for ONNX Runtime whose available providers, as the text prints them, hold no GPU provider
    while the text wants the GPU build: the files ``import onnxruntime`` loads are the CPU package's (onnxruntime-gpu
    lists CUDAExecutionProvider there even where its CUDA libraries do not load), whether installed alone or beside
    onnxruntime-gpu, whose module folder it shares and overwrites (microsoft/onnxruntime#3326, #4809). Also for a text
    without any report (explain's ``add_text_findings``)."""
    from envcheck.engine.onnxruntime import provider_wanted

    wanted = claims.ort_gpu_wanted or provider_wanted(claims)
    if not claims.ort_cpu_providers or not wanted:
        return []
    return [Finding("framework-cpu-only", Severity.WARNING,
                   f"ONNX Runtime's available providers hold no GPU provider ({claims.ort_cpu_providers}), though the "
                   f"text wants its GPU build ({_cut(wanted)}): `import onnxruntime` loads the CPU package's files "
                   "(onnxruntime, installed alone or beside onnxruntime-gpu, whose module folder it shares).",
                   "pip uninstall -y onnxruntime onnxruntime-gpu && pip install onnxruntime-gpu (remove both: they "
                   "share one module folder; the GPU package includes the CPU provider too).",
                   claims.ort_cpu_providers, "onnxruntime")]


def wheel_platform(platform_tag: str) -> str:
    """The platform of a wheel's platform tag: windows, macos, linux-aarch64, else linux-x86_64."""
    return "windows" if platform_tag.startswith("win") else "macos" if platform_tag.startswith("macosx") else (
        "linux-aarch64" if "aarch64" in platform_tag else "linux-x86_64")


def pypi_torch_cpu(env: Environment, claims: TextClaims, fix: Fix) -> List[Finding]:
    """torch with no build label where the text shows what it is: pip fetching PyPI's wheel (or a PyPI mirror's: the
    PyTorch index's files are named ``torch-2.3.1%2Bcu121-...``; a wheel from a find-links page is never taken - the
    old CUDA wheels there had no label) for the installed version, on a platform where PyPI's torch is the CPU-only
    build (:func:`envcheck.engine.builds.pypi_torch_is_cpu`). Only where the text shows the GPU was wanted or torch
    failing to reach it."""
    fw = env.frameworks.get("torch")
    wheel = claims.torch_wheel
    if fw is None or fw.cuda or fw.cpu_only is not None or fw.rocm or wheel is None or not claims.gpu_fails \
            and not claims.gpu_intent:
        return []
    if not wheel.from_pypi or claims.find_links:
        return []  # a find-links page or a PyTorch index (mirror): old CUDA wheels there carried no label either
    ver, platform = wheel.version, wheel_platform(wheel.platform_tag)
    if "+" in ver or "%2B" in ver or not pypi_torch_is_cpu(platform) or (fw.version or "").split("+")[0] != ver:
        return []
    return [Finding("framework-cpu-only", Severity.WARNING,
                    f"torch {ver} was installed from PyPI's wheel for {platform} ({wheel.shown}): "
                    f"PyPI's torch for {platform} is the CPU-only build (its torch.__version__ is {ver}+cpu); the CUDA "
                    f"builds come from https://download.pytorch.org/whl/cuXXX.", fix(fw), wheel.line, "torch")]


def windows_torch_unlabelled(env: Environment, claims: TextClaims, fix: Fix) -> List[Finding]:
    """torch on native Windows with no build label, failing to reach the GPU (or asked for it), where the text does
    not show how it was installed: most likely PyPI's CPU-only wheel, but a conda build also shows no label - said as
    likely and unverified, never as certain. A ``torch.__version__`` printed without ``+cpu`` (``claims.torch_printed``)
    is no PyPI wheel at all (PyPI's Windows wheel prints ``X+cpu``): nothing is said then."""
    fw = env.frameworks.get("torch")
    if fw is None or not fw.version or "+" in fw.version or fw.cuda or fw.cpu_only is not None or fw.rocm \
            or fw.arch_list or claims.torch_printed or claims.find_links \
            or not (env.python.platform or "").startswith("win") \
            or not (claims.gpu_fails or claims.gpu_intent) or not pypi_torch_is_cpu("windows"):
        return []
    seen = "does not reach the GPU" if claims.gpu_fails else "the program asks for the GPU"
    return [Finding("framework-cpu-only", Severity.WARNING,
                    f"Likely, not verified: torch {fw.version} on Windows carries no +cuXXX label and {seen}; PyPI's "
                    f"Windows torch (a plain `pip install torch`) is the CPU-only build, but the text does not "
                    f"show how torch was installed (a conda build shows no label either). Check: python -c \"import "
                    f"torch; print(torch.__version__, torch.version.cuda)\" (X+cpu and None: the CPU build).",
                    fix(fw), fw.evidence, "torch")]


def cuda_build_shown(env: Environment, framework: Optional[str], rocm: bool = False) -> bool:
    """The report shows ``framework`` is a CUDA build (``torch-2.0.1+cu118 CPU`` in Ultralytics' banner: the device it
    *used* was the CPU, the build is a CUDA one; collect_env's "CUDA used to build PyTorch: 11.8"): a generic "no GPU
    found" line is then no evidence of a CPU-only build. ``rocm``: a ROCm build shown counts too (pastes21a: webui's
    "Torch is not able to use GPU" after it installed torch 2.0.1+rocm5.4.2 is no CPU-only build either)."""
    fw = env.frameworks.get(framework or "")
    return fw is not None and (bool(fw.cuda) or (rocm and bool(fw.rocm))) and fw.cpu_only is not True
