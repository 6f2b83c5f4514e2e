"""Compare what two checkouts' ``explain`` says on every file of tests/data: the check that a speed change kept the
results (issue 24: "the result must be identical to today's on every test log").

Usage:

    python benchmarks/explain_same_results.py OTHER_CHECKOUT [--code THIS_CHECKOUT] [--files N]

Each checkout runs in its own child (``sys.path`` put to it), over the same files (this checkout's tests/data, or
``--code``'s): for each file ``envcheck explain FILE --no-detect --json`` (in process, click's runner; the file's path
taken out of the output), and ``explain_stream`` on the file's bytes in 4 KB blocks with every block path (one pass,
two searches, walked; the crossing break search on every block where the checkout has one), and on the file cut at
80 and 120 columns (a terminal's hard wrap), with and without the crossing search. Prints how many files differ, and
which paths, for the first 20. Takes a few minutes per checkout on a quiet machine; nothing is asserted in the test
suite from it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Dict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r'''
import io, json, os, sys
code, data_root, out, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, code)
os.chdir(code)
from click.testing import CliRunner
from envcheck.cli import cli
import envcheck.explain as ex
from envcheck.explain import explain_stream
from envcheck.explain.matcher import LineSet


def key(res):
    return repr((res.lines, sorted(res.facts.items()),
                 [(m.id, m.signature, m.line_no, m.count, sorted(m.captures.items()), m.explained_by, m.evidence,
                   m.score, m.fixes) for m in res.matches]))


files = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(data_root, "tests", "data")) for f in fs)
files = [f for f in files if os.path.getsize(f) <= 20_000_000][:limit or None]
runner = CliRunner()
real_map, real_both, block = ex._map_block, LineSet.need_or_break_match, ex._BLOCK
res = {}
for f in files:
    r = runner.invoke(cli, ["explain", f, "--no-detect", "--json"])
    row = {"cli": [r.exit_code, r.output.replace(f, "FILE")]}
    data = open(f, "rb").read()
    ex._BLOCK = 4096
    ex._CROSS_MIN = 0  # (where the checkout has the crossing search: on every block)
    for mode in ("gate", "two", "walk"):
        walk = mode == "walk"
        ex._map_block = lambda *a, _w=walk: (real_map(*a)[0], 0 if _w else 1, 1 if _w else 0)
        LineSet.need_or_break_match = (lambda self, *a: None) if mode == "two" else real_both
        row[mode] = key(explain_stream(io.BytesIO(data)))
    ex._map_block, LineSet.need_or_break_match, ex._BLOCK = real_map, real_both, block
    text = data.decode("utf-8", "replace")
    for w in (80, 120):
        cut = "\n".join(ln[i:i + w] for ln in text.split("\n") for i in range(0, max(len(ln), 1), w)).encode()
        row["cut%d" % w] = key(explain_stream(io.BytesIO(cut)))
        ex._CROSS_MIN = 1 << 40
        row["cut%d-no-cross" % w] = key(explain_stream(io.BytesIO(cut)))
        ex._CROSS_MIN = 0
    res[os.path.relpath(f, data_root)] = row
with open(out, "w") as fh:
    json.dump(res, fh)
'''


def results(code: str, data_root: str, limit: int) -> Dict[str, Any]:
    fd, out = tempfile.mkstemp(prefix="explain-same-", suffix=".json")
    os.close(fd)
    try:
        subprocess.run([sys.executable, "-c", CHILD, code, data_root, out, str(limit)], check=True,
                       cwd=tempfile.gettempdir())
        with open(out, encoding="utf-8") as fh:
            got: Dict[str, Any] = json.load(fh)
        return got
    finally:
        os.unlink(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("other", help="the other checkout (e.g. a detached worktree of main)")
    ap.add_argument("--code", default=ROOT, help="this checkout (default: the one this script is in)")
    ap.add_argument("--files", type=int, default=0, help="only the first N files (0: all)")
    a = ap.parse_args()
    mine = results(a.code, a.code, a.files)
    theirs = results(a.other, a.code, a.files)
    differ = [k for k in mine if mine[k] != theirs.get(k)]
    paths = sorted(next(iter(mine.values())).keys()) if mine else []
    print(f"{len(mine)} files of {a.code}/tests/data, paths {', '.join(paths)}: {len(differ)} differ "
          f"between {a.code} and {a.other}")
    for k in differ[:20]:
        print(" ", k, [m for m in mine[k] if mine[k][m] != theirs.get(k, {}).get(m)])
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
