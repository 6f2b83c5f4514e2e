"""Count the instructions of one whole ``envcheck status`` process (valgrind's cachegrind, its own process only: not
nvcc's nor ldconfig's): a figure that does not depend on the machine's load, unlike CPU time.

Usage:

    python benchmarks/status_instructions.py [--code OTHER_CHECKOUT ...] [--runs 3] [--snapshot DIR]

For this checkout and each ``--code``, ``python -m envcheck status --json`` and ``python -m envcheck status`` (and,
with ``--snapshot``, ``status --json --snapshot DIR``) run under ``valgrind --tool=cachegrind --cache-sim=no
--trace-children=no`` with ``PYTHONHASHSEED=0``, byte-code written and the user cache (a private folder per
checkout) filled by two runs first; beside them the bare start the ratio is taken to (``python -c 'import click,
packaging.version, json, subprocess'``) and ``python -c pass``. Each count is run ``--runs`` times: a count differs
from run to run only where the probe's threads meet in another order (the smallest and the largest are printed).
valgrind runs a child ~50x slower: a status run takes ~10 s. No timing is asserted anywhere in the test suite.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BARE = ["-c", "import click, packaging.version, json, subprocess"]


def irefs(args: List[str], env: Dict[str, str], cwd: str) -> Optional[int]:
    """``I refs`` of ``python ARGS`` (its own process); None when valgrind is missing or fails."""
    try:
        r = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--trace-children=no",
                            "--cachegrind-out-file=/dev/null", sys.executable, *args],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd, timeout=600)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"I\s+refs:\s+([\d,]+)", r.stderr)
    return int(m.group(1).replace(",", "")) if m else None


def counts(args: List[str], code: Optional[str], cache: str, runs: int) -> Tuple[Optional[int], Optional[int]]:
    """(smallest, largest) instructions of ``runs`` runs of ``python ARGS`` with the checkout ``code`` (None: no
    envcheck), after two runs that write the byte-code and fill the cache."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "ENVCHECK_NO_CODE_CACHE")}
    env.update(PYTHONHASHSEED="0", ENVCHECK_CACHE_DIR=cache)
    if code:
        env["PYTHONPATH"] = code
    cwd = code or tempfile.gettempdir()  # (``python -m`` puts the current folder first on sys.path)
    for _ in range(2):
        subprocess.run([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                       cwd=cwd, timeout=600)
    got = [n for n in (irefs(args, env, cwd) for _ in range(runs)) if n is not None]
    return (min(got), max(got)) if got else (None, None)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--code", action="append", default=[], help="another checkout to count too (repeatable)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--snapshot", help="also count `status --json --snapshot DIR`")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="envcheck-status-instr-") as tmp:
        bare, _ = counts(BARE, None, os.path.join(tmp, "bare"), a.runs)
        rows = [("bare: python -c 'import click, packaging.version, json, subprocess'", (bare, bare), None),
                ("bare: python -c pass", counts(["-c", "pass"], None, os.path.join(tmp, "pass"), a.runs), None)]
        cases = [["status", "--json"], ["status"]] + ([["status", "--json", "--snapshot", a.snapshot]]
                                                       if a.snapshot else [])
        for i, code in enumerate([ROOT, *a.code]):
            for case in cases:
                name = f"envcheck {' '.join(case[:3])}{' DIR' if len(case) > 3 else ''} ({os.path.basename(code)})"
                rows.append((name, counts(["-m", "envcheck", *case], code, os.path.join(tmp, f"c{i}"), a.runs),
                             bare))
    for name, (lo, hi), base in rows:
        if lo is None or hi is None:
            print(f"{name:<72} valgrind missing or failed")
            continue
        spread = f"{lo / 1e6:8.1f}" + (f" - {hi / 1e6:.1f}" if hi != lo else "")
        ratio = f"  {lo / base:.3f}x bare" if base else ""
        print(f"{name:<72} {spread} M instructions{ratio}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
