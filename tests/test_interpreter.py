"""``--interpreter`` / ENVCHECK_INTERPRETER: an envcheck installed in its own venv reads the training
interpreter's packages and Python version (real second venv, real subprocesses)."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_training_venv(path):
    """A real venv (no pip) holding a torch install in the layout status reads: dist-info + torch/version.py."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    py = path / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    sp = os.path.join(purelib)
    os.makedirs(os.path.join(sp, "torch"), exist_ok=True)
    with open(os.path.join(sp, "torch", "version.py"), "w") as fh:
        fh.write('__version__ = "2.5.1+cu124"\ncuda = "12.4"\ngit_version = "a8d6afb511a69687bbb2b7e88a3cf67917e1697e"\n')
    dist = os.path.join(sp, "torch-2.5.1+cu124.dist-info")
    os.makedirs(dist, exist_ok=True)
    with open(os.path.join(dist, "METADATA"), "w") as fh:
        fh.write("Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+cu124\n"
                 "Requires-Dist: nvidia-cudnn-cu12==9.1.0.70; platform_system == \"Linux\"\n\n")
    return str(py), sp


@pytest.fixture(scope="module")
def training_venv(tmp_path_factory):
    return make_training_venv(tmp_path_factory.mktemp("trainenv") / "venv")


def envcheck(args, **env_extra):
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
    env.pop("ENVCHECK_INTERPRETER", None)
    env.update(env_extra)
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def own_torch():
    r = envcheck(["status", "--json"])
    return json.loads(r.stdout)["frameworks"].get("torch")


def test_status_reads_the_other_interpreters_torch(training_venv):
    py, _ = training_venv
    r = envcheck(["status", "--json", "--interpreter", py])
    assert r.returncode in (0, 1), r.stderr
    rep = json.loads(r.stdout)
    torch = rep["frameworks"]["torch"]
    assert torch["version"] == "2.5.1+cu124" and torch["cuda"] == "12.4"
    # the pin comes from the other venv's METADATA
    assert any("nvidia-cudnn-cu12==9.1.0.70" in q for q in torch["requires"])
    # without the option, envcheck reads its own interpreter (whatever torch that has, not this one)
    mine = own_torch()
    assert mine is None or mine["version"] != "2.5.1+cu124"


def test_environment_variable_and_bare_name(training_venv, tmp_path):
    py, _ = training_venv
    r = envcheck(["status", "--json"], ENVCHECK_INTERPRETER=py)
    assert json.loads(r.stdout)["frameworks"]["torch"]["version"] == "2.5.1+cu124"
    # a bare name is looked up on PATH (the training env's bin first, as an activated venv has it)
    r = envcheck(["status", "--json", "--interpreter", "python"],
                 PATH=os.path.dirname(py) + os.pathsep + os.environ.get("PATH", ""))
    assert json.loads(r.stdout)["frameworks"]["torch"]["version"] == "2.5.1+cu124"


def test_python_version_comes_from_the_interpreter():
    mine = ".".join(map(str, sys.version_info[:3]))
    for other in ("/tmp/py39venv/bin/python", "/usr/bin/python3", "/usr/local/bin/python3"):
        if not os.path.exists(other):
            continue
        want = subprocess.run([other, "-c", "import platform; print(platform.python_version())"],
                              capture_output=True, text=True, timeout=60).stdout.strip()
        if want and want != mine:
            break
    else:
        pytest.skip("no Python of another version on this machine")
    rep = json.loads(envcheck(["status", "--json", "--interpreter", other]).stdout)
    assert rep["python"]["version"] == want


def test_snapshot_records_the_interpreters_packages(training_venv, tmp_path):
    py, sp = training_venv
    r = envcheck(["snapshot", str(tmp_path / "snap"), "--interpreter", py])
    assert r.returncode == 0, r.stderr
    packages = json.loads((tmp_path / "snap" / "packages.json").read_text())
    assert packages == {"torch": "2.5.1+cu124"}
    torch = json.loads((tmp_path / "snap" / "torch.json").read_text())
    assert torch["version"] == "2.5.1+cu124" and torch["source"].startswith(sp)
    pyjson = json.loads((tmp_path / "snap" / "python.json").read_text())
    assert pyjson["executable"] == py and pyjson["prefix"] == os.path.dirname(os.path.dirname(py))


def test_missing_interpreter_is_a_usage_error(tmp_path):
    r = envcheck(["status", "--interpreter", str(tmp_path / "no-python")])
    assert r.returncode == 2 and "does not exist" in r.stderr and "no-python" in r.stderr
    r = envcheck(["status"], ENVCHECK_INTERPRETER="envcheck-no-such-python-xyz")
    assert r.returncode == 2


def test_broken_and_hanging_interpreters_are_reported_not_fatal(tmp_path):
    broken = tmp_path / "python-broken"
    broken.write_text("#!/bin/sh\necho 'Fatal Python error: init_fs_encoding' >&2\nexit 1\n")
    broken.chmod(0o755)
    r = envcheck(["status", "--json", "--interpreter", str(broken)])
    assert r.returncode in (0, 1), r.stderr
    rep = json.loads(r.stdout)
    assert rep["frameworks"] == {}
    assert any(p["capture"] == "python.json" and p["status"] == "failed" for p in rep["problems"])
    hang = tmp_path / "python-hang"
    hang.write_text("#!/bin/sh\nsleep 60\n")
    hang.chmod(0o755)
    r = envcheck(["status", "--json", "--interpreter", str(hang)], ENVCHECK_PROBE_TIMEOUT="1")
    rep = json.loads(r.stdout)
    assert any(p["capture"] == "python.json" and p["status"] == "timed-out" for p in rep["problems"])


def test_open_source_keeps_its_old_signature():
    from envcheck.cli._common import open_source

    src = open_source(None, deep=False)
    assert src.live and src.interpreter is None or os.environ.get("ENVCHECK_INTERPRETER")
    # the running interpreter itself means "no other interpreter"
    assert open_source(None, interpreter=sys.executable).interpreter is None
