"""pyarch39 (issue 20): a 32-bit Python on Windows (``python-arch-mismatch``) read from pip building torch's placeholder
source distribution (torch-0.1.2.post2), from a "can't install PyTorch" title, and from pip refusing a win_amd64 wheel
built for the very Python version the text names; and ONNX Runtime's CPU-package provider list printed bare
(``['AzureExecutionProvider', 'CPUExecutionProvider']``) or in optimum's "Asked to use CUDAExecutionProvider ..."
(``framework-cpu-only``).

Readers: envcheck/paste/readers/py_bits.py, envcheck/paste/readers/observe.py; rule: envcheck.engine.prose_causes
``python_bits`` / ``_amd64_refused``. Real samples: tests/data/pyarch39 (README.md cites each thread); heldout/pyarch39-held
is the held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.engine import prose_causes
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.paste.readers import observe, py_bits
from helpers import readme_labels

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "pyarch39"
LABELS = readme_labels(DATA, (".txt", ".log"))

#: dev items the rules do not reach, and why
UNREACHED = {
    "pytorch-17657-python37-32-source-build-caffe2-fails-64-bit-works.txt":
        "a source build of PyTorch in a 32-bit Python fails in CMake: no pip failure and no 'cannot install' sentence, "
        "so nothing pairs with the Python37-32 folder",
}


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.iterdir() if p.suffix in (".txt", ".log"))
    assert list(LABELS.values()).count("none") >= 2  # controls


@pytest.mark.parametrize("name", sorted(LABELS))
def test_top_cause_is_the_label(name):
    ids = _ids((DATA / name).read_text(encoding="utf-8"))
    if name in UNREACHED:
        pytest.xfail(UNREACHED[name])
    assert (ids[0] if ids else "none") == LABELS[name], ids


@pytest.mark.parametrize("line", [
    "Using cached https://files.pythonhosted.org/packages/f8/02/880b/torch-0.1.2.post2.tar.gz",
    "Running setup.py install for torch ... error",
    "# Building wheel for torch (setup.py) ... error - While running pip install torch",
    "  Building wheel for torch (setup.py): finished with status 'error'",
    "File \"C:\\Users\\lucky\\AppData\\Local\\Temp\\pip-install-_fpxa43a\\torch\\setup.py\", line 225, in <module>",
    "# Cant install PyTorch",
    "# Can't install pytorch using pip under Windows 10",
    "I am unable to install tensorflow on my laptop",
])
def test_no_build_of_torch_retold(line):
    got = [f for f in py_bits.line_facts(line, line.lower()) if f.field == "seen:pip-none-said"]
    assert got and got[0].value.split(" | ")[0] in ("torch", "tensorflow")


@pytest.mark.parametrize("line", [
    "Building wheel for torch (setup.py) ... done",  # a build that worked
    "Running setup.py install for torchvision ... error",  # another package
    "Using cached torch-2.1.0-cp310-cp310-win_amd64.whl",  # a wheel, not the placeholder sdist
    "Can I install pytorch without CUDA?",  # a question
    "If you can't install torch, use conda.",  # a condition
])
def test_no_no_build_evidence_in_these(line):
    assert not [f for f in py_bits.line_facts(line, line.lower()) if f.field == "seen:pip-none-said"]


@pytest.mark.parametrize("line", [
    "Had the same issue. Try installing x64 distribution of Python. Tensorflow needs x64 distribution",
    "Please use a 64-bit installation of Python.",
])
def test_64_bit_advice_wordings(line):
    assert [f.field for f in py_bits.line_facts(line, line.lower())] == ["seen:python-32bit"]


@pytest.mark.parametrize("line", [
    "We tried installing 64-bit python already",
    "I was using 64-bit Python 3.9 all along",
    "If it's 32-bit, try re-installing 64-bit Python.",  # a condition: nothing stated
])
def test_no_32_bit_said_in_these(line):
    assert not [f for f in py_bits.line_facts(line, line.lower()) if f.field == "seen:python-32bit"]


def test_the_placeholder_sdist_alone_names_nothing():
    """Without a 32-bit Python the sdist build is no cause envcheck names (a Python too new; Windows before torch 1.5)."""
    text = "Collecting torch\n  Using cached torch-0.1.2.post2.tar.gz (128 kB)\n    Running setup.py install for torch ... error\n"
    assert _ids(text) == []
    assert _ids("C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python37-32\\python.exe -m pip install numpy\n" + text)[0] \
        == "python-arch-mismatch"


def test_win_amd64_wheel_refused_for_the_named_python(matrix):
    pip = "torch | torch-1.0.0-cp37-cp37m-win_amd64.whl is not a supported wheel on this platform."
    got = prose_causes.python_bits(matrix, {}, {"python-named-3.7": "Python 3.7"}, pip)
    assert got is not None and got.id == "python-arch-mismatch"
    # another Python named (the wheel is for 3.7, the text's Python 3.8): the version may be why - nothing here
    assert prose_causes.python_bits(matrix, {}, {"python-named-3.8": "Python 3.8"}, pip) is None
    assert prose_causes.python_bits(matrix, {}, {"python-named-3.7": "x", "python-named-3.8": "y"}, pip) is None
    assert prose_causes.python_bits(matrix, {"python": {"version": "3.8.2"}}, {"python-named-3.7": "x"}, pip) is None
    # no Python named at all: unknown
    assert prose_causes.python_bits(matrix, {}, {}, pip) is None
    # a Linux wheel refused: not the Windows architecture inference
    lin = "torch | torch-1.0.0-cp37-cp37m-linux_x86_64.whl is not a supported wheel on this platform."
    assert prose_causes.python_bits(matrix, {}, {"python-named-3.7": "Python 3.7"}, lin) is None
    # a package with 32-bit wheels is not read
    other = "numpy | numpy-1.0-cp37-cp37m-win_amd64.whl is not a supported wheel on this platform."
    assert prose_causes.python_bits(matrix, {}, {"python-named-3.7": "Python 3.7"}, other) is None


@pytest.mark.parametrize("line", [
    "  • ['AzureExecutionProvider', 'CPUExecutionProvider']",
    "['CPUExecutionProvider', 'AzureExecutionProvider']",
    "# BUG:ValueError: Asked to use CUDAExecutionProvider as an ONNX Runtime execution provider, but the available "
    "execution providers are ['AzureExecutionProvider', 'CPUExecutionProvider'].",
])
def test_ort_cpu_package_provider_list(line):
    s = line.strip()
    assert "seen:ort-cpu-providers" in [f.field for f in observe.line_facts(s, s.lower())]


@pytest.mark.parametrize("line", [
    "providers=['AzureExecutionProvider', 'CPUExecutionProvider']",  # what a program asks for
    "sess = ort.InferenceSession(p, providers = ['AzureExecutionProvider', 'CPUExecutionProvider'])",
    "['TensorrtExecutionProvider', 'CUDAExecutionProvider', 'AzureExecutionProvider', 'CPUExecutionProvider']",
    "['CPUExecutionProvider', 'CPUExecutionProvider']",
])
def test_no_ort_cpu_list_in_these(line):
    s = line.strip()
    assert "seen:ort-cpu-providers" not in [f.field for f in observe.line_facts(s, s.lower())]


def test_optimum_line_alone_is_framework_cpu_only():
    s = ("ValueError: Asked to use CUDAExecutionProvider as an ONNX Runtime execution provider, but the available "
         "execution providers are ['AzureExecutionProvider', 'CPUExecutionProvider'].")
    assert _ids(s)[:1] == ["framework-cpu-only"]
