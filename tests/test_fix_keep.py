"""`fix` without --want keeps what works (issue 22 item 5): the installed versions are kept when the engine finds
they run, on a CPU-only machine as on a GPU one; what is replaced is named, with the reason. Through the CLI, on
snapshots."""

from __future__ import annotations

import json

from click.testing import CliRunner

from envcheck.cli import cli
from helpers import NO_DRIVER_LOOKED_FOR, gpu_machine, make_snapshot, torch_install

A100 = [("NVIDIA A100-SXM4-40GB", 40960)]


def _fix(d: str):
    r = CliRunner().invoke(cli, ["fix", "--snapshot", d, "--json"], standalone_mode=False, catch_exceptions=False)
    return json.loads(r.output)


def _torch(plan):
    return next((p["version"], p["variant"]) for p in plan["packages"] if p["name"] == "torch")


def test_cpu_laptop_keeps_the_installed_cpu_torch(tmp_path):
    # torch 2.13.0+cpu on a machine with no driver: before, the CPU branch returned before the keep-installed one
    # and planned the newest release (2.15.0)
    plan = _fix(make_snapshot(str(tmp_path / "s"), torch_install("2.13.0+cpu", None)))
    assert plan["satisfiable"] is True
    assert _torch(plan) == ("2.13.0", "cpu")
    assert any(n.startswith("keeps the installed versions: torch==2.13.0") for n in plan["notes"])


def test_cpu_laptop_names_a_replaced_build_and_why(tmp_path):
    plan = _fix(make_snapshot(str(tmp_path / "s"), {**NO_DRIVER_LOOKED_FOR, **torch_install("2.5.1+cu124", "12.4")}))
    assert _torch(plan) == ("2.5.1", "cpu")
    note = next(n for n in plan["notes"] if n.startswith("replaces the installed torch 2.5.1+cu124"))
    assert "no NVIDIA GPU" in note


def test_a_version_the_matrix_cannot_plan_is_replaced_and_said(tmp_path):
    plan = _fix(make_snapshot(str(tmp_path / "s"), torch_install("1.4.0", None)))
    assert plan["satisfiable"] is True
    version = _torch(plan)[0]
    assert version != "1.4.0"
    assert any(n.startswith(f"replaces the installed torch 1.4.0 with {version}") for n in plan["notes"])


def test_gpu_machine_keeps_the_installed_variant_that_runs(tmp_path):
    # driver 535 (CUDA 12.2): cu124 runs through minor-version compatibility; the resolver alone would prefer the
    # CUDA closest to the driver (cu121); keeping what works keeps cu124
    d = make_snapshot(str(tmp_path / "s"), {**gpu_machine("535.104.05", "12.2", A100, cc=["8.0"]),
                                            **torch_install("2.5.1+cu124", "12.4")})
    plan = _fix(d)
    assert _torch(plan) == ("2.5.1", "cu124")
    assert not any(n.startswith("replaces") for n in plan["notes"])


def test_gpu_machine_replaces_a_variant_the_driver_cannot_run_and_says_why(tmp_path):
    d = make_snapshot(str(tmp_path / "s"), {**gpu_machine("470.82.01", "11.4", A100, cc=["8.0"]),
                                            **torch_install("2.5.1+cu124", "12.4")})
    plan = _fix(d)
    assert _torch(plan) == ("2.5.1", "cu118")
    note = next(n for n in plan["notes"] if n.startswith("replaces the installed torch 2.5.1+cu124 with the cu118"))
    assert "CUDA 12.4" in note and "11.4" in note
