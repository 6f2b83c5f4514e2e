"""envcheck.codecache (issue 24): the CLI's cache of the code compiled for dataclasses' generated methods gives
exactly the classes that dataclasses gives without it, is used only in the CLI's process, only from a folder
that is the user's own, and a damaged or foreign file is the same as none."""

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

#: imports every envcheck module, then prints a fingerprint of every method dataclasses generated for every
#: dataclass defined in them (every co_* field of the code object: byte-code, constants (recursively), names,
#: flags, file name, qualified name, line and exception tables; plus defaults, annotations and which globals it sees), and the cache's counts
PROBE = r"""
import dataclasses, hashlib, importlib, json, os, pkgutil, sys, types
FIELDS = [a for a in dir(types.CodeType) if a.startswith("co_") and a not in ("co_lines", "co_positions", "co_lnotab")]
def fp(code):
    return [[a, [fp(c) if isinstance(c, types.CodeType) else repr(c) for c in v] if a == "co_consts" else repr(v)]
            for a in FIELDS for v in [getattr(code, a)]]
use = sys.argv[1] == "cache"
from envcheck import codecache
cache = codecache.install() if use else None
assert (cache is not None) == use
import envcheck
names = sorted(m.name for m in pkgutil.walk_packages(envcheck.__path__, "envcheck.")
               if not m.name.endswith("__main__"))
for name in names:
    try:
        importlib.import_module(name)
    except ImportError:  # an optional dependency (the guard's frameworks)
        pass
out = {}
for name in names:
    mod = sys.modules.get(name)
    for cname, cls in sorted(vars(mod).items() if mod else ()):
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == name):
            continue
        for meth in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__",
                     "__lt__", "__le__", "__gt__", "__ge__"):
            fn = cls.__dict__.get(meth)
            code = getattr(fn, "__code__", None)
            if code is None or code.co_filename != "<string>":
                continue  # not generated (object's own, or written in the class)
            out[f"{name}.{cname}.{meth}"] = [
                hashlib.sha256(repr(fp(code)).encode()).hexdigest(), fn.__qualname__, repr(fn.__defaults__),
                repr(fn.__kwdefaults__), repr(fn.__annotations__), fn.__globals__ is vars(mod)]
counts = [cache.hits, cache.misses] if cache else None
if cache:
    codecache.uninstall()
print(json.dumps({"methods": out, "counts": counts}))
"""


def _run(tmp_path, mode, **env_extra):
    env = {k: v for k, v in os.environ.items() if k not in ("ENVCHECK_NO_CODE_CACHE", "PYTHONDONTWRITEBYTECODE")}
    env.update({"ENVCHECK_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": ROOT}, **env_extra)
    r = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, env=env, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _clean_env():
    return {k: v for k, v in os.environ.items() if k not in ("ENVCHECK_NO_CODE_CACHE", "PYTHONDONTWRITEBYTECODE")}


def _cache_files(tmp_path):
    d = tmp_path / "cache" / "code"
    return sorted(p.name for p in d.iterdir()) if d.is_dir() else []


def test_the_cached_methods_are_dataclasses_own(tmp_path):
    plain = _run(tmp_path, "plain")
    assert len(plain["methods"]) > 150  # every envcheck dataclass's generated methods
    assert _cache_files(tmp_path) == []
    cold = _run(tmp_path, "cache")  # compiles every text and writes the file
    assert cold["counts"][0] == 0 and cold["counts"][1] > 150
    assert len(_cache_files(tmp_path)) == 1
    warm = _run(tmp_path, "cache")  # reads every text's code from the file
    assert warm["counts"] == [cold["counts"][1], 0]
    assert cold["methods"] == plain["methods"]
    assert warm["methods"] == plain["methods"]


def test_nothing_written_under_dont_write_bytecode(tmp_path):
    _run(tmp_path, "cache", PYTHONDONTWRITEBYTECODE="1")
    assert _cache_files(tmp_path) == []
    _run(tmp_path, "cache")
    assert len(_cache_files(tmp_path)) == 1
    warm = _run(tmp_path, "cache", PYTHONDONTWRITEBYTECODE="1")  # still read
    assert warm["counts"][1] == 0 and warm["counts"][0] > 150


def test_future_annotations_are_not_inherited():
    """The cache module itself uses ``from __future__ import annotations``; the generated methods must not
    (their annotations are the objects dataclasses passes, as with exec of the text)."""
    cache = codecache.CodeCache("/nonexistent/x.bin")
    text = "def __create_fn__(_type_x, _return_type):\n def __init__(self, x: _type_x) -> _return_type:\n  pass\n return __init__"
    ns: dict = {}
    cache.exec(text, {}, ns)
    fn = ns["__create_fn__"](int, None)
    assert fn.__annotations__ == {"x": int, "return": None}
    ns2: dict = {}
    exec(compile(text, "<string>", "exec", dont_inherit=True), {}, ns2)
    assert fn.__code__ == ns2["__create_fn__"](int, None).__code__


def test_damaged_or_foreign_cache_is_none(tmp_path):
    plain = _run(tmp_path, "plain")
    _run(tmp_path, "cache")
    (name,) = _cache_files(tmp_path)
    path = tmp_path / "cache" / "code" / name
    good = path.read_bytes()
    for bad in (good[: len(good) // 2], b"not a cache", codecache.HEADER + b"\x00\x00\r\n" + good[len(codecache.HEADER) + 4:],
                good[: len(codecache.HEADER) + 4] + b"\xff" * 64):
        path.write_bytes(bad)
        got = _run(tmp_path, "cache")
        assert got["counts"][0] == 0, bad[:40]
        assert got["methods"] == plain["methods"]
    # a good file in a folder others may write to is not read (nor written)
    path.write_bytes(good)
    os.chmod(path.parent, 0o777)
    try:
        got = _run(tmp_path, "cache")
        assert got["counts"][0] == 0 and got["methods"] == plain["methods"]
        assert path.read_bytes() == good
    finally:
        os.chmod(path.parent, 0o700)
    assert _run(tmp_path, "cache")["counts"][1] == 0  # back to the user's own: read again


def test_only_the_cli_process_uses_it(tmp_path):
    """``import envcheck`` (the API, the guard) leaves the caller's dataclasses alone; the CLI gives it back."""
    code = ("import dataclasses, sys, envcheck, envcheck.api, envcheck.model\n"
            "assert 'exec' not in vars(dataclasses)\n"
            "import envcheck.__main__ as m\n"
            "sys.argv = ['envcheck', 'status', '--json', '--snapshot', sys.argv[1]]\n"
            "try:\n    m.main()\nexcept SystemExit as e:\n    rc = e.code\n"
            "assert 'exec' not in vars(dataclasses), 'not given back'\n"
            "print('rc', rc, file=sys.stderr)\n")
    env = dict(os.environ, ENVCHECK_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=ROOT)
    snap = os.path.join(SNAPSHOTS, sorted(os.listdir(SNAPSHOTS))[0])
    r = subprocess.run([sys.executable, "-c", code, snap], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "rc 0" in r.stderr


#: a console script's module (pip's wrapper: ``from envcheck.__main__ import main; sys.exit(main())``) with an
#: atexit function and an object whose finaliser says whether the interpreter's teardown ran
SCRIPT = ("import atexit, os, sys\n"
          "class Torn:\n    def __del__(self):\n        os.write(2, b'TEARDOWN\\n')\n"
          "torn = Torn()\n"
          "atexit.register(lambda: os.write(2, b'ATEXIT\\n'))\n"
          "from envcheck.__main__ import main\n"
          "sys.argv = ['envcheck'] + sys.argv[1:]\n"
          "sys.exit(main())\n")


def _script(tmp_path, *args, runpy=False):
    code = SCRIPT if not runpy else SCRIPT.replace(
        "from envcheck.__main__ import main\n", "").replace(
        "sys.exit(main())", "import runpy\nrunpy.run_module('envcheck', run_name='__main__')")
    env = dict(_clean_env(), ENVCHECK_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=ROOT)


def _untimed(text):
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?Z?", "TIME", text)


def test_a_status_run_ends_without_teardown(tmp_path):
    """The console script's status run ends after its output and the atexit functions, without the teardown;
    its output and exit status are those of the run in a process that tears down (runpy: not the process's
    entry), and every other command tears down as before."""
    for snap in sorted(os.listdir(SNAPSHOTS)):
        path = os.path.join(SNAPSHOTS, snap)
        for args in (["status", "--json", "--snapshot", path], ["status", "--snapshot", path, "--markdown"]):
            fast = _script(tmp_path, *args)
            slow = _script(tmp_path, *args, runpy=True)
            assert "ATEXIT" in fast.stderr and "TEARDOWN" not in fast.stderr, fast.stderr
            assert "ATEXIT" in slow.stderr and "TEARDOWN" in slow.stderr, slow.stderr
            assert (fast.returncode, _untimed(fast.stdout)) == (slow.returncode, _untimed(slow.stdout))
            assert fast.stdout.strip()
    codes = {_script(tmp_path, "status", "--snapshot", os.path.join(SNAPSHOTS, s)).returncode
             for s in os.listdir(SNAPSHOTS)}
    assert codes == {0, 1}  # findings' exit status kept
    for args in (["--version"], ["matrix", "status"], ["explain", "--help"]):
        r = _script(tmp_path, *args)
        assert "TEARDOWN" in r.stderr and "ATEXIT" in r.stderr, (args, r.stderr)


def test_a_status_run_to_a_full_disk_still_says_so(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    snap = os.path.join(SNAPSHOTS, sorted(os.listdir(SNAPSHOTS))[0])
    env = dict(os.environ, ENVCHECK_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=ROOT)
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", snap], stdout=full,
                           stderr=subprocess.PIPE, text=True, env=env, timeout=300, cwd=ROOT)
    assert r.returncode == 2 and "cannot write the output" in r.stderr


@pytest.mark.parametrize("snap", sorted(os.listdir(SNAPSHOTS))[:3])
def test_status_reports_are_the_same_with_cold_warm_and_no_cache(tmp_path, snap):
    args = [sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", os.path.join(SNAPSHOTS, snap)]
    outs = []
    for extra in ({"ENVCHECK_NO_CODE_CACHE": "1"}, {}, {}):
        env = dict(_clean_env(), ENVCHECK_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=ROOT, **extra)
        r = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
        outs.append((r.returncode, r.stdout, r.stderr))
        if not extra:  # the status run's own files: its dataclass code and its compiled patterns
            assert [n.split("-")[0] for n in _cache_files(tmp_path)] == ["dataclasses", "re"]
            assert all("status" in n for n in _cache_files(tmp_path))
        else:
            assert _cache_files(tmp_path) == []
    outs = [(rc, _untimed(out), err) for rc, out, err in outs]
    assert outs[0] == outs[1] == outs[2]
