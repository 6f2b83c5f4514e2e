"""The real H100 captures (tests/data/real/h100-580.159.04-torch2.11-cu130/captures/, taken on the machine with
scripts/gpu_check.sh) read right both as a snapshot's files and as pastes given to ``explain``.

The expected values were read by hand from those files: driver 580.159.04, CUDA 13.0 (the table's and -q's "CUDA
Version"), one "NVIDIA H100 80GB HBM3" with 81559 MiB (the table's and -q's "FB Memory Usage / Total", the CSV's
memory.total) and compute capability 9.0 (the CSV's compute_cap), torch 2.11.0+cu130 built with CUDA 13.0 (collect_env),
Python 3.12.3, nvcc 13.0.88, and the pip cuDNN wheel nvidia-cudnn-cu13==9.19.0.56 (9.19.0)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from envcheck.paste import PasteCollector, read_report

CAPS = Path(__file__).parent / "data" / "real" / "h100-580.159.04-torch2.11-cu130" / "captures"
GPU = "NVIDIA H100 80GB HBM3"


def _explain(text: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", "-"], input=text,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def _status(tmp_path: Path, files: dict) -> dict:
    snap = tmp_path / "snap"
    snap.mkdir(parents=True)
    for name, text in files.items():
        (snap / name).write_text(text)
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", str(snap)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


# ------------------------------------------------------------------------------------------ as pastes
# file -> (driver.version, driver.cuda, gpus, frameworks)
PASTES = {
    "nvidia-smi.txt": ("580.159.04", "13.0", [{"index": 0, "name": GPU, "compute_capability": None}]),
    "nvidia-smi-q.txt": ("580.159.04", "13.0", [{"index": 0, "name": GPU, "compute_capability": None}]),
    "nvidia-smi-L.txt": (None, None, [{"index": 0, "name": GPU, "compute_capability": None}]),
    "nvidia-smi-csv.txt": ("580.159.04", None, [{"index": 0, "name": GPU, "compute_capability": "9.0"}]),
    "nvidia-smi-csv-noheader.txt": ("580.159.04", None, [{"index": 0, "name": GPU, "compute_capability": "9.0"}]),
    "proc-driver-version.txt": ("580.159.04", None, []),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_nvidia_smi_forms_as_pastes(name):
    driver, cuda, gpus = PASTES[name]
    doc = _explain((CAPS / name).read_text())
    f = doc["facts"]
    assert f["driver"] == {"version": driver, "cuda": cuda}
    assert f["gpus"] == gpus
    assert f["frameworks"] == {} and f["python"] == {"version": None}  # nothing else is guessed
    assert doc["matches"] == []  # a healthy machine's output: no failure


def test_collect_env_as_paste_healthy_and_exact():
    doc = _explain((CAPS / "collect-env.txt").read_text())
    assert doc["matches"] == []
    f = doc["facts"]
    assert f["driver"] == {"version": "580.159.04", "cuda": None}  # collect_env prints no driver CUDA
    assert f["gpus"] == [{"index": 0, "name": GPU, "compute_capability": None}]  # nor a compute capability
    assert f["python"] == {"version": "3.12.3"}
    assert f["toolkit"] == {"version": "13.0", "nvcc": "13.0.88"}  # "CUDA runtime version: 13.0.88" is nvcc's
    assert f["frameworks"] == {"torch": {"version": "2.11.0+cu130", "cuda": "13.0", "cudnn": "9.19.0"}}
    assert "claims" not in f


def test_all_captures_pasted_together():
    text = "\n\n".join((CAPS / n).read_text() for n in ("collect-env.txt", "nvidia-smi.txt", "nvcc.txt",
                                                        "nvidia-smi-csv.txt"))
    f = _explain(text)["facts"]
    assert f["driver"] == {"version": "580.159.04", "cuda": "13.0"}
    assert f["gpus"] == [{"index": 0, "name": GPU, "compute_capability": "9.0"}]
    assert f["toolkit"] == {"version": "13.0", "nvcc": "13.0.88"}
    assert f["frameworks"]["torch"]["cuda"] == "13.0"


def test_q_memory_and_csv_memory_become_the_paste_capture():
    for name in ("nvidia-smi-q.txt", "nvidia-smi-csv.txt"):
        rep = read_report((CAPS / name).read_text())
        rows = rep.captures["nvidia-smi-query.csv"].splitlines()
        assert rows[1].split(", ")[1] == GPU and rows[1].endswith("81559 MiB"), name


@pytest.mark.parametrize("cut", [1, 3, 6, 12, 40])
def test_truncated_captures_read_what_they_show(cut):
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


def test_collector_reads_a_short_paste_whole():
    c = PasteCollector()
    c.feed_text((CAPS / "nvidia-smi-csv-noheader.txt").read_text())
    assert c.finish().facts["gpus"] == [{"index": 0, "name": GPU, "compute_capability": "9.0"}]


# ------------------------------------------------------------------------------------------ as snapshot files
@pytest.mark.parametrize("name,driver,cuda,memory", [
    ("nvidia-smi.txt", "580.159.04", "13.0", 81559),
    ("nvidia-smi-q.txt", "580.159.04", "13.0", 81559),
    ("nvidia-smi-L.txt", None, None, None),
])
def test_nvidia_smi_forms_as_snapshot_file(tmp_path, name, driver, cuda, memory):
    rep = _status(tmp_path, {"nvidia-smi.txt": (CAPS / name).read_text()})
    ids = [f["id"] for f in rep["findings"]]
    assert "no-gpu-driver" not in ids and rep["driver"]["nvidia_smi"] == "ok"
    assert rep["driver"]["version"] == driver
    assert rep["driver"]["cuda"] == cuda
    assert [(g["name"], g["memory_mib"]) for g in rep["gpus"]] == [(GPU, memory)]


@pytest.mark.parametrize("name,memory", [("nvidia-smi-csv.txt", 81559), ("nvidia-smi-csv-noheader.txt", None)])
def test_query_csv_as_snapshot_file(tmp_path, name, memory):
    rep = _status(tmp_path, {"nvidia-smi-query.csv": (CAPS / name).read_text()})
    assert rep["driver"]["version"] == "580.159.04"
    assert [(g["name"], g["compute_capability"], g["memory_mib"]) for g in rep["gpus"]] == [(GPU, "9.0", memory)]


def test_collect_env_and_proc_driver_as_snapshot(tmp_path):
    rep = _status(tmp_path, {"proc-driver-version.txt": (CAPS / "proc-driver-version.txt").read_text(),
                             "nvcc.txt": (CAPS / "nvcc.txt").read_text()})
    assert rep["driver"]["version"] == "580.159.04" and rep["driver"]["kernel_module"] == "open"
    assert rep["toolkit"]["version"] == "13.0"
