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


#: PyTorch's own message when a CUDA build finds no NVIDIA driver (torch/cuda/__init__.py's _lazy_init)
NO_NVIDIA = ("Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n"
             "    x = torch.zeros(1).cuda()\n"
             "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
             "installed a driver from http://www.nvidia.com/Download/index.aspx\n")

#: real outputs of tests/data/vendors (cited in tests/data/README.md): (file, snapshot file, vendor, first GPU's name
#: or None, its gfx or None, GPUs)
PASTED = [
    ("xpu-smi/v8-flex170-readme.txt", "xpu-smi-discovery.txt", "intel", "Intel(R) Data Center GPU Flex 170", None, 1),
    ("xpu-smi/discovery-d0-a770-llama28725.txt", "xpu-smi-discovery.txt", "intel", "Intel(R) Arc(TM) A770 Graphics",
     None, 1),
    ("xpu-smi/v21j-discovery-json-0x20a-xpumanager-doc.txt", "xpu-smi-discovery.txt", "intel", "Intel(R) Graphics",
     None, 1),
    ("xpu-smi/v21l-discovery-3x-max1550-soc-uuid-parser-test.txt", "xpu-smi-discovery.txt", "intel",
     "Intel(R) Data Center GPU Max 1550", None, 3),
    ("clinfo/v21f-l-uhd620-and-cpu-platform.txt", "clinfo.txt", "intel", "Intel(R) UHD Graphics 620", None, 1),
    ("clinfo/v10-alderlake-0x46d1.txt", "clinfo.txt", "intel", "Intel(R) Graphics [0x46d1]", None, 1),
    ("clinfo-amd/ocl-icd-clover-and-rocm-rx7900xtx-gfx1100-cut.txt", "clinfo.txt", "amd", "Radeon RX 7900 XTX",
     "gfx1100", 1),
    ("clinfo-amd/v10-renoir-gfx902-pcie-id.txt", "clinfo.txt", "amd", "Renoir", "gfx902", 1),
    ("clinfo-amd/v10-hawaii-r9-390.txt", "clinfo.txt", "amd", "AMD Radeon (TM) R9 390 Series", None, 1),
    ("amd-smi-static/mi350x-rocm-systems2987.txt", "amd-smi-static.txt", "amd", "AMD Instinct MI350X", "gfx950", None),
    ("amd-smi-static/v7-9070xt-annotated.txt", "amd-smi-static.txt", "amd", "AMD Radeon RX 9070 XT", "gfx1201", 1),
    ("amd-smi-list/v9-2x-uuid-redacted.txt", "amd-smi-list.txt", "amd", None, None, 2),
    ("hipinfo/v21k-windows-ps-venv-rx5700-890m-zh-doc.txt", "hipinfo.txt", "amd", "AMD Radeon RX 5700", "gfx1010",
     None),
    ("hipinfo/v21l-diagnostic-dump-section-6750-gre-gfx1031-windows.txt", "hipinfo.txt", "amd",
     "AMD Radeon RX 6750 GRE 12GB", "gfx1031", None),
]


@pytest.mark.parametrize("name,snapfile,vendor,gpu,gfx,count", PASTED)
def test_a_vendor_tool_pasted_in_a_report_gives_its_vendors_facts_and_no_nvidia_advice(name, snapfile, vendor, gpu,
                                                                                       gfx, count):
    from envcheck.explain.document import explain_text_document
    from envcheck.paste import read_report

    text = "My GPU:\n\n```\n" + fixture("vendors", name) + "\n```\n\n" + NO_NVIDIA
    assert snapfile in read_report(text).captures  # read by the snapshot's own parser
    doc = explain_text_document(text)
    facts = doc["facts"]
    assert facts["vendor"] == vendor, (doc["detected"], facts.get("gpus"))
    gpus = [g for g in facts["gpus"] if g.get("vendor") == vendor]
    if count is not None:
        assert len(gpus) == count, gpus
    if gpu:
        assert gpus[0]["name"] == gpu
    if gfx:
        assert gpus[0]["gfx"] == gfx
    for m in doc["matches"]:
        for fix in m.get("fixes") or []:
            assert "NVIDIA driver" not in str(fix) and "nvidia-smi" not in str(fix), m


def test_amd_smi_version_pasted_is_handed_on_as_its_snapshot_file():
    from envcheck.paste import read_report

    text = "env:\n" + fixture("vendors", "amd-smi-version", "25.3.0-rocm6.4.0-k8s157.txt") + "\n" + NO_NVIDIA
    rep = read_report(text)
    assert "ROCm version: 6.4.0" in rep.captures["amd-smi-version.txt"]


def test_clinfo_pasted_with_an_nvidia_platform_names_the_nvidia_gpu():
    from envcheck.explain.document import explain_text_document

    doc = explain_text_document(fixture("vendors", "clinfo", "v21n-l-fpga-emu-i7-cpu-nvidia-cuda-gtx-1080.txt"))
    assert [(g["vendor"], g["name"]) for g in doc["facts"]["gpus"]] == [("nvidia", "GeForce GTX 1080")]
    assert doc["facts"]["vendor"] == "nvidia"


@pytest.mark.parametrize("text", [
    "Number of platforms 1\n" * 3000,
    "GPU: 0\n    ASIC:\n" + "        MARKET_NAME: x\n" * 5000,
    "+-----------+------------------+\n| Device ID | Device Information |\n" + "|" * 100000,
    '{\n  "device_list": [\n' + "{" * 50000,
    "device#   0\n" + "Name: \x1b[31mred\n" * 100,
    "Platform #0: X\n `-- Device #0: " + "a" * 10000,
])
def test_odd_vendor_tool_text_never_crashes(text):
    from envcheck.paste import read_report

    rep = read_report(text)
    assert isinstance(rep.captures, dict)


def test_status_text_says_where_the_nvidia_gpu_was_read(tmp_path):
    snap = _snap(tmp_path, {"clinfo.txt": fixture("vendors", "clinfo", "v21n-l-fpga-emu-i7-cpu-nvidia-cuda-gtx-1080.txt")})
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--snapshot", str(snap)], capture_output=True,
                       text=True, timeout=120, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT, COLUMNS="200"))
    out = " ".join(r.stdout.split())
    assert "GeForce GTX 1080" in out and "listed by clinfo only" in out, r.stdout


def test_an_xpu_torch_on_a_machine_whose_sycl_ls_lists_an_nvidia_and_an_intel_gpu_is_no_vendor_mismatch(tmp_path):
    # intel/llvm#19998's sycl-ls: an RTX 3050 through the CUDA backend and an Intel GPU on Level Zero; an XPU torch
    torch = {"version": "2.8.0+xpu", "cuda": None, "xpu": "20250101", "cuda_available": False, "xpu_available": True}
    rep = _status(_snap(tmp_path, {"sycl-ls.txt": fixture("vendors", "sycl-ls",
                                                          "v21n-cuda-rtx-3050-laptop-and-intel-0x7d45-l0-opencl.txt"),
                                   "torch.json": json.dumps(torch)}))
    assert rep["vendor"] == "nvidia"
    assert "framework-vendor-mismatch" not in {f["id"] for f in rep["findings"]}, rep["findings"]


def test_a_scripts_own_number_of_devices_line_is_not_taken_for_clinfo():
    from envcheck.paste import read_report

    rep = read_report("Number of devices: 2\nDevice 0 ok\nDevice 1 ok\ntorch 2.3.0+cu121\n")
    assert "clinfo.txt" not in rep.captures and "clinfo" not in rep.formats
