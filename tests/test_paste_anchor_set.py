"""The paste collector finds the anchors a block holds in one RE2 pass when explain hands it the set
(``envcheck.explain.matcher.byte_literal_set``, issue 24): it keeps exactly what it keeps by looking for each cover
and anchor with ``bytes.find``: on every pasted report and real log of tests/data, on all of them one after the other
(in blocks, past the head that is searched block by block), and on anchors at block edges."""

from __future__ import annotations

import glob
import io
import os
import random

import pytest

import envcheck.explain as ex
from envcheck.explain.matcher import byte_literal_set, engine
from envcheck.paste import collect
from envcheck.paste.collect import ANCHORS, PasteCollector

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "data", "**", "*"), recursive=True)
               if os.path.isfile(p) and ("/pastes/" in p or "/logs/" in p))

pytestmark = pytest.mark.skipif(engine() != "re2", reason="the RE2 set is RE2's")


def _collect(data: bytes, present) -> tuple:
    col = PasteCollector(present=present)
    n = 0
    for block in ex._blocks(io.BytesIO(data)):
        col.feed(block, block.lower(), n)
        n += block.count(b"\n")
    rep = col.finish()
    return col.kept, col.truncated, rep.captures, rep.facts, rep.formats


def test_the_set_finds_what_find_finds():
    rs = byte_literal_set(ANCHORS)
    rnd = random.Random(7)
    alphabet = list(set(b"".join(ANCHORS))) + [0, 10, 13, 255]
    for _ in range(2000):
        data = bytes(rnd.choice(alphabet) for _ in range(rnd.randrange(40)))
        data += rnd.choice(ANCHORS)[:rnd.randrange(1, 30)]  # whole anchors and cut ones
        data += bytes(rnd.choice(alphabet) for _ in range(rnd.randrange(8)))
        assert rs(data) == frozenset(a for a in ANCHORS if a in data), data


def test_every_paste_and_log_alike():
    assert len(FILES) > 300
    rs = byte_literal_set(ANCHORS)
    found = 0
    for path in FILES:
        with open(path, "rb") as fh:
            data = fh.read()
        fast = _collect(data, rs)
        assert fast == _collect(data, None), path
        found += bool(fast[4])
    assert found > 100  # the pastes are reports: most are read


def test_all_of_them_in_small_blocks_past_the_head(monkeypatch):
    blob = b"".join(open(p, "rb").read().rstrip(b"\n") + b"\n" for p in FILES)
    monkeypatch.setattr(ex, "_BLOCK", 65536)
    monkeypatch.setattr(collect, "HEAD_SCAN", len(blob) // 3)  # the rest: only the last blocks are searched
    rs = byte_literal_set(ANCHORS)
    got = _collect(blob * 2, rs)
    assert got == _collect(blob * 2, None)
    assert got[0] and got[4]


def test_anchors_at_block_edges(monkeypatch):
    monkeypatch.setattr(ex, "_BLOCK", 97)
    lines = [b"noise line %d of a long training log" % i for i in range(300)]
    for i, a in enumerate(ANCHORS):
        lines.insert((i * 7) % len(lines), b"row " + a + b" 12.1 " + a.upper())
    data = b"\n".join(lines) + b"\n"
    assert _collect(data, byte_literal_set(ANCHORS)) == _collect(data, None)


def test_the_fallback_without_re2(monkeypatch):
    monkeypatch.setenv("ENVCHECK_MATCHER", "python-re")
    assert byte_literal_set(ANCHORS) is None  # the collector then looks for each cover and anchor
