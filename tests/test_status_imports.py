"""The status path imports only what it uses (issue 24 item 1): the small things written out instead of an
import (shutil.which, platformdirs' cache folder, socket.gethostname) give what the library gives, and a
whole `envcheck status` run in a child imports none of the modules it no longer needs."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import socket
import subprocess
import sys

import pytest

from envcheck.matrix import bundle
from envcheck.probe import live
from envcheck import proc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_which_is_shutils_which(tmp_path, monkeypatch):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for d in (a, b, c):
        d.mkdir()
    (a / "tool").write_text("#!/bin/sh\n")  # not executable: skipped
    (b / "tool").write_text("#!/bin/sh\n")
    (b / "tool").chmod(0o755)
    (c / "tool2").mkdir()  # a folder: skipped
    (c / "tool3").write_text("#!/bin/sh\n")
    (c / "tool3").chmod(0o755)
    monkeypatch.chdir(c)
    paths = [f"{a}:{b}:{c}", f"{c}:{a}", f"::{a}", "", f"{a}:{a}:{b}", f"{tmp_path}/missing:{c}"]
    names = ["tool", "tool2", "tool3", "sh", "nope", str(b / "tool"), str(a / "tool"), "./tool3", "b/tool"]
    for p in paths:
        monkeypatch.setenv("PATH", p)
        for n in names:
            assert proc._shutil_which(n) == shutil.which(n), (p, n)
    monkeypatch.delenv("PATH")
    for n in names:
        assert proc._shutil_which(n) == shutil.which(n), ("unset", n)


@pytest.mark.skipif(sys.platform != "linux", reason="the written-out rule is Linux's")
@pytest.mark.parametrize("xdg, home", [(None, "/home/u"), ("/x/cache", "/home/u"), ("", "/home/u"), ("rel", "/home/u"),
                                       ("  ", "/home/u"), ("/x/cache ", "/home/u"), (None, "rel"), (None, None)])
def test_cache_folder_is_platformdirs(monkeypatch, xdg, home):
    from platformdirs import user_cache_dir

    for k, v in (("XDG_CACHE_HOME", xdg), ("HOME", home)):
        if v is None:
            monkeypatch.delenv(k, raising=False)
        else:
            monkeypatch.setenv(k, v)
    try:
        want = user_cache_dir("envcheck", appauthor=False)
    except (RuntimeError, KeyError) as exc:  # platformdirs itself cannot tell: neither may we
        with pytest.raises(type(exc)):
            bundle._user_cache_dir()
        return
    assert bundle._user_cache_dir() == want


def test_hostname_is_sockets():
    assert live._hostname() == socket.gethostname()


def test_method_names_are_the_pattern_s():
    import random
    import re

    from envcheck.snapshot import KEYS

    rnd = random.Random(24)
    keys = list(KEYS) + ["kfd-topology/3/name", "", "A-Z", "\x00\x7f~", "ü-ß.txt", "a\u2028b"]
    keys += ["".join(rnd.choice("aZ09._-/ \t\u00e9\x80") for _ in range(rnd.randrange(12))) for _ in range(300)]
    for key in keys:
        live._METHODS.pop(key, None)
        assert live._method_name(key) == "_k_" + re.sub(r"[^a-z0-9]", "_", key), repr(key)
        assert live._method_name(key) == "_k_" + re.sub(r"[^a-z0-9]", "_", key), repr(key)  # (remembered)


#: modules the status path needs no more (each was imported by `envcheck status` before issue 24)
NOT_ON_THE_STATUS_PATH = ["packaging.markers", "packaging.requirements", "packaging.specifiers", "platformdirs",
                          "shutil", "tempfile", "socket", "tomllib", "tomli",
                          # the readers of AMD's, Intel's and Jetson's tools (this machine has none of them)
                          "envcheck.parse.amd_smi", "envcheck.parse.rocm_smi", "envcheck.parse.intel",
                          "envcheck.parse.tegra", "envcheck.parse.hipconfig", "envcheck.parse.rocminfo",
                          # the matrix's versions are plain releases, compared without packaging
                          "packaging.version",
                          # other commands' modules, and renderers of other formats than JSON (issue 24: status24k)
                          "envcheck.explain", "envcheck.paste", "envcheck.plan", "envcheck.fleet", "envcheck.smoke",
                          "envcheck.guard", "envcheck.snapshot.writer", "envcheck.matrix.verify",
                          "envcheck.matrix.download", "envcheck.render.text", "envcheck.render.prometheus",
                          "envcheck.render.explain", "envcheck.render.fleet", "envcheck.render.matrix",
                          "envcheck.render.plan", "envcheck.render.smoke", "envcheck.render.snapshot"]


def test_vendor_readers_answer_for_no_capture_what_the_lazy_table_says():
    """environment.vendors answers for a missing capture without importing the reader: the same answer (for the
    three objects, the same value of every field it reads)."""
    import importlib
    from types import SimpleNamespace

    from envcheck.environment import vendors

    assert len(vendors._VENDOR_READERS) >= 12
    for reader, (module, none) in vendors._VENDOR_READERS.items():
        real = getattr(importlib.import_module("envcheck.parse." + module), reader)(None)
        if isinstance(none, SimpleNamespace):
            assert vars(none) and all(getattr(real, k) == v for k, v in vars(none).items()), reader
        else:
            assert real == none and type(real) is type(none), reader
        assert vendors._read(reader, None) == none
        if isinstance(none, list):
            assert vendors._read(reader, None) is not none  # a fresh list each time: a caller may change it


def test_a_machine_with_amd_captures_still_reads_them(run_status, tmp_path):
    snap = tmp_path / "amd"
    snap.mkdir()
    src = os.path.join(ROOT, "tests", "data", "snapshots", "amd-rx7600xt-raphael-legacy4380")
    for name in os.listdir(src):
        (snap / name).write_bytes(open(os.path.join(src, name), "rb").read())
    code, rep, _ = run_status(snap)
    assert rep["vendor"] == "amd" and rep["gpus"] and all(g.get("vendor") == "amd" for g in rep["gpus"]), rep["gpus"]


def test_status_imports_none_of_them(tmp_path):
    code = ("import sys, io, contextlib\n"
            "from envcheck.cli import main\n"
            "sys.argv = ['envcheck', 'status', '--json', '--interpreter', sys.argv[1]]\n"
            "out = io.StringIO()\n"
            "try:\n"
            "    with contextlib.redirect_stdout(out):\n"
            "        main()\n"
            "except SystemExit:\n"
            "    pass\n"
            "import json\n"
            "assert json.loads(out.getvalue())['schema'] == 'envcheck/report/1'\n"
            f"print(json.dumps(sorted(m for m in {NOT_ON_THE_STATUS_PATH!r} if m in sys.modules)))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update(PYTHONPATH=ROOT, ENVCHECK_CACHE_DIR=str(tmp_path / "cache"))
    # the packages read are those of a bare venv: an installed distribution whose Requires-Dist has a form the fast
    # reader leaves to packaging (TensorFlow's `gast!=0.5.0,!=0.5.1,!=0.5.2,>=0.2.1`) rightly imports it; this
    # test is about envcheck's own path (the H100 snapshot test covers torch's, jax's and cupy's metadata)
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    runs = []
    for _ in range(2):  # the first run fills the parsed-matrix cache (and parses TOML for it); the second reads it
        r = subprocess.run([sys.executable, "-c", code, str(bare / "bin" / "python")], capture_output=True, text=True,
                           timeout=120, env=env)
        assert r.returncode == 0, r.stderr
        runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert runs[1] == [], runs


def test_a_status_run_compiles_no_source_text(tmp_path):
    """A status run (the CLI's own process, its user cache filled) calls no ``compile()``: the first call builds
    the interpreter's AST types (~1.5 ms of a ~45 ms run); typing.NamedTuple's class syntax under ``from __future__
    import annotations`` made one call per field (a ForwardRef each), as would a TypedDict or ``typing.get_type_hints``.
    Both the JSON and the text road, live and on the real H100 snapshot."""
    h100 = os.path.join(ROOT, "tests", "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot")
    code = ("import builtins, os, sys, runpy\n"
            "calls = []\n"
            "real = builtins.compile\n"
            "def counted(*a, **k):\n"
            "    calls.append(repr(a[0])[:80])\n"
            "    return real(*a, **k)\n"
            "builtins.compile = counted\n"
            "sys.argv = ['envcheck'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('envcheck', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('\\nCALLS %r\\n' % (calls,))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_") and k != "PYTHONDONTWRITEBYTECODE"}
    # the run reads the packages of a venv that holds only envcheck's own dependencies (click, packaging...: linked
    # from this environment): a distribution installed beside envcheck may rightly make status compile (TensorFlow's
    # build_info read with ast, a Requires-Dist left to packaging, whose classes carry string annotations); this
    # test is about envcheck's own path
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    deps = tmp_path / "deps"
    deps.mkdir()
    for name in ("click", "packaging", "platformdirs", "tomli"):  # tomli: Python < 3.11 only
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        os.symlink(os.path.dirname(os.path.abspath(str(mod.__file__))), deps / name)
    env.update(PYTHONPATH=os.pathsep.join([ROOT, str(deps)]), ENVCHECK_CACHE_DIR=str(tmp_path / "cache"))
    for args in (["status", "--json"], ["status"], ["status", "--json", "--snapshot", h100]):
        for _warm in range(2):  # the first run fills the user cache (its code cache compiles what it lacks)
            r = subprocess.run([str(bare / "bin" / "python"), "-c", code, *args], capture_output=True, text=True,
                               env=env, cwd=ROOT, timeout=300)
            assert "\nCALLS " in r.stderr, (args, r.returncode, r.stderr[-2000:])
        assert r.returncode in (0, 1) and r.stdout, (args, r.returncode, r.stderr[-2000:])
        assert r.stderr.rsplit("\nCALLS ", 1)[1].strip() == "[]", args


# -- known_bad without packaging's specifiers -----------------------------------------------------------------
def _known_bad_specs():
    from envcheck.matrix import load_matrix

    specs = []
    for row in load_matrix().known_bad():
        for spec in (row.get("when") or {}).values():
            if isinstance(spec, str):
                specs.append(spec)
    return specs


SPECS = ["", ">=9.11", "<9.11", "<=2.4,>=2.1", "==2.4", "==2.4.0", "!=2.4", ">2.4", "<2", ">= 9.3", ">=9.3 ,<10",
         "==2.4.*", "~=2.4", "===2.4", ">=2.4rc1", ">=2.4.post1", ">=2.4+cpu", ">=1,", ",", "==1.0,==1.0.0", ">=v1",
         ">=01.02", "<" + "9" * 20, ">=1\n", "foo"]
VERSIONS = ["2.4", "2.4.0", "2.4.1", "2.3.99", "2.11.0", "9.19.0.56", "580.159.04", "12.1", "0", "2.4.0.0", "2.4rc1",
            "2.4.0.dev20240101", "2.4.post1", "1!2.4", "v2.4", "2.4 ", "2" + "0" * 20, "x"]


def test_plain_spec_contains_is_packagings_answer():
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    from envcheck.versions import plain_spec_contains

    specs = _known_bad_specs()
    assert len(specs) >= 5
    decided = 0
    for spec in specs + SPECS:
        try:
            ss = SpecifierSet(spec)
        except InvalidSpecifier:
            ss = None
        for v in VERSIONS:
            got = plain_spec_contains(spec, v)
            if got is None:
                continue
            decided += 1
            assert ss is not None, spec  # a form it reads is always a valid specifier
            try:
                want = Version(v) in ss
            except (InvalidVersion, ValueError):
                pytest.fail(f"read {v!r}, which packaging cannot")
            assert got == want, (spec, v)
    assert decided > 100
    assert all(plain_spec_contains(s, "2.4") is not None for s in specs)  # every real known_bad spec is read


def test_newest_version_and_version_newer_are_packagings_order():
    import itertools
    import random

    from envcheck.engine.builds import newest_version, version_key, version_newer
    from envcheck.engine.freshness import FRAMEWORK_TABLES, _versions
    from envcheck.matrix import load_matrix

    matrix = load_matrix()
    real = [v for fw in FRAMEWORK_TABLES for v in _versions(matrix, fw)]
    assert len(real) > 50
    odd = ["2.4", "2.4.0", "2.4.0.0", "0", "0.0", "00.1", "2.04", "10.0", "9.99", "2.4rc1", "2.4.post1", "v2.4",
           "2.4 ", "1!1.0", "2.4+cpu", "\u0663.1", "2." + "9" * 30, "x", "", "2..4"]
    pool = real + VERSIONS + odd
    for a, b in itertools.product(VERSIONS + odd, repeat=2):
        assert version_newer(a, b) == (version_key(a) > version_key(b)), (a, b)
    rnd = random.Random(24)
    for n in range(400):
        vs = rnd.sample(pool, rnd.randint(1, 12)) if n % 2 else rnd.sample(real, rnd.randint(1, 40))
        assert newest_version(vs) == max(vs, key=version_key), vs
    for fw in FRAMEWORK_TABLES:
        vs = _versions(matrix, fw)
        assert newest_version(vs) == max(vs, key=version_key)
    assert newest_version([]) is None


def test_status_on_the_real_h100_snapshot_imports_no_packaging_specifiers():
    snap = os.path.join(ROOT, "tests", "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot")
    code = ("import sys, io, contextlib, json\n"
            "from envcheck.cli import main\n"
            f"sys.argv = ['envcheck', 'status', '--json', '--snapshot', {snap!r}]\n"
            "out = io.StringIO()\n"
            "try:\n"
            "    with contextlib.redirect_stdout(out):\n"
            "        main()\n"
            "except SystemExit:\n"
            "    pass\n"
            "rep = json.loads(out.getvalue())\n"
            "print(json.dumps([sorted(m for m in ('packaging.specifiers', 'packaging.markers') if m in sys.modules),"
            " sorted(rep['frameworks'])]))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update(PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    mods, frameworks = json.loads(r.stdout.strip().splitlines()[-1])
    assert mods == [] and "torch" in frameworks  # and it still reads the frameworks whose pins known_bad compares


# -- the garbage collector: paused for a status run started by main(), running for every other command -------
_GC_PROBE = """
import gc, json, sys
import envcheck.cli as c
seen = {}
orig = c.LazyGroup.get_command
def get_command(self, ctx, name):
    cmd = orig(self, ctx, name)
    cb = cmd.callback
    def wrapped(*a, **k):
        seen[name] = gc.isenabled()
        return cb(*a, **k)
    cmd.callback = wrapped
    return cmd
c.LazyGroup.get_command = get_command
before = gc.isenabled()
try:
    c.main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
print("\\nGC " + json.dumps([before, seen, gc.isenabled(), code]))
"""


@pytest.mark.parametrize("args, paused", [
    (["status", "--json", "--snapshot", "tests/data/snapshots/gh200-570.124.06-warpik"], True),
    (["matrix", "show", "cuda"], False),
    (["explain", "--no-detect", "tests/data/real/h100-580.159.04-torch2.11-cu130/captures/nvidia-smi.txt"], False),
])
def test_main_pauses_the_collector_for_status_only(tmp_path, args, paused):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update(PYTHONPATH=ROOT, ENVCHECK_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-c", _GC_PROBE] + args, capture_output=True, text=True, timeout=120,
                       env=env, cwd=ROOT)
    before, seen, after, code = json.loads(r.stdout.rsplit("\nGC ", 1)[1])
    assert code in (0, 1), r.stderr
    assert before is True and after is True  # main() gives the collector back as it found it
    assert seen == {args[0]: not paused}


def test_main_leaves_a_disabled_collector_disabled(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update(PYTHONPATH=ROOT, ENVCHECK_CACHE_DIR=str(tmp_path / "cache"))
    code = "import gc; gc.disable()\n" + _GC_PROBE
    r = subprocess.run([sys.executable, "-c", code, "matrix", "show", "cuda"], capture_output=True, text=True,
                       timeout=120, env=env, cwd=ROOT)
    before, seen, after, _ = json.loads(r.stdout.rsplit("\nGC ", 1)[1])
    assert [before, seen, after] == [False, {"matrix": False}, False]


def test_library_names_prefilter_lets_through_every_name_the_pattern_takes():
    """parse_library_path answers None before its pattern for a name outside ``_STARTS``: every stem of the
    pattern begins there, so no name it would take is turned away (each stem, and every name of the real ldconfig
    caches and library listings of tests/data)."""
    import glob

    from envcheck.parse import libraries

    stems = libraries._NAME.pattern.split("(?P<stem>", 1)[1].split(")(?:-", 1)[0]
    for stem in stems.replace("(?:_[a-z0-9_]+)?", "").split("|"):
        assert ("lib" + stem).startswith(libraries._STARTS), stem
    names = set()
    for f in glob.glob(os.path.join(ROOT, "tests", "data", "**", "*"), recursive=True):
        if os.path.isfile(f) and ("ldconfig" in f or "librar" in f) and os.path.getsize(f) < 2_000_000:
            with open(f, encoding="utf-8", errors="replace") as fh:
                for tok in fh.read().split():
                    names.add(os.path.basename(tok.strip("\"',")))
    assert len(names) > 300
    taken = 0
    for n in names:
        by_pattern = libraries._NAME.match(n) is not None
        assert not by_pattern or n.startswith(libraries._STARTS), n
        taken += by_pattern
        got = libraries.parse_library_path("/x/" + n)
        assert (got is not None) <= by_pattern
    assert taken > 20


def test_the_console_entry_runs_status_without_a_single_collection(tmp_path):
    """envcheck.__main__ (``python -m envcheck`` and the console script) pauses the collector before the CLI's
    imports: from its start until the collector is resumed (once, at the end), a whole status run, imports
    included, triggers no collection; and the collector runs again after."""
    snap = os.path.join(ROOT, "tests", "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot")
    code = ("import gc, json, sys\n"
            "n, resumed = [0], []\n"
            "gc.callbacks.append(lambda phase, info: n.__setitem__(0, n[0] + 1) if phase == 'start' else None)\n"
            "enable = gc.enable\n"
            "gc.enable = lambda: (resumed.append(n[0]), enable())\n"
            "import envcheck.__main__ as m\n"
            f"sys.argv = ['envcheck', 'status', '--json', '--snapshot', {snap!r}]\n"
            "start = n[0]\n"
            "try:\n"
            "    m.main()\n"
            "except SystemExit as exc:\n"
            "    rc = exc.code\n"
            "sys.stdout.flush()\n"
            "print('\\nGC ' + json.dumps([start, resumed, gc.isenabled(), rc]))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update(PYTHONPATH=ROOT, ENVCHECK_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    start, resumed, enabled, rc = json.loads(r.stdout.rsplit("\nGC ", 1)[1])
    assert rc in (0, 1), r.stderr
    assert resumed == [start] and enabled is True
    assert json.loads(r.stdout.rsplit("\nGC ", 1)[0])["schema"] == "envcheck/report/1"


def test_parse_ldconfig_reads_a_listing_again_as_the_first_time():
    """parse_ldconfig keeps its last listing's entries: asked again (the same text, or an equal one), it gives
    equal entries in a new list, which a caller may change without changing the next answer."""
    from envcheck.parse import ldconfig

    folder = os.path.join(ROOT, "tests", "data", "ldconfig")
    texts = [open(os.path.join(folder, n), encoding="utf-8").read() for n in sorted(os.listdir(folder))
             if n.endswith(".txt")]
    assert len(texts) >= 5
    fresh = []
    for t in texts:
        ldconfig._LAST = (None, ())
        fresh.append(ldconfig.parse_ldconfig(t))
    assert any(fresh)
    for t, want in zip(texts + texts[::-1], fresh + fresh[::-1]):
        for same in (t, "".join(list(t))):  # the same object, and an equal copy
            got = ldconfig.parse_ldconfig(same)
            assert got == want
            got.clear()
            assert ldconfig.parse_ldconfig(same) == want
    assert ldconfig.parse_ldconfig("") == [] and ldconfig.parse_ldconfig(None) == []
