"""Batch vlogs24 of issue 20's vendor error logs, sampled as a population (the first relevant threads per query, weighted
toward the sources earlier rounds held less: Intel XPU / IPEX / oneAPI, Apple MLX / MPS, Jetson, ROCm on Windows,
ZLUDA, Strix Halo and consumer Radeons), not picked by what envcheck reads: AMD, Intel, Apple and Jetson failures plus
healthy vendor logs. Real logs: tests/data/logs/vlogs24 (README: file, label, source); the held-back part
heldout/vlogs24-held was split off first (scripts/split_log_batch.py vlogs24 2026112824 0.4 --healthy-apart) and is
scored with scripts/score_explain.py only, never asserted here.

The working part's misses fixed in the knowledge base, each from a form of the emitting source's text: IPEX's XPU DLLs
and an XPU torch's first DLL (backend_with_compiler.dll) failing on Windows (oneapi-runtime-missing; the latter only
where the text shows the XPU stack, IPEX beside a +cuXXX torch is framework-vendor-mismatch), a "[WinError 126] Error
loading X.dll" title routed by its DLL, MPSGraph's "input types 'tensor<..xf32>' and 'tensor<..xf16>' are not broadcast
compatible" (mps-op-unsupported), TensorRT's "Could not initialize cudnn" (cudnn-not-initialized), "requires gfxN ...
got gfxM" and a sentence that a gfx target is unsupported (gpu-arch-unsupported), Metal's "using language version 4.0
which is not supported on this OS" (mps-os-too-old)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import top_id_signature as _top, explain_cli_matches as _cli, assert_top_is_label, check_literals_hold, check_log_batch, earlier_log_threads, explain_file, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "vlogs24")
HELD = os.path.join(ROOT, "heldout", "vlogs24-held")
DEV_ROWS = log_readme_rows(DEV)
#: dev logs whose label the text alone does not reach (kept, not hidden): the exact answer expected instead
KNOWN_MISSES = {
    # MLX's NSRangeException in metal::Device: the maintainer's reading here (no Metal device) is not the text's, and
    # the same crash is labelled none in two other threads of the batch (oMLX: an upstream bug)
    "mlx-server-m5-max-nsrangeexception-metal-device-no-metal-3397.log": None,
    # CUDA 12 installed over JetPack 5 is in the reporter's prose ("updated to 12.2"), not in the cuBLAS status line
    "ollama-jetson-orin-jp5-cuda12-cublas-status-execution-failed-2408.log": "cublas-error",
    # a hipBLASLt status (the ROCm twin of a cuBLAS status, as errors.toml reads it); the thread's cause is a bug of
    # TheRock's nightly, which the text does not say
    "therock-win-rx7600-comfyui-hipblaslt-status-invalid-value-2847.log": "cublas-error",
}


def _read(name):
    with open(os.path.join(DEV, name), encoding="utf-8") as fh:
        return fh.read()


def test_listing_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV, HELD, min_dev=39, min_held=24, min_total=63, min_healthy=6, min_none=20,
                           held_listed=True)
    for prefix in ("healthy-", "jetson-", "ipex-", "mlx-", "ollama-", "rocm-", "therock-", "fooocus-", "a1111-"):
        assert any(r[0].startswith(prefix) for r in DEV_ROWS), prefix
    assert {r[1] for r in held} >= {"none", "oneapi-runtime-missing", "mps-op-unsupported", "gpu-arch-unsupported",
                                   "gpu-memory-fault", "framework-vendor-mismatch"}


def test_no_thread_is_twice_nor_in_an_earlier_log_set():
    urls = [r[2] for r in DEV_ROWS + log_readme_rows(HELD)]
    assert len(urls) == len(set(urls))
    assert not set(urls) & earlier_log_threads(("vlogs24", "vlogs24-held"))


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS], ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top1(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV, name)), name, label, KNOWN_MISSES)


# -- IPEX's and an XPU torch's DLLs on Windows -----------------------------------------------------------------------
IPEX_DLL = ('OSError: [WinError 126] 找不到指定的模块。 Error loading "C:\\Users\\hwbox\\PycharmProjects\\BERT-BiLSTM-CRF'
            '\\.venv\\Lib\\site-packages\\intel_extension_for_pytorch\\bin\\intel-ext-pt-gpu-bitsandbytes.dll" or one '
            'of its dependencies.')
TORCH_DLL = ('OSError: [WinError 126] The specified module could not be found. Error loading "C:\\Users\\sunil\\.conda'
             '\\envs\\ipex\\Lib\\site-packages\\torch\\lib\\backend_with_compiler.dll" or one of its dependencies.')


def test_an_ipex_dll_alone_is_the_oneapi_runtime():
    assert _top(IPEX_DLL) == ("oneapi-runtime-missing", "windows-dll-error-loading")


def test_an_ipex_dll_beside_a_cuda_torch_is_the_vendor_mismatch():
    assert _top(IPEX_DLL + "\nPyTorch version:   2.7.0+cu128")[0] == "framework-vendor-mismatch"
    # a label of Intel's XPU torch (tests/data/logs/vlogs24, intel-extension-for-pytorch#485) keeps the oneAPI reading
    assert _top(IPEX_DLL + "\n2.1.10+xpu - but also on recent releases too")[0] == "oneapi-runtime-missing"


def test_torchs_first_dll_reads_as_oneapi_only_in_an_xpu_stack():
    assert _top(TORCH_DLL) == (None, None)  # a CUDA or CPU build fails there for other reasons
    assert _top(TORCH_DLL + "\n2.1.10+xpu - but also on recent releases too")[0] == "oneapi-runtime-missing"
    assert _top(TORCH_DLL + "\nPyTorch version:   2.7.0+cu128") == (None, None)  # a CUDA build's label: no XPU stack


def test_a_winerror_126_title_is_routed_by_its_dll():
    assert _top("# [Issue]: OSError: [WinError 126] Error loading intel-ext-pt-gpu.dll") == (
        "oneapi-runtime-missing", "windows-winerror-126-error-loading-dll")
    # a DLL no library row knows names no cause
    assert _top("OSError: [WinError 126] Error loading somethingelse.dll") == (None, None)


def test_the_oneapi_fix_on_a_windows_ipex_log_names_no_nvidia_command():
    m = _cli("--no-detect", "-", text=_read("ipex-xpu-win-conda-backend-with-compiler-dll-fixed-dpcpp-cpp-rt-653.log"))[0]
    text = " ".join(m["fixes"])
    assert m["id"] == "oneapi-runtime-missing" and "oneAPI" in text
    assert "nvidia-smi" not in text and "NVIDIA driver" not in text


# -- MPSGraph's mixed float32 / float16 --------------------------------------------------------------------------------
MPS_ADD = ('loc("mps_add"("(mpsFileLoc): /AppleInternal/Library/BuildRoots/20d6c351-ee94-11ec-bcaf-7247572f23b4/Library'
           '/Caches/com.apple.xbs/Sources/MetalPerformanceShadersGraph/mpsgraph/MetalPerformanceShadersGraph/Core/Files/'
           'MPSGraphUtilities.mm":219:0)): error: input types \'tensor<2x1280xf32>\' and \'tensor<*xf16>\' are not '
           'broadcast compatible')


# (the MPSGraph and Metal readings are round vsrc24's rules since the merge: one rule each, the wider one kept)
def test_mpsgraph_not_broadcast_compatible_is_an_mps_op():
    assert _top(MPS_ADD) == ("mps-op-unsupported", "mpsgraph-mixed-float-broadcast")
    m = _cli("--no-detect", "-", text=_read("invokeai-pr179-mps-add-broadcast-llvm-error-failed-to-infer.log"))[0]
    assert m["id"] == "mps-op-unsupported" and "float16" in m["fixes"][0]
    assert not any("nvidia-smi" in t or "NVIDIA driver" in t for t in m["fixes"])


def test_llvm_failed_to_infer_alone_names_no_cause():
    assert _top("LLVM ERROR: Failed to infer result type(s).") == (None, None)


# -- TensorRT's cuDNN tactic source, AMD targets, Metal's language version ---------------------------------------------
def test_tensorrt_could_not_initialize_cudnn():
    line = ("[ERROR] fastdeploy/backends/tensorrt/trt_backend.cc(228)::log   1: [executionResources.cpp::setTacticSources"
            "::156] Error Code 1: Cudnn (Could not initialize cudnn, please check cudnn installation.)")
    assert _top(line) == ("cudnn-not-initialized", "tensorrt-could-not-initialize-cudnn")


def test_requires_gfx_got_gfx():
    line = ("# [Bug]:amd mi308x gpu, vllm 0.27.0~0.27.1, rocm 7.2.3, Kimi-K2.7-Coder start fails:AssertionError: "
            "mla_gluon requires gfx950 (CDNA4), got gfx942")
    assert _top(line) == ("gpu-arch-unsupported", "requires-gfx-got-gfx")
    m = _cli("--no-detect", "-", text=line)[0]
    assert m["captures"].get("gfx") == "gfx942" and not any("nvidia" in t.lower() for t in m["fixes"])


def test_a_sentence_that_a_gfx_target_is_unsupported():
    line = "# When I run Ollama using AMD 6750GRE 12G I get an error - gfx1031 unsupported by official ROCm on windows"
    assert _top(line) == ("gpu-arch-unsupported", "gfx-target-unsupported-sentence")
    # a healthy llama-bench device line (tests/data/logs/vlogs23, llama.cpp#21344) names its target and no failure
    assert _top("  Device 0: Radeon 8060S Graphics, gfx1151 (0x1151), VMM: no, Wave Size: 32, VRAM: 126976 MiB") == (
        None, None)


def test_metal_language_version_not_supported_on_this_os():
    line = ("The error `Failed to load the default metallib. This library is using language version 4.0 which is not "
            "supported on this OS.` is correct.")
    assert _top(line) == ("mps-os-too-old", "metal-library-built-for-newer-macos")
    m = _cli("--no-detect", "-", text=line)[0]
    assert "macOS" in m["fixes"][0] and not any("nvidia-smi" in t for t in m["fixes"])


@pytest.mark.parametrize("name", [r[0] for r in DEV_ROWS if r[0].startswith("healthy-")])
def test_healthy_controls_stay_silent(name):
    assert _cli("--no-detect", "-", text=_read(name)) == []


def test_new_literals_hold_an_existing_anchor_and_read_their_lines():
    names = {"windows-winerror-126-error-loading-dll", "mpsgraph-mixed-float-broadcast",
             "tensorrt-could-not-initialize-cudnn", "requires-gfx-got-gfx", "gfx-target-unsupported-sentence",
             "metal-library-built-for-newer-macos", "ipex-dll-beside-other-torch-build"}
    lines = ["# [Issue]: OSError: [WinError 126] Error loading intel-ext-pt-gpu.dll", MPS_ADD,
             "Error Code 1: Cudnn (Could not initialize cudnn, please check cudnn installation.)",
             "AssertionError: mla_gluon requires gfx950 (CDNA4), got gfx942",
             "I get an error - gfx1031 unsupported by official ROCm on windows",
             "This library is using language version 4.0 which is not supported on this OS.", IPEX_DLL]
    # ".dll" and "gfx" are existing cover anchors themselves (no anchor is added: the list is at its bound of 100)
    anchors_themselves = ("windows-winerror-126-error-loading-dll", "ipex-dll-beside-other-torch-build",
                          "requires-gfx-got-gfx", "gfx-target-unsupported-sentence")
    assert check_literals_hold(names, lines, new_anchors=anchors_themselves) == names
