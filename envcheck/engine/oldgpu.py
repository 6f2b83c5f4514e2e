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

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from envcheck.engine.builds import Build, builds_for
from envcheck.errors import UsageError
from envcheck.engine.rules import arch_ok
from envcheck.matrix import Matrix
from envcheck.model import Finding, Severity
from envcheck.versions import cc_tuple

__all__ = ["old_gpu_finding", "release_leaves_out", "release_arch", "ReleaseArch", "named_gpus", "GPU_UNUSED"]

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
    from envcheck.engine.prose_causes import gpu_ccs

    for name, cc in list(known) + [(n, None) for n in names]:
        row = matrix.gpu(name)
        key = str(row["name"]) if row else name.lower()
        if key in seen:
            continue
        seen.add(key)
        # a GeForce series ("GTX 10 series") whose models in the table share one compute capability is that one
        series = gpu_ccs(matrix, name) if not row and name.endswith(" series") else []
        out.append((str(row["name"]) if row else name, cc or (str(row["compute_capability"]) if row else None)
                    or (series[0] if len(series) == 1 else None)))
    return out


def _release_builds(matrix: Matrix, framework: str, version: str,
                    platforms: Sequence[str] = _PLATFORMS) -> Optional[List[Tuple[str, Build]]]:
    """(platform, build) of every GPU build of the release on ``platforms`` (a ``+cuXXX`` tag: that variant's only);
    None: no such framework / version."""
    req = {"torch": "torch", "tensorflow": "tensorflow", "jax": "jaxlib"}.get(framework)
    if req is None or not version:
        return None
    release, _, tag = version.partition("+")  # "2.1.0+cu121": that variant's builds only
    builds: List[Tuple[str, Build]] = []
    for platform in platforms:
        try:
            builds += [(platform, b) for b in builds_for(matrix, f"{req}=={release}", platform, include_cpu=False)
                       if b.gpu and (not tag or b.variant == tag)]
        except UsageError:  # a version string that is no version decides nothing
            return None
    return builds


def release_leaves_out(matrix: Matrix, framework: str, version: str, cc: str) -> Optional[List[Build]]:
    """The GPU builds of ``framework`` ``version`` (Linux and Windows x86_64) when compat_matrix knows each one's arch
    list and none runs compute capability ``cc``; None when the release is unknown, a build's arch list is unknown,
    or a build runs that GPU."""
    got = _release_builds(matrix, framework, version)
    builds = [b for _, b in got or ()]
    if not builds or any(not b.arch or arch_ok(b.arch, cc) is not False for b in builds):
        return None
    return builds


@dataclass(frozen=True)
class ReleaseArch:
    """What the engine's arch constraint says of every GPU build of one release on one compute capability: the builds
    that do not run it (label, why), those that do, those whose answer is unknown (labels name the platform)."""

    framework: str
    version: str
    cc: str
    no: Tuple[Tuple[str, str], ...]
    runs: Tuple[str, ...]
    unknown: Tuple[str, ...]

    @property
    def certain(self) -> bool:
        """No build of the release runs the GPU, and none is unknown."""
        return bool(self.no) and not self.runs and not self.unknown


_PLATFORM_WORD = {"linux-x86_64": "Linux", "windows-x86_64": "Windows"}


def release_arch(matrix: Matrix, framework: str, version: str, cc: str,
                 platforms: Sequence[str] = _PLATFORMS) -> Optional[ReleaseArch]:
    """Every GPU build of ``framework`` ``version`` on ``platforms`` judged on compute capability ``cc`` by the
    engine's arch constraint (:func:`envcheck.engine.arch_verdict`); None where the matrix knows no GPU build of it."""
    from envcheck.engine import arch_verdict

    builds = _release_builds(matrix, framework, version, platforms)
    if not builds or cc_tuple(cc) is None:
        return None
    no: List[Tuple[str, str]] = []
    runs: List[str] = []
    unknown: List[str] = []
    for platform, b in builds:
        label = f"{b.variant or b.label}" + (f" on {_PLATFORM_WORD.get(platform, platform)}" if len(platforms) > 1 else "")
        ok, why = arch_verdict(matrix, b, cc)
        if ok is False:
            no.append((label, why))
        elif ok:
            runs.append(label)
        else:
            unknown.append(label)
    return ReleaseArch(framework, version, cc, tuple(no), tuple(dict.fromkeys(runs)), tuple(dict.fromkeys(unknown)))


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
                    failed: bool = False, wanted: bool = False,
                    platforms: Sequence[str] = _PLATFORMS) -> Optional[Finding]:
    """``gpu-arch-unsupported`` for the one GPU model of ``gpus`` (see the module docstring), or None. ``failed``: the
    text shows the GPU was not used (a failure line); ``wanted``: the text shows the GPU was wanted (a program asking
    for CUDA, ``is_available()`` False, the reporter asking for the GPU) - enough for a release none of whose builds
    runs the GPU, not for one some builds of which do. ``platforms``: the platforms the text's machine may be (its OS
    where the text states it)."""
    if len(gpus) != 1 or not gpus[0][1]:
        return None
    name, cc = gpus[0][0], str(gpus[0][1])
    why = _outside(cc, floor, ceiling)
    if why:
        return Finding("gpu-arch-unsupported", Severity.ERROR,
                       f"The {name} (compute capability {cc}) is {why}: the program does not run its kernels on it.",
                       _fix(cc), component="gpu")
    if not (failed or wanted):
        return None
    verdicts = [r for r in (release_arch(matrix, fw, version, cc, platforms) for fw, version in releases) if r]
    for r in verdicts:
        if r.certain:
            checked = ", ".join(label for label, _ in r.no)
            return Finding("gpu-arch-unsupported", Severity.ERROR,
                           f"No CUDA build of {r.framework} {r.version} runs on the {name} (compute capability {cc}), "
                           f"whichever variant is installed: every build the matrix lists was checked ({checked}); "
                           f"e.g. {r.no[0][1]}.", _fix(cc), component=r.framework)
    if not failed:
        return None
    for r in verdicts:
        if r.no and r.runs:
            missing = ", ".join(label for label, _ in r.no)
            return Finding("gpu-arch-unsupported", Severity.WARNING,
                           f"Likely, not verified: the text does not name which build of {r.framework} {r.version} is "
                           f"installed, and its {missing} build(s) have no code for the {name} (compute capability {cc}; "
                           f"{r.no[0][1]}), while the GPU failed; its {', '.join(r.runs)} build(s) do run it"
                           + (f" ({', '.join(r.unknown)}: not known)" if r.unknown else "") + ".",
                           f"Install a {r.framework} {r.version} build that includes compute capability {cc} - "
                           f"{', '.join(r.runs)} - from its index (`envcheck fix --want {r.framework}` names the "
                           "command)" + ("; check the installed one first: `python -c \"import torch; "
                                        "print(torch.__version__, torch.cuda.get_arch_list())\"`."
                                        if r.framework == "torch" else "."),
                           component=r.framework)
    return None


def _fix(cc: str) -> str:
    return (f"Use a GPU of a newer generation, an older framework release whose builds include compute capability {cc} "
            f"(`envcheck matrix` lists them), or build the framework from source with that architecture "
            f"(TORCH_CUDA_ARCH_LIST='{cc}', TF_CUDA_COMPUTE_CAPABILITIES={cc}); otherwise the program runs on the CPU.")
