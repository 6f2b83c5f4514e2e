"""Readers of AMD / Intel / Apple tools (contract §9) on real captures (tests/data/vendors, cited in
tests/data/README.md). Expected values were read by hand from each capture."""

from __future__ import annotations

import pytest

from helpers import fixture

from envcheck.parse.amd_smi import (driver_version_from_static, parse_amd_smi_list, parse_amd_smi_static,
                                    parse_amd_smi_version)
from envcheck.parse.gfx import gfx_family, gfx_from_target_version, normalize_gfx
from envcheck.parse.hipconfig import hip_short, parse_hipconfig
from envcheck.parse.intel import parse_clinfo, parse_sycl_ls, parse_xpu_smi
from envcheck.parse.kfd import kfd_gpu, parse_amdgpu_version, parse_kfd_properties, parse_rocm_version_file
from envcheck.parse.macos import parse_sw_vers, parse_system_profiler
from envcheck.parse.rocm_smi import parse_rocm_smi, parse_rocm_smi_driver, physical
from envcheck.parse.rocminfo import parse_rocminfo
from envcheck.parse.tegra import parse_tegra_release


def V(*p: str) -> str:
    return fixture("vendors", *p)


@pytest.mark.parametrize("raw,want", [
    ("gfx9010", "gfx90a"),  # rocm-smi's decimal stepping for an MI250X (ROCm/rocm_smi_lib#159)
    ("gfx9008", "gfx908"),  # amd-smi's decimal stepping for an MI100
    ("gfx11002", "gfx1102"),  # rocm-smi --showhw on an RX 7600 XT (ROCm/ROCm#4380)
    ("gfx90a:sramecc+:xnack-", "gfx90a"),
    ("amdgcn-amd-amdhsa--gfx1100", "gfx1100"),
    ("GFX1101", "gfx1101"),
    ("gfx1030", "gfx1030"), ("gfx1010", "gfx1010"), ("gfx803", "gfx803"), ("gfx942", "gfx942"),
    ("gfx11-generic", "gfx11-generic"),
    ("gfx000", None), ("gfx9020", None), ("Radeon", None), ("", None), (None, None), ("gfx99999999", None),
])
def test_normalize_gfx(raw, want):
    assert normalize_gfx(raw) == want


@pytest.mark.parametrize("value,want", [(90010, "gfx90a"), (110501, "gfx1151"), (90402, "gfx942"),
                                        (100300, "gfx1030"), (80003, "gfx803"), (0, None), ("x", None), (90016, None)])
def test_gfx_from_target_version(value, want):
    assert gfx_from_target_version(value) == want


def test_gfx_family():
    assert gfx_family("gfx1031") == gfx_family("gfx1030") == "gfx103"
    assert gfx_family("gfx1010") == "gfx101" != gfx_family("gfx1030")
    assert gfx_family("nonsense") is None


# -- rocm-smi ---------------------------------------------------------------------------------------------
def test_rocm_smi_product_csv_mi100_hex_model_is_not_a_device_id():
    r = parse_rocm_smi(V("rocm-smi-product", "csv-2x-mi100-easybuild3978.txt"))
    assert r.form == "csv"
    assert [g.name for g in r.gpus] == ["Arcturus GL-XL [AMD Instinct MI100]"] * 2
    # "Card model: 0x0c34" is the subsystem id on this version, not the device id (MI100 is 0x738c)
    assert all(g.device_id is None for g in r.gpus)


def test_rocm_smi_product_plain_name_form():
    r = parse_rocm_smi(V("rocm-smi-product", "plain-fiji-r9-fury-easybuild3978.txt"))
    assert r.form == "product" and [g.name for g in r.gpus] == ["Radeon R9 FURY X"]


def test_rocm_smi_product_rocm40_all_hex_series_is_the_device_id():
    # "Card series: 0x738c" is the MI100's device id (rocminfo prints an MI100's Chip ID as 29580(0x738c),
    # ROCm/ROCm#1886; the concise table's DID of MI100s is 0x738c); "Card model: 0xc34" is its subsystem id
    r = parse_rocm_smi(V("rocm-smi-product", "plain-rocm4.0-mi100-hex-legacy1351.txt"))
    assert len(r.gpus) == 1 and r.gpus[0].name is None and r.gpus[0].device_id == "0x738c"


def test_rocm_smi_json_gfx9010_and_card_model_device_id():
    r = parse_rocm_smi(V("rocm-smi-json", "showproductname-mi250x-gfx9010-rsmilib159.json"))
    g = r.gpus[0]
    assert (g.gfx, g.device_id, g.index) == ("gfx90a", "0x7408", 0)


def test_rocm_smi_json_truncated_paste_keeps_complete_pairs():
    r = parse_rocm_smi(V("rocm-smi-json", "all-780m-phoenix3-6.2.4-truncated-systeminformation960.json"))
    assert r.form == "json" and len(r.gpus) == 1
    assert (r.gpus[0].device_id, r.gpus[0].bus_id, r.gpus[0].name) == ("0x1900", "0000:C4:00.0", "Phoenix3")


def test_rocm_smi_concise_dpx_partitions_fold_to_physical_gpus():
    r = parse_rocm_smi(V("rocm-smi", "concise-dpx-mi355-partitions-rocm-systems1508.txt"))
    assert r.form == "concise" and len(r.gpus) == 8
    phys, mode = physical(r.gpus, r.partitions)
    assert mode == "DPX" and [g.index for g in phys] == [0, 2, 4, 6]
    assert {g.device_id for g in phys} == {"0x75a0"}


def test_rocm_smi_legacy_tables():
    assert [g.index for g in parse_rocm_smi(V("rocm-smi", "legacy-3.3-table-rocsmi86.txt")).gpus] == [1]
    r = parse_rocm_smi(V("rocm-smi", "legacy-1.9-table-10gpus-rocsmi45.txt"))
    assert sorted(g.index for g in r.gpus) == list(range(0, 9)) + [10] and r.form == "table"


def test_rocm_smi_showall_sections_gpu_id_and_driver():
    r = parse_rocm_smi(V("rocm-smi", "showall-5.6.19-gpuid-0x731f-rsmilib77.txt"))
    assert r.driver == "5.6.19" and r.gpus[0].device_id == "0x731f"


def test_rocm_smi_driver_csv_is_the_kernel_release():
    assert parse_rocm_smi_driver(V("rocm-smi-driver", "csv-kernel-version-easybuild3978.txt")) == \
        "4.18.0-348.12.2.el8_5.x86_64"


def test_rocm_smi_garbage_and_errors():
    assert parse_rocm_smi("").form is None
    # the shell's answer: rocm-smi did not run, so it is no rocm-smi error (which would make the machine AMD's: attack37)
    assert parse_rocm_smi("bash: rocm-smi: command not found\n").form is None
    assert parse_rocm_smi("/opt/rocm/bin/rocm-smi: Permission denied\n").form == "error"
    assert parse_rocm_smi("{not json").error
    assert parse_rocm_smi("GPU[0] : \x1b[31m: x\n" * 3).gpus  # no crash on control characters


# -- amd-smi ----------------------------------------------------------------------------------------------
def test_amd_smi_static_mi350x():
    gpus = parse_amd_smi_static(V("amd-smi-static", "mi350x-rocm-systems2987.txt"))
    assert [(g.name, g.gfx, g.device_id, g.bus_id) for g in gpus] == [
        ("AMD Instinct MI350X", "gfx950", "0x75a0", "0000:05:00.0")]
    assert driver_version_from_static(V("amd-smi-static", "mi350x-rocm-systems2987.txt")) == "6.18.3"


def test_amd_smi_static_truncated_before_target():
    gpus = parse_amd_smi_static(V("amd-smi-static", "mi210-truncated-rocm-systems3654.txt"))
    assert [(g.name, g.gfx, g.device_id) for g in gpus] == [("AMD Instinct MI210", None, "0x740f")]


def test_amd_smi_list_leaves_out_ai_nics():
    lst = parse_amd_smi_list(V("amd-smi-list", "mi210-with-ai-nic-rocm-systems3654.txt"))
    assert lst == [{"index": 0, "bdf": "0000:23:00.0", "uuid": "67ff740f-0000-1000-80e6-b5bb3c3ce0db",
                    "partition_id": 0}]


def test_amd_smi_version_inbox_kernel_text_is_not_a_module_version():
    v = parse_amd_smi_version(V("amd-smi-version", "25.3.0-rocm6.4.0-k8s157.txt"))
    assert (v.tool, v.library, v.rocm, v.amdgpu, v.kernel) == ("25.3.0", "25.3.0", "6.4.0", None, "6.8.0-79-generic")


def test_amd_smi_json_forms():
    static = ('[{"gpu": 0, "asic": {"market_name": "AMD Instinct MI300X", "device_id": "0x74a1", '
              '"target_graphics_version": "gfx942"}, "vram": {"size": {"value": 196592, "unit": "MB"}}}]')
    g = parse_amd_smi_static(static)[0]
    assert (g.name, g.gfx, g.device_id, g.memory_mib) == ("AMD Instinct MI300X", "gfx942", "0x74a1", 196592)
    assert parse_amd_smi_static("[1, 2") == []


# -- rocminfo ---------------------------------------------------------------------------------------------
def test_rocminfo_gpu_agents():
    r = parse_rocminfo(V("rocminfo", "gfx1032-w6600-agent2-legacy1756.txt"))
    assert [(g.name, g.gfx, g.device_id) for g in r.gpus] == [("AMD Radeon PRO W6600", "gfx1032", "0x73e3")]
    r = parse_rocminfo(V("rocminfo", "gfx803-rx580-agent2-ollama2453.txt"))
    assert [(g.name, g.gfx, g.device_id) for g in r.gpus] == [("Radeon RX 580 Series", "gfx803", "0x67df")]


@pytest.mark.parametrize("name", ["cpu-only-5900hx-radeon-graphics-rocthrust514.txt",
                                  "header-cpu-ryzen-ai-max-8060s-legacy6616.txt"])
def test_rocminfo_cpu_agent_named_radeon_is_not_a_gpu(name):
    r = parse_rocminfo(V("rocminfo", name))
    assert r.recognised and r.gpus == []


def test_rocminfo_kfd_open_errors():
    r = parse_rocminfo(V("rocminfo", "error-kfd-cannot-allocate-pitcairn-legacy2232.txt"))
    assert (r.kfd_loaded, r.kfd_open_error, r.permission) == (True, "Cannot allocate memory", None)
    assert r.error and r.error.startswith("Unable to open /dev/kfd")  # the first failure line
    r = parse_rocminfo(V("rocminfo", "error-kfd-missing-in-container-legacy1798.txt"))
    assert r.kfd_open_error == "No such file or directory"
    r = parse_rocminfo(V("rocminfo", "error-kfd-invalid-argument-mi300x-container-legacy4043.txt"))
    assert (r.rock_version, r.kfd_open_error) == ("6.7.0", "Invalid argument")


def test_rocminfo_header_and_failure():
    r = parse_rocminfo(V("rocminfo", "header-cpu-ryzen-ai-max-8060s-legacy6616.txt"))
    assert (r.runtime, r.kfd_loaded) == ("1.1", True)
    # the form of ROCm/tensorflow-upstream#1106
    r = parse_rocminfo("ROCk module is NOT loaded, possibly no GPU devices\n")
    assert r.kfd_loaded is False


# -- hipconfig / kfd / version files ----------------------------------------------------------------------
@pytest.mark.parametrize("name,hip,platform,rocm_path", [
    ("6.2.41133-nvidia-platform-amd-hip3521.txt", "6.2.41133", "amd", "/opt/rocm-6.2.0"),
    ("3.10.20465-hipexamples23.txt", "3.10.20465", "amd", "/opt/rocm-3.10.0"),  # HIP_PLATFORM hcc = amd
    ("5.2.21152-custom-hip-path-hip2886.txt", "5.2.21152", "amd", "/opt/rocm"),
    ("1.5.18353-hcc-hip707.txt", "1.5.18353", "amd", None),
])
def test_hipconfig(name, hip, platform, rocm_path):
    h = parse_hipconfig(V("hipconfig", name))
    assert (h.hip, h.platform, h.rocm_path) == (hip, platform, rocm_path)


def test_hip_short():
    assert hip_short("3.0.19493-36529b1") == "3.0.19493"
    assert hip_short("garbage") is None


def test_kfd_properties():
    g = kfd_gpu(parse_kfd_properties(V("kfd-topology", "gfx1151-node1-properties-truncated-lemonade419.txt")), 1)
    assert g is not None and (g.gfx, g.device_id, g.vendor, g.index) == ("gfx1151", "0x1586", "amd", 1)
    g = kfd_gpu(parse_kfd_properties(V("kfd-topology", "gfx942-grep-line-rocmcli343.txt")))
    assert g is not None and g.gfx == "gfx942"
    assert kfd_gpu(parse_kfd_properties("cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n")) is None


def test_version_files():
    assert parse_rocm_version_file("6.2.4-120\n") == "6.2.4"
    assert parse_rocm_version_file("5.7.1\n") == "5.7.1"
    assert parse_rocm_version_file("cat: /opt/rocm/.info/version: No such file or directory") is None
    assert parse_amdgpu_version("6.8.5\n") == "6.8.5"
    assert parse_amdgpu_version(V("sys-module-amdgpu-version", "missing-inbox-k8s157.txt")) is None


def test_tegra_release():
    # the first line of /etc/nv_tegra_release on L4T 35.3.1 (NVIDIA's format)
    assert parse_tegra_release("# R35 (release), REVISION: 3.1, GCID: 32827747, BOARD: t186ref, EABI: aarch64\n") \
        == "35.3.1"
    assert parse_tegra_release("nothing") is None


# -- Intel ------------------------------------------------------------------------------------------------
def test_sycl_ls_three_forms():
    r = parse_sycl_ls(V("sycl-ls", "verbose-2024.17-a770-uhd630-ext-oneapi-llvm12880.txt"))
    assert r.gpus("level_zero") == ["Intel(R) Arc(TM) A770 Graphics", "Intel(R) UHD Graphics 630"]
    assert r.gpus("opencl") == ["Intel(R) Arc(TM) A770 Graphics", "Intel(R) UHD Graphics 630"]
    assert (r.level_zero, r.compute_runtime) == ("1.3.28454", "24.05.28454.6")
    r = parse_sycl_ls(V("sycl-ls", "verbose-2024.18-a750-level-zero-ci-timestamps-llvm14647.txt"))
    assert r.gpus("level_zero") == ["Intel(R) Arc(TM) A750 Graphics"] and r.level_zero == "1.3.29735"


def test_sycl_ls_opencl_only_and_cpu_only():
    r = parse_sycl_ls(V("sycl-ls", "opencl-gpu-no-level-zero-a750-llvm17535.txt"))
    assert r.gpus("level_zero") == [] and r.gpus("opencl") == ["Intel(R) Arc(TM) A750 Graphics"]
    r = parse_sycl_ls(V("sycl-ls", "cpu-only-i7-8750h-sdcpp330.txt"))
    assert r.recognised and r.gpus("opencl") == [] and r.gpus("level_zero") == []


def test_xpu_smi_discovery_plain_and_boxed():
    g = parse_xpu_smi(V("xpu-smi", "discovery-d0-a770-llama28725.txt"))
    assert [(x.index, x.name, x.device_id) for x in g] == [(0, "Intel(R) Arc(TM) A770 Graphics", "0x56a0")]
    boxed = ("+-----------+------------------------------------------+\n"
             "| Device ID | Device Information                       |\n"
             "+-----------+------------------------------------------+\n"
             "| 0         | Device Name: Intel(R) Data Center GPU Max 1550 |\n"
             "|           | PCI Device ID: 0x0bd5                    |\n"
             "+-----------+------------------------------------------+\n")
    assert [(x.index, x.name, x.device_id) for x in parse_xpu_smi(boxed)] == [
        (0, "Intel(R) Data Center GPU Max 1550", "0x0bd5")]


def test_clinfo_both_forms():
    amd = ("Number of platforms:  1\n  Platform Name:   AMD Accelerated Parallel Processing\n"
           "  Device Type:   CL_DEVICE_TYPE_GPU\n  Vendor ID:   1002h\n  Name:   gfx908:sramecc+:xnack-\n"
           "  Vendor:   Advanced Micro Devices, Inc.\n  Driver version:   3212.0 (HSA1.1,LC)\n")
    d = parse_clinfo(amd)
    assert [(x["name"], x["driver"]) for x in d] == [("gfx908:sramecc+:xnack-", "3212.0 (HSA1.1,LC)")]
    ocl = ("  Platform Name                                   Intel(R) OpenCL Graphics\n"
           "  Device Name                                     Intel(R) Arc(TM) A770 Graphics\n"
           "  Device Vendor                                   Intel(R) Corporation\n"
           "  Driver Version                                  24.05.28454.6\n"
           "  Device Type                                     GPU\n")
    d = parse_clinfo(ocl)
    assert [(x["name"], x["type"], x["driver"]) for x in d] == [("Intel(R) Arc(TM) A770 Graphics", "GPU",
                                                                  "24.05.28454.6")]


# -- Apple ------------------------------------------------------------------------------------------------
def test_sw_vers():
    assert parse_sw_vers(V("sw-vers", "catalina-10.15.5-rubybuild1451.txt")) == "10.15.5"
    assert parse_sw_vers(V("sw-vers", "high-sierra-10.13-no-patch-kernelpop17.txt")) == "10.13"
    assert parse_sw_vers("ProductVersion: banana") is None


def test_system_profiler_text_and_json():
    g = parse_system_profiler(V("system-profiler", "m3-text-smctemp26.txt"))
    assert [(x.name, x.vendor) for x in g] == [("Apple M3", "apple")]
    g = parse_system_profiler(V("system-profiler", "imac-pro-2017-vega64-text-cpuinfo17.txt"))
    assert [(x.name, x.vendor, x.device_id, x.memory_mib) for x in g] == [("Radeon Pro Vega 64", "amd", "0x6860", 16384)]
    g = parse_system_profiler(V("system-profiler", "m3-pro-json-truncated-systembridge3408.json"))
    assert [(x.name, x.vendor) for x in g] == [("Apple M3 Pro", "apple")]
    assert parse_system_profiler("{") == [] and parse_system_profiler("") == []


def test_held_out_captures_stay_read():
    """Regression guard over the three held-out batches (their first-run scores are in docs/vendors.md)."""
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "scripts"))
    from score_vendors import score

    root = os.path.join(os.path.dirname(os.path.dirname(__file__)), "heldout")
    for batch in ("vendors", "vendors2", "vendors3", "vendors4", "vendors5"):
        ok, total, lines = score(os.path.join(root, batch))
        assert total >= 2 and ok == total, "\n".join(lines)


@pytest.mark.parametrize("text", [
    " " * 200_000, "GPU[0] : " + " :" * 50_000, "[" * 100_000, "{" * 50_000 + "}" * 50_000,
    "[opencl:gpu:0] " + "a, " * 30_000, "\x00\x1b[31m\udcff" * 1000, "Agent 1\n  Name: gfx90a\n" * 10_000,
    '{\n"card0": {\n"a": "' + "x" * 100_000, "Device ID,Device Name\n" + "0,\"x" * 1000,
])
def test_readers_survive_hostile_text(text):
    """Bad input never raises (bounded work: every reader caps the lines it looks at)."""
    for fn in (parse_rocm_smi, parse_amd_smi_static, parse_amd_smi_list, parse_amd_smi_version, parse_rocminfo,
               parse_hipconfig, parse_sycl_ls, parse_xpu_smi, parse_clinfo, parse_system_profiler, parse_sw_vers,
               parse_kfd_properties, parse_tegra_release, normalize_gfx):
        fn(text)
