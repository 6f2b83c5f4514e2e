"""``envcheck run -- CMD`` through real subprocesses: exit codes, signals, live passthrough and order,
modes, the failure diagnosis."""

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest

from helpers import gpu_machine, make_snapshot, torch_install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A real PyTorch failure, verbatim from https://github.com/YoungSeng/SRD-VC/issues/16 (2023-06-11).
REAL_TRACEBACK = """Traceback (most recent call last):
  File "demo.py", line 18, in <module>
    G1 = Generator_MI(hparams_, use_VQCPC, use_VQCPC_2).eval().to(device)
  File "/home/zhaofeiyu/.conda/envs/srd/lib/python3.8/site-packages/torch/nn/modules/module.py", line 927, in to
    return self._apply(convert)
  File "/home/zhaofeiyu/.conda/envs/srd/lib/python3.8/site-packages/torch/backends/cudnn/__init__.py", line 50, in _init
    raise RuntimeError(f'{base_error_msg}'
RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 3, 2) but found runtime version (8, 2, 1). PyTorch already comes bundled with cuDNN.
"""


@pytest.fixture(scope="module")
def machines(tmp_path_factory):
    d = tmp_path_factory.mktemp("machines")
    ok = make_snapshot(str(d / "ok"), gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"]))
    bad = make_snapshot(str(d / "bad"), dict(gpu_machine("470.57.02", "11.4", [("NVIDIA A100-SXM4-40GB", 40960)],
                                                         cc=["8.0"]), **torch_install("2.5.1+cu124", "12.4")))
    return {"ok": ok, "bad": bad}


@pytest.fixture
def env(tmp_path, machines):
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_") or k == "ENVCHECK_CACHE_DIR"}
    e.update({"PYTHONPATH": ROOT, "NO_COLOR": "1", "ENVCHECK_SNAPSHOT": machines["ok"], "D": str(tmp_path)})
    return e


def run(args, env, **kw):
    return subprocess.run([sys.executable, "-m", "envcheck", "run", *args], env=env, capture_output=True,
                          timeout=120, **kw)


def py(code):
    return [sys.executable, "-c", code]


def test_exit_code_stdout_and_stderr_pass_through(env):
    r = run(["--", *py("import sys; sys.stdout.write('out\\n'); sys.stderr.write('err\\n'); sys.exit(9)")], env)
    assert r.returncode == 9
    assert r.stdout == b"out\n"
    assert r.stderr.startswith(b"err\n")
    r = run(py("print('no dashes needed')"), env)
    assert r.returncode == 0 and r.stdout == b"no dashes needed\n" and r.stderr == b""


def test_binary_and_large_stderr_is_passed_exactly(env):
    code = ("import os, sys; data = bytes(range(256)) * 8192; sys.stderr.buffer.write(data); sys.stderr.flush();"
            "sys.stdout.buffer.write(data[::-1])")
    r = run(["--no-explain", "--", *py(code)], env)
    data = bytes(range(256)) * 8192
    assert r.returncode == 0 and r.stderr == data and r.stdout == data[::-1]


def test_interleaved_order_is_kept(env):
    code = ("import sys, time\nfor i in range(6):\n"
            "    s = sys.stdout if i % 2 == 0 else sys.stderr\n"
            "    s.write('line%d\\n' % i); s.flush(); time.sleep(0.05)\n")
    p = subprocess.run([sys.executable, "-m", "envcheck", "run", "--", *py(code)], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    assert p.stdout.decode().split() == [f"line{i}" for i in range(6)]


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_output_is_live_not_buffered(env, tmp_path, stream):
    """The job prints a line and then waits for a file that the test creates only after seeing the line."""
    go = tmp_path / "go"
    code = (f"import os, sys, time\nsys.{stream}.write('first\\n'); sys.{stream}.flush()\n"
            f"t = time.time()\nwhile not os.path.exists({str(go)!r}) and time.time() - t < 30: time.sleep(0.02)\n"
            f"sys.{stream}.write('second\\n'); sys.{stream}.flush()\n")
    p = subprocess.Popen([sys.executable, "-m", "envcheck", "run", "--", *py(code)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pipe = p.stdout if stream == "stdout" else p.stderr
    ready, _, _ = select.select([pipe], [], [], 20)
    assert ready, "nothing arrived while the job was still running"
    first = os.read(pipe.fileno(), 100)
    assert first == b"first\n" and p.poll() is None
    go.touch()
    rest = pipe.read()
    p.wait(timeout=30)
    assert rest == b"second\n" and p.returncode == 0


JOB = """
import os, signal, sys, time
d = os.environ["D"]
def handler(sig, frame):
    open(os.path.join(d, "got-%d" % sig), "w").write("x")
    sys.exit(40 + sig)
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1):
    signal.signal(s, handler)
# written under a temporary name and renamed: the test reads `ready` as soon as it exists
open(os.path.join(d, "ready.tmp"), "w").write(str(os.getpid()))
os.rename(os.path.join(d, "ready.tmp"), os.path.join(d, "ready"))
time.sleep(60)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1])
def test_signals_are_forwarded(env, tmp_path, sig):
    p = subprocess.Popen([sys.executable, "-m", "envcheck", "run", "--", *py(JOB)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ready = tmp_path / "ready"
    deadline = time.monotonic() + 120
    while not ready.exists() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    assert ready.exists(), p.communicate(timeout=5)
    assert int(ready.read_text()) != p.pid  # a child, not an exec
    p.send_signal(sig)
    p.communicate(timeout=30)
    assert (tmp_path / f"got-{int(sig)}").exists()
    assert p.returncode == 40 + int(sig)


def test_killed_by_signal_is_128_plus_n(env):
    r = run(["--no-explain", "--", *py("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")], env)
    assert r.returncode == 128 + 9
    r = run(["--", "sh", "-c", "kill -TERM $$"], env)
    assert r.returncode == 128 + 15


def test_command_not_found_and_not_executable(env, tmp_path):
    r = run(["--", "envcheck-no-such-command-xyz"], env)
    assert r.returncode == 127 and b"command not found" in r.stderr
    f = tmp_path / "notexec"
    f.write_text("echo hi\n")
    r = run(["--", str(f)], env)
    assert r.returncode == 126


def test_no_command_is_usage_error(env):
    r = run([], env)
    assert r.returncode == 2
    r = run(["--"], env)
    assert r.returncode == 2


def test_block_mode(env, machines, tmp_path):
    marker = tmp_path / "ran"
    job = py(f"open({str(marker)!r}, 'w').write('x')")
    r = run(["--mode", "block", "--snapshot", machines["bad"], "--", *job], env)
    assert r.returncode == 3 and b"driver-too-old" in r.stderr and not marker.exists()
    r = run(["--", *job], dict(env, ENVCHECK_MODE="block", ENVCHECK_SNAPSHOT=machines["bad"]))
    assert r.returncode == 3 and not marker.exists()
    r = run(["--mode", "block", "--", *job], env)  # the ok machine
    assert r.returncode == 0 and marker.exists()


def test_warn_mode_reports_on_stderr_and_runs(env, machines, tmp_path):
    report = tmp_path / "rep.json"
    r = run(["--report", str(report), "--", *py("print('trained')")], dict(env, ENVCHECK_SNAPSHOT=machines["bad"]))
    assert r.returncode == 0 and r.stdout == b"trained\n"
    assert b"driver-too-old" in r.stderr and b"running the command anyway" in r.stderr
    rep = json.loads(report.read_text())
    assert rep["schema"] == "envcheck/report/1" and rep["ok"] is False


def test_unknown_mode_fails_closed(env, tmp_path):
    """ENVCHECK_MODE=blcok (a typo of block) is a usage error: exit status 2, the command never starts."""
    marker = tmp_path / "ran"
    r = run(["--", *py(f"open({str(marker)!r}, 'w').write('x')")], dict(env, ENVCHECK_MODE="blcok"))
    assert r.returncode == 2 and b"unknown ENVCHECK_MODE" in r.stderr and not marker.exists()


def test_off_mode_and_broken_check(env, tmp_path):
    bad = str(tmp_path / "no-such-snapshot")
    r = run(["--mode", "off", "--", *py("print(1)")], dict(env, ENVCHECK_SNAPSHOT=bad))
    assert r.returncode == 0 and r.stderr == b""
    # envcheck's own failure (an unreadable snapshot) never blocks ...
    for mode in ("warn", "block"):
        r = run(["--mode", mode, "--", *py("print(1)")], dict(env, ENVCHECK_SNAPSHOT=bad))
        assert r.returncode == 0 and b"running the command unchecked" in r.stderr, mode
    # ... unless block mode is asked to fail closed
    r = run(["--mode", "block", "--fail-closed", "--", *py("print(1)")], dict(env, ENVCHECK_SNAPSHOT=bad))
    assert r.returncode == 3 and r.stdout == b""


def test_failure_is_diagnosed_under_the_output(env, tmp_path):
    code = f"import sys; sys.stderr.write({REAL_TRACEBACK!r}); sys.exit(1)"
    diag = tmp_path / "diag.json"
    r = run(["--json-diagnosis", str(diag), "--", *py(code)], env)
    assert r.returncode == 1
    err = r.stderr.decode()
    assert err.startswith(REAL_TRACEBACK)  # the job's own text first, unchanged
    after = err[len(REAL_TRACEBACK):]
    assert "the command failed (exit status 1)" in after
    try:
        from envcheck.explain import explain_text  # noqa: F401
    except ImportError:
        assert "no diagnosis" in after and not diag.exists()
        return
    assert "[cudnn-version-mismatch]" in after
    assert json.loads(diag.read_text())["matches"][0]["id"] == "cudnn-version-mismatch"


def test_unrecognised_failure_is_said_as_such(env, tmp_path):
    """A failure outside the knowledge base (seen on a real H200: a channel mismatch of conv2d) is a verdict too:
    the command's text first, then one line that nothing known was recognised, and an empty JSON diagnosis."""
    text = ("RuntimeError: Given groups=1, weight of size [4, 5, 3, 3], expected input[1, 3, 8, 8] to have 5 "
            "channels, but got 3 channels instead\n")
    diag = tmp_path / "diag.json"
    r = run(["--json-diagnosis", str(diag), "--", *py(f"import sys; sys.stderr.write({text!r}); sys.exit(1)")], env)
    assert r.returncode == 1
    err = r.stderr.decode()
    assert err.startswith(text)
    after = err[len(text):]
    assert "the command failed (exit status 1)" in after
    try:
        from envcheck.explain import explain_text  # noqa: F401
    except ImportError:
        assert "no diagnosis" in after
        return
    assert "No known CUDA / cuDNN / driver failure was recognised" in after and "[" not in after
    assert json.loads(diag.read_text()) == {"schema": "envcheck/explain/1", "matches": []}


def test_no_explain_and_success_print_nothing_extra(env):
    r = run(["--no-explain", "--", *py(f"import sys; sys.stderr.write({REAL_TRACEBACK!r}); sys.exit(1)")], env)
    assert r.returncode == 1 and r.stderr.decode() == REAL_TRACEBACK


def test_tail_is_bounded_and_keeps_the_end(tmp_path):
    from envcheck.jobs import run_job

    out = tmp_path / "err"
    fd = os.open(str(out), os.O_WRONLY | os.O_CREAT)
    try:
        res = run_job(py("import sys\nfor i in range(20000): sys.stderr.write('noise %d\\n' % i)\n"
                         "sys.stderr.write('THE END\\n'); sys.exit(3)"), tail_bytes=1000, err_fd=fd)
    finally:
        os.close(fd)
    assert res.returncode == 3 and res.signal is None
    assert len(res.tail) <= 1000 and res.tail.endswith("noise 19999\nTHE END\n")
    assert out.read_text().count("\n") == 20001  # everything was passed through


def test_stderr_stays_a_terminal(env):
    """On a terminal, the job's stderr is a pseudo-terminal: isatty() and raw bytes are kept."""
    master, slave = pty.openpty()
    code = "import sys; sys.stderr.write('tty=%s\\nx\\n' % sys.stderr.isatty()); sys.stderr.flush()"
    p = subprocess.Popen([sys.executable, "-m", "envcheck", "run", "--", *py(code)], env=env,
                         stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    data = b""
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    p.wait(timeout=30)
    os.close(master)
    assert p.returncode == 0
    assert b"tty=True" in data


def test_a_job_stopped_by_a_signal_with_nothing_known_gets_no_failed_verdict(env):
    """SIGTERM / SIGINT end a job as its user or scheduler asked: without a known failure in its output, nothing is
    printed under it (the exit status says 128+N)."""
    code = "import os, signal, sys; sys.stderr.write('working\\n'); sys.stderr.flush(); os.kill(os.getpid(), signal.SIGTERM)"
    r = run(["--", *py(code)], env)
    assert r.returncode == 128 + 15
    assert r.stderr.decode() == "working\n"
