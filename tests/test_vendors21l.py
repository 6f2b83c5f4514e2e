"""Issue 21, vendors21l: ``envcheck snapshot`` captures amd-smi's default view (``amd-smi.txt``) and hipInfo's device
list (``hipinfo.txt``), contract §9. Fake tools on PATH (real subprocesses) print real captures (tests/data/README.md
cites each); the probe's gates, timeout and output bound apply to them as to the other AMD tools."""

from __future__ import annotations

import json
import os
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
