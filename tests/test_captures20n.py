"""More texts users put where nvidia-smi's output goes (issue 20, captures20n; contract §1): the kernel module's
``cat /proc/driver/nvidia/version``, ``glxinfo`` of NVIDIA's OpenGL driver and ``lshw -C display``, each read for
what it makes certain and nothing more. The captures are real (tests/data/captures20n, cited in tests/data/README.md);
their labels were written by hand from the text before the readers (heldout/captures20n holds the part held back).
The texts of the negative cases below are real too (find_string ids given beside each)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest
from helpers import check_smi_form_reads_as_expected, expect_text

from envcheck.parse import gpu_listers, nvidia_smi
from envcheck.parse.gpu_listers import glxinfo, lshw, proc_version

DATA = Path(__file__).parent / "data" / "captures20n"


def _cases():
    return [pytest.param(p, id=p.name[: -len(".expect.json")]) for p in sorted(DATA.glob("*.expect.json"))]


_text = expect_text


def _read(name: str) -> str:
    return (DATA / f"{name}.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("exp_path", _cases())
def test_read_by_content(exp_path):
    t, _ = check_smi_form_reads_as_expected(exp_path)  # nvidia-smi is not what ran: its state stays unknown
    assert t.note  # what the form does not tell is said (the report's not-checked note)


@pytest.mark.parametrize("exp_path", _cases())
def test_truncated_reads_only_what_the_whole_says(exp_path):
    """A paste cut after any line reads a part of what the whole text says, never something else, and never a
    whole GPU list."""
    text = _text(exp_path)
    whole = nvidia_smi.parse_smi(text)
    lines = text.splitlines(keepends=True)
    for n in range(1, len(lines)):
        part = nvidia_smi.parse_smi("".join(lines[:n]))
        assert part.state is None and not part.gpus_complete, n
        if part.form != whole.form:
            assert part.form in ("unrecognised", None) or not part.gpus, (n, part.form)
            continue
        assert part.driver_version in (None, whole.driver_version), n
        assert {(g.index, g.name) for g in part.gpus} <= {(g.index, g.name) for g in whole.gpus}, n


def test_registry_holds_the_new_forms():
    assert {"/proc/driver/nvidia/version", "glxinfo", "lshw"} <= set(gpu_listers.FORMS)
    assert gpu_listers.FORMS == nvidia_smi.LISTER_FORMS
    # the version file is asked before the /proc information files it reads itself (its cards pasted below it)
    assert gpu_listers.FORMS.index("/proc/driver/nvidia/version") < gpu_listers.FORMS.index("/proc/driver/nvidia/gpus")


# ----------------------------------------------------------------------------------- /proc/driver/nvidia/version

def test_open_and_proprietary_module_lines():
    # nv-procfs.c's two formats (real lines: find_string ids 43554159245, 57061728019)
    opn = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
           "(dvs-builder@U22-I3-B17-02-5)  Tue Sep 23 09:55:41 UTC 2025\nGCC version:  gcc version 11.4.0\n")
    assert nvidia_smi.parse_smi(opn).driver_version == "580.95.05"
    prop = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  177.80  Wed Oct  1 14:43:46 PDT 2008\n"
    assert proc_version.read(prop).driver_version == "177.80"


def test_jetson_module_line_is_its_l4t_release_not_a_driver():
    # a Jetson's module names its L4T release (small_forms describes it; it is no driver branch)
    text = ("NVRM version: NVIDIA UNIX Kernel Module for aarch64  34.1.1  Release Build  (buildbrain@mobile-u64-5414-d7000)"
            "  Mon May 16 21:12:24 PDT 2022\n")
    assert proc_version.read(text) is None
    t = nvidia_smi.parse_smi(text)
    assert (t.form, t.driver_version) == ("unrecognised", None) and "L4T" in (t.note or "")


def test_container_cli_nvrm_line_stays_its_own_form():
    # nvidia-container-cli info's "NVRM version:   525.85.12" (no "Kernel Module") is that tool's form
    t = nvidia_smi.parse_smi(_read_20m("ncc-525.85.12-rtx3060-bare"))
    assert t.form == "nvidia-container-cli info"


def test_kernel_log_loading_line_is_not_the_version_file():
    # "NVRM: loading ..." (dmesg) is the module loaded at that boot, not necessarily the running one
    text = "[    6.852458] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:01 UTC 2024\n"
    t = nvidia_smi.parse_smi(text)
    assert (t.form, t.driver_version) == ("unrecognised", None)


def test_table_beside_the_version_file_is_read_as_the_table():
    # the real H100 capture of this project: the table names the driver and the GPUs, it wins
    table = next((Path(__file__).parent / "data" / "real").glob("h100-*/captures/nvidia-smi.txt")).read_text()
    t = nvidia_smi.parse_smi(_read("pv-418.56-indented-fence-zh") + "\n" + table)
    assert t.form == "table" and t.driver_version != "418.56"


def _read_20m(name: str) -> str:
    return (Path(__file__).parent / "data" / "captures20m" / f"{name}.txt").read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------------------------- glxinfo

@pytest.mark.parametrize("text", [
    # Mesa's software renderer (find_string id 57069065605) and nouveau's failed load (id 3268085890)
    "OpenGL vendor string: Mesa\nOpenGL renderer string: llvmpipe (LLVM 20.1.2, 256 bits)\n",
    "libGL error: failed to load driver: nouveau\nserver glx vendor string: SGI\nclient glx vendor string: Mesa Project "
    "and SGI\nOpenGL vendor string: Mesa Project\n",
    # fglrxinfo of Mesa's indirect GLX (id 56697660310)
    "display: :0.0  screen: 0\nOpenGL vendor string: Mesa project: www.mesa3d.org\nOpenGL renderer string: Mesa GLX "
    "Indirect\nOpenGL version string: 1.2 (1.5 Mesa 6.4.1)\n",
])
def test_glxinfo_of_another_driver_is_not_read(text):
    assert glxinfo.read(text) is None
    t = nvidia_smi.parse_smi(text)
    assert (t.form, t.driver_version, t.gpus) == ("unrecognised", None, [])


def test_glxinfo_version_is_the_drivers_not_opengls():
    # "4.6.0" is OpenGL's; the driver's version follows "NVIDIA" (ES: "OpenGL ES 3.2 NVIDIA 470.82.01")
    t = glxinfo.read("OpenGL ES profile version string: OpenGL ES 3.2 NVIDIA 470.82.01\n")
    assert t is not None and t.driver_version == "470.82.01" and t.gpus == ()
    assert glxinfo.read("OpenGL renderer string: NVIDIA GeForce RTX 3060/PCIe/SSE2\n") is None  # no NVIDIA GL named


# ---------------------------------------------------------------------------------------------------------- lshw

def test_lshw_nvidia_ram_controller_is_no_gpu():
    t = lshw.read(_read("lshw-gt750m-then-intel-forum"))
    assert t is not None and [g.name for g in t.gpus] == ["GeForce GT 750M"] and t.driver_loaded
    # a whole lshw: the nForce chipset's NVIDIA "RAM memory" node and HDMI audio are not display nodes
    text = ("     *-memory:9 UNCLAIMED\n          description: RAM memory\n          product: MCP51 Host Bridge\n"
            "          vendor: NVIDIA Corporation\n")
    assert lshw.read(text) is None


def test_lshw_nouveau_is_not_nvidias_driver():
    # two GPUs bound to nouveau (find_string id 57018481193, cut): listed, the driver is not NVIDIA's
    text = ("lubuntu@lubuntu:~$ sudo lshw -C video\n  *-display               \n       description: VGA compatible "
            "controller\n       product: G86 [Quadro NVS 290]\n       vendor: NVIDIA Corporation\n       physical id: 0\n"
            "       bus info: pci@0000:01:00.0\n       configuration: driver=nouveau latency=0\n  *-display\n"
            "       description: VGA compatible controller\n       product: GT216 [GeForce GT 220]\n"
            "       vendor: NVIDIA Corporation\n       bus info: pci@0000:20:00.0\n"
            "       configuration: driver=nouveau latency=0\n")
    got = lshw.read(text)
    assert got is not None and not got.driver_loaded and "nouveau" in (got.note or "")
    assert [(g.index, g.name, g.bus_id) for g in got.gpus] == [(0, "Quadro NVS 290", "0000:01:00.0"),
                                                              (1, "GeForce GT 220", "0000:20:00.0")]
    t = nvidia_smi.parse_smi(text)
    assert (t.form, t.driver_loaded, t.driver_version, t.gpus_complete) == ("lshw", False, None, False)


# ------------------------------------------------------------------------------------- the report (real CLI run)

def _status(tmp_path: Path, text: str) -> Dict[str, Any]:
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "nvidia-smi.txt").write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", str(snap)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def _note(rep: Dict[str, Any]) -> str:
    notes = [f["message"] for f in rep["findings"] if f["id"] == "not-checked" and f["message"].startswith("nvidia-smi.txt ")]
    assert notes
    return notes[0]


def test_snapshot_version_file_is_the_loaded_driver(tmp_path):
    rep = _status(tmp_path, _read("pv-open-595.71.05-single-space-text-fence"))
    d = rep["driver"]
    assert (d["version"], d["source"], d["nvidia_smi"], d["nvidia_smi_form"]) == (
        "595.71.05", "/proc/driver/nvidia/version", None, "/proc/driver/nvidia/version")
    assert rep["gpus"] is None and rep["gpus_known"] is False  # no list: unknown, not none
    assert "no-gpu-driver" not in [f["id"] for f in rep["findings"]] and "lists no GPU" in _note(rep)


def test_snapshot_glxinfo(tmp_path):
    rep = _status(tmp_path, _read("glx-535.179-rtx2060-grep-opengl-zh"))
    assert (rep["driver"]["version"], rep["driver"]["nvidia_smi_form"]) == ("535.179", "glxinfo")
    assert [g["name"] for g in rep["gpus"]] == ["NVIDIA GeForce RTX 2060"] and rep["gpus_known"] is False
    assert not [f for f in rep["findings"] if f["severity"] in ("error", "warning")]


def test_snapshot_lshw_nouveau_says_no_driver_state(tmp_path):
    text = ("  *-display\n       description: VGA compatible controller\n       product: GP107 [GeForce GTX 1050 Ti]\n"
            "       vendor: NVIDIA Corporation\n       bus info: pci@0000:01:00.0\n"
            "       configuration: driver=nouveau latency=0\n")  # find_string id 56763394781 (cut)
    rep = _status(tmp_path, text)
    ids = [f["id"] for f in rep["findings"]]
    assert "no-gpu-driver" not in ids and rep["driver"]["version"] is None and rep["driver"]["nvidia_smi"] is None
    assert [g["name"] for g in rep["gpus"]] == ["GeForce GTX 1050 Ti"] and "nouveau" in _note(rep)


def _explain_facts(path: Path) -> Dict[str, Any]:
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", str(path)],
                       capture_output=True, text=True, timeout=120)
    return json.loads(r.stdout).get("facts") or {}


def test_paste_glxinfo_facts():
    f = _explain_facts(DATA / "glx-460.91.03-rtx2060-bold-arrow-sr.txt")
    assert f["driver"]["version"] == "460.91.03"
    assert [(g["index"], g["name"]) for g in f["gpus"]] == [(0, "GeForce RTX 2060")]


def test_paste_glxinfo_beside_a_table_adds_no_gpu(tmp_path):
    """glxinfo's renderer is the GPU of the X screen, not an index: beside nvidia-smi's table it adds no GPU."""
    table = next((Path(__file__).parent / "data" / "real").glob("h100-*/captures/nvidia-smi.txt"))
    paste = tmp_path / "paste.txt"
    paste.write_text(table.read_text(encoding="utf-8") + "\n$ glxinfo | grep -i opengl\n"
                     + _read("glx-610.43.02-rtx3090-aligned-vendor-container"), encoding="utf-8")
    names = [g["name"] for g in _explain_facts(paste)["gpus"]]
    assert names == [g.name for g in nvidia_smi.parse_smi(table.read_text(encoding="utf-8")).gpus]


@pytest.mark.parametrize("folder", ["captures20n", "captures20n-r2", "captures20n-r3", "captures20n-r4"])
def test_every_capture_is_cited(folder):
    readme = (Path(__file__).parent / "data" / "README.md").read_text(encoding="utf-8")
    section = readme.split(f"## {folder}/", 1)[1].split("\n## ", 1)[0]
    files = sorted((Path(__file__).parent / "data" / folder).glob("*.txt"))
    assert files
    for p in files:
        assert f"`{p.name}`" in section, p.name


# ------------------------------------------------------------------- nvidia-smi's own common forms (second draw)

R2 = Path(__file__).parent / "data" / "captures20n-r2"


@pytest.mark.parametrize("exp_path", [pytest.param(p, id=p.name[: -len(".expect.json")])
                                      for p in sorted(R2.glob("*.expect.json"))])
def test_common_forms_second_draw(exp_path):
    """GB10 tables of R580, -q / -a of R535-R575, the version-mismatch error (real, cited in tests/data/README.md):
    read right by the readers as they were before this batch (the draw measured them; no rule was written from it)."""
    exp = json.loads(exp_path.read_text(encoding="utf-8"))
    t = nvidia_smi.parse_smi(exp_path.with_name(exp_path.name[: -len(".expect.json")] + ".txt").read_text(encoding="utf-8"))
    assert (t.form, t.state, t.driver_version, t.cuda_version) == (exp["form"], exp["state"], exp["driver_version"],
                                                                   exp["cuda_version"])
    assert [{"index": g.index, "name": g.name, "memory_total_mib": g.memory_total_mib} for g in t.gpus] == exp["gpus"]
    assert bool(t.gpus_complete) is exp["gpus_complete"] and any(bool(g.mig_enabled) for g in t.gpus) is exp["mig"]


# ---------------------------------------------------------------------------------------------- nvidia-smi vgpu

# `nvidia-smi vgpu` on a vGPU host (find_string id 1541780164): the physical GPU's row, a vGPU's row under it
VGPU = """nvidia-smi vgpu
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.147.01             Driver Version: 525.147.01                |
|---------------------------------+------------------------------+------------+
| GPU  Name                       | Bus-Id                       | GPU-Util   |
|      vGPU ID     Name           | VM ID     VM Name            | vGPU-Util  |
|=================================+==============================+============|
|   0  NVIDIA GeForce RTX 408...  | 00000000:01:00.0             |   0%       |
|      3251634190  NVIDIA RTXA... | f267...  win10test,debug-... |      0%    |
+---------------------------------+------------------------------+------------+
"""


def test_vgpu_table_is_a_host_driver_without_cuda():
    t = nvidia_smi.parse_smi(VGPU)
    assert (t.form, t.state, t.driver_version, t.cuda_version) == ("table", "ok", "525.147.01", None)
    assert [(g.index, g.name) for g in t.gpus] == [(0, "NVIDIA GeForce RTX 408...")]  # the vGPU row is no GPU
    assert t.cuda_unavailable == nvidia_smi.VGPU_HOST


def test_snapshot_vgpu_table_derives_no_cuda(tmp_path):
    """A vGPU host driver runs no CUDA itself: its CUDA is unknown, never derived from the driver's branch."""
    rep = _status(tmp_path, VGPU)
    assert (rep["driver"]["version"], rep["driver"]["cuda"], rep["driver"]["cuda_source"]) == ("525.147.01", None, None)
    assert "vGPU host" in _note(rep)


# -------------------------------------------------------- other tools' outputs in nvidia-smi's place: said, not read

@pytest.mark.parametrize("text,said", [
    # nvcc -V after the version file (find_string id 26185437064)
    ("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2018 NVIDIA Corporation\nBuilt on Sat_Aug_25_21:08:01_"
     "CDT_2018\nCuda compilation tools, release 10.0, V10.0.130\n", "toolkit 10.0"),
    # cat /usr/local/cuda/version.txt (find_string id 46352814094)
    ("   $ cat /usr/local/cuda/version.txt\n   CUDA Version 10.0.130\n", "CUDA 10.0.130"),
    # nvidia-smi dmon's header (find_string id 55216552280)
    ("# gpu   pwr  gtemp  mtemp   sm   mem   enc   dec   mclk   pclk\n", "dmon"),
    # nvidia-smi -h (find_string ids 2315486187, 18272506200: R535, R367 behind a prompt)
    ("nvidia-smi -h\n\nNVIDIA System Management Interface -- v535.104.05\n\nNVSMI provides monitoring information for "
     "Tesla and select Quadro devices.\n", "nvidia-smi 535.104.05"),
    ("    [simon@localhost opticks]$ nvidia-smi -h\n    NVIDIA System Management Interface -- v367.48\n", "needs no"),
    # nvidia-smi vgpu without vGPU support (find_string id 35997175007)
    ("No supported devices in vGPU mode\n", "vGPU mode"),
    # dpkg -l | grep nvidia (find_string id 57124218386)
    ("ii  nvidia-dkms-550                            550.107.02-0ubuntu0~gpu22.04.1                    amd64        NVIDIA "
     "DKMS package\nii  nvidia-driver-550                          550.107.02-0ubuntu0~gpu22.04.1                    amd64"
     "        NVIDIA driver metapackage\n", "package 550.107.02"),
])
def test_other_tools_are_described_not_read(text, said):
    t = nvidia_smi.parse_smi(text)
    assert (t.form, t.state, t.driver_version, t.gpus) == ("unrecognised", None, None, [])
    assert said in (t.note or ""), t.note


def test_topo_and_tegrastats_are_described():
    data = Path(__file__).parent / "data"
    topo = nvidia_smi.parse_smi((data / "captures20h" / "topo-m-4x-h100-nv18-8-nics-alone.txt").read_text(encoding="utf-8"))
    assert topo.form == "unrecognised" and "topo -m" in (topo.note or "")
    line = (data / "nvidia-smi-forms" / "unknown-tegrastats-line.txt").read_text(encoding="utf-8")
    assert "tegrastats" in (nvidia_smi.parse_smi(line).note or "")


# ------------------------------------------------------------------------------------- Jetson (third draw)

R3 = Path(__file__).parent / "data" / "captures20n-r3"


@pytest.mark.parametrize("exp_path", [pytest.param(p, id=p.name[: -len(".expect.json")])
                                      for p in sorted(R3.glob("*.expect.json"))])
def test_jetson_third_draw(exp_path):
    """jetson_release (jetson-stats 4.2-4.3), /etc/nv_tegra_release and a Jetson Thor's table (real, cited in
    tests/data/README.md), each read by the reader of the file it was put in."""
    from envcheck.parse.tegra import parse_jetson_release, parse_tegra_release

    exp = json.loads(exp_path.read_text(encoding="utf-8"))
    text = exp_path.with_name(exp_path.name[: -len(".expect.json")] + ".txt").read_text(encoding="utf-8")
    if exp["_file"] == "jetson-release.txt":
        got = parse_jetson_release(text)
        assert got is not None and got.l4t == exp["l4t"]
        assert {"jetpack": got.jetpack, "model": got.model, "cuda": got.cuda, "cudnn": got.cudnn,
                "tensorrt": got.tensorrt} == exp["jetson"]
    elif exp["_file"] == "tegra-release.txt":
        assert parse_tegra_release(text) == exp["l4t"]
    else:
        t = nvidia_smi.parse_smi(text)
        assert (t.form, t.state, t.driver_version, t.cuda_version, t.gpus_complete) == (
            "table", "ok", exp["driver_version"], exp["cuda_version"], True)
        assert [(g.name, g.memory_total_mib) for g in t.gpus] == [("NVIDIA Thor", None)]  # unified memory: unknown


def test_jetson_release_bulletless_libraries_only_under_its_header():
    """An abridged jetson_release ("  CUDA: 11.4.315" without a bullet) is read under the tool's own Model / Jetpack
    line; the same bare lines without it are no jetson_release."""
    from envcheck.parse.tegra import parse_jetson_release

    libs = "  CUDA: 11.4.315\n  cuDNN: 8.6.0.166\n  TensorRT: 8.5.2.2\n"
    assert parse_jetson_release(libs) is None
    got = parse_jetson_release("  Model: Jetson AGX Orin Developer Kit - Jetpack 5.1.2 [L4T 35.4.1]\n" + libs)
    assert got is not None and (got.cuda, got.cudnn, got.tensorrt) == ("11.4.315", "8.6.0.166", "8.5.2.2")


# ------------------------------------------------ the kernel module's line beside nvidia-smi's own output or error

def test_mismatch_with_the_module_line_names_the_loaded_driver(tmp_path):
    """Threads on "Driver/library version mismatch" ask for `cat /proc/driver/nvidia/version` beside it: pasted
    together, the module's line is the loaded driver (composed from two real texts: the error of find_string id
    65963487480, the module line of id 43554159245)."""
    text = ("$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\nNVML library version: 580.173\n"
            "$ cat /proc/driver/nvidia/version\nNVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release "
            "Build  (dvs-builder@U22-I3-B17-02-5)  Tue Sep 23 09:55:41 UTC 2025\n")
    t = nvidia_smi.parse_smi(text)
    assert (t.form, t.state, t.kernel_version, t.kernel_module) == ("error", "driver-library-mismatch", "580.95.05",
                                                                    "open")
    rep = _status(tmp_path, text)
    d = rep["driver"]
    assert (d["version"], d["source"], d["kernel_module"]) == ("580.95.05", "/proc/driver/nvidia/version", "open")
    mismatch = [f for f in rep["findings"] if f["id"] == "driver-library-mismatch"]
    assert mismatch and "580.95.05" in mismatch[0]["message"]


def test_no_module_line_no_kernel_version():
    t = nvidia_smi.parse_smi("Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.90\n")
    assert (t.kernel_version, t.kernel_module) == (None, None)
    # a Jetson's module line names its L4T release: no kernel driver version from it
    jet = nvidia_smi.parse_smi("NVRM version: NVIDIA UNIX Kernel Module for aarch64  34.1.1  Release Build\n")
    assert jet.kernel_version is None


def test_paste_module_line_behind_comment_marks():
    # a note that shows each output behind "## " (real: pv-515.76-hash-comment-output-zh.txt)
    f = _explain_facts(DATA / "pv-515.76-hash-comment-output-zh.txt")
    assert f["driver"]["version"] == "515.76" and f["gpus"] == []


# --------------------------------------------------------------------------------- nvidia-debugdump (fourth draw)

R4 = Path(__file__).parent / "data" / "captures20n-r4"


@pytest.mark.parametrize("exp_path", [pytest.param(p, id=p.name[: -len(".expect.json")])
                                      for p in sorted(R4.glob("*.expect.json"))])
def test_debugdump(exp_path):
    exp = json.loads(exp_path.read_text(encoding="utf-8"))
    text = exp_path.with_name(exp_path.name[: -len(".expect.json")] + ".txt").read_text(encoding="utf-8")
    t = nvidia_smi.parse_smi(text)
    assert (t.form, t.state, t.driver_version, t.driver_loaded) == ("nvidia-debugdump", None, None, True)
    assert [{"index": g.index, "name": g.name, "memory_total_mib": g.memory_total_mib} for g in t.gpus] == exp["gpus"]
    assert bool(t.gpus_complete) is exp["gpus_complete"]
    lines = text.splitlines(keepends=True)
    for n in range(1, len(lines)):  # cut anywhere: a part of the list, never said whole unless all of it is there
        part = nvidia_smi.parse_smi("".join(lines[:n]))
        assert {(g.index, g.name) for g in part.gpus} <= {(g.index, g.name) for g in t.gpus}, n
        assert not part.gpus_complete or [g.name for g in part.gpus] == [g.name for g in t.gpus], n


def test_debugdump_count_above_the_devices_shown_is_a_part():
    # "Found 2" with one device block shown (the second cut off): not the whole list
    text = ("Found 2 NVIDIA devices\n    Device ID:              0\n    Device name:            Tesla P4\n"
            "    GPU internal ID:        0421818006236\n")
    t = nvidia_smi.parse_smi(text)
    assert t.form == "nvidia-debugdump" and [g.name for g in t.gpus] == ["Tesla P4"] and t.gpus_complete is False


def test_paste_debugdump_facts():
    f = _explain_facts(R4 / "dd-windows-nvdebugdump-lambda-prompt-zh.txt")
    assert f["driver"]["version"] is None and [(g["index"], g["name"]) for g in f["gpus"]] == [(0, "GeForce RTX 2060")]
