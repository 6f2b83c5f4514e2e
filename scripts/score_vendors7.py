"""Score the readers on the seventh batch of real captures (issue 21; see heldout/vendors7/README.md).

    python scripts/score_vendors7.py                    # the held-back part of batch 7 (heldout/vendors7/)
    python scripts/score_vendors7.py heldout/vendors8   # the held-back part of batch 8 (heldout/vendors8/)
    python scripts/score_vendors7.py --dev              # the dev parts (tests/data/vendors/*/v7-*, v8-*)

One line per capture (OK / MISS with what was read); exit 0 always (a score, not a test).
"""

from __future__ import annotations

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from envcheck.parse.amd_smi import parse_amd_smi_list, parse_amd_smi_static  # noqa: E402
from envcheck.parse.hipconfig import parse_hipconfig  # noqa: E402
from envcheck.parse.intel import clinfo_amd_gpus, parse_clinfo, parse_sycl_ls, parse_xpu_smi  # noqa: E402
from envcheck.parse.macos import parse_sw_vers, parse_system_profiler  # noqa: E402
from envcheck.parse.rocm_smi import parse_rocm_smi  # noqa: E402
from envcheck.parse.rocminfo import parse_rocminfo  # noqa: E402
from envcheck.parse.tegra import parse_jetson_release  # noqa: E402

DEV_EXPECTED = os.path.join(ROOT, "tests", "data", "vendors", "v7-expected.json")


def read(tool: str, text: str) -> object:
    if tool.startswith("sycl-ls"):
        r = parse_sycl_ls(text)
        return {"level_zero_gpus": r.gpus("level_zero"), "level_zero": r.level_zero}
    if tool.startswith("amd-smi-static"):
        return [{"name": g.name, "gfx": g.gfx, "device_id": g.device_id} for g in parse_amd_smi_static(text)]
    if tool.startswith("rocm-smi"):
        return [{"index": g.index, "name": g.name, "gfx": g.gfx, "device_id": g.device_id}
                for g in parse_rocm_smi(text).gpus]
    if tool.startswith("clinfo-amd"):
        return [{"name": g.name, "gfx": g.gfx, "device_id": g.device_id} for g in clinfo_amd_gpus(text)]
    if tool.startswith("clinfo"):
        return [{"name": d["name"], "driver": d["driver"]} for d in parse_clinfo(text)]
    if tool.startswith("jetson-release"):
        j = parse_jetson_release(text)
        keys = ("cuda", "cudnn", "jetpack", "l4t", "model", "tensorrt")
        return {k: getattr(j, k) for k in keys} if j else None
    if tool.startswith("amd-smi-list"):
        return [{k: g[k] for k in ("index", "bdf", "partition_id")} for g in parse_amd_smi_list(text)]
    if tool.startswith("sw-vers"):
        return parse_sw_vers(text)
    if tool.startswith("rocminfo"):
        return [{"name": g.name, "gfx": g.gfx, "device_id": g.device_id} for g in parse_rocminfo(text).gpus]
    if tool.startswith("hipconfig"):
        h = parse_hipconfig(text)
        return {"hip": h.hip, "platform": h.platform, "rocm_path": h.rocm_path}
    if tool.startswith("xpu-smi"):
        return [{"index": g.index, "name": g.name, "device_id": g.device_id} for g in parse_xpu_smi(text)]
    if tool.startswith("system-profiler"):
        return [{"name": g.name, "vendor": g.vendor} for g in parse_system_profiler(text)]
    raise ValueError(tool)


def main(argv: list) -> int:
    if "--dev" in argv:
        base, exp_path = os.path.join(ROOT, "tests", "data", "vendors"), DEV_EXPECTED
    else:
        sets = [a for a in argv if not a.startswith("-")]
        base = os.path.join(ROOT, sets[0]) if sets else os.path.join(ROOT, "heldout", "vendors7")
        exp_path = os.path.join(base, "expected.json")
    with open(exp_path, encoding="utf-8") as fh:
        expected = json.load(fh)
    good = 0
    for name, exp in sorted(expected.items()):
        with open(os.path.join(base, name), encoding="utf-8") as fh:
            text = fh.read()
        tool = name.split("/")[0] if "/" in name else name.split("__")[0]
        got = read(tool, text)
        ok = got == exp
        good += ok
        print(("OK   " if ok else "MISS ") + name + ("" if ok else f"\n     got {got}\n     want {exp}"))
    print(f"{good}/{len(expected)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
