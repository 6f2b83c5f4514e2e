"""Issue 21, vcaptures21o: xpu-smi 2.x's default view (``xpu-smi`` with no argument: nvidia-smi's three-cell layout
under an ``Intel XPU-SMI v2.0  Driver: ...  Level Zero: ...`` banner, intel/xpumanager ial/cmn/cmd_smi.cpp
``buildGpuTable``: a name cut into 22-character pieces, each further piece on its own line, the memory as
``"{used}MiB / {total}MiB"``) and xpu-smi's ``Memory Physical Size: 12216.00 MiB`` (``{:.2f} MiB``,
ial/cmn/cmd_discovery.cpp). The real captures are tests/data/vendors/xpu-smi/v21o-* and xpumanager-readme-* (cited in
tests/data/README.md); the batch's facts are tests/data/vendors/v21o-expected.json, written before any run; the
held-back part (heldout/vendors21o) is scored by scripts/score_vendors21f.py only."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from helpers import fixture, status_json, write_snapshot_files

from envcheck.parse.amd_smi import parse_amd_smi_static
from envcheck.parse.intel import clinfo_amd_gpus, intel_small_bar, parse_clinfo, parse_xpu_smi, sycl_ls_amd_gpus
from envcheck.parse.kfd import parse_amdgpu_version
from envcheck.parse.macos import parse_sw_vers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "vendors")
NVIDIA_ONLY = re.compile(r"nvidia|nvml|libcuda|cuda driver|compute capability", re.IGNORECASE)

with open(os.path.join(DATA, "v21o-expected.json"), encoding="utf-8") as _fh:
    EXPECTED = json.load(_fh)


def _run(args, **kw):
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1"), **kw)


def _status(tmp_path, files):
    snap = write_snapshot_files(tmp_path, files)
    return status_json(snap), _run(["status", "--snapshot", str(snap)]).stdout


def test_default_view_joins_a_name_wrapped_over_two_rows_and_reads_the_total_memory():
    gpus = parse_xpu_smi(fixture("vendors", "xpu-smi", "v21o-v2.0-default-table-a770-name-wrapped-two-rows.txt"))
    assert [(g.index, g.name, g.vendor, g.memory_mib, g.bus_id) for g in gpus] == \
        [(0, "Intel(R) Arc(TM) A770 Graphics", "intel", 16288, "0000:03:00.0")]


def test_default_view_with_an_empty_name_cell_is_still_one_intel_gpu():
    gpus = parse_xpu_smi(fixture("vendors", "xpu-smi", "v21o-v2.0-default-table-b580-blank-name-after-dpkg.txt"))
    assert [(g.index, g.name, g.memory_mib) for g in gpus] == [(0, None, 12216)]


def test_default_view_of_the_readme_stops_at_the_processes_table():
    # the Processes table's "|     0     2874292     C      xpu-smi ... 206 MiB |" row is not a second GPU
    gpus = parse_xpu_smi(fixture("vendors", "xpu-smi", "xpumanager-readme-2.0-default-view-b580-processes.txt"))
    assert [(g.name, g.memory_mib, g.bus_id) for g in gpus] == [("Intel(R) Arc(TM) B580", 12216, "0000:03:00.0")]


def test_a_name_cut_inside_a_word_is_joined_without_a_space():
    # cmd_smi.cpp's own format strings: "{:>3}  {:<22}  Off", then "     {}" for each further 22 characters; the
    # Max 1550's name is cut after "Center G"
    name = "Intel(R) Data Center GPU Max 1550"
    rule = "+" + "-" * 46 + "+" + "-" * 28 + "+" + "-" * 24 + "+"
    rows = [rule, "|" + " Intel XPU-SMI v2.0    Level Zero: 1.21.9".ljust(100) + "|", rule,
            "| GPU  Name                    Persistence-M   | Bus-Id            Disp.A   |   Volatile Uncorr. ECC |",
            "| Fan  Temp  Pwr:Usage/Cap                     | Memory-Usage               |   GPU-Util  Compute M. |",
            rule]
    for i, bdf in enumerate(("0000:18:00.0", "0000:42:00.0")):
        rows += ["| " + f"{i:>3}  {name[:22]:<22}  Off".ljust(45) + "| " + f"{bdf:<16}  Off".ljust(27) + "| "
                 + "Disabled".rjust(22) + " |",
                 "| " + f"     {name[22:]}".ljust(45) + "| " + "".ljust(27) + "| " + "".rjust(22) + " |",
                 "| " + "N/A  N/A  N/A".ljust(45) + "| " + "0MiB / 65536MiB".ljust(27) + "| "
                 + "0%        Default".rjust(22) + " |", rule]
    gpus = parse_xpu_smi("\n".join(rows) + "\n")
    assert [(g.index, g.name, g.memory_mib) for g in gpus] == [(0, name, 65536), (1, name, 65536)]


def test_discovery_memory_physical_size_with_its_two_decimals():
    gpus = parse_xpu_smi(fixture("vendors", "xpu-smi", "xpumanager-readme-2.0-discovery-d0-b580-memory-12216.txt"))
    assert [(g.name, g.device_id, g.memory_mib) for g in gpus] == [("Intel(R) Arc(TM) B580 Graphics", "0xe20b", 12216)]


def test_discovery_json_memory_physical_size_byte():
    # `xpu-smi discovery -j`'s device list (cmd_discovery.cpp promotes memory_physical_size_byte to a number in 2.x;
    # 1.x printed it as a string of digits)
    for size in ("12809404416", 12809404416):
        text = json.dumps({"device_list": [{"device_id": 0, "device_name": "Intel(R) Arc(TM) B580 Graphics",
                                            "device_type": "GPU", "pci_device_id": "0xe20b",
                                            "memory_physical_size_byte": size}]})
        assert [(g.name, g.memory_mib) for g in parse_xpu_smi(text)] == [("Intel(R) Arc(TM) B580 Graphics", 12216)]


@pytest.mark.parametrize("name", ["v21o-v2.0-default-table-a770-name-wrapped-two-rows.txt",
                                  "v21o-v2.0-default-table-b580-blank-name-after-dpkg.txt"])
def test_status_reads_the_default_view_as_an_intel_machine_and_says_nothing_nvidia_only(tmp_path, name):
    rep, text = _status(tmp_path, {"xpu-smi-discovery.txt": fixture("vendors", "xpu-smi", name)})
    assert rep["vendor"] == "intel"
    assert [g["vendor"] for g in rep["gpus"]] == ["intel"]
    said = [f"{f.get('id')}: {f.get('message') or ''}" for f in rep.get("findings") or []]
    assert not [s for s in said + text.splitlines() if NVIDIA_ONLY.search(s)]


@pytest.mark.parametrize("name", ["v21o-v2.0-default-table-a770-name-wrapped-two-rows.txt",
                                  "v21o-v2.0-default-table-b580-blank-name-after-dpkg.txt",
                                  "xpumanager-readme-2.0-default-view-b580-processes.txt"])
def test_a_pasted_default_view_is_xpu_smi_not_nvidia_smi(name):
    # its GPU rows have nvidia-smi's shape ("|   0  NAME   Off   | 0000:03:00.0      Off |"): read as nvidia-smi's
    # table they made an NVIDIA GPU of an Arc card
    r = _run(["explain", os.path.join(DATA, "xpu-smi", name), "--json"])
    assert r.returncode in (0, 1), r.stderr
    out = json.loads(r.stdout)
    assert out["detected"] == "pasted report (xpu-smi)"
    assert out["facts"]["vendor"] == "intel"
    assert [g["vendor"] for g in out["facts"]["gpus"]] == ["intel"]


def test_the_dev_facts_of_the_batch(tmp_path):
    # each dev capture alone under its contract file name, read by the real CLI (the scorer's own comparison)
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        import score_vendors21f as score
    finally:
        sys.path.pop(0)
    bad = {}
    for name, exp in EXPECTED.items():
        with open(os.path.join(DATA, name), "rb") as fh:
            miss = score.compare(exp["facts"], score.run_status(name.split("/")[0], fh.read()))
        if miss:
            bad[name] = miss
    assert not bad, bad


def test_clinfo_l_names_an_amd_gpu_by_mesa_radeonsis_renderer_name(tmp_path):
    # `clinfo -l` prints no vendor: under Mesa's rusticl the device name is radeonsi's renderer string, "AMD Radeon Pro
    # WX 4100 (radeonsi, polaris11, LLVM 18.1.8, DRM 3.59, <kernel>)"; PoCL's "cpu" is no GPU
    text = fixture("vendors", "clinfo", "l-rusticl-wx4100-radeonsi-pocl-cpu-aosc8681.txt")
    gpus = clinfo_amd_gpus(text)
    assert [(g.name, g.vendor, g.gfx) for g in gpus] == [("AMD Radeon Pro WX 4100", "amd", None)]
    rep, out = _status(tmp_path, {"clinfo.txt": text})
    assert rep["vendor"] == "amd" and [g["name"] for g in rep["gpus"]] == ["AMD Radeon Pro WX 4100"]
    assert not [ln for ln in out.splitlines() if NVIDIA_ONLY.search(ln)]


def test_mesa_only_amd_gpu_does_not_outrank_intel_gpus_a_compute_runtime_lists(tmp_path):
    # the rusticl Radeon (no ROCm anywhere) beside an Arc card that sycl-ls lists through Level Zero: an Intel machine
    rep, _ = _status(tmp_path, {
        "clinfo.txt": fixture("vendors", "clinfo", "l-rusticl-wx4100-radeonsi-pocl-cpu-aosc8681.txt"),
        "sycl-ls.txt": fixture("vendors", "sycl-ls",
                               "v21o-2023.2-old-ext-oneapi-level-zero-gpu-0-a770-ryzen-5950x-arrow-prompt.txt")})
    assert rep["vendor"] == "intel"
    assert [(g["name"], g["vendor"]) for g in rep["gpus"]] == [("Intel(R) Arc(TM) A770 Graphics", "intel")]


def test_an_intel_mesa_device_is_not_taken_for_amd():
    # Mesa's iris driver names Intel GPUs without a DRM version ("Mesa Intel(R) Iris(R) Xe Graphics (RPL-P)"),
    # Clover / rusticl on radeonsi always with one; a listed Intel name is never AMD
    text = ("Platform #0: rusticl\n `-- Device #0: Mesa Intel(R) Iris(R) Xe Graphics (RPL-P)\n"
            "Platform #1: Clover\n")
    assert clinfo_amd_gpus(text) == []


@pytest.mark.parametrize("name,want", [
    ("hip-2024-w7900-gfx1100-epyc-after-setvars.txt", ("AMD Radeon Pro W7900", "gfx1100", None)),
    # no marketing name: the HIP adapter printed the target twice
    ("ext-oneapi-hip-2023-gfx1030-gfx1030-custom-apu-0405.txt", (None, "gfx1030", None)),
    # a 2022 adapter: pci.ids had no name ("Device 6861"), the version 0.0 names no target
    ("ext-oneapi-hip-2022-device-6861-hash-prompt.txt", (None, None, "0x6861")),
])
def test_sycl_ls_hip_backend_lists_amd_gpus_with_their_target(tmp_path, name, want):
    text = fixture("vendors", "sycl-ls", name)
    assert [(g.name, g.gfx, g.device_id) for g in sycl_ls_amd_gpus(text)] == [want]
    rep, out = _status(tmp_path, {"sycl-ls.txt": text})
    assert rep["vendor"] == "amd"
    # the report fills a target sycl-ls did not print from the device id (ROCm's thunk table: 0x6861 is Vega 10, gfx900)
    report_gfx = want[1] or {"0x6861": "gfx900"}.get(want[2] or "")
    assert [(g["vendor"], g.get("gfx"), g.get("device_id")) for g in rep["gpus"]] == [("amd", report_gfx, want[2])]
    assert not [ln for ln in out.splitlines() if NVIDIA_ONLY.search(ln)]
    # the AMD CPU's OpenCL device and the FPGA emulator are no Intel GPUs
    assert rep["xpu"]["opencl_gpus"] == [] and rep["xpu"]["level_zero_gpus"] == []


def test_a_pasted_sycl_ls_with_the_hip_backend_is_an_amd_machine():
    r = _run(["explain", os.path.join(DATA, "sycl-ls", "hip-2024-w7900-gfx1100-epyc-after-setvars.txt"), "--json"])
    out = json.loads(r.stdout)
    assert out["detected"] == "pasted report (sycl-ls)"
    assert out["facts"]["vendor"] == "amd"
    assert [(g["name"], g["vendor"], g.get("gfx")) for g in out["facts"]["gpus"]] == \
        [("AMD Radeon Pro W7900", "amd", "gfx1100")]


def test_a_device_whose_type_line_was_cut_is_typed_by_its_name():
    # ocl-icd clinfo's layout, cut after the device's first lines (as a paste ends): Intel's CPU runtime names the
    # host CPU, here an AMD one; it is no GPU, Intel's or AMD's
    text = ("  Platform Name                                   Intel(R) OpenCL\n"
            "Number of devices                                 1\n"
            "  Device Name                                     AMD Ryzen 7 5800X 8-Core Processor              \n"
            "  Device Vendor                                   Intel(R) Corporation\n")
    [dev] = parse_clinfo(text)
    assert dev["type"] == "CPU"
    assert clinfo_amd_gpus(text) == []


@pytest.mark.parametrize("warning", [
    # intel/compute-runtime shared/source/os_interface/linux/drm_neo.cpp: "WARNING: Small BAR detected for device %s\n";
    # newer releases word it "Resizable BAR not detected"
    "WARNING: Small BAR detected for device 0000:1b:00.0",
    "WARNING: Resizable BAR not detected for device 0000:03:00.0",
])
def test_intels_small_bar_warning_marks_an_intel_machine_whose_gpu_the_runtime_refused(tmp_path, warning):
    assert intel_small_bar(warning + "\nNumber of platforms 0\n") == [warning.rsplit(" ", 1)[1]]
    rep, out = _status(tmp_path, {"clinfo.txt": warning + "\nNumber of platforms 0\n"})
    assert rep["vendor"] == "intel"
    # the card is there, but no runtime lists it: not reported as a usable GPU, and not as "no GPU" either (attack37)
    assert rep["gpus"] is None and rep["gpus_known"] is False
    assert "Resizable BAR" in out
    assert not [ln for ln in out.splitlines() if NVIDIA_ONLY.search(ln)]


@pytest.mark.parametrize("name,want", [
    ("productversion-flag-26.5.2-then-other-commands.txt", "26.5.2"),
    # the command's output cut to its major on the next command ("27") is not the version
    ("productversion-flag-27.0.1-uname-arm64-proc-translated-0.txt", "27.0.1"),
    ("productversion-flag-10.10.4-quoted-yosemite.txt", "10.10.4"),
    ("productversion-flag-lowercase-11.6.4-handbook.txt", "11.6.4"),
])
def test_sw_vers_product_version_flag_prints_the_bare_version(name, want):
    assert parse_sw_vers(fixture("vendors", "sw-vers", name)) == want


def test_sw_vers_flag_status_is_an_apple_machine(tmp_path):
    rep, out = _status(tmp_path, {"sw-vers.txt": fixture("vendors", "sw-vers",
                                                         "productversion-flag-26.5.2-then-other-commands.txt")})
    assert rep["vendor"] == "apple" and rep["accelerator"]["macos"] == "26.5.2"
    assert not [ln for ln in out.splitlines() if NVIDIA_ONLY.search(ln)]


@pytest.mark.parametrize("text", [
    "$ sw_vers -productVersionExtra\n(a)\n",  # the Rapid Security Response's letter, not a version
    "sw_vers -productVersion\n",  # the command without its output
    "3\n",  # one bare number that is no macOS release
])
def test_sw_vers_without_a_version_stays_unknown(text):
    assert parse_sw_vers(text) is None


def test_a_pasted_sw_vers_product_version_is_an_apple_machine():
    r = _run(["explain", os.path.join(DATA, "sw-vers", "productversion-flag-26.5.2-then-other-commands.txt"), "--json"])
    out = json.loads(r.stdout)
    assert out["detected"] == "pasted report (sw_vers)"
    assert out["facts"]["vendor"] == "apple" and out["facts"]["accelerator"]["macos"] == "26.5.2"


def test_amd_smi_6_0_static_with_flush_left_sections_a_hex_market_name_and_vram_size_mb(tmp_path):
    # amd-smi 6.0 (amdsmi_cli at rocm-6.0.0): VRAM_SIZE_MB, later SIZE; a device id printed as MARKET_NAME is no name
    text = fixture("vendors", "amd-smi-static", "amdsmi-readme-rocm-6.0.0-static-navi21-0x73bf-vram-size-mb.txt")
    [g] = parse_amd_smi_static(text)
    assert (g.name, g.device_id, g.memory_mib, g.bus_id) == (None, "0x73bf", 16368, "0000:23:00.0")
    rep, out = _status(tmp_path, {"amd-smi-static.txt": text})
    assert rep["vendor"] == "amd" and [(x["device_id"], x["memory_mib"]) for x in rep["gpus"]] == [("0x73bf", 16368)]
    # its DRIVER_VERSION (6.1.10) may be the kernel's release (in-box driver): not taken for the amdgpu version
    assert rep["rocm"]["amdgpu"] is None
    assert not [ln for ln in out.splitlines() if NVIDIA_ONLY.search(ln)]


def test_modinfo_version_line_is_the_dkms_amdgpu_version_and_vermagic_is_not(tmp_path):
    dkms = fixture("vendors", "sys-module-amdgpu-version", "modinfo-grep-version-6.16.13-dkms-el9-session.txt")
    inbox = fixture("vendors", "sys-module-amdgpu-version", "modinfo-grep-version-inbox-srcversion-vermagic-6.17.8.txt")
    assert parse_amdgpu_version(dkms) == "6.16.13"
    assert parse_amdgpu_version(inbox) is None  # the kernel's release in vermagic is no amdgpu version
    rep, _ = _status(tmp_path, {"sys-module-amdgpu-version.txt": dkms})
    assert rep["rocm"]["amdgpu"] == "6.16.13"


def test_an_intel_gpu_named_by_its_pci_id_keeps_the_name_and_gains_the_device_id(tmp_path):
    # sycl-ls of a B580 before the driver knew its name, beside a UHD 770 (a real capture of batch 21f)
    text = fixture("vendors", "sycl-ls", "v21f-b580-0xe20b-uhd770-container.txt")
    rep, _ = _status(tmp_path, {"sycl-ls.txt": text})
    assert rep["vendor"] == "intel"
    assert [(g["name"], g["device_id"]) for g in rep["gpus"]] == [("Intel(R) Graphics [0xe20b]", "0xe20b"),
                                                                 ("Intel(R) UHD Graphics 770", None)]
