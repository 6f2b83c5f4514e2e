"""`envcheck explain` on batch emit27a (issue 20): real posted lines of NVIDIA-side libraries' and apps' messages that
state an environment cause, found from an inventory of each emitter's format strings (heldout/rounds/
emit27a-inventory.md, part 2 after emit26a: ggml-cuda / llama.cpp, torchvision, detectron2, the PyG extensions, mmcv,
Triton's NVIDIA backend, and the emitters whose strings explain already read). tests/data/logs/emit27a and
tests/data/logs/emit27a-2 are the working parts; the held-back parts (heldout/emit27a-held, heldout/emit27a-2-held,
each split by scripts/split_log_batch.py before its rules) are scored by scripts/score_explain.py, never asserted here.

The strings explain did not read led to signatures written from the format strings (errors.toml, block ``emit27a``):

* ggml-cuda's "CUDA kernel X has no device code compatible with CUDA arch N. ggml-cuda.cu was compiled for: LIST" and
  its older "ggml-cuda was compiled without support for the current GPU architecture." are gpu-arch-unsupported (ggml's
  "ggml was not compiled with any CUDA arch <= N" is not: a llama.cpp regression printed it on GPUs the build had);
* llama.cpp's "not compiled with GPU offload support" is framework-cpu-only, a weak wording (the run goes on);
* torchvision's "Couldn't load custom C++ ops" is extension-abi-mismatch;
* an extension's "Not compiled with GPU support" (detectron2), "Not compiled with CUDA support" (torch_scatter family)
  and mmcv's "X: implementation for device cuda:N not found" are framework-cpu-only;
* Triton's "Triton only support CUDA 10.0 or higher, but got CUDA version: X" is cuda-toolkit-mismatch.
"""

import os
import sys

import pytest

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import assert_top_is_label, check_batch_threads_new, check_log_batch, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
BATCHES = ("emit27a", "emit27a-2")
DEV = {b: os.path.join(HERE, "data", "logs", b) for b in BATCHES}
HELD = {b: os.path.join(ROOT, "heldout", b + "-held") for b in BATCHES}
DEV_ROWS = [(b, *r) for b in BATCHES for r in log_readme_rows(DEV[b])]


def _read(batch, name):
    with open(os.path.join(DEV[batch], name), encoding="utf-8") as fh:
        return fh.read()


@pytest.mark.parametrize("batch,min_dev,min_held,min_none", [("emit27a", 22, 11, 1), ("emit27a-2", 5, 2, 0)])
def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart(batch, min_dev, min_held, min_none):
    check_log_batch(DEV[batch], HELD[batch], min_dev=min_dev, min_held=min_held, min_total=min_dev + min_held,
                    min_none=min_none, held_listed=True)


@pytest.mark.parametrize("batch", BATCHES)
def test_no_thread_is_in_the_batch_nor_in_an_earlier_set(batch):
    check_batch_threads_new(log_readme_rows(DEV[batch]), HELD[batch], batch)


def test_the_two_sub_batches_share_no_thread():
    a, b = ({r[2] for r in log_readme_rows(DEV[x]) + log_readme_rows(HELD[x])} for x in BATCHES)
    assert a and b and not a & b


@pytest.mark.parametrize("batch,name,label,source", DEV_ROWS, ids=[r[1] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(batch, name, label, source):
    assert_top_is_label(explain_text(_read(batch, name)), name, label, {})


@pytest.mark.parametrize("line,arch,archs", [
    # mozilla-ai/llamafile#434 (dev log)
    ("ggml-cuda.cu:1412: ERROR: CUDA kernel vec_dot_q4_K_q8_1_impl_vmmq has no device code compatible with CUDA arch "
     "600. ggml-cuda.cu was compiled for: 500,600,700,800,900", "600", "500,600,700,800,900"),
    # LostRuins/koboldcpp#1362 (held back): a build whose arch list macro was not expanded
    (r"d:\a\koboldcpp\koboldcpp\ggml\src\ggml-cuda\mmv.cu:57: ERROR: CUDA kernel mul_mat_vec has no device code "
     "compatible with CUDA arch 500. ggml-cuda.cu was compiled for: __CUDA_ARCH_LIST__", "500", "__CUDA_ARCH_LIST__"),
])
def test_ggml_kernel_without_device_code_is_the_arch_unsupported_with_its_arch(line, arch, archs):
    matches = explain_text(line)
    assert [m.id for m in matches] == ["gpu-arch-unsupported"]
    assert matches[0].captures.get("cuda_arch") == arch
    assert matches[0].captures.get("compiled_archs") == archs
    assert "CMAKE_CUDA_ARCHITECTURES" in matches[0].fixes[0]


def test_ggml_regression_naming_no_arch_is_not_read_as_the_gpu():
    # ggml-org/llama.cpp#15589 (held back) / #15593 (dev): an A100 and a Blackwell GPU under builds that have their
    # architectures; a llama.cpp commit made ggml assert "not compiled with any CUDA arch <= 750" (no environment cause)
    assert explain_text("/root/llama.cpp/ggml/src/ggml-cuda/../ggml-cuda/common.cuh:112: ggml was not compiled with "
                        "any CUDA arch <= 750") == []


def test_llamacpp_without_gpu_offload_is_a_weak_cpu_only_reading():
    matches = explain_text(_read("emit27a", "llamacpp-1283-azure-gpu-perplexity-not-compiled-with-gpu-offload.log"))
    assert matches[0].id == "framework-cpu-only"
    assert "GGML_CUDA" in matches[0].fixes[0]
    # a warning of a run that goes on (on the CPU): weaker than an extension's error that stops the run
    # (rusty1s/pytorch_scatter#312, a dev log)
    strong = explain_text(_read("emit27a", "pytorch-scatter-312-cuda-11.1-image-scatter-min-not-compiled-with-cuda.log"))
    assert strong[0].id == "framework-cpu-only" and matches[0].score < strong[0].score


@pytest.mark.parametrize("line,cause", [
    # facebookresearch/detectron2#267 (dev log): the older csrc wording, in the title
    ("# RuntimeError: Not compiled with GPU support (ROIAlign_forward at /home/hd/detectron2_repo/detectron2/layers/"
     "csrc/ROIAlign/ROIAlign.h:73)", "framework-cpu-only"),
    # facebookresearch/detectron2#3898 (dev log): the newer csrc wording
    ("# RuntimeError: Detectron2 is not compiled with GPU support!", "framework-cpu-only"),
    # rusty1s/pytorch_scatter#312 (dev log)
    ("RuntimeError: Not compiled with CUDA support", "framework-cpu-only"),
    # open-mmlab/mmdetection#7788 (dev log) / modelscope/facechain#18 (dev log)
    ("Error: nms_impl: implementation for device cuda:0 not found.", "framework-cpu-only"),
    # mmcv's registry names other devices too (an NPU): no CUDA cause
    ("RuntimeError: nms_impl: implementation for device npu:0 not found.", None),
    # find_string hit (a C++ warning of a program built without its GPU path): the sentence mid-line is not read
    ("Warning: GPU requested but code not compiled with GPU support. Using CPU.", None),
])
def test_extension_built_without_cuda_is_the_cpu_only_build(line, cause):
    got = [m.id for m in explain_text(line)]
    if cause:
        assert got == [cause]
    else:
        assert "framework-cpu-only" not in got


def test_ctranslate2_cpu_package_keeps_its_own_fix():
    # whisperX#575's wording (another signature's): the extension reading does not take it over
    matches = explain_text("ValueError: This CTranslate2 package was not compiled with CUDA support")
    assert [m.id for m in matches] == ["framework-cpu-only"]
    assert "CTranslate2" in matches[0].fixes[0]


def test_torchvision_custom_ops_is_the_extension_mismatch():
    matches = explain_text(_read("emit27a", "yolov5-11149-train-torchvision-couldnt-load-custom-cpp-ops.log"))
    assert matches[0].id == "extension-abi-mismatch"
    assert "torchvision" in matches[0].fixes[0]


@pytest.mark.parametrize("line,cuda", [
    # woct0rdho/triton-windows#49 (dev log)
    ("RuntimeError: Triton only support CUDA 10.0 or higher, but got CUDA version: 12.8", "12.8"),
    # the older form without the version (Triton 2.x/3.0 compiler.py, find_string id 549383316)
    ("RuntimeError: Triton only support CUDA 10.0 or higher", None),
])
def test_triton_unknown_ptxas_cuda_is_the_toolkit_mismatch(line, cuda):
    matches = explain_text(line)
    assert [m.id for m in matches] == ["cuda-toolkit-mismatch"]
    assert matches[0].captures.get("ptxas_cuda") == cuda
    assert "Triton" in matches[0].fixes[0]


def test_deepspeed_accepting_a_compatible_minor_says_nothing():
    # a training log's DeepSpeed line (find_string id 16079656415): the minor versions differ, the APIs are compatible
    line = ("Installed CUDA version 12.6 does not match the version torch was compiled with 12.4 but since the APIs are "
            "compatible, accepting this combination")
    assert explain_text(line) == []
