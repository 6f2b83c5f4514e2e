#!/usr/bin/env python3
"""Inventory of knowledge-base ids and compatibility numbers written in code (issue 20: "no rule is written twice, no
matrix value lives in code"). An AST scan of envcheck/engine, checks, explain, paste and parse (or ``--code DIR``'s
copy) for:

* ``kb-id``: a string constant equal to an errors.toml signature name (not a cause id, a contract or extra finding id);
* ``major-compare``: a comparison with an integer 7-14 (a CUDA major: ``cuda_major >= 12``) or 5-9 next to a cuDNN
  name (``cudnn_major < 8``);
* ``version-string``: a string constant that is a dotted version ("12.1", "8.6", "22.04", "10.0.130") outside a
  docstring, or a tuple of two or three small integers in a comparison (``(8, 0)``, ``(12, 1)``): a CUDA / cuDNN /
  compute-capability / OS version;
* ``int-encoding``: arithmetic by 1000 or 10000 (the CUDA_VERSION / CUDNN_VERSION integers).

Prints one line per hit (``CATEGORY PATH:LINE: SNIPPET``) and the counts; the triage (what each means, where it should
live) is heldout/rounds/cleanup25-inventory.md.

    python3 scripts/code_inventory.py [--code CHECKOUT] [--counts]
"""

from __future__ import annotations

import argparse
import ast
import collections
import os
import re
import sys
from typing import Iterator, List, Set, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("engine", "checks", "explain", "paste", "parse")
_DOTTED = re.compile(r"^\d{1,2}\.\d{1,3}(\.\d{1,6})?$")
_CUDNN = re.compile(r"cudnn", re.I)


def _signature_names(code: str) -> Set[str]:
    sys.path.insert(0, code)
    try:
        from envcheck.checks import EXTRA_IDS, FINDING_IDS
        from envcheck.explain.kb import load_kb
    except ImportError:  # pragma: no cover - a checkout without the package
        return set()
    kb = load_kb()
    return {s.name for s in kb.signatures} - set(kb.causes) - set(FINDING_IDS) - set(EXTRA_IDS)


def _docstrings(tree: ast.AST) -> Set[int]:
    return {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}


def _small_int(n: ast.AST, lo: int, hi: int) -> bool:
    return isinstance(n, ast.Constant) and type(n.value) is int and lo <= n.value <= hi


def _snippet(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - a snippet only
        text = type(node).__name__
    return text if len(text) <= 100 else text[:99] + "…"


def scan(source: str, names: Set[str]) -> Iterator[Tuple[str, int, str]]:
    tree = ast.parse(source)
    docs = _docstrings(tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            if n.value in names:
                yield "kb-id", n.lineno, repr(n.value)
            elif _DOTTED.match(n.value):
                yield "version-string", n.lineno, repr(n.value)
        elif isinstance(n, ast.Compare):
            operands = [n.left, *n.comparators]
            text = _snippet(n)
            if any(_small_int(o, 7, 14) for o in operands) or (
                    _CUDNN.search(text) and any(_small_int(o, 5, 9) for o in operands)):
                yield "major-compare", n.lineno, text
            if any(isinstance(o, ast.Tuple) and 2 <= len(o.elts) <= 3 and all(_small_int(e, 0, 99) for e in o.elts)
                   for o in operands):
                yield "version-string", n.lineno, text
        elif isinstance(n, ast.BinOp) and isinstance(n.op, (ast.FloorDiv, ast.Mod, ast.Mult)) and any(
                _factor(o) for o in (n.left, n.right)):
            yield "int-encoding", n.lineno, _snippet(n)


def _factor(n: ast.AST) -> bool:
    """A literal 1000 / 10000, or a choice between them (``10000 if major >= 9 else 1000``)."""
    if isinstance(n, ast.IfExp):
        return _factor(n.body) or _factor(n.orelse)
    return isinstance(n, ast.Constant) and type(n.value) is int and n.value in (1000, 10000)


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--code", default=ROOT, help="the checkout to scan (default: this one)")
    ap.add_argument("--counts", action="store_true", help="the counts only")
    a = ap.parse_args(argv)
    names = _signature_names(a.code)
    counts: "collections.Counter[str]" = collections.Counter()
    per_file: "collections.Counter[Tuple[str, str]]" = collections.Counter()
    for pkg in PACKAGES:
        for d, _, files in sorted(os.walk(os.path.join(a.code, "envcheck", pkg))):
            for f in sorted(files):
                if not f.endswith(".py"):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, a.code).replace(os.sep, "/")
                with open(path, encoding="utf-8") as fh:
                    hits = sorted(set(scan(fh.read(), names)), key=lambda h: (h[1], h[0]))
                for cat, line, text in hits:
                    counts[cat] += 1
                    per_file[(cat, rel)] += 1
                    if not a.counts:
                        print(f"{cat} {rel}:{line}: {text}")
    print("# counts: " + ", ".join(f"{k} {counts[k]}" for k in ("kb-id", "major-compare", "version-string",
                                                                  "int-encoding")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
