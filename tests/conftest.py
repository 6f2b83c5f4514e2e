import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


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
