"""Count the instructions one warm ``explain_stream`` call executes on a log (valgrind's cachegrind): a figure that
does not depend on the machine's load, unlike CPU time.

Usage:

    python benchmarks/explain_instructions.py LOG [LOG ...] [--code OTHER_CHECKOUT ...] [--no-gc] [--top N] [--document]

For each log and each checkout (this one, then each ``--code``), two children run under
``valgrind --tool=cachegrind --cache-sim=no``: both load the knowledge base and make one warm-up call
(patterns compiled, RE2's DFAs built), then one makes one more call and the other two more; the
difference of their ``I refs`` is one warm call. Prints millions of instructions per call and per MB.
valgrind runs a child ~50x slower: a 5 MB log takes about a minute per checkout.

``--no-gc``: the children turn the garbage collector off before their calls (whether a full collection falls inside
the counted call moves a 5 MB log's count by 10-30 M between two nearly identical checkouts: compare code with it).
``--document``: the calls are ``explain_document``'s (what ``envcheck explain FILE --no-detect`` runs: the paste
collector over the text, the reading of what it kept, the engine's checks on it), the CLI's cost beyond the matcher.
``--top N``: the N C functions with the most instructions in the counted call (``cg_diff`` of the two children,
``cg_annotate``): the interpreter's loop is the Python byte-code, the rest says what the calls cost (RE2's DFA,
pybind11's dispatch, allocation, hashing, ``bytes.split``).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from typing import List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import gc
import sys
sys.path.insert(0, sys.argv[1])
from envcheck.explain import explain_stream
from envcheck.explain.kb import load_kb
kb = load_kb()
if hasattr(kb, "line_set"):
    kb.line_set()
if "no-gc" in sys.argv[4:]:
    gc.disable()
if "document" in sys.argv[4:]:  # the CLI's path (--no-detect): the paste collector and the engine's checks too
    from envcheck.explain.document import explain_document
    from envcheck.matrix import load_matrix
    matrix = load_matrix()
for _ in range(1 + int(sys.argv[3])):
    with open(sys.argv[2], "rb") as fh:
        if "document" in sys.argv[4:]:
            explain_document(fh, sys.argv[2], matrix=matrix, detect=False)
        else:
            explain_stream(fh)
"""


def irefs(code: str, log: str, calls: int, cache: str, gc_off: bool = False,
          keep: Optional[str] = None, document: bool = False) -> Optional[int]:
    """``I refs`` of a child that makes one warm-up call and ``calls`` more; None when valgrind is missing or fails.
    ``cache``: the children's own envcheck cache folder (see :func:`per_call`); ``gc_off``: the child turns the
    garbage collector off first; ``keep``: where cachegrind's output is left (else it is removed); ``document``: the
    calls are ``explain_document``'s (the CLI's path with ``--no-detect``), not ``explain_stream``'s."""
    if keep is None:
        fd, out = tempfile.mkstemp(prefix="cachegrind-", suffix=".out")
        os.close(fd)
    else:
        out = keep
    try:
        env = dict(os.environ, ENVCHECK_NO_CODE_CACHE="1", ENVCHECK_CACHE_DIR=cache)
        # (the child's code from a file: a ``-c`` text of several lines would break cachegrind's "cmd:" line, which
        # cg_diff reads)
        child = os.path.join(cache, "child.py")
        if not os.path.exists(child):
            with open(child, "w", encoding="utf-8") as fh:
                fh.write(CHILD)
        r = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
                            sys.executable, child, code, log, str(calls), *(["no-gc"] if gc_off else []),
                            *(["document"] if document else [])],
                           capture_output=True, text=True, cwd=tempfile.gettempdir(), env=env)
    except OSError:
        return None
    finally:
        if keep is None:
            os.unlink(out)
    m = re.search(r"I\s+refs:\s+([\d,]+)", r.stderr)
    return int(m.group(1).replace(",", "")) if m else None


def top_functions(one: str, two: str, n: int) -> List[Tuple[int, str]]:
    """The ``n`` functions with the most instructions in the second child's extra call (cachegrind's outputs ``one``
    and ``two``): (instructions, "file:function"); empty when cg_diff or cg_annotate fails."""
    with tempfile.TemporaryDirectory(prefix="cg-diff-") as tmp:
        diff = os.path.join(tmp, "diff.out")
        try:
            with open(diff, "w") as fh:
                subprocess.run(["cg_diff", one, two], stdout=fh, stderr=subprocess.DEVNULL, check=True)
            text = subprocess.run(["cg_annotate", "--auto=no", diff], capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            return []
    rows = []
    for line in text.splitlines():
        m = re.match(r"\s*(-?[\d,]+)\s+\([^)]*\)\s+(\S.*)$", line)
        if m and "PROGRAM TOTALS" not in line:
            rows.append((int(m.group(1).replace(",", "")), m.group(2).strip()))
    rows.sort(reverse=True)
    return rows[:n]


def per_call(code: str, log: str, gc_off: bool = False,
             top: int = 0, document: bool = False) -> Tuple[Optional[int], List[Tuple[int, str]]]:
    """Instructions of one warm call of ``explain_stream`` on ``log`` with the checkout ``code`` (a first child,
    not counted, writes the byte-code and the knowledge base's verdict: else the first counted child would pay for
    them), and with ``top`` its ``top`` costliest C functions. The three children share a cache folder of their own:
    a verdict that another process on the machine removes from the user's cache (a test run) between the two counted
    children would count its validation too."""
    with tempfile.TemporaryDirectory(prefix="envcheck-instr-cache-") as cache:
        subprocess.run([sys.executable, "-c", CHILD, code, log, "0", *(["document"] if document else [])],
                       capture_output=True, cwd=tempfile.gettempdir(),
                       env=dict(os.environ, ENVCHECK_CACHE_DIR=cache))
        outs = [os.path.join(cache, "one.out"), os.path.join(cache, "two.out")] if top else [None, None]
        one = irefs(code, log, 1, cache, gc_off, outs[0], document)
        two = irefs(code, log, 2, cache, gc_off, outs[1], document)
        funcs = top_functions(outs[0], outs[1], top) if top and one is not None and two is not None else []
    return (None if one is None or two is None else two - one), funcs


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--code", action="append", default=[], help="another checkout to count too (repeatable)")
    ap.add_argument("--no-gc", action="store_true", help="the children turn the garbage collector off first")
    ap.add_argument("--top", type=int, default=0, metavar="N", help="print the N costliest C functions of the call")
    ap.add_argument("--document", action="store_true",
                    help="count explain_document's call (the CLI's path with --no-detect: the paste collector, what it "
                         "reads and the engine's checks on it) instead of explain_stream's")
    a = ap.parse_args(argv)
    for log in map(os.path.abspath, a.logs):  # (the children run in the temporary folder: a relative path fails there)
        mb = os.path.getsize(log) / (1024 * 1024)
        for code in [ROOT, *map(os.path.abspath, a.code)]:
            n, funcs = per_call(code, log, a.no_gc, a.top, a.document)
            what = "valgrind missing or failed" if n is None else f"{n / 1e6:9.1f} M instructions, {n / 1e6 / mb:7.1f} M/MB"
            print(f"{os.path.basename(log):>24} {mb:6.1f} MB  {code}: {what}", flush=True)
            for count, where in funcs:
                file, _, func = where.partition(":")
                print(f"{count / 1e6:34.1f} M  {os.path.basename(file)}:{func[:100]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
