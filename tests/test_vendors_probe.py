"""Live detection of AMD / Intel machines (contract §9) with a fake /sys-/dev tree and fake tools on PATH
(real subprocesses), and the snapshot round trip of those files (kfd-topology/ included)."""

from __future__ import annotations

import json
import os
import stat

from helpers import fixture

from envcheck.environment import collect
from envcheck.matrix import load_matrix
from envcheck.probe.live import LiveSource
from envcheck.snapshot import open_snapshot
from envcheck.snapshot.writer import write_snapshot


def _tool(bindir, name, text, rc=0):
    path = os.path.join(bindir, name)
    data = os.path.join(bindir, name + ".out")
    with open(data, "w") as fh:
        fh.write(text)
    with open(path, "w") as fh:
        fh.write(f"#!/bin/sh\ncat '{data}'\nexit {rc}\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def _amd_root(tmp_path):
    root = tmp_path / "root"
    (root / "sys/module/amdgpu").mkdir(parents=True)
    (root / "sys/module/amdgpu/version").write_text("6.8.5\n")
    (root / "dev/dri").mkdir(parents=True)
    (root / "dev/kfd").write_text("")
    (root / "dev/dri/renderD128").write_text("")
    node = root / "sys/class/kfd/kfd/topology/nodes/1"
    node.mkdir(parents=True)
    (node / "properties").write_text(fixture("vendors", "kfd-topology",
                                             "gfx1151-node1-properties-truncated-lemonade419.txt"))
    (node / "name").write_text("gfx1151\n")
    (root / "opt/rocm/.info").mkdir(parents=True)
    (root / "opt/rocm/.info/version").write_text("6.2.4-120\n")
    return root


def test_live_amd_probe_reads_tools_files_and_devices(tmp_path, monkeypatch):
    root = _amd_root(tmp_path)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _tool(str(bindir), "rocminfo", fixture("vendors", "rocminfo", "gfx1032-w6600-agent2-legacy1756.txt"))
    _tool(str(bindir), "rocm-smi", "ERROR: no permission\n", rc=2)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    src = LiveSource(root=str(root), timeout=10, environ={"PATH": f"{bindir}:/usr/bin:/bin",
                                                          "ROCM_PATH": str(root / "opt/rocm")})
    caps = src.all()
    assert "gfx1032" in (caps["rocminfo.txt"].text or "")
    assert caps["rocm-smi.txt"].status == "failed"
    assert caps["sys-module-amdgpu-version.txt"].text == "6.8.5\n"
    assert caps["kfd-topology/1/name"].text == "gfx1151\n"
    assert caps["rocm-version.txt"].text == "6.2.4-120\n"
    dev = json.loads(caps["devices.json"].text or "{}")
    assert dev["/dev/kfd"]["exists"] is True and dev["/dev/dri/renderD128"]["readable"] is True
    assert isinstance(dev.get("groups"), list)
    assert caps["sycl-ls.txt"].status == "not-found"  # no Intel display device on the fake PCI bus
    env = collect(src, load_matrix())
    assert env.accel.vendor == "amd" and env.accel.amdgpu == "6.8.5" and env.accel.rocm_version == "6.2.4"
    assert [g.gfx for g in env.accel.gpus] == ["gfx1032"]  # rocminfo's agent (richer than the KFD node)


def test_no_amd_tool_runs_without_amdgpu(tmp_path, monkeypatch):
    root = tmp_path / "root"
    root.mkdir()
    bindir = tmp_path / "bin"
    bindir.mkdir()
    marker = tmp_path / "ran"
    with open(bindir / "rocminfo", "w") as fh:
        fh.write(f"#!/bin/sh\ntouch '{marker}'\n")
    os.chmod(bindir / "rocminfo", 0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    caps = LiveSource(root=str(root), timeout=10).all()
    assert caps["rocminfo.txt"].status == "not-found" and not marker.exists()


def test_intel_pci_device_gates_intel_tools(tmp_path, monkeypatch):
    root = tmp_path / "root"
    dev = root / "sys/bus/pci/devices/0000:03:00.0"
    dev.mkdir(parents=True)
    (dev / "vendor").write_text("0x8086\n")
    (dev / "device").write_text("0x56a0\n")
    (dev / "class").write_text("0x030000\n")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _tool(str(bindir), "sycl-ls", fixture("vendors", "sycl-ls", "opencl-gpu-no-level-zero-a750-llvm17535.txt"))
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    src = LiveSource(root=str(root), timeout=10)
    caps = src.all()
    assert json.loads(caps["pci-gpus.json"].text or "[]") == [
        {"slot": "0000:03:00.0", "class": "0x030000", "vendor": "0x8086", "device": "0x56a0"}]
    env = collect(src, load_matrix())
    assert env.accel.vendor == "intel" and env.accel.gpus[0].device_id == "0x56a0"
    assert env.accel.level_zero_gpus == ()


def test_snapshot_round_trip_with_kfd_topology(tmp_path, monkeypatch):
    root = _amd_root(tmp_path)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    src = LiveSource(root=str(root), timeout=10, environ={"ROCM_PATH": str(root / "opt/rocm")})
    out = write_snapshot(src, str(tmp_path / "snap"))
    assert "kfd-topology/1/properties" in out.files
    assert os.path.isfile(tmp_path / "snap" / "kfd-topology" / "1" / "properties")
    again = collect(open_snapshot(str(tmp_path / "snap")), load_matrix())
    assert [g.gfx for g in again.accel.gpus] == ["gfx1151"] and again.accel.rocm_version == "6.2.4"
    # --force replaces a snapshot that has the kfd-topology/ folder
    write_snapshot(src, str(tmp_path / "snap"), force=True)
    arch = write_snapshot(src, str(tmp_path / "snap.tar.gz"), archive=True)
    again = collect(open_snapshot(arch.path), load_matrix())
    assert [g.gfx for g in again.accel.gpus] == ["gfx1151"]


def test_xpu_torch_in_another_venv_is_an_xpu_build(tmp_path):
    """A real venv holding an XPU torch's version.py (torch 2.5+ writes ``xpu = ...`` there): status reads it
    without importing torch."""
    import subprocess
    import sys

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    sp = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    os.makedirs(os.path.join(sp, "torch"))
    with open(os.path.join(sp, "torch", "version.py"), "w") as fh:
        fh.write('__version__ = "2.7.0+xpu"\ncuda = None\nhip = None\nxpu = "20250101"\n')
    src = LiveSource(timeout=20, interpreter=str(py))
    tj = json.loads(src.get("torch.json").text or "{}")
    assert tj["xpu"] == "20250101"
    env = collect(src, load_matrix())
    t = env.frameworks["torch"]
    assert t.xpu is True and t.cpu_only is False


def test_kfd_keys_without_the_topology_folder_are_what_reading_them_says(tmp_path):
    """A machine without the KFD topology folder (every one but an AMD one) answers its 64 kfd-topology keys
    without trying each file: the same capture (status, detail, origin) as reading it, whatever stands where the
    folder should be (nothing, a file, a broken link, the folder itself with some nodes)."""
    from envcheck.snapshot.reader import KFD_KEYS

    def reading(src, key):  # each file read, as before the shortcut
        src._kfd_nodes_known = True
        return src._kfd_key(key)

    setups = {"nothing": lambda r: None,
              "no class/kfd": lambda r: (r / "sys/class").mkdir(parents=True),
              "nodes is a file": lambda r: ((r / "sys/class/kfd/kfd/topology").mkdir(parents=True),
                                            (r / "sys/class/kfd/kfd/topology/nodes").write_text("x")),
              "kfd is a broken link": lambda r: ((r / "sys/class/kfd").mkdir(parents=True),
                                                 os.symlink(str(r / "gone"), str(r / "sys/class/kfd/kfd"))),
              "nodes with node 1": lambda r: _amd_root(tmp_path / "amd")}
    for name, make in setups.items():
        root = tmp_path / name.replace(" ", "-") / "root" if name != "nodes with node 1" else tmp_path / "amd" / "root"
        root.mkdir(parents=True, exist_ok=True)
        make(root)
        quick, slow = LiveSource(root=str(root)), LiveSource(root=str(root))
        for key in KFD_KEYS:
            assert quick._kfd_key(key) == reading(slow, key), (name, key)
        assert quick._kfd_nodes_known is (name == "nodes with node 1"), name
    assert LiveSource(root=str(tmp_path / "amd" / "root"))._kfd_key("kfd-topology/1/name").text == "gfx1151\n"
