"""Correctness traps of issue 24's speed-ups (review25): the ldconfig parse cache is keyed by the text (a second,
different listing in one process never gets the first one's entries; a caller changing its list changes no
later answer), and the CLI entry point leaves the caller's garbage collector as it found it, whatever the
command and however it ends."""

from __future__ import annotations

import gc
import os

import pytest

from envcheck.parse.ldconfig import parse_ldconfig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H100 = os.path.join(ROOT, "tests", "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot")

A = "2 libs found in cache `/etc/ld.so.cache'\n\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
B = "2 libs found in cache `/etc/ld.so.cache'\n\tlibcudnn.so.9 (libc6,x86-64) => /opt/cudnn/lib/libcudnn.so.9\n"


def test_ldconfig_cache_is_keyed_by_the_text():
    for _ in range(2):
        assert [e.path for e in parse_ldconfig(A)] == ["/usr/lib/x86_64-linux-gnu/libcuda.so.1"]
        assert [e.path for e in parse_ldconfig(B)] == ["/opt/cudnn/lib/libcudnn.so.9"]
    # an equal text built anew (not the same object) gives the same entries
    assert [e.soname for e in parse_ldconfig("".join(list(A)))] == ["libcuda.so.1"]


def test_ldconfig_callers_get_their_own_list():
    first = parse_ldconfig(A)
    first.clear()
    assert len(parse_ldconfig(A)) == 1


@pytest.mark.parametrize("argv", [
    ["status", "--snapshot", H100, "--json"],  # the command run with the collector paused
    ["status", "--snapshot", "/nonexistent/envcheck-snapshot"],  # a usage error (exit 2)
    ["matrix", "--help"],  # another command: the collector resumes when it is chosen
    ["--version"],
])
@pytest.mark.parametrize("enabled", [True, False])
def test_cli_main_leaves_the_callers_gc_as_it_was(argv, enabled, capsys):
    from envcheck.cli import main

    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        with pytest.raises(SystemExit):
            main(argv)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_console_script_entry_leaves_the_callers_gc_as_it_was(enabled, monkeypatch, capsys):
    """``envcheck.__main__:main`` (the console script) pauses the collector before importing the CLI."""
    import sys

    from envcheck.__main__ import main

    was = gc.isenabled()
    monkeypatch.setattr(sys, "argv", ["envcheck", "status", "--snapshot", H100])
    try:
        (gc.enable if enabled else gc.disable)()
        with pytest.raises(SystemExit):
            main()
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_plain_spec_contains_is_packagings_answer():
    """versions.plain_spec_contains against packaging (the oracle) on generated plain specifiers and versions,
    leading zeros, trailing zeros and eight-part releases included; None is always allowed (packaging decides)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    from envcheck.versions import plain_spec_contains

    num = st.sampled_from(["0", "1", "2", "9", "10", "01", "00", "999999999999"])
    rel = st.lists(num, min_size=1, max_size=9).map(".".join)
    op = st.sampled_from(["==", "!=", "<=", ">=", "<", ">", "~=", "==="])
    part = st.tuples(st.sampled_from(["", " "]), op, st.sampled_from(["", " "]), rel,
                     st.sampled_from(["", "", ".*", "a1", ".post1"])).map("".join)
    spec = st.lists(part, min_size=1, max_size=3).map(",".join)
    version = st.tuples(rel, st.sampled_from(["", "", "", "rc1", ".dev0", "+cu121"])).map("".join)

    @settings(max_examples=2000, deadline=None)
    @given(spec, version)
    def check(s, v):
        got = plain_spec_contains(s, v)
        if got is not None:
            assert got == SpecifierSet(s).contains(Version(v), prereleases=True), (s, v)

    check()
