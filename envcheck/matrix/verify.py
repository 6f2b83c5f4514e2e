"""Checking and installing a matrix bundle (``envcheck matrix update``); see :mod:`envcheck.matrix.bundle`.

Kept apart from :mod:`envcheck.matrix.bundle` so that ``envcheck status``, which only asks which
matrix is active, never loads (or compiles) any of this.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from envcheck.errors import MatrixError, UsageError
from envcheck.matrix import bundled_dir, validate_tables
from envcheck.matrix.fixes import ALLOWED_INDEXES, allowed_index, fix_problems
from envcheck.safe_io import create_file, replace_file, umask
from envcheck.matrix.bundle import (FILES, FLOOR, FUTURE_DAYS, INSTALLED, REQUIRED, latest_allowed, vkey,
                                    active_directory, cache_root, read_floor)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["check_bundle", "install_bundle", "fetch", "sanity_problems", "verify_bundle", "ALLOWED_INDEXES",
           "MAX_BUNDLE", "MAX_UNPACKED", "MAX_ROWS"]

#: caps on what is downloaded / unpacked / parsed (the bundled tables are about 0.6 MB unpacked)
MAX_BUNDLE = 8 * 1024 * 1024
MAX_UNPACKED = 32 * 1024 * 1024
MAX_FILE = 8 * 1024 * 1024
MAX_MEMBERS = 64
#: the longest a bundle may be valid: expires at most this many days after its version date
MAX_VALIDITY_DAYS = 400
#: rows of one table: an absolute cap, and at most GROWTH times the bundled table (+ GROWTH_ROWS)
MAX_ROWS = 20000
GROWTH = 4
GROWTH_ROWS = 1000
#: a table keeps at least this share of the bundled table's rows
MIN_KEEP = 0.5
#: how far a driver version of a known row may move (in driver branches: 525 -> 555 is 30)
DRIVER_DRIFT = 30
#: package indexes a bundle may name (index_url, find_links, a fix's index): envcheck.matrix.fixes.ALLOWED_INDEXES

# ---------------------------------------------------------------------------------------------
# unpacking and verifying
# ---------------------------------------------------------------------------------------------
def _gunzip(data: bytes) -> bytes:
    import zlib

    if data[:2] != b"\x1f\x8b":
        raise MatrixError("not a readable matrix bundle (.tar.gz): no gzip header")
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(data, MAX_UNPACKED + 1)
    except zlib.error as exc:
        raise MatrixError(f"not a readable matrix bundle (.tar.gz): {exc}") from exc
    if len(out) > MAX_UNPACKED or d.unconsumed_tail:
        raise MatrixError(f"the bundle unpacks to more than {MAX_UNPACKED} bytes; refused")
    if not d.eof:
        raise MatrixError("not a readable matrix bundle (.tar.gz): truncated")
    return out


def _unpack(data: bytes) -> Dict[str, bytes]:
    """The bundle's files by base name, read into memory (nothing is extracted to disk)."""
    import tarfile

    allowed = {f + ".toml" for f in FILES} | {"bundle.toml", "bundle.toml.sig"}
    raw = _gunzip(data)
    files: Dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tf:
            for i, m in enumerate(tf):
                if i >= MAX_MEMBERS:
                    raise MatrixError(f"the bundle has more than {MAX_MEMBERS} entries; refused")
                if m.isdir():
                    continue
                base = m.name.rsplit("/", 1)[-1]
                if not m.isfile() or base not in allowed:
                    raise MatrixError(f"the bundle holds an unexpected entry {m.name[:80]!r}; refused")
                if base in files:
                    raise MatrixError(f"the bundle holds {base} twice; refused")
                if m.size > MAX_FILE:
                    raise MatrixError(f"{base} is larger than {MAX_FILE} bytes; refused")
                fh = tf.extractfile(m)
                files[base] = fh.read() if fh is not None else b""
    except (tarfile.TarError, EOFError, ValueError) as exc:
        raise MatrixError(f"not a readable matrix bundle (.tar.gz): {exc}") from exc
    return files


def _date(v: Any) -> Optional[Tuple[int, int, int]]:
    import datetime

    m = re.match(r"^(\d{4})\.(\d{1,2})\.(\d{1,2})$", v) if isinstance(v, str) else None
    if not m:
        return None
    try:
        d = datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None
    return (d.year, d.month, d.day)


def _days_between(a: Tuple[int, int, int], b: Tuple[int, int, int]) -> int:
    import datetime

    return (datetime.date(*b) - datetime.date(*a)).days


def verify_bundle(files: Dict[str, bytes], now: Optional[float] = None) -> Dict[str, Any]:
    """Check the signature, the digests and the dates; return the manifest's facts
    (version, expires, key, key_origin). Raises MatrixError with the reason."""
    import hashlib

    from envcheck.matrix.signing import SignatureError, verify

    manifest = files.get("bundle.toml")
    if manifest is None:
        raise MatrixError("the bundle has no bundle.toml")
    if "bundle.toml.sig" not in files:
        raise MatrixError("the bundle is not signed (no bundle.toml.sig): refused; matrix bundles must be signed "
                          "by the envcheck maintainers' key")
    try:
        doc = tomllib.loads(manifest.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise MatrixError(f"bundle.toml: {exc}") from exc
    except RecursionError:  # '[' * 100000 (read before the signature is checked)
        raise MatrixError("bundle.toml: nested too deeply") from None
    b = doc.get("bundle")
    listed = doc.get("files")
    if not isinstance(b, dict) or not isinstance(listed, dict):
        raise MatrixError("bundle.toml: needs [bundle] and [files]")
    claimed = b.get("key") if isinstance(b.get("key"), str) else None
    try:
        kid, origin = verify(manifest, files["bundle.toml.sig"], claimed, signed_on=_date(b.get("version")), now=now)
    except SignatureError as exc:
        raise MatrixError(f"signature check failed: {exc}") from exc
    for name in files:
        if name in ("bundle.toml", "bundle.toml.sig"):
            continue
        want = listed.get(name)
        if not isinstance(want, str):
            raise MatrixError(f"{name} is in the bundle but not in its signed manifest; refused")
        if hashlib.sha256(files[name]).hexdigest() != want.lower():
            raise MatrixError(f"{name} does not match the digest in the signed manifest: the bundle was altered "
                              "after signing; refused")
    for name in listed:
        if name not in files:
            raise MatrixError(f"{name} is listed in the signed manifest but missing from the bundle")
    version = b.get("version")
    vdate = _date(version)
    if b.get("schema") != 1 or vdate is None:
        raise MatrixError('bundle.toml: needs [bundle] schema = 1 and version = "YYYY.MM.DD" (a real date)')
    latest = latest_allowed(now)
    if vdate > latest:
        raise MatrixError(f"the bundle's version {version} is later than today + {FUTURE_DAYS} days: refused "
                          "(a future version would block every later update)")
    expires = b.get("expires")
    edate = _date(expires)
    if edate is None:
        raise MatrixError('bundle.toml: needs expires = "YYYY.MM.DD" (a real date): a bundle without an end '
                          "would be valid for ever; refused")
    today = time.gmtime(time.time() if now is None else now)
    if edate < (today.tm_year, today.tm_mon, today.tm_mday):
        raise MatrixError(f"the bundle expired on {expires}: refused (a stale bundle replayed; get the current one)")
    if _days_between(vdate, edate) > MAX_VALIDITY_DAYS:
        raise MatrixError(f"the bundle's expires {expires} is more than {MAX_VALIDITY_DAYS} days after its version "
                          f"{version}: refused (a bundle is trusted for a bounded time)")
    return {"version": version, "expires": expires, "key": kid, "key_origin": origin}


# ---------------------------------------------------------------------------------------------
# what a signed bundle may still not do
# ---------------------------------------------------------------------------------------------
#: rows whose driver versions are compared with the bundled row of the same key
_KEYED = {("cuda", "minor_compat"): "major", ("cuda", "toolkit"): "version", ("cuda", "driver_branch"): "branch",
          ("cudnn", "release"): "version", ("jax", "release"): "jax"}
#: fields that end up in pip / uv / conda command lines: plain names, versions, variant tags
_TOKEN_FIELDS = {"variant", "package", "releases", "torchvision", "torchaudio", "jaxlib", "jax", "cuda_plugins",
                 "pins", "and_cuda", "cudnn_pin", "pypi_default_variant", "patches", "version", "cudnn",
                 "distribution", "ctk_extra", "versions", "feed"}
_PACKAGE_FIELDS = {"package", "cuda_plugins", "pins", "and_cuda"}
_TOKEN = re.compile(r"^[A-Za-z0-9=<>!~][A-Za-z0-9._+=<>!~*,\[\]-]{0,99}$")
_PACKAGE = re.compile(r"^(nvidia-[a-z0-9-]{1,60}|jax-cuda\d{2}-(plugin|pjrt)|tensorflow(-[a-z]{1,20})?|"
                      r"tensorrt(-[a-z0-9]{1,20})?|torch|torchvision|torchaudio|jax|jaxlib|cupy-cuda\d{2,3}x?|onnxruntime(-gpu)?)(\[[a-z0-9,-]{1,40}\])?$")
_PIP_URL = re.compile(r"(--(?:extra-)?index-url|--find-links|--(?:default-)?index|--channel|(?<![\w-])-[ifc]"
                      r"|\b(?:PIP|UV)_[A-Z_]*(?:INDEX|FIND_LINKS)[A-Z_]*)(?:[ \t]+|=|(?<=-[ifc])(?=\w+://))"
                      r"[\"']?([^\s\"'`;]+)")
#: conda's channel options also take a channel's plain name (conda-forge, nvidia)
_CHANNEL_OPTS = ("-c", "--channel")
#: an install command (pip, uv, conda ...) and the URLs it names: a wheel, archive or git URL installs
#: from that host as surely as an index does
_INSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|micromamba)\s+(?:pip\s+)?install\b((?:(?!\.\s)[^\n`;|&(])*)")
_ANY_URL = re.compile(r"(?<![\w.-])(?:[a-z][a-z0-9+.-]*)://[^\s\"'`;)]+", re.I)
_PIPE_SHELL = re.compile(r"\b(?:curl|wget)\b[^\n`]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b")
_NOT_COMMANDS = {"source", "derived", "regex", "literal", "pattern", "name", "id"}


def _allowed_index(url: str) -> bool:
    return allowed_index(url)


def _walk_strings(value: Any, key: str):  # type: ignore[no-untyped-def]
    if isinstance(value, str):
        yield key, value, False
    elif isinstance(value, list):
        for v in value:
            yield from _walk_strings(v, key)
    elif isinstance(value, dict):
        for k, v in value.items():
            if key in _PACKAGE_FIELDS:
                yield key, str(k), True
            yield from _walk_strings(v, key if key in _TOKEN_FIELDS else str(k))


def _driver_lead(v: Any) -> Optional[int]:
    m = re.match(r"^(\d{2,4})(\.|$)", v) if isinstance(v, str) else None
    return int(m.group(1)) if m else None


def _load_bundled() -> Dict[str, Any]:
    out = {}
    for f in FILES:
        try:
            with open(os.path.join(bundled_dir(), f + ".toml"), "rb") as fh:
                out[f] = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError):
            out[f] = {}
    return out


def sanity_problems(tables: Dict[str, Any], reference: Optional[Dict[str, Any]] = None) -> List[str]:
    """What a bundle (even a correctly signed one) may not do, compared with the bundled matrix."""
    from envcheck.matrix.schema import SCHEMA

    ref = reference if reference is not None else _load_bundled()
    problems: List[str] = []
    known_packages = set()
    for name in _PACKAGE_FIELDS:
        for data in ref.values():
            for rows in (data or {}).values():
                for r in rows if isinstance(rows, list) else []:
                    for key, s, is_name in _walk_strings(r.get(name) if isinstance(r, dict) else None, name):
                        if is_name or key in ("package", "cuda_plugins", "distribution"):
                            known_packages.add(s)
    for name, data in tables.items():
        old = ref.get(name) or {}
        for table, _, _ in SCHEMA.get(name, []):
            rows = data.get(table, []) if isinstance(data, dict) else []
            rows = rows if isinstance(rows, list) else []
            old_rows = old.get(table, []) if isinstance(old.get(table), list) else []
            n, n_old = len(rows), len(old_rows)
            if n > MAX_ROWS or (n_old and n > GROWTH * n_old + GROWTH_ROWS):
                problems.append(f"{name}.{table} has {n} rows (the bundled one {n_old}): refused, at most "
                                f"{min(MAX_ROWS, GROWTH * n_old + GROWTH_ROWS) if n_old else MAX_ROWS}")
                continue
            if n_old >= 4 and n < n_old * MIN_KEEP:
                problems.append(f"{name}.{table} keeps {n} of the bundled {n_old} rows: refused (an update adds and "
                                "corrects rows, it does not gut a table)")
            keyfield = _KEYED.get((name, table))
            old_by_key = {str(r.get(keyfield)): r for r in old_rows if isinstance(r, dict)} if keyfield else {}
            for i, r in enumerate(rows):
                if not isinstance(r, dict):
                    continue
                where = f"{name}.{table}[{i}]"
                for k, v in r.items():
                    if "driver" in k and isinstance(v, str):
                        lead = _driver_lead(v)
                        if lead is None or not 300 <= lead <= 999:
                            problems.append(f"{where}: {k} = {v!r} is not a plausible NVIDIA driver version")
                            continue
                        prev = old_by_key.get(str(r.get(keyfield))) if keyfield else None
                        pv = prev.get(k) if prev else None
                        plead = _driver_lead(pv)
                        if plead is not None and abs(lead - plead) > DRIVER_DRIFT:
                            problems.append(f"{where} ({keyfield} = {r.get(keyfield)!r}): moves {k} from {pv} to "
                                            f"{v}: refused (an update may correct a driver floor by a few branches, "
                                            "not rewrite it)")
                for key, s, is_name in _walk_strings(r, ""):
                    problems += _string_problems(where, key, s, is_name, known_packages)
    return list(dict.fromkeys(problems))


def _string_problems(where: str, key: str, s: str, is_name: bool, known: Set[str]) -> List[str]:
    out = []
    if key in ("index_url", "find_links") or key.endswith("_url"):
        if not _allowed_index(s):
            out.append(f"{where}: {key} {s[:100]!r} is not an allowed package index "
                       f"({', '.join(ALLOWED_INDEXES)}): refused")
    if key in _TOKEN_FIELDS and not _TOKEN.match(s):
        out.append(f"{where}: {key} {s[:60]!r} is not a plain name or version: refused")
    if is_name or (key in ("package", "cuda_plugins", "distribution")):
        if s not in known and not _PACKAGE.match(s):
            out.append(f"{where}: package {s[:60]!r} is not one envcheck knows: refused")
    if key not in _NOT_COMMANDS:
        for opt, url in _PIP_URL.findall(s):
            if opt in _CHANNEL_OPTS and "://" not in url:
                continue
            if not _allowed_index(url.rstrip(".,);")):
                out.append(f"{where}: {opt} {url[:100]!r} is not an allowed package index: refused")
        for m in _INSTALL.finditer(s):
            for url in _ANY_URL.findall(m.group(1)):
                if not _allowed_index(url.rstrip(".,);")):
                    out.append(f"{where}: an install command names {url[:100]!r}, not an allowed package index: refused")
        if "--trusted-host" in s:
            out.append(f"{where}: --trusted-host is never suggested: refused")
        if _PIPE_SHELL.search(s):
            out.append(f"{where}: a download piped into a shell is never suggested: refused")
    return out


def _parse_tables(files: Dict[str, bytes]) -> Dict[str, Any]:
    problems = []
    parsed: Dict[str, Any] = {}
    for base, raw in files.items():
        if base in ("bundle.toml", "bundle.toml.sig"):
            continue
        try:
            parsed[base[:-5]] = tomllib.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            problems.append(f"{base}: {exc}")
        except RecursionError:
            problems.append(f"{base}: nested too deeply")
    for name in REQUIRED:
        if name not in parsed and not any(p.startswith(name + ".toml") for p in problems):
            problems.append(f"{name}.toml is missing")
    for name, data in parsed.items():
        problems += validate_tables(name, data) if name != "errors" else []
    if problems:
        raise MatrixError("the bundle is not valid: " + "; ".join(problems[:20]))
    return parsed


#: a validator of the errors.toml table (the knowledge base's own schema and regex safety): its problems
KbProblems = Callable[[Any], List[str]]


def _check_kb(data: Any, kb_problems: Optional[KbProblems]) -> None:
    """The bundle's errors.toml, checked by the knowledge base's validator, which the caller passes in (it lives
    in :mod:`envcheck.explain.kb`, a layer above the matrix: injected, so that the matrix never imports it)."""
    if kb_problems is None:
        raise MatrixError("the bundle has an errors.toml and no knowledge-base validator was given; refused")
    problems = kb_problems(data)
    if problems:
        raise MatrixError("the bundle's errors.toml is refused: " + "; ".join(problems[:10]))


def check_bundle(data: bytes, now: Optional[float] = None,
                 kb_problems: Optional[KbProblems] = None) -> Tuple[Dict[str, Any], Dict[str, bytes]]:
    """Every check of a bundle but the one against the active version: (manifest facts, files)."""
    if len(data) > MAX_BUNDLE:
        raise MatrixError(f"the bundle is larger than {MAX_BUNDLE} bytes; refused")
    files = _unpack(data)
    info = verify_bundle(files, now)
    tables = _parse_tables(files)
    problems = sanity_problems(tables)
    problems += fix_problems(tables)  # fixes are data: free shell text is refused, never printed as a fix
    if problems:
        raise MatrixError("the bundle is refused: " + "; ".join(problems[:12])
                          + (f" (and {len(problems) - 12} more)" if len(problems) > 12 else ""))
    if "errors" in tables:
        _check_kb(tables["errors"], kb_problems)
    return info, files


def install_bundle(data: bytes, *, source: str = "", allow_same: bool = False,
                   kb_problems: Optional[KbProblems] = None) -> Dict[str, Any]:
    """Verify and install a bundle; return what was installed. The cache is untouched on any error."""
    import hashlib
    import json

    info, files = check_bundle(data, kb_problems=kb_problems)
    version = info["version"]
    digest = hashlib.sha256(data).hexdigest()
    _, active = active_directory()
    active_ver = active.split(" ", 1)[1]
    if vkey(version) < vkey(active_ver) or (vkey(version) == vkey(active_ver) and not allow_same):
        raise MatrixError(f"the bundle's version {version} is not newer than the active matrix ({active}); "
                          "refusing to downgrade")
    root = cache_root(create=True)
    os.makedirs(root, exist_ok=True)
    floor = read_floor(root)
    fver = floor.get("version")
    if fver and vkey(version) < vkey(fver):
        raise MatrixError(f"the bundle's version {version} is older than {fver}, which was installed here before "
                          f"(the rollback floor in {os.path.join(root, FLOOR)}, kept by `matrix reset`): refused "
                          "(an older signed bundle replayed)")
    if fver and vkey(version) == vkey(fver) and floor.get("sha256") not in (None, digest):
        raise MatrixError(f"the bundle's version {version} was installed here before with other contents "
                          "(sha256 differs from the rollback floor's): refused (a version is never reused)")
    tmp = tempfile.mkdtemp(prefix=".incoming-", dir=root)
    info = dict(info, source=source, sha256=digest,
                installed=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    mode = 0o666 & ~umask()
    try:
        for base, raw in dict(files, **{INSTALLED: json.dumps(info, indent=2).encode("utf-8")}).items():
            create_file(os.path.join(tmp, base), raw, mode)
        final = os.path.join(root, f"matrix-{version}")
        if os.path.exists(final):
            shutil.rmtree(final)
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if not fver or vkey(version) > vkey(fver):  # the floor first: a crash after it only refuses older ones
        replace_file(os.path.join(root, FLOOR), (json.dumps(
            {"version": version, "sha256": digest, "installed": info["installed"], "key": info["key"]},
            indent=2) + "\n").encode("utf-8"))  # 0600, synced: the cache folder is the user's alone
    replace_file(os.path.join(root, "current"), f"matrix-{version}\n".encode("utf-8"))
    return info


def fetch(source: str, timeout: float = 30.0) -> bytes:
    """The bundle's bytes from an https URL (loopback http for tests) or a local file."""
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", source):
        from envcheck.matrix.download import download

        return download(source, timeout=timeout, max_bytes=MAX_BUNDLE)
    from envcheck.safe_io import describe_error, read_bytes

    try:  # a regular file only: a FIFO or device is refused, never waited on
        data = read_bytes(source, MAX_BUNDLE + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {source!r}: {describe_error(exc)}") from exc
    if len(data) > MAX_BUNDLE:
        raise UsageError(f"{source}: the bundle is larger than {MAX_BUNDLE} bytes; refused")
    return data
