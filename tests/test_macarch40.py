"""macarch40 (issue 20): an x86_64 Python on an Apple-silicon Mac (``python-arch-mismatch``) read from uv's current
platform tag (``macosx_15_0_x86_64``), from pip's version list ending at torch's last macOS x86_64 release (the matrix's
2.2.2) beside an Apple-silicon Mac, from a sentence naming "the x86-64 version of python" beside "an ARM-based mac", and
from jaxlib's AVX guard (its macOS wording anywhere; its other wording where the text names an Apple chip). The same
lists and tags on an Intel Mac are no cause (controls).

Readers: envcheck/paste/readers/prose_vendor.py (``python-x86-said``), envcheck/paste/readers/observe.py
(``apple-silicon``); rules: envcheck.engine.prose_causes ``apple_x86_wheels``, envcheck.engine.builds
``mac_x86_list_top``, envcheck.explain.rank ``drop_pip_mac_x86``; errors.toml ``# ---- macarch40 ----``. Real samples:
tests/data/macarch40 (README.md cites each thread); heldout/macarch40-held is the held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.engine import prose_causes
from envcheck.engine.builds import last_release_for, mac_x86_list_top
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.paste.readers import observe, prose_vendor
from helpers import readme_labels

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "macarch40"
PASTES = readme_labels(DATA / "pastes", (".txt", ".log"))
LOGS = readme_labels(DATA / "logs", (".txt", ".log"))


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def test_the_sets_are_whole():
    for folder, labels in (("pastes", PASTES), ("logs", LOGS)):
        assert sorted(labels) == sorted(p.name for p in (DATA / folder).iterdir() if p.suffix in (".txt", ".log"))
    assert list(PASTES.values()).count("none") >= 4  # controls
    assert list(LOGS.values()).count("none") >= 1


@pytest.mark.parametrize("name", sorted(PASTES))
def test_paste_top_cause_is_the_label(name):
    ids = _ids((DATA / "pastes" / name).read_text(encoding="utf-8"))
    assert (ids[0] if ids else "none") == PASTES[name], ids


@pytest.mark.parametrize("name", sorted(LOGS))
def test_log_top_cause_is_the_label(name):
    ids = _ids((DATA / "logs" / name).read_text(encoding="utf-8"))
    assert (ids[0] if ids else "none") == LOGS[name], ids


def test_the_last_macos_x86_64_release_is_matrix_data(matrix):
    """torch's last macOS x86_64 wheels are 2.2.2 (PyPI's file lists, compat_matrix/torch.toml python_macos_x86_64);
    the rule reads the matrix, so a list ending elsewhere is not that platform's."""
    last = last_release_for(matrix, "macos-x86_64")
    assert last == "2.2.2"
    line = "ERROR: Could not find a version that satisfies the requirement torch==2.4.1 (from versions: 2.2.0, 2.2.1, {})"
    assert mac_x86_list_top(matrix, line.format(last)) == last
    assert mac_x86_list_top(matrix, line.format("2.2.2, 2.3.0")) is None  # a list going on past it: another platform
    assert mac_x86_list_top(matrix, line.format("2.2.2").replace("torch==2.4.1", "torch==2.2.1")) is None  # found
    assert mac_x86_list_top(matrix, "ERROR: Could not find a version that satisfies the requirement torch "
                                    "(from versions: none)") is None
    assert mac_x86_list_top(None, line.format(last)) is None


@pytest.mark.parametrize("line", [
    "hint: You're on macOS (`macosx_15_0_x86_64`), but `torch` (v2.7.1) only has wheels for the following platform: "
    "`macosx_11_0_arm64`",
    "  ╰─▶ Because torch==2.11.0+cpu has no wheels with a matching platform tag (e.g., `macosx_26_0_x86_64`) and you "
    "require torch==2.11.0+cpu, we can conclude that your requirements are unsatisfiable.",
    "`Torch>2.2.2` is incompatible with the x86-64 version of python on macOS, as discussed here:",
])
def test_x86_python_is_read(line):
    assert any(f.field == "seen:python-x86-said" for f in prose_vendor.line_facts(line, line.lower()))


@pytest.mark.parametrize("line", [
    # an arm64 Python's tag (mcp-memory-service#78) and a Linux one are not an x86_64 Mac Python
    "hint: You're on macOS (`macosx_15_0_arm64`), but `torch` (v2.5.1) only has wheels for the following platform: "
    "`manylinux1_x86_64`",
    "hint: You're on Linux (`manylinux_2_35_x86_64`), but `torch` (v2.6.0) only has wheels for the following platform: "
    "`win_amd64`",
    # a condition, a question: not the reporter's Python
    "If you run `pip install b2aiprep` on an ARM-based mac with an x86-64 version of python, you will get this",
    "Do you have an x86-64 version of python?",
])
def test_no_x86_python_read(line):
    assert not any(f.field == "seen:python-x86-said" for f in prose_vendor.line_facts(line, line.lower()))


@pytest.mark.parametrize("line,chip", [
    ("Apple Mac Mini M4 24Gb RAM 512Gb SSD", True),
    ("# Not able to install vLLM in my new mac machine M5 pro", True),
    ("Mac Chip: Apple M3 Max", True),
    ("**注意矛盾点**：报告来自「M3 的 Mac」，但报错平台是 `x86_64`", True),
    ("If you run `pip install b2aiprep` on an ARM-based mac with an x86-64 version of python", False),
    ("I'm new to Jax, have a MacOS ARM and the initial setup wasn't quite smooth.", False),
])
def test_apple_silicon_is_read(line, chip):
    got = observe._apple_silicon(line, line.lower())
    assert any(f.field == "seen:apple-silicon" for f in got)
    assert any(f.field == "apple_prose" for f in got) is chip  # a chip named, or only an ARM Mac said


@pytest.mark.parametrize("line", [
    "Mac Pro (Late 2013), Intel Xeon E5",  # an Intel Mac
    "the arm64 wheel is missing from the release",  # no Mac
    "MacBook Pro 2019 with an Intel i9",
    "I use a Mac Mini with 16 GB",
])
def test_no_apple_silicon_read(line):
    assert not any(f.field == "seen:apple-silicon" for f in observe._apple_silicon(line, line.lower()))


def test_apple_x86_wheels_needs_the_mac_and_the_list(matrix):
    pip = ("ERROR: Could not find a version that satisfies the requirement torch==2.4.1 (from versions: 2.0.0, 2.0.1, "
           "2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, 2.2.2)")
    mac = {"apple-silicon": "Apple Mac Mini M4 24Gb RAM 512Gb SSD"}
    got = prose_causes.apple_x86_wheels(matrix, {}, mac, f"torch | {pip}")
    assert got is not None and got.id == "python-arch-mismatch" and "2.2.2" in got.message
    assert prose_causes.apple_x86_wheels(matrix, {}, {}, f"torch | {pip}") is None  # an Intel Mac, or unknown
    assert prose_causes.apple_x86_wheels(matrix, {}, mac, f"torchvision | {pip}") is None  # torch's numbers only
    longer = pip.replace("2.2.2)", "2.2.2, 2.3.0, 2.3.1)")
    assert prose_causes.apple_x86_wheels(matrix, {}, mac, f"torch | {longer}") is None
    nvidia = {**mac, "gpu-prose": "RTX 4090"}
    assert prose_causes.apple_x86_wheels(matrix, {}, nvidia, f"torch | {pip}") is None


def test_intel_mac_list_is_not_the_python():
    """pip's list ending at 2.2.2 on an Intel Mac: neither python-unsupported (the Python has wheels up to there) nor
    an arch mismatch (pytorch/pytorch#137281's paste, cut to the pip lines)."""
    text = ("$ python -V\nPython 3.12.3\n$ pip install torch==2.4.1\nERROR: Could not find a version that satisfies the "
            "requirement torch==2.4.1 (from versions: 2.2.0, 2.2.1, 2.2.2)\nERROR: No matching distribution found for "
            "torch==2.4.1\n")
    assert _ids(text) == []
    # the same pip line finding no version at all, the Python unknown, is still read as the Python
    none = text.replace("(from versions: 2.2.0, 2.2.1, 2.2.2)", "(from versions: none)").replace("Python 3.12.3\n", "")
    assert _ids(none)[:1] == ["python-unsupported"]


def test_jaxlib_guard_other_wording_needs_an_apple_chip():
    guard = ("RuntimeError: This version of jaxlib was built using AVX instructions, which your CPU and/or operating "
             "system do not support. You may be able work around this issue by building jaxlib from source.")
    assert _ids(guard) == []  # an old CPU elsewhere (jax-ml/jax#31723)
    frame = '  File "/Users/amir/.venv/lib/python3.8/site-packages/jax/_src/lib/__init__.py", line 85, in <module>\n'
    assert _ids(frame + guard) == []  # a Python, no chip
    assert _ids("CPU: Apple M1 Max\n" + frame + guard)[:1] == ["python-arch-mismatch"]  # jax-ml/jax#13886
