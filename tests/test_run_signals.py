"""``envcheck run`` delivers each signal to the job exactly once, whoever sends it: ``kill PID`` (to
envcheck alone), ``kill -- -PGID`` (to envcheck's whole process group: systemd/Slurm/supervisors),
and Ctrl-C on a terminal (the job keeps the terminal's foreground, as with a shell)."""

import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The job counts SIGINTs; after the first one it waits a while for duplicates, writes the count, exits 102.
COUNTER = r"""
import os, signal, sys, time
d = sys.argv[1]
n = [0]
def onint(sig, frame):
    n[0] += 1
signal.signal(signal.SIGINT, onint)
open(os.path.join(d, "ready.tmp"), "w").write(str(os.getpid()))
os.rename(os.path.join(d, "ready.tmp"), os.path.join(d, "ready"))
t = time.time()
while n[0] == 0 and time.time() - t < 60:
    time.sleep(0.005)
t = time.time()
while time.time() - t < 0.4:
    time.sleep(0.005)
open(os.path.join(d, "count"), "w").write(str(n[0]))
sys.exit(102)
"""


def _env():
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    e.update({"PYTHONPATH": ROOT, "NO_COLOR": "1"})
    return e


def _wait_for(path, proc, seconds=60):
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        assert proc.poll() is None, proc.communicate(timeout=5)
        assert time.monotonic() < deadline, "the job did not start"
        time.sleep(0.01)


def _start(d, script):
    os.makedirs(d)
    return subprocess.Popen([sys.executable, "-m", "envcheck", "run", "--mode", "off", "--no-explain", "--",
                             sys.executable, script, d], env=_env(), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


@pytest.mark.parametrize("target", ["pid", "group"])
def test_sigint_reaches_the_job_exactly_once(tmp_path, target):
    """20 deliveries each way (2 at a time; before the fix, half of the group deliveries reached the job
    twice): the job sees exactly one SIGINT, run exits with the job's 102."""
    script = tmp_path / "counter.py"
    script.write_text(COUNTER)
    counts, codes = [], []
    for batch in range(10):
        procs = []
        for i in range(2):
            d = str(tmp_path / f"{batch}-{i}")
            procs.append((d, _start(d, str(script))))
        for d, p in procs:
            _wait_for(os.path.join(d, "ready"), p)
            job_pid = int(open(os.path.join(d, "ready")).read())
            assert job_pid != p.pid and os.getpgid(job_pid) != os.getpgid(p.pid)  # the job's own group
            if target == "pid":
                os.kill(p.pid, signal.SIGINT)
            else:
                os.killpg(os.getpgid(p.pid), signal.SIGINT)  # kill -INT -- -PGID
        for d, p in procs:
            p.communicate(timeout=60)
            codes.append(p.returncode)
            counts.append(int(open(os.path.join(d, "count")).read()))
    assert counts == [1] * 20, counts
    assert codes == [102] * 20, codes


TERMINAL_JOB = r"""
import os, signal, sys, time
d = sys.argv[1]
n = [0]
def onint(sig, frame):
    n[0] += 1
signal.signal(signal.SIGINT, onint)
line = sys.stdin.readline()  # reading the terminal: only the foreground process group may
open(os.path.join(d, "line"), "w").write(line)
sys.stdout.write("READY\n"); sys.stdout.flush()
t = time.time()
while n[0] == 0 and time.time() - t < 60:
    time.sleep(0.005)
time.sleep(0.4)
open(os.path.join(d, "count"), "w").write(str(n[0]))
sys.exit(102)
"""


def _read_until(fd, needle, seconds=60):
    data = b""
    deadline = time.monotonic() + seconds
    while needle not in data and time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.5)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
    return data


def test_terminal_job_control_and_ctrl_c_once(tmp_path):
    """envcheck run on a terminal, as a shell starts it (session leader, foreground group): the job reads
    the terminal (no SIGTTIN), Ctrl-C reaches it once, and the terminal is ours again afterwards."""
    import fcntl
    import termios

    script = tmp_path / "job.py"
    script.write_text(TERMINAL_JOB)
    d = str(tmp_path / "t")
    os.makedirs(d)
    master, slave = pty.openpty()

    def take_terminal():
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    p = subprocess.Popen([sys.executable, "-m", "envcheck", "run", "--mode", "off", "--no-explain", "--",
                          sys.executable, str(script), d], env=_env(), stdin=slave, stdout=slave, stderr=slave,
                         start_new_session=True, preexec_fn=take_terminal)
    os.close(slave)
    try:
        time.sleep(0.5)
        os.write(master, b"hello from the terminal\n")
        out = _read_until(master, b"READY")
        assert b"READY" in out, out
        os.write(master, b"\x1a")  # Ctrl-Z: the job stops, and envcheck run with it (as a shell job)
        deadline, got = time.monotonic() + 30, (0, 0)
        while got[0] == 0 and time.monotonic() < deadline:
            got = os.waitpid(p.pid, os.WUNTRACED | os.WNOHANG)
            time.sleep(0.02)
        assert got[0] == p.pid and os.WIFSTOPPED(got[1]), got
        os.kill(p.pid, signal.SIGCONT)  # `fg`: the job gets the terminal back and goes on
        time.sleep(0.3)
        os.write(master, b"\x03")  # Ctrl-C
        _read_until(master, b"never", seconds=3)
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
        os.close(master)
    assert open(os.path.join(d, "line")).read() == "hello from the terminal\n"
    assert open(os.path.join(d, "count")).read() == "1"
    assert p.returncode == 102
