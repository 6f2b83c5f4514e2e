"""The findings status gives on the states issue 11 found misread, each on a real capture where one exists
(tests/data/nvidia-smi, sources in tests/data/README.md), through the real CLI on a snapshot."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers import NO_DRIVER_FOUND, fixture, gpu_machine, make_snapshot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROC = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  {v}  Sat Jan 28 02:10:06 UTC 2023\n"
        "GCC version:  gcc version 10.2.1 20210110 (Debian 10.2.1-6)\n")


def status(tmp_path, files, *args):
    d = make_snapshot(str(tmp_path / "s"), files)
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--snapshot", d, "--json", *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode in (0, 1), r.stderr
    rep = json.loads(r.stdout)
    assert r.returncode == (0 if rep["ok"] else 1)
    return rep


def ids(rep, severity=None):
    return {f["id"] for f in rep["findings"] if severity is None or f["severity"] == severity}


def test_r610_header_driver_next_to_gpus(tmp_path):
    rep = status(tmp_path, {"nvidia-smi.txt": fixture("nvidia-smi", "610.43.02-r610-kmd-umd-rtx5070.txt")})
    assert rep["driver"]["version"] == "610.43.02" and rep["gpus"]
    assert "no-gpu-driver" not in ids(rep)
    assert "expected on a machine without" not in json.dumps(rep)


def test_err_row_is_a_gpu_fault_and_the_others_still_count(tmp_path):
    rep = status(tmp_path, {"nvidia-smi.txt": fixture("nvidia-smi", "525.60.13-8x-a40-gpu4-err.txt"),
                            "proc-driver-version.txt": PROC.format(v="525.60.13")})
    assert "gpu-fault" in ids(rep, "error") and "ERR!" not in [g["name"] for g in rep["gpus"]]
    assert "no-gpu-driver" not in ids(rep) and "no-gpu-visible" not in ids(rep)


def test_device_handle_error_is_a_faulty_gpu_not_a_missing_driver(tmp_path):
    rep = status(tmp_path, {"nvidia-smi.txt": fixture("nvidia-smi", "error-device-handle-unknown-error-docker-a-i-0.txt")})
    assert "gpu-fault" in ids(rep, "error")
    assert "no-gpu-driver" not in ids(rep)


def test_header_only_fragment_is_not_zero_gpus(tmp_path):
    rep = status(tmp_path, {"nvidia-smi.txt": fixture("nvidia-smi", "515.48.07-header-only-no-gpu-rows.txt"),
                            "proc-driver-version.txt": PROC.format(v="515.48.07")})
    assert "no-gpu-visible" not in ids(rep)
    assert rep["gpus_known"] is False


def test_no_devices_were_found_is_gpu_not_initialized(tmp_path):
    # issue 20: in the reported threads the driver had failed to bring the GPU up (dmesg / Xid), which
    # CUDA_VISIBLE_DEVICES / container advice does not fix
    rep = status(tmp_path, {"nvidia-smi.txt": fixture("nvidia-smi", "error-no-devices.txt"),
                            "proc-driver-version.txt": PROC.format(v="575.64.05")})
    assert "gpu-not-initialized" in ids(rep) and "no-gpu-visible" not in ids(rep)


def test_nvidia_smi_without_a_driver_under_a_cuda_build_is_an_error(tmp_path):
    files = {"nvidia-smi.txt": fixture("nvidia-smi", "error-no-driver.txt"),
             "packages.json": {"torch": "2.5.1+cu124"}}
    rep = status(tmp_path, files)
    assert "no-gpu-driver" in ids(rep, "error") and rep["ok"] is False
    # the same machine without the CUDA build, and without nvidia-smi: a note
    rep = status(tmp_path / "b", {"packages.json": {"torch": "2.5.1+cpu"}, **NO_DRIVER_FOUND})
    assert "no-gpu-driver" in ids(rep, "info")


def test_cuda_from_the_label_no_false_cpu_only(tmp_path):
    files = gpu_machine("570.86.10", "12.8", [("NVIDIA GeForce RTX 4090", 24564)], cc=["8.9"])
    files["packages.json"] = {"torch": "2.7.1+cu128"}
    rep = status(tmp_path, files)
    assert "framework-cpu-only" not in ids(rep)
    assert rep["frameworks"]["torch"]["cuda"] == "12.8"


def test_unknown_arch_list_uses_the_toolkit_range(tmp_path):
    """torch 2.6.0+cu126 on an RTX 5090: the matrix has no arch list for that variant (the issue's case was
    2.9.1+cu126, whose list the matrix has since gained), but CUDA 12.6 cannot target compute capability 12.0
    at all."""
    files = gpu_machine("575.57.08", "12.9", [("NVIDIA GeForce RTX 5090", 32607)], cc=["12.0"])
    files["packages.json"] = {"torch": "2.6.0+cu126"}
    rep = status(tmp_path, files)
    arch = [f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported"]
    assert arch and "12.0" in arch[0]["message"] and arch[0]["severity"] == "error"


def test_arch_list_without_a_version_still_counts(tmp_path):
    files = gpu_machine("535.104.05", "12.2", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"])
    files["torch.json"] = {"version": None, "cuda": None, "cudnn": None,
                           "arch_list": ["sm_37", "sm_50", "sm_60", "sm_70"]}
    files["packages.json"] = {"torch": "1.12.1"}
    rep = status(tmp_path, files)
    assert "gpu-arch-unsupported" in ids(rep, "error")


def test_a_check_that_cannot_decide_says_so(tmp_path):
    """A CUDA torch whose arch list nobody knows, on a GPU inside its toolkit's range: not a silent pass."""
    files = gpu_machine("575.57.08", "12.9", [("NVIDIA GeForce RTX 4090", 24564)], cc=["8.9"])
    files["packages.json"] = {"torch": "2.6.0+cu126"}
    rep = status(tmp_path, files)
    notes = [f for f in rep["findings"] if f["id"] == "not-checked"]
    assert notes and notes[0]["severity"] == "info" and "--deep" in notes[0]["fix"]
    assert not {"gpu-arch-unsupported", "driver-too-old"} & ids(rep)


def test_a_release_the_matrix_does_not_know_is_checked_from_its_own_metadata(tmp_path):
    """torch 9.9.0 is in no table: its CUDA (torch.json / the label) and its Requires-Dist pins still decide."""
    files = gpu_machine("535.104.05", "12.2", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"])
    files["torch.json"] = {"version": "9.9.0+cu130", "cuda": "13.0", "cudnn": 91500, "arch_list": ["sm_80", "sm_90"]}
    files["packages.json"] = {"torch": "9.9.0+cu130"}
    files["requires.json"] = {"torch": ['nvidia-cudnn-cu13==9.15.1.9; platform_system == "Linux"']}
    rep = status(tmp_path, files)
    too_old = [f for f in rep["findings"] if f["id"] == "driver-too-old"]
    assert too_old and "13.0" in too_old[0]["message"] and too_old[0]["severity"] == "error"
    assert rep["frameworks"]["torch"]["cuda"] == "13.0"
    # on a driver that runs it, what the matrix cannot say (the release's Python range) is said, not passed
    files.update({k: v for k, v in gpu_machine("580.65.06", "13.0", [("NVIDIA A100-SXM4-40GB", 40960)],
                                               cc=["8.0"]).items()})
    rep = status(tmp_path / "new", files)
    assert "driver-too-old" not in ids(rep)
    notes = [f for f in rep["findings"] if f["id"] == "not-checked"]
    assert notes and "Python" in notes[0]["message"]
