"""``matrix-stale``: an installed framework is newer than every release the matrix knows. The matrix is behind
(releases came out since it was made), not the machine wrong: say so, once per framework, as a note."""

from __future__ import annotations

from typing import List

from envcheck.checks import Context
from envcheck.checks._util import label
from envcheck.matrix import Matrix
from envcheck.model import Environment, Finding, Severity

__all__ = ["check_matrix_stale"]


def check_matrix_stale(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    from envcheck.engine.freshness import matrix_updated, newer_than_known

    out: List[Finding] = []
    for fw in env.frameworks.values():
        if fw.name not in ("torch", "tensorflow", "jax", "cupy"):
            continue
        got = newer_than_known(matrix, fw.name, fw.version)
        if got is None:
            continue
        installed, newest = got
        updated = matrix_updated(matrix)
        out.append(Finding(
            "matrix-stale", Severity.INFO,
            f"{label(fw)} is newer than every {fw.name} release envcheck's compatibility matrix knows (newest: "
            f"{newest}; matrix updated {updated or 'on an unknown date'}): the matrix is out of date, not this "
            f"machine. Checks that need {fw.name} {installed}'s own row (Python range, GPU targets, cuDNN) were made "
            "from what the installed build itself says, or not made.",
            _fix_text(),
            f"{fw.name} {fw.version} installed; matrix newest {fw.name} {newest}", fw.name))
    return out


def _fix_text() -> str:
    """`envcheck matrix update` is named only when it has a default source (envcheck.matrix.download); without
    one it needs --from a published bundle, so the fix says that, and upgrading envcheck."""
    from envcheck.matrix.download import DEFAULT_SOURCE

    if DEFAULT_SOURCE:
        return "Run `envcheck matrix update` to get a newer signed matrix (or upgrade envcheck); see docs/matrix.md."
    return ("Upgrade envcheck, or install a newer signed matrix with `envcheck matrix update --from URL|FILE` "
            "(a bundle from the maintainers); see docs/matrix.md.")
