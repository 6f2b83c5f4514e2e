"""Whose CPU one `envcheck status` costs on this machine, part by part: the imports, each capture of the live probe
(its own process's CPU and its children's: nvidia-smi, the NVML / libcuda child, ldconfig, nvcc), collect, checks,
render; then a cProfile of the sequential probe + collect (the live command runs the captures in threads, which
cProfile does not follow, so the captures are run here one after another).

    python benchmarks/status_cpu.py [--top 25]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import resource
import time
from typing import Callable, Tuple


def cpu(fn: Callable[[], object]) -> Tuple[float, float, float]:
    """(own CPU ms, children's CPU ms, wall ms) of one call."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    c0, t0 = time.process_time(), time.perf_counter()
    fn()
    c1, t1 = time.process_time(), time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    kids = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return (c1 - c0) * 1e3, kids * 1e3, (t1 - t0) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()

    def imports() -> None:
        from envcheck.checks.pipeline import build_status  # noqa: F401
        from envcheck.environment import collect  # noqa: F401
        from envcheck.matrix import load_matrix  # noqa: F401
        from envcheck.probe.live import LiveSource  # noqa: F401
        from envcheck.render.text import render_text  # noqa: F401

    own, kids, wall = cpu(imports)
    print(f"{'part':40s} {'own CPU ms':>10s} {'children ms':>11s} {'wall ms':>8s}")
    print(f"{'imports (first)':40s} {own:10.1f} {kids:11.1f} {wall:8.1f}")
    from envcheck.checks.pipeline import build_status
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix
    from envcheck.probe.live import LiveSource
    from envcheck.render.text import render_text
    from envcheck.snapshot.reader import KEYS

    src = LiveSource()
    total = [0.0, 0.0]
    for k in (k for k in KEYS if k != "captures.json"):
        own, kids, wall = cpu(lambda k=k: src.get(k))
        total[0] += own
        total[1] += kids
        print(f"{'capture ' + k:40s} {own:10.1f} {kids:11.1f} {wall:8.1f}")
    print(f"{'captures, summed':40s} {total[0]:10.1f} {total[1]:11.1f}")
    box = {}
    own, kids, wall = cpu(lambda: box.setdefault("m", load_matrix()))
    print(f"{'matrix load':40s} {own:10.1f} {kids:11.1f} {wall:8.1f}")
    own, kids, wall = cpu(lambda: box.setdefault("env", collect(src, box["m"])))
    print(f"{'collect':40s} {own:10.1f} {kids:11.1f} {wall:8.1f}")
    own, kids, wall = cpu(lambda: box.setdefault("res", build_status(env=box["env"], matrix=box["m"])))
    print(f"{'checks + document':40s} {own:10.1f} {kids:11.1f} {wall:8.1f}")
    own, kids, wall = cpu(lambda: render_text(box["res"].document))
    print(f"{'render text':40s} {own:10.1f} {kids:11.1f} {wall:8.1f}")

    prof = cProfile.Profile()
    fresh = LiveSource()
    prof.enable()
    for k in (k for k in KEYS if k != "captures.json"):
        fresh.get(k)
    collect(fresh, box["m"])
    prof.disable()
    for key in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats(key).print_stats(a.top)
        print(f"\n== cProfile of a fresh sequential probe + collect, by {key}")
        print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:8000])


if __name__ == "__main__":
    main()
