#!/usr/bin/env python3
"""Score ``envcheck explain --json --no-detect`` on a logs20d-style folder: top-1 of the first match against
labels.txt (``FILE LABEL``; ``none`` = a healthy control, right when nothing is matched), and - issue 21 - for
the files vendors.txt names (``FILE VENDOR``: an AMD / Intel / Apple machine), whether any fix or dead end of
any match is NVIDIA-only (a CUDA wheel, a compute capability, nvidia-smi, ...: envcheck/explain/vendors.py's
test of an NVIDIA-only text).

    python3 heldout/logs20d/score.py heldout/logs20d tests/data/logs/logs20d
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the same test as envcheck/explain/vendors.py's _NVIDIA_ONLY (kept here so that the scorer does not trust the code)
NVIDIA_ONLY = re.compile(r"\b(CUDA|cu1\d{1,2}|sm_\d+|NVIDIA|nvidia-smi|nvcc|cuDNN|compute capability)\b")


def _rows(path: str):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as fh:
        return [ln.split() for ln in fh if ln.strip() and not ln.startswith("#")]


def _explain(path: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", path],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    return json.loads(r.stdout)


def score(folder: str) -> None:
    labels = dict((r[0], r[1]) for r in _rows(os.path.join(folder, "labels.txt")))
    vendors = dict((r[0], r[1]) for r in _rows(os.path.join(folder, "vendors.txt")))
    ok = 0
    wrong, nvidia = [], []
    for name in sorted(labels):
        rep = _explain(os.path.join(folder, name))
        ms = rep.get("matches") or []
        got = ms[0]["id"] if ms else "none"
        if got == labels[name]:
            ok += 1
        else:
            wrong.append(f"  {name}: expected {labels[name]} -> got {got}")
        if name in vendors:
            texts = [t for m in ms for t in (m.get("fixes") or []) + (m.get("dead_ends") or [])
                     if NVIDIA_ONLY.search(t) and "envcheck" not in t]
            if texts:
                nvidia.append(f"  {name} ({vendors[name]}): {texts[0][:110]}")
    n = len(labels)
    print(f"{folder}: top-1 {ok}/{n} = {100.0 * ok / max(n, 1):.1f}%; "
          f"non-NVIDIA logs with an NVIDIA-only text: {len(nvidia)}/{len(vendors)}")
    for w in wrong + nvidia:
        print(w)


if __name__ == "__main__":
    for f in sys.argv[1:] or [os.path.join(ROOT, "heldout", "logs20d")]:
        score(f)
