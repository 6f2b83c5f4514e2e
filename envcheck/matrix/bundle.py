"""Matrix bundles: which one is active, and ``envcheck matrix update`` (download, validate, install).

A bundle is a ``.tar.gz`` holding ``bundle.toml`` (``[bundle] schema = 1, version = "YYYY.MM.DD"``)
and the table files (``cuda.toml``, ``gpus.toml``, ...). An update is installed into the user cache
folder only when every table validates and its version is higher than the active one; the cache is
switched atomically (a pointer file replaced with ``os.replace``), so a failed or interrupted update
never leaves a half-written matrix in use.
"""

from __future__ import annotations

import io

import os
import shutil
import sys
import tempfile
from typing import Dict, Optional, Tuple

from envcheck.errors import MatrixError, UsageError
from envcheck.matrix import FILES, bundled_dir, validate_tables
from envcheck.model import version_tuple
FILES = FILES + ("errors",)  # bundles carry the error knowledge base of `envcheck explain`

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["active_directory", "bundle_version", "cache_root", "install_bundle", "update", "REQUIRED"]

REQUIRED = ("cuda", "gpus", "torch", "tensorflow", "cudnn")
MAX_BUNDLE = 32 * 1024 * 1024
DEFAULT_URL = os.environ.get("ENVCHECK_MATRIX_URL", "")


def cache_root() -> str:
    override = os.environ.get("ENVCHECK_CACHE_DIR")
    if override:
        return os.path.join(override, "matrix")
    from platformdirs import user_cache_dir

    return os.path.join(user_cache_dir("envcheck", appauthor=False), "matrix")


def _vkey(v: str) -> Tuple[int, ...]:
    return version_tuple(str(v)) or ()


def bundle_version(directory: str) -> Optional[str]:
    try:
        with open(os.path.join(directory, "bundle.toml"), "rb") as fh:
            b = tomllib.load(fh).get("bundle", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None
    v = b.get("version") if isinstance(b, dict) else None
    return v if isinstance(v, str) and _vkey(v) else None


def active_directory() -> Tuple[str, str]:
    """(folder of the active tables, "bundled <version>" or "updated <version>")."""
    bundled = bundled_dir()
    bver = bundle_version(bundled) or "0"
    try:
        root = cache_root()
        with open(os.path.join(root, "current"), encoding="utf-8") as fh:
            name = fh.read().strip()
        cand = os.path.join(root, name)
        cver = bundle_version(cand)
        if name and "/" not in name and cver and _vkey(cver) > _vkey(bver) and all(
                os.path.exists(os.path.join(cand, f + ".toml")) for f in REQUIRED):
            return cand, f"updated {cver}"
    except (OSError, ImportError):
        pass
    return bundled, f"bundled {bver}"


def _parse_bundle(data: bytes) -> Tuple[str, Dict[str, bytes]]:
    import tarfile

    files: Dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tf:
            for m in tf:
                if not m.isfile():
                    continue
                base = os.path.basename(m.name)
                if base.endswith(".toml") and base[:-5] in FILES + ("bundle",) and m.size < MAX_BUNDLE:
                    fh = tf.extractfile(m)
                    if fh is not None:
                        files[base] = fh.read()
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        raise MatrixError(f"not a readable matrix bundle (.tar.gz): {exc}") from exc
    if "bundle.toml" not in files:
        raise MatrixError("the bundle has no bundle.toml")
    problems = []
    parsed = {}
    for base, raw in files.items():
        try:
            parsed[base] = tomllib.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            problems.append(f"{base}: {exc}")
    b = parsed.get("bundle.toml", {}).get("bundle", {})
    version = b.get("version") if isinstance(b, dict) else None
    if not isinstance(version, str) or not _vkey(version) or b.get("schema") != 1:
        problems.append("bundle.toml: needs [bundle] schema = 1 and version = \"YYYY.MM.DD\"")
    for name in REQUIRED:
        if name + ".toml" not in files:
            problems.append(f"{name}.toml is missing")
    for base, data in parsed.items():
        if base != "bundle.toml":
            problems += validate_tables(base[:-5], data)
    if problems:
        raise MatrixError("the bundle is not valid: " + "; ".join(problems[:20]))
    return version, files


def install_bundle(data: bytes, *, allow_same: bool = False) -> str:
    """Validate and install a bundle; return its version. The cache is untouched on any error."""
    version, files = _parse_bundle(data)
    _, active = active_directory()
    active_ver = active.split(" ", 1)[1]
    if _vkey(version) < _vkey(active_ver) or (_vkey(version) == _vkey(active_ver) and not allow_same):
        raise MatrixError(f"the bundle's version {version} is not newer than the active matrix ({active}); "
                          "refusing to downgrade")
    root = cache_root()
    os.makedirs(root, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".incoming-", dir=root)
    try:
        for base, raw in files.items():
            with open(os.path.join(tmp, base), "wb") as fh:
                fh.write(raw)
        final = os.path.join(root, f"matrix-{version}")
        if os.path.exists(final):
            shutil.rmtree(final)
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fd, ptr = tempfile.mkstemp(prefix=".current-", dir=root)
    with os.fdopen(fd, "w") as fh:
        fh.write(f"matrix-{version}\n")
    os.replace(ptr, os.path.join(root, "current"))
    return version


def fetch(source: str, timeout: float = 30.0) -> bytes:
    """The bundle's bytes from an http(s) URL or a local file."""
    if source.startswith(("http://", "https://")):
        import requests

        try:
            with requests.get(source, timeout=timeout, stream=True) as r:
                if r.status_code != 200:
                    raise UsageError(f"downloading {source} failed: HTTP {r.status_code}")
                buf = bytearray()
                for chunk in r.iter_content(65536):
                    buf.extend(chunk)
                    if len(buf) > MAX_BUNDLE:
                        raise UsageError(f"{source}: the bundle is larger than {MAX_BUNDLE} bytes")
                expected = r.headers.get("Content-Length")
                if expected and expected.isdigit() and int(expected) != len(buf):
                    raise MatrixError(f"{source}: truncated download ({len(buf)} of {expected} bytes)")
                return bytes(buf)
        except requests.exceptions.ChunkedEncodingError as exc:
            raise UsageError(f"downloading {source}: truncated download ({exc})") from exc
        except requests.Timeout as exc:
            raise UsageError(f"downloading {source} timed out after {timeout:g} s") from exc
        except requests.RequestException as exc:
            raise UsageError(f"downloading {source} failed: {exc}") from exc
    try:
        with open(source, "rb") as fh:
            return fh.read(MAX_BUNDLE + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {source!r}: {exc.strerror or exc}") from exc


def update(source: str, timeout: float = 30.0) -> str:
    return install_bundle(fetch(source, timeout=timeout))


def status_info() -> Dict[str, object]:
    directory, origin = active_directory()
    dates = {}
    for f in FILES:
        try:
            with open(os.path.join(directory, f + ".toml"), "rb") as fh:
                meta = tomllib.load(fh).get("meta", {})
            dates[f] = meta.get("updated")
        except (OSError, tomllib.TOMLDecodeError):
            continue
    return {"schema": "envcheck/matrix-status/1", "active": origin, "directory": directory, "tables": dates,
            "cache": cache_root()}


