"""GPU listers other than nvidia-smi put where nvidia-smi's output goes (issue 20, captures20m; contract §1): CUDA
samples' deviceQuery / deviceQueryDrv (CUDA 2.x SDK to 13), ``nvidia-container-cli info``, ``dcgmi discovery -l``,
gpustat, ``/proc/driver/nvidia/gpus/*/information`` and ``lspci``, each read for what it makes certain and nothing
more. The captures are real (tests/data/captures20m, cited in tests/data/README.md); their labels were written by
hand from the text before the readers (heldout/captures20m holds the part held back)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest
from helpers import check_smi_form_reads_as_expected, expect_text, status_of_files

from envcheck.parse import gpu_listers, nvidia_smi
from envcheck.parse.tegra import parse_tegra_release

DATA = Path(__file__).parent / "data" / "captures20m"
ROOT = Path(__file__).parent.parent


def _cases(file: str = "nvidia-smi.txt"):
    return [pytest.param(p, id=p.name[: -len(".expect.json")]) for p in sorted(DATA.glob("*.expect.json"))
            if json.loads(p.read_text(encoding="utf-8"))["_file"] == file]


_text = expect_text


@pytest.mark.parametrize("exp_path", _cases())
def test_lister_read_by_content(exp_path):
    t, exp = check_smi_form_reads_as_expected(exp_path)  # none of them is nvidia-smi: its state stays unknown
    if "gpu_cc" in exp:
        assert [g.compute_capability for g in t.gpus] == exp["gpu_cc"]


@pytest.mark.parametrize("exp_path", _cases())
def test_truncated_reads_only_what_the_whole_says(exp_path):
    """A paste cut anywhere reads a part of what the whole text says, never something else, and a cut list is
    never said whole where the whole one is not."""
    text = _text(exp_path)
    whole = nvidia_smi.parse_smi(text)
    lines = text.splitlines(keepends=True)
    for n in range(1, len(lines)):
        part = nvidia_smi.parse_smi("".join(lines[:n]))
        if part.form != whole.form:
            assert part.form in ("unrecognised", None) or not part.gpus, (n, part.form)
            continue
        assert part.driver_version in (None, whole.driver_version) and part.cuda_version in (None, whole.cuda_version)
        names = {(g.index, g.name) for g in whole.gpus}
        assert all((g.index, g.name) in names or (g.index, g.name) == (g.index, None) for g in part.gpus), n
        if not whole.gpus_complete:
            assert not part.gpus_complete, n


def test_registry_forms_are_the_contracts():
    """Every reader in the registry has its form in parse.nvidia_smi.LISTER_FORMS (which the layers above ask) and
    in the report schema's enum of driver.nvidia_smi_form."""
    schema = json.loads((ROOT / "envcheck" / "schemas" / "report.schema.json").read_text(encoding="utf-8"))
    enum = schema["properties"]["driver"]["properties"]["nvidia_smi_form"]["enum"]
    assert gpu_listers.FORMS == nvidia_smi.LISTER_FORMS
    assert all(f in enum for f in gpu_listers.FORMS)
    contract = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
    assert all(f"`{f}`" in contract for f in gpu_listers.FORMS)


def test_device_query_drv_cuda_line_is_not_a_driver_version():
    # deviceQueryDrv's "CUDA Driver Version:   12.2" is the driver's CUDA, not the driver (main read 12.2 as one)
    # (deviceQueryDrv.cpp's own printf formats; the real sample of it is held back in heldout/captures20m)
    t = nvidia_smi.parse_smi('Device 0: "Tesla T4"\n  CUDA Driver Version:                           12.2\n'
                             "  CUDA Capability Major/Minor version number:    7.5\n")
    assert t.driver_version is None and t.cuda_version == "12.2" and t.form == "deviceQuery"


def test_sdk_minor_printed_as_v_mod_100():
    # the GPU Computing SDK printed the version as v/1000, v%100: "2.30" is CUDA 2.3 (its own source, CUDA 2.3 SDK)
    text = ('There is 1 device supporting CUDA\n\nDevice 0: "GeForce 8800 GT"\n'
            "  CUDA Driver Version:                           2.30\n"
            "  CUDA Capability Major revision number:         1\n  CUDA Capability Minor revision number:         1\n")
    t = nvidia_smi.parse_smi(text)
    assert (t.cuda_version, [g.compute_capability for g in t.gpus], t.gpus_complete) == ("2.3", ["1.1"], True)


def test_table_beside_a_lister_is_read_as_the_table():
    """A paste of both nvidia-smi and another lister is read as nvidia-smi's table (it names the driver)."""
    table = (Path(__file__).parent / "data" / "nvidia-smi-forms")
    tbl = next(p for p in sorted(table.glob("*.txt")) if "NVIDIA-SMI" in p.read_text(encoding="utf-8")
               and "Driver Version" in p.read_text(encoding="utf-8"))
    text = tbl.read_text(encoding="utf-8") + "\n" + (DATA / "lspci-2x-v100s-root-prompt.txt").read_text(encoding="utf-8")
    assert nvidia_smi.parse_smi(text).form == "table"


def test_error_beside_lspci_stays_the_error():
    text = ("$ lspci | grep -i nvidia\n01:00.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 3090] "
            "(rev a1)\n$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
            "Make sure that the latest NVIDIA driver is installed and running.\n")
    t = nvidia_smi.parse_smi(text)
    assert (t.form, t.state) == ("error", "no-driver")


def test_lspci_ignores_other_nvidia_functions_and_pci_ids():
    # lspci -nn: the class code and the [vendor:device] IDs are not the name; the audio / USB functions are no GPU
    text = ("01:00.0 VGA compatible controller [0300]: NVIDIA Corporation GA102 [GeForce RTX 3090] [10de:2204] (rev a1)\n"
            "01:00.1 Audio device [0403]: NVIDIA Corporation GA102 High Definition Audio Controller [10de:1aef] (rev a1)\n")
    t = nvidia_smi.parse_smi(text)
    assert [(g.name, g.bus_id) for g in t.gpus] == [("GeForce RTX 3090", "01:00.0")] and t.driver_version is None


def _status(tmp_path: Path, text: str) -> Dict[str, Any]:
    return status_of_files(tmp_path, {"nvidia-smi.txt": text})


def test_snapshot_lspci_names_gpus_not_the_driver(tmp_path):
    rep = _status(tmp_path, (DATA / "lspci-2x-v100s-root-prompt.txt").read_text(encoding="utf-8"))
    ids = [f["id"] for f in rep["findings"]]
    assert "no-gpu-driver" not in ids and rep["driver"]["version"] is None and rep["driver"]["nvidia_smi"] is None
    assert [g["name"] for g in rep["gpus"]] == ["Tesla V100S PCIe 32GB"] * 2 and rep["gpus_known"] is False
    note = [f for f in rep["findings"] if f["id"] == "not-checked" and f["message"].startswith("nvidia-smi.txt ")]
    assert note and "lspci" in note[0]["message"] and "driver" in note[0]["message"]


def test_snapshot_device_query_gives_the_drivers_cuda(tmp_path):
    rep = _status(tmp_path, (DATA / "dq-11.2-gtx1650super-root-prompt-cut.txt").read_text(encoding="utf-8"))
    d = rep["driver"]
    assert (d["version"], d["cuda"], d["cuda_source"], d["nvidia_smi_form"]) == (None, "11.2", "deviceQuery",
                                                                                 "deviceQuery")
    assert [(g["name"], g["compute_capability"], g["memory_mib"]) for g in rep["gpus"]] == [
        ("GeForce GTX 1650 SUPER", "7.5", 3878)]
    assert rep["gpus_known"] is True and not [f for f in rep["findings"] if f["severity"] in ("error", "warning")]


def test_snapshot_failed_device_query_is_unknown(tmp_path):
    rep = _status(tmp_path, (DATA / "dq-fail-35-insufficient-driver-docker-runc.txt").read_text(encoding="utf-8"))
    ids = [f["id"] for f in rep["findings"]]
    assert "no-gpu-driver" not in ids and rep["driver"]["nvidia_smi"] is None and rep["gpus_known"] is False
    assert any(f["id"] == "not-checked" and "deviceQuery" in f["message"] for f in rep["findings"])


def test_snapshot_proc_information_means_a_loaded_driver(tmp_path):
    rep = _status(tmp_path, (DATA / "pgi-rtx4090-four-lines.txt").read_text(encoding="utf-8"))
    ids = [f["id"] for f in rep["findings"]]
    assert "no-gpu-driver" not in ids and [g["name"] for g in rep["gpus"]] == ["NVIDIA GeForce RTX 4090"]
    assert rep["driver"]["version"] is None and rep["gpus_known"] is False


@pytest.mark.parametrize("exp_path", _cases("tegra-release.txt"))
def test_l4t_core_package_is_the_l4t_release(exp_path):
    assert parse_tegra_release(_text(exp_path)) == json.loads(exp_path.read_text(encoding="utf-8"))["l4t"]


def test_l4t_core_apt_show_and_not_another_package():
    # `apt show nvidia-l4t-core` (apt's own "Package:" / "Version:" fields); another nvidia-l4t-* row is not the core
    show = "Package: nvidia-l4t-core\nSource: nvidia-l4t-core\nVersion: 35.4.1-20230801124926\nPriority: standard\n"
    assert parse_tegra_release(show) == "35.4.1"
    row = "ii  nvidia-l4t-cuda                        32.7.4-20230608212426    arm64    NVIDIA CUDA Package\n"
    assert parse_tegra_release(row) is None


def test_snapshot_unread_tegra_release_is_said(tmp_path):
    # a tegrastats line (no release in it) where /etc/nv_tegra_release is expected: unknown, and said so
    snap = tmp_path / "snap"
    snap.mkdir()
    line = (Path(__file__).parent / "data" / "nvidia-smi-forms" / "unknown-tegrastats-line.txt").read_text().splitlines()[0]
    (snap / "tegra-release.txt").write_text(line + "\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", str(snap)],
                       capture_output=True, text=True, timeout=120)
    rep = json.loads(r.stdout)
    assert rep["accelerator"]["l4t"] is None
    assert any(f["id"] == "not-checked" and f["message"].startswith("tegra-release.txt ") for f in rep["findings"])


def _explain_facts(path: Path) -> Dict[str, Any]:
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", str(path)],
                       capture_output=True, text=True, timeout=120)
    return json.loads(r.stdout).get("facts") or {}


@pytest.mark.parametrize("name", ["dq-10.1-tesla-m60-conda-prompt-cut", "ncc-525.85.12-rtx3060-bare",
                                  "gs-525.60.13-2x-a100-80g-srun-rst", "dq-13.0-4070ti-a4000-elided-summary-line"])
def test_paste_facts_of_a_lister(name):
    """The same texts pasted into a bug report: explain's facts are what the snapshot reads (driver, its CUDA,
    the GPU names), nothing more."""
    exp = json.loads((DATA / f"{name}.expect.json").read_text(encoding="utf-8"))
    f = _explain_facts(DATA / f"{name}.txt")
    assert (f["driver"]["version"], f["driver"]["cuda"]) == (exp["driver_version"], exp["cuda_version"])
    assert [(g["index"], g["name"]) for g in f["gpus"]] == [(g["index"], g["name"]) for g in exp["gpus"]]


def test_paste_lspci_beside_the_table_keeps_the_tables_names(tmp_path):
    # the real H100 capture of this project (tests/data/real)
    table = next((Path(__file__).parent / "data" / "real").glob("h100-*/captures/nvidia-smi.txt"))
    paste = tmp_path / "paste.txt"
    paste.write_text((DATA / "lspci-2x-v100s-root-prompt.txt").read_text(encoding="utf-8") + "\n"
                     + table.read_text(encoding="utf-8"), encoding="utf-8")
    names = [g["name"] for g in _explain_facts(paste)["gpus"]]
    assert names == [g.name for g in nvidia_smi.parse_smi(table.read_text(encoding="utf-8")).gpus]


def test_jetson_release_kept_with_its_colours():
    """jetson_release prints through bcolors (jtop/jetson_release.py: bold names and values, ok/fail colours); a
    capture that kept the escapes (a `script` log, a CI log) is read as the plain one."""
    from envcheck.parse.tegra import parse_jetson_release

    plain = (Path(__file__).parent / "data" / "vendors" / "jetson-release" /
             "v10-v4.2.9-jp5.1.2-orin-nx-25w.txt").read_text(encoding="utf-8")
    bold, ok, end = "\x1b[1m", "\x1b[92m", "\x1b[0m"
    coloured = re.sub(r"^Model: (.+?) - Jetpack (\S+) \[L4T (\S+)\]$",
                      lambda m: f"Model: {bold}{m.group(1)}{end} - Jetpack {bold}{m.group(2)}{end} [L4T {bold}{m.group(3)}{end}]",
                      plain, flags=re.M)
    coloured = re.sub(r"^( - )([A-Za-z][\w ]{0,20}): ", lambda m: f"{m.group(1)}{bold}{m.group(2)}{end}: ", coloured,
                      flags=re.M).replace("Libraries:", f"{ok}{bold}Libraries:{end}{end}")
    assert coloured != plain and "\x1b[1m" in coloured
    assert parse_jetson_release(coloured) == parse_jetson_release(plain)
    assert parse_jetson_release(plain).model is not None


def test_snapshot_kernel_log_in_nvidia_smi_txt_is_described_not_read(tmp_path):
    # dmesg lines (a real boot log: find_string id 43468508275): the module loaded at that boot, not necessarily the
    # running one; unknown, and the note says what the text is
    text = ("[    6.852458] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:01 UTC 2024\n"
            "[    6.863691] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  550.120  Fri "
            "Sep 13 10:01:25 UTC 2024\n[    6.881884] [drm] [nvidia-drm] [GPU ID 0x00000900] Loading driver\n")
    t = nvidia_smi.parse_smi(text)
    assert (t.form, t.driver_version, t.state) == ("unrecognised", None, None) and "kernel log" in (t.note or "")
    rep = _status(tmp_path, text)
    assert rep["driver"]["version"] is None and "no-gpu-driver" not in [f["id"] for f in rep["findings"]]
    note = [f for f in rep["findings"] if f["id"] == "not-checked" and f["message"].startswith("nvidia-smi.txt ")]
    assert note and "550.120" in note[0]["message"] and "NVRM: loading" in note[0]["evidence"]
