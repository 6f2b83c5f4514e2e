#!/usr/bin/env python3
"""Score the batch-20k captures (issue 20): the small NVIDIA/CUDA captures users put in a snapshot by hand (``nvcc
--version``, the toolkit's ``version.txt`` / ``version.json``, ``cudnn_version.h`` grep blocks, ``ldconfig -p |
grep``, ``/proc/driver/nvidia/version``, ``modinfo nvidia``) and nvidia-smi forms. Each ``X.txt`` beside an
``X.expect.json`` is put alone into a fresh snapshot directory under the file its label names (``_file``;
docs/contract.md §1) and read by the real CLI (``envcheck status --json --snapshot DIR``, a subprocess).

Labels (all optional but ``_file``): the NVIDIA keys of ``scripts/score_captures_status.py`` (``form``,
``driver_version``, ``cuda_version``, ``gpus``, ``gpus_complete``, ``mig``, ``state``) and

* ``toolkit_version`` / ``toolkit_full`` / ``nvcc``: ``toolkit.version`` / ``toolkit.full_version`` / ``toolkit.nvcc``;
* ``cudnn``: the sorted versions of the report's ``cudnn`` list;
* ``kernel_module``: ``driver.kernel_module`` ("open" / "proprietary");
* ``not_checked``: the snapshot files a ``not-checked`` finding must name (a form present but not read, said so);
* ``findings``: exactly the warning / error ids (any other one is also counted as a false statement).

    python3 scripts/score_captures20k.py heldout/captures20k -v
    python3 scripts/score_captures20k.py tests/data/captures20k -v
    python3 scripts/score_captures20k.py --code=/work/main heldout/captures20k

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

import score_captures_status as nv  # noqa: E402

CODE = ROOT


def facts(r: Dict[str, Any]) -> Dict[str, Any]:
    got = nv.facts(r)
    tk = r.get("toolkit") or {}
    drv = r.get("driver") or {}
    got.update({"toolkit_version": tk.get("version"), "toolkit_full": tk.get("full_version"), "nvcc": tk.get("nvcc"),
                "cudnn": sorted(str(c.get("version")) for c in r.get("cudnn") or []),
                "kernel_module": drv.get("kernel_module")})
    return got


def _named(r: Dict[str, Any], file: str) -> bool:
    return any(f.get("id") == "not-checked" and str(f.get("message")).startswith(file + " ") for f in r.get("findings", []))


def check(text: str, exp: Dict[str, Any]) -> Tuple[List[str], List[str]]:
    r = nv.report(CODE, exp["_file"], text)
    got = facts(r)
    if exp.get("cuda_version") is None and not nv._CUDA_FIELD.search(text) \
            and str((r.get("driver") or {}).get("cuda_source") or "").startswith("envcheck matrix"):
        got["cuda_version"] = None  # no CUDA field printed: derived from the driver's branch (contract §2)
    want = {k: (sorted(v) if k in ("findings", "cudnn") else v) for k, v in exp.items() if k in got}
    bad = [f"{k}: expected {want[k]!r}, got {got.get(k)!r}" for k in want if want[k] != got.get(k)]
    bad += [f"no not-checked finding names {f}" for f in exp.get("not_checked", []) if not _named(r, f)]
    extra = [i for i in got["findings"] if i not in want.get("findings", [])]
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
    global CODE
    verbose = "-v" in argv
    codes = [a.partition("=")[2] for a in argv if a.startswith("--code=")]
    if codes:
        CODE = os.path.abspath(codes[0])
    os.chdir(tempfile.gettempdir())
    sets = [a for a in argv if not a.startswith("-")] or [os.path.join("heldout", "captures20k")]
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
