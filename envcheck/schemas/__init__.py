"""The published JSON Schemas (draft 2020-12) of envcheck's JSON documents.

One file per document, named after the ``schema`` key it describes (``envcheck/report/1`` ->
``report.schema.json``). They are shipped in the wheel, so other tools can validate what envcheck
prints: ``python -c "import envcheck.schemas as s; print(s.path('report'))"``.

Each schema requires the keys the contract (docs/contract.md) promises and allows more (adding keys
is always allowed). :func:`validate` checks a document against the schema its ``schema`` key names;
it needs ``jsonschema`` (a test extra), which nothing on a normal command's path imports.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional

_HERE = os.path.dirname(os.path.abspath(__file__))

#: the ``schema`` key of each document -> the file that describes it
SCHEMAS: Dict[str, str] = {
    "envcheck/report/1": "report.schema.json",
    "envcheck/explain/1": "explain.schema.json",
    "envcheck/plan/1": "plan.schema.json",
    "envcheck/fleet/1": "fleet.schema.json",
    "envcheck/smoke/1": "smoke.schema.json",
    "envcheck/snapshot/1": "snapshot.schema.json",
}

#: set to a non-empty value (the test suite does) to validate every JSON document envcheck prints
VALIDATE_ENV = "ENVCHECK_VALIDATE_SCHEMAS"


def path(name: str) -> str:
    """The schema file for ``name``: a document id (``envcheck/report/1``) or a short name (``report``)."""
    fname = SCHEMAS.get(name) or f"{name}.schema.json"
    full = os.path.join(_HERE, fname)
    if not os.path.isfile(full):
        raise KeyError(f"no published schema for {name!r}")
    return full


def load(name: str) -> Dict[str, Any]:
    with open(path(name), encoding="utf-8") as f:
        doc: Dict[str, Any] = json.load(f)
    return doc


def schema_for(doc: Any) -> Optional[str]:
    """The schema id a document names, when envcheck publishes a schema for it."""
    if isinstance(doc, dict) and isinstance(doc.get("schema"), str) and doc["schema"] in SCHEMAS:
        return str(doc["schema"])
    return None


def validate(doc: Any) -> None:
    """Raise ``jsonschema.ValidationError`` when ``doc`` breaks the schema its ``schema`` key names
    (a document without a published schema is not checked)."""
    sid = schema_for(doc)
    if sid is None:
        return
    import jsonschema

    jsonschema.validate(doc, load(sid), cls=jsonschema.Draft202012Validator)


def validate_if_asked(doc: Any) -> None:
    """:func:`validate` when ``ENVCHECK_VALIDATE_SCHEMAS`` is set (the test suite sets it, so every
    JSON document a test makes envcheck print is checked against its published schema)."""
    if os.environ.get(VALIDATE_ENV):
        validate(doc)
