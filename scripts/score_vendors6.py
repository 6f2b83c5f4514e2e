"""Score the readers on heldout/vendors6/ (set aside before the readers they test were written; see its README).

    python scripts/score_vendors6.py

Prints one line per capture (OK / MISS) and the score per tool; exit 0 always (a score, not a test).
"""

from __future__ import annotations

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from envcheck.parse.intel import clinfo_amd_gpus  # noqa: E402
from envcheck.parse.rocm_smi import parse_rocm_smi  # noqa: E402
from envcheck.parse.tegra import parse_jetson_release  # noqa: E402

BASE = os.path.join(ROOT, "heldout", "vendors6")


def _read(folder: str, name: str) -> str:
    with open(os.path.join(BASE, folder, name), encoding="utf-8") as fh:
        return fh.read()


def _jetson(text: str, exp: dict) -> object:
    r = parse_jetson_release(text)
    return {k: getattr(r, k) for k in exp} if r else None


def _rocm_smi(text: str, exp: list) -> object:
    return [{"index": g.index, "name": g.name, "device_id": g.device_id} for g in parse_rocm_smi(text).gpus]


def _showall(text: str, exp: dict) -> object:
    r = parse_rocm_smi(text)
    return {"driver": r.driver, "gpus": [{"index": g.index, "device_id": g.device_id, "bus_id": g.bus_id}
                                         for g in r.gpus]}


def _clinfo(text: str, exp: list) -> object:
    return [{"name": g.name, "gfx": g.gfx, "device_id": g.device_id} for g in clinfo_amd_gpus(text)]


READERS = {"jetson-release": _jetson, "rocm-smi": _rocm_smi, "rocm-smi-showall": _showall, "clinfo-amd": _clinfo}


def main() -> int:
    total = good = 0
    for folder, fn in READERS.items():
        with open(os.path.join(BASE, folder, "expected.json"), encoding="utf-8") as fh:
            expected = json.load(fh)
        if folder == "rocm-smi-showall":
            names = [n for n in sorted(os.listdir(os.path.join(BASE, folder))) if n.endswith(".txt")]
            expected = {n: expected for n in names}
        ok = 0
        for name, exp in sorted(expected.items()):
            got = fn(_read(folder, name), exp)
            hit = got == exp
            ok += hit
            print(f"{'OK  ' if hit else 'MISS'} {folder}/{name}" + ("" if hit else f"\n     got {got}\n     exp {exp}"))
        print(f"{folder}: {ok}/{len(expected)}")
        total += len(expected)
        good += ok
    print(f"all: {good}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
