#!/usr/bin/env python3
"""How many nvidia-smi captures are read right: every ``X.txt`` beside an ``X.expect.json`` in the given
folders (default: the held-back sets ``heldout/nvidia-smi`` and ``heldout/nvidia-smi-forms``) is parsed the way
a snapshot's ``nvidia-smi.txt`` is, and counts as right when the driver, its CUDA, the GPU list (index, name,
memory), MIG, the state and whether the list is known to be complete (True against not True: a fragment's False and
no list's None are both "not known whole", as ``gpus_known`` makes them) all equal the hand-written expectation (keys
an expect file leaves out are not compared, a GPU's keys included; ``form`` only where the code reports one).

    python3 scripts/score_captures.py                       # this checkout
    python3 scripts/score_captures.py --code /work/main     # another checkout's code (the "before")

Exit status 0 (a score is not a failure).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SETS = ["heldout/nvidia-smi", "heldout/nvidia-smi-forms"]


def read(parse: Any, text: str) -> Dict[str, Any]:
    t = parse(text)
    return {"form": getattr(t, "form", None), "driver_version": t.driver_version, "cuda_version": t.cuda_version,
            "gpus": [{"index": g.index, "name": g.name, "memory_total_mib": g.memory_total_mib} for g in t.gpus],
            "mig": t.mig_devices > 0 or any(g.mig_enabled for g in t.gpus), "error": t.error,
            "state": t.state, "gpus_complete": t.gpus_complete}


def same(key: str, expected: Any, got: Any) -> bool:
    """Is ``got`` what the expect file says for ``key``? ``gpus_complete`` is compared as what the contract makes of it
    (``gpus_known``: whether the list is known to be whole): False (a fragment) and None (no list at all) both say
    "not known whole", and a label of either is met by either."""
    if key == "gpus_complete":
        return (expected is True) == (got is True)
    return bool(expected == got)


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("sets", nargs="*")
    ap.add_argument("--code", help="a checkout whose envcheck package to score")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args(argv)
    sys.path.insert(0, os.path.abspath(a.code) if a.code else ROOT)
    from envcheck.parse import nvidia_smi

    parse = getattr(nvidia_smi, "parse_smi", nvidia_smi.parse_table)
    total = right = 0
    for folder in a.sets or DEFAULT_SETS:
        path = os.path.join(ROOT, folder) if not os.path.isabs(folder) else folder
        ok = n = 0
        for f in sorted(os.listdir(path)):
            if not f.endswith(".expect.json"):
                continue
            case = f[: -len(".expect.json")]
            with open(os.path.join(path, f), encoding="utf-8") as fh:
                exp = json.load(fh)
            with open(os.path.join(path, case + ".txt"), encoding="utf-8", errors="replace") as fh:
                got = read(parse, fh.read())
            keys = [k for k in exp if k in got and not (k == "form" and got["form"] is None)]
            if isinstance(exp.get("gpus"), list) and all(isinstance(g, dict) for g in exp["gpus"]):
                # a GPU's keys the expect file leaves out are not compared either (an -L listing's expectation that
                # names index and name only says nothing of the memory)
                got["gpus"] = [{k: g[k] for k in e if k in g} if isinstance(e, dict) else g
                               for g, e in zip(got["gpus"], exp["gpus"])] + got["gpus"][len(exp["gpus"]):]
            bad = [k for k in keys if not same(k, exp[k], got[k])]
            n += 1
            ok += not bad
            if bad and a.v:
                print(f"  {case}: " + "; ".join(f"{k}: expected {exp[k]!r}, got {got[k]!r}" for k in bad))
        print(f"{folder}: {ok}/{n} read right")
        total += n
        right += ok
    print(f"all: {right}/{total} read right ({100.0 * right / max(total, 1):.0f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
