"""The rule families added for issue 13 part 1 (the ``[[signature]]`` section of errors.toml): each on a
real line from a public thread (URL next to it), its variables read, and the schema of the section."""

import copy
import os
import sys

import pytest

from envcheck.explain import explain_text
from envcheck.explain.kb import compile_kb, kb_patterns, validate_kb
from envcheck.matrix import bundled_dir

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _data():
    with open(os.path.join(bundled_dir(), "errors.toml"), "rb") as fh:
        return tomllib.load(fh)


def top(text):
    ms = explain_text(text)
    assert ms, text
    return ms[0]


@pytest.mark.parametrize("line,cause,caps", [
    # bitsandbytes-foundation/bitsandbytes#778: bitsandbytes found no CUDA runtime in any path
    ("DEBUG: Possible options found for libcudart.so: set()", "cuda-runtime-missing",
     {"lib": "libcudart.so", "lib_family": "cudart"}),
    # bitsandbytes-foundation/bitsandbytes#817
    ("C:\\Users\\Admin\\PycharmProjects\\mcstudio-openai\\venv\\lib\\site-packages\\bitsandbytes\\cuda_setup\\main.py:149: "
     "UserWarning: WARNING: No libcudart.so found! Install CUDA or the cudatool", "cuda-runtime-missing",
     {"lib_family": "cudart"}),
    ("CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed? If you are on a cluster, make "
     "sure you are on a CUDA machine!", "no-gpu-driver", {"lib_family": "driver"}),
    # bitsandbytes-foundation/bitsandbytes#723
    ("CUDA SETUP: Problem: The main issue seems to be that the main CUDA runtime library was not detected.",
     "cuda-runtime-missing", {}),
    # Softcatala/whisper-ctranslate2#74, RVC-Boss/GPT-SoVITS#607: CTranslate2's wording, Linux and Windows names
    ("RuntimeError: Library libcublas.so.11 is not found or cannot be loaded", "cuda-runtime-missing",
     {"lib_family": "cublas", "cuda_major": "11"}),
    ("RuntimeError: Library cublas64_12.dll is not found or cannot be loaded", "cuda-runtime-missing",
     {"lib_family": "cublas", "cuda_major": "12"}),
    # jax-ml/jax#33838
    ("RuntimeError: jaxlib/cuda/versions_helpers.cc:81: operation cusparseGetProperty(MAJOR_VERSION, &major) failed: "
     "The cuSPARSE library was not found.", "cuda-runtime-missing", {"lib_family": "cusparse"}),
    # serrob23/falsecolor#73 (numba)
    ("CudaSupportError: Error at driver init: CUDA driver library cannot be found", "no-gpu-driver", {}),
])
def test_library_load_wordings(line, cause, caps):
    m = top(line)
    assert m.id == cause
    for k, v in caps.items():
        assert m.captures.get(k) == v, m.captures


def test_a_library_outside_the_gpu_stack_in_the_new_wordings_is_no_cause():
    # the same wordings naming a library that is not part of the CUDA stack
    assert explain_text("RuntimeError: Library libfoo.so.1 is not found or cannot be loaded") == []
    assert explain_text("DEBUG: Possible options found for libpng.so: set()") == []


def test_bitsandbytes_runtime_search_is_weaker_than_a_specific_failure():
    # bitsandbytes-foundation/bitsandbytes#778 + a CTranslate2 line: the explicit failure ranks first
    ms = explain_text("DEBUG: Possible options found for libcudart.so: set()\n"
                      "RuntimeError: Library libcublas.so.11 is not found or cannot be loaded")
    assert ms[0].signature == "ct2-library-not-found-or-cannot-be-loaded"


@pytest.mark.parametrize("line,cause,caps", [
    # Linaqruf/kohya-trainer#338
    ("CUDA backend failed to initialize: Found CUDA version 12010, but JAX was built against version 12020, which is "
     "newer. The copy of CUDA that is installed must be at least as new as the version against which JAX was built. "
     "(Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)", "cuda-runtime-missing",
     {"found_cuda": "12.1", "built_cuda": "12.2"}),
    # KosinskiLab/AlphaPulldown#237
    ("I0105 14:05:05.749943 140453630969664 xla_bridge.py:660] Unable to initialize backend 'cuda': Found cuSOLVER "
     "version 11002, but JAX was built against version 11401, which is newer. The copy of cuSOLVER that is installed "
     "must be at least as new as the version against which JAX was built.", "cuda-runtime-missing",
     {"lib_family": "cusolver", "found": "11002", "built": "11401"}),
    # MIT-REALM/gcbfplus#1: the cuDNN wording of the same family stays a cuDNN version mismatch
    ("CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version 8906, which is "
     "newer.", "cudnn-version-mismatch", {"loaded": "8.6.0", "compiled": "8.9.6"}),
    # PaddlePaddle/PARL#1024, PaddlePaddle/PaddleOCR#997
    ("W1215 22:57:15.662986 24484 gpu_resources.cc:217] WARNING: device: . The installed Paddle is compiled with CUDNN "
     "8.4, but CUDNN version in your machine is 8.3, which may cause serious incompatible bug. Please recompile or "
     "reinstall Paddle with compatible CUDNN version.", "cudnn-version-mismatch", {"compiled": "8.4", "loaded": "8.3"}),
    ("device: 0. The installed Paddle is compiled with CUDNN 7.6, but CUDNN version in your machine is 7.5, which may "
     "cause serious incompatible bug.", "cudnn-version-mismatch", {"compiled": "7.6", "loaded": "7.5"}),
])
def test_versions_printed_in_the_text(line, cause, caps):
    m = top(line)
    assert m.id == cause
    for k, v in caps.items():
        assert m.captures.get(k) == v, m.captures


def test_found_cuda_fix_names_the_versions():
    m = top("CUDA backend failed to initialize: Found CUDA version 12010, but JAX was built against version 12020, "
            "which is newer.")
    assert "jax[cuda12]" in m.fixes[0]


@pytest.mark.parametrize("line,cause,sm", [
    # triton-lang/triton#8539
    ("ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'", "cuda-toolkit-mismatch", "sm_121a"),
    # triton-inference-server/server#8632
    ("ptxas-blackwell fatal   : Value 'sm_110a' is not defined for option 'gpu-name'", "cuda-toolkit-mismatch",
     "sm_110a"),
    # GeekAlexis/FastMOT#264
    ("nvcc fatal   : Unsupported gpu architecture 'compute_86'", "cuda-toolkit-mismatch", "compute_86"),
])
def test_toolchain_older_than_the_architecture(line, cause, sm):
    m = top(line)
    assert (m.id, m.captures.get("sm")) == (cause, sm)
    assert "ptxas" in m.fixes[0] or "nvcc" in m.fixes[0]


def test_docker_unknown_runtime_names_the_container_toolkit():
    # NVIDIA/nvidia-docker#838
    m = top("docker: Error response from daemon: Unknown runtime specified nvidia.")
    assert m.id == "no-gpu-visible" and "Container Toolkit" in m.fixes[0]


@pytest.mark.parametrize("line", [
    # hyperonym/basaran#3
    "/opt/conda/lib/python3.10/site-packages/bitsandbytes/cextension.py:31: UserWarning: The installed version of "
    "bitsandbytes was compiled without GPU support. 8-bit optimizers and GPU quantization are unavailable.",
    # m-bain/whisperX#575
    "ValueError: This CTranslate2 package was not compiled with CUDA support",
])
def test_cpu_only_builds(line):
    assert top(line).id == "framework-cpu-only"


def test_onnxruntime_provider_line_ranks_below_the_library_that_failed():
    # PaddlePaddle/PaddleNLP#8195: the warning alone is a (generic) missing runtime; with the failing library the
    # library decides (here cuDNN 9: Gourieff/sd-webui-reactor#503)
    warn = ("2024-03-27 06:33:23.219759101 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:861 "
            "CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Please reference "
            "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirementsto ensure all "
            "dependencies are met.")
    assert top(warn).id == "cuda-runtime-missing"
    ms = explain_text("FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: "
                      "cannot open shared object file: No such file or directory\n" + warn)
    assert ms[0].id == "cudnn-missing"


@pytest.mark.parametrize("line", [
    # ckks-gpu-core / mxnet: lines of healthy runs near the new wordings must stay silent
    "CUDA SETUP: PyTorch settings found: CUDA_VERSION=118, Highest Compute Capability: 8.6.",
    "ggml_cuda_init: found 1 CUDA devices:",
    "2023-02-12 02:34:13.661201: W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:64] Could "
    "not load dynamic library 'libnvinfer_plugin.so.7'; dlerror: libnvinfer_plugin.so.7: cannot open shared object "
    "file: No such file or directory; LD_LIBRARY_PATH: /usr/lib64-nvidia",
])
def test_healthy_lines_stay_silent(line):
    assert explain_text(line) == []


def test_error_35_wording_cut_short_is_still_read():
    # phrutis/LostCoins#14: the line as posted ends after "insufficient for"
    m = top("cudaSafeCall() failed at C:/Users/user/Desktop/LostCoins-1.2/LostCoins-1.2/LostCoins/GPU/GPUEngine.cu:140 "
            ": CUDA driver version is insufficient for")
    assert m.id == "driver-too-old"


# --------------------------------------------------------------------------- the [[signature]] section
def test_the_signature_section_is_compiled_and_checked():
    data = _data()
    assert len(data["signature"]) >= 15
    kb = compile_kb(data)
    names = {(s.cause, s.name) for s in kb.signatures}
    assert ("cuda-runtime-missing", "found-cuda-version-built-against") in names
    where = {w for _, _, _, w in kb_patterns(data)}
    assert "signature 'ptxas-gpu-name-not-defined' of 'cuda-toolkit-mismatch'" in where


@pytest.mark.parametrize("mutate,expect", [
    (lambda d: d["signature"][0].update(cause="no-such-cause"), "not a cause id"),
    (lambda d: d["signature"][0].update(regex="(a+)+b"), "nested quantifier"),
    (lambda d: d["signature"][0].update(regex="(\\w{1,80})*x"), "nested"),
    (lambda d: d["signature"][0].update(literal="Upper"), "lower case"),
    (lambda d: d["signature"][0].update(bogus=1), "unknown keys"),
    (lambda d: d["signature"][1].update(name=d["signature"][0]["name"], cause=d["signature"][0]["cause"]),
     "duplicate name"),
    (lambda d: d["signature"][0].pop("regex"), "missing regex"),
    (lambda d: d["signature"][0].update(route="lib", regex="no lib group"), "named group 'lib'"),
    (lambda d: d.update(signature={"not": "a list"}), "array of tables"),
])
def test_signature_section_validation(mutate, expect):
    data = copy.deepcopy(_data())
    assert validate_kb(data) == []
    mutate(data)
    problems = validate_kb(data)
    assert any(expect in p for p in problems), problems
