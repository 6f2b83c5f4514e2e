"""torch's Pythons on an Intel Mac (misc20r): compat_matrix/torch.toml's ``python_macos_x86_64`` per release, read from
PyPI's file lists (one `pip install --dry-run --platform macosx_14_0_x86_64 --python-version X torch==0.0.0` query per
Python, see the torch.toml notes), used by engine.builds.release_pythons for platform "macos-x86_64" and by the Apple
plan of `envcheck fix`. Before it, an Intel Mac used Linux's list: torch 1.13.1 was planned for Python 3.11, which has
no macOS x86_64 wheel of it."""

import json
import os
import subprocess
import sys

import pytest

from envcheck.engine.builds import release_pythons, release_supports_python
from envcheck.matrix import load_matrix

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)


def _v(s):
    return tuple(int(x) for x in s.split("."))


def test_every_torch_release_row_lists_its_macos_x86_64_pythons_within_linux_ones():
    m = load_matrix()
    rows = list(m.rows("torch", "release"))
    assert len(rows) >= 40
    for r in rows:
        mac = r.get("python_macos_x86_64")
        assert isinstance(mac, list), r["version"]
        # one exception, PyPI's file list (matrix25): torch-1.5.0-cp27-none-macosx_10_7_x86_64.whl has no Linux twin
        assert set(mac) - set(r["python"]) == ({"2.7"} if r["version"] == "1.5.0" else set()), r["version"]
        # PyPI has no macOS x86_64 torch wheel after 2.2.2; every release up to it has some
        assert (mac == []) == (_v(r["version"]) > (2, 2, 2)), r["version"]


@pytest.mark.parametrize("release,python,listed", [
    # what PyPI's file lists say (the torch.toml notes): 1.13.x had cp311 wheels for Linux only
    ("1.13.1", "3.11", False), ("1.13.1", "3.10", True), ("1.13.0", "3.7", True),
    ("2.2.2", "3.12", True), ("2.1.2", "3.12", False), ("2.0.0", "3.11", True),
    ("1.10.2", "3.6", True), ("1.11.0", "3.10", True),
    ("2.3.0", "3.11", False), ("2.5.1", "3.12", False),
])
def test_release_pythons_of_an_intel_mac(release, python, listed):
    row = load_matrix().torch_release(release)
    assert (python in release_pythons(row, "macos-x86_64")) is listed
    assert (python in release_pythons(row, "darwin-x86_64")) is listed


def test_the_other_platforms_keep_their_lists():
    row = load_matrix().torch_release("1.13.1")
    assert "3.11" in release_pythons(row, "linux-x86_64")
    assert "3.11" in release_pythons(row, None)
    assert release_pythons(row, "macos-aarch64") == tuple(row["python_macos_arm64"])


def test_release_supports_python_on_an_intel_mac():
    m = load_matrix()
    assert release_supports_python(m, "torch", "2.2.2", "3.12", "darwin", "x86_64") is True
    # listed for Linux, not for an Intel Mac: not confirmed (as on Windows and macOS arm64)
    assert release_supports_python(m, "torch", "1.13.1", "3.11", "darwin", "x86_64") is None
    assert release_supports_python(m, "torch", "1.13.1", "3.11", "linux", "x86_64") is True


def _fix(tmp_path, python, want):
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "python.json").write_text(json.dumps({"version": python, "implementation": "CPython",
                                                  "platform": "darwin", "machine": "x86_64"}), encoding="utf-8")
    (snap / "sw-vers.txt").write_text("ProductName:\tmacOS\nProductVersion:\t13.4\nBuildVersion:\t22F66\n",
                                      encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "envcheck", "fix", "--json", "--snapshot", str(snap), "--want", want],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


def test_fix_on_an_intel_mac_refuses_a_python_without_a_wheel_and_says_which_have_one(tmp_path):
    rc, doc = _fix(tmp_path, "3.11.5", "torch==1.13.1")
    assert rc == 1, doc
    text = json.dumps(doc)
    assert "3.7, 3.8, 3.9, 3.10" in text and "3.7, 3.8, 3.9, 3.10, 3.11" not in text


def test_fix_on_an_intel_mac_plans_a_python_that_has_a_wheel(tmp_path):
    rc, doc = _fix(tmp_path, "3.10.13", "torch==1.13.1")
    assert rc == 0, doc
    assert "torch==1.13.1" in json.dumps(doc)
