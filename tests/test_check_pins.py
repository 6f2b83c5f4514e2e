"""`envcheck fix --check-pins FILES` (the pre-commit hook of .pre-commit-hooks.yaml), for real through the
CLI: the pins of real dependency files (tests/data/pins/, sources in tests/data/README.md) and of files
written here, the answer the planner gives for them, and the exit statuses the hook relies on."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "pins")


def envcheck(*args, cwd=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update(PYTHONPATH=ROOT, NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=cwd)


def _expect(name):
    with open(os.path.join(DATA, name + ".expect.json"), encoding="utf-8") as fh:
        return json.load(fh)


def test_the_pins_read_from_real_files_are_the_expected_ones():
    """The parser against hand-written expectations (tests/data/pins/*.expect.json, written from the
    files, not from the code)."""
    from envcheck.parse.pins import read_pins

    pins = read_pins(os.path.join(DATA, "gaussian-splatting-environment.yml"))
    exp = _expect("gaussian-splatting-environment")
    assert [p.text for p in pins if not p.skipped] == exp["pins"]
    assert [p.text for p in pins if p.skipped] == exp["skipped"]
    assert all(p.line > 0 for p in pins)
    pins = read_pins(os.path.join(DATA, "generative-models-pt2.txt"))
    exp = _expect("generative-models-pt2")
    assert len([p for p in pins if not p.skipped]) == exp["pins"]
    assert [p.text for p in pins if p.skipped] == exp["skipped"]
    assert [p.text for p in pins if re.match(r"torch(vision|audio)?\b", p.text)] == exp["frameworks"]


def test_a_real_conda_environment_reads_conda_specs_and_its_python():
    f = os.path.join(DATA, "gaussian-splatting-environment.yml")
    r = envcheck("fix", "--check-pins", f)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "torch==1.12.1.*" in r.stdout and "torchvision==0.13.1.*" in r.stdout and "torchaudio==0.12.1.*" in r.stdout
    assert "Python 3.7 (the environment's)" in r.stdout and "Python 3.7, linux-x86_64" in r.stdout
    assert "assumed (the newest driver branch the matrix knows)" in r.stdout
    # no machine given: its platform is not known, and torch 1.12.1 has no linux-aarch64 CUDA wheel (attack32)
    assert r.stdout.rstrip().endswith("NOT CHECKED: these pins can work together on linux-x86_64, windows-x86_64 only, "
                                      "and this machine's platform is not known (give --platform, or capture "
                                      "python.json)"), r.stdout
    r = envcheck("fix", "--check-pins", f, "--platform", "linux-x86_64")
    assert r.returncode == 0 and r.stdout.rstrip().endswith("OK: these pins can work together"), r.stdout
    # the same pins on a machine whose driver is older than every build of torch 1.12.1 (CUDA 10.2 needs 440.33)
    r = envcheck("fix", "--check-pins", f, "--driver", "418.87.01")
    assert r.returncode == 1, r.stdout
    assert "CANNOT WORK" in r.stdout and "driver" in r.stdout


def test_a_real_requirements_file_ignores_other_packages_and_urls():
    f = os.path.join(DATA, "generative-models-pt2.txt")
    r = envcheck("fix", "--check-pins", f, "--json")
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)
    assert plan["schema"] == "envcheck/plan/1" and plan["satisfiable"] is True
    names = {p["name"] for p in plan["packages"]}
    assert names == {"torch", "torchvision", "torchaudio"}  # numpy, triton, the git URL: not frameworks


@pytest.mark.parametrize("files,why", [
    ({"requirements.txt": "numpy==1.26.4\ntorch==2.5.1\ntorchvision==0.21.0  # the pair of torch 2.6\n"},
     "no torch build in the matrix matches"),
    ({"requirements.txt": "torch==2.5.1\n", "requirements-dev.txt": "torch==2.4.0\n"},  # two files disagree
     "no torch build in the matrix matches"),
    ({"environment.yml": "name: x\ndependencies:\n  - python=3.11\n  - pytorch=2.5.1\n  - pip\n  - pip:\n"
                         "    - tensorflow[and-cuda]==2.18.0\n"},
     "share one CUDA"),
])
def test_pins_that_cannot_work_together_fail_the_hook(tmp_path, files, why):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    r = envcheck("fix", "--check-pins", *files, cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert why in r.stdout and "CANNOT WORK" in r.stdout


def test_a_pyproject_and_a_pinned_variant_that_does_not_run(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["torch==2.5.1+cu124", "requests"]\n'
        '[project.optional-dependencies]\nvision = ["torchvision==0.20.1"]\n')
    r = envcheck("fix", "--check-pins", "pyproject.toml", "--driver", "560.35.03", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "torch==2.5.1+cu124 (pyproject.toml)" in r.stdout and "torchvision==0.20.1" in r.stdout
    # CUDA 12.4 builds need a driver of the 525 branch or newer: 470 cannot run the pinned cu124 build
    r = envcheck("fix", "--check-pins", "pyproject.toml", "--driver", "470.57.02", cwd=tmp_path)
    assert r.returncode == 1, r.stdout
    assert re.search(r"problem: pyproject.toml: torch==2\.5\.1\+cu124: .*cu124.* does not run", r.stdout), r.stdout
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["torch==2.5.1+cu999"]\n')
    r = envcheck("fix", "--check-pins", "pyproject.toml", cwd=tmp_path)
    assert r.returncode == 1 and "knows no cu999 build of torch 2.5.1" in r.stdout, r.stdout


def test_no_framework_pinned_passes_and_bad_input_is_a_usage_error(tmp_path):
    (tmp_path / "requirements.txt").write_text("numpy==1.26.4\n-r other.txt\n--index-url https://example.org/simple\n")
    r = envcheck("fix", "--check-pins", "requirements.txt", cwd=tmp_path)
    assert r.returncode == 0 and "nothing to check" in r.stdout, r.stdout + r.stderr
    r = envcheck("fix", "--check-pins", "missing.txt", cwd=tmp_path)
    assert r.returncode == 2 and "cannot read missing.txt" in r.stderr
    (tmp_path / "pyproject.toml").write_text("[project\nname=")
    r = envcheck("fix", "--check-pins", "pyproject.toml", cwd=tmp_path)
    assert r.returncode == 2 and "not a TOML file" in r.stderr
    r = envcheck("fix", "--check-pins", cwd=tmp_path)
    assert r.returncode == 2 and "needs the files" in r.stderr
    r = envcheck("fix", "requirements.txt", cwd=tmp_path)
    assert r.returncode == 2 and "--check-pins" in r.stderr
    r = envcheck("fix", "--check-pins", "requirements.txt", "--want", "torch", cwd=tmp_path)
    assert r.returncode == 2


def test_the_pre_commit_hook_runs_what_it_declares(tmp_path):
    yaml = pytest.importorskip("yaml")
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as fh:
        (hook,) = yaml.safe_load(fh)
    assert hook["id"] == "envcheck-pins" and hook["language"] == "python" and hook["pass_filenames"] is True
    files = re.compile(hook["files"])
    for name in ("requirements.txt", "requirements-dev.txt", "sub/requirements/../requirements_gpu.in",
                 "environment.yml", "envs/environment.yaml", "pyproject.toml"):
        assert files.search(name), name
    for name in ("docs/requirements.md", "setup.py", "my-environment.yml.bak"):
        assert not files.search(name), name
    # as pre-commit runs it: the entry, its words split, then the staged files' names
    (tmp_path / "requirements.txt").write_text("torch==2.5.1\ntorchvision==0.21.0\n")
    entry = hook["entry"].split()
    assert entry[0] == "envcheck"
    r = envcheck(*entry[1:], "requirements.txt", cwd=tmp_path)
    assert r.returncode == 1
