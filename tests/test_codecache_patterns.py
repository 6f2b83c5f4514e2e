"""envcheck.codecache's pattern cache (issue 24): the CLI keeps the code ``re`` compiles for each (pattern, flags)
in the user's cache, and a pattern rebuilt from it is the pattern ``re`` compiles (same code, flags, groups and
group names, same matches), used only in the CLI's process, only from a folder that is the user's own; a damaged
or foreign file is the same as none."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from envcheck import codecache

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SNAPSHOTS = os.path.join(ROOT, "tests", "data", "snapshots")

#: patterns of every kind re compiles: named and numbered groups, flags given and inline, bytes, look-arounds,
#: back-references, Unicode classes, case folding beyond ASCII, possessive-free nesting, conditionals, verbose
SAMPLES = [
    (r"^\s*(\d{1,3})(?:\.(\d{1,3}))?", 0),
    (r"(?P<major>\d+)\.(?P<minor>\d+)(?:\.(?P<patch>\d+))?", 0),
    (r"cudnn|cublas|nccl", re.IGNORECASE),
    (r"(?i)ÄRGER straße", 0),
    (r"ärger STRASSE", re.IGNORECASE),
    (r"^(\w+)=(.*)$", re.MULTILINE),
    (r"a.b", re.DOTALL),
    (r"(?<![A-Za-z])ProductVersion:[ \t]*(\d{1,3}(?:\.\d{1,3}){0,2})(?![\d.])", 0),
    (r"(a)(?(1)b|c)", 0),
    (r"(\w)\1", 0),
    (r"\bfoo\b\s+bar", re.ASCII),
    (r"""(?x) (?P<name> [a-z]+ )  # a name
          \s* = \s* (?P<value> \S+ )""", 0),
    (r"[^\x00-\x7f]+", 0),
    (r"", 0),
    (r"x*", 0),
]
BYTES_SAMPLES = [(rb"lib(?P<stem>cud[a-z]+)\.so\.(\d+)", 0), (rb"(?i)NVIDIA-SMI has failed", 0)]
TEXTS = ["12.4.1", "v 3.10", "CUDNN error", "ärger Strasse", "ÄRGER STRASSE", "A=1\nB=two", "a\nb",
         "ProductVersion: 14.2.1", "ab", "ac", "xx yy", "foo  bar", "name = value", "€uro", "", "xxx",
         "libcudnn.so.9 libcublas.so.12", "nvidia-smi has failed because"]

#: compiles every sample with the pattern cache installed (a file named by argv[1]) and prints, for each, what
#: the pattern is and does, and the cache's counts
PROBE = r"""
import json, re, sys
from envcheck import codecache
samples = json.loads(sys.argv[2])
texts = json.loads(sys.argv[3])
cache = codecache.install_patterns("test", sys.argv[1]) if sys.argv[1] != "-" else None
out = []
for p, f, is_bytes in samples:
    if is_bytes:
        p = p.encode("latin-1")
    rx = re.compile(p, f)
    ts = [t.encode("utf-8") if is_bytes else t for t in texts]
    out.append([repr(rx), rx.flags, rx.groups, sorted(rx.groupindex.items()),
                [repr([m.span(), m.groups()] if m else None) for m in (rx.search(t) for t in ts)],
                [repr(rx.findall(t)) for t in ts]])
counts = [cache.hits, cache.misses] if cache else None
if cache:
    codecache.uninstall_patterns()
    assert cache.comp.compile is not cache.compile
print(json.dumps({"out": out, "counts": counts}))
"""


def _samples():
    return [[p, f, False] for p, f in SAMPLES] + [[p.decode("latin-1"), f, True] for p, f in BYTES_SAMPLES]


def _run(path, **env_extra):
    env = {k: v for k, v in os.environ.items() if k not in ("ENVCHECK_NO_CODE_CACHE", "PYTHONDONTWRITEBYTECODE")}
    env.update({"PYTHONPATH": ROOT}, **env_extra)
    r = subprocess.run([sys.executable, "-c", PROBE, str(path), json.dumps(_samples()), json.dumps(TEXTS)],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_cached_pattern_is_the_pattern_re_compiles(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    path = folder / "re-test.bin"
    plain = _run("-")
    cold = _run(path)
    assert path.exists()
    warm = _run(path)
    n = len(_samples())
    assert cold["counts"] == [0, n]
    assert warm["counts"] == [n, 0]  # every pattern rebuilt from the file
    assert cold["out"] == plain["out"]
    assert warm["out"] == plain["out"]


def test_rebuilt_patterns_equal_re_s_own_in_process():
    """Each pattern the cache builds (from the kept code) equals, as a Pattern object, what re compiles."""
    cache = codecache.PatternCache("/nonexistent/re.bin", *codecache._sre_parts())
    for p, f in SAMPLES + BYTES_SAMPLES:
        entry = cache._entry(p, f)
        assert entry is not None, p
        rebuilt = cache.sre.compile(p, *entry)
        own = cache.original(p, f)
        assert rebuilt == own and rebuilt.groupindex == own.groupindex and rebuilt.groups == own.groups


def test_damaged_or_foreign_file_is_none(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    path = folder / "re-test.bin"
    plain = _run("-")
    _run(path)
    good = path.read_bytes()
    n = len(codecache.PATTERN_HEADER)
    for bad in (good[: len(good) // 2], b"not a cache", good[:n] + b"\x00" * 8 + good[n + 8:],
                good[: len(good) - 40] + b"\xff" * 40):
        path.write_bytes(bad)
        got = _run(path)
        assert got["out"] == plain["out"], bad[:40]
    # code that _sre refuses: the entry is compiled by re instead
    import marshal

    head = codecache.PatternCache(str(path), *codecache._sre_parts())._head()
    assert good.startswith(head)
    table = marshal.loads(good[len(head):])
    broken = {k: (v[0], [999999] * len(v[1]), v[2], v[3], v[4]) for k, v in table.items()}
    path.write_bytes(head + marshal.dumps(broken))
    got = _run(path)
    assert got["out"] == plain["out"] and got["counts"][0] == 0
    # a good file in a folder others may write to is not read
    path.write_bytes(good)
    os.chmod(folder, 0o777)
    try:
        got = _run(path)
        assert got["counts"][0] == 0 and got["out"] == plain["out"]
    finally:
        os.chmod(folder, 0o700)
    assert _run(path)["counts"][1] == 0


def test_nothing_written_under_dont_write_bytecode(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    path = folder / "re-test.bin"
    _run(path, PYTHONDONTWRITEBYTECODE="1")
    assert not path.exists()


def test_turned_off_and_given_back():
    env = dict(os.environ, ENVCHECK_NO_CODE_CACHE="1")
    code = "from envcheck import codecache; print(codecache.install_patterns('x', '/nonexistent/x.bin'))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert r.stdout.strip() == "None"


@pytest.mark.parametrize("snap", sorted(os.listdir(SNAPSHOTS))[:2])
def test_a_status_run_uses_it_and_says_the_same(tmp_path, snap):
    """A CLI status run writes the status file of patterns, reads it the next time, and its report is the same
    with no cache, cold and warm; ``import envcheck`` alone leaves re's compile alone."""
    args = [sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", os.path.join(SNAPSHOTS, snap)]
    base = {k: v for k, v in os.environ.items() if k not in ("ENVCHECK_NO_CODE_CACHE", "PYTHONDONTWRITEBYTECODE")}
    outs = []
    for extra in ({"ENVCHECK_NO_CODE_CACHE": "1"}, {}, {}):
        env = dict(base, ENVCHECK_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=ROOT, **extra)
        r = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
        outs.append((r.returncode, re.sub(r"\d{4}-\d\d-\d\dT[\d:]+Z?", "TIME", r.stdout), r.stderr))
    assert outs[0] == outs[1] == outs[2]
    files = os.listdir(tmp_path / "cache" / "code")
    assert any(f.startswith("re-status-") for f in files), files
    code = ("import re, envcheck, envcheck.api\nfrom envcheck import codecache\n"
            "print(codecache._sre_parts()[0].compile.__module__)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                       env=dict(base, PYTHONPATH=ROOT))
    assert r.stdout.strip() in ("re._compiler", "sre_compile"), r.stderr


def test_debug_flag_takes_re_s_own_road(capsys, tmp_path):
    """``re.DEBUG`` prints the parsed pattern as re compiles it: never served from the cache."""
    cache = codecache.PatternCache(str(tmp_path / "re.bin"), *codecache._sre_parts())
    rx = cache.compile("ab+c", re.DEBUG)
    assert rx.pattern == "ab+c" and "LITERAL" in capsys.readouterr().out
    assert (cache.hits, cache.misses, cache.new) == (0, 0, {})

