"""Issue 20's cause families and hard-wrapped wordings, on real logs (tests/data/logs/new20, sources in its
README) and on a real TensorFlow wording wrapped mid-word at a fixed width."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from envcheck.explain import explain_text

NEW20 = Path(__file__).parent / "data" / "logs" / "new20"
_ROW = re.compile(r"^\| ([^|\s]+\.log) \| ([a-z0-9-]+) \|")


def _labels():
    out = []
    for line in (NEW20 / "README.md").read_text().splitlines():
        m = _ROW.match(line)
        if m:
            out.append(pytest.param(m.group(1), m.group(2), id=m.group(1)))
    return out


@pytest.mark.parametrize("name, label", _labels())
def test_family_top1(name, label):
    ms = explain_text((NEW20 / name).read_text())
    assert ms and ms[0].id == label


# tensorflow/stream_executor/cuda/cuda_dnn.cc's wording (as in tests/data/logs), wrapped at a fixed width
# the way a terminal or a narrow code view wraps it: "comp" / "iled"
TF_WORDING = ("2021-01-01 12:00:00.000 E tensorflow/stream_executor/cuda/cuda_dnn.cc:361] Loaded runtime CuDNN "
              "library: 8.0.5 but source was compiled with: 8.1.0.  CuDNN library needs to have matching major "
              "version and equal or higher minor version.")


def _wrap(text: str, width: int) -> str:
    return "\n".join(text[i:i + width] for i in range(0, len(text), width)) + "\n"


@pytest.mark.parametrize("width", [100, 120, 132])
def test_mismatch_wrapped_mid_word(width):
    ms = explain_text(_wrap(TF_WORDING, width))
    assert ms and ms[0].id == "cudnn-version-mismatch"
    assert ms[0].captures.get("loaded") or ms[0].captures.get("compiled")


def test_wrap_join_says_nothing_new_on_a_healthy_log():
    text = ("Epoch 1/10 - loss: 0.6931 - accuracy: 0.5012 - val_loss: 0.6925 - val_accuracy: 0.5100 - lr: 0.00100\n"
            "saving checkpoint to ./ckpt/epoch-1 and continuing with the next epoch of training on the device\n")
    assert explain_text(text) == []

