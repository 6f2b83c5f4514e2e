"""Which findings of ``status`` on a pasted report's Environment are causes of the problem the report is about, and
what the text itself shows that contradicts a cause (explain's ranking asks; it decides none of this itself).

``status`` on the reporter's machine gives *errors* and *warnings*. A cause is:

* an error about the GPU stack (:data:`STACK_IDS`) or of another vendor's stack (:data:`VENDOR_CAUSES`);
* a warning of :data:`WARNING_CAUSES` (a CPU-only build on a machine with an NVIDIA GPU is a plain warning for a
  healthy machine, but the reason a GPU goes unused; nvidia-smi failing to reach the driver is the cause even
  where nothing CUDA is installed yet; an x86_64 Python under Rosetta 2 on Apple silicon is a warning where no
  framework is shown, but what a Mac's report of a missing MPS or arm64 wheel comes down to);
* ``cuda-toolkit-mismatch`` (:data:`BUILD_CAUSES`) only where the text shows a CUDA extension compiled (the check's
  own message says it matters only for extension builds);

never a finding that rests on something *not* being in the captures (:data:`ABSENCE_IDS`: a paste never lists every
library, so there they mean "not shown", not "missing"), and ``no-gpu-driver`` only where the paste shows the driver
failing (:func:`driver_failed`) or the machine is WSL1 under a CUDA build (:func:`wsl1_without_gpu`: certain).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from envcheck.engine.builds import cuda_builds
from envcheck.engine.textclaims import TextClaims
from envcheck.model import Environment, Finding, Severity

__all__ = ["ABSENCE_IDS", "BUILD_CAUSES", "STACK_IDS", "VENDOR_CAUSES", "WARNING_CAUSES", "contradicted_by_gpu_working",
           "cuda_reached_contradicts", "driver_failed", "killed_in_build", "paste_causes", "report_causes", "tf_probe_unwanted",
           "uv_platform_only", "wsl1_without_gpu", "GPU_SHOWN_OR_WANTED", "TF_PROBE_IDS"]

#: finding ids of `envcheck status` that mean "the installation itself is broken"
STACK_IDS = frozenset({"no-gpu-driver", "driver-library-mismatch", "driver-too-old", "no-gpu-visible",
                       "cuda-runtime-missing", "cudnn-missing", "cudnn-version-mismatch", "gpu-arch-unsupported",
                       "framework-cpu-only", "duplicate-libraries", "framework-conflict", "forward-compat-unsupported",
                       "known-bad-combination"})
#: findings that rest on something *not* being in the captures
ABSENCE_IDS = frozenset({"cuda-runtime-missing", "cudnn-missing"})
#: warnings of ``status`` that are a cause when someone reports a problem
WARNING_CAUSES = frozenset({"framework-cpu-only", "no-gpu-driver", "python-arch-mismatch"})
#: warnings of ``status`` that are the cause when the text shows a CUDA extension being compiled
BUILD_CAUSES = frozenset({"cuda-toolkit-mismatch"})
#: contract §9 findings of ``status`` that are causes on the reporter's machine too: the build's vendor against the
#: machine's accelerator, MPS against macOS, the Python's architecture on Apple silicon, Level Zero
VENDOR_CAUSES = frozenset({"framework-vendor-mismatch", "mps-os-too-old", "python-arch-mismatch",
                           "xpu-level-zero-missing"})
#: log-line causes that a report showing the framework on the GPU contradicts
_CONTRADICTED_BY_GPU = frozenset({"framework-cpu-only", "no-gpu-driver"})


def driver_failed(env: Environment) -> bool:
    """Whether the paste itself shows the driver failing (an nvidia-smi error, a failed query)."""
    d = env.driver
    return bool(d.error) or d.smi_state not in (None, "ok", "not-found")


def wsl1_without_gpu(env: Environment) -> bool:
    """WSL1 (a Microsoft kernel that is not WSL2's) under a CUDA build: no GPU can be reached there at all, so the
    missing driver is certain, not merely "not shown" (checks/driver.py says WSL1)."""
    return env.host.wsl == "WSL1" and bool(cuda_builds(env)) and not env.driver.present


def _level_zero_missing_on_intel(f: Finding, env: Environment) -> bool:
    """``xpu-level-zero-missing`` as a warning (no XPU build shown) is a cause of the report where the machine's GPUs are
    Intel's alone: a pasted sycl-ls lists the Intel GPU on OpenCL only ("After installing oneAPI 2024.2.0, sycl-ls does
    not show the level-zero device", intel/compute-runtime#764; the i7-11700K's UHD 750 whose libze_intel_gpu.so.1 was
    missing, intel/compute-runtime#832), which oneAPI's Level Zero programs (llama.cpp's SYCL backend, IPEX, torch.xpu)
    need. Beside an NVIDIA or AMD GPU the Intel iGPU's OpenCL line is no report's failure."""
    a = env.accel
    return f.id == "xpu-level-zero-missing" and a.vendor == "intel" and not env.gpus and not a.nvidia_gpus \
        and not any(g.vendor not in (None, "intel") for g in a.gpus)


def _serious(f: Finding, claims: TextClaims, env: Optional[Environment] = None) -> bool:
    return f.severity == Severity.ERROR or (f.severity == Severity.WARNING and f.id in WARNING_CAUSES) or (
        f.severity == Severity.WARNING and f.id in BUILD_CAUSES and bool(claims.ext_build)) or (
        f.severity == Severity.WARNING and env is not None and _level_zero_missing_on_intel(f, env))


def report_causes(findings: Sequence[Finding], env: Environment, claims: TextClaims) -> List[Finding]:
    """The findings of ``status`` on the report's Environment that are causes (see the module docstring), in order."""
    out = []
    for f in findings:
        if f.id == "no-gpu-driver" and wsl1_without_gpu(env):
            out.append(f)
            continue
        if not _serious(f, claims, env) or (f.id not in STACK_IDS and f.id not in VENDOR_CAUSES
                                       and f.id not in BUILD_CAUSES) or f.id in ABSENCE_IDS:
            continue
        if f.id == "no-gpu-driver" and not driver_failed(env):
            continue  # the paste just does not say: unknown, not absent
        if f.id == "framework-vendor-mismatch" and claims.zluda and "accelerator: amd" in (f.evidence or "") \
                and ".cuda = " in (f.evidence or ""):
            continue  # ZLUDA runs the CUDA build on the AMD GPU: the build's vendor is no cause there
        out.append(f)
    return out


def cuda_reached_contradicts(finding_id: str, claims: TextClaims) -> bool:
    """collect_env's "Is CUDA available: True": torch initialised CUDA on the reporter's machine, so its driver runs
    the build (through the CUDA forward-compatibility package, say, which a report does not show) and an old driver
    version in the report (``driver-too-old``) is no cause on its own; only a log line can say otherwise."""
    return finding_id == "driver-too-old" and claims.cuda_available is True


def contradicted_by_gpu_working(claims: TextClaims) -> FrozenSet[str]:
    """The log-line causes the text contradicts: it shows every framework it speaks of running on a GPU ("Is CUDA
    available: True", jax.devices listing CUDA devices) and none failing - a line saying there is no driver, or that
    a CPU-only build is installed, is not that machine's state (an older run, another environment)."""
    if not claims.gpu_works or claims.gpu_fails:
        return frozenset()
    return _CONTRADICTED_BY_GPU


#: what a text shows of an NVIDIA GPU on its machine, or of a GPU its user wanted (``Report.lines`` keys, the readers'
#: evidence): a GPU or a driver listed (nvidia-smi, collect_env, TF's own "Found device" line, a template's GPU field),
#: the program asking for CUDA, the reporter asking for the GPU or saying it is not used, a framework shown failing or
#: working on it, a CUDA / cuDNN the reporter installed (the TF template's field), a container given or denied GPUs
GPU_SHOWN_OR_WANTED = ("gpu", "driver", "nvidia-smi", "gpu-intent", "gpu-wanted", "gpu-works", "gpu-fails",
                       "gpu-prose", "gpu-series-prose", "no-gpu-seen", "cuda-available", "cuda-claim", "cudnn-claim",
                       "tf-fails-said", "cpu-run", "fw-cpu-said", "gpu-support-asked", "cuda-unreached", "cvd-hides",
                       "old-gpu-fails", "gpu-package", "jetson-named", "driver-said-old", "gpu-cuda-pair",
                       "gpu-cuda-need", "docker-gpus", "docker-no-gpus", "torch-cuda-said", "driver-cuda-said",
                       "driver-need-said", "cuda-only-said", "ort-gpu-wanted", "cuda-compat", "lib-said-error",
                       "driver-update-advised")

#: the causes TensorFlow's CUDA probe lines are read as (a ROCm library missing is tensorflow-rocm's: an AMD GPU wanted)
TF_PROBE_IDS = frozenset({"no-gpu-driver", "cuda-runtime-missing", "cudnn-missing"})


def tf_probe_unwanted(probes: Sequence[Tuple[str, bool]], lines: Mapping[str, str], env: Optional[Environment] = None,
                      facts: Optional[Dict[str, Any]] = None) -> bool:
    """Whether a text's log matches are TensorFlow's start-up probe alone on a machine whose GPU is neither wanted nor
    there (quiet38): then they name no cause, and explain drops them (the cause is left unknown, not stated falsely).
    ``probes``: (cause id, whether its wording is TensorFlow's probe line: ``says`` ``tf-loader-warning``) of every log
    match; ``lines``: the text's evidence (``Report.lines``); ``env``: the pasted report's Environment; ``facts``: the
    log's own facts (contract §4).

    TensorFlow probes the GPU at start-up on every machine and logs what it misses ("Could not load dynamic library
    'libcudart.so.11.0'" / 'libcuda.so.1' / 'nvcuda.dll', "Could not find cuda drivers on your machine", the
    cuda_diagnostics "kernel driver does not appear to be running on this host"), then runs on the CPU ("Ignore above
    cudart dlerror if you do not have a GPU set up on your machine"). Where the probe found no driver (libcuda.so.1 /
    nvcuda.dll not loadable, the kernel driver not running: a ``no-gpu-driver`` match) on a machine without an NVIDIA
    GPU, that is the run going as intended (sglvladi/TensorFlowObjectDetectionTutorial#77: an XPS 13 laptop;
    intel/intel-extension-for-tensorflow#21: "not a real issue"). The lines name a cause only where the GPU is wanted or
    there: where they are the text's only matches and the text shows neither (:data:`GPU_SHOWN_OR_WANTED`, a GPU or
    driver in the pasted report ``env`` or in the log's own facts), True. Beside any other match (a cuDNN or memory
    failure: the GPU was in use) False; nor where only a CUDA library is missing and the driver is not shown missing
    (the spent sets' true cases: a math library missing beside others TF opened, a container's CUDA, "I install the
    CUDA and cuDNN"), nor a ROCm library (tensorflow-rocm)."""
    if not probes or not all(tf and cause in TF_PROBE_IDS for cause, tf in probes) \
            or not any(cause == "no-gpu-driver" for cause, _ in probes):
        return False
    if any(lines.get(k) for k in GPU_SHOWN_OR_WANTED):
        return False
    if env is not None and (env.gpus or env.driver.version or env.driver.cuda):
        return False
    driver = (facts or {}).get("driver") or {}
    return not (facts and (facts.get("gpus") or driver.get("version") or driver.get("cuda")))


def killed_in_build(cause: str, says: Sequence[str], lines: Mapping[str, str]) -> bool:
    """Whether a log match (its cause, its wording's ``says``) is a ``Killed`` read as the GPU's memory on a Jetson
    (errors.toml ``says`` ``jetson-only``: the shell's bare "Killed", the kernel's OOM-killer line, "killed" in a
    sentence) that the text contradicts: it shows a process of a build killed beside a compile step (evidence
    ``build-killed``, paste/readers/build_kill.py: "Building CUDA object ...cu.o" then "Killed", make's "Error 137").
    The OOM killer ended a compiler, whose memory is the host's RAM, not a GPU allocation (dusty-nv/jetson-containers
    #1551, an onnxruntime build on a Jetson Orin; attack47): no cause is named (left unknown, not stated falsely)."""
    return bool(lines.get("build-killed")) and cause == "gpu-out-of-memory" and "jetson-only" in says


def uv_platform_only(cause: str, says: Sequence[str], package: Optional[str], lines: Mapping[str, str]) -> bool:
    """Whether a log match is uv's "can't be installed because it doesn't have a source distribution or wheel for the
    current platform" read as "no build for this Python" (``python-unsupported``, ``says`` ``uv-platform-line``) that
    the text contradicts: uv's own hint under it says the release of that ``package`` has wheels for other platforms
    only (evidence ``uv-platform-only``, the package: paste reader ``pip_output``), so the Python is not why (the cause
    is left unknown, not stated falsely)."""
    pkg = lines.get("uv-platform-only")
    return bool(pkg) and cause == "python-unsupported" and "uv-platform-line" in says and (package or "").lower() == pkg


def paste_causes(found: Sequence[Finding], env: Environment, matrix: Any, said: TextClaims,
                 fix: Callable[[Any], str], notes: List[str], claims: Optional[List[Any]] = None,
                 ort_decided: Optional[List[Any]] = None) -> List[Finding]:
    """The causes of a pasted report (explain.rank.paste_findings asks): ``status``'s findings ``found`` on its
    Environment that are causes (:func:`report_causes`), a container started without GPUs, then the rules on what the
    text shows, each asked only where no finding already says as much: a CPU-only build where the GPU was wanted (``fix``:
    the CPU-only build's fix for a framework, the checks' ``cpu_only_fix``), PyPI's default torch build against the
    driver, the reporter's CUDA claim (TensorFlow's template, onnxruntime's CUDA majors). Never raises: a rule that fails
    on the paste's facts leaves its findings out and says what failed in ``notes``. ``claims``, when given, also receives
    the findings that rest on the reporter's claim or an assumption only; ``ort_decided`` onnxruntime's majors finding."""
    from envcheck.engine.claims import ort_claim_finding, ort_majors_finding, tf_claim_finding
    from envcheck.engine.container import container_without_gpus
    from envcheck.engine.cpubuild import cpu_build_wanted_gpu, pypi_torch_cpu, windows_torch_unlabelled

    out = report_causes(found, env, said)
    docker = container_without_gpus(env, said)
    if docker is not None:
        out.append(docker)
    if not any(f.id == "framework-cpu-only" for f in out):
        try:
            out.extend(cpu_build_wanted_gpu(env, said, fix) or pypi_torch_cpu(env, said, fix))
            if not any(f.id == "framework-cpu-only" for f in out):
                likely = windows_torch_unlabelled(env, said, fix)
                out.extend(likely)
                if claims is not None:
                    claims.extend(likely)  # ranked like a claim: below what the text itself shows failing
        except Exception as exc:  # noqa: BLE001 - a report oddity must not break explain: recorded in the notes
            notes.append(f"envcheck could not check the pasted report's framework builds: {type(exc).__name__}: {exc}")
    if not any(f.id in ("driver-too-old", "framework-cpu-only") for f in out):
        try:
            from envcheck.engine.pypibuild import pypi_driver_too_old

            assumed = pypi_driver_too_old(matrix, env, said)  # an unlabelled torch taken as PyPI's default build
            out.extend(assumed)
            if claims is not None:
                claims.extend(assumed)  # ranked like a claim: it rests on an assumption
        except Exception as exc:  # noqa: BLE001 - a report oddity must not break explain: recorded in the notes
            notes.append(f"envcheck could not check PyPI's default build against the driver: {type(exc).__name__}: "
                         f"{exc}")
    if not any(f.id in ("framework-cpu-only", "cuda-runtime-missing", "cudnn-missing") for f in out):
        try:
            majors = ort_majors_finding(matrix, env, said)
            if ort_decided is not None:
                ort_decided.extend(majors)
            claimed = tf_claim_finding(matrix, env, said) or majors or ort_claim_finding(matrix, env, said)
            out.extend(claimed)
            if claims is not None:
                claims.extend(claimed)
        except Exception as exc:  # noqa: BLE001 - a report oddity must not break explain: recorded in the notes
            notes.append(f"envcheck could not check the reporter's CUDA claim: {type(exc).__name__}: {exc}")
    return out


