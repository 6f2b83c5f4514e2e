"""Session attack32's defects, each reproduced through the CLI or the reader it concerns (a test that failed
before its fix): the platform of `fix --check-pins` never assumed, nvcc's form recognised by its banner, AMD PCI
device ids mapped to gfx targets by a sourced table, no Linux-only ROCm wheel planned on Windows."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SNAPS = os.path.join(ROOT, "tests", "data", "snapshots")


def envcheck(*args, cwd=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update(PYTHONPATH=ROOT, NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=cwd)


def _gh200_without_python_json(tmp_path):
    """The real GH200 snapshot (an aarch64 machine) with its python.json taken away: the platform is unknown."""
    snap = tmp_path / "gh200"
    shutil.copytree(os.path.join(SNAPS, "gh200-570.124.06-warpik"), snap)
    (snap / "python.json").unlink()
    return snap


def test_check_pins_never_assumes_linux_x86_64_when_the_platform_is_unknown(tmp_path):
    # torch 2.0.1's CUDA wheels exist for linux-x86_64 and windows-x86_64 only (torch.toml): on this GH200
    # (aarch64) they cannot work; with its platform unknown that must be said, not "OK" for linux-x86_64
    snap = _gh200_without_python_json(tmp_path)
    req = tmp_path / "requirements.txt"
    req.write_text("torch==2.0.1\n")
    r = envcheck("fix", "--check-pins", str(req), "--snapshot", str(snap))
    assert "x86_64 assumed" not in r.stdout
    assert "OK: these pins can work together" not in r.stdout, r.stdout
    assert "NOT CHECKED" in r.stdout and "platform is not known" in r.stdout and "linux-aarch64" in r.stdout
    assert r.returncode == 0  # unknown is not a failure
    doc = json.loads(envcheck("fix", "--check-pins", str(req), "--snapshot", str(snap), "--json").stdout)
    assert any("platform is not known" in n and "linux-aarch64" in n for n in doc["notes"]), doc["notes"]
    # its real python.json (aarch64) makes it a known failure
    shutil.copy(os.path.join(SNAPS, "gh200-570.124.06-warpik", "python.json"), snap / "python.json")
    r = envcheck("fix", "--check-pins", str(req), "--snapshot", str(snap))
    assert r.returncode == 1 and "CANNOT WORK" in r.stdout, r.stdout


def test_check_pins_that_fit_nowhere_fail_without_a_platform(tmp_path):
    snap = _gh200_without_python_json(tmp_path)
    req = tmp_path / "requirements.txt"
    req.write_text("torch==2.0.1+cu118\ntensorflow==2.15.1\n")  # two CUDA majors' cuDNN pins apart
    r = envcheck("fix", "--check-pins", str(req), "--snapshot", str(snap))
    assert "x86_64 assumed" not in r.stdout
    assert "can work on none of" in r.stdout and r.returncode == 1, r.stdout


def _status_json(snap):
    r = envcheck("status", "--snapshot", str(snap), "--json")
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def test_nvcc_txt_is_read_by_its_whole_banner(tmp_path):
    snap = tmp_path / "s"
    snap.mkdir()
    garbage = [
        "garbage\x00 Cuda compilation tools, release 1.1 and more\n",  # no V-number: not nvcc's banner
        "Cuda compilation tools, release 1.1, V9\n",  # a V-number that is no version
        "Cuda compilation tools, release 1.1, V12.1.105\n",  # the V-number of another release
    ]
    for text in garbage:
        (snap / "nvcc.txt").write_text(text)
        d = _status_json(snap)
        assert d["toolkit"]["version"] is None, (text, d["toolkit"])
        assert any(f["id"] == "not-checked" and f["message"].startswith("nvcc.txt") for f in d["findings"]), text
    # real banners: CUDA 4.2 (V0.2.1221, the front end's number, quoted in public READMEs) and 12.1
    for text, release in (("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2012 NVIDIA Corporation\n"
                           "Built on Thu_Apr__5_00:24:31_PDT_2012\nCuda compilation tools, release 4.2, V0.2.1221\n",
                           "4.2"),
                          ("Cuda compilation tools, release 12.1, V12.1.105\nBuild cuda_12.1.r12.1/compiler.32688072_0\n",
                           "12.1")):
        (snap / "nvcc.txt").write_text(text)
        assert _status_json(snap)["toolkit"]["version"] == release
