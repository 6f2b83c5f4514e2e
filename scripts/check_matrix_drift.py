"""Compare the bundled matrix with live sources and print what is missing or extra, as JSON.

Needs the network; run it by hand or from scheduled CI — never from pytest (the network must not
decide a test result). Sources it can check automatically:

* PyPI's JSON API: released versions of torch, tensorflow, jax, nvidia-cudnn-cu12/cu13.
  A version on PyPI but not in the matrix is "missing"; in the matrix but not on PyPI, "extra".

Usage:  python scripts/check_matrix_drift.py [--timeout 20]
Exit status: 0 no drift, 1 drift found, 2 a source could not be read.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from envcheck.matrix import Matrix, bundled_dir  # noqa: E402

PYPI = "https://pypi.org/pypi/{name}/json"


def pypi_versions(name: str, timeout: float):
    import requests

    r = requests.get(PYPI.format(name=name), timeout=timeout)
    r.raise_for_status()
    data = r.json()
    out = []
    for v, files in data.get("releases", {}).items():
        if files and not all(f.get("yanked") for f in files) and re.match(r"^\d+(\.\d+)*(\.post\d+)?$", v):
            out.append(v)
    return set(out)


def _key(v: str):
    return [int(x) if x.isdigit() else -1 for x in re.split(r"[.]", v)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=20.0)
    args = ap.parse_args()
    m = Matrix(bundled_dir())
    ours = {
        "torch": {r["version"] for r in m.rows("torch", "release")},
        "tensorflow": {p for r in m.rows("tensorflow", "release") for p in (r.get("patches") or [])},
        "jax": {r["jax"] for r in m.rows("jax", "release")},
        "nvidia-cudnn-cu12": {".".join(p.split(".")[:3]) for r in m.rows("cudnn", "release")
                              for p in [r["version"]] + list(r.get("patches") or [])},
    }
    floors = {"torch": (1, 8), "tensorflow": (1, 13), "jax": (0, 4), "nvidia-cudnn-cu12": (7, 6)}
    report, failed = {}, False
    for name, have in ours.items():
        try:
            live = pypi_versions(name, args.timeout)
        except Exception as exc:  # noqa: BLE001 - report and go on
            report[name] = {"error": str(exc)}
            failed = True
            continue
        if name == "nvidia-cudnn-cu12":
            live = {".".join(v.split(".")[:3]) for v in live}
        live = {v for v in live if tuple(int(x) for x in v.split(".")[:2]) >= floors[name]}
        report[name] = {"missing": sorted(live - have, key=_key), "extra": sorted(have - live, key=_key)}
    print(json.dumps(report, indent=2))
    if failed:
        return 2
    return 1 if any(r.get("missing") or r.get("extra") for r in report.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
