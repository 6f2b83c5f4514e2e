"""Ed25519 signatures of matrix bundles: trusted keys, signing (maintainers), verifying (``matrix update``).

A signed bundle is a ``.tar.gz`` whose ``bundle.toml`` lists the SHA-256 of every other file
(``[files]``) and whose ``bundle.toml.sig`` holds, base64-encoded, the Ed25519 signature of
``DOMAIN + bytes of bundle.toml``. Verifying that one signature therefore covers every table.

Trusted public keys: the ones in ``envcheck/matrix/matrix-signing.pub`` (shipped in the package;
one ``ed25519 BASE64 comment`` per line), plus, **for tests and private mirrors only**, the keys of
the file named by ``ENVCHECK_MATRIX_PUBKEY`` (``envcheck matrix status`` and ``update`` say so
loudly whenever it is set). A key is named by its id, ``ed25519:`` + 16 hex digits of the SHA-256
of its 32 raw bytes. The private key never enters the repository (see scripts/matrix_bundle.py).

``cryptography`` is imported only inside :func:`verify` / :func:`sign` / :func:`generate_key`:
``envcheck status`` never loads it.
"""

from __future__ import annotations

import base64
import hashlib
import os
from typing import Dict, List, Optional, Tuple

__all__ = ["build_bundle", "DOMAIN", "SHIPPED_KEYS", "ENV_KEYS", "key_id", "trusted_keys", "verify", "sign", "generate_key",
           "public_line", "SignatureError"]

#: prefixed to the signed bytes, so a signature over a bundle cannot be reused for anything else
DOMAIN = b"envcheck-matrix-bundle/1\n"
SHIPPED_KEYS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "matrix-signing.pub")
ENV_KEYS = "ENVCHECK_MATRIX_PUBKEY"


class SignatureError(Exception):
    """The bundle's signature is missing, malformed, by an unknown key, or does not verify."""


def key_id(raw: bytes) -> str:
    return "ed25519:" + hashlib.sha256(raw).hexdigest()[:16]


def _read_keys(path: str, origin: str) -> List[Tuple[str, bytes, str]]:
    out: List[Tuple[str, bytes, str]] = []
    with open(path, encoding="utf-8") as fh:
        for line in fh.read(65536).splitlines():
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if parts[0] != "ed25519" or len(parts) < 2:
                raise SignatureError(f"{path}: not an 'ed25519 BASE64' key line: {line[:60]!r}")
            try:
                raw = base64.b64decode(parts[1], validate=True)
            except ValueError as exc:
                raise SignatureError(f"{path}: bad base64 in a key line") from exc
            if len(raw) != 32:
                raise SignatureError(f"{path}: an Ed25519 public key has 32 bytes, not {len(raw)}")
            out.append((key_id(raw), raw, origin))
    return out


def trusted_keys() -> Dict[str, Tuple[bytes, str]]:
    """key id -> (raw public key, where it came from: "shipped" or "ENVCHECK_MATRIX_PUBKEY=PATH")."""
    keys: Dict[str, Tuple[bytes, str]] = {}
    try:
        for kid, raw, origin in _read_keys(SHIPPED_KEYS, "shipped"):
            keys[kid] = (raw, origin)
    except OSError:
        pass
    extra = os.environ.get(ENV_KEYS)
    if extra:
        try:
            found = _read_keys(extra, f"{ENV_KEYS}={extra}")
        except OSError as exc:
            raise SignatureError(f"{ENV_KEYS}={extra}: cannot read it: {exc.strerror or exc}") from exc
        for kid, raw, origin in found:
            keys.setdefault(kid, (raw, origin))
    return keys


def shipped_key_ids() -> List[str]:
    """Ids of the keys shipped in the package, without cryptography (for ``matrix status``)."""
    try:
        return [kid for kid, _, _ in _read_keys(SHIPPED_KEYS, "shipped")]
    except (OSError, SignatureError):
        return []


def verify(manifest: bytes, signature_text: bytes, claimed_key: Optional[str]) -> Tuple[str, str]:
    """Check ``signature_text`` (base64) over ``manifest``; return (key id, key origin)."""
    keys = trusted_keys()
    if not keys:
        raise SignatureError("no trusted matrix signing key is installed (envcheck/matrix/matrix-signing.pub)")
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
