"""Report-level causes of a non-NVIDIA machine that a thread's *sentences* say (issue 20, round prose27), decided from
the evidence :mod:`envcheck.paste.readers.prose_vendor` keeps (``explain --json``'s report lines) and the matrix. Pure
functions; each returns the finding ``status`` would give, or ``None`` (unknown decides nothing).

* :func:`amd_gpu_unsupported`: a sentence says an AMD GPU is not supported ("We are not supporting Navi14 with ROCm
  now", "the gfx90c is not officially supported", "iGPUs are not supported."), in a text about AMD's stack (a ROCm /
  HIP / Radeon line, an AMD GPU named beside ROCm, or the sentence's own gfx target / AMD model) that names no NVIDIA
  GPU: ``gpu-arch-unsupported``, as the text says. A gfx target the newest ROCm release of the matrix lists as
  officially supported (rocm.toml ``[[rocm_release]]`` ``gfx``) contradicts the sentence: nothing - unless the
  sentence names a program with its own target list (Ollama, LM Studio, Lemonade, llama.cpp, the HIP SDK, Windows;
  amdigpu40), whose verdict ROCm's Linux list does not contradict.
* :func:`apple_python_x86`: the text shows an x86_64 Python (``file``'s "Mach-O 64-bit executable x86_64" for a python,
  ``platform.machine()`` returning x86_64, the stack installed in a Rosetta terminal) and names an Apple-silicon Mac:
  ``python-arch-mismatch`` (an x86_64 Python runs under Rosetta 2 there: no MPS, no arm64 wheels), as
  :mod:`envcheck.engine.vendors` says of a snapshot whose python.json shows it.
* :func:`cuda_only_other_vendor`: a sentence says the package or program works only with CUDA / NVIDIA GPUs (or needs
  CUDA), and the text's machine is an Apple-silicon Mac (named, or MPS / Metal named) or an AMD one (a sentence that
  also allows ROCm is then not it), with no NVIDIA GPU named: ``framework-vendor-mismatch``.
* :func:`amd_root_only` (amd33): a sentence says the GPU works only as root / with sudo, in a text about AMD's stack:
  ``device-permission``.
* :func:`amd_docker_desktop` (amd33): Docker Desktop named in a text about AMD's stack (its VM has no /dev/kfd):
  ``device-permission``.
* :func:`intel_kernel_too_old`: the text names an Intel GPU (an Arc model, its PCI device id or a code name a row
  gives, "Battlemage": :mod:`envcheck.paste.readers.linux_kernel`) of a group compat_matrix/xpu.toml ``[[intel_kernel]]`` gives a kernel
  floor, and the Linux kernel release it states is below that floor, with no Intel i915 backport (intel-i915-dkms)
  shown: ``driver-too-old`` (the kernel's GPU driver is older than the GPU; Intel: Alchemist needs Linux 6.2,
  Battlemage 6.12). Both
  must be read: a kernel without a GPU of a listed group, or a GPU without a kernel, decides nothing.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from envcheck.engine.vendors import intel_gpu_group, intel_mac_torch_note
from envcheck.model import Finding, Gpu, Severity
from envcheck.versions import version_tuple

__all__ = ["nvidia_named", "amd_gpu_unsupported", "amd_gpu_asked", "amd_gpu_name_gfx", "amd_docker_desktop", "amd_root_only", "apple_python_x86", "cuda_only_other_vendor",
           "amd_windows_cpu_fallback",
           "intel_kernel_too_old", "zluda_adrenalin_broken", "findings"]

#: AMD's stack named on a line: ROCm, HIP, a gfx target, Radeon, an RX model, the HSA override
_AMD = re.compile(r"(?i)rocm|(?<![a-z])hip(?![a-z])|libamdhip|gfx\d|radeon|(?<![\w-])rx\s?\d{3,4}(?![\w-])|hsa_override"
                  r"|(?<![a-z])amd(?![a-z0-9])|(?<![a-z])navi\s?\d"
                  # amd33: ROCm's own libraries named ("Currently rocBLAS lacks 780M gpu support", ROCm/rocBLAS#1536)
                  r"|(?<![a-z])(?:rocblas|hipblas(?:lt)?|miopen|rccl)(?![a-z])")
_GFX = re.compile(r"(?i)^gfx\d{3,4}[a-z]?$")
#: amdigpu40: a program with its own, narrower gfx target list than ROCm's Linux release (LM Studio's and Lemonade's
#: ROCm engines, Ollama's bundled ROCm library, a llama.cpp build, AMD's HIP SDK for Windows): "gfx906 is not supported
#: on the ROCM runtime in LM Studio" (lmstudio-ai/lms#228) is that program's list, which ROCm's does not contradict
_PROGRAM = re.compile(r"(?i)ollama|lm\s{0,2}studio|lemonade|llama\.cpp|koboldcpp|hip\s{0,2}sdk|(?<![a-z])windows(?![a-z])")
#: Apple's GPU stack named (the other-vendor evidence of paste.readers.prose_cause): MPS, Metal, Apple M-series / silicon
_APPLE = re.compile(r"(?i)(?<![a-z])(?:mps|metal|apple\s(?:m\d|silicon))(?![a-z])|macos|mac\s?os|(?<![a-z])macs?(?![a-z])")


#: a GPU name of another maker than NVIDIA ("Mesa Intel® Arc™ A750 Graphics (DG2)", a Radeon): a report's GPU line that
#: names one is no NVIDIA GPU whatever vendor its reader left unsaid
_NOT_NVIDIA = re.compile(r"(?i)intel|(?<![\w-])arc(?![\w-])|radeon|(?<![a-z])amd(?![a-z])|apple")
#: a GPU name that is NVIDIA's by its brand or series (a sentence's "RTX 3060"; a bare "A770" is not)
_NVIDIA_NAME = re.compile(r"(?i)nvidia|geforce|(?<![a-z])(?:rtx|gtx|quadro|tesla|titan)(?![a-z])")


def _split(value: Optional[str]) -> Optional[List[str]]:
    got = [p.strip() for p in (value or "").split(" | ", 1)]
    return got if value and len(got) == 2 else None


def _nvidia_named(facts: Dict[str, Any], lines: Dict[str, str]) -> bool:
    """Whether the text names an NVIDIA GPU (a sentence's model, a report's NVIDIA GPU)."""
    if lines.get("gpu-prose"):
        return True
    # amd33: a GPU the text names without a vendor is NVIDIA's only where its name is not AMD's (TensorFlow's issue
    # template line "GPU model and memory: AMD Radeon RX 6700 XT, 12GB VRAM" is read as a GPU with no vendor)
    return any(isinstance(g, dict) and str(g.get("vendor") or "nvidia").lower() == "nvidia" and g.get("name")
               and (g.get("vendor") or not _AMD.search(str(g.get("name"))))
               for g in (facts.get("gpus") or []))


#: (macarch40) the same check for the other prose modules (engine.prose_causes.apple_x86_wheels)
nvidia_named = _nvidia_named


def _newest_official_gfx(matrix: Any) -> Optional[List[str]]:
    if matrix is None:
        return None
    rows = [r for r in matrix.rows("rocm", "rocm_release") if isinstance(r.get("gfx"), list)]
    if not rows:
        return None
    newest = max(rows, key=lambda r: version_tuple(str(r.get("version"))) or ())
    return [str(g) for g in newest["gfx"]]


def amd_gpu_unsupported(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    got = _split(lines.get("gpu-said-unsupported"))
    if got is None or _nvidia_named(facts, lines):
        return None
    subject, line = got
    amd = _AMD.search(line) or _AMD.search(lines.get("other-vendor") or "") or lines.get("amd-prose")
    if not amd:
        return None  # a GPU said unsupported where the text is not about AMD's stack: whose GPU and which stack is unknown
    if _GFX.match(subject) and not _PROGRAM.search(line):
        official = _newest_official_gfx(matrix)
        if official is not None and subject.lower() in (g.lower() for g in official):
            return None  # the matrix's newest ROCm release supports this target officially: the sentence is contradicted
    return Finding("gpu-arch-unsupported", Severity.ERROR,
                   f"The text says the AMD GPU ({subject}) is not supported (\"{line[:140]}\"): ROCm and the framework's "
                   "ROCm builds ship code only for the gfx targets AMD supports, so on this GPU the kernels are missing "
                   "(hipErrorNoBinaryForGpu, a segmentation fault or a memory access fault, rather than a clear message).",
                   "Run on a GPU in the ROCm release's support list (AMD's ROCm system requirements page names the gfx "
                   "targets), or build the framework for this GPU's gfx target; overriding the reported gfx version "
                   "(HSA_OVERRIDE_GFX_VERSION) is unsupported and may crash.",
                   line[:200], "gpu")


def amd_gpu_asked(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """amd35: a feature request's title or a sentence asks a project for an AMD GPU's support or builds ("[Feature]: Add
    gfx1150 builds?", ROCm/TheRock#844; "Add gfx1152 support"; "I would appreciate it if you could add support for
    gfx1151 to the project", ROCm/gsplat#8), evidence ``gpu-support-asked``: the project, package or build the thread
    is about has no code object for that gfx target: ``gpu-arch-unsupported``, as the text says. Not in a pull request
    (evidence ``pull-request``: its title is the change that adds the target), nor where the text shows a measured run on
    the GPU (evidence ``gpu-run-measured``), nor where the text names an NVIDIA GPU
    (whose GPU failed is then not the AMD one's to say)."""
    got = _split(lines.get("gpu-support-asked"))
    # amdkm39: nor where the text shows the GPU running and measured (a throughput, a benchmark's timings, a test
    # passed on it: evidence ``gpu-run-measured``), with or without HSA_OVERRIDE_GFX_VERSION: its code runs there
    if got is None or lines.get("pull-request") or lines.get("gpu-run-measured") or _nvidia_named(facts, lines):
        return None
    subject, line = got
    named = amd_gpu_name_gfx(matrix, subject)
    what = f"{subject} ({named})" if named and named.lower() != subject.lower() else subject
    return Finding("gpu-arch-unsupported", Severity.ERROR,
                   f"The text asks for support or builds for the AMD GPU {what} (\"{line[:140]}\"): the project or build "
                   "it is asked of ships no code object for that gfx target, so on this GPU its kernels are missing "
                   "(hipErrorNoBinaryForGpu, \"invalid device function\", a missing TensileLibrary file, or the GPU "
                   "left unused).",
                   "Use a release or build whose target list names this GPU's gfx target (the project's release notes, "
                   "`torch.cuda.get_arch_list()` of a ROCm torch, AMD's ROCm system requirements), or build the "
                   "project from source for it (PYTORCH_ROCM_ARCH / AMDGPU_TARGETS / GPU_TARGETS set to the target); "
                   "overriding the reported gfx version (HSA_OVERRIDE_GFX_VERSION) is unsupported and may crash.",
                   line[:200], "gpu")


def amd_gpu_name_gfx(matrix: Any, name: Optional[str]) -> Optional[str]:
    """amd35: the gfx target of an AMD GPU named by its marketing name ("W7900 Dual Slot", "Radeon RX 7900 XTX",
    "MI300X"), from ROCm's GPU architecture specification table (compat_matrix/rocm.toml ``[[gpu_arch_spec]]``); a gfx
    target given as such is returned as written. None where the table has no row of that exact model."""
    if not name:
        return None
    if _GFX.match(name.strip()):
        return name.strip().lower()
    if matrix is None or not hasattr(matrix, "amd_gfx_of_name"):
        return None
    got = matrix.amd_gfx_of_name(name)
    return str(got) if got else None


def apple_python_x86(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    said, mac = lines.get("python-x86-said"), lines.get("apple-silicon")
    # (attack52) an Intel Mac named as well ("It installs fine on my M1 MacBook. Are you on an Intel Mac?"): which Mac
    # the x86_64 Python is on is not known, and on an Intel Mac it is the platform's own
    if not said or not mac or lines.get("intel-mac") or _nvidia_named(facts, lines):
        return None
    return Finding("python-arch-mismatch", Severity.ERROR,
                   f"The text shows an x86_64 Python (\"{said[:120]}\") on an Apple-silicon Mac (\"{mac[:80]}\"): it runs "
                   f"under Rosetta 2, so torch and TensorFlow install x86_64 wheels{intel_mac_torch_note(matrix)}, MPS "
                   "is unavailable, and builds made for Apple silicon or with AVX fail to load (illegal instruction).",
                   "Use an arm64 Python (python.org's universal2 installer, `brew install python` in /opt/homebrew, "
                   "or a Miniforge arm64 conda) from a terminal not opened with Rosetta, then reinstall the packages.",
                   said[:200], "python")


#: r2amd: the CUDA-only sentence's own line names AMD as the machine's maker ("AMD install does not detect mROC and just
#: errors out asking for CUDA", LykosAI/StabilityMatrix#1058; "I'm using AMD hardware, so there is no CUDA. But ethminer
#: demands a CUDA driver.", ethereum-mining/ethminer#1170; "it simply requires Cuda toolkit and since I have a computer
#: with AMD", microsoft/O-CNN#141): not an AMD CPU named ("AMD Ryzen"), nor AMD64
_AMD_MACHINE_SAID = re.compile(r"(?i)(?<![a-z])amd(?![a-z0-9])(?!\s{1,2}(?:ryzen|cpus?|processors?|threadripper|epyc|athlon"
                               r"|fx|phenom|a\d|e\d))(?!\s{0,2}\()")


def cuda_only_other_vendor(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    said = lines.get("cuda-only-said")
    if not said or _nvidia_named(facts, lines):
        return None
    other = lines.get("other-vendor") or ""
    if lines.get("apple-silicon") or _APPLE.search(said) or re.search(r"(?i)mps|metal|apple", other):
        machine = "an Apple-silicon Mac (no CUDA: its GPU is reached through MPS / Metal)"
    elif (lines.get("amd-prose") or _AMD.search(other) or _AMD_MACHINE_SAID.search(said)) and "rocm" not in said.lower():
        machine = "an AMD GPU (ROCm, no CUDA)"
    else:
        return None
    return Finding("framework-vendor-mismatch", Severity.ERROR,
                   f"The text says the package works only with CUDA (\"{said[:140]}\"), and the machine is {machine}: "
                   "a CUDA-only build or extension cannot use this GPU, whatever is installed beside it.",
                   "Use a build or an alternative that supports this machine's GPU (MPS on a Mac, ROCm on AMD), drop "
                   "the CUDA-only dependency, or run it on a machine with an NVIDIA GPU.",
                   said[:200], "framework")


def _amd_text(lines: Dict[str, str], *said: str) -> bool:
    """Whether the text is about AMD's GPU stack: a ROCm / HIP / Radeon line, an AMD GPU named, or the sentence itself."""
    return bool(lines.get("amd-prose") or _AMD.search(lines.get("other-vendor") or "")
                or any(_AMD.search(x) for x in said))


def _amd_said(facts: Dict[str, Any], lines: Dict[str, str], key: str) -> Optional[str]:
    """The sentence of evidence ``key`` where the text is about AMD's stack (:func:`_amd_text`) and names no NVIDIA
    GPU; None elsewhere."""
    said = lines.get(key)
    return said if said and not _nvidia_named(facts, lines) and _amd_text(lines, said) else None


def amd_root_only(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """amd33: a sentence says the GPU or a GPU program works only as root / with sudo (evidence ``root-only-said``) in a
    text about AMD's stack that names no NVIDIA GPU: ``device-permission`` (the user cannot open /dev/kfd and
    /dev/dri/renderD*; contract §9)."""
    said = _amd_said(facts, lines, "root-only-said")
    if said is None:
        return None
    return Finding("device-permission", Severity.ERROR,
                   f"The text says the GPU works only as root (\"{said[:140]}\"): ROCm opens /dev/kfd and "
                   "/dev/dri/renderD* read-write, and this user may not (not in the group that owns them: render on "
                   "current distributions, video on older ones; or a node mode that lets only root open it).",
                   "Add the user to the groups that own the nodes (`sudo usermod -a -G render,video $LOGNAME`; "
                   "`ls -l /dev/kfd /dev/dri/render*` shows them) and log in again; in a container pass the host's "
                   "group ids with --group-add, rather than running as root.",
                   said[:200], "gpu")


def amd_docker_desktop(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """amd33: Docker Desktop named (evidence ``docker-desktop``) in a text about AMD's stack that names no NVIDIA GPU:
    Docker Desktop runs the containers in its own virtual machine, which has no /dev/kfd to pass, so a ROCm container
    sees no GPU (ROCm/container-toolkit#86; vllm-project/vllm#7207, fixed by the plain Docker Engine):
    ``device-permission`` (contract §9: a container without the device nodes)."""
    said = _amd_said(facts, lines, "docker-desktop")
    if said is None:
        return None
    return Finding("device-permission", Severity.ERROR,
                   f"The text runs the container with Docker Desktop (\"{said[:140]}\"): Docker Desktop starts "
                   "containers inside its own virtual machine, which has no /dev/kfd or /dev/dri/renderD* of the "
                   "host, so a ROCm container gets no AMD GPU device (rocminfo lists no GPU agent, HIP counts none).",
                   "On Linux run ROCm containers with the Docker Engine itself (quit Docker Desktop, `docker context "
                   "use default`, or uninstall it and install docker-ce), passing --device=/dev/kfd --device=/dev/dri "
                   "and the render / video groups.",
                   said[:200], "gpu")


def _intel_gpus(facts: Dict[str, Any], lines: Dict[str, str]) -> List[Gpu]:
    """The Intel GPUs a text names: a line's Arc model or PCI id (evidence ``intel-gpu-named``), a report's Intel GPU."""
    out: List[Gpu] = []
    named = _split(lines.get("intel-gpu-named"))
    if named:
        out.append(Gpu(None, None, device_id=named[0]) if named[0].startswith("0x") else Gpu(None, named[0]))
    for g in facts.get("gpus") or []:
        if isinstance(g, dict) and str(g.get("vendor") or "").lower() == "intel" and (g.get("name") or g.get("device_id")):
            out.append(Gpu(None, g.get("name"), device_id=g.get("device_id")))
    return out


#: Canonical's Intel enablement kernels ("6.11.0-1005-intel", Ubuntu's linux-intel): they carry Intel's GPU
#: enablement ahead of the upstream release (a B580 driven by xe on one, canonical/intel-graphics-preview#14), so
#: their release says nothing of the upstream floor, like Intel's i915 backport
_ENABLEMENT_KERNEL = re.compile(r"(?i)\d-intel$")


def intel_kernel_too_old(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    kernel = _split(lines.get("linux-kernel"))
    if matrix is None or kernel is None or lines.get("i915-backport") or _ENABLEMENT_KERNEL.search(kernel[0]):
        return None
    if any(isinstance(g, dict) and str(g.get("vendor") or "nvidia").lower() == "nvidia" and g.get("name")
           and not _NOT_NVIDIA.search(str(g["name"])) for g in facts.get("gpus") or []):
        return None  # an NVIDIA GPU in the text's report: which GPU failed is not the Intel one's to say
    if lines.get("nvidia-smi") or any(_NVIDIA_NAME.search(n) and not _NOT_NVIDIA.search(n)
                                      for n in (lines.get("gpu-prose") or "").split("|")):
        return None  # (attack46) nvidia-smi's output or failure, or an NVIDIA GPU a sentence names: likewise
    have = version_tuple(kernel[0].split("-")[0].split("+")[0])
    if have is None:
        return None
    rows = matrix.rows("xpu", "intel_kernel")
    floors = {str(grp): r for r in rows for grp in r.get("groups") or []}
    # a GPU named by its family's code name only ("Battlemage G21 [Intel Graphics]", lspci): the floor of the row
    # that gives that code name
    named = {str(c).lower(): r for r in rows for c in r.get("codenames") or []}
    for gpu in _intel_gpus(facts, lines):
        row = floors.get(intel_gpu_group(matrix, gpu) or "") or named.get(str(gpu.name or "").lower())
        need = version_tuple(str(row.get("min_kernel"))) if row else None
        if row is None or need is None or have[:2] >= need[:2]:
            continue
        what = gpu.name or f"the Intel GPU with PCI id {gpu.device_id}"
        return Finding("driver-too-old", Severity.ERROR,
                       f"{what} ({row.get('family')}) needs Linux {row.get('min_kernel')} or newer for its kernel "
                       f"driver, and the text's kernel is {kernel[0]}: the kernel's i915 / xe driver is older than the "
                       "GPU, so Level Zero / OpenCL (oneAPI, PyTorch XPU, OpenVINO's GPU plugin) find no usable device or "
                       f"fail on it ({row.get('source')}).",
                       f"Boot a Linux {row.get('min_kernel')} or newer kernel (a distribution's HWE / newer kernel "
                       "package, or the kernel Intel's client GPU installation guide gives for the distribution), "
                       "or install Intel's kernel driver backport for this kernel where Intel's guide offers one; "
                       "then check that `sycl-ls` or `clinfo -l` lists the GPU.",
                       f"{kernel[1][:120]} | {(lines.get('intel-gpu-named') or what)[:120]}", "driver")
    return None


#: (vendor41) a Windows machine stated: an issue form's / report's operating system, or the Python's platform
_WINDOWS = re.compile(r"(?i)^\s{0,3}(?:microsoft\s)?windows(?![a-z])|^win32$")
#: (vendor41) a build meant for an AMD GPU on Windows whose torch is a CUDA build on purpose (ZLUDA), or another backend
#: (DirectML, Vulkan): a CPU fall-back there is not the build's vendor
_OWN_BACKEND = re.compile(r"(?i)zluda|directml|vulkan")


def amd_windows_cpu_fallback(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """vendor41: a text about an AMD GPU on Windows (its form's or report's operating system, or the Python's
    platform, with an AMD GPU in the report or a ROCm / Radeon line) says the program ran without the GPU (evidence
    ``cuda-unreached``: "still falls back to CPU, does not detect my GPU", invoke-ai/InvokeAI#9321 on a Radeon AI PRO
    R9700 with Invoke's launcher; the maintainer: "There is no official Windows AMD support"). The launcher or web UI
    installs the torch of PyTorch's own indexes, whose ROCm builds are Linux's only (contract §9: a Windows AMD plan is
    not satisfiable), so a CUDA or CPU build runs on the AMD machine: ``framework-vendor-mismatch``. Not where the text
    shows a ROCm build of torch, ZLUDA, DirectML or Vulkan (a backend chosen for the AMD GPU), nor an NVIDIA GPU."""
    said = lines.get("cuda-unreached")
    if not said or _nvidia_named(facts, lines):
        return None
    if not (_WINDOWS.search(lines.get("os") or "") or _WINDOWS.search(lines.get("python-platform") or "")):
        return None
    amd_gpu = str(facts.get("vendor") or "").lower() == "amd" or any(
        isinstance(g, dict) and str(g.get("vendor") or "").lower() == "amd" for g in (facts.get("gpus") or []))
    if not (amd_gpu or _amd_text(lines, said)):
        return None
    torch = ((facts.get("frameworks") or {}).get("torch") or {}) if isinstance(facts.get("frameworks"), dict) else {}
    if "rocm" in str(torch.get("version") or "").lower() or any(_OWN_BACKEND.search(str(v)) for v in lines.values()):
        return None
    return Finding("framework-vendor-mismatch", Severity.ERROR,
                   f"The text shows an AMD GPU on Windows and the program running without it (\"{said[:140]}\"): "
                   "PyTorch's own wheel indexes publish ROCm builds of torch for Linux only, so a launcher or web UI "
                   "that installs torch from them puts a CUDA or CPU build on this machine, which cannot use the AMD GPU.",
                   "Run it on Linux (or WSL 2 where AMD supports the GPU there) with a ROCm build of torch from PyTorch's "
                   "ROCm index, or use AMD's own ROCm build of torch for Windows where AMD's ROCm documentation lists "
                   "the GPU, or the program's own AMD backend on Windows (ZLUDA, DirectML) where it has one.",
                   said[:200], "framework")


def zluda_adrenalin_broken(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """r2amd: the text names ZLUDA (evidence ``zluda-named``) and a release of AMD's Windows driver (evidence
    ``adrenalin-driver:RELEASE``) that compat_matrix/rocm.toml ``[[zluda_adrenalin]]`` lists as breaking ZLUDA (Adrenalin
    25.5.1: torch on ZLUDA finds no CUDA device, "RuntimeError: CUDA unknown error", lshqqytiger/ZLUDA#106, vosen/ZLUDA
    pull request #366): ``known-bad-combination`` (the driver and ZLUDA each fine apart). A release the table does not
    list decides nothing; not where the text names an NVIDIA GPU."""
    if matrix is None or not lines.get("zluda-named") or _nvidia_named(facts, lines):
        return None
    broken = {str(r.get("adrenalin")): r for r in matrix.rows("rocm", "zluda_adrenalin")}
    said = [_split(v) for k, v in lines.items() if k.startswith("adrenalin-driver:") and k.split(":", 1)[1] in broken]
    got = next((x for x in said if x is not None), None)
    if got is None:
        return None
    release, line = got
    row = broken[release]
    fixed = version_tuple(str(row.get("zluda_fixed") or ""))
    if fixed and any((version_tuple(k.split(":", 1)[1]) or ()) >= fixed for k in lines if k.startswith("zluda-version:")):
        return None  # attack56: the text names a ZLUDA release that works with this driver (lshqqytiger/ZLUDA#109)
    good = f" (the last release that worked: {row['last_good']})" if row.get("last_good") else ""
    return Finding("known-bad-combination", Severity.ERROR,
                   f"The text names AMD's Windows driver {release} with ZLUDA (\"{line[:140]}\"): this Adrenalin release "
                   f"breaks ZLUDA{good}: torch on ZLUDA finds no CUDA device (\"CUDA unknown error\" at start) while HIP "
                   f"still lists the GPU ({row.get('source')}).",
                   f"Install the Adrenalin release before it{' (' + str(row['last_good']) + ')' if row.get('last_good') else ''} "
                   "(AMD's previous-drivers page; a clean install with AMD's cleanup utility), or update ZLUDA (and the "
                   "web UI's ZLUDA files) to a release that works around this driver.",
                   line[:200], "driver")


def findings(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> List[Finding]:
    """Every finding of this module for one text, best first."""
    from envcheck.engine.ollama_amd import ollama_target_missing

    # amd42: Ollama's own ROCm build lacking the GPU's target (by release and platform) first: it names the build
    out = [ollama_target_missing(matrix, facts, lines), amd_gpu_unsupported(matrix, facts, lines),
           amd_gpu_asked(matrix, facts, lines),
           apple_python_x86(matrix, facts, lines),
           cuda_only_other_vendor(facts, lines), amd_windows_cpu_fallback(facts, lines), amd_root_only(facts, lines),
           amd_docker_desktop(facts, lines),
           intel_kernel_too_old(matrix, facts, lines), zluda_adrenalin_broken(matrix, facts, lines)]
    return [f for f in out if f is not None]
