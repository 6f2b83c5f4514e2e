"""A GPU older than what a program needs, from what a text states (issue 20's family "GPUs older than every current
build, named only by the GPU model or by a 'minimum compute capability' line").

The one rule, :func:`old_gpu_finding`: ``gpu-arch-unsupported`` only when it is certain:

* exactly one GPU model is named (two models: which one ran is not certain) and its compute capability is known
  (compat_matrix/gpus.toml, or the text's own device line); and
* either the text states the compute-capability range the program runs on (a floor such as TensorFlow's "The
  minimum required Cuda capability is 3.5", or torch's "(7.0) - (12.0)") and the GPU is outside it; or the text
  shows the GPU was not used (a failure line) and names a framework release every build of which in compat_matrix
  (its torch / tensorflow / jax rows' compute_capabilities, Linux and Windows) leaves that compute capability out.
  A release with one build of unknown arch list, or one build that runs the GPU, decides nothing.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from envcheck.engine.builds import Build, builds_for
from envcheck.errors import UsageError
from envcheck.engine.rules import arch_ok
from envcheck.matrix import Matrix
from envcheck.model import Finding, Severity
from envcheck.versions import cc_tuple

__all__ = ["old_gpu_finding", "release_leaves_out", "named_gpus", "GPU_UNUSED"]

#: the causes whose match shows that the GPU was not used (the evidence the release rule of :func:`old_gpu_finding`
#: needs: ``failed``)
GPU_UNUSED = frozenset({"gpu-arch-unsupported", "framework-cpu-only", "no-gpu-visible"})

_PLATFORMS = ("linux-x86_64", "windows-x86_64")


def named_gpus(matrix: Matrix, names: Sequence[str], known: Sequence[Tuple[str, Optional[str]]] = ()
               ) -> List[Tuple[str, Optional[str]]]:
    """The distinct GPU models of ``known`` (name, compute capability: a report's GPUs) and ``names`` (models named in
    prose), each as (name, compute capability or None): a model compat_matrix/gpus.toml knows is its row's name (so
    "Tesla K40m" and "k40" are one model); one it does not know keeps its own name and an unknown capability."""
    out: List[Tuple[str, Optional[str]]] = []
    seen = set()
    for name, cc in list(known) + [(n, None) for n in names]:
        row = matrix.gpu(name)
        key = str(row["name"]) if row else name.lower()
        if key in seen:
            continue
        seen.add(key)
        out.append((str(row["name"]) if row else name, cc or (str(row["compute_capability"]) if row else None)))
    return out


def release_leaves_out(matrix: Matrix, framework: str, version: str, cc: str) -> Optional[List[Build]]:
    """The GPU builds of ``framework`` ``version`` (Linux and Windows x86_64) when compat_matrix knows each one's arch
    list and none runs compute capability ``cc``; None when the release is unknown, a build's arch list is unknown,
    or a build runs that GPU."""
    req = {"torch": "torch", "tensorflow": "tensorflow", "jax": "jaxlib"}.get(framework)
    if req is None or not version:
        return None
    builds: List[Build] = []
    for platform in _PLATFORMS:
        try:
            builds += [b for b in builds_for(matrix, f"{req}=={version}", platform, include_cpu=False) if b.gpu]
        except UsageError:  # a version string that is no version decides nothing
            return None
    if not builds or any(not b.arch or arch_ok(b.arch, cc) is not False for b in builds):
        return None
    return builds


def _outside(cc: str, floor: Optional[str], ceiling: Optional[str]) -> Optional[str]:
    t, lo, hi = cc_tuple(cc), cc_tuple(floor) if floor else None, cc_tuple(ceiling) if ceiling else None
    if t is None:
        return None
    if lo is not None and t < lo:
        return f"below the minimum compute capability {floor} the text states"
    if hi is not None and t > hi:
        return f"above the maximum compute capability {ceiling} the text states"
    return None


def old_gpu_finding(matrix: Matrix, gpus: Sequence[Tuple[str, Optional[str]]], floor: Optional[str] = None,
                    ceiling: Optional[str] = None, releases: Sequence[Tuple[str, str]] = (),
                    failed: bool = False) -> Optional[Finding]:
    """``gpu-arch-unsupported`` for the one GPU model of ``gpus`` (see the module docstring), or None."""
    if len(gpus) != 1 or not gpus[0][1]:
        return None
    name, cc = gpus[0][0], str(gpus[0][1])
    why = _outside(cc, floor, ceiling)
    if why:
        return Finding("gpu-arch-unsupported", Severity.ERROR,
                       f"The {name} (compute capability {cc}) is {why}: the program does not run its kernels on it.",
                       _fix(cc), component="gpu")
    if not failed:
        return None
    for fw, version in releases:
        builds = release_leaves_out(matrix, fw, version, cc)
        if builds:
            lists = "; ".join(f"{b.variant}: {' '.join(b.arch)}" for b in builds[:4])
            return Finding("gpu-arch-unsupported", Severity.ERROR,
                           f"No build of {fw} {version} runs on the {name} (compute capability {cc}): its builds are "
                           f"compiled for {lists}.", _fix(cc), component=fw)
    return None


def _fix(cc: str) -> str:
    return (f"Use a GPU of a newer generation, an older framework release whose builds include compute capability {cc} "
            f"(`envcheck matrix` lists them), or build the framework from source with that architecture "
            f"(TORCH_CUDA_ARCH_LIST='{cc}', TF_CUDA_COMPUTE_CAPABILITIES={cc}); otherwise the program runs on the CPU.")
