"""Build and sign the matrix bundle that `envcheck matrix update` installs (maintainers only).

    python scripts/matrix_bundle.py keygen --out ~/.config/envcheck/matrix-signing.key [--valid-days 730]
        A new Ed25519 key pair: the private key (PEM, mode 0600) goes to --out, which must be
        outside the repository; the [[key]] entry for envcheck/matrix/keys.toml is printed (valid
        from today for --valid-days). A key rotation, and what to do when a key is lost or leaked,
        is in docs/security.md.

    python scripts/matrix_bundle.py build --key ~/.config/envcheck/matrix-signing.key --out dist/
        Validates compat_matrix/*.toml exactly as `envcheck matrix update` will (schema, sanity
        against the bundled matrix, regex safety, fix texts, the key's validity), then writes
        dist/envcheck-matrix-VERSION.tar.gz and its copy under the stable name
        dist/envcheck-matrix.tar.gz (the release asset `envcheck matrix update` downloads by
        default), signed with the key. VERSION is today (UTC, YYYY.MM.DD) unless --version is given;
        the bundle expires after --expires-days (default 180, at most 400). Publish it over HTTPS
        (.github/workflows/matrix-bundle.yml does, as a release asset).

    python scripts/matrix_bundle.py check-target --repository OWNER/REPO
        Where the bundle job publishes (the `matrix` release of OWNER/REPO, asset envcheck-matrix.tar.gz) against
        where `envcheck matrix update` looks by default (DEFAULT_SOURCE, from envcheck.known.PROJECT_URL): exit 0
        when they are the same, or when envcheck knows no address yet (a warning: nobody looks there yet); exit 1
        when envcheck looks elsewhere (a bundle published there would reach nobody).

The key is read from --key FILE, or from the environment variable named by --key-env (the CI secret);
its passphrase, if it has one, from ENVCHECK_MATRIX_KEY_PASSPHRASE.
Exit status: 0 done, 1 the tables do not pass the checks, 2 usage error.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from envcheck.errors import MatrixError  # noqa: E402
from envcheck.matrix.bundle import FILES  # noqa: E402
from envcheck.matrix.download import MATRIX_RELEASE_TAG, STABLE_NAME  # noqa: E402
from envcheck.matrix.signing import build_bundle, generate_key  # noqa: E402


def keygen(out: str, valid_days: int = 730) -> int:
    out = os.path.abspath(os.path.expanduser(out))
    if out.startswith(ROOT + os.sep):
        print(f"refusing to write a private key inside the repository ({out})", file=sys.stderr)
        return 2
    pem, pub = generate_key()
    os.makedirs(os.path.dirname(out), exist_ok=True)
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        print(f"{out} exists; not overwritten", file=sys.stderr)
        return 2
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    kid, b64 = pub.split()[2], pub.split()[1]
    start = datetime.datetime.now(datetime.timezone.utc).date()
    end = start + datetime.timedelta(days=valid_days)
    print(f"private key written to {out} (keep it secret, back it up offline)")
    print("add this entry to envcheck/matrix/keys.toml (docs/security.md: key rotation):")
    print(f'[[key]]\nid = "{kid}"\npublic = "{b64}"\nnot_before = {start.isoformat()}\n'
          f'not_after = {end.isoformat()}\ncomment = "envcheck matrix signing key, made {start.isoformat()}"')
    print(pub, end="")  # the same key as a .pub line (ENVCHECK_MATRIX_PUBKEY for tests and private mirrors)
    return 0


def build(tables_dir: str, key: str, out: str, version: str, expires_days: int, key_env: str = "") -> int:
    from envcheck.explain.kb import bundle_kb_problems
    from envcheck.matrix.verify import check_bundle

    if key_env:
        pem = os.environ.get(key_env, "").encode()
        if b"PRIVATE KEY" not in pem:
            print(f"the environment variable {key_env} holds no PEM private key", file=sys.stderr)
            return 2
    else:
        with open(os.path.expanduser(key), "rb") as fh:
            pem = fh.read()
    password = os.environ.get("ENVCHECK_MATRIX_KEY_PASSPHRASE")
    tables = {}
    for f in FILES:
        path = os.path.join(tables_dir, f + ".toml")
        if os.path.exists(path):
            with open(path, "rb") as fh:
                tables[f + ".toml"] = fh.read()
    d = datetime.datetime.strptime(version, "%Y.%m.%d").date()
    expires = (d + datetime.timedelta(days=expires_days)).strftime("%Y.%m.%d")
    data = build_bundle(tables, pem, version, expires=expires, password=password.encode() if password else None)
    try:
        info, _ = check_bundle(data, kb_problems=bundle_kb_problems)  # exactly what `envcheck matrix update` will check, signature included
    except MatrixError as exc:
        print(f"the bundle would be refused: {exc}", file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"envcheck-matrix-{version}.tar.gz")
    for p in (path, os.path.join(out, STABLE_NAME)):
        tmp = p + ".tmp"
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, p)
    print(f"{path}: version {version}, expires {expires}, signed by {info['key']} ({info['key_origin']}), "
          f"{len(data)} bytes")
    return 0


def check_target(repository: str, default_source: str) -> int:
    """Exit status of `check-target`: does `envcheck matrix update` look where this job publishes?"""
    import re

    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$", repository):
        print(f"error: {repository!r} is not OWNER/REPO", file=sys.stderr)
        return 2
    target = f"https://github.com/{repository}/releases/download/{MATRIX_RELEASE_TAG}/{STABLE_NAME}"
    print(f"the bundle job publishes to {target}")
    if not default_source:
        print("WARNING: envcheck.known.PROJECT_URL is empty: no envcheck release looks there yet; set it at release "
              "(docs/matrix.md, 'Where matrix update looks')", file=sys.stderr)
        return 0
    if default_source != target:
        print(f"error: envcheck's default source is {default_source}, not {target}: a bundle published here reaches "
              "nobody; fix envcheck.known.PROJECT_URL or run the job in that repository", file=sys.stderr)
        return 1
    print("envcheck matrix update looks there by default")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("keygen", help="make a new signing key pair")
    k.add_argument("--out", required=True, help="where to write the private key (outside the repository)")
    k.add_argument("--valid-days", type=int, default=730, help="the key's validity (keys.toml not_after)")
    b = sub.add_parser("build", help="build and sign the bundle of compat_matrix/")
    kg = b.add_mutually_exclusive_group(required=True)
    kg.add_argument("--key", help="the private key (PEM file)")
    kg.add_argument("--key-env", help="the name of an environment variable holding the private key (PEM): CI")
    b.add_argument("--out", default="dist", help="output folder (default dist/)")
    b.add_argument("--tables", default=os.path.join(ROOT, "compat_matrix"), help="the tables (default compat_matrix/)")
    b.add_argument("--version", default=datetime.datetime.now(datetime.timezone.utc).strftime("%Y.%m.%d"))
    b.add_argument("--expires-days", type=int, default=180)
    t = sub.add_parser("check-target", help="does `envcheck matrix update` look where the bundle job publishes?")
    t.add_argument("--repository", required=True, help="OWNER/REPO the job publishes to (GitHub's github.repository)")
    args = ap.parse_args(argv)
    if args.cmd == "check-target":
        from envcheck.matrix.download import DEFAULT_SOURCE

        return check_target(args.repository, DEFAULT_SOURCE)
    if args.cmd == "keygen":
        return keygen(args.out, args.valid_days)
    return build(args.tables, args.key or "", args.out, args.version, args.expires_days, args.key_env or "")


if __name__ == "__main__":
    sys.exit(main())
