"""Batch vlogs21s of issue 20's vendor error logs, sampled as users bring them (the first relevant threads per query,
not picked by what envcheck reads): AMD (ROCm, the DirectML / ZLUDA forks of the Stable Diffusion UIs, torch-directml,
ONNX Runtime's DirectML EP, Ollama / llama.cpp HIP builds), Intel (XPU / IPEX / oneAPI SYCL), Apple MPS and Jetson,
plus healthy vendor logs. Real logs: tests/data/logs/vlogs21s (README: file, label, source); the held-back part
heldout/vlogs21s was split off first (scripts/split_log_batch.py vlogs21s 2026112722 0.4 --healthy-apart) and is scored
with scripts/score_explain.py only, never asserted here.

The working part's misses, fixed in their layers: the Stable Diffusion web UI's own CUDA check ("Torch is not able to
use GPU; add --skip-torch-cuda-test ...", AUTOMATIC1111 modules/launch_utils.py), a framework-vendor-mismatch where the
log shows an AMD GPU / a Mac / Intel's XPU stack and no cause elsewhere (engine.vendors.cuda_check_speaks); the Polaris
"AMD 570" and the Radeon VII as AMD GPUs (the amd_gpu fact); torch-directml's "Could not allocate tensor with N bytes.
There is not enough GPU video memory available!" (gpu-out-of-memory); a pasted loader line with markdown bold around
"undefined symbol" (extension-abi-mismatch); and a false statement removed: XLA's "ptxas 10.2.300, which is older than
11.1" on a JetPack 4 Jetson is the board's only CUDA, not a toolkit that differs from the framework's
(engine.vendors.jetpack_ptxas_notice)."""

import os
import sys

import pytest


sys.path.insert(0, os.path.dirname(__file__))
from helpers import top_id_signature as _top, explain_cli_matches as _cli, assert_top_is_label, check_literals_hold, check_log_batch, explain_file, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "vlogs21s")
HELD = os.path.join(ROOT, "heldout", "vlogs21s")
DEV_ROWS = log_readme_rows(DEV)
#: dev logs whose label the text alone does not reach (kept, not hidden): the exact wrong answer expected
KNOWN_MISSES: dict = {
    # (jetson-nano-2gb-tf-bfc-ran-out-of-memory-csl-yolo-7.log was one: TensorFlow's BFC allocator warnings alone - "ran
    # out of memory trying to allocate ... The caller indicates that this is not a failure" - are still no cause, and
    # heldout/acceptance10's healthy control with the same lines stays silent; its title "Jetson Nano: Allocator
    # (GPU_0_bfc) ran out of memory ..." is the reporter's statement that a Jetson, whose GPU shares the RAM, ran out of
    # memory: errors.toml's gpu-out-of-memory-said, helper mem31)
}
A1111 = ("RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to "
         "disable this check")


def test_listing_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV, HELD, min_dev=28, min_held=16, min_total=44, min_healthy=6, min_none=10,
                           held_listed=True)
    for prefix in ("healthy-", "jetson-", "mps-", "xpu-", "zluda-", "amdgpu-fork-", "ipex-", "ollama-"):
        assert any(r[0].startswith(prefix) for r in DEV_ROWS), prefix
    assert {r[1] for r in held} >= {"none", "framework-vendor-mismatch", "mps-op-unsupported", "gpu-out-of-memory",
                                   "gpu-arch-unsupported"}


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS], ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top1(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV, name)), name, label, KNOWN_MISSES)


# -- the web UI's own CUDA check: a cause only where another vendor's GPU is shown ------------------------------------
@pytest.mark.parametrize("context", [
    "My GPU is an AMD 570 series 4GB",                      # the Polaris form (lshqqytiger/...-amdgpu#480)
    "Win10, Python 3.10.6, Radeon RX 580 2048SP.",
    '  File "G:\\stable-diffusion-webui-amdgpu\\modules\\launch_utils.py", line 589, in prepare_environment',
    "Device: MacBook Pro M1",
])
def test_a1111_cuda_check_on_another_vendors_gpu_is_a_vendor_mismatch(context):
    assert _top(context + "\n" + A1111) == ("framework-vendor-mismatch", "a1111-torch-not-able-to-use-gpu")


@pytest.mark.parametrize("text", [
    A1111,                                                  # no GPU named: why CUDA is missing is not known
    "NVIDIA GeForce RTX 3060\n" + A1111,                    # an NVIDIA GPU: a CPU build or no driver, not told apart
    "GPU: AMD Radeon RX 6800 and NVIDIA GeForce RTX 3090\n" + A1111,  # both vendors named: not another vendor's
    "AMD 5700\n" + A1111,                                   # four digits without XT: no GPU model read
])
def test_a1111_cuda_check_elsewhere_names_no_cause(text):
    assert _top(text) == (None, None)


def test_a1111_vendor_mismatch_gets_the_forks_backend_advice_and_no_nvidia_advice():
    m = _cli("--no-detect", "-", text="AMD Radeon RX 7800 XT\n" + A1111 + "\n")[0]
    assert m["id"] == "framework-vendor-mismatch"
    text = " ".join(m["fixes"])
    assert "use-directml" in text and "ROCm" in text
    assert "nvidia-smi" not in text and "NVIDIA driver" not in text


# -- torch-directml's allocator out of video memory -------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    '"Could not allocate tensor with 81544192 bytes. There is not enough GPU video memory available!"',
    "RuntimeError: Could not allocate tensor with 234881024 bytes. There is not enough GPU video memory available!",
])
def test_torch_directml_out_of_video_memory(line):
    assert _top(line) == ("gpu-out-of-memory", "torch-directml-not-enough-video-memory")


def test_directml_words_that_are_no_allocation_failure_stay_silent():
    assert _top("Could not allocate tensor with 0 bytes. There is enough GPU video memory available") == (None, None)
    # (session 23, dml38: torch-directml's own sentence "There is not enough GPU video memory available" is read on its
    # own, as issue titles give it with the size redacted - "with XXXXXXXX bytes": no longer a probe of a fake size)


# -- a pasted loader line in markdown bold ----------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "ImportError: /x/site-packages/intel_extension_for_pytorch/lib/libintel-ext-pt-gpu.so: **undefined symbol: "
    "_ZNK5torch8autograd4Node4nameB5cxx11Ev**",
    "ImportError: /x/site-packages/intel_extension_for_pytorch/lib/libintel-ext-pt-gpu.so: undefined symbol: "
    "_ZNK5torch8autograd4Node4nameB5cxx11Ev",
])
def test_undefined_torch_symbol_in_an_extension_with_or_without_bold(line):
    assert _top(line) == ("extension-abi-mismatch", "undefined-torch-cxx-symbol")


def test_bold_does_not_make_torchs_own_library_an_extension():
    # torch's own libraries stay out of the extension reading, bold or not
    assert _top("libtorch_cpu.so: **undefined symbol: _ZN3c104impl23ExcludeDispatchKeyGuardC1ENS_14DispatchKeyE**")[0] \
        != "extension-abi-mismatch"


# -- XLA's ptxas floor on a JetPack 4 Jetson: no toolkit mismatch is said -------------------------------------------
PTXAS = ("2022-04-17 14:04:49.653386: W tensorflow/stream_executor/gpu/asm_compiler.cc:111] *** WARNING *** You are "
         "using ptxas 10.2.300, which is older than 11.1. ptxas before 11.1 is known to miscompile XLA code, leading "
         "to incorrect results or invalid-address errors.")


def test_xla_ptxas_floor_on_a_jetpack4_jetson_is_no_toolkit_mismatch():
    assert _top("I am running on Jetson Nano 2GB, Jetpack 4.6.1, tensorflow-2.7.0+nv22.1\n" + PTXAS) == (None, None)


@pytest.mark.parametrize("text", [
    PTXAS,                                                       # no Jetson shown: an old toolkit first on PATH
    "NVIDIA GeForce RTX 3090\n" + PTXAS,
    # a Jetson with a ptxas of CUDA 11 or newer below the floor would be another toolkit than JetPack's
    "Jetson AGX Orin\n" + PTXAS.replace("10.2.300", "11.0.221"),
])
def test_xla_ptxas_floor_elsewhere_keeps_its_reading(text):
    assert _top(text) == ("cuda-toolkit-mismatch", "xla-ptxas-too-old")


def test_amd_gpu_fact_reads_polaris_and_radeon_vii_only():
    from envcheck.explain import scan_lines

    def amd(text):
        return scan_lines([text]).vendor_facts.get("amd_gpu")

    assert amd("My GPU is an AMD 570 series 4GB") == "AMD 570"
    assert amd("The AMD Radeon VII has 16GB of vram.") == "AMD Radeon VII"
    assert amd("AMD 5950X CPU") is None and amd("AMD X570 board") is None and amd("AMD 5700") is None


def test_new_literals_hold_an_existing_anchor_and_read_their_lines():
    names = {"a1111-torch-not-able-to-use-gpu", "torch-directml-not-enough-video-memory", "undefined-torch-cxx-symbol"}
    lines = [A1111, "Could not allocate tensor with 4915840 bytes. There is not enough GPU video memory available!",
             "libintel-ext-pt-gpu.so: **undefined symbol: _ZNK5torch8autograd4Node4nameB5cxx11Ev**"]
    assert check_literals_hold(names, lines) == names
