"""Time ``envcheck fleet summarize`` end to end on N generated node reports, with its peak RSS.

The reports are real ``envcheck status --json`` output: one report per stack is produced by
envcheck itself from a snapshot (tests/helpers.py builders), then copied per node with its
hostname and creation time changed. Planted: a few nodes with an older driver (failing), a few with
another torch build, an older duplicate report for every 100th node, a handful of malformed files,
and nodes that never reported (``--expect`` names them). Three ways in: the folder, the same reports
concatenated on stdin (``cat reports/*.json | envcheck fleet summarize -``), and ``--stdin-mb`` MiB of
JSON lines streamed to stdin (an hourly log of every node's reports) to show that memory stays flat.

    python benchmarks/fleet_summarize.py --nodes 10000 --runs 3 --stdin-mb 300
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
    """Write the reports under ``dest``; returns what was planted (and the lines for --stdin-mb)."""
    base = _stack("550.54.15", "12.4", "2.5.1+cu124", "12.4")
    old = _stack("470.57.02", "11.4", "2.5.1+cu124", "12.4")  # driver-too-old: these nodes fail
    other = _stack("550.54.15", "12.4", "2.4.1+cu121", "12.1")
    with tempfile.TemporaryDirectory() as tmp:
        stacks = {"base": _report(tmp, "base", base), "old": _report(tmp, "old", old),
                  "other": _report(tmp, "other", other)}
    planted: dict = {"old-driver": [], "other-torch": [], "malformed": [], "missing": [], "duplicates": 0}
    width = len(str(nodes))
    planted["expect"] = f"gpu[{1:0{width}d}-{nodes + 5:0{width}d}]"
    planted["missing"] = [f"gpu{i:0{width}d}" for i in range(nodes + 1, nodes + 6)]
    lines = []
    for i in range(1, nodes + 1):
        host = f"gpu{i:0{width}d}"
        kind = "base"
        if i % 997 == 0:
            kind = "old"
            planted["old-driver"].append(host)
        elif i % 1409 == 0:
            kind = "other"
            planted["other-torch"].append(host)
        rep = dict(stacks[kind], hostname=host, created=f"2026-11-22T{i % 24:02d}:{i % 60:02d}:00Z")
        sub = os.path.join(dest, f"rack{(i - 1) // 500:02d}")
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, host + ".json"), "w") as fh:
            json.dump(rep, fh, indent=2)
        if i % 100 == 0:  # an older report of the same node, failing: the newer one must win
            with open(os.path.join(sub, host + "-old.json"), "w") as fh:
                json.dump(dict(stacks["old"], hostname=host, created="2026-11-21T00:00:00Z"), fh, indent=2)
            planted["duplicates"] += 1
        if len(lines) < 2000:
            lines.append(json.dumps(rep))
    bad = os.path.join(dest, "bad")
    os.makedirs(bad, exist_ok=True)
    for name, data in (("truncated.json", b'{"schema": "envcheck/report/1", "ok": tr'), ("empty.json", b""),
                       ("binary.json", bytes(range(256))), ("other-schema.json", b'{"schema": "x/1"}')):
        with open(os.path.join(bad, name), "wb") as fh:
            fh.write(data)
        planted["malformed"].append(name)
    planted["lines"] = ("\n".join(lines) + "\n").encode()
    return planted


#: runs envcheck and prints its own peak RSS (VmHWM, reset by exec; ru_maxrss of a child keeps the
#: size of the process it was forked from)
_HWM = ("import atexit, runpy, sys\n"
        "def hwm():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            sys.stderr.write('\\nPEAK ' + line.split()[1] + '\\n')\n"
        "atexit.register(hwm)\n"
        "sys.argv = ['envcheck'] + sys.argv[1:]\n"
        "runpy.run_module('envcheck', run_name='__main__')\n")


CPU: list = []  # the child's CPU seconds of each run (getrusage of children), in order


def _run(argv: list, env: dict, stdin_path: str = "", stdin_gen=None) -> tuple:
    """(seconds, peak RSS MiB, stdout) of one run of ``envcheck ARGV...``; its CPU time goes to CPU."""
    import resource

    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    stdin = open(stdin_path, "rb") if stdin_path else (subprocess.PIPE if stdin_gen else subprocess.DEVNULL)
    # from the checkout timed: `python -c` puts the current folder first on sys.path
    p = subprocess.Popen([sys.executable, "-c", _HWM] + argv, stdin=stdin, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, cwd=env.get("PYTHONPATH") or ROOT)
    out = {}
    import re
    import threading

    def drain() -> None:
        out["stdout"] = p.stdout.read()
        out["stderr"] = p.stderr.read()

    t = threading.Thread(target=drain)
    t.start()
    if stdin_gen:
        try:
            for chunk in stdin_gen:
                p.stdin.write(chunk)
            p.stdin.close()
        except BrokenPipeError:
            pass
    p.wait()
    t.join()
    if stdin_path:
        stdin.close()
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(ru1.ru_utime - ru0.ru_utime + ru1.ru_stime - ru0.ru_stime)
    m = re.search(rb"PEAK (\d+)", out["stderr"])
    return time.perf_counter() - t0, (int(m.group(1)) / 1024 if m else float("nan")), out["stdout"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--stdin-mb", type=int, default=0, help="also stream this many MiB of JSON lines to stdin")
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=os.environ.get("ENVCHECK_CODE") or ROOT)
    cmd = ["fleet", "summarize"]
    with tempfile.TemporaryDirectory() as d:
        reports = os.path.join(d, "reports")
        t0 = time.perf_counter()
        planted = generate(reports, args.nodes)
        gen = time.perf_counter() - t0
        size = sum(os.path.getsize(os.path.join(p, f)) for p, _, fs in os.walk(reports) for f in fs)
        print(f"generated {args.nodes} reports (+{planted['duplicates']} older duplicates, "
              f"{len(planted['malformed'])} malformed; {size / 1e6:.1f} MB) in {gen:.1f} s")
        cat = os.path.join(d, "all.json")
        with open(cat, "wb") as out:
            for p, _, fs in sorted(os.walk(reports)):
                for f in sorted(fs):
                    with open(os.path.join(p, f), "rb") as fh:
                        out.write(fh.read())
        for label, argv, stdin in (("DIR", cmd + [reports], ""), ("- (cat reports/*.json |)", cmd + ["-"], cat)):
            times, rss = [], []
            summary = None
            for _ in range(args.runs):
                dt, mib, stdout = _run(argv + ["--json", "-q", "--expect", planted["expect"]], env, stdin)
                times.append(dt)
                rss.append(mib)
                summary = json.loads(stdout)
            assert summary is not None
            print(f"envcheck fleet summarize {label} --json --expect ...: median {statistics.median(times):.2f} s "
                  f"wall, {statistics.median(CPU[-args.runs:]):.2f} s CPU over {args.runs} run(s) (wall min "
                  f"{min(times):.2f}, max {max(times):.2f}); peak RSS {max(rss):.0f} MiB")
            print(f"  nodes={summary['nodes']} failing={len(summary['failing'])} "
                  f"(planted old driver: {len(planted['old-driver'])}) "
                  f"differences={[x['field'] for x in summary['differences']]} groups={len(summary['groups'])} "
                  f"unreadable={len(summary['unreadable'])} missing={len(summary['missing'])} "
                  f"duplicates={len(summary['duplicates'])}")
        if args.stdin_mb:
            lines = planted["lines"]
            reps = args.stdin_mb * 1024 * 1024 // len(lines) + 1
            for mb in sorted({min(16, args.stdin_mb), args.stdin_mb}):
                n = mb * 1024 * 1024 // len(lines) + 1
                dt, mib, stdout = _run(cmd + ["-", "--json", "-q"], env, stdin_gen=(lines for _ in range(n)))
                s = json.loads(stdout)
                print(f"stdin: {n * len(lines) / 2**20:.0f} MiB of JSON lines ({n * 2000} reports of "
                      f"{s['nodes']} nodes): {dt:.1f} s wall, {CPU[-1]:.1f} s CPU, peak RSS {mib:.0f} MiB")
            del reps
    return 0


if __name__ == "__main__":
    sys.exit(main())
