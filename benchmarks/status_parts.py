"""Where `envcheck status` spends its time on this machine: each capture of the live probe alone (a fresh probe
each round, so nothing is cached), the probe as a whole (its parallel groups), collect + checks + render, and
the whole command beside a bare interpreter start.  Medians of --rounds; wall milliseconds.

    python benchmarks/status_parts.py --rounds 7
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from typing import Callable, Dict, List


def median_ms(fn: Callable[[], object], rounds: int) -> float:
    runs: List[float] = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - t) * 1e3)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    r = args.rounds

    t = time.perf_counter()
    from envcheck.checks.pipeline import build_status
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix
    from envcheck.probe.live import LiveSource
    from envcheck.render.text import render_text
    from envcheck.snapshot.reader import KEYS
    print(f"import envcheck's status modules: {(time.perf_counter() - t) * 1e3:.1f} ms (first import)")

    keys = [k for k in KEYS if k != "captures.json"]
    parts: Dict[str, float] = {}
    for k in keys:
        parts[k] = median_ms(lambda k=k: LiveSource().get(k), r)
    for k, ms in sorted(parts.items(), key=lambda kv: -kv[1])[:14]:
        print(f"  capture {k:34s} {ms:8.1f} ms")
    print(f"  captures one after another, summed: {sum(parts.values()):.1f} ms")
    print(f"probe, all captures (parallel groups): {median_ms(lambda: LiveSource().all(), r):.1f} ms")

    matrix = load_matrix()
    src = LiveSource()
    src.all()
    print(f"matrix load: {median_ms(load_matrix, r):.1f} ms")
    print(f"collect (captures cached): {median_ms(lambda: collect(src, matrix), r):.1f} ms")
    env = collect(src, matrix)
    print(f"checks + document: {median_ms(lambda: build_status(env=env, matrix=matrix), r):.1f} ms")
    res = build_status(env=env, matrix=matrix)
    print(f"render text: {median_ms(lambda: render_text(res.document), r):.1f} ms")

    for argv in ([sys.executable, "-c", "pass"], [sys.executable, "-c", "import click, packaging.version, json"],
                 [sys.executable, "-m", "envcheck", "status", "--json"]):
        ms = median_ms(lambda argv=argv: subprocess.run(argv, capture_output=True), r)
        print(f"{' '.join(argv[1:]):48s} {ms:8.1f} ms")

    # whose CPU a whole `envcheck status --json` is: its own process, or the children it waits for (nvidia-smi, the
    # NVML/libcuda child, ldconfig, nvcc): the command run in a child that reports both at exit
    code = ("import atexit, resource, runpy, sys\n"
            "def _cpu():\n"
            "    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "    sys.stderr.write('CPU %.1f %.1f\\n' % ((s.ru_utime + s.ru_stime) * 1e3, (c.ru_utime + c.ru_stime) * 1e3))\n"
            "atexit.register(_cpu)\n"
            "sys.argv = ['envcheck', 'status', '--json']\n"
            "runpy.run_module('envcheck', run_name='__main__')\n")
    own: List[float] = []
    kids: List[float] = []
    for _ in range(r):
        err = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stderr
        line = [x for x in err.splitlines() if x.startswith("CPU ")][-1].split()
        own.append(float(line[1]))
        kids.append(float(line[2]))
    print(f"status --json CPU: its own process {statistics.median(own):.1f} ms, its children "
          f"{statistics.median(kids):.1f} ms (medians)")


if __name__ == "__main__":
    main()
