"""Parsers against real captures (tests/data/<tool>/<case>.* + <case>.expect.json) and small
real-format samples for the edge cases the captures do not cover."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from envcheck.parse import captures, cuda_version, cudnn_header, ldconfig, libraries, nvcc, nvidia_smi
from envcheck.parse import proc_driver, pyfiles

DATA = Path(__file__).parent / "data"


def _cases(folder: str) -> List[Tuple[Path, Dict[str, Any]]]:
    out = []
    for exp in sorted((DATA / folder).glob("*.expect.json")):
        case = exp.name[: -len(".expect.json")]
        caps = [p for p in exp.parent.iterdir() if p.name.startswith(case + ".") and p != exp]
        assert len(caps) == 1, "expected exactly one capture for %s, found %s" % (exp, caps)
        out.append((caps[0], json.loads(exp.read_text(encoding="utf-8"))))
    assert out, "no cases in tests/data/%s" % folder
    return out


def _params(folder: str):
    return [pytest.param(cap, exp, id=cap.name) for cap, exp in _cases(folder)]


def _read(p: Path) -> str:
    return p.read_text(encoding="utf-8")


#: folders of tests/data that are not parser captures (their own tests own them)
NOT_CAPTURES = {"logs", "adv57", "r2nvp", "lead23", "lead24", "lead17", "lead18", "resolver", "real", "fleet", "pastes", "github",
                "vendors", "snapshots", "drift", "jax-wheel-arch", "pins-attack28",
                "captures-runner", "attack29", "attack30", "captures-lead31", "attack37", "attack38", "attack39", "forms26", "attack40", "attack41", "facts29", "cpuonly29", "perm29", "pypi29", "env31", "mem31", "vis31", "arch31", "lib31", "inst32", "drv32", "vend32", "jetson32", "log_stamp", "amd33", "nv33", "edge33", "intel33", "caps33", "intel34", "res34", "amd35", "drv35", "attack47", "apple35", "intel35", "jetson35", "cudnn36", "misc36", "mem36", "perm37", "drvold37", "attack48", "nvrtc38", "jetson38", "tfcudnn38", "dml38", "apple38", "quiet38", "attack49", "pyarch39", "amdkm39", "newgpu39", "jetmem39", "tfgpu39", "macarch40", "amdigpu40", "pastes40", "newnv40", "cpu41", "vendor41", "jetctr41", "jetson42", "oldnv42", "nvpaste42", "amd42", "caps42", "apple42", "r2cont", "r2amd"}  # r2amd: test_r2amd.py; r2cont: test_r2cont.py; apple42: test_apple42.py; caps42: test_caps42.py; amd42: test_amd42.py; nvpaste42: test_nvpaste42.py; oldnv42: test_oldnv42.py; jetson42: test_jetson42.py; jetctr41: test_jetctr41.py; vendor41: test_vendor41.py; cpu41: test_cpu41.py; newnv40: test_newnv40.py; pastes40: test_pastes40.py; amdigpu40: test_amdigpu40.py; macarch40: test_macarch40.py; tfgpu39: test_tfgpu39.py; jetmem39: test_jetmem39.py; newgpu39: test_newgpu39.py; amdkm39: test_amdkm39.py; pyarch39: test_pyarch39.py; attack49: test_attack49.py; quiet38: test_quiet38.py; apple38: test_apple38.py; dml38: test_dml38.py; tfcudnn38: test_tfcudnn38.py; jetson38: test_jetson38.py; nvrtc38: test_nvrtc38.py; attack48: test_attack48.py; drvold37: test_drvold37.py; perm37: test_perm37.py; mem36: test_mem36.py; misc36: test_misc36.py; cudnn36: test_cudnn36.py; jetson35: test_jetson35.py; intel35: test_intel35.py; apple35: test_apple35.py; attack47: test_attack47.py; drv35: test_drv35.py; amd35: test_amd35.py; res34: test_res34.py; intel34: test_intel34.py; caps33: test_caps33.py; intel33: test_intel33.py; edge33: test_edge33.py; nv33: test_nv33.py; amd33: test_amd33.py; log_stamp: test_log_stamp.py;  # jetson32: test_jetson32.py; vend32: test_vend32.py; drv32: test_drv32.py; inst32: test_inst32.py; lib31: test_lib31.py; arch31: test_arch31.py; vis31: test_vis31.py; mem31: test_mem31.py; env31: test_env31.py; pypi29: test_pypi29.py; perm29: test_perm29.py; facts29: test_facts29.py; cpuonly29: test_cpuonly29.py; attack41: test_attack41.py; attack40: test_attack40.py; attack39: test_attack39.py; forms26: test_controls26.py; attack37/38: test_attack37.py, test_attack38.py; captures-lead31: test_lead31_forms.py; attack29/30: test_attack29.py, test_attack30.py; vendors/snapshots: test_vendors_*.py; drift: test_matrix_drift.py; jax-wheel-arch: test_jax_arch.py; captures-runner: test_runner_prefix.py


def test_every_capture_has_an_expect_file():
    for folder in DATA.iterdir():
        if not folder.is_dir() or folder.name in NOT_CAPTURES:
            continue
        for f in folder.iterdir():
            if f.name.endswith(".expect.json"):
                continue
            case = f.name.rsplit(".", 1)[0]
            assert (folder / (case + ".expect.json")).is_file(), f


def _mig(table: nvidia_smi.SmiTable) -> bool:
    return table.mig_devices > 0 or any(g.mig_enabled for g in table.gpus)


# --------------------------------------------------------------------------- nvidia-smi (table)

@pytest.mark.parametrize("cap, exp", _params("nvidia-smi"))
def test_nvidia_smi_table(cap, exp):
    t = nvidia_smi.parse_table(_read(cap))
    assert t.driver_version == exp["driver_version"]
    assert t.cuda_version == exp["cuda_version"]
    got = [{"index": g.index, "name": g.name, "memory_total_mib": g.memory_total_mib} for g in t.gpus]
    assert got == exp["gpus"]
    assert _mig(t) is exp["mig"]
    assert t.error == exp["error"]
    if exp["error"] is not None:
        assert t.error_line and t.error_line in _read(cap)
    if exp["gpus"]:
        # every GPU row carries its bus id
        assert all(g.bus_id and g.bus_id in _read(cap) for g in t.gpus)
    if "state" in exp:
        assert t.state == exp["state"]
    if "gpus_complete" in exp:
        assert t.gpus_complete is exp["gpus_complete"]
    if "faults" in exp:
        assert [f.bus_id for f in t.faults] + [g.bus_id for g in t.gpus if g.fault] == exp["faults"]
        # a faulty GPU's fault text is a line of the capture, never invented
        for text in [f.text for f in t.faults] + [g.fault for g in t.gpus if g.fault]:
            assert text and text in _read(cap)


def test_nvidia_smi_mig_device_count_from_capture():
    t = nvidia_smi.parse_table(_read(DATA / "nvidia-smi" / "570.148.08-a100-80gb-mig-4-devices.txt"))
    assert t.mig_devices == 4
    assert len(t.gpus) == 1
    assert t.gpus[0].mig_enabled is True


def test_nvidia_smi_mixed_mig_mode_per_gpu():
    t = nvidia_smi.parse_table(_read(DATA / "nvidia-smi" / "510.47.03-a100-mixed-mig-mode-partial.txt"))
    assert [g.mig_enabled for g in t.gpus] == [False, True]
    assert t.mig_devices == 0


def test_nvidia_smi_pre_mig_layout_has_no_mig_flag():
    t = nvidia_smi.parse_table(_read(DATA / "nvidia-smi" / "384.111-gtx1050-no-cuda-field.txt"))
    assert t.gpus[0].mig_enabled is None
    # the ERR! in the MIG M. cell is neither Enabled nor Disabled
    t = nvidia_smi.parse_table(_read(DATA / "nvidia-smi" / "418.67-colab-v100-smi-450.66-err.txt"))
    assert t.gpus[0].mig_enabled is None


WSL2_TABLE = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 510.60.02    Driver Version: 512.15       CUDA Version: 11.6     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA GeForce ...  On   | 00000000:01:00.0  On |                  N/A |
| N/A   50C    P8    13W /  N/A |   1171MiB /  8192MiB |     N/A      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""


def test_wsl2_driver_is_the_driver_version_field_not_the_smi_version():
    t = nvidia_smi.parse_table(WSL2_TABLE)
    assert t.smi_version == "510.60.02"
    assert t.driver_version == "512.15"
    assert t.cuda_version == "11.6"
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "NVIDIA GeForce ...", 8192)]


def test_wsl2_capture_smi_and_driver_versions_differ():
    t = nvidia_smi.parse_table(_read(DATA / "nvidia-smi" / "555.52.01-wsl2-rtx4070-laptop.txt"))
    assert (t.smi_version, t.driver_version) == ("555.52.01", "555.99")


OLD_TABLE_NO_CUDA = """\
Fri Apr 13 10:31:23 2018
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 390.48                 Driver Version: 390.48                    |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla K80           Off  | 00000000:00:1E.0 Off |                    0 |
| N/A   34C    P8    27W / 149W |      0MiB / 11441MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""


def test_old_table_without_cuda_version_field():
    t = nvidia_smi.parse_table(OLD_TABLE_NO_CUDA)
    assert t.driver_version == "390.48"
    assert t.smi_version == "390.48"
    assert t.cuda_version is None
    assert t.error is None
    assert [(g.index, g.name, g.memory_total_mib, g.bus_id) for g in t.gpus] == [
        (0, "Tesla K80", 11441, "00000000:00:1E.0")]


def test_cuda_version_na_and_err_give_none_but_keep_driver():
    na = OLD_TABLE_NO_CUDA.replace(
        "| NVIDIA-SMI 390.48                 Driver Version: 390.48                    |",
        "| NVIDIA-SMI 575.64.03    Driver Version: 575.64.03    CUDA Version: N/A      |")
    t = nvidia_smi.parse_table(na)
    assert (t.driver_version, t.cuda_version, len(t.gpus)) == ("575.64.03", None, 1)
    err = na.replace("CUDA Version: N/A ", "CUDA Version: ERR!")
    t = nvidia_smi.parse_table(err)
    assert (t.driver_version, t.cuda_version, len(t.gpus)) == ("575.64.03", None, 1)


PROCESSES_WITH_NA = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA A100-SXM4-40GB          On  | 00000000:07:00.0 Off |                    0 |
| N/A   31C    P0              60W / 400W |   4353MiB / 40960MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+

+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|        ID   ID                                                             Usage      |
|=======================================================================================|
|    0   N/A  N/A     12345      C   python                                     4340MiB |
|    0   N/A  N/A      2671      G   /usr/lib/xorg/Xorg                            4MiB |
+---------------------------------------------------------------------------------------+
"""


def test_processes_rows_with_na_are_not_gpus():
    t = nvidia_smi.parse_table(PROCESSES_WITH_NA)
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "NVIDIA A100-SXM4-40GB", 40960)]
    assert t.gpus[0].mig_enabled is False
    assert t.mig_devices == 0
    assert _mig(t) is False


MIG_TABLE = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  A100-SXM4-40GB      On   | 00000000:36:00.0 Off |                    0 |
| N/A   29C    P0    62W / 400W |     24MiB / 40536MiB |     N/A      Default |
|                               |                      |              Enabled |
+-------------------------------+----------------------+----------------------+

+-----------------------------------------------------------------------------+
| MIG devices:                                                                |
+------------------+----------------------+-----------+-----------------------+
| GPU  GI  CI  MIG |         Memory-Usage |        Vol|         Shared        |
|      ID  ID  Dev |           BAR1-Usage | SM     Unc| CE  ENC  DEC  OFA  JPG|
|                  |                      |        ECC|                       |
|==================+======================+===========+=======================|
|  0    1   0   0  |     11MiB / 20096MiB | 42      0 |  3   0    2    0    0 |
|                  |      0MiB / 32767MiB |           |                       |
+------------------+----------------------+-----------+-----------------------+
|  0    2   0   1  |     13MiB / 20096MiB | 42      0 |  3   0    2    0    0 |
|                  |      0MiB / 32767MiB |           |                       |
+------------------+----------------------+-----------+-----------------------+

+-----------------------------------------------------------------------------+
| Processes:                                                                  |
|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |
|        ID   ID                                                   Usage      |
|=============================================================================|
|  No running processes found                                                 |
+-----------------------------------------------------------------------------+
"""


def test_mig_device_rows_are_not_gpus():
    t = nvidia_smi.parse_table(MIG_TABLE)
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "A100-SXM4-40GB", 40536)]
    assert t.mig_devices == 2
    assert t.gpus[0].mig_enabled is True


def test_truncated_names_keep_the_ellipsis():
    t = nvidia_smi.parse_table(_read(DATA / "nvidia-smi" / "384.111-gtx1050-no-cuda-field.txt"))
    assert t.gpus[0].name == "GeForce GTX 105..."
    t = nvidia_smi.parse_table(_read(DATA / "nvidia-smi" / "545.46-wsl2-cuda-err.txt"))
    assert t.gpus[0].name == "NVIDIA GeForce RTX 3060 ..."
    assert t.gpus[0].name.endswith("...") and not t.gpus[0].name.endswith(" On")


def test_windows_wddm_mode_word_is_not_part_of_the_name():
    t = nvidia_smi.parse_table(_read(DATA / "nvidia-smi" / "531.14-windows-wddm-gtx1080ti.txt"))
    assert t.gpus[0].name == "NVIDIA GeForce GTX 1080 Ti"
    tcc = WSL2_TABLE.replace("NVIDIA GeForce ...  On   |", "Tesla T4           TCC  |")
    assert nvidia_smi.parse_table(tcc).gpus[0].name == "Tesla T4"


def test_no_devices_after_a_header_is_an_error():
    # a driver header that lists no GPU and says so
    text = OLD_TABLE_NO_CUDA.split("|-------")[0] + "No devices were found\n"
    t = nvidia_smi.parse_table(text)
    assert t.driver_version == "390.48"
    assert t.gpus == []
    assert t.error == nvidia_smi.NO_DEVICES


@pytest.mark.parametrize("text, kind", [
    ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that "
     "the latest NVIDIA driver is installed and running.\n", nvidia_smi.NO_DRIVER),
    ("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the "
     "NVIDIA Display Driver is properly installed and present in your system.\n", nvidia_smi.NO_DRIVER),
    ("Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.129\n",
     nvidia_smi.LIB_MISMATCH),
    ("No devices were found\n", nvidia_smi.NO_DEVICES),
    ("Failed to initialize NVML: Unknown Error\n", nvidia_smi.NVML_UNKNOWN),
    ("Unable to determine the device handle for GPU 0000:01:00.0: GPU is lost.  Reboot the system to "
     "recover this GPU\n", nvidia_smi.OTHER),
    ("Mon Jan  1 00:00:00 2024\n", None),
    ("", None),
])
def test_classify_error(text, kind):
    got, line = nvidia_smi.classify_error(text)
    assert got == kind
    if kind is None:
        assert line is None
    else:
        assert line and line in text and "\n" not in line


def test_error_line_is_the_matching_line():
    text = "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.144\n"
    t = nvidia_smi.parse_table(text)
    assert t.error_line == "Failed to initialize NVML: Driver/library version mismatch"
    assert t.driver_version is None and t.gpus == []


# --------------------------------------------------------------------------- nvidia-smi --query-gpu

@pytest.mark.parametrize("cap, exp", _params("nvidia-smi-query"))
def test_nvidia_smi_query_csv(cap, exp):
    q = nvidia_smi.parse_query_csv(_read(cap))
    got = [{"index": g.index, "name": g.name, "driver_version": g.driver_version,
            "compute_capability": g.compute_capability, "memory_total_mib": g.memory_total_mib}
           for g in q.gpus]
    assert got == exp["gpus"]
    if exp["error"] is None:
        assert q.error is None and q.error_line is None
    else:
        assert q.error is not None
        assert q.error_line == exp["error"]


QUERY_HEADER = "index, name, driver_version, compute_cap, memory.total [MiB]\n"


def test_query_csv_envcheck_layout():
    q = nvidia_smi.parse_query_csv(QUERY_HEADER + "0, NVIDIA A100-SXM4-40GB, 535.104.05, 8.0, 40960 MiB\n"
                                   "1, NVIDIA A100-SXM4-40GB, 535.104.05, 8.0, 40960 MiB\n")
    assert q.error is None
    got = [(g.index, g.name, g.driver_version, g.compute_capability, g.memory_total_mib) for g in q.gpus]
    assert got == [
        (0, "NVIDIA A100-SXM4-40GB", "535.104.05", "8.0", 40960),
        (1, "NVIDIA A100-SXM4-40GB", "535.104.05", "8.0", 40960)]


def test_query_csv_name_with_comma():
    q = nvidia_smi.parse_query_csv(QUERY_HEADER + "0, Graphics Device, Rev. A, 535.54.03, 9.0, 81559 MiB\n")
    assert len(q.gpus) == 1
    g = q.gpus[0]
    assert (g.index, g.name, g.driver_version, g.compute_capability, g.memory_total_mib) == (
        0, "Graphics Device, Rev. A", "535.54.03", "9.0", 81559)


def test_query_csv_na_and_not_supported_cells():
    q = nvidia_smi.parse_query_csv(QUERY_HEADER + "0, [N/A], 470.182.03, [Not Supported], [N/A]\n"
                                   "1, NVIDIA GeForce GTX 1080, [Unknown Error], N/A, "
                                   "[Insufficient Permissions]\n")
    a, b = q.gpus
    assert (a.index, a.name, a.driver_version, a.compute_capability, a.memory_total_mib) == (
        0, None, "470.182.03", None, None)
    assert (b.index, b.name, b.driver_version, b.compute_capability, b.memory_total_mib) == (
        1, "NVIDIA GeForce GTX 1080", None, None, None)


def test_query_csv_junk_values_are_dropped():
    q = nvidia_smi.parse_query_csv(QUERY_HEADER + "0, GPU, 5xx, eight, 1 MiB\n")
    g = q.gpus[0]
    assert (g.index, g.name, g.driver_version, g.compute_capability, g.memory_total_mib) == (
        0, "GPU", None, None, 1)
    # an index or a memory size nvidia-smi never prints ("x", "lots"): not a row of the CSV, not a GPU (issue 20:
    # prose after the rows, "Driver 610.88, CUDA UMD 13.3, ...", was read as one)
    assert nvidia_smi.parse_query_csv(QUERY_HEADER + "x, GPU, 5xx, eight, lots\n").gpus == []


def test_query_csv_non_ascii_digit_index_does_not_raise():
    # "²".isdigit() is True but int("²") raises
    q = nvidia_smi.parse_query_csv(QUERY_HEADER + "\u00b2, GPU, 535.104.05, 8.0, 1 MiB\n")
    assert [(g.index, g.name) for g in q.gpus] == [(None, "GPU")]


def test_query_csv_short_rows_are_skipped():
    q = nvidia_smi.parse_query_csv(QUERY_HEADER + "0, NVIDIA A100\n")
    assert q.gpus == [] and q.error is None


def test_query_csv_compute_cap_invalid_error():
    text = 'Field "compute_cap" is not a valid field to query.\n'
    q = nvidia_smi.parse_query_csv(text)
    assert q.gpus == []
    assert q.error == nvidia_smi.OTHER
    assert q.error_line == 'Field "compute_cap" is not a valid field to query.'


def test_query_csv_known_failures_are_classified():
    q = nvidia_smi.parse_query_csv("Failed to initialize NVML: Driver/library version mismatch\n")
    assert (q.gpus, q.error) == ([], nvidia_smi.LIB_MISMATCH)
    q = nvidia_smi.parse_query_csv("No devices were found\n")
    assert (q.gpus, q.error) == ([], nvidia_smi.NO_DEVICES)


def test_query_csv_header_only_is_no_error():
    q = nvidia_smi.parse_query_csv(QUERY_HEADER)
    assert q.gpus == [] and q.error is None


# --------------------------------------------------------------------------- nvcc

@pytest.mark.parametrize("cap, exp", _params("nvcc"))
def test_nvcc(cap, exp):
    info = nvcc.parse_nvcc(_read(cap))
    assert info is not None
    assert info.release == exp["release"]
    assert info.version == exp["version"]


def test_nvcc_not_nvcc():
    assert nvcc.parse_nvcc("bash: nvcc: command not found\n") is None
    assert nvcc.parse_nvcc("") is None
    assert nvcc.parse_nvcc(None) is None


def test_nvcc_release_without_v_number():
    # every real nvcc banner carries its V-number (CUDA 2.2-5.0: "V0.2.1221", quoted in public READMEs and mailing
    # lists; 5.5 on: the release's own, "V6.5.12"): a "release 6.5" alone is text that looks like it (attack32)
    assert nvcc.parse_nvcc("Cuda compilation tools, release 6.5\n") is None
    assert nvcc.parse_nvcc("Built on Thu_Mar__5_04:25:57_PST_2009\nCuda compilation tools, release 2.2, V0.2.1221\n"
                           ) == nvcc.NvccInfo(release="2.2", version="0.2.1221")


# --------------------------------------------------------------------------- /proc/driver/nvidia/version

@pytest.mark.parametrize("cap, exp", _params("proc-driver"))
def test_proc_driver(cap, exp):
    d = proc_driver.parse_proc_driver_version(_read(cap))
    if exp["driver_version"] is None:  # a Jetson's L4T release where the driver version would be: not one
        assert d is None
        return
    assert d is not None
    assert d.version == exp["driver_version"]
    assert d.kernel_module == exp["kernel_module"]
    assert d.arch == exp["arch"]


def test_proc_driver_aarch64_proprietary_format():
    text = "NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
    assert proc_driver.parse_proc_driver_version(text) == proc_driver.ProcDriver(
        version="535.104.05", kernel_module="proprietary", arch="aarch64")


def test_proc_driver_without_nvrm_line():
    assert proc_driver.parse_proc_driver_version("GCC version:  gcc version 12.3.0\n") is None
    assert proc_driver.parse_proc_driver_version(
        "cat: /proc/driver/nvidia/version: No such file or directory\n") is None


@pytest.mark.parametrize("text, want", [
    ("535.104.05\n", "535.104.05"), ("550.54.14", "550.54.14"), ("  570.86.15 \n", "570.86.15"),
    ("", None), ("N/A\n", None), ("535.104.05 extra\n", None), (None, None)])
def test_sys_module_version(text, want):
    assert proc_driver.parse_sys_module_version(text) == want


# --------------------------------------------------------------------------- ldconfig

def _tracked(entries, families):
    out = []
    for e in entries:
        lib = libraries.parse_library_path(e.path)
        if lib is not None and lib.family in families:
            out.append({"soname": e.soname, "path": e.path})
    return out


@pytest.mark.parametrize("cap, exp", _params("ldconfig"))
def test_ldconfig(cap, exp):
    text = _read(cap)
    entries = ldconfig.parse_ldconfig(text)
    # every "=>" line of the capture is an entry
    assert len(entries) == sum(1 for ln in text.splitlines() if "=>" in ln)
    families = set()
    for e in exp["entries"]:
        lib = libraries.parse_library_path(e["path"])
        assert lib is not None, e
        families.add(lib.family)
    assert _tracked(entries, families) == exp["entries"]
    assert all(e.flags == "libc6,x86-64" for e in entries)
    assert all(ldconfig.is_native(e, "x86_64") for e in entries)


def test_ldconfig_untracked_libraries_are_filtered():
    entries = ldconfig.parse_ldconfig(_read(DATA / "ldconfig" / "cudnn8-split-libs-cuda-lib64-grep.txt"))
    assert entries[0].soname == "libnvinfer_plugin.so.8"
    assert libraries.parse_library_path(entries[0].path) is None  # TensorRT is not tracked
    assert libraries.parse_library_path("/usr/local/cuda/lib64/libnvblas.so.11") is None


LDCONFIG_MULTIARCH = """\
1234 libs found in cache `/etc/ld.so.cache'
\tlibcuda.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so.1
\tlibcuda.so.1 (libc6) => /lib/i386-linux-gnu/libcuda.so.1
\tlibcuda.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so
\tlibcuda.so (libc6) => /lib/i386-linux-gnu/libcuda.so
\tlibc.so.6 (libc6,x86-64, OS ABI: Linux 3.2.0) => /lib/x86_64-linux-gnu/libc.so.6
\tlibnvidia-ml.so.1 (libc6,AArch64) => /lib/aarch64-linux-gnu/libnvidia-ml.so.1
"""


def test_ldconfig_flags_and_is_native():
    entries = ldconfig.parse_ldconfig(LDCONFIG_MULTIARCH)
    assert [e.soname for e in entries] == ["libcuda.so.1", "libcuda.so.1", "libcuda.so", "libcuda.so",
                                           "libc.so.6", "libnvidia-ml.so.1"]
    assert entries[1] == ldconfig.LdEntry("libcuda.so.1", "libc6", "/lib/i386-linux-gnu/libcuda.so.1")
    assert entries[4].flags == "libc6,x86-64, OS ABI: Linux 3.2.0"
    native = [e.path for e in entries if ldconfig.is_native(e, "x86_64")]
    assert native == ["/lib/x86_64-linux-gnu/libcuda.so.1", "/lib/x86_64-linux-gnu/libcuda.so",
                      "/lib/x86_64-linux-gnu/libc.so.6"]
    assert [e.path for e in entries if ldconfig.is_native(e, "aarch64")] == [
        "/lib/aarch64-linux-gnu/libnvidia-ml.so.1"]
    # unknown machine: keep everything
    assert all(ldconfig.is_native(e, None) for e in entries)


def test_ldconfig_path_with_trailing_spaces_and_junk_lines():
    entries = ldconfig.parse_ldconfig(
        "junk\n\tlibcudart.so.12 (libc6,x86-64) => /opt/a b/libcudart.so.12   \n")
    assert entries == [ldconfig.LdEntry("libcudart.so.12", "libc6,x86-64", "/opt/a b/libcudart.so.12")]
    assert ldconfig.parse_ldconfig("\tlibfoo.so (libc6) => relative/path\n") == []


# --------------------------------------------------------------------------- library file names

@pytest.mark.parametrize("path, family, component, major, version, suffix", [
    ("/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.2", "cudnn", "cudnn", 8, "8.9.2", (8, 9, 2)),
    ("/usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.8", "cudnn", "cudnn_ops_infer", 8, None, (8,)),
    ("/usr/local/cuda/lib64/libcudart.so.11.0", "cudart", "cudart", 11, None, (11, 0)),
    ("/site-packages/torch/lib/libcudart-9335f6a2.so.12", "cudart", "cudart", 12, None, (12,)),
    ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.104.05", "nvidia-ml", "nvidia-ml", None, "535.104.05",
     (535, 104, 5)),
    ("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "cuda", "cuda", None, None, (1,)),
    ("/usr/lib/x86_64-linux-gnu/libcudnn.so", "cudnn", "cudnn", None, None, ()),
    ("/usr/local/cuda/lib64/libcudart.so.12.1.105", "cudart", "cudart", 12, "12.1.105", (12, 1, 105)),
    ("/usr/local/cuda/lib64/libcublasLt.so.12", "cublas", "cublasLt", 12, None, (12,)),
    ("/x/libcudnn_engines_precompiled.so.9", "cudnn", "cudnn_engines_precompiled", 9, None, (9,)),
])
def test_parse_library_path(path, family, component, major, version, suffix):
    lib = libraries.parse_library_path(path)
    assert lib is not None
    assert lib.family == family
    assert lib.component == component
    assert lib.major == major
    assert lib.version == version
    assert lib.suffix == suffix
    assert lib.path == path
    assert lib.name == path.rsplit("/", 1)[1]
    assert lib.directory == path.rsplit("/", 1)[0]


@pytest.mark.parametrize("path", [
    "not-a-lib.txt", "/usr/lib/libfoo.so.1", "/usr/lib/libcudnn.so.8.txt", "/usr/lib/libcudnn.a",
    "/usr/lib/libcudart_static.a", "/usr/lib/libnvinfer.so.8", "", "/", "/usr/lib/libcudnn.so.8.x",
    "/usr/lib/libcudnn.so.1.2.3.4.5.6.7",
])
def test_parse_library_path_rejects(path):
    assert libraries.parse_library_path(path) is None


def test_parse_library_path_strips_whitespace():
    lib = libraries.parse_library_path("  /usr/lib/libcudart.so.12\n")
    assert lib is not None and lib.path == "/usr/lib/libcudart.so.12"


def test_parse_libraries_txt():
    text = "/usr/lib/libcudnn.so.8\n\n  /opt/x/libcudart.so.12  \nrelative/libcuda.so.1\n"
    assert libraries.parse_libraries_txt(text) == ["/usr/lib/libcudnn.so.8", "/opt/x/libcudart.so.12"]
    assert libraries.parse_libraries_txt("") == []
    assert libraries.parse_libraries_txt(None) == []


# --------------------------------------------------------------------------- cuDNN header

@pytest.mark.parametrize("cap, exp", _params("cudnn-header"))
def test_cudnn_header(cap, exp):
    assert cudnn_header.parse_cudnn_header(_read(cap)) == exp["version"]


def test_cudnn_header_partial_and_missing():
    assert cudnn_header.parse_cudnn_header("#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n") == "8.9"
    assert cudnn_header.parse_cudnn_header("#define CUDNN_MAJOR 8\n") == "8"
    assert cudnn_header.parse_cudnn_header("#define CUDNN_MINOR 9\n") is None
    assert cudnn_header.parse_cudnn_header("#define CUDNN_VERSION (CUDNN_MAJOR * 1000)\n") is None
    # only the first define of each counts
    assert cudnn_header.parse_cudnn_header(
        "#define CUDNN_MAJOR 7\n#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 5\n"
    ) == "7.6.5"


# --------------------------------------------------------------------------- CUDA toolkit version files

@pytest.mark.parametrize("cap, exp", _params("cuda-version"))
def test_cuda_version(cap, exp):
    text = _read(cap)
    if cap.suffix == ".json":
        assert cuda_version.parse_version_json(text) == exp["version"]
    else:
        # a quoted fragment of version.json (see tests/data/README.md): not a JSON document by itself;
        # put it back into an object the way it sits in the real file
        assert cuda_version.parse_version_json(text) in (None, exp["version"])
        wrapped = "{\n" + text.rstrip().rstrip(",") + "\n}\n"
        assert cuda_version.parse_version_json(wrapped) == exp["version"]


def test_cuda_version_json_junk():
    assert cuda_version.parse_version_json('{"cuda": {"version": "twelve"}}') is None
    assert cuda_version.parse_version_json('{"cuda": "12.1"}') is None
    assert cuda_version.parse_version_json('["cuda"]') is None
    assert cuda_version.parse_version_json("{") is None
    assert cuda_version.parse_version_json(None) is None


@pytest.mark.parametrize("text, want", [
    ("CUDA Version 10.2.89\n", "10.2.89"),
    ("CUDA Version 9.0.176\nCUDA Patch Version 9.0.176.1\nCUDA Patch Version 9.0.176.2\n", "9.0.176"),
    ("CUDA Version 8.0.61\r\n", "8.0.61"),
    ("CUDA Patch Version 9.0.176.1\n", None),
    ("CUDA Version N/A\n", None),
    ("", None),
])
def test_cuda_version_txt(text, want):
    assert cuda_version.parse_version_txt(text) == want


# --------------------------------------------------------------------------- framework build files

@pytest.mark.parametrize("cap, exp", _params("tf-build-info"))
def test_tf_build_info(cap, exp):
    info = pyfiles.parse_tf_build_info_py(_read(cap))
    assert info, "no build info parsed"
    for k, v in exp.items():
        assert info.get(k) == v, k
    assert all(isinstance(k, str) for k in info)


def test_tf_build_info_dict_call_form():
    text = "build_info = dict(cuda_version='11.2', cudnn_version='8', is_cuda_build=True)\n"
    assert pyfiles.parse_tf_build_info_py(text) == {"cuda_version": "11.2", "cudnn_version": "8",
                                                    "is_cuda_build": True}


@pytest.mark.parametrize("cap, exp", _params("torch-version"))
def test_torch_version(cap, exp):
    info = pyfiles.parse_torch_version_py(_read(cap))
    for k, v in exp.items():
        assert k in info, k
        assert info[k] == v, k
    assert isinstance(info.get("git_version"), str) and len(info["git_version"]) == 40


def test_torch_version_not_executed_and_tolerant():
    text = "import os\nos.system('false')\n__version__ = '2.0.0'\ncuda = get_cuda()\nhip = 3\n"
    assert pyfiles.parse_torch_version_py(text) == {"version": "2.0.0"}
    assert pyfiles.parse_torch_version_py("def broken(:\n") == {}


# --------------------------------------------------------------------------- small captures

def test_parse_os_release():
    text = ('PRETTY_NAME="Ubuntu 22.04.3 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\n'
            "ID_LIKE=debian\n# comment\nBAD LINE\nVERSION_CODENAME='jammy'\n")
    d = captures.parse_os_release(text)
    assert d == {"PRETTY_NAME": "Ubuntu 22.04.3 LTS", "NAME": "Ubuntu", "VERSION_ID": "22.04", "ID": "ubuntu",
                 "ID_LIKE": "debian", "VERSION_CODENAME": "jammy"}
    assert captures.parse_os_release(None) == {}


@pytest.mark.parametrize("text, want", [
    ("Linux version 5.15.146.1-microsoft-standard-WSL2 (root@65c757a075e2) (gcc (GCC) 11.2.0, GNU ld (GNU "
     "Binutils) 2.37) #1 SMP Thu Jan 11 04:09:03 UTC 2024\n", "WSL2"),
    ("Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) ) "
     "#1237-Microsoft Sat Sep 11 14:32:00 PST 2021\n", "WSL1"),
    ("Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) (x86_64-linux-gnu-gcc-13 (Ubuntu "
     "13.2.0-23ubuntu4) 13.2.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #45-Ubuntu SMP PREEMPT_DYNAMIC\n",
     None),
    ("", None),
    (None, None),
])
def test_is_wsl(text, want):
    assert captures.is_wsl(text) == want


def test_load_json_object():
    assert captures.load_json_object('{"a": 1}') == {"a": 1}
    assert captures.load_json_object("[1]") is None
    assert captures.load_json_object("{") is None
    assert captures.load_json_object("") is None
    assert captures.load_json_object(None) is None
