"""Issue 21, vendors21l: ``envcheck snapshot`` captures amd-smi's default view (``amd-smi.txt``) and hipInfo's device
list (``hipinfo.txt``), contract §9. Fake tools on PATH (real subprocesses) print real captures (tests/data/README.md
cites each); the probe's gates, timeout and output bound apply to them as to the other AMD tools."""

from __future__ import annotations

import json
import os
import re
import stat
import sys

import pytest
from helpers import fixture

from envcheck.environment import collect
from envcheck.matrix import load_matrix
from envcheck.probe import vendors as probe_vendors
from envcheck.probe.live import LiveSource
from envcheck.snapshot import open_snapshot
from envcheck.snapshot.writer import write_snapshot

NVIDIA_ONLY = re.compile(r"nvidia|nvml|libcuda|cuda driver|compute capability", re.IGNORECASE)

#: a real amd-smi 26.1.0 default view (one RX 7900 XTX, in-tree amdgpu, ROCm N/A)
AMD_SMI = fixture("vendors", "amd-smi", "v21j-default-26.1.0-rocm-na-builtin-7900xtx.txt")
#: a real hipInfo of the Windows HIP SDK (an iGPU gfx1036 and an RX 7900 XTX gfx1100)
HIPINFO = fixture("vendors", "hipinfo", "v21k-igpu-gfx1036-and-7900xtx-issue-fence.txt")


def _script(bindir, name, body):
    path = os.path.join(bindir, name)
    with open(path, "w") as fh:
        fh.write("#!/bin/sh\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def _cat_tool(bindir, name, text, only_without_args=False):
    """A fake ``name`` printing ``text`` (with ``only_without_args``: only when called with no argument, as amd-smi's
    default view; a subcommand then fails)."""
    data = os.path.join(bindir, name + ".out")
    with open(data, "w", encoding="utf-8") as fh:
        fh.write(text)
    guard = 'if [ "$#" -ne 0 ]; then echo "unsupported: $*" >&2; exit 2; fi\n' if only_without_args else ""
    _script(bindir, name, f"{guard}cat '{data}'\n")


def _amd_root(tmp_path):
    root = tmp_path / "root"
    (root / "sys/module/amdgpu").mkdir(parents=True)
    (root / "dev").mkdir()
    (root / "dev/kfd").write_text("")
    return root


def _source(tmp_path, bindir, root):
    path = f"{bindir}:/usr/bin:/bin"
    return LiveSource(root=str(root), timeout=10, environ={"PATH": path})


def test_live_probe_captures_amd_smi_default_view_and_hipinfo(tmp_path, monkeypatch):
    root = _amd_root(tmp_path)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _cat_tool(str(bindir), "amd-smi", AMD_SMI, only_without_args=True)
    _cat_tool(str(bindir), "hipInfo", HIPINFO)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    src = _source(tmp_path, bindir, root)
    caps = src.all()
    assert caps["amd-smi.txt"].status == "ok" and "AMD-SMI 26.1.0" in (caps["amd-smi.txt"].text or "")
    assert caps["amd-smi-static.txt"].status == "failed"  # the subcommand of this fake fails: the view is all
    assert caps["hipinfo.txt"].status == "ok" and "gcnArchName" in (caps["hipinfo.txt"].text or "")
    env = collect(src, load_matrix())
    assert env.accel.vendor == "amd"
    # hipInfo names both devices with their gfx; the default view's bus id / VRAM fill the 7900 XTX
    assert sorted(g.gfx for g in env.accel.gpus if g.gfx) == ["gfx1036", "gfx1100"]
    assert "amd-smi.txt" not in env.not_captured and "hipinfo.txt" not in env.not_captured
    # the snapshot holds both files and reads back the same GPUs
    out = write_snapshot(src, str(tmp_path / "snap"))
    assert {"amd-smi.txt", "hipinfo.txt"} <= set(out.files)
    again = collect(open_snapshot(str(tmp_path / "snap")), load_matrix())
    assert sorted(g.gfx for g in again.accel.gpus if g.gfx) == ["gfx1036", "gfx1100"]
    assert "amd-smi.txt" not in again.not_captured and "hipinfo.txt" not in again.not_captured
    with open(tmp_path / "snap" / "captures.json", encoding="utf-8") as fh:
        recorded = json.load(fh)
    assert recorded["hipinfo.txt"]["status"] == "ok" and recorded["amd-smi.txt"]["status"] == "ok"


def test_lower_case_hipinfo_is_run_where_hipinfo_is_not_there(tmp_path, monkeypatch):
    root = _amd_root(tmp_path)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _cat_tool(str(bindir), "hipinfo", HIPINFO)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    cap = _source(tmp_path, bindir, root).get("hipinfo.txt")
    assert cap.status == "ok" and "gfx1100" in (cap.text or "")


def test_absent_tools_are_recorded_as_not_found_not_as_not_captured(tmp_path, monkeypatch):
    root = _amd_root(tmp_path)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    src = _source(tmp_path, bindir, root)
    snap = write_snapshot(src, str(tmp_path / "snap"))
    with open(tmp_path / "snap" / "captures.json", encoding="utf-8") as fh:
        recorded = json.load(fh)
    assert recorded["amd-smi.txt"]["status"] == "not-found" and recorded["hipinfo.txt"]["status"] == "not-found"
    assert "command not found" in recorded["hipinfo.txt"]["detail"]
    env = collect(open_snapshot(snap.path), load_matrix())
    assert "amd-smi.txt" not in env.not_captured and "hipinfo.txt" not in env.not_captured


def test_no_hipinfo_or_amd_smi_runs_without_amdgpu_on_linux(tmp_path, monkeypatch):
    if sys.platform == "win32":
        pytest.skip("the Linux gate")
    root = tmp_path / "root"
    root.mkdir()
    bindir = tmp_path / "bin"
    bindir.mkdir()
    marker = tmp_path / "ran"
    for name in ("amd-smi", "hipInfo"):
        _script(str(bindir), name, f"echo {name} >> '{marker}'\n")
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    caps = LiveSource(root=str(root), timeout=10, environ={"PATH": f"{bindir}:/usr/bin:/bin"}).all()
    assert caps["amd-smi.txt"].status == "not-found" and caps["hipinfo.txt"].status == "not-found"
    assert "no amdgpu kernel module" in caps["hipinfo.txt"].detail
    assert not marker.exists()


def test_hanging_and_babbling_tools_are_bounded(tmp_path, monkeypatch):
    root = _amd_root(tmp_path)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _script(str(bindir), "amd-smi", "exec sleep 60\n")
    _script(str(bindir), "hipInfo", "exec yes device#\n")
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    src = LiveSource(root=str(root), timeout=1, environ={"PATH": f"{bindir}:/usr/bin:/bin"})
    hang = src.get("amd-smi.txt")
    assert hang.status == "timed-out"
    babble = src.get("hipinfo.txt")
    assert babble.status in ("failed", "timed-out")
    assert len(babble.text or "") <= 4 * 1024 * 1024


def test_hipinfo_on_windows_is_looked_for_in_hip_path(tmp_path, monkeypatch):
    # Windows: no amdgpu module, no /dev/kfd; the HIP SDK's bin (%HIP_PATH%\bin) holds hipInfo
    root = tmp_path / "root"
    root.mkdir()
    sdk = tmp_path / "HIP" / "6.2"
    (sdk / "bin").mkdir(parents=True)
    _cat_tool(str(sdk / "bin"), "hipInfo", HIPINFO)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    src = LiveSource(root=str(root), timeout=10, environ={"PATH": "/usr/bin:/bin", "HIP_PATH": str(sdk)})
    monkeypatch.setattr(probe_vendors.sys, "platform", "win32")
    cap = src.get("hipinfo.txt")
    monkeypatch.undo()
    assert cap.status == "ok" and "gfx1036" in (cap.text or "")
    # without HIP_PATH and with nothing on PATH it is not found (never a failure)
    src = LiveSource(root=str(root), timeout=10, environ={"PATH": "/usr/bin:/bin"})
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(probe_vendors.sys, "platform", "win32")
    cap = src.get("hipinfo.txt")
    monkeypatch.undo()
    assert cap.status == "not-found" and "HIP_PATH" in cap.detail


H100 = os.path.join(os.path.dirname(__file__), "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot")


def test_an_older_snapshot_that_skipped_the_amd_tools_skipped_these_too(tmp_path):
    # the real H100 snapshot predates the two files: its captures.json records amd-smi / hipconfig as skipped (no
    # amdgpu module, no /dev/kfd), the gate these run behind, so they are not "not captured"
    env = collect(open_snapshot(H100), load_matrix())
    assert "amd-smi.txt" not in env.not_captured and "hipinfo.txt" not in env.not_captured
    src = open_snapshot(H100)
    assert src.get("hipinfo.txt").status == "not-found" and "as hipconfig.txt" in src.get("hipinfo.txt").detail
    # the same snapshot said to come from a Windows Python: hipInfo there has no amdgpu gate, so it stays unknown
    snap = tmp_path / "win"
    snap.mkdir()
    for name in os.listdir(H100):
        (snap / name).write_bytes((open(os.path.join(H100, name), "rb")).read())
    (snap / "python.json").write_text(json.dumps({"version": "3.12.4", "implementation": "CPython",
                                                  "platform": "win32", "machine": "AMD64"}), encoding="utf-8")
    env = collect(open_snapshot(str(snap)), load_matrix())
    assert "hipinfo.txt" in env.not_captured and "amd-smi.txt" not in env.not_captured
    # a captures.json that does not record the sibling as skipped says nothing of the new files
    caps = json.loads((snap / "captures.json").read_text(encoding="utf-8"))
    del caps["amd-smi-static.txt"]
    (snap / "captures.json").write_text(json.dumps(caps), encoding="utf-8")
    env = collect(open_snapshot(str(snap)), load_matrix())
    assert "amd-smi.txt" in env.not_captured


# --- HSA_OVERRIDE_GFX_VERSION: the GPU's own gfx from ROCm's device table (compat_matrix/rocm.toml [[device_gfx]]) ---
#: a real rocminfo of an RX 6700 XT (chip 0x73df) run under HSA_OVERRIDE_GFX_VERSION=10.3.0: it reports gfx1030
OVERRIDDEN = fixture("vendors", "rocminfo", "v21l-override-10.3.0-gfx1030-chip-0x73df-wsl-readme.txt")


def _override_snapshot(tmp_path, environ, rocminfo=OVERRIDDEN):
    from helpers import make_snapshot

    torch = {"version": "2.5.1+rocm6.2", "hip": "6.2.41133"}
    return make_snapshot(str(tmp_path / "amd"), {"rocminfo.txt": rocminfo, "environ.json": environ,
                                                 "torch.json": torch, "packages.json": {"torch": torch["version"]}})


def test_device_table_rows_come_from_the_thunk_and_hold_each_id_once():
    from envcheck.matrix import load_matrix

    m = load_matrix()
    rows = m.rows("rocm", "device_gfx")
    ids = [d for r in rows for d in r["device_ids"]]
    assert len(ids) == len(set(ids))
    assert all(r["source"].startswith(("ROCm/ROCT-Thunk-Interface@06a9b94", "GPUOpen-Tools/device_info@a44c00c"))
               for r in rows)
    assert m.amd_device_gfx("0x73DF")["gfx"] == "gfx1031" and m.amd_device_gfx("731f")["gfx"] == "gfx1010"
    # an RX 7900 XTX (gfx1100): the thunk's table stops at gfx 10, AMD's device_info table holds it (attack32)
    assert m.amd_device_gfx("0x744c")["source"].startswith("GPUOpen-Tools/device_info@")
    assert m.amd_device_gfx("0x744c")["gfx"] == "gfx1100"
    assert m.amd_device_gfx(None) is None and m.amd_device_gfx("0x73df0") is None


def test_override_rocminfo_names_the_gpus_own_target(tmp_path, run_status):
    _, rep, _ = run_status(_override_snapshot(tmp_path, {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}))
    [g] = rep["gpus"]
    assert (g["gfx"], g["device_id"]) == ("gfx1030", "0x73df")  # what rocminfo reported, kept as read
    [f] = [f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported"]
    # torch 2.5.1+rocm6.2 has gfx1030, not gfx1031: the GPU runs through the same-family override, said as such
    assert f["severity"] == "info" and "(gfx1031)" in f["message"] and "unofficial workaround" in f["message"]
    assert "reports gfx1030 because HSA_OVERRIDE_GFX_VERSION=10.3.0 is set" in f["message"]
    assert "0x73df is gfx1031 (NAVY_FLOUNDER)" in f["message"]
    assert not any(NVIDIA_ONLY.search(x["message"]) for x in rep["findings"])


def test_without_the_override_the_reported_target_stands(tmp_path, run_status):
    _, rep, _ = run_status(_override_snapshot(tmp_path, {}))
    assert not [f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported"]  # gfx1030 is compiled in
    assert not any("NAVY_FLOUNDER" in f["message"] for f in rep["findings"])


def test_override_with_no_device_id_leaves_the_own_target_unknown(tmp_path, run_status):
    text = "\n".join(line for line in OVERRIDDEN.splitlines() if "Chip ID" not in line) + "\n"
    _, rep, _ = run_status(_override_snapshot(tmp_path, {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}, text))
    nc = [f for f in rep["findings"] if f["id"] == "not-checked" and "own gfx target" in f["message"]]
    assert len(nc) == 1 and "HSA_OVERRIDE_GFX_VERSION=10.3.0" in nc[0]["fix"]
    assert "kfd" in nc[0]["fix"]


def test_rdna1_card_reported_as_gfx1030_is_a_cross_family_override():
    # an RX 5700 XT (0x731f, gfx1010 in the thunk's table) under 10.3.0 reports gfx1030; across ISA families it faults
    from envcheck.engine.vendors import gfx_verdict, own_gfx
    from envcheck.model import Gpu

    m = load_matrix()
    g = Gpu(index=0, name="AMD Radeon RX 5700 XT", vendor="amd", gfx="gfx1030", device_id="0x731f", source="rocminfo")
    real, why = own_gfx(m, g, "10.3.0")
    assert real == "gfx1010" and "Navi10" in (why or "")
    assert gfx_verdict(m, real, ["gfx1030", "gfx1100"], "10.3.0")[0] == "override-crosses"
    assert own_gfx(m, g, None) == ("gfx1030", None) and own_gfx(m, g, "11.0.0") == ("gfx1030", None)


# --- batch 21l readers: the two forms its dev part showed the readers missing (scripts/score_vendors21f.py --dev=v21l) ---
def test_system_profiler_json_quoted_as_go_comment_lines_is_read():
    from envcheck.parse.macos import parse_system_profiler

    text = fixture("vendors", "system-profiler", "v21l-json-m1-7-core-go-comment-tabs.txt")
    assert text.splitlines()[0].startswith("//\t")
    [g] = parse_system_profiler(text)
    assert (g.name, g.vendor, g.source) == ("Apple M1", "apple", "system_profiler -json")
    # the same lines without the comment marks read the same
    plain = "\n".join(ln[3:] for ln in text.splitlines()) + "\n"
    assert [g.name for g in parse_system_profiler(plain)] == ["Apple M1"]


def test_system_profiler_json_comment_through_status(tmp_path, run_status):
    from helpers import make_snapshot

    snap = make_snapshot(str(tmp_path / "mac"), {"system-profiler-displays.txt": fixture(
        "vendors", "system-profiler", "v21l-json-m1-7-core-go-comment-tabs.txt")})
    _, rep, _ = run_status(snap)
    assert rep["vendor"] == "apple" and [g["name"] for g in rep["gpus"]] == ["Apple M1"]
    assert not any(NVIDIA_ONLY.search(f["message"]) for f in rep["findings"])


def test_clinfo_markdown_escaped_brackets_are_unescaped():
    from envcheck.parse.intel import parse_clinfo

    text = fixture("vendors", "clinfo", "v21l-l-markdown-escaped-brackets-no-backtick-a770-or-iris.txt")
    assert "\\[0x9a49\\]" in text
    assert [d["name"] for d in parse_clinfo(text)] == ["Intel(R) Arc(TM) A770 Graphics",
                                                       "Intel(R) Iris(R) Xe Graphics [0x9a49]"]
    # a backslash before a letter (a Windows path in a clinfo line) is left as it is
    assert parse_clinfo("Platform #0: X\n `-- Device #0: C:\\Intel\\GPU\n")[0]["name"] == "C:\\Intel\\GPU"


@pytest.mark.parametrize("name", sorted(json.loads(open(os.path.join(os.path.dirname(__file__), "data", "vendors",
                                                                        "v21l-expected.json")).read())))
def test_every_21l_dev_capture_reads_its_facts(name, tmp_path, run_status):
    from helpers import make_snapshot

    key = {"amd-smi": "amd-smi.txt", "clinfo": "clinfo.txt", "hipinfo": "hipinfo.txt", "jetson-release": "jetson-release.txt",
           "rocm-smi": "rocm-smi.txt", "rocminfo": "rocminfo.txt", "sw-vers": "sw-vers.txt", "sycl-ls": "sycl-ls.txt",
           "system-profiler": "system-profiler-displays.txt", "tegra-release": "tegra-release.txt",
           "xpu-smi": "xpu-smi-discovery.txt"}[name.split("/")[0]]
    with open(os.path.join(os.path.dirname(__file__), "data", "vendors", "v21l-expected.json"), encoding="utf-8") as fh:
        facts = json.load(fh)[name]["facts"]
    snap = make_snapshot(str(tmp_path / "s"), {key: fixture("vendors", *name.split("/"))})
    _, rep, _ = run_status(snap)
    for k, want in facts.items():
        if k == "gpus":
            assert len(rep["gpus"]) == len(want)
            for g, w in zip(rep["gpus"], want):
                assert {f: g.get(f) for f in w} == w
            continue
        cur = rep
        for part in k.split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        assert cur == want, k
    if facts.get("vendor") != "nvidia":
        assert not any(NVIDIA_ONLY.search(f["message"]) for f in rep["findings"])
