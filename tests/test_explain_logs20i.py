"""`envcheck explain` on issue 20's log families in wordings of projects and versions not yet in the sets
(tests/data/logs/logs20i; its README lists file, label and source), and on their neighbours that must keep their own
ids or say nothing:

* ``cudnn-missing``: cuDNN 8's "Could not locate zlibwapi.dll. Please make sure it is in your library path!" (Windows:
  zlib's DLL, a dependency cuDNN does not ship) in Paddle, darknet, TensorRT, ONNX Runtime programs;
* ``driver-too-old``: TensorRT's "CUDA initialization failure with error[:] 35. Please check [your] CUDA installation"
  (35 is cudaErrorInsufficientDriver; other numbers are other causes), an old libcuda without a driver-API symbol the
  program calls (Ollama's "undefined symbol: cuCtxCreate_v3" and its own "unable to load cuda driver library" line);
* ``cuda-toolkit-mismatch``: nvcc's "Value 'sm_89' is not defined for option 'gpu-architecture'";
* ``cuda-runtime-missing``: JAX's "CUDA backend failed to initialize: Unable to load CUDA.";
* ``driver-too-old`` (added after the held-out scoring): Ollama's "Unable to load cudart ... library ...: cudart init
  failure: 35";
* ``cuda-toolkit-mismatch`` (added after the held-out scoring, from dev logs collected then): XLA's checks of the ptxas
  it runs ("ptxas ptxas too old. Falling back to the driver", "You are using ptxas 11.0.221, which is older than 11.1");
* and the families the rules already read in these new wordings (TF 1.x cuInit, cudaGetDevice's status 35, MXNet's
  storage check, Paddle's cuDNN warning, apex and DeepSpeed toolkit checks, vLLM's bfloat16 floor, bitsandbytes'
  CPU library on Windows, cuDNN NOT_SUPPORTED), beside healthy NCCL / TF / llama.cpp / Ollama start-up logs.

The held-back part (heldout/logs20i, split by `scripts/split_log_batch.py logs20i 20261128 0.3 --healthy-apart` before any rule) is scored by scripts/score_explain.py,
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

DEV = os.path.join(LOGS, "logs20i")
HELD = os.path.join(HELDOUT, "logs20i")
DEV_ROWS = log_readme_rows(DEV)
#: dev logs the rules do not get right, and what explain says instead (each asserted: a change shows here)
KNOWN_MISSES = {
    # bitsandbytes' CPU library on a Mac (no NVIDIA GPU): since session 25 (apple42) its /Users/ paths make it a Mac,
    # so the build's "compiled without GPU support" reads as framework-vendor-mismatch, still not this set's label (none)
    "bnb-853-macos-compiled-without-gpu-support.log": "framework-vendor-mismatch",
    # TensorFlow's start-up probe alone (libcuda.so.1 dlerror, cuInit 303; "TF runs on the CPU"): relabelled none by
    # quiet38. The line matcher (explain_text) still reads its lines as no-gpu-driver; `envcheck explain` drops them
    # where nothing in the text shows a GPU wanted or present (engine/report.py tf_probe_unwanted, asserted in
    # tests/test_quiet38.py)
    "chiron-99-libcuda-so1-cuinit-303.log": "no-gpu-driver",
    # (tensorrtx-685, TensorRT's error 35 with its "Please check your CUDA installation" on the next line, was a miss
    # here until logs20s made "initialization failure" a prefilter anchor: the number's line alone is read now)
}
NEW_SIGNATURES = ("cudnn-windows-zlibwapi-missing", "tensorrt-cuda-init-failure-35", "libcuda-undefined-driver-api-symbol",
                  "ollama-libcuda-symbol-lookup-failed", "nvcc-value-not-defined-gpu-architecture",
                  "jax-unable-to-load-cuda", "xla-ptxas-too-old", "ollama-cudart-init-failure-35",
                  "jax-rocm-platform-probe-on-cuda")


def _read(name, folder=DEV):
    return read_text_file(folder, name)


_top = top_match


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    check_log_batch(DEV, HELD, min_dev=55, min_held=25, min_total=80, min_healthy=15)


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(name, label, source):
    check_dev_log(DEV, name, label, KNOWN_MISSES)


@pytest.mark.parametrize("name,signature", [
    ("paddleocr-8400-zlibwapi-ppocrlabel.log", "cudnn-windows-zlibwapi-missing"),
    ("darknet-8551-zlibwapi-cudnn-8.4.1.log", "cudnn-windows-zlibwapi-missing"),
    ("trt-yolov3-61-cuda-init-failure-35-driver-384.log", "tensorrt-cuda-init-failure-35"),
    ("edgeptychonn-5-trt-apiusageerror-cuda-init-35.log", "tensorrt-cuda-init-failure-35"),
    ("onnx-tensorrt-91-onnx2trt-cuda-init-failure-35.log", "tensorrt-cuda-init-failure-35"),
    ("ollama-5493-libcuda-418-cuctxcreate-v3.log", "libcuda-undefined-driver-api-symbol"),
    ("ollama-6626-libcuda-460-cuctxcreate-v3.log", "ollama-libcuda-symbol-lookup-failed"),
    ("pycuda-437-clean-install-sm89-gpu-architecture.log", "nvcc-value-not-defined-gpu-architecture"),
    ("mt3-145-jax-cuda-backend-failed-unable-to-load-cuda.log", "jax-unable-to-load-cuda"),
    ("openxla-5932-h800-ptxas-does-not-support-cc-9.0.log", "xla-ptxas-too-old"),
    ("flax-2249-kaggle-ptxas-11.0.221-older-than-11.1.log", "xla-ptxas-too-old"),
    ("ollama-8151-ppc64le-cudart-init-failure-35.log", "ollama-cudart-init-failure-35"),
])
def test_each_new_wording_leads_with_its_own_fix(name, signature):
    """The top match's evidence is the new wording's line and its own fix comes first (the cause's general fixes
    follow)."""
    assert_leads_with_own_fix(explain_text(_read(name)), signature)


def test_the_messages_own_values_are_in_the_captures():
    assert _top(_read("ollama-5493-libcuda-418-cuctxcreate-v3.log")).captures.get("symbol") == "cuCtxCreate_v3"
    assert _top(_read("pycuda-437-clean-install-sm89-gpu-architecture.log")).captures.get("sm") == "sm_89"
    xla = _top(_read("jax-10083-ptxas-9.2.148-older-than-11.1.log")).captures
    assert (xla.get("ptxas"), xla.get("min_toolkit")) == ("9.2.148", "11.1")


@pytest.mark.parametrize("line,cause", [
    # TensorRT 5-8.5's older spelling ("Cuda", no colon, "check cuda installation")
    ("[E] [TRT] Cuda initialization failure with error 35. Please check cuda installation:  "
     "http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html.", "driver-too-old"),
    # a compute_XX value in the same nvcc sentence
    ("nvcc fatal   : Value 'compute_90' is not defined for option 'gpu-architecture'", "cuda-toolkit-mismatch"),
    # JAX's other ending of the same sentence
    ("RuntimeError: Unable to initialize backend 'cuda': Unable to load CUDA. Is it installed?", "cuda-runtime-missing"),
    # Ollama's later wording of its cudart probe (Windows)
    ('time=2025-03-05T11:57:30.889+10:00 level=DEBUG source=gpu.go:574 msg="Unable to load cudart library '
     'C:\\\\Users\\\\x\\\\cuda_v12\\\\cudart64_12.dll: cudart init failure: 35"', "driver-too-old"),
    # another driver-API symbol missing from an old libcuda (a runtime built for a newer CUDA)
    ("dlerr: /usr/lib/x86_64-linux-gnu/libcuda.so.1: undefined symbol: cuGetProcAddress_v2", "driver-too-old"),
])
def test_other_versions_of_the_same_wordings(line, cause):
    m = _top(line)
    assert m is not None and m.id == cause, m and (m.id, m.evidence)


# -- the neighbours: what must stay silent or keep its own id ----------------------------------------------------------
@pytest.mark.parametrize("text", [
    # TensorRT's init failure with another number (2 = cudaErrorMemoryAllocation; 100 = no device): not the driver's age
    "CUDA initialization failure with error 2. Please check your CUDA installation",
    # an undefined symbol in another library than libcuda (the symbol is cuDNN's or torch's concern, not the driver's)
    "ImportError: /opt/venv/lib/libfoo.so: undefined symbol: cuModuleLoad_v2",
    # zlibwapi.dll named in prose, no cuDNN message
    "I copied zlibwapi.dll into the CUDA bin folder and it works now.",
    # Ollama's cudart probe with another number (100: no device; Windows paths)
    'msg="Unable to load cudart library C:\\\\Users\\\\x\\\\cuda_v12\\\\cudart64_12.dll: cudart init failure: 100"',
    # "which is older than" in another sentence than XLA's ptxas check
    "Your NVIDIA driver 470, which is older than the recommended 535, still works for this release.",
    # KataGo's 32-bit zlibwapi.dll (error code 193: the wrong architecture, not a missing file): not this wording
    "Could not load library zlibwapi.dll. Error code 193. Please verify that the library is built correctly for your "
    "processor architecture (32-bit, 64-bit)",
])
def test_neighbours_say_nothing_of_these_causes(text):
    ms = explain_text(text)
    assert not any(m.id in ("driver-too-old", "cudnn-missing", "cuda-toolkit-mismatch") for m in ms), \
        [(m.id, m.evidence) for m in ms]


def test_every_new_signature_has_a_literal_its_matches_hold():
    """Each new rule sits behind its literal (the prefilter): every dev line a signature matches holds one of its
    literals (lower-cased), and no new literal needed a new cover anchor."""
    names = errors_section_names("-- logs20i (issue 20): wordings written from",
                                 "-- logs20j (issue 20): wordings of the 2024-2026 era")  # the next batch's own section
    assert names >= set(NEW_SIGNATURES)
    assert check_literals_hold(names, [ln for r in DEV_ROWS for ln in _read(r[0]).splitlines()]) == names


def test_jax_s_rocm_probe_on_a_cuda_machine_is_no_amd_host():
    """JAX logs "Unable to initialize backend 'rocm' ... Available platform names are: Interpreter Host CUDA" on every
    NVIDIA machine (the dev control alphafold_non_docker#68): beside a CPU jaxlib's "No GPU/TPU found" (the dev log
    min-dalle#22) it must not turn the CPU-jaxlib reading into an AMD host's framework-vendor-mismatch."""
    probe = _read("healthy-alphafold-nd-68-jax-backend-probe-rocm-tpu.log")
    cpu = _read("min-dalle-22-absl-no-gpu-tpu-interpreter.log")
    assert _top(cpu).id == "framework-cpu-only"
    ms = explain_text(probe + cpu)
    assert ms and ms[0].id == "framework-cpu-only", [(m.id, m.evidence) for m in ms]
    assert not any(m.id == "framework-vendor-mismatch" for m in ms)
    # ROCm named where no CUDA platform is listed still reads as an AMD host
    amd = ("rocm-smi shows the card; ROCm 6.0 is installed\n"
           "WARNING:absl:No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n")
    assert _top(amd).id == "framework-vendor-mismatch"
