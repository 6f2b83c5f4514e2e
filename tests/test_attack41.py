"""attack41: false statements found in session 17's round-1 changes (emit27a/b/c/d, forms27, prose27, lead17)."""
from __future__ import annotations

from pathlib import Path

from envcheck.explain import explain_text

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
