"""Score whole-pipeline reads of the batch-21f vendor captures (issue 21; see heldout/vendors21f/README.md).

    python scripts/score_vendors21f.py                  # the held-back part (heldout/vendors21f/)
    python scripts/score_vendors21f.py --dev            # the dev part (tests/data/vendors/*/v21f-*)
    python scripts/score_vendors21f.py heldout/vendors21f2          # the second batch's held-back part
    python scripts/score_vendors21f.py --dev=v21f2                  # its dev part (tests/data/vendors/*/v21f2-*)
    python scripts/score_vendors21f.py heldout/vendors21j           # batch 21j (scripts/split_vendor_batch.py captures 21j)
    python scripts/score_vendors21f.py --dev=v21j
    python scripts/score_vendors21f.py heldout/vendors21k           # batch 21k (scripts/split_vendor_batch.py captures 21k)
    python scripts/score_vendors21f.py --dev=v21k

Each capture is put alone into a fresh snapshot directory under its contract file name (docs/contract.md §9)
and read by the real CLI, ``envcheck status --json --snapshot DIR`` (a subprocess). The hand-written facts
of the capture (vendor, GPUs with name / gfx / device id, ROCm / amdgpu versions, macOS, L4T, Intel GPU lists)
are compared with the report; on an AMD, Intel or Apple capture the report (JSON findings and the text
report) must also say nothing NVIDIA-only. One line per capture (OK / MISS with what differed); exit 0
always (a score, not a test).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from typing import Any, Dict, List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: the capture's tool (its file-name prefix) -> the snapshot file it is (contract §9)
SNAPSHOT_NAME = {
    "rocm-smi": "rocm-smi.txt",
    "rocm-smi-product": "rocm-smi-product.txt",
    "rocm-smi-driver": "rocm-smi-driver.txt",
    "amd-smi": "amd-smi.txt",
    "amd-smi-version": "amd-smi-version.txt",
    "amd-smi-static": "amd-smi-static.txt",
    "amd-smi-list": "amd-smi-list.txt",
    "rocminfo": "rocminfo.txt",
    "hipconfig": "hipconfig.txt",
    "hipinfo": "hipinfo.txt",
    "sycl-ls": "sycl-ls.txt",
    "clinfo": "clinfo.txt",
    "xpu-smi": "xpu-smi-discovery.txt",
    "sw-vers": "sw-vers.txt",
    "system-profiler": "system-profiler-displays.txt",
    "tegra-release": "tegra-release.txt",
    "jetson-release": "jetson-release.txt",
}

#: said about an AMD / Intel / Apple machine, these are NVIDIA-only
NVIDIA_ONLY = re.compile(r"nvidia|nvml|libcuda|cuda driver|compute capability", re.IGNORECASE)


def _get(report: Dict[str, Any], path: str) -> Any:
    cur: Any = report
    for part in path.split("."):
        cur = cur.get(part) if isinstance(cur, dict) else None
    return cur


def run_status(tool: str, text: bytes) -> Dict[str, Any]:
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, SNAPSHOT_NAME[tool]), "wb") as fh:
            fh.write(text)
        env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
        js = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", d],
                            capture_output=True, env=env, timeout=120)
        txt = subprocess.run([sys.executable, "-m", "envcheck", "status", "--snapshot", d],
                             capture_output=True, env=env, timeout=120)
    try:
        report = json.loads(js.stdout.decode("utf-8", "replace"))
    except ValueError:
        report = {"_error": (js.stdout + js.stderr).decode("utf-8", "replace")[-300:]}
    report["_text"] = txt.stdout.decode("utf-8", "replace")
    return report


def compare(facts: Dict[str, Any], report: Dict[str, Any]) -> List[str]:
    if "_error" in report:
        return ["no report: " + report["_error"]]
    bad = []
    for key, want in facts.items():
        if key == "no_nvidia":
            continue
        if key == "findings":
            got_ids = {f.get("id") for f in report.get("findings") or []}
            bad += [f"finding {w} not given (got {sorted(i for i in got_ids if i)})" for w in want if w not in got_ids]
        elif key == "gpus":
            got = report.get("gpus") or []
            if len(got) != len(want):
                bad.append(f"gpus: {len(got)} read, {len(want)} wanted: "
                           f"{[(g.get('name'), g.get('device_id'), g.get('gfx')) for g in got]}")
                continue
            for i, (g, w) in enumerate(zip(got, want)):
                for k, v in w.items():
                    if g.get(k) != v:
                        bad.append(f"gpus[{i}].{k}: {g.get(k)!r}, wanted {v!r}")
        else:
            got = _get(report, key)
            if isinstance(got, list) and isinstance(want, list):
                got = list(got)
            if got != want:
                bad.append(f"{key}: {got!r}, wanted {want!r}")
    if facts.get("vendor", "nvidia") not in ("nvidia", None) or any(k.startswith(("rocm.", "xpu.", "no_nvidia")) for k in facts):
        said = [f"{f.get('id')}: {f.get('message') or f.get('title') or ''}" for f in report.get("findings") or []]
        said += [str(p) for p in report.get("problems") or []]
        hits = [s for s in said if NVIDIA_ONLY.search(s)]
        hits += [ln.strip() for ln in report["_text"].splitlines() if NVIDIA_ONLY.search(ln)]
        if hits:
            bad.append("NVIDIA-only text: " + " | ".join(hits[:3]))
    return bad


def main(argv: List[str]) -> int:
    dev = [a for a in argv if a == "--dev" or a.startswith("--dev=")]
    if dev:
        base = os.path.join(ROOT, "tests", "data", "vendors")
        exp_path = os.path.join(base, (dev[0].partition("=")[2] or "v21f") + "-expected.json")
    else:
        sets = [a for a in argv if not a.startswith("-")]
        base = os.path.join(ROOT, sets[0] if sets else os.path.join("heldout", "vendors21f"))
        exp_path = os.path.join(base, "expected.json")
    with open(exp_path, encoding="utf-8") as fh:
        expected = json.load(fh)
    good = 0
    for name, exp in sorted(expected.items()):
        tool = name.split("/")[0] if "/" in name else name.split("__")[0]
        with open(os.path.join(base, name), "rb") as fh:
            report = run_status(tool, fh.read())
        bad = compare(exp["facts"], report)
        good += not bad
        print(("OK   " if not bad else "MISS ") + name + "".join("\n     " + b for b in bad))
    print(f"{good}/{len(expected)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
