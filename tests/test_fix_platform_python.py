"""`envcheck fix` plans torch wheels with the Python list of the platform they are for: Windows' (compat_matrix/torch.toml
``python_windows``) on Windows and macOS arm64's (``python_macos_arm64``) on an Apple-silicon Mac, not Linux's
(``python``), which is longer where Linux was served first (torch 2.5.x has cp313 wheels for Linux only, 1.13.x
cp311). Real `envcheck fix` runs (a child process each) against the shipped matrix; the Mac is a real snapshot
(tests/data/snapshots/apple-m1-macos12.7.6-torch2.5.1-pytorch139425)."""

import json
import os
import subprocess
import sys

import pytest

from envcheck.engine.builds import release_pythons, torch_builds
from envcheck.matrix import load_matrix

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAC = os.path.join(ROOT, "tests", "data", "snapshots", "apple-m1-macos12.7.6-torch2.5.1-pytorch139425")


def _fix(*args):
    r = subprocess.run([sys.executable, "-m", "envcheck", "fix", "--json", *args], capture_output=True, text=True,
                       timeout=180, cwd=ROOT)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def _row(version):
    return load_matrix().torch_release(version) or {}


def test_the_matrix_rows_differ_where_this_matters():
    """The premise, read off the shipped matrix: torch 2.5.1's Linux list has 3.13, its Windows and macOS arm64 lists
    do not; 2.6.0's all have it."""
    assert "3.13" in _row("2.5.1")["python"]
    assert "3.13" not in _row("2.5.1")["python_windows"] and "3.13" not in _row("2.5.1")["python_macos_arm64"]
    assert all("3.13" in _row("2.6.0")[k] for k in ("python", "python_windows", "python_macos_arm64"))


@pytest.mark.parametrize("platform,key", [("windows-x86_64", "python_windows"), ("macos-arm64", "python_macos_arm64"),
                                          ("linux-x86_64", "python"), ("linux-aarch64", "python"), (None, "python")])
def test_release_pythons_takes_the_platforms_own_list(platform, key):
    row = _row("1.13.1")
    assert release_pythons(row, platform) == tuple(row[key])


def test_a_row_without_the_platforms_list_falls_back_to_linux():
    assert release_pythons({"python": ["3.10", "3.11"]}, "windows-x86_64") == ("3.10", "3.11")
    assert release_pythons({}, "windows-x86_64") == ()


def test_windows_cuda_builds_carry_the_windows_list():
    m = load_matrix()
    win = [b for b in torch_builds(m, "windows-x86_64") if b.version == "2.5.1"]
    lin = [b for b in torch_builds(m, "linux-x86_64") if b.version == "2.5.1"]
    assert win and lin
    assert all("3.13" not in b.python for b in win) and all("3.13" in b.python for b in lin)


def test_fix_on_windows_with_python_3_13_does_not_plan_torch_2_5():
    doc = _fix("--want", "torch==2.5.*", "--python", "3.13", "--platform", "windows-x86_64", "--driver", "560.94",
               "--cc", "8.6")
    assert doc["satisfiable"] is False and doc["packages"] == []
    assert "3.13" in doc["reason"]
    assert {"constraint": "python", "action": "use Python 3.12", "python": "3.12"} in doc["lifts"]


@pytest.mark.parametrize("platform,python", [("windows-x86_64", "3.12"), ("linux-x86_64", "3.13")])
def test_the_same_want_is_planned_where_the_wheel_exists(platform, python):
    doc = _fix("--want", "torch==2.5.*", "--python", python, "--platform", platform, "--driver", "560.94",
               "--cc", "8.6")
    assert doc["satisfiable"] is True
    assert [(p["name"], p["version"]) for p in doc["packages"]] == [("torch", "2.5.1")]


def test_fix_on_windows_with_python_3_13_plans_a_release_that_has_the_wheel():
    doc = _fix("--want", "torch", "--python", "3.13", "--platform", "windows-x86_64", "--driver", "560.94",
               "--cc", "8.6")
    assert doc["satisfiable"] is True
    version = doc["packages"][0]["version"]
    assert "3.13" in _row(version)["python_windows"]


def test_the_mac_plan_says_the_python_not_the_macos_lifts_it():
    """A real Apple M1 snapshot (macOS 12.7.6): torch 2.5.x for Python 3.13 has no macOS arm64 wheel, so the lift is
    another Python - upgrading macOS would not give one."""
    doc = _fix("--snapshot", MAC, "--python", "3.13", "--want", "torch==2.5.*")
    assert doc["satisfiable"] is False
    assert "Python 3.13" in doc["reason"]
    assert any(x["constraint"] == "python" and "3.12" in x["action"] and "3.13" not in x["action"]
               for x in doc["lifts"])
