"""`status` on a Jetson snapshot without python.json (misc20r): the Python that the snapshot's jetson-release.txt
names (jetson_release -v's Platform "Python:" line, or the "Python Environment:" block printed with it) is the
Python's version, with a note naming where it came from; python.json, where there is one, is never overridden
(contract §9). The captures are real (tests/data/vendors/jetson-release; its README names their sources)."""

import json
import os
import shutil
import sys

import pytest

from envcheck.parse.tegra import jetson_release_python

sys.path.insert(0, os.path.dirname(__file__))
from helpers import status_json, status_of_files  # noqa: E402

HERE = os.path.dirname(__file__)
JR = os.path.join(HERE, "data", "vendors", "jetson-release")
SNAP = os.path.join(HERE, "data", "snapshots", "jetson-orin-nano-jp5.1.4-cuda12.3-jetson-fpv")


def _jr(name):
    with open(os.path.join(JR, name), encoding="utf-8") as fh:
        return fh.read()


def _python_notes(doc):
    return [n for n in doc["notes"] if "python.json" in n and "jetson-release.txt" in n]


def test_the_jetson_snapshot_without_python_json_reads_its_python_and_says_from_where():
    assert not os.path.exists(os.path.join(SNAP, "python.json"))
    doc = status_json(SNAP)
    assert doc["python"]["version"] == "3.8.10"
    notes = _python_notes(doc)
    assert len(notes) == 1 and "Python 3.8.10" in notes[0] and "Python Environment:" in notes[0]


@pytest.mark.parametrize("name,version,where", [
    # jetson_release -v, its Platform section's own line
    ("v10-v4.2.3-jp5.1.2-orin-nx-verbose-cut.txt", "3.8.10", '"Python:" line'),
    # the "Python Environment:" block pasted under a jetson_release (another capture than the snapshot's)
    ("v21l-4.2.12-jp5.1.4-orin-nano-tested-env2-python-env.txt", "3.8.10", "Python Environment:"),
])
def test_a_snapshot_of_jetson_release_alone_gets_the_python_it_names(tmp_path, name, version, where):
    doc = status_of_files(tmp_path, {"jetson-release.txt": _jr(name)})
    assert doc["python"]["version"] == version
    notes = _python_notes(doc)
    assert len(notes) == 1 and where in notes[0]


def test_python_json_is_never_overridden(tmp_path):
    snap = tmp_path / "snap"
    shutil.copytree(SNAP, snap)
    (snap / "python.json").write_text(json.dumps({"version": "3.10.12", "implementation": "CPython"}), encoding="utf-8")
    doc = status_json(snap)
    assert doc["python"]["version"] == "3.10.12" and doc["python"]["implementation"] == "CPython"
    assert _python_notes(doc) == []


def test_a_python_json_without_a_version_is_not_filled_from_jetson_release(tmp_path):
    """The file is there: its Python (unknown) is the one examined, not jetson-stats'."""
    doc = status_of_files(tmp_path, {"jetson-release.txt": _jr("v10-v4.2.3-jp5.1.2-orin-nx-verbose-cut.txt"),
                                     "python.json": "{}"})
    assert doc["python"]["version"] is None and _python_notes(doc) == []


def test_jetson_release_without_a_python_line_leaves_it_unknown(tmp_path):
    doc = status_of_files(tmp_path, {"jetson-release.txt": _jr("v10-v4.2.9-jp5.1.2-orin-nx-25w.txt")})
    assert doc["python"]["version"] is None and _python_notes(doc) == []


@pytest.mark.parametrize("text", [
    "Python Environment:\nPython 3.8.10\n",  # no jetson_release in it: not this tool's capture
    " - Python: 3.8.10\n",
    "",
    None,
    "Model: NVIDIA Orin Nano Developer Kit - Jetpack 5.1.4 [L4T 35.6.0]\n - Python: three\n",
])
def test_the_reader_names_no_python_where_the_text_is_not_jetson_release_or_says_none(text):
    assert jetson_release_python(text) is None


def test_the_reader_prefers_the_environment_block_and_strips_colours():
    text = ("\x1b[1mModel:\x1b[0m NVIDIA Jetson Orin NX - Jetpack 5.1.2 [L4T 35.4.1]\nPlatform:\n - Python: 3.8.10\n"
            "Python Environment:\nPython 3.9.18\n")
    assert jetson_release_python(text)[0] == "3.9.18"
