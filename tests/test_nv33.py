"""nv33 (issue 20): NVIDIA pastes whose cause the environment's facts decide - a 32-bit Python that pip finds no torch or
TensorFlow for (``python-arch-mismatch``), a TensorFlow release said not to work on a GPU newer than every build of
it (``gpu-arch-unsupported``, from compat_matrix/tensorflow.toml's CUDA and compat_matrix/cuda.toml's targets), and
cuBLAS not initialised where the thread blames GPU memory (``gpu-out-of-memory``).

Readers: envcheck/paste/readers/py_bits.py, envcheck/paste/readers/tf_gpu.py, envcheck/paste/readers/cublas_mem.py;
rules: envcheck.engine.prose_causes ``python_bits``, ``tf_too_old``, ``memory_blamed``. Real samples: tests/data/nv33 (README.md cites each thread); heldout/nv33-held is the
held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.engine import prose_causes
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.paste.readers import cublas_mem, py_bits, tf_gpu
from helpers import readme_labels

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "nv33"
LABELS = readme_labels(DATA)

#: dev items the rules do not reach, and why
UNREACHED = {
    "deeplabcut-944-rtx-3090-tensorflow-1.13-1.15-cuda-10-11-combinations-fail.txt":
        "the releases are a table's cells (\"10 | 1.15.2 | 7.6.5 | ... failing\") with no TensorFlow word beside the "
        "failure: no sentence says which release fails",
    "fastertransformer-90-control-rtx-3090-cublas-status-not-initialized-build-without-sm-86.txt":
        "a control for the memory rule (silent: no sentence blames memory); the sm_86 build the answer asks for is a "
        "project's CMake flag, which no rule reads",
    "pytorch-32418-control-asked-32-bit-python-answer-64-bit-pip3-another-environment.txt":
        "a control for the 32-bit rule (which stays silent); pip's line is still read as python-unsupported, as before "
        "nv33 (pip3 of another Python was the cause: no contract id)",
}


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert list(LABELS.values()).count("none") >= 3  # controls


@pytest.mark.parametrize("name", sorted(LABELS))
def test_top_cause_is_the_label(name):
    ids = _ids((DATA / name).read_text(encoding="utf-8"))
    if name in UNREACHED:
        pytest.xfail(UNREACHED[name])
    assert (ids[0] if ids else "none") == LABELS[name], ids


@pytest.mark.parametrize("name", sorted(n for n, lab in LABELS.items() if lab != "python-arch-mismatch"))
def test_no_32_bit_verdict_where_the_python_is_not_shown_32_bit(name):
    """The controls (lscpu's "32-bit, 64-bit" op-modes, a "(64-bit runtime)" Python 3.12, a question answered "I am
    using 64-bit Python") and the GPU texts never say python-arch-mismatch."""
    assert "python-arch-mismatch" not in _ids((DATA / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("line", [
    "Please use a 64-bit Python installation instead.",
    "Install python 64bit not 32bit",
    "Make sure it is 64-bit python. There is no torch available on 32-bit python",
    "`tensorflow` requires 64-bit Python to install.",
    "Also, please use Python x64 instead.",
    "Reinstall python of 64bit [Executable File](https://www.python.org/ftp/python/3.8.5/python-3.8.5-amd64.exe) for windows.",
    "Turns out that tensorflow is just for x64 versions of python, so i had to uninstall the x32 version",
    "You were right i was using a 32-bit version of python so i installed the 64 bit version",
    "sys.version: 3.7.3 (v3.7.3:ef4ec6ed12, Mar 25 2019, 21:26:53) [MSC v.1916 32 bit (Intel)]",
    "Python version: 3.7 (32-bit runtime)",
    "C:\\Python\\Python37-32\\Scripts>pip install torch==1.5.1+cpu torchvision==0.6.1+cpu",
])
def test_a_32_bit_python_shown_or_said(line):
    assert [f.field for f in py_bits.line_facts(line, line.lower())] == ["seen:python-32bit"]


@pytest.mark.parametrize("line", [
    "Are you using 32-bit Python?",
    "Is your Python on 32 bits? Why do you want to install an rc?",
    "Assuming your Python distribution is 64-bit and not 32-bit, could you try then `conda install tensorflow`",
    "If you are using Python 64-bit, you should get `8` as the output of the command",
    "@peterjc123 Yes, I am pretty sure that I am using 64-bit Python",
    "My python is on 64 bits and output for that command is",
    "CPU op-mode(s):                     32-bit, 64-bit",
    "Python version: 3.12.0 | packaged by conda-forge | (main, Oct  3 2023, 08:43:22) [GCC 12.3.0] (64-bit runtime)",
    "Python 3.10.11 (tags/v3.10.11:7d4cc5a, Apr  5 2023, 00:38:17) [MSC v.1929 64 bit (AMD64)] on win32",
    "- **Windows 10 (64-bit)**",
])
def test_no_32_bit_python_in_these(line):
    assert not [f for f in py_bits.line_facts(line, line.lower()) if f.field == "seen:python-32bit"]


def test_pip_retold_read_and_pips_own_line_left_to_the_knowledge_base():
    s = "I tried to install tensorflow but encountered an error as there is no matching distribution."
    assert [f.value.split(" | ")[0] for f in py_bits.line_facts(s, s.lower())] == ["tensorflow"]
    s = "ERROR: No matching distribution found for torch===1.6.0"  # pip's own line: errors.toml's signature reads it
    assert py_bits.line_facts(s, s.lower()) == []
    s = "Is there no matching distribution for tensorflow on Windows?"
    assert py_bits.line_facts(s, s.lower()) == []


def test_the_version_stays_the_cause_where_no_release_serves_it(matrix):
    """A 32-bit Python said beside pip's failure, but a Python no torch release of the matrix has wheels for: the
    version is the cause, python_bits says nothing."""
    served = set(prose_causes._served_pythons(matrix, "torch"))
    assert "3.9" in served
    lines = {"python-32bit": "Install python 64bit not 32bit"}
    pip = "torch | ERROR: No matching distribution found for torch"
    assert prose_causes.python_bits(matrix, {"python": {"version": "3.9.7"}}, lines, pip).id == "python-arch-mismatch"
    old = next(v for v in ("2.6", "3.2", "3.3") if v not in served)
    assert prose_causes.python_bits(matrix, {"python": {"version": old + ".1"}}, lines, pip) is None
    assert prose_causes.python_bits(matrix, {}, lines) is None  # no pip failure
    # a package with 32-bit wheels of its own is not judged
    assert prose_causes.python_bits(matrix, {}, lines, "onnxruntime | ERROR: No matching distribution found for "
                                    "onnxruntime") is None


@pytest.mark.parametrize("line, release", [
    ("May I ask if I can train this model on RTX 3090 GPU? It seems that tensorflow1.8 doesn't work properly on "
     "RTX3090.", "1.8"),
    ("As @bhack mentioned, TF 1.x does not support RTX 3000, as it only supports older versions of CUDA.", "1.x"),
    ("RTX 3080 TI does not work with TF 1.12 CUDA 9.2", "1.12"),
    ("I believe the OSS pip package for TensorFlow 2.12.0 was also built against cuda 11.8 and should work for you, "
     "but TF 2.3 will not.", "2.3"),
])
def test_a_tensorflow_said_not_to_work(line, release):
    got = tf_gpu.line_facts(line, line.lower())
    assert [f.value.split(" | ")[0] for f in got] == [release]


@pytest.mark.parametrize("line", [
    "3. Will I run the program on version tf.1.x with RTX3000?",
    "I don't think TF 2.3 will work on the upcoming cards, but TF 2.4 will.",
    "Yes this works with CUDA 11.x with tensorflow 2.4. I have done it",
])
def test_no_tensorflow_failure_in_these(line):
    assert tf_gpu.line_facts(line, line.lower()) == []


def _tf(release: str, gpu: str) -> dict:
    return {"tf-fails-said": f"{release} | TF {release} does not work", "gpu-prose": gpu}


def test_tf_older_than_the_gpu(matrix):
    f = prose_causes.tf_too_old(matrix, {}, _tf("2.3", "RTX 4090"))
    assert f is not None and f.id == "gpu-arch-unsupported" and "8.9" in f.message
    f = prose_causes.tf_too_old(matrix, {}, _tf("1.x", "RTX 3080 Ti"))
    assert f is not None and "2.4" in f.fix  # the first release whose CUDA (11.0, sm_80 code) runs on an 8.6 GPU


@pytest.mark.parametrize("release, gpu", [
    ("2.4", "RTX 3090"),   # CUDA 11.0: sm_80 code runs on compute capability 8.6
    ("2.5", "RTX 3070"),
    ("1.15", "RTX 2080 Ti"),  # CUDA 10.0 builds sm_75
    ("1.8", "GTX 1080"),
])
def test_no_verdict_where_a_build_reaches_the_gpu(matrix, release, gpu):
    assert prose_causes.tf_too_old(matrix, {}, _tf(release, gpu)) is None


def test_the_verdict_needs_the_text_to_say_it_fails(matrix):
    """TF 1.14 from pip starts on an RTX 3090 through a PTX JIT (tests/data/attack38): the matrix alone says nothing."""
    assert prose_causes.tf_too_old(matrix, {}, {"gpu-prose": "RTX 3090", "tensorflow-prose": "1.14"}) is None


@pytest.mark.parametrize("name", sorted(n for n, lab in LABELS.items() if lab != "gpu-out-of-memory"))
def test_no_memory_verdict_where_no_sentence_blames_memory(name):
    """cuBLAS not initialised on an RTX 3090 built without sm_86, or in cuBLASLt on a Blackwell GPU: not memory."""
    assert "gpu-out-of-memory" not in _ids((DATA / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("line", [
    "您好，可以补充下运行环境和加载模型使用的精度么，这个错误大概率是超显存导致的",
    "我推测是显存不足导致handle无法初始化",
    "This seems to possibly be an out-of-memory being masked by the CUBLAS_STATUS_NOT_INITIALIZED error.",
    "See this issue, most probably due to not having enough memory. Reduce seq_length or batch_size",
    "This seems to be an instance of a more general problem w/ trying to load CUDA libraries with insufficient memory",
])
def test_memory_blamed(line):
    assert "seen:memory-blamed" in [f.field for f in cublas_mem.line_facts(line, line.lower())]


@pytest.mark.parametrize("line", [
    "GPU：RTX 4090 24G memory",
    "Is it a memory issue?",
    "This solves failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED issue if caused due to GPU memory limit.",
    "显存充足，不是显存的问题",
    "Even with batch size 1 and seq length = 256, getting this error......can cuda version be the possible cause?",
])
def test_memory_not_blamed(line):
    assert "seen:memory-blamed" not in [f.field for f in cublas_mem.line_facts(line, line.lower())]


def test_the_memory_rule_needs_both():
    init = "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`"
    assert [f.field for f in cublas_mem.line_facts(init, init.lower())] == ["seen:cublas-init-failed"]
    said = "我推测是显存不足导致handle无法初始化"
    assert prose_causes.memory_blamed({"cublas-init-failed": init, "memory-blamed": said}).id == "gpu-out-of-memory"
    assert prose_causes.memory_blamed({"memory-blamed": said}) is None  # memory said, no cuBLAS failure
    assert prose_causes.memory_blamed({"cublas-init-failed": init}) is None
