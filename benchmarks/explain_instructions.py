"""Count the instructions one warm ``explain_stream`` call executes on a log (valgrind's cachegrind): a figure that
does not depend on the machine's load, unlike CPU time.

Usage:

    python benchmarks/explain_instructions.py LOG [LOG ...] [--code OTHER_CHECKOUT ...]

For each log and each checkout (this one, then each ``--code``), two children run under
``valgrind --tool=cachegrind --cache-sim=no``: both load the knowledge base and make one warm-up call
(patterns compiled, RE2's DFAs built), then one makes one more call and the other two more; the
difference of their ``I refs`` is one warm call. Prints millions of instructions per call and per MB.
valgrind runs a child ~50x slower: a 5 MB log takes about a minute per checkout.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from typing import List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
from envcheck.explain import explain_stream
from envcheck.explain.kb import load_kb
kb = load_kb()
if hasattr(kb, "line_set"):
    kb.line_set()
for _ in range(1 + int(sys.argv[3])):
    with open(sys.argv[2], "rb") as fh:
        explain_stream(fh)
"""


def irefs(code: str, log: str, calls: int, cache: str) -> Optional[int]:
    """``I refs`` of a child that makes one warm-up call and ``calls`` more; None when valgrind is missing or fails.
    ``cache``: the children's own envcheck cache folder (see :func:`per_call`)."""
    fd, out = tempfile.mkstemp(prefix="cachegrind-", suffix=".out")
    os.close(fd)
    try:
        env = dict(os.environ, ENVCHECK_NO_CODE_CACHE="1", ENVCHECK_CACHE_DIR=cache)
        r = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
                            sys.executable, "-c", CHILD, code, log, str(calls)],
                           capture_output=True, text=True, cwd=tempfile.gettempdir(), env=env)
    except OSError:
        return None
    finally:
        os.unlink(out)
    m = re.search(r"I\s+refs:\s+([\d,]+)", r.stderr)
    return int(m.group(1).replace(",", "")) if m else None


def per_call(code: str, log: str) -> Optional[int]:
    """Instructions of one warm call of ``explain_stream`` on ``log`` with the checkout ``code`` (a first child,
    not counted, writes the byte-code and the knowledge base's verdict: else the first counted child would pay for
    them). The three children share a cache folder of their own: a verdict that another process on the machine
    removes from the user's cache (a test run) between the two counted children would count its validation too."""
    with tempfile.TemporaryDirectory(prefix="envcheck-instr-cache-") as cache:
        subprocess.run([sys.executable, "-c", CHILD, code, log, "0"], capture_output=True, cwd=tempfile.gettempdir(),
                       env=dict(os.environ, ENVCHECK_CACHE_DIR=cache))
        one, two = irefs(code, log, 1, cache), irefs(code, log, 2, cache)
    return None if one is None or two is None else two - one


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--code", action="append", default=[], help="another checkout to count too (repeatable)")
    a = ap.parse_args(argv)
    for log in a.logs:
        mb = os.path.getsize(log) / (1024 * 1024)
        for code in [ROOT, *a.code]:
            n = per_call(code, log)
            what = "valgrind missing or failed" if n is None else f"{n / 1e6:9.1f} M instructions, {n / 1e6 / mb:7.1f} M/MB"
            print(f"{os.path.basename(log):>24} {mb:6.1f} MB  {code}: {what}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
