"""attack41: false statements found in session 17's round-1 changes (emit27a/b/c/d, forms27, prose27, lead17)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import explain_cli_matches  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _read(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


def _cpu_only(text: str):
    got = [m for m in explain_text(text) if m.id == "framework-cpu-only"]
    assert got, [m.id for m in explain_text(text)]
    return got[0]


def _says_framework_wheel_advice(m) -> bool:
    words = " ".join(m.fixes + m.dead_ends)
    return ("pytorch.org/get-started" in words or "jax[cuda12]" in words
            or "Installing the CUDA toolkit or a newer driver" in words)


def test_an_extension_built_without_cuda_beside_a_cuda_torch_gets_no_torch_wheel_advice():
    # rusty1s/pytorch_scatter#394: torch 2.0.1+cu117 (a CUDA build) with a torch_scatter built without CUDA. Was: "A
    # CPU-only build of the framework is installed", "Install the CUDA build [of PyTorch]", "For JAX install the CUDA
    # plugin" and the dead end "Installing the CUDA toolkit ... does not help" - while the extension's own fix is a
    # source build with nvcc of torch's CUDA on PATH (the toolkit)
    m = _cpu_only(_read("tests/data/logs/emit27a/pytorch-scatter-394-torch-2.0.1-cu117-not-compiled-with-cuda-support.log"))
    assert "compiled extension" in m.title
    assert not _says_framework_wheel_advice(m), (m.fixes, m.dead_ends)
    assert "nvcc" in m.fixes[0]  # the extension's own fix still leads


def test_mmcv_without_cuda_ops_and_llamacpp_without_gpu_offload_get_no_torch_wheel_advice():
    # open-mmlab/mmdetection#7788 (plain `pip install mmcv`, fixed by mmcv-full for cu113 / torch 1.10) and
    # ggml-org/llama.cpp#1283 (a llama.cpp binary built without a GPU backend: building it with CUDA needs the toolkit)
    for rel in ("tests/data/logs/emit27a/mmdetection-7788-pip-mmcv-not-full-nms-impl-cuda-not-found.log",
                "tests/data/logs/emit27a/llamacpp-1283-azure-gpu-perplexity-not-compiled-with-gpu-offload.log"):
        m = _cpu_only(_read(rel))
        assert not _says_framework_wheel_advice(m), (rel, m.fixes, m.dead_ends)


def test_torchs_own_cpu_only_wording_keeps_the_torch_wheel_advice():
    # the control: torch's own "Torch not compiled with CUDA enabled" (a CPU-only torch) keeps its fixes and dead end
    m = _cpu_only(_read("tests/data/logs/torch-not-compiled-cuda-hat.log"))
    assert any("pytorch.org/get-started" in f for f in m.fixes)
    assert any("Installing the CUDA toolkit or a newer driver" in d for d in m.dead_ends)


def _paste_ids(rel: str):
    return [m["id"] for m in explain_cli_matches("--no-detect", str(ROOT / rel))]


def test_two_builds_cuda_of_one_major_without_exact_pins_is_no_framework_conflict():
    # SpatialVLA/SpatialVLA#19: "torch2.5.1 require CUDA 11.8,12.1,12.4" and "tf 2.15.0 require CUDA 12.2"; the
    # maintainer installs tensorflow==2.15.0 into the same environment and it "has not caused any problems". Was
    # framework-conflict: "no CUDA version serves both, so one environment cannot hold both builds"
    assert "framework-conflict" not in _paste_ids(
        "tests/data/attack41/spatialvla-19-torch-2.5.1-cu121-and-tensorflow-2.15.0-one-env-works.txt")


def test_exact_pins_of_one_cuda_major_stay_a_framework_conflict():
    # the controls: tensorflow[and-cuda]==2.15.1 pins NVIDIA's CUDA 12.2 wheels beside torch==2.4.1's 12.1
    # (TencentARC/Moto#2); pip's own conflict lines pinning nvidia-cuda-runtime-cu12==12.4.127 / ==12.3.101
    # (PaddlePaddle/Paddle#74894)
    for rel in ("heldout/prose27-held/moto-2-tensorflow-and-cuda-2.15.1-cuda-12.2-vs-torch-2.4.1-cuda-12.1.txt",
                "tests/data/pastes/prose27/paddle-74894-zh-pip-conflict-torch-2.5.1-runtime-12.4-vs-paddle-3.1.0-12.3.txt"):
        assert _paste_ids(rel)[:1] == ["framework-conflict"], rel
