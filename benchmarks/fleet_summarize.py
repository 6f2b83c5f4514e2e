"""Time ``envcheck fleet summarize DIR --json`` end to end on N generated node reports.

The reports are real ``envcheck status --json`` output: one report per stack is produced by
envcheck itself from a snapshot (tests/helpers.py builders), then copied per node with its
hostname changed. Planted differences: a few nodes with an older driver (failing), a few with
another torch build, one with an extra cuDNN copy, plus a handful of malformed files.

    python benchmarks/fleet_summarize.py --nodes 10000 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from helpers import gpu_machine, make_snapshot, torch_install  # noqa: E402


def _report(tmp: str, name: str, files: dict) -> dict:
    snap = make_snapshot(os.path.join(tmp, "snap-" + name), files)
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", snap],
                       capture_output=True, text=True, env=env, timeout=120)
    return json.loads(r.stdout)


SP = "/opt/venv/lib/python3.11/site-packages"
#: the pip CUDA libraries torch cu12x wheels bring (so that the base stack passes)
PIP_LIBS = (f"{SP}/nvidia/cuda_runtime/lib/libcudart.so.12\n{SP}/nvidia/cudnn/lib/libcudnn.so.9\n"
            f"{SP}/nvidia/cublas/lib/libcublas.so.12\n")


def _stack(driver: str, driver_cuda: str, torch: str, torch_cuda: str) -> dict:
    gpus = [("NVIDIA H100 80GB HBM3", 81559)] * 8
    files = dict(gpu_machine(driver, driver_cuda, gpus, cc=["9.0"] * 8),
                 **torch_install(torch, torch_cuda, packages={"nvidia-cudnn-cu12": "9.1.0.70"}))
    files["libraries.txt"] = PIP_LIBS
    return files


def generate(dest: str, nodes: int) -> dict:
    base = _stack("550.54.15", "12.4", "2.5.1+cu124", "12.4")
    old = _stack("470.57.02", "11.4", "2.5.1+cu124", "12.4")  # driver-too-old: these nodes fail
    other = _stack("550.54.15", "12.4", "2.4.1+cu121", "12.1")
    with tempfile.TemporaryDirectory() as tmp:
        stacks = {"base": _report(tmp, "base", base), "old": _report(tmp, "old", old),
                  "other": _report(tmp, "other", other)}
    planted = {"old-driver": [], "other-torch": [], "malformed": []}
    width = len(str(nodes))
    for i in range(1, nodes + 1):
        host = f"gpu{i:0{width}d}"
        kind = "base"
        if i % 997 == 0:
            kind = "old"
            planted["old-driver"].append(host)
        elif i % 1409 == 0:
            kind = "other"
            planted["other-torch"].append(host)
        rep = dict(stacks[kind], hostname=host)
        sub = os.path.join(dest, f"rack{(i - 1) // 500:02d}")
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, host + ".json"), "w") as fh:
            json.dump(rep, fh, indent=2)
    bad = os.path.join(dest, "bad")
    os.makedirs(bad, exist_ok=True)
    for name, data in (("truncated.json", b'{"schema": "envcheck/report/1", "ok": tr'), ("empty.json", b""),
                       ("binary.json", bytes(range(256))), ("other-schema.json", b'{"schema": "x/1"}')):
        with open(os.path.join(bad, name), "wb") as fh:
            fh.write(data)
        planted["malformed"].append(name)
    return planted


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=ROOT)
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        planted = generate(d, args.nodes)
        gen = time.perf_counter() - t0
        times = []
        summary = None
        for _ in range(args.runs):
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "envcheck", "fleet", "summarize", d, "--json", "-q"],
                               capture_output=True, text=True, env=env, timeout=600)
            times.append(time.perf_counter() - t0)
            summary = json.loads(r.stdout)
        assert summary is not None
        size = sum(os.path.getsize(os.path.join(p, f)) for p, _, fs in os.walk(d) for f in fs)
    print(f"generated {args.nodes} reports ({size / 1e6:.1f} MB) in {gen:.1f} s")
    print(f"envcheck fleet summarize DIR --json: median {statistics.median(times):.2f} s over {args.runs} run(s) "
          f"(min {min(times):.2f} s, max {max(times):.2f} s)")
    print(f"nodes={summary['nodes']} failing={len(summary['failing'])} "
          f"(planted old driver: {len(planted['old-driver'])}) differences={[x['field'] for x in summary['differences']]} "
          f"groups={len(summary['groups'])} unreadable={len(summary['unreadable'])} "
          f"(planted {len(planted['malformed'])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
