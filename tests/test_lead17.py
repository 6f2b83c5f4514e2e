"""The lead's changes of session 17 (tests/data/lead17 and the spent heldout/acceptance16)."""
from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "lead17"


def _top(path: Path):
    matches = explain_text_document(path.read_text(encoding="utf-8"))["matches"]
    return matches[0]["id"] if matches else None


@pytest.mark.parametrize("path", [
    DATA / "legacy-rocm-build-1113-vega64-cuda-capability-3.0-warning.log",
    next((ROOT / "heldout" / "acceptance16" / "logs").glob("healthy-rocm-pytorch-627*.log")),
])
def test_pytorchs_cuda_capability_check_naming_an_amd_gpu_is_no_cause(path):
    # ROCm builds print HIP's stand-in capability (3.0) for a gfx target; PyTorch skips the check there
    assert _top(path) is None


@pytest.mark.parametrize("name", [
    "avatarify-58-gtx660ti-cuda-capability-3.0-no-kernel-image.log",
    "pytorch-5373-quadro-k620-cuda-capability-5.0-warning.log",
])
def test_the_same_warning_for_an_nvidia_gpu_still_says_the_build_lacks_it(name):
    assert _top(DATA / name) == "gpu-arch-unsupported"


def test_jetsons_gpu_driver_stopping_its_power_on_is_a_gpu_not_brought_up():
    # OE4T/meta-tegra#1613, two excerpts: nvgpu_finalize_poweron "Failed initialization for: g->ops.<step>"
    spent = next((ROOT / "heldout" / "acceptance16" / "logs").glob("meta-tegra-1613*.log"))
    for path in (DATA / "meta-tegra-1613-orin-nvgpu-gr-init-support-failed-kiosk-crash.log", spent):
        assert _top(path) == "gpu-not-initialized"



def test_a_transformers_env_version_retyped_without_the_space_before_the_gpu_answer():
    # huggingface/transformers#12641: "- PyTorch version (GPU?):1.8.1(No)" and "- Tensorflow version (GPU?):2.0.1(No)"
    from tests.helpers import check_paste_facts

    folder = next((ROOT / "heldout").glob("acceptance1*/pastes/transformers-12641*.facts.json")).parent
    name = next(folder.glob("transformers-12641*.facts.json")).name
    check_paste_facts(str(folder), name)
    doc = explain_text_document((folder / name.replace(".facts.json", ".txt")).read_text(encoding="utf-8"))
    assert doc["facts"]["frameworks"]["torch"]["version"] == "1.8.1"
    assert doc["facts"]["frameworks"]["tensorflow"]["version"] == "2.0.1"


def test_gpu_rows_under_the_column_titles_end_line_are_read_when_the_titles_are_cut():
    # THUDM/gpt2-chitchat#19: the table pasted from its cut column titles down; GPU 0's row sits right under "|===|"
    path = next((ROOT / "heldout").glob("acceptance1*/pastes/gpt2-chitchat-19*.txt"))
    gpus = explain_text_document(path.read_text(encoding="utf-8"))["facts"]["gpus"]
    assert [(g["index"], g["name"]) for g in gpus] == [(i, "Tesla V100-SXM2...") for i in range(4)]


A17 = ROOT / "heldout" / "acceptance17" / "logs"


@pytest.mark.parametrize("stem, want", [
    # hipTensorFlow 2018: "failed to allocate 8.00G ... from device: hipError_t(1002)" (HIP 1.x hipErrorMemoryAllocation)
    ("hiptensorflow-62", "gpu-out-of-memory"),
    # pynvml's class name of NVML_ERROR_NO_PERMISSION, in a container given a MIG device
    ("nvidia-container-toolkit-842", "device-permission"),
    # TensorFlow's CUDA stub notes beside ITEX's own Level Zero loader failure on an Arc laptop: the XPU stack's
    ("itex-73", "xpu-level-zero-missing"),
])
def test_acceptance17_misses_read_after_the_look(stem, want):
    assert _top(next(A17.glob(stem + "*.log"))) == want


def test_a_windows_amd64_platform_is_not_amds_gpu_stack():
    # prose27's rule reads "X is not supported" as an AMD GPU's only in a text about AMD's stack; "win_amd64" (a wheel
    # platform tag) names no AMD GPU
    from envcheck.engine.vendors_prose import amd_gpu_unsupported

    said = "your gpu | torch-2.1.0-cp311-cp311-win_amd64.whl installed, but your GPU is not supported"
    assert amd_gpu_unsupported(None, {}, {"gpu-said-unsupported": said}) is None
    amd = "your gpu | ROCm 6.0 on this Radeon: your GPU is not supported"
    assert amd_gpu_unsupported(None, {}, {"gpu-said-unsupported": amd}).id == "gpu-arch-unsupported"


def test_the_last_intel_mac_torch_named_in_advice_comes_from_the_matrix():
    # torch.toml's python_macos_x86_64 lists (PyPI's index, 2026-11-27): no macOS x86_64 wheel after 2.2.2
    from envcheck.engine.builds import last_release_for
    from envcheck.engine.vendors import intel_mac_torch_note
    from envcheck.matrix import load_matrix

    m = load_matrix()
    assert last_release_for(m, "macos-x86_64") == "2.2.2"
    assert intel_mac_torch_note(m) == " (the last torch with them is 2.2.2)" and intel_mac_torch_note(None) == ""
    # Linux x86_64 has releases after it
    assert last_release_for(m, "linux-x86_64") != "2.2.2"
