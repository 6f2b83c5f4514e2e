"""`envcheck explain` on batch emit28a (issue 20): real posted lines of NVIDIA-side libraries' and apps' messages that
state an environment cause, found from an inventory of each emitter's format strings (heldout/rounds/
emit28a-inventory.md, part 3 after emit26a and emit27a: OpenCV, faiss, dlib, TensorRT-LLM, and the emitters whose
strings explain already read or that hold no prefilter anchor). tests/data/logs/emit28a is the working part; the
held-back part (heldout/emit28a-held, split by scripts/split_log_batch.py before any rule) is scored by
scripts/score_explain.py, never asserted here.

The strings explain did not read led to signatures written from the format strings (errors.toml, block ``emit28a``):

* OpenCV's "The library is compiled without CUDA support" (throw_no_cuda; 2.4's "No GPU support") is
  framework-cpu-only;
* OpenCV DNN's "(-216:No CUDA support) OpenCV was not built to work with the selected device" is gpu-arch-unsupported;
* faiss' "has no attribute 'StandardGpuResources'" is framework-cpu-only (a CPU faiss);
* dlib's "Error while calling cudaMalloc...(...) in file F:N. code: 2, reason: out of memory" is gpu-out-of-memory;
* TensorRT-LLM's "Assertion failed: Unsupported architecture (.../tensorrt_llm/kernels/...)" is gpu-arch-unsupported;
* cuDF's "A GPU with NVIDIA Pascal™ (Compute Capability 6.0) or newer architecture is required." and "This cuDF
  installation is missing the necessary PTX files that are <=NN." are gpu-arch-unsupported (sub-batch emit28a-2,
  tests/data/logs/emit28a-2 and heldout/emit28a-2-held, split before its rule).
"""

import os
import sys

import pytest

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (assert_top_is_label, check_batch_threads_new, check_log_batch,  # noqa: E402
                     log_readme_rows, read_text_file)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "emit28a")
HELD = os.path.join(ROOT, "heldout", "emit28a-held")
DEV_ROWS = log_readme_rows(DEV)
DEV2 = os.path.join(HERE, "data", "logs", "emit28a-2")
HELD2 = os.path.join(ROOT, "heldout", "emit28a-2-held")
DEV2_ROWS = log_readme_rows(DEV2)


def _read(name, folder=DEV):
    return read_text_file(folder, name)


@pytest.mark.parametrize("dev,held,min_dev,min_held", [(DEV, HELD, 19, 8), (DEV2, HELD2, 2, 1)])
def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart(dev, held, min_dev, min_held):
    check_log_batch(dev, held, min_dev=min_dev, min_held=min_held, min_total=min_dev + min_held, held_listed=True)


@pytest.mark.parametrize("rows,held,batch", [(DEV_ROWS, HELD, "emit28a"), (DEV2_ROWS, HELD2, "emit28a-2")])
def test_no_thread_is_in_the_batch_nor_in_an_earlier_set(rows, held, batch):
    check_batch_threads_new(rows, held, batch)


def test_the_two_sub_batches_share_no_thread():
    a, b = ({r[2] for r in log_readme_rows(d) + log_readme_rows(h)} for d, h in ((DEV, HELD), (DEV2, HELD2)))
    assert a and b and not a & b


@pytest.mark.parametrize("folder,name,label,source", [(DEV, *r) for r in DEV_ROWS] + [(DEV2, *r) for r in DEV2_ROWS],
                         ids=[r[0] for r in DEV_ROWS + DEV2_ROWS])
def test_dev_log_top_match_is_the_root_cause(folder, name, label, source):
    assert_top_is_label(explain_text(_read(name, folder)), name, label, {})


@pytest.mark.parametrize("line", [
    # opencv/opencv-python#398 (dev log): the PyPI wheel, 4.x throw_no_cuda
    r"cv2.error: OpenCV(4.4.0) C:\Users\appveyor\AppData\Local\Temp\1\pip-req-build-52oirelq\opencv\modules\core"
    r"\include\opencv2/core/private.cuda.hpp:106: error: (-216:No CUDA support) The library is compiled without CUDA "
    "support in function 'throw_no_cuda'",
    # feichtenhofer/gpu_flow#11 (dev log): 2.4's dynamicuda wording
    "OpenCV Error: No GPU support (The library is compiled without CUDA support) in setDevice, file /build/opencv-"
    "SviWsf/opencv-2.4.9.1+dfsg/modules/dynamicuda/include/opencv2/dynamicuda/dynamicuda.hpp, line 84",
    # emgucv/emgucv#523 (dev log): Emgu CV's own rendering of the same exception
    r'"Open CV error at file D:\bb\cv_x64\build\opencv\modules\core\include\opencv2/core/private.cuda.hpp, line 106, '
    'function throw_no_cuda: The library is compiled without CUDA support"',
])
def test_opencv_without_cuda_is_the_cpu_only_build(line):
    matches = explain_text(line)
    assert [m.id for m in matches] == ["framework-cpu-only"]
    assert "opencv-python" in matches[0].fixes[0]


def test_opencv_dnn_on_a_gpu_the_build_lacks_is_the_arch_unsupported():
    # opencv/opencv#18382 (dev log): built for arch 60 61, run on an RTX 2060 (7.5)
    matches = explain_text(_read("opencv-18382-rtx2060-gpu-arch-60-61-init-cuda-backend.log"))
    assert matches[0].id == "gpu-arch-unsupported"
    assert "CUDA_ARCH_BIN" in matches[0].fixes[0]


@pytest.mark.parametrize("line", [
    # facebookresearch/faiss#990 (dev log)
    "AttributeError: module 'faiss' has no attribute 'StandardGpuResources'",
    # facebookresearch/deepcluster#56 (dev log): Python 2's wording
    "AttributeError: 'module' object has no attribute 'StandardGpuResources'",
    # facebookresearch/faiss#888 (dev log): a title that lost the closing quote
    "# while executing i got the error AttributeError: module 'faiss' has no attribute 'StandardGpuResources can "
    "anyone helpme me",
])
def test_faiss_without_gpu_resources_is_the_cpu_only_build(line):
    matches = explain_text(line)
    assert [m.id for m in matches] == ["framework-cpu-only"]
    assert "faiss-cpu" in matches[0].fixes[0]


@pytest.mark.parametrize("line,cause", [
    # davisking/dlib#462 (dev log): a cudnn workspace allocation
    ("Error while calling cudaMalloc(&backward_data_workspace, backward_data_workspace_size_in_bytes) in file "
     "/home/zhaixingzi/Applications/dlib/dlib/dnn/cudnn_dlibapi.cpp:888. code: 2, reason: out of memory",
     "gpu-out-of-memory"),
    # davisking/dlib#391 (dev log): the pinned host buffer of the copy
    (r"Error while calling cudaMallocHost(&data, new_size*sizeof(float)) in file C:\dlib\dlib\dnn\gpu_data.cpp:181. "
     "code: 2, reason: out of memory", "gpu-out-of-memory"),
    # ageitgey/face_recognition#31 (issues corpus): the same check with code 35 stays the driver's
    ("Error while calling cudaGetDevice(&the_device_id) in file /tmp/pip-build-2o0Zpt/dlib/dlib/dnn/gpu_data.cpp:178. "
     "code: 35, reason: CUDA driver version is insufficient for CUDA runtime version", "driver-too-old"),
])
def test_dlib_cuda_check_reads_its_code(line, cause):
    assert explain_text(line)[0].id == cause


def test_dlib_cuda_check_with_another_error_is_no_memory_shortage():
    # davisking/dlib#462's description (issues corpus): an invalid argument on a copy
    line = ("what():  Error while calling cudaMemcpy(dest.device_write_only(),src.device()+src_offset,num*sizeof(float),"
            "cudaMemcpyDeviceToDevice) in file dlib/dnn/gpu_data.cpp: 62. code 11,reason :invalid argument")
    assert "gpu-out-of-memory" not in [m.id for m in explain_text(line)]


@pytest.mark.parametrize("line,kernel_file", [
    # NVIDIA/TensorRT-LLM#320 (dev log): a V100 with the context FMHA
    ("`[TensorRT-LLM][ERROR] Assertion failed: Unsupported architecture (/home/build/TensorRT_LLM/TensorRT-LLM-master/"
     "cpp/tensorrt_llm/kernels/contextFusedMultiHeadAttention/fmhaRunner.cpp:87)`",
     "/home/build/TensorRT_LLM/TensorRT-LLM-master/cpp/tensorrt_llm/kernels/contextFusedMultiHeadAttention/"
     "fmhaRunner.cpp:87"),
    # Tlntin/Qwen-TensorRT-LLM#15 (held back; its title): the weight-only kernels' "Unsupported Arch"
    ("RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: Unsupported Arch (/opt/tritonserver/TensorRT-LLM/cpp/"
     "tensorrt_llm/kernels/cutlass_kernels/cutlass_preprocessors.cpp:147)",
     "/opt/tritonserver/TensorRT-LLM/cpp/tensorrt_llm/kernels/cutlass_kernels/cutlass_preprocessors.cpp:147"),
])
def test_tensorrt_llm_kernel_without_the_arch_is_the_arch_unsupported(line, kernel_file):
    matches = explain_text(line)
    assert [m.id for m in matches] == ["gpu-arch-unsupported"]
    assert matches[0].captures.get("kernel_file") == kernel_file
    assert "FMHA" in matches[0].fixes[0]


def test_a_cpu_architecture_check_is_not_the_gpu_arch():
    # find_string hit (pytorch's QNNPACK: a compile-time check of the CPU architecture): no TensorRT-LLM kernel path
    assert "gpu-arch-unsupported" not in [m.id for m in explain_text('#error "Unsupported architecture"')]


def test_rapids_architecture_floor_is_the_arch_unsupported():
    # NVIDIA/cudf#15053 (dev log): the maintainer's run of the RAPIDS 24.02 check on a Tesla P100
    matches = explain_text("cudf.errors.UnsupportedCUDAError: A GPU with NVIDIA Volta\u2122 (Compute Capability 7.0) "
                           "or newer architecture is required.")
    assert [m.id for m in matches] == ["gpu-arch-unsupported"]
    assert matches[0].captures.get("cc_floor") == "7.0" and matches[0].captures.get("arch_floor") == "Volta"
    assert "RAPIDS" in matches[0].fixes[0]


def test_cudf_missing_ptx_files_is_the_arch_unsupported():
    # NVIDIA/cuml#5484 (dev log): a compute capability 5.0 GPU
    matches = explain_text("RuntimeError: This cuDF installation is missing the necessary PTX files that are <=50.")
    assert [m.id for m in matches] == ["gpu-arch-unsupported"]
    assert matches[0].captures.get("gpu_cc") == "50"
