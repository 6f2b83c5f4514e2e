"""The published JSON Schemas (envcheck/schemas): valid schemas, shipped, and enforced on every JSON
document the suite makes envcheck print (conftest sets ENVCHECK_VALIDATE_SCHEMAS)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jsonschema
import pytest

from envcheck import schemas

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _cli(*args: str, env_extra=None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=ROOT, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.parametrize("sid", sorted(schemas.SCHEMAS))
def test_every_schema_is_a_valid_draft_2020_12_schema(sid):
    doc = schemas.load(sid)
    jsonschema.Draft202012Validator.check_schema(doc)
    assert doc["$id"] == sid
    # the id is pinned by the document's own "schema" key
    assert doc["properties"]["schema"] == {"const": sid}


def test_the_suite_validates_every_document():
    assert os.environ.get(schemas.VALIDATE_ENV), "conftest must turn validation on for the whole suite"


def test_a_document_missing_a_contract_key_is_refused():
    with pytest.raises(jsonschema.ValidationError):
        schemas.validate({"schema": "envcheck/plan/1", "satisfiable": True, "packages": []})
    with pytest.raises(jsonschema.ValidationError):
        schemas.validate({"schema": "envcheck/explain/1", "matches": [{"id": "x"}]})
    # a document without a published schema is not checked
    schemas.validate({"schema": "envcheck/other/9"})


def _real_machines(tmp_path):
    """Snapshots built from real nvidia-smi captures (tests/data/nvidia-smi), a torch build beside each."""
    from helpers import make_snapshot, torch_install

    smi = os.path.join(HERE, "data", "nvidia-smi")
    names = sorted(n for n in os.listdir(smi) if n.endswith(".txt"))[:8]
    out = []
    for i, n in enumerate(names):
        with open(os.path.join(smi, n), encoding="utf-8", errors="replace") as f:
            files = {"nvidia-smi.txt": f.read()}
        files.update(torch_install("2.5.1+cu124", "12.4") if i % 2 else {})
        out.append((n, make_snapshot(str(tmp_path / f"m{i}"), files)))
    return out


def test_status_and_fix_documents_validate_on_real_captures(tmp_path):
    for name, d in _real_machines(tmp_path):
        r = _cli("status", "--json", "--snapshot", d)
        assert r.returncode in (0, 1), (name, r.stderr[-800:])
        doc = json.loads(r.stdout)
        schemas.validate(doc)
        # documented keys are always present, even where their value is unknown
        for key in ("driver", "gpus", "toolkit", "cudnn", "python", "frameworks", "findings", "created"):
            assert key in doc, (name, key)
        r = _cli("fix", "--json", "--want", "torch", "--snapshot", d)
        assert r.returncode in (0, 1), (name, r.stderr[-800:])
        schemas.validate(json.loads(r.stdout))


def test_snapshot_meta_validates(tmp_path):
    out = tmp_path / "snap"
    r = _cli("snapshot", str(out))
    assert r.returncode == 0, r.stderr[-800:]
    with open(out / "meta.json", encoding="utf-8") as f:
        schemas.validate(json.load(f))


def test_validation_hook_turns_a_broken_document_into_an_error(tmp_path):
    """The hook is live in child processes: a report renderer handed a broken document fails."""
    code = ("import sys; from envcheck.render import json_text\n"
            "try:\n    json_text({'schema': 'envcheck/report/1', 'ok': 'yes'})\n"
            "except Exception as e:\n    print(type(e).__name__); sys.exit(3)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=ROOT, ENVCHECK_VALIDATE_SCHEMAS="1"))
    assert r.returncode == 3 and "ValidationError" in r.stdout
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=ROOT, ENVCHECK_VALIDATE_SCHEMAS=""))
    assert r.returncode == 0


def test_schemas_ship_in_the_wheel():
    # hatch ships every file of the package folder that git tracks: the schema files are in it
    for fname in schemas.SCHEMAS.values():
        assert os.path.isfile(os.path.join(ROOT, "envcheck", "schemas", fname))
    r = subprocess.run(["git", "ls-files", "envcheck/schemas"], capture_output=True, text=True, cwd=ROOT)
    if r.returncode == 0 and r.stdout.strip():
        tracked = set(r.stdout.split())
        for fname in schemas.SCHEMAS.values():
            assert f"envcheck/schemas/{fname}" in tracked
