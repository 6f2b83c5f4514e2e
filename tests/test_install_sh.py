"""install_scripts/install.sh for real: into a temporary HOME, from this checkout (one pip install per
test session, about 10 s), then the installed envcheck reads a *training* venv's frameworks."""

import json
import os
import shutil
import subprocess

import pytest

from helpers import gpu_machine, make_snapshot, torch_install
from test_interpreter import make_training_venv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTALL = os.path.join(ROOT, "install_scripts", "install.sh")
SHELL = shutil.which("dash") or "/bin/sh"


def base_env(home):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ENVCHECK_", "VIRTUAL_ENV", "CONDA_", "PYTHON")) or k == "ENVCHECK_CACHE_DIR"}
    env.update({"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "NO_COLOR": "1"})
    env.pop("XDG_DATA_HOME", None)
    env.pop("PREFIX", None)
    return env


def install(env, *args):
    return subprocess.run([SHELL, INSTALL, *args], env=env, capture_output=True, text=True, timeout=600)


def tree(path):
    out = set()
    for d, dirs, files in os.walk(path):
        for f in files:
            p = os.path.join(d, f)
            out.add((os.path.relpath(p, path), os.path.getsize(p)))
    return out


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    train_py, _ = make_training_venv(tmp_path_factory.mktemp("train") / "venv")
    train_dir = os.path.dirname(os.path.dirname(train_py))
    before = tree(train_dir)
    env = dict(base_env(home), ENVCHECK_SOURCE=ROOT, VIRTUAL_ENV=train_dir)
    r = install(env)
    if r.returncode != 0 and "No matching distribution found" in r.stderr:
        pytest.skip("pip cannot reach a package index for the build backend: " + r.stderr[-300:])
    assert r.returncode == 0, r.stderr
    return {"home": home, "bin": home / ".local" / "bin", "venv": home / ".local/share/envcheck/venv",
            "train_py": train_py, "train_dir": train_dir, "before": before, "env": env, "first": r}


def test_installs_into_its_own_venv_and_path(installed):
    b = installed["bin"]
    assert (b / "envcheck").is_file() and os.access(b / "envcheck", os.X_OK)
    assert (installed["venv"] / "bin" / "envcheck").exists()
    assert (installed["venv"] / ".envcheck-venv").exists()
    # the training environment was not touched
    assert tree(installed["train_dir"]) == installed["before"]
    r = subprocess.run([str(b / "envcheck"), "--version"], capture_output=True, text=True, timeout=60,
                       env=installed["env"])
    assert r.returncode == 0 and r.stdout.startswith("envcheck, version ")
    assert "is not on PATH" in installed["first"].stderr


def test_installed_envcheck_reads_the_training_interpreter(installed):
    b = installed["bin"]
    # activated training venv: $VIRTUAL_ENV/bin/python
    env = dict(installed["env"], VIRTUAL_ENV=installed["train_dir"])
    rep = json.loads(subprocess.run([str(b / "envcheck"), "status", "--json"], capture_output=True, text=True,
                                    timeout=120, env=env).stdout)
    assert rep["frameworks"]["torch"]["version"] == "2.5.1+cu124"
    # no venv variables, but the training venv's python3 first on PATH
    env = {k: v for k, v in installed["env"].items() if k != "VIRTUAL_ENV"}
    env["PATH"] = os.path.dirname(installed["train_py"]) + ":" + env["PATH"]
    rep = json.loads(subprocess.run([str(b / "envcheck"), "status", "--json"], capture_output=True, text=True,
                                    timeout=120, env=env).stdout)
    assert rep["frameworks"]["torch"]["version"] == "2.5.1+cu124"
    # an explicit ENVCHECK_INTERPRETER wins; the venv's own python means "envcheck's own packages"
    env["ENVCHECK_INTERPRETER"] = str(installed["venv"] / "bin" / "python")
    rep = json.loads(subprocess.run([str(b / "envcheck"), "status", "--json"], capture_output=True, text=True,
                                    timeout=120, env=env).stdout)
    assert "torch" not in rep["frameworks"]


def test_installed_entrypoint_blocks_with_installed_envcheck(installed, tmp_path):
    bad = make_snapshot(str(tmp_path / "bad"), dict(gpu_machine("470.57.02", "11.4", [("NVIDIA A100-SXM4-40GB",
                                                                                        40960)], cc=["8.0"]),
                                                    **torch_install("2.5.1+cu124", "12.4")))
    env = dict(installed["env"], PATH=f"{installed['bin']}:" + installed["env"]["PATH"], ENVCHECK_MODE="block",
               ENVCHECK_SNAPSHOT=bad)
    r = subprocess.run([str(installed["bin"] / "envcheck-entrypoint"), "echo", "job"], capture_output=True,
                       text=True, timeout=120, env=env)
    assert r.returncode == 3 and "driver-too-old" in r.stderr and r.stdout == ""
    env["ENVCHECK_MODE"] = "warn"
    r = subprocess.run([str(installed["bin"] / "envcheck-entrypoint"), "echo", "job"], capture_output=True,
                       text=True, timeout=120, env=env)
    assert r.returncode == 0 and r.stdout == "job\n"


def test_idempotent(installed):
    wrapper = (installed["bin"] / "envcheck").read_text()
    r = install(installed["env"])
    assert r.returncode == 0, r.stderr
    assert (installed["bin"] / "envcheck").read_text() == wrapper
    assert "creating" not in r.stderr  # the venv was reused


def test_refuses_to_clobber_a_foreign_file(tmp_path):
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "envcheck").write_text("#!/bin/sh\necho someone else's tool\n")
    env = dict(base_env(tmp_path / "home"), PREFIX=str(prefix), ENVCHECK_SOURCE=ROOT)
    r = install(env)
    assert r.returncode == 1 and "not written by this installer" in r.stderr
    assert (prefix / "bin" / "envcheck").read_text() == "#!/bin/sh\necho someone else's tool\n"
    assert not (tmp_path / "home" / ".local/share/envcheck").exists()
    # a venv folder that is not ours is refused too
    venv = tmp_path / "home" / "myvenv"
    venv.mkdir(parents=True)
    r = install(dict(env, PREFIX=str(tmp_path / "p2"), ENVCHECK_VENV=str(venv)))
    assert r.returncode == 1 and "not an envcheck venv" in r.stderr


def test_bad_settings(tmp_path):
    env = base_env(tmp_path)
    r = install(dict(env, ENVCHECK_INSTALLER="conda"))
    assert r.returncode == 1 and "venv, pipx or uv" in r.stderr
    r = install(dict(env, ENVCHECK_SOURCE=str(tmp_path / "nope")))
    assert r.returncode == 1 and "does not exist" in r.stderr
    r = install(env, "--bogus")
    assert r.returncode == 1


def test_uninstall_removes_only_its_own_files(installed, tmp_path):
    # a copy of the installation's layout in another HOME: uninstall must not touch foreign files
    home = tmp_path / "h"
    (home / ".local/bin").mkdir(parents=True)
    (home / ".local/bin/envcheck").write_text("#!/bin/sh\nforeign\n")
    r = install(base_env(home), "--uninstall")
    assert r.returncode == 0 and (home / ".local/bin/envcheck").exists() and "left" in r.stderr


def test_syntax_and_lint():
    r = subprocess.run([SHELL, "-n", INSTALL], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    if shutil.which("shellcheck"):
        r = subprocess.run(["shellcheck", "-s", "sh", INSTALL], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stdout


def test_uninstall_the_real_installation(installed):
    """Last in this file (pytest keeps definition order): removes the session's installation."""
    r = install(installed["env"], "--uninstall")
    assert r.returncode == 0, r.stderr
    assert not (installed["bin"] / "envcheck").exists() and not (installed["bin"] / "envcheck-entrypoint").exists()
    assert not installed["venv"].exists()
    assert tree(installed["train_dir"]) == installed["before"]
