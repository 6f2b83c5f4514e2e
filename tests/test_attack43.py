"""attack43: session 19's new status / explain readings, attacked as a hostile user would.

The snapshots are copies of the real H200 broken states (tests/data/real/h200-580.159.04-broken-states, unedited
there) with the edit each test makes shown in the test: a WSL2 guest, a Jetson, a vGPU host, odd libcuda.json
contents. Each asserts a statement that was false (or a silence that hid one) before attack43's fix."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional, Sequence

STATES = Path(__file__).parent / "data" / "real" / "h200-580.159.04-broken-states"

# `nvidia-smi vgpu` on a vGPU host (the same text as tests/test_captures20n.py's VGPU, find_string id 1541780164)
VGPU = """nvidia-smi vgpu
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.147.01             Driver Version: 525.147.01                |
|---------------------------------+------------------------------+------------+
| GPU  Name                       | Bus-Id                       | GPU-Util   |
|      vGPU ID     Name           | VM ID     VM Name            | vGPU-Util  |
|=================================+==============================+============|
|   0  NVIDIA GeForce RTX 408...  | 00000000:01:00.0             |   0%       |
|      3251634190  NVIDIA RTXA... | f267...  win10test,debug-... |      0%    |
+---------------------------------+------------------------------+------------+
"""


def _edited(tmp: Path, base: str, drop: Sequence[str] = (), write: Optional[Dict[str, object]] = None) -> Path:
    """A copy of a real broken-state snapshot with files dropped (captures.json: not-found) or written."""
    d = tmp / base
    shutil.copytree(STATES / base, d)
    caps = json.loads((d / "captures.json").read_text(encoding="utf-8"))
    for name in drop:
        (d / name).unlink()
        caps[name]["status"] = "not-found"
    for name, content in (write or {}).items():
        (d / name).write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        caps.setdefault(name, {"detail": "", "origin": ""})["status"] = "ok"
    (d / "captures.json").write_text(json.dumps(caps), encoding="utf-8")
    return d


def _status(folder: Path) -> dict:
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", str(folder)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def _find(doc: dict, fid: str) -> list:
    return [f for f in doc["findings"] if f["id"] == fid]


def _bare_metal(base: str) -> dict:
    cont = json.loads((STATES / base / "container.json").read_text(encoding="utf-8"))
    return dict(cont, dockerenv=False, cgroup="0::/\n")


# ------------------------------------------------------------------------------------------- 1. status: user space


def test_wsl2_libcuda_not_loading_gets_the_windows_driver_fix_not_an_apt_install(tmp_path):
    # edit: no kernel module (WSL2 has none: /proc/driver/nvidia, /sys/module/nvidia absent), a WSL2 kernel, not a
    # container, /dev/dxg, no NVIDIA_* variables; libcuda.json: the loader found none, /usr/lib/wsl/lib's included
    base = "no-libcuda"
    environ = json.loads((STATES / base / "environ.json").read_text(encoding="utf-8"))
    d = _edited(tmp_path, base, drop=("proc-driver-version.txt", "sys-module-nvidia-version.txt"), write={
        "proc-version.txt": "Linux version 5.15.167.4-microsoft-standard-WSL2 (root@f9c826d3017f) (gcc (GCC) 11.2.0, "
                            "GNU ld (GNU Binutils) 2.37) #1 SMP Tue Nov 5 00:21:55 UTC 2024\n",
        "container.json": dict(_bare_metal(base), dev_nvidia=[], dev_dxg=True),
        "environ.json": {k: v for k, v in environ.items() if not k.startswith("NVIDIA")},
        "libcuda.json": {"code": "not-found", "error": "libcuda.so.1 could not be loaded: libcuda.so.1: cannot open "
                         "shared object file: No such file or directory; /usr/lib/wsl/lib/libcuda.so.1: cannot open "
                         "shared object file: No such file or directory"}})
    doc = _status(d)
    (f,) = _find(doc, "no-gpu-driver")
    assert "apt install" not in f["fix"] and "libnvidia-compute" not in f["fix"]
    assert "Windows" in f["fix"] and "do not install a Linux NVIDIA driver" in f["fix"]


def test_jetson_libcuda_not_loading_names_l4t_not_a_desktop_driver_package(tmp_path):
    # edit: a Jetson's tegra-release (L4T 36.4.3), no /proc/driver/nvidia (L4T's nvgpu has none), not a container
    base = "no-libcuda"
    d = _edited(tmp_path, base, drop=("proc-driver-version.txt", "sys-module-nvidia-version.txt"), write={
        "tegra-release.txt": "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, DATE: "
                             "Wed Jan  8 01:49:37 UTC 2025\n",
        "container.json": _bare_metal(base)})
    (f,) = _find(_status(d), "no-gpu-driver")
    assert "libnvidia-compute" not in f["fix"] and "nvidia-l4t-cuda" in f["fix"]


def test_vgpu_host_without_libcuda_is_the_vgpu_note_not_a_missing_driver(tmp_path):
    # edit: nvidia-smi.txt is `nvidia-smi vgpu`'s table (a vGPU host driver: no libcuda there by design), bare metal
    d = _edited(tmp_path, "no-libcuda", drop=("nvidia-smi-query.csv", "nvml.json"),
                write={"nvidia-smi.txt": VGPU, "container.json": _bare_metal("no-libcuda")})
    doc = _status(d)
    assert not _find(doc, "no-gpu-driver")
    notes = [f for f in _find(doc, "not-checked") if "vGPU host" in f["message"]]
    assert len(notes) == 1


def test_libcuda_json_not_found_with_a_path_leaves_the_cuda_na_note(tmp_path):
    # edit: libcuda.json contradicts itself ("code": "not-found" beside the path of a library that loaded): the new
    # check stays out (a path), and nvidia-smi's "CUDA Version: N/A" must still be said, not silenced by both
    d = _edited(tmp_path, "no-libcuda", write={"libcuda.json": {
        "code": "not-found", "path": "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "error": "x"}})
    doc = _status(d)
    assert not _find(doc, "no-gpu-driver")
    assert any("'N/A'" in f["message"] for f in _find(doc, "not-checked"))


def test_control_characters_in_libcuda_error_do_not_reach_the_terminal(tmp_path):
    # edit: libcuda.json's error holds an escape sequence, BEL, CR, backspace, NUL and a right-to-left override
    d = _edited(tmp_path, "no-libcuda", write={"libcuda.json": {
        "code": "not-found", "error": "libcuda.so.1 could not be \x1b[31mloaded\x1b]0;x\x07: \r\x08\x00z\u202ez"}})
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--snapshot", str(d)],
                       capture_output=True, text=True, timeout=120)
    assert "no-gpu-driver" in r.stdout
    assert not any(c in r.stdout for c in "\x1b\x07\r\x08\x00\u202e")


def test_libnvidia_ml_is_not_said_missing_where_nvml_answered_or_was_not_captured(tmp_path):
    # edit A: no nvidia-smi output; nvml.json: NVML loaded (its library path, the driver version) and listed no GPU
    nvml = {"driver_version": "580.159.04", "gpus": [], "library": "/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04"}
    a = _edited(tmp_path / "a", "no-libcuda", drop=("nvidia-smi.txt", "nvidia-smi-query.csv"), write={"nvml.json": nvml})
    # edit B: neither nvidia-smi output nor nvml.json (a hand-made snapshot)
    b = _edited(tmp_path / "b", "no-libcuda", drop=("nvidia-smi.txt", "nvidia-smi-query.csv", "nvml.json"))
    for d in (a, b):
        (f,) = _find(_status(d), "no-gpu-driver")
        assert "libcuda.so.1" in f["message"] and "libnvidia-ml.so.1, nvidia-smi's" not in f["message"]


# --------------------------------------------------------------------------------------------------- 3. explain


def _explain(text: str) -> list:
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", "-"], input=text,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["matches"]


def test_a_resolver_conflict_over_nvidia_ml_py_is_no_cuda_library_pin():
    # constructed (pip's ResolutionImpossible wording, as in young-geng/EasyLM#92): nvidia-ml-py is NVML's Python
    # binding (pynvml's dependency), not a CUDA library wheel a framework pins
    text = ("ERROR: Cannot install -r requirements.txt (line 3) and pynvml==11.5.0 because these package versions have "
            "conflicting dependencies.\n\nThe conflict is caused by:\n    The user requested nvidia-ml-py==11.495.46\n"
            "    pynvml 11.5.0 depends on nvidia-ml-py>=11.450.51\n")
    assert not [m for m in _explain(text) if m["id"] == "framework-conflict"]


def test_a_resolver_conflict_over_a_cuda_library_wheel_is_still_read():
    # real: Vision-CAIR/MiniGPT4-video#45 (conda env create of an environment.yml)
    text = ("The conflict is caused by:\n    The user requested nvidia-nccl-cu12==2.18.1\n    torch 2.2.2 depends on "
            "nvidia-nccl-cu12==2.19.3; platform_system == \"Linux\" and platform_machine == \"x86_64\"\n")
    assert [m["id"] for m in _explain(text)] == ["framework-conflict"]


def test_torchs_could_not_load_this_library_does_not_explain_tensorflows_loader_warning():
    # constructed from two real wordings: TensorFlow's dso_loader warning (tensorflow/tensorflow#60854) a few lines
    # above torchaudio's "Could not load this library" (torch/_ops.py) for its ffmpeg extension: the extension
    # does not explain TensorFlow's own missing libcudart
    text = ("2023-05-01 10:00:00.000000: W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:64] "
            "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object "
            "file: No such file or directory\nTraceback (most recent call last):\n  File \"/opt/conda/lib/python3.10/"
            "site-packages/torchaudio/_extension/utils.py\", line 60, in _load_lib\n    torch.ops.load_library(path)\n"
            "OSError: Could not load this library: /opt/conda/lib/python3.10/site-packages/torchaudio/lib/"
            "libtorchaudio_ffmpeg.so\n")
    runtime = [m for m in _explain(text) if m["id"] == "cuda-runtime-missing"]
    assert len(runtime) == 1 and runtime[0].get("explained_by") != "extension-abi-mismatch"


def test_nvcc_fix_does_not_date_an_old_architecture_from_the_matrixs_oldest_toolkit():
    # nvcc's real wording (its sm_35 refusal on the H200, heldout/realgpu20) with sm_30 / compute_20: sm_30 was built
    # long before CUDA 9.1, the oldest toolkit whose targets the matrix lists; "built by CUDA 9.1 to 10.2 only" is false
    fix = _explain("nvcc fatal   : Unsupported gpu architecture 'sm_30'\n")[0]["fixes"][0]
    assert "CUDA 10.2 or older" in fix and "9.1 to" not in fix
    old = _explain("nvcc fatal   : Unsupported gpu architecture 'compute_20'\n")[0]["fixes"][0]
    assert "No CUDA toolkit envcheck's matrix lists builds compute_20" in old and "older than that may have" in old


def test_pip_verbose_link_skipped_for_its_requires_python_is_no_failure():
    # pip -v's debug line for each link it skips (pip/_internal/index/package_finder.py: "Link requires a different
    # Python (%s not in: %r): %s"), printed in installs that then succeed with an older release; constructed around it
    text = ("  Link requires a different Python (3.8.10 not in: '>=3.9'): https://files.pythonhosted.org/packages/aa/bb/"
            "numpy-1.26.0.tar.gz (from https://pypi.org/simple/numpy/) (requires-python:>=3.9)\n"
            "Successfully installed numpy-1.24.4\n")
    assert _explain(text) == []
    # pip's own refusal keeps its reading (the wording quoted in docs/explain.md)
    refusal = "ERROR: Package 'torch' requires a different Python: 3.6.9 not in '>=3.8.0'\n"
    assert [m["id"] for m in _explain(refusal)] == ["python-unsupported"]
