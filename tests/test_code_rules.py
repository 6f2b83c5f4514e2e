"""Rules of the code base, checked mechanically."""

import os
import re
import subprocess
import sys

from envcheck.checks import EXTRA_IDS, FINDING_IDS
from helpers import CONTRACT_IDS  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "envcheck")


def py_files():
    for d, _, files in os.walk(PKG):
        for f in files:
            if f.endswith(".py"):
                yield os.path.join(d, f)


def test_finding_ids_are_contract_ids():
    assert set(FINDING_IDS) <= CONTRACT_IDS
    # the contract lives in the repository (docs/contract.md): its id tables (§3, §9) are the ids
    with open(os.path.join(ROOT, "docs", "contract.md"), encoding="utf-8") as fh:
        text = fh.read()
    table = set(re.findall(r"^\| `([a-z0-9-]+)` \|", text, re.M))
    assert CONTRACT_IDS == table


def test_every_emitted_id_is_declared():
    emitted = set()
    for p in py_files():
        if "/checks/" in p:
            emitted |= set(re.findall(r'Finding\(\s*"([a-z0-9-]+)"', open(p).read()))
    assert emitted and emitted <= set(FINDING_IDS) | set(EXTRA_IDS)
    assert not set(EXTRA_IDS) & CONTRACT_IDS


def test_only_cli_and_render_print():
    offenders = []
    for p in py_files():
        rel = os.path.relpath(p, PKG)
        if rel.startswith(("cli", "render")) or rel.startswith("probe/_") and "child" in rel:
            continue
        src = open(p).read()
        if re.search(r"^\s*print\(", src, re.M) and "__main__" not in src:
            offenders.append(rel)
        if re.search(r"^\s*(import click|from click)", src, re.M):
            offenders.append(rel + " (click)")
    assert offenders == []


def test_no_framework_imports_outside_the_deep_child():
    for p in py_files():
        if p.endswith("_deep_child.py"):
            continue
        src = open(p).read()
        assert not re.search(r"^\s*(import|from)\s+(torch|tensorflow|jax)\b", src, re.M), p


def test_status_imports_no_heavy_module():
    code = ("import sys, runpy; sys.argv=['envcheck','status','--json'];\n"
            "try:\n    runpy.run_module('envcheck', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "bad=[m for m in ('torch','tensorflow','jax','requests','urllib3','numpy') if m in sys.modules]\n"
            "sys.stderr.write('HEAVY=' + ','.join(bad))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ,
                                                                                               PYTHONPATH=ROOT))
    assert "HEAVY=" in r.stderr and r.stderr.strip().endswith("HEAVY="), r.stderr[-500:]


def test_no_python310_only_syntax():
    for p in py_files():
        src = open(p).read()
        assert not re.search(r"^\s*match\s+\S.*:\s*$", src, re.M), p
        assert "from __future__ import annotations" in src or not re.search(r"def .*\) -> [^:]*\|", src), p


def test_commands_have_help_and_examples_and_are_documented():
    from envcheck.cli import COMMANDS, cli
    import importlib

    readme = open(os.path.join(ROOT, "README.md")).read()
    # the README, or the docs beside it (docs/cli.md documents `envcheck completion`)
    readme += open(os.path.join(ROOT, "docs", "cli.md")).read()
    for name, target in COMMANDS.items():
        mod, attr = target.split(":")
        cmd = getattr(importlib.import_module(mod), attr)
        assert cmd.help and "Example:" in cmd.help, name
        assert f"envcheck {name}" in readme, name
    assert cli.help


def test_paste_and_parse_functions_stay_simple():
    # issue 20: no function of the readers over cyclomatic complexity 20 (one reader per form, small parts)
    ruff = os.path.join(os.path.dirname(sys.executable), "ruff")
    if not os.path.exists(ruff):
        import pytest

        pytest.skip("ruff is not installed next to this Python")
    r = subprocess.run([ruff, "check", os.path.join(PKG, "paste"), os.path.join(PKG, "parse"), "--select", "C901",
                        "--config", "lint.mccabe.max-complexity = 20", "--no-cache"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
