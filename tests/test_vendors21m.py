"""Issue 21, vendors21m: long-tail capture forms read from the emitting tools' own layouts - amd-smi ``--csv``
(amdsmi_cli/amdsmi_logger.py: a ``gpu,...`` header of the flattened keys, one row per GPU or partition), rocm-smi
``--showhw`` with its ``PARTITION ID`` column (rocm_smi_lib 6.1.1+), ``--showproductname`` quoted without the colon
after ``GPU[N]``, ``sycl-ls --verbose`` (intel/llvm sycl-ls.cpp: Platform / Device blocks), ``xpu-smi discovery -j``'s
device list inside a jq filter. The real captures are tests/data/vendors/*/v21m-* (cited in tests/data/README.md);
the held-back part (heldout/vendors21m) is scored by scripts/score_vendors21f.py only."""

from __future__ import annotations

import json
import os

import pytest
from helpers import fixture, status_of_files

from envcheck.parse.amd_smi import parse_amd_smi_list, parse_amd_smi_static, parse_amd_smi_version
from envcheck.parse.intel import parse_sycl_ls, parse_xpu_smi
from envcheck.parse.rocm_smi import parse_rocm_smi

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _status(tmp_path, files):
    return status_of_files(tmp_path, files)


def test_amd_smi_list_csv_of_a_virtualization_host_reads_the_gpu_not_its_vf():
    rows = parse_amd_smi_list(fixture("vendors", "amd-smi-list", "v21m-csv-host-vf-columns-sudo-shell-session.txt"))
    assert rows == [{"index": 0, "bdf": "0000:0c:00.0", "uuid": "67ff74a1-0000-1000-8081-b5b9fd6edd00",
                     "partition_id": None}]


def test_amd_smi_csv_partitions_repeating_one_bdf_and_uuid_are_one_gpu(tmp_path):
    # the CPX layout of AMD's partition docs: each physical GPU's rows share its BDF and physical UUID
    rows = ["gpu,gpu_bdf,gpu_uuid"]
    for i in range(8):
        bdf, uuid = ("0000:0c:00.0", "c0ff74a1-0000-1000-80b1-06985c515c91") if i < 4 else \
            ("0000:df:00.0", "bbff74a1-0000-1000-80b0-9363b4d6f06e")
        rows.append(f"{i},{bdf},{uuid}")
    assert len(parse_amd_smi_list("\n".join(rows))) == 8
    rep = _status(tmp_path, {"amd-smi-list.txt": "\n".join(rows) + "\n"})
    assert rep["vendor"] == "amd" and len(rep["gpus"]) == 2, rep["gpus"]


def test_amd_smi_static_csv_in_the_loggers_flattened_layout():
    # the header amdsmi_logger's flatten_dict makes of `amd-smi static --csv` (asic / vram / bus leaf keys; a
    # value-and-unit pair led by its parent key); values of an MI210 as its text form prints them
    text = ("gpu,market_name,vendor_id,device_id,rev_id,asic_serial,target_graphics_version,type,vendor,"
            "size_value,size_unit,bdf\n"
            '0,"AMD Instinct MI210",0x1002,0x740f,0x02,0xD1CD1D6D6F6A2A6E,gfx90a,HBM,N/A,65520,MB,0000:03:00.0\n'
            '1,"AMD Instinct MI210",0x1002,0x740f,0x02,0xD1CD1D6D6F6A2A6F,gfx9010,HBM,N/A,65520,MB,0000:83:00.0\n')
    gpus = parse_amd_smi_static(text)
    assert [(g.name, g.gfx, g.device_id, g.memory_mib, g.bus_id) for g in gpus] == [
        ("AMD Instinct MI210", "gfx90a", "0x740f", 65520, "0000:03:00.0"),
        ("AMD Instinct MI210", "gfx90a", "0x740f", 65520, "0000:83:00.0")]


@pytest.mark.parametrize("text", [
    "gpu,gpu_bdf,gpu_uuid\n",  # the header alone
    "gpu,gpu_bdf,gpu_uuid\n0,0000:0c:00.0,\"unterminated\n",
    "gpu,gpu_bdf\nnot a row\n0,0000:0c:00.0\n",
    "gpu," + "a" * 5000 + "\n0," + "," * 5000 + "\n",
])
def test_odd_csv_never_crashes(text):
    assert isinstance(parse_amd_smi_list(text), list)
    assert isinstance(parse_amd_smi_static(text), list)


def test_showhw_partition_ids_fold_to_the_physical_gpus(tmp_path):
    text = fixture("vendors", "rocm-smi", "v21m-showhw-tpx-12-partitions-4x-mi300a-changelog.txt")
    assert len(parse_rocm_smi(text).gpus) == 12
    rep = _status(tmp_path, {"rocm-smi.txt": text})
    assert [(g["gfx"], g["device_id"]) for g in rep["gpus"]] == [("gfx942", "0x74a0")] * 4


def test_showproductname_without_the_colon_after_gpu_n():
    r = parse_rocm_smi(fixture("vendors", "rocm-smi-product", "v21m-showproductname-driver-no-banner-mi300x-gfx942.txt"))
    assert [(g.name, g.gfx) for g in r.gpus] == [("AMD Instinct MI300X", "gfx942")]
    assert r.driver == "6.19.14.31400000"


def test_sycl_ls_verbose_names_the_backend_by_its_platform():
    cuda = parse_sycl_ls(fixture("vendors", "sycl-ls", "v21m-verbose-cuda-backend-rtx-pro-6000-4090-cmake-test.txt"))
    assert cuda.recognised and cuda.gpus("level_zero") == [] and cuda.gpus("opencl") == []
    assert cuda.gpus("cuda") == ["NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "NVIDIA GeForce RTX 4090"]
    # the one-line list printed first is read, the verbose block after it adds nothing twice
    cpu = parse_sycl_ls(fixture("vendors", "sycl-ls", "v21m-verbose-cpu-only-ultra9-285h-docker.txt"))
    assert [(d.backend, d.type) for d in cpu.devices] == [("opencl", "cpu")]
    verbose = ("Platforms: 1\nPlatform [#1]:\n    Version  : 1.3\n    Name     : Intel(R) Level-Zero\n"
               "    Devices  : 1\n        Device [#0]:\n        Type       : gpu\n        Version    : 12.55.8\n"
               "        Name       : Intel(R) Arc(TM) A770 Graphics\n        Driver     : 1.3.27642\n")
    r = parse_sycl_ls(verbose)
    assert r.gpus("level_zero") == ["Intel(R) Arc(TM) A770 Graphics"] and r.level_zero == "1.3.27642"


def test_sycl_ls_verbose_cuda_backend_is_no_intel_machine(tmp_path):
    rep = _status(tmp_path, {"sycl-ls.txt": fixture(
        "vendors", "sycl-ls", "v21m-verbose-cuda-backend-rtx-pro-6000-4090-cmake-test.txt")})
    assert rep["vendor"] != "intel" and rep["xpu"]["level_zero_gpus"] == []


def test_xpu_smi_device_list_inside_a_jq_filter():
    gpus = parse_xpu_smi(fixture("vendors", "xpu-smi", "v21m-discovery-j-4x-arc-pro-b70-jq-filter-runner.txt"))
    assert [(g.name, g.device_id, g.bus_id) for g in gpus][:2] == [
        ("Intel(R) Arc(TM) Pro B70 Graphics", "0xe223", "0000:23:00.0"),
        ("Intel(R) Arc(TM) Pro B70 Graphics", "0xe223", "0000:27:00.0")]
    assert len(gpus) == 4
    # newer xpu-smi builds name the type "Discrete GPU"
    js = json.dumps({"device_list": [{"device_id": 0, "device_name": "Intel(R) Data Center GPU Flex 170",
                                      "device_type": "Discrete GPU", "pci_device_id": "0x56c0"}]})
    assert [g.name for g in parse_xpu_smi(js)] == ["Intel(R) Data Center GPU Flex 170"]


def test_amd_smi_version_json_and_csv_name_the_tool_version_not_its_label():
    # amdsmi_commands.py version(): output['tool'] = 'AMDSMI Tool', output['version'] = __version__
    v = parse_amd_smi_version(fixture("vendors", "amd-smi-version", "v21m-json-26.2.0-collector-docstring.txt"))
    assert (v.tool, v.library, v.rocm, v.amdgpu) == ("26.2.0", "26.2.0", "7.0.2", "6.16.6")
    # --csv: the same keys as a header row (amdsmi_logger's csv.DictWriter)
    v = parse_amd_smi_version("tool,version,amdsmi_library_version,rocm_version\n"
                              "AMDSMI Tool,24.6.2+2b02a07,24.6.2.0,6.2.0\n")
    assert (v.tool, v.library, v.rocm) == ("24.6.2", "24.6.2.0", "6.2.0")
    v = parse_amd_smi_version("AMDSMI Tool: 23.4.2+505b858 | AMDSMI Library version: 24.4.0.0 | ROCm version: 6.0.0")
    assert (v.tool, v.rocm) == ("23.4.2", "6.0.0")
