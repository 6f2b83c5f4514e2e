"""Facts from every capture: snapshot folders (real captures from tests/data where the state needs
one) -> envcheck.environment.collect, and the same snapshot through `envcheck status --json`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from envcheck.capture import FAILED, OK, CaptureStatus
from envcheck.environment import collect
from envcheck.matrix import load_matrix
from envcheck.snapshot import open_snapshot
from helpers import fixture, gpu_machine, make_snapshot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROC_525 = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  525.85.12  Sat Jan 28 02:10:06 UTC 2023\n"
            "GCC version:  gcc version 10.2.1 20210110 (Debian 10.2.1-6)\n")
# torch 2.5.1+cu124 Requires-Dist (the wheel's METADATA, markers as published)
TORCH_251_REQUIRES = [
    "filelock", "typing-extensions>=4.8.0",
    'nvidia-cuda-runtime-cu12==12.4.127; platform_system == "Linux" and platform_machine == "x86_64"',
    'nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux" and platform_machine == "x86_64"',
    'nvidia-cublas-cu12==12.4.5.8; platform_system == "Linux" and platform_machine == "x86_64"',
]


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def env_of(tmp_path, files, matrix, name="snap"):
    return collect(open_snapshot(make_snapshot(str(tmp_path / name), files)), matrix)


def status_json(path):
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--snapshot", path, "--json"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode in (0, 1), r.stderr
    assert "Traceback" not in r.stderr
    return json.loads(r.stdout)


def status_text(path):
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--snapshot", path], cwd=ROOT,
                       capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1"))
    assert r.returncode in (0, 1), r.stderr
    return r.stdout


# --------------------------------------------------------------------------- capture statuses

def test_capture_status_is_a_str_enum_that_behaves_as_before():
    assert OK == "ok" and FAILED == "failed" and isinstance(OK, CaptureStatus)
    assert str(CaptureStatus.TIMED_OUT) == "timed-out" and f"{CaptureStatus.NOT_FOUND}" == "not-found"
    assert json.dumps({"s": CaptureStatus.UNREADABLE}) == '{"s": "unreadable"}'
    assert CaptureStatus.parse("timed-out") is CaptureStatus.TIMED_OUT and CaptureStatus.parse("nope") is None


# --------------------------------------------------------------------------- nvidia-smi states

def test_r610_header_gives_the_driver(tmp_path, matrix):
    snap = make_snapshot(str(tmp_path / "s"), {"nvidia-smi.txt": fixture("nvidia-smi",
                                                                          "610.43.02-r610-kmd-umd-rtx5070.txt")})
    env = collect(open_snapshot(snap), matrix)
    assert str(env.driver.version) == "610.43.02" and env.driver.cuda == "13.3"
    assert env.driver.smi_state == "ok" and env.gpus_known
    assert [g.name for g in env.gpus] == ["NVIDIA GeForce RTX 5070 ..."]
    rep = status_json(snap)
    assert rep["driver"]["version"] == "610.43.02" and rep["driver"]["cuda"] == "13.3"
    assert "no-gpu-driver" not in [f["id"] for f in rep["findings"]]


def test_err_row_is_a_faulty_gpu_not_a_gpu_named_err(tmp_path, matrix):
    files = {"nvidia-smi.txt": fixture("nvidia-smi", "525.85.12-8x-a30-gpu3-err.txt"),
             "proc-driver-version.txt": PROC_525}
    snap = make_snapshot(str(tmp_path / "s"), files)
    env = collect(open_snapshot(snap), matrix)
    assert len(env.gpus) == 8 and env.gpus_known
    bad = [g for g in env.gpus if g.fault]
    assert [(g.index, g.name, g.bus_id) for g in bad] == [(3, None, "00000000:61:00.0")]
    assert env.driver.smi_state == "faulty-gpu" and env.driver.present
    assert all(g.name == "NVIDIA A30" and g.compute_capability == "8.0" for g in env.gpus if not g.fault)
    rep = status_json(snap)
    assert [g["name"] for g in rep["gpus"]].count("ERR!") == 0
    assert rep["gpus"][3]["name"] is None and "ERR!" in rep["gpus"][3]["fault"]
    assert rep["driver"]["nvidia_smi"] == "faulty-gpu"
    assert "[3] name unknown" in status_text(snap)


def test_device_handle_error_is_a_faulty_gpu_not_a_missing_driver(tmp_path, matrix):
    snap = make_snapshot(str(tmp_path / "s"), {
        "nvidia-smi.txt": fixture("nvidia-smi", "error-device-handle-unknown-error-2015.txt")})
    env = collect(open_snapshot(snap), matrix)
    d = env.driver
    assert d.error != "no-driver" and d.smi_state == "faulty-gpu" and d.present
    assert [(g.index, g.name, g.bus_id) for g in env.gpus] == [(None, None, "0000:0B:00.0")]
    assert "Unknown Error" in (env.gpus[0].fault or "")
    assert env.gpus_known is False  # the other GPUs (if any) were never listed
    rep = status_json(snap)
    assert "no-gpu-driver" not in [f["id"] for f in rep["findings"]]
    assert rep["gpus"][0]["index"] is None and rep["gpus"][0]["bus_id"] == "0000:0B:00.0"
    assert "None" not in status_text(snap)


@pytest.mark.parametrize("capture", ["470.86-header-only-no-closing-bar.txt", "515.48.07-header-only-no-gpu-rows.txt"])
def test_header_only_fragment_is_an_unknown_gpu_count(tmp_path, matrix, capture):
    snap = make_snapshot(str(tmp_path / "s"), {"nvidia-smi.txt": fixture("nvidia-smi", capture)})
    env = collect(open_snapshot(snap), matrix)
    assert env.driver.version is not None and env.driver.smi_state == "ok"
    assert env.gpus == () and env.gpus_known is False
    rep = status_json(snap)
    assert rep["gpus"] is None and rep["gpus_known"] is False  # unknown is null, not "no hardware"
    assert "unknown: nothing listed the GPUs" in status_text(snap)


def test_no_devices_were_found_is_zero_gpus(tmp_path, matrix):
    files = {"nvidia-smi.txt": fixture("nvidia-smi", "error-no-devices.txt"), "proc-driver-version.txt": PROC_525}
    env = env_of(tmp_path, files, matrix)
    assert env.gpus == () and env.gpus_known is True and env.driver.smi_state == "no-devices"


def test_a_cut_gpu_block_keeps_the_gpus_but_not_the_count(tmp_path, matrix):
    files = {"nvidia-smi.txt": fixture("nvidia-smi", "580.82.09-mixed-rtx5090-rtx4090-partial.txt")}
    env = env_of(tmp_path, files, matrix)
    assert [g.name for g in env.gpus] == ["NVIDIA GeForce RTX 5090", "NVIDIA GeForce RTX 4090"]
    assert env.gpus_known is False


def test_hung_nvidia_smi_is_recorded_as_hung(tmp_path, matrix):
    files = {"proc-driver-version.txt": PROC_525,
             "captures.json": {"nvidia-smi.txt": {"status": "timed-out", "detail": "nvidia-smi: no answer within "
                                                                                   "10 s (killed)",
                                                  "origin": "/usr/bin/nvidia-smi"}}}
    snap = make_snapshot(str(tmp_path / "s"), files)
    env = collect(open_snapshot(snap), matrix)
    assert env.driver.smi_state == "timed-out" and "no answer" in (env.driver.smi_text or "")
    assert env.gpus_known is False
    rep = status_json(snap)
    assert rep["driver"]["nvidia_smi"] == "timed-out"
    assert "nvidia-smi hung" in status_text(snap)


def test_crashed_nvidia_smi_is_recorded_as_crashed(tmp_path, matrix):
    files = {"nvidia-smi.txt": "",
             "captures.json": {"nvidia-smi.txt": {"status": "failed", "detail": "/usr/bin/nvidia-smi: killed by "
                                                                                "signal SIGSEGV"}}}
    env = env_of(tmp_path, files, matrix)
    assert env.driver.smi_state == "crashed" and "SIGSEGV" in (env.driver.smi_text or "")
    assert env.gpus_known is False


def test_nvml_listing_makes_a_fragment_complete(tmp_path, matrix):
    files = {"nvidia-smi.txt": fixture("nvidia-smi", "515.48.07-header-only-no-gpu-rows.txt"),
             "nvml.json": {"driver_version": "515.48.07", "cuda_driver_version": 11070,
                           "gpus": [{"index": 0, "name": "NVIDIA A100-SXM4-40GB", "compute_capability": [8, 0],
                                     "memory_total_mib": 40960}]}}
    env = env_of(tmp_path, files, matrix)
    assert env.gpus_known and [g.name for g in env.gpus] == ["NVIDIA A100-SXM4-40GB"]


# --------------------------------------------------------------------------- frameworks from partial captures

def test_torch_cuda_from_the_local_label_without_torch_json(tmp_path, matrix):
    files = gpu_machine("570.124.06", "12.8", [("NVIDIA B200", 183359)], cc=["10.0"])
    files["packages.json"] = {"torch": "2.7.1+cu128"}
    snap = make_snapshot(str(tmp_path / "s"), files)
    env = collect(open_snapshot(snap), matrix)
    t = env.frameworks["torch"]
    assert (t.cuda, t.cuda_source, t.cpu_only) == ("12.8", "local version label +cu128", False)
    rep = status_json(snap)
    assert rep["frameworks"]["torch"]["cuda"] == "12.8"
    assert "framework-cpu-only" not in [f["id"] for f in rep["findings"]]


def test_torch_cuda_is_major_minor(tmp_path, matrix):
    files = {"torch.json": {"version": "1.2.0", "cuda": "10.0.130", "cudnn": 7602, "arch_list": None}}
    t = env_of(tmp_path, files, matrix).frameworks["torch"]
    assert (t.cuda, t.cuda_source, t.cudnn) == ("10.0", "torch.json", "7.6.2")


def test_torch_cuda_from_the_runtime_pin(tmp_path, matrix):
    files = {"packages.json": {"torch": "2.5.1"}, "requires.json": {"torch": TORCH_251_REQUIRES}}
    t = env_of(tmp_path, files, matrix).frameworks["torch"]
    assert (t.cuda, t.cpu_only) == ("12.4", False)
    assert t.cuda_source == "nvidia-cuda-runtime-cu12==12.4.127 pin"
    assert (t.cudnn, t.cudnn_source) == ("9.1.0", "Requires-Dist nvidia-cudnn-cu12==9.1.0.70")


def test_torch_cuda_from_the_installed_runtime_wheel(tmp_path, matrix):
    files = {"packages.json": {"torch": "2.5.1", "nvidia-cuda-runtime-cu12": "12.4.127"}}
    t = env_of(tmp_path, files, matrix).frameworks["torch"]
    assert (t.cuda, t.cuda_source) == ("12.4", "installed nvidia-cuda-runtime-cu12 12.4.127")


def test_torch_from_a_conda_build_string(tmp_path, matrix):
    files = {"packages.json": {"torch": "2.1.0=py3.10_cuda11.8_cudnn8.7.0_0"}}
    t = env_of(tmp_path, files, matrix).frameworks["torch"]
    assert (t.version, t.cuda, t.cudnn) == ("2.1.0", "11.8", "8.7.0")
    assert t.cuda_source.startswith("conda build string")


def test_unlabelled_torch_with_nothing_else_is_unknown_not_cpu_only(tmp_path, matrix):
    snap = make_snapshot(str(tmp_path / "s"), {"packages.json": {"torch": "2.5.1"}, "python.json": None})
    t = collect(open_snapshot(snap), matrix).frameworks["torch"]
    assert (t.cuda, t.cpu_only) == (None, None)
    text = status_text(snap)
    assert "None" not in text
    assert "unknown (supply python.json)" in text and "2.5.1 (build unknown: supply torch.json" in text


def test_captures_that_disagree_leave_a_note(tmp_path, matrix):
    files = {"torch.json": {"version": "2.5.1+cu121", "cuda": "12.1", "cudnn": 90100, "arch_list": None},
             "packages.json": {"torch": "2.5.1+cu124"}}
    env = env_of(tmp_path, files, matrix)
    t = env.frameworks["torch"]
    assert (t.cuda, t.cuda_source) == ("12.1", "torch.json")
    assert any("2.5.1+cu121" in n and "2.5.1+cu124" in n for n in env.notes)
    assert any("12.1" in n and "12.4" in n and "+cu124" in n for n in env.notes)


def test_arch_list_without_a_version_is_a_gpu_build(tmp_path, matrix):
    files = {"torch.json": {"arch_list": ["sm_37", "sm_50", "sm_60", "sm_70"]}}
    t = env_of(tmp_path, files, matrix).frameworks["torch"]
    assert t.cpu_only is False and t.arch_list == ("sm_37", "sm_50", "sm_60", "sm_70")


def test_tensorflow_cuda_from_the_and_cuda_pins(tmp_path, matrix):
    # tensorflow 2.16.1 Requires-Dist (extra "and-cuda"), as published on PyPI
    req = ['nvidia-cuda-runtime-cu12==12.3.101; extra == "and-cuda"',
           'nvidia-cudnn-cu12==8.9.7.29; extra == "and-cuda"', "numpy<2.0.0,>=1.23.5; python_version <= \"3.11\""]
    files = {"packages.json": {"tensorflow": "2.16.1"}, "requires.json": {"tensorflow": req}}
    tf = env_of(tmp_path, files, matrix).frameworks["tensorflow"]
    assert (tf.cuda, tf.cudnn, tf.cpu_only) == ("12.3", "8.9.7", False)
    assert tf.cuda_source == "tensorflow[and-cuda] pin nvidia-cuda-runtime-cu12==12.3.101"


def test_jax_and_cupy_from_distribution_names(tmp_path, matrix):
    files = {"packages.json": {"jax": "0.4.12", "jaxlib": "0.4.12+cuda12.cudnn89", "cupy-cuda12x": "13.3.0"}}
    env = env_of(tmp_path, files, matrix)
    jx, cp = env.frameworks["jax"], env.frameworks["cupy"]
    assert (jx.cpu_only, jx.cuda, jx.cuda_major, jx.cudnn) == (False, None, 12, "8.9")
    assert (cp.cuda, cp.cuda_major, cp.cuda_source) == (None, 12, "distribution name cupy-cuda12x")
    files = {"packages.json": {"jax": "0.4.30", "jaxlib": "0.4.30", "jax-cuda12-plugin": "0.4.30"}}
    jx = env_of(tmp_path, files, matrix, "s2").frameworks["jax"]
    assert (jx.cpu_only, jx.cuda_major, jx.cuda_source) == (False, 12, "distribution name jax-cuda12-plugin")


# --------------------------------------------------------------------------- cuDNN copies

def test_cudnn_known_only_from_its_soname_carries_the_major(tmp_path, matrix):
    snap = make_snapshot(str(tmp_path / "s"), {"ldconfig.txt": fixture("ldconfig", "cudnn9-split-libs-grep.txt")})
    env = collect(open_snapshot(snap), matrix)
    cudnn = env.copies("cudnn")
    assert cudnn and all((c.version, c.version_source) == ("9", "soname") for c in cudnn)
    rep = status_json(snap)
    assert rep["cudnn"][0]["version"] == "9"


def test_cudnn_header_without_a_library_is_listed(tmp_path, matrix):
    snap = make_snapshot(str(tmp_path / "s"), {"cudnn_version.h": fixture("cudnn-header", "cudnn_version-9.6.0.h"),
                                               "captures.json": {"cudnn_version.h": {
                                                   "status": "ok", "origin": "/usr/include/cudnn_version.h"}}})
    env = collect(open_snapshot(snap), matrix)
    assert [(c.version, c.source, c.path, c.on_search_path) for c in env.copies("cudnn")] == [
        ("9.6.0", "header", "/usr/include/cudnn_version.h", False)]
    rep = status_json(snap)
    assert rep["cudnn"] == [{"version": "9.6.0", "path": "/usr/include/cudnn_version.h", "source": "header",
                             "major": 9, "owner": None, "version_source": "cudnn_version.h"}]


def test_cudnn_header_next_to_its_library_is_not_listed_twice(tmp_path, matrix):
    files = {"cudnn_version.h": fixture("cudnn-header", "cudnn_version-8.9.1.h"),
             "captures.json": {"cudnn_version.h": {"status": "ok", "origin": "/usr/include/cudnn_version.h"}},
             "ldconfig.txt": "1 libs found in cache `/etc/ld.so.cache'\n"
                             "\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8\n"}
    env = env_of(tmp_path, files, matrix)
    assert [(c.version, c.source) for c in env.copies("cudnn")] == [("8.9.1", "ldconfig")]
