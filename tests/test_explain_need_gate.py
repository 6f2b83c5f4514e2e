"""explain's RE2 path matches no pattern on a new line that holds no literal of a signature or of a fact not
yet read (issue 24): a log naming its NVIDIA GPU on thousands of distinct lines, once the GPU is read. The result
must stay the reference path's (the literal prefilter, line by line) around such lines: wordings on them, wordings
hard-wrapped across them, and the first GPU line itself."""

from __future__ import annotations

import glob
import io
import os

import pytest

import envcheck.explain as ex
from envcheck.explain import explain_stream
from envcheck.explain.kb import KnowledgeBase, load_kb

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.skipif(load_kb().matcher != "re2", reason="the RE2 path's")


def _key(res):
    return (res.lines, sorted(res.facts.items()), sorted(res.vendor_facts.items()),
            [(m.id, m.signature, m.line_no, m.count, sorted(m.captures.items()), m.explained_by, m.evidence, m.score)
             for m in res.matches])


def _log():
    real = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "data", "logs", "torch-no-nvidia-driver-*.log")))[:2]:
        real += open(path, encoding="utf-8", errors="replace").read().splitlines()
    out = ["Using GPU: NVIDIA GeForce RTX 3090 (24 GB)"]
    for i in range(3000):
        out.append(f"step {i}: NVIDIA GeForce RTX 3090 util={i % 97}% mem={i * 7 % 24000} MiB tx {i}")
        if i % 500 == 250:
            out += real
        if i % 700 == 350:  # a wording hard-wrapped at a line that names NVIDIA
            out += ["RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a dr",
                    "iver from http://www.nvidia.com/Download/index.aspx"]
        if i % 900 == 450:
            out += ["worker 3 reports that the NVIDIA kernel module could not be loaded by the runtime on this node ok",
                    "nvidia-smi has failed because it couldn't communicate with the NVIDIA driver. Make sure that the lat",
                    "est NVIDIA driver is installed and running."]
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize("block", [4096, 997, 65536])
def test_lines_without_a_needed_literal_give_the_reference_result(monkeypatch, block):
    monkeypatch.setattr(ex, "_BLOCK", block)  # a fact read in one block is known to the next ones
    data = _log()
    asked = []
    real_got = ex._got
    monkeypatch.setattr(ex, "_got", lambda scan, line, *a: asked.append(line) or real_got(scan, line, *a))
    fast = _key(explain_stream(io.BytesIO(data)))
    with monkeypatch.context() as m:
        m.setattr(KnowledgeBase, "line_set", lambda self: None)
        ref = _key(explain_stream(io.BytesIO(data)))
    assert fast == ref
    assert fast[3]  # the wordings are found
    assert dict(fast[2]).get("nvidia_gpu")  # the GPU is read from the first line
    # the 3,000 distinct GPU lines were not matched against any pattern once the GPU was read (after the first
    # block): the literal set said they hold no literal of a signature or of a fact not yet read
    assert len(asked) < block // 50 + 300
