"""One status pipeline (checks/pipeline.build_status): the document `envcheck status --json` prints is the one the
pipeline builds, and its typed shape (StatusDocument) is the contract's §2 keys."""

from __future__ import annotations

import json

from click.testing import CliRunner

from envcheck.checks.pipeline import build_status
from envcheck.checks.report import StatusDocument
from envcheck.cli import cli
from envcheck.snapshot import open_snapshot
from helpers import gpu_machine, make_snapshot, torch_install


def test_status_prints_the_pipelines_document(tmp_path):
    d = make_snapshot(str(tmp_path / "s"), {**gpu_machine("470.82.01", "11.4", [("NVIDIA A100-SXM4-40GB", 40960)],
                                                          cc=["8.0"]), **torch_install("2.5.1+cu124", "12.4")})
    r = CliRunner().invoke(cli, ["status", "--json", "--snapshot", d], standalone_mode=False, catch_exceptions=False)
    printed = json.loads(r.output)
    result = build_status(open_snapshot(d), created=printed["created"])
    assert json.loads(json.dumps(result.document)) == printed
    assert result.ok is False and {f.id for f in result.findings} >= {"driver-too-old"}
    assert set(printed) <= set(StatusDocument.__annotations__)  # every printed key is typed
    assert StatusDocument.__required_keys__ <= set(printed)


def test_an_environment_already_built_goes_through_the_same_checks(tmp_path):
    d = make_snapshot(str(tmp_path / "s"), torch_install("2.5.1+cu124", "12.4"))
    first = build_status(open_snapshot(d))
    again = build_status(env=first.env, matrix=first.matrix)
    assert [f.id for f in again.findings] == [f.id for f in first.findings]
