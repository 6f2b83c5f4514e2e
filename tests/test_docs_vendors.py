"""docs/vendors.md shows `envcheck status` and `envcheck fix` on the AMD, Intel and Apple snapshots kept under
tests/data/snapshots/: every shown block must be exactly what the command prints today (the lines, their order, and
nothing more), with the table width the docs were made with (COLUMNS=100, no colour). envcheck's own version in the
first line is the one thing not compared."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from envcheck.cli import cli

ROOT = Path(__file__).parent.parent
DOC = ROOT / "docs" / "vendors.md"
_VERSION = re.compile(r"^envcheck \d+\.\d+\.\d+\S*")


def _blocks():
    """(command, shown output) for every ``$ envcheck ...`` line inside the page's fenced blocks."""
    text = DOC.read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"^```\n(.*?)^```", text, re.S | re.M):
        cur = None
        lines = []
        for line in block.splitlines():
            if line.startswith("$ envcheck "):
                if cur is not None:
                    out.append((cur, lines))
                cur, lines = line[2:], []
            elif cur is not None:
                lines.append(line)
        if cur is not None:
            out.append((cur, lines))
    return out


def _norm(lines):
    lines = [_VERSION.sub("envcheck X", ln.rstrip()) for ln in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def test_the_page_shows_status_on_amd_intel_and_apple_snapshots():
    shown = [c for c, _ in _blocks() if c.startswith("envcheck status --snapshot tests/data/snapshots/")]
    for vendor in ("amd-", "intel-", "apple-"):
        assert any(vendor in c for c in shown), vendor


@pytest.mark.parametrize("command,shown", _blocks(), ids=[c for c, _ in _blocks()])
def test_shown_output_is_what_the_command_prints(command, shown, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = shlex.split(command)[1:]
    res = CliRunner(env={"COLUMNS": "100", "NO_COLOR": "1"}).invoke(cli, args, standalone_mode=False)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert _norm(res.output.splitlines()) == _norm(shown), (
        "docs/vendors.md is stale for `" + command + "`; regenerate it with scripts/docs_vendors.py")
    assert os.path.isdir(args[args.index("--snapshot") + 1])
