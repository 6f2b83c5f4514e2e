"""More readers of contract §9 captures, on real outputs (tests/data/vendors, cited in tests/data/README.md):
jetson-stats' ``jetson_release`` (2.x to 4.x), rocm-smi's ``Device [Model : Revision]`` concise table, rocm-smi
``-a`` (driver version and ids), clinfo on AMD, ``amd-smi list`` as a GPU count. The expected values were
written by hand from each capture; the held-out sets under heldout/vendors6/ are scored by
scripts/score_vendors6.py."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import fixture, make_snapshot

from envcheck.environment import collect
from envcheck.matrix import load_matrix
from envcheck.parse.intel import clinfo_amd_gpus
from envcheck.parse.rocm_smi import parse_rocm_smi, parse_rocm_smi_driver, physical
from envcheck.parse.tegra import parse_jetson_release
from envcheck.probe.live import LiveSource
from envcheck.snapshot import open_snapshot

DATA = Path(__file__).parent / "data" / "vendors"
JR = DATA / "jetson-release"


def _jr_cases():
    return [pytest.param(p, id=p.name[: -len(".expect.json")]) for p in sorted(JR.glob("*.expect.json"))]


@pytest.mark.parametrize("exp_path", _jr_cases())
def test_jetson_release_real_outputs(exp_path):
    exp = json.loads(exp_path.read_text())
    text = exp_path.with_name(exp_path.name[: -len(".expect.json")] + ".txt").read_text()
    r = parse_jetson_release(text)
    assert r is not None
    assert {k: getattr(r, k) for k in exp} == exp


def test_jetson_release_every_sample_has_an_expectation():
    assert len(list(JR.glob("*.txt"))) == len(_jr_cases()) >= 10


@pytest.mark.parametrize("text", ["", "NAME=Ubuntu\n", " - Model: x\n", "Jetpack 4.6 [L4T 32.6.1", "x" * 100000,
                                  " - CUDA GPU architecture 5.3\n"])
def test_jetson_release_not_that_tool(text):
    assert parse_jetson_release(text) is None


def test_jetson_release_long_line_is_linear():
    # a 200 KB line of the shape the regexes look for is skipped, not backtracked over
    text = "Model: " + "a - " * 50000 + "\n - L4T: 36.4.3\n"
    assert parse_jetson_release(text).l4t == "36.4.3"


# -- rocm-smi: the concise table of 5.7 to 6.1 ----------------------------------------------------------------
def test_rocm_smi_model_revision_hex_name_is_the_device_id():
    r = parse_rocm_smi((DATA / "rocm-smi" / "concise-model-revision-name-hex-0x744c.txt").read_text())
    assert r.form == "concise"
    # [0x5200 : 0xc8] is the subsystem id and revision: never taken for the device id
    assert [(g.index, g.name, g.device_id) for g in r.gpus] == [(0, None, "0x744c")]


def test_rocm_smi_model_revision_names_and_partitions():
    r = parse_rocm_smi((DATA / "rocm-smi" / "concise-model-revision-8x-mi300x-grok.txt").read_text())
    assert [g.index for g in r.gpus] == list(range(8))
    assert {g.name for g in r.gpus} == {"AMD Instinct MI300X"} and {g.device_id for g in r.gpus} == {None}
    phys, mode = physical(r.gpus, r.partitions)
    assert len(phys) == 8 and mode is None  # SPX: not partitioned


def test_rocm_smi_model_revision_name_cut_at_20_chars():
    r = parse_rocm_smi((DATA / "rocm-smi" / "concise-model-revision-2x-mi200-name-cut-rocm3364.txt").read_text())
    assert [g.name for g in r.gpus] == ["AMD INSTINCT MI200", "AMD INSTINCT MI200"]


@pytest.mark.parametrize("name,driver,dev,bus", [
    ("showall-5.x-driver-6.1.5-gpuid-0x164e-traceback-rocm2410.txt", "6.1.5", "0x164e", None),
    ("showall-4.1-vega10-driver-5.9.15-card-model-hex-head.txt", "5.9.15", "0x687f", "0000:43:00.0"),
])
def test_rocm_smi_showall_driver_line_and_ids(name, driver, dev, bus):
    text = (DATA / "rocm-smi" / name).read_text()
    r = parse_rocm_smi(text)
    assert r.driver == driver
    # the "Version of System Component" section is what `rocm-smi --showdriverversion` prints alone
    head = text[: text.index("=== ID ===") if "=== ID ===" in text else text.index(" ID ")]
    assert parse_rocm_smi_driver(head) == driver
    assert [(g.device_id, g.bus_id, g.name) for g in r.gpus] == [(dev, bus, None)]  # "Card model: 0x2387": no name


# -- clinfo on AMD ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,want", [
    ("amd-app-vega64-gfx900-xnack-hashcat2800.txt", [("Vega 10 XL/XT [Radeon RX Vega 56/64]", "gfx900", None, None)]),
    ("ocl-icd-rx580-gfx803-clr97-cut.txt", [("AMD Radeon RX 580 Series", "gfx803", "0x67df", "0000:01:00.0")]),
    # Mesa's Clover platform lists the same card: only ROCm's platform counts
    ("ocl-icd-clover-and-rocm-rx7900xtx-gfx1100-cut.txt", [("Radeon RX 7900 XTX", "gfx1100", "0x744c", "0000:2d:00.0")]),
    # cut before the device's Name line: the board, gfx unknown
    ("amd-app-rocm1.6-fiji-cut-before-name-clblast186.txt", [("Fiji [Radeon R9 FURY / NANO Series]", None, None, None)]),
])
def test_clinfo_amd_gpus(name, want):
    got = clinfo_amd_gpus((DATA / "clinfo-amd" / name).read_text())
    assert [(g.name, g.gfx, g.device_id, g.bus_id) for g in got] == want
    assert [g.index for g in got] == list(range(len(want)))


def test_clinfo_intel_only_has_no_amd_gpu():
    text = ("  Platform Name                                   Intel(R) OpenCL Graphics\nNumber of devices   1\n"
            "  Device Name                                     Intel(R) Arc(TM) A770 Graphics\n"
            "  Device Vendor                                   Intel(R) Corporation\n"
            "  Device Vendor ID                                0x8086\n  Device Type    GPU\n")
    assert clinfo_amd_gpus(text) == []
    assert clinfo_amd_gpus("") == [] and clinfo_amd_gpus("\x00" * 1000) == []


# -- through the environment and the report -------------------------------------------------------------------
def _status_json(snap: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "envcheck", "status", "--snapshot", snap, "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def test_snapshot_with_only_jetson_release_is_a_jetson(tmp_path):
    snap = make_snapshot(str(tmp_path / "j"), {"jetson-release.txt": (JR / "v4.2.6-jp5.1.1-orin-nx-indented.txt").read_text()})
    rep = _status_json(snap)
    assert rep["vendor"] == "nvidia"
    acc = rep["accelerator"]
    assert (acc["l4t"], acc["l4t_source"]) == ("35.3.1", "jetson_release")
    assert acc["jetson"] == {"jetpack": "5.1.1", "model": "NVIDIA Orin NX Developer Kit", "cuda": "11.4.315",
                             "cudnn": "8.6.0.166", "tensorrt": "8.5.2.2"}
    text = subprocess.run([sys.executable, "-m", "envcheck", "status", "--snapshot", snap], capture_output=True,
                          text=True, timeout=120).stdout
    assert "L4T 35.3.1, JetPack 5.1.1, CUDA 11.4.315" in " ".join(text.split())


def test_tegra_release_wins_over_jetson_release_and_the_note_says_so(tmp_path):
    snap = make_snapshot(str(tmp_path / "j"), {
        "tegra-release.txt": "# R35 (release), REVISION: 4.1, GCID: 1, BOARD: t186ref, EABI: aarch64\n",
        "jetson-release.txt": (JR / "v4.2.6-jp5.1.1-orin-nx-indented.txt").read_text()})
    env = collect(open_snapshot(snap), load_matrix())
    assert (env.accel.l4t, env.accel.l4t_source) == ("35.4.1", "tegra-release.txt")
    assert any("jetson_release says 35.3.1" in n for n in env.accel.notes)


def test_jetpack_missing_plans_from_the_l4t(tmp_path):
    snap = make_snapshot(str(tmp_path / "j"), {
        "jetson-release.txt": (JR / "v4.3.0-jetpack-missing-l4t36.4.3-jetson-stats603.txt").read_text()})
    out = subprocess.run([sys.executable, "-m", "envcheck", "fix", "--snapshot", snap, "--want", "torch", "--json"],
                         capture_output=True, text=True, timeout=120)
    doc = json.loads(out.stdout)
    assert doc["target"].get("jetpack", "").startswith("6.")  # L4T 36.4.3 is JetPack 6.x in the matrix


def test_concise_hex_name_and_clinfo_fill_one_gpu(tmp_path):
    snap = make_snapshot(str(tmp_path / "a"), {
        "rocm-smi.txt": (DATA / "rocm-smi" / "concise-model-revision-name-hex-0x744c.txt").read_text(),
        "clinfo.txt": (DATA / "clinfo-amd" / "ocl-icd-clover-and-rocm-rx7900xtx-gfx1100-cut.txt").read_text()})
    rep = _status_json(snap)
    assert rep["vendor"] == "amd"
    assert [(g["name"], g["gfx"], g["device_id"]) for g in rep["gpus"]] == [("Radeon RX 7900 XTX", "gfx1100", "0x744c")]


def test_amd_smi_list_alone_counts_the_gpus(tmp_path):
    snap = make_snapshot(str(tmp_path / "l"), {
        "amd-smi-list.txt": fixture("vendors", "amd-smi-list", "mi210-with-ai-nic-rocm-systems3654.txt")})
    rep = _status_json(snap)
    assert rep["vendor"] == "amd"
    # one GPU (the AI NIC is not one), its bus id from the list; model and gfx unknown, not invented
    assert [(g["bus_id"], g["name"], g["gfx"]) for g in rep["gpus"]] == [("0000:23:00.0", None, None)]


# -- live probing -------------------------------------------------------------------------------------------
def _tool(bindir: Path, name: str, text: str, marker: Path) -> None:
    (bindir / (name + ".out")).write_text(text)
    p = bindir / name
    p.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat '{bindir / (name + '.out')}'\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)


def test_live_jetson_release_runs_only_on_a_jetson(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    marker = tmp_path / "ran"
    _tool(bindir, "jetson_release", (JR / "v4.2.2-jp4.6-nano-zeromq-experiment.txt").read_text(), marker)
    path = f"{bindir}:/usr/bin:/bin"
    monkeypatch.setenv("PATH", path)
    plain = tmp_path / "plain"
    plain.mkdir()
    cap = LiveSource(root=str(plain), timeout=10, environ={"PATH": path}).get("jetson-release.txt")
    assert cap.status == "not-found" and not marker.exists()
    jet = tmp_path / "jet"
    (jet / "etc").mkdir(parents=True)
    (jet / "etc" / "nv_tegra_release").write_text("# R32 (release), REVISION: 6.1, GCID: 1, BOARD: t210ref\n")
    src = LiveSource(root=str(jet), timeout=10, environ={"PATH": path})
    cap = src.get("jetson-release.txt")
    assert marker.exists() and "Jetpack 4.6 [L4T 32.6.1]" in (cap.text or "")
    env = collect(src, load_matrix())
    assert env.accel.l4t == "32.6.1" and env.accel.jetson_cudnn == "8.2.1.32"


def test_live_clinfo_runs_on_amd(tmp_path, monkeypatch):
    root = tmp_path / "root"
    (root / "sys/module/amdgpu").mkdir(parents=True)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    marker = tmp_path / "ran"
    _tool(bindir, "clinfo", (DATA / "clinfo-amd" / "ocl-icd-rx580-gfx803-clr97-cut.txt").read_text(), marker)
    path = f"{bindir}:/usr/bin:/bin"
    monkeypatch.setenv("PATH", path)
    src = LiveSource(root=str(root), timeout=10, environ={"PATH": path, "ROCM_PATH": str(tmp_path / "none")})
    assert "gfx803" in (src.get("clinfo.txt").text or "") and marker.exists()
    env = collect(src, load_matrix())
    assert [(g.name, g.gfx) for g in env.accel.gpus] == [("AMD Radeon RX 580 Series", "gfx803")]


def test_heldout_vendors6_scorer_runs():
    out = subprocess.run([sys.executable, os.path.join("scripts", "score_vendors6.py")], capture_output=True,
                         text=True, timeout=120, cwd=str(Path(__file__).parent.parent))
    assert out.returncode == 0, out.stderr
    assert "jetson-release" in out.stdout and "rocm-smi" in out.stdout


def test_showdriverversion_gives_the_amdgpu_module_version(tmp_path):
    text = (DATA / "rocm-smi" / "showall-5.x-driver-6.1.5-gpuid-0x164e-traceback-rocm2410.txt").read_text()
    head = "\n".join(text.splitlines()[3:7]) + "\n"  # the banner and the "Version of System Component" section
    assert "Driver version: 6.1.5" in head
    snap = make_snapshot(str(tmp_path / "d"), {"rocm-smi-driver.txt": head,
                                               "rocm-agent-enumerator.txt": "gfx000\ngfx1036\n"})
    rep = _status_json(snap)
    assert (rep["rocm"]["amdgpu"], rep["rocm"]["amdgpu_source"]) == ("6.1.5", "rocm-smi --showdriverversion")
