#!/usr/bin/env python3
"""How many NVIDIA captures a *snapshot* reads right: each ``X.txt`` beside an ``X.expect.json`` in the given
folders is put alone into a fresh snapshot folder, under the file its expectation names (``_file``;
``nvidia-smi.txt`` by default, ``tegra-release.txt`` for ``/etc/nv_tegra_release``), and read with
``python -m envcheck status --json --snapshot DIR`` (a real subprocess, the way a user runs it).

A capture is read right when every labelled fact equals the report: ``driver_version`` (``driver.version``),
``cuda_version`` (``driver.cuda``), ``gpus`` (index, name, memory: ``gpus[*]``), ``mig`` (any GPU with
``mig`` true), ``state`` (``driver.nvidia_smi``), ``form`` (``driver.nvidia_smi_form``), ``gpus_complete``
(``gpus_known``), ``l4t`` (``accelerator.l4t``) and the finding ids that are warnings or errors
(``findings``: exactly these). A warning or error finding the label does not name is also counted as a
*false statement* (the capture never said it).

    python3 scripts/score_captures_status.py heldout/captures20e           # this checkout
    python3 scripts/score_captures_status.py --code /work/main heldout/captures20e -v   # another checkout
    python3 scripts/score_captures_status.py --paste heldout/captures20e   # driver, CUDA, GPU names as a paste

Exit status 0 (a score is not a failure).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def report(code: str, file: str, text: str) -> Dict[str, Any]:
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, file), "w", encoding="utf-8") as fh:
            fh.write(text)
        env = dict(os.environ, PYTHONPATH=code)
        p = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", d],
                           capture_output=True, text=True, env=env, cwd=d, timeout=120)
        return json.loads(p.stdout)


def facts(r: Dict[str, Any]) -> Dict[str, Any]:
    drv = r.get("driver") or {}
    gpus = r.get("gpus") or []
    return {"driver_version": drv.get("version"), "cuda_version": drv.get("cuda"), "state": drv.get("nvidia_smi"),
            "form": drv.get("nvidia_smi_form"), "gpus_complete": r.get("gpus_known"),
            "gpus": [{"index": g.get("index"), "name": g.get("name"), "memory_total_mib": g.get("memory_mib")}
                     for g in gpus],
            "mig": any(bool(g.get("mig")) for g in gpus),
            "l4t": (r.get("accelerator") or {}).get("l4t"),
            "findings": sorted(f["id"] for f in r.get("findings", []) if f.get("severity") in ("error", "warning"))}


def paste_facts(code: str, path: str) -> Dict[str, Any]:
    """The same capture read as a bug-report paste (``envcheck explain --json --no-detect FILE``): its facts."""
    env = dict(os.environ, PYTHONPATH=code)
    p = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", os.path.abspath(path)],
                       capture_output=True, text=True, env=env, cwd=tempfile.gettempdir(), timeout=120)
    f = json.loads(p.stdout).get("facts") or {}
    drv = f.get("driver") or {}
    return {"driver_version": drv.get("version"), "cuda_version": drv.get("cuda"),
            "gpus": [{"index": g.get("index"), "name": g.get("name")} for g in f.get("gpus") or []]}


def score_pastes(code: str, folder: str, verbose: bool) -> Tuple[int, int]:
    """Driver, its CUDA and the GPU names (index, name) of each nvidia-smi capture read as a paste."""
    ok = n = 0
    for f in sorted(os.listdir(folder)):
        if not f.endswith(".expect.json"):
            continue
        case = f[: -len(".expect.json")]
        with open(os.path.join(folder, f), encoding="utf-8") as fh:
            exp = json.load(fh)
        if exp.get("_file", "nvidia-smi.txt") != "nvidia-smi.txt" or "gpus" not in exp:
            continue
        got = paste_facts(code, os.path.join(folder, case + ".txt"))
        want = {"driver_version": exp["driver_version"], "cuda_version": exp["cuda_version"],
                "gpus": [{"index": g["index"], "name": g["name"]} for g in exp["gpus"]]}
        bad = [k for k in want if want[k] != got[k]]
        n += 1
        ok += not bad
        if verbose and bad:
            print(f"  {case} (paste): " + "; ".join(f"{k}: expected {want[k]!r}, got {got[k]!r}" for k in bad))
    return ok, n


_CUDA_FIELD = re.compile(r"CUDA (?:UMD )?Version\s*:", re.I)


def score(code: str, folder: str, verbose: bool, derived_ok: bool = False) -> Tuple[int, int, int]:
    ok = n = false = 0
    for f in sorted(os.listdir(folder)):
        if not f.endswith(".expect.json"):
            continue
        case = f[: -len(".expect.json")]
        with open(os.path.join(folder, f), encoding="utf-8") as fh:
            exp = json.load(fh)
        with open(os.path.join(folder, case + ".txt"), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        r = report(code, exp.get("_file", "nvidia-smi.txt"), text)
        got = facts(r)
        if derived_ok and exp.get("cuda_version") is None and not _CUDA_FIELD.search(text) \
                and str((r.get("driver") or {}).get("cuda_source") or "").startswith("envcheck matrix"):
            got["cuda_version"] = None  # no CUDA field printed; the report derived it from the driver branch
        want = {k: (sorted(v) if k == "findings" else v) for k, v in exp.items() if k in got}
        if "gpus_complete" in want and want["gpus_complete"] is None:
            want["gpus_complete"] = False  # no list at all: the report's boolean says "not known whole"
        bad = [k for k in want if want[k] != got.get(k)]
        extra = [i for i in got["findings"] if i not in want.get("findings", [])]
        n += 1
        ok += not bad
        false += bool(extra)
        if verbose and (bad or extra):
            print(f"  {case}: " + "; ".join(f"{k}: expected {want[k]!r}, got {got.get(k)!r}" for k in bad)
                  + (f"  FALSE: {extra}" if extra else ""))
    return ok, n, false


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--code", default=ROOT, help="a checkout whose envcheck package to run")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--paste", action="store_true", help="read each capture as a paste (explain) instead")
    ap.add_argument("--derived-ok", action="store_true",
                    help="a capture that prints no CUDA field at all (drivers before 410) may have driver.cuda derived "
                         "from the driver's branch (contract: driver.cuda_source says so); count that as the label's null")
    a = ap.parse_args(argv)
    if a.paste:
        pt = pn = 0
        for folder in a.sets:
            path = folder if os.path.isabs(folder) else os.path.join(ROOT, folder)
            ok, n = score_pastes(os.path.abspath(a.code), path, a.v)
            print(f"{folder} (as pastes): {ok}/{n} read right")
            pt, pn = pt + ok, pn + n
        print(f"all (as pastes): {pt}/{pn} read right ({100.0 * pt / max(pn, 1):.0f}%)")
        return 0
    total = right = wrong_said = 0
    for folder in a.sets:
        path = folder if os.path.isabs(folder) else os.path.join(ROOT, folder)
        ok, n, false = score(os.path.abspath(a.code), path, a.v, a.derived_ok)
        print(f"{folder}: {ok}/{n} read right, {false} with a false finding")
        total, right, wrong_said = total + n, right + ok, wrong_said + false
    print(f"all: {right}/{total} read right ({100.0 * right / max(total, 1):.0f}%), {wrong_said} with a false finding")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
