"""Ed25519 signatures of matrix bundles: trusted keys, signing (maintainers), verifying (``matrix update``).

A signed bundle is a ``.tar.gz`` whose ``bundle.toml`` lists the SHA-256 of every other file
(``[files]``) and whose ``bundle.toml.sig`` holds, base64-encoded, the Ed25519 signature of
``DOMAIN + bytes of bundle.toml``. Verifying that one signature therefore covers every table.

Trusted public keys: the ``[[key]]`` entries of ``envcheck/matrix/keys.toml`` (shipped in the
package), each valid from ``not_before`` to ``not_after`` (UTC days), minus the ids listed under
``[[revoked]]`` there; plus, **for tests and private mirrors only**, the keys of the file named by
``ENVCHECK_MATRIX_PUBKEY`` (one ``ed25519 BASE64 comment`` per line; ``envcheck matrix status`` and
``update`` say so loudly whenever it is set, a revoked id stays refused, and a matrix installed
under such a key is used only while the variable still names it). A key is named by its id,
``ed25519:`` + 16 hex digits of the SHA-256 of its 32 raw bytes. The private key never enters the
repository (see scripts/matrix_bundle.py, docs/security.md).

``cryptography`` is imported only inside :func:`verify` / :func:`sign` / :func:`generate_key`:
``envcheck status`` never loads it (it reads keys.toml only to know whether the key of an installed
matrix is still trusted: :func:`key_problem`).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import os
import sys
from typing import Any, Dict, List, Optional, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["build_bundle", "DOMAIN", "SHIPPED_KEYS", "ENV_KEYS", "key_id", "trusted_keys", "verify", "sign",
           "generate_key", "public_line", "SignatureError", "key_problem", "shipped_key_ids", "env_origin"]

#: prefixed to the signed bytes, so a signature over a bundle cannot be reused for anything else
DOMAIN = b"envcheck-matrix-bundle/1\n"
SHIPPED_KEYS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keys.toml")
ENV_KEYS = "ENVCHECK_MATRIX_PUBKEY"

Day = Tuple[int, int, int]


class SignatureError(Exception):
    """The bundle's signature is missing, malformed, by an unknown, expired or revoked key, or does not verify."""


def key_id(raw: bytes) -> str:
    return "ed25519:" + hashlib.sha256(raw).hexdigest()[:16]


def env_origin(path: str) -> str:
    return f"{ENV_KEYS}={path}"


def _today(now: Optional[float] = None) -> Day:
    import time

    t = time.gmtime(time.time() if now is None else now)
    return (t.tm_year, t.tm_mon, t.tm_mday)


def _read_keys(path: str, origin: str) -> List[Tuple[str, bytes, str]]:
    """The keys of a ``.pub`` file (``ed25519 BASE64 [comment]`` lines): ENVCHECK_MATRIX_PUBKEY."""
    from envcheck.safe_io import read_bytes

    out: List[Tuple[str, bytes, str]] = []
    text = read_bytes(path, 65536).decode("utf-8", "replace")  # a regular file only: never a FIFO or a device
    for line in text.splitlines():
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if parts[0] != "ed25519" or len(parts) < 2:
            raise SignatureError(f"{path}: not an 'ed25519 BASE64' key line: {line[:60]!r}")
        out.append((key_id(_raw(parts[1], path)), _raw(parts[1], path), origin))
    return out


def _raw(b64: Any, where: str) -> bytes:
    try:
        raw = base64.b64decode(b64 if isinstance(b64, str) else "", validate=True)
    except ValueError as exc:
        raise SignatureError(f"{where}: bad base64 in a public key") from exc
    if len(raw) != 32:
        raise SignatureError(f"{where}: an Ed25519 public key has 32 bytes, not {len(raw)}")
    return raw


def _day(v: Any, where: str) -> Day:
    if isinstance(v, datetime.date) and not isinstance(v, datetime.datetime):
        return (v.year, v.month, v.day)
    raise SignatureError(f"{where}: needs a date (YYYY-MM-DD), not {v!r}")


def shipped(path: Optional[str] = None) -> Tuple[Dict[str, Dict[str, Any]], Dict[str, Dict[str, Any]]]:
    """(keys by id, revoked ids -> their entry) of keys.toml. Each key: raw, not_before, not_after, comment."""
    path = path or SHIPPED_KEYS
    try:
        with open(path, "rb") as fh:
            doc = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise SignatureError(f"{path}: {exc}") from exc
    keys: Dict[str, Dict[str, Any]] = {}
    for i, k in enumerate(doc.get("key") or []):
        where = f"{path} [[key]] {i + 1}"
        if not isinstance(k, dict):
            raise SignatureError(f"{where}: not a table")
        raw = _raw(k.get("public"), where)
        kid = key_id(raw)
        if k.get("id") != kid:
            raise SignatureError(f"{where}: id {k.get('id')!r} is not the id of its public key ({kid})")
        keys[kid] = {"raw": raw, "not_before": _day(k.get("not_before"), where),
                     "not_after": _day(k.get("not_after"), where), "comment": str(k.get("comment", ""))}
    revoked: Dict[str, Dict[str, Any]] = {}
    for r in doc.get("revoked") or []:
        if isinstance(r, dict) and isinstance(r.get("id"), str):
            revoked[r["id"]] = {"since": str(r.get("since", "")), "reason": str(r.get("reason", ""))}
    return keys, revoked


def _fmt(d: Day) -> str:
    return f"{d[0]:04d}-{d[1]:02d}-{d[2]:02d}"


def key_problem(kid: Optional[str], origin: Optional[str], signed_on: Optional[Day] = None,
                now: Optional[float] = None) -> Optional[str]:
    """Why key ``kid`` (from ``origin``: "shipped" or "ENVCHECK_MATRIX_PUBKEY=PATH") is not trusted
    today for a bundle dated ``signed_on``; ``None`` when it is. No cryptography: ``status`` asks it."""
    if not kid:
        return "no signing key is recorded"
    try:
        keys, revoked = shipped()
    except (OSError, SignatureError) as exc:
        return f"the trusted keys cannot be read ({exc})"
    if kid in revoked:
        r = revoked[kid]
        return (f"key {kid} was revoked" + (f" on {r['since']}" if r["since"] else "")
                + (f" ({r['reason']})" if r["reason"] else "") + " by this envcheck release")
    if origin and origin != "shipped":
        path = os.environ.get(ENV_KEYS)
        if not path:
            return (f"it was verified under the test key {kid} of {origin}, and {ENV_KEYS} is not set now "
                    "(a test key is trusted only while the variable names it)")
        if env_origin(path) != origin:
            return (f"it was verified under the test key {kid} of {origin}, and {ENV_KEYS} now names "
                    f"{path}")
        try:
            if kid not in {k for k, _, _ in _read_keys(path, origin)}:
                return f"its key {kid} is no longer in {path}"
        except (OSError, SignatureError) as exc:
            return f"{origin}: cannot read it ({exc})"
        return None
    k = keys.get(kid)
    if k is None:
        return f"key {kid} is not a key of this envcheck release (envcheck/matrix/keys.toml)"
    today = _today(now)
    if today < k["not_before"]:
        return f"key {kid} is valid only from {_fmt(k['not_before'])}"
    if today > k["not_after"]:
        return f"key {kid} expired on {_fmt(k['not_after'])} (a newer envcheck release ships its successor)"
    if signed_on is not None and not k["not_before"] <= signed_on <= k["not_after"]:
        return (f"the bundle's date {_fmt(signed_on)} is outside the validity of key {kid} "
                f"({_fmt(k['not_before'])} to {_fmt(k['not_after'])})")
    return None


def trusted_keys() -> Dict[str, Tuple[bytes, str]]:
    """key id -> (raw public key, where it came from: "shipped" or "ENVCHECK_MATRIX_PUBKEY=PATH"),
    revoked ids left out (validity dates are checked by :func:`verify` / :func:`key_problem`)."""
    out: Dict[str, Tuple[bytes, str]] = {}
    try:
        keys, revoked = shipped()
    except OSError:
        keys, revoked = {}, {}
    for kid, k in keys.items():
        if kid not in revoked:
            out[kid] = (k["raw"], "shipped")
    extra = os.environ.get(ENV_KEYS)
    if extra:
        try:
            found = _read_keys(extra, env_origin(extra))
        except OSError as exc:
            raise SignatureError(f"{ENV_KEYS}={extra}: cannot read it: {exc.strerror or exc}") from exc
        for kid, raw, origin in found:
            if kid not in revoked:
                out.setdefault(kid, (raw, origin))
    return out


def shipped_key_ids() -> List[str]:
    """Ids of the keys shipped in the package and not revoked, without cryptography (for ``matrix status``)."""
    try:
        keys, revoked = shipped()
    except (OSError, SignatureError):
        return []
    return [kid for kid in keys if kid not in revoked]


def verify(manifest: bytes, signature_text: bytes, claimed_key: Optional[str],
           signed_on: Optional[Day] = None, now: Optional[float] = None) -> Tuple[str, str]:
    """Check ``signature_text`` (base64) over ``manifest``; return (key id, key origin). The key must be
    trusted today and, for a shipped key, valid on ``signed_on`` (the bundle's version date)."""
    try:
        _, revoked = shipped()
    except OSError:
        revoked = {}
    if claimed_key is not None and claimed_key in revoked:
        raise SignatureError(key_problem(claimed_key, "shipped") or f"key {claimed_key} is revoked")
    keys = trusted_keys()
    if not keys:
        raise SignatureError("no trusted matrix signing key is installed (envcheck/matrix/keys.toml)")
    try:
        sig = base64.b64decode(signature_text.strip(), validate=True)
    except ValueError as exc:
        raise SignatureError("bundle.toml.sig is not base64") from exc
    if len(sig) != 64:
        raise SignatureError("bundle.toml.sig is not an Ed25519 signature (64 bytes)")
    if claimed_key is not None and claimed_key not in keys:
        raise SignatureError(f"the bundle is signed by key {claimed_key}, which is not a trusted key "
                             f"(trusted: {', '.join(sorted(keys))})")
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError as exc:  # pragma: no cover - a dependency
        raise SignatureError("checking a bundle's signature needs the 'cryptography' package") from exc
    candidates = [claimed_key] if claimed_key is not None else sorted(keys)
    for kid in candidates:
        raw, origin = keys[kid]
        try:
            Ed25519PublicKey.from_public_bytes(raw).verify(sig, DOMAIN + manifest)
        except InvalidSignature:
            continue
        why = key_problem(kid, origin, signed_on, now)
        if why:
            raise SignatureError(why)
        return kid, origin
    raise SignatureError("the bundle's signature does not verify: it was altered after signing, or signed by "
                         "another key")


# ---------------------------------------------------------------------------------------------
# the maintainers' side (scripts/matrix_bundle.py, and tests with a throwaway key)
# ---------------------------------------------------------------------------------------------
def generate_key() -> Tuple[bytes, str]:
    """A new key pair: (private key as PKCS#8 PEM, public key line for a .pub file)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    priv = Ed25519PrivateKey.generate()
    pem = priv.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())
    raw = priv.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return pem, public_line(raw)


def public_line(raw: bytes, comment: str = "envcheck matrix signing key") -> str:
    return f"ed25519 {base64.b64encode(raw).decode()} {key_id(raw)} {comment}\n"


def sign(manifest: bytes, private_pem: bytes, password: Optional[bytes] = None) -> Tuple[bytes, str]:
    """(base64 signature line, key id) of ``manifest`` with a PEM private key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    priv = serialization.load_pem_private_key(private_pem, password=password)
    if not isinstance(priv, Ed25519PrivateKey):
        raise SignatureError("the signing key is not an Ed25519 private key")
    raw = priv.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(priv.sign(DOMAIN + manifest)) + b"\n", key_id(raw)


def private_key_id(private_pem: bytes, password: Optional[bytes] = None) -> str:
    from cryptography.hazmat.primitives import serialization

    priv = serialization.load_pem_private_key(private_pem, password=password)
    raw = priv.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return key_id(raw)


def build_bundle(tables: Dict[str, bytes], private_pem: bytes, version: str, expires: Optional[str] = None,
                 password: Optional[bytes] = None, extra: Optional[Dict[str, bytes]] = None) -> bytes:
    """A signed ``.tar.gz`` of ``tables`` (file name -> bytes, e.g. ``{"cuda.toml": ...}``).

    ``extra`` adds files after signing (only tests use it, to build tampered bundles)."""
    import gzip
    import io
    import tarfile

    kid = private_key_id(private_pem, password)
    lines = ["# envcheck matrix bundle: the signed manifest (bundle.toml.sig signs these exact bytes)",
             "[bundle]", "schema = 1", f'version = "{version}"']
    if expires:
        lines.append(f'expires = "{expires}"')
    lines += [f'key = "{kid}"', 'source = "envcheck maintainers (scripts/matrix_bundle.py)"', "", "[files]"]
    for name in sorted(tables):
        lines.append(f'"{name}" = "{hashlib.sha256(tables[name]).hexdigest()}"')
    manifest = ("\n".join(lines) + "\n").encode()
    sig, _ = sign(manifest, private_pem, password)
    files = dict(tables, **{"bundle.toml": manifest, "bundle.toml.sig": sig})
    files.update(extra or {})
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for name in ["bundle.toml", "bundle.toml.sig"] + sorted(n for n in files if not n.startswith("bundle.")):
            info = tarfile.TarInfo(f"matrix-{version}/{name}")
            info.size = len(files[name])
            info.mtime = 0
            info.mode = 0o644
            tf.addfile(info, io.BytesIO(files[name]))
    return gzip.compress(raw.getvalue(), mtime=0)
