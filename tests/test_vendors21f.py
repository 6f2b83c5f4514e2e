"""Batch 21f of real vendor captures (issue 21): each one alone as a snapshot, read by `envcheck status`.

The captures are the dev part of heldout/vendors21f/README.md (sources there and in tests/data/README.md): rocm-smi
`-a` / concise tables, `amd-smi version`, `sycl-ls`, `clinfo -l`, `sw_vers`, `system_profiler` and
`/etc/nv_tegra_release`, found with `find_string` in public issues and READMEs. Their facts were written by hand
into tests/data/vendors/v21f-expected.json before any run; the fixes below were written from the misses.
"""

from __future__ import annotations

import json
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from score_vendors21f import NVIDIA_ONLY, SNAPSHOT_NAME, compare  # noqa: E402
from helpers import report_with_text  # noqa: E402

from envcheck.parse.amd_smi import parse_amd_smi_version  # noqa: E402
from envcheck.parse.intel import parse_clinfo  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "vendors")
EXPECTED = {}
README_OF = {}
for _set, _readme in (("v21f", "vendors21f"), ("v21f2", "vendors21f2")):
    with open(os.path.join(DATA, _set + "-expected.json"), encoding="utf-8") as _fh:
        for _k, _v in json.load(_fh).items():
            EXPECTED[_k], README_OF[_k] = _v, _readme


def _snapshot(tmp_path, tool, src):
    d = tmp_path / "snap"
    d.mkdir()
    with open(src, "rb") as fh:
        (d / SNAPSHOT_NAME[tool]).write_bytes(fh.read())
    return d


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_capture_alone_reads_to_its_facts(name, tmp_path, run_status):
    tool = name.split("/")[0]
    snap = _snapshot(tmp_path, tool, os.path.join(DATA, name))
    assert compare(EXPECTED[name]["facts"], report_with_text(snap, run_status)) == [], name


def test_every_capture_is_cited():
    for name, e in EXPECTED.items():
        with open(os.path.join(ROOT, "heldout", README_OF[name], "README.md"), encoding="utf-8") as fh:
            readme = fh.read()
        assert re.match(r"find_string id \d+ ", e["source"]), name
        assert name in readme and e["source"] in readme


def test_rocminfo_lines_quoted_without_their_layout():
    # a WSL2 issue quoting only rocminfo's Name / Marketing Name lines with "> " (the held-back batch 21f2 miss);
    # the ISA line "Name: amdgcn-amd-amdhsa--gfx1030" is not a second GPU
    from envcheck.parse.rocminfo import parse_rocminfo

    text = ("> GPU:\n> Name:                    gfx1030\n> Marketing Name:          AMD Radeon RX 6900 XT\n"
            "> Name:                    amdgcn-amd-amdhsa--gfx1030\n")
    r = parse_rocminfo(text)
    assert [(g.name, g.gfx) for g in r.gpus] == [("AMD Radeon RX 6900 XT", "gfx1030")]
    assert parse_rocminfo("> Name: AMD Ryzen 9 3900X 12-Core Processor\n").gpus == []
    # a CPU agent quoted the same way stays out
    cpu = parse_rocminfo("Name: gfx1036\nMarketing Name: AMD Ryzen 5 7600\nDevice Type: CPU\n")
    assert cpu.gpus == []


# --- the misses the dev part showed, each fixed -----------------------------------------------------------------
def test_amd_smi_version_without_rocm_still_names_amds_stack(tmp_path, run_status):
    # Debian 13 with amdgpu built into the kernel: amd-smi answers but reaches no driver ('ROCm version: N/A')
    src = os.path.join(DATA, "amd-smi-version", "v21f-builtin-amdgpu-rocm-na-errors.txt")
    with open(src, encoding="utf-8") as fh:
        v = parse_amd_smi_version(fh.read())
    assert v.tool == "26.1.0" and v.rocm is None and v.amdgpu is None
    assert v.driver_error and v.driver_error.startswith("Unable to get devices, driver not initialized")
    snap = _snapshot(tmp_path, "amd-smi-version", src)
    _, rep, _ = run_status(snap)
    # amd-smi reached no driver, so it listed no GPU: the GPUs are unknown, not "none" (attack37)
    assert rep["vendor"] == "amd" and rep["gpus"] is None and rep["gpus_known"] is False
    assert "amd-smi" in rep["accelerator"]["tools"]
    assert not any(NVIDIA_ONLY.search(f["message"]) for f in rep["findings"])
    assert any(f["id"] == "not-checked" and "amd-smi" in f["message"] for f in rep["findings"])
    assert any("driver not initialized" in n for n in rep["notes"])


def test_amd_smi_version_of_a_working_host_has_no_driver_error():
    v = parse_amd_smi_version("AMDSMI Tool: 26.0.2+39589fda | AMDSMI Library version: 26.0.2 | ROCm version: "
                              "7.0.2 | amdgpu version: 6.14.14 | amd_hsmp version: N/A")
    assert (v.tool, v.rocm, v.amdgpu, v.driver_error) == ("26.0.2", "7.0.2", "6.14.14", None)


def test_clinfo_list_form_tells_a_cpu_device_from_a_gpu():
    with open(os.path.join(DATA, "clinfo", "v21f-l-uhd620-and-cpu-platform.txt"), encoding="utf-8") as fh:
        devs = parse_clinfo(fh.read())
    assert [(d["name"], d["type"]) for d in devs] == [
        ("Intel(R) UHD Graphics 620", None), ("Intel(R) Core(TM) i7-8565U CPU @ 1.80GHz", "CPU")]
    # a GPU's name keeps the type unknown (read as a GPU), an FPGA emulator is not a GPU either
    assert parse_clinfo("Platform #0: Intel(R) OpenCL Graphics\n `-- Device #0: Intel(R) Arc(TM) A770 Graphics")[0][
        "type"] is None
    fpga = parse_clinfo("Platform #1: Intel(R) FPGA Emulation Platform for OpenCL(TM)\n"
                        " `-- Device #0: Intel(R) FPGA Emulation Device")
    assert fpga[0]["type"] == "ACCELERATOR"


def test_rocm_smi_driver_capture_alone_is_an_amd_machine(tmp_path, run_status):
    # `rocm-smi --showdriverversion --csv` on an in-tree amdgpu (tests/data/README.md: easybuild#3978)
    src = os.path.join(DATA, "rocm-smi-driver", "csv-kernel-version-easybuild3978.txt")
    d = tmp_path / "s"
    d.mkdir()
    with open(src, "rb") as fh:
        (d / "rocm-smi-driver.txt").write_bytes(fh.read())
    _, rep, _ = run_status(d)
    assert rep["vendor"] == "amd" and rep["rocm"]["amdgpu"] is None
    assert rep["rocm"]["amdgpu_source"] == "in-tree amdgpu (kernel 4.18.0-348.12.2.el8_5.x86_64)"
    assert not any(NVIDIA_ONLY.search(f["message"]) for f in rep["findings"])


@pytest.mark.parametrize("printed,module", [
    ("5.18.2.22.40", "5.18.2.22.40"),  # the DKMS module of ROCm 5.4 (amdgpu-dkms 5.18.2.22.40): a module version
    ("6.8.5", "6.8.5"),
    ("6.8.0-45-generic", None),  # a kernel release: the in-tree driver
])
def test_rocm_smi_driver_version_forms(printed, module, tmp_path, run_status):
    d = tmp_path / "s"
    d.mkdir()
    (d / "rocm-smi-driver.txt").write_text(
        "========================= ROCm System Management Interface =========================\n"
        "========================= Version of System Component =========================\n"
        f"Driver version: {printed}\n"
        "==================================================================================\n")
    _, rep, _ = run_status(d)
    assert rep["rocm"]["amdgpu"] == module
    assert rep["rocm"]["amdgpu_source"] == ("rocm-smi --showdriverversion" if module else
                                            f"in-tree amdgpu (kernel {printed})")


# --- fix plans on these machines (item 3) ---------------------------------------------------------------------
def _fix(snap):
    from click.testing import CliRunner

    from envcheck.cli import cli

    res = CliRunner().invoke(cli, ["fix", "--json", "--snapshot", str(snap), "--want", "torch"], standalone_mode=False,
                             catch_exceptions=False)
    return (res.return_value if isinstance(res.return_value, int) else res.exit_code), json.loads(res.output)


def _mac(tmp_path, machine, py, sw_vers, profiler=None):
    from helpers import fixture, make_snapshot

    files = {"python.json": {"version": py, "platform": "darwin", "machine": machine},
             "sw-vers.txt": fixture("vendors", "sw-vers", sw_vers) if sw_vers.endswith(".txt") else sw_vers}
    if profiler:
        files["system-profiler-displays.txt"] = fixture("vendors", "system-profiler", profiler)
    return make_snapshot(str(tmp_path / "mac"), files)


# PyPI, read with `pip index versions torch --only-binary=:all: --platform macosx_15_0_x86_64` (2026-11-26):
# 'Available versions: 2.2.2, 2.2.1, 2.2.0' -- the last macOS x86_64 torch wheels
LAST_MAC_X86 = "2.2.2"


def test_fix_on_an_intel_mac_plans_the_last_x86_64_wheels(tmp_path):
    # an iMac Pro (Radeon Pro Vega 64, system_profiler of tests/data) on macOS 13.2 (a real sw_vers), x86_64 Python
    snap = _mac(tmp_path, "x86_64", "3.11.9", "v21f-13.2-flutter-issue.txt", "imac-pro-2017-vega64-text-cpuinfo17.txt")
    code, plan = _fix(snap)
    assert code == 0 and plan["satisfiable"], plan
    assert [(p["name"], p["version"], p["variant"]) for p in plan["packages"]] == [("torch", LAST_MAC_X86, "mps")]
    assert plan["commands"]["pip"] == [f"python -m pip install torch=={LAST_MAC_X86}"]
    assert any("x86_64" in n for n in plan["notes"])


def test_fix_on_an_intel_mac_with_a_too_new_python_says_what_lifts_it(tmp_path):
    snap = _mac(tmp_path, "x86_64", "3.13.1", "v21f-13.2-flutter-issue.txt", "imac-pro-2017-vega64-text-cpuinfo17.txt")
    code, plan = _fix(snap)
    assert code != 0 and not plan["satisfiable"] and plan["commands"]["pip"] == []
    actions = " | ".join(lf["action"] for lf in plan["lifts"])
    assert f"torch {LAST_MAC_X86}" in actions and "3.12" in actions and "Apple silicon" in actions


def test_fix_on_apple_silicon_macos_13_stops_below_the_releases_that_need_14(tmp_path):
    # mps.toml: 2.5 .. 2.8 need macOS 13.0 (pytorch#139425), 2.9+ macOS 14 (pytorch#162921); from 2.12 the arm64
    # wheels are tagged macosx_14_0 (PyPI): on 13.2 the newest MPS build is the newest 2.8 release
    snap = _mac(tmp_path, "arm64", "3.12.4", "v21f-13.2-flutter-issue.txt")
    code, plan = _fix(snap)
    assert code == 0 and plan["packages"][0]["version"].startswith("2.8.")
    assert any("macOS 14" in n for n in plan["notes"])


def test_fix_on_macos_below_12_3_names_the_lowest_macos_that_helps(tmp_path):
    snap = _mac(tmp_path, "arm64", "3.12.4", "ProductName:\tmacOS\nProductVersion:\t12.0.1\nBuildVersion:\t21A559\n")
    code, plan = _fix(snap)
    assert not plan["satisfiable"] and "12.0.1" in plan["reason"]
    action = plan["lifts"][0]["action"]
    # 'available for Apple silicon Macs running macOS 12.3 or later' (1.12 .. 2.4); 2.5 needs 13.0
    assert action.startswith("upgrade macOS to 12.3 or newer (torch 2.4.") and "14.0+" in action


@pytest.mark.parametrize("release,arch,mac,ok", [
    ("2.12.0", "arm64", "13.6", False),   # macosx_14_0_arm64 wheels
    ("2.12.0", "arm64", "14.0", True),
    ("2.11.0", "arm64", "13.0", True),
    ("2.3.0", "x86_64", "14.5", False),   # after the last x86_64 wheels
    ("2.2.2", "x86_64", None, True),
    ("2.12.0", "arm64", None, None),      # unknown macOS: unknown
    ("2.12.0", None, "14.0", None),       # unknown architecture: unknown
])
def test_macos_wheel_rule(release, arch, mac, ok):
    from envcheck.engine.vendors import macos_wheel_ok
    from envcheck.matrix import load_matrix

    assert macos_wheel_ok(load_matrix(), release, arch, mac) is ok


def test_fix_on_a_jetson_patch_release_uses_its_jetpack_index(tmp_path):
    from helpers import fixture, make_snapshot

    snap = make_snapshot(str(tmp_path / "j"), {
        "tegra-release.txt": fixture("vendors", "tegra-release", "v21f-r36.4.7-orin-nano-super.txt"),
        "python.json": {"version": "3.10.12", "platform": "linux", "machine": "aarch64"}})
    code, plan = _fix(snap)
    # L4T 36.4.7 is JetPack 6.2.1 (nvidia-jetpack 6.2.1+b38 on an R36.4.7 Orin NX, jetson.toml)
    assert code == 0 and plan["target"]["jetpack"] == "6.2.1"
    assert plan["commands"]["pip"] == ["python -m pip install torch --index-url https://pypi.jetson-ai-lab.dev/jp6/cu126"]
    assert "download.pytorch.org" not in json.dumps(plan["commands"])


def test_fix_for_rdna1_is_unsatisfiable_and_does_not_offer_the_crashing_override(tmp_path):
    from helpers import make_snapshot

    snap = make_snapshot(str(tmp_path / "a"), {"rocm-agent-enumerator.txt": "gfx000\ngfx1010\n"})
    code, plan = _fix(snap)
    assert code != 0 and not plan["satisfiable"] and plan["env"] == {}
    assert "gfx1010" in plan["reason"]
    assert any("PYTORCH_ROCM_ARCH=gfx1010" in lf["action"] for lf in plan["lifts"])
    assert not any("HSA_OVERRIDE_GFX_VERSION" in lf["action"] for lf in plan["lifts"])
    assert any("not a way out" in n and "10.3.0" in n for n in plan["notes"])


# --- AMD GPU Driver 30.x: the kernel driver's window from its module version ------------------------------------
def _amd_host(tmp_path, module, torch_json=None, rocm_version=None):
    from helpers import make_snapshot

    files = {"rocm-agent-enumerator.txt": "gfx000\ngfx1100\n", "sys-module-amdgpu-version.txt": module + "\n"}
    if torch_json:
        files["torch.json"] = torch_json
        files["packages.json"] = {"torch": torch_json["version"]}
    if rocm_version:
        files["rocm-version.txt"] = rocm_version + "\n"
    return make_snapshot(str(tmp_path / "amd"), files)


def _driver(rep):
    return [f for f in rep["findings"] if f.get("component") == "driver" or f["id"] == "driver-too-old"]


def test_amdgpu_30_10_module_gives_its_window(tmp_path, run_status):
    # AMD GPU Driver 30.10 (docs: 'amdgpu/6.14.14-2204008...', '6.14.14: amdgpu driver version'), tested with user space
    # 6.2.x .. 7.2.x (user-kernel-space-compat-matrix.rst row "30.10.x")
    snap = _amd_host(tmp_path, "6.14.14", {"version": "2.10.0+rocm7.0", "hip": "7.0.51831"})
    _, rep, _ = run_status(snap)
    assert rep["rocm"]["amdgpu"] == "6.14.14" and _driver(rep) == []


def test_amdgpu_30_10_module_with_a_newer_user_space_is_too_old(tmp_path, run_status):
    snap = _amd_host(tmp_path, "6.14.14", {"version": "2.15.0+rocm7.14", "hip": "7.14.60850"})
    _, rep, _ = run_status(snap)
    f = next(f for f in rep["findings"] if f["id"] == "driver-too-old")
    assert "AMD GPU Driver 30.10 (amdgpu 6.14.14)" in f["message"] and "7.2" in f["message"]


def test_unmapped_module_on_rocm7_stays_not_checked(tmp_path, run_status):
    snap = _amd_host(tmp_path, "6.16.6", {"version": "2.10.0+rocm7.0", "hip": "7.0.51831"}, rocm_version="7.1.0")
    _, rep, _ = run_status(snap)
    nc = [f["message"] + " " + (f["fix"] or "") for f in rep["findings"]
          if f["id"] == "not-checked" and "amdgpu kernel driver" in f["message"]]
    assert len(nc) == 1 and "30.x" in nc[0] and "6.16.6" in nc[0]
    assert not any(f["id"] == "driver-too-old" for f in rep["findings"])


def test_fix_checks_the_30_10_window(tmp_path):
    code, plan = _fix(_amd_host(tmp_path, "6.14.14"))
    assert code == 0 and plan["packages"][0]["variant"] in ("rocm" + v for v in ("6.2", "6.3", "6.4", "7.0", "7.1", "7.2"))
    assert not any("tested window was not checked" in n for n in plan["notes"])


def test_fix_intel_with_a_python_no_xpu_build_has_says_which_pythons(tmp_path):
    from helpers import fixture, make_snapshot

    snap = make_snapshot(str(tmp_path / "i"), {
        "sycl-ls.txt": fixture("vendors", "sycl-ls", "v21f-a770-uhd750-i9-11900k-openeuler.txt"),
        "python.json": {"version": "3.8.10", "platform": "linux", "machine": "x86_64"}})
    code, plan = _fix(snap)
    assert code != 0 and not plan["satisfiable"] and "Python 3.8" in plan["reason"]
    assert plan["lifts"][0]["constraint"] == "python" and "3.12" in plan["lifts"][0]["action"]


def test_l4t_36_5_is_jetpack_6_2_2_with_its_libraries():
    # an R36.5.0 Orin NX with 'nvidia-jetpack installed version: 6.2.2+b24', nvcc 12.6.68, cuDNN 9.3.0.75,
    # TensorRT 10.3.0.30 (jetson.toml's source)
    from envcheck.matrix import load_matrix

    row = load_matrix().jetpack("36.5.0")
    assert row and (row["version"], row["cuda"], row["cudnn"], row["tensorrt"]) == ("6.2.2", "12.6", "9.3", "10.3")
    assert load_matrix().jetpack("R36.5.0")["version"] == "6.2.2"


def test_rocm_smi_csv_pasted_as_a_python_list():
    # a benchmark report printing `rocm-smi --showproductname --csv` as stdout.splitlines() (find_string id
    # 70581492364; held back in heldout/vendors9, where it was the one miss, scored before this fix)
    from envcheck.parse.rocm_smi import parse_rocm_smi

    text = ("- **gpu**: amd ['device,Card Series,Card Model,Card Vendor,Card SKU,Subsystem ID,Device Rev,Node ID,GUID,"
            "GFX Version', 'card0,AMD Radeon AI PRO R9700,0x7551,Advanced Micro Devices Inc. [AMD/ATI],APM107573,"
            "0x5413,0xc0,1,51833,gfx1201']\n")
    r = parse_rocm_smi(text)
    assert [(g.name, g.gfx, g.device_id) for g in r.gpus] == [("AMD Radeon AI PRO R9700", "gfx1201", "0x7551")]
    assert parse_rocm_smi("x ['device is gone'] y").gpus == []
