"""Bug-report pastes collected for issue 20 (pastes20e): TensorFlow's issue template whose CUDA/cuDNN field is the
reporter's claim (checked against the release's tested build configuration, engine/claims.py), TF's "Could not find
cuda drivers on your machine" (the CUDA *runtime* not loading), "DNN library is not found" after a cuDNN version
mismatch, and TensorFlow / Python versions typed on lines of their own.

Real samples: tests/data/pastes/pastes20e/ (README.md cites each issue; labels.txt the top cause the thread or the
log's own lines establish). heldout/pastes20e/ is scored by its score.py, not here. The expected facts and labels are
hand-written from the texts, not from this code."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from envcheck.engine.claims import tf_claimed_cuda_mismatch
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.paste import read_report

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_paste_facts, check_paste_top_is_label, label_pairs, paste_top, readme_rows  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "pastes20e"
LABELS = dict(label_pairs(str(DATA / "labels.txt")))
#: labels the text alone cannot reach, with why (kept as expected failures, not hidden)
UNREACHED = {
    "guided-diffusion-keras-8-bare-tf-2.8.0-cudnn-8.1.1-cuda-11.2-dnn-not-found.txt":
        "'DNN library is not found' alone, and the typed cuDNN 8.1.1 is the one TF 2.8 was built for: that another "
        "cuDNN was loaded is only in the thread's answer",
}


_doc = explain_text_document
_top = paste_top


@pytest.mark.parametrize("name", sorted(LABELS))
def test_top_cause_is_the_label(name):
    check_paste_top_is_label(DATA, name, LABELS[name], UNREACHED)


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.facts.json")))
def test_facts_are_the_hand_written_ones(name):
    check_paste_facts(DATA, name)


def test_every_sample_is_cited():
    cited = {r[0] for r in readme_rows(DATA, source=r"https://github\.com/\S+", remark=r" [^|]*?")}
    for name in LABELS:
        assert name in cited, name


# ------------------------------------------------------------------------------------ the CUDA claim rule
@pytest.mark.parametrize("tf, claim, platform, needs", [
    ("2.12.0", "12.4", "linux", "11.8"),   # tf-70444: TF 2.12 is built for CUDA 11.8
    ("2.3.0", "11.2", "win32", "10.1"),    # tf-47602 (pastes20d): cudart64_101.dll
    ("2.2.0", "11.0", "linux", "10.1"),
    # before CUDA 11 the runtime's file names the minor: TF 2.2 loads libcudart.so.10.1, which CUDA 10.2 does not
    # have (tensorflow/tensorflow#38194: "Could not load dynamic library 'libcudart.so.10.1'" with CUDA 10.2)
    ("2.2.0", "10.2", "linux", "10.1"),
    ("1.13.1", "10.1", "win32", "10.0"),  # cudart64_100.dll, not in CUDA 10.1
])
def test_a_claimed_cuda_of_another_major_is_named(tf, claim, platform, needs):
    msg = tf_claimed_cuda_mismatch(load_matrix(), tf, claim, platform)
    assert msg is not None and f"CUDA {needs}" in msg and f"CUDA {claim}" in msg and "claim" in msg


@pytest.mark.parametrize("tf, claim, platform", [
    ("2.12.0", "11.7", "linux"),   # the same major: the runtime is libcudart.so.11.0 for every 11.x
    ("2.2.0", "10.1.243", "linux"),  # the same CUDA 10.1 (a patch of it)
    ("1.15.4", "10.0", "linux"),   # STT-2167 (pastes20d control)
    ("2.14.0", "11.2", "win32"),   # native Windows after 2.10: no CUDA build at all (framework-cpu-only says so)
    ("2.15.0", "11.8", "linux"),   # tensorflow[and-cuda] brings its own runtime: the claim alone says nothing
    ("9.9.0", "12.4", "linux"),    # a release the matrix does not know: unknown, no rule
])
def test_no_claim_finding_where_the_claim_cannot_be_the_cause(tf, claim, platform):
    assert tf_claimed_cuda_mismatch(load_matrix(), tf, claim, platform) is None


def test_claim_rule_needs_the_os_and_stays_a_claim():
    form = "### TensorFlow version\n\n2.12.0\n\n### CUDA/cuDNN version\n\nCUDA 12.4\n"
    assert _top(_doc(form)) == "none"  # Linux or native Windows differ: without the OS nothing is said
    doc = _doc("### TensorFlow version\n\n2.12.0\n\n### OS platform and distribution\n\nLinux Ubuntu 22.04\n\n"
               "### CUDA/cuDNN version\n\nCUDA 12.4\n")
    assert _top(doc) == "cuda-runtime-missing"
    assert doc["facts"]["claims"]["cuda"] == "12.4"
    assert doc["facts"]["toolkit"]["version"] is None  # a claim is never the installed toolkit
    same = _doc("### TensorFlow version\n\n2.12.0\n\n### OS platform and distribution\n\nLinux Ubuntu 22.04\n\n"
                "### CUDA/cuDNN version\n\n11.8/8.6\n")
    assert _top(same) == "none"  # a consistent claim: silent


def test_cudnn_claim_with_the_word_version():
    rep = read_report("- CUDA/cuDNN version: CUDA Version: 12.4, cuDNN Version: 9.0.0\n- TensorFlow version: 2.12.0\n")
    assert rep.facts["claims"]["cuda"] == "12.4" and rep.facts["claims"]["cudnn"] == "9.0.0"


# ------------------------------------------------------------------------------------ the knowledge base
def test_could_not_find_cuda_drivers_is_the_runtime_not_the_driver():
    line = ("2023-11-06 01:01:39.145881: I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your "
            "machine, GPU will not be used.\n")
    assert _top(_doc(line)) == "cuda-runtime-missing"
    # the real driver failure of the same log family keeps its own cause
    drv = ("E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: UNKNOWN ERROR (34)\n"
           "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does not appear to be running on "
           "this host (pod): /proc/driver/nvidia/version does not exist\n")
    assert _top(_doc(drv)) == "no-gpu-driver"


def test_dnn_library_not_found_after_a_version_mismatch_is_the_mismatch():
    mism = ("E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded runtime CuDNN library: 8.0.5 but "
            "source was compiled with: 8.6.0.  CuDNN library needs to have matching major version and equal or higher "
            "minor version.\n")
    dnn = "W tensorflow/core/framework/op_kernel.cc:1830] OP_REQUIRES failed at conv_ops.cc:1068 : UNIMPLEMENTED: DNN library is not found.\n"
    assert _top(_doc(mism + dnn)) == "cudnn-version-mismatch"
    assert _top(_doc(dnn)) == "cudnn-missing"  # alone it stays what it says


# ------------------------------------------------------------------------------------ bare version lines
@pytest.mark.parametrize("text, tf, py", [
    ("- tensorflow-gpu 2.2.0\n- Python 3.8.3\n", "2.2.0", "3.8.3"),
    ("python version 3.8\ntensorflow: 2.8.0\n", "2.8.0", "3.8"),
    ("- Tensorflow version is 2.12.0\n- Python version is 3.8.13\n", "2.12.0", "3.8.13"),
])
def test_bare_tensorflow_and_python_lines(text, tf, py):
    rep = read_report(text)
    assert rep.facts["frameworks"]["tensorflow"]["version"] == tf and rep.facts["python"]["version"] == py


@pytest.mark.parametrize("text", [
    "Running tf 2.1 on windows 10 installed via pip\n",
    "I installed tensorflow 2.8.0 yesterday and it fails\n",
    "python 3.8 was used\n",
    "- tensorflow 2.8.0 with cuda 11.2\n",
])
def test_prose_with_versions_is_not_read(text):
    rep = read_report(text)
    assert not rep.found and rep.facts == {}


def test_long_lines_are_not_read():
    rep = read_report(("- tensorflow " + " " * 5000 + "2.8.0\n") * 20 + ("python version " + "3." * 3000 + "\n") * 5)
    assert rep.facts.get("frameworks", {}).get("tensorflow") is None and rep.facts.get("python", {}).get("version") is None


@pytest.mark.parametrize("source", [
    "- TensorFlow installed from (source or binary): source\n",
    "### Source\n\nsource\n\n",
])
def test_no_claim_finding_for_a_build_from_source(source):
    # a source build follows the CUDA it was configured with (pastes20e-b's tf-31216: TF 1.12 built with CUDA 10)
    base = ("### TensorFlow version\n\n2.12.0\n\n### OS platform and distribution\n\nLinux Ubuntu 22.04\n\n"
            "### CUDA/cuDNN version\n\nCUDA 12.4\n\n")
    assert _top(_doc(base)) == "cuda-runtime-missing"
    assert _top(_doc(source + base)) == "none"
    assert _top(_doc("### Source\n\nbinary\n\n" + base)) == "cuda-runtime-missing"


def test_template_values_in_backticks_are_read():
    """The plain template filled in with backticks (as in tensorflow/tensorflow#41041's report)."""
    from envcheck.paste import read_report

    f = read_report("- TensorFlow version: `2.2.0`\n- Python version: `3.7.6`\n"
                    "- CUDA/cuDNN version: `10.1` / `7.6.5`\n").facts
    assert f["frameworks"]["tensorflow"]["version"] == "2.2.0"
    assert f["python"]["version"] == "3.7.6"
    assert f["claims"]["cuda"] == "10.1"


def test_an_os_typed_window_is_windows_and_a_window_manager_is_not():
    from envcheck.paste.readers.fields import tf_os

    assert [f.value for f in tf_os("Window 10") if f.field == "platform"] == ["win32"]
    assert [f.value for f in tf_os("window manager xfce on ubuntu") if f.field == "platform"] == ["linux"]
    assert tf_os("windowing") == []


def test_a_failure_the_text_shows_outranks_the_claim():
    """The TF template claims CUDA 11.0 beside TF 2.2.0 (tested with CUDA 10.1 / cuDNN 7): the claim alone makes
    cuda-runtime-missing, but the library failure the paste itself shows (libcudnn.so.7 not found, here only in
    the issue's title line, which scores lower than a log line) comes first."""
    text = ("Cuda 11.0 with cuDNN v8.0.1 problem when using GPU : libcudnn.so.7: cannot open shared object file\n\n"
            "- OS Platform and Distribution: Ubuntu 18.04\n- TensorFlow version: 2.2.0\n"
            "- CUDA/cuDNN version: 11.0 / 8.0.1\n")
    ids = [m["id"] for m in explain_text_document(text)["matches"]]
    assert ids[:2] == ["cudnn-missing", "cuda-runtime-missing"]
    alone = [m["id"] for m in explain_text_document(text.split("\n", 2)[2])["matches"]]
    assert alone[:1] == ["cuda-runtime-missing"]


def test_first_version_is_linear_on_a_run_of_blanks():
    """The optional quote before a version sits between two runs of blanks only when it is there: a long run of
    blanks without one is not split two ways (it was quadratic: ~0.08 s a call for 2,000 blanks)."""
    import time

    from envcheck.paste.readers.base import first_version

    t0 = time.perf_counter()
    for _ in range(300):
        assert first_version(" " * 2000 + "x") is None
    assert time.perf_counter() - t0 < 10.0
    assert first_version(" ` 2.2.0`") == "2.2.0" and first_version("'3.7.6'") == "3.7.6"
