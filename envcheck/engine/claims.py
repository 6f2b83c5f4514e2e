"""Rules on what a reporter *claims* about the machine (the TensorFlow issue template's CUDA/cuDNN field, contract
§4 ``facts.claims``), never on a detected fact.

A TensorFlow release before 2.14 has no ``and-cuda`` extra: it loads the CUDA runtime of the machine, and only the
one of its own major (``libcudart.so.11.0`` / ``cudart64_110.dll`` for CUDA 11, ``libcudart.so.12`` for 12; a CUDA
12 toolkit does not provide the CUDA 11 runtime; up to CUDA 10 the file names the minor too: ``cudart64_90.dll``).
A claimed CUDA of another major (before CUDA 11: another major.minor) than the release's tested build configuration
(compat_matrix/tensorflow.toml) therefore leaves TensorFlow without its runtime. From 2.14 on, Linux
pip wheels can bring their own runtime (``tensorflow[and-cuda]``), so the claim alone says nothing; TensorFlow 2.11+
on native Windows has no CUDA build at all (``checks.frameworks`` says so), so the claim is not the cause there.
"""

from __future__ import annotations

from typing import List, Optional

from envcheck.engine.textclaims import TextClaims
from envcheck.matrix import Matrix
from envcheck.model import Environment, Finding, Severity

__all__ = ["tf_claimed_cuda_mismatch", "tf_claim_finding", "TF_CLAIM_FIX"]

#: the fix for a TensorFlow release whose tested CUDA is not the one the reporter says is installed
TF_CLAIM_FIX = ("Install the CUDA runtime (and cuDNN) of TensorFlow's tested build configuration for this release, or a "
                "TensorFlow release built for the CUDA that is installed (https://www.tensorflow.org/install/source#gpu).")


def _major(v: Optional[str]) -> Optional[int]:
    head = (v or "").strip().split(".", 1)[0]
    return int(head) if head.isdigit() else None


def _minor(v: Optional[str]) -> Optional[str]:
    parts = (v or "").strip().split(".")
    return parts[1] if len(parts) > 1 and parts[1].isdigit() else None


def _runtime_file(need: str, want: int, windows: bool) -> str:
    """The CUDA runtime file a build for CUDA ``need`` (major ``want``) loads: the minor is part of the name up to
    CUDA 10, CUDA 11 keeps "11.0" / "110" for every minor."""
    if want < 11:
        return f"cudart64_{need.replace('.', '')}.dll" if windows else f"libcudart.so.{need}"
    if want == 11:
        return "cudart64_110.dll" if windows else "libcudart.so.11.0"
    return f"cudart64_{want}.dll" if windows else f"libcudart.so.{want}"


def tf_claimed_cuda_mismatch(matrix: Matrix, tf_version: str, claimed_cuda: str, platform: str) -> Optional[str]:
    """The message when TensorFlow ``tf_version`` (no ``and-cuda`` extra) on ``platform`` ("linux", "win32", ...) was
    built for a CUDA major other than the reporter's claimed ``claimed_cuda``; ``None`` when they agree, when the
    release or the claim is not known, or when the claim cannot be the cause (see the module docstring)."""
    rel = matrix.tf_release(tf_version)
    have = _major(claimed_cuda)
    if rel is None or have is None or rel.get("and_cuda"):
        return None
    windows = (platform or "").lower().startswith("win")
    if windows and not rel.get("windows_gpu"):
        return None
    need = str((rel.get("windows_cuda") if windows else None) or rel.get("cuda") or "")
    want = _major(need)
    if want is None or want == have and (want >= 11 or _minor(need) in (None, _minor(claimed_cuda))):
        return None  # up to CUDA 10 the runtime's file names the minor too (cudart64_90.dll is not in CUDA 9.2)
    lib = _runtime_file(need, want, windows)
    return (f"TensorFlow {tf_version} was built for CUDA {need} (its tested build configuration) and loads that CUDA's "
            f"runtime ({lib}); the report says CUDA {claimed_cuda} is installed (the reporter's claim, not checked), "
            f"which does not provide it.")


def tf_claim_finding(matrix: Matrix, env: Environment, claims: TextClaims) -> List[Finding]:
    """``cuda-runtime-missing`` from the reporter's CUDA claim against the installed TensorFlow release's tested
    build configuration (:func:`tf_claimed_cuda_mismatch`); only where the report names the OS (Linux and native
    Windows differ), the build is not CPU-only, and TensorFlow was not built from source (its CUDA is then the one it
    was configured with, not the tested configuration)."""
    fw = env.frameworks.get("tensorflow")
    claimed = claims.cuda_claim
    if fw is None or not fw.version or not claimed or not env.python.platform or fw.cpu_only or claims.tf_from_source:
        return []
    msg = tf_claimed_cuda_mismatch(matrix, str(fw.version), claimed, env.python.platform)
    if msg is None:
        return []
    return [Finding("cuda-runtime-missing", Severity.ERROR, msg, TF_CLAIM_FIX,
                    claims.gpu_intent if claims.gpu_intent is not None else claimed, "tensorflow")]
