"""Batch vlogs23 of issue 20's vendor error logs, sampled as a population (the first relevant threads per query, weighted
toward the sources earlier rounds held less: Intel XPU / SYCL / OpenVINO, Apple MLX / Metal, Jetson TensorRT, ROCm on
Windows and WSL, Vulkan on Radeon), not picked by what envcheck reads: AMD, Intel, Apple and Jetson failures plus healthy
vendor logs. Real logs: tests/data/logs/vlogs23 (README: file, label, source); the held-back part heldout/vlogs23-held was
split off first (scripts/split_log_batch.py vlogs23 2026112800 0.4 --healthy-apart) and is scored with
scripts/score_explain.py only, never asserted here.

The working part's misses fixed in the knowledge base, each from the emitting source's own text or a form of it:
OpenVINO's GPU plugin (clDNN's does_device_match_config) refusing another maker's GPU, "<device>: invalid vendor type"
(framework-vendor-mismatch); a title's sentence around the undefined torch C++ symbol ("importing failed due to undefined
symbol: _ZNK5torch...", extension-abi-mismatch); PyTorch's "Could not run '...' with arguments from the 'SparseMPS'
backend" with the typographic quotes of a rich-text copy (mps-op-unsupported)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import top_id_signature as _top, explain_cli_matches as _cli, assert_top_is_label, check_literals_hold, check_log_batch, earlier_log_threads, explain_file, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "vlogs23")
HELD = os.path.join(ROOT, "heldout", "vlogs23-held")
DEV_ROWS = log_readme_rows(DEV)
#: dev logs whose label the text alone does not reach (kept, not hidden): the exact answer expected instead
KNOWN_MISSES = {
    # sycl-ls printing nothing is the evidence (no device): no error line to read
    "intel-llvm-sycl-sample-windows-sycl-ls-empty-no-queue-17310.log": None,
    # ipex-llm's bundled ollama ("[llama_register_sycl_backend] GGML_USE_SYCL not enabled"): its source is not public,
    # one thread's wording
    "ipexllm-ollama-docker-b60-ggml-use-sycl-not-enabled-13228.log": None,
    # TensorRT's "Magic tag does not match" is kept out of tensorrt-engine-mismatch on purpose (errors.toml: a file that
    # is no engine); the batch's label is the message's reading (a torch2trt engine of another TensorRT)
    "jetson-nano-jp44-torch2trt-magic-tag-does-not-match-614.log": None,
    # OpenCV's "Gpu API call (unknown error)": the build's missing sm_62 is the reporter's finding, not in the text
    "jetson-tx2-libsgm-opencv-gpumat-allocate-unknown-error-arch-30.log": None,
    # deviceQuery's "cudaGetDeviceCount returned 35" without its "->" sentence: the line holds no prefilter anchor and
    # the cover list is at its bound
    "jetson-tx2-meta-tegra-cuda9-override-devicequery-returned-35-95.log": None,
    # ggml-metal's "command buffer 0 failed with status 5" is MTLCommandBufferStatusError, any error (vlogs21p holds it
    # for SubmissionsIgnored, labelled none): without the Insufficient Memory code the cause is not in the line
    "llama-cpp-python-metal-30b-m1-max-command-buffer-status-5-1890.log": None,
    "ollama-metal-magicoder-m1-16gb-command-buffer-status-5-19.log": None,
    # a release zip without hipblas.dll lists no device and prints no error: only the title's words say why
    "llamacpp-win-rocm-7.14-release-missing-hipblas-dll-no-devices-26996.log": None,
}


def _read(name):
    with open(os.path.join(DEV, name), encoding="utf-8") as fh:
        return fh.read()


def test_listing_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV, HELD, min_dev=32, min_held=17, min_total=49, min_healthy=7, min_none=12,
                           held_listed=True)
    for prefix in ("healthy-", "jetson-", "whisper-", "openvino-", "ipex", "llamacpp-", "vllm-", "wsl-"):
        assert any(r[0].startswith(prefix) for r in DEV_ROWS), prefix
    assert {r[1] for r in held} >= {"none", "gpu-out-of-memory", "mps-op-unsupported", "gpu-arch-unsupported",
                                   "tensorrt-engine-mismatch", "no-gpu-visible"}


def test_no_thread_is_twice_nor_in_an_earlier_log_set():
    urls = [r[2] for r in DEV_ROWS + log_readme_rows(HELD)]
    assert len(urls) == len(set(urls))
    assert not set(urls) & earlier_log_threads(("vlogs23", "vlogs23-held"))


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS], ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top1(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV, name)), name, label, KNOWN_MISSES)


# -- OpenVINO's GPU plugin and another maker's GPU -------------------------------------------------------------------
def test_openvino_gpu_plugin_refusing_a_non_intel_gpu():
    assert _top("    GeForce GTX 970: invalid vendor type") == ("framework-vendor-mismatch",
                                                                "openvino-gpu-plugin-device-not-intel")


def test_the_plugins_header_alone_names_no_cause():
    # the header says no device matched; which reason (device type, vendor, out-of-order support) is on the lines below
    assert _top(" failed to create engine: No OpenCL device found which would match provided configuration:") \
        == (None, None)


def test_the_openvino_fix_names_no_nvidia_command():
    m = _cli("--no-detect", "-", text=_read("openvino-gpu-plugin-gtx970-no-opencl-device-invalid-vendor-97.log"))[0]
    assert m["id"] == "framework-vendor-mismatch"
    assert "OpenVINO" in m["fixes"][0] and "Intel" in m["fixes"][0] and "nvidia-smi" not in m["fixes"][0]


# -- the undefined torch C++ symbol in a title's sentence ------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "# importing failed due to undefined symbol: _ZNK5torch8autograd4Node4nameEv",
    "undefined symbol: _ZNK5torch8autograd4Node4nameEv",                  # the bare form the rule read before
])
def test_undefined_torch_symbol_in_a_sentence(line):
    assert _top(line) == ("extension-abi-mismatch", "undefined-torch-cxx-symbol-alone")


def test_a_sentence_about_another_librarys_symbol_is_not_torch():
    # cuDNN's own symbol (a cuDNN mismatch, not a torch extension built for another torch)
    assert _top("importing failed due to undefined symbol: cudnnGetLibConfig")[1] != "undefined-torch-cxx-symbol-alone"


# -- SparseMPS with typographic quotes -------------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "NotImplementedError: Could not run ‘aten::_sparse_coo_tensor_with_dims_and_tensors’ with arguments from the "
    "‘SparseMPS’ backend. ",
    "Error transcribing file: Could not run 'aten::_sparse_coo_tensor_with_dims_and_tensors' with arguments from the "
    "'SparseMPS' backend. This could be because the operator doesn't exist for this backend",
])
def test_sparse_mps_either_quotes(line):
    assert _top(line) == ("mps-op-unsupported", "mps-could-not-run-operator")


def test_a_cuda_backend_in_the_same_sentence_is_not_mps():
    assert _top("NotImplementedError: Could not run ‘aten::_sparse_coo_tensor_with_dims_and_tensors’ with arguments "
                "from the ‘SparseCUDA’ backend.")[0] != "mps-op-unsupported"


@pytest.mark.parametrize("name", ["whisper-mps-m1-ultra-sparsemps-sparse-coo-not-implemented-141711.log",
                                  "whisper-webui-mac-sparsemps-sparse-coo-transcribing-276.log"])
def test_apple_logs_get_no_nvidia_advice(name):
    m = _cli("--no-detect", "-", text=_read(name))[0]
    text = " ".join(m["fixes"])
    assert m["fixes"] and "nvidia-smi" not in text and "NVIDIA driver" not in text


def test_new_literals_hold_an_existing_anchor_and_read_their_lines():
    names = {"openvino-gpu-plugin-device-not-intel", "mps-could-not-run-operator", "undefined-torch-cxx-symbol-alone"}
    lines = ["    GeForce GTX 970: invalid vendor type",
             "NotImplementedError: Could not run ‘aten::_sparse_coo_tensor_with_dims_and_tensors’ with arguments from "
             "the ‘SparseMPS’ backend.",
             "# importing failed due to undefined symbol: _ZNK5torch8autograd4Node4nameEv"]
    assert check_literals_hold(names, lines) == names
