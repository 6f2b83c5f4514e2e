"""Batch vlogs22 of issue 20's vendor error logs, sampled as a blind collector would (the first relevant threads per
query, weighted by what users post, not picked by what envcheck reads): AMD (ROCm on Linux and Windows, HIP out of
memory in ComfyUI, ZLUDA's cuBLAS translation, Ollama / llama.cpp / vLLM ROCm builds, rocminfo, MIOpen, hipcc,
torch-directml), Intel (XPU out of memory, IPEX / oneMKL, OpenVINO's GPU plugin, torch XPU on WSL2), Apple (MPS, Metal /
MLX) and Jetson, plus healthy vendor logs. Real logs: tests/data/logs/vlogs22 (README: file, label, source); the
held-back part heldout/vlogs22-held was split off first (scripts/split_log_batch.py vlogs22 2026112723 0.4
--healthy-apart) and is scored with scripts/score_explain.py only, never asserted here.

The working part's misses, fixed in the knowledge base from the emitting sources' own strings: Metal's command-buffer
out-of-memory status (MTLCommandBufferError code 8) in MLX's "[METAL] Command buffer execution failed: Insufficient
Memory" and the older IOAccelerator spelling "Insufficient Memory (IOAF code 8)" (gpu-out-of-memory, an Apple log: no
NVIDIA advice); clang's HIP driver diagnostics "cannot find ROCm installation / ROCm device library / HIP runtime"
(DiagnosticDriverKinds.td: hipcc does not find the ROCm install it compiles against; rocm-runtime-missing)."""

import os
import sys

import pytest


sys.path.insert(0, os.path.dirname(__file__))
from helpers import top_id_signature as _top, explain_cli_matches as _cli, assert_top_is_label, check_literals_hold, check_log_batch, explain_file, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "vlogs22")
HELD = os.path.join(ROOT, "heldout", "vlogs22-held")
DEV_ROWS = log_readme_rows(DEV)
#: dev logs whose label the text alone does not reach (kept, not hidden): the exact wrong answer expected
KNOWN_MISSES = {
    # MIOpen's run-time kernel compile (hipRTC) misses the C++ header type_traits on Windows; the thread establishes no
    # cause and the batch's label says none, while logs21e labels the same family (legacy-rocm-build#5941, the
    # reporter's) cudnn-execution-failed, which is what the title's miopenStatusUnknownError says: left as it is
    "miopen-batchnorm-gfx1151-windows-type-traits-not-found-6150.log": "cudnn-execution-failed",
    # rocminfo's hsa_init HSA_STATUS_ERROR_OUT_OF_RESOURCES: the threads establish an unsupported GPU (an RX 560 on
    # ROCm 5.3, the maintainer) and the device nodes' permissions (the same rocminfo works under sudo); the causes are
    # outside the text, and the line is no out-of-memory (errors.toml rocminfo-hsa-call-failure, session 13): silent
    "rocminfo-rx560-laptop-hsa-out-of-resources-unsupported-901.log": None,
    "rocminfo-vega64-out-of-resources-works-with-sudo-1070.log": None,
    # OpenVINO's clGetPlatformIDs -1001 (no OpenCL platform for the process) is read since intel33 (errors.toml
    # opencl-no-platform-found: no-gpu-driver); this batch labels both none (the cause not established; the
    # dlstreamer maintainer's reading, a container runtime older than the Alder Lake GPU, is the runtime too old for
    # the GPU, which the text alone does not tell from a missing one): known misses, the labels left as they are
    "openvino-2021.4-benchmark-gpu-cldnn-clgetplatformids-1001-celeron-6305e-6984.log": "no-gpu-driver",
    "openvino-dlstreamer-alder-lake-gpu-cldnn-1001-container-108.log": "no-gpu-driver",
}


def test_listing_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV, HELD, min_dev=34, min_held=20, min_total=54, min_healthy=6, min_none=12,
                           held_listed=True)
    for prefix in ("healthy-", "jetson-", "mps-", "hip-oom-", "zluda-", "ipex-", "metal-", "ollama-"):
        assert any(r[0].startswith(prefix) for r in DEV_ROWS), prefix
    assert {r[1] for r in held} >= {"none", "gpu-out-of-memory", "mps-op-unsupported", "gpu-arch-unsupported",
                                   "cublas-error"}


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS], ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top1(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV, name)), name, label, KNOWN_MISSES)


# -- Metal's out-of-memory command-buffer status without the kIOGPU name ---------------------------------------------
@pytest.mark.parametrize("line", [
    "[error] libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer "
    "execution failed: Insufficient Memory",
    '**Fatal error: MetalExecutionError: Error Domain=MTLCommandBufferErrorDomain Code=8 "Insufficient Memory (IOAF '
    'code 8)" UserInfo={NSLocalizedDescription=Insufficient Memory (IOAF code 8)}: file main.swift, line 261',
])
def test_metal_command_buffer_insufficient_memory(line):
    assert _top(line) == ("gpu-out-of-memory", "metal-command-buffer-insufficient-memory")


def test_mlx_with_the_kiogpu_code_is_the_same_cause():
    assert _top("libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer "
                "execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)")[0] \
        == "gpu-out-of-memory"


@pytest.mark.parametrize("line", [
    "Error: Insufficient memory to start the Java Virtual Machine",             # not Metal's status
    "[METAL] Command buffer execution failed: Internal Error (0000000e:Internal Error)",
    "[METAL] Command buffer execution failed: Caused GPU Timeout Error (00000002:kIOGPUCommandBufferCallbackErrorTimeout)",
    'Error Domain=MTLCommandBufferErrorDomain Code=4 "Ignored (for causing prior/excessive GPU errors) (IOAF code 4)"',
])
def test_other_metal_statuses_and_other_insufficient_memory_stay_silent(line):
    assert _top(line) == (None, None)


# -- clang's HIP driver not finding the ROCm install -----------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "clang-11: error: cannot find ROCm installation.  Provide its path via --rocm-path, or pass -nogpulib.",
    "clang-15: error: cannot find ROCm device library; provide its path via '--rocm-path' or '--rocm-device-lib-path', "
    "or pass '-nogpulib' to build without ROCm device library",
    "clang: error: cannot find ROCm device library for gfx1036; provide its path via '--rocm-path' or "
    "'--rocm-device-lib-path', or pass '-nogpulib' to build without ROCm device library",
    "clang-13: error: cannot find ROCm device library. Provide its path via --rocm-path or --rocm-device-lib-path, or "
    "pass -nogpulib to build without ROCm device library.",
    "clang: error: cannot find HIP runtime; provide its path via '--rocm-path', or pass '-nogpuinc' to build without "
    "HIP runtime",
])
def test_clang_cannot_find_the_rocm_install(line):
    assert _top(line) == ("rocm-runtime-missing", "clang-cannot-find-rocm-install")


def test_clangs_cuda_sibling_is_not_a_rocm_install():
    assert _top("clang: error: cannot find CUDA installation; provide its path via '--cuda-path', or pass "
                "'-nocudainc' to build without CUDA includes")[0] != "rocm-runtime-missing"


@pytest.mark.parametrize("name", ["metal-waifu2x-mtlcommandbuffer-insufficient-memory-ioaf-8-3.log",
                                  "mlx-vmlx-m1-max-64gb-metal-command-buffer-insufficient-memory-58.log",
                                  "hipcc-hip-clang-source-build-cannot-find-rocm-installation-square-2086.log"])
def test_vendor_logs_get_no_nvidia_advice(name):
    with open(os.path.join(DEV, name), encoding="utf-8") as fh:
        m = _cli("--no-detect", "-", text=fh.read())[0]
    text = " ".join(m["fixes"])
    assert m["fixes"] and "nvidia-smi" not in text and "NVIDIA driver" not in text


def test_new_literals_hold_an_existing_anchor_and_read_their_lines():
    names = {"metal-command-buffer-insufficient-memory", "clang-cannot-find-rocm-install"}
    lines = ["[METAL] Command buffer execution failed: Insufficient Memory",
             "clang: error: cannot find HIP runtime; provide its path via '--rocm-path'"]
    assert check_literals_hold(names, lines) == names
