"""Score the AMD / Intel / Apple readers on the held-out captures of heldout/vendors (issue 21).

Each ``NAME.txt`` / ``NAME.json`` there has ``NAME.expect.json`` (facts read by hand from the capture); the
reader is chosen by the file name's prefix. A capture counts as read right when every expected fact matches.
Run: ``python scripts/score_vendors.py [DIR]``; prints one line per capture and the score.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from envcheck.parse.amd_smi import parse_amd_smi_static, parse_amd_smi_version  # noqa: E402
from envcheck.parse.hipconfig import parse_hipconfig  # noqa: E402
from envcheck.parse.intel import parse_clinfo, parse_sycl_ls, parse_xpu_smi  # noqa: E402
from envcheck.parse.macos import parse_sw_vers, parse_system_profiler  # noqa: E402
from envcheck.parse.rocm_smi import parse_rocm_smi  # noqa: E402
from envcheck.parse.rocminfo import parse_rocminfo  # noqa: E402


def facts(name: str, text: str) -> Dict[str, Any]:
    if name.startswith("hipconfig"):
        h = parse_hipconfig(text)
        return {"tool": "hipconfig", "hip": h.hip, "platform": h.platform, "rocm_path": h.rocm_path}
    if name.startswith("amd-smi-static"):
        return {"tool": "amd-smi-static", "gpus": [{"name": g.name, "gfx": g.gfx, "device_id": g.device_id}
                                                   for g in parse_amd_smi_static(text)]}
    if name.startswith("amd-smi-version"):
        v = parse_amd_smi_version(text)
        return {"tool": "amd-smi-version", "rocm": v.rocm, "amdgpu": v.amdgpu}
    if name.startswith("sw-vers"):
        return {"tool": "sw_vers", "version": parse_sw_vers(text)}
    if name.startswith("rocminfo"):
        r = parse_rocminfo(text)
        return {"tool": "rocminfo", "gpus": [{"name": g.name, "gfx": g.gfx} for g in r.gpus]}
    if name.startswith("rocm-smi"):
        r = parse_rocm_smi(text)
        return {"tool": "rocm-smi", "gpus": [{"index": g.index, "device_id": g.device_id} for g in r.gpus],
                "driver": r.driver}
    if name.startswith("clinfo"):
        return {"tool": "clinfo", "devices": [{"platform": d.get("platform"), "name": d.get("name")}
                                              for d in parse_clinfo(text)]}
    if name.startswith("xpu-smi"):
        return {"tool": "xpu-smi", "gpus": [{"index": g.index, "name": g.name, "device_id": g.device_id}
                                            for g in parse_xpu_smi(text)]}
    if name.startswith("sycl-ls"):
        r = parse_sycl_ls(text)
        return {"tool": "sycl-ls", "level_zero_gpus": r.gpus("level_zero"), "opencl_gpus": r.gpus("opencl"),
                "level_zero": r.level_zero}
    if name.startswith("system-profiler"):
        return {"tool": "system-profiler-json" if name.endswith(".json") else "system-profiler",
                "gpus": [{"name": g.name, "vendor": g.vendor} for g in parse_system_profiler(text)]}
    return {}


def matches(want: Any, got: Any) -> bool:
    """Every expected key matches (a GPU entry compares only the keys the expectation names)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(matches(v, got.get(k)) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and all(matches(a, b) for a, b in zip(want, got))
    return bool(want == got)


def score(directory: str) -> Tuple[int, int, List[str]]:
    ok, total, lines = 0, 0, []
    for fn in sorted(os.listdir(directory)):
        if fn.endswith(".expect.json") or fn == "README.md":
            continue
        base = fn.rsplit(".", 1)[0]
        with open(os.path.join(directory, base + ".expect.json"), encoding="utf-8") as fh:
            want = json.load(fh)
        with open(os.path.join(directory, fn), encoding="utf-8") as fh:
            got = facts(fn, fh.read())
        good = matches(want, got)
        ok += good
        total += 1
        lines.append(f"{'ok  ' if good else 'MISS'} {fn}" + ("" if good else f"\n     want {want}\n     got  {got}"))
    return ok, total, lines


if __name__ == "__main__":
    dirs = sys.argv[1:] or [os.path.join(os.path.dirname(HERE), "heldout", x) for x in ("vendors", "vendors2", "vendors3", "vendors4", "vendors5")]
    all_ok = all_total = 0
    for d in dirs:
        ok, total, lines = score(d)
        print("\n".join(lines))
        print(f"{os.path.basename(d)}: read right {ok}/{total}")
        all_ok, all_total = all_ok + ok, all_total + total
    print(f"read right: {all_ok}/{all_total} ({100.0 * all_ok / max(all_total, 1):.0f}%)")
