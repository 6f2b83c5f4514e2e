import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

# every JSON document envcheck prints in a test (in-process or in a child process, which inherits
# this) is validated against its published schema (envcheck/schemas); a break is an internal error
os.environ.setdefault("ENVCHECK_VALIDATE_SCHEMAS", "1")


#: modules whose every test builds real virtual environments with pip (minutes on 2 cores)
VENV_MODULES = {"test_fix_apply.py", "test_onnxruntime_venv.py"}
#: fixtures that build or install envcheck's wheel into a fresh venv
VENV_FIXTURES = {"wheelhouse", "installed"}


def pytest_collection_modifyitems(config, items):
    """The venv builders carry the `venv` marker (deselected by default, run by .ci/run's second
    pytest call): every test of VENV_MODULES and every test that uses a VENV_FIXTURES fixture."""
    for item in items:
        if os.path.basename(str(item.fspath)) in VENV_MODULES or VENV_FIXTURES & set(
                getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.venv)


@pytest.fixture
def run_status(tmp_path):
    """Run `envcheck status --json --snapshot DIR` in-process; return (exit code, report, output)."""
    import json

    from click.testing import CliRunner

    from envcheck.cli import cli

    def run(snapshot_dir, *extra):
        res = CliRunner().invoke(cli, ["status", "--json", "--snapshot", str(snapshot_dir), *extra],
                                 standalone_mode=False, catch_exceptions=False)
        code = res.return_value if isinstance(res.return_value, int) else res.exit_code
        return code, json.loads(res.output), res.output

    return run


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Keep the parsed-matrix cache and matrix updates out of the user's real cache folder."""
    if "ENVCHECK_CACHE_DIR" not in os.environ or not os.environ["ENVCHECK_CACHE_DIR"].startswith(
            str(tmp_path_factory.getbasetemp())):
        monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory):
    """A folder holding envcheck's wheel built from this checkout (as `pip wheel` builds it), its
    dependencies and the build backend, so that the install tests run pip with PIP_NO_INDEX=1.
    Building needs the package index once (hatchling, the dependencies); without it: skip."""
    import glob
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    wh = tmp_path_factory.mktemp("wheelhouse")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    r = subprocess.run(pip + ["wheel", "--no-deps", "-q", "-w", str(wh), root], cwd=str(wh),
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0 and ("No matching distribution" in r.stderr or "Could not find a version" in r.stderr):
        pytest.skip("pip cannot reach a package index to build the wheel: " + r.stderr[-300:])
    assert r.returncode == 0, r.stderr
    (whl,) = glob.glob(str(wh / "*.whl"))
    r = subprocess.run(pip + ["download", "-q", "-d", str(wh), whl, "hatchling>=1.27"], cwd=str(wh),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return {"dir": str(wh), "wheel": whl,
            "env": {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wh), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}}
