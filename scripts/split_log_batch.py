#!/usr/bin/env python3
"""Split a batch of collected error logs (issue 20) into a dev part and a held-back part, before any rule. Run once,
from the repository root, after collection and before anyone writes rules for the batch:

    python3 scripts/split_log_batch.py BATCH SEED SHARE STAGE_DIR [--healthy-apart]

STAGE_DIR holds the collected ``*.log`` files and a ``manifest.tsv`` (file, label, source, note; tab-separated).
The logs are grouped by label (with ``--healthy-apart``, the label ``none`` is two groups: the healthy controls,
whose names start with ``healthy-``, and the failures no contract id fits); in each group (groups in sorted order)
the sorted names are shuffled with one ``random.Random(SEED)`` and the first ``round(SHARE * n)`` of them (at least
1 when n >= 2) are held back, so that every family is in both parts. The held-back part is copied to
``heldout/BATCH/``, the rest to ``tests/data/logs/BATCH/``, each with its own ``manifest.tsv``. Rules are written
from the dev part only.

The batches split so far (each heldout README names its line):

    logs20f 20260526 0.4                    logs20h 20261127 0.3 --healthy-apart
    logs20i 20261128 0.3 --healthy-apart    logs20j 20261129 0.3 --healthy-apart
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
from typing import Dict, List, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
Row = List[str]


def _group(row: Sequence[str], healthy_apart: bool) -> str:
    if healthy_apart and row[1] == "none":
        return "none-healthy" if row[0].startswith("healthy-") else "none-failure"
    return row[1]


def split(rows: Sequence[Row], seed: int, share: float, healthy_apart: bool = False) -> Tuple[List[Row], List[Row]]:
    """(held back, dev), each sorted: the choice described in the module's docstring."""
    by_group: Dict[str, List[Row]] = {}
    for r in rows:
        by_group.setdefault(_group(r, healthy_apart), []).append(list(r))
    rng = random.Random(seed)
    held: List[Row] = []
    dev: List[Row] = []
    for name in sorted(by_group):
        group = sorted(by_group[name])
        rng.shuffle(group)
        k = round(share * len(group))
        if len(group) >= 2:
            k = max(k, 1)
        held += group[:k]
        dev += group[k:]
    return sorted(held), sorted(dev)


def read_manifest(path: str) -> List[Row]:
    with open(path, encoding="utf-8") as fh:
        return [ln.rstrip("\n").split("\t") for ln in fh if ln.strip()]


def main(argv: Sequence[str] = ()) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("batch")
    ap.add_argument("seed", type=int)
    ap.add_argument("share", type=float)
    ap.add_argument("stage")
    ap.add_argument("--healthy-apart", action="store_true")
    a = ap.parse_args(list(argv) or None)
    held, dev = split(read_manifest(os.path.join(a.stage, "manifest.tsv")), a.seed, a.share, a.healthy_apart)
    for folder, part in ((os.path.join(ROOT, "heldout", a.batch), held),
                         (os.path.join(ROOT, "tests", "data", "logs", a.batch), dev)):
        os.makedirs(folder, exist_ok=True)
        for r in part:
            target = os.path.join(folder, r[0])
            if os.path.exists(target):
                raise SystemExit(f"{target} exists: nothing is overwritten")
            shutil.copyfile(os.path.join(a.stage, r[0]), target)
        with open(os.path.join(folder, "manifest.tsv"), "x", encoding="utf-8") as fh:
            fh.writelines("\t".join(r) + "\n" for r in part)
    print(f"held back {len(held)}, dev {len(dev)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
