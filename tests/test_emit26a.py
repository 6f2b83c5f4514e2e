"""`envcheck explain` on batch emit26a (issue 20): real posted lines of NVIDIA-side emitters' messages that state an
environment cause, found from an inventory of each emitter's format strings (heldout/rounds/emit26a-inventory.md:
PyTorch / Triton, TensorFlow / XLA, JAX, ONNX Runtime, bitsandbytes, xformers, flash-attention, vLLM, apex, CuPy,
numba, Paddle, TensorRT). tests/data/logs/emit26a is the working part; the held-back part (heldout/emit26a-held, split
by scripts/split_log_batch.py before any rule) is scored by scripts/score_explain.py, never asserted here.

The strings explain did not read led to signatures written from the format strings (errors.toml, block ``emit26a``):

* TensorFlow's "was not built with CUDA kernel binaries compatible with compute capability X.Y" (a weak wording: the
  run may go on, slowly) is gpu-arch-unsupported;
* XLA's "XLA requires ptxas version 11.8 or higher", as TensorFlow's op kernel logs it, is cuda-toolkit-mismatch;
* TensorRT's "Error Code 2: OutOfMemory" is gpu-out-of-memory;
* GNU ld's "cannot find -lcuda: No such file or directory" (Triton's launcher link) is no-gpu-driver, as Triton's own
  "libcuda.so cannot found!";
* cuDNN 9's "Invalid handle. Cannot load symbol cudnn..." is cudnn-missing (a cuBLAS symbol is not);
* Paddle's "The device should not be 'gpu', since PaddlePaddle is not compiled with CUDA" is framework-cpu-only.

Two strings got no rule after the other sets were scored: numba's "Call to cuInit results in CUDA_ERROR_UNKNOWN" (the
contract's no-gpu-visible) is labelled none in logs21t (numba#8638, a title and a conda list), and Paddle's "Compiled
with WITH_GPU, but no GPU found in runtime." is printed where the driver is too old too (pastes20c paddle-52100).
"""

import os
import sys

import pytest

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import assert_top_is_label, check_log_batch, check_batch_threads_new, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
BATCH = "emit26a"
DEV = os.path.join(HERE, "data", "logs", BATCH)
HELD = os.path.join(ROOT, "heldout", BATCH + "-held")
DEV_ROWS = log_readme_rows(DEV)
#: dev logs explain does not get right, and what it says instead (each asserted: a change shows here):
#: * numba/numba#2688: numba's cuInit CUDA_ERROR_UNKNOWN got no rule (the same wording is labelled none in logs21t's
#:   numba#8638: that set and the contract's no-gpu-visible disagree; left to the lead);
#: * state-spaces/mamba#123 keeps only the title "/usr/bin/ld: cannot find -lcuda": binutils before 2.39 print no
#:   ": No such file or directory" after it, and that bare line holds no prefilter anchor (the cover list is at its
#:   bound of 100);
#: * PaddlePaddle/PaddleGAN#243 is an Apple M1 MacBook (its prose "Macbookpro M1" says so): since session 25 (apple42)
#:   its /Users/ paths make it a Mac, so Paddle's "not compiled with CUDA" reads as framework-vendor-mismatch (a CUDA
#:   build asked of a Mac, the convention of later sets) - still not this set's label (none), kept as the known miss.
KNOWN_MISSES = {"numba-2688-cudaapierror-999-call-to-cuinit-results-in-cuda-error-unknown.log": None,
                "mamba-123-triton-ld-cannot-find-lcuda-ldconfig.log": None,
                "paddlegan-243-macbook-m1-set-device-gpu-paddle-not-compiled-with-cuda.log": "framework-vendor-mismatch"}


def _read(name, folder=DEV):
    with open(os.path.join(folder, name), encoding="utf-8") as fh:
        return fh.read()


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    check_log_batch(DEV, HELD, min_dev=13, min_held=8, min_total=21, min_none=1, held_listed=True)


def test_no_thread_is_in_the_batch_nor_in_an_earlier_set():
    check_batch_threads_new(DEV_ROWS, HELD, BATCH)


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(name, label, source):
    assert_top_is_label(explain_text(_read(name)), name, label, KNOWN_MISSES)


@pytest.mark.parametrize("line,cc", [
    # tensorflow/tensorflow#62320 (dev log): TF 2.15rc0 on H100s
    ('I do get the warning "TensorFlow was not built with CUDA kernel binaries compatible with compute capability 9.0. '
     'CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer."', "9.0"),
    # a write-up's log on a Blackwell GPU, with the arch-specific suffix of TF 2.20+ (find_string id 67357461479)
    ("W0000 00:00:1768485309.633310     549 gpu_device.cc:2459] TensorFlow was not built with CUDA kernel binaries "
     "compatible with compute capability 12.0a. CUDA kernels will be jit-compiled from PTX, which could take 30 "
     "minutes or longer.", "12.0"),
])
def test_tf_build_without_kernels_for_the_gpu_is_the_arch_unsupported(line, cc):
    matches = explain_text(line)
    assert [m.id for m in matches] == ["gpu-arch-unsupported"]
    assert matches[0].captures.get("cc") == cc


def test_the_tf_jit_warning_is_weaker_than_a_failure_beside_it():
    # two real dev logs of this batch one after the other: TF's warning (tensorflow-62320), then TensorRT's
    # out-of-memory error (deepstream-yolo-366): the failure decides, the warning is a weak wording
    text = (_read("tensorflow-62320-8xh100-tf2.15-not-built-with-kernel-binaries-cc-9.0.log")
            + _read("deepstream-yolo-366-trt-resizephysical-error-code-2-outofmemory-workspace.log"))
    assert explain_text(text)[0].id == "gpu-out-of-memory"


def test_xla_ptxas_minimum_names_the_version():
    line = _read("tensorflow-66716-a100-tf2.16-xla-requires-ptxas-11.8-or-higher.log").splitlines()[1]
    matches = explain_text(line)
    assert [m.id for m in matches] == ["cuda-toolkit-mismatch"]
    assert matches[0].captures.get("min_ptxas") == "11.8"
    assert any("ptxas" in f for f in matches[0].fixes)


@pytest.mark.parametrize("line", [
    # triton-lang/triton#3053: a conda toolchain's linker
    "../x86_64-conda-linux-gnu/bin/ld: cannot find -lcuda: No such file or directory",
    # vllm-project/vllm#16984 (dev log)
    "/usr/bin/ld: cannot find -lcuda: No such file or directory",
])
def test_the_linker_missing_libcuda_is_the_driver_library_unreachable(line):
    matches = explain_text(line)
    assert [m.id for m in matches] == ["no-gpu-driver"]
    assert "TRITON_LIBCUDA_PATH" in matches[0].fixes[0]


@pytest.mark.parametrize("line,cause", [
    # runpod-workers/worker-faster_whisper#52 (tests/data/logs/new)
    ("Invalid handle. Cannot load symbol cudnnCreateTensorDescriptor", "cudnn-missing"),
    # a setup script's note of a cuBLAS Lt mismatch (find_string id 57100988888): no cuDNN cause
    ('# "Invalid handle. Cannot load symbol cublasLtCreate".', None),
])
def test_cudnn9_invalid_handle_is_cudnn_missing_only_for_a_cudnn_symbol(line, cause):
    got = [m.id for m in explain_text(line)]
    if cause:
        assert got == [cause]
    else:
        assert "cudnn-missing" not in got


def test_tensorrt_out_of_memory_is_gpu_out_of_memory_with_its_own_fix():
    matches = explain_text(_read("comfyui-upscaler-trt-49-trt-10.9-resizephysical-outofmemory-requested-size.log"))
    assert matches[0].id == "gpu-out-of-memory"
    assert "TensorRT" in matches[0].fixes[0]


def test_paddle_cpu_build_asked_for_gpu_is_the_cpu_only_build():
    matches = explain_text(_read("paddleclas-3170-paddlepaddle-beside-paddlepaddle-gpu-set-device-not-compiled-with-"
                                 "cuda.log"))
    assert matches[0].id == "framework-cpu-only"
    assert "paddlepaddle-gpu" in matches[0].fixes[0]
