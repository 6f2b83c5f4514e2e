"""envcheck as a new user meets it: the distribution name (envcheck-gpu, on no index yet; `envcheck` on
PyPI is another project) and an install from what exists (the checkout, a wheel built from it), the LICENSE and CHANGELOG, the README's two quick-start commands, and
the built wheel installed in a fresh venv outside the checkout."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST = "envcheck-gpu"


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as fh:
        return fh.read()


def pyproject():
    try:
        import tomllib  # type: ignore[import-not-found]
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        return tomllib.load(fh)


def _shell_blocks(text):
    return re.findall(r"```sh\n(.*?)```", text, re.S)


# every file a user reads to install envcheck (tests/test_install_lines.py reads every install line)
NAMED = ["install_scripts/install.sh", "examples/docker/Dockerfile",
         "examples/github-actions/envcheck.yml", "examples/slurm/envcheck-fleet.sbatch",
         "examples/kubernetes/daemonset-reports.yaml"]


def test_the_distribution_name_and_no_address_that_does_not_exist():
    proj = pyproject()["project"]
    assert proj["name"] == DIST
    # the command keeps its name; its entry pauses the garbage collector before the CLI's imports (issue 24)
    assert proj["scripts"] == {"envcheck": "envcheck.__main__:main"}
    # [project.urls] lists only addresses that exist: no registry page before the first release, no
    # placeholder repository
    for url in proj.get("urls", {}).values():
        assert "pypi.org/project/envcheck-gpu" not in url and not re.search(r"example\.|OWNER|/you/", url), url
    assert re.search(r"^DIST=envcheck-gpu\b", read("install_scripts", "install.sh"), re.M)
    for f in NAMED:
        text = read(f)
        # nothing tells a user to install a name from the registry: not the unrelated `envcheck`, nor
        # the unpublished envcheck-gpu without a pinned release
        bad = re.findall(r"(?<!do not .)(?:pip|pipx|uv tool|uv pip) install(?: -[-\w]+)* ['\"]?envcheck(?:-gpu)?(?![-\w.=])",
                         text)
        assert not bad, (f, bad)
    assert "not on PyPI yet" in read("README.md")
    assert "pipx install" in read("docs", "install.md")


def test_license_is_the_full_apache_2_text():
    text = read("LICENSE")
    assert pyproject()["project"]["license"] == "Apache-2.0"
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    for section in ("1. Definitions.", "2. Grant of Copyright License.", "3. Grant of Patent License.",
                    "9. Accepting Warranty or Additional Liability.", "END OF TERMS AND CONDITIONS"):
        assert section in text, section
    assert len(text) > 10000


def test_changelog_names_this_version():
    from envcheck import __version__

    text = read("CHANGELOG.md")
    assert f"## [{__version__}]" in text and "## [Unreleased]" in text


def test_readme_quick_start_uses_a_venv_and_ci_runs_its_test_command():
    readme = read("README.md")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = _shell_blocks(quick)
    assert len(blocks) >= 2
    run_cmd, test_cmd = blocks[0].strip(), blocks[1].strip()
    # a fresh Debian 12 / Ubuntu 24.04 refuses `pip install` into the system Python (PEP 668)
    for cmd in (run_cmd, test_cmd):
        assert cmd.startswith("python3 -m venv .venv && .venv/bin/"), cmd
        assert "python3 -m pip install" not in cmd
    assert run_cmd.endswith("envcheck status")
    assert "'.[test]'" in test_cmd and "pytest" in test_cmd
    # CI runs exactly the README's test command
    ci = read(".ci", "run")
    assert test_cmd in ci.splitlines(), "the README's test command is not a line of .ci/run"
    assert "-eq 5" in ci  # pytest's "no tests collected" fails CI


def test_docs_document_completion_for_each_shell():
    readme = read("docs", "commands", "index.md")
    for shell in ("bash", "zsh", "fish"):
        assert f"_ENVCHECK_COMPLETE={shell}_source envcheck" in readme, shell


def test_sdist_carries_what_the_readme_and_tests_need():
    include = pyproject()["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]
    for f in ("LICENSE", "CHANGELOG.md", "README.md", "examples", "install_scripts", "tests", "compat_matrix", "docs",
              "action.yml", ".pre-commit-hooks.yaml", ".github"):
        assert f in include, f


# -- the built wheel, installed the way the README says, outside the checkout ----------------------

def _clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ENVCHECK_", "PYTHON", "VIRTUAL_ENV", "CONDA_", "PIP_"))}
    env.update(NO_COLOR="1", **extra)
    return env


def test_built_wheel_installs_in_a_fresh_venv_and_runs_outside_the_checkout(wheelhouse, tmp_path):
    whl = wheelhouse["wheel"]
    assert os.path.basename(whl).startswith("envcheck_gpu-")
    with zipfile.ZipFile(whl) as z:
        names = z.namelist()
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    # the matrix data, the license and the metadata a registry page shows
    tomls = [n for n in names if n.startswith("envcheck/compat_matrix/") and n.endswith(".toml")]
    assert {os.path.basename(n) for n in tomls} >= {"errors.toml"} and len(tomls) >= 5
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "Name: envcheck-gpu" in meta and "License-Expression: Apache-2.0" in meta
    assert "Project-URL:" not in meta  # no address that does not exist
    assert not any(n.startswith(("tests/", "compat_matrix/")) for n in names)

    work = tmp_path / "elsewhere"
    work.mkdir()
    venv = tmp_path / "venv"
    env = _clean_env(**wheelhouse["env"])
    r = subprocess.run([sys.executable, "-m", "venv", str(venv)], cwd=work, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    # by its name from the wheelhouse (no index), as a release would be installed: envcheck-gpu==VERSION
    from envcheck import __version__

    r = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"{DIST}=={__version__}"], cwd=work, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    exe = str(venv / "bin" / "envcheck")
    r = subprocess.run([exe, "--version"], cwd=work, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip().startswith("envcheck, version "), r.stdout + r.stderr
    r = subprocess.run([exe, "status"], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    assert r.stdout.startswith("envcheck ") and ("OK" in r.stdout) and "internal error" not in r.stderr
    r = subprocess.run([exe, "status", "--json"], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    import json

    rep = json.loads(r.stdout)
    assert rep["schema"] == "envcheck/report/1"
    # the installed package (not this checkout) answered, with the matrix shipped in the wheel
    r = subprocess.run([str(venv / "bin" / "python"), "-c",
                        "import envcheck, os; print(envcheck.__file__)\n"
                        "from envcheck.matrix import load_matrix; print(load_matrix().origin)"],
                       cwd=work, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    mod_file, origin = r.stdout.splitlines()[:2]
    assert mod_file.startswith(str(venv)) and not mod_file.startswith(ROOT)
    assert origin.startswith("bundled"), origin
    r = subprocess.run([exe, "matrix", "query", "torch==2.5.1", "--json"], cwd=work, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and "cu124" in r.stdout, r.stdout + r.stderr
    # shell completion from the installed command
    r = subprocess.run([exe], cwd=work, env=dict(env, _ENVCHECK_COMPLETE="bash_source"), capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "_envcheck_completion" in r.stdout and "complete " in r.stdout


@pytest.mark.parametrize("shell,marker", [("bash", "complete -o nosort -F _envcheck_completion envcheck"),
                                          ("zsh", "#compdef envcheck"),
                                          ("fish", "complete --no-files --command envcheck")])
def test_completion_scripts_are_produced(shell, marker):
    env = dict(os.environ, PYTHONPATH=ROOT, _ENVCHECK_COMPLETE=f"{shell}_source")
    r = subprocess.run([sys.executable, "-m", "envcheck"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and marker in r.stdout, r.stdout[:500] + r.stderr


def test_bash_completion_completes_lazy_commands_and_options():
    env = dict(os.environ, PYTHONPATH=ROOT, _ENVCHECK_COMPLETE="bash_complete", COMP_WORDS="envcheck sta",
               COMP_CWORD="1")
    r = subprocess.run([sys.executable, "-m", "envcheck"], env=env, capture_output=True, text=True, timeout=60)
    assert r.stdout.split() == ["plain,status"]
    env.update(COMP_WORDS="envcheck status --req", COMP_CWORD="2")
    r = subprocess.run([sys.executable, "-m", "envcheck"], env=env, capture_output=True, text=True, timeout=60)
    assert r.stdout.split() == ["plain,--require-gpu"]
