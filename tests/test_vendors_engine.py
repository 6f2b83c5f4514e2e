"""AMD / Intel / Apple machines end to end (contract §9): snapshot -> report keys -> findings -> fix plans.

Snapshots are built from real captures (tests/data/vendors, tests/data/snapshots) plus the facts a test
varies (torch.json, devices.json, environ.json); matrix values are read from compat_matrix, never restated."""

from __future__ import annotations

import json
import os
import types

import pytest
from click.testing import CliRunner

from helpers import DATA, fixture, make_snapshot

from envcheck.cli import cli
from envcheck.matrix import load_matrix

SNAPS = os.path.join(DATA, "snapshots")
AMD_SNAP = os.path.join(SNAPS, "amd-rx7600xt-raphael-legacy4380")
INTEL_SNAP = os.path.join(SNAPS, "intel-a750-opencl-only-llvm17535")
APPLE_SNAP = os.path.join(SNAPS, "apple-m1-macos12.7.6-torch2.5.1-pytorch139425")
W6600 = fixture("vendors", "rocminfo", "gfx1032-w6600-agent2-legacy1756.txt")  # one gfx1032 GPU


def ids(rep):
    return [f["id"] for f in rep["findings"]]


def fix_json(snapshot, *wants):
    args = ["fix", "--json", "--snapshot", str(snapshot)] + [x for w in wants for x in ("--want", w)]
    res = CliRunner().invoke(cli, args, standalone_mode=False, catch_exceptions=False)
    code = res.return_value if isinstance(res.return_value, int) else res.exit_code
    return code, json.loads(res.output)


def rocm_release_with(gfx, without=None):
    """A torch release / variant from the matrix whose gfx list has ``gfx`` (and lacks ``without``)."""
    for r in load_matrix().rows("rocm", "torch_variant"):
        gl = r.get("gfx") or []
        if gfx in gl and (without is None or without not in gl):
            return r
    pytest.skip(f"the matrix has no ROCm build with {gfx}")


# -- the three kept snapshots -----------------------------------------------------------------------------
def test_amd_snapshot_report(run_status):
    code, rep, _ = run_status(AMD_SNAP)
    assert rep["vendor"] == "amd"
    amd = [g for g in rep["gpus"] if g["vendor"] == "amd"]
    # rocm-smi --showhw printed gfx11002 (decimal stepping) for the RX 7600 XT: normalised
    assert [(g["gfx"], g["device_id"]) for g in amd] == [("gfx1102", "0x7480"), ("gfx1036", "0x164e")]
    assert "no-gpu-driver" not in ids(rep) and code == 0
    assert rep["rocm"] == {"version": None, "hip": None, "amdgpu": None, "version_source": None,
                           "amdgpu_source": None}


def test_intel_snapshot_level_zero_missing(run_status):
    code, rep, _ = run_status(INTEL_SNAP)
    assert rep["vendor"] == "intel"
    assert [g["name"] for g in rep["gpus"]] == ["Intel(R) Arc(TM) A750 Graphics"]
    assert rep["xpu"]["level_zero_gpus"] == [] and rep["xpu"]["compute_runtime"] == "25.05.32567.17"
    assert ids(rep) == ["xpu-level-zero-missing"]
    assert not any("NVIDIA driver" in f["message"] for f in rep["findings"])


def test_apple_snapshot_mps_os_too_old(run_status):
    code, rep, _ = run_status(APPLE_SNAP)
    assert rep["vendor"] == "apple" and code == 1
    assert rep["frameworks"]["torch"]["cpu_only"] is False  # a macOS torch >= 1.12 is an MPS build
    assert rep["mps"]["built"] is True
    f = next(f for f in rep["findings"] if f["id"] == "mps-os-too-old")
    # torch 2.5's MPS needs macOS 13.0 (matrix, from pytorch/pytorch#139425); the Mac runs 12.7.6
    need = load_matrix().mps_min_macos("2.5.1")
    assert need and need in f["message"] and "12.7.6" in f["message"]


def test_text_status_shows_vendor_rows_not_nvidia_rows():
    res = CliRunner().invoke(cli, ["status", "--snapshot", AMD_SNAP], standalone_mode=False)
    assert "gfx1102" in res.output and "NVIDIA" not in res.output and "nvcc" not in res.output


# -- build facts ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("torch_json,packages,platform,want", [
    ({"version": "2.4.1+rocm6.1", "cuda": None, "hip": "6.1.40091-a8dbc0c19"}, {}, "linux",
     {"cpu_only": False, "rocm": "6.1", "hip": "6.1.40091-a8dbc0c19"}),
    ({"version": "2.0.1+rocm5.4.2", "cuda": None, "hip": "5.4.22803-474e8620"}, {}, "linux",
     {"cpu_only": False, "rocm": "5.4"}),
    (None, {"torch": "2.7.0+xpu"}, "linux", {"cpu_only": False, "xpu": True}),
    ({"version": "2.5.1+xpu", "cuda": None, "xpu": "20250001"}, {}, "linux", {"cpu_only": False, "xpu": True}),
    (None, {"torch": "2.5.1"}, "darwin", {"cpu_only": False, "mps": {"built": True, "available": None}}),
    ({"version": "2.3.0", "cuda": None, "mps": {"built": True, "available": False}}, {}, "darwin",
     {"cpu_only": False, "mps": {"built": True, "available": False}}),
    (None, {"torch": "2.5.1+cpu"}, "linux", {"cpu_only": True}),
])
def test_rocm_xpu_mps_builds_are_never_cpu_only(tmp_path, run_status, torch_json, packages, platform, want):
    files = {"packages.json": packages, "python.json": {"version": "3.11.7", "platform": platform,
                                                       "machine": "arm64" if platform == "darwin" else "x86_64"}}
    if torch_json:
        files["torch.json"] = torch_json
    _, rep, _ = run_status(make_snapshot(str(tmp_path / "s"), files))
    t = rep["frameworks"]["torch"]
    for k, v in want.items():
        assert t.get(k) == v, k


# -- AMD rules --------------------------------------------------------------------------------------------
def _amd_machine(tmp_path, torch_json=None, environ=None, devices=None, extra=None):
    files = {"rocminfo.txt": W6600, "environ.json": environ or {}}
    if torch_json:
        files["torch.json"] = torch_json
    if devices is not None:
        files["devices.json"] = devices
    files.update(extra or {})
    return make_snapshot(str(tmp_path / "amd"), files)


def test_gfx_not_in_build_is_an_error_with_the_labelled_workaround(tmp_path, run_status):
    row = rocm_release_with("gfx1030", without="gfx1032")
    tj = {"version": f"{row['release']}+{row['variant']}", "cuda": None, "hip": f"{row['rocm']}.0-abc"}
    code, rep, _ = run_status(_amd_machine(tmp_path, tj))
    f = next(f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported")
    assert f["severity"] == "error" and "gfx1032" in f["message"] and code == 1
    # the matrix records 10.3.0 as a working same-family override for gfx1032: offered, labelled
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in f["fix"] and "unofficial" in f["fix"]


def test_gfx_through_the_override_is_a_note(tmp_path, run_status):
    row = rocm_release_with("gfx1030", without="gfx1032")
    tj = {"version": f"{row['release']}+{row['variant']}", "cuda": None, "hip": f"{row['rocm']}.0-abc"}
    code, rep, _ = run_status(_amd_machine(tmp_path, tj, environ={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}))
    f = next(f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported")
    assert f["severity"] == "info" and "unofficial" in f["message"] and code == 0


def test_override_across_isa_families_is_an_error(tmp_path, run_status):
    row = rocm_release_with("gfx1030", without="gfx1010")
    rx5700 = fixture("vendors", "rocminfo", "gfx1032-w6600-agent2-legacy1756.txt").replace("gfx1032", "gfx1010")
    tj = {"version": f"{row['release']}+{row['variant']}", "cuda": None, "hip": f"{row['rocm']}.0-abc"}
    _, rep, _ = run_status(_amd_machine(tmp_path, tj, environ={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
                                        extra={"rocminfo.txt": rx5700}))
    f = next(f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported")
    assert f["severity"] == "error" and "another ISA family" in f["message"]


def test_installed_arch_list_beats_the_matrix(tmp_path, run_status):
    tj = {"version": "2.4.1+rocm6.1", "cuda": None, "hip": "6.1.40091-a8dbc0c19",
          "arch_list": ["gfx900", "gfx1032"]}
    _, rep, _ = run_status(_amd_machine(tmp_path, tj))
    assert "gpu-arch-unsupported" not in ids(rep)


def test_unknown_targets_are_not_checked(tmp_path, run_status):
    tj = {"version": "2.99.0+rocm9.9", "cuda": None, "hip": "9.9.1-x"}
    _, rep, _ = run_status(_amd_machine(tmp_path, tj))
    nc = [f for f in rep["findings"] if f["id"] == "not-checked" and "gfx targets" in f["message"]]
    assert nc and "--deep" in nc[0]["fix"]


def test_device_permission(tmp_path, run_status):
    devices = {"/dev/kfd": {"exists": True, "readable": True, "writable": False},
               "/dev/dri/renderD128": {"exists": True, "readable": False, "writable": False}, "groups": ["users"]}
    tj = {"version": "2.4.1+rocm6.1", "cuda": None, "hip": "6.1.40091-a8dbc0c19", "arch_list": ["gfx1032"]}
    code, rep, _ = run_status(_amd_machine(tmp_path, tj, devices=devices))
    f = next(f for f in rep["findings"] if f["id"] == "device-permission")
    assert f["severity"] == "error" and "render" in f["message"] and "usermod" in f["fix"]
    devices["/dev/kfd"]["writable"] = True
    devices["/dev/dri/renderD128"].update(readable=True, writable=True)
    _, rep, _ = run_status(_amd_machine(tmp_path / "ok", tj, devices=devices))
    assert "device-permission" not in ids(rep)


def test_container_without_kfd(tmp_path, run_status):
    devices = {"/dev/kfd": {"exists": False, "readable": None, "writable": None}}
    tj = {"version": "2.4.1+rocm6.1", "cuda": None, "hip": "6.1.40091-a8dbc0c19", "arch_list": ["gfx1032"]}
    _, rep, _ = run_status(_amd_machine(tmp_path, tj, devices=devices, extra={"container.json": {"dockerenv": True}}))
    f = next(f for f in rep["findings"] if f["id"] == "device-permission")
    assert "--device=/dev/kfd" in f["fix"]


def test_cuda_build_on_amd_host_is_a_vendor_mismatch_not_no_driver(tmp_path, run_status):
    tj = {"version": "2.5.1+cu124", "cuda": "12.4", "cudnn": 90100}
    code, rep, _ = run_status(_amd_machine(tmp_path, tj))
    assert "framework-vendor-mismatch" in ids(rep) and "no-gpu-driver" not in ids(rep)
    f = next(f for f in rep["findings"] if f["id"] == "framework-vendor-mismatch")
    assert f["severity"] == "error" and "ROCm" in f["fix"]


def test_rocm_build_on_nvidia_host(tmp_path, run_status):
    from helpers import gpu_machine

    files = gpu_machine("535.104.05", "12.2", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"])
    files["torch.json"] = {"version": "2.4.1+rocm6.1", "cuda": None, "hip": "6.1.40091-a8dbc0c19"}
    _, rep, _ = run_status(make_snapshot(str(tmp_path / "nv"), files))
    assert rep["vendor"] == "nvidia" and "framework-vendor-mismatch" in ids(rep)
    assert all(g["vendor"] == "nvidia" for g in rep["gpus"])


def test_kernel_driver_window(tmp_path, run_status):
    m = load_matrix()
    outside = max((r for r in m.rows("rocm", "torch_variant")), key=lambda r: tuple(int(x) for x in r["rocm"].split(".")))
    mm = ".".join(outside["rocm"].split(".")[:2])
    # the newest release whose kernel driver's window leaves out the newest ROCm build
    rel = next(r for r in m.rows("rocm", "rocm_release") if r.get("kmd_user_space") and mm not in r["kmd_user_space"])
    tj = {"version": f"{outside['release']}+{outside['variant']}", "cuda": None, "hip": f"{mm}.1-x",
          "arch_list": ["gfx1032"]}
    extra = {"sys-module-amdgpu-version.txt": "6.8.5\n", "rocm-version.txt": f"{rel['version']}-100\n"}
    _, rep, _ = run_status(_amd_machine(tmp_path, tj, extra=extra))
    f = next(f for f in rep["findings"] if f["id"] == "driver-too-old")
    assert mm in f["message"] and rel["version"] in f["message"]
    # an in-tree (inbox) amdgpu: AMD's table does not cover it -> not-checked
    extra = {"rocm-smi-driver.txt": "device,Driver version\ncardsystem,6.1.0-18-amd64\n",
             "rocm-version.txt": f"{rel['version']}-100\n"}
    _, rep, _ = run_status(_amd_machine(tmp_path / "inbox", tj, extra=extra))
    assert "driver-too-old" not in ids(rep)
    assert any(f["id"] == "not-checked" and "in-tree" in f["fix"] for f in rep["findings"])


def test_partitioned_amd_smi_counts_physical_gpus(tmp_path, run_status):
    listing = "".join(f"GPU: {i}\n    BDF: 0000:05:00.{i}\n    PARTITION_ID: {i}\n\n" for i in range(2))
    static = "".join(f"GPU: {i}\n    ASIC:\n        MARKET_NAME: AMD Instinct MI300X\n        DEVICE_ID: 0x74a1\n"
                     f"        TARGET_GRAPHICS_VERSION: gfx942\n" for i in range(2))
    _, rep, _ = run_status(make_snapshot(str(tmp_path / "p"), {"amd-smi-list.txt": listing,
                                                                "amd-smi-static.txt": static}))
    assert [g["gfx"] for g in rep["gpus"]] == ["gfx942"]


def test_kfd_topology_without_rocm_user_space(tmp_path, run_status):
    snap = make_snapshot(str(tmp_path / "k"), {})
    os.makedirs(os.path.join(snap, "kfd-topology", "0"))
    os.makedirs(os.path.join(snap, "kfd-topology", "1"))
    with open(os.path.join(snap, "kfd-topology", "0", "properties"), "w") as fh:
        fh.write("cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n")
    with open(os.path.join(snap, "kfd-topology", "1", "properties"), "w") as fh:
        fh.write(fixture("vendors", "kfd-topology", "gfx1151-node1-properties-truncated-lemonade419.txt"))
    _, rep, _ = run_status(snap)
    assert rep["vendor"] == "amd" and [(g["gfx"], g["device_id"]) for g in rep["gpus"]] == [("gfx1151", "0x1586")]


# -- Apple / Intel rules ----------------------------------------------------------------------------------
def test_rosetta_python_on_apple_silicon(tmp_path, run_status):
    snap = make_snapshot(str(tmp_path / "r"), {
        "python.json": {"version": "3.11.7", "platform": "darwin", "machine": "x86_64", "mac_ver": "14.4",
                        "proc_translated": True},
        "packages.json": {"torch": "2.2.2"},
        "system-profiler-displays.txt": fixture("vendors", "system-profiler", "m3-text-smctemp26.txt")})
    code, rep, _ = run_status(snap)
    assert "python-arch-mismatch" in ids(rep) and code == 1
    code, plan = fix_json(snap, "torch")
    assert code == 1 and plan["satisfiable"] is False and "Rosetta" in plan["reason"]


def test_xpu_build_without_level_zero_is_an_error(tmp_path, run_status):
    snap = make_snapshot(str(tmp_path / "x"), {
        "sycl-ls.txt": fixture("vendors", "sycl-ls", "opencl-gpu-no-level-zero-a750-llvm17535.txt"),
        "packages.json": {"torch": "2.7.0+xpu"}})
    _, rep, _ = run_status(snap)
    f = next(f for f in rep["findings"] if f["id"] == "xpu-level-zero-missing")
    assert f["severity"] == "error"


def test_xpu_build_on_level_zero_machine_is_clean(tmp_path, run_status):
    snap = make_snapshot(str(tmp_path / "x"), {
        "sycl-ls.txt": fixture("vendors", "sycl-ls", "verbose-2024.17-a770-uhd630-ext-oneapi-llvm12880.txt"),
        "packages.json": {"torch": "2.7.0+xpu"}})
    code, rep, _ = run_status(snap)
    assert rep["vendor"] == "intel" and rep["xpu"]["level_zero"] == "1.3.28454" and code == 0
    assert [f for f in rep["findings"] if f["severity"] != "info"] == []


def test_no_nvidia_message_on_any_vendor_snapshot(run_status):
    for snap in (AMD_SNAP, INTEL_SNAP, APPLE_SNAP):
        _, rep, _ = run_status(snap)
        assert "no-gpu-driver" not in ids(rep)
        assert not any("NVIDIA" in (f["message"] + (f["fix"] or "")) for f in rep["findings"])


# -- fix --------------------------------------------------------------------------------------------------
def test_fix_amd_picks_a_build_with_the_gpus_target(tmp_path):
    gfx1030 = W6600.replace("gfx1032", "gfx1030")
    snap = _amd_machine(tmp_path, extra={"rocminfo.txt": gfx1030})
    code, plan = fix_json(snap, "torch")
    assert code == 0 and plan["satisfiable"]
    p = plan["packages"][0]
    row = load_matrix().torch_rocm_variant(p["version"], p["variant"])
    assert row and "gfx1030" in row["gfx"] and p["index_url"] == row["index_url"]
    assert any(f"--torch-backend={p['variant']}" in c for c in plan["commands"]["uv"])
    assert any(row["index_url"] in c for c in plan["commands"]["pip"])


def test_fix_amd_falls_back_to_the_labelled_override(tmp_path):
    snap = _amd_machine(tmp_path)  # gfx1032: no PyTorch-index build has it
    code, plan = fix_json(snap, "torch")
    if not plan["satisfiable"]:
        pytest.skip("the matrix has no build for the override's target")
    assert plan["env"] == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}
    assert any("unofficial" in n for n in plan["notes"])


def test_fix_amd_unknown_gfx_is_unsatisfiable_and_says_what_to_supply(tmp_path):
    snap = make_snapshot(str(tmp_path / "u"), {"devices.json": {"/dev/kfd": {"exists": True, "readable": True,
                                                                               "writable": True}}})
    code, plan = fix_json(snap, "torch")
    assert code == 1 and "gfx" in plan["reason"] and "rocminfo" in plan["lifts"][0]["action"]


def test_fix_apple_picks_a_release_whose_mps_runs_on_this_macos():
    code, plan = fix_json(APPLE_SNAP, "torch")
    assert code == 0 and plan["packages"][0]["variant"] == "mps"
    rel = plan["packages"][0]["version"]
    need = load_matrix().mps_min_macos(rel)
    assert need and tuple(int(x) for x in need.split(".")) <= (12, 7, 6)


def test_fix_intel_xpu_index_and_uv_backend():
    code, plan = fix_json(INTEL_SNAP, "torch")
    assert code == 0 and plan["packages"][0]["variant"] == "xpu"
    assert "--torch-backend=xpu" in plan["commands"]["uv"][0]
    assert any("Level Zero" in n for n in plan["notes"])


def test_fix_jetson_uses_the_jetpack_wheel_index(tmp_path):
    m = load_matrix()
    row = next((r for r in m.rows("jetson", "jetpack") if r.get("l4t") and len(r["l4t"].split(".")) == 3), None)
    if row is None:
        pytest.skip("no JetPack row with an L4T x.y.z")
    major, rev = row["l4t"].split(".", 1)
    snap = make_snapshot(str(tmp_path / "j"), {
        "tegra-release.txt": f"# R{major} (release), REVISION: {rev}, GCID: 1, BOARD: t186ref, EABI: aarch64\n",
        "python.json": {"version": "3.8.10", "platform": "linux", "machine": "aarch64"}})
    code, plan = fix_json(snap, "torch")
    assert plan["target"]["jetpack"] == row["version"]
    if plan["satisfiable"]:
        assert plan["packages"][0]["variant"] == "jetson"
        assert "download.pytorch.org" not in json.dumps(plan["commands"])


# -- smoke device choice ----------------------------------------------------------------------------------
def _fake_torch(cuda=False, hip=None, xpu=None, mps=None, cuda_v=None):
    t = types.SimpleNamespace()
    t.version = types.SimpleNamespace(cuda=cuda_v, hip=hip, xpu=None if xpu is None else "x")
    t.cuda = types.SimpleNamespace(is_available=lambda: cuda, device_count=lambda: 1,
                                   get_device_name=lambda i: "AMD Radeon RX 7900 XTX" if hip else "NVIDIA A100",
                                   get_device_capability=lambda i: (8, 0),
                                   get_device_properties=lambda i: types.SimpleNamespace(gcnArchName="gfx1100:sramecc-"))
    if xpu is not None:
        t.xpu = types.SimpleNamespace(is_available=lambda: xpu, device_count=lambda: 1,
                                      get_device_name=lambda i: "Intel(R) Arc(TM) A770 Graphics")
    t.backends = types.SimpleNamespace()
    if mps is not None:
        t.backends.mps = types.SimpleNamespace(is_built=lambda: True, is_available=lambda: mps)
    return t


def test_smoke_picks_the_device_the_build_offers():
    from envcheck.smoke._child import pick_torch_device

    p = pick_torch_device(_fake_torch(cuda=True, hip="6.2.41133"))
    assert (p["device"], p["backend"], p["gfx"]) == ("cuda:0", "rocm", "gfx1100")
    p = pick_torch_device(_fake_torch(cuda=True, cuda_v="12.4"))
    assert (p["device"], p["backend"], p["compute_capability"]) == ("cuda:0", "cuda", "8.0")
    p = pick_torch_device(_fake_torch(xpu=True))
    assert (p["device"], p["backend"], p["names"]) == ("xpu:0", "xpu", ["Intel(R) Arc(TM) A770 Graphics"])
    p = pick_torch_device(_fake_torch(mps=True))
    assert (p["device"], p["backend"]) == ("mps", "mps")
    p = pick_torch_device(_fake_torch(mps=False))
    assert p["device"] == "cpu" and "mps.is_available() is False" in p["why"] and p["build"] == "a build with MPS"
    p = pick_torch_device(_fake_torch(cuda=True, cuda_v="12.4", xpu=True), "xpu")
    assert p["device"] == "xpu:0"  # asked for xpu: not the CUDA device
    p = pick_torch_device(_fake_torch(), "xpu")  # an old torch without torch.xpu
    assert p["device"] == "cpu" and "no torch.xpu" in p["why"]


def test_smoke_cli_accepts_the_vendor_devices():
    res = CliRunner().invoke(cli, ["smoke", "--help"])
    assert "xpu" in res.output and "mps" in res.output


def test_deep_child_vendor_facts_with_fake_torch():
    from envcheck.probe._deep_child import _vendor_facts

    t = _fake_torch(cuda=True, hip="6.2.41133-dd7f95766")
    t.cuda.get_device_properties = lambda i: types.SimpleNamespace(name="AMD Instinct MI300X", total_memory=192 * 2**30,
                                                                   gcnArchName="gfx942:sramecc+:xnack-")
    facts = _vendor_facts(t, cuda_available=True)
    assert facts["hip"] == "6.2.41133-dd7f95766" and facts["xpu_available"] is False and facts["mps"] is None
    assert facts["devices"] == [{"name": "AMD Instinct MI300X", "total_memory_mib": 192 * 1024,
                                 "gcnArchName": "gfx942:sramecc+:xnack-"}]
    f2 = _vendor_facts(_fake_torch(mps=True))
    assert f2["mps"] == {"built": True, "available": True} and f2["devices"] == []
    f3 = _vendor_facts(_fake_torch(xpu=True))
    assert f3["xpu_available"] is True


def test_vendor_mismatch_fix_names_the_planned_command(tmp_path, run_status):
    gfx1030 = W6600.replace("gfx1032", "gfx1030")
    snap = _amd_machine(tmp_path, {"version": "2.5.1+cu124", "cuda": "12.4"}, extra={"rocminfo.txt": gfx1030})
    _, rep, _ = run_status(snap)
    f = next(f for f in rep["findings"] if f["id"] == "framework-vendor-mismatch")
    assert "download.pytorch.org/whl/rocm" in f["fix"]


def test_intel_igpu_next_to_an_undriven_nvidia_gpu_keeps_the_nvidia_message(tmp_path, run_status):
    pci = [{"slot": "0000:00:02.0", "class": "0x030000", "vendor": "0x8086", "device": "0x9bc4"},
           {"slot": "0000:01:00.0", "class": "0x030000", "vendor": "0x10de", "device": "0x2520"}]
    snap = make_snapshot(str(tmp_path / "laptop"), {"pci-gpus.json": pci, "packages.json": {"torch": "2.5.1+cu124"}})
    _, rep, _ = run_status(snap)
    assert rep["vendor"] == "nvidia"
    # the NVIDIA driver is the one spoken of; the snapshot holds no driver capture, so it is not-checked (contract
    # §1: a file not captured is unknown), never "no driver"
    notes = [f for f in rep["findings"] if f["id"] == "not-checked" and f["component"] == "driver"]
    assert notes and "NVIDIA driver" in notes[0]["message"] and "torch 2.5.1+cu124" in notes[0]["message"]
    assert "no-gpu-driver" not in ids(rep) and "framework-vendor-mismatch" not in ids(rep)


def test_fleet_tells_amd_nodes_apart_by_rocm_and_gfx(tmp_path):
    from envcheck.fleet.summarize import fingerprint_fields

    a = {"rocm": {"version": "6.2.4", "amdgpu": "6.8.5"}, "gpus": [{"name": None, "gfx": "gfx942"}]}
    b = {"rocm": {"version": "6.3.1", "amdgpu": "6.8.5"}, "gpus": [{"name": None, "gfx": "gfx942"}]}
    fa, fb = fingerprint_fields(a, ["torch"]), fingerprint_fields(b, ["torch"])
    assert fa["gpus"] == "1x gfx942" and fa["rocm.version"] != fb["rocm.version"]
    assert fa["rocm.amdgpu"] == fb["rocm.amdgpu"]
    nv = fingerprint_fields({"gpus": [{"name": "NVIDIA A100"}]}, ["torch"])
    assert nv["rocm.version"] == fingerprint_fields({}, ["torch"])["rocm.version"]


def test_explain_on_an_amd_machine_gives_no_nvidia_only_fix(tmp_path):
    row = rocm_release_with("gfx1030", without="gfx1032")
    tj = {"version": f"{row['release']}+{row['variant']}", "cuda": None, "hip": f"{row['rocm']}.0-abc"}
    snap = _amd_machine(tmp_path, tj)
    res = CliRunner().invoke(cli, ["explain", "--json", "--snapshot", snap, "-"],
                             input="RuntimeError: HIP error: invalid device function\n", standalone_mode=False)
    doc = json.loads(res.output)
    m = next(x for x in doc["matches"] if x["id"] == "gpu-arch-unsupported")
    text = " ".join(m["fixes"] + m["dead_ends"])
    assert "gfx1032" in text and "cu128" not in text and "compute capability" not in text


def test_override_hits_every_gpu_even_a_supported_one(tmp_path, run_status):
    """HSA_OVERRIDE_GFX_VERSION=10.3.0 set for a Radeon also makes an MI210 (gfx90a) load gfx1030 kernels
    (ROCm/ROCm#5238: memory access fault)."""
    row = rocm_release_with("gfx90a")
    mi210 = W6600.replace("gfx1032", "gfx90a").replace("AMD Radeon PRO W6600", "AMD Instinct MI210")
    tj = {"version": f"{row['release']}+{row['variant']}", "cuda": None, "hip": f"{row['rocm']}.0-abc"}
    _, rep, _ = run_status(_amd_machine(tmp_path, tj, environ={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
                                        extra={"rocminfo.txt": mi210}))
    f = next(f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported")
    assert f["severity"] == "error" and "gfx90a" in f["message"] and "another ISA family" in f["message"]


def test_rocminfo_kfd_failures(tmp_path, run_status):
    """rocminfo's 'Unable to open /dev/kfd read-write: <errno>' (real captures): a missing node is a
    device-permission finding (a container without it), other errors are not permissions (no-gpu-visible)."""
    missing = fixture("vendors", "rocminfo", "error-kfd-missing-in-container-legacy1798.txt")
    _, rep, _ = run_status(_amd_machine(tmp_path / "a", extra={"rocminfo.txt": missing + W6600}))
    assert "device-permission" in ids(rep)
    alloc = fixture("vendors", "rocminfo", "error-kfd-cannot-allocate-pitcairn-legacy2232.txt")
    _, rep, _ = run_status(_amd_machine(tmp_path / "b", extra={"rocminfo.txt": alloc + W6600}))
    f = next(f for f in rep["findings"] if f["id"] == "no-gpu-visible")
    assert "Cannot allocate memory" in f["evidence"] and "dmesg" in f["fix"]
    assert "device-permission" not in ids(rep)


@pytest.mark.parametrize("snap", [AMD_SNAP, INTEL_SNAP, APPLE_SNAP])
def test_docs_show_what_status_prints(snap):
    """docs/vendors.md quotes `envcheck status` / `fix` on the kept snapshots: each quoted line is still printed."""
    doc = open(os.path.join(os.path.dirname(DATA), "..", "docs", "vendors.md"), encoding="utf-8").read()
    for args in (["status", "--snapshot", snap], ["fix", "--snapshot", snap, "--want", "torch"]):
        res = CliRunner(env={"COLUMNS": "100", "NO_COLOR": "1"}).invoke(cli, args, standalone_mode=False)
        lines = [ln.strip() for ln in res.output.splitlines()
                 if ln.strip() and not ln.startswith("envcheck 0.") and snap not in ln]
        missing = [ln for ln in lines if ln not in doc]
        assert not missing, missing


def test_server_aarch64_cuda_wheel_on_a_jetson(tmp_path, run_status):
    tegra = "# R35 (release), REVISION: 3.1, GCID: 32827747, BOARD: t186ref, EABI: aarch64\n"
    py = {"version": "3.8.10", "platform": "linux", "machine": "aarch64"}
    snap = make_snapshot(str(tmp_path / "j"), {"tegra-release.txt": tegra, "python.json": py,
                                               "torch.json": {"version": "2.5.1", "cuda": "12.4"}})
    _, rep, _ = run_status(snap)
    f = next(f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported" and "SBSA" in f["message"])
    assert f["severity"] == "error"
    # NVIDIA's own Jetson wheel (local label +nv23.05): no such finding
    snap = make_snapshot(str(tmp_path / "k"), {"tegra-release.txt": tegra, "python.json": py,
                                               "torch.json": {"version": "2.0.0+nv23.05", "cuda": "11.4"}})
    _, rep, _ = run_status(snap)
    assert not any("SBSA" in f["message"] for f in rep["findings"])


def test_torch_without_mps_on_apple_silicon(tmp_path, run_status):
    snap = make_snapshot(str(tmp_path / "m"), {
        "python.json": {"version": "3.9.12", "platform": "darwin", "machine": "arm64", "mac_ver": "12.4"},
        "packages.json": {"torch": "1.11.0"}})
    _, rep, _ = run_status(snap)
    assert rep["vendor"] == "apple"
    f = next(f for f in rep["findings"] if f["id"] == "framework-cpu-only")
    first = min(r["since"] for r in load_matrix().rows("mps", "mps"))
    assert f"MPS came with torch {first}" in f["message"]


def test_fix_for_tensorflow_on_a_vendor_machine_says_it_is_not_planned():
    code, plan = fix_json(INTEL_SNAP, "tensorflow")
    assert code == 1 and not plan["satisfiable"] and "tensorflow" in plan["reason"]
    assert any("--cpu" in lift["action"] for lift in plan["lifts"])


@pytest.mark.parametrize("name,value", [("HIP_VISIBLE_DEVICES", ""), ("ROCR_VISIBLE_DEVICES", "-1")])
def test_amd_device_mask_hiding_every_gpu(tmp_path, run_status, name, value):
    tj = {"version": "2.4.1+rocm6.1", "cuda": None, "hip": "6.1.40091-a8dbc0c19", "arch_list": ["gfx1032"]}
    _, rep, _ = run_status(_amd_machine(tmp_path, tj, environ={name: value}))
    f = next(f for f in rep["findings"] if f["id"] == "no-gpu-visible")
    assert name in f["message"] and f["severity"] == "error"


def test_oneapi_selector_without_level_zero(tmp_path, run_status):
    snap = make_snapshot(str(tmp_path / "x"), {
        "sycl-ls.txt": fixture("vendors", "sycl-ls", "verbose-2024.17-a770-uhd630-ext-oneapi-llvm12880.txt"),
        "packages.json": {"torch": "2.7.0+xpu"}, "environ.json": {"ONEAPI_DEVICE_SELECTOR": "opencl:gpu"}})
    _, rep, _ = run_status(snap)
    assert "no-gpu-visible" in ids(rep)
    snap = make_snapshot(str(tmp_path / "y"), {
        "sycl-ls.txt": fixture("vendors", "sycl-ls", "verbose-2024.17-a770-uhd630-ext-oneapi-llvm12880.txt"),
        "packages.json": {"torch": "2.7.0+xpu"}, "environ.json": {"ONEAPI_DEVICE_SELECTOR": "level_zero:0"}})
    _, rep, _ = run_status(snap)
    assert "no-gpu-visible" not in ids(rep)


def test_an_intel_igpu_seen_only_on_the_pci_bus_is_not_nagged_about(tmp_path, run_status):
    pci = [{"slot": "0000:00:02.0", "class": "0x030000", "vendor": "0x8086", "device": "0x3e92"}]
    snap = make_snapshot(str(tmp_path / "i"), {"pci-gpus.json": pci, "packages.json": {"torch": "2.5.1+cpu"}})
    code, rep, _ = run_status(snap)
    assert rep["vendor"] == "intel" and code == 0
    assert [f for f in rep["findings"] if f["severity"] != "info"] == []
    snap = make_snapshot(str(tmp_path / "j"), {"pci-gpus.json": pci, "packages.json": {"torch": "2.5.1+cu124"}})
    _, rep, _ = run_status(snap)
    f = next(f for f in rep["findings"] if f["id"] == "framework-vendor-mismatch")
    assert f["severity"] == "info"


# -- a machine whose AMD tools answered but showed no GPU; a Jetson seen only through nv_tegra_release --------
def _only(tmp_path, name, src):
    import shutil
    import subprocess
    import sys

    d = tmp_path / "snap"
    d.mkdir()
    shutil.copy(src, d / name)
    (d / "meta.json").write_text('{"schema": "envcheck/snapshot/1", "created": "2026-11-22T00:00:00+00:00", '
                                 '"hostname": "n"}')
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", str(d)],
                       capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=root))
    assert r.returncode in (0, 1), r.stderr[-800:]
    return json.loads(r.stdout)


@pytest.mark.parametrize("name, src", [
    ("hipconfig.txt", "vendors/hipconfig/1.5.18353-hcc-hip707.txt"),
    ("hipconfig.txt", "vendors/hipconfig/5.2.21152-custom-hip-path-hip2886.txt"),
    ("amd-smi-version.txt", "vendors/amd-smi-version/25.3.0-rocm6.4.0-k8s157.txt"),
])
def test_amd_tools_without_a_gpu_read_are_an_amd_machine_with_unknown_gpus(tmp_path, name, src):
    doc = _only(tmp_path, name, os.path.join(os.path.dirname(__file__), "data", src))
    ids = [f["id"] for f in doc["findings"]]
    assert doc["vendor"] == "amd"
    assert "no-gpu-driver" not in ids  # no NVIDIA-only message on an AMD machine
    assert any(f["id"] == "not-checked" and "no GPU could be read" in f["message"] for f in doc["findings"])


def test_a_jetson_seen_through_nv_tegra_release_is_nvidia_and_its_driver_is_not_called_missing(tmp_path):
    doc = _only(tmp_path, "tegra-release.txt",
                os.path.join(os.path.dirname(__file__), "data", "tegra-release", "r32.5.1-tx2-head1.txt"))
    assert doc["vendor"] == "nvidia"
    assert "no-gpu-driver" not in [f["id"] for f in doc["findings"]]
    assert any(f["id"] == "not-checked" and "Jetson" in f["message"] for f in doc["findings"])


def test_rocm7_host_kernel_driver_is_not_checked(tmp_path, run_status):
    # ROCm 7.x ships no kernel driver of its own (AMD GPU Driver 30.x): the host's ROCm 7.1 release says nothing
    # about the driver's window, so the check is not-checked (not driver-too-old, not silence)
    m = load_matrix()
    assert m.rocm_release("7.1.0") is not None and m.rocm_kernel_window("7.1.0") is None
    row = next(r for r in m.rows("rocm", "torch_variant") if r["rocm"].startswith("7."))
    tj = {"version": f"{row['release']}+{row['variant']}", "cuda": None, "hip": f"{row['rocm']}.1-x"}
    # (a module version the matrix maps to no 30.x driver: 6.14.14 is AMD GPU Driver 30.10's, tests/test_vendors21f.py)
    extra = {"sys-module-amdgpu-version.txt": "6.16.6\n", "rocm-version.txt": "7.1.0-38\n"}
    _, rep, _ = run_status(_amd_machine(tmp_path, tj, extra=extra))
    assert "driver-too-old" not in ids(rep)
    f = next(f for f in rep["findings"] if f["id"] == "not-checked" and "30.x" in (f["fix"] or ""))
    assert "kernel driver" in f["message"]


def test_rocblas_without_the_targets_kernels(tmp_path, run_status):
    # gfx906 (Radeon VII / MI50) is compiled into the ROCm 6.4+ wheels, but their bundled rocBLAS has no kernels
    # for it (ROCm/legacy-rocm-build#4625, pytorch/pytorch#179865): an error, and the fix is a rocm6.3 build
    m = load_matrix()
    row = next(r for r in m.rows("rocm", "torch_variant")
               if "gfx906" in (r.get("gfx") or []) and "gfx906" in (r.get("rocblas_missing") or []))
    vii = ("*******\nAgent 2\n*******\n  Name:                    gfx906\n  Marketing Name:          AMD Radeon VII\n"
           "  Device Type:             GPU\n")
    tj = {"version": f"{row['release']}+{row['variant']}", "cuda": None, "hip": f"{row['rocm']}.0-x"}
    snap = make_snapshot(str(tmp_path / "vii"), {"rocminfo.txt": vii, "environ.json": {}, "torch.json": tj})
    code, rep, _ = run_status(snap)
    f = next(f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported")
    assert f["severity"] == "error" and "rocBLAS" in f["message"] and code == 1
    assert "rocm6.3" in f["fix"] and "rocm6.4" not in f["fix"]
    # the same GPU under a rocm6.3 build (its rocBLAS has gfx906): no finding
    ok = next(r for r in m.rows("rocm", "torch_variant") if r["variant"] == "rocm6.3" and "gfx906" in (r.get("gfx") or []))
    tj = {"version": f"{ok['release']}+{ok['variant']}", "cuda": None, "hip": "6.3.0-x"}
    snap = make_snapshot(str(tmp_path / "vii63"), {"rocminfo.txt": vii, "environ.json": {}, "torch.json": tj})
    assert "gpu-arch-unsupported" not in ids(run_status(snap)[1])


def test_rocblas_missing_next_to_a_usable_gpu_is_a_warning(tmp_path, run_status):
    m = load_matrix()
    row = next(r for r in m.rows("rocm", "torch_variant")
               if {"gfx906", "gfx1100"} <= set(r.get("gfx") or []) and "gfx906" in (r.get("rocblas_missing") or []))
    agents = "".join(f"*******\nAgent {i}\n*******\n  Name:                    {gfx}\n  Marketing Name:          {name}\n"
                     "  Device Type:             GPU\n"
                     for i, (gfx, name) in enumerate([("gfx906", "AMD Radeon VII"), ("gfx1100", "Radeon RX 7900 XTX")], 2))
    tj = {"version": f"{row['release']}+{row['variant']}", "cuda": None, "hip": f"{row['rocm']}.0-x"}
    snap = make_snapshot(str(tmp_path / "two"), {"rocminfo.txt": agents, "environ.json": {}, "torch.json": tj})
    _, rep, _ = run_status(snap)
    (f,) = [f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported"]
    assert f["severity"] == "warning" and "gfx906" in f["message"] and "HIP_VISIBLE_DEVICES" in f["fix"]
