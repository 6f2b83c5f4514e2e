"""How current the matrix is (issue 23): `matrix status` shows its age and the newest release per framework;
`status` says `matrix-stale` (info) when an installed framework is newer than the matrix knows."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys

from envcheck.engine.freshness import matrix_age_days, newer_than_known, newest_known
from envcheck.matrix import Matrix, load_matrix
from helpers import gpu_machine, make_snapshot, torch_install

M = load_matrix()


def _run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, NO_COLOR="1", **(env or {})))


def test_newest_known_and_age_from_tables_given_here():
    m = Matrix(tables={
        "torch": {"meta": {"updated": "2026-10-01"}, "release": [{"version": "2.9.0"}, {"version": "2.10.0"},
                                                                 {"version": "2.9.1"}]},
        "cuda": {"meta": {"updated": "2026-11-01"}},
        "tensorflow": {"meta": {"updated": "2026-11-02"}, "release": [{"version": "2.20", "patches": ["2.20.0"]}]},
    })
    assert newest_known(m)["torch"] == "2.10.0"  # numerically, not as text
    assert newest_known(m)["tensorflow"] == "2.20.0"
    assert newest_known(m)["jax"] is None
    assert matrix_age_days(m, today=datetime.date(2026, 11, 26)) == 56  # the oldest table counts
    assert newer_than_known(m, "torch", "2.11.0+cu130") == ("2.11.0", "2.10.0")
    assert newer_than_known(m, "torch", "2.10.0") is None
    assert newer_than_known(m, "torch", "2.9.1") is None
    assert newer_than_known(m, "torch", "not-a-version") is None


def test_matrix_status_shows_age_and_newest():
    out = _run("matrix", "status", "--json")
    assert out.returncode == 0
    d = json.loads(out.stdout)
    assert d["newest"]["torch"] == newest_known(M)["torch"] and d["newest"]["cupy"]
    assert isinstance(d["age_days"], int) and d["updated"]
    text = _run("matrix", "status").stdout
    assert "newest known: torch " in text and "age:" in text


def _snap(tmp_path, version, cuda):
    files = gpu_machine("580.95.05", "13.0", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"])
    files.update(torch_install(version, cuda))
    return make_snapshot(str(tmp_path / "snap"), files)


def test_status_says_the_matrix_is_stale(tmp_path):
    newest = newest_known(M)["torch"]
    parts = newest.split(".")
    future = f"{parts[0]}.{int(parts[1]) + 1}.0"
    out = _run("status", "--snapshot", _snap(tmp_path, future + "+cu130", "13.0"), "--json")
    found = [f for f in json.loads(out.stdout)["findings"] if f["id"] == "matrix-stale"]
    assert len(found) == 1 and found[0]["severity"] == "info"
    assert newest in found[0]["message"] and "matrix update" in found[0]["fix"]


def test_status_quiet_when_the_release_is_known(tmp_path):
    out = _run("status", "--snapshot", _snap(tmp_path, "2.14.1+cu130", "13.0"), "--json")
    assert not [f for f in json.loads(out.stdout)["findings"] if f["id"] == "matrix-stale"]
