"""CPU builds where a GPU was wanted, Pythons no wheel serves, two cuDNN copies (session 20, helper inst32; issue 20):
what bug reports say in prose - TensorFlow's / JAX's / Paddle's CPU build installed over the GPU one, a framework's CPU
and GPU packages both installed in one environment, one copy of cuDNN loaded instead of another, a framework wheel
built for one Python only - and a fix that installs the CPU build on purpose, which is no resolution of a CPU-only
cause. Samples: tests/data/inst32 (README: file, label, thread); held back before the rules were written:
heldout/inst32-held (scored by scripts/score_pastes.py, never asserted here).
"""

from __future__ import annotations

import os

import pytest

from envcheck.explain.document import explain_text_document
from helpers import paste_readme_rows, paste_top, seen_evidence

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "inst32")
HELD = os.path.join(os.path.dirname(HERE), "heldout", "inst32-held")
ROWS = paste_readme_rows(DATA)
#: samples the rules do not read yet (said in the final report): a maintainer's answer to the reporter's question is
#: read as another author's environment (pytorch#986); the conda cuDNN 7.1.2 against the system's 7.0.4 is read as a
#: version mismatch (anaconda-issues#9174); a hedged "or the torch package wasn't installed with the cuda module"
#: (PanelCleaner#21); "no GPU is found under these new versions" on Windows without a TensorFlow version >= 2.11 stated
#: (tensorflow#60650); "pip uninstall onnxruntime onnxruntime-gpu" then onnxruntime-gpu alone as the fix (facefusion#269:
#: the same two lines are an install step before the failure in facefusion#32, so they are no evidence)
NOT_YET = {"facefusion-269-onnxruntime-and-onnxruntime-gpu-cuda-provider-disappears.txt",
           "pytorch-986-older-system-cudnn-picked-before-bundled.txt",
           "anaconda-9174-caffe2-conda-cudnn-7102-vs-system-7004.txt",
           "panelcleaner-21-rtx3060-cuda-unusable-reinstall-cu118.txt",
           "tensorflow-60650-windows-tf-after-2.10-gpu-not-found.txt"}


def _doc(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        return explain_text_document(fh.read())


def _top(text: str) -> str:
    return paste_top(explain_text_document(text))


@pytest.mark.parametrize("name", sorted(set(ROWS) - NOT_YET))
def test_dev_thread_top_cause_is_its_label(name):
    assert paste_top(_doc(os.path.join(DATA, name))) == ROWS[name][0]


def test_readmes_list_every_sample_with_its_thread_and_the_held_back_part_is_apart():
    on_disk = {f for f in os.listdir(DATA) if f.endswith(".txt")}
    assert on_disk == set(ROWS) and NOT_YET <= on_disk
    assert sum(1 for label, _ in ROWS.values() if label == "none") >= 4
    held = paste_readme_rows(HELD)
    assert {f for f in os.listdir(HELD) if f.endswith(".txt")} == set(held)
    assert not set(held) & set(ROWS)
    threads = [src for _, src in list(ROWS.values()) + list(held.values())]
    assert len(threads) == len(set(threads))  # one sample a thread
    assert all(src.startswith("https://github.com/") for src in threads)


# -- the readers: what is evidence and what is not ------------------------------------------------------------------
@pytest.mark.parametrize("line,kind,value", [
    ("When installing keras_vggface with pip, it is uninstalling my tensorflow-gpu and installing tensorflow which is "
     "using CPU.", "fw-cpu-said", "tensorflow"),
    ("CPU-version of Tensorflow is used.", "fw-cpu-said", "tensorflow"),
    ("The system installed the tensorlow with cpu version.", "fw-cpu-said", "tensorflow"),
    ("The Jax pip installation only comes with the CPU version of Jax.", "fw-cpu-said", "jax"),
    ("tensorflow-gpu : 1.4", "gpu-package", None),
    ("服务器上安装了CPU和GPU两个版本，但似乎是默认使用CPU版本", "both-builds-said", None),
    ("I have installed both the CPU and GPU versions in one env.", "both-builds-said", None),
    ("I had installed both onnxruntime and onnxruntime-gpu.", "both-builds-said", "onnxruntime"),
    ("However if the machine has a native CUDA library setting, TF will load the system library ahead of virtual "
     "environment one.", "lib-copy-shadowed", None),
    ("I find out that my `CONDA_PREFIX/lib` contains `libcudnn8.1.0` so TF will first use this version instead of the "
     "`libcudnn8.6.0`.", "lib-copy-shadowed", None),
    ("I need the torch==1.10.0 & python3.7 wheel on Jetson NX board, but I think there is only google drive url for "
     "torch==1.10.0 & python3.6.", "python-only-wheel", "3.6 | 3.7"),
    ("而paddle官方又只出了3.6的预测库", "python-only-wheel", "3.6 | "),
])
def test_the_sentence_is_evidence(line, kind, value):
    seen = seen_evidence(line)
    assert kind in seen
    if value is not None:
        assert seen[kind].startswith(value)


@pytest.mark.parametrize("line,kind", [
    ("Is it the cpu version of tensorflow?", "fw-cpu-said"),  # a question
    ("I uninstalled tensorflow cpu version and installed tensorflow-gpu.", "fw-cpu-said"),  # the removed build
    ("You should not use the CPU version of jax on this box.", "fw-cpu-said"),  # advice and a negation
    ("I installed tensorflow-gpu and it works.", "fw-cpu-said"),  # the GPU package is not its CPU build
    ("Does we require both paddlepaddle-gpu and paddlepaddle", "both-builds-said"),  # a question without its mark
    ("Do I need both the CPU and GPU versions installed?", "both-builds-said"),
    # an install step as often as a fix: after it only the GPU package is there (facefusion/facefusion#32)
    ("pip uninstall onnxruntime onnxruntime-gpu", "both-builds-said"),
    ("Is TF loading the system cudnn instead of the conda one?", "lib-copy-shadowed"),  # a question
    ("You should make TF use the pip cudnn instead of the system one.", "lib-copy-shadowed"),  # advice
    ("TF did not load the system cudnn instead of the conda one.", "lib-copy-shadowed"),  # a negation
    ("we only tested on python 3.9", "python-only-wheel"),  # no wheel, build or framework named
    ("Is the wheel only for python 3.8?", "python-only-wheel"),  # a question
])
def test_the_sentence_is_not_evidence(line, kind):
    assert kind not in seen_evidence(line)


# -- the engine: a cause only where the text shows what the rule needs ---------------------------------------------
def test_a_cpu_tensorflow_said_needs_the_gpu_wanted():
    said = "# Install question\n\nalice · description · 2020-01-01\nThe system installed the tensorflow with cpu version.\n"
    assert _top(said) == "none"  # nothing shows the GPU was wanted
    assert _top(said + "I need tensorflow-gpu for training.\n") == "framework-cpu-only"


def test_both_builds_said_is_the_cpu_only_cause_and_a_question_is_silent():
    base = "# paddle\n\nbob · description · 2023-07-13\n"
    assert _top(base + "服务器上安装了CPU和GPU两个版本，但似乎是默认使用CPU版本\n") == "framework-cpu-only"
    assert _top(base + "Do I need both paddlepaddle and paddlepaddle-gpu installed?\n") == "none"


def test_a_wheel_for_one_python_is_python_unsupported_only_where_the_python_differs():
    base = "# jetson\n\ncarol · description · 2022-05-22\n"
    assert _top(base + "I need the torch==1.10.0 & python3.7 wheel on Jetson NX, but there is only a link for "
                       "torch==1.10.0 & python3.6.\n") == "python-unsupported"
    assert _top(base + "I need the torch==1.10.0 wheel on Jetson NX, there is only a link for torch==1.10.0 & "
                       "python3.6.\n") == "none"  # no other Python shown: nothing to compare


def test_a_cudnn_copy_loaded_instead_of_another_is_duplicate_libraries():
    text = ("# cuDNN\n\ndave · description · 2023-08-11\nI find out that my `CONDA_PREFIX/lib` contains `libcudnn8.1.0` "
            "so TF will first use this version instead of the `libcudnn8.6.0` installed by pip.\n")
    assert _top(text) == "duplicate-libraries"


def test_installing_the_cpu_build_on_purpose_is_no_resolution():
    text = ("# build: force torch cpuonly\n\neve · description · 2024-06-21\nThis PR fixes all requirements files to "
            "ensure that the CPU version torch is installed even if a GPU is detected\n")
    assert _top(text) == "none"
    fixed = ("# torch\n\neve · description · 2024-06-21\ntorch.cuda.is_available() is False on my RTX 3060.\n\n"
             "eve · comment · 2024-06-22\nSolved: it was the cpu version of torch, reinstalled from the cu121 index.\n")
    assert _top(fixed) == "framework-cpu-only"  # the row still reads a real CPU-build resolution
