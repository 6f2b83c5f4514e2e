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

