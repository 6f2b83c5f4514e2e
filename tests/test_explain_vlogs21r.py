"""Batch vlogs21r of issue 20/21's vendor error logs: `envcheck explain` on AMD (the DirectML / ZLUDA / AMD forks of
the Stable Diffusion UIs, rocBLAS, MIOpen, HIP), Intel (Level Zero / Unified Runtime, ipex-llm's SYCL kernel builds),
Apple MPS and Jetson wordings, and the one family the dev part found missing: the names TensorFlow's and XLA's ROCm
stream executor gives hipError_t values ("HIP_ERROR_" + the enum's suffix, xla/stream_executor/rocm/rocm_status.cc
ToString: "failed to allocate ... from device: HIP_ERROR_OutOfMemory", "Failed to load HSACO:
HIP_ERROR_NoBinaryForGpu"). Real logs: tests/data/logs/vlogs21r (README: file, label, source); the held-back part
heldout/vlogs21r was split off first (scripts/split_log_batch.py vlogs21r 2026112721 0.3 --healthy-apart) and is
scored with scripts/score_explain.py only, never asserted here."""

import os
import sys

import pytest


sys.path.insert(0, os.path.dirname(__file__))
from helpers import top_id_signature as _top, explain_cli_matches as _cli, assert_top_is_label, check_literals_hold, check_log_batch, explain_file, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "vlogs21r")
HELD = os.path.join(ROOT, "heldout", "vlogs21r")
DEV_ROWS = log_readme_rows(DEV)
#: dev logs whose label the text alone does not reach (kept, not hidden): the exact wrong answer expected
KNOWN_MISSES = {
    # "Torch not compiled with XPU enabled" is said by a CPU build and by a CUDA one alike; the maintainer's answer
    # (the CPU wheel) is not in the text, so the line keeps its own cause: a build without Intel's backend
    "sdnext-ipex-arc-a750-torch-not-compiled-with-xpu-4357.log": "framework-vendor-mismatch",
}


def test_listing_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV, HELD, min_dev=26, min_held=11, min_total=37, min_healthy=6, min_none=10,
                           held_listed=True)
    for prefix in ("healthy-", "jetson-", "mps-", "xpu-", "zluda-"):
        assert any(r[0].startswith(prefix) for r in DEV_ROWS), prefix
    assert {r[1] for r in held} >= {"none", "framework-vendor-mismatch", "mps-op-unsupported", "gpu-out-of-memory"}


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS], ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top1(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV, name)), name, label, KNOWN_MISSES)


# -- TensorFlow's / XLA's names for hipError_t (rocm_status.cc: OSTREAM_ROCM_ERROR(__name) -> "HIP_ERROR_" #__name)
@pytest.mark.parametrize("line,want", [
    ("E tensorflow/stream_executor/rocm/rocm_driver.cc:600] failed to allocate 890.06M (933298432 bytes) from device: "
     "HIP_ERROR_OutOfMemory", ("gpu-out-of-memory", "hip-error-out-of-memory")),
    # the JAX ROCm wording (find_string id 52878867583: a project's note on its ROCm JAX runs)
    ("INTERNAL: Failed to load HSACO: HIP_ERROR_NoBinaryForGpu", ("gpu-arch-unsupported", "hip-no-binary-for-gpu")),
    # HIP's own names keep their reading
    ("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
     ("gpu-arch-unsupported", "hip-no-binary-for-gpu")),
    ("RuntimeError: HIP error: out of memory", ("gpu-out-of-memory", "hip-error-out-of-memory")),
])
def test_xla_names_of_hip_errors(line, want):
    assert _top(line) == want


@pytest.mark.parametrize("line", [
    # another enum value of the same table names no environment cause here
    "failed to allocate 8.00G from device: HIP_ERROR_InvalidValue",
    # a longer identifier that only starts with the name is not it
    "HIP_ERROR_NoBinaryForGpuX",
])
def test_other_xla_hip_names_are_left_alone(line):
    assert _top(line) == (None, None)


def test_the_xla_oom_gets_rocm_advice_and_no_nvidia_advice():
    m = _cli("--no-detect", "-", text="E tensorflow/stream_executor/rocm/rocm_driver.cc:600] failed to allocate "
                                      "890.06M (933298432 bytes) from device: HIP_ERROR_OutOfMemory\n")[0]
    assert m["id"] == "gpu-out-of-memory"
    text = " ".join(m["fixes"])
    assert "PYTORCH_HIP_ALLOC_CONF" in text or "rocm-smi" in text
    assert "nvidia-smi" not in text and "CUDA" not in text


def test_new_literals_hold_an_existing_anchor_and_read_their_lines():
    names = {"hip-error-out-of-memory", "hip-no-binary-for-gpu"}
    lines = ["failed to allocate 890.06M (933298432 bytes) from device: HIP_ERROR_OutOfMemory",
             "INTERNAL: Failed to load HSACO: HIP_ERROR_NoBinaryForGpu", "hipErrorOutOfMemory",
             "RuntimeError: HIP error: no kernel image is available for execution on the device"]
    assert check_literals_hold(names, lines) == names
