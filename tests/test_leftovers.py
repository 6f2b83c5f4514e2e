"""Issue 18 item 7: what a killed envcheck leaves behind.

* `matrix update` has no regex-checking child any more (the check is static): nothing to leave behind;
* `fix --apply` killed with SIGKILL while pip runs: pip dies too (PR_SET_PDEATHSIG), and the next run
  removes the work folder it left (an empty one too: killed before it locked its marker).

To tell "killed with its parent" from "finished its work meanwhile", the child is frozen (SIGSTOP)
before its parent is killed: a frozen process never ends by itself, but SIGKILL ends it. Real
processes throughout: the CLI in a child process, found in /proc by a marker in its environment.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

from envcheck.matrix import bundled_dir
from envcheck.matrix.bundle import FILES
from envcheck.matrix.signing import build_bundle, generate_key
from helpers import gpu_machine, make_snapshot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "%d.%d" % sys.version_info[:2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and PR_SET_PDEATHSIG: Linux")


def _procs_with(marker, needle):
    """PIDs of live (not zombie) processes whose environment holds ``marker`` and command line ``needle``."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if marker.encode() not in fh.read():
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open(f"/proc/{pid}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in cmd and state != b"Z":
            out.append(int(pid))
    return out


def _wait_for(fn, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = fn()
        if got:
            return got
        time.sleep(0.05)
    return fn()


def _kill_all(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def test_the_bundle_regex_check_starts_no_child_process(tmp_path, monkeypatch):
    # the timed check (a child process that a killed `matrix update` could leave at 100% CPU) is gone:
    # bundle patterns are checked statically (the linear-time dialect, docs/matcher.md), in-process
    from envcheck.explain.kb import bundle_kb_problems
    from envcheck.matrix import verify

    from test_matcher import bundle_kb

    pem, pub = generate_key()
    (tmp_path / "k.pub").write_text(pub)
    tables = {}
    for f in FILES:
        with open(os.path.join(bundled_dir(), f + ".toml"), "rb") as fh:
            tables[f + ".toml"] = fh.read()
    tables["errors.toml"] = bundle_kb().encode()
    import bundle_clock  # dates from the bundled matrix's version, not the real date

    bundle_clock.use(monkeypatch)
    bundle = str(tmp_path / "b.tar.gz")
    (tmp_path / "b.tar.gz").write_bytes(build_bundle(tables, pem, bundle_clock.day(), expires=bundle_clock.day(90)))
    monkeypatch.setenv("ENVCHECK_MATRIX_PUBKEY", str(tmp_path / "k.pub"))
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))

    def no_child(*a, **k):
        raise AssertionError(f"a child process was started: {a[:1]}")

    monkeypatch.setattr(subprocess, "Popen", no_child)
    with open(bundle, "rb") as fh:
        info, files = verify.check_bundle(fh.read(), kb_problems=bundle_kb_problems)
    assert "errors.toml" in files and info["version"]


def test_pip_dies_with_a_sigkilled_fix_apply_and_the_next_run_cleans_up(tmp_path):
    """pip waits on an index that never answers; envcheck is killed with SIGKILL (no handler of ours
    runs): pip ends with it. The next `fix --apply` removes the work folder the killed run left, and an
    empty one a run killed before locking its marker left."""
    import socket

    machine = make_snapshot(str(tmp_path / "node"), gpu_machine("550.54.15", "12.4",
                                                                [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"]))
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # accepts connections (the kernel does), never answers
    url = f"http://127.0.0.1:{silent.getsockname()[1]}/simple"
    venv = tmp_path / "train"
    marker = f"ENVCHECK_TEST_MARK={uuid.uuid4().hex}"
    env = dict(os.environ, PYTHONPATH=ROOT, ENVCHECK_TEST_MARK=marker.split("=", 1)[1], PIP_NO_CACHE_DIR="1")
    args = [sys.executable, "-m", "envcheck", "fix", "--want", "torch==2.5.1", "--snapshot", machine, "--python", PY,
            "--apply", "--venv", str(venv), "--index-url", url]
    cli = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    pips = []
    try:
        pips = _wait_for(lambda: _procs_with(marker, "pip install"), 240)
        assert pips, "pip never started"
        for pid in pips:
            os.kill(pid, signal.SIGSTOP)
        cli.kill()  # kill -9
        cli.wait(timeout=60)
        gone = _wait_for(lambda: not _procs_with(marker, "pip install"), 30)
        assert gone, "pip outlived a SIGKILLed `fix --apply`"
    finally:
        _kill_all(pips)
        if cli.poll() is None:
            cli.kill()
        cli.wait()
        silent.close()
    left = [n for n in os.listdir(tmp_path) if n.startswith(".train.envcheck-")]
    assert len(left) == 1  # the killed run's work folder (its half-made venv inside)
    (tmp_path / ".train.envcheck-empty0").mkdir()  # killed between making a work folder and locking it
    r = subprocess.run(args[:-2] + ["--offline", "--find-links", str(tmp_path / "nowheels")], env=env,
                       capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert "left by an earlier --apply" in r.stderr, r.stderr[-2000:]
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".train.envcheck-")]
