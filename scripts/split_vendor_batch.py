"""Split a batch of vendor captures or vendor error logs (issue 21) into a dev part and a held-back part, before any
rule. Run once, from the repository root, after collection and before anyone writes rules for them:

    python3 scripts/split_vendor_batch.py captures BATCH SEED SHARE INCOMING_DIR
    python3 scripts/split_vendor_batch.py logs BATCH SEED SHARE INCOMING_DIR [HELD_DIR DEV_DIR]

The batches split so far (each heldout README names its own line):

    captures 21j 2026112621 0.3    captures 21k 2026112701 0.3    captures 21l 2026112703 0.3
    logs 21h 202611262 0.4 heldout/vendors21h tests/data/logs/vendors21h
    logs 21j 2026112622 0.35       logs 21k 2026112702 0.35

**captures**: input ``<tool>__<description>.<ext>`` files and ``expected.json`` (the hand-written facts and the
source of each). Stratified by tool: for each tool (sorted) the sorted names of its captures are shuffled with
``random.Random(SEED)`` and the first ``round(SHARE * n)`` go to ``heldout/vendorsBATCH/`` (names kept, facts in
its ``expected.json``); the rest go to ``tests/data/vendors/<tool>/vBATCH-<description>.<ext>`` (facts in
``tests/data/vendors/vBATCH-expected.json``). Both are read by ``scripts/score_vendors21f.py``. Files are copied.

**logs**: input ``*.log`` files and ``MANIFEST.tsv`` (file, label, source, note; tab-separated). Stratified by
label in the same way; the held-back share goes to HELD_DIR (default ``heldout/vendorsBATCH-logs``), the rest to
DEV_DIR (default ``tests/data/logs/vendorsBATCH``), each with a README.md table (``| file | label | source | note
|``, the form scripts/score_explain.py reads). Files are moved.

Nothing existing is overwritten.
"""

from __future__ import annotations

import csv
import json
import os
import random
import shutil
import sys
from typing import Dict, Iterable, List, Set, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HEADER = """# {title}

{intro}

`label` is the root cause per contract §3 / §9 ids, established by the thread (maintainer answer, or the
reporter's "solved by ...") where it was, else - marked *(message)* - the cause the failure message itself
states. `none` = a control: a healthy run, a harmless notice, or an error with no GPU-stack cause envcheck
can name (a tensor left on the CPU; MPS unavailable on a macOS new enough for any torch, cause not
established): `envcheck explain` must give no cause for it. Each file is an excerpt of what was posted
(unrelated lines cut at line boundaries; no line edited). Collected by the `vendors{batch}` helper from public
GitHub issues, READMEs and notes (the *source* column: the thread's URL, else the find_string id); none of these
texts was used before (each URL was checked against tests/data, heldout, docs and compat_matrix).

| file | label | source | note |
| --- | --- | --- | --- |
"""


def held_back(groups: Dict[str, List[str]], seed: int, share: float) -> Set[str]:
    """The names held back: for each group (sorted) its sorted names shuffled with ``random.Random(seed)``, the
    first ``round(share * n)`` of them."""
    rng = random.Random(seed)
    held: Set[str] = set()
    for key in sorted(groups):
        names = sorted(groups[key])
        rng.shuffle(names)
        held.update(names[: round(share * len(names))])
    return held


def _group(pairs: Iterable[Tuple[str, str]]) -> Dict[str, List[str]]:
    out: Dict[str, List[str]] = {}
    for name, key in pairs:
        out.setdefault(key, []).append(name)
    return out


def split_captures(batch: str, seed: int, share: float, src: str) -> int:
    with open(os.path.join(src, "expected.json"), encoding="utf-8") as fh:
        expected = json.load(fh)
    held = held_back(_group((n, n.split("__")[0]) for n in expected), seed, share)
    held_dir = os.path.join(ROOT, "heldout", f"vendors{batch}")
    os.makedirs(held_dir, exist_ok=True)
    held_exp: Dict[str, object] = {}
    dev_exp: Dict[str, object] = {}
    for name in sorted(expected):
        if name in held:
            dst = os.path.join(held_dir, name)
            held_exp[name] = expected[name]
        else:
            tool, _, rest = name.partition("__")
            rel = f"{tool}/v{batch}-{rest}"
            dst = os.path.join(ROOT, "tests", "data", "vendors", rel)
            dev_exp[rel] = expected[name]
        if os.path.exists(dst):
            raise SystemExit(f"exists: {dst}")
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(os.path.join(src, name), dst)
    for path, data in ((os.path.join(held_dir, "expected.json"), held_exp),
                       (os.path.join(ROOT, "tests", "data", "vendors", f"v{batch}-expected.json"), dev_exp)):
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, ensure_ascii=False)
            fh.write("\n")
    print(f"held back {len(held_exp)}, dev {len(dev_exp)}")
    return 0


def split_logs(batch: str, seed: int, share: float, src: str, held_dir: str, dev_dir: str) -> int:
    rows: List[Tuple[str, str, str, str]] = []
    with open(os.path.join(src, "MANIFEST.tsv"), encoding="utf-8") as fh:
        for r in csv.reader(fh, delimiter="\t"):
            if r:
                rows.append((r[0], r[1], r[2], r[3]))
    held = held_back(_group((name, label) for name, label, _, _ in rows), seed, share)
    out = {True: held_dir, False: dev_dir}
    for d in out.values():
        os.makedirs(d, exist_ok=True)
    tables: Dict[bool, List[str]] = {True: [], False: []}
    for name, label, url, note in sorted(rows):
        side = name in held
        dst = os.path.join(out[side], name)
        if os.path.exists(dst):
            print(f"exists, not overwritten: {dst}", file=sys.stderr)
            return 1
        shutil.move(os.path.join(src, name), dst)
        tables[side].append(f"| {name} | {label} | {url} | {note} |")
    command = f"scripts/split_vendor_batch.py logs {batch} {seed} {share}"
    intro = {
        True: f"Held back before any rule was written (split by {command}, {int(share * 100)}% of each label). "
              f"Scored once before and once after the batch's rules:\n\n    python3 scripts/score_explain.py {held_dir}",
        False: f"The dev part of batch {batch} (rules for these families were written from these logs only; the held-back "
               f"part is {held_dir}/).",
    }
    for side, d in out.items():
        title = f"Batch {batch} vendor error logs: {'held back' if side else 'dev part'} (issue 21)"
        with open(os.path.join(d, "README.md"), "w", encoding="utf-8") as fh:
            fh.write(HEADER.format(title=title, intro=intro[side], batch=batch))
            fh.write("\n".join(tables[side]) + "\n")
    print(f"held back {len(tables[True])}, dev {len(tables[False])}")
    return 0


def main(argv: List[str]) -> int:
    if len(argv) < 5 or argv[0] not in ("captures", "logs"):
        print(__doc__, file=sys.stderr)
        return 2
    kind, batch, seed, share, src = argv[0], argv[1], int(argv[2]), float(argv[3]), argv[4]
    if kind == "captures":
        return split_captures(batch, seed, share, src)
    held_dir = argv[5] if len(argv) > 5 else f"heldout/vendors{batch}-logs"
    dev_dir = argv[6] if len(argv) > 6 else f"tests/data/logs/vendors{batch}"
    return split_logs(batch, seed, share, src, held_dir, dev_dir)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
