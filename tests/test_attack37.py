"""Attacks of helper attack37 (session 15, issue 20: "every form is read, or said unknown; nothing false"): each test
failed before its fix, but the few that guard forms already read right (topo -m, dmon/pmon, a shell's "not found"). The samples are real (tests/data/attack37/README.md names each source) or cut from the real
captures of tests/data/nvidia-smi and tests/data/vendors.

* A snapshot file cut inside its last line (a paste stopped at a size limit) read the cut value: nvidia-smi's
  "Driver Version: 550.9" of 550.90.07 was the driver, with a CUDA derived from it; `-q`'s "Driver Version : 440.8";
  a list cut inside its last row was taken as whole. Now that line is not read, the list is partial and a note
  names the file (snapshot/reader.py, parse/captures.cut_last_line).
* A table's header cut before its CUDA field ("... Driver Version: 550.40.07      CUDA") derived the CUDA from the
  driver's version (12.3, where nvidia-smi printed 12.4): now unknown, with a not-checked finding.
* `-q` cut after its banner had gpus_known true with no GPU.
* Every §9 text capture (amd-smi version / list, hipconfig, hipInfo, rocm-version, sys-module-amdgpu-version,
  xpu-smi, sycl-ls, clinfo, sw_vers, system_profiler, rocm_agent_enumerator, rocm-smi --showdriverversion) and the
  query CSV, /proc/version and /etc/os-release holding text their reader reads nothing from (a shell's "No such file
  or directory", a fragment of another view) was silent: now a not-checked finding names the file and its first line.
* rocm-smi.txt holding the shell's "bash: rocm-smi: command not found" made the machine AMD's (rocm-smi "answered").
* An AMD / Intel / Apple machine whose tools answered but listed no GPU (amd-smi version alone, sw_vers alone) had
  gpus_known true with an empty list; a vendor listing cut ("...", `xpu-smi discovery -d 0`, a block left open) was
  whole.
* A NUL or a colour code at a line's end of a vendor capture stayed in the GPU's name (and kept sycl-ls' version
  columns in it).
* `nvidia-smi -q -x` from a mail's rendering ("<driver_version&gt;591.74</driver_version&gt;", "&nbsp;" indents) was
  not read.
"""

from __future__ import annotations

import os

import pytest

from envcheck.api import status
from envcheck.parse.captures import cut_last_line, strip_controls
from tests.helpers import write_snapshot_files

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "attack37")
SMI = os.path.join(HERE, "data", "nvidia-smi")
FORMS = os.path.join(HERE, "data", "nvidia-smi-forms")
VENDORS = os.path.join(HERE, "data", "vendors")


def _read(*parts: str) -> str:
    with open(os.path.join(*parts), encoding="utf-8") as fh:
        return fh.read()


def _status(tmp_path, files: dict) -> dict:
    return status(str(write_snapshot_files(tmp_path, files)))


def _said(doc: dict, key: str) -> bool:
    """The report names ``key`` in a not-checked finding, a note or a problems entry."""
    return any(f["id"] == "not-checked" and key in f["message"] + (f.get("evidence") or "") for f in doc["findings"]) \
        or any(key in n for n in doc.get("notes") or []) or any(p.get("capture") == key for p in doc.get("problems") or [])


# --- a text cut inside its last line ---------------------------------------------------------------------------------

def test_cut_last_line_keeps_whole_texts_and_one_liners():
    assert cut_last_line("a\nb\n") == ("a\nb\n", None)
    assert cut_last_line("550.90.07") == ("550.90.07", None)  # a version file written by hand without its line break
    assert cut_last_line("<a>\n</nvidia_smi_log>") == ("<a>\n</nvidia_smi_log>", None)
    assert cut_last_line("x\n| Driver Version: 550.9") == ("x\n...\n", "| Driver Version: 550.9")


@pytest.mark.parametrize("name, cut_after", [
    ("550.90.07-8x-h100.txt", "Driver Version: 550.9"),
    ("550.90.07-8x-h100.txt", "Driver Version: 550.90.0"),
    ("384.111-gtx1050-no-cuda-field.txt", "Driver Version: 384.1"),
])
def test_a_table_cut_inside_its_driver_version_reads_no_version(tmp_path, name, cut_after):
    text = _read(SMI, name)
    cut = text[: text.index(cut_after) + len(cut_after)]
    doc = _status(tmp_path, {"nvidia-smi.txt": cut})
    assert doc["driver"]["version"] is None
    assert doc["driver"]["cuda"] is None
    assert _said(doc, "nvidia-smi.txt")


def test_q_cut_inside_its_driver_version_reads_no_version(tmp_path):
    text = _read(FORMS, "q-440.82-gtx1650-cuda-10.2-partial.txt")
    cut = text[: text.index("440.8") + len("440.8")]
    doc = _status(tmp_path, {"nvidia-smi.txt": cut})
    assert doc["driver"]["version"] in (None, "440.82")
    assert doc["driver"]["cuda"] in (None, "10.2")
    assert doc["gpus_known"] is False


def test_a_list_cut_inside_its_last_row_is_no_whole_list(tmp_path):
    text = _read(FORMS, "L-4x-a100-80gb-mig-on-gpu0.txt")
    at = text.index("GPU 3:")
    doc = _status(tmp_path, {"nvidia-smi.txt": text[: at + 12]})
    assert doc["gpus_known"] is False
    assert all(g["name"] != "NVIDIA A" for g in doc["gpus"])
    assert _said(doc, "nvidia-smi.txt")


def test_a_header_cut_before_its_cuda_field_derives_no_cuda(tmp_path):
    # 550.40.07's nvidia-smi printed CUDA 12.4; the driver-branch table derives 12.3 for it: no derivation here
    text = _read(SMI, "550.40.07-rtx4070.txt")
    head = text[: text.index("CUDA ") + len("CUDA ")]
    line = head.splitlines()[-1]  # the header line alone, as a one-line file
    for i, cut in enumerate((head, line)):
        doc = _status(tmp_path / str(i), {"nvidia-smi.txt": cut})
        assert doc["driver"]["cuda"] is None, cut
        assert _said(doc, "nvidia-smi.txt")


def test_q_banner_alone_lists_no_gpus(tmp_path):
    doc = _status(tmp_path, {"nvidia-smi.txt": "==============NVSMI LOG==============\n\n"})
    assert doc["gpus_known"] is False


# --- the §9 captures (and three small ones) said unknown when their reader reads nothing -------------------------------

_CAT_ERROR = "cat: /sys/module/amdgpu/version: No such file or directory\n"


@pytest.mark.parametrize("key", [
    "rocm-smi-driver.txt", "amd-smi.txt", "amd-smi-version.txt", "amd-smi-list.txt", "amd-smi-static.txt",
    "rocm-agent-enumerator.txt", "hipconfig.txt", "hipinfo.txt", "rocm-version.txt", "sys-module-amdgpu-version.txt",
    "xpu-smi-discovery.txt", "sycl-ls.txt", "clinfo.txt", "sw-vers.txt", "system-profiler-displays.txt",
    "nvidia-smi-query.csv", "proc-version.txt", "os-release.txt", "rocm-smi.txt",
])
def test_a_vendor_capture_read_for_nothing_is_said_unknown(tmp_path, key):
    doc = _status(tmp_path, {key: _CAT_ERROR})
    assert _said(doc, key), (key, doc["findings"], doc["notes"])
    assert doc["gpus_known"] is False


def test_k8s_device_plugin_157_amd_smi_version_and_a_missing_module_file(tmp_path):
    files = {"amd-smi-version.txt": _read(DATA, "amd-smi-version-25.3.0-rocm-6.4.0-kernel-string-k8s-device-plugin157.txt"),
             "sys-module-amdgpu-version.txt": _read(DATA, "sys-module-amdgpu-version-cat-no-such-file-k8s-device-plugin157.txt")}
    doc = _status(tmp_path, files)
    assert doc["vendor"] == "amd"
    assert doc["rocm"]["version"] == "6.4.0"
    assert doc["rocm"]["amdgpu"] is None  # the "amdgpu version" field holds the kernel's string
    assert doc["gpus_known"] is False  # amd-smi version lists no GPU: unknown, not "none"
    assert _said(doc, "sys-module-amdgpu-version.txt")


@pytest.mark.parametrize("line", ["bash: rocm-smi: command not found", "zsh: command not found: rocm-smi",
                                  "sh: 1: rocm-smi: not found", "bash: /opt/rocm/bin/rocm-smi: No such file or directory"])
def test_rocm_smi_not_found_makes_no_amd_machine(tmp_path, line):
    doc = _status(tmp_path, {"rocm-smi.txt": line + "\n"})
    assert doc["vendor"] is None
    assert _said(doc, "rocm-smi.txt")


def test_sw_vers_alone_lists_no_gpus(tmp_path):
    doc = _status(tmp_path, {"sw-vers.txt": _read(VENDORS, "sw-vers", sorted(os.listdir(os.path.join(VENDORS, "sw-vers")))[0])})
    assert doc["vendor"] == "apple"
    assert doc["gpus"] is None and doc["gpus_known"] is False


@pytest.mark.parametrize("name, gpus", [
    ("xpu-smi-discovery-d0-flex170-xpumanager69.txt", ["Intel(R) Data Center GPU Flex 170"]),
    ("xpu-smi-discovery-uhd770-flex140-block-open-i915-backports167.txt",
     ["Intel(R) UHD Graphics 770", "Intel(R) Data Center GPU Flex 140"]),
    ("xpu-smi-discovery-after-topology-b60-sglang38873.txt", ["Intel(R) Arc(TM) Pro B60 Graphics"]),
])
def test_a_partial_xpu_smi_listing_is_no_whole_list(tmp_path, name, gpus):
    doc = _status(tmp_path, {"xpu-smi-discovery.txt": _read(DATA, name)})
    assert [g["name"] for g in doc["gpus"]] == gpus
    assert doc["gpus_known"] is False


def test_xpu_smi_summary_fragment_is_said_unknown(tmp_path):
    doc = _status(tmp_path, {"xpu-smi-discovery.txt": _read(DATA, "xpu-smi-summary-row-fragment-xpumanager169.txt")})
    assert doc["gpus"] == [] or doc["gpus"] is None
    assert _said(doc, "xpu-smi-discovery.txt")


# --- control characters -----------------------------------------------------------------------------------------------

def test_strip_controls():
    assert strip_controls("\x1b[1;32mIntel(R) Arc\x1b[0m\x00 x\x1b]0;title\x07y\tz\r\n") == "Intel(R) Arc xy\tz\r\n"


@pytest.mark.parametrize("key, name", [
    ("sycl-ls.txt", "v21j-v2-b580-uhd770-device-list.txt"),
    ("clinfo.txt", "v21f-l-uhd620-and-cpu-platform.txt"),
    ("system-profiler-displays.txt", "v8-m1-blank-lines.txt"),
])
def test_a_nul_or_colour_code_stays_out_of_gpu_names(tmp_path, key, name):
    folder = {"sycl-ls.txt": "sycl-ls", "clinfo.txt": "clinfo", "system-profiler-displays.txt": "system-profiler"}[key]
    text = _read(VENDORS, folder, name)
    plain = [g["name"] for g in _status(tmp_path / "a", {key: text})["gpus"] or []]
    assert plain
    for i, bad in enumerate((text.replace("\n", "\x00\n"), "".join("\x1b[32m" + ln + "\x1b[0m\n" for ln in text.splitlines()))):
        got = [g["name"] for g in _status(tmp_path / str(i), {key: bad})["gpus"] or []]
        assert got == plain


# --- forms read as they are ------------------------------------------------------------------------------------------

def test_q_x_from_a_mail_rendering_is_read(tmp_path):
    doc = _status(tmp_path, {"nvidia-smi.txt": _read(DATA, "nvidia-smi-q-x-591.74-cuda-13.1-mail-half-escaped-1panel11910.txt")})
    assert doc["driver"]["version"] == "591.74" and doc["driver"]["cuda"] == "13.1"
    assert [g["name"] for g in doc["gpus"]] == ["NVIDIA GeForce RTX 4090"]


@pytest.mark.parametrize("name", [
    "nvidia-smi-topo-m-8gpu-k8s53497.txt", "nvidia-smi-topo-m-tabs-club3090-1229.txt",
    "nvidia-smi-not-recognized-curly-quotes-zluda213.txt", "nvidia-smi-chroot-failed-gpu-operator1063.txt",
])
def test_forms_that_name_no_driver_are_said_unknown(tmp_path, name):
    doc = _status(tmp_path, {"nvidia-smi.txt": _read(DATA, name)})
    assert doc["driver"]["version"] is None and doc["gpus_known"] is False
    assert _said(doc, "nvidia-smi.txt")
    assert not [f for f in doc["findings"] if f["severity"] == "error"]


def test_dmon_pmon_refusals_before_the_table(tmp_path):
    doc = _status(tmp_path, {"nvidia-smi.txt": _read(DATA, "nvidia-smi-dmon-pmon-not-supported-then-table-415.27-nvidia-patch89.txt")})
    assert (doc["driver"]["version"], doc["driver"]["cuda"]) == ("415.27", "10.0")
    assert [(g["name"], g["memory_mib"]) for g in doc["gpus"]] == [("GeForce GT 640", 1999)]


def test_q_d_memory_without_a_name_or_cuda_line(tmp_path):
    doc = _status(tmp_path, {"nvidia-smi.txt": _read(DATA, "nvidia-smi-q-d-memory-375.66-no-name-gnome-shell356.txt")})
    assert doc["driver"]["version"] == "375.66"
    assert [(g["name"], g["memory_mib"]) for g in doc["gpus"]] == [(None, 1995)]


def test_q_x_cut_inside_its_gpu(tmp_path):
    doc = _status(tmp_path, {"nvidia-smi.txt": _read(DATA, "nvidia-smi-q-x-430.64-cut-cpu-x115.txt")})
    assert (doc["driver"]["version"], doc["driver"]["cuda"]) == ("430.64", "10.1")
    assert [g["name"] for g in doc["gpus"]] == ["GeForce GTX 1660 Ti"]


def test_amd_smi_partition_in_the_list_file(tmp_path):
    doc = _status(tmp_path, {"amd-smi-list.txt": _read(DATA, "amd-smi-partition-4gpu-nps1-rocm4477.txt")})
    assert doc["vendor"] == "amd"
    assert [(g["index"], g["name"], g["gfx"]) for g in doc["gpus"]] == [(i, None, None) for i in range(4)]


def test_an_intel_mac_radeon_by_its_device_id(tmp_path):
    doc = _status(tmp_path, {"system-profiler-displays.txt": _read(DATA, "system-profiler-imac-pro-vega64-zeam-cpu-info17.txt")})
    assert doc["vendor"] == "apple"
    assert [(g["name"], g["vendor"], g["gfx"], g["memory_mib"]) for g in doc["gpus"]] == \
        [("Radeon Pro Vega 64", "amd", "gfx900", 16384)]


def test_xpu_smi_json_cut_inside_is_no_whole_list(tmp_path):
    # `xpu-smi discovery -j` of 4 B70s, cut after the first device's name (the line break kept: no cut line to drop)
    text = _read(VENDORS, "xpu-smi", "v21m-discovery-j-4x-arc-pro-b70-jq-filter-runner.txt")
    at = text.index('"device_name"')
    doc = _status(tmp_path, {"xpu-smi-discovery.txt": text[: text.index("\n", at) + 1]})
    assert [g["name"] for g in doc["gpus"]] == ["Intel(R) Arc(TM) Pro B70 Graphics"]
    assert doc["gpus_known"] is False


def test_a_query_csv_cut_inside_its_last_row_is_no_whole_list(tmp_path):
    # the last row cut inside its memory ("8192" of 81920 MiB): that row is not read, and the list is partial
    text = ("index, name, driver_version, compute_cap, memory.total [MiB]\n"
            "0, NVIDIA A100-SXM4-80GB, 535.104.05, 8.0, 81920 MiB\n1, NVIDIA A100-SXM4-80GB, 535.104.05, 8.0, 8192")
    doc = _status(tmp_path, {"nvidia-smi-query.csv": text})
    assert [(g["index"], g["memory_mib"]) for g in doc["gpus"]] == [(0, 81920)]
    assert doc["gpus_known"] is False
    assert _said(doc, "nvidia-smi-query.csv")


def test_q_banner_alone_is_said_and_is_no_missing_driver(tmp_path):
    doc = _status(tmp_path, {"nvidia-smi.txt": "==============NVSMI LOG==============\n\nTimestamp : Wed Jun 24 17:05:47 2020\n"})
    assert _said(doc, "nvidia-smi.txt")
    assert "no-gpu-driver" not in {f["id"] for f in doc["findings"]}
