#!/usr/bin/env python3
"""Score ``envcheck explain --json --no-detect`` on labelled bug-report pastes.

Each set is a folder whose README.md table rows read ``| FILE | LABEL | ...`` (LABEL ``none`` = a healthy
control: the right answer is "nothing recognised"), and where each ``FILE`` may have a ``.facts.json``
beside it (contract §4 ``facts``, hand-written). Prints per set:

* top-1 accuracy (the first match's id, or ``none`` when there is no match, equals the label);
* false alarms: ``none`` controls that got a match;
* facts-field accuracy: every leaf of the ``.facts.json`` (``driver.version``, ``gpus[1].name``,
  ``frameworks.torch.cuda``, ...) compared with what explain put in ``facts`` (a field explain left out
  counts as ``null``); also over the non-null expected fields alone, and the fields explain *added*
  that the hand-written file says are unknown (a wrong certainty).

    python3 scripts/score_pastes.py                      # tests/data/pastes/dev, dev2, holdback, heldout/pastes{,2,3}
    python3 scripts/score_pastes.py tests/data/pastes/dev -v

Runs the CLI in-process (click's runner), so the code scored is this checkout's. Exit status 0.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Any, Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SETS = ["tests/data/pastes/dev", "tests/data/pastes/dev2", "tests/data/pastes/holdback", "heldout/pastes",
                "heldout/pastes2", "heldout/pastes3"]
_ROW = re.compile(r"^\|\s*`?([^|`\s]+\.(?:log|txt))`?\s*\|\s*`?([a-z0-9-]+)`?\s*\|")


def labels(folder: str) -> Dict[str, str]:
    out: Dict[str, str] = {}
    readme = os.path.join(folder, "README.md")
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as fh:
            for line in fh:
                m = _ROW.match(line)
                if m and os.path.exists(os.path.join(folder, m.group(1))):
                    out[m.group(1)] = m.group(2)
    return out


def flatten(d: Any, prefix: str = "") -> Dict[str, Any]:
    """Leaves of a facts document; gpus by their index."""
    out: Dict[str, Any] = {}
    if isinstance(d, dict):
        for k, v in d.items():
            if k == "gpus" and isinstance(v, list):
                for i, g in enumerate(v):
                    idx = g.get("index", i) if isinstance(g, dict) else i
                    for kk, vv in flatten(g).items():
                        if kk != "index":
                            out[f"{prefix}gpus[{idx}].{kk}"] = vv
                out[f"{prefix}gpus.count"] = len(v)
            else:
                out.update(flatten(v, f"{prefix}{k}."))
    else:
        out[prefix[:-1]] = d
    return out


def run_explain(path: str) -> dict:
    from click.testing import CliRunner

    from envcheck.cli import cli as cli_main

    res = CliRunner().invoke(cli_main, ["explain", path, "--json", "--no-detect"])
    if res.exit_code not in (0, 1):
        return {"error": f"exit {res.exit_code}: {res.output[-300:]}"}
    try:
        return json.loads(res.output)
    except ValueError:
        return {"error": "not JSON: " + res.output[-300:]}


def score(folder: str, verbose: bool) -> Optional[Tuple[int, int]]:
    labs = labels(folder)
    if not labs:
        return None
    ok = n = alarms = controls = 0
    f_ok = f_n = nn_ok = nn_n = extra = 0
    lines: List[str] = []
    for f in sorted(labs):
        n += 1
        rep = run_explain(os.path.join(folder, f))
        ms = rep.get("matches") or []
        got = ms[0]["id"] if ms else "none"
        lab = labs[f]
        if lab == "none":
            controls += 1
            alarms += got != "none"
        hit = got == lab
        ok += hit
        facts_path = os.path.join(folder, f[: -len(".txt")] + ".facts.json") if f.endswith(".txt") else ""
        detail = ""
        if facts_path and os.path.exists(facts_path):
            with open(facts_path, encoding="utf-8") as fh:
                want = flatten(json.load(fh))
            have = flatten(rep.get("facts") or {})
            wrong = []
            for k, v in want.items():
                f_n += 1
                g = have.get(k)
                if g == v:
                    f_ok += 1
                else:
                    wrong.append(f"{k}: want {v!r} got {g!r}")
                if v is not None:
                    nn_n += 1
                    nn_ok += g == v
            # facts.claims is what the user typed (labelled a claim, contract §4), not a fact explain made certain
            added = [k for k, v in have.items() if v is not None and want.get(k) is None and k not in want
                     and not k.startswith("claims.")]
            extra += len(added)
            if wrong or added:
                detail = "; ".join(wrong[:6]) + (f"; +{len(added)} extra ({', '.join(added[:3])})" if added else "")
        if not hit or (verbose and detail):
            rank = ", ".join(f"{m['id']}:{m.get('score', '')}" for m in ms[:3])
            lines.append(f"  {'ok ' if hit else 'BAD'} {f}: {lab} -> {got}" + (f" [{rank}]" if rank else "")
                         + (f"\n        facts: {detail}" if verbose and detail else ""))
    print(f"{folder}: top-1 {ok}/{n} ({100.0 * ok / n:.0f}%), false alarms {alarms}/{controls} controls, "
          f"facts fields {f_ok}/{f_n} ({100.0 * f_ok / max(f_n, 1):.0f}%), non-null {nn_ok}/{nn_n} "
          f"({100.0 * nn_ok / max(nn_n, 1):.0f}%), fields added beyond the facts file {extra}")
    for ln in lines:
        print(ln)
    return ok, n


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sets", nargs="*")
    ap.add_argument("-v", "--verbose", action="store_true", help="also list facts differences")
    a = ap.parse_args(argv)
    sys.path.insert(0, ROOT)
    for s in a.sets or DEFAULT_SETS:
        folder = s if os.path.isabs(s) else os.path.join(ROOT, s)
        if os.path.isdir(folder) and score(folder, a.verbose) is None:
            print(f"{s}: no labels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
