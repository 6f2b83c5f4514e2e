"""This repository's own workflows (.github/workflows): CI runs .ci/run; the release workflow builds the
sdist and the wheel, installs the wheel in a fresh venv and runs `envcheck status` and the tests against it,
and publishes with PyPI trusted publishing only from a version tag, with the id-token permission only
in that job. The version-tag check runs here for real."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
yaml = pytest.importorskip("yaml")


def _load(name):
    with open(os.path.join(ROOT, ".github", "workflows", name), encoding="utf-8") as fh:
        wf = yaml.safe_load(fh)
    wf["on"] = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as True
    return wf


def test_ci_runs_ci_run():
    wf = _load("ci.yml")
    runs = [s.get("run", "") for s in wf["jobs"]["test"]["steps"]]
    assert ".ci/run" in runs and wf["permissions"] == {"contents": "read"}


def test_release_builds_tests_the_wheel_and_publishes_only_from_a_tag():
    wf = _load("release.yml")
    assert wf["on"]["push"]["tags"] == ["v*"] and wf["permissions"] == {"contents": "read"}
    build, publish = wf["jobs"]["build"], wf["jobs"]["publish"]
    script = "\n".join(s.get("run", "") for s in build["steps"])
    assert "python -m build --outdir dist" in script
    assert re.search(r'python -m venv "\$RUNNER_TEMP/release-venv"', script)
    assert '"${whl}[test]"' in script and 'release-venv/bin/envcheck" status' in script and "bin/pytest" in script
    assert "id-token" not in str(build.get("permissions", {}))
    assert publish["needs"] == "build" and publish["if"] == "startsWith(github.ref, 'refs/tags/v')"
    assert publish["permissions"] == {"id-token": "write"} and publish["environment"] == "pypi"
    uses = [s.get("uses", "") for s in publish["steps"]]
    assert uses[-1].startswith("pypa/gh-action-pypi-publish@")
    assert not any("password" in str(s.get("with", {})) for s in publish["steps"])  # no stored token


@pytest.mark.parametrize("tag,rc", [("v{v}", 0), ("v0.0.0-wrong", 1)])
def test_the_tag_must_be_the_package_version(tag, rc):
    from envcheck import __version__

    (step,) = [s for s in _load("release.yml")["jobs"]["build"]["steps"] if s.get("name", "").startswith("The tag")]
    r = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=ROOT, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, TAG=tag.format(v=__version__)))
    assert r.returncode == rc, r.stdout + r.stderr
    if rc:
        assert f"is not v{__version__}" in r.stdout
