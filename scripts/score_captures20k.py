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

import os
import sys
from typing import Any, Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import capture_batch  # noqa: E402
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


def _set_code(path: str) -> None:
    global CODE
    CODE = path


def main(argv: List[str]) -> int:
    return capture_batch.run(argv, ROOT, os.path.join("heldout", "captures20k"), check, _set_code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
