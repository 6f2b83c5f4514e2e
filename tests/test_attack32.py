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


def _pci_snapshot(tmp_path, devices, files=None):
    snap = tmp_path / "pci"
    snap.mkdir()
    (snap / "pci-gpus.json").write_text(json.dumps(
        [{"slot": f"0000:0{i + 3}:00.0", "vendor": v, "device": d, "class": "0x030000"} for i, (v, d) in enumerate(devices)]))
    for name, body in (files or {}).items():
        (snap / name).write_text(body if isinstance(body, str) else json.dumps(body))
    return snap


def test_an_amd_gpu_known_only_by_its_pci_id_gets_its_gfx_target_and_family(tmp_path):
    # 0x73bf: ROCm's thunk table (Navi 21, gfx1030); 0x744c: AMD's device_info table (RX 7900 XTX, gfx1100);
    # 0x74a1: MI300X / MI300A (gfx942, CDNA3); 0x1234: in neither table
    snap = _pci_snapshot(tmp_path, [("0x1002", "0x73bf"), ("0x1002", "0x744c"), ("0x1002", "0x74a1"),
                                    ("0x1002", "0x1234")])
    d = _status_json(snap)
    assert d["vendor"] == "amd"
    got = [(g["device_id"], g["gfx"], g["family"], g["vendor"]) for g in d["gpus"]]
    assert got == [("0x73bf", "gfx1030", "GFX103", "amd"), ("0x744c", "gfx1100", "GFX11", "amd"),
                   ("0x74a1", "gfx942", "CDNA3", "amd"), ("0x1234", None, None, "amd")]
    r = envcheck("status", "--snapshot", str(snap))
    assert "gfx1100" in r.stdout and "AMD device 0x1234 is unknown" in " ".join(r.stdout.split())


def test_the_gfx_from_a_pci_id_is_checked_against_the_build(tmp_path):
    # torch 2.0.1+rocm5.4.2 is built for gfx900 gfx906 gfx908 gfx90a gfx1030 (rocm.toml): an RX 7900 XTX is not in
    snap = _pci_snapshot(tmp_path, [("0x1002", "0x744c")], {"packages.json": {"torch": "2.0.1+rocm5.4.2"}})
    d = _status_json(snap)
    [f] = [f for f in d["findings"] if f["id"] == "gpu-arch-unsupported"]
    assert "gfx1100" in f["message"]
    snap2 = _pci_snapshot(tmp_path / "b", [("0x1002", "0x73bf")], {"packages.json": {"torch": "2.0.1+rocm5.4.2"}}) \
        if (tmp_path / "b").mkdir() is None else None
    assert not [f for f in _status_json(snap2)["findings"] if f["id"] == "gpu-arch-unsupported"]


def test_an_amd_igpu_beside_an_nvidia_gpu_on_the_pci_bus_is_not_the_accelerator(tmp_path):
    # a Ryzen 7000's Radeon Graphics (Raphael, 0x164e) next to an NVIDIA card, nothing else captured
    snap = _pci_snapshot(tmp_path, [("0x1002", "0x164e"), ("0x10de", "0x2684")])
    d = _status_json(snap)
    assert d["vendor"] == "nvidia"
    assert not [g for g in (d["gpus"] or []) if g.get("vendor") == "amd"]


WIN_ROCBLAS = ("rocBLAS error: Could not load C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/"
               "TensileLibrary_lazy_gfx1100.dat\nrocBLAS error: Could not initialize Tensile host:\n")
LINUX_ROCBLAS = ("rocBLAS error: Could not load /opt/rocm-6.1.0/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat\n"
                 "rocBLAS error: Could not initialize Tensile host:\n")


def _explain_fixes(tmp_path, text):
    log = tmp_path / "log.txt"
    log.write_text(text)
    r = envcheck("explain", str(log), "--json")
    [m] = [m for m in json.loads(r.stdout)["matches"] if m["id"] == "gpu-arch-unsupported"]
    return m["fixes"]


def test_a_windows_hip_sdk_log_gets_no_linux_rocm_wheel(tmp_path):
    # the HIP SDK's rocBLAS on Windows (C:\\Program Files\\AMD\\ROCm\\6.1): PyTorch's ROCm wheels are Linux's only
    fixes = _explain_fixes(tmp_path, WIN_ROCBLAS)
    assert not any("download.pytorch.org/whl/rocm" in f and "pip install" in f for f in fixes), fixes
    assert "Linux only" in fixes[0] and "Windows" in fixes[0]
    # the same failure on Linux keeps the PyTorch-index wheel first
    fixes = _explain_fixes(tmp_path, LINUX_ROCBLAS)
    assert fixes[0].startswith("pip install torch==") and "/whl/rocm" in fixes[0], fixes


def _hipinfo_snapshot(tmp_path, python=None):
    snap = tmp_path / "win"
    snap.mkdir()
    shutil.copy(os.path.join(ROOT, "tests", "data", "vendors", "hipinfo",
                             "v21l-diagnostic-dump-section-6750-gre-gfx1031-windows.txt"), snap / "hipinfo.txt")
    if python:
        (snap / "python.json").write_text(json.dumps(python))
    return snap


def test_fix_on_a_windows_hip_sdk_machine_plans_no_linux_wheel(tmp_path):
    snap = _hipinfo_snapshot(tmp_path, {"version": "3.12.4", "platform": "win32", "machine": "AMD64"})
    r = envcheck("fix", "--snapshot", str(snap), "--want", "torch", "--json")
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and doc["satisfiable"] is False and doc["commands"]["pip"] == []
    assert "Linux only" in doc["reason"] and doc["env"] == {}


def test_fix_with_only_hipinfo_does_not_assume_linux(tmp_path):
    # hipInfo runs on the Windows HIP SDK and on Linux's TheRock: with no python.json the platform is unknown
    snap = _hipinfo_snapshot(tmp_path)
    r = envcheck("fix", "--snapshot", str(snap), "--want", "torch", "--json")
    doc = json.loads(r.stdout)
    assert doc["satisfiable"] is False and doc["commands"]["pip"] == [] and "platform is not known" in doc["reason"]
    assert any(lift["action"].startswith("on Linux: python -m pip install torch==") for lift in doc["lifts"])
    assert any(lift["action"].startswith("on Windows:") for lift in doc["lifts"])
    # a capture only Linux has (the PCI bus read from /sys) settles it
    (snap / "pci-gpus.json").write_text(json.dumps([{"slot": "0000:03:00.0", "vendor": "0x1002", "device": "0x73df",
                                                      "class": "0x030000"}]))
    doc = json.loads(envcheck("fix", "--snapshot", str(snap), "--want", "torch", "--json").stdout)
    assert doc["satisfiable"] is True and any("/whl/rocm" in c for c in doc["commands"]["pip"]), doc


def test_a_cpu_torch_on_a_jetson_is_framework_cpu_only(tmp_path):
    # the real Jetson Orin Nano snapshot (jetson_release: JetPack 5.1.4) with PyPI's aarch64 torch (CPU-only there)
    snap = tmp_path / "jet"
    shutil.copytree(os.path.join(SNAPS, "jetson-orin-nano-jp5.1.4-cuda12.3-jetson-fpv"), snap)
    (snap / "packages.json").write_text(json.dumps({"torch": "2.5.1"}))
    (snap / "torch.json").write_text(json.dumps({"version": "2.5.1", "cuda": None, "cudnn": None, "arch_list": None}))
    d = _status_json(snap)
    [f] = [f for f in d["findings"] if f["id"] == "framework-cpu-only"]
    assert f["severity"] == "warning" and "Jetson" in f["message"] and "JetPack 5.1.4" in f["message"]
    # NVIDIA's Jetson build (the snapshot's own "+l4t35.6" torch) is no CPU build
    shutil.copy(os.path.join(SNAPS, "jetson-orin-nano-jp5.1.4-cuda12.3-jetson-fpv", "packages.json"),
                snap / "packages.json")
    (snap / "torch.json").unlink()
    assert not [f for f in _status_json(snap)["findings"] if f["id"] == "framework-cpu-only"]


def test_an_unreadable_nvidia_smi_txt_concludes_nothing(tmp_path):
    # a 30 MB nvidia-smi.txt (over the 2 MiB bound: not read) said "gpu none found" and "No NVIDIA driver answered"
    snap = tmp_path / "big"
    snap.mkdir()
    (snap / "nvidia-smi.txt").write_text("| NVIDIA-SMI 550.54.15  Driver Version: 550.54.15  CUDA Version: 12.4 |"
                                         + "A" * 3_000_000 + "\n")
    d = _status_json(snap)
    assert d["gpus"] is None and d["gpus_known"] is False
    assert "nvidia-smi.txt" in d["not_captured"]
    assert any(p["capture"] == "nvidia-smi.txt" and p["status"] == "unreadable" for p in d["problems"])
    assert not [f for f in d["findings"] if f["id"] == "no-gpu-driver"]
    out = envcheck("status", "--snapshot", str(snap)).stdout
    assert "none found" not in out and "No NVIDIA driver answered" not in out
    assert "nvidia-smi.txt: unreadable" in " ".join(out.split())


def test_a_pasted_lspci_nn_gives_the_amd_gpus_target(tmp_path):
    # three R9700 as lspci -nn lists them (ROCm/legacy-rocm-build#6155; the thread: gfx1201), then a HIP failure
    lspci = open(os.path.join(ROOT, "tests", "data", "vendors", "lspci", "rocm-6155-r9700-x3-device-7551.txt")).read()
    log = tmp_path / "paste.txt"
    log.write_text(lspci + "RuntimeError: HIP error: invalid device function\n")
    out = json.loads(envcheck("explain", str(log), "--json").stdout)
    assert "lspci" in out["detected"]
    [m] = [m for m in out["matches"] if m["id"] == "gpu-arch-unsupported"]
    assert "gfx1201" in m["fixes"][0], m["fixes"]
    # lspci names no GPU the driver lists: the facts list none from it (never a GPU list)
    assert not [g for g in out["facts"].get("gpus") or [] if g.get("vendor") == "amd"]


def test_a_pasted_lspci_of_an_amd_igpu_beside_nvidia_is_not_an_amd_machine(tmp_path):
    log = tmp_path / "paste.txt"
    log.write_text("01:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684] "
                   "(rev a1)\n0e:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Raphael "
                   "[1002:164e] (rev c6)\nRuntimeError: CUDA error: no kernel image is available for execution on the "
                   "device\n")
    out = json.loads(envcheck("explain", str(log), "--json").stdout)
    [m] = [m for m in out["matches"] if m["id"] == "gpu-arch-unsupported"]
    assert not any("rocm" in f.lower() or "gfx" in f for f in m["fixes"]), m["fixes"]


def test_a_macs_radeon_egpu_gets_its_target_from_its_device_id(tmp_path):
    # system_profiler names an eGPU's device id (0x73bf, Navi 21: gfx1030 in ROCm's device table); the Mac's own
    # Intel GPU is not AMD's and keeps no target
    snap = tmp_path / "mac"
    snap.mkdir()
    (snap / "system-profiler-displays.txt").write_text(
        "Graphics/Displays:\n\n    Intel UHD Graphics 630:\n\n      Chipset Model: Intel UHD Graphics 630\n"
        "      Type: GPU\n      Bus: Built-In\n      VRAM (Dynamic, Max): 1536 MB\n      Vendor: Intel\n"
        "      Device ID: 0x3e9b\n\n    AMD Radeon RX 6800 XT:\n\n      Chipset Model: AMD Radeon RX 6800 XT\n"
        "      Type: External GPU\n      Bus: PCIe\n      VRAM (Total): 16 GB\n      Vendor: AMD (0x1002)\n"
        "      Device ID: 0x73bf\n")
    (snap / "sw-vers.txt").write_text("ProductName:\t\tmacOS\nProductVersion:\t\t13.6.1\nBuildVersion:\t\t22G313\n")
    d = _status_json(snap)
    assert d["vendor"] == "apple"
    assert [(g["vendor"], g.get("gfx"), g["device_id"]) for g in d["gpus"]] == [
        ("intel", None, "0x3e9b"), ("amd", "gfx1030", "0x73bf")]


def test_fix_with_no_platform_names_the_index_of_every_build(tmp_path):
    # the GH200 (aarch64) without python.json: PyPI's own torch 2.5.1 is a CUDA build on Linux x86_64 only (a CPU
    # build on aarch64), so a plain `pip install torch==2.5.1` assumed x86_64; the platform is said as unknown
    snap = _gh200_without_python_json(tmp_path)
    (snap / "packages.json").write_text(json.dumps({"torch": "2.5.1+cu124"}))
    doc = json.loads(envcheck("fix", "--snapshot", str(snap), "--json").stdout)
    assert doc["target"]["platform"] is None
    assert doc["commands"]["pip"] and all("--index-url" in c for c in doc["commands"]["pip"]), doc["commands"]
    assert any("platform is not known" in n for n in doc["notes"])
    out = envcheck("fix", "--snapshot", str(snap)).stdout
    assert "platform unknown" in out.splitlines()[0] and "x86_64 assumed" not in out
    # with its python.json (aarch64) the plan is that platform's
    shutil.copy(os.path.join(SNAPS, "gh200-570.124.06-warpik", "python.json"), snap / "python.json")
    doc = json.loads(envcheck("fix", "--snapshot", str(snap), "--json").stdout)
    assert doc["target"]["platform"] == "linux-aarch64"
