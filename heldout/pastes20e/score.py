#!/usr/bin/env python3
"""Score ``envcheck explain --json --no-detect`` on the pastes20e sets: top-1 cause (``labels.txt``: ``FILE LABEL``,
``none`` = nothing wrong with the stack) and facts (``<name>.facts.json``: each expected leaf read right; a GPU is
a hit when its whole entry is read exactly; a GPU read that is not expected, or a fact read where ``null`` is
expected, is a false fact; a facts file without a ``gpus`` key does not judge GPUs: the GPU is named only in prose).

    python3 heldout/pastes20e/score.py heldout/pastes20e tests/data/pastes/pastes20e
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def _explain(path: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", path],
                       capture_output=True, text=True, timeout=120)
    return json.loads(r.stdout)


def _leaves(d, prefix=""):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _leaves(v, f"{prefix}.{k}" if prefix else k)
    else:
        yield prefix, d


def _facts(want: dict, got: dict):
    hits = total = false = 0
    bad = []
    g_got = {g["index"]: g for g in got.get("gpus") or []}
    judged = "gpus" in want
    wanted = {g["index"]: g for g in want.get("gpus", [])}
    for i, g in wanted.items():
        total += 1
        if g_got.get(i) == g:
            hits += 1
        else:
            bad.append(f"gpu {i}: want {g} got {g_got.get(i)}")
    for i, g in g_got.items() if judged else ():
        w = wanted.get(i)
        if w is None or any(g.get(k) not in (None, w.get(k)) for k in ("name", "compute_capability", "gfx", "vendor")):
            false += 1
            bad.append(f"FALSE gpu {i}: {g}")
    for key, val in _leaves({k: v for k, v in want.items() if k != "gpus"}):
        total += 1
        cur = got
        for part in key.split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        if cur == val:
            hits += 1
        else:
            bad.append(f"{key}: want {val!r} got {cur!r}")
            if cur is not None and (val is None or val is False or val is True):
                false += 1
    return hits, total, false, bad


def score(folder: str) -> None:
    rows = [ln.split() for ln in open(os.path.join(folder, "labels.txt")) if ln.strip() and not ln.startswith("#")]
    ok = hits = total = false = 0
    for name, label in rows:
        doc = _explain(os.path.join(folder, name))
        top = doc["matches"][0]["id"] if doc.get("matches") else "none"
        ok += top == label
        base = name[: -len(".txt")]
        fp = os.path.join(folder, base + ".facts.json")
        bad = []
        if os.path.exists(fp):
            h, t, f, bad = _facts(json.load(open(fp)), doc.get("facts") or {})
            hits, total, false = hits + h, total + t, false + f
        print(f"  {'ok ' if top == label and not bad else 'BAD'} {name}: {label} -> {top}"
              + "".join(f"\n      {b}" for b in bad))
    print(f"{folder}: top-1 {ok}/{len(rows)}; facts {hits}/{total} read right, {false} false")


if __name__ == "__main__":
    for folder in sys.argv[1:]:
        score(folder)
