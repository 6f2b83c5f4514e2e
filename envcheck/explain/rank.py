"""The pasted report's findings as candidate causes, next to explain's log-line matches.

``envcheck.checks.run_checks`` on the paste's Environment gives what ``status`` would have said on the
reporter's machine. Its *errors* about the GPU stack (contract §3 ids) become causes: one the log also
shows is corroborated (ranked up, the finding's exact fix first); one the log does not show is added as
its own match, a little below a log line of the same weight (a printed failure is direct evidence).
Warnings (e.g. nvcc differs from torch's CUDA, which matters only when building extensions) never become
causes on their own: a consistent environment with an unrelated error gives no match.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from envcheck.model import Environment, Finding, Severity

__all__ = ["add_findings", "add_text_findings", "two_frameworks_cudnn", "paste_findings", "drop_contradicted_by_text", "drop_pip_not_python", "ABSENCE_IDS", "BUILD_CAUSES", "CLAIM_ONLY", "CORROBORATED", "FINDING_ONLY", "VENDOR_CAUSES"]

#: findings that rest on something *not* being in the captures: a paste never lists every library, so
#: there they mean "not shown", not "missing" (a failed load shows up in the log lines instead)
ABSENCE_IDS = frozenset({"cuda-runtime-missing", "cudnn-missing"})
#: warnings of ``status`` that are a cause when someone reports a problem: a CPU-only build on a machine
#: with an NVIDIA GPU is a plain warning for a healthy machine, but the reason a GPU goes unused
#: (and nvidia-smi failing to reach the driver is the cause even where nothing CUDA is installed yet)
WARNING_CAUSES = frozenset({"framework-cpu-only", "no-gpu-driver"})
#: warnings of ``status`` that are the cause when the paste shows a CUDA extension being compiled: nvcc's CUDA against
#: torch's (the check's own message says it matters only for extension builds)
BUILD_CAUSES = frozenset({"cuda-toolkit-mismatch"})
#: contract §9 findings of ``status`` that are causes on the reporter's machine too: the build's vendor against the
#: machine's accelerator, MPS against macOS, the Python's architecture on Apple silicon, Level Zero
VENDOR_CAUSES = frozenset({"framework-vendor-mismatch", "mps-os-too-old", "python-arch-mismatch",
                           "xpu-level-zero-missing"})
CORROBORATED = 15.0  # score added to a log match the report's findings confirm
FINDING_ONLY = -5.0  # a finding with no log line, against its cause's weight
#: more, for a finding that rests on the reporter's claim (the TF template's CUDA field), not on anything seen:
#: a failure the text itself shows (a missing library's own line) comes first
CLAIM_ONLY = -10.0


def paste_findings(env: Environment, matrix: Any, report_lines: Optional[Dict[str, str]] = None,
                   notes: Optional[List[str]] = None, claims: Optional[List[Any]] = None) -> List[Any]:
    """The error findings of the paste's Environment about the GPU stack. Never raises: a check that fails on the
    paste's facts leaves its findings out and says what failed in ``notes``. ``claims``, when given, also receives
    the findings that rest on the reporter's claim only."""
    from envcheck.checks.pipeline import build_status
    from envcheck.explain.machine import STACK_IDS

    notes = notes if notes is not None else []
    try:
        found = build_status(env=env, matrix=matrix).findings
    except Exception as exc:  # noqa: BLE001 - a report oddity must not break explain: recorded in the notes
        notes.append(f"envcheck could not check the pasted report's environment: {type(exc).__name__}: {exc}")
        return []
    out = []
    for f in found:
        serious = f.severity == Severity.ERROR or (f.severity == Severity.WARNING and f.id in WARNING_CAUSES) or (
            f.severity == Severity.WARNING and f.id in BUILD_CAUSES and bool((report_lines or {}).get("ext-build")))
        if f.id == "no-gpu-driver" and _wsl1_with_cuda(env):
            out.append(f)  # the check itself says WSL1 (checks/driver.py): certain, not "not shown"
            continue
        if not serious or (f.id not in STACK_IDS and f.id not in VENDOR_CAUSES and f.id not in BUILD_CAUSES) \
                or f.id in ABSENCE_IDS:
            continue
        if f.id == "no-gpu-driver" and not _driver_failed(env):
            continue  # the paste just does not say: unknown, not absent
        out.append(f)
    docker = _docker_without_gpus(env, report_lines or {})
    if docker is not None:
        out.append(docker)
    if not any(f.id == "framework-cpu-only" for f in out):
        try:
            out.extend(_cpu_build_wanted_gpu(env, matrix, report_lines or {}) or _pypi_torch_cpu(env, matrix, report_lines or {}))
            if not any(f.id == "framework-cpu-only" for f in out):
                likely = _windows_torch_unlabelled(env, matrix, report_lines or {})
                out.extend(likely)
                if claims is not None:
                    claims.extend(likely)  # ranked like a claim: below what the text itself shows failing
        except Exception as exc:  # noqa: BLE001 - a report oddity must not break explain: recorded in the notes
            notes.append(f"envcheck could not check the pasted report's framework builds: {type(exc).__name__}: {exc}")
    if not any(f.id in ("framework-cpu-only", "cuda-runtime-missing") for f in out):
        try:
            claimed = _tf_claim(env, matrix, report_lines or {})
            out.extend(claimed)
            if claims is not None:
                claims.extend(claimed)
        except Exception as exc:  # noqa: BLE001 - a report oddity must not break explain: recorded in the notes
            notes.append(f"envcheck could not check the reporter's CUDA claim: {type(exc).__name__}: {exc}")
    return out


def _tf_claim(env: Environment, matrix: Any, report_lines: Dict[str, str]) -> List[Any]:
    """The TensorFlow template's CUDA claim against the release's tested build configuration
    (engine.claims.tf_claimed_cuda_mismatch); only where the report names the OS (Linux and native Windows differ)."""
    from envcheck.engine.claims import tf_claimed_cuda_mismatch

    fw = env.frameworks.get("tensorflow")
    claimed = report_lines.get("cuda-claim")
    if fw is None or not fw.version or not claimed or not env.python.platform or fw.cpu_only:
        return []
    if report_lines.get("tf-from-source"):
        return []  # built from source: its CUDA is the one it was configured with, not the tested configuration
    msg = tf_claimed_cuda_mismatch(matrix, str(fw.version), claimed, env.python.platform)
    if msg is None:
        return []
    fix = ("Install the CUDA runtime (and cuDNN) of TensorFlow's tested build configuration for this release, or a "
           "TensorFlow release built for the CUDA that is installed (https://www.tensorflow.org/install/source#gpu).")
    return [Finding("cuda-runtime-missing", Severity.ERROR, msg, fix, report_lines.get("gpu-intent", claimed), "tensorflow")]


#: the fix for a container started without GPUs (the NVIDIA Container Toolkit's own wording of the option)
DOCKER_GPUS_FIX = ("Start the container with the GPUs: `docker run --gpus all ...` (the NVIDIA Container Toolkit installed on "
                   "the host; the driver and nvidia-smi come from the host), or `--runtime=nvidia` with "
                   "NVIDIA_VISIBLE_DEVICES=all; nothing CUDA needs to be installed in the image for the driver.")


def _docker_without_gpus(env: Optional[Environment], report_lines: Dict[str, str]) -> Optional[Finding]:
    """The paste shows ``docker run`` without a GPU option, a failure to reach a GPU from inside that container and the
    host's GPUs (nvidia-smi): the container was started without them. A daemon can default to the nvidia runtime, so
    the option's absence alone says nothing; a framework shown running on a GPU contradicts it."""
    line = report_lines.get("docker-no-gpus")
    if not line or report_lines.get("gpu-works"):
        return None
    gpus = env.gpus if env is not None else []
    toolkit = env.toolkit.version if env is not None else None
    if gpus:
        names = ", ".join(dict.fromkeys(str(g.name) for g in gpus if g.name))
        host = f"while the host lists {len(gpus)} NVIDIA GPU(s){': ' + names if names else ''}"
    else:
        cuda_image = _CUDA_IMAGE.search(line.split(" | ")[0])
        if cuda_image is None and toolkit is None:
            return None  # nothing shows the container was meant to use a GPU
        host = (f"although its image is a GPU one ({cuda_image.group(0)})" if cuda_image
                else f"although the image holds the CUDA {toolkit} toolkit (nvcc)")
    first = line.split(" | ")[0]
    how = ("(`docker run` with no --gpus/--runtime=nvidia) and finds none" if "docker" in first.lower()
           else "(nvidia-smi, which the NVIDIA Container Toolkit mounts into every container it gives GPUs, is missing "
                "there)")
    return Finding("no-gpu-visible", Severity.ERROR, f"The container was started without GPUs {how}, {host}.",
                   DOCKER_GPUS_FIX, line, "gpu")


#: an image name or tag of a GPU image: ``nvidia/cuda:...``, ``nvcr.io/...``, ``...:latest-gpu-py3``, ``...-cuda11.8-cudnn8-...``
_CUDA_IMAGE = re.compile(r"(?i)\b(?:nvidia/cuda|nvcr\.io/\S+)|[\w./-]*:[\w.-]*(?:gpu|cuda|cudnn)[\w.-]*")


def _wsl1_with_cuda(env: Environment) -> bool:
    """WSL1 (a Microsoft kernel that is not WSL2's) under a CUDA build: no GPU can be reached there at all, so
    the missing driver is certain, not merely "not shown"."""
    from envcheck.checks import cuda_builds

    return env.host.wsl == "WSL1" and bool(cuda_builds(env)) and not env.driver.present


#: packages that are only installed to run CUDA code
_CUDA_PACKAGES = re.compile(r"^(?:cudatoolkit|pytorch-cuda|cudnn|cuda-(?:runtime|cudart|nvcc|toolkit|version)"
                            r"|nvidia-[a-z-]+-cu\d+)$")


def _gpu_wanted(env: Environment, report_lines: Dict[str, str]) -> Optional[str]:
    """What in the pasted report shows that the CUDA stack was wanted on that machine, or None."""
    if report_lines.get("gpu-intent"):
        return report_lines["gpu-intent"]
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


def _cpu_build_wanted_gpu(env: Environment, matrix: Any, report_lines: Dict[str, str]) -> List[Any]:
    """A CPU-only build of a framework next to what shows the CUDA stack was wanted (nvcc, a driver, an NVIDIA
    GPU, CUDA packages, "Which accelerator: GPU"): the reason the GPU goes unused. ``status``'s check needs a
    reachable driver and GPUs, which a paste often leaves out; the fix is the check's own."""
    from envcheck.checks import label
    from envcheck.checks.frameworks import cpu_only_fix

    wanted = _gpu_wanted(env, report_lines)
    if not wanted:
        return []
    out = []
    for fw in env.frameworks.values():
        if fw.cpu_only is not True or fw.name not in ("torch", "tensorflow", "jax") or fw.rocm:
            continue
        out.append(Finding("framework-cpu-only", Severity.WARNING,
                           f"{label(fw)} is a CPU-only build, but the pasted report shows the CUDA stack was wanted "
                           f"({wanted}).", cpu_only_fix(env, matrix, fw), fw.evidence, fw.name))
    return out


#: a torch wheel's file name as pip prints it: its version (a local label after "+" or "%2B") and its platform tag
_TORCH_WHEEL = re.compile(r"torch-(?P<ver>\d[\w.!]{0,40}(?:(?:\+|%2B)[\w.]{1,30})?)-cp3\d{1,2}-\w{1,20}-(?P<plat>[\w.]{1,80})\.whl")


#: where a wheel's URL is PyPI's (pip prints no URL at all for PyPI's own files): files.pythonhosted.org, a PyPI mirror's
#: /pypi/ or /simple/ path (mirrors.aliyun.com/pypi/packages/..., pypi.tuna.tsinghua.edu.cn/packages/...)
_PYPI_URL = re.compile(r"(?i)^https?://(?:files\.pythonhosted\.org/|pypi\.[\w.-]{1,60}/|[\w.-]{1,60}/(?:pypi|simple)/)")


def _pypi_torch_cpu(env: Environment, matrix: Any, report_lines: Dict[str, str]) -> List[Any]:
    """torch with no build label where the text shows what it is: pip fetching ``torch-2.3.1-cp310-cp310-win_amd64.whl``
    (PyPI's file, or a PyPI mirror's: the PyTorch index's files are named ``torch-2.3.1%2Bcu121-...``, and a wheel from
    download.pytorch.org's find-links pages is never taken - their old CUDA wheels had no label) on a platform
    where PyPI's torch is the CPU-only build (engine.builds.pypi_torch_is_cpu: that wheel's own torch/version.py says
    ``2.3.1+cpu``, cuda None). Only where the text shows the GPU was wanted and torch did not reach it."""
    from envcheck.checks.frameworks import cpu_only_fix
    from envcheck.engine.builds import pypi_torch_is_cpu

    fw = env.frameworks.get("torch")
    line = report_lines.get("torch-wheel", "")
    wm = _TORCH_WHEEL.search(line)
    if fw is None or fw.cuda or fw.cpu_only is not None or fw.rocm or not wm or not report_lines.get("gpu-fails") \
            and not report_lines.get("gpu-intent"):
        return []
    url = line[:wm.start()].rsplit(" ", 1)[-1]
    if url and not _PYPI_URL.search(url) or report_lines.get("find-links"):
        return []  # a find-links page or a PyTorch index (mirror): old CUDA wheels there carried no label either
    ver, plat = wm.group("ver"), wm.group("plat")
    platform = "windows" if plat.startswith("win") else "macos" if plat.startswith("macosx") else (
        "linux-aarch64" if "aarch64" in plat else "linux-x86_64")
    if "+" in ver or "%2B" in ver or not pypi_torch_is_cpu(platform) or (fw.version or "").split("+")[0] != ver:
        return []
    return [Finding("framework-cpu-only", Severity.WARNING,
                    f"torch {ver} was installed from PyPI's wheel for {platform} ({line.split()[-1] if len(line) < 160 else plat}): "
                    f"PyPI's torch for {platform} is the CPU-only build (its torch.__version__ is {ver}+cpu); the CUDA "
                    f"builds come from https://download.pytorch.org/whl/cuXXX.", cpu_only_fix(env, matrix, fw), line, "torch")]


def _windows_torch_unlabelled(env: Environment, matrix: Any, report_lines: Dict[str, str]) -> List[Any]:
    """torch on native Windows with no build label, failing to reach the GPU, where the text does not show how it was
    installed: most likely PyPI's CPU-only wheel (engine.builds.pypi_torch_is_cpu), but a conda build also shows no
    label - said as likely and unverified, never as certain. A ``torch.__version__`` printed without ``+cpu`` is no
    PyPI wheel at all (PyPI's Windows wheel prints ``X+cpu``): nothing is said then. "Failing": the report shows torch
    not reaching the GPU, or the program asking for it."""
    from envcheck.checks.frameworks import cpu_only_fix
    from envcheck.engine.builds import pypi_torch_is_cpu

    fw = env.frameworks.get("torch")
    # a report line that printed the version (collect_env, an env block, a banner, a REPL) printed torch.__version__,
    # which PyPI's Windows wheel prints as "X+cpu": only a package listing's bare version (pip list, pip show,
    # "[pip3] torch==X", conda list) can be that wheel
    if fw is None or not fw.version or "+" in fw.version or fw.cuda or fw.cpu_only is not None or fw.rocm \
            or fw.arch_list or report_lines.get("torch") or report_lines.get("find-links") \
            or not (env.python.platform or "").startswith("win") \
            or not (report_lines.get("gpu-fails") or report_lines.get("gpu-intent")) or not pypi_torch_is_cpu("windows"):
        return []
    seen = "does not reach the GPU" if report_lines.get("gpu-fails") else "the program asks for the GPU"
    return [Finding("framework-cpu-only", Severity.WARNING,
                    f"Likely, not verified: torch {fw.version} on Windows carries no +cuXXX label and {seen}; PyPI's Windows torch (a plain `pip install torch`) is the CPU-only build, but the text does not "
                    f"show how torch was installed (a conda build shows no label either). Check: python -c \"import "
                    f"torch; print(torch.__version__, torch.version.cuda)\" (X+cpu and None: the CPU build).",
                    cpu_only_fix(env, matrix, fw), fw.evidence, "torch")]


def _cuda_was_available(report_lines: Dict[str, str]) -> bool:
    """collect_env's "Is CUDA available: True": torch initialised CUDA on the reporter's machine, so its driver
    runs the build (through the CUDA forward-compatibility package, say, which a report does not show) and
    an old driver version in the report is no cause on its own; only a log line can say otherwise."""
    line = report_lines.get("cuda-available", "").lower()
    return line.rstrip().endswith(("true", "yes"))


def _driver_failed(env: Environment) -> bool:
    """Whether the paste itself shows the driver failing (an nvidia-smi error, a failed query)."""
    d = env.driver
    return bool(d.error) or d.smi_state not in (None, "ok", "not-found")


#: finding id -> the report lines that show it (``Report.lines`` keys), for the evidence
_EVIDENCE = {"framework-cpu-only": ("torch", "torch-cuda", "tensorflow", "os", "gpu"),
             "cuda-toolkit-mismatch": ("nvcc", "torch", "torch-cuda", "ext-build"),
             "mps-os-too-old": ("macos", "torch"), "python-arch-mismatch": ("macos", "apple-cpu"),
             "framework-vendor-mismatch": ("torch", "gpu"), "driver-too-old": ("driver", "nvidia-smi", "torch"),
             "gpu-arch-unsupported": ("gpu", "torch"), "no-gpu-driver": ("nvidia-smi",),
             "driver-library-mismatch": ("nvidia-smi",),
             "no-gpu-visible": ("docker-no-gpus", "nvidia-smi")}


#: log-line causes that a report showing the framework on the GPU contradicts
_CONTRADICTED_BY_GPU = frozenset({"framework-cpu-only", "no-gpu-driver"})

#: log-line causes that name the state behind a failing nvidia-smi more exactly than "no driver": NVML's
#: "Unknown Error" (device-permission: in a container its device access lost), a GPU the driver did not bring up or
#: cannot reach, a module/library mismatch. A report's "nvidia-smi failed" (no-gpu-driver) is then that same failure, not a
#: second cause; it is not added beside them.
_NVIDIA_SMI_STATES = frozenset({"gpu-not-initialized", "gpu-fault", "driver-library-mismatch", "device-permission"})
_NVIDIA_SMI_SIGNATURES = frozenset({"nvml-unknown-error-in-container"})


#: XLA's cuDNN version checks (JAX, TensorFlow): the cuDNN loaded into the process is older than the one it was built with
_XLA_CUDNN_CHECKS = frozenset({"xla-tf-loaded-runtime", "jax-found-cudnn-built-against"})
#: XLA's ptxas warning (driver-too-old): a slowdown notice JAX prints beside the failure, not what failed
_PTXAS_NOTICE = frozenset({"xla-driver-older-than-ptx-compiler"})
_FRAMEWORK_NAMES = {"torch": "PyTorch", "tensorflow": "TensorFlow", "jax": "JAX"}


def two_frameworks_cudnn(matches: List[Any], report_lines: Dict[str, str], matrix: Any) -> List[Any]:
    """XLA's cuDNN check (JAX's "Found cuDNN version X, but JAX was built against version Y", XLA's "Loaded runtime
    CuDNN library: X but source was compiled with: Y") in a program that imports two frameworks (``import torch`` beside
    ``import jax``): both load their CUDA libraries into one process and the first cuDNN loaded - the other framework's
    pinned, older wheel - is the one XLA finds (jax-ml/jax#18032, #19004). That is framework-conflict (contract §3: two
    installed frameworks need incompatible cuDNN), not a stray cuDNN on the loader path; with one framework imported the
    match stays cudnn-version-mismatch. The ptxas notice JAX prints beside it does not outrank it."""
    imported = [fw for fw in ("torch", "tensorflow", "jax") if report_lines.get("import-" + fw)]
    if len(imported) < 2:
        return matches
    from envcheck.explain.kb import load_kb

    cause = load_kb(matrix).causes.get("framework-conflict")
    hit = next((m for m in matches if m.id == "cudnn-version-mismatch" and m.signature in _XLA_CUDNN_CHECKS), None)
    if cause is None or hit is None:
        return matches
    names = " and ".join(_FRAMEWORK_NAMES[fw] for fw in imported)
    lines = "; ".join(report_lines["import-" + fw] for fw in imported)
    said = (f"The program imports {names} ({lines}): each brings its own cuDNN and the first one loaded into the process "
            "serves both, so the framework imported later finds the other's (older) cuDNN.")
    fix = ("Import the framework that needs the newer cuDNN first (JAX: initialise its backend, e.g. jax.devices(), before "
           "importing torch), or install releases of both that pin the same nvidia-cudnn wheel, or run them in "
           "separate processes / environments.")
    hit.id, hit.title = "framework-conflict", cause.title
    hit.machine.insert(0, said)
    hit.fixes[:0] = [fix] + [t for t, _, _ in cause.fixes]
    hit.fix_sources[:0] = ["https://github.com/jax-ml/jax/issues/18032"] + [s for _, s, _ in cause.fixes]
    hit.fix_whens[:0] = [""] + [w for _, _, w in cause.fixes]
    hit.score += CORROBORATED
    notice = [m.score for m in matches if m.signature in _PTXAS_NOTICE]
    if notice and max(notice) >= hit.score:
        hit.score = max(notice) + 1.0
    matches.sort(key=lambda x: (-x.score, x.line_no))
    return matches


#: generic log lines read as "a CPU-only build" (framework-cpu-only) that only say the framework found no GPU, and the
#: framework they speak of: Ultralytics' select_device ("Invalid CUDA 'device=0' requested", raised whenever
#: torch.cuda.is_available() is False), JAX's "No GPU/TPU found, falling back to CPU"
_NO_GPU_SEEN_BY = {"ultralytics-invalid-cuda-device": "torch", "jax-no-gpu-tpu-found": "jax"}


def _drop_cpu_build_of_cuda_build(matches: List[Any], env: Environment) -> None:
    """A generic "no GPU found" line read as a CPU-only build, where the report shows that framework is a CUDA build
    (``torch-2.0.1+cu118 CPU`` in Ultralytics' banner: the device it *used* was the CPU, the build is a CUDA one;
    collect_env's "CUDA used to build PyTorch: 11.8"): the build is not why, so the match is dropped. What else keeps
    the GPU away (no driver, a driver too old, CUDA_VISIBLE_DEVICES) stays for the report's own findings to say."""
    keep = []
    for m in matches:
        fw = env.frameworks.get(_NO_GPU_SEEN_BY.get(m.signature or "", ""))
        if m.id == "framework-cpu-only" and fw is not None and fw.cuda and fw.cpu_only is not True:
            continue
        keep.append(m)
    matches[:] = keep


def _drop_contradicted(matches: List[Any], report_lines: Dict[str, str]) -> None:
    """The report shows every framework it speaks of running on a GPU ("Is CUDA available: True", jax.devices
    listing CUDA devices, "PyTorch version (GPU?): ... (True)") and none failing: a log line saying there is no
    driver, or that a CPU-only build is installed, is not that machine's state (an older run, another
    environment). Those matches are dropped."""
    if not report_lines.get("gpu-works") or report_lines.get("gpu-fails"):
        return
    matches[:] = [m for m in matches if m.id not in _CONTRADICTED_BY_GPU or m.signature == "paste-finding"]


#: a container image's banner that says it sees no driver (NGC's "The NVIDIA Driver was not detected"): evidence of a
#: container started without GPUs only where the text does not show it started with them
_NO_GPU_CONTAINER_BANNERS = frozenset({"ngc-driver-not-detected"})


def _drop_banner_of_gpu_container(matches: List[Any], report_lines: Dict[str, str]) -> None:
    """The text shows the container started with GPUs (``docker run --gpus all ...``): an image's banner saying it sees
    no driver does not show a container without GPU access (under WSL2 the NGC images print it with the GPU working);
    the match is dropped, so that no cause is named that the text contradicts."""
    if report_lines.get("docker-gpus"):
        matches[:] = [m for m in matches if m.signature not in _NO_GPU_CONTAINER_BANNERS]


def drop_contradicted_by_text(matches: List[Any], report_lines: Dict[str, str]) -> None:
    """For a text with no environment report read: the log matches that what the text shows contradicts are dropped
    (a container banner's "no driver" where the text shows the container started with GPUs)."""
    _drop_banner_of_gpu_container(matches, report_lines)


def drop_pip_not_python(matches: List[Any], env: Optional[Environment], matrix: Any,
                        python: Optional[str] = None) -> None:
    """pip's "no matching distribution" line is read as "no build for this Python" (python-unsupported). Dropped where
    the report contradicts it: the report's Python is one the pinned release (``torch==X``) has wheels for
    (:func:`envcheck.engine.builds.release_supports_python`). The versions pip lists as found are no such evidence:
    "(from versions: 1.7.1, ...)" for ``torch<1.7`` on Python 3.9 is exactly a release without wheels for it."""
    from envcheck.engine.builds import release_supports_python

    py = env.python.version if env is not None else python  # the report's Python, or one the text states
    keep = []
    for m in matches:
        if m.id != "python-unsupported" or m.signature != "pip-framework-no-matching-distribution":
            keep.append(m)
            continue
        wanted = m.captures.get("wanted")
        if wanted and matrix is not None and release_supports_python(
                matrix, (m.captures.get("package") or "").lower(), wanted, py) is True:
            continue
        keep.append(m)
    matches[:] = keep


def _drop_mps_met(matches: List[Any], env: Environment, matrix: Any) -> None:
    """A log line "The MPS backend is supported on MacOS 14.0+" on a Mac whose report shows a macOS that meets it
    (and the torch release's own minimum, :func:`envcheck.engine.vendors.mps_os_meets`): MPS is unavailable for
    another reason, so the line's old-macOS cause is dropped; the engine's own findings on the report stay."""
    from envcheck.engine.vendors import mps_os_meets

    matches[:] = [m for m in matches if m.id != "mps-os-too-old" or m.signature == "paste-finding"
                  or not mps_os_meets(matrix, env, m.captures.get("min_macos"))]


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
                 report_lines: Optional[Dict[str, str]] = None) -> List[Any]:
    """``matches`` with the paste's findings merged in, best first."""
    for m in matches:
        _paste_wording(m)
    if env is None or matrix is None:
        return matches
    _drop_contradicted(matches, report_lines or {})
    _drop_cpu_build_of_cuda_build(matches, env)
    _drop_banner_of_gpu_container(matches, report_lines or {})
    _drop_mps_met(matches, env, matrix)
    drop_pip_not_python(matches, env, matrix)
    notes: List[str] = []
    claimed: List[Any] = []
    findings = paste_findings(env, matrix, report_lines, notes, claimed)
    for m in matches:
        m.notes.extend(n for n in notes if n not in m.notes)
    if not findings:
        return matches
    return _merge_findings(matches, findings, matrix, report_lines or {}, claimed)


def add_text_findings(matches: List[Any], matrix: Any, report_lines: Dict[str, str]) -> List[Any]:
    """``matches`` with what a text without any report shows as a cause on its own: a container started without GPUs
    (a ``docker run`` line with no GPU option, or a GPU image or a container's prompt) where nvidia-smi is missing."""
    line = report_lines.get("docker-no-gpus", "")
    if " | " not in line or "nvidia-smi" not in line.split(" | ")[1].lower():
        return matches  # "CUDA available: False" in a container, with nothing showing the host's GPUs: no GPU at all is
        # as likely; nvidia-smi run in it and missing shows the GPU was expected there and not given
    found = _docker_without_gpus(None, report_lines)
    if found is None or matrix is None:
        return matches
    return _merge_findings(matches, [found], matrix, report_lines, [])


def _merge_findings(matches: List[Any], findings: List[Any], matrix: Any, report_lines: Dict[str, str],
                    claimed: List[Any]) -> List[Any]:
    """``findings`` (the paste's, best first) merged into ``matches``: a cause already matched is corroborated, another
    becomes a match of its own."""
    from envcheck.explain import Match
    from envcheck.explain.kb import load_kb

    kb = load_kb(matrix)
    by_id = {m.id: m for m in matches}
    seen = set()
    if any(m.id in _NVIDIA_SMI_STATES or m.signature in _NVIDIA_SMI_SIGNATURES for m in matches):
        seen.add("no-gpu-driver")  # the line names what nvidia-smi's failure is
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
        if f.id == "driver-too-old" and _cuda_was_available(report_lines):
            continue  # torch itself initialised CUDA on that machine (cuda-compat, or a misread driver CUDA)
        m = Match(id=f.id, title=cause.title, evidence=_evidence(f, report_lines),
                  line_no=0, fixes=[text] + [t for t, _, _ in cause.fixes], dead_ends=[t for t, _ in cause.dead_ends],
                  score=float(cause.weight) + FINDING_ONLY + (CLAIM_ONLY if any(f is c for c in claimed) else 0.0),
                  source="envcheck checks on the pasted report",
                  signature="paste-finding", fix_sources=["envcheck"] + [s for _, s, _ in cause.fixes],
                  fix_whens=[""] + [w for _, _, w in cause.fixes], dead_end_sources=[s for _, s in cause.dead_ends],
                  machine=[f.message])
        matches.append(m)
        by_id[f.id] = m
    matches.sort(key=lambda x: (-x.score, x.line_no))
    return matches


#: the causes whose match shows that the GPU was not used (the evidence the release rule of engine.oldgpu needs)
_GPU_UNUSED = frozenset({"gpu-arch-unsupported", "framework-cpu-only", "no-gpu-visible"})


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
    return [(n, str(d.get("version")).split("+")[0]) for n, d in fws.items()
            if isinstance(d, dict) and d.get("version") and not d.get("cuda") and "+" not in str(d.get("version"))]


def add_old_gpu(matches: List[Any], env: Optional[Environment], matrix: Any, report_lines: Dict[str, str],
                facts: Optional[Dict[str, Any]] = None) -> List[Any]:
    """``matches`` with ``gpu-arch-unsupported`` added where the text names one old GPU model and the range it is
    outside of, or a release none of whose builds runs it (engine.oldgpu decides). ``env``: the pasted report's
    Environment (None: no report in the text, then ``facts``, the log lines' facts, name the GPU and the release)."""
    if matrix is None:
        return matches
    from envcheck.engine.oldgpu import named_gpus, old_gpu_finding

    names = [n for n in (report_lines.get("gpu-prose") or "").split("|") if n]
    known = _text_gpus(env, facts or {})
    if not names and not known:
        return matches
    gpus = named_gpus(matrix, names, known)
    failed = bool(report_lines.get("old-gpu-fails")) or any(m.id in _GPU_UNUSED for m in matches)
    f = old_gpu_finding(matrix, gpus, report_lines.get("cc-floor-value"), report_lines.get("cc-ceiling-value"),
                        _text_releases(env, facts or {}), failed)
    if f is None:
        return matches
    return _merge_findings(matches, [f], matrix, report_lines, [])
