"""Matrix bundles: which one is active, ``envcheck matrix update`` (download, verify, install) and ``reset``.

A bundle is a ``.tar.gz`` holding ``bundle.toml``, its signature ``bundle.toml.sig`` and the table
files (``cuda.toml``, ``gpus.toml``, ..., ``errors.toml``). ``bundle.toml`` is the signed manifest::

    [bundle]
    schema = 1
    version = "2026.12.01"      # YYYY.MM.DD; higher than the active matrix and the rollback floor,
                                # at most a few days ahead of today
    expires = "2027.04.01"      # required; after this day the bundle is refused, and an installed one
                                # is no longer used (replays and freezes of stale bundles)
    key = "ed25519:0123456789abcdef"
    [files]
    "cuda.toml" = "SHA-256 hex"  # every other file of the bundle, and nothing more

The checks live in :mod:`envcheck.matrix.verify` (imported only by ``update``; ``envcheck status``
reads just :func:`active_directory`). An update is installed only when, in this order: the download obeyed its limits (see
:mod:`envcheck.matrix.download`), the archive unpacks within its caps, the signature verifies with a
trusted key (:mod:`envcheck.matrix.signing`) and every file's digest matches, the version is sane,
every table validates, the bundle keeps to what a correct matrix can be (``verify.sanity_problems``:
driver floors near the bundled ones, no gutted table, index URLs on the allow-list, plain package
names and versions, bounded row counts, safe regexes). The cache is switched atomically (a pointer
file replaced with ``os.replace``), so a failed or interrupted update never leaves a half-written
matrix in use. ``reset`` removes the pointer and the installed bundles: the bundled matrix is active.

Trust has an end (TUF's rules, docs/security.md): every bundle carries ``expires`` and its version;
the highest version ever installed is kept in ``rollback-floor.json`` beside the installed bundles
(``reset`` keeps it), so an older bundle, or a different bundle of the same version, is refused
even after a reset; an installed bundle is used only while it has not expired and the key that
signed it is still trusted (not revoked or expired in this release's ``keys.toml``; a test key only
while ``ENVCHECK_MATRIX_PUBKEY`` still names it); otherwise the bundled matrix is used and
``envcheck matrix status`` (and ``status``, on stderr) says why.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from envcheck.errors import MatrixError
from envcheck.matrix import FILES as _TABLES
from envcheck.matrix import bundled_dir
from envcheck.matrix import tomllib  # imported on first use
from envcheck.model import version_tuple

FILES: Tuple[str, ...] = _TABLES + ("errors",)  # bundles carry the error knowledge base of `envcheck explain`

__all__ = ["active_directory", "bundle_version", "cache_root", "install_bundle", "update", "reset", "status_info",
           "REQUIRED", "FUTURE_DAYS", "INSTALLED", "FLOOR", "active_state", "read_floor"]

REQUIRED = ("cuda", "gpus", "torch", "tensorflow", "cudnn")
#: a bundle's version may be at most this many days ahead of today (clock skew, time zones)
FUTURE_DAYS = 3
INSTALLED = "installed.json"
#: the rollback floor: the highest version ever installed (and its digest), kept across `matrix reset`
FLOOR = "rollback-floor.json"
DEFAULT_URL = os.environ.get("ENVCHECK_MATRIX_URL", "")


def _user_cache_dir() -> str:
    """platformdirs' ``user_cache_dir("envcheck", appauthor=False)``. On Linux (not Android) with an absolute
    ``$XDG_CACHE_HOME``, or none and an absolute ``$HOME``, every platformdirs release agrees on it (the XDG
    base directory rule), so it is written out here: importing platformdirs costs ``envcheck status`` ~4 ms.
    Anything else asks platformdirs."""
    if sys.platform == "linux" and "ANDROID_DATA" not in os.environ:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        home = os.environ.get("HOME", "")
        if xdg.startswith("/"):
            return os.path.join(xdg, "envcheck")
        if not xdg and home.startswith("/"):
            return os.path.join(os.path.expanduser("~/.cache"), "envcheck")
    from platformdirs import user_cache_dir

    return user_cache_dir("envcheck", appauthor=False)


def cache_root(create: bool = False) -> str:
    """The folder of installed bundles (``ENVCHECK_CACHE_DIR``/matrix, else the user cache dir's).

    The cache folder and this one are used only when they are the user's own: owned by the current
    user, not writable by others, not a symbolic link (:func:`envcheck.safe_io.private_dir`), so no
    other user can plant a matrix or a link there. Raises :class:`envcheck.safe_io.UnsafeDir` (an
    ``OSError`` and a usage error, exit 2) otherwise; ``create`` makes missing folders (0700)."""
    from envcheck.safe_io import private_dir

    override = os.environ.get("ENVCHECK_CACHE_DIR")
    if override:
        base = override
    else:
        base = _user_cache_dir()
    root = os.path.join(base, "matrix")
    for d in (base, root):
        if create or os.path.lexists(d):
            private_dir(d, create=create)
    return os.path.abspath(root)


def vkey(v: str) -> Tuple[int, ...]:
    return version_tuple(str(v)) or ()


def latest_allowed(now: Optional[float] = None) -> Tuple[int, ...]:
    """(Y, M, D) of today + FUTURE_DAYS (UTC): a bundle version past it is not believed."""
    t = time.gmtime((time.time() if now is None else now) + FUTURE_DAYS * 86400)
    return (t.tm_year, t.tm_mon, t.tm_mday)


def bundle_version(directory: str) -> Optional[str]:
    from envcheck.matrix import load_cached  # the parsed-JSON cache of the tables (keyed by mtime and size)

    try:
        b = load_cached(os.path.join(directory, "bundle.toml")).get("bundle", {})
    except (OSError, MatrixError):
        return None
    v = b.get("version") if isinstance(b, dict) else None
    return v if isinstance(v, str) and vkey(v) else None


def active_directory() -> Tuple[str, str]:
    """(folder of the active tables, "bundled <version>" or "updated <version>"); see :func:`active_state`."""
    directory, origin, _ = active_state()
    return directory, origin


def _read_manifest(directory: str) -> Dict[str, Any]:
    try:
        with open(os.path.join(directory, "bundle.toml"), "rb") as fh:
            b = tomllib.load(fh).get("bundle", {})
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    return b if isinstance(b, dict) else {}


def _day(v: Any) -> Optional[Tuple[int, int, int]]:
    t = vkey(v) if isinstance(v, str) else ()
    return (t[0], t[1], t[2]) if len(t) == 3 else None


def active_state(now: Optional[float] = None) -> Tuple[str, str, Optional[str]]:
    """(folder, origin, why the installed bundle is not used: ``None`` when it is, or none is installed).

    An installed bundle is used only when it is newer than the bundled matrix, not dated in the
    future (a "9999.12.31" would freeze every later update), complete, installed by a verifying
    envcheck (it has ``installed.json``), not expired, and signed by a key this release still
    trusts (:func:`envcheck.matrix.signing.key_problem`: not revoked, not past its validity; a test
    key only while ``ENVCHECK_MATRIX_PUBKEY`` names it)."""
    import json

    bundled = bundled_dir()
    bver = bundle_version(bundled) or "0"
    why: Optional[str] = None
    try:
        root = cache_root()
        with open(os.path.join(root, "current"), encoding="utf-8") as fh:
            name = fh.read(200).strip()
        cand = os.path.join(root, name)
        cver = bundle_version(cand) if name and "/" not in name and name not in (".", "..") else None
        if cver and vkey(bver) < vkey(cver)[:3] <= latest_allowed(now) and all(
                os.path.exists(os.path.join(cand, f + ".toml")) for f in REQUIRED) and \
                os.path.exists(os.path.join(cand, INSTALLED)):
            from envcheck.matrix.signing import key_problem

            expires = _day(_read_manifest(cand).get("expires"))
            t = time.gmtime(time.time() if now is None else now)
            with open(os.path.join(cand, INSTALLED), encoding="utf-8") as fh:
                info = json.loads(fh.read(65536))
            info = info if isinstance(info, dict) else {}
            if expires is None:
                why = f"the installed matrix {cver} has no expiry date"
            elif expires < (t.tm_year, t.tm_mon, t.tm_mday):
                why = f"the installed matrix {cver} expired on {_manifest_expires(cand)} (run `envcheck matrix update`)"
            else:
                problem = key_problem(info.get("key"), info.get("key_origin"), _day(cver), now)
                if problem is None:
                    return cand, f"updated {cver}", None
                why = f"the installed matrix {cver} is not used: {problem}"
    except (OSError, ImportError, MatrixError, ValueError):
        pass
    return bundled, f"bundled {bver}", why


def _manifest_expires(directory: str) -> str:
    return str(_read_manifest(directory).get("expires"))


def read_floor(root: Optional[str] = None) -> Dict[str, Any]:
    """The rollback floor: {"version", "sha256", "installed"} of the highest version ever installed, or {}."""
    import json

    try:
        path = os.path.join(root or cache_root(), FLOOR)
        with open(path, encoding="utf-8") as fh:
            got = json.loads(fh.read(65536))
    except (OSError, ValueError, MatrixError):
        return {}
    return got if isinstance(got, dict) and isinstance(got.get("version"), str) else {}


def install_bundle(data: bytes, *, source: str = "", allow_same: bool = False,
                   kb_problems: Optional[Callable[[Any], List[str]]] = None) -> Dict[str, Any]:
    """Verify and install a bundle (see :mod:`envcheck.matrix.verify`); ``kb_problems`` validates its
    errors.toml (:func:`envcheck.explain.kb.bundle_kb_problems`, passed in by the caller)."""
    from envcheck.matrix.verify import install_bundle as _install

    return _install(data, source=source, allow_same=allow_same, kb_problems=kb_problems)


def update(source: str, timeout: float = 30.0,
           kb_problems: Optional[Callable[[Any], List[str]]] = None) -> Dict[str, Any]:
    """Download (or read) a bundle, verify it and install it; the facts of what was installed. A bundle with an
    errors.toml is refused unless ``kb_problems`` (the knowledge base's validator) is given."""
    from envcheck.matrix.verify import fetch, install_bundle as _install

    return _install(fetch(source, timeout=timeout), source=source, kb_problems=kb_problems)


def reset() -> List[str]:
    """Back to the bundled matrix: remove the pointer, then the installed bundles. Returns what was removed.
    The rollback floor (:data:`FLOOR`) stays: a reset never lets an older bundle back in."""
    root = cache_root()
    removed = []
    ptr = os.path.join(root, "current")
    if os.path.lexists(ptr):
        os.remove(ptr)
        removed.append(ptr)
    try:
        names = os.listdir(root)
    except OSError:
        names = []
    for name in sorted(names):
        path = os.path.join(root, name)
        if (name.startswith("matrix-") or name.startswith(".incoming-") or name.startswith(".current-")):
            if os.path.isdir(path) and not os.path.islink(path):
                import shutil

                shutil.rmtree(path, ignore_errors=True)
            else:
                os.remove(path)
            removed.append(path)
    return removed


def status_info() -> Dict[str, object]:
    import json

    from envcheck.matrix.signing import ENV_KEYS, shipped_key_ids

    directory, origin, why = active_state()
    dates = {}
    for f in FILES:
        try:
            with open(os.path.join(directory, f + ".toml"), "rb") as fh:
                meta = tomllib.load(fh).get("meta", {})
            dates[f] = meta.get("updated")
        except (OSError, tomllib.TOMLDecodeError):
            continue
    kind, version = origin.split(" ", 1)
    installed: Dict[str, Any] = {}
    if kind == "updated":
        try:
            with open(os.path.join(directory, INSTALLED), encoding="utf-8") as fh:
                got = json.load(fh)
            installed = got if isinstance(got, dict) else {}
        except (OSError, ValueError):
            installed = {}
    warnings = []
    if why:
        warnings.append(f"{why}: using the bundled matrix")
    test_keys = os.environ.get(ENV_KEYS)
    if test_keys:
        warnings.append(f"{ENV_KEYS}={test_keys} is set: bundles signed by the key(s) in that file are trusted "
                        "too (meant for tests and private mirrors only)")
    if installed.get("key_origin") and installed.get("key_origin") != "shipped":
        warnings.append(f"the active matrix was signed by a key that does not ship with envcheck "
                        f"({installed.get('key')}, {installed.get('key_origin')})")
    return {"schema": "envcheck/matrix-status/1", "active": origin, "kind": kind, "version": version,
            "directory": directory, "tables": dates, "cache": cache_root(),
            "source": installed.get("source") if kind == "updated" else "bundled with envcheck",
            "signed_by": installed.get("key") if kind == "updated" else None,
            "key_origin": installed.get("key_origin") if kind == "updated" else None,
            "installed": installed.get("installed"), "expires": installed.get("expires"),
            "trusted_keys": shipped_key_ids(), "test_keys": test_keys or None, "not_used": why,
            "rollback_floor": read_floor().get("version"), "warnings": warnings}
