"""arch31: gpu-arch-unsupported as users show it (session 20).

* cuFFT's CUFFT_INTERNAL_ERROR names the cause only where the text names a GPU whose architecture the build's CUDA
  predates (envcheck/engine/rules.py ``library_older_than_gpu``, over compat_matrix/cuda.toml ``[[targets]]``), or
  the build's CUDA is not stated; elsewhere (no GPU named, a build new enough) it is dropped (errors.toml ``says =
  library-arch-check``, explain/machine.py ``_library_not_older``);
* what a reporter or maintainer says of a build (not built for sm_110, lacks support for Pascal (sm_61), no longer
  supports Pascal), an AMD gfx target said not supported, CLR's "COMGR API could not find the CO" quoted.

Real samples: tests/data/arch31 (README.md cites each thread); heldout/arch31-held is the held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.engine.rules import library_older_than_gpu
from envcheck.explain.document import explain_text_document
from envcheck.explain.kb import load_kb
from envcheck.matrix import load_matrix
from helpers import readme_labels

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "arch31"
LABELS = readme_labels(DATA)

#: dev items the rules do not reach, and why
UNREACHED = {
    "adair-8-zh-rtx-3090-works-4090-cufft-internal-error.txt":
        "the GPUs are named by bare model numbers inside Chinese prose ('在3090可以运行，但切换到4090上'): no GPU fact is "
        "read, so cuFFT's internal error is not said to be the architecture's",
}

#: the first lines of real threads (tests/data/arch31 and the threads cited there)
CUFFT = "RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR"
BF16 = ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmStridedBatchedEx(handle, opa, "
        "opb, (int)m, (int)n, (int)k, (void*)&falpha, a, CUDA_R_16BF, (int)lda, stridea, b, CUDA_R_16BF, (int)ldb, "
        "strideb, (void*)&fbeta, c, CUDA_R_16BF, (int)ldc, stridec, (int)num_batches, compute_type, "
        "CUBLAS_GEMM_DEFAULT_TENSOR_OP)`")


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def _top(text: str) -> str:
    ids = _ids(text)
    return ids[0] if ids else "none"


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert sum(1 for v in LABELS.values() if v != "gpu-arch-unsupported") >= 3  # controls


@pytest.mark.parametrize("name", sorted(LABELS))
def test_top_cause_is_the_label(name):
    if name in UNREACHED:
        pytest.xfail(UNREACHED[name])
    assert _top((DATA / name).read_text(encoding="utf-8")) == LABELS[name]


def test_library_older_than_gpu(matrix):
    # Ada (8.9) is built from CUDA 11.8 on (cuda.toml targets): an 11.7 / 11.6 cuFFT predates it, an 11.8 one not
    assert library_older_than_gpu(matrix, "11.7", ["8.9"])[0] is True
    assert library_older_than_gpu(matrix, "11.6", ["8.9"])[0] is True
    assert library_older_than_gpu(matrix, "11.8", ["8.9"])[0] is False
    assert library_older_than_gpu(matrix, "12.1", ["8.9"])[0] is False
    # an Ampere GPU (8.6, from CUDA 11.1) beside an 11.7 build: not older
    assert library_older_than_gpu(matrix, "11.7", ["8.6"])[0] is False
    # the build's CUDA unknown: likely only
    verdict, why = library_older_than_gpu(matrix, None, ["8.9"])
    assert verdict is None and "11.8" in why
    # no GPU's compute capability known: nothing said
    assert library_older_than_gpu(matrix, "11.7", []) == (None, "")


def test_cufft_internal_error_needs_a_gpu_the_build_predates():
    # the line alone names no GPU: dropped (low free memory and torch bugs print it too)
    assert "gpu-arch-unsupported" not in _ids(CUFFT)
    # an Ada GPU named, the build's CUDA 11.6 (pytorch/pytorch#89556's collect_env lines)
    ada = (f"{CUFFT}\nPyTorch version: 1.13.0+cu116\nCUDA used to build PyTorch: 11.6\n"
           "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090\n")
    assert _top(ada) == "gpu-arch-unsupported"
    # the same GPU with a CUDA 12.1 build (pytorch/pytorch#120902's version): not the architecture
    new = ada.replace("1.13.0+cu116", "2.2.0+cu121").replace("build PyTorch: 11.6", "build PyTorch: 12.1")
    assert "gpu-arch-unsupported" not in _ids(new)
    # an RTX 3090 (8.6) with the 11.6 build: CUDA 11.6 builds sm_86, not the cause
    ampere = ada.replace("RTX 4090", "RTX 3090")
    assert "gpu-arch-unsupported" not in _ids(ampere)


def test_bf16_gemm_refusal_stays_cublas_error():
    # the spent sets label cuBLAS's NOT_SUPPORTED on a bfloat16 GEMM cublas-error (numz/ComfyUI-SeedVR2_VideoUpscaler#543
    # on a GTX Titan X, deepspeedai/DeepSpeed#6723): no arch31 rule reads it as the GPU's architecture
    assert _top(BF16) == "cublas-error"


def test_comgr_could_not_find_the_co_quoted():
    line = "hip_fatbin.cpp: COMGR API could not find the CO for this GPU device/ISA"
    assert _top(f"AMD gpu benchmarks starting\nGPU count:  1\n{line}\n") == "gpu-arch-unsupported"


@pytest.mark.parametrize("text,hit", [
    ("Thor's GPU is compute capability 11.0 (`sm_110`), which CUDA 12.9 wheels were not built for.", True),
    ("My GTX1070 card stopped working; this is due to cu128 (which no longer supports Pascal)", True),
    ("The official image ships **without** `sm_110` kernels, making it unusable on Jetson Thor", True),
    # a capability said to be dropped, with no build named: not read (its literal, "capability" or "no longer
    # supported", is a word of healthy logs and of the paste readers; torch's own warning has its signature)
    ("warn that CUDA capability 3.0 and 5.0 is no longer supported", False),
    # a build said to hold the GPU's target, or a wish: nothing
    ("The cu128 wheels support sm_120 and the RTX 5090 runs fine", False),
    ("Does the cu130 build support sm_121? It works here.", False),
])
def test_build_said_not_made_for_the_gpu(text, hit):
    assert ("gpu-arch-unsupported" in _ids(text)) is hit


@pytest.mark.parametrize("text,hit", [
    ("It is required because your card, RX 6600 (gfx1032), is not officially supported by HIP SDK.", True),
    ("gfx1100 is supported by ROCm 6.0 and runs fine", False),
])
def test_gfx_target_said_not_supported(text, hit):
    assert ("gpu-arch-unsupported" in _ids(text)) is hit


def test_prefilter_cover_stays_within_the_bound():
    from tests.helpers import COVER_BOUND

    assert len(load_kb().cover) <= COVER_BOUND


def test_torch_old_gpu_warning_last_line_alone_and_as_detail():
    tail = "    The minimum cuda capability supported by this library is 3.7."
    assert _top(tail) == "gpu-arch-unsupported"
    whole = ("    Found GPU0 GeForce GTX 760 which is of cuda capability 3.0.\n"
             "    PyTorch no longer supports this GPU because it is too old.\n" + tail + "\n")
    doc = explain_text_document(whole)
    first = doc["matches"][0]
    # one finding for the warning: the last line is a detail of it (its floor), not a second match
    assert first["id"] == "gpu-arch-unsupported" and first.get("captures", {}).get("min_cc") == "3.7"
    assert [m["id"] for m in doc["matches"]].count("gpu-arch-unsupported") == 1
