"""The Python API (envcheck.status / explain / plan, docs/api.md) returns exactly the documents the
commands print with --json, built by the same code, and costs nothing until it is called."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import envcheck
from envcheck import schemas
from envcheck.errors import UsageError
from helpers import gpu_machine, make_snapshot, torch_install

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _cli(*args: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=ROOT, COLUMNS="100"))
    assert r.returncode in (0, 1), r.stderr[-800:]
    return json.loads(r.stdout)


@pytest.fixture
def machine(tmp_path):
    files = gpu_machine("470.82.01", "11.4", [("NVIDIA GeForce RTX 3090", 24576)], cc=["8.6"])
    files.update(torch_install("2.5.1+cu124", "12.4"))
    return make_snapshot(str(tmp_path / "m"), files)


def test_status_is_the_status_document(machine):
    doc = envcheck.status(machine)
    schemas.validate(doc)
    cli = _cli("status", "--json", "--snapshot", machine)
    for d in (doc, cli):
        d.pop("created")
    assert doc == cli
    assert doc["ok"] is False and "driver-too-old" in {f["id"] for f in doc["findings"]}


def test_explain_is_the_explain_document(tmp_path):
    log = tmp_path / "train.log"
    text = ("PyTorch version: 2.5.1+cu124\nCUDA used to build PyTorch: 12.4\n"
            "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 5090\n"
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    log.write_text(text)
    doc = envcheck.explain(text, name=str(log))
    schemas.validate(doc)
    assert doc == _cli("explain", "--no-detect", "--json", str(log))
    assert doc["matches"][0]["id"] == "gpu-arch-unsupported"
    assert envcheck.explain(b"all good\n")["matches"] == []


def test_plan_is_the_fix_document(machine):
    doc = envcheck.plan("torch", snapshot=machine)
    schemas.validate(doc)
    assert doc == _cli("fix", "--want", "torch", "--json", "--snapshot", machine)
    described = envcheck.plan(["torch"], driver="535.104.05", gpu="GeForce GTX 1080 Ti", python="3.12")
    assert described == _cli("fix", "--want", "torch", "--json", "--driver", "535.104.05",
                             "--gpu", "GeForce GTX 1080 Ti", "--python", "3.12")
    # the 1080 Ti (sm_61) is not in the newest wheels: the plan keeps to a build that has it
    assert described["satisfiable"] and described["packages"][0]["variant"] == "cu126"


def test_the_api_module_and_the_packages_answer_the_same(machine):
    from envcheck import api
    import envcheck.explain as explain_pkg
    import envcheck.plan as plan_pkg

    assert api.plan("torch", snapshot=machine) == plan_pkg("torch", snapshot=machine)
    text = "CUDNN_STATUS_NOT_INITIALIZED\n"
    assert api.explain(text) == explain_pkg(text)
    # the packages keep their own names
    assert callable(explain_pkg.explain_stream)
    from envcheck.plan.resolve import resolve  # noqa: F401 - the package's modules import as before


def test_a_bad_snapshot_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError):
        envcheck.status(str(tmp_path / "missing"))
    with pytest.raises(UsageError):
        envcheck.plan("torch", snapshot=str(tmp_path / "missing"))


def test_import_envcheck_loads_no_api():
    code = ("import sys, envcheck\n"
            "heavy = [m for m in ('envcheck.api', 'envcheck.explain', 'envcheck.plan', 'envcheck.checks') "
            "if m in sys.modules]\n"
            "print(heavy); assert callable(envcheck.status) and 'envcheck.api' in sys.modules\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
    with pytest.raises(AttributeError):
        envcheck.no_such_name  # noqa: B018
