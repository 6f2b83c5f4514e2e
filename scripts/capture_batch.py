"""The loop the capture-batch scorers share (score_captures20f / 20k / 20m): each case of a folder is ``X.txt`` with
its ``X.expect.json``; a scorer gives its own ``check(text, expected) -> (wrong facts, false findings)``."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Callable, Dict, List, Tuple

Check = Callable[[str, Dict[str, Any]], Tuple[List[str], List[str]]]


def score(folder: str, verbose: bool, check: Check) -> Tuple[int, int, int]:
    """(read right, cases, cases with a false finding) of one folder."""
    ok = n = false = 0
    for f in sorted(os.listdir(folder)):
        if not f.endswith(".expect.json"):
            continue
        case = f[: -len(".expect.json")]
        with open(os.path.join(folder, f), encoding="utf-8") as fh:
            exp = json.load(fh)
        with open(os.path.join(folder, case + ".txt"), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        bad, extra = check(text, exp)
        n += 1
        ok += not bad
        false += bool(extra)
        if verbose and (bad or extra):
            print(f"  {case}: " + "; ".join(bad) + (f"  FALSE: {extra}" if extra else ""))
    return ok, n, false


def run(argv: List[str], root: str, default_set: str, check: Check, set_code: Callable[[str], None]) -> int:
    """The scorers' command line: ``[-v] [--code=DIR] [FOLDER ...]`` (folders relative to ``root``, ``default_set``
    when none); ``set_code`` receives the checkout whose envcheck is run. Prints one line a folder and a total."""
    verbose = "-v" in argv
    codes = [a.partition("=")[2] for a in argv if a.startswith("--code=")]
    if codes:
        set_code(os.path.abspath(codes[0]))
    os.chdir(tempfile.gettempdir())  # ``python -m envcheck`` must not find this checkout's package in the cwd
    sets = [a for a in argv if not a.startswith("-")] or [default_set]
    total = right = said = 0
    for folder in sets:
        path = folder if os.path.isabs(folder) else os.path.join(root, folder)
        ok, n, false = score(path, verbose, check)
        print(f"{folder}: {ok}/{n} read right, {false} with a false finding")
        total, right, said = total + n, right + ok, said + false
    print(f"all: {right}/{total} read right ({100.0 * right / max(total, 1):.0f}%), {said} with a false finding")
    return 0
