#!/usr/bin/env python3
"""Top-1 accuracy of ``envcheck explain`` (text only, like ``--no-detect``) on labelled log sets.

The top match is the one ``envcheck explain --no-detect --json`` prints: the knowledge base's matches merged with the
engine's findings on any environment report inside the log (a log that holds ``PyTorch version: 2.9.0+cpu`` is
``framework-cpu-only`` there, as the user sees it). ``--lines-only`` scores the knowledge base's line matches alone,
as this script did up to session 14 (it ignored the report findings; 3 of about 2,050 labelled logs differ, each a
report finding the lines alone miss).

Each set is a folder with a label table: a README.md whose table rows read ``| FILE | LABEL | ...``,
and/or a ``manifest.tsv`` (``FILE<TAB>LABEL<TAB>...``). LABEL ``none`` means a healthy control: the
right answer is "nothing recognised". Prints, per set, the accuracy and the confusion list
(file: expected -> got).

    python3 scripts/score_explain.py                         # the default sets that exist
    python3 scripts/score_explain.py heldout/logs            # one set
    python3 scripts/score_explain.py --code /tmp/main-clean  # score another checkout's code
    python3 scripts/score_explain.py --exclude-from FILE     # skip the files FILE lists (one a line)

Exit status 0 (a score is not a failure); 2 when a set folder has no labels.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Dict, List, Optional, Set, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SETS = ["tests/data/logs", "tests/data/logs/new", "tests/data/logs/new2", "heldout/logs", "heldout/logs2",
                "tests/data/logs/vendors", "heldout/vendor-logs", "heldout/vendor-logs2"]
_ROW = re.compile(r"^\|\s*`?([^|`\s]+\.(?:log|txt))`?\s*\|\s*`?([a-z0-9-]+)`?\s*\|")


def labels(folder: str) -> Dict[str, str]:
    out: Dict[str, str] = {}
    readme = os.path.join(folder, "README.md")
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as fh:
            for line in fh:
                m = _ROW.match(line)
                if m:
                    out[m.group(1)] = m.group(2)
    tsv = os.path.join(folder, "manifest.tsv")
    if os.path.exists(tsv):
        with open(tsv, encoding="utf-8") as fh:
            for line in fh:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 2 and re.match(r"^[^\s/]+\.(?:log|txt)$", parts[0]) and parts[1]:
                    out.setdefault(parts[0], parts[1].strip())
    return {f: lab for f, lab in out.items() if os.path.exists(os.path.join(folder, f))}


LINES_ONLY = False


def top1(path: str) -> Tuple[str, str]:
    if LINES_ONLY:
        from envcheck.explain import explain_lines
        from envcheck.explain.reader import iter_lines

        with open(path, "rb") as fh:
            ms = explain_lines(iter_lines(fh))
        if not ms:
            return "none", ""
        return ms[0].id, ", ".join(f"{m.id}:{m.score:.0f}" for m in ms[:3])
    from envcheck.explain.document import explain_text_document

    with open(path, "rb") as fh:
        doc = explain_text_document(fh.read(), name=os.path.basename(path))
    found = doc["matches"]
    if not found:
        return "none", ""
    return found[0]["id"], ", ".join(f"{m['id']}:{m.get('score', 0):.0f}" for m in found[:3])


def score(folder: str, skip: Set[str]) -> Optional[Tuple[int, int, List[str]]]:
    labs = labels(folder)
    if not labs:
        return None
    ok = 0
    wrong: List[str] = []
    n = 0
    for f in sorted(labs):
        if f in skip:
            continue
        n += 1
        got, ranked = top1(os.path.join(folder, f))
        if got == labs[f]:
            ok += 1
        else:
            wrong.append(f"  {f}: expected {labs[f]} -> got {got}" + (f"  [{ranked}]" if ranked else ""))
    return ok, n, wrong


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sets", nargs="*", help="set folders (relative to the repository root or absolute)")
    ap.add_argument("--code", help="import envcheck from this checkout instead of this one")
    ap.add_argument("--exclude-from", help="a file listing file names (one a line) to leave out")
    ap.add_argument("--only-from", help="a file listing the only file names (one a line) to score")
    ap.add_argument("--quiet", action="store_true", help="no confusion list")
    ap.add_argument("--lines-only", action="store_true",
                    help="the knowledge base's line matches alone, without the findings on a report in the log")
    a = ap.parse_args(argv)
    global LINES_ONLY
    LINES_ONLY = a.lines_only
    sys.path.insert(0, os.path.abspath(a.code) if a.code else ROOT)
    skip: Set[str] = set()
    if a.exclude_from:
        with open(a.exclude_from, encoding="utf-8") as fh:
            skip = {x.strip() for x in fh if x.strip() and not x.startswith("#")}
    only: Optional[Set[str]] = None
    if a.only_from:
        with open(a.only_from, encoding="utf-8") as fh:
            only = {x.strip() for x in fh if x.strip() and not x.startswith("#")}
    sets = a.sets or [s for s in DEFAULT_SETS if os.path.isdir(os.path.join(ROOT, s))]
    rc = 0
    for s in sets:
        folder = s if os.path.isabs(s) else os.path.join(ROOT, s)
        sk = set(skip)
        if only is not None:
            sk |= {f for f in labels(folder) if f not in only}
        res = score(folder, sk)
        if res is None:
            print(f"{s}: no labelled logs")
            rc = 2
            continue
        ok, n, wrong = res
        pct = 100.0 * ok / n if n else 0.0
        print(f"{s}: top-1 {ok}/{n} = {pct:.1f}%")
        if not a.quiet:
            for w in wrong:
                print(w)
    return rc


if __name__ == "__main__":
    sys.exit(main())
