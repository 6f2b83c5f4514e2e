#!/usr/bin/env python3
"""The logs20j split, written and committed before any rule: the collected logs (a folder of *.log and a
manifest.tsv: file, label, source, note) go ~30% to heldout/logs20j (held back) and the rest to
tests/data/logs/logs20j (rules are written from these only). Per group (the label; healthy controls and the
failures no contract id fits are two groups of the label ``none``), the names are sorted and shuffled with a
fixed seed, and round(0.3 * n) of them (at least 1 when n >= 2) are held back, so that every family is in
both parts.

    python3 heldout/logs20j/split.py STAGE_DIR
"""

import os
import random
import shutil
import sys

SEED = 20261129
SHARE = 0.3
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HELD = os.path.join(ROOT, "heldout", "logs20j")
DEV = os.path.join(ROOT, "tests", "data", "logs", "logs20j")


def _group(row):
    if row[1] == "none":
        return "none-healthy" if row[0].startswith("healthy-") else "none-failure"
    return row[1]


def split(rows):
    by_group = {}
    for r in rows:
        by_group.setdefault(_group(r), []).append(r)
    rng = random.Random(SEED)
    held, dev = [], []
    for group_name in sorted(by_group):
        group = sorted(by_group[group_name])
        rng.shuffle(group)
        k = round(SHARE * len(group))
        if len(group) >= 2:
            k = max(k, 1)
        held += group[:k]
        dev += group[k:]
    return sorted(held), sorted(dev)


def main(stage):
    with open(os.path.join(stage, "manifest.tsv"), encoding="utf-8") as fh:
        rows = [ln.rstrip("\n").split("\t") for ln in fh if ln.strip()]
    held, dev = split(rows)
    for folder, part in ((HELD, held), (DEV, dev)):
        os.makedirs(folder, exist_ok=True)
        for r in part:
            shutil.copyfile(os.path.join(stage, r[0]), os.path.join(folder, r[0]))
        with open(os.path.join(folder, "manifest.tsv"), "w", encoding="utf-8") as fh:
            fh.writelines("\t".join(r) + "\n" for r in part)
    print(f"held back {len(held)}, dev {len(dev)}")


if __name__ == "__main__":
    main(sys.argv[1])
