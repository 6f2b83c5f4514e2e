"""The real GPU machines' captures (tests/data/real/*/captures/, taken on each machine with scripts/gpu_check.sh)
read right both as a snapshot's files and as pastes given to ``explain``.

The expected values were read by hand from those files. Both machines: driver 580.159.04, CUDA 13.0 (the table's and
-q's "CUDA Version"), compute capability 9.0 (the CSV's compute_cap), torch 2.11.0+cu130 built with CUDA 13.0
(collect_env), Python 3.12.3, nvcc 13.0.88, and the pip cuDNN wheel nvidia-cudnn-cu13==9.19.0.56 (9.19.0). The H100
(2026-11-26): one "NVIDIA H100 80GB HBM3" with 81559 MiB (the table's and -q's "FB Memory Usage / Total", the CSV's
memory.total). The H200 (2026-11-27): one "NVIDIA H200" with 143771 MiB."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import status_of_files

from envcheck.paste import PasteCollector, read_report

REAL = Path(__file__).parent / "data" / "real"
# folder -> (GPU name, memory MiB), read by hand from its nvidia-smi table
MACHINES = {
    "h100-580.159.04-torch2.11-cu130": ("NVIDIA H100 80GB HBM3", 81559),
    "h200-580.159.04-torch2.11-cu130": ("NVIDIA H200", 143771),
}


@pytest.fixture(params=sorted(MACHINES))
def machine(request):
    """(captures folder, GPU name, memory MiB) of one real machine."""
    gpu, mem = MACHINES[request.param]
    return REAL / request.param / "captures", gpu, mem


def test_every_real_machine_is_covered():
    # (the broken states made on the H200 are tests/test_real_broken_states.py's)
    assert sorted(p.name for p in REAL.iterdir() if p.is_dir()) == sorted([*MACHINES, "h200-580.159.04-broken-states"])


def _explain(text: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", "-"], input=text,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


_status = status_of_files


# ------------------------------------------------------------------------------------------ as pastes
# file -> (driver.version, driver.cuda, the GPU's compute capability or None, whether a GPU is listed)
PASTES = {
    "nvidia-smi.txt": ("580.159.04", "13.0", None, True),
    "nvidia-smi-q.txt": ("580.159.04", "13.0", None, True),
    "nvidia-smi-L.txt": (None, None, None, True),
    "nvidia-smi-csv.txt": ("580.159.04", None, "9.0", True),
    "nvidia-smi-csv-noheader.txt": ("580.159.04", None, "9.0", True),
    "proc-driver-version.txt": ("580.159.04", None, None, False),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_nvidia_smi_forms_as_pastes(machine, name):
    CAPS, GPU, _ = machine
    driver, cuda, cc, listed = PASTES[name]
    gpus = [{"index": 0, "name": GPU, "compute_capability": cc}] if listed else []
    doc = _explain((CAPS / name).read_text())
    f = doc["facts"]
    assert f["driver"] == {"version": driver, "cuda": cuda}
    assert f["gpus"] == gpus
    assert f["frameworks"] == {} and f["python"] == {"version": None}  # nothing else is guessed
    assert doc["matches"] == []  # a healthy machine's output: no failure


def test_collect_env_as_paste_healthy_and_exact(machine):
    CAPS, GPU, MEM = machine
    doc = _explain((CAPS / "collect-env.txt").read_text())
    assert doc["matches"] == []
    f = doc["facts"]
    assert f["driver"] == {"version": "580.159.04", "cuda": None}  # collect_env prints no driver CUDA
    assert f["gpus"] == [{"index": 0, "name": GPU, "compute_capability": None}]  # nor a compute capability
    assert f["python"] == {"version": "3.12.3"}
    assert f["toolkit"] == {"version": "13.0", "nvcc": "13.0.88"}  # "CUDA runtime version: 13.0.88" is nvcc's
    # its pip list's "[pip3] onnxruntime==1.30.0" is ONNX Runtime's CPU package (ort22): no CUDA, no cuDNN of its own
    assert f["frameworks"] == {"torch": {"version": "2.11.0+cu130", "cuda": "13.0", "cudnn": "9.19.0"},
                               "onnxruntime": {"version": "1.30.0", "package": "onnxruntime", "cuda": None,
                                               "cudnn": None}}
    assert "claims" not in f


def test_all_captures_pasted_together(machine):
    CAPS, GPU, MEM = machine
    text = "\n\n".join((CAPS / n).read_text() for n in ("collect-env.txt", "nvidia-smi.txt", "nvcc.txt",
                                                        "nvidia-smi-csv.txt"))
    f = _explain(text)["facts"]
    assert f["driver"] == {"version": "580.159.04", "cuda": "13.0"}
    assert f["gpus"] == [{"index": 0, "name": GPU, "compute_capability": "9.0"}]
    assert f["toolkit"] == {"version": "13.0", "nvcc": "13.0.88"}
    assert f["frameworks"]["torch"]["cuda"] == "13.0"


def test_q_memory_and_csv_memory_become_the_paste_capture(machine):
    CAPS, GPU, MEM = machine
    for name in ("nvidia-smi-q.txt", "nvidia-smi-csv.txt"):
        rep = read_report((CAPS / name).read_text())
        rows = rep.captures["nvidia-smi-query.csv"].splitlines()
        assert rows[1].split(", ")[1] == GPU and rows[1].endswith(f"{MEM} MiB"), name


@pytest.mark.parametrize("cut", [1, 3, 6, 12, 40])
def test_truncated_captures_read_what_they_show(machine, cut):
    CAPS, GPU, _ = machine
    """A paste cut after a few lines: what the kept lines show, and nothing invented for the rest."""
    q = "\n".join((CAPS / "nvidia-smi-q.txt").read_text().splitlines()[:cut])
    f = read_report(q).facts
    if cut >= 4:  # banner, blank, timestamp, driver
        assert f["driver"]["version"] == "580.159.04"
    for g in (f.get("gpus") or []):
        assert g["name"] == GPU
    table = "\n".join((CAPS / "nvidia-smi.txt").read_text().splitlines()[:cut])
    tf = read_report(table).facts
    if cut >= 3:
        assert tf["driver"] == {"version": "580.159.04", "cuda": "13.0"}
    assert all(g["name"] == GPU for g in tf.get("gpus") or [])
    env = "\n".join((CAPS / "collect-env.txt").read_text().splitlines()[:cut])
    ef = read_report(env).facts
    if cut >= 2:  # the +cu130 label alone says CUDA 13.0, before "CUDA used to build PyTorch" is shown
        assert ef["frameworks"]["torch"]["version"] == "2.11.0+cu130"
        assert ef["frameworks"]["torch"]["cuda"] == "13.0"
    else:
        assert ef.get("frameworks", {}) == {}
    if cut < 22:  # the cuDNN wheel's row is far below: no cuDNN yet, and no driver before its line
        assert ef.get("frameworks", {}).get("torch", {}).get("cudnn") is None
        assert (ef.get("driver") or {}).get("version") is None


def test_collector_reads_a_short_paste_whole(machine):
    CAPS, GPU, MEM = machine
    c = PasteCollector()
    c.feed_text((CAPS / "nvidia-smi-csv-noheader.txt").read_text())
    assert c.finish().facts["gpus"] == [{"index": 0, "name": GPU, "compute_capability": "9.0"}]


# ------------------------------------------------------------------------------------------ as snapshot files
@pytest.mark.parametrize("name,driver,cuda,with_memory", [
    ("nvidia-smi.txt", "580.159.04", "13.0", True),
    ("nvidia-smi-q.txt", "580.159.04", "13.0", True),
    ("nvidia-smi-L.txt", None, None, False),
])
def test_nvidia_smi_forms_as_snapshot_file(tmp_path, machine, name, driver, cuda, with_memory):
    CAPS, GPU, MEM = machine
    memory = MEM if with_memory else None
    rep = _status(tmp_path, {"nvidia-smi.txt": (CAPS / name).read_text()})
    ids = [f["id"] for f in rep["findings"]]
    assert "no-gpu-driver" not in ids and rep["driver"]["nvidia_smi"] == "ok"
    assert rep["driver"]["version"] == driver
    assert rep["driver"]["cuda"] == cuda
    assert [(g["name"], g["memory_mib"]) for g in rep["gpus"]] == [(GPU, memory)]


@pytest.mark.parametrize("name,with_memory", [("nvidia-smi-csv.txt", True), ("nvidia-smi-csv-noheader.txt", False)])
def test_query_csv_as_snapshot_file(tmp_path, machine, name, with_memory):
    CAPS, GPU, MEM = machine
    memory = MEM if with_memory else None
    rep = _status(tmp_path, {"nvidia-smi-query.csv": (CAPS / name).read_text()})
    assert rep["driver"]["version"] == "580.159.04"
    assert [(g["name"], g["compute_capability"], g["memory_mib"]) for g in rep["gpus"]] == [(GPU, "9.0", memory)]


def test_collect_env_and_proc_driver_as_snapshot(tmp_path, machine):
    CAPS = machine[0]
    rep = _status(tmp_path, {"proc-driver-version.txt": (CAPS / "proc-driver-version.txt").read_text(),
                             "nvcc.txt": (CAPS / "nvcc.txt").read_text()})
    assert rep["driver"]["version"] == "580.159.04" and rep["driver"]["kernel_module"] == "open"
    assert rep["toolkit"]["version"] == "13.0"


# ------------------------------------------------------------------------------------------ the whole snapshot
def test_whole_snapshot_replays_healthy(machine):
    """`envcheck snapshot --deep` written on the machine itself (then redacted) replays as the live run printed
    there: healthy, with the machine's own facts (the system cuDNN 9.14.0 of the image and torch's 9.19.0 wheel)."""
    caps, gpu, mem = machine
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", str(caps.parent / "snapshot")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert rep["ok"] is True
    assert [f["id"] for f in rep["findings"] if f["severity"] in ("error", "warning")] == []
    assert (rep["driver"]["version"], rep["driver"]["cuda"], rep["driver"]["kernel_module"]) == ("580.159.04", "13.0",
                                                                                                  "open")
    assert [(g["name"], g["compute_capability"], g["memory_mib"]) for g in rep["gpus"]] == [(gpu, "9.0", mem)]
    assert sorted(c["version"] for c in rep["cudnn"]) == ["9.14.0", "9.19.0"]
    torch = rep["frameworks"]["torch"]
    assert (torch["version"], torch["cuda"], torch["cudnn"]) == ("2.11.0+cu130", "13.0", "9.19.0")
    assert rep["toolkit"]["nvcc"] == "13.0.88"
