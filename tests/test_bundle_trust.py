"""Issue 18 item 5: update trust with an end (TUF's rules as the anchor), through the real CLI.

* every bundle carries ``expires`` (bounded) and a version; versions never go backwards: the rollback
  floor beside the installed matrix survives ``matrix reset``;
* keys have validity periods and a revocation list that ships with each release (keys.toml): the
  rotation of a leaked key is played out with two "releases" of envcheck (copies of the package
  that differ only in keys.toml), as a user who upgrades sees it;
* a matrix installed under a test key (ENVCHECK_MATRIX_PUBKEY) is not used once the variable is unset;
* scripts/matrix_bundle.py builds the bundle the release job publishes; served on 127.0.0.1, the
  default-less ``matrix update --from URL`` installs it and the floor then refuses an older one;
* the default source, unreachable, is named as such within seconds.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest

from envcheck.matrix import bundled_dir
from envcheck.matrix.bundle import FILES, bundle_version
from envcheck.matrix.signing import build_bundle, generate_key

import bundle_clock

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLED = bundle_version(bundled_dir())


day = bundle_clock.day  # dates from the bundled matrix's version, not the real date (tests/bundle_clock.py)


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    bundle_clock.use(monkeypatch)


def tables():
    out = {}
    for f in FILES:
        with open(os.path.join(bundled_dir(), f + ".toml"), "rb") as fh:
            out[f + ".toml"] = fh.read()
    return out


def bundle(pem, version, expires="auto", **kw):
    return build_bundle(tables(), pem, version, expires=day(90) if expires == "auto" else expires, **kw)


def needs_room(n):
    """The versions a test installs (today - n ... today) must all be newer than the bundled matrix:
    true by construction (the tests' today is the bundled version + bundle_clock.AHEAD days)."""
    assert day(-n) > BUNDLED, f"bundle_clock.AHEAD must be above {n}"


def cli(args, env, cwd=None, timeout=120):
    r = subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True,
                       env=bundle_clock.child_env(env), cwd=cwd or ROOT, timeout=timeout)
    assert "Traceback" not in r.stderr and r.returncode != 70, r.stderr[-3000:]
    return r


@pytest.fixture
def base_env(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_") and "proxy" not in k.lower()}
    env.update(ENVCHECK_CACHE_DIR=str(tmp_path / "cache"), NO_COLOR="1", PYTHONPATH=ROOT)
    return env


@pytest.fixture
def test_key(tmp_path):
    pem, pub = generate_key()
    (tmp_path / "test.pub").write_text(pub)
    return pem, str(tmp_path / "test.pub")


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data)
    return str(p)


# ---- expiry ---------------------------------------------------------------------------------------
def test_a_bundle_without_expiry_or_with_an_endless_one_is_refused(tmp_path, base_env, test_key):
    pem, pub = test_key
    env = dict(base_env, ENVCHECK_MATRIX_PUBKEY=pub)
    r = cli(["matrix", "update", "--from", write(tmp_path, "a.tar.gz", bundle(pem, day(), expires=None))], env)
    assert r.returncode == 2 and "needs expires" in r.stderr
    r = cli(["matrix", "update", "--from", write(tmp_path, "b.tar.gz", bundle(pem, day(), expires="2099.12.31"))], env)
    assert r.returncode == 2 and "more than 400 days after its version" in r.stderr
    r = cli(["matrix", "update", "--from", write(tmp_path, "c.tar.gz", bundle(pem, day(), expires=day(-1)))], env)
    assert r.returncode == 2 and "expired on" in r.stderr
    assert "active matrix: bundled" in cli(["matrix", "status"], env).stdout


def test_an_installed_bundle_is_not_used_after_it_expires(tmp_path, monkeypatch, test_key):
    """The expiry at use time is asked in process, a month later on the (shifted) clock."""
    needs_room(0)
    pem, pub = test_key
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ENVCHECK_MATRIX_PUBKEY", pub)
    from envcheck.explain.kb import bundle_kb_problems
    from envcheck.matrix.bundle import active_state, install_bundle

    install_bundle(bundle(pem, day(), expires=day(30)), kb_problems=bundle_kb_problems)
    assert active_state()[1] == f"updated {day()}" and active_state()[2] is None
    later = time.time() + 31 * 86400
    directory, origin, why = active_state(now=later)
    assert origin.startswith("bundled") and directory == bundled_dir()
    assert f"expired on {day(30)}" in why


# ---- the rollback floor ---------------------------------------------------------------------------
def test_rollback_floor_survives_reset_and_refuses_older_and_reused_versions(tmp_path, base_env, test_key):
    needs_room(2)
    pem, pub = test_key
    env = dict(base_env, ENVCHECK_MATRIX_PUBKEY=pub)
    old = write(tmp_path, "old.tar.gz", bundle(pem, day(-2)))
    new = write(tmp_path, "new.tar.gz", bundle(pem, day(-1)))
    assert cli(["matrix", "update", "--from", new], env).returncode == 0
    r = cli(["matrix", "reset"], env)
    assert r.returncode == 0 and "active matrix: bundled" in r.stdout
    floor = tmp_path / "cache" / "matrix" / "rollback-floor.json"
    assert json.loads(floor.read_text())["version"] == day(-1)
    # the replay of an older signed bundle after the reset: refused by the floor, not by the active matrix
    r = cli(["matrix", "update", "--from", old], env)
    assert r.returncode == 2 and f"older than {day(-1)}" in r.stderr and "rollback floor" in r.stderr
    # the same version with other contents: refused; the very same bundle again: accepted
    other = build_bundle(dict(tables(), **{"cuda.toml": tables()["cuda.toml"] + b"\n# changed\n"}), pem, day(-1),
                         expires=day(90))
    r = cli(["matrix", "update", "--from", write(tmp_path, "other.tar.gz", other)], env)
    assert r.returncode == 2 and "with other contents" in r.stderr
    r = cli(["matrix", "update", "--from", new], env)
    assert r.returncode == 0, r.stderr
    st = json.loads(cli(["matrix", "status", "--json"], env).stdout)
    assert st["version"] == day(-1) and st["rollback_floor"] == day(-1)


# ---- test keys --------------------------------------------------------------------------------------
def test_a_matrix_installed_under_a_test_key_is_not_used_once_the_variable_is_unset(tmp_path, base_env, test_key):
    needs_room(0)
    pem, pub = test_key
    env = dict(base_env, ENVCHECK_MATRIX_PUBKEY=pub)
    assert cli(["matrix", "update", "--from", write(tmp_path, "t.tar.gz", bundle(pem, day()))], env).returncode == 0
    assert "active matrix: updated" in cli(["matrix", "status"], env).stdout
    r = cli(["matrix", "status"], base_env)  # the variable unset
    assert "active matrix: bundled" in r.stdout
    assert "test key" in r.stderr and "ENVCHECK_MATRIX_PUBKEY is not set now" in r.stderr
    assert "using the bundled matrix" in r.stderr
    st = json.loads(cli(["matrix", "status", "--json"], base_env).stdout)
    assert st["kind"] == "bundled" and "not set now" in st["not_used"]
    # `envcheck status` says it too (stderr: the report stays clean)
    r = cli(["status", "--json", "--snapshot", _snapshot(tmp_path)], base_env)
    assert "not set now" in r.stderr and json.loads(r.stdout)["matrix_version"] == BUNDLED
    # another file in the variable: not the key it was verified under either
    (tmp_path / "other.pub").write_text(generate_key()[1])
    r = cli(["matrix", "status"], dict(base_env, ENVCHECK_MATRIX_PUBKEY=str(tmp_path / "other.pub")))
    assert "active matrix: bundled" in r.stdout and "now names" in r.stderr


def _snapshot(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from helpers import make_snapshot

    return make_snapshot(str(tmp_path / "snap"), {})


# ---- rotation and revocation, as two releases of envcheck ------------------------------------------
def _release(tmp_path, name, keys, revoked=()):
    """A copy of the envcheck package whose keys.toml lists ``keys`` (id, b64, not_before, not_after)."""
    dest = tmp_path / name
    shutil.copytree(os.path.join(ROOT, "envcheck"), dest / "envcheck",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(ROOT, "compat_matrix"), dest / "compat_matrix")
    lines = []
    for kid, b64, nb, na in keys:
        lines += ["[[key]]", f'id = "{kid}"', f'public = "{b64}"', f"not_before = {nb}", f"not_after = {na}", ""]
    for kid, since, why in revoked:
        lines += ["[[revoked]]", f'id = "{kid}"', f'since = "{since}"', f'reason = "{why}"', ""]
    (dest / "envcheck" / "matrix" / "keys.toml").write_text("\n".join(lines))
    return str(dest)


def _key():
    pem, pub = generate_key()
    _, b64, kid = pub.split()[:3]
    return pem, kid, b64


def test_rotation_after_a_leaked_key_revokes_it_and_trusts_its_successor(tmp_path, base_env):
    needs_room(3)
    old_pem, old_id, old_b64 = _key()
    new_pem, new_id, new_b64 = _key()
    v1 = _release(tmp_path, "release-1", [(old_id, old_b64, day(-30, "-"), day(700, "-"))])
    v2 = _release(tmp_path, "release-2", [(new_id, new_b64, day(-1, "-"), day(730, "-"))],
                  revoked=[(old_id, day(-1, "-"), "leaked")])
    env1, env2 = dict(base_env, PYTHONPATH=v1), dict(base_env, PYTHONPATH=v2)
    # release 1: a bundle signed by its key installs; the shipped key, no test-key warning
    r = cli(["matrix", "update", "--from", write(tmp_path, "a.tar.gz", bundle(old_pem, day(-3)))], env1, cwd=v1)
    assert r.returncode == 0 and old_id in r.stdout and "WARNING" not in r.stderr
    st = json.loads(cli(["matrix", "status", "--json"], env1, cwd=v1).stdout)
    assert st["kind"] == "updated" and st["signed_by"] == old_id and st["key_origin"] == "shipped"
    # the user upgrades to release 2: the installed matrix, signed by the revoked key, is no longer used
    r = cli(["matrix", "status"], env2, cwd=v2)
    assert "active matrix: bundled" in r.stdout and f"key {old_id} was revoked" in r.stderr and "leaked" in r.stderr
    assert new_id in r.stdout and old_id not in r.stdout.split("trusted signing keys:")[1].splitlines()[0]
    # what the thief signs with the old key is refused, even dated before the revocation
    for v in (day(-2), day(-1)):
        r = cli(["matrix", "update", "--from", write(tmp_path, "evil.tar.gz", bundle(old_pem, v))], env2, cwd=v2)
        assert r.returncode == 2 and "revoked" in r.stderr, r.stderr
    # ... even when a test-key file lists it
    (tmp_path / "old.pub").write_text(f"ed25519 {old_b64} {old_id}\n")
    r = cli(["matrix", "update", "--from", write(tmp_path, "evil.tar.gz", bundle(old_pem, day(-1)))],
            dict(env2, ENVCHECK_MATRIX_PUBKEY=str(tmp_path / "old.pub")), cwd=v2)
    assert r.returncode == 2 and "revoked" in r.stderr
    # the successor's bundle is accepted (and the rollback floor of release 1's bundle still holds)
    r = cli(["matrix", "update", "--from", write(tmp_path, "b.tar.gz", bundle(new_pem, day()))], env2, cwd=v2)
    assert r.returncode == 0 and new_id in r.stdout, r.stderr
    st = json.loads(cli(["matrix", "status", "--json"], env2, cwd=v2).stdout)
    assert st["kind"] == "updated" and st["signed_by"] == new_id and st["not_used"] is None


def test_a_key_is_trusted_only_within_its_validity(tmp_path, base_env):
    needs_room(1)
    pem, kid, b64 = _key()
    expired = _release(tmp_path, "expired", [(kid, b64, day(-400, "-"), day(-1, "-"))])
    r = cli(["matrix", "update", "--from", write(tmp_path, "a.tar.gz", bundle(pem, day()))],
            dict(base_env, PYTHONPATH=expired), cwd=expired)
    assert r.returncode == 2 and f"key {kid} expired on {day(-1, '-')}" in r.stderr
    future = _release(tmp_path, "future", [(kid, b64, day(1, "-"), day(700, "-"))])
    r = cli(["matrix", "update", "--from", write(tmp_path, "b.tar.gz", bundle(pem, day()))],
            dict(base_env, PYTHONPATH=future), cwd=future)
    assert r.returncode == 2 and "valid only from" in r.stderr


# ---- the release job's script, served on 127.0.0.1 --------------------------------------------------
@pytest.fixture
def served(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None  # type: ignore[method-assign]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_the_release_script_builds_a_bundle_that_installs_and_the_floor_refuses_an_older_one(
        tmp_path, base_env, served):
    """scripts/matrix_bundle.py as the workflow runs it: the key from an environment variable, the
    signature checked with the shipped keys only (here: a release whose keys.toml holds the test key)."""
    needs_room(2)
    pem, kid, b64 = _key()
    rel = _release(tmp_path, "release", [(kid, b64, day(-10, "-"), day(700, "-"))])
    shutil.copytree(os.path.join(ROOT, "scripts"), os.path.join(rel, "scripts"))
    env = dict(base_env, PYTHONPATH=rel, MATRIX_KEY=pem.decode())
    www, url = served
    script = os.path.join(rel, "scripts", "matrix_bundle.py")
    for version, out in ((day(-1), www / "new"), (day(-2), www / "old")):
        r = subprocess.run([sys.executable, script, "build", "--key-env", "MATRIX_KEY", "--version", version,
                            "--out", str(out)], capture_output=True, text=True, env=bundle_clock.child_env(env),
                           timeout=300, cwd=rel)
        assert r.returncode == 0, r.stderr
        assert (out / "envcheck-matrix.tar.gz").read_bytes() == (out / f"envcheck-matrix-{version}.tar.gz").read_bytes()
    r = cli(["matrix", "update", "--from", f"{url}/new/envcheck-matrix.tar.gz"], env, cwd=rel)
    assert r.returncode == 0 and f"installed matrix {day(-1)} signed by {kid} (shipped)" in r.stdout, r.stderr
    assert cli(["matrix", "reset"], env, cwd=rel).returncode == 0
    r = cli(["matrix", "update", "--from", f"{url}/old/envcheck-matrix.tar.gz"], env, cwd=rel)
    assert r.returncode == 2 and "rollback floor" in r.stderr
    # the key of the secret is required: an empty variable is a usage error, nothing is signed
    r = subprocess.run([sys.executable, script, "build", "--key-env", "NO_SUCH_VAR", "--out", str(tmp_path / "x")],
                       capture_output=True, text=True, env=env, timeout=120, cwd=rel)
    assert r.returncode == 2 and not (tmp_path / "x").exists()


def test_the_default_source_is_one_constant_and_unreachable_is_said_at_once(tmp_path, base_env):
    from envcheck.known import PROJECT_URL
    from envcheck.matrix.download import DEFAULT_SOURCE, STABLE_NAME

    # no public address yet (PROJECT_URL empty): no default source; with one, it is derived from it
    assert (DEFAULT_SOURCE.startswith(PROJECT_URL + "/releases/download/") and DEFAULT_SOURCE.endswith(STABLE_NAME)) \
        if PROJECT_URL else DEFAULT_SOURCE == ""
    # a port nothing listens on, through the same code path as the default source
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    r = cli(["matrix", "update", "--from", f"http://127.0.0.1:{port}/{STABLE_NAME}"], base_env)
    assert r.returncode == 2 and f"cannot reach 127.0.0.1:{port}" in r.stderr
    assert time.monotonic() - t0 < 60  # a bound for a loaded machine, not a timing claim
    # a name that does not resolve: said as such, before any connection
    r = cli(["matrix", "update", "--from", f"https://envcheck-test.invalid/{STABLE_NAME}"], base_env)
    assert r.returncode == 2 and "cannot reach envcheck-test.invalid" in r.stderr
    # without --from the default source is named (without one: --from is asked for)
    r = cli(["matrix", "update", "--timeout", "5"], dict(base_env, HTTPS_PROXY="http://127.0.0.1:9"))
    assert r.returncode == 2 and ((DEFAULT_SOURCE in r.stderr) if DEFAULT_SOURCE else "--from" in r.stderr), r.stderr
