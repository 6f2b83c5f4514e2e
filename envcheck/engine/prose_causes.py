"""Report-level causes that a bug report's *sentences* show (issue 20, "pastes not read"), decided from the evidence the
paste reader :mod:`envcheck.paste.readers.prose_cause` keeps (``explain --json``'s report lines) and the text's facts,
with the matrix. Pure functions; each returns the finding ``status`` would give, or ``None`` (unknown decides nothing).

* :func:`cpu_label`: a torch version with PyTorch's CPU-only label (``2.0.1+cpu``) named in the text, and the text
  shows the GPU was wanted (an NVIDIA GPU named, the program asking for CUDA, a CUDA version claimed, the reporter
  asking for the GPU - not where another vendor's GPU stack is named, whose "GPU" is not NVIDIA's):
  ``framework-cpu-only``. A label on a line that names no package is taken only for a version
  that is a torch release in compat_matrix/torch.toml.
* :func:`cpu_said`: the text itself says torch is the CPU build ("torch cpu version installed"), and the GPU was
  wanted: ``framework-cpu-only``, said as the text's own statement.
* :func:`tf_windows_cpu`: a TensorFlow release the text states on native Windows (the OS said, no WSL), whose series has
  no native-Windows GPU build in the matrix (``windows_gpu = false``), beside what shows the GPU was wanted:
  ``framework-cpu-only`` (``status`` says it of such a report; this is for versions stated in sentences only).
* :func:`cpu_run`: openai-whisper's "FP16 is not supported on CPU" beside an NVIDIA GPU the text names, with no CUDA
  build of torch shown: the model ran on the CPU although a GPU is there; whisper picks the GPU whenever
  ``torch.cuda.is_available()``, and the usual reason it is not is a CPU-only torch: said as likely, not verified.
* :func:`driver_said`: a sentence says the driver is too old / not supported for the build, beside a GPU failure; or
  a sentence says the card or driver supports CUDA X at most, below what the torch build's CUDA needs
  (:func:`envcheck.engine.rules.driver_runs`; where only the torch release is known, below what every CUDA variant of
  that release in the matrix needs): ``driver-too-old``; or a sentence gives the lowest driver the build needs
  ("you'll need to update it to at least 418.39", a maintainer's) and the text's driver is below it, beside a GPU
  failure: ``driver-too-old`` (advice29).
* :func:`arch_unsupported`: a GPU model named (a report's GPU list or a sentence) and the CUDA of the torch build (the
  facts) or a CUDA version the same sentence names with that GPU: when no build of that CUDA can have code for the
  GPU's compute capability (:func:`envcheck.engine.rules.toolkit_reach`, the matrix's toolkit targets: for the build's
  own CUDA the report's checks say that already), or torch's own capability check says the GPU needs a newer CUDA
  (compat_matrix/torch.toml ``[[capability_check]]``):
  ``gpu-arch-unsupported``. A CUDA version a sentence names is not certainly the build's, so that case needs a GPU
  failure in the text (or the reporter's own sentence saying they do not go together, or one installing that build).
  A GPU may be a GeForce series (``RTX 20 series``: :func:`gpu_ccs` takes every model of the series from the matrix's
  GPU table, and the verdict must hold for each).
  A torch build's CUDA a sentence states without its tag ("a torch with Cuda version 10.2", evidence
  ``torch-cuda-said``) beside the text's one GPU: the same verdict, with the toolkit's targets (arch29).
* :func:`arch_needs`: a sentence says the GPU needs CUDA N at least, the text states a CUDA below N, a GPU failure is
  shown and the matrix agrees: ``gpu-arch-unsupported``.
* :func:`arch_said`: a sentence says the installed torch does not fit the GPU it names, the matrix knows the GPU and no
  torch build (or release) of the text contradicts it: ``gpu-arch-unsupported``, as the text says.
* :func:`arch_floor`: a sentence says the build has code only for compute capability N and newer, and every GPU the
  text names is below N in the matrix: ``gpu-arch-unsupported``, as the text says (advice29).
* :func:`lib_path_conflict`: a CUDA library folder on the search path said to conflict: ``duplicate-libraries``.
* :func:`lib_shadowed`: a sentence says one copy of cuDNN / a CUDA library is picked up or loaded instead of (ahead of)
  another: ``duplicate-libraries``, as the text says (inst32).
* :func:`fw_cpu_said`: the text says TensorFlow's, JAX's or Paddle's CPU build is the one installed ("installing
  tensorflow which is using CPU" after the reporter's tensorflow-gpu), and the GPU was wanted (what :func:`_wanted`
  reads, or the framework's GPU package named: ``tensorflow-gpu``, ``jax[cuda12]``): ``framework-cpu-only`` (inst32).
* :func:`both_said`: a sentence says one framework's CPU and GPU builds are both installed in one environment (they
  share one package folder, and the one installed last serves the import): ``framework-cpu-only`` (inst32).
* A thread's resolution (updating the driver, starting the container with the GPUs, ...) is
  :mod:`envcheck.engine.resolution`'s, from compat_matrix/resolutions.toml.
* :func:`toolkit_said`: a sentence names the system's CUDA toolkit and, differently, the CUDA the PyTorch build was made
  with: ``cuda-toolkit-mismatch``, as the text says (extension builds compile with the first against the second).
* :func:`compiler_said`: a sentence says CUDA X does not support host compiler N ("CUDA 10.1 does not support GCC 9 or
  later"): ``host-compiler-unsupported``, as the text says (nvcc's own refusal is the knowledge base's).
* :func:`frameworks_said`: the text says what two frameworks each need of CUDA (or of cuDNN) - in sentences ("tensorflow
  [and-cuda]==2.15.1, which requires CUDA 12.2 ... torch==2.4.1, which depends on CUDA 12.1") or in pip's conflict lines
  ("torch 2.5.1 depends on nvidia-cuda-runtime-cu12==12.4.127", "jax[cuda11-pip] ... >=11.8"), read by
  :mod:`envcheck.paste.readers.prose_pins` - and no version (major.minor) satisfies both: ``framework-conflict``, as the
  text says. Lists that share a version ("CUDA 10.2, 11.0, ..." against "10.0, 11.0 or 11.2") decide nothing, nor do two
  builds' CUDA releases of one major from 11 on where neither is an exact package pin (a pip wheel pin, a pip extra such
  as "[and-cuda]"): CUDA's minor version compatibility lets one runtime serve both.
* :func:`python_only`: a sentence says the framework's wheel is built for one Python only, and the text's Python (its
  report's, or another version the same line names) is another: ``python-unsupported`` (inst32).
* :mod:`envcheck.engine.jetson_prose` (jetson35): a JetPack whose wheels are built for an older Python than the text
  names (``python-unsupported``); ONNX Runtime's released package with a GPU provider on a Jetson
  (``framework-cpu-only``).
* :func:`python_said`: a sentence says Python X.Y is not (yet) supported, and the Python the text's report shows is
  X.Y: ``python-unsupported``, as the text says (the matrix has no row for many of the packages such a sentence is
  about: PaddleX, a project's own requirements).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from envcheck.engine import rules
from envcheck.engine.resolution import resolved_cause
from envcheck.model import Finding, Severity
from envcheck.versions import cc_tuple, cuda_tuple, version_tuple

__all__ = ["cpu_label", "cpu_said", "cpu_run", "tf_windows_cpu", "driver_said", "arch_unsupported", "arch_needs", "arch_stated",
           "arch_said", "arch_floor", "tf_too_old", "python_bits", "memory_blamed", "lib_path_conflict", "lib_shadowed", "fw_cpu_said", "both_said", "cuda_build_advised", "driver_advised", "toolkit_said", "compiler_said", "python_said", "python_only", "frameworks_said", "gpu_ccs",
           "findings"]

_CPU_FIX = ("Install a CUDA build of torch for this machine's driver: uninstall torch (and torchvision / torchaudio), then "
            "install them from the PyTorch index of a CUDA version the driver supports, the `--index-url "
            "https://download.pytorch.org/whl/cuXXX` line of pytorch.org's selector (`envcheck fix --want torch` "
            "names it); a plain `pip install torch` on Windows, or a requirements file without that index, brings back the "
            "CPU build.")
#: the sentence is about the reporter's own machine: said in the first person, or it installs the build it speaks of
#: ("RUN pip install torch==2.5.1 ... -i .../whl/cu124 版本不支持50系显卡": the install line is the text's own)
_FIRST_PERSON = re.compile(r"(?i)(?<![a-z])(?:my|i|i'm|i've|we|our)(?![a-z])|我|(?<![\w-])(?:pip3?|conda|uv\spip)\sinstall\b")


def _split(value: Optional[str], parts: int) -> Optional[List[str]]:
    got = [p.strip() for p in (value or "").split(" | ", parts - 1)]
    return got if value and len(got) == parts else None


def _torch(facts: Dict[str, Any]) -> Dict[str, Any]:
    fws = facts.get("frameworks") or {}
    t = fws.get("torch") if isinstance(fws, dict) else None
    return t if isinstance(t, dict) else {}


def gpu_names(facts: Dict[str, Any], lines: Dict[str, str]) -> List[str]:
    """The GPU models the text names: a report's GPU list, then the models its sentences name."""
    names = [str(g["name"]) for g in (facts.get("gpus") or []) if isinstance(g, dict) and g.get("name")]
    names += [n for n in (lines.get("gpu-prose") or "").split("|") if n]
    return list(dict.fromkeys(names))


def _wanted(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[str]:
    """What shows the (NVIDIA) GPU was wanted, or None; never on macOS, where no torch build has CUDA."""
    py = facts.get("python") if isinstance(facts.get("python"), dict) else {}
    if str((py or {}).get("platform") or "").startswith("darwin"):
        return None
    names = gpu_names(facts, lines)
    if names:
        return "NVIDIA GPU " + ", ".join(names[:2])
    if lines.get("gpu-intent"):
        return f"the program asks for CUDA: {lines['gpu-intent'][:100]}"
    if lines.get("other-vendor"):
        return None  # another vendor's GPU is named: a generic "the GPU" below is not NVIDIA's
    for key, what in (("no-gpu-seen", "the program looks for a CUDA GPU"), ("gpu-wanted", "the reporter wants the GPU")):
        if lines.get(key) and (key != "no-gpu-seen" or "cuda" in lines[key].lower()):
            return f"{what}: {lines[key][:100]}"
    claims = facts.get("claims") or {}
    if isinstance(claims, dict) and claims.get("cuda"):
        return f"the text states CUDA {claims['cuda']}"
    return None


def _cuda_build_shown(facts: Dict[str, Any]) -> bool:
    t = _torch(facts)
    return bool(t.get("cuda")) and "+cpu" not in str(t.get("version") or "")


def _torch_release(matrix: Any, version: str) -> bool:
    return matrix is not None and any(str(r.get("version")) == version for r in matrix.rows("torch", "release"))


def cpu_label(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    got = _split(lines.get("torch-cpu-label"), 2)
    wanted = _wanted(facts, lines)
    if got is None or not wanted or _cuda_build_shown(facts):
        return None
    version, line = got
    named = re.search(r"(?i)(?<![\w-])(?:py)?torch(?![\w-])", line) is not None
    if not named and not _torch_release(matrix, version):
        return None  # a bare X+cpu that is no torch release: another package's label
    return Finding("framework-cpu-only", Severity.WARNING,
                   f"torch {version}+cpu is named in the text: +cpu is the label of PyTorch's CPU-only build, which has "
                   f"no CUDA at all, while the text shows the GPU was wanted ({wanted}).",
                   _CPU_FIX, line[:200], "torch")


def cpu_said(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    line = lines.get("cpu-build-said")
    wanted = _wanted(facts, lines)
    if not line or not wanted or _cuda_build_shown(facts):
        return None
    return Finding("framework-cpu-only", Severity.WARNING,
                   f"The text says torch is the CPU-only build (\"{line[:120]}\"), while it shows the GPU was wanted "
                   f"({wanted}): a CPU build of torch never uses the GPU.", _CPU_FIX, line[:200], "torch")


def cuda_build_advised(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """(cpu41) The thread's answer is to install PyTorch with CUDA (evidence ``cuda-build-advised``: "You need to verify
    if you Pytorch is installed correctly with GPU support", ultralytics/ultralytics#290; "install torch with cuda",
    KyanChen/TTP#6; "download the corresponding version of PyTorch on the official website", innnky/so-vits-svc#50)
    where the text shows the (NVIDIA) GPU was wanted and no CUDA build of torch: ``framework-cpu-only``, the cause that
    answer removes. Not on a Mac or where the thread names another vendor's stack (``other-vendor``), not where a sentence says
    the driver is too old (the driver's own finding), and never beside a line only a GPU build prints (``findings``)."""
    line = lines.get("cuda-build-advised")
    wanted = _wanted(facts, lines)
    if not line or not wanted or _cuda_build_shown(facts) or lines.get("apple-silicon") or lines.get("driver-said-old") \
            or lines.get("other-vendor"):  # an AMD / Apple / Intel stack the thread names: the answer is not for it
        return None
    if lines.get("cuda-reached-said") and not (lines.get("cuda-unreached") or lines.get("no-gpu-seen")):
        return None  # (attack53) torch.cuda.is_available() True, and False nowhere: a CUDA build that reaches the GPU
    unused = lines.get("gpu-unused-said")
    return Finding("framework-cpu-only", Severity.WARNING,
                   f"The thread's answer is to install PyTorch with CUDA (\"{line[:120]}\"), while the text shows the GPU "
                   f"was wanted ({wanted})" + (f" and not used (\"{unused[:80]}\")" if unused else "")
                   + ": the torch installed is most likely the CPU-only build (PyPI's Windows wheel, or a requirements "
                   "file without PyTorch's CUDA index), which never uses the GPU.", _CPU_FIX, line[:200], "torch")


def _tf_version(facts: Dict[str, Any]) -> Optional[str]:
    fws = facts.get("frameworks") or {}
    t = fws.get("tensorflow") if isinstance(fws, dict) else None
    return str(t["version"]) if isinstance(t, dict) and t.get("version") else None


def tf_windows_cpu(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """The text's TensorFlow release on native Windows (an OS field or a sentence saying the machine runs Windows, with
    no WSL / Linux in it: evidence ``os`` / ``os-prose``), where the matrix row of its series says it has no native-Windows GPU build
    (``windows_gpu = false``: 2.11 and later), and the GPU was wanted: the CPU-only build, as ``status`` says of such a
    report (``environment.frameworks``); here for a TensorFlow version a sentence states (evidence ``tensorflow-prose``,
    the version the facts carry: tensorflow#60269) - a report's version is judged by the report's own checks."""
    from envcheck.engine.builds import tensorflow_builds, version_key

    version, os_line = _tf_version(facts), lines.get("os") or lines.get("os-prose")
    wanted = _wanted(facts, lines)
    if matrix is None or not version or not os_line or not wanted or lines.get("tensorflow-prose") != version \
            or lines.get("python-platform") not in (None, "win32"):
        return None
    row = matrix.tf_release(version)
    if not row or row.get("windows_gpu") is not False:
        return None
    last = max(tensorflow_builds(matrix, "windows-x86_64"), key=lambda b: version_key(b.version), default=None)
    fix = ("Run TensorFlow in WSL2 (`pip install 'tensorflow[and-cuda]'` inside a WSL2 Linux distribution, NVIDIA driver "
           "installed on Windows only)" + (f", or stay on native Windows with `pip install \"tensorflow=={last.version}\"` "
                                          f"and the CUDA / cuDNN of its tested build configuration" if last else "")
           + " (https://www.tensorflow.org/install/pip#windows-native).")
    return Finding("framework-cpu-only", Severity.WARNING,
                   f"TensorFlow {version} on native Windows ({os_line[:80]}) is a CPU-only build: the series has no "
                   f"native-Windows GPU build" + (f" (the last one is {last.version})" if last else "")
                   + f", while the text shows the GPU was wanted ({wanted}).",
                   fix, (lines.get("tensorflow") or os_line)[:200], "tensorflow")


def tf_cuda_said(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str], failed: bool) -> Optional[Finding]:
    """(tfgpu39) The TensorFlow release a sentence states (evidence ``tensorflow-prose``, the version the facts carry)
    and the CUDA the reporter says is installed (evidence ``cuda-claim``) on a text that shows TensorFlow failing to see
    the GPU ("TensorFlow 2.2.0 doesn't detect GPU with CUDA version 10.2", tensorflow#41374): the claim against the
    release's tested build configuration (engine.claims, the same rule as a report's template field), with the OS
    not said only where the Linux and the native Windows builds' CUDA agree."""
    from envcheck.engine.claims import TF_CLAIM_FIX, tf_claimed_cuda_mismatch

    version, claimed = _tf_version(facts), lines.get("cuda-claim")
    if matrix is None or not failed or not version or not claimed or lines.get("tensorflow-prose") != version:
        return None
    platform = lines.get("python-platform") or ("win32" if lines.get("os-prose") else "")
    msg = tf_claimed_cuda_mismatch(matrix, version, claimed.split(" | ", 1)[0].strip(), platform)
    if msg is None:
        return None
    return Finding("cuda-runtime-missing", Severity.ERROR, msg, TF_CLAIM_FIX, (lines.get("tensorflow") or claimed)[:200],
                   "tensorflow")


def cpu_run(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    line = lines.get("cpu-run")
    names = gpu_names(facts, lines)
    if not line or not names or _cuda_build_shown(facts) or lines.get("gpu-works"):
        return None
    return Finding("framework-cpu-only", Severity.WARNING,
                   f"Likely, not verified: whisper says it runs on the CPU (\"{line[:100]}\") although the text names an "
                   f"NVIDIA GPU ({', '.join(names[:2])}): whisper uses the GPU whenever torch.cuda.is_available() is True, "
                   "and the usual reason it is not is a CPU-only torch (PyPI's on Windows). Check: python -c \"import "
                   "torch; print(torch.__version__, torch.cuda.is_available())\" (X+cpu and False: the CPU build).",
                   _CPU_FIX, line[:200], "torch")


def driver_said(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str], failed: bool) -> Optional[Finding]:
    said = lines.get("driver-said-old")
    # the program's own message reported ("the msg is that my Nvidia version is too old") is the failure (drvold37)
    if said and (failed or lines.get("driver-old-shown")):
        return Finding("driver-too-old", Severity.ERROR,
                       f"The text says the NVIDIA driver is too old for the build (\"{said[:120]}\"), and the program "
                       "cannot use the GPU: a build made with a newer CUDA than the driver supports does not initialise.",
                       "Install a newer NVIDIA driver (nvidia-smi's header then shows a 'CUDA Version' at least the "
                       "build's), or install the framework's build for an older CUDA that this driver runs "
                       "(`envcheck fix --want torch` lists them).", said[:200], "driver")
    need = _split(lines.get("driver-need-said"), 2)
    drv = (facts or {}).get("driver")
    have = str(drv.get("version") or "") if isinstance(drv, dict) else ""  # a fact of another shape: not known
    if need is not None and failed and have:
        low, wanted = version_tuple(have), version_tuple(need[0])
        # a bare major ("驱动需要升级到450以上") compares by the major alone
        if low is not None and wanted is not None and low[:len(wanted)] < wanted:
            return Finding("driver-too-old", Severity.ERROR,
                           f"The thread says the NVIDIA driver must be at least {need[0]} (\"{need[1][:120]}\"), and the "
                           f"text's driver is {have}: the build does not initialise on an older driver.",
                           f"Install an NVIDIA driver {need[0]} or newer (nvidia-smi's header then shows it), or install "
                           "the framework's build for an older CUDA that this driver runs (`envcheck fix --want torch` "
                           "lists them).", need[1][:200], "driver")
    got = _split(lines.get("driver-cuda-said"), 2)
    if got is None or matrix is None:
        return None
    cudas = _build_cudas(matrix, facts)
    runs = [rules.driver_runs(matrix, got[0], None, c) for c in cudas]
    if not runs or any(ok is not False for ok, _ in runs):
        return None
    ver = _torch(facts).get("version") or ""
    built = (f"torch {ver} is built with CUDA {cudas[0]}: {runs[0][1]}" if len(cudas) == 1 else
             f"every CUDA build of torch {ver} (CUDA {', '.join(cudas)}) needs a newer driver")
    return Finding("driver-too-old", Severity.ERROR,
                   f"The text says the card's driver supports CUDA {got[0]} at most, and {built}.",
                   f"Install an NVIDIA driver that supports CUDA {cudas[0]}, or a torch build for CUDA {got[0]} or "
                   "older (`envcheck fix --want torch` lists them).", got[1][:200], "driver")


def driver_advised(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str], failed: bool) -> Optional[Finding]:
    """(adv57) The thread's answer tells the reader to update their NVIDIA driver to a named driver or for a named CUDA
    ("you need to update your (Nvidia) driver to at least version 580 to have Cuda 13", ComfyUI#11771), or reads their
    driver as too low ("驱动版本（572.83）太低", ComfyUI-Mie-Package-Launcher#100) or not kept up to date
    (StabilityMatrix#1507; this untargeted reading only where the text shows a failure): ``driver-too-old``, the cause
    that answer removes. A generic "update your drivers" (no target) is no evidence; nor the writer's own update (the
    reader's). Not where the text's driver is already at least the one advised, where a resolution names another cause,
    where another vendor's stack is named, nor beside a line only a GPU build prints (``findings``)."""
    got = _split(lines.get("driver-update-advised"), 2)
    if got is None or lines.get("other-vendor") or lines.get("apple-silicon"):
        return None
    target, line = got
    kind, _, value = target.partition(" ")
    if kind == "none" and not failed:
        return None
    resolved = resolved_cause(matrix, lines)
    if resolved is not None and resolved != "driver-too-old":
        return None
    drv = (facts or {}).get("driver")
    have = version_tuple(str(drv.get("version") or "")) if isinstance(drv, dict) else None
    want = version_tuple(value) if kind == "driver" else None
    if have is not None and want is not None and have[:len(want)] >= want:
        return None  # the text's driver already is the one advised: the answer is not this machine's cause
    what = {"driver": f"at least driver {value}", "CUDA": f"a driver that runs CUDA {value}",
            "low": f"a newer driver than {value}"}.get(kind, "a newer driver")
    return Finding("driver-too-old", Severity.WARNING,
                   f"The thread's answer is that the NVIDIA driver is too old and must be updated (\"{line[:120]}\"): "
                   f"the build needs {what}; with an older driver its CUDA does not initialise.",
                   "Install a newer NVIDIA driver (nvidia-smi's header then shows a 'CUDA Version' at least the build's), "
                   "or install the framework's build for an older CUDA that this driver runs (`envcheck fix --want torch` "
                   "lists them).", line[:200], "driver")


def _build_cudas(matrix: Any, facts: Dict[str, Any]) -> List[str]:
    """The CUDA of the text's torch build; where only its release is known, the CUDA of every CUDA variant the matrix
    lists for that release (a verdict true of all of them is true of the one installed, if it is a CUDA build)."""
    t = _torch(facts)
    if t.get("cuda"):
        return [str(t["cuda"])]
    ver = str(t.get("version") or "")
    if not ver or "+" in ver:
        return []
    return sorted({str(r["cuda"]) for r in matrix.torch_variants(ver) if r.get("cuda")})


def _capability_check(matrix: Any, cuda: str, cc: str) -> Optional[str]:
    """The CUDA torch's own capability check says this GPU needs, where the build's CUDA is at or below its bound."""
    return rules.capability_check(matrix, cuda, cc)


_SERIES = re.compile(r"^(?P<kind>RTX|GTX)(?:\s(?P<g>\d{2}))?\sseries$")


def gpu_ccs(matrix: Any, name: str) -> List[str]:
    """The compute capabilities of a GPU the text names: a model's one (the matrix's GPU table), or every one of a
    GeForce series the text names (``RTX 50 series``: the table's GeForce models numbered 50x0; ``RTX series``: every
    model named RTX). Empty where the table knows none."""
    m = _SERIES.match(name)
    if not m:
        row = matrix.gpu(name)
        return [str(row["compute_capability"])] if row and row.get("compute_capability") else []
    model = re.compile(r"(?<![\w-])" + m.group("kind") + (r"\s" + m.group("g") + r"[5-9]0(?!\d)" if m.group("g")
                                                      else r"(?![\w-])"))
    ccs = {str(r["compute_capability"]) for r in matrix.rows("gpus", "gpu")
           if r.get("compute_capability") and model.search(str(r.get("name") or ""))}
    return sorted(ccs, key=lambda c: cc_tuple(c) or (0, 0))


def _verdict(matrix: Any, cuda: str, name: str, reach: bool = True) -> Optional[Tuple[str, str]]:
    """(cc, why) where no build of CUDA ``cuda`` runs on the GPU ``name`` (on any GPU of a series it names); None
    where it may, or nothing is known. ``reach``: also ask the toolkit's targets (else only torch's own capability
    check)."""
    ccs = gpu_ccs(matrix, name)
    if not ccs or cuda_tuple(cuda) is None:
        return None
    whys = [_one_verdict(matrix, cuda, cc, reach) for cc in ccs]
    if any(w is None for w in whys):
        return None
    shown = ccs[0] if len(ccs) == 1 else f"{ccs[0]} to {ccs[-1]}"
    return shown, str(whys[0])


def _one_verdict(matrix: Any, cuda: str, cc: str, reach: bool) -> Optional[str]:
    ok, why = rules.toolkit_reach(matrix, cuda, cc) if reach else (None, "")
    if ok is False:
        return why
    needs = _capability_check(matrix, cuda, cc)
    if needs:
        return (f"a GPU of compute capability {cc} needs a build made with CUDA {needs} or newer, and one made with CUDA "
                f"{cuda} does not work properly on it (the capability check torch added in pytorch/pytorch#21468)")
    return None


def _arch_finding(gpu: str, cc: str, cuda: str, why: str, whose: str, evidence: str) -> Finding:
    return Finding("gpu-arch-unsupported", Severity.ERROR,
                   f"The {gpu} (compute capability {cc}) and {whose} CUDA {cuda}: {why}.",
                   f"Install a build made with a CUDA that supports compute capability {cc} (and a driver for it): "
                   "pytorch.org's selector lists them; `envcheck fix --want torch` names one for this GPU.",
                   evidence[:200], "gpu")


def arch_unsupported(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str], failed: bool) -> Optional[Finding]:
    if matrix is None:
        return None
    cuda = _torch(facts).get("cuda")
    if cuda and "+cpu" not in str(_torch(facts).get("version") or ""):
        for name in gpu_names(facts, lines):  # a toolkit out of reach is the report checks' own finding already
            got = _verdict(matrix, str(cuda), name, reach=False)
            if got:
                return _arch_finding(name, got[0], str(cuda), got[1], f"torch {_torch(facts).get('version') or ''}"
                                     .strip() + "'s", f"GPU {name}; torch CUDA {cuda}")
    built = _split(lines.get("torch-cuda-said"), 2)
    names = gpu_names(facts, lines)
    if built and not cuda and len(names) == 1:
        # the torch build's CUDA a sentence states ("requirements.txt will bring a torch with Cuda version 10.2"), its
        # tag not shown, and the text's one GPU: no build made with that CUDA can have code for it (the toolkit's
        # targets, torch's own capability check)
        got = _verdict(matrix, built[0], names[0])
        if got:
            return _arch_finding(names[0], got[0], built[0], got[1], "a torch build made with", built[1])
    pair = _split(lines.get("gpu-cuda-pair"), 4)
    if pair is None:
        return None
    gpu, said_cuda, said_not, line = pair
    if not (failed or (said_not == "1" and _FIRST_PERSON.search(line))):
        return None
    got = _verdict(matrix, said_cuda, gpu)
    if got is None:
        return None
    return _arch_finding(gpu, got[0], said_cuda, got[1], "the", line)


def _stated_cudas(facts: Dict[str, Any], lines: Dict[str, str]) -> List[str]:
    """The CUDA versions the text states: its torch build's, the one its sentences claim, one said beside a GPU."""
    claims = facts.get("claims") if isinstance(facts.get("claims"), dict) else {}
    pair = _split(lines.get("gpu-cuda-pair"), 4)
    got = [_torch(facts).get("cuda"), (claims or {}).get("cuda"), pair[1] if pair else None]
    return [str(c) for c in dict.fromkeys(got) if c and cuda_tuple(str(c))]


def arch_needs(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str], failed: bool) -> Optional[Finding]:
    """A sentence says the GPU (or its series) needs CUDA N at least ("Those require a minimum of CUDA 10", "my RTX 2080
    requires at least CUDA 10"), the text states a CUDA below N, a GPU failure is shown, and the matrix agrees that no
    build of that CUDA serves the GPU: ``gpu-arch-unsupported``."""
    need = _split(lines.get("gpu-cuda-need"), 3)
    if need is None or matrix is None or not failed:
        return None
    gpu, floor, line = need
    below = [c for c in _stated_cudas(facts, lines) if (cuda_tuple(c) or (99,)) < (cuda_tuple(floor) or (0,))]
    for cuda in sorted(below, key=lambda c: cuda_tuple(c) or (0,)):
        got = _verdict(matrix, cuda, gpu)
        if got:
            return _arch_finding(gpu, got[0], cuda, got[1], "the text's", line)
    return None


def _said_gpus(matrix: Any, token: str) -> List[str]:
    """The GPU table's name of a model token a sentence names ("A6000" is the table's "RTX A6000"), or the token as a
    name where the table knows it (a series: :func:`gpu_ccs`); empty where the table knows neither."""
    if not token:
        return []
    for name in (token, f"RTX {token}"):
        if gpu_ccs(matrix, name):
            return [name]
    return []


def _stated_verdict(matrix: Any, cuda: str, name: str, cc: str = "") -> Optional[Tuple[str, str]]:
    """(cc, why) where no build of CUDA ``cuda`` has code the GPU ``name`` (or compute capability ``cc``) runs: the
    toolkit's targets (:func:`envcheck.engine.rules.toolkit_reach`: a GPU of a major a target reaches through PTX is
    reached), or, for a toolkit whose targets the matrix does not list, the first toolkit with a target of the GPU's
    major (:func:`_first_native`) newer than it. None where it may, or nothing is known."""
    if cc:
        ok, why = rules.toolkit_reach(matrix, cuda, cc)
        got: Optional[Tuple[str, str]] = (cc, why) if ok is False else None
    else:
        got = _verdict(matrix, cuda, name)
    if got is not None or matrix.toolkit_targets(cuda):
        return got
    ccs = [cc] if cc else gpu_ccs(matrix, name)
    firsts = [_first_native(matrix, c) for c in ccs]
    if not ccs or any(f is None or (cuda_tuple(cuda) or (99,)) >= (cuda_tuple(f) or (0,)) for f in firsts):
        return None
    shown = ccs[0] if len(ccs) == 1 else f"{ccs[0]} to {ccs[-1]}"
    return shown, f"the first CUDA that compiles code compute capability {ccs[0]} runs is {firsts[0]}"


def _another_gpus(matrix: Any, tokens: List[str], name: str) -> bool:
    """(attack51) Every GPU of ``tokens`` (those a stated CUDA's sentence names before it) is known to the GPU table and
    none shares a compute capability with ``name``: the CUDA is said of another machine's GPU than ``name``."""
    own = set(gpu_ccs(matrix, name))
    ccs = [gpu_ccs(matrix, g) for t in tokens for g in (_said_gpus(matrix, t) or [t])]
    return bool(own) and bool(ccs) and all(c and not own.intersection(c) for c in ccs)


def arch_stated(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str], failed: bool) -> Optional[Finding]:
    """(newgpu39) A GPU newer than the CUDA it is given, told without the "no kernel image" line: the text states the
    CUDA a build, container image or environment is made with or the toolkit in use (evidence ``cuda-used-said``:
    "The docker image provided is built with `cuda 10.1`", a template's "cuda ver: 10.2", ``nvidia/cuda:10.0-...``; or
    a TensorFlow GPU image's tag, ``tf-image-said``, whose release's CUDA is compat_matrix/tensorflow.toml's), names a
    GPU (the report's GPU list, a sentence's model or series, a model token the statement names), and the
    matrix says no build of that CUDA has code the GPU runs (:func:`_stated_verdict`; a GPU of a major some target
    reaches through PTX is not out of reach). Said only where the text also shows why: a sentence says the GPU needs a
    newer CUDA or that they do not go together (``arch-cuda-said``), or a GPU failure is shown, or the thread says a
    change to a CUDA that does reach the GPU resolved it (``cuda-fix-said``; then the reporter's own question of
    exactly this, ``arch-cuda-asked``, is taken too): ``gpu-arch-unsupported``, with the GPU and the CUDA as evidence.
    A GPU merely mentioned, a CUDA another's or an earlier one (the reader's), or a question alone decides nothing."""
    if matrix is None:
        return None
    said = _split(lines.get("arch-cuda-said"), 3)
    fix = _split(lines.get("cuda-fix-said"), 2)
    used = _split(lines.get("cuda-used-said"), 2)
    image = _split(lines.get("tf-image-said"), 2)
    if not (said or failed or fix):
        return None
    token, cc, why_line = [p.strip("-") for p in said or _split(lines.get("arch-cuda-asked"), 3) or ["", "", ""]]
    names = _said_gpus(matrix, token) + gpu_names(facts, lines) \
        + [n for n in (lines.get("gpu-series-prose") or "").split("|") if n]
    names = list(dict.fromkeys(names))
    cudas = ([used[0]] if used else []) + [c for c in _stated_cudas(facts, lines) if not used or c != used[0]]
    if not (failed or fix):
        # a sentence alone decides only of the CUDA the text says its own build, image or toolkit is: "CUDA 12.4 不支持
        # 50系显卡" by itself is a general remark (tests/test_paste_pastes20s.py)
        cudas = [used[0]] if used else []
    owners = _split(lines.get("cuda-used-gpus"), 2)
    pair = _split(lines.get("gpu-cuda-pair"), 4)  # a GPU and the CUDA one sentence gives it ("RTX3090 ,cuda 11.3")
    running = str(_torch(facts).get("cuda") or "")
    running = running if cuda_tuple(running) else ""
    for cuda in cudas:
        if not cuda_tuple(cuda):
            continue
        low = min((t for t in (cuda_tuple(x) for x in (matrix.toolkit_targets(cuda) or [])) if t), default=None)
        # an ``sm_XY`` the sentence names decides only as a GPU the text names: alone it may be a build's target
        # ("`compute_80` and `sm_80` is too new for your nvcc", of a GTX TITAN X: bevfusion#127)
        for name, c in [(n, "") for n in names]:
            if used and cuda == used[0] and owners and owners[1] == used[1] \
                    and _another_gpus(matrix, owners[0].split("|"), name):
                continue  # (attack51) the CUDA of another machine the sentence names ("a GTX 1080 Ti uses CUDA 10.0")
            if pair and cuda != pair[1] and not (used and cuda == used[0]) and gpu_ccs(matrix, name) \
                    and not _another_gpus(matrix, [pair[0]], name):
                continue  # the sentence that names this GPU gives it another CUDA: a CUDA merely stated elsewhere
                # (another commenter's "RTX2060 with Cuda 9.2" beside "i use the RTX3090 ,cuda 11.3") is not this
                # GPU's; the CUDA the text says its build or image is made with still is (flashlight#357)
            if running and cuda != running and gpu_ccs(matrix, name) and _stated_verdict(matrix, running, name) is None:
                continue  # (attack51) the torch build the text runs is of a CUDA that reaches the GPU: a CUDA stated
                # elsewhere (the repo's Dockerfile "nvidia/cuda:10.2-...", "but I don't use docker") is not what failed
            gpu_cc = [cuda_tuple(x) for x in gpu_ccs(matrix, name)]
            if low and gpu_cc and all(x is not None and x < low for x in gpu_cc):
                continue  # a GPU older than every target of the CUDA: the old-GPU rule's (no current build at all)
            got = _stated_verdict(matrix, cuda, name, c)
            if got is None:
                continue
            if not said and not failed:  # only a fix shown: it must reach the GPU the stated CUDA does not
                if fix is None or _stated_verdict(matrix, fix[0], name, c) is not None:
                    continue
            gpu = name or f"GPU of compute capability {c}"
            line = (used[1] if used and used[0] == cuda else "") or why_line or (fix[1] if fix else "")
            return _arch_finding(gpu, got[0], cuda, got[1], "the text's", f"GPU {gpu}; CUDA {cuda}: {line}")
    fws = facts.get("frameworks") if isinstance(facts.get("frameworks"), dict) else {}
    tf = (fws or {}).get("tensorflow") if isinstance((fws or {}).get("tensorflow"), dict) else {}
    release = image[0] if image else str((tf or {}).get("version") or "")
    rows = _tf_rows(matrix, release) if release and (said or failed) else []
    for name in names if rows else []:
        ccs = gpu_ccs(matrix, name)
        why = _out_of_reach(matrix, rows, ccs) if ccs else None
        if why:
            built = ", ".join(sorted({str(r.get("cuda")) for r in rows}, key=lambda c: cuda_tuple(c) or (0,)))
            shown = ccs[0] if len(ccs) == 1 else f"{ccs[0]} to {ccs[-1]}"
            return _arch_finding(name, shown, built, why, f"TensorFlow {release}'s builds are made with",
                                 f"GPU {name}; TensorFlow {release} (CUDA {built}): {(image[1] if image else why_line)}")
    return None


def arch_said(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """The text says the installed framework does not fit the GPU it names ("you have installed a version of pytorch
    incompatible with your 4090"), the matrix knows that GPU, and no torch build of the text is shown (a CUDA build
    the matrix says serves the GPU contradicts the sentence, and so does a torch release all of whose CUDA builds the
    matrix says serve it; a CPU build is the CPU finding's): ``gpu-arch-unsupported``, said as the text's own
    statement."""
    got = _split(lines.get("arch-said"), 2)
    t = _torch(facts)
    if got is None or matrix is None or t.get("cuda") or "+cpu" in str(t.get("version") or ""):
        return None
    gpu, line = got
    ccs = gpu_ccs(matrix, gpu)
    variants = _build_cudas(matrix, facts)
    if not ccs or (variants and all(_verdict(matrix, c, gpu) is None for c in variants)):
        return None  # the matrix says every CUDA build of the text's torch release can serve this GPU
    shown = ccs[0] if len(ccs) == 1 else f"{ccs[0]} to {ccs[-1]}"
    return Finding("gpu-arch-unsupported", Severity.ERROR,
                   f"The text says the installed build does not support the {gpu} (compute capability {shown}): "
                   f"\"{line[:120]}\"; a build without code for that architecture cannot run on it.",
                   f"Install a build made with a CUDA that supports compute capability {ccs[-1]} (and a driver for it): "
                   "pytorch.org's selector lists them; `envcheck fix --want torch` names one for this GPU.",
                   line[:200], "gpu")


def arch_floor(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """A sentence says the build has code only for compute capability N and newer ("only contains kernels for sm_75 and
    newer"), and every GPU the text names is below N in the matrix's GPU table (a GeForce series: each of its models):
    ``gpu-arch-unsupported``, as the text says. A GPU the table does not know, or one at N or above, decides nothing."""
    got = _split(lines.get("arch-floor-said"), 2)
    floor = cc_tuple(got[0]) if got else None
    names = gpu_names(facts, lines)
    if got is None or floor is None or matrix is None or not names or lines.get("gpu-works"):
        return None
    ccs = {name: gpu_ccs(matrix, name) for name in names}
    if not all(ccs.values()) or any((cc_tuple(c) or floor) >= floor for cs in ccs.values() for c in cs):
        return None
    gpu = names[0]
    shown = "/".join(ccs[gpu]) if len(ccs) == 1 else ", ".join(f"{n} {'/'.join(cs)}" for n, cs in ccs.items())
    return Finding("gpu-arch-unsupported", Severity.ERROR,
                   f"The text says the build has code only for compute capability {got[0]} and newer (\"{got[1][:120]}\"), "
                   f"and the {gpu} is older (compute capability {shown}): a build without code for that architecture "
                   "cannot run on it.",
                   f"Install a build that still has code for compute capability {ccs[gpu][0]} (an older CUDA variant or "
                   "release: pytorch.org's previous versions page lists them), or build it from source with that "
                   "architecture in TORCH_CUDA_ARCH_LIST.", got[1][:200], "gpu")


def lib_path_conflict(lines: Dict[str, str]) -> Optional[Finding]:
    """A CUDA library folder on the search path said to conflict, or taking it off the path said to fix the failure
    (``/usr/local/cuda-11.2/lib64`` on LD_LIBRARY_PATH beside the environment's own CUDA libraries):
    ``duplicate-libraries``, as the text says."""
    line = lines.get("lib-path-conflict")
    if not line:
        return None
    return Finding("duplicate-libraries", Severity.WARNING,
                   f"The text says a CUDA library folder on the search path conflicts with the libraries the framework "
                   f"needs (\"{line[:140]}\"): with two CUDA versions' libraries on the path, the one loaded depends on "
                   "the order, not on what the build was made with.",
                   "Take the other CUDA's library folder off the search path (LD_LIBRARY_PATH; PATH on Windows; an "
                   "ld.so.conf.d entry) for this environment, so that only the libraries the framework was built with "
                   "are found; set it in the environment's activation script rather than system-wide.",
                   line[:200], "cuda")


def lib_shadowed(lines: Dict[str, str]) -> Optional[Finding]:
    """A sentence says one copy of cuDNN / a CUDA library is picked up or loaded instead of (ahead of) another
    (tensorflow/docs#2251: "my CONDA_PREFIX/lib contains libcudnn8.1.0 so TF will first use this version instead of the
    libcudnn8.6.0"): ``duplicate-libraries``, as the text says."""
    line = lines.get("lib-copy-shadowed")
    if not line:
        return None
    return Finding("duplicate-libraries", Severity.WARNING,
                   f"The text says one copy of a CUDA library is loaded instead of another (\"{line[:140]}\"): with two "
                   "copies of cuDNN / CUDA on the search path, the one loaded depends on the order (LD_LIBRARY_PATH, the "
                   "system's ld.so.conf, PATH on Windows), not on what the framework was built with.",
                   "Keep one copy on the search path for this environment: put the environment's own libraries first "
                   "(its lib folder, or the pip wheels' nvidia/*/lib folders, before the system's CUDA folders in "
                   "LD_LIBRARY_PATH, set in the environment's activation script), or remove the other copy (a conda "
                   "cudnn package, an old libcudnn in /usr/local/cuda/lib64) where nothing else needs it.",
                   line[:200], "cudnn")


_FW_FIX = {
    "tensorflow": ("Keep one TensorFlow in the environment: uninstall both tensorflow and tensorflow-gpu, then install "
                   "the GPU build alone (TensorFlow 2.1 to 2.10: `tensorflow` or `tensorflow-gpu`; from 2.11 on Linux or "
                   "WSL2: `tensorflow[and-cuda]`); install packages that depend on `tensorflow` (Keras, keras-tuner, ...) "
                   "with `--no-deps` so pip does not bring the CPU wheel back."),
    "jax": "Install JAX's CUDA build: `pip install -U \"jax[cuda12]\"` (or jax[cuda13]); a plain `jax` brings the CPU jaxlib.",
    "paddle": ("Keep one Paddle in the environment: uninstall both paddlepaddle and paddlepaddle-gpu (they share the "
               "paddle package folder), then install only paddlepaddle-gpu for the machine's CUDA; it runs on the CPU too "
               "with paddle.device.set_device('cpu')."),
    "onnxruntime": ("Keep one ONNX Runtime: uninstall both onnxruntime and onnxruntime-gpu (they share the onnxruntime "
                    "package folder), then install only onnxruntime-gpu; it has the CPU provider too."),
}


def _fw_split(value: Optional[str]) -> Optional[Tuple[str, str]]:
    got = _split(value, 2)
    return (got[0], got[1]) if got else None


def fw_cpu_said(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """The text says TensorFlow's, JAX's or Paddle's CPU build is the one installed, and the GPU was wanted (see the
    module's docstring): ``framework-cpu-only``."""
    got = _fw_split(lines.get("fw-cpu-said"))
    wanted = _wanted(facts, lines) or (f"the GPU package is named: {lines['gpu-package'][:100]}"
                                       if lines.get("gpu-package") else None)
    if got is None or not wanted:
        return None
    fw, line = got
    name = {"tensorflow": "TensorFlow", "jax": "JAX", "paddle": "Paddle"}.get(fw, fw)
    return Finding("framework-cpu-only", Severity.WARNING,
                   f"The text says {name}'s CPU-only build is the one installed (\"{line[:120]}\"), while it shows the GPU "
                   f"was wanted ({wanted}): a CPU build never uses the GPU.", _FW_FIX.get(fw, _CPU_FIX), line[:200], fw)


def both_said(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """A sentence says one framework's CPU and GPU builds are both installed in one environment: ``framework-cpu-only``
    (the two packages install into one package folder; whichever was installed last serves the import). Where the
    text's report shows the framework's installed build (``facts.frameworks``: onnxruntime-gpu 1.6.0 and the CUDA it
    needs, microsoft/onnxruntime#6183), the report's own checks judge it (:mod:`envcheck.engine.onnxruntime`: a GPU
    package whose CUDA runtime is missing fails without the CPU package too), not this sentence."""
    got = _fw_split(lines.get("both-builds-said"))
    if got is None:
        return None
    fw, line = got
    fw = "paddle" if fw.startswith("paddle") else fw
    fws = facts.get("frameworks") if isinstance(facts.get("frameworks"), dict) else {}
    if fw in (fws or {}) or (fw == "paddle" and "paddlepaddle" in (fws or {})):
        return None
    return Finding("framework-cpu-only", Severity.WARNING,
                   f"The text says the CPU and the GPU build of {fw if fw != 'framework' else 'the framework'} are both "
                   f"installed in one environment (\"{line[:120]}\"): both install into one package folder, and the one "
                   "installed last serves the import - often the CPU build, which never uses the GPU.",
                   _FW_FIX.get(fw, "Uninstall both builds, then install only the GPU build (it runs on the CPU too)."),
                   line[:200], None if fw == "framework" else fw)


def toolkit_said(lines: Dict[str, str]) -> Optional[Finding]:
    """A sentence names the system's CUDA toolkit and, differently, the CUDA the PyTorch build was made with (apex#350's
    maintainer: "you've installed CUDA 10.1.168 on your system, while the PyTorch binaries ship with CUDA 10.0.130"):
    ``cuda-toolkit-mismatch``, as the text says."""
    got = _split(lines.get("toolkit-said-mismatch"), 3)
    if got is None:
        return None
    system, torch_cuda, line = got
    return Finding("cuda-toolkit-mismatch", Severity.WARNING,
                   f"The text says the CUDA toolkit on the system is {system} while the PyTorch build was made with "
                   f"CUDA {torch_cuda} (\"{line[:140]}\"): an extension compiled with that toolkit is built for another "
                   "CUDA than the torch it loads into, and builders such as apex refuse the pair.",
                   f"Build with a CUDA {torch_cuda} toolkit (point CUDA_HOME at it), or install the PyTorch build made "
                   f"for CUDA {system}.",
                   line[:200], "toolkit")


def compiler_said(lines: Dict[str, str]) -> Optional[Finding]:
    """A sentence says CUDA X does not support a host compiler version (pytorch3d#416's maintainer: "CUDA 10.1 does not
    support GCC 9 or later"): ``host-compiler-unsupported``, as the text says. nvcc accepts only the compilers its
    crt/host_config.h window allows, whatever the framework's CUDA is."""
    got = _split(lines.get("compiler-said-unsupported"), 3)
    if got is None:
        return None
    cc, cuda, line = got
    return Finding("host-compiler-unsupported", Severity.WARNING,
                   f"The text says CUDA {cuda} does not support {cc.upper() if cc != 'clang' else cc} (\"{line[:140]}\"): "
                   "nvcc refuses a host compiler outside the versions its crt/host_config.h accepts, so every CUDA "
                   "extension build with that pair fails before compiling anything.",
                   f"Build with a host compiler CUDA {cuda} supports (an older one, named to the build through the CC / "
                   "CXX variables or nvcc's -ccbin option), or with a newer CUDA toolkit that supports this compiler.",
                   line[:200], "toolkit")


def python_said(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """A sentence says Python X.Y is not (yet) supported ("目前在未支持Python3.12", PaddleX#2174) and the text's report
    shows Python X.Y (its interpreter banner, an issue form's Python field): ``python-unsupported``, as the text says.
    Without a Python the report shows, or with another minor version, nothing."""
    got = _split(lines.get("python-said-unsupported"), 2)
    py = facts.get("python") if isinstance(facts.get("python"), dict) else {}
    have = str((py or {}).get("version") or "")
    if got is None or not have:
        return None
    said, line = got
    if have != said and not have.startswith(said + "."):
        return None
    return Finding("python-unsupported", Severity.WARNING,
                   f"The text says Python {said} is not supported (\"{line[:140]}\"), and the Python here is {have}: "
                   "the release (or one of its dependencies) publishes no build for it, so the install or the import "
                   "fails whatever the GPU stack is.",
                   f"Use a Python version the release supports (a new environment made with one of them), or a "
                   f"release that supports Python {said}.",
                   line[:200], "python")


def python_only(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """A sentence says the framework's wheel exists for one Python only (Jetson's torch wheels: cp36 for JetPack 4), and
    the Python the text shows (its report's, or another version the same line names as the reporter's) is another:
    ``python-unsupported``, as the text says (inst32)."""
    got = _split(lines.get("python-only-wheel"), 3)
    py = facts.get("python") if isinstance(facts.get("python"), dict) else {}
    if got is None:
        return None
    only, other, line = got
    # the other Python the same sentence names is the reporter's own ("I need the ... python3.7 wheel"); the text's
    # facts may hold the wheel's own Python, read from the same words
    have = other or str((py or {}).get("version") or "")
    if not have or have == only or have.startswith(only + "."):
        return None
    return Finding("python-unsupported", Severity.WARNING,
                   f"The text says the wheel is built for Python {only} only (\"{line[:140]}\"), and the Python here is "
                   f"{have}: pip refuses a wheel made for another Python (\"is not a supported wheel on this platform\"), "
                   "and no other build of that release exists for this platform.",
                   f"Install into a Python {only} environment (on a Jetson: the JetPack's own Python), or take a release "
                   f"whose wheels include Python {have} (on a Jetson: the JetPack whose wheels are built for it), or build "
                   "the framework from source for this Python.",
                   line[:200], "python")


def _needs(lines: Dict[str, str]) -> List[Tuple[str, str, str, List[Tuple[int, int]], str]]:
    """(framework, kind, op, versions, line) of every ``fw-needs-<framework>-<kind>`` evidence line."""
    out = []
    for key, value in lines.items():
        got = _split(value, 3) if key.startswith("fw-needs-") else None
        parts = key[len("fw-needs-"):].rsplit("-", 1)
        if got is None or len(parts) != 2:
            continue
        versions = [v for v in (cuda_tuple(x) for x in got[1].split(",")) if v is not None]
        if versions and got[0] in ("=", "==", ">="):
            out.append((parts[0], parts[1], got[0], versions, got[2]))
    return out


def _meet(a: Tuple[str, List[Tuple[int, int]]], b: Tuple[str, List[Tuple[int, int]]], kind: str = "cuda") -> bool:
    """Whether one version (major.minor) satisfies both needs (``=`` a build's version or list, ``==`` a package's exact
    pin, ``>=`` a floor). Two builds' CUDA releases of one major from 11 on, neither pinned exactly, meet: a runtime of the
    newer minor serves a build made with the older one (CUDA's minor version compatibility; SpatialVLA#19: torch
    2.5.1+cu121 beside tensorflow 2.15.0, built with 12.2, "has not caused any problems")."""
    (op_a, va), (op_b, vb) = a, b
    if op_a == ">=" and op_b == ">=":
        return True
    if op_a == ">=":
        return any(v >= va[0] for v in vb)
    if op_b == ">=":
        return any(v >= vb[0] for v in va)
    if kind == "cuda" and op_a == "=" and op_b == "=" and {v[0] for v in va if v[0] >= 11} & {v[0] for v in vb}:
        return True
    return bool(set(va) & set(vb))


def frameworks_said(lines: Dict[str, str]) -> Optional[Finding]:
    """Two frameworks whose stated CUDA (or cuDNN) needs leave no common version: see the module's docstring."""
    needs = _needs(lines)
    for i, (fw_a, kind_a, op_a, va, line_a) in enumerate(needs):
        for fw_b, kind_b, op_b, vb, line_b in needs[i + 1:]:
            if fw_a == fw_b or kind_a != kind_b or _meet((op_a, va), (op_b, vb), kind_a):
                continue
            what = "CUDA" if kind_a == "cuda" else "cuDNN"

            def shown(op: str, vs: List[Tuple[int, int]]) -> str:
                return (">= " if op == ">=" else "") + ", ".join(f"{v[0]}.{v[1]}" for v in vs)

            quoted = line_a[:100] if line_a == line_b else f"{line_a[:80]} ... {line_b[:80]}"
            return Finding("framework-conflict", Severity.WARNING,
                           f"The text says {fw_a} needs {what} {shown(op_a, va)} and {fw_b} needs {what} "
                           f"{shown(op_b, vb)} (\"{quoted}\"): no {what} version serves both, so one environment "
                           "cannot hold both builds (pip or conda refuses the pins, or the library loaded first fails "
                           "the other framework's version check).",
                           f"Install {fw_a} and {fw_b} in separate environments (or containers), or choose releases "
                           f"whose {what} needs meet (each framework's tested build configurations list them).",
                           quoted[:200], "framework")
    return None


def _served_pythons(matrix: Any, package: str) -> List[str]:
    """Every Python (x.y) any release of ``package`` (torch, or TensorFlow's packages) has wheels for in the matrix."""
    table = "torch" if package.startswith("torch") else "tensorflow"
    out: List[str] = []
    for row in matrix.rows(table, "release"):
        for key in ("python", "python_windows"):
            out += [str(v) for v in row.get(key) or []]
    return out


#: the packages PyTorch and TensorFlow publish 64-bit wheels of only
_NO_32BIT = ("torch", "torchvision", "torchaudio", "tensorflow", "tensorflow-gpu", "tensorflow-cpu")


def python_bits(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str],
                no_build: Optional[str] = None) -> Optional[Finding]:
    """A 32-bit Python the text shows or says (evidence ``python-32bit``: its banner, collect_env's "(32-bit runtime)",
    the Python37-32 folder of python.org's 32-bit Windows installer, a sentence of the thread) and pip finding no build
    of torch or TensorFlow (``no_build``, ``package | line``: the knowledge base's match of pip's own line, handed over
    by explain; else a sentence retelling it, evidence ``pip-none-said``): PyTorch and TensorFlow publish no 32-bit wheels
    (pytorch/pytorch#40511), so pip finds none whatever the version: ``python-arch-mismatch``. Where the text's Python
    version is one no release of the package has wheels for in the matrix, the version is the cause (``python-unsupported``
    stays, nothing here)."""
    bits = lines.get("python-32bit")
    got = _split(no_build or lines.get("pip-none-said"), 2)
    if got is not None and not bits:
        return _amd64_refused(facts, lines, got[0], got[1])
    if not bits or got is None:
        return None
    if re.search(r"(?i)" + _PY_64, lines.get("python") or "") and not re.search(r"(?i)" + _PY_64, bits):
        return None  # (attack51) the banner of the Python that runs is a 64-bit one; the 32-bit one is another
    pkg, pip_line = got[0].lower().replace("_", "-"), got[1]
    if pkg not in _NO_32BIT:
        return None
    py = facts.get("python") if isinstance(facts.get("python"), dict) else {}
    have = str((py or {}).get("version") or "")
    mm = ".".join(have.split(".")[:2])
    if mm and matrix is not None:
        served = _served_pythons(matrix, pkg)
        if served and mm not in served:
            return None
    name = "PyTorch" if pkg.startswith("torch") else "TensorFlow"
    return Finding("python-arch-mismatch", Severity.ERROR,
                   f"The text shows or says the Python is a 32-bit one (\"{bits[:120]}\"), and pip finds no build of {pkg} for it "
                   f"(\"{pip_line[:100]}\"): {name} publishes 64-bit wheels only, so no version of it installs into a "
                   "32-bit Python, whatever the Python version.",
                   "Install a 64-bit Python (python.org's 'Windows installer (64-bit)', or a 64-bit conda), make the "
                   "environment with it and install again; in it `python -c \"import struct; print(struct.calcsize('P') "
                   "* 8)\"` prints 64.",
                   bits[:200], "python")


def apple_x86_wheels(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str],
                     no_build: Optional[str] = None) -> Optional[Finding]:
    """(macarch40) pip finds torch only up to the last release with macOS x86_64 wheels (``no_build``'s line, "torch==2.4.1
    (from versions: 2.0.0, ..., 2.2.2)": :func:`envcheck.engine.builds.mac_x86_list_top`, the release from the matrix)
    where the text names an Apple-silicon Mac (evidence ``apple-silicon``: "Apple Mac Mini M4", oobabooga/textgen#6527;
    "an ARM-based mac", sensein/b2aiprep#127) and no NVIDIA GPU: those are the versions an x86_64 Python installs, so the
    Python runs under Rosetta 2 - ``python-arch-mismatch``. The same list on an Intel Mac is the platform's end of
    wheels, no cause (pytorch/pytorch#161614: "Are you on Intel Mac? ... last torch release for Intel Mac was 2.2.2"),
    and so is it where the text names an Intel Mac as well (evidence ``intel-mac``, attack52: "It installs fine on my M1
    MacBook. Are you on an Intel Mac?"): which Mac the list is of is not known."""
    from envcheck.engine.builds import mac_x86_list_top
    from envcheck.engine.vendors_prose import nvidia_named

    got = _split(no_build, 2)
    mac = lines.get("apple-silicon")
    if got is None or not mac or lines.get("intel-mac") or got[0].lower() != "torch" or nvidia_named(facts, lines):
        return None
    last = mac_x86_list_top(matrix, got[1])
    if last is None:
        return None
    return Finding("python-arch-mismatch", Severity.ERROR,
                   f"pip finds torch only up to {last} (\"{got[1][:120]}\"), the last release with macOS x86_64 wheels, on "
                   f"an Apple-silicon Mac (\"{mac[:80]}\"): the Python is an x86_64 one running under Rosetta 2, for which "
                   f"no newer torch exists (and MPS is unavailable to it).",
                   "Use an arm64 Python (python.org's universal2 installer, `brew install python` in /opt/homebrew, "
                   "or a Miniforge arm64 conda) from a terminal not opened with Rosetta, make the environment with it "
                   "and install again; in it `python -c \"import platform; print(platform.machine())\"` prints arm64.",
                   got[1][:200], "python")


#: pip refusing a Windows x86-64 wheel of a CPython version: "torch-1.0.0-cp37-cp37m-win_amd64.whl is not a supported
#: wheel on this platform" (errors.toml's pip-framework-wheel-not-supported-here)
_AMD64_REFUSED = re.compile(r"-cp(?P<major>\d)(?P<minor>\d{1,2})-cp\d{2,3}m?-win_amd64\.whl is not a supported wheel")


#: a Python line showing a 64-bit build (attack51; "Windows 10 64-bit" is the system's, not the Python's: not read)
_PY_64 = r"\(AMD64\)|\b64[\s-]?bit\s(?:python|version\sof\spython)\b|\bpython\s?[\d.]{0,8}\s{0,2}\(?64[\s-]?bit\b"
#: the same, or a system that is not Windows (attack51)
_PY_64_OR_NOT_WINDOWS = re.compile(r"(?i)" + _PY_64 + r"|\b(?:ubuntu|debian|centos|fedora|linux|macos|mac\s?os|darwin|wsl)\b")


def _amd64_refused(facts: Dict[str, Any], lines: Dict[str, str], pkg: str, pip_line: str) -> Optional[Finding]:
    """(pyarch39) pip refuses a win_amd64 wheel of torch or TensorFlow built for the very Python version the text names
    (every Python it names, and its report's, is that X.Y: pytorch/pytorch#16633, "Python 3.7" and
    torch-1.0.0-cp37-cp37m-win_amd64.whl): the CPython and ABI tags fit, and the wheel is a Windows one, so the tag that
    does not fit is the architecture - a 32-bit (win32) Python (or, rarer, one for Windows on ARM64), for which the
    framework has no wheel: ``python-arch-mismatch``. A text naming no Python version, or another one, says nothing."""
    m = _AMD64_REFUSED.search(pip_line)
    pkg = pkg.lower().replace("_", "-")
    if m is None or pkg not in _NO_32BIT:
        return None
    tag = f"{m.group('major')}.{m.group('minor')}"
    named = {k[len("python-named-"):] for k in lines if k.startswith("python-named-")}
    py = facts.get("python") if isinstance(facts.get("python"), dict) else {}
    have = str((py or {}).get("version") or "")
    if have:
        named.add(".".join(have.split(".")[:2]))
    if named != {tag}:
        return None
    # (attack51) nor where the Python is shown 64-bit ("[MSC v.1929 64 bit (AMD64)] on win32": then the wheel's tags
    # fit and pip refuses it for another reason, an old pip or a file that is not there) or not on Windows (a Linux or
    # macOS Python refuses every win_amd64 wheel: "I am on Ubuntu 20.04 with Python 3.8")
    said = [lines.get(k) or "" for k in lines if k.startswith("python-named-") or k == "python"]
    if str(lines.get("python-platform") or "win32") != "win32" or any(_PY_64_OR_NOT_WINDOWS.search(x) for x in said):
        return None
    name = "PyTorch" if pkg.startswith("torch") else "TensorFlow"
    return Finding("python-arch-mismatch", Severity.ERROR,
                   f"pip refuses {name}'s Windows x86-64 wheel built for Python {tag} (\"{pip_line[:110]}\"), and the "
                   f"Python the text names is {tag}: its version and ABI fit, so the architecture does not - the Python "
                   f"is a 32-bit (win32) one, for which {name} publishes no wheels.",
                   "Install a 64-bit Python (python.org's 'Windows installer (64-bit)', or a 64-bit conda), make the "
                   "environment with it and install again; in it `python -c \"import struct; print(struct.calcsize('P') "
                   "* 8)\"` prints 64.",
                   pip_line[:200], "python")


def _tf_rows(matrix: Any, release: str) -> List[Dict[str, Any]]:
    """The matrix's TensorFlow rows of a release ("1.8") or a series ("1.x")."""
    if release.endswith(".x"):
        major = release.split(".")[0]
        return [r for r in matrix.rows("tensorflow", "release") if str(r.get("version") or "").split(".")[0] == major]
    row = matrix.tf_release(release if release.count(".") >= 2 else release + ".0")
    return [row] if row else []


def _first_native(matrix: Any, cc: str) -> Optional[str]:
    """The first CUDA toolkit (compat_matrix/cuda.toml ``[[targets]]``) that compiles code the GPU of compute capability
    ``cc`` runs natively: a target of its major at or below it (sm_80 code runs on an 8.6 GPU). None where the matrix's
    oldest toolkit already does (the first one is not known) or none does."""
    gpu = cc_tuple(cc)
    rows = rules.targets_by_cuda(matrix)
    if gpu is None or not rows:
        return None
    have = [v for _, v, ccs in rows if any(t[0] == gpu[0] and t <= gpu for t in ccs)]
    if not have or have[0] == rows[0][1]:
        return None
    return have[0]


def _out_of_reach(matrix: Any, rows: List[Dict[str, Any]], ccs: List[str]) -> Optional[str]:
    """Why no build of these TensorFlow rows has native code for any of ``ccs``: each row's CUDA is older than the
    first toolkit that compiles for the GPU's architecture (:func:`_first_native`); None where one may, or a row's CUDA
    or the GPU's first toolkit is unknown."""
    why = ""
    for cc in ccs:
        first = _first_native(matrix, cc)
        if first is None:
            return None
        for row in rows:
            cuda = str(row.get("cuda") or "")
            if not cuda_tuple(cuda) or (cuda_tuple(cuda) or (0,)) >= (cuda_tuple(first) or (0,)):
                return None
        why = why or f"the first CUDA that compiles code compute capability {cc} runs is {first}"
    return why or None


def tf_too_old(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """A sentence says a TensorFlow release (or a series: "TF 1.x") does not work (evidence ``tf-fails-said``), and the
    GPU the text names (on that line, else the text's GPUs and the GeForce series it names) is newer than every build
    of it: the CUDA each was built with (compat_matrix/tensorflow.toml ``cuda``) cannot compile for the GPU's compute
    capability (:func:`envcheck.engine.rules.toolkit_reach`, compat_matrix/cuda.toml's targets): ``gpu-arch-unsupported``.
    A build before TF 2.3 carries PTX the driver may JIT-compile for a newer GPU (slowly: tests/data/attack38), so the
    verdict is said from the text's own failure, never from the matrix alone. A GPU some build of it reaches (TF 2.4,
    CUDA 11.0, on an RTX 3090 through its sm_80 code) decides nothing."""
    got = _split(lines.get("tf-fails-said"), 2)
    if got is None or matrix is None:
        return None
    release, line = got
    rows = _tf_rows(matrix, release)
    if not rows:
        return None
    compact = re.sub(r"[\s-]", "", line.lower())
    names = gpu_names(facts, lines) + [n for n in (lines.get("gpu-series-prose") or "").split("|") if n]
    on_line = [n for n in names if re.sub(r"[\s-]", "", n.lower()) in compact]
    for name in on_line or names:
        ccs = gpu_ccs(matrix, name)
        why = _out_of_reach(matrix, rows, ccs) if ccs else None
        if why is None:
            continue
        cc = ccs[0] if len(ccs) == 1 else f"{ccs[0]} to {ccs[-1]}"
        first = next((r for r in sorted(matrix.rows("tensorflow", "release"),
                                        key=lambda r: version_tuple(str(r.get("version") or "0")) or (0,))
                      if _out_of_reach(matrix, [r], ccs) is None and cuda_tuple(str(r.get("cuda") or ""))), None)
        later = (f" The first TensorFlow release built with a CUDA that reaches it is {first['version']} "
                 f"(CUDA {first['cuda']})." if first else "")
        built = ", ".join(sorted({str(r.get("cuda")) for r in rows}, key=lambda c: cuda_tuple(c) or (0,)))
        return Finding("gpu-arch-unsupported", Severity.ERROR,
                       f"The text says TensorFlow {release} does not work, and the {name} (compute capability {cc}) is "
                       f"newer than its builds: they are made with CUDA {built}, and {why}. The GPU gets none of the "
                       f"build's native code (at most a slow JIT of PTX).{later}",
                       f"Use a TensorFlow release built with a CUDA that supports compute capability {cc}"
                       + (f" ({first['version']} or newer)" if first else "") + "; TF 1.x code runs on TF 2 through "
                       "`tf.compat.v1` (tensorflow/tensorflow#42958).",
                       line[:200], "gpu")
    return None


def memory_blamed(lines: Dict[str, str]) -> Optional[Finding]:
    """cuBLAS failed to initialise (evidence ``cublas-init-failed``: CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS
    initialization failed") and a sentence of the thread blames GPU memory for it (``memory-blamed``): cuBLAS allocates
    its handle's resources on the GPU, so a GPU whose memory is taken fails in ``cublasCreate`` with that status rather
    than with an allocator's out-of-memory message (tensorflow/tensorflow#9489, jax-ml/jax#7118):
    ``gpu-out-of-memory``, as the thread says."""
    init, said = lines.get("cublas-init-failed"), lines.get("memory-blamed")
    if not init or not said or lines.get("memory-refuted"):
        return None  # (the failure at batch size 1 refutes the blame: karpathy/llama2.c#279)
    return Finding("gpu-out-of-memory", Severity.ERROR,
                   f"cuBLAS could not be initialised (\"{init[:100]}\"), and the thread says GPU memory is why "
                   f"(\"{said[:120]}\"): cuBLAS allocates its handle's workspace on the GPU when it is created, so a GPU "
                   "whose memory is already taken (a model too large for it, another process, a framework that "
                   "pre-allocated it) fails there with CUBLAS_STATUS_NOT_INITIALIZED instead of an out-of-memory error.",
                   "Free the GPU's memory before the first cuBLAS call: a smaller model, precision or batch; no other "
                   "process on the GPU (nvidia-smi lists them); TensorFlow / JAX not pre-allocating it "
                   "(TF_FORCE_GPU_ALLOW_GROWTH=true, XLA_PYTHON_CLIENT_PREALLOCATE=false).",
                   said[:200], "gpu")


def lib_said(matrix: Any, lines: Dict[str, str]) -> Optional[Finding]:
    """(edge33) A CUDA / cuDNN library the text names as its error without the loader's own line (evidence
    ``lib-said-error``, :mod:`envcheck.paste.readers.prose_lib`: an issue title "ImportError: libcudart.so.10.0", "the
    error libcusolver.so.8.0", "it uses libcudnn.so.8"): the cause the library table of errors.toml gives that library
    (``cuda-runtime-missing``, ``cudnn-missing``), as for "cannot open shared object file"; nothing for a library the
    table does not route to one of those."""
    value = lines.get("lib-said-error")
    if not value or matrix is None:
        return None
    lib, _, line = value.partition(" | ")
    if line.startswith("#") and (lines.get("lib-said-present") or "").partition(" | ")[0] == lib:
        return None  # (attack52) a title that is the library alone, the text saying it loaded: no failure of it
    from envcheck.engine.vendors import library_cause

    cause = library_cause(matrix, lib)
    if cause not in ("cuda-runtime-missing", "cudnn-missing"):
        return None
    what = "cuDNN" if cause == "cudnn-missing" else "CUDA"
    return Finding(cause, Severity.ERROR,
                   f"The text names {lib} as the library the program failed on (\"{line[:140]}\"): the build asks for that "
                   f"{what} major, which the machine does not provide (a wheel or binary built for another CUDA / cuDNN - on "
                   "a Jetson, for another JetPack's).",
                   f"Install the build made for the {what} the machine has (on a Jetson: NVIDIA's wheel for the installed "
                   f"JetPack), or install the {what} release the build was made for where that is possible; "
                   "`envcheck status` names the versions each side has.",
                   line[:200], "framework")


def findings(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str], failed: bool,
             gpu_ran: Optional[str] = None, no_build: Optional[str] = None) -> List[Finding]:
    """Every finding of this module for one text, best first. A GPU no build of the stated CUDA reaches is the more
    certain cause: the text's own "CPU version" sentence is then not said beside it (a sentence merely saying the build
    does not fit the GPU is no more certain than one saying it is the CPU build: both are said). ``gpu_ran``: a log line
    of the text that only a GPU build prints while running on the GPU ("CUDA out of memory. Tried to allocate ...", a
    cuBLAS or cuDNN status, an illegal memory access): the torch that failed there is no CPU build, its CUDA
    initialised and its kernels ran, so what the sentences say of a CPU build, of a driver too old for the build or of
    a build that does not fit the GPU (another run, another environment, an older build) is not said as the cause."""
    arch = arch_unsupported(matrix, facts, lines, failed) or arch_needs(matrix, facts, lines, failed) \
        or arch_floor(matrix, facts, lines) or tf_too_old(matrix, facts, lines) \
        or arch_stated(matrix, facts, lines, failed)
    cpu: Sequence[Optional[Finding]] = () if gpu_ran else (cpu_label(matrix, facts, lines),) if arch else (
        cpu_label(matrix, facts, lines), cpu_said(facts, lines), cpu_run(facts, lines), tf_windows_cpu(matrix, facts, lines),
        fw_cpu_said(facts, lines), both_said(facts, lines))
    if not gpu_ran and not arch and not any(f is not None and f.id == "framework-cpu-only" for f in cpu) \
            and resolved_cause(matrix, lines) != "framework-cpu-only":  # the reporter's own fix says it better
        cpu = tuple(cpu) + (cuda_build_advised(facts, lines),)  # the answer's reading, where nothing stronger says it
    said = None if arch or gpu_ran else arch_said(matrix, facts, lines)
    drv = None if gpu_ran else driver_said(matrix, facts, lines, failed) or driver_advised(matrix, facts, lines, failed)
    out = [python_bits(matrix, facts, lines, no_build), apple_x86_wheels(matrix, facts, lines, no_build), arch, drv] + list(cpu) + [
        said, lib_path_conflict(lines), lib_shadowed(lines), toolkit_said(lines), compiler_said(lines), python_said(facts, lines),
        python_only(facts, lines), frameworks_said(lines), memory_blamed(lines), lib_said(matrix, lines),
        None if gpu_ran else tf_cuda_said(matrix, facts, lines, failed)]
    from envcheck.engine import jetson_prose  # a Jetson's JetPack-bound Python, ONNX Runtime's release (jetson35)

    out += [f for f in jetson_prose.findings(matrix, facts, lines, failed) if f.id not in {g.id for g in out if g is not None}]
    return [f for f in out if f is not None]
