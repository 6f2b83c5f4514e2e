"""Time `envcheck status` side by side with what users run today, and print ratios.

Usage (in an environment where envcheck, torch and tensorflow are installed):

    python benchmarks/status_vs_collect_env.py [--runs 5] [--python PATH]

Each command runs --runs times as a fresh process (after one warm-up); the median wall time is
reported. Commands whose module is not installed are reported as "not installed". No timing is
asserted anywhere in the test suite: this script only measures.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from typing import List, Optional, Tuple


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(argv: List[str], runs: int, ok_codes=(0,)) -> Optional[Tuple[float, float]]:
    """(median wall seconds, median CPU seconds of the child) or None when the command fails."""
    warm = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    if warm.returncode not in ok_codes:
        return None
    walls, cpus = [], []
    for _ in range(runs):
        c0 = _child_cpu()
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        walls.append(time.perf_counter() - t0)
        cpus.append(_child_cpu() - c0)
    return statistics.median(walls), statistics.median(cpus)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--python", default=sys.executable, help="the interpreter of the environment to measure")
    args = ap.parse_args()
    py = args.python
    cases = [
        ("bare: python -c 'import click, packaging, platformdirs, requests'",
         [py, "-c", "import click, packaging.version, packaging.requirements, platformdirs, requests"]),
        ("bare: python -c pass", [py, "-c", "pass"]),
        ("envcheck status", [py, "-m", "envcheck", "status"]),
        ("envcheck status --json", [py, "-m", "envcheck", "status", "--json"]),
        ("python -m torch.utils.collect_env", [py, "-m", "torch.utils.collect_env"]),
        ("import tensorflow; tf.sysconfig.get_build_info()",
         [py, "-c", "import tensorflow as tf; tf.sysconfig.get_build_info()"]),
    ]
    results = {}
    for name, argv in cases:
        results[name] = timed(argv, args.runs, (0, 1) if "envcheck" in name else (0,))
        r = results[name]
        shown = f"wall {r[0] * 1000:8.1f} ms   cpu {r[1] * 1000:8.1f} ms" if r else "   not installed / failed"
        print(f"{name:<52} {shown}", flush=True)
    st = results["envcheck status"]
    bare = results["bare: python -c 'import click, packaging, platformdirs, requests'"]
    print()
    if st:
        for other in ("python -m torch.utils.collect_env", "import tensorflow; tf.sysconfig.get_build_info()"):
            o = results.get(other)
            if o:
                print(f"{other}: {o[0] / st[0]:5.1f}x the wall time, {o[1] / st[1]:5.1f}x the CPU time of "
                      "envcheck status")
        if bare:
            print(f"envcheck status / bare start with dependencies: {st[0] / bare[0]:4.2f}x wall, "
                  f"{st[1] / bare[1]:4.2f}x CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
