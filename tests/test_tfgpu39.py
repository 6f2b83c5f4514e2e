"""TensorFlow / Paddle see no GPU because the CUDA they were built for is not the one installed, told in prose (issue
20, round tfgpu39), and a CUDA_VISIBLE_DEVICES set wrong told in Chinese.

Real samples: tests/data/tfgpu39/pastes (README.md cites each thread), the spent acceptance27 pastes of the family
(tensorflow-38990, tensorflow-62328, paddle-61528, paddle-17857); the held-back third is heldout/tfgpu39-held (scored by
scripts/score_pastes.py, not here).

What this round reads: compat_matrix/resolutions.toml rows (the framework's CUDA said beside the installed one, the
CUDA said too new and brought down, a CUDA toolkit put on LD_LIBRARY_PATH -> cuda-runtime-missing; the GPU's number /
CUDA_VISIBLE_DEVICES set wrong -> no-gpu-visible) and paste/readers/resolution.py's Chinese cause shapes
("问题主要是 ...", "... 设置问题", "cuda有些高").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.engine.resolution import causes_of
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.paste.readers.resolution import resolution_of
from tests.helpers import assert_top_is_label, doc_matches, paste_readme_rows

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "tfgpu39" / "pastes"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}
SPENT = ROOT / "heldout" / "acceptance27" / "pastes"

#: the working part's misses, each with the answer it gets today (a fix, or a new wrong answer, is seen): tensorflow#60206
#: names no TensorFlow release (only the docs' CUDA 11.8 and the installed 12.1); tensorflow#53383 (a control whose
#: label is no-gpu-driver) says no driver message, only nvidia-smi's missing file after a CUDA toolkit install
KNOWN_MISSES = {
    "tf-60206-cuda-12.1-installed-docs-need-11.8-windows-11.txt": None,
    "control-tf-53383-nvidia-smi-no-such-file-installed-nvidia-cuda-toolkit.txt": None,
}


def _matches(path: Path) -> list:
    return doc_matches(explain_text_document(path.read_text(encoding="utf-8")))


def test_readme_lists_every_sample():
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert len(ROWS) >= 8


@pytest.mark.parametrize("name", sorted(ROWS))
def test_dev_sample(name):
    assert_top_is_label(_matches(DATA / name), name, ROWS[name], KNOWN_MISSES)


@pytest.mark.parametrize("stem,label", [
    ("tensorflow-38990", "cuda-runtime-missing"),
    ("paddle-61528", "cuda-runtime-missing"),
    ("paddle-17857", "no-gpu-visible"),
])
def test_spent_family_samples(stem, label):
    path = next(SPENT.glob(stem + "-*.txt"))
    got = _matches(path)
    assert got and got[0].id == label, [(m.id, m.evidence) for m in got]


@pytest.mark.parametrize("sentence,cause", [
    # real sentences (acceptance27 pastes, tests/data/tfgpu39/README.md)
    ("i see on website that tensorflow works with 10.1 cuda version not with 10.2 and its a kali box",
     "cuda-runtime-missing"),
    ("另外，目前看来您使用的cuda有些高，请降为12.0再进行paddle.utils.run_check()。", "cuda-runtime-missing"),
    ("CUDA_VISIBLE_DEVICES变量设置问题", "no-gpu-visible"),
    ("这个问题主要是 GPU的编号没有指定对，需要指定 CUDA_VISIBLE_DEVICES", "no-gpu-visible"),
])
def test_rows_name_the_cause(sentence, cause):
    assert [c for c, _ in causes_of(load_matrix(), sentence)] == [cause]


@pytest.mark.parametrize("sentence", [
    # the same words that name no framework-vs-CUDA mismatch and no wrong device number
    "I updated the driver and CUDA 12.1 works with tensorflow 2.15 now",
    "export CUDA_VISIBLE_DEVICES=0 before running the script",
    "显卡驱动版本太低了",
    "我电脑上是cublas64_90.dll。",
    # the CUDA's memory, not its version; a batch size brought down
    "cuda显存占用过高，程序崩溃了",
    "cuda out of memory, 把batch_size降到8就好了",
])
def test_rows_stay_silent_on_other_words(sentence):
    assert "cuda-runtime-missing" not in [c for c, _ in causes_of(load_matrix(), sentence)]
    assert "no-gpu-visible" not in [c for c, _ in causes_of(load_matrix(), sentence)]


def test_toolkit_on_the_loader_path_names_the_runtime():
    """tensorflow#62328's fix names the CUDA toolkit on LD_LIBRARY_PATH (this row, which ``explains`` cudnn-missing) and
    cuDNN installed (the cudnn-missing row): the row whose fix also removes the other's messages is the one cause; its
    "If someone is solving the same issue," preface addresses later readers, it is no one else's claim."""
    m = load_matrix()
    line = "I've installed `cuda toolkit` and `cudnn`, updated `LD_LIBRARY_PATH` and it worked, basically:"
    assert sorted(c for c, _ in causes_of(m, line)) == ["cuda-runtime-missing", "cudnn-missing"]
    assert resolution_of("If someone is solving the same issue, " + line) == "fix"
    assert resolution_of("If someone says it worked, fine") is None  # someone else's claim, no preface
    got = _matches(next(SPENT.glob("tensorflow-62328-*.txt")))
    assert got and got[0].id == "cuda-runtime-missing", [(x.id, x.evidence) for x in got]


@pytest.mark.parametrize("sentence,kind", [
    ("CUDA_VISIBLE_DEVICES变量设置问题", "cause"),
    ("这个问题主要是 GPU的编号没有指定对", "cause"),
    ("目前看来您使用的cuda有些高，请降为12.0", "cause"),
    # a question or a bare word is no resolution
    ("是不是cuda版本太高了？", None),
    ("这个问题", None),
])
def test_chinese_cause_shapes(sentence, kind):
    assert resolution_of(sentence) == kind


def test_controls_keep_their_own_cause():
    got = _matches(DATA / "control-tf-60156-tf-2.11-windows-not-built-with-cuda-torch-sees-gpu.txt")
    assert got and got[0].id == "framework-cpu-only"
    got = _matches(DATA / "control-tf-53383-nvidia-smi-no-such-file-installed-nvidia-cuda-toolkit.txt")
    assert "cuda-runtime-missing" not in [m.id for m in got]


@pytest.mark.parametrize("line,found", [
    # the title forms (tensorflow#41374, #47669)
    ("# TensorFlow 2.2.0 doesn't detect GPU with CUDA version 10.2", ("2.2.0", "10.2")),
    ("# Tensorflow 2.3.1 training does not use GPU but CPU with CUDA 11.2", ("2.3.1", "11.2")),
    # no symptom, a question, or the CUDA not beside it: nothing from this form
    ("TensorFlow 2.2.0 works with CUDA 10.1", None),
    ("If tensorflow 2.2 does not detect the GPU with CUDA 10.2, what should I do", None),
])
def test_tf_no_gpu_cuda_sentence(line, found):
    from envcheck.paste.readers.prose_facts import line_facts

    got = {f.field: f.value for f in line_facts(line, line.lower())}
    assert ((got.get("tf.version"), got.get("claim.cuda")) if "seen:no-gpu-seen" in got else None) == found


def test_os_unknown_needs_both_builds_to_agree():
    from envcheck.engine.claims import tf_claimed_cuda_mismatch

    m = load_matrix()
    # TF 2.2: Linux and Windows both built for CUDA 10.1: the claim 10.2 is judged, both runtime files named
    msg = tf_claimed_cuda_mismatch(m, "2.2.0", "10.2", "")
    assert msg and "libcudart.so.10.1" in msg and "cudart64_101.dll" in msg
    assert tf_claimed_cuda_mismatch(m, "2.2.0", "10.1", "") is None
    # TF 2.11+: no native-Windows GPU build, so with the OS unknown the claim decides nothing
    assert tf_claimed_cuda_mismatch(m, "2.12.0", "10.2", "") is None
