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

__all__ = ["matrix_age_days", "matrix_updated", "newest_known", "newer_than_known", "not_in_matrix"]

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


def _release(v: str) -> Optional[Tuple[Tuple[int, ...], bool]]:
    """(release numbers without trailing zeros, whether it is a pre-release / development build) of a version."""
    from packaging.version import InvalidVersion, Version

    try:
        pv = Version(v.strip())
    except (InvalidVersion, ValueError):
        return None
    rel = tuple(pv.release)
    while len(rel) > 1 and rel[-1] == 0:
        rel = rel[:-1]
    return rel, pv.is_prerelease


def not_in_matrix(matrix: Matrix, framework: str, installed: Optional[str]) -> Optional[Tuple[str, str]]:
    """Why the matrix has no row for the installed release ``installed`` of ``framework`` (``torch``,
    ``tensorflow``, ``jax``, ``cupy``): ``(kind, phrase)`` with kind ``"pre-release"`` (a nightly, a source or
    vendor build such as ``2.3.0a0``), ``"newer"`` (newer than every release it knows: the matrix is out of date)
    or ``"unlisted"`` (an older or skipped release); ``None`` when the matrix has that release, has no table for
    the framework, or ``installed`` is not a version. A local label (``+cu130``, ``+git1234abc``) is not part of the
    release."""
    if not installed:
        return None
    base = installed.split("+", 1)[0]
    got = _release(base)
    vs = _versions(matrix, framework)
    if got is None or not vs:
        return None
    rel, pre = got
    known = {k[0]: v for k, v in ((_release(v), v) for v in vs) if k is not None and not k[1]}
    if not pre and rel in known:
        return None
    newest = newest_version(vs)
    if pre and rel in known:
        return "pre-release", (f"a pre-release or development build of {framework} {known[rel]}, which the matrix "
                               "does not list")
    if pre:
        return "pre-release", (f"a pre-release or development build, which the matrix does not list (its newest "
                               f"{framework} release is {newest})")
    if newest is not None and version_newer(base, newest):
        return "newer", (f"newer than every {framework} release the matrix knows (newest: {newest}): the matrix is "
                         "out of date")
    oldest = min(vs, key=lambda v: _release(v) or ((0,), False))
    return "unlisted", f"a {framework} release the matrix has no row for (it knows {oldest} to {newest})"
