"""Issue 21, vendors21n: an NVIDIA GPU seen only through another vendor's tool (``clinfo``'s "NVIDIA CUDA" platform,
``sycl-ls``' ``cuda`` backend) is reported as NVIDIA's, by name only, and counted once beside nvidia-smi; the vendor
tools' outputs pasted in a report are read by the snapshot's own parsers; an AMD GPU whose index equals an NVIDIA GPU's
is kept in a paste's facts. The real captures are tests/data/vendors/*/v21n-* (cited in tests/data/README.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from helpers import fixture

from envcheck.parse.intel import nvidia_gpus_seen

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H100 = os.path.join(ROOT, "tests", "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot")


def _status(snap):
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", str(snap)],
                       capture_output=True, text=True, timeout=120, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def _snap(tmp_path, files, base=None):
    snap = tmp_path / "snap"
    if base:
        shutil.copytree(base, snap)
    else:
        snap.mkdir()
    for name, text in files.items():
        (snap / name).write_text(text, encoding="utf-8")
    return snap


CASES = [
    ("clinfo", "v21n-l-fpga-emu-i7-cpu-nvidia-cuda-gtx-1080.txt", ["GeForce GTX 1080"], []),
    ("clinfo", "v21n-full-nvidia-cuda-gtx-1080-ti-460-cut.txt", ["GeForce GTX 1080 Ti"], []),
    ("clinfo", "v21n-full-nvidia-cuda-gtx-960-352-cltorch.txt", ["GeForce GTX 960"], []),
    ("sycl-ls", "v21n-cuda-a100-sxm4-80gb-and-epyc-opencl-cpu.txt", ["NVIDIA A100-SXM4-80GB"], []),
    ("sycl-ls", "v21n-cuda-rtx-3050-laptop-and-intel-0x7d45-l0-opencl.txt", ["NVIDIA GeForce RTX 3050 4GB Laptop GPU"],
     ["Intel(R) Graphics [0x7d45]"]),
    ("sycl-ls", "v21m-verbose-cuda-backend-rtx-pro-6000-4090-cmake-test.txt",
     ["NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "NVIDIA GeForce RTX 4090"], []),
]


@pytest.mark.parametrize("tool,name,nvidia,intel", CASES)
def test_reader_lists_the_nvidia_gpus_by_name_only(tool, name, nvidia, intel):
    text = fixture("vendors", tool, name)
    gpus = nvidia_gpus_seen(text if tool == "clinfo" else None, text if tool == "sycl-ls" else None)
    assert [g.name for g in gpus] == nvidia
    assert all(g.vendor == "nvidia" and g.compute_capability is None and g.memory_mib is None for g in gpus)


@pytest.mark.parametrize("tool,name,nvidia,intel", CASES)
def test_status_reports_the_nvidia_gpu_beside_the_others_and_guesses_nothing(tmp_path, tool, name, nvidia, intel):
    rep = _status(_snap(tmp_path, {tool + ".txt": fixture("vendors", tool, name)}))
    assert rep["vendor"] == "nvidia"
    got = [(g["vendor"], g["name"]) for g in rep["gpus"]]
    assert got == [("nvidia", n) for n in nvidia] + [("intel", n) for n in intel]
    for g in rep["gpus"]:
        assert g["compute_capability"] is None and g["memory_mib"] is None
    assert rep["driver"]["version"] is None  # no driver version is guessed from a GPU name
    # nothing is a failure: an NVIDIA GPU without any nvidia-smi capture leaves the NVIDIA side unchecked
    assert all(f["severity"] in ("info", "ok") for f in rep["findings"]), rep["findings"]


def test_other_vendors_gpus_are_not_taken_for_nvidias():
    # Intel's OpenCL CPU and FPGA emulator, Intel's and AMD's GPUs: none is NVIDIA's
    assert nvidia_gpus_seen(fixture("vendors", "clinfo", "v21f-l-uhd620-and-cpu-platform.txt"), None) == []
    assert nvidia_gpus_seen(None, fixture("vendors", "sycl-ls", "v21n-cuda-a100-sxm4-80gb-and-epyc-opencl-cpu.txt")
                            .replace("[cuda:gpu][cuda:0] NVIDIA CUDA BACKEND, NVIDIA A100-SXM4-80GB 8.0 [CUDA 12.8]\n",
                                     "")) == []


def test_nvidia_smi_in_the_same_snapshot_counts_each_gpu_once(tmp_path):
    # the real H100 snapshot plus a sycl-ls that lists its GPU through the CUDA backend
    sycl = "[cuda:gpu][cuda:0] NVIDIA CUDA BACKEND, NVIDIA H100 80GB HBM3 9.0 [CUDA 13.0]\n"
    base = _status(_snap(tmp_path / "a", {}, H100))
    rep = _status(_snap(tmp_path / "b", {"sycl-ls.txt": sycl}, H100))
    assert [(g["vendor"], g["name"]) for g in rep["gpus"]] == [(g["vendor"], g["name"]) for g in base["gpus"]]
    assert len([g for g in rep["gpus"] if g["vendor"] == "nvidia"]) == len(base["gpus"]) >= 1
    assert {f["id"] for f in rep["findings"]} == {f["id"] for f in base["findings"]}


def test_a_cuda_torch_with_an_nvidia_gpu_seen_by_clinfo_gets_no_vendor_mismatch(tmp_path):
    # the H100 snapshot with every NVIDIA driver capture taken out (only its torch.json etc. left) and clinfo's
    # NVIDIA platform: the CUDA build is not flagged as the wrong vendor, and the driver stays unchecked, not failed
    snap = _snap(tmp_path, {"clinfo.txt": fixture("vendors", "clinfo", "v21n-full-nvidia-cuda-gtx-1080-ti-460-cut.txt")},
                 H100)
    for name in ("nvidia-smi.txt", "nvidia-smi-query.csv", "nvml.json", "libcuda.json", "proc-driver-version.txt",
                 "sys-module-nvidia-version.txt"):
        (snap / name).unlink()
    rep = _status(snap)
    assert rep["vendor"] == "nvidia"
    assert [g["name"] for g in rep["gpus"]] == ["GeForce GTX 1080 Ti"]
    ids = {f["id"]: f["severity"] for f in rep["findings"]}
    assert "framework-vendor-mismatch" not in ids
    assert all(sev in ("info", "ok") for sev in ids.values()), rep["findings"]
    assert "not-checked" in ids


def _explain_facts(tmp_path, text):
    p = tmp_path / "paste.txt"
    p.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--no-detect", "--json", str(p)],
                       capture_output=True, text=True, timeout=120, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["facts"]


def test_a_paste_with_an_nvidia_table_and_rocm_smi_keeps_the_amd_gpu_of_the_same_index(tmp_path):
    smi = fixture("real", "h100-580.159.04-torch2.11-cu130", "captures", "nvidia-smi.txt")
    rocm = fixture("vendors", "rocm-smi", "v21j-old-concise-4x-mi210-rocm5.7.1.txt")
    facts = _explain_facts(tmp_path, smi + "\n" + rocm)
    nvidia = [g for g in facts["gpus"] if g.get("vendor") in (None, "nvidia")]
    amd = [g for g in facts["gpus"] if g.get("vendor") == "amd"]
    assert [g["name"] for g in nvidia] == ["NVIDIA H100 80GB HBM3"]
    assert sorted(g["index"] for g in amd) == [0, 1, 2, 3]


def test_a_paste_with_rocm_smi_and_sycl_ls_keeps_both_gpu_0(tmp_path):
    rocm = fixture("vendors", "rocm-smi", "v21j-old-concise-4x-mi210-rocm5.7.1.txt")
    sycl = fixture("vendors", "sycl-ls", "v21n-cuda-rtx-3050-laptop-and-intel-0x7d45-l0-opencl.txt")
    facts = _explain_facts(tmp_path, rocm + "\n" + sycl)
    assert sorted(g["index"] for g in facts["gpus"] if g.get("vendor") == "amd") == [0, 1, 2, 3]
    assert [g["index"] for g in facts["gpus"] if g.get("vendor") == "intel"] == [0]
