"""vendors21g: the gfx lists of the 2.5.0 / 2.5.1 rocm6.1 / 2.6.0 / 2.7.0 PyTorch-index ROCm wheels, and the ahead-of-time
(AOT) targets of the torch XPU wheels against the machine's Intel GPU, from the matrix to status and fix.

Expected values are restated here from the quoted sources (not read back from compat_matrix), and each engine test
uses a real capture (tests/data/vendors, tests/data/snapshots) with the torch version the test varies."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest
from click.testing import CliRunner

from helpers import DATA, fixture, make_snapshot

from envcheck.cli import cli
from envcheck.matrix import load_matrix

M = load_matrix()
AMD_SNAP = os.path.join(DATA, "snapshots", "amd-rx7600xt-raphael-legacy4380")  # rocm-smi: gfx1102 + gfx1036 iGPU
W6600 = fixture("vendors", "rocminfo", "gfx1032-w6600-agent2-legacy1756.txt")


def status(snapshot):
    res = CliRunner().invoke(cli, ["status", "--json", "--snapshot", str(snapshot)], standalone_mode=False,
                             catch_exceptions=False)
    code = res.return_value if isinstance(res.return_value, int) else res.exit_code
    return code, json.loads(res.output)


def fix(snapshot, *wants):
    args = ["fix", "--json", "--snapshot", str(snapshot)] + [x for w in wants for x in ("--want", w)]
    res = CliRunner().invoke(cli, args, standalone_mode=False, catch_exceptions=False)
    code = res.return_value if isinstance(res.return_value, int) else res.exit_code
    return code, json.loads(res.output)


# -- ROCm: the lists, from their sources ---------------------------------------------------------------------
# https://github.com/astral-sh/uv/issues/14086 (charliermarsh, 2025-06-21), torch.cuda.get_arch_list() of installed wheels
UV_251_ROCM62 = "['gfx900', 'gfx906', 'gfx908', 'gfx90a', 'gfx1030', 'gfx1100', 'gfx942']"
UV_271 = ("['gfx900', 'gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx1030', 'gfx1100', 'gfx1101', 'gfx1102', "
          "'gfx1200', 'gfx1201']")
# pytorch/pytorch PRs that changed PYTORCH_ROCM_ARCH of the wheel images after 2.5, with their merge dates, and the
# release branch cuts (pytorch/test-infra commits setting CURRENT_CANDIDATE_VERSION)
PRS = [("2024-12-04", ["gfx1101"]),             # #141667 '[ROCm] add gfx1101 to wheels'
       ("2025-02-24", ["gfx1102"]),             # #147761 'Add support for gfx1102 arch to wheel builds'
       ("2025-03-05", ["gfx1200", "gfx1201"])]  # #148562 'Adds gfx1200 and gfx1201 to PYTORCH_ROCM_ARCH'
CUT = {"2.5": "2024-09-09", "2.6": "2024-12-12", "2.7": "2025-03-13"}


def _gfx(text):
    return sorted(re.findall(r"gfx[0-9a-f]+", text))


def _by_cut(minor):
    return sorted(_gfx(UV_251_ROCM62) + [g for day, gl in PRS if day < CUT[minor] for g in gl])


def test_the_pr_dates_reproduce_the_observed_2_7_list():
    # the method used for 2.6.0 (the 2.5 list plus the PRs merged before the branch cut), applied to 2.7,
    # gives exactly what the installed 2.7.1 wheels print
    assert _by_cut("2.7") == _gfx(UV_271)
    assert _by_cut("2.5") == _gfx(UV_251_ROCM62)


@pytest.mark.parametrize("release,variant,minor", [
    ("2.5.0", "rocm6.1", "2.5"), ("2.5.0", "rocm6.2", "2.5"), ("2.5.1", "rocm6.1", "2.5"),
    ("2.6.0", "rocm6.1", "2.6"), ("2.6.0", "rocm6.2.4", "2.6"),
    ("2.7.0", "rocm6.2.4", "2.7"), ("2.7.0", "rocm6.3", "2.7")])
def test_rocm_lists_of_the_filled_rows(release, variant, minor):
    row = M.torch_rocm_variant(release, variant)
    assert row is not None and sorted(row["gfx"]) == _by_cut(minor)
    assert row["gfx_source"].startswith("https://github.com/") and "branch" in row["derived"]


def test_2_6_has_gfx1101_but_not_gfx1102():
    six = M.rocm_gfx_targets("2.6.0+rocm6.2.4")
    assert "gfx1101" in six and "gfx1102" not in six and "gfx942" in six
    assert M.rocm_gfx_targets("2.6.0+rocm6.1") == six


# -- ROCm: what status and fix make of them -------------------------------------------------------------------
def _amd_with(tmp_path, version, hip):
    d = tmp_path / "amd"
    shutil.copytree(AMD_SNAP, d)
    (d / "torch.json").write_text(json.dumps({"version": version, "cuda": None, "hip": hip}))
    return d


def test_rx7600xt_on_2_6_is_unsupported_and_on_2_7_is_not(tmp_path):
    _, rep = status(_amd_with(tmp_path / "a", "2.6.0+rocm6.2.4", "6.2.41134-65d174c3e"))
    bad = [f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported" and "(gfx1102)" in f["message"]]
    assert bad and bad[0]["severity"] == "error" and not rep["ok"]
    assert not any("gfx targets" in f["message"] for f in rep["findings"] if f["id"] == "not-checked")
    _, rep = status(_amd_with(tmp_path / "b", "2.7.0+rocm6.3", "6.3.42131-fa1d09cbd"))
    assert not any(f["id"] == "gpu-arch-unsupported" and "(gfx1102)" in f["message"] for f in rep["findings"])
    assert not any("gfx targets" in f["message"] for f in rep["findings"] if f["id"] == "not-checked")


@pytest.mark.parametrize("version,ok", [("2.6.0+rocm6.2.4", True), ("2.6.0+rocm6.1", True), ("2.5.0+rocm6.2", False),
                                        ("2.5.1+rocm6.1", False), ("2.7.0+rocm6.2.4", True)])
def test_gfx1101_against_the_filled_rows(tmp_path, version, ok):
    snap = make_snapshot(str(tmp_path / "s"), {"rocminfo.txt": W6600.replace("gfx1032", "gfx1101"),
                                               "torch.json": {"version": version, "cuda": None, "hip": "6.2.0-x"}})
    _, rep = status(snap)
    hit = [f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported"]
    assert bool(hit) is (not ok)
    assert not any("gfx targets" in f["message"] for f in rep["findings"] if f["id"] == "not-checked")


def test_fix_below_2_7_plans_2_6_natively_for_gfx1101(tmp_path):
    snap = make_snapshot(str(tmp_path / "s"), {"rocminfo.txt": W6600.replace("gfx1032", "gfx1101")})
    code, plan = fix(snap, "torch<2.7")
    assert code == 0 and plan["env"] == {}  # natively: no HSA_OVERRIDE_GFX_VERSION
    assert [(p["version"], p["variant"]) for p in plan["packages"][:1]] == [("2.6.0", "rocm6.2.4")]
    code, plan = fix(snap, "torch<2.6")  # 2.5 lacks gfx1101: the labelled same-family workaround
    assert plan["packages"][0]["version"].startswith("2.5") and "HSA_OVERRIDE_GFX_VERSION" in plan["env"]


def test_fix_for_an_older_torch_without_the_target_names_the_release_that_has_it(tmp_path):
    code, plan = fix(_amd_with(tmp_path, "2.6.0+rocm6.2.4", "6.2.0-x"), "torch==2.6.0")
    assert code == 1 and plan["satisfiable"] is False and "of the wanted torch" in plan["reason"]
    rel = [x for x in plan["lifts"] if x["constraint"] == "release"]
    assert rel and "gfx1102" in rel[0]["action"]
    named = re.search(r"want torch (\S+) \((rocm[\d.]+)\)", rel[0]["action"])
    assert named and "gfx1102" in M.rocm_gfx_targets(named.group(1), named.group(2))
    code, plan = fix(_amd_with(tmp_path / "b", "2.6.0+rocm6.2.4", "6.2.0-x"), "torch==2.7.0")
    assert code == 0 and plan["packages"][0]["version"] == "2.7.0" and plan["env"] == {"HIP_VISIBLE_DEVICES": "0"}


# -- Intel XPU: the AOT targets against the GPU ----------------------------------------------------------------
# intel/compute-runtime@e37c60bf2: device_ids_configs_dg2.h dg2G10DeviceIds {..., 0x56A0, ...}; devices_base.inl
# NAMEDDEVICE(0x56A0, Dg2HwConfig, "Intel(R) Arc(TM) A770 Graphics"), NAMEDDEVICE(0xE20B, BmgHwConfig,
# "Intel(R) Arc(TM) B580 Graphics"); device_ids_configs_bmg.h bmgG21DeviceIds {0xE202, 0xE209, 0xE20B, ...};
# platforms.h compatibilityMapping {DG2_G10_C0, {DG2_G11_B1, DG2_G12_A0}}, {BMG_G21_A0, {BMG_G31_A0, LNL_B0}},
# {MTL_U_B0, {MTL_H_B0}}; deviceAcronyms {"ats-m150", DG2_G10_C0}, {"mtl-h", MTL_H_B0}
def _group(device_id=None, name=None):
    from envcheck.engine.vendors import intel_gpu_group
    from envcheck.model import Gpu

    return intel_gpu_group(M, Gpu(index=0, name=name, vendor="intel", device_id=device_id))


def test_intel_gpu_table_from_compute_runtime():
    assert _group("0x56a0") == _group("56A0") == _group(name="Intel(R) Arc(TM) A770 Graphics") == "dg2-g10"
    assert _group(name="Intel(R) Graphics [0xe20b]") == _group("0xe20b") == "bmg-g21"
    assert _group(name="Intel(R) Arc(TM) B580 Graphics") == "bmg-g21"
    assert _group(name="Intel(R) Graphics") is None  # PTL, LNL ... share it: not guessed
    assert _group("0xffff") is None
    for r in M.rows("xpu", "intel_gpu"):
        assert r["source"].startswith("intel/compute-runtime@"), r["group"]


def test_aot_targets_serve_what_compute_runtime_says():
    serves = {r["target"]: set(r["serves"]) for r in M.rows("xpu", "aot_target")}
    assert serves["ats-m150"] == serves["dg2"] == {"dg2-g10", "dg2-g11", "dg2-g12"}
    assert serves["bmg"] == {"bmg-g21", "bmg-g31", "lnl"} and serves["mtl-h"] == {"mtl-h"}
    assert serves["mtl-u"] == {"mtl-u", "mtl-h"} and "pvc-xl" not in serves["pvc"]
    # every AOT name a torch XPU row uses is described
    for r in M.rows("xpu", "torch_xpu"):
        for t in (r.get("aot") or []) + (r.get("aot_windows") or []):
            assert t in serves, (r["release"], t)


SYCL = os.path.join("vendors", "sycl-ls")
B580 = fixture(SYCL, "v21f-b580-0xe20b-uhd770-container.txt")  # 'Intel(R) Graphics [0xe20b]' + UHD 770
A770 = fixture(SYCL, "verbose-2024.17-a770-uhd630-ext-oneapi-llvm12880.txt")


def _xpu(tmp_path, sycl, torch, platform="linux"):
    files = {"sycl-ls.txt": sycl, "packages.json": {"torch": torch}}
    if platform != "linux":  # make_snapshot's python.json is Linux's; None: no python.json (the platform unknown)
        files["python.json"] = platform and {"version": "3.11.7", "implementation": "CPython", "platform": platform,
                                             "machine": "AMD64"}
    return make_snapshot(str(tmp_path / "x"), files)


def test_b580_on_torch_2_6_linux_is_jit_only(tmp_path):
    # 2.6's Linux AOT targets are pvc, xe-lpg, ats-m150 (intel/torch-xpu-ops release/2.6): no BMG
    code, rep = status(_xpu(tmp_path, B580, "2.6.0+xpu"))
    f = next(f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported")
    assert f["severity"] == "warning" and "bmg-g21" in f["message"] and "JIT" in f["message"]
    assert code == 0 and rep["ok"]  # it runs: a warning, not an error
    better = re.search(r"torch==(\S+) ", f["fix"]).group(1)
    assert "bmg" in M.torch_xpu(better)["aot"]
    # the iGPU has no id and a name compute-runtime does not give: not guessed
    assert any(x["id"] == "not-checked" and "UHD Graphics 770" in x["message"] for x in rep["findings"])


def test_b580_on_torch_2_7_has_aot_kernels(tmp_path):
    _, rep = status(_xpu(tmp_path, B580, "2.7.0+xpu"))
    assert not any(f["id"] == "gpu-arch-unsupported" for f in rep["findings"])


def test_a770_through_the_dg2_compatibility(tmp_path):
    # A770 is DG2-G10: 2.6 Linux ships ats-m150 (DG2_G10_C0) and 2.8 ships dg2: both have its kernels
    for v in ("2.6.0+xpu", "2.8.0+xpu"):
        _, rep = status(_xpu(tmp_path / v, A770, v))
        assert not any(f["id"] == "gpu-arch-unsupported" for f in rep["findings"]), v


@pytest.mark.parametrize("name,did", [("v8-xpumcli-2x-iris-xe-max.txt", "0x4905"),
                                      ("v8-uhd770-device-0-head.txt", "0xa780")])
def test_gpus_no_xpu_wheel_targets(tmp_path, name, did):
    snap = make_snapshot(str(tmp_path / "x"), {"xpu-smi-discovery.txt": fixture("vendors", "xpu-smi", name),
                                               "packages.json": {"torch": "2.8.0+xpu"}})
    _, rep = status(snap)
    hits = [f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported"]
    assert len(hits) == 1 and "No torch XPU release in the matrix targets this GPU" in hits[0]["message"]
    assert did in hits[0]["evidence"]


def test_unknown_device_id_is_not_checked(tmp_path):
    snap = make_snapshot(str(tmp_path / "x"), {
        "xpu-smi-discovery.txt": fixture("vendors", "xpu-smi", "v8-xpumcli-graphics-0x020a.txt"),
        "packages.json": {"torch": "2.8.0+xpu"}})
    _, rep = status(snap)
    nc = [f for f in rep["findings"] if f["id"] == "not-checked" and "ahead-of-time" in f["message"]]
    assert nc and "0x020a" in nc[0]["message"] and "xpu-smi" in nc[0]["fix"]
    assert not any(f["id"] == "gpu-arch-unsupported" for f in rep["findings"])


def test_windows_uses_the_windows_aot_list(tmp_path):
    # 2.6 on Windows: ats-m150, mtl-u, mtl-h, xe2-lpg, xe2-hpg (xe2-hpg: the BMG configurations) -> the B580 is served
    _, rep = status(_xpu(tmp_path / "w", B580, "2.6.0+xpu", platform="win32"))
    assert not any(f["id"] == "gpu-arch-unsupported" for f in rep["findings"])
    _, rep = status(_xpu(tmp_path / "l", B580, "2.6.0+xpu"))
    assert any(f["id"] == "gpu-arch-unsupported" for f in rep["findings"])


def test_unknown_platform_is_not_taken_for_linux(tmp_path):
    """attack27: without python.json the Linux AOT list was used: a B580 on 2.6 was warned JIT-only, which holds on
    Linux but not on Windows (2.6's Windows wheel has xe2-hpg). Where the two wheels agree the verdict stands."""
    _, rep = status(_xpu(tmp_path / "u", B580, "2.6.0+xpu", platform=None))
    assert not any(f["id"] == "gpu-arch-unsupported" for f in rep["findings"])
    nc = [f for f in rep["findings"] if f["id"] == "not-checked" and "ahead-of-time" in f["message"]]
    assert nc and "platform is unknown" in nc[0]["message"] and "python.json" in nc[0]["fix"]
    _, rep = status(_xpu(tmp_path / "a", A770, "2.8.0+xpu", platform=None))  # dg2 on both lists: no unknown
    assert not any(f["id"] == "gpu-arch-unsupported" or "A770" in f["message"] for f in rep["findings"])


def test_fix_notes_the_jit_and_the_release_with_kernels(tmp_path):
    snap = make_snapshot(str(tmp_path / "s"), {"sycl-ls.txt": B580})
    code, plan = fix(snap, "torch<2.7")
    assert code == 0 and plan["packages"][0]["version"].startswith("2.6")
    note = next(n for n in plan["notes"] if "ahead-of-time" in n and "0xe20b" in n)
    assert "JIT" in note and "no wanted torch XPU wheel has them" in note
    code, plan = fix(snap, "torch")
    assert code == 0 and not any("no ahead-of-time kernels" in n for n in plan["notes"])


def test_fix_with_an_unknown_platform_asks_for_it_not_for_the_pci_id(tmp_path):
    """attack27: the B580 of a snapshot without python.json: JIT on Linux, AOT on Windows under 2.6; the note says the
    platform decides, and asks for it (the PCI id is known already)."""
    snap = make_snapshot(str(tmp_path / "s"), {"sycl-ls.txt": B580, "python.json": None})
    code, plan = fix(snap, "torch<2.7")
    note = next(n for n in plan["notes"] if "ahead-of-time" in n and "0xe20b" in n)
    assert "not checked" in note and "platform is unknown" in note and "python.json" in note
    assert "xpu-smi" not in note and "no ahead-of-time kernels" not in note


# -- matrix show: the vendor tables with their sources ---------------------------------------------------------
@pytest.mark.parametrize("table,key,value", [("rocm", "release", "2.6.0"), ("xpu", "release", "2.6.0"),
                                             ("xpu-aot", "target", "bmg"), ("intel-gpus", "group", "bmg-g21")])
def test_matrix_show_vendor_tables(table, key, value):
    res = CliRunner().invoke(cli, ["matrix", "show", table, "--json"], standalone_mode=False, catch_exceptions=False)
    doc = json.loads(res.output)
    rows = [r for r in doc["rows"] if r.get(key) == value]
    assert rows and all(r.get("source") for r in doc["rows"]), table
    text = CliRunner().invoke(cli, ["matrix", "show", table], standalone_mode=False).output
    assert value in text and "sources: --json" in text


def test_matrix_show_rocm_text_names_the_gfx_source():
    text = CliRunner().invoke(cli, ["matrix", "show", "rocm"], standalone_mode=False).output
    line = next(x for x in text.splitlines() if x.startswith("2.6.0 ") and "rocm6.2.4" in x)
    assert "gfx1101" in line and "pytorch/pytorch/pull/141667" in line


def test_the_2_14_rocm_variants():
    # pytorch/test-infra#8498 quotes release/2.14: ROCM_ARCHES = ["7.2", "7.14"]; wheels seen installed:
    # '2.14.1+rocm7.2 | 7.2.53211 | whl/rocm7.2' and 'torch 2.14.1+rocm7.14'
    for rel in ("2.14.0", "2.14.1"):
        assert sorted(r["variant"] for r in M.torch_rocm_variants(rel)) == ["rocm7.14", "rocm7.2"]
    assert M.rocm_gfx_targets("2.14.1+rocm7.2") == M.rocm_gfx_targets("2.14.0+rocm7.2")
    assert M.rocm_gfx_targets("2.14.1+rocm7.14") is None  # no arch list published: not guessed
    assert M.torch_rocm_variant("2.14.1", "rocm7.14")["index_url"].endswith("/whl/rocm7.14")


def test_an_installed_rocm7_14_build_is_not_checked_for_its_targets(tmp_path):
    snap = make_snapshot(str(tmp_path / "s"), {"rocminfo.txt": W6600.replace("gfx1032", "gfx1100"),
                                               "torch.json": {"version": "2.14.1+rocm7.14", "cuda": None,
                                                              "hip": "7.14.60850-0000000"}})
    _, rep = status(snap)
    assert any(f["id"] == "not-checked" and "gfx targets" in f["message"] for f in rep["findings"])
    assert not any(f["id"] == "gpu-arch-unsupported" for f in rep["findings"])
    code, plan = fix(snap, "torch")  # the newest build with a known list that has gfx1100
    assert code == 0 and (plan["packages"][0]["version"], plan["packages"][0]["variant"]) == ("2.14.1", "rocm7.2")


def test_xpu_2_14_1_and_its_aot_coverage(tmp_path):
    # 'torch | 2.14.1+xpu' on a Max 1550 (Linux) and 'PyTorch: 2.14.1+xpu' on Windows 11: release/2.14 targets
    row = M.torch_xpu("2.14.1+xpu")
    assert row and row["aot"] == M.torch_xpu("2.14.0")["aot"] and "windows-x86_64" in row["platforms"]
    _, rep = status(_xpu(tmp_path, B580, "2.14.1+xpu"))
    assert not any(f["id"] == "gpu-arch-unsupported" for f in rep["findings"])


# -- matrix why: the ROCm / XPU builds on AMD / Intel machines ---------------------------------------------------
def why(snapshot, req, *extra):
    res = CliRunner().invoke(cli, ["matrix", "why", req, "--json", "--snapshot", str(snapshot), *extra],
                             standalone_mode=False, catch_exceptions=False)
    code = res.return_value if isinstance(res.return_value, int) else res.exit_code
    return code, json.loads(res.output)


def _by(doc, variant):
    return next(r for r in doc["results"] if r["build"]["variant"] == variant)


def test_matrix_why_rocm_builds_on_the_rx7600xt(tmp_path):
    code, doc = why(AMD_SNAP, "torch==2.7.0", "--python", "3.12")
    assert code == 0
    r = _by(doc, "rocm6.3")
    assert r["verdict"] == "runs" and r["build"]["gfx"] == M.rocm_gfx_targets("2.7.0", "rocm6.3")
    assert any(x.startswith("gfx: OK") and "(gfx1102)" in x for x in r["reasons"])
    assert any(x.startswith("gfx: NO") and "(gfx1036)" in x for x in r["reasons"])  # the iGPU: named, not fatal
    assert any("HIP_VISIBLE_DEVICES" in x for x in r["reasons"])
    cu = _by(doc, "cu128")  # a CUDA build on this machine says why first, not only "no NVIDIA driver"
    assert cu["verdict"] == "does-not-run" and cu["reasons"][0].startswith("vendor: NO") and "AMD" in cu["reasons"][0]
    _, doc = why(AMD_SNAP, "torch==2.6.0", "--python", "3.12")
    assert _by(doc, "rocm6.2.4")["verdict"] == "does-not-run" and _by(doc, "rocm6.1")["verdict"] == "does-not-run"


def test_matrix_why_rocm_unknowns(tmp_path):
    _, doc = why(AMD_SNAP, "torch==2.14.1")  # no Python; the rocm7.14 build has no list
    assert _by(doc, "rocm7.2")["verdict"] == "unknown" and "Python" in _by(doc, "rocm7.2")["missing"][0]
    r = _by(doc, "rocm7.14")
    assert r["verdict"] == "unknown" and any("no gfx target list" in x for x in r["missing"])
    _, doc = why(AMD_SNAP, "torch==2.7.0", "--python", "3.8")
    assert _by(doc, "rocm6.3")["verdict"] == "does-not-run"
    assert any(x.startswith("python: NO") for x in _by(doc, "rocm6.3")["reasons"])


def test_matrix_why_xpu_builds(tmp_path):
    snap = make_snapshot(str(tmp_path / "b"), {"sycl-ls.txt": B580})
    code, doc = why(snap, "torch>=2.6,<2.8", "--python", "3.12")
    six, seven = _by_release(doc, "2.6.0"), _by_release(doc, "2.7.0")
    assert six["verdict"] == seven["verdict"] == "runs" and code == 0
    assert any(x.startswith("AOT kernels: no, JIT") and "bmg-g21" in x for x in six["reasons"])
    assert any(x.startswith("AOT kernels: yes") for x in seven["reasons"])
    a750 = os.path.join(DATA, "snapshots", "intel-a750-opencl-only-llvm17535")
    _, doc = why(a750, "torch==2.7.0", "--python", "3.12")
    assert _by(doc, "xpu")["verdict"] == "does-not-run"
    assert any(x.startswith("Level Zero: NO") for x in _by(doc, "xpu")["reasons"])


def _by_release(doc, release):
    return next(r for r in doc["results"] if r["build"]["variant"] == "xpu" and r["build"]["version"] == release)


def test_matrix_why_on_nvidia_is_unchanged():
    h100 = os.path.join(DATA, "real", "h100-580.159.04-torch2.11-cu130", "snapshot")
    if not os.path.isdir(h100):
        pytest.skip("no H100 snapshot")
    _, doc = why(h100, "torch==2.11.0", "--python", "3.12")
    assert all(not r["build"]["variant"].startswith(("rocm", "xpu")) for r in doc["results"])
    assert not any(x.startswith("vendor:") for r in doc["results"] for x in r["reasons"])


def test_docs_quote_what_matrix_why_prints():
    doc = open(os.path.join(os.path.dirname(DATA), "..", "docs", "matrix-vendors.md"), encoding="utf-8").read()
    rel = os.path.relpath(AMD_SNAP, os.path.join(os.path.dirname(DATA), ".."))
    res = CliRunner(env={"NO_COLOR": "1"}).invoke(cli, ["matrix", "why", "torch==2.7.0", "--snapshot", AMD_SNAP,
                                                        "--python", "3.12"], standalone_mode=False)
    out = res.output.splitlines()
    i = out.index("torch 2.7.0 rocm6.3: RUNS")
    block = [out[i]] + [x for x in out[i + 1:i + 6] if x.startswith("    ")]
    assert f"envcheck matrix why 'torch==2.7.0' --snapshot {rel} --python 3.12" in doc
    assert all(x in doc for x in block), [x for x in block if x not in doc]


def test_intel_plan_with_an_unknown_platform_is_not_linux_by_default(tmp_path):
    """attack27: without python.json the XPU plan looked only at the Linux wheels and said 'for linux-x86_64'."""
    snap = make_snapshot(str(tmp_path / "s"), {"sycl-ls.txt": A770, "python.json": None})
    code, plan = fix(snap, "torch==2.4.0")
    assert code == 1 and "linux-x86_64" not in plan["reason"] and "platform is unknown" in plan["reason"]
    code, plan = fix(snap, "torch")
    rel = plan["packages"][0]["version"]
    assert code == 0 and {"linux-x86_64", "windows-x86_64"} <= set(M.torch_xpu(rel)["platforms"])
