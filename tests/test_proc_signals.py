"""A stop signal to envcheck (SIGTERM from `docker stop`, SIGINT, SIGHUP from a closed terminal, SIGQUIT)
takes down the process groups of its children: the probes run in their own sessions (so that a timeout
can kill what they start), where a signal to envcheck alone would never reach them."""

import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from envcheck import proc
from helpers import default_stop_signals

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# writes its PID and its sleeping child's PID, then waits: a hung nvidia-smi / interpreter / smoke child
HANG = """#!/bin/sh
sleep 120 &
echo "$$ $!" > "$D/pids.$$.tmp"
mv "$D/pids.$$.tmp" "$D/pids.$$"
wait
"""


def _exe(path, body):
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (not yet reaped by its new parent) counts as gone
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _pids(d):
    out = []
    for name in os.listdir(d):
        if name.startswith("pids.") and not name.endswith(".tmp"):
            out += [int(x) for x in open(os.path.join(d, name)).read().split()]
    return out


SCENARIOS = {
    "nvidia-smi": ["status"],
    "interpreter": ["status", "--interpreter", "{bin}/python3.99"],
    "smoke": ["smoke", "--framework", "torch", "--python", "{bin}/python3.99"],
    "run-check": ["run", "--", "true"],
}


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_stop_signal_kills_probe_children(tmp_path, scenario, sig):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _exe(bindir / "nvidia-smi", HANG)
    _exe(bindir / "python3.99", HANG)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_") or k == "ENVCHECK_CACHE_DIR"}
    env.update({"PYTHONPATH": ROOT, "NO_COLOR": "1", "D": str(tmp_path), "ENVCHECK_TIMEOUT": "100",
                "PATH": f"{bindir}:{os.environ['PATH']}"})
    args = [a.format(bin=bindir) for a in SCENARIOS[scenario]]
    p = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m", "envcheck", *args], env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=default_stop_signals)
    deadline = time.monotonic() + 60
    while not _pids(tmp_path):
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, "the hanging child never started"
        time.sleep(0.02)
    pids = _pids(tmp_path)
    assert pids and all(_alive(x) for x in pids)
    t0 = time.monotonic()
    p.send_signal(sig)  # to envcheck alone, as `kill PID` / `docker stop` do
    # a generous deadline (a loaded machine is slow): what matters is that envcheck does not wait out the
    # hanging child's 100 s probe timeout
    while p.poll() is None and time.monotonic() - t0 < 45:
        time.sleep(0.01)
    took = time.monotonic() - t0
    if p.poll() is None:  # stuck: show where (faulthandler prints every thread's stack on SIGABRT)
        os.kill(p.pid, signal.SIGABRT)
        pytest.fail("envcheck did not stop within 45 s:\n" + p.communicate(timeout=30)[1].decode()[-5000:])
    p.communicate(timeout=30)
    assert p.returncode in (130, 128 + int(sig)), p.returncode
    deadline = time.monotonic() + 30
    while any(_alive(x) for x in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not any(_alive(x) for x in pids), f"left running after {sig!r}: {[x for x in pids if _alive(x)]}"
    assert took < 45, took  # well under the probe's 100 s timeout


def test_nothing_starts_while_stopping_and_reaped_groups_are_left_alone():
    """Once a stop began, no child starts, and one registered then is killed at once; a reaped child's
    group ID is never signalled again (it may belong to someone else by then)."""
    p = proc.popen_group(["sleep", "30"])
    assert proc.reap(p, timeout=0) is None and p.pid in proc._children
    p.kill()
    assert proc.reap(p, timeout=10) == -9
    assert p.pid not in proc._children
    proc._kill_group(p)  # reaped: a no-op (no killpg on a possibly reused ID)
    q = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        proc._state["stopping"] = True
        with pytest.raises(OSError):
            proc.popen_group(["sleep", "30"])
        proc._register(q)  # a child whose start raced with the stop
        assert proc.reap(q, timeout=10) == -9
    finally:
        proc._state["stopping"] = False
        q.kill()
        q.wait()
