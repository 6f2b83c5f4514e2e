"""Real GPU machines (tests/data/real/): envcheck's report on each snapshot agrees with what the machine's own tools
printed there (the raw captures beside it, read here with plain regexes), and says nothing false or noisy."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

REAL = os.path.join(os.path.dirname(__file__), "data", "real")
H100 = os.path.join(REAL, "h100-580.159.04-torch2.11-cu130")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})


def _capture(name: str) -> str:
    with open(os.path.join(H100, "captures", name), encoding="utf-8") as f:
        return f.read()


def _one(pattern: str, text: str) -> str:
    m = re.search(pattern, text, re.M)
    assert m, pattern
    return m.group(1)


@pytest.fixture(scope="module")
def h100_report() -> dict:
    r = _cli("status", "--snapshot", os.path.join(H100, "snapshot"), "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_h100_driver_and_gpu_agree_with_nvidia_smi_q(h100_report: dict) -> None:
    q = _capture("nvidia-smi-q.txt")
    assert h100_report["driver"]["version"] == _one(r"^Driver Version\s*:\s*(\S+)", q)
    assert h100_report["driver"]["cuda"] == _one(r"^CUDA Version\s*:\s*(\S+)", q)
    assert h100_report["driver"]["kernel_module"] == "open"  # /proc/driver/nvidia/version: "Open Kernel Module"
    assert "Open Kernel Module" in _capture("proc-driver-version.txt")
    (gpu,) = h100_report["gpus"]
    assert gpu["name"] == _one(r"^\s+Product Name\s*:\s*(.+?)\s*$", q)
    csv = _capture("nvidia-smi-csv.txt").splitlines()[1].split(", ")
    assert gpu["memory_mib"] == int(csv[3].split()[0])
    assert gpu["compute_capability"] == csv[4] == "9.0"
    assert gpu["bus_id"] == csv[5]


def test_h100_toolkit_and_frameworks_agree_with_nvcc_and_collect_env(h100_report: dict) -> None:
    nvcc = _capture("nvcc.txt")
    ce = _capture("collect-env.txt")
    assert h100_report["toolkit"]["version"] == _one(r"release (\d+\.\d+),", nvcc)
    assert h100_report["toolkit"]["nvcc"] == _one(r"V(\d+\.\d+\.\d+)", nvcc)
    torch = h100_report["frameworks"]["torch"]
    assert torch["version"] == _one(r"^PyTorch version: (\S+)", ce)
    assert torch["cuda"] == _one(r"^CUDA used to build PyTorch: (\S+)", ce)
    pins = dict(line.split("==") for line in _capture("pip-list.txt").split() if "==" in line)
    assert torch["cudnn"] == ".".join(pins["nvidia-cudnn-cu13"].split(".")[:3])
    assert h100_report["frameworks"]["jax"]["version"] == pins["jax"]
    assert h100_report["frameworks"]["cupy"]["version"] == pins["cupy-cuda13x"]
    assert h100_report["python"]["version"] == _one(r"^Python version: (\S+)", ce)


def test_h100_healthy_machine_is_ok_and_quiet(h100_report: dict) -> None:
    assert h100_report["ok"] is True
    sev = {f["severity"] for f in h100_report["findings"]}
    assert sev <= {"info"}, h100_report["findings"]
    # PyPI's torch wheel: METADATA 2.11.0, torch.__version__ 2.11.0+cu130 -> the same build, no note
    assert not any("packages.json says" in n for n in h100_report["notes"])
    # jax-cuda13-plugin 0.11.2: the matrix's CUDA 13 list (sm_75 ... sm_120, read from the wheel) has sm_90, so the
    # H100 is checked, not left as not-checked (before the lists: "the architecture list of jax 0.11.2 ... is not known")
    assert not [f for f in h100_report["findings"] if f["id"] == "not-checked"], h100_report["findings"]
    assert not [f for f in h100_report["findings"] if f.get("framework") == "jax" or "jax" in f["message"]]


def test_h100_jax_install_is_checked_against_its_cuda13_list() -> None:
    # the installed build itself (jax-cuda13-plugin / -pjrt 0.11.2 in packages.json): its list comes from the matrix's
    # CUDA 13 row, and the H100's compute capability 9.0 (nvidia-smi -q) is compiled in as SASS
    from envcheck.engine import evaluate, machine_from_env
    from envcheck.engine.builds import installed_build
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix
    from envcheck.snapshot import open_snapshot

    matrix = load_matrix()
    env = collect(open_snapshot(os.path.join(H100, "snapshot")), matrix)
    b = installed_build(matrix, env.frameworks["jax"])
    assert "sm_90" in b.arch and "sm_50" not in b.arch and "compute_120" in b.arch
    assert "jax 0.11.2" in (b.arch_source or "") and "CUDA 13" in (b.arch_source or "")
    v = evaluate(matrix, b, machine_from_env(env, matrix))
    assert v.ok and not v.unknown, (v.failed, v.unknown)


def test_h100_cudnn_copies_merged_usr_counted_once(h100_report: dict) -> None:
    # ldconfig names /lib/x86_64-linux-gnu/libcudnn.so.9, the file scan /usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0:
    # on Ubuntu 24.04 (merged /usr) one file; the pip wheel's 9.19.0 is the other copy
    ld = open(os.path.join(H100, "snapshot", "ldconfig.txt"), encoding="utf-8").read()
    assert "=> /lib/x86_64-linux-gnu/libcudnn.so.9" in ld
    copies = sorted((c["version"], c["source"]) for c in h100_report["cudnn"])
    assert copies == [("9.14.0", "ldconfig"), ("9.19.0", "pip")]


def test_h100_fix_keeps_the_working_install() -> None:
    r = _cli("fix", "--snapshot", os.path.join(H100, "snapshot"), "--json")
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)
    assert plan["satisfiable"] is True and plan["driver"]["upgrade_needed"] is False
    torch = next(p for p in plan["packages"] if p["name"] == "torch")
    assert (torch["version"], torch["variant"]) == ("2.11.0", "cu130")
    # jax's CUDA 13 build is verified now (its list has sm_90), not planned "unverified"
    jax = next(p for p in plan["packages"] if p["name"] == "jax")
    assert (jax["version"], jax["variant"]) == ("0.11.2", "cuda13")
    assert not [n for n in json.dumps(plan).split('"') if "unverified" in n and "jax" in n]


def test_h100_collect_env_paste_is_healthy() -> None:
    r = _cli("explain", os.path.join(H100, "captures", "collect-env.txt"), "--json")
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and doc["matches"] == []  # exit 1: no known failure recognised (contract)
    facts = doc["facts"]
    assert facts["driver"]["version"] == "580.159.04"
    assert facts["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3"
    assert facts["frameworks"]["torch"]["version"] == "2.11.0+cu130"
    assert facts["frameworks"]["torch"]["cuda"] == "13.0"
    assert facts["toolkit"]["nvcc"] == "13.0.88"


def test_jax_build_without_a_known_list_points_to_smoke_not_deep(tmp_path) -> None:
    # the same machine with a jax plugin the matrix has no row for: its architecture list is unknown, and only a
    # real kernel on the GPU can tell (the deep probe reads torch's list, not jax's)
    import shutil

    snap = tmp_path / "snap"
    shutil.copytree(os.path.join(H100, "snapshot"), snap)
    pk = json.loads((snap / "packages.json").read_text())
    for name in ("jax", "jaxlib", "jax-cuda13-pjrt", "jax-cuda13-plugin"):
        pk[name] = "0.99.0"
    (snap / "packages.json").write_text(json.dumps(pk))
    r = _cli("status", "--snapshot", str(snap), "--json")
    doc = json.loads(r.stdout)
    (nc,) = [f for f in doc["findings"] if f["id"] == "not-checked" and "jax" in f["message"]]
    assert "architecture list" in nc["message"] and "smoke --framework jax" in nc["message"]
    assert "smoke --framework jax" in nc["fix"] and "--deep" not in nc["fix"]
