"""Session 24, the lead: a cuDNN status name after "installed" is no fix that installed cuDNN.

The cudnn-missing resolution row (compat_matrix/resolutions.toml) reads "install ... cudnn" as the reporter's fix.
pytorch#53458 says "(installed using pip), I get `CUDNN_STATUS_NOT_INITIALIZED`": the library's status name, not a
library installed; the row had made cudnn-missing outrank the log's own cause."""

from __future__ import annotations

import os

import pytest

from envcheck.engine.resolution import causes_of
from envcheck.matrix import load_matrix
from helpers import explain_cli_matches

LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "lead24", "logs")


@pytest.mark.parametrize("sentence, found", [
    # pytorch/pytorch#53458 (the status name after "installed using pip")
    ("When running training with PyTorch 1.8 (installed using pip), I get `CUDNN_STATUS_NOT_INITIALIZED`.", False),
    ("I installed torch with pip and got CUDNN_STATUS_EXECUTION_FAILED", False),
    # ILikeAI/AlwaysReddy#40 and tests/data/pastes/resolve22: real fixes that installed cuDNN still count
    ("I forgot to add the entire library of cudnn", True),
    ("Solved: I installed cuDNN 8.9 for CUDA 11.8 and it works.", True),
    ("fixed: I copied the cudnn dlls into the CUDA bin folder", True),
])
def test_a_status_name_is_not_a_cudnn_installed(sentence, found):
    causes = [c for c, _ in causes_of(load_matrix(), sentence)]
    assert ("cudnn-missing" in causes) is found, causes


def test_the_log_keeps_its_own_cause():
    name = "pytorch-53458-pytorch-1.8-pip-lightning-model-cuda-cudnn-status-not-initialized-works-with-1.7.1.log"
    matches = explain_cli_matches("--no-detect", os.path.join(LOGS, name))
    assert matches and matches[0]["id"] == "cudnn-not-initialized", [m["id"] for m in matches]
    assert "cudnn-missing" not in [m["id"] for m in matches]


# -- a GPU judged with the CUDA its own sentence gives it, not another commenter's (acceptance29) -------------------
PASTES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "lead24", "pastes")


def test_a_gpu_is_not_judged_with_another_commenters_cuda():
    name = "deformable-detr-60-zh-comments-rtx2060-cuda-9.2-nvcc-fatal-compute-75-keep-nvcc-in-line.txt"
    matches = explain_cli_matches("--no-detect", os.path.join(PASTES, name))
    said = [m["evidence"] for m in matches if m["id"] == "gpu-arch-unsupported"]
    assert not any("3090" in e and "9.2" in e for e in said), said
    assert matches and matches[0]["id"] == "cuda-toolkit-mismatch", [m["id"] for m in matches]


@pytest.mark.parametrize("text", [
    # one reporter, one GPU, one CUDA, a failure: still judged (controls of the rule the mend narrows)
    "# CUDA error: no kernel image is available for execution on the device\n\nI use the RTX3090, cuda 10.2, torch 1.6, "
    "and training fails with: RuntimeError: CUDA error: no kernel image is available for execution on the device\n",
])
def test_one_gpu_with_its_own_cuda_is_still_judged(tmp_path, text):
    p = tmp_path / "paste.txt"
    p.write_text(text)
    assert "gpu-arch-unsupported" in [m["id"] for m in explain_cli_matches("--no-detect", str(p))]


# -- cpu41's advice reader: what a repo or script installs is no advice (the CI of session 24: NOTSOFAR1-Challenge#40) --
@pytest.mark.parametrize("sentence, advice", [
    ("Installing the repo as described will install torch with cuda 11.7", False),
    ("The setup script which installs torch with CUDA 11.8 finished fine.", False),
    ("You need to install torch with cuda, the one you have is the CPU build.", True),
    ("Please reinstall torch with CUDA support from pytorch.org", True),
])
def test_what_a_repo_installs_is_no_advice(sentence, advice):
    from envcheck.paste.readers.gpu_unused import line_facts

    got = [f.field for f in line_facts(sentence, sentence.lower())]
    assert ("seen:cuda-build-advised" in got) is advice, got


def test_torchs_own_cuda_version_warning_is_no_cpu_build_advice():
    # heldout/logs20k healthy-pytorch-pr3601 (pytorch/pytorch PR 3601's run, wrapped as torch prints it): a CUDA build
    # too old for the GPU's best performance, not a CPU-only torch
    from envcheck.paste.readers.gpu_unused import line_facts

    s = ("UserWarning: Found GPU0 Quadro GP100 which requires CUDA_VERSION >= 8000 for optimal performance and fast "
         "startup time, but your PyTorch was compiled with CUDA_VERSION 7500. Please install the correct PyTorch binary "
         "using instructions from http://pytorch.org")
    assert "seen:cuda-build-advised" not in [f.field for f in line_facts(s, s.lower())]
