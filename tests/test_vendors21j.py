"""Batch 21j of real vendor captures (issue 21): each one alone as a snapshot, read by `envcheck status`.

The captures are the dev part of heldout/vendors21j/README.md (sources there and in tests/data/README.md): amd-smi's
boxed default view (26.x), rocm-smi's concise tables of ROCm 4-7, rocminfo's /dev/kfd failures, hipconfig, clinfo,
sycl-ls of 2022-2026, xpu-smi, Mac OS X's sw_vers and /etc/nv_tegra_release. Their facts were written by hand into
tests/data/vendors/v21j-expected.json before any run; the fixes below were written from the misses.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from score_vendors21f import NVIDIA_ONLY, SNAPSHOT_NAME, compare  # noqa: E402
from helpers import (  # noqa: E402
    check_vendor_captures_cited, report_with_text, status_text, write_snapshot_files,
)

from envcheck.parse.amd_smi import parse_amd_smi_default, parse_amd_smi_version  # noqa: E402
from envcheck.parse.hipconfig import parse_hipconfig  # noqa: E402
from envcheck.parse.intel import clinfo_amd_gpu_platform, parse_sycl_ls  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "vendors")
with open(os.path.join(DATA, "v21j-expected.json"), encoding="utf-8") as _fh:
    EXPECTED = json.load(_fh)


def V(*parts: str) -> str:
    with open(os.path.join(DATA, *parts), encoding="utf-8") as fh:
        return fh.read()


def _snapshot(tmp_path, name, text):
    return write_snapshot_files(tmp_path, {name: text})


_text_report = status_text


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_capture_alone_reads_to_its_facts(name, tmp_path, run_status):
    snap = _snapshot(tmp_path, SNAPSHOT_NAME[name.split("/")[0]], V(name))
    assert compare(EXPECTED[name]["facts"], report_with_text(snap, run_status)) == [], name


def test_every_capture_is_cited():
    check_vendor_captures_cited(EXPECTED, os.path.join(ROOT, "heldout", "vendors21j", "README.md"))


# --- amd-smi's default view (the form no reader knew: all 8 of the batch missed before) ----------------------------
def test_amd_smi_default_view_gpus_and_header():
    text = V("amd-smi", "v21j-default-26.2.0-2x-9070xt-md-smi-typo.txt")
    v = parse_amd_smi_version(text)
    assert (v.tool, v.rocm, v.amdgpu, v.kernel, v.inbox) == ("26.2.0", "7.1.1", "6.16.6", None, False)
    gpus = parse_amd_smi_default(text)
    assert [(g.index, g.name, g.bus_id, g.memory_mib) for g in gpus] == [
        (0, "AMD Radeon RX 9070 XT", "0000:04:00.0", 16304), (1, "AMD Radeon RX 9070 XT", "0000:07:00.0", 16304)]
    # the processes section below the GPU rows is no GPU
    assert all(g.vendor == "amd" and g.source == "amd-smi" for g in gpus)


def test_amd_smi_default_view_partition_and_guest():
    g = parse_amd_smi_default(V("amd-smi", "v21j-default-26.2.2-rst-mi300x-vf-guest.txt"))
    assert [(x.name, x.partition, x.memory_mib) for x in g] == [("AMD Instinct MI300X VF", "SPX", 196288)]


@pytest.mark.parametrize("name,kernel,inbox", [
    ("v21j-default-26.0.2-linuxver-radeon-graphics-igpu.txt", None, True),  # "Linuxver": /proc/version cut
    ("v21j-default-26.1.0-rocm7.9-kernelish-amdgpu-zh.txt", "6.11.0-17", False),  # a kernel release, cut
])
def test_amd_smi_default_view_in_tree_driver_is_no_module_version(name, kernel, inbox, tmp_path, run_status):
    v = parse_amd_smi_version(V("amd-smi", name))
    assert (v.amdgpu, v.kernel, v.inbox) == (None, kernel, inbox)
    _, rep, _ = run_status(_snapshot(tmp_path, "amd-smi.txt", V("amd-smi", name)))
    assert rep["rocm"]["amdgpu"] is None and rep["rocm"]["amdgpu_source"].startswith("in-tree amdgpu")


def test_amd_smi_default_view_a_cut_name_keeps_its_visible_part():
    # unslothai/unsloth#5301 (held back): "...Radeon AI PRO R9700" in a 35-column cell, quoted with "> "
    text = ("> | AMD-SMI 26.2.2+unknown       amdgpu version: Linuxver ROCm version: 7.2.2    |\n"
            "> | 0000:03:00.0 ...Radeon AI PRO R9700 | 0 %      34 °C   0            17/300 W |\n"
            "> |   0       0     N/A             N/A | 0 %     20.0 %             57/32624 MB |\n")
    [g] = parse_amd_smi_default(text)
    assert (g.name, g.memory_mib) == ("Radeon AI PRO R9700", 32624)
    assert parse_amd_smi_version(text).rocm == "7.2.2"


@pytest.mark.parametrize("key", ["amd-smi.txt", "amd-smi-version.txt", "amd-smi-static.txt"])
def test_amd_smi_default_view_is_read_in_any_amd_smi_file(key, tmp_path, run_status):
    _, rep, _ = run_status(_snapshot(tmp_path, key, V("amd-smi", "v21j-default-26.2.2-8060s-rhel-readme.txt")))
    assert rep["vendor"] == "amd" and [g["name"] for g in rep["gpus"]] == ["Radeon 8060S Graphics"]
    assert rep["rocm"]["version"] == "7.2.1"
    assert not any(NVIDIA_ONLY.search(f["message"]) for f in rep["findings"])


def test_amd_smi_txt_missing_is_not_captured(tmp_path, run_status):
    # envcheck snapshot writes amd-smi.txt and hipinfo.txt (vendors21l): a snapshot without them lists them as not
    # captured, like the other amd-smi files
    _, rep, _ = run_status(_snapshot(tmp_path, "rocminfo.txt", "ROCk module is loaded\n"))
    assert {"amd-smi.txt", "hipinfo.txt", "amd-smi-version.txt"} <= set(rep["not_captured"])


def test_amd_smi_version_line_forms_unchanged():
    v = parse_amd_smi_version("AMDSMI Tool: 24.7.1+b446d6c-dirty | AMDSMI Library version: 24.7.2.0 | ROCm version: "
                              "6.3.0 | amdgpu version: 6.10.10 | hsmp version: 2.2")
    assert (v.tool, v.rocm, v.amdgpu, v.kernel) == ("24.7.1", "6.3.0", "6.10.10", None)
    v = parse_amd_smi_version("ROCm version: 6.2.0 | amdgpu version: 6.8.0-45-generic")
    assert (v.amdgpu, v.kernel) == (None, "6.8.0-45-generic")  # a kernel release, not a module version


# --- rocminfo: the ROCk driver not loaded ----------------------------------------------------------------------
def test_rock_module_not_loaded_is_no_gpu_driver_in_amds_words(tmp_path, run_status):
    text = V("rocminfo", "v21j-rock-not-loaded-and-rocm-smi-driver-not-initialized-azure.txt")
    _, rep, _ = run_status(_snapshot(tmp_path, "rocminfo.txt", text))
    [f] = [f for f in rep["findings"] if f["id"] == "no-gpu-driver"]
    assert f["severity"] == "warning" and "amdgpu" in f["fix"] and "WSL" in f["fix"]
    assert not NVIDIA_ONLY.search(f["message"] + f["fix"])
    assert not any(x["id"] == "not-checked" and x["component"] == "gpu" for x in rep["findings"])


def test_rock_module_loaded_without_gpus_stays_not_checked(tmp_path, run_status):
    _, rep, _ = run_status(_snapshot(tmp_path, "rocminfo.txt", "ROCk module is loaded\n"))
    assert "no-gpu-driver" not in {f["id"] for f in rep["findings"]}
    assert any(f["id"] == "not-checked" and f["component"] == "gpu" for f in rep["findings"])


# --- clinfo: ROCm's OpenCL platform with no device -------------------------------------------------------------
def test_clinfo_amd_gpu_platform_without_devices(tmp_path, run_status):
    text = V("clinfo", "v21j-amd-app-3581-zero-devices-popos.txt")
    assert clinfo_amd_gpu_platform(text) == "3581"
    # the APP SDK's CPU-only runtime (AMD-APP 1xxx-2xxx) is no sign of an AMD GPU
    assert clinfo_amd_gpu_platform("  Platform Version:  OpenCL 2.0 AMD-APP (1912.5)\n") is None
    snap = _snapshot(tmp_path, "clinfo.txt", text)
    _, rep, _ = run_status(snap)
    # the platform lists no device: the GPUs are unknown, not "none" (attack37)
    assert rep["vendor"] == "amd" and rep["gpus"] is None and rep["gpus_known"] is False
    assert not NVIDIA_ONLY.search(_text_report(snap))


# --- sycl-ls: one entry per device ------------------------------------------------------------------------------
def test_sycl_ls_lists_each_device_once():
    r = parse_sycl_ls(V("sycl-ls", "v21j-2023.16-two-a770-uhd770-ipex.txt"))
    assert r.gpus("level_zero") == ["Intel(R) Arc(TM) A770 Graphics", "Intel(R) Arc(TM) A770 Graphics",
                                    "Intel(R) UHD Graphics 770"]
    twice = ("[level_zero:gpu][level_zero:0] Intel(R) Level-Zero, Intel(R) Arc(TM) A770 Graphics 1.3 [1.3.26241]\n")
    assert parse_sycl_ls(twice + twice).gpus("level_zero") == ["Intel(R) Arc(TM) A770 Graphics"]  # pasted twice


# --- hipconfig --version, jetson_release 'model:' ---------------------------------------------------------------
def test_hipconfig_version_flag_alone():
    h = parse_hipconfig(V("hipconfig", "v21j-version-flag-therock-windows.txt"))
    assert (h.hip, h.hip_full) == ("6.5.25214", "6.5.25214-d6bb0478b")
    assert parse_hipconfig("6.2.4-120\n").hip is None  # a ROCm version-file line is no HIP version


# --- xpu-smi discovery -j (xpumcli on Windows): the JSON form ---------------------------------------------------
def test_xpu_smi_discovery_json():
    from envcheck.parse.intel import parse_xpu_smi

    [g] = parse_xpu_smi(V("xpu-smi", "v21j-discovery-json-0x20a-xpumanager-doc.txt"))
    assert (g.index, g.name, g.device_id, g.bus_id) == (0, "Intel(R) Graphics", "0x020a", "0000:4d:00.0")
    [g] = parse_xpu_smi(V("xpu-smi", "v21j-xpumcli-windows-discovery-json-flex170-56c0.txt"))
    assert (g.name, g.device_id) == ("Intel(R) Data Center GPU Flex Series 170", "0x56c0")  # "56c0": no 0x
    # cut or not JSON at all: nothing made up
    assert parse_xpu_smi('xpu-smi discovery -j\n{\n    "device_list": [\n        {\n') == []
    assert parse_xpu_smi('{"device_list": {"device_id": 0}}') == []
