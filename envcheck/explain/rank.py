"""The pasted report's findings as candidate causes, next to explain's log-line matches.

``envcheck.checks.run_checks`` on the paste's Environment gives what ``status`` would have said on the
reporter's machine. Its *errors* about the GPU stack (contract §3 ids) become causes: one the log also
shows is corroborated (ranked up, the finding's exact fix first); one the log does not show is added as
its own match, a little below a log line of the same weight (a printed failure is direct evidence).
Warnings (e.g. nvcc differs from torch's CUDA, which matters only when building extensions) never become
causes on their own: a consistent environment with an unrelated error gives no match.

This module decides none of it: it maps the text's lines to facts and claims (:func:`claims_from_lines`: a typed
:class:`~envcheck.engine.textclaims.TextClaims`), asks the engine (:mod:`envcheck.engine.report`,
:mod:`envcheck.engine.cpubuild`, :mod:`envcheck.engine.container`, :mod:`envcheck.engine.claims`,
:mod:`envcheck.engine.oldgpu`, :func:`envcheck.engine.stack.one_process_cudnn`), and ranks what it answers.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from envcheck.engine.report import ABSENCE_IDS as ABSENCE_IDS  # noqa: F401 - re-exported: explain's name for them
from envcheck.engine.report import BUILD_CAUSES as BUILD_CAUSES  # noqa: F401
from envcheck.engine.report import VENDOR_CAUSES as VENDOR_CAUSES  # noqa: F401
from envcheck.engine.textclaims import ContainerRun, TextClaims, TorchWheel
from envcheck.model import Environment

__all__ = ["add_findings", "add_text_findings", "claims_from_lines", "two_frameworks_cudnn", "paste_findings",
           "drop_contradicted_by_text", "drop_pip_mac_x86", "drop_pip_not_python", "drop_uv_platform_only", "gpu_ran", "ABSENCE_IDS", "BUILD_CAUSES", "CLAIM_ONLY",
           "CORROBORATED", "FINDING_ONLY", "VENDOR_CAUSES"]

CORROBORATED = 15.0  # score added to a log match the report's findings confirm
FINDING_ONLY = -5.0  # a finding with no log line, against its cause's weight
#: more, for a finding that rests on the reporter's claim (the TF template's CUDA field), not on anything seen:
#: a failure the text itself shows (a missing library's own line) comes first
CLAIM_ONLY = -10.0


# -- the text's lines as typed claims (what the text shows; the engine decides what it means) -------------------

#: a torch wheel's file name as pip prints it: its version (a local label after "+" or "%2B") and its platform tag
_TORCH_WHEEL = re.compile(r"torch-(?P<ver>\d[\w.!]{0,40}(?:(?:\+|%2B)[\w.]{1,30})?)-cp3\d{1,2}-\w{1,20}-(?P<plat>[\w.]{1,80})\.whl")
#: where a wheel's URL is PyPI's (pip prints no URL at all for PyPI's own files): files.pythonhosted.org, a PyPI mirror's
#: /pypi/ or /simple/ path (mirrors.aliyun.com/pypi/packages/..., pypi.tuna.tsinghua.edu.cn/packages/...)
_PYPI_URL = re.compile(r"(?i)^https?://(?:files\.pythonhosted\.org/|pypi\.[\w.-]{1,60}/|[\w.-]{1,60}/(?:pypi|simple)/)")
#: an image name or tag of a GPU image: ``nvidia/cuda:...``, ``nvcr.io/...``, ``...:latest-gpu-py3``, ``...-cuda11.8-cudnn8-...``
_CUDA_IMAGE = re.compile(r"(?i)\b(?:nvidia/cuda|nvcr\.io/\S+)|[\w./-]*:[\w.-]*(?:gpu|cuda|cudnn)[\w.-]*")


def _torch_wheel(line: str) -> Optional[TorchWheel]:
    wm = _TORCH_WHEEL.search(line)
    if not wm:
        return None
    url = line[:wm.start()].rsplit(" ", 1)[-1]
    return TorchWheel(version=wm.group("ver"), platform_tag=wm.group("plat"), from_pypi=not url or bool(_PYPI_URL.search(url)),
                      shown=line.split()[-1] if len(line) < 160 else wm.group("plat"), line=line)


def _container(line: str) -> Optional[ContainerRun]:
    if not line:
        return None
    parts = line.split(" | ")
    image = _CUDA_IMAGE.search(parts[0])
    return ContainerRun(line=line, docker_run="docker" in parts[0].lower(),
                        smi_missing=len(parts) > 1 and "nvidia-smi" in parts[1].lower(),
                        gpu_image=image.group(0) if image else None)


def _cuda_available(line: str) -> Optional[bool]:
    low = line.lower().rstrip()
    return True if low.endswith(("true", "yes")) else False if low.endswith(("false", "no")) else None


def claims_from_lines(lines: Dict[str, str]) -> TextClaims:
    """The typed claims of a text's report lines (``Report.lines`` keys: the first line that showed each thing)."""
    imports: List[Tuple[str, str]] = [(fw, lines["import-" + fw]) for fw in ("torch", "tensorflow", "jax")
                                      if lines.get("import-" + fw)]
    available = lines.get("cuda-available")
    return TextClaims(
        gpu_intent=lines.get("gpu-intent"), gpu_fails=lines.get("gpu-fails"), gpu_works=lines.get("gpu-works"),
        cuda_available=_cuda_available(available) if available is not None else None, cuda_available_line=available,
        ext_build=lines.get("ext-build"), find_links=lines.get("find-links"), torch_printed=lines.get("torch"),
        torch_wheel=_torch_wheel(lines.get("torch-wheel", "")), container=_container(lines.get("docker-no-gpus", "")),
        docker_gpus=lines.get("docker-gpus"), cuda_claim=lines.get("cuda-claim"), cudnn_claim=lines.get("cudnn-claim"),
        tf_from_source=lines.get("tf-from-source"), ort_from_source=lines.get("ort-from-source"), imports=tuple(imports),
        zluda=lines.get("zluda"), no_gpu_said=lines.get("no-gpu-said"), ort_cpu_providers=lines.get("ort-cpu-providers"),
        ort_gpu_wanted=lines.get("ort-gpu-wanted"), torch_pip=lines.get("torch-pip"),
        torch_index=lines.get("torch-index"), torch_conda=lines.get("torch-conda"))


# -- the report's findings (status on the report's Environment) and the engine's report rules --------------------

def paste_findings(env: Environment, matrix: Any, report_lines: Optional[Dict[str, str]] = None,
                   notes: Optional[List[str]] = None, claims: Optional[List[Any]] = None,
                   ort_decided: Optional[List[Any]] = None) -> List[Any]:
    """The findings of the paste's Environment that are causes, and the engine's report rules on what the text shows
    (:func:`envcheck.engine.report.paste_causes` decides which, on ``status``'s findings for the paste's Environment).
    Never raises: a check that fails on the paste's facts leaves its findings out and says what failed in ``notes``.
    ``claims``, when given, also receives the findings that rest on the reporter's claim only."""
    from envcheck.checks.frameworks import cpu_only_fix
    from envcheck.checks.pipeline import build_status
    from envcheck.engine.report import paste_causes

    notes = notes if notes is not None else []
    said = claims_from_lines(report_lines or {})
    try:
        found = build_status(env=env, matrix=matrix).findings
    except Exception as exc:  # noqa: BLE001 - a report oddity must not break explain: recorded in the notes
        notes.append(f"envcheck could not check the pasted report's environment: {type(exc).__name__}: {exc}")
        return []

    def fix(fw: Any) -> str:
        return cpu_only_fix(env, matrix, fw)

    return paste_causes(found, env, matrix, said, fix, notes, claims, ort_decided)


#: finding id -> the report lines that show it (``Report.lines`` keys), for the evidence
_EVIDENCE = {"framework-cpu-only": ("torch", "torch-cuda", "tensorflow", "os", "gpu"),
             "cuda-toolkit-mismatch": ("nvcc", "torch", "torch-cuda", "ext-build"),
             "mps-os-too-old": ("macos", "torch"), "python-arch-mismatch": ("macos", "apple-cpu"),
             "framework-vendor-mismatch": ("torch", "gpu"), "driver-too-old": ("driver", "nvidia-smi", "torch"),
             "gpu-arch-unsupported": ("gpu", "torch"), "no-gpu-driver": ("nvidia-smi",),
             "driver-library-mismatch": ("nvidia-smi",),
             "no-gpu-visible": ("docker-no-gpus", "nvidia-smi")}


def two_frameworks_cudnn(matches: List[Any], report_lines: Dict[str, str], matrix: Any) -> List[Any]:
    """XLA's cuDNN check (a cudnn-version-mismatch match whose wording ``says`` ``xla-cudnn-check``, errors.toml: the cuDNN
    loaded into the process is older than the one it was built with) in a program that imports two
    frameworks becomes framework-conflict (the engine's rules: :func:`envcheck.engine.stack.one_process_cudnn` says the
    program imports two, :func:`envcheck.engine.verdicts.xla_cudnn_recast` names the cause); with one framework imported
    the match stays cudnn-version-mismatch. The ptxas notice JAX prints beside it (``says``
    ``ptxas-slowdown-notice``: driver-too-old, a slowdown notice, not what failed) does not outrank it."""
    from envcheck.engine.stack import one_process_cudnn

    conflict = one_process_cudnn(claims_from_lines(report_lines).imports)
    if conflict is None:
        return matches
    from envcheck.engine.verdicts import xla_cudnn_recast
    from envcheck.explain.kb import load_kb

    hit = next((m for m in matches if xla_cudnn_recast(m.id, m.says)), None)
    new = xla_cudnn_recast(hit.id, hit.says) if hit is not None else None
    cause = load_kb(matrix).causes.get(new) if new else None
    if cause is None or hit is None or new is None:
        return matches
    hit.id, hit.title = new, cause.title
    hit.machine.insert(0, conflict.said)
    hit.fixes[:0] = [conflict.fix] + [t for t, _, _ in cause.fixes]
    hit.fix_sources[:0] = [conflict.source] + [s for _, s, _ in cause.fixes]
    hit.fix_whens[:0] = [""] + [w for _, _, w in cause.fixes]
    hit.score += CORROBORATED
    notice = [m.score for m in matches if "ptxas-slowdown-notice" in m.says]
    if notice and max(notice) >= hit.score:
        hit.score = max(notice) + 1.0
    matches.sort(key=lambda x: (-x.score, x.line_no))
    return matches


#: generic log lines read as "a CPU-only build" (framework-cpu-only) that only say the framework found no GPU, and the
#: framework they speak of, by what their wording ``says`` (errors.toml): Ultralytics' select_device ("Invalid CUDA
#: 'device=0' requested", raised whenever torch.cuda.is_available() is False), JAX's "No GPU/TPU found, falling back to
#: CPU"
_NO_GPU_SEEN_BY = {"torch-saw-no-gpu": "torch", "jax-saw-no-gpu": "jax"}


def _no_gpu_seen_by(m: Any) -> Optional[str]:
    return next((_NO_GPU_SEEN_BY[x] for x in m.says if x in _NO_GPU_SEEN_BY), None)


#: log lines that only a GPU build of a framework prints while running on the GPU: its allocator's out-of-memory
#: ("CUDA out of memory. Tried to allocate ...", "CUDA error: out of memory", "cudaMalloc failed: out of memory": their
#: wordings' ``says`` ``gpu-build-ran``, errors.toml), and the
#: causes whose every wording is a GPU library's or the GPU's own failure (a cuBLAS / cuDNN status, an illegal memory
#: access): a CPU-only build never reaches them
_GPU_RAN_CAUSES = frozenset({"gpu-memory-fault", "cublas-error", "cudnn-bad-param", "cudnn-execution-failed",
                             "cudnn-no-algorithm"})


def gpu_ran(matches: List[Any]) -> Optional[str]:
    """The evidence of the first log match that shows a GPU build running (``says`` ``gpu-build-ran``,
    :data:`_GPU_RAN_CAUSES`), or None."""
    return next((m.evidence for m in matches if "gpu-build-ran" in m.says or m.id in _GPU_RAN_CAUSES), None)


def no_build(matches: List[Any]) -> Optional[str]:
    """``package | line`` of the first match that reads pip's (or uv's) "no build of this package here" (cause
    ``python-unsupported`` with the package captured: errors.toml's pip-framework-no-matching-distribution and its
    kin), or None; the engine decides what else the text says of it (engine.prose_causes.python_bits: a 32-bit
    Python)."""
    return next((f"{m.captures['package']} | {m.evidence}" for m in matches
                 if m.id == "python-unsupported" and (m.captures or {}).get("package")), None)


def _drop_cpu_build_of_cuda_build(matches: List[Any], env: Environment) -> None:
    """A generic "no GPU found" line read as a CPU-only build, where the report shows that framework is a CUDA build:
    the match is dropped where the engine says so (:func:`envcheck.engine.verdicts.cpu_reading_of_cuda_build`)."""
    from envcheck.engine.verdicts import cpu_reading_of_cuda_build

    matches[:] = [m for m in matches if not cpu_reading_of_cuda_build(m.id, _no_gpu_seen_by(m), env)]


def _drop_contradicted(matches: List[Any], claims: TextClaims) -> None:
    """The log matches the text contradicts (:func:`envcheck.engine.report.contradicted_by_gpu_working`) are dropped;
    the report's own findings stay."""
    from envcheck.engine.report import contradicted_by_gpu_working

    gone = contradicted_by_gpu_working(claims)
    if gone:
        matches[:] = [m for m in matches if m.id not in gone or m.signature == "paste-finding"]


#: a container image's banner that says it sees no driver (NGC's "The NVIDIA Driver was not detected": its wording's
#: ``says`` ``container-banner-no-driver``, errors.toml): evidence of a container started without GPUs only where the
#: text does not show it started with them


def _drop_banner_of_gpu_container(matches: List[Any], claims: TextClaims) -> None:
    """A banner (``says`` ``container-banner-no-driver``) where the container started with GPUs
    (:func:`envcheck.engine.container.started_with_gpus`) is dropped: no cause is named that the text contradicts."""
    from envcheck.engine.container import started_with_gpus

    if started_with_gpus(claims):
        matches[:] = [m for m in matches if "container-banner-no-driver" not in m.says]


def _drop_tf_warning_without_gpu(matches: List[Any], claims: TextClaims) -> None:
    """TensorFlow's own "Could not load dynamic library" warning (``says`` ``tf-loader-warning``, errors.toml) where
    the reporter says the machine has no (NVIDIA) GPU (evidence ``no-gpu-said``: "I don't have gpu", the template's
    "GPU model and memory: No"): TensorFlow goes on without the library and says so itself ("Ignore above cudart
    dlerror if you do not have a GPU set up on your machine"), so no missing CUDA library is the cause; the match is
    dropped (the cause is left unknown, not stated falsely). A GPU the text shows working keeps it."""
    if claims.no_gpu_said and not claims.gpu_works:
        matches[:] = [m for m in matches if "tf-loader-warning" not in m.says]


def drop_tf_probe_unwanted(matches: List[Any], lines: Dict[str, str], env: Optional[Environment] = None,
                           facts: Optional[Dict[str, Any]] = None) -> None:
    """TensorFlow's start-up probe lines (``says`` ``tf-loader-warning``) that name no cause: where the engine says so
    (:func:`envcheck.engine.report.tf_probe_unwanted`: the probe found no driver, they are the text's only matches and
    the text shows no GPU wanted or present: a CPU run as intended; quiet38), they are dropped (the cause is left
    unknown, not stated falsely)."""
    from envcheck.engine.report import tf_probe_unwanted

    if tf_probe_unwanted([(m.id, "tf-loader-warning" in m.says) for m in matches], lines, env, facts):
        matches[:] = []


def drop_killed_in_build(matches: List[Any], lines: Dict[str, str]) -> None:
    """A ``Killed`` read as the GPU's memory on a Jetson where the text shows a build's process killed: the match is
    dropped where the engine says the text contradicts it (:func:`envcheck.engine.report.killed_in_build`; attack47)."""
    from envcheck.engine.report import killed_in_build

    matches[:] = [m for m in matches if not killed_in_build(m.id, m.says, lines)]


def drop_contradicted_by_text(matches: List[Any], report_lines: Dict[str, str]) -> None:
    """For a text with no environment report read: the log matches that what the text shows contradicts are dropped
    (a container banner's "no driver" where the text shows the container started with GPUs, TensorFlow's library
    warning where the reporter says the machine has no GPU)."""
    said = claims_from_lines(report_lines)
    _drop_banner_of_gpu_container(matches, said)
    _drop_tf_warning_without_gpu(matches, said)


#: pip's and uv's "no build of this package here" lines: their wordings' ``says`` (errors.toml) ``no-build-line``, and
#: uv's for the current platform ``uv-platform-line``


def drop_pip_not_python(matches: List[Any], env: Optional[Environment], matrix: Any,
                        python: Optional[str] = None, platform: Optional[str] = None, bits32: bool = False) -> None:
    """pip's "no matching distribution" line is read as "no build for this Python" (python-unsupported). Dropped where
    the report contradicts it: the report's Python is one the pinned release (``torch==X``) has wheels for
    (:func:`envcheck.engine.builds.release_supports_python`). The versions pip lists as found are no such evidence:
    "(from versions: 1.7.1, ...)" for ``torch<1.7`` on Python 3.9 is exactly a release without wheels for it.
    ``bits32``: the text shows a 32-bit Python (evidence ``python-32bit``): the release's wheels for that version are
    64-bit ones, so nothing is dropped (engine.prose_causes.python_bits says what it is)."""
    from envcheck.engine.verdicts import release_serves_python

    if bits32:
        return

    py = env.python.version if env is not None else python  # the report's Python, or one the text states
    plat = env.python.platform if env is not None else platform  # its platform: the Python lists are per platform
    machine = env.python.machine if env is not None else None
    matches[:] = [m for m in matches if not release_serves_python(matrix, m.id, m.says, m.captures, py, plat, machine)]


def drop_uv_platform_only(matches: List[Any], report_lines: Dict[str, str]) -> None:
    """uv's "no source distribution or wheel for the current platform" read as "no build for this Python", where uv's
    own hint says the release has wheels for other platforms only: the match is dropped where the engine says the text
    contradicts it (:func:`envcheck.engine.report.uv_platform_only`)."""
    from envcheck.engine.report import uv_platform_only

    matches[:] = [m for m in matches if not uv_platform_only(m.id, m.says, m.captures.get("package"), report_lines)]


def drop_pip_mac_x86(matches: List[Any], matrix: Any) -> None:
    """(macarch40) pip's "Could not find a version that satisfies the requirement torch==X (from versions: ...)" whose
    list ends at the last torch release with macOS x86_64 wheels and wants a newer one
    (:func:`envcheck.engine.builds.mac_x86_list_top`): the Python is a macOS x86_64 one, whatever its version, so the
    Python's version is not why: the match is dropped where the engine says so
    (:func:`envcheck.engine.builds.python_version_not_why`)."""
    from envcheck.engine.builds import python_version_not_why

    matches[:] = [m for m in matches if not python_version_not_why(matrix, m.id, m.says, m.captures.get("package"),
                                                                   m.evidence)]


def _drop_mps_met(matches: List[Any], env: Environment, matrix: Any) -> None:
    """A log line "The MPS backend is supported on MacOS 14.0+" on a Mac whose report shows a macOS that meets it
    (and the torch release's own minimum: :func:`envcheck.engine.verdicts.mps_line_met`): MPS is unavailable for
    another reason, so the line's old-macOS cause is dropped; the engine's own findings on the report stay."""
    from envcheck.engine.verdicts import mps_line_met

    matches[:] = [m for m in matches if m.signature == "paste-finding"
                  or not mps_line_met(matrix, m.id, env, m.captures.get("min_macos"))]


def _evidence(f: Any, lines: Dict[str, str]) -> str:
    got = [lines[k] for k in _EVIDENCE.get(f.id, ()) if lines.get(k)]
    return "(pasted environment report) " + (" | ".join(dict.fromkeys(got)) if got else f.message)


def _paste_wording(m: Any) -> None:
    """``refine`` speaks of "This machine"; with a paste the machine is the reporter's."""
    fixes, sources, whens = [], [], []
    for k, t in enumerate(m.fixes):
        if t.startswith("This machine: "):
            t = "From the pasted report: " + t[len("This machine: "):]
        if t in fixes:
            continue
        fixes.append(t)
        sources.append(m.fix_sources[k] if k < len(m.fix_sources) else "")
        whens.append(m.fix_whens[k] if k < len(m.fix_whens) else "")
    m.fixes, m.fix_sources, m.fix_whens = fixes, sources, whens


def add_findings(matches: List[Any], env: Optional[Environment], matrix: Any,
                 report_lines: Optional[Dict[str, str]] = None, facts: Optional[Dict[str, str]] = None) -> List[Any]:
    """``matches`` with the paste's findings merged in, best first. ``facts``: the text's own flat facts (explain's
    scan), read with the report's for the conditions of a new match's fixes."""
    for m in matches:
        _paste_wording(m)
    if env is None or matrix is None:
        return matches
    said = claims_from_lines(report_lines or {})
    _drop_contradicted(matches, said)
    _drop_cpu_build_of_cuda_build(matches, env)
    _drop_banner_of_gpu_container(matches, said)
    _drop_tf_warning_without_gpu(matches, said)
    _drop_mps_met(matches, env, matrix)
    drop_pip_not_python(matches, env, matrix, bits32=bool((report_lines or {}).get("python-32bit")))
    notes: List[str] = []
    claimed: List[Any] = []
    decided: List[Any] = []
    findings = paste_findings(env, matrix, report_lines, notes, claimed, decided)
    _ort_decides(matches, decided, matrix)
    for m in matches:
        m.notes.extend(n for n in notes if n not in m.notes)
    if not findings:
        return matches
    from envcheck.explain.machine import env_facts

    return merge_findings(matches, findings, matrix, report_lines or {}, claimed, {**env_facts(env), **(facts or {})})


def _ort_decides(matches: List[Any], decided: List[Any], matrix: Any) -> None:
    """An ONNX Runtime line that names no library (error 126 on its CUDA provider's DLL, "CUDA_PATH is set but CUDA
    wasn't able to be loaded", "Failed to create CUDAExecutionProvider": their ``says`` engine.onnxruntime.NO_LIBRARY_SAYS) takes
    the cause the release's needs and the machine's majors decide (``decided``): the merge then corroborates it."""
    from envcheck.engine.onnxruntime import NO_LIBRARY_SAYS
    from envcheck.explain.kb import load_kb

    if not decided:
        return
    cause = load_kb(matrix).causes.get(decided[0].id)
    for m in matches:
        if NO_LIBRARY_SAYS in m.says and m.id != decided[0].id and cause is not None:
            m.id, m.title = decided[0].id, cause.title


def ort_line_decides(matches: List[Any], facts: Dict[str, Any], report_lines: Dict[str, str], matrix: Any) -> None:
    """An ONNX Runtime line that names no library (its ``says`` engine.onnxruntime.NO_LIBRARY_SAYS): the majors the line
    names ("Require cuDNN 8.* and CUDA 12.*": captures ``cuda_major`` / ``cudnn_major``), else the builds of the release
    the text names, against the CUDA and cuDNN the text shows (``facts``, contract §4: the toolkit, else the reporter's
    claim) decide between cuda-runtime-missing and cudnn-missing (engine.claims.ort_line_cause); the line keeps its
    cause where nothing decides. Read with or without a pasted report (a sentence's "onnxruntime-gpu 1.16.3" and "cuda
    11.8" too)."""
    from envcheck.engine.claims import ort_line_cause
    from envcheck.engine.onnxruntime import NO_LIBRARY_SAYS
    from envcheck.explain.kb import load_kb

    lines = [m for m in matches if NO_LIBRARY_SAYS in m.says]
    if not lines or matrix is None:
        return
    said = claims_from_lines(report_lines or {})

    def get(*keys: str) -> Optional[str]:
        v: Any = facts
        for k in keys:
            v = v.get(k) if isinstance(v, dict) else None
        return str(v) if isinstance(v, (str, int, float)) and str(v) else None

    version = get("frameworks", "onnxruntime", "version")
    cuda = get("toolkit", "version") or get("claims", "cuda") or said.cuda_claim
    cudnn = get("claims", "cudnn") or said.cudnn_claim
    for m in lines:
        c, d = str(m.captures.get("cuda_major") or ""), str(m.captures.get("cudnn_major") or "")
        required = (int(c), int(d)) if c.isdigit() and d.isdigit() else None
        got = ort_line_cause(matrix, version, cuda, cudnn, bool(said.ort_from_source), required)
        cause = load_kb(matrix).causes.get(got[0]) if got is not None else None
        if got is None or cause is None:
            continue
        if m.id != got[0]:
            m.notes.append(f"read as {got[0]} (the line alone says {m.id}): {got[1]}")
        m.id, m.title = got[0], cause.title


def add_text_findings(matches: List[Any], matrix: Any, report_lines: Dict[str, str]) -> List[Any]:
    """``matches`` with what a text without any report shows as a cause on its own: a container started without GPUs
    (a ``docker run`` line with no GPU option, or a GPU image or a container's prompt) where nvidia-smi is missing;
    ONNX Runtime's available providers printed without a GPU provider where the text wants its GPU build."""
    from envcheck.engine.container import container_without_gpus
    from envcheck.engine.cpubuild import ort_providers_cpu

    said = claims_from_lines(report_lines)
    docker = container_without_gpus(None, said, text_only=True)
    found = ([docker] if docker is not None else []) + ort_providers_cpu(said)
    if not found or matrix is None:
        return matches
    return merge_findings(matches, found, matrix, report_lines, [])


def merge_findings(matches: List[Any], findings: List[Any], matrix: Any, report_lines: Dict[str, str],
                    claimed: List[Any], facts: Optional[Dict[str, str]] = None) -> List[Any]:
    """``findings`` (the paste's, best first) merged into ``matches``: a cause already matched is corroborated, another
    becomes a match of its own, with the cause's fixes whose ``when`` the flat ``facts`` do not contradict (a fix for a
    Jetson, or for ONNX Runtime, only where the facts show one; explain/machine.py apply_when)."""
    from envcheck.explain.machine import apply_when

    from envcheck.engine.report import cuda_reached_contradicts
    from envcheck.engine.verdicts import findings_named_by_lines
    from envcheck.explain import Match
    from envcheck.explain.kb import load_kb

    said = claims_from_lines(report_lines)
    kb = load_kb(matrix)
    by_id = {m.id: m for m in matches}
    # a finding a log line names more exactly (nvidia-smi's failure, its state named by the line): not a second cause
    seen = set(findings_named_by_lines([(m.id, m.says) for m in matches]))
    for f in findings:
        if f.id in seen:
            continue
        seen.add(f.id)
        text = f"From the pasted report: {f.message}" + (f" Fix: {f.fix}" if f.fix else "")
        cur = by_id.get(f.id)
        if cur is not None:
            cur.score += CORROBORATED
            if text not in cur.fixes:
                cur.fixes.insert(0, text)
                cur.fix_sources.insert(0, "envcheck")
                cur.fix_whens.insert(0, "")
            if f.message not in cur.machine:
                cur.machine.insert(0, f.message)
            _paste_wording(cur)
            continue
        cause = kb.causes.get(f.id)
        if cause is None:
            continue
        if cuda_reached_contradicts(f.id, said):
            continue  # torch itself initialised CUDA on that machine (cuda-compat, or a misread driver CUDA)
        m = Match(id=f.id, title=cause.title, evidence=_evidence(f, report_lines),
                  line_no=0, fixes=[text] + [t for t, _, _ in cause.fixes], dead_ends=[t for t, _ in cause.dead_ends],
                  score=float(cause.weight) + FINDING_ONLY + (CLAIM_ONLY if any(f is c for c in claimed) else 0.0),
                  source="envcheck checks on the pasted report",
                  signature="paste-finding", fix_sources=["envcheck"] + [s for _, s, _ in cause.fixes],
                  fix_whens=[""] + [w for _, _, w in cause.fixes], dead_end_sources=[s for _, s in cause.dead_ends],
                  machine=[f.message])
        apply_when(m, facts or {}, kb)
        matches.append(m)
        by_id[f.id] = m
    matches.sort(key=lambda x: (-x.score, x.line_no))
    return matches


def _text_gpus(env: Optional[Environment], facts: Dict[str, Any]) -> List[Any]:
    if env is not None:
        return [(g.name, g.compute_capability) for g in env.gpus if g.name]
    return [(g.get("name"), g.get("compute_capability")) for g in facts.get("gpus") or [] if isinstance(g, dict)
            and g.get("name")]


def _text_releases(env: Optional[Environment], facts: Dict[str, Any]) -> List[Any]:
    """(framework, version) of the frameworks whose build (CUDA variant) the text does not name."""
    if env is not None:
        return [(n, str(fw.version).split("+")[0]) for n, fw in env.frameworks.items()
                if fw.version and not fw.cuda and not fw.arch_list and fw.cpu_only is not True]
    fws = facts.get("frameworks") or {}
    # no report in the text: a torch build named with its tag in a sentence ("I use torch 2.11.0+cu128") is checked
    # by nothing else - that variant's builds are judged here
    return [(n, str(d.get("version")) if n == "torch" and re.search(r"\+cu\d{2,3}$", str(d.get("version"))) else
             str(d.get("version")).split("+")[0]) for n, d in fws.items()
            if isinstance(d, dict) and d.get("version") and (not d.get("cuda") and "+" not in str(d.get("version"))
                                                            or re.search(r"\+cu\d{2,3}$", str(d.get("version"))))]


def _prose_release(env: Optional[Environment], facts: Dict[str, Any], report_lines: Dict[str, str]) -> List[Any]:
    """[("torch", release)] where the text's sentences name exactly one torch release without its variant tag
    ("pytorch (2.1)", "PyTorch 2.7.1 binary"; "2.1" and "2.1.0" are one) and no report or sentence of the text names
    a torch build (its version or its CUDA); else []."""
    fws = env.frameworks if env is not None else (facts.get("frameworks") or {})
    if "torch" in fws:
        return []
    said = [v for v in (report_lines.get("torch-release-prose") or "").split("|") if v]
    distinct = {re.sub(r"(?:\.0)+$", "", v) if v.count(".") > 1 else v for v in said}
    return [("torch", said[0])] if len(distinct) == 1 else []


def add_old_gpu(matches: List[Any], env: Optional[Environment], matrix: Any, report_lines: Dict[str, str],
                facts: Optional[Dict[str, Any]] = None) -> List[Any]:
    """``matches`` with ``gpu-arch-unsupported`` added where the text names one old GPU model and the range it is
    outside of, or a release none of whose builds runs it (engine.oldgpu decides). ``env``: the pasted report's
    Environment (None: no report in the text, then ``facts``, the log lines' facts, name the GPU and the release)."""
    if matrix is None:
        return matches
    from envcheck.engine.oldgpu import GPU_UNUSED, named_gpus, old_gpu_finding

    names = [n for n in (report_lines.get("gpu-prose") or "").split("|") if n]
    # a GeForce series a sentence names ("RTX 10XX cards"), where no model is named: the matrix's models of it
    names += [n for n in (report_lines.get("gpu-series-prose") or "").split("|") if n] if not names else []
    known = _text_gpus(env, facts or {})
    if not names and not known:
        return matches
    gpus = named_gpus(matrix, names, known)
    failed = bool(report_lines.get("old-gpu-fails")) or any(m.id in GPU_UNUSED for m in matches)
    # the GPU was wanted: the program asks for CUDA, sees no GPU (is_available() False), the GPU failed, the reporter
    # asks for it - enough where no build of the release runs the GPU (engine.oldgpu), not where some do
    wanted = any(report_lines.get(k) for k in ("no-gpu-seen", "gpu-fails", "gpu-intent", "gpu-wanted"))
    shown = report_lines.get("python-platform") or ""
    platforms = (("windows-x86_64",) if shown.startswith("win") else ("linux-x86_64",) if shown == "linux"
                 else ("linux-x86_64", "windows-x86_64"))
    releases = _text_releases(env, facts or {}) or _prose_release(env, facts or {}, report_lines)
    f = old_gpu_finding(matrix, gpus, report_lines.get("cc-floor-value"), report_lines.get("cc-ceiling-value"),
                        releases, failed, wanted=wanted, platforms=platforms)
    if f is None:
        return matches
    before = [m for m in matches if m.id != f.id]
    matches = merge_findings(matches, [f], matrix, report_lines, [])
    if not failed and before:
        # said from the GPU wanted, not from a failure of it: the failure lines the text does show (a library not
        # found, a driver error) name what stops the program first; the GPU missing from the builds is said after them
        new = next((m for m in matches if m.id == f.id and m.signature == "paste-finding"), None)
        if new is not None:
            new.score = min(new.score, min(m.score for m in before) - 1.0)
            matches.sort(key=lambda x: (-x.score, x.line_no))
    return matches
