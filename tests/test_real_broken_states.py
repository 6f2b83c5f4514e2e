"""Broken driver states made for real on an H200 (2026-11-28, scripts/gpu_realfail.sh's mount-namespace cases; the
snapshots under tests/data/real/h200-580.159.04-broken-states/ are `envcheck snapshot --archive --redact` taken inside
each state, unedited): status must name each state, where it said "OK" before.

- ``no-libs``: libcuda.so.1 and libnvidia-ml.so.1 bound over by /dev/null. The kernel module 580.159.04 is loaded
  (/proc, /sys), nvidia-smi says "couldn't find libnvidia-ml.so", libcuda.json records "file too short".
- ``no-libcuda``: libcuda.so.1 alone bound over. nvidia-smi lists the H200 with "CUDA Version: N/A".
- ``null-nodes``: /dev/nvidia0, nvidiactl, nvidia-uvm bound over. nvidia-smi says "Failed to initialize NVML: GPU
  access blocked by the operating system"; libcuda loads (cuDriverGetVersion needs no device).

And three states of the process alone (scripts/gpu_states.sh): ``cvd-empty`` (CUDA_VISIBLE_DEVICES=''), ``stub-libcuda``
(a libcuda.so.1 link to the toolkit's stub first on LD_LIBRARY_PATH; torch: "Error 34: CUDA driver is a stub library")
and ``nvd-void`` (NVIDIA_VISIBLE_DEVICES=void set in the shell: torch still ran on the GPU, status said "no GPU").

In all of them torch 2.11.0+cu130, jax 0.11.2 and cupy-cuda13x 14.2.0 are installed (CUDA builds): an error."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

STATES = Path(__file__).parent / "data" / "real" / "h200-580.159.04-broken-states"
HEALTHY = Path(__file__).parent / "data" / "real" / "h200-580.159.04-torch2.11-cu130" / "snapshot"


def _status(folder: Path) -> dict:
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", str(folder)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    doc = json.loads(r.stdout)
    doc["_rc"] = r.returncode
    return doc


def _errors(doc: dict) -> list:
    return [f for f in doc["findings"] if f["severity"] == "error"]


def test_both_libraries_unloadable_is_a_missing_user_space_driver():
    doc = _status(STATES / "no-libs")
    errs = _errors(doc)
    assert [f["id"] for f in errs] == ["no-gpu-driver"] and doc["_rc"] == 1 and not doc["ok"]
    f = errs[0]
    assert "kernel module 580.159.04 is loaded" in f["message"]
    assert "file too short" in f["evidence"] and "couldn't find libnvidia-ml.so" in f["evidence"]
    # /dev/nvidia* are there in this container: not "started without GPU access", but the libraries' mounts
    assert "started without GPU access" not in f["message"] and "NVIDIA_DRIVER_CAPABILITIES" in f["fix"]
    assert doc["driver"]["version"] == "580.159.04"


def test_libcuda_alone_unloadable_is_named_and_not_read_as_a_vgpu_host():
    doc = _status(STATES / "no-libcuda")
    errs = _errors(doc)
    assert [f["id"] for f in errs] == ["no-gpu-driver"] and doc["_rc"] == 1
    f = errs[0]
    assert "nvidia-smi lists the GPUs" in f["message"] and "CUDA Version: N/A" in f["message"]
    assert not any("vGPU" in x["message"] for x in doc["findings"])
    assert [g["name"] for g in doc["gpus"]] == ["NVIDIA H200"]


def test_device_nodes_blocked_is_device_permission_not_ok():
    doc = _status(STATES / "null-nodes")
    errs = _errors(doc)
    assert [f["id"] for f in errs] == ["device-permission"] and doc["_rc"] == 1
    assert "GPU access blocked by the operating system" in errs[0]["evidence"]
    assert not any(f["id"] == "no-gpu-driver" for f in doc["findings"])


def test_healthy_machine_stays_ok():
    doc = _status(HEALTHY)
    assert doc["ok"] and not _errors(doc) and not any(f["severity"] == "warning" for f in doc["findings"])


@pytest.mark.parametrize("state", ["no-libs", "no-libcuda"])
def test_a_snapshot_without_libcuda_json_claims_nothing_about_libcuda(tmp_path, state):
    """A hand-made snapshot that does not hold libcuda.json never looked for it: no claim that it does not load."""
    snap = tmp_path / state
    shutil.copytree(STATES / state, snap)
    (snap / "libcuda.json").unlink()
    caps = json.loads((snap / "captures.json").read_text())
    caps.pop("libcuda.json", None)
    (snap / "captures.json").write_text(json.dumps(caps))
    doc = _status(snap)
    assert not any("libcuda.so.1" in f["message"] and "does not load" in f["message"] for f in doc["findings"])


def test_cuda_visible_devices_empty_is_no_gpu_visible():
    doc = _status(STATES / "cvd-empty")
    assert [f["id"] for f in _errors(doc)] == ["no-gpu-visible"] and doc["_rc"] == 1


def test_the_stub_libcuda_is_named_and_its_err_cuda_version_not_read_as_a_vgpu_host():
    doc = _status(STATES / "stub-libcuda")
    errs = _errors(doc)
    assert [f["id"] for f in errs] == ["no-gpu-driver"] and "stub" in errs[0]["message"]
    assert not any("vGPU" in f["message"] for f in doc["findings"])


def test_nvidia_visible_devices_void_in_a_running_container_hides_nothing():
    """The GPUs are listed (torch ran on the H200 in this state): the variable acts only when a container starts."""
    doc = _status(STATES / "nvd-void")
    assert doc["ok"] and doc["_rc"] == 0 and not _errors(doc)
    assert not any(f["id"] == "no-gpu-visible" for f in doc["findings"])
    assert any("NVIDIA_VISIBLE_DEVICES='void'" in f["evidence"] for f in doc["findings"])
