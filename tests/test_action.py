"""The composite GitHub Action (action.yml at the repository root), run offline as a runner would run
it: each `run` step in bash with the inputs' values in its env, GITHUB_PATH / GITHUB_OUTPUT /
GITHUB_STEP_SUMMARY files, `github.action_path` a copy of this checkout, pip with no index (the build
backend from the wheelhouse). The upload step (actions/upload-artifact) is only checked for its pin."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
yaml = pytest.importorskip("yaml")


def _action():
    with open(os.path.join(ROOT, "action.yml"), encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def test_the_action_is_composite_pinned_and_never_interpolates_into_scripts():
    a = _action()
    assert a["runs"]["using"] == "composite"
    for step in a["runs"]["steps"]:
        if "run" in step:
            assert step["shell"] == "bash"
            assert "${{" not in step["run"], step["name"]  # inputs reach scripts through env only
        else:
            # actions that run on Node 24 (upload-artifact v6 is the first that declares node24)
            assert re.fullmatch(r"actions/upload-artifact@v([6-9]|\d\d+)", step["uses"]), step["uses"]
    assert set(a["inputs"]) >= {"source", "python", "require-gpu", "explain", "fail"}
    assert a["inputs"]["source"]["default"] == ""  # the action's own checkout


def _checkout(dest):
    for part in ("envcheck", "compat_matrix"):
        shutil.copytree(os.path.join(ROOT, part), dest / part, ignore=shutil.ignore_patterns("__pycache__"))
    for f in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(os.path.join(ROOT, f), dest / f)


def _expr(value, inputs, ctx):
    def one(m):
        e = m.group(1).strip()
        if e.startswith("inputs."):
            return str(inputs[e[len("inputs."):]])
        return str(ctx[e])
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(value))


def _run_action(tmp_path, wheelhouse, **given):
    a = _action()
    inputs = {k: v.get("default", "") for k, v in a["inputs"].items()}
    inputs.update(given)
    action_path, temp, work = tmp_path / "action", tmp_path / "runner-temp", tmp_path / "work"
    for d in (temp, work):
        d.mkdir()
    _checkout(action_path)
    files = {n: tmp_path / n for n in ("github_path", "github_output", "step_summary")}
    for f in files.values():
        f.write_text("")
    ctx = {"github.action_path": str(action_path), "runner.temp": str(temp)}
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ENVCHECK_", "PIP_", "VIRTUAL_ENV", "PYTHON", "GITHUB_"))}
    env.update(wheelhouse["env"], NO_COLOR="1", RUNNER_TEMP=str(temp), GITHUB_PATH=str(files["github_path"]),
               GITHUB_OUTPUT=str(files["github_output"]), GITHUB_STEP_SUMMARY=str(files["step_summary"]),
               PATH="/usr/local/bin:/usr/bin:/bin")
    results = []
    for step in a["runs"]["steps"]:
        if "run" not in step:
            continue
        cond = step.get("if", "")
        if "inputs.explain != ''" in cond and not inputs["explain"]:
            continue
        senv = dict(env, **{k: _expr(v, inputs, ctx) for k, v in (step.get("env") or {}).items()})
        added = [ln for ln in files["github_path"].read_text().splitlines() if ln]
        senv["PATH"] = ":".join(added + [senv["PATH"]])
        r = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step["run"]], cwd=work,
                           env=senv, capture_output=True, text=True, timeout=600)
        results.append((step["name"], r))
        if r.returncode != 0:
            break
    outputs = dict(ln.split("=", 1) for ln in files["github_output"].read_text().splitlines() if "=" in ln)
    return results, outputs, files["step_summary"].read_text(), temp


def test_the_action_installs_its_checkout_checks_and_explains(tmp_path, wheelhouse):
    log = tmp_path / "work-log.txt"
    log.write_text("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    results, outputs, summary, temp = _run_action(tmp_path, wheelhouse, explain=str(log), fail="false")
    assert [n for n, _ in results] == ["Install envcheck in its own venv", "Check the stack", "Explain the log"]
    assert all(r.returncode == 0 for _, r in results), [(n, r.stderr[-500:]) for n, r in results]
    report = json.loads(open(outputs["report"]).read())
    assert report["schema"] == "envcheck/report/1"
    assert outputs["ok"] in ("true", "false")
    assert summary.startswith("### envcheck status") and "no kernel image" in summary
    assert os.path.exists(temp / "envcheck-report" / "explain.md")


def test_the_action_fails_the_step_on_findings_and_refuses_a_foreign_source(tmp_path, wheelhouse):
    results, outputs, _summary, _temp = _run_action(tmp_path, wheelhouse, **{"require-gpu": "true"})
    (name, r) = results[-1]
    assert name == "Check the stack" and r.returncode == 1 and outputs["ok"] == "false"  # no GPU here
    assert "::error::envcheck status found problems" in r.stdout
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[project]\nname = "envcheck"\n')
    (tmp_path / "b").mkdir()
    results, _o, _s, temp = _run_action(tmp_path / "b", wheelhouse, source=str(other))
    (name, r) = results[-1]
    assert name == "Install envcheck in its own venv" and r.returncode == 1
    assert "neither a checkout of envcheck" in r.stdout and not (temp / "envcheck-action-venv").exists()
