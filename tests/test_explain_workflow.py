"""The issue-triage workflow (examples/github-actions/explain-new-issues.yml), run offline: its script steps
run in bash, as on a runner, against a recorded ``issues.opened`` payload, with a fake ``gh`` on PATH that
records what would be posted and an ``envcheck`` on PATH that is this checkout."""

import json
import os
import re
import stat
import subprocess
import sys

import pytest

yaml = pytest.importorskip("yaml")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOW = os.path.join(ROOT, "examples", "github-actions", "explain-new-issues.yml")
PAYLOAD = os.path.join(ROOT, "tests", "data", "github", "issues-opened.json")
SKIP = {"Install envcheck"}  # needs the network; the envcheck on PATH is this checkout instead

FAKE_GH = """#!/bin/sh
# records its arguments, one per line, and the file given to --body-file
rec="$GH_RECORD/call-$$"
mkdir -p "$rec"
for a in "$@"; do printf '%s\\n' "$a"; done > "$rec/argv"
printf '%s' "$GH_TOKEN" > "$rec/token"
prev=""
for a in "$@"; do
  if [ "$prev" = "--body-file" ]; then cp "$a" "$rec/body.md"; fi
  prev="$a"
done
"""


def _workflow():
    with open(WORKFLOW, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _lookup(ctx, expr):
    cur = ctx
    for part in expr.strip().split("."):
        cur = cur[part]
    return str(cur)


def _run_workflow(tmp_path, payload):
    """Run the job's script steps in order; returns (records, step results)."""
    work = tmp_path / "work"
    bin_dir = tmp_path / "bin"
    record = tmp_path / "gh-record"
    for d in (work, bin_dir, record):
        d.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH)
    (bin_dir / "envcheck").write_text(f"#!/bin/sh\nexec '{sys.executable}' -m envcheck \"$@\"\n")
    for f in ("gh", "envcheck"):
        p = bin_dir / f
        p.chmod(p.stat().st_mode | stat.S_IEXEC)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload))
    ctx = {"github": {"token": "fake-token", "repository": payload["repository"]["full_name"], "event": payload},
           "steps": {}}
    job = _workflow()["jobs"]["explain"]
    results = []
    for i, step in enumerate(job["steps"]):
        if "uses" in step or step.get("name") in SKIP:
            continue
        cond = step.get("if")
        if cond:
            m = re.match(r"^steps\.(\w+)\.outputs\.(\w+) == '(\w*)'$", cond.strip())
            assert m, f"the test understands only one form of if: {cond!r}"
            if ctx["steps"].get(m.group(1), {}).get(m.group(2)) != m.group(3):
                results.append((step.get("name"), "skipped"))
                continue
        env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(tmp_path), "GH_RECORD": str(record),
               "GITHUB_EVENT_PATH": str(event), "GITHUB_OUTPUT": str(tmp_path / f"output-{i}"),
               "PYTHONPATH": ROOT, "NO_COLOR": "1", "LC_ALL": "C.UTF-8"}
        for k, v in (step.get("env") or {}).items():
            env[k] = re.sub(r"\$\{\{(.*?)\}\}", lambda mm: _lookup(ctx, mm.group(1)), str(v))
        assert "${{" not in step["run"], "scripts must not interpolate expressions (untrusted issue text)"
        script = tmp_path / f"step-{i}.sh"
        script.write_text(step["run"])
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=work, env=env,
                           capture_output=True, timeout=120)
        results.append((step.get("name"), r.returncode))
        assert r.returncode == 0, (step.get("name"), r.stderr.decode(errors="replace"))
        outputs = {}
        out_file = tmp_path / f"output-{i}"
        if out_file.exists():
            for line in out_file.read_text().splitlines():
                k, _, v = line.partition("=")
                outputs[k] = v
        if step.get("id"):
            ctx["steps"][step["id"]] = outputs
    calls = sorted(p for p in record.iterdir())
    return calls, results


def test_workflow_is_triggered_by_opened_issues_with_least_privilege():
    wf = _workflow()
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` key as True
    assert on == {"issues": {"types": ["opened"]}}
    assert wf["permissions"] == {"contents": "read", "issues": "write"}


def test_recorded_issue_gets_an_explanation_comment(tmp_path):
    with open(PAYLOAD, encoding="utf-8") as fh:
        payload = json.load(fh)
    calls, results = _run_workflow(tmp_path, payload)
    assert ("Post the comment", 0) in results
    assert len(calls) == 1
    argv = (calls[0] / "argv").read_text().splitlines()
    assert argv == ["issue", "comment", "60854", "--repo", "tensorflow/tensorflow", "--body-file", "comment.md"]
    assert (calls[0] / "token").read_text() == "fake-token"
    body = (calls[0] / "body.md").read_text()
    assert body.startswith("<!-- envcheck-explain -->\n")
    assert "(`cudnn-missing`)" in body
    assert "Could not load dynamic library 'libcudnn.so.8'" in body  # the evidence, quoted
    assert "**Fix**" in body and "**Dead ends**" in body
    assert "- library: `libcudnn.so.8`" in body and "- cuDNN major of the library: `8`" in body


def test_unrelated_issue_gets_no_comment(tmp_path):
    with open(PAYLOAD, encoding="utf-8") as fh:
        payload = json.load(fh)
    payload["issue"]["title"] = "How do I change the learning rate?"
    payload["issue"]["body"] = None  # GitHub sends null for an empty body
    calls, results = _run_workflow(tmp_path, payload)
    assert calls == []
    assert ("Post the comment", "skipped") in results


def test_hostile_issue_text_cannot_break_out_of_the_comment(tmp_path):
    with open(PAYLOAD, encoding="utf-8") as fh:
        payload = json.load(fh)
    payload["issue"]["title"] = "crash `]` <!-- -->"
    payload["issue"]["body"] = ("```\n@maintainers look\x1b[31m $(touch pwned) `whoami`\n"
                                "RuntimeError: CUDA out of memory. ```` @everyone ``` Tried to allocate 2.00 GiB\n")
    calls, _ = _run_workflow(tmp_path, payload)
    assert not (tmp_path / "work" / "pwned").exists()
    body = (calls[0] / "body.md").read_text()
    assert "\x1b" not in body
    assert "(`gpu-out-of-memory`)" in body
    fence = re.search(r"^(`{3,})text$", body, re.M).group(1)
    assert len(fence) > 4  # longer than any backtick run in the quoted line
