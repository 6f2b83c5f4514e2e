"""Time `envcheck status` side by side with a bare Python start and with what users run today.

Usage:

    python benchmarks/status_vs_collect_env.py [--rounds 15] [--python PATH] [--code DIR ...]

Every command runs once per round, in a rotated order (interleaved: a busy spell of a shared
machine hits every command alike), as a fresh process after one warm-up; the medians of wall time
and of the child's CPU time (getrusage of children) are reported, with the ratios to the bare start
with envcheck's dependencies (``python -c 'import click, packaging.version, json, subprocess'``).
The runs use a user cache of their own (``--cache-dir``; ``user`` for the user's), filled by the warm-up, and
the console script (``envcheck`` beside ``--python``: what users run, without ``-m``'s runpy) gets a row of its
own. ``--code DIR`` adds ``envcheck status --json`` run from another checkout (e.g. the one before a
change), so both sides are measured in the same rounds. Commands that are not installed (torch's
collect_env, cudnn-frontend's, env-doctor) are reported as such. Byte-code is written first
(PYTHONDONTWRITEBYTECODE is cleared), as a normal install has it. No timing is asserted anywhere in
the test suite: this script only measures.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BARE = "bare: python -c 'import click, packaging.version, json, subprocess'"


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


#: the user cache the timed runs use (``--cache-dir``; by default a fresh private folder for this run, written by
#: the warm-up: other sessions' envcheck runs on a shared machine write to the user's own cache too)
CACHE_DIR: List[str] = []


def _env(code: Optional[str]) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if code:
        env["PYTHONPATH"] = code
    if CACHE_DIR:
        env["ENVCHECK_CACHE_DIR"] = CACHE_DIR[0]
    return env


def once(argv: List[str], env: Dict[str, str]) -> Tuple[float, float, int]:
    c0 = _child_cpu()
    t0 = time.perf_counter()
    # from the checkout timed (`python -m` puts the current folder first on sys.path), else a neutral one
    cwd = env.get("PYTHONPATH") or os.path.expanduser("~")
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600, env=env, cwd=cwd)
    return time.perf_counter() - t0, _child_cpu() - c0, r.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--python", default=sys.executable, help="the interpreter of the environment to measure")
    ap.add_argument("--code", action="append", default=[], help="another checkout to time side by side")
    ap.add_argument("--no-anchors", action="store_true", help="only the bare start and envcheck")
    ap.add_argument("--code-only", action="store_true", help="no row for the console script")
    ap.add_argument("--cache-dir", default=None,
                    help="ENVCHECK_CACHE_DIR of the timed runs (default: a new private folder; 'user': the user's own)")
    args = ap.parse_args()
    py = args.python
    if args.cache_dir != "user":
        import tempfile

        CACHE_DIR.append(args.cache_dir or tempfile.mkdtemp(prefix="envcheck-bench-cache-"))
    cases: List[Tuple[str, List[str], Optional[str], Tuple[int, ...]]] = [
        (BARE, [py, "-c", "import click, packaging.version, json, subprocess"], None, (0,)),
        ("bare: python -c pass", [py, "-c", "pass"], None, (0,)),
        ("envcheck status --json", [py, "-m", "envcheck", "status", "--json"], ROOT, (0, 1)),
        ("envcheck status", [py, "-m", "envcheck", "status"], ROOT, (0, 1)),
    ]
    script = os.path.join(os.path.dirname(py), "envcheck")
    if os.path.isfile(script) and not args.code_only:  # what users run: the console script (no runpy)
        cases.append(("envcheck status --json (console script)", [script, "status", "--json"], None, (0, 1)))
    for code in args.code:
        cases.append((f"envcheck status --json ({os.path.basename(os.path.normpath(code))})",
                      [py, "-m", "envcheck", "status", "--json"], code, (0, 1)))
    if not args.no_anchors:
        cases += [("python -m torch.utils.collect_env", [py, "-m", "torch.utils.collect_env"], None, (0,)),
                  ("cudnn-frontend collect_env", [py, "-m", "cudnn.collect_env"], None, (0,)),
                  ("env-doctor", [shutil.which("env-doctor") or "env-doctor", "check"], None, (0, 1))]
    live = []
    for name, argv, code, ok in cases:  # warm-up: writes byte-code, drops what is not installed
        try:
            _, _, rc = once(argv, _env(code))
        except (OSError, subprocess.TimeoutExpired):
            rc = -1
        if rc in ok:
            live.append((name, argv, code))
        else:
            print(f"{name:<58} not installed / failed (exit {rc})")
    walls: Dict[str, List[float]] = {n: [] for n, _, _ in live}
    cpus: Dict[str, List[float]] = {n: [] for n, _, _ in live}
    for r in range(args.rounds):
        k = r % len(live)
        for name, argv, code in live[k:] + live[:k]:
            w, c, _ = once(argv, _env(code))
            walls[name].append(w)
            cpus[name].append(c)
    med = {n: (statistics.median(walls[n]), statistics.median(cpus[n])) for n in walls}
    bare = med.get(BARE)
    print(f"{'command':<58} {'wall ms':>8} {'cpu ms':>8} {'x bare wall':>11} {'x bare cpu':>10}")
    for name, (w, c) in med.items():
        ratio = f"{w / bare[0]:11.2f} {c / bare[1]:10.2f}" if bare else ""
        print(f"{name:<58} {w * 1000:8.1f} {c * 1000:8.1f} {ratio}")
    st = med.get("envcheck status --json")
    if st:
        for name, (w, c) in med.items():
            if name.startswith(("python -m torch", "cudnn-frontend", "env-doctor")):
                print(f"{name}: {w / st[0]:.1f}x the wall time, {c / st[1]:.1f}x the CPU time of envcheck status --json")
    try:
        print(f"medians of {args.rounds} interleaved rounds; load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} CPUs; python {sys.version.split()[0]}")
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
