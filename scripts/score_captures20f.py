#!/usr/bin/env python3
"""Score the batch-20f captures (issue 20 / 21): NVIDIA, Jetson, AMD, Intel and Apple tool outputs, each put alone
into a fresh snapshot directory under the contract file its label names (``_file``; docs/contract.md §1, §9) and
read by the real CLI (``envcheck status --json --snapshot DIR``, a subprocess).

Two label kinds (``X.expect.json`` beside ``X.txt``):

* NVIDIA / Jetson labels (``form``, ``driver_version``, ``cuda_version``, ``gpus``, ``gpus_complete``, ``mig``,
  ``state``, ``l4t``, ``findings``): compared as ``scripts/score_captures_status.py`` does (a capture that prints
  no CUDA field at all may have ``driver.cuda`` derived from the driver's branch; the contract allows it and
  ``driver.cuda_source`` says so); any warning or error finding the label does not name is a false statement.
* vendor labels (``{"facts": {...}}``: vendor, GPUs with name / gfx / device id, ROCm / HIP / amdgpu versions,
  macOS, Intel GPU lists): compared as ``scripts/score_vendors21f.py`` does, which also fails a capture of an AMD,
  Intel or Apple machine whose report says anything NVIDIA-only.

    python3 scripts/score_captures20f.py heldout/captures20f -v        # the held-back part
    python3 scripts/score_captures20f.py tests/data/captures20f -v     # the part the rules were written from
    python3 scripts/score_captures20f.py --code=/work/main heldout/captures20f   # another checkout's envcheck

Exit status 0 (a score, not a test).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import capture_batch  # noqa: E402
import score_captures_status as nv  # noqa: E402
import score_vendors21f as vd  # noqa: E402


CODE = ROOT  # the checkout whose envcheck is run (``--code DIR``)


def _nvidia(text: str, exp: Dict[str, Any]) -> Tuple[List[str], List[str]]:
    r = nv.report(CODE, exp.get("_file", "nvidia-smi.txt"), text)
    got = nv.facts(r)
    if exp.get("cuda_version") is None and not nv._CUDA_FIELD.search(text) \
            and str((r.get("driver") or {}).get("cuda_source") or "").startswith("envcheck matrix"):
        got["cuda_version"] = None  # no CUDA field printed: derived from the driver's branch (contract §2)
    want = {k: (sorted(v) if k == "findings" else v) for k, v in exp.items() if k in got}
    if "gpus_complete" in want and want["gpus_complete"] is None:
        want["gpus_complete"] = False  # no list at all: the report's boolean says "not known whole"
    bad = [f"{k}: expected {want[k]!r}, got {got.get(k)!r}" for k in want if want[k] != got.get(k)]
    extra = [i for i in got["findings"] if i not in want.get("findings", [])]
    return bad, extra


def _vendor(text: str, exp: Dict[str, Any]) -> Tuple[List[str], List[str]]:
    tool = next((t for t, f in vd.SNAPSHOT_NAME.items() if f == exp["_file"]), None)
    if tool is None:
        return [f"no snapshot file {exp['_file']!r} known to the vendor scorer"], []
    report = vd.run_status(tool, text.encode("utf-8"))
    return vd.compare(exp["facts"], report), []


def _check(text: str, exp: Dict[str, Any]) -> Tuple[List[str], List[str]]:
    return (_vendor if "facts" in exp else _nvidia)(text, exp)


def _set_code(path: str) -> None:
    global CODE
    CODE = path
    vd.ROOT = path  # the vendor scorer runs the same checkout


def main(argv: List[str]) -> int:
    return capture_batch.run(argv, ROOT, os.path.join("heldout", "captures20f"), _check, _set_code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
