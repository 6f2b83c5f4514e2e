"""A framework whose installed binary says it is CPU-only while its own package record names the CUDA build
(issue 20: "a CPU-only build where the program itself shows CUDA was wanted", the package form of it).

The one rule, :func:`asked_build_findings`: ``framework-cpu-only`` when both are certain from the pasted report:

* the binary's own answer: the framework is ``cpu_only`` from its build flags (``tf.test.is_built_with_cuda()`` or
  ``tf.sysconfig.get_build_info()``'s ``is_cuda_build`` printed as False, the snapshot's ``tensorflow.json``); a
  ``cpu_only`` that only a package name or a missing ``+cu`` label implies is not this rule's (the CUDA build was
  then not what was installed, and ``status``'s own check speaks for it); and
* the same framework's package, as ``conda list`` / ``pip list`` showed it, is a CUDA build: a conda build string
  that names CUDA (conda-forge's ``cuda120py311h...``, the pytorch channel's ``py3.10_cuda11.8_cudnn8.7.0_0``), or
  the ``tensorflow-gpu`` distribution. The CUDA variant was asked for and a CPU binary came in (a mis-built
  package, conda-forge/tensorflow-feedstock#365, or a second, CPU-only copy shadowing it).

A ROCm build (``fw.rocm``) is never this rule's. Pure: the Environment in, findings out.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from envcheck.environment.frameworks import split_conda_version
from envcheck.model import Environment, Finding, Framework, Severity
from envcheck.parse.versions import cuda_from_conda_build

__all__ = ["asked_build_findings"]

_LABEL = {"tensorflow": "TensorFlow", "torch": "PyTorch", "jax": "JAX"}
#: the package names a framework is installed under (a packages.json key)
_DISTS = {"tensorflow": ("tensorflow", "tensorflow-base", "tensorflow-gpu"), "torch": ("pytorch", "torch")}


def _asked_cuda(fw: Framework, packages: Dict[str, str]) -> Optional[str]:
    """What in the framework's own package record names its CUDA build, or None."""
    for dist in _DISTS.get(fw.name, ()):
        value = packages.get(dist)
        if value is None:
            continue
        if dist == "tensorflow-gpu":
            return f"the tensorflow-gpu package {value}"
        _, build = split_conda_version(value)
        got = cuda_from_conda_build(build) if build else None
        if got:
            return f"the {dist} package's conda build string {build} (CUDA {got[0]})"
    return None


def _binary_says_cpu(fw: Framework) -> bool:
    """The framework's build flags themselves say CPU-only (not a package name or a missing label)."""
    return fw.cpu_only is True and fw.name == "tensorflow" and fw.distribution != "tensorflow-cpu" \
        and fw.build_info.get("is_cuda_build") is False


def asked_build_findings(env: Optional[Environment]) -> List[Finding]:
    """``framework-cpu-only`` for each framework whose binary is CPU-only while its package is the CUDA build."""
    if env is None:
        return []
    out: List[Finding] = []
    for fw in env.frameworks.values():
        if fw.rocm or not _binary_says_cpu(fw):
            continue
        asked = _asked_cuda(fw, env.packages)
        if not asked:
            continue
        name = f"{_LABEL.get(fw.name, fw.name)} {fw.version or ''}".strip()
        out.append(Finding(
            "framework-cpu-only", Severity.WARNING,
            f"{name} says it was built without CUDA (its own build flags: is_cuda_build False), although {asked} "
            "is the CUDA build: the binary installed is CPU-only, so the GPU is never used.",
            "Reinstall the CUDA build and check the binary, not the package name: tf.test.is_built_with_cuda() must "
            "answer True. If the CUDA-labelled package itself answers False it was built wrong: pin the previous "
            "build of that package, or install the pip wheel of the framework's CUDA variant instead.",
            fw.evidence, fw.name))
    return out
