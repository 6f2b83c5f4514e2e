"""envcheck's Python API: the documents of ``status --json``, ``explain --json`` and ``fix --json``,
for notebooks and other tools.

    import envcheck
    report = envcheck.status()                    # envcheck/report/1
    result = envcheck.explain(open("train.log").read())   # envcheck/explain/1
    plan = envcheck.plan(["torch"])              # envcheck/plan/1

Each function returns the same dict the command prints with ``--json`` (docs/contract.md, validated by
the schemas of :mod:`envcheck.schemas`), built by the same code. Stability: the keys the contract
documents are kept within a schema version (``envcheck/report/1`` ...); keys may be added; the
functions' keyword arguments are kept within a minor release. Errors: a snapshot that cannot be read
or a bad argument raises :class:`envcheck.errors.UsageError` (the commands' exit status 2).

Nothing is printed and nothing is imported until a function is called (``import envcheck`` stays cheap).
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional, Union

__all__ = ["status", "explain", "plan"]


def status(snapshot: Optional[str] = None, *, deep: bool = False, interpreter: Optional[str] = None,
           require_gpu: bool = False, hostname: Optional[str] = None) -> Dict[str, Any]:
    """The ``envcheck/report/1`` document of this machine, or of the snapshot at ``snapshot`` (a folder
    or a ``.tar.gz``), as ``envcheck status --json`` prints it. ``deep`` imports the frameworks in a
    child process; ``interpreter`` reads another Python's packages (a training venv's ``python``)."""
    from envcheck.checks.pipeline import build_status
    from envcheck.probe.open import open_source

    result = build_status(open_source(snapshot, deep=deep, interpreter=interpreter), require_gpu=require_gpu,
                          hostname=hostname)
    return dict(result.document)


def explain(text: Union[str, bytes], *, snapshot: Optional[str] = None, detect: bool = False,
            name: str = "text") -> Dict[str, Any]:
    """The ``envcheck/explain/1`` document of ``text`` (see
    :func:`envcheck.explain.document.explain_text_document`)."""
    from envcheck.explain.document import explain_text_document

    return explain_text_document(text, snapshot=snapshot, detect=detect, name=name)


def plan(want: Union[str, Iterable[str]] = (), **options: Any) -> Dict[str, Any]:
    """The ``envcheck/plan/1`` document for ``want`` (see :func:`envcheck.plan.document.plan_for`:
    ``snapshot``, ``cpu``, ``require_gpu``, ``python``, ``driver``, ``gpu``, ``compute_capability``,
    ``platform``, ``interpreter``)."""
    from envcheck.plan.document import plan_for

    return plan_for(want, **options)
