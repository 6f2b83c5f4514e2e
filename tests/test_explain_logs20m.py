"""`envcheck explain` on the libraries around the frameworks (issue 20, logs20m): each family keyed on the library's own
text as its source writes it, in every release's wording (tests/data/logs/logs20m and logs20m-2; their READMEs list
file, label and source):

* ``framework-cpu-only``: bitsandbytes without a CUDA library for this setup - cuda_setup/main.py of 0.37-0.41
  ("CUDA SETUP: Required library version not found: libbitsandbytes_cudaXYZ.so"), cextension.py of 0.43-0.44 ("Could
  not find the bitsandbytes CUDA binary at ..."), 0.45-0.47 ("Configured CUDA binary not found at ..."), 0.48+ ("No
  compatible CUDA binary found at ..."), the 0.46+ banner ("CUDA VERSION MISMATCH"), the RuntimeError of 0.35-0.44
  ("CUDA Setup failed despite GPU/CUDA being available", generic) and the CPU library's missing symbols;
* ``cuda-runtime-missing``: bitsandbytes 0.45+'s "CUDA N.x runtime libraries were not found", TensorRT's libraries
  (libnvinfer.so.N and its parsers / plugins; not TensorFlow's optional TF-TRT probe), onnxruntime 1.2x's Windows
  loader ('... which depends on "X.dll" which is missing', routed by the DLL named);
* ``extension-abi-mismatch``: xformers' dispatch without its C++/CUDA extension ("xFormers wasn't build with CUDA
  support", generic) and _cpp_lib.py's "built for a different version of PyTorch or Python";
* ``gpu-arch-unsupported``: vLLM's (and its copies') "GPUs with compute capability below/less than 7.0 are not
  supported";
* ``no-gpu-driver``: Triton's "libcuda.so cannot found!" (the driver library not in the linker cache);
* ``gpu-out-of-memory``: vLLM V1's start-up check ("Free memory on device ... is less than desired GPU memory
  utilization");
* ``cuda-toolkit-mismatch``: a CMake CUDA build finding no toolkit ("No CMAKE_CUDA_COMPILER could be found", "Failed to
  find nvcc", "Couldn't find CUDA library root", llama.cpp's "CUDA Toolkit not found"; FindCUDA's "Could NOT find CUDA
  (missing: ...)", generic);
* ``cuda-runtime-missing`` again: the toolkit's NVVM libdevice not found by XLA (TensorFlow, JAX: "libdevice not found at
  ./libdevice.10.bc", "Can't find libdevice directory", generic) or numba ("Missing libdevice file"), and a CUDA header
  that NVRTC cannot open ('cannot open source file "cuda_runtime.h"');
* ``cuda-toolkit-mismatch`` again: a build's compiler finding no CUDA header (MSVC's "Cannot open include file", clang's
  "file not found", GCC's "No such file or directory").

The held-back parts (heldout/logs20m, heldout/logs20m-2, heldout/logs20m-3, heldout/logs20m-4, heldout/logs20m-5, split by scripts/split_log_batch.py before the rules) are
scored by scripts/score_explain.py, never asserted here."""

import os
import re
import sys

import pytest

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (  # noqa: E402
    HELDOUT, LOGS, assert_leads_with_own_fix, batch_threads, check_dev_log, check_literals_hold,
    check_log_batch, errors_section_names, log_readme_rows, read_text_file, top_match,
)

BATCHES = ("logs20m", "logs20m-2", "logs20m-3", "logs20m-4", "logs20m-5")
DEV = {b: os.path.join(LOGS, b) for b in BATCHES}
HELD = {b: os.path.join(HELDOUT, b) for b in BATCHES}
DEV_ROWS = [(b,) + r for b in BATCHES for r in log_readme_rows(DEV[b])]
#: dev logs the rules do not get right, and what explain says instead (each asserted: a change shows here)
KNOWN_MISSES = {
    # the ImportError of flash_attn_2_cuda is cut before its reason (an undefined symbol, or a CUDA library not
    # loadable): nothing in the text says which, and an unknown is said as none
    "axolotl-1588-import-flash-attn-2-cuda-fails.log": None,
    # the console's code page garbled the DLL's name ('which depN0Rc...")Lt64_12.dll"'): the library cannot be named
    "onnxruntime-27766-comfyui-cublaslt64-12-garbled.log": None,
}
NEW_SIGNATURES = ("bnb-cuda-binary-not-found", "bnb-cuda-version-mismatch-banner", "bnb-cuda-setup-failed-despite-gpu",
                  "bnb-cpu-library-undefined-symbol", "bnb-cuda-runtime-libraries-not-found",
                  "bnb-duplicate-libcudart-advice", "xformers-wasnt-build-with-cuda",
                  "xformers-built-for-different-torch-or-python", "gpus-with-cc-below-are-not-supported",
                  "tensorrt-library-not-loadable", "triton-libcuda-cannot-found",
                  "ort-error-loading-dll-which-is-missing", "vllm-free-memory-less-than-desired-utilization",
                  "cmake-no-cuda-compiler", "findcuda-could-not-find-cuda", "libdevice-not-found",
                  "xla-cant-find-libdevice-directory", "nvrtc-cannot-open-cuda-header",
                  "build-cannot-find-cuda-header")
#: the signatures whose literal is a prefilter anchor of its own (no existing anchor is in their lines)
OWN_ANCHORS: tuple = ()
#: the section of errors.toml these rules live in (other helpers append theirs after it)
SECTION = "# 2026-11-27 (logs20m)"


def _read(name, batch):
    return read_text_file(DEV[batch], name)


_top = top_match


@pytest.mark.parametrize("batch,min_dev,min_held,min_healthy", [("logs20m", 20, 10, 6), ("logs20m-2", 10, 4, 3),
                                                                  ("logs20m-3", 6, 3, 1), ("logs20m-4", 8, 4, 1),
                                                                  ("logs20m-5", 5, 2, 0)])
def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart(batch, min_dev, min_held, min_healthy):
    check_log_batch(DEV[batch], HELD[batch], min_dev=min_dev, min_held=min_held, min_healthy=min_healthy,
                    held_listed=True)


def test_no_thread_is_in_both_batches():
    urls = batch_threads(DEV, HELD)
    assert len(urls) == len(set(urls))


@pytest.mark.parametrize("batch,name,label,source", DEV_ROWS, ids=[r[1] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(batch, name, label, source):
    check_dev_log(DEV[batch], name, label, KNOWN_MISSES)


@pytest.mark.parametrize("batch,name,signature", [
    ("logs20m", "bnb-1190-dev-egg-cuda121-not-found.log", "bnb-cuda-binary-not-found"),
    ("logs20m", "bnb-386-required-cuda121-nocublaslt-defaulting-cpu.log", "bnb-cuda-binary-not-found"),
    ("logs20m", "bnb-pr1615-library-load-error-cuda118.log", "bnb-cuda-binary-not-found"),
    ("logs20m", "kohya-ss-1523-bnb-setup-failed-rich-traceback.log", "bnb-cuda-setup-failed-despite-gpu"),
    ("logs20m", "depth-anything-v2-274-xformers-wasnt-build-with-cuda.log", "xformers-wasnt-build-with-cuda"),
    ("logs20m", "vllm-463-pip-install-p100-cc-less-than-7.log", "gpus-with-cc-below-are-not-supported"),
    ("logs20m", "tensorrtx-1501-import-tensorrt-libnvinfer-so-8.log", "tensorrt-library-not-loadable"),
    ("logs20m", "paddle-27783-libnvinfer-so-error-code.log", "tensorrt-library-not-loadable"),
    ("logs20m-2", "stable-ts-259-colab-triton-libcuda.log", "triton-libcuda-cannot-found"),
    ("logs20m-2", "vllm-25837-enginecore-free-memory-4-gib.log", "vllm-free-memory-less-than-desired-utilization"),
    ("logs20m-3", "llama-cpp-12893-no-cmake-cuda-compiler.log", "cmake-no-cuda-compiler"),
    ("logs20m-3", "gmm-3-could-not-find-cuda-include-dirs.log", "findcuda-could-not-find-cuda"),
    ("logs20m-4", "sleap-pr1485-libdevice-required-by-hlo-module.log", "libdevice-not-found"),
    ("logs20m-4", "sa-ssd-87-numba-missing-libdevice-title.log", "libdevice-not-found"),
    ("logs20m-4", "tensorflow-58859-rtx3060-laptop-nvptx-helper-libdevice.log", "xla-cant-find-libdevice-directory"),
    ("logs20m-5", "cupy-8466-comfyui-nvrtc-vector-types-h.log", "nvrtc-cannot-open-cuda-header"),
    ("logs20m-5", "cuda-smi-9-clang-cuda-runtime-api-h-not-found.log", "build-cannot-find-cuda-header"),
])
def test_each_new_wording_leads_with_its_own_fix(batch, name, signature):
    """The top match's evidence is the new wording's line and its own fix comes first."""
    assert_leads_with_own_fix(explain_text(_read(name, batch)), signature)


@pytest.mark.parametrize("text,cause", [
    # bitsandbytes' loader, each release's wording (cuda_setup/main.py 0.37-0.41, cextension.py 0.43-0.49)
    ("CUDA SETUP: Required library version not found: libbitsandbytes_cuda118.so. Maybe you need to compile it from "
     "source?", "framework-cpu-only"),
    ("Could not find the bitsandbytes CUDA binary at WindowsPath('C:/venv/Lib/site-packages/bitsandbytes/"
     "libbitsandbytes_cuda124.dll')", "framework-cpu-only"),
    ("[bitsandbytes.cextension|ERROR]bitsandbytes library load error: Configured CUDA binary not found at "
     "/opt/venv/lib/python3.12/site-packages/bitsandbytes/libbitsandbytes_cuda128.so", "framework-cpu-only"),
    ("RuntimeError: No compatible CUDA binary found at /opt/venv/lib/python3.12/site-packages/bitsandbytes/"
     "libbitsandbytes_cuda130.so", "framework-cpu-only"),
    ("\U0001F6A8 CUDA VERSION MISMATCH \U0001F6A8\nRequested CUDA version:          124\n"
     "Detected PyTorch CUDA version:   121", "framework-cpu-only"),
    ("CUDA Setup failed despite CUDA being available. Please run the following command to get more information:",
     "framework-cpu-only"),
    ("Exception: CUDA SETUP: Setup Failed!", "framework-cpu-only"),
    ("/opt/conda/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cpu.so: undefined symbol: "
     "cadam32bit_grad_fp32", "framework-cpu-only"),
    ("\U0001F6A8 CUDA SETUP ERROR: Missing dependency: libcusparse.so.11 \U0001F6A8\n\nCUDA 11.x runtime libraries "
     "were not found in the LD_LIBRARY_PATH.", "cuda-runtime-missing"),
    # xformers' _cpp_lib.py without build metadata
    ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for a different version of "
     "PyTorch or Python.", "extension-abi-mismatch"),
    # vLLM's setup.py of 2023 ("below") and its worker ("less than")
    ("RuntimeError: GPUs with compute capability below 7.0 are not supported.", "gpu-arch-unsupported"),
    # TensorRT's libraries behind each loader's wording (ONNX Runtime's TensorRT provider too)
    ("OSError: libnvinfer_plugin.so.10: cannot open shared object file: No such file or directory",
     "cuda-runtime-missing"),
    ("ImportError: libnvonnxparser.so.8: cannot open shared object file: No such file or directory",
     "cuda-runtime-missing"),
    ("FAIL : Failed to load library libonnxruntime_providers_tensorrt.so with error: libnvinfer.so.10: cannot open "
     "shared object file: No such file or directory", "cuda-runtime-missing"),
    # a thread's title: in free text, and without the colon
    ("onnx_backend_test.py libnvonnxparser.so.0: cannot open shared object file", "cuda-runtime-missing"),
    ("ImportError: libnvinfer_plugin.so.8 cannot open shared object file", "cuda-runtime-missing"),
    # Triton 3.x's form (backends/nvidia/driver.py: libcuda.so.1, the folders it saw)
    ("AssertionError: libcuda.so cannot found!\nPossible files are located at ['/usr/lib64-nvidia/libcuda.so.1'].",
     "no-gpu-driver"),
    # onnxruntime 1.2x's Windows loader: the DLL named decides (cuBLASLt of CUDA 12; cuDNN 9)
    ('Error loading "C:\\venv\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll" which depends '
     'on "cublasLt64_12.dll" which is missing. (Error 126: "The specified module could not be found.")',
     "cuda-runtime-missing"),
    ('Error loading "C:\\venv\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll" which depends '
     'on "cudnn64_9.dll" which is missing. (Error 126: "The specified module could not be found.")', "cudnn-missing"),
    # vLLM's check with the device named, and hard-wrapped by a terminal
    ("ValueError: Free memory on device cuda:0 (12.18/23.56 GiB) on startup is less than desired GPU memory "
     "utilization (0.92, 21.67 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
     "gpu-out-of-memory"),
    ("ValueError: Free memory on device (5.31/23.56 GiB) on startup is less than desired GPU memory\n"
     "utilization (0.8, 18.85 GiB).", "gpu-out-of-memory"),
    # CMake's wordings of no toolkit (CMakeDetermineCUDACompiler.cmake, FindCUDAToolkit.cmake, llama.cpp's FATAL_ERROR)
    ("CMake Error at /usr/share/cmake-3.28/Modules/CMakeDetermineCUDACompiler.cmake:180 (message):\n  Failed to find "
     "nvcc.\n\n  Compiler requires the CUDA toolkit.  Please set the CUDAToolkit_ROOT variable.",
     "cuda-toolkit-mismatch"),
    ("-- Could not find nvcc, please set CUDAToolkit_ROOT.", "cuda-toolkit-mismatch"),
    ("CMake Error at ggml/src/ggml-cuda/CMakeLists.txt:183 (message):\n  CUDA Toolkit not found", "cuda-toolkit-mismatch"),
    ("-- Could NOT find CUDAToolkit (missing: CUDAToolkit_NVCC_EXECUTABLE CUDA_CUDART) (found version \"12.4.131\")",
     "cuda-toolkit-mismatch"),
    # libdevice: numba 0.4x's message as a title joins it (its multi-line print's first line alone holds no prefilter
    # anchor: not read), JAX's XLA
    ("RuntimeError: Missing libdevice file for compute_86. Please ensure you have package cudatoolkit >= 9. Install "
     "package by: conda install cudatoolkit", "cuda-runtime-missing"),
    ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: libdevice not found at ./libdevice.10.bc", "cuda-runtime-missing"),
    # the CUDA headers: NVRTC's cuda_fp16.h / cuda_runtime_api.h, MSVC's C1083 in an extension build
    ('/usr/local/lib/python3.12/site-packages/cupy/_core/include/cupy/_cuda/cuda-12.6/cuda_fp16.h(130): catastrophic '
     'error: cannot open source file "vector_functions.h"', "cuda-runtime-missing"),
    ("C:\\src\\ops\\nms_kernel.cu(2): fatal error C1083: Cannot open include file: 'cuda_runtime.h': No such file or "
     "directory", "cuda-toolkit-mismatch"),
    ("csrc/nms_kernel.cu:1:10: fatal error: cuda_fp16.h: No such file or directory", "cuda-toolkit-mismatch"),
])
def test_other_forms_of_the_same_families(text, cause):
    m = _top(text)
    assert m is not None and m.id == cause, m and (m.id, m.evidence)


# -- the neighbours: what must stay silent ----------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    # TensorFlow's probe for its optional TF-TRT: a healthy TensorFlow without TensorRT prints both
    "W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libnvinfer.so.7'; "
    "dlerror: libnvinfer.so.7: cannot open shared object file: No such file or directory",
    "W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT",
    # bitsandbytes' healthy set-up lines and notices (0.38-0.41; 0.48+'s nearest-binary fallback; an override alone)
    "CUDA SETUP: Loading binary /opt/conda/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cuda118.so...",
    "UserWarning: WARNING: Compute capability < 7.5 detected! Only slow 8-bit matmul is supported for your GPU!",
    "WARNING: No prebuilt binary for CUDA 12.9, loading CUDA 12.8 instead. Set BNB_CUDA_VERSION to override.",
    "WARNING: BNB_CUDA_VERSION=124 environment variable detected; loading libbitsandbytes_cuda124.so.",
    "If you get `CUDA error: invalid device function` errors, the above might be the cause and the solution is to make "
    "sure only one ['libcudart.so', 'libcudart.so.11.0', 'libcudart.so.12.0'] in the paths that we search based on "
    "your env.",
    # the ROCm form of bitsandbytes' loader is another vendor's, not a CUDA build missing
    "RuntimeError: No compatible ROCm binary found at /opt/venv/lib/python3.12/site-packages/bitsandbytes/"
    "libbitsandbytes_rocm63.so",
    # xformers' per-operator reasons other than the missing extension (an FA3 operator on an Ada GPU, a dtype)
    "`fa3F@0.0.0` is not supported because:\n    requires device with capability > (9, 0) but your GPU has capability "
    "(8, 9) (too old)\n    dtype=torch.float32 (supported: {torch.float16, torch.bfloat16})",
    # vLLM's notices
    "INFO 05-01 10:00:00 selector.py:120] Cannot use FlashAttention-2 backend for Volta and Turing GPUs.",
    "INFO 05-01 10:00:00 model_runner.py:1300] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are "
    "running out of memory, consider decreasing `gpu_memory_utilization` or switching to eager mode.",
    # "rocm" as an identifier on a CUDA machine: Triton's build.py in a traceback, Ollama's runner list
    '     59         hip_include_dir = os.path.join(rocm_path_dir(), "include")',
    'level=INFO source=payload.go:44 msg="Dynamic LLM libraries [cuda_v12 rocm_v60102 cpu cpu_avx cpu_avx2 cuda_v11]"',
    # Paddle's warning for a driver of the same CUDA major (minor-version compatibility)
    "gpu_resources.cc:175] WARNING: device: 0. The installed Paddle is compiled with CUDA 11.7, but CUDA runtime "
    "version in your machine is 11.4, which may cause serious incompatible bug. Please recompile or reinstall Paddle "
    "with compatible CUDA version.",
    # CMake finding CUDA, and its modules for other libraries
    "-- Found CUDAToolkit: /usr/local/cuda/include (found version \"12.4.131\")\n-- CUDA Toolkit found\n"
    "-- Looking for a CUDA compiler - /usr/local/cuda/bin/nvcc",
    "-- Could NOT find CUDNN (missing: CUDNN_LIBRARY CUDNN_INCLUDE_DIR)",
    "-- Could NOT find NCCL (missing: NCCL_INCLUDE_DIR NCCL_LIBRARY)",
    # a header that is not the CUDA toolkit's: a project's own, HIP's on an NVIDIA build, a temporary file's path
    '../src/HostDeviceCommon/Math.h(11): catastrophic error: cannot open source file "hip/hip_runtime.h"',
    'CompileException: Catastrophic error: cannot open source file "C:\\Users\\x\\AppData\\Local\\Temp\\tmpg4c62iyd\\'
    '7cb9cb82a45540883a7190c81ea23c5d_2.cubin.cu"',
    # (MSVC's C1083 for cudnn.h is read since session 25, oldnv42: cudnn-missing, a build that finds no cuDNN header;
    # tests/test_oldnv42.py)
    "src/main.cpp:3:10: fatal error: opencv2/opencv.hpp: No such file or directory",
    "OSError: [Errno 2] No such file or directory: 'checkpoints/model_final.pth'",
])
def test_neighbours_say_nothing(text):
    assert explain_text(text) == [], [(m.id, m.evidence) for m in explain_text(text)]


def test_every_new_signature_has_a_literal_its_matches_hold():
    """Each new rule sits behind its literal (the prefilter): every literal but xformers' contains an existing cover
    anchor (the cover list is at its bound of 100, tests/test_explain_families.py::test_prefilter_is_sound: "n't ",
    "directory", "utilization" and "cannot open " were added for these lines in place of own anchors), and every dev line a signature matches holds one of its literals (lower-cased)."""
    names = errors_section_names(SECTION, re.compile(r"\n# ={20,}\n# 2026-"))  # stop at the next helper's section
    assert names == set(NEW_SIGNATURES)
    seen = check_literals_hold(names, [ln for r in DEV_ROWS for ln in _read(r[1], r[0]).splitlines()],
                               own_anchors=OWN_ANCHORS)
    # the rules with no dev log of their own are the source-derived ones asserted above in other forms
    assert seen | {"bnb-cuda-version-mismatch-banner", "bnb-cpu-library-undefined-symbol",
                   "bnb-cuda-runtime-libraries-not-found", "xformers-built-for-different-torch-or-python"} == names
