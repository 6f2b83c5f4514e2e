"""The verdicts on explain's log-line matches: which cause a matched line names on the evidence at hand, which match
the text contradicts (dropped: the cause is left unknown, not stated falsely), which it recasts as another cause.

explain reads the lines and maps them to matches (a cause id, the wording's ``says`` of errors.toml, its captures);
it asks these functions by that id and applies the answer, and orders and words what is left (one home per rule:
tests/test_code_rules.py ``test_explain_decides_no_new_verdict_by_cause_id``). Each function delegates to the engine
rule that holds the knowledge (engine.rules, engine.vendors, engine.cpubuild, engine.builds, engine.stack).
"""

from __future__ import annotations

from typing import Any, Collection, FrozenSet, Mapping, Optional, Sequence, Tuple

from envcheck.model import Environment, Finding

__all__ = ["GPU_STACK_FAILURES", "compat_libcuda_recast", "context_shows_amd", "cpu_reading_of_cuda_build",
           "cuda_probe_where_mps_ran", "driver_new_enough_note", "findings_named_by_lines", "fixes_per_vendor",
           "gpu_stack_failure", "known_bad_beside", "mps_line_met", "pip_release_found", "recast_is_rocm_elsewhere",
           "release_serves_python", "same_extension_build", "xla_cudnn_recast"]


def cuda_probe_where_mps_ran(cause: str, says: Sequence[str], causes: Collection[str]) -> bool:
    """Whether a "this torch has no CUDA" line (``says`` ``no-cuda-in-build``) read on a Mac as CUDA asked of a macOS
    build (``framework-vendor-mismatch``) is contradicted by the log's other ``causes``: the MPS backend itself failed on
    an operator (``mps-op-unsupported``), so the program ran on MPS and the CUDA line was a probe it caught (the Stable
    Diffusion web UI's "Warning: caught exception 'Torch not compiled with CUDA enabled', memory monitor disabled" at
    every start on a Mac, AUTOMATIC1111/stable-diffusion-webui#1212), not the failure."""
    return cause == "framework-vendor-mismatch" and "no-cuda-in-build" in says and "mps-op-unsupported" in causes


#: pip's lines read as "no build for this Python" (python-unsupported): its "Could not find a version ..." /
#: "No matching distribution" line, and its "Ignored the following versions that require a different python version"
#: line (printed with the failure, for every package the run looked at): their wordings' ``says`` (errors.toml)
_PIP_PYTHON = "pip-python-line"


def pip_release_found(cause: str, says: Sequence[str], captures: Mapping[str, Any]) -> bool:
    """Whether pip's "Could not find a version that satisfies the requirement torch==2.1.2+cu118 (from versions: ...,
    2.1.2)" read as "no build for this Python" (python-unsupported) is contradicted by the versions pip found for this
    interpreter: they list the pinned release itself (capture ``release_found``: a ``+cu118`` label is only on PyTorch's
    own index, never on PyPI), so a build for this Python exists and pip's lines say nothing of the Python."""
    return cause == "python-unsupported" and _PIP_PYTHON in says and bool(captures.get("release_found"))


def cpu_reading_of_cuda_build(cause: str, framework: Optional[str], env: Environment) -> bool:
    """Whether a generic "no GPU found" line read as a CPU-only build (``framework-cpu-only``; ``framework``: the one
    its wording speaks of, or None) is contradicted by the report: it shows that framework is a CUDA (or ROCm) build
    (:func:`envcheck.engine.cpubuild.cuda_build_shown`), so the build is not why. What else keeps the GPU away (no
    driver, a driver too old, CUDA_VISIBLE_DEVICES) stays for the report's own findings to say."""
    from envcheck.engine.cpubuild import cuda_build_shown

    return cause == "framework-cpu-only" and bool(framework) and cuda_build_shown(env, framework, rocm=True)


def release_serves_python(matrix: Any, cause: str, says: Sequence[str], captures: Mapping[str, Any],
                          python: Optional[str], platform: Optional[str], machine: Optional[str]) -> bool:
    """Whether pip's "no matching distribution" line (``says`` ``no-build-line``) read as "no build for this Python"
    (python-unsupported) is contradicted by the report: its Python (``python`` on ``platform`` / ``machine``) is one
    the pinned release (capture ``wanted`` of ``package``: ``torch==X``) has wheels for
    (:func:`envcheck.engine.builds.release_supports_python`). The versions pip lists as found are no such evidence."""
    from envcheck.engine.builds import release_supports_python

    if cause != "python-unsupported" or "no-build-line" not in says:
        return False
    wanted = captures.get("wanted")
    if not wanted or matrix is None:
        return False
    return release_supports_python(matrix, (captures.get("package") or "").lower(), str(wanted), python, platform,
                                   machine) is True


def mps_line_met(matrix: Any, cause: str, env: Environment, line_min: Optional[str]) -> bool:
    """Whether a log line "The MPS backend is supported on MacOS 14.0+" read as ``mps-os-too-old`` is contradicted by
    the report: its macOS meets the line's minimum and the torch release's own
    (:func:`envcheck.engine.vendors.mps_os_meets`), so MPS is unavailable for another reason."""
    from envcheck.engine.vendors import mps_os_meets

    return cause == "mps-os-too-old" and mps_os_meets(matrix, env, line_min)


def xla_cudnn_recast(cause: str, says: Sequence[str]) -> Optional[str]:
    """The cause XLA's cuDNN check (a ``cudnn-version-mismatch`` match whose wording ``says`` ``xla-cudnn-check``: the
    cuDNN loaded into the process is older than the one it was built with) is recast as in a program that imports two
    frameworks (:func:`envcheck.engine.stack.one_process_cudnn` says whether it does): ``framework-conflict``; None for
    any other match."""
    if cause == "cudnn-version-mismatch" and "xla-cudnn-check" in says:
        return "framework-conflict"
    return None


def driver_new_enough_note(cause: str, ptxas_cuda_major: int, facts: Mapping[str, str], matrix: Any) -> Optional[str]:
    """Why a ``driver-too-old`` match of a refused kernel image (a signature with errors.toml's ``ptxas_cuda_major``:
    Triton's "device kernel image is invalid") is contradicted by the facts (``facts``: the log's and the match's own),
    which show a driver new enough for the CUDA in play (:func:`envcheck.engine.rules.invalid_image_driver_note`): the
    note to keep where the match is dropped; None where it stands."""
    if cause != "driver-too-old":
        return None
    from envcheck.engine.rules import invalid_image_driver_note

    return invalid_image_driver_note(ptxas_cuda_major, dict(facts), matrix)


def same_extension_build(cause: str, captures: Mapping[str, Any]) -> bool:
    """Whether a report of an extension built for one torch (``extension-abi-mismatch`` with the capture
    ``built_torch``) names the same build as the one in use (xformers' "built for: PyTorch 2.6.0+cu118 ... (you have
    2.6.0+cu118)"): no mismatch is shown (:func:`envcheck.engine.rules.extension_build_differs`), so the line is no
    evidence of extension-abi-mismatch."""
    if cause != "extension-abi-mismatch" or "built_torch" not in captures:
        return False
    from envcheck.engine.rules import extension_build_differs

    return extension_build_differs(captures.get("built_torch"), captures.get("torch")) is False


def compat_libcuda_recast(cause: str, captures: Mapping[str, Any], facts: Mapping[str, str]) -> Optional[str]:
    """The cause a driver/library mismatch (``driver-library-mismatch``) is recast as where its libcuda (capture
    ``dso_version``) is of a later driver branch than the kernel module (``kernel_version``) in a text that runs in a
    container (the fact ``docker_gpus``, or a CUDA image named: ``cuda_image``): the image's or the injected cuda-compat
    libcuda on a GPU that does not take it (:func:`envcheck.engine.rules.compat_libcuda_pair`):
    ``forward-compat-unsupported``; None where the line's own cause stands."""
    if cause != "driver-library-mismatch":
        return None
    from envcheck.engine.rules import compat_libcuda_pair

    in_container = bool(facts.get("docker_gpus") or facts.get("cuda_image"))
    if not compat_libcuda_pair(captures.get("dso_version"), captures.get("kernel_version"), in_container):
        return None
    return "forward-compat-unsupported"


def recast_is_rocm_elsewhere(cause: str) -> bool:
    """Whether a line recast by :func:`envcheck.engine.vendors.recast_cause` is its ROCm build that finds no AMD GPU
    (``no-gpu-visible``, ``says`` ``no-amd-gpu-seen``) on another vendor's GPU: its advice is then
    :func:`envcheck.engine.vendors.rocm_build_elsewhere`'s, not the new cause's own fixes."""
    return cause == "no-gpu-visible"


#: the log-line causes that are a failure of the GPU stack's libraries, beside which this machine's known-bad
#: combinations (status's ``known-bad-combination`` finding) are a cause too
GPU_STACK_FAILURES = frozenset({"cudnn-version-mismatch", "cudnn-missing", "cudnn-not-initialized",
                                "cudnn-execution-failed", "cudnn-no-algorithm", "cudnn-bad-param",
                                "cuda-runtime-missing"})


def gpu_stack_failure(cause: str) -> bool:
    """Whether a log line's cause is a failure of the GPU stack's libraries (:data:`GPU_STACK_FAILURES`)."""
    return cause in GPU_STACK_FAILURES


def known_bad_beside(causes: Collection[str], findings: Sequence[Finding]) -> Optional[Finding]:
    """The machine's known-bad combination (status's ``known-bad-combination`` finding among ``findings``) to add as a
    cause beside the log's ``causes``: where the log shows a GPU-stack failure (:func:`gpu_stack_failure`) and names no
    known-bad combination itself; None otherwise."""
    if not any(gpu_stack_failure(c) for c in causes) or "known-bad-combination" in causes:
        return None
    return next((f for f in findings if f.id == "known-bad-combination"), None)


def context_shows_amd(cause: str, signature: str) -> bool:
    """Whether a match shows, from the text alone, that the log's machine is an AMD one: ``framework-vendor-mismatch``
    read from the log's context (the signature ``context``: ROCm or an AMD Radeon named above the failure, no NVIDIA GPU
    named), so another vendor's fixes and dead ends are no advice there (contract §9)."""
    return cause == "framework-vendor-mismatch" and signature == "context"


def fixes_per_vendor(cause: str) -> bool:
    """Whether a cause's fixes (errors.toml) are each for one vendor's machine (``framework-vendor-mismatch``: its ROCm
    fix for AMD, its XPU fix for Intel, its MPS fix for a Mac), so that on a known vendor's machine only that vendor's
    are advice (explain.vendors.vendor_fix_rows picks them by their words)."""
    return cause == "framework-vendor-mismatch"


#: log-line causes that name the state behind a failing nvidia-smi more exactly than "no driver": NVML's
#: "Unknown Error" (device-permission: in a container its device access lost), a GPU the driver did not bring up or
#: cannot reach, a module/library mismatch (and a match whose wording ``says`` ``nvidia-smi-state``, errors.toml:
#: NVML's "Unknown Error" in a container)
_NVIDIA_SMI_STATES = frozenset({"gpu-not-initialized", "gpu-fault", "driver-library-mismatch", "device-permission"})


def findings_named_by_lines(lines: Sequence[Tuple[str, Sequence[str]]]) -> FrozenSet[str]:
    """The pasted report's findings that the log's lines (``(cause, says)`` of each match) name more exactly, so that
    they are not added beside them as a second cause: a report's "nvidia-smi failed" (``no-gpu-driver``) where a line
    names the state behind the failing nvidia-smi (:data:`_NVIDIA_SMI_STATES`, or ``says`` ``nvidia-smi-state``)."""
    if any(cause in _NVIDIA_SMI_STATES or "nvidia-smi-state" in says for cause, says in lines):
        return frozenset({"no-gpu-driver"})
    return frozenset()
