"""ONNX Runtime read from a real virtual environment: two wheels built here (onnxruntime, onnxruntime-gpu 1.16.1, each
with the METADATA pip writes and an ``onnxruntime`` package that raises when imported), installed by real pip from a
local wheelhouse (no index), then a real ``envcheck status --interpreter`` of that venv: the distributions are read from
their metadata, never imported, and the two packages sharing one folder are said."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers import build_wheel

RAISE = "raise SystemExit('envcheck imported onnxruntime')\n"


def test_status_reads_both_onnxruntime_packages_from_a_real_venv(tmp_path):
    wh = tmp_path / "wheelhouse"
    wh.mkdir()
    for name in ("onnxruntime", "onnxruntime-gpu"):
        build_wheel(str(wh), name, "1.16.1", {"onnxruntime/__init__.py": RAISE},
                    requires=())
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = str(venv / "bin" / "python")
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wh), PIP_DISABLE_PIP_VERSION_CHECK="1")
    r = subprocess.run([py, "-m", "pip", "install", "-q", "onnxruntime-gpu==1.16.1", "onnxruntime==1.16.1"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    imp = subprocess.run([py, "-c", "import onnxruntime"], capture_output=True, text=True, timeout=60)
    assert imp.returncode != 0 and "envcheck imported onnxruntime" in imp.stderr  # the guard works
    out = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--interpreter", py],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode in (0, 1), out.stderr
    rep = json.loads(out.stdout)
    fw = rep["frameworks"]["onnxruntime"]
    assert (fw["version"], fw["package"], fw["cuda"], fw["cudnn"]) == ("1.16.1", "onnxruntime-gpu", "11.8", "8")
    assert fw["build_info"]["packages"] == {"onnxruntime": "1.16.1", "onnxruntime-gpu": "1.16.1"}
