"""`envcheck explain` on issue 20's log families in the wordings of the 2024-2026 era (tests/data/logs/logs20j; its
README lists file, label and source), and on their neighbours that must keep their own ids or say nothing:

* ``gpu-arch-unsupported``: RTX 50xx / B200 against torch, vLLM, SGLang (sgl_kernel, FlashInfer), flash-attn and
  xformers builds without sm_100/sm_120, and NCCL's "Cuda failure 'named symbol not found'" (an NCCL built without the
  GPU's architecture: new rule);
* ``driver-too-old``: Ollama's "your nvidia driver is too old or missing" (new rule) and its Windows nvcuda.dll
  "symbol lookup for cuCtxCreate_v3 failed" (a widened rule), CUDA 13 / container images on older drivers;
* ``cuda-toolkit-mismatch``: nvcc's "Unsupported gpu architecture 'compute_100a'" quoted without its "nvcc fatal :"
  prefix (a widened rule), ptxas / nvcc older than Blackwell;
* and the families the rules already read in these new wordings (libnvJitLink undefined symbols of the pip CUDA wheels,
  cuDNN 9 sub-libraries, error 804, extension ABI mismatches, JAX/TF cuDNN checks), beside healthy vLLM, SGLang, NCCL,
  Ollama, torch.compile and TensorFlow start-up logs (GB10's 12.1 capability warning included).

The held-back part (heldout/logs20j, split by `scripts/split_log_batch.py logs20j 20261129 0.3 --healthy-apart` before any rule) is scored by scripts/score_explain.py,
never asserted here."""

import os
import sys

import pytest

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (  # noqa: E402
    HELDOUT, LOGS, assert_leads_with_own_fix, check_dev_log, check_literals_hold,
    check_log_batch, errors_section_names, log_readme_rows, read_text_file, top_match,
)

DEV = os.path.join(LOGS, "logs20j")
HELD = os.path.join(HELDOUT, "logs20j")
DEV_ROWS = log_readme_rows(DEV)
#: dev logs the rules do not get right, and what explain says instead (each asserted: a change shows here)
KNOWN_MISSES = {
    # an old bitsandbytes on Windows loads its CPU library; its "libcuda.so not found! Do you have a CUDA driver
    # installed?" (a Linux file name, never there on Windows) reads as no driver, and that line alone cannot tell
    "bnb-1568-win-cpu-library-winerror-193.log": "no-gpu-driver",
}
NEW_SIGNATURES = ("ollama-nvidia-driver-too-old-or-missing", "nccl-cuda-failure-named-symbol-not-found",
                  "cudnn-sublibrary-loading-failed", "nvml-driver-not-loaded",
                  "triton-bundled-ptxas-blackwell-exit-255")


def _read(name, folder=DEV):
    return read_text_file(folder, name)


_top = top_match


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    check_log_batch(DEV, HELD, min_dev=45, min_held=20, min_total=70, min_healthy=15)


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(name, label, source):
    check_dev_log(DEV, name, label, KNOWN_MISSES)


@pytest.mark.parametrize("name,signature", [
    ("ollama-6604-win-cuctxcreate-v3-driver-too-old.log", "ollama-libcuda-symbol-lookup-failed"),
    ("nccl-1372-built-sm80-on-h100-named-symbol.log", "nccl-cuda-failure-named-symbol-not-found"),
    ("jetson-containers-1186-compute-100a-cu126.log", "nvcc-unsupported-gpu-architecture"),
    ("nvidia-cosmos-75-transformer-engine-sublibrary-loading-failed.log", "cudnn-sublibrary-loading-failed"),
    ("gpustat-110-pynvml-driver-not-loaded.log", "nvml-driver-not-loaded"),
    ("fish-speech-907-rtx5090-inductor-ptxas-sm120.log", "triton-bundled-ptxas-blackwell-exit-255"),
    ("rlinf-92-rtx5090-triton-ptxas-sm120-exit-255.log", "triton-bundled-ptxas-blackwell-exit-255"),
])
def test_each_new_wording_leads_with_its_own_fix(name, signature):
    """The top match's evidence is the new (or widened) wording's line and its own fix comes first."""
    assert_leads_with_own_fix(explain_text(_read(name)), signature)


def test_the_messages_own_values_are_in_the_captures():
    assert _top(_read("rlinf-92-rtx5090-triton-ptxas-sm120-exit-255.log")).captures.get("sm") == "sm_120"
    assert _top(_read("jetson-containers-1186-compute-100a-cu126.log")).captures.get("sm") == "compute_100a"


@pytest.mark.parametrize("line,cause", [
    # Ollama's line alone (Linux path), without the upgrade sentence
    ('time=2024-08-01T10:00:00.000Z level=DEBUG source=gpu.go:537 msg="Unable to load cudart" '
     'library=/usr/lib/ollama/libcudart.so.12.4.99 error="your nvidia driver is too old or missing"', "driver-too-old"),
    # NCCL's other call site and an RTX 50xx with an NCCL built with CUDA 11.8
    ("4d1a2ae696c8:50555:50555 [0] NCCL WARN Cuda failure 'named symbol not found'", "gpu-arch-unsupported"),
    # nvcc's sentence quoted inside a CMake error, no "nvcc fatal :" in the line
    ("CMake Error: The CUDA compiler failed: Unsupported gpu architecture 'compute_120'", "cuda-toolkit-mismatch"),
    # the widened Ollama line on Windows with another driver-API symbol
    ('time=2024-09-03T16:36:00.677+08:00 level=INFO source=gpu.go:568 msg="unable to load cuda driver library" '
     'library=C:\\\\WINDOWS\\\\system32\\\\nvcuda.dll error="symbol lookup for cuMemGetInfo_v2 failed"',
     "driver-too-old"),
    # NVML's C wording of the same answer, and torch's form of cuDNN's sub-library status
    ("Failed to initialize NVML: Driver Not Loaded", "no-gpu-driver"),
    ("RuntimeError: CUDNN_BACKEND_TENSOR_DESCRIPTOR cudnnFinalize failedptrDesc->finalize() cudnn_status: "
     "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED", "cudnn-missing"),
])
def test_other_versions_of_the_same_wordings(line, cause):
    m = _top(line)
    assert m is not None and m.id == cause, m and (m.id, m.evidence)


# -- the neighbours: what must stay silent or keep its own id ----------------------------------------------------------
@pytest.mark.parametrize("text", [
    # "named symbol not found" of another program than NCCL (a project's own kernel lookup): not NCCL's build
    "amrex::Abort::0::GPU last error detected in file AMReX_GpuLaunchFunctsG.H line 885: named symbol not found !!!",
    # NCCL INFO lines of a healthy start-up
    "node:1:1 [0] NCCL INFO cudaDriverVersion 12060\nNCCL version 2.21.5+cuda12.4\nnode:1:2 [0] NCCL INFO Using network IB",
    # "unsupported gpu architecture" in prose, no quoted architecture
    "Is an unsupported GPU architecture the reason my old card is slow?",
    # Ollama's probe line with another error text
    'msg="Unable to load cudart" library=/usr/lib/ollama/libcudart.so.12 error="cudart init failure: 100"',
    # Triton's bundled ptxas failing for a pre-Blackwell target (a kernel's own compile error, not the ptxas's age)
    "subprocess.CalledProcessError: Command '['/venv/lib/python3.10/site-packages/triton/backends/nvidia/bin/ptxas', "
    "'-lineinfo', '-v', '--gpu-name=sm_90a', '/tmp/x.ptx', '-o', '/tmp/x.ptx.o']' returned non-zero exit status 255.",
    # a CUDA toolkit's own ptxas (not Triton's copy) that failed for sm_120
    "Command '/usr/local/cuda-12.8/bin/ptxas -v --gpu-name=sm_120 /tmp/y.ptx -o /tmp/y.o' returned non-zero exit "
    "status 255.",
    # the GB10 (12.1) capability note of torch, which the maintainers call harmless
    "Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum cuda capability supported by this "
    "version of PyTorch is (8.0) - (12.0)",
])
def test_neighbours_say_nothing_of_these_causes(text):
    ms = explain_text(text)
    assert not any(m.id in ("driver-too-old", "gpu-arch-unsupported", "cuda-toolkit-mismatch") for m in ms), \
        [(m.id, m.evidence) for m in ms]


def test_cudnn_s_sublibrary_statuses_keep_their_own_causes():
    """A sub-library that does not load is a missing cuDNN piece; a sub-library of another release (the bundled cuDNN
    mixed with a system copy) keeps its own reading, and NVML's other errors are not a stopped driver."""
    assert _top("cudnn_status: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH").id != "cudnn-missing"
    unknown = explain_text("Failed to initialize NVML: Unknown Error")
    assert not any(m.id == "no-gpu-driver" for m in unknown), [(m.id, m.evidence) for m in unknown]


def test_every_new_signature_has_a_literal_its_matches_hold():
    """Each new rule sits behind its literal (the prefilter): every dev line a signature matches holds one of its
    literals (lower-cased). Only Triton's ptxas line needed a new cover anchor (its literal "--gpu-name=sm_1" until
    logs20s put the shorter anchor "sm_", which also holds ptxas's "requires .target sm_", in its place)."""
    names = errors_section_names("-- logs20j (issue 20): wordings of the 2024-2026 era",
                                 "\n# 2026-11-27 (lead)")  # the section after it
    assert names == set(NEW_SIGNATURES)
    # every literal holds an existing anchor (see tests/test_explain_families.py::test_prefilter_is_sound)
    seen = check_literals_hold(names, [ln for r in DEV_ROWS for ln in _read(r[0]).splitlines()])
    assert seen == names
