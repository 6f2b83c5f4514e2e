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

import os
import sys
from typing import Any, Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import capture_batch  # noqa: E402
import score_captures20k as k20  # noqa: E402


def check(text: str, exp: Dict[str, Any]) -> Tuple[List[str], List[str]]:
    bad, extra = k20.check(text, exp)
    if "gpu_cc" in exp:
        r = k20.nv.report(k20.CODE, exp["_file"], text)
        got = [g.get("compute_capability") for g in r.get("gpus") or []]
        if got != exp["gpu_cc"]:
            bad.append(f"gpu_cc: expected {exp['gpu_cc']!r}, got {got!r}")
    return bad, extra


def _set_code(path: str) -> None:
    k20.CODE = path


def main(argv: List[str]) -> int:
    return capture_batch.run(argv, ROOT, os.path.join("heldout", "captures20m"), check, _set_code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
