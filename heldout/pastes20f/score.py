#!/usr/bin/env python3
"""Score ``envcheck explain --json --no-detect`` on the pastes20f sets: the pastes20d scorer's facts rule (each
expected leaf read right; a GPU is a hit when its whole entry is read exactly; a fact read where ``null`` is expected
is a false fact) and top-1 (``labels.txt``: ``FILE LABEL``; ``none`` = nothing wrong with the stack, so any finding
is a miss; ``null`` = the thread establishes no cause: top-1 is not scored, only shown).

    python3 heldout/pastes20f/score.py heldout/pastes20f tests/data/pastes/pastes20f
"""

from __future__ import annotations

import json
import os
import runpy
import sys

_D = runpy.run_path(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pastes20d", "score.py"))


def score(folder: str) -> None:
    rows = [ln.split() for ln in open(os.path.join(folder, "labels.txt")) if ln.strip() and not ln.startswith("#")]
    ok = scored = hits = total = false = exact = 0
    for name, label in rows:
        doc = _D["_explain"](os.path.join(folder, name))
        top = doc["matches"][0]["id"] if doc.get("matches") else "none"
        fp = os.path.join(folder, name[: -len(".txt")] + ".facts.json")
        bad: list = []
        if os.path.exists(fp):
            h, t, f, bad = _D["_facts"](json.load(open(fp)), doc.get("facts") or {})
            hits, total, false = hits + h, total + t, false + f
        exact += not bad
        if label != "null":
            scored += 1
            ok += top == label
        mark = "ok " if (label == "null" or top == label) and not bad else "BAD"
        print(f"  {mark} {name}: {label} -> {top}" + "".join(f"\n      {b}" for b in bad))
    print(f"{folder}: top-1 {ok}/{scored} (null-labelled not scored); facts {hits}/{total} read right, {false} false; "
          f"pastes with every fact exact {exact}/{len(rows)}")


if __name__ == "__main__":
    for folder in sys.argv[1:]:
        score(folder)
