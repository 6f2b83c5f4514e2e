"""`envcheck explain` on NVIDIA failure families enumerated from the emitting sources (issue 20, logs20s): bfloat16 on a
GPU before Ampere as torch's autocast, ptxas (under Triton) and TensorRT-LLM word it; Triton's module load failing with
an invalid kernel image; TensorRT's "CUDA initialization failure with error N" for N other than 35; XLA's ptxas lookup;
with healthy controls that name GPU libraries in passing (tests/data/logs/logs20s; its README lists file, label and
source). The rules written for the batch, each keyed on the emitting source's own text:

* ``gpu-arch-unsupported``: torch/amp/autocast_mode.py's "Current CUDA Device does not support bfloat16"; ptxas's
  "Feature '.bf16' requires .target sm_80 or higher" (the bfloat16 features only); TensorRT-LLM's "pre SM 80 GPUs do not
  support bfloat16";
* ``driver-too-old``: "Triton Error [CUDA]: device kernel image is invalid" (the driver refuses the cubin of the newer
  ptxas Triton bundles); TensorRT's CUDA init failure 222 (cudaErrorUnsupportedPtxVersion);
* ``no-gpu-visible``: TensorRT's CUDA init failure 100 / 38 (cudaErrorNoDevice after / before CUDA 10.1);
* ``cuda-runtime-missing``: XLA's "Failed to launch ptxas" and JAX's "Couldn't find a suitable version of ptxas".

After the blind part (heldout/logs20s-2, collected after these rules and labelled before any run) was scored, two older
rules were widened from their sources' format strings: XLA's "%s ptxas too old. Falling back to the driver to compile."
whatever the path and its "ptxas does not support CC X.Y" (xla-ptxas-too-old), and TensorRT's error 35 read from its
sentence alone (tensorrt-cuda-init-failure-35).

Four prefilter anchors changed (errors.toml's [meta] comment): "support" for "supported", "sm_", "kernel image" and
"initialization failure"; the cover list stays at its bound of 100. The held-back part (heldout/logs20s, split by
scripts/split_log_batch.py before the rules) is scored by scripts/score_explain.py, never asserted here."""

import os
import sys

import pytest

from envcheck.explain import explain_text
from envcheck.explain.kb import load_kb

sys.path.insert(0, os.path.dirname(__file__))
from helpers import COVER_BOUND, assert_leads_with_own_fix, assert_top_is_label, check_log_batch, check_section_signatures, earlier_log_threads, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
BATCH = "logs20s"
DEV = os.path.join(HERE, "data", "logs", BATCH)
HELD = os.path.join(ROOT, "heldout", BATCH)
DEV_ROWS = log_readme_rows(DEV)
#: dev logs the rules do not get right, and what explain says instead (each asserted: a change shows here).
#: jax#25718: XLA's warning about a ptxas older than CUDA 12.6.3 names a ptxas but no failure; its traceback is cut
#: before the error, and the warning holds no prefilter anchor (the cover list is at its bound)
KNOWN_MISSES = {"jax-25718-system-ptxas-12-1-before-pip-one.log": None}
NEW_SIGNATURES = ("torch-autocast-device-no-bfloat16", "ptxas-bf16-feature-needs-sm80", "trtllm-pre-sm80-no-bfloat16",
                  "triton-cuda-invalid-kernel-image", "tensorrt-cuda-init-failure-222",
                  "tensorrt-cuda-init-failure-no-device", "xla-ptxas-not-found")
#: the section of errors.toml these rules live in (other helpers append theirs after it)
SECTION = "# 2026-11-27 (logs20s)"


def _read(name, folder=DEV):
    with open(os.path.join(folder, name), encoding="utf-8") as fh:
        return fh.read()


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    check_log_batch(DEV, HELD, min_dev=28, min_held=10, min_total=38, min_healthy=8, min_none=6, held_listed=True)


def test_no_thread_is_in_the_batch_nor_in_an_earlier_set():
    urls = [r[2] for r in DEV_ROWS + log_readme_rows(HELD)]
    assert len(urls) == len(set(urls))
    assert not set(urls) & earlier_log_threads((BATCH,))


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(name, label, source):
    assert_top_is_label(explain_text(_read(name)), name, label, KNOWN_MISSES)


@pytest.mark.parametrize("name,signature", [
    ("rtg-20-autocast-bfloat16-traceback.log", "torch-autocast-device-no-bfloat16"),
    ("storm-4-title-autocast-bfloat16-p100.log", "torch-autocast-device-no-bfloat16"),
    ("gollie-5-ptxas-fatal-bf16-cvt.log", "ptxas-bf16-feature-needs-sm80"),
    ("unsloth-434-title-rtx2060-cvt-bf16-traceback.log", "ptxas-bf16-feature-needs-sm80"),
    ("triton-2971-nightly-load-binary-driver-470.log", "triton-cuda-invalid-kernel-image"),
    ("tensorrt-1052-mnist-sample-cuda-init-222-driver-450.log", "tensorrt-cuda-init-failure-222"),
    ("tensorrt-2793-orin-trtexec-cuda-init-222-cuda-118.log", "tensorrt-cuda-init-failure-222"),
    ("tensorrt-149-comment-offline-model-cuda-init-100.log", "tensorrt-cuda-init-failure-no-device"),
    ("localcolabfold-70-docker-base-couldnt-invoke-ptxas.log", "xla-ptxas-not-found"),
    ("nixpkgs-375186-jax-couldnt-find-suitable-ptxas.log", "xla-ptxas-not-found"),
])
def test_dev_logs_lead_with_their_own_fix(name, signature):
    assert_leads_with_own_fix(explain_text(_read(name)), signature)


@pytest.mark.parametrize("text,signature", [
    # torch's autocast in its newer form (the raise split over two lines, torch 2.4+), and inside a Jupyter traceback
    ("    raise RuntimeError(\nRuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to "
     "float16.", "torch-autocast-device-no-bfloat16"),
    ("--> 234 raise RuntimeError('Current CUDA Device does not support bfloat16. Please switch dtype to float16.')",
     "torch-autocast-device-no-bfloat16"),
    # ptxas's other bfloat16 features, and the nvcc form of the same error
    ("ptxas /tmp/tmpabc.ptx, line 12; error   : Feature 'cvt.rn.bf16x2.f32' requires .target sm_80 or higher",
     "ptxas-bf16-feature-needs-sm80"),
    ("ptxas /tmp/tmpxft_0001.ptx, line 5; error   : Feature 'ld.global.bf16' requires .target sm_80 or higher",
     "ptxas-bf16-feature-needs-sm80"),
    ("[TensorRT-LLM][ERROR] Assertion failed: Unsupported data type, pre SM 80 GPUs do not support bfloat16",
     "trtllm-pre-sm80-no-bfloat16"),
    # Triton's module load in torch.compile's inductor and in a vLLM worker's log prefix
    ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nRuntimeError: Triton Error [CUDA]: device "
     "kernel image is invalid", "triton-cuda-invalid-kernel-image"),
    ("ERROR 05-23 09:31:47 [core.py:396] RuntimeError: Triton Error [CUDA]: device kernel image is invalid",
     "triton-cuda-invalid-kernel-image"),
    # TensorRT 8.6+'s wording of both numbers, and its Error Code 6 form (TensorRT 8.x runtime.cpp)
    ("[TRT] [W] CUDA initialization failure with error: 222. Please check your CUDA installation:  "
     "http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html", "tensorrt-cuda-init-failure-222"),
    ("[TensorRT] INTERNAL ERROR: [runtime.cpp::isCudaInstalledCorrectly::41] Error Code 6: Internal Error (CUDA "
     "initialization failure with error 100. Please check your CUDA installation:  http://docs.nvidia.com/cuda/"
     "cuda-installation-guide-linux/index.html)", "tensorrt-cuda-init-failure-no-device"),
    ("[E] [TRT] Cuda initialization failure with error 38. Please check cuda installation:  "
     "http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html.", "tensorrt-cuda-init-failure-no-device"),
    # XLA's fatal line (TensorFlow's F-prefixed form) and JAX's lookup over its candidate paths
    ("F external/org_tensorflow/tensorflow/compiler/xla/service/gpu/nvptx_compiler.cc:435] ptxas returned an error "
     "during compilation of ptx to sass: 'INTERNAL: Failed to launch ptxas'", "xla-ptxas-not-found"),
    ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Couldn't find a suitable version of ptxas. The following "
     "locations were considered: /usr/local/cuda/bin/ptxas", "xla-ptxas-not-found"),
    # the widened older rules: XLA's status with a full ptxas path (find_string id 70110813311) and its warning with the
    # capability, and TensorRT's 35 with the line broken before "Please check"
    ("jax.errors.JaxRuntimeError: UNIMPLEMENTED: /usr/local/cuda/bin/ptxas ptxas too old. Falling back to the driver "
     "to compile.", "xla-ptxas-too-old"),
    ("W tensorflow/compiler/xla/stream_executor/gpu/asm_compiler.cc:231] Falling back to the CUDA driver for PTX "
     "compilation; ptxas does not support CC 8.9", "xla-ptxas-too-old"),
    ("[E] [TRT] CUDA initialization failure with error 35.\n Please check your CUDA installation:  "
     "http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html", "tensorrt-cuda-init-failure-35"),
])
def test_source_wordings_lead_with_their_own_fix(text, signature):
    assert_leads_with_own_fix(explain_text(text), signature)


@pytest.mark.parametrize("text", [
    # bfloat16 named where the GPU has it or where nothing failed
    "torch.cuda.is_bf16_supported(): True",
    "Current CUDA Device supports bfloat16",
    "INFO: Using bfloat16 Automatic Mixed Precision (AMP)",
    # ptxas features that are not bfloat16 (another kernel's question), and a target line that is no error
    "ptxas /tmp/x.ptx, line 9; error   : Feature 'wgmma.mma_async' requires .target sm_90a",
    "ptxas info    : Compiling entry function 'kernel' for 'sm_80'",
    # Triton on ROCm / HIP's own words are hip-error-invalid-image, and a sentence about the error is no error
    "Triton Error [HIP]: Code: 1, Messsage: invalid argument",
    # TensorRT's other numbers (2 is an allocation failure, no single cause), and its healthy init line
    "[TRT] [E] CUDA initialization failure with error 2. Please check your CUDA installation",
    "[TRT] [I] [MemUsageChange] Init CUDA: CPU +2, GPU +0, now: CPU 13227, GPU 1012 (MiB)",
    "CUDA initialization failure with error: 2220",
    # XLA's ptxas version warning and its fallback to the driver, which the run survives
    "W tensorflow/stream_executor/gpu/asm_compiler.cc:80] Couldn't get ptxas version string: Internal: Couldn't invoke "
    "ptxas --version",
    "Relying on driver to perform ptx compilation. \nModify $PATH to customize ptxas location.",
])
def test_healthy_and_unrelated_lines_stay_silent(text):
    assert explain_text(text) == []


def test_the_blind_part_is_listed_sourced_and_new():
    """heldout/logs20s-2 (collected after the rules): every log a row, every label a contract id or none, no thread of
    the batch's two parts nor of any other set; it is scored by scripts/score_explain.py, never asserted here."""
    blind = HELD + "-2"
    rows = log_readme_rows(blind)
    assert sorted(r[0] for r in rows) == sorted(f for f in os.listdir(blind) if f.endswith(".log"))
    assert len(rows) >= 12 and any(r[0].startswith("healthy-") for r in rows)
    earlier = {r[2] for r in DEV_ROWS + log_readme_rows(HELD)}
    for base in (os.path.join(HERE, "data", "logs"), os.path.join(ROOT, "heldout")):
        for folder in os.listdir(base):
            path = os.path.join(base, folder)
            if folder not in (BATCH, BATCH + "-2") and os.path.exists(os.path.join(path, "README.md")):
                earlier |= {r[2] for r in log_readme_rows(path)}
    assert len({r[2] for r in rows}) == len(rows) and not {r[2] for r in rows} & earlier


def test_the_prefilter_stays_within_its_bound_and_holds_the_replaced_literals():
    """The anchors that replaced own literals still stand for them: a line holding FlashAttention's, Triton's sm_1xx
    ptxas or CUDA's "no kernel image" wording still reaches its signature."""
    kb = load_kb()
    assert len(kb.cover) <= COVER_BOUND
    # "failure" stands for "initialization failure" since session 23 (tfcudnn38: TF's "cuDNN launch failure" too)
    for anchor in ("support", "sm_", "kernel image", "failure"):
        assert anchor in kb.cover
    for gone in ("supported", "--gpu-name=sm_1", "no kernel image is available", "only supports ampere gpus"):
        assert gone not in kb.cover
    assert explain_text("RuntimeError: FlashAttention only supports Ampere GPUs or newer.")[0].id == \
        "gpu-arch-unsupported"
    assert explain_text("RuntimeError: CUDA error: no kernel image is available for execution on the device")[0].id == \
        "gpu-arch-unsupported"


def test_new_signatures_live_in_this_section_and_hold_a_prefilter_anchor():
    check_section_signatures(SECTION, NEW_SIGNATURES)
