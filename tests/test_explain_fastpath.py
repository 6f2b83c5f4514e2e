"""explain's RE2 path (issue 24 item 2: one gate search per literal line, the next line read without a search when
it was seen to hold a literal, a short path for a cause seen before, lines no pattern matches skipped unless a hard
wrap borders them) gives exactly what the reference path gives: the literal prefilter feeding each line to the same
compiled patterns (``kb.line_set()`` off). On every real log of tests/data/logs, on all of them one after the other
three times (so that every remembered line is met again), in small blocks, and on hard-wrapped wordings repeated
between noise."""

from __future__ import annotations

import glob
import io
import os

import pytest

import envcheck.explain as ex
from envcheck.explain import explain_stream
from envcheck.explain.kb import KnowledgeBase, load_kb

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "logs", "**", "*.log"), recursive=True))

pytestmark = pytest.mark.skipif(load_kb().matcher != "re2", reason="the fast path is RE2's")


def _key(res):
    return (res.lines, sorted(res.facts.items()),
            [(m.id, m.signature, m.line_no, m.count, sorted(m.captures.items()), m.explained_by, m.evidence, m.score,
              m.fixes) for m in res.matches])


def _both(data: bytes, monkeypatch, block=None):
    if block is not None:
        monkeypatch.setattr(ex, "_BLOCK", block)
    fast = _key(explain_stream(io.BytesIO(data)))
    with monkeypatch.context() as m:
        m.setattr(KnowledgeBase, "line_set", lambda self: None)  # the literal prefilter, line by line
        ref = _key(explain_stream(io.BytesIO(data)))
    return fast, ref


def test_every_real_log(monkeypatch):
    assert len(LOGS) > 150
    found = 0
    for path in LOGS:
        with open(path, "rb") as fh:
            data = fh.read()
        fast, ref = _both(data, monkeypatch)
        assert fast == ref, path
        found += bool(fast[2])
    assert found > 150  # they are failure logs: nearly every one is recognised


@pytest.mark.parametrize("block", [None, 4096, 997])
def test_all_real_logs_three_times_in_one_stream(monkeypatch, block):
    blob = b"".join(open(p, "rb").read().rstrip(b"\n") + b"\n" for p in LOGS) * 3
    fast, ref = _both(blob, monkeypatch, block)
    assert fast == ref
    assert len(fast[2]) > 20 and any(m[3] > 2 for m in fast[2])  # many causes, seen again and again


TF = ("2021-01-01 12:00:00.000 E tensorflow/stream_executor/cuda/cuda_dnn.cc:361] Loaded runtime CuDNN "
      "library: 8.0.5 but source was compiled with: 8.1.0.  CuDNN library needs to have matching major "
      "version and equal or higher minor version.")


@pytest.mark.parametrize("width", [80, 100, 132])
def test_hard_wrapped_wordings_repeated_between_noise(monkeypatch, width):
    wrapped = "\n".join(TF[i:i + width] for i in range(0, len(TF), width))
    noise = "\n".join(["Epoch 3/10 - loss: 0.6931 - the driver reported nothing unusual for this install",
                       "saving checkpoint to ./ckpt and continuing with the torch training loop on the device",
                       "cudnn benchmark mode is on; resource usage is within the limits of this job"])
    text = "\n".join([noise, wrapped, noise, wrapped, wrapped, noise]) * 20 + "\n"
    fast, ref = _both(text.encode(), monkeypatch)
    assert fast == ref
    assert fast[2] and fast[2][0][0] == "cudnn-version-mismatch"
