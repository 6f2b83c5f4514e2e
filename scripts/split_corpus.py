"""Split the collected real-data corpus into a dev set and a held-out set.

Run once, from the repository root, after collection and before anyone writes rules:

    python3 scripts/split_corpus.py corpus_incoming

Input (``corpus_incoming/``):
  logs/*.log            real failure logs, ``logs/manifest.tsv`` = file, label, source, note
  pastes/*.txt          real bug-report pastes, each with ``<name>.facts.json``;
                        ``pastes/manifest.tsv`` as above
  nvidia-smi/*.txt      nvidia-smi captures for the parser (issue 11), each with
                        ``<name>.expect.json``; ``nvidia-smi/kinds.tsv`` = file, kind

Logs and pastes are split each on its own: ``random.Random(20261123)`` shuffles the sorted
file names, the first half (rounded up) is dev, the rest held out. nvidia-smi captures go to
the normal parser data (tests/data/nvidia-smi/) except one of each kind that has more than
two captures, drawn with the same seed, which goes to heldout/nvidia-smi/.

Output:
  tests/data/logs/new/      dev logs + README.md        heldout/logs/      + README.md
  tests/data/pastes/dev/    dev pastes + README.md      heldout/pastes/    + README.md
  tests/data/nvidia-smi/    captures (rows for tests/data/README.md are printed)
  heldout/nvidia-smi/       + README.md

Files are moved (not copied); nothing existing is overwritten.
"""

from __future__ import annotations

import csv
import os
import random
import shutil
import sys
from typing import Dict, List, Tuple

SEED = 20261123

LOG_HEADER = """# {title}

Real failure logs copied from public issues (see the *source* column). Collected by the
`corpus` helper on 2026-11-23 and split at random (scripts/split_corpus.py, seed {seed}) into
a dev half (tests/data/logs/new/) and a held-out half (heldout/logs/) before any rule for
them was written. Each file is an excerpt of what was posted: unrelated lines around it were
cut at line boundaries; no line was edited. Shell prompts were removed except where a note
says otherwise.

`label` is the root cause per contract §3 ids, established by the thread (maintainer answer,
or the reporter's "solved by ...") where it was, else - marked *(message)* - the cause the
failure message itself states; *(versions)* = the versions printed in the same paste make
the cause certain. `none` = a healthy control (a successful run, or an error with no CUDA /
driver / library cause): `envcheck explain` should give no CUDA cause for it.

| file | label | source | note |
| --- | --- | --- | --- |
"""

PASTE_HEADER = """# {title}

Real bug-report pastes (an environment report - PyTorch/vLLM `collect_env`, detectron2's
collect_env, `jax.print_environment_info()`, `pip list`, nvidia-smi, `nvcc -V` ... - together
with the error where the excerpt has it), copied from public issues/PRs (see *source*).
Split at random with scripts/split_corpus.py (seed {seed}). Each `<name>.txt` has a
`<name>.facts.json` in the shape of contract §4 `facts`, holding only what the paste makes
certain (unknown = null):

* `driver.version` from "Nvidia driver version:" / the nvidia-smi header; `driver.cuda` only
  from nvidia-smi's "CUDA Version:" field.
* `gpus`: only GPUs whose name the paste states; `compute_capability` only where the paste
  states it; `[]` when no GPU is named.
* `frameworks.torch.cuda` from "CUDA used to build PyTorch" (or the `+cuXYZ` tag);
  `frameworks.torch.cudnn` is null unless torch's own cuDNN is printed - collect_env's
  "cuDNN version: Probably one of the following" lists system copies, not torch's.
* `toolkit` from nvcc: collect_env's "CUDA runtime version" is nvcc's version.
* "Could not collect" = unknown.

The index returned excerpts of long pastes; where a paste was cut (at a line boundary) the
note says so.

| file | label | source | note |
| --- | --- | --- | --- |
"""


def _manifest(path: str) -> Dict[str, Tuple[str, str, str]]:
    rows: Dict[str, Tuple[str, str, str]] = {}
    with open(path, encoding="utf-8") as fh:
        for row in csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            if not row:
                continue
            name, label, source, note = (row + ["", "", "", ""])[:4]
            if name in rows:
                raise SystemExit("duplicate manifest row: %s" % name)
            rows[name] = (label, source, note)
    return rows


def split_names(names: List[str]) -> Tuple[List[str], List[str]]:
    order = sorted(names)
    random.Random(SEED).shuffle(order)
    half = (len(order) + 1) // 2
    return sorted(order[:half]), sorted(order[half:])


def _cell(text: str) -> str:
    return text.replace("|", "\\|").strip()


def _move(src: str, dst_dir: str) -> None:
    os.makedirs(dst_dir, exist_ok=True)
    dst = os.path.join(dst_dir, os.path.basename(src))
    if os.path.exists(dst):
        raise SystemExit("refusing to overwrite %s" % dst)
    shutil.move(src, dst)


def _write_readme(path: str, header: str, title: str, names: List[str],
                  rows: Dict[str, Tuple[str, str, str]]) -> None:
    if os.path.exists(path):
        raise SystemExit("refusing to overwrite %s" % path)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(header.format(title=title, seed=SEED))
        for n in names:
            label, source, note = rows[n]
            fh.write("| %s | %s | %s | %s |\n" % (n, label, _cell(source), _cell(note)))


def split_kind(src: str, ext: str, companions: List[str], dev_dir: str, held_dir: str,
               header: str, what: str) -> Tuple[List[str], List[str]]:
    rows = _manifest(os.path.join(src, "manifest.tsv"))
    names = sorted(n for n in os.listdir(src) if n.endswith(ext))
    if sorted(rows) != names:
        raise SystemExit("%s: manifest and files differ: %s" % (src, sorted(set(rows) ^ set(names))))
    dev, held = split_names(names)
    for group, dst in ((dev, dev_dir), (held, held_dir)):
        for n in group:
            _move(os.path.join(src, n), dst)
            for comp in companions:
                _move(os.path.join(src, n[: -len(ext)] + comp), dst)
    _write_readme(os.path.join(dev_dir, "README.md"), header, "%s (dev half)" % what, dev, rows)
    _write_readme(os.path.join(held_dir, "README.md"), header, "%s (held-out half)" % what, held, rows)
    return dev, held


def split_smi(src: str, normal_dir: str, held_dir: str) -> Tuple[List[str], List[str]]:
    kinds: Dict[str, List[str]] = {}
    with open(os.path.join(src, "kinds.tsv"), encoding="utf-8") as fh:
        for row in csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row:
                kinds.setdefault(row[1], []).append(row[0])
    rng = random.Random(SEED)
    held: List[str] = []
    for kind in sorted(kinds):
        files = sorted(kinds[kind])
        if len(files) > 2:
            held.append(files[rng.randrange(len(files))])
    normal = sorted(n for k in kinds.values() for n in k if n not in held)
    for group, dst in ((normal, normal_dir), (sorted(held), held_dir)):
        for n in group:
            _move(os.path.join(src, n), dst)
            _move(os.path.join(src, n[: -len(".txt")] + ".expect.json"), dst)
    return normal, sorted(held)


def main(argv: List[str]) -> int:
    src = argv[1] if len(argv) > 1 else "corpus_incoming"
    dev, held = split_kind(os.path.join(src, "logs"), ".log", [], "tests/data/logs/new",
                           "heldout/logs", LOG_HEADER, "Real failure logs")
    print("logs: %d dev, %d held out" % (len(dev), len(held)))
    dev, held = split_kind(os.path.join(src, "pastes"), ".txt", [".facts.json"], "tests/data/pastes/dev",
                           "heldout/pastes", PASTE_HEADER, "Real bug-report pastes")
    print("pastes: %d dev, %d held out" % (len(dev), len(held)))
    if os.path.isdir(os.path.join(src, "nvidia-smi")):
        normal, held = split_smi(os.path.join(src, "nvidia-smi"), "tests/data/nvidia-smi", "heldout/nvidia-smi")
        print("nvidia-smi: %d to tests/data/nvidia-smi, held out: %s" % (len(normal), ", ".join(held)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
