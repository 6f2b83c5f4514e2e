#!/usr/bin/env python3
"""Score the batch-20m captures (issue 20): GPU listers other than nvidia-smi put where nvidia-smi's output goes
(``nvidia-smi.txt``): CUDA samples' ``deviceQuery`` / ``deviceQueryDrv``, ``nvidia-container-cli info``,
``cat /proc/driver/nvidia/gpus/*/information``, ``gpustat``, ``lspci | grep -i nvidia``, ``dcgmi discovery -l``.
Each ``X.txt`` beside an ``X.expect.json`` is put alone into a fresh snapshot directory and read by the real CLI
(``envcheck status --json --snapshot DIR``, a subprocess), as ``scripts/score_captures20k.py`` does; the labels are
that script's, plus

* ``gpu_cc``: each listed GPU's ``compute_capability``, in order (only where the text states it).

    python3 scripts/score_captures20m.py heldout/captures20m -v
    python3 scripts/score_captures20m.py tests/data/captures20m -v
    python3 scripts/score_captures20m.py --code=/work/main heldout/captures20m

Exit status 0 (a score, not a test).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any, Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import score_captures20k as k20  # noqa: E402


def check(text: str, exp: Dict[str, Any]) -> Tuple[List[str], List[str]]:
    bad, extra = k20.check(text, exp)
    if "gpu_cc" in exp:
        r = k20.nv.report(k20.CODE, exp["_file"], text)
        got = [g.get("compute_capability") for g in r.get("gpus") or []]
        if got != exp["gpu_cc"]:
            bad.append(f"gpu_cc: expected {exp['gpu_cc']!r}, got {got!r}")
    return bad, extra


def score(folder: str, verbose: bool) -> Tuple[int, int, int]:
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


def main(argv: List[str]) -> int:
    verbose = "-v" in argv
    codes = [a.partition("=")[2] for a in argv if a.startswith("--code=")]
    if codes:
        k20.CODE = os.path.abspath(codes[0])
    os.chdir(tempfile.gettempdir())
    sets = [a for a in argv if not a.startswith("-")] or [os.path.join("heldout", "captures20m")]
    total = right = said = 0
    for folder in sets:
        path = folder if os.path.isabs(folder) else os.path.join(ROOT, folder)
        ok, n, false = score(path, verbose)
        print(f"{folder}: {ok}/{n} read right, {false} with a false finding")
        total, right, said = total + n, right + ok, said + false
    print(f"all: {right}/{total} read right ({100.0 * right / max(total, 1):.0f}%), {said} with a false finding")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
