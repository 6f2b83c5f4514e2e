#!/usr/bin/env python3
"""Score the batch-20n captures (issue 20): more texts users put where nvidia-smi's output goes (``nvidia-smi.txt``):
``cat /proc/driver/nvidia/version`` (the loaded kernel module), ``glxinfo`` (NVIDIA's OpenGL driver: its version and
the GPU that renders) and ``lshw -C display`` (the PCI display devices and the kernel driver bound to each). Each
``X.txt`` beside an ``X.expect.json`` is put alone into a fresh snapshot directory and read by the real CLI
(``envcheck status --json --snapshot DIR``, a subprocess), with the labels and check of
``scripts/score_captures20k.py``, plus

* ``jetson``: the report's ``accelerator.jetson`` (what ``jetson_release`` names: jetpack, model, cuda, cudnn,
  tensorrt), for a ``jetson-release.txt`` capture (the second and third draws: nvidia-smi's own common forms, Jetson
  captures).

    python3 scripts/score_captures20n.py heldout/captures20n -v
    python3 scripts/score_captures20n.py tests/data/captures20n -v
    python3 scripts/score_captures20n.py --code=/work/main heldout/captures20n

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
    if "jetson" in exp:
        got = (k20.nv.report(k20.CODE, exp["_file"], text).get("accelerator") or {}).get("jetson")
        if got != exp["jetson"]:
            bad.append(f"jetson: expected {exp['jetson']!r}, got {got!r}")
    return bad, extra


def _set_code(path: str) -> None:
    k20.CODE = path


def main(argv: List[str]) -> int:
    return capture_batch.run(argv, ROOT, os.path.join("heldout", "captures20n"), check, _set_code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
