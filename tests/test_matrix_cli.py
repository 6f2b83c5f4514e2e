"""`envcheck matrix ...` (show, query, why, status); update / reset: tests/test_bundle.py."""

import json

import pytest
from click.testing import CliRunner

from envcheck.cli import cli


def invoke(*args, env=None):
    res = CliRunner().invoke(cli, list(args), standalone_mode=False, catch_exceptions=False, env=env)
    code = res.return_value if isinstance(res.return_value, int) else res.exit_code
    return code, res.output


def test_query_torch_lists_variants_with_floors():
    code, out = invoke("matrix", "query", "torch==2.8.0", "--json")
    assert code == 0
    builds = json.loads(out)["builds"]
    cu128 = next(b for b in builds if b["variant"] == "cu128")
    # 12.x minor-version floor (CUDA compatibility guide) and CUDA 12.8 GA driver (release notes: 570.26)
    assert cu128["driver_min"] == "525.60.13" and cu128["driver_full"] == "570.26"
    assert "6.1" not in cu128["compute_capabilities"]


def test_query_nothing_matches_is_exit_1():
    assert invoke("matrix", "query", "torch==0.0.1")[0] == 1


def test_query_rejects_unknown_framework():
    from envcheck.errors import UsageError

    with pytest.raises(UsageError):
        invoke("matrix", "query", "leftpad==1.0")


def test_why_gtx1080ti_and_cu128():
    code, out = invoke("matrix", "why", "torch==2.8.0", "--driver", "570.86.10", "--gpu", "NVIDIA GeForce GTX 1080 Ti",
                       "--python", "3.12", "--json")
    res = {r["build"]["variant"]: r for r in json.loads(out)["results"]}
    assert res["cu128"]["runs"] is False and any(x.startswith("arch: NO") and "6.1" in x for x in res["cu128"]["reasons"])
    assert res["cu126"]["runs"] is True
    assert code == 0


def test_why_old_driver_blocks_cu12():
    code, out = invoke("matrix", "why", "torch==2.8.0", "--driver", "470.82.01", "--cc", "8.0")
    assert code == 1 and "DOES NOT RUN" in out and "RUNS" not in out.replace("DOES NOT RUN", "")


def test_why_from_snapshot(tmp_path):
    from helpers import gpu_machine, make_snapshot

    d = make_snapshot(str(tmp_path / "s"), gpu_machine("535.104.05", "12.2", [("NVIDIA A100-SXM4-40GB", 40960)],
                                                        cc=["8.0"]))
    code, out = invoke("matrix", "why", "tensorflow==2.15.1", "--snapshot", d, "--json")
    r = json.loads(out)["results"][0]
    assert r["runs"] is True and any(x.startswith("python 3.11: ok") for x in r["reasons"])


def test_show_each_table():
    for t in ("cuda", "drivers", "gpus", "torch", "tensorflow", "cudnn", "jax"):
        code, out = invoke("matrix", "show", t, "--json")
        doc = json.loads(out)
        assert code == 0 and doc["rows"] and all("source" in r for r in doc["rows"]), t


# ---- update / status / reset: tests/test_bundle.py (signed bundles, real HTTP(S) servers) ----------------
def test_status_of_the_bundled_matrix(tmp_path, monkeypatch):
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ENVCHECK_MATRIX_PUBKEY", raising=False)
    code, out = invoke("matrix", "status", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["kind"] == "bundled" and doc["signed_by"] is None
    assert doc["source"] == "bundled with envcheck" and doc["warnings"] == []
    assert doc["trusted_keys"] and all(k.startswith("ed25519:") for k in doc["trusted_keys"])
    assert doc["tables"]["cuda"]


def test_query_answers_for_every_table():
    # torchvision through the torch release it pairs with (torch 2.5.1 <-> torchvision 0.20.1)
    code, out = invoke("matrix", "query", "torchvision==0.20.1", "--json")
    builds = json.loads(out)["builds"]
    assert code == 0 and builds and {b["version"] for b in builds} == {"2.5.1"}
    assert {"cu124", "cpu"} <= {b["variant"] for b in builds}
    # jax and its CUDA plugins
    code, out = invoke("matrix", "query", "jax==0.4.30", "--json")
    jb = json.loads(out)["builds"]
    assert code == 0 and jb and all(b["framework"] == "jax" for b in jb)
    code, out = invoke("matrix", "query", "jax-cuda12-plugin==0.4.30", "--json")
    assert code == 0 and [b["variant"] for b in json.loads(out)["builds"]] == ["cuda12"]
    # TensorFlow: SASS and PTX targets both shown (2.15 ships sm_50..sm_75 SASS and compute_80 PTX)
    code, out = invoke("matrix", "query", "tensorflow==2.15.1", "--json")
    tf = json.loads(out)["builds"][0]
    assert "8.0" not in tf["compute_capabilities"] and tf["ptx"] == ["8.0"]
    code, out = invoke("matrix", "query", "tensorflow==2.15.1")
    assert "PTX" in out


def test_why_kepler_agrees_with_fix():
    """The issue's case: matrix why said RUNS where fix said no plan fits (cuDNN has no Kepler kernels)."""
    code, out = invoke("matrix", "why", "torch==2.7.1", "--gpu", "Tesla K80", "--driver", "470.82.01",
                       "--python", "3.10", "--json")
    res = json.loads(out)["results"]
    assert code == 1 and res and all(r["verdict"] == "does-not-run" for r in res)
    assert all(r["build"]["variant"] != "cpu" for r in res)  # a GPU machine: the CPU build is no answer


def test_why_unknown_names_the_missing_fact():
    code, out = invoke("matrix", "why", "torch==2.5.1", "--driver", "550.54.15", "--json")
    res = {r["build"]["variant"]: r for r in json.loads(out)["results"]}
    assert code == 1 and res["cu124"]["verdict"] == "unknown"
    assert any("--gpu" in m for m in res["cu124"]["missing"]) and any("--python" in m for m in res["cu124"]["missing"])
