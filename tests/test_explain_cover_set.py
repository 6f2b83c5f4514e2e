"""explain's RE2 path: a line that is not ASCII has the cover literals it holds found by one RE2 set pass
(``_covers_in``, issue 24) where each of them was looked for; the same literals, the same result."""

from __future__ import annotations

import io
import os
from typing import Any, List

import pytest

import envcheck.explain as ex
from envcheck.explain.kb import load_kb
from envcheck.explain.matcher import engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join(ROOT, "tests", "data", "logs")

pytestmark = pytest.mark.skipif(engine() != "re2", reason="the RE2 path only")


def _non_ascii_lines() -> List[bytes]:
    out: List[bytes] = []
    for root, _, files in os.walk(LOGS):
        for f in sorted(files):
            if f.endswith(".log"):
                with open(os.path.join(root, f), "rb") as fh:
                    out += [ln for ln in fh.read().split(b"\n") if not ln.isascii()]
    return out


def test_the_set_finds_the_covers_each_search_finds() -> None:
    lines = _non_ascii_lines()
    assert len(lines) > 100  # (real failure logs in other scripts and with box drawing, progress bars, curly quotes)
    scan = ex._Scan(load_kb())
    covers = scan.cover_bytes
    found = 0
    for raw in lines + [b"", "CUDA 错误: out of memory ✗".encode(), "nvidia-smi — driver".encode()]:
        low = raw.lower()
        want = [ci for ci, c in enumerate(covers) if c in low]
        assert ex._covers_in(scan, low) == want
        found += bool(want)
    assert found > 20 and scan.base.cover_set  # (lines holding covers; the set is the one asked)


def test_explain_says_the_same_with_the_set_or_each_cover_looked_for(monkeypatch) -> None:
    """Real logs holding non-ASCII lines, back to back: explain_stream's whole result with the set and without it."""
    lines = _non_ascii_lines()
    text = b"\n".join(lines) + b"\n"
    names = sorted(f for f in os.listdir(LOGS) if f.endswith(".log"))[:40]
    for f in names:
        with open(os.path.join(LOGS, f), "rb") as fh:
            text += fh.read() + b"\n"

    def result() -> Any:
        r = ex.explain_stream(io.BytesIO(text * 2))
        return [m.to_dict() for m in r.matches], r.facts, r.lines

    kb = load_kb()
    ex._Scan(kb)  # (the scan base exists)
    with_set = result()
    monkeypatch.setattr(kb._scan_base, "cover_set", False)
    assert result() == with_set
    assert with_set[0]
