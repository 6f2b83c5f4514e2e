"""A capture that lists more GPUs than any machine has (contract §1: at most 1024 read from one capture):
a fake nvidia-smi on PATH whose --query-gpu CSV lists 200,000 cards (a real H100's line, repeated) and a
snapshot whose rocm-smi.txt lists 40,000 (a real concise rocm-smi of 8 MI300X, repeated). Each is read
up to 1024 GPUs, and the report says so (a not-checked finding); a real machine is untouched."""

import json
import os
import subprocess
import sys

from helpers import make_snapshot

from envcheck.parse.limits import MAX_GPUS, capped
from envcheck.parse.nvidia_smi import parse_query_csv, parse_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H100 = os.path.join(ROOT, "tests", "data", "real", "h100-580.159.04-torch2.11-cu130", "captures")
MI300X = os.path.join(ROOT, "tests", "data", "vendors", "rocm-smi", "concise-model-revision-8x-mi300x-grok.txt")
N = 200_000


def _h100_table(n):
    lines = open(os.path.join(H100, "nvidia-smi.txt"), encoding="utf-8").read().splitlines()
    head, gpu, sep, tail = lines[:8], lines[8:11], lines[11], lines[12:]
    out = list(head)
    for i in range(n):
        # the table's GPU column is three digits wide: past 999 the indexes repeat
        out += [gpu[0].replace("|   0  ", f"| {i % 1000:3d}  ", 1), *gpu[1:], sep]
    return "\n".join(out + tail) + "\n"


def _h100_csv(n):
    header, row = open(os.path.join(H100, "nvidia-smi-csv.txt"), encoding="utf-8").read().splitlines()[:2]
    first = row.split(",", 1)[1]
    return header + "\n" + "".join(f"{i},{first}\n" for i in range(n))


def _cap_findings(doc):
    return [f for f in doc["findings"] if f["id"] == "not-checked" and f"at least {MAX_GPUS} GPUs" in f["message"]]


def test_a_fake_nvidia_smi_with_200000_cards_is_read_up_to_the_cap(tmp_path):
    # the plain table as on the real H100 (nvidia-smi must answer for its CSV to be asked), the CSV of 200,000
    (tmp_path / "table.txt").write_text(_h100_table(1))
    (tmp_path / "query.csv").write_text(_h100_csv(N))
    bindir = tmp_path / "bin"
    bindir.mkdir()
    smi = bindir / "nvidia-smi"
    smi.write_text(f'#!/bin/sh\ncase "$*" in *query-gpu*) cat "{tmp_path}/query.csv";; '
                   f'*) cat "{tmp_path}/table.txt";; esac\n')
    smi.chmod(0o755)
    env = dict(os.environ, PATH=f"{bindir}:{os.environ.get('PATH', '')}", PYTHONPATH=ROOT, NO_COLOR="1")
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json"], capture_output=True, text=True,
                       env=env, timeout=300)
    doc = json.loads(r.stdout)
    nvidia = [g for g in doc["gpus"] if g.get("vendor") in (None, "nvidia")]
    assert len(nvidia) == MAX_GPUS, len(nvidia)
    assert [g["index"] for g in nvidia] == list(range(MAX_GPUS))
    assert nvidia[0]["name"] == "NVIDIA H100 80GB HBM3" and nvidia[0]["compute_capability"] == "9.0"
    (cap,) = _cap_findings(doc)
    assert cap["severity"] == "info" and cap["component"] == "gpu"


def test_a_rocm_smi_capture_with_40000_cards_is_read_up_to_the_cap(tmp_path):
    src = open(MI300X, encoding="utf-8").read().splitlines()
    head, rows, tail = src[:5], src[5:7], src[21:]
    body = []
    for i in range(40_000):
        body += [f"{i:<8}" + rows[0][8:], rows[1]]
    snap = make_snapshot(str(tmp_path / "snap"), {"rocm-smi.txt": "\n".join(head + body + tail) + "\n"})
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", snap],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)
    doc = json.loads(r.stdout)
    assert doc["vendor"] == "amd" and len(doc["gpus"]) == MAX_GPUS
    assert {g["name"] for g in doc["gpus"]} == {"AMD Instinct MI300X"}
    assert len(_cap_findings(doc)) == 1


def test_an_nvml_json_with_6000_gpus_is_read_up_to_the_cap(tmp_path):
    """The real H100 snapshot's nvml.json with its GPU repeated 6,000 times (still under the snapshot's 1 MiB)."""
    real = os.path.join(ROOT, "tests", "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot", "nvml.json")
    doc = json.load(open(real, encoding="utf-8"))
    gpu = doc["gpus"][0]
    doc["gpus"] = [dict(gpu, index=i, uuid=f"GPU-{i:08d}-0000-0000-0000-000000000001") for i in range(6000)]
    snap = make_snapshot(str(tmp_path / "snap"), {})
    with open(os.path.join(snap, "nvml.json"), "w", encoding="utf-8") as fh:
        json.dump(doc, fh, separators=(",", ":"))
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", snap],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)
    out = json.loads(r.stdout)
    assert len(out["gpus"]) == MAX_GPUS and out["gpus"][-1]["index"] == MAX_GPUS - 1
    assert len(_cap_findings(out)) == 1


def test_the_real_machines_are_not_capped(tmp_path):
    snap = os.path.join(ROOT, "tests", "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot")
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", snap],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)
    doc = json.loads(r.stdout)
    assert len(doc["gpus"]) == 1 and not _cap_findings(doc)
    mi300x = make_snapshot(str(tmp_path / "amd"), {"rocm-smi.txt": open(MI300X, encoding="utf-8").read()})
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", mi300x],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)
    doc = json.loads(r.stdout)
    assert len(doc["gpus"]) == 8 and not _cap_findings(doc)


def test_the_parsers_cut_at_the_cap_and_a_cut_table_is_not_whole():
    table = parse_table(_h100_table(MAX_GPUS + 5))
    assert len(table.gpus) == MAX_GPUS and table.gpus_complete is False
    whole = parse_table(_h100_table(3))
    assert len(whole.gpus) == 3 and whole.gpus_complete is True
    assert len(parse_query_csv(_h100_csv(MAX_GPUS + 1)).gpus) == MAX_GPUS
    assert capped(list(range(MAX_GPUS + 1))) == list(range(MAX_GPUS))
    assert capped((list(range(MAX_GPUS * 2)), "x")) == (list(range(MAX_GPUS)), "x")
