#!/usr/bin/env python3
"""The logs20f split, written and committed before any rule: the collected logs (a folder of *.log and a
manifest.tsv: file, label, source, note) go ~40% to heldout/logs20f (held back) and the rest to
tests/data/logs/logs20f (rules are written from these only). Per label, the names are sorted and shuffled with
a fixed seed, and round(0.4 * n) of them (at least 1 when n >= 2) are held back, so that every family is in both
parts.

    python3 heldout/logs20f/split.py STAGE_DIR
"""

import os
import random
import shutil
import sys

SEED = 20260526
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HELD = os.path.join(ROOT, "heldout", "logs20f")
DEV = os.path.join(ROOT, "tests", "data", "logs", "logs20f")


def split(rows):
    by_label = {}
    for r in rows:
        by_label.setdefault(r[1], []).append(r)
    rng = random.Random(SEED)
    held, dev = [], []
    for label in sorted(by_label):
        group = sorted(by_label[label])
        rng.shuffle(group)
        k = round(0.4 * len(group))
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
