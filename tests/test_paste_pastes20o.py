"""Bug-report pastes collected for issue 20, fourth round (pastes20o): 29 new real reports (2023-2026, 24 trackers),
labelled before envcheck was run on them; a seeded third is held back (heldout/pastes20o, scored by
scripts/score_pastes.py, not here).

What this round adds, each from the emitting program's own text (sources cited at each test):

* TensorFlow's own answer to "built with CUDA?" printed in a REPL / notebook / ``python -c`` (reader
  ``tf_cuda_query``): ``tf.test.is_built_with_cuda()`` then ``False`` is the binary's build flag, the same fact as
  ``tf.sysconfig.get_build_info()``'s ``is_cuda_build``; ``is_built_with_gpu_support()`` False says no CUDA either.
* engine.asked_build: that CPU-only binary beside its own package record naming the CUDA build (conda-forge's
  ``cuda120py311...`` build string, ``tensorflow-gpu``) is ``framework-cpu-only`` (a mis-built or shadowed package).
* A GPU name that a pasted line cut inside its first word ("VIDIA GeForce RTX 5090") is refined by the whole name that
  torch's warning prints again on its last line.

Real samples: tests/data/pastes/pastes20o/ (README.md cites each thread and gives its label).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.merge import Merged
from tests.helpers import assert_top_is_label, check_hand_written_facts, doc_matches, paste_readme_rows, smi_table

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "pastes20o"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}

#: the working part's misses, each with the answer it gets today (so that a fix, or a new wrong answer, is seen):
#: all four show their cause only in prose (a GPU and a toolkit named in sentences; "installed Torch without the CUDA
#: version"; a driver branch said in a sentence beside "device kernel image is invalid", whose cause is not certain)
KNOWN_MISSES = {
    "bevfusion-606-rtx4090-cuda-11.3-sm89-mmcv-full-1.4.0.txt": None,
    "inference-snaps-255-gtx1080ti-driver-535-kernel-image-invalid.txt": None,
    "pinokio-open-webui-19-whisper-audio-no-cuda-forced-cu121.txt": None,
    "pytranscriber-56-windows-openai-whisper-torch-without-cuda.txt": None,
}
#: facts the text makes certain that are not read yet: (field, the value read today)
KNOWN_FACT_MISSES = {
    # (facts20s: read now - the past-tense prose line states nothing; the possessive driver key is read)
}


def _doc(text: str) -> dict:
    return explain_text_document(text)


_matches = doc_matches


def _ids(text: str) -> list:
    return [m["id"] for m in _doc(text).get("matches") or []]


def test_the_set_is_whole():
    assert len(ROWS) == 19
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert sum(1 for v in ROWS.values() if v == "none") >= 1
    held = {p.name for p in (ROOT / "heldout" / "pastes20o").glob("*.txt")}
    assert len(held) == 10 and not held & set(ROWS)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_top_cause_is_the_label(name):
    doc = _doc((DATA / name).read_text(encoding="utf-8"))
    assert_top_is_label(_matches(doc), name, ROWS[name], KNOWN_MISSES)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_hand_written_facts(name):
    want = json.loads((DATA / name).with_suffix(".facts.json").read_text())
    got = _doc((DATA / name).read_text(encoding="utf-8")).get("facts") or {}
    if name in KNOWN_FACT_MISSES:
        key, today = KNOWN_FACT_MISSES[name]
        cur = got
        for part in key.split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        assert cur == today
        return
    check_hand_written_facts(want, got)


# --- TensorFlow's build flag, printed ----------------------------------------------------------------------------------
# tensorflow/python/platform/test.py: is_built_with_cuda() returns _test_util.IsGoogleCudaEnabled() (the binary's
# build flag), is_built_with_gpu_support() is is_built_with_cuda() or is_built_with_rocm(). conda-forge/tensorflow-
# feedstock#365 printed the first in a REPL; the forms below are the same call in a notebook, a one-line shell command
# and a script's own "expr: value" print.
_GPU = smi_table("535.129.03", "12.2", [("NVIDIA GeForce RTX 3090", "24576")])


@pytest.mark.parametrize("printed", [
    ">>> import tensorflow as tf\n>>> tf.test.is_built_with_cuda()\nFalse\n",
    "In [2]: tf.test.is_built_with_cuda()\nOut[2]: False\n",
    "$ python -c \"import tensorflow as tf; print(tf.test.is_built_with_cuda())\"\nFalse\n",
    ">>> print(tf.test.is_built_with_gpu_support())\n\nFalse\n",
    "tf.test.is_built_with_cuda(): False\n",
])
def test_tf_says_it_is_a_cpu_build_beside_an_nvidia_gpu(printed):
    ids = _ids(_GPU + "tensorflow                2.15.0\n" + printed)
    assert ids and ids[0] == "framework-cpu-only"


@pytest.mark.parametrize("printed", [
    ">>> tf.test.is_built_with_cuda()\nTrue\n",
    ">>> tf.test.is_built_with_gpu_support()\nTrue\n",  # CUDA or ROCm: says nothing about CUDA
    "I ran `tf.test.is_built_with_cuda()` and it printed\nFalse\n",  # quoted in a sentence: not the call's output
    ">>> tf.test.is_gpu_available()\nFalse\n",  # a run-time answer (no GPU found), not the build's
    ">>> tf.test.is_built_with_cuda()\n>>> tf.__version__\n'2.15.0'\n",  # no value printed
])
def test_no_cpu_build_read_where_the_binary_did_not_say_so(printed):
    assert "framework-cpu-only" not in _ids(_GPU + "tensorflow                2.15.0\n" + printed)


# --- engine.asked_build: the CPU-only binary of a CUDA-labelled package ------------------------------------------------
_FEEDSTOCK = (DATA / "tf-feedstock-365-tf-2.15.0-cuda120-build-not-built-with-cuda.txt").read_text(encoding="utf-8")


def test_cuda_labelled_package_with_a_cpu_binary_is_framework_cpu_only():
    doc = _doc(_FEEDSTOCK)
    top = doc["matches"][0]
    assert top["id"] == "framework-cpu-only"
    assert "is_built_with_cuda" in top["evidence"]
    assert "cuda120py311h5cbd639_1" in top["fixes"][0]


def test_a_cpu_labelled_package_with_a_cpu_binary_is_no_finding_without_a_gpu():
    # the same REPL answer beside conda-forge's CPU build string: nothing shows the GPU was wanted (a CPU machine)
    text = _FEEDSTOCK.replace("cuda120py311", "cpu_py311")
    assert "framework-cpu-only" not in _ids(text)


def test_a_cuda_labelled_package_whose_binary_says_cuda_is_no_finding():
    assert "framework-cpu-only" not in _ids(_FEEDSTOCK.replace("is_built_with_cuda()\nFalse", "is_built_with_cuda()\nTrue"))


# --- a GPU name cut inside its first word -------------------------------------------------------------------------------
def test_a_name_cut_at_its_start_is_refined_by_the_whole_name():
    m = Merged()
    m.gpu((0, "VIDIA GeForce RTX 5090", "12.0", None))
    m.gpu_named(("NVIDIA GeForce RTX 5090", None))
    assert m.gpus[0] == {"name": "NVIDIA GeForce RTX 5090", "cc": "12.0"}


@pytest.mark.parametrize("first,second", [
    ("NVIDIA GeForce RTX 5090", "GeForce RTX 5090"),  # the second is shorter: the first stays
    ("GeForce RTX 3090", "NVIDIA GeForce RTX 3090"),  # a whole word more (a vendor prefix), not a cut: first stays
    ("RTX 5090", "NVIDIA GeForce RTX 4090"),  # another GPU
])
def test_other_names_keep_the_first(first, second):
    m = Merged()
    m.gpu((0, first, None, None))
    m.gpu_named((second, None))
    assert m.gpus[0]["name"] == first
