"""Issue 24 (speed24i): ``parse_ldconfig`` reads a line as ``ldconfig -p`` writes it without a pattern call
(``_plain``: ~500 such lines a status run on a real machine, 522 in the real H100 capture) and any other form with
the patterns as before. Both give the same entries: on every real listing of tests/data (each line as written, and
each with one character put in at every kind of place) and on random texts of the characters the patterns care
about."""

from __future__ import annotations

import glob
import os
import random

from envcheck.parse import ldconfig as L

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LISTINGS = sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "data", "**", "*ldconfig*"), recursive=True)
                  + glob.glob(os.path.join(ROOT, "tests", "data", "ldconfig", "*.txt")) if os.path.isfile(p)
                  and p.endswith(".txt"))


def _by_patterns(text):
    out = []
    for line in text.splitlines():
        m = L._LINE.match(line) if "=>" in line else None
        if m:
            out.extend(L._entries(m.group(1), m.group(2), m.group(3)))
    return out


def _parse(text):
    L._LAST = (None, ())  # (the last listing is remembered: each text read afresh)
    return L.parse_ldconfig(text)


def test_real_listings_read_as_the_patterns_read_them():
    assert len(LISTINGS) >= 5
    plain = 0
    for p in LISTINGS:
        with open(p, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        assert _parse(text) == _by_patterns(text), p
        plain += sum(1 for ln in text.splitlines() if "=>" in ln and L._plain(ln) is not None)
    assert plain >= 522  # the real H100 listing's lines at least: the plain reading is the one they take


def test_changed_lines_and_random_texts_read_as_the_patterns_read_them():
    rnd = random.Random(24)
    lines = []
    for p in LISTINGS:
        with open(p, encoding="utf-8", errors="replace") as fh:
            lines.extend(ln for ln in fh.read().splitlines() if "=>" in ln)
    bits = [" ", "\t", "(", ")", "=", ">", "/", "#", "a", ".", "1", "\u00a0", "\x1c", "\u2003", " => ", ") => /",
            " (", "libc6,x86-64", ","]
    for _ in range(4000):
        ln = rnd.choice(lines)
        k = rnd.randrange(len(ln) + 1)
        text = ln[:k] + rnd.choice(bits) + ln[k:]
        assert _parse(text) == _by_patterns(text), repr(text)
        text = "".join(rnd.choice(bits) for _ in range(rnd.randrange(16)))
        assert _parse(text) == _by_patterns(text), repr(text)


def test_an_entry_made_without_init_is_the_dataclass_s():
    """``_entry`` (an LdEntry without the frozen class's generated __init__) is the object LdEntry(...) makes: equal,
    the same hash, repr, fields and attribute order, and as frozen."""
    import dataclasses

    import pytest

    for soname, flags, path in (("libcuda.so.1", "libc6,x86-64", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
                                ("", "", ""), ("a b", " x ", "/p\u00e9")):
        made, real = L._entry(soname, flags, path), L.LdEntry(soname=soname, flags=flags, path=path)
        assert type(made) is L.LdEntry and made == real and hash(made) == hash(real) and repr(made) == repr(real)
        assert list(vars(made).items()) == list(vars(real).items())
        assert dataclasses.asdict(made) == dataclasses.asdict(real) and dataclasses.astuple(made) == (soname, flags, path)
        with pytest.raises(dataclasses.FrozenInstanceError):
            made.path = "/x"  # type: ignore[misc]
    assert L.LdEntry.__init__ is not object.__init__ and not hasattr(L.LdEntry, "__post_init__")
