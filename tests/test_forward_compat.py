"""CUDA forward compatibility (a cuda-compat libcuda newer than the kernel driver) is one engine rule, and every
command gives its answer: `status`, `matrix why`, `fix` and `explain`, on the same snapshot.

The GPU list is NVIDIA's (https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html):
"Forward Compatibility is applicable only for systems with: NVIDIA Data Center GPUs. Select NGC Server Ready SKUs
of RTX cards. Jetson boards." So a GeForce card does not run a cu124 build on a 470 driver through the compat
libcuda, an A100 does, and a workstation RTX card is unknown (NVIDIA names no list of those SKUs).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from envcheck.cli import cli
from helpers import gpu_machine, make_snapshot, torch_install

PINS = ["nvidia-cuda-runtime-cu12==12.4.127; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
        "nvidia-cudnn-cu12==9.1.0.70; platform_system == \"Linux\" and platform_machine == \"x86_64\""]
PKGS = {"nvidia-cuda-runtime-cu12": "12.4.127", "nvidia-cudnn-cu12": "9.1.0.70"}
COMPAT = {"path": "/usr/local/cuda-12.4/compat/libcuda.so.1", "driver_cuda": 12040}
LOG = ("Traceback (most recent call last):\n  File \"t.py\", line 2, in <module>\n    torch.zeros(1).cuda()\n"
       "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
       "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx\n")


def _snap(tmp_path, gpu: str, cc: str, compat=True) -> str:
    files = {**gpu_machine("470.82.01", "11.4", [(gpu, 24576)], cc=[cc]),
             **torch_install("2.5.1+cu124", "12.4", PINS, PKGS)}
    if compat:
        files["libcuda.json"] = COMPAT
    return make_snapshot(str(tmp_path / gpu.replace(" ", "_")), files)


def _run(*args):
    r = CliRunner().invoke(cli, list(args), standalone_mode=False, catch_exceptions=False)
    return (r.return_value if isinstance(r.return_value, int) else r.exit_code), r.output


def _answers(d: str):
    """(status finding ids by severity, why's verdict for cu124, fix's JSON plan, explain's fixes text)."""
    _, out = _run("status", "--json", "--snapshot", d)
    status = {(f["id"], f["severity"]) for f in json.loads(out)["findings"]}
    _, out = _run("matrix", "why", "torch==2.5.1", "--snapshot", d, "--json")
    why = {x["build"]["variant"]: x for x in json.loads(out)["results"]}
    _, out = _run("fix", "--snapshot", d, "--json")
    plan = json.loads(out)
    log = str(__import__("pathlib").Path(d) / "crash.log")
    with open(log, "w") as fh:
        fh.write(LOG)
    _, out = _run("explain", log, "--snapshot", d, "--json")
    explain = json.dumps(json.loads(out))
    return status, why, plan, explain


def _plan_variant(plan) -> str:
    pk = [p for p in plan["packages"] if p["name"] == "torch"]
    return pk[0]["variant"] if pk else ""


def test_geforce_with_a_compat_libcuda_gets_one_answer_everywhere(tmp_path):
    status, why, plan, explain = _answers(_snap(tmp_path, "NVIDIA GeForce RTX 3090", "8.6"))
    # status: the compat libcuda is an error, and the installed cu124 build does not run on driver 470
    assert ("forward-compat-unsupported", "error") in status
    assert ("driver-too-old", "error") in status
    # matrix why: cu124 DOES NOT RUN, for the same reason; cu118 runs on the kernel driver, once the compat
    # libcuda is off the library path
    assert why["cu124"]["verdict"] == "does-not-run"
    assert any("forward compatibility" in r for r in why["cu124"]["reasons"])
    assert why["cu118"]["verdict"] == "runs"
    assert any(r.startswith("condition: remove the forward-compatibility libcuda") for r in why["cu118"]["reasons"])
    # fix: the installed 2.5.1 cannot be kept as cu124; the plan is a build that runs on 470
    assert plan["satisfiable"] is True
    assert _plan_variant(plan) == "cu118"
    # explain's fixes: a driver upgrade to the CUDA 12 floor, and the engine's forward-compatibility reason
    assert "525.60.13" in explain
    assert "does not support CUDA forward compatibility" in explain


@pytest.mark.parametrize("gpu,cc", [("NVIDIA A100-SXM4-40GB", "8.0"), ("Orin (nvgpu)", "8.7")])
def test_data_center_and_jetson_gpus_run_through_forward_compat(tmp_path, gpu, cc):
    status, why, plan, explain = _answers(_snap(tmp_path, gpu, cc))
    if "Orin" in gpu and why["cu124"]["verdict"] == "does-not-run":
        # an aarch64 Jetson runs no x86 wheel: only the forward-compatibility part is asserted here
        assert not any("forward compatibility" in r for r in why["cu124"]["reasons"])
    else:
        assert why["cu124"]["verdict"] == "runs"
        assert any("forward compatibility" in r for r in why["cu124"]["reasons"])
        assert _plan_variant(plan) == "cu124"
    assert not {i for i, _ in status} & {"forward-compat-unsupported", "driver-too-old"}
    assert "does not support CUDA forward compatibility" not in explain


def test_workstation_rtx_is_unknown_not_an_error(tmp_path):
    status, why, plan, _ = _answers(_snap(tmp_path, "NVIDIA RTX A6000", "8.6"))
    assert ("forward-compat-unsupported", "warning") in status
    assert ("driver-too-old", "error") not in status
    assert why["cu124"]["verdict"] == "unknown"
    assert any("NGC Server Ready" in r for r in why["cu124"]["reasons"])


def test_without_the_compat_libcuda_nothing_changes(tmp_path):
    status, why, _, explain = _answers(_snap(tmp_path, "NVIDIA A100-SXM4-40GB", "8.0", compat=False))
    assert ("driver-too-old", "error") in status
    assert why["cu124"]["verdict"] == "does-not-run"
    assert not any("forward" in r for r in why["cu124"]["reasons"])
