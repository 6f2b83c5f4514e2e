"""Rules on what a reporter *claims* about the machine (the TensorFlow issue template's CUDA/cuDNN field, contract
§4 ``facts.claims``), never on a detected fact.

A TensorFlow release before 2.14 has no ``and-cuda`` extra: it loads the CUDA runtime of the machine, and only the
one of its own major (``libcudart.so.11.0`` / ``cudart64_110.dll`` for CUDA 11, ``libcudart.so.12`` for 12; a CUDA
12 toolkit does not provide the CUDA 11 runtime; up to CUDA 10 the file names the minor too: ``cudart64_101.dll``;
compat_matrix/cuda.toml ``[[runtime_file]]``).
A claimed CUDA of another major (before CUDA 11: another major.minor) than the release's tested build configuration
(compat_matrix/tensorflow.toml) therefore leaves TensorFlow without its runtime. From 2.14 on, Linux
pip wheels can bring their own runtime (``tensorflow[and-cuda]``), so the claim alone says nothing; TensorFlow 2.11+
on native Windows has no CUDA build at all (``checks.frameworks`` says so), so the claim is not the cause there. With
the OS not said (tfgpu39), a release is judged only where its Linux and native Windows builds were built for one CUDA.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from envcheck.engine.rules import runtime_file, runtime_names_minor
from envcheck.engine.textclaims import TextClaims
from envcheck.matrix import Matrix
from envcheck.model import Environment, Finding, Severity

__all__ = ["ort_claim_finding", "ort_line_cause", "ort_majors_finding", "tf_claimed_cuda_mismatch", "tf_claimed_cudnn_mismatch", "tf_claimed_cudnn_minor_below",
           "tf_claim_finding",
           "TF_CLAIM_FIX"]

#: the fix for a TensorFlow release whose tested CUDA is not the one the reporter says is installed
TF_CLAIM_FIX = ("Install the CUDA runtime (and cuDNN) of TensorFlow's tested build configuration for this release, or a "
                "TensorFlow release built for the CUDA that is installed (https://www.tensorflow.org/install/source#gpu).")


def _major(v: Optional[str]) -> Optional[int]:
    head = (v or "").strip().split(".", 1)[0]
    return int(head) if head.isdigit() else None


def _minor(v: Optional[str]) -> Optional[str]:
    parts = (v or "").strip().split(".")
    return parts[1] if len(parts) > 1 and parts[1].isdigit() else None


def _runtime_file(matrix: Matrix, need: str, windows: bool) -> str:
    """The CUDA runtime file a build for CUDA ``need`` loads (cuda.toml ``[[runtime_file]]``: the minor is part of the
    name up to CUDA 10, CUDA 11 keeps "11.0" / "110" for every minor), or its major's runtime where the name is not
    known."""
    return runtime_file(matrix, need, windows) or f"the CUDA {need} runtime"


def _serves(matrix: Matrix, need: str, claimed: Optional[str]) -> bool:
    """Whether a claimed CUDA of the same major as ``need`` provides the runtime a ``need`` build loads: any minor of
    the major where the runtime's file does not name the minor (unknown: not said to differ)."""
    return runtime_names_minor(matrix, _major(need)) is not True or _minor(need) in (None, _minor(claimed))


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
    if not platform and (not rel.get("windows_gpu") or str(rel.get("windows_cuda") or rel.get("cuda") or "")
                         != str(rel.get("cuda") or "")):
        return None  # the OS not said (tfgpu39): only where the Linux and the native Windows builds' CUDA agree
    need = str((rel.get("windows_cuda") if windows else None) or rel.get("cuda") or "")
    want = _major(need)
    if want is None or want == have and _serves(matrix, need, claimed_cuda):
        return None  # up to CUDA 10 the runtime's file names the minor too (cudart64_100.dll is not in CUDA 10.1)
    lib = _runtime_file(matrix, need, windows) if platform else \
        f"{_runtime_file(matrix, need, False)} / {_runtime_file(matrix, need, True)}"  # the OS not said: both builds'
    return (f"TensorFlow {tf_version} was built for CUDA {need} (its tested build configuration) and loads that CUDA's "
            f"runtime ({lib}); the report says CUDA {claimed_cuda} is installed (the reporter's claim, not checked), "
            f"which does not provide it.")


def _cudnn_majors(rel: Dict[str, Any], platform: str) -> Optional[int]:
    """The cuDNN major a TensorFlow release's GPU build loads on ``platform``; with the platform unknown, the major
    only where the Linux and the native Windows builds agree (and Windows has a GPU build at all)."""
    linux = _major(str(rel.get("cudnn") or ""))
    win = _major(str(rel.get("windows_cudnn") or rel.get("cudnn") or "")) if rel.get("windows_gpu") else None
    if (platform or "").lower().startswith("win"):
        return win
    if platform:
        return linux
    return linux if linux == win else None


def tf_claimed_cudnn_mismatch(matrix: Matrix, tf_version: str, claimed_cudnn: str, platform: str) -> Optional[str]:
    """The message when TensorFlow ``tf_version`` (no ``and-cuda`` extra) was built for a cuDNN major other than the
    reporter's claimed ``claimed_cudnn``: it loads ``libcudnn.so.N`` / ``cudnn64_N.dll`` of its own major only (TF 2.3
    built for cuDNN 7.6 finds no libcudnn.so.7 where only cuDNN 8 is installed). ``None`` when they agree or when the
    release, the claim or (platform unknown) the major of both builds is not known."""
    rel = matrix.tf_release(tf_version)
    have = _major(claimed_cudnn)
    if rel is None or have is None or rel.get("and_cuda"):
        return None
    want = _cudnn_majors(rel, platform)
    if want is None or want == have:
        return None
    windows = (platform or "").lower().startswith("win")
    lib = f"cudnn64_{want}.dll" if windows else f"libcudnn.so.{want}" if platform else \
        f"libcudnn.so.{want} / cudnn64_{want}.dll"
    return (f"TensorFlow {tf_version} was built for cuDNN {want} (its tested build configuration) and loads that "
            f"major's library ({lib}); the report says cuDNN {claimed_cudnn} is installed (the reporter's claim, not "
            f"checked), which does not provide it.")


def _cudnn_release(rel: Dict[str, Any], platform: str) -> Optional[str]:
    """The cuDNN version (as the tested build configuration writes it: "7.4", "7", "5.1") a TensorFlow release's GPU
    build was compiled with on ``platform``; with the platform unknown, only where the Linux and the native Windows
    builds agree (and Windows has a GPU build at all)."""
    linux = str(rel.get("cudnn") or "") or None
    win = str(rel.get("windows_cudnn") or rel.get("cudnn") or "") or None if rel.get("windows_gpu") else None
    if (platform or "").lower().startswith("win"):
        return win
    if platform:
        return linux
    return linux if linux == win else None


def tf_claimed_cudnn_minor_below(matrix: Matrix, tf_version: str, claimed_cudnn: str, platform: str) -> Optional[str]:
    """The message when the reporter's claimed cuDNN is of the major TensorFlow ``tf_version`` was built for but a
    minor its own check refuses (stream_executor/cuda/cuda_dnn.cc, the message "CuDNN library major and minor version
    needs to match or have higher minor version in case of CuDNN 7.0 or later version": from cuDNN 7 a lower minor than
    the build's, before 7 any other minor). ``None`` when the minors pass, when the release writes no minor ("7"), or
    when the release, the claim or (platform unknown) the version of both builds is not known."""
    rel = matrix.tf_release(tf_version)
    if rel is None or rel.get("and_cuda"):
        return None
    need = _cudnn_release(rel, platform)
    want_major, have_major = _major(need), _major(claimed_cudnn)
    want_minor, have_minor = _minor(need), _minor(claimed_cudnn)
    if want_major is None or want_major != have_major or want_minor is None or have_minor is None:
        return None
    if int(have_minor) >= int(want_minor) if want_major >= 7 else have_minor == want_minor:
        return None
    rule = "an equal or higher minor of that major" if want_major >= 7 else "that major and minor"
    return (f"TensorFlow {tf_version} was built with cuDNN {need} (its tested build configuration) and its cuDNN check "
            f"accepts only {rule}; the report says cuDNN {claimed_cudnn} is installed (the reporter's claim, not "
            f"checked), which TensorFlow refuses at the first convolution (\"Loaded runtime CuDNN library ... but source "
            f"was compiled with ...\").")


def tf_claim_finding(matrix: Matrix, env: Environment, claims: TextClaims) -> List[Finding]:
    """``cuda-runtime-missing`` from the reporter's CUDA claim against the installed TensorFlow release's tested
    build configuration (:func:`tf_claimed_cuda_mismatch`); where the report names no OS, only where the Linux and the
    native Windows builds' CUDA agree (tfgpu39: a claim and a release said in prose), the build is not CPU-only, and
    TensorFlow was not built from source (its CUDA is then the one it was configured with, not the tested configuration) nor one of NVIDIA's Jetson builds (``1.15.2+nv20.6``: built for
    the CUDA of its JetPack, tensorflow/tensorflow#41888)."""
    from envcheck.engine.builds import jetson_build

    fw = env.frameworks.get("tensorflow")
    claimed = claims.cuda_claim
    if fw is None or not fw.version or fw.cpu_only or claims.tf_from_source:
        return []
    if jetson_build(fw.version):
        return []  # NVIDIA's Jetson build ("1.15.2+nv20.6") is built for its JetPack's CUDA, not the tested configuration
    msg = tf_claimed_cuda_mismatch(matrix, str(fw.version), claimed, env.python.platform or "") if claimed else None
    if msg is not None:
        return [Finding("cuda-runtime-missing", Severity.ERROR, msg, TF_CLAIM_FIX,
                        claims.gpu_intent if claims.gpu_intent is not None else claimed, "tensorflow")]
    # the CUDA claim agrees (or is not said): the cuDNN claim against the release's cuDNN major
    cudnn = claims.cudnn_claim
    msg = tf_claimed_cudnn_mismatch(matrix, str(fw.version), cudnn, env.python.platform or "") if cudnn else None
    if msg is not None:
        return [Finding("cudnn-missing", Severity.ERROR, msg, TF_CLAIM_FIX,
                        claims.gpu_intent if claims.gpu_intent is not None else cudnn, "tensorflow")]
    # the same major: TensorFlow's own check refuses a lower minor (tfcudnn38)
    msg = tf_claimed_cudnn_minor_below(matrix, str(fw.version), cudnn, env.python.platform or "") if cudnn else None
    if msg is None:
        return []
    return [Finding("cudnn-version-mismatch", Severity.ERROR, msg, TF_CLAIM_FIX,
                    claims.gpu_intent if claims.gpu_intent is not None else cudnn, "tensorflow")]


def ort_claim_finding(matrix: Matrix, env: Environment, claims: TextClaims) -> List[Finding]:
    """``cuda-runtime-missing`` from the reporter's CUDA claim (ONNX Runtime's old template has TensorFlow's
    "CUDA/cuDNN version" field) against what the installed onnxruntime-gpu release needs (compat_matrix/onnxruntime.toml,
    :func:`envcheck.engine.onnxruntime.ort_needs`): a build loads the CUDA runtime of its own major (up to CUDA 10, of
    its own minor: libcudart.so.10.2), so a claimed CUDA that is none of its feeds' builds' leaves it without one. Only
    for the GPU package, not built from source, with the release in the matrix."""
    from envcheck.engine.onnxruntime import ort_needs

    fw = env.frameworks.get("onnxruntime")
    claimed = claims.cuda_claim
    have = _major(claimed)
    if fw is None or fw.distribution != "onnxruntime-gpu" or not fw.version or have is None or claims.ort_from_source:
        return []
    needs = ort_needs(matrix, fw.version)
    if not needs:
        return []
    for n in needs:
        if n.cuda_major == have and _serves(matrix, n.cuda, claimed):
            return []  # one of the builds it may be loads the claimed CUDA's runtime
    windows = (env.python.platform or "").lower().startswith("win")
    what = "; or ".join(f"{n.text()}, loading {_runtime_file(matrix, n.cuda, windows)}" for n in needs)
    return [Finding("cuda-runtime-missing", Severity.ERROR,
                    f"onnxruntime-gpu {fw.version} needs {what}; the report says CUDA {claimed} is installed (the "
                    "reporter's claim, not checked), which does not provide it, so ONNX Runtime lists only "
                    "CPUExecutionProvider.",
                    "Install the CUDA runtime and cuDNN that release needs, or an onnxruntime-gpu release built for the "
                    "CUDA that is installed (https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html"
                    "#requirements; `envcheck fix --want onnxruntime-gpu` on the machine).",
                    claims.gpu_intent if claims.gpu_intent is not None else claimed, "onnxruntime")]


def _machine_cudnn(env: Environment) -> Optional[str]:
    """The cuDNN major the report's library listing shows (every copy of one major), or None: none, or two majors."""
    majors = {c.major for c in env.libraries if c.family == "cudnn" and c.major is not None and c.source != "header"}
    return str(majors.pop()) if len(majors) == 1 else None


def ort_majors_finding(matrix: Matrix, env: Environment, claims: TextClaims) -> List[Finding]:
    """``cuda-runtime-missing`` / ``cudnn-missing`` for an onnxruntime-gpu release none of whose builds fits the
    machine's CUDA and cuDNN majors (:func:`envcheck.engine.onnxruntime.majors_finding`): the CUDA of the report's
    toolkit (nvcc) else the reporter's claim, the cuDNN of the report's library listing else the claim. Needs a known
    release of the GPU package, not built from source, and a cuDNN or a CUDA to judge by; where both are known it can
    say which of the two is missing (a CUDA major that fits leaves cuDNN)."""
    from envcheck.engine.onnxruntime import GPU, majors_finding

    fw = env.frameworks.get("onnxruntime")
    if fw is None or fw.distribution != GPU or not fw.version or claims.ort_from_source:
        return []
    cuda, cudnn = env.toolkit.version, _machine_cudnn(env)
    claimed = (cuda is None and claims.cuda_claim is not None) or (cudnn is None and claims.cudnn_claim is not None)
    cuda, cudnn = cuda or claims.cuda_claim, cudnn or claims.cudnn_claim
    got = majors_finding(matrix, fw.version, cuda, cudnn, claimed)
    if got is None:
        return []
    cause, msg, fix = got
    evidence = claims.gpu_fails or claims.gpu_intent or cudnn or cuda
    return [Finding(cause, Severity.ERROR, msg, fix, evidence, "onnxruntime")]


def ort_line_cause(matrix: Matrix, version: Optional[str], cuda: Optional[str], cudnn: Optional[str],
                   from_source: bool = False, required: Optional[Tuple[int, int]] = None) -> Optional[Tuple[str, str]]:
    """(cause id, why) for an ONNX Runtime line that names no library (engine.onnxruntime.NO_LIBRARY_SAYS), decided
    by :func:`envcheck.engine.onnxruntime.line_verdict`: the builds are the ``required`` (CUDA major, cuDNN major) the
    line names ("Require cuDNN 8.* and CUDA 12.*"), else the builds of the onnxruntime-gpu ``version`` the text names
    (not one built from source: the requirements table describes the released packages); ``cuda`` / ``cudnn``: what the
    text shows of the machine's (its toolkit, else the reporter's claim). None where nothing decides between the two."""
    from envcheck.engine.onnxruntime import line_verdict, ort_needs

    builds: List[Tuple[int, int]] = []
    if required is not None:
        builds = [required]
    elif version and not from_source:
        builds = list(dict.fromkeys((n.cuda_major, n.cudnn_major) for n in ort_needs(matrix, version)))
    return line_verdict(builds, _major(cuda), _major(cudnn))
