"""Split the batch-21l vendor captures (issue 21) into a dev part and a held-back part, before any rule.

Run once, from the repository root, after collection and before anyone writes rules for them:

    python3 scripts/split_vendors21l.py INCOMING_DIR

Input: the captures ``<tool>__<description>.<ext>`` and ``expected.json`` (the hand-written facts and the
source of each). The split is stratified by tool: for each tool (sorted) the sorted names of its captures
are shuffled with ``random.Random(SEED)`` and the first ``round(HELD_SHARE * n)`` go to
``heldout/vendors21l/`` (names kept, facts in its ``expected.json``); the rest go to
``tests/data/vendors/<tool>/v21l-<description>.<ext>`` (facts in ``tests/data/vendors/v21l-expected.json``).
Both are read by ``scripts/score_vendors21f.py`` (``heldout/vendors21l`` and ``--dev=v21l``). Files are
copied; nothing existing is overwritten.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from typing import Dict, List

SEED = 2026112703
HELD_SHARE = 0.3
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(src: str) -> int:
    with open(os.path.join(src, "expected.json"), encoding="utf-8") as fh:
        expected = json.load(fh)
    by_tool: Dict[str, List[str]] = {}
    for name in expected:
        by_tool.setdefault(name.split("__")[0], []).append(name)
    rng = random.Random(SEED)
    held = set()
    for tool in sorted(by_tool):
        names = sorted(by_tool[tool])
        rng.shuffle(names)
        held.update(names[: round(HELD_SHARE * len(names))])
    held_dir = os.path.join(ROOT, "heldout", "vendors21l")
    os.makedirs(held_dir, exist_ok=True)
    held_exp: Dict[str, object] = {}
    dev_exp: Dict[str, object] = {}
    for name in sorted(expected):
        if name in held:
            dst = os.path.join(held_dir, name)
            held_exp[name] = expected[name]
        else:
            tool, _, rest = name.partition("__")
            rel = f"{tool}/v21l-{rest}"
            dst = os.path.join(ROOT, "tests", "data", "vendors", rel)
            dev_exp[rel] = expected[name]
        if os.path.exists(dst):
            raise SystemExit(f"exists: {dst}")
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(os.path.join(src, name), dst)
    for path, data in ((os.path.join(held_dir, "expected.json"), held_exp),
                       (os.path.join(ROOT, "tests", "data", "vendors", "v21l-expected.json"), dev_exp)):
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, ensure_ascii=False)
            fh.write("\n")
    print(f"held back {len(held_exp)}, dev {len(dev_exp)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
