"""explain's refinement has one guard at the dispatch of its fix handlers: a handler that fails keeps the
knowledge base's fixes and records what failed in the match's notes (and the JSON), never silently."""

from __future__ import annotations

import json

from click.testing import CliRunner

from envcheck.cli import cli
from envcheck.explain import machine
from helpers import gpu_machine, make_snapshot, torch_install

LOG = ("RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
       "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx\n")


def _explain(tmp_path):
    d = make_snapshot(str(tmp_path / "s"), {**gpu_machine("470.82.01", "11.4", [("NVIDIA A100-SXM4-40GB", 40960)],
                                                          cc=["8.0"]), **torch_install("2.5.1+cu124", "12.4")})
    log = tmp_path / "crash.log"
    log.write_text(LOG)
    r = CliRunner().invoke(cli, ["explain", str(log), "--snapshot", d, "--json"], standalone_mode=False,
                           catch_exceptions=False)
    return json.loads(r.output)


def test_a_failing_handler_is_recorded_in_the_notes(tmp_path, monkeypatch):
    def broken(m, env, matrix, facts):
        raise KeyError("no-such-row")

    monkeypatch.setitem(machine._HANDLERS, "driver-too-old", broken)
    rep = _explain(tmp_path)
    m = next(x for x in rep["matches"] if x["id"] == "driver-too-old")
    assert any("could not work out the exact fix (broken)" in n and "KeyError" in n and "no-such-row" in n
               for n in m["notes"]), m
    assert m["fixes"]  # the knowledge base's fixes and the machine's findings are still there
    assert any(f.startswith("This machine:") for f in m["fixes"])


def test_a_failing_status_pipeline_is_recorded_on_every_match(tmp_path, monkeypatch):
    def broken(env, matrix):
        raise RuntimeError("pipeline broke")

    monkeypatch.setattr(machine, "_status_findings", broken)
    rep = _explain(tmp_path)
    assert rep["matches"] and all(any("pipeline broke" in n for n in x.get("notes", [])) for x in rep["matches"])


def test_no_notes_when_nothing_failed(tmp_path):
    rep = _explain(tmp_path)
    assert all("notes" not in x for x in rep["matches"])
    m = next(x for x in rep["matches"] if x["id"] == "driver-too-old")
    assert any("Upgrade the NVIDIA driver from 470.82.01 to >= 525.60.13" in f for f in m["fixes"])
