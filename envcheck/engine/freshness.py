"""How current the matrix is: its age, the newest release it knows per framework, and whether an installed
framework is newer than that (then the matrix is stale, not the machine wrong: ``status`` says so as an info
finding ``matrix-stale`` and judges that framework with what it can still check).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from envcheck.engine.builds import newest_version, version_newer
from envcheck.matrix import Matrix

if TYPE_CHECKING:
    import datetime

__all__ = ["matrix_age_days", "matrix_updated", "newest_known", "newer_than_known"]

_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
#: the tables whose releases ``newest_known`` reports, and the framework name each stands for
FRAMEWORK_TABLES = ("torch", "tensorflow", "jax", "cupy", "cudnn")


def matrix_updated(matrix: Matrix) -> Optional[str]:
    """The oldest ``[meta].updated`` of the framework and CUDA tables: the matrix is as old as its oldest part."""
    dates = []
    for name in ("cuda", "torch", "tensorflow", "jax", "cudnn", "cupy"):
        d = matrix.meta(name).get("updated")
        if isinstance(d, str) and _DATE.match(d):
            dates.append(d)
    return min(dates) if dates else None


def matrix_age_days(matrix: Matrix, today: Optional[datetime.date] = None) -> Optional[int]:
    """Days since the matrix's oldest table was updated (``None`` when no table has a date)."""
    import datetime  # here: a status run never asks, and datetime costs its import

    d = matrix_updated(matrix)
    if d is None:
        return None
    m = _DATE.match(d)
    assert m is not None
    try:
        then = datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None
    now = today or datetime.datetime.now(datetime.timezone.utc).date()
    return max(0, (now - then).days)


def _versions(matrix: Matrix, framework: str) -> List[str]:
    if framework == "torch":
        vs = [r.get("version") for r in matrix.rows("torch", "release")]
    elif framework == "tensorflow":
        vs = [p for r in matrix.rows("tensorflow", "release") for p in (r.get("patches") or [r.get("version")])]
    elif framework == "jax":
        vs = [r.get("jax") for r in matrix.rows("jax", "release")]
    elif framework == "cupy":
        vs = [r.get("version") for r in matrix.rows("cupy", "package")]
    elif framework == "cudnn":
        vs = [p for r in matrix.rows("cudnn", "release") for p in (r.get("patches") or [r.get("version")])]
    else:
        vs = []
    return [v for v in vs if isinstance(v, str)]


def newest_known(matrix: Matrix) -> Dict[str, Optional[str]]:
    """framework -> the newest release the matrix has a row for (``None``: the table is empty or missing)."""
    out: Dict[str, Optional[str]] = {}
    for fw in FRAMEWORK_TABLES:
        vs = _versions(matrix, fw)
        out[fw] = newest_version(vs)
    return out


def newer_than_known(matrix: Matrix, framework: str, installed: Optional[str]) -> Optional[Tuple[str, str]]:
    """(installed release, newest known) when ``installed`` is a release newer than every one the matrix knows
    for ``framework``; ``None`` otherwise (known, older, or not a version)."""
    if not installed:
        return None
    base = installed.split("+", 1)[0].strip()
    if not re.match(r"^\d+(\.\d+)*([a-z]+\d*)?(\.post\d+)?$", base):
        return None
    vs = _versions(matrix, framework)
    if not vs:
        return None
    newest = newest_version(vs)
    assert newest is not None
    if version_newer(base, newest) and base not in vs:
        return base, newest
    return None
