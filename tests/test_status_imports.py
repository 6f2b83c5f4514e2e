"""The status path imports only what it uses (issue 24 item 1): the small things written out instead of an
import (shutil.which, platformdirs' cache folder, socket.gethostname) give what the library gives, and a
whole `envcheck status` run in a child imports none of the modules it no longer needs."""

from __future__ import annotations

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


#: modules the status path needs no more (each was imported by `envcheck status` before issue 24)
NOT_ON_THE_STATUS_PATH = ["packaging.markers", "packaging.requirements", "packaging.specifiers", "platformdirs",
                          "shutil", "tempfile", "socket", "tomllib", "tomli"]


def test_status_imports_none_of_them(tmp_path):
    code = ("import sys, io, contextlib\n"
            "from envcheck.cli import main\n"
            "sys.argv = ['envcheck', 'status', '--json']\n"
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
    runs = []
    for _ in range(2):  # the first run fills the parsed-matrix cache (and parses TOML for it); the second reads it
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
        assert r.returncode == 0, r.stderr
        runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert runs[1] == [], runs


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
