"""Driver advice (issue 23): when the driver is older than every build for the Python, `fix`, `status` and
`explain` name both the smallest driver upgrade that runs a build and the newest build's floor.

Expected values, from sources outside the code: NVIDIA's minor-version compatibility floor of CUDA 11.x is
450.80.02 (CUDA compatibility guide); torch 2.7.1 is the newest release with a cu118 build (pytorch/test-infra at
the 2.7.1 stable commit lists cu118/cu126/cu128; at 2.8.0: cu126/cu128/cu129); CUDA 13.x needs R580.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers import gpu_machine, make_snapshot, torch_install

MACHINE = ["--driver", "418.39", "--cc", "8.0", "--python", "3.11", "--platform", "linux-x86_64"]


def _run(*args):
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, NO_COLOR="1"))


def test_fix_names_both_upgrades():
    out = _run("fix", *MACHINE, "--want", "torch", "--json")
    assert out.returncode == 1
    plan = json.loads(out.stdout)
    lift = [x for x in plan["lifts"] if x["constraint"] == "driver"][0]
    assert lift["smallest_min"] == "450.80.02" and lift["smallest_build"] == "torch 2.7.1 (cu118)"
    assert lift["newest_min"].startswith("580") and lift["newest_build"].startswith("torch 2.15.0")
    assert plan["driver"]["required_min"] == "450.80.02"  # the smallest upgrade is the required one
    labels = [a["label"] for a in plan["alternatives"]]
    assert "with the smallest driver upgrade (>= 450.80.02)" in labels
    small = [a for a in plan["alternatives"] if a["label"].startswith("with the smallest")][0]
    assert small["packages"][0]["version"] == "2.7.1" and small["packages"][0]["variant"] == "cu118"


def test_fix_one_value_when_only_one_release_is_asked_for():
    out = _run("fix", *MACHINE, "--want", "torch==2.15.0", "--json")
    lift = [x for x in json.loads(out.stdout)["lifts"] if x["constraint"] == "driver"][0]
    assert lift["smallest_min"] == lift["newest_min"]
    assert "smallest upgrade" not in lift["action"]


def test_no_advice_when_a_build_runs():
    out = _run("fix", "--driver", "580.95.05", "--cc", "8.0", "--python", "3.11", "--platform", "linux-x86_64",
               "--want", "torch", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["lifts"] == []


def _old_machine(tmp_path):
    files = gpu_machine("418.39", "10.1", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"])
    files.update(torch_install("2.15.0+cu132", "13.2"))
    return make_snapshot(str(tmp_path / "snap"), files)


def test_status_names_both_upgrades(tmp_path):
    out = _run("status", "--snapshot", _old_machine(tmp_path), "--json")
    f = [x for x in json.loads(out.stdout)["findings"] if x["id"] == "driver-too-old"][0]
    assert ">= 450.80.02 (torch 2.7.1 (cu118))" in f["fix"] and "torch 2.15.0 (cu132), needs >= 580" in f["fix"]


def test_explain_names_both_upgrades(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("RuntimeError: The NVIDIA driver on your system is too old (found version 10010).\n")
    out = _run("explain", "--snapshot", _old_machine(tmp_path), str(log))
    text = " ".join(out.stdout.split())
    assert "the smallest upgrade that runs one is >= 450.80.02 (torch 2.7.1 (cu118))" in text
