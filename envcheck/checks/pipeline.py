"""The status pipeline: one function builds the status result (environment, findings, document) for every caller
(`envcheck status`, `envcheck run`'s check, `fleet summarize`'s snapshots, explain's pasted reports and machine
facts): source -> :func:`envcheck.environment.collect` -> :func:`envcheck.checks.run_checks` ->
:func:`envcheck.checks.report.build_document`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, List, Optional

from envcheck.checks import Context, run_checks
from envcheck.checks.report import build_document
from envcheck.matrix import Matrix
from envcheck.model import Environment, Finding

if TYPE_CHECKING:
    from envcheck.checks.document_types import StatusDocument

__all__ = ["StatusResult", "build_status"]


@dataclass
class StatusResult:
    """What ``envcheck status`` answers: the machine, its findings (errors first) and the contract §2 document."""

    env: Environment
    findings: List[Finding]
    matrix: Matrix
    document: StatusDocument

    @property
    def ok(self) -> bool:
        return self.document["ok"]


def build_status(source: Any = None, matrix: Optional[Matrix] = None, *, env: Optional[Environment] = None,
                 require_gpu: bool = False, hostname: Optional[str] = None,
                 created: Optional[str] = None) -> StatusResult:
    """The status result of a capture ``source`` (a live probe, a snapshot, a paste), or of an Environment
    already built from one (``env``); ``matrix`` defaults to the active one."""
    if matrix is None:
        from envcheck.matrix import load_matrix

        matrix = load_matrix()
    if env is None:
        if source is None:
            raise ValueError("build_status needs a source or an Environment")
        from envcheck.environment import collect

        env = collect(source, matrix)
    findings = run_checks(env, matrix, Context(require_gpu=require_gpu))
    doc = build_document(env, findings, matrix_origin=matrix.origin, hostname=hostname, created=created)
    return StatusResult(env=env, findings=findings, matrix=matrix, document=doc)
