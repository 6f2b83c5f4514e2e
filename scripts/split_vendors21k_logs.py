"""Split the batch-21k vendor error logs (issue 21) into a dev set and a held-back set, before any rule.

Run once, from the repository root, after collection and before anyone writes rules for them:

    python3 scripts/split_vendors21k_logs.py /tmp/v21k/logs

Input: ``*.log`` files and ``MANIFEST.tsv`` (file, label, source, note; tab-separated). The split is
stratified by label: for each label (sorted) the sorted file names of that label are shuffled with
``random.Random(SEED)`` and the first ``round(0.35 * n)`` go to ``heldout/vendors21k-logs/``, the rest to
``tests/data/logs/vendors21k/``. Each side gets a README.md table (``| file | label | source | note |``,
the form scripts/score_explain.py reads). Files are moved; nothing existing is overwritten.
"""

from __future__ import annotations

import csv
import os
import random
import shutil
import sys
from typing import Dict, List, Tuple

SEED = 2026112702
HELD_SHARE = 0.35

HEADER = """# {title}

{intro}

`label` is the root cause per contract §3 / §9 ids, established by the thread (maintainer answer, or the
reporter's "solved by ...") where it was, else - marked *(message)* - the cause the failure message itself
states. `none` = a control: a healthy run, a harmless notice, or an error with no GPU-stack cause envcheck
can name (a tensor left on the CPU; MPS unavailable on a macOS new enough for any torch, cause not
established): `envcheck explain` must give no cause for it. Each file is an excerpt of what was posted
(unrelated lines cut at line boundaries; no line edited). Collected by the `vendors21k` helper on
2026-11-27 with `find_string` from public GitHub issues, READMEs and notes (the *source* column: the thread's
URL where its mirror names it, else the find_string id); none of these texts was used before
(each URL was checked against tests/data, heldout, docs and compat_matrix).

| file | label | source | note |
| --- | --- | --- | --- |
"""


def main(src: str) -> int:
    rows: List[Tuple[str, str, str, str]] = []
    with open(os.path.join(src, "MANIFEST.tsv"), encoding="utf-8") as fh:
        for r in csv.reader(fh, delimiter="\t"):
            if r:
                rows.append((r[0], r[1], r[2], r[3]))
    by_label: Dict[str, List[str]] = {}
    for name, label, _, _ in rows:
        by_label.setdefault(label, []).append(name)
    rng = random.Random(SEED)
    held = set()
    for label in sorted(by_label):
        names = sorted(by_label[label])
        rng.shuffle(names)
        held.update(names[: round(HELD_SHARE * len(names))])
    out = {True: "heldout/vendors21k-logs", False: "tests/data/logs/vendors21k"}
    for d in out.values():
        os.makedirs(d, exist_ok=True)
    tables = {True: [], False: []}
    for name, label, url, note in sorted(rows):
        side = name in held
        dst = os.path.join(out[side], name)
        if os.path.exists(dst):
            print(f"exists, not overwritten: {dst}", file=sys.stderr)
            return 1
        shutil.move(os.path.join(src, name), dst)
        tables[side].append(f"| {name} | {label} | {url} | {note} |")
    intro = {
        True: "Held back before any rule was written (split by scripts/split_vendors21k_logs.py, seed %d, %d%% of each label). "
              "Scored once before and once after the batch's rules:\n\n    python3 scripts/score_explain.py heldout/vendors21k-logs"
              % (SEED, int(HELD_SHARE * 100)),
        False: "The dev part of batch 21k (rules for these families were written from these logs only; the held-back "
               "part is heldout/vendors21k-logs/).",
    }
    titles = {True: "Batch 21k vendor error logs: held back (issue 21)", False: "Batch 21k vendor error logs: dev part (issue 21)"}
    for side, d in out.items():
        with open(os.path.join(d, "README.md"), "w", encoding="utf-8") as fh:
            fh.write(HEADER.format(title=titles[side], intro=intro[side]))
            fh.write("\n".join(tables[side]) + "\n")
    print(f"held back {len(tables[True])}, dev {len(tables[False])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/v21k/logs"))
