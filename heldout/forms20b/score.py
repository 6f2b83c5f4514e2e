#!/usr/bin/env python3
"""Score ``envcheck explain --json --no-detect`` on the forms20b held-back sets (and the dev sets beside them).

* a folder whose files have a ``.facts.json`` beside them (a list of GPUs, or a contract §4 ``facts`` fragment):
  each expected GPU read exactly (index, name, compute capability) is a hit; a GPU read that is not expected, or
  read with another value, is a false fact;
* a folder with a ``labels.txt`` (``FILE LABEL`` rows; ``none`` = a healthy control): top-1 of the first match.

    python3 heldout/forms20b/score.py heldout/forms20b/tf-devices tests/data/logs/forms20b
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


def score_facts(folder: str) -> None:
    hits = total = false = 0
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".facts.json"):
            continue
        base = name[: -len(".facts.json")]
        log = next((os.path.join(folder, base + ext) for ext in (".log", ".txt") if
                    os.path.exists(os.path.join(folder, base + ext))), None)
        if log is None:
            continue
        want = json.load(open(os.path.join(folder, name)))
        got = _explain(log).get("facts") or {}
        if isinstance(want, list):
            want = {"gpus": want}
        g_got = {g["index"]: g for g in got.get("gpus") or []}
        bad = []
        for g in want.get("gpus", []):
            total += 1
            if g_got.get(g["index"]) == g:
                hits += 1
            else:
                bad.append(f"gpu {g['index']}: want {g} got {g_got.get(g['index'])}")
        wanted = {g["index"]: g for g in want.get("gpus", [])}
        for i, g in g_got.items():
            w = wanted.get(i)
            if w is None or any(g.get(k) not in (None, w.get(k)) for k in ("name", "compute_capability")):
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
                if cur is not None and val is None:
                    false += 1
        print(f"  {'ok ' if not bad else 'BAD'} {base}" + ("".join(f"\n      {b}" for b in bad)))
    print(f"{folder}: facts {hits}/{total} read right, {false} false")


def score_labels(folder: str) -> None:
    rows = [ln.split() for ln in open(os.path.join(folder, "labels.txt")) if ln.strip() and not ln.startswith("#")]
    ok = 0
    for name, label in rows:
        doc = _explain(os.path.join(folder, name))
        top = doc["matches"][0]["id"] if doc.get("matches") else "none"
        ok += top == label
        print(f"  {'ok ' if top == label else 'BAD'} {name}: {label} -> {top}")
    print(f"{folder}: top-1 {ok}/{len(rows)}")


if __name__ == "__main__":
    for folder in sys.argv[1:]:
        if os.path.exists(os.path.join(folder, "labels.txt")):
            score_labels(folder)
        else:
            score_facts(folder)
