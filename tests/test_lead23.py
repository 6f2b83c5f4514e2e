"""Session 23, the lead: the GPU + CUDA sentence reader keeps the CUDA that fails.

``seen:gpu-cuda-pair`` (envcheck/paste/readers/prose_cause.py) takes the oldest CUDA a sentence names with a GPU: an
upgrade "from 10.2 to 11.1" names the failing one first. Where the sentence says the move did not help ("still fails",
"the same error"), the CUDA the user left is no longer the one failing: the newer one is (found by newgpu39: "upgraded
from CUDA 10.2 to 11.3 ... still fails" was judged on 10.2, which cannot target an RTX 3090)."""

from __future__ import annotations

import pytest

from envcheck.paste.readers.prose_cause import _pair


def _cuda(sentence):
    f = _pair(sentence)
    return f.value.split(" | ")[1] if f else None


@pytest.mark.parametrize("sentence, want", [
    ("I upgraded from CUDA 10.2 to 11.3 on my RTX 3090 but it still fails.", "11.3"),
    ("Moved the RTX 3090 box from CUDA 10.1 -> 11.0, same error.", "11.0"),
    ("RTX 3090 with CUDA 10.2 and CUDA 11.3 gives the same error.", "11.3"),
    ("I moved my RTX 3090 from CUDA 10.2 to CUDA 11.1 and it works now.", "10.2"),
    ("RTX 3090 with CUDA 10.2 fails.", "10.2"),
])
def test_the_cuda_that_fails(sentence, want):
    assert _cuda(sentence) == want


# -- Caffe's CUDA_CHECK out of memory (tests/data/lead23/logs, each thread cited in its README) ---------------------
import os  # noqa: E402

from helpers import explain_cli_matches, readme_rows  # noqa: E402

LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "lead23", "logs")


def _rows():
    return [r[:2] for r in readme_rows(LOGS, ".log")]


def test_the_set_is_listed():
    assert sorted(f for f, _ in _rows()) == sorted(f for f in os.listdir(LOGS) if f.endswith(".log"))
    assert len(_rows()) >= 6


@pytest.mark.parametrize("name, label", _rows())
def test_caffe_cuda_check(name, label):
    matches = explain_cli_matches("--no-detect", os.path.join(LOGS, name))
    assert matches and matches[0]["id"] == label, [(m["id"], m["signature"]) for m in matches]
    if label == "gpu-out-of-memory":
        assert matches[0]["signature"] == "caffe-cuda-check-out-of-memory"
        assert "batch_size" in matches[0]["fixes"][0]


@pytest.mark.parametrize("line", [
    "F0911 12:46:40.284883 18216 syncedmem.cpp:56] Check failed: error == cudaSuccess (30 vs. 0)  unknown error\n",
    "I0911 12:46:39.811416 18216 caffe.cpp:252] Running for 1449 iterations.\n",
])
def test_other_caffe_lines_are_not_out_of_memory(line):
    assert not any(m["id"] == "gpu-out-of-memory" for m in explain_cli_matches("--no-detect", text=line))
