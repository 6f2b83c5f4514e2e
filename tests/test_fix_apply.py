"""``envcheck fix --apply`` for real: wheels built here, a local wheelhouse (and a real HTTP server on
127.0.0.1), real ``python -m venv`` and real pip; the re-check is a real ``envcheck status`` of the new venv."""

from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from helpers import build_wheel, default_stop_signals, gpu_machine, make_snapshot

PY = "%d.%d" % sys.version_info[:2]


def torch_wheel(outdir, version="2.5.1+cu124", cuda="12.4", requires=("nvidia-cudnn-cu12==9.1.0.70",)):
    return build_wheel(outdir, "torch", version, {
        "torch/__init__.py": f"__version__ = {version!r}\n",
        "torch/version.py": f"__version__ = {version!r}\ndebug = False\ncuda = {cuda!r}\nhip = None\n",
    }, requires)


def cudnn_wheel(outdir, version="9.1.0.70"):
    return build_wheel(outdir, "nvidia-cudnn-cu12", version, {
        "nvidia/cudnn/__init__.py": "",
        "nvidia/cudnn/lib/libcudnn.so.9": b"\x7fELF not really a library",
    })


@pytest.fixture()
def machine(tmp_path):
    """A snapshot of a GPU node (driver 550, A100) to plan for; the venv is built and re-checked here."""
    return make_snapshot(str(tmp_path / "node"), gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-40GB", 40960)],
                                                             cc=["8.0"]))


def _fix(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "envcheck", "fix", *args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def _leftovers(parent: str):
    return [p for p in os.listdir(parent) if ".envcheck-" in p]


def test_apply_builds_rechecks_and_moves_into_place(tmp_path, machine):
    wh = tmp_path / "wheelhouse"
    wh.mkdir()
    torch_wheel(str(wh))
    cudnn_wheel(str(wh))
    venv = tmp_path / "envs" / "train"
    cp = _fix("--want", "torch==2.5.1", "--snapshot", machine, "--python", PY, "--apply", "--venv", str(venv),
              "--offline", "--find-links", str(wh))
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert "re-checked it: ok" in cp.stderr
    assert "| " in cp.stderr  # pip's output streamed live, line by line
    out = subprocess.run([str(venv / "bin" / "python"), "-c", "import torch, sys; print(torch.__version__, sys.prefix)"],
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["2.5.1+cu124", str(venv)]
    assert (venv / "lib" / f"python{PY}" / "site-packages" / "nvidia" / "cudnn" / "lib" / "libcudnn.so.9").is_file()
    # scripts were relocated: pip's shebang names the final venv, and it runs
    pip = subprocess.run([str(venv / "bin" / "pip"), "--version"], capture_output=True, text=True, timeout=60)
    assert pip.returncode == 0 and str(venv) in pip.stdout
    assert open(venv / "bin" / "activate").read().count(str(venv)) >= 1
    assert not _leftovers(str(venv.parent))
    # the re-check is real: envcheck status of the new venv sees the installed build
    rep = json.loads(subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--interpreter",
                                     str(venv / "bin" / "python")], capture_output=True, text=True,
                                    timeout=120).stdout)
    assert rep["frameworks"]["torch"]["version"] == "2.5.1+cu124"


def test_existing_venv_needs_force_and_failure_leaves_it_untouched(tmp_path, machine):
    wh = tmp_path / "wheelhouse"
    wh.mkdir()
    torch_wheel(str(wh))  # its nvidia-cudnn-cu12 dependency is NOT in the wheelhouse: pip must fail
    venv = tmp_path / "train"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    (venv / "MARKER").write_text("the old venv")
    args = ["--want", "torch==2.5.1", "--snapshot", machine, "--python", PY, "--apply", "--venv", str(venv),
            "--offline", "--find-links", str(wh)]
    cp = _fix(*args)
    assert cp.returncode == 2 and "--force" in cp.stderr
    cp = _fix(*args, "--force")
    assert cp.returncode == 1, cp.stderr
    assert "--apply failed" in cp.stderr and "nvidia-cudnn-cu12" in cp.stderr
    assert (venv / "MARKER").read_text() == "the old venv"
    assert not _leftovers(str(tmp_path))
    # now with the missing wheel: the old venv is replaced
    cudnn_wheel(str(wh))
    cp = _fix(*args, "--force")
    assert cp.returncode == 0, cp.stderr
    assert not (venv / "MARKER").exists()
    assert not _leftovers(str(tmp_path))


def test_a_folder_that_is_not_a_venv_is_never_replaced(tmp_path, machine):
    target = tmp_path / "data"
    target.mkdir()
    (target / "precious.txt").write_text("x")
    cp = _fix("--want", "torch==2.5.1", "--snapshot", machine, "--python", PY, "--apply", "--venv", str(target),
              "--force", "--offline")
    assert cp.returncode == 2 and "not a venv" in cp.stderr
    assert (target / "precious.txt").read_text() == "x"


def test_recheck_failure_keeps_old_venv(tmp_path, machine):
    """A wheel that installs but is not what the plan asked for (a CPU torch): the re-check refuses it."""
    wh = tmp_path / "wheelhouse"
    wh.mkdir()
    torch_wheel(str(wh), version="2.5.1+cpu", cuda=None, requires=())
    venv = tmp_path / "train"
    cp = _fix("--want", "torch==2.5.1", "--snapshot", machine, "--python", PY, "--apply", "--venv", str(venv),
              "--offline", "--find-links", str(wh))
    assert cp.returncode == 1
    assert "re-check" in cp.stderr and "cpu" in cp.stderr
    assert not venv.exists() and not _leftovers(str(tmp_path))


class _Stall(http.server.BaseHTTPRequestHandler):
    hits = 0

    def do_GET(self):  # noqa: N802 - the http.server API
        type(self).hits += 1
        time.sleep(30)  # a wheelhouse that never answers in time

    def log_message(self, *a):
        pass


def _procs_under(path: str):
    """PIDs of live processes whose command line mentions ``path`` (pip, python -m venv, ...)."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmd = fh.read()
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except OSError:
            continue
        if path.encode() in cmd and int(pid) != os.getpid():
            out.append(int(pid))
    return out


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT])
def test_interrupt_leaves_nothing_half_made(tmp_path, machine, sig):
    """A stop signal while pip waits on a stalled wheelhouse: envcheck is gone within about a second, pip
    (its whole group) with it, and so is the work folder. Before: SIGINT/SIGTERM took 10 s, SIGHUP/SIGQUIT
    left pip running and the folder behind."""
    _Stall.hits = 0
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Stall)
    srv.daemon_threads = True
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}/"
        venv = tmp_path / "train"
        proc = subprocess.Popen([sys.executable, "-m", "envcheck", "fix", "--want", "torch==2.5.1", "--snapshot",
                                 machine, "--python", PY, "--apply", "--venv", str(venv), "--offline",
                                 "--find-links", url], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=default_stop_signals)
        deadline = time.monotonic() + 180
        while _Stall.hits == 0 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert _Stall.hits > 0, "pip never reached the wheelhouse"
        assert _leftovers(str(tmp_path)), "the half-made venv should exist while pip runs"
        assert _procs_under(str(tmp_path)), "pip should be running"
        t0 = time.monotonic()
        proc.send_signal(sig)  # to envcheck alone (docker stop, a closed terminal, kill PID)
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - t0
        assert proc.returncode == (130 if sig == signal.SIGINT else 128 + int(sig)), err
        assert took < 3, f"took {took:.2f} s to stop"
        time.sleep(0.2)
        assert not _procs_under(str(tmp_path)), "pip was left running"
        assert not venv.exists()
        assert not _leftovers(str(tmp_path))
    finally:
        srv.shutdown()
        srv.server_close()


# Runs `envcheck fix ...` in a Python whose os.rename SIGKILLs the process at a chosen point of the swap.
KILLER = """
import os, signal, sys
import envcheck.plan.apply as apply
when = sys.argv[1]
if when == "between-renames":
    apply._exchange = lambda a, b: False  # a system without renameat2(RENAME_EXCHANGE)
real_rename, real_exchange = os.rename, apply._exchange
def rename(src, dst):
    real_rename(src, dst)
    if when == "between-renames" and dst.endswith(os.sep + "previous"):
        os.kill(os.getpid(), signal.SIGKILL)  # kill -9 after the first rename, before the second
def exchange(a, b):
    done = real_exchange(a, b)
    if when == "after-exchange":
        os.kill(os.getpid(), signal.SIGKILL)
    return done
os.rename = rename
apply._exchange = exchange
from envcheck.cli import main
main(sys.argv[2:])
"""


def _old_venv(path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    (path / "MARKER").write_text("the old venv")


def test_kill_9_between_the_renames_is_recovered_by_the_next_run(tmp_path, machine):
    """Without RENAME_EXCHANGE the swap is two renames; kill -9 between them leaves no venv at the target
    path. The journal lets the next `fix --apply` put the previous venv back first."""
    wh = tmp_path / "wheelhouse"
    wh.mkdir()
    torch_wheel(str(wh))
    cudnn_wheel(str(wh))
    venv = tmp_path / "train"
    _old_venv(venv)
    args = ["fix", "--want", "torch==2.5.1", "--snapshot", machine, "--python", PY, "--apply", "--venv", str(venv),
            "--offline", "--find-links", str(wh), "--force"]
    cp = subprocess.run([sys.executable, "-c", KILLER, "between-renames", *args], capture_output=True, text=True,
                        timeout=600, stdin=subprocess.DEVNULL)
    assert cp.returncode == -9, cp.stderr
    assert not venv.exists()  # the attack: nothing at the target path ...
    assert len(_leftovers(str(tmp_path))) == 1
    # ... and the next run (one that fails: the wheelhouse lost a wheel) restores the previous venv first
    os.remove(next(str(wh / f) for f in os.listdir(wh) if f.startswith("nvidia_cudnn")))
    cp = _fix(*args[1:])
    assert "restored the previous venv" in cp.stderr, cp.stderr
    assert cp.returncode == 1 and (venv / "MARKER").read_text() == "the old venv"
    assert not _leftovers(str(tmp_path))


def test_kill_9_after_the_atomic_exchange_and_stale_folders(tmp_path, machine):
    """With RENAME_EXCHANGE there is no moment without a venv at the path; the work folder a killed run
    left is removed by the next run, and a folder that only looks like one (no marker) is left alone."""
    from envcheck.plan.apply import _exchange

    probe = tmp_path / "probe"
    (probe / "a").mkdir(parents=True)
    (probe / "b").mkdir()
    if not _exchange(str(probe / "a"), str(probe / "b")):
        pytest.skip("this file system has no renameat2(RENAME_EXCHANGE)")
    wh = tmp_path / "wheelhouse"
    wh.mkdir()
    torch_wheel(str(wh))
    cudnn_wheel(str(wh))
    venv = tmp_path / "train"
    _old_venv(venv)
    lookalike = tmp_path / ".train.envcheck-mine"
    lookalike.mkdir()
    (lookalike / "keep.txt").write_text("not envcheck's")
    args = ["fix", "--want", "torch==2.5.1", "--snapshot", machine, "--python", PY, "--apply", "--venv", str(venv),
            "--offline", "--find-links", str(wh), "--force"]
    cp = subprocess.run([sys.executable, "-c", KILLER, "after-exchange", *args], capture_output=True, text=True,
                        timeout=600, stdin=subprocess.DEVNULL)
    assert cp.returncode == -9, cp.stderr
    assert (venv / "pyvenv.cfg").is_file() and not (venv / "MARKER").exists()  # the new venv, complete
    assert len(_leftovers(str(tmp_path))) == 2  # the killed run's folder (old venv inside) + the look-alike
    cp = _fix(*args[1:])
    assert cp.returncode == 0, cp.stderr
    assert "left by an earlier --apply" in cp.stderr
    assert _leftovers(str(tmp_path)) == [lookalike.name]
    assert (lookalike / "keep.txt").read_text() == "not envcheck's"


def test_apply_with_uv(tmp_path, machine):
    from envcheck.plan.apply import _find_uv

    if _find_uv() is None:
        pytest.skip("uv is not installed here (it is in the test extras)")
    wh = tmp_path / "wheelhouse"
    wh.mkdir()
    torch_wheel(str(wh))
    cudnn_wheel(str(wh))
    venv = tmp_path / "uvenv"
    cp = _fix("--want", "torch==2.5.1", "--snapshot", machine, "--python", PY, "--apply", "--venv", str(venv), "--uv",
              "--offline", "--find-links", str(wh))
    assert cp.returncode == 0, cp.stderr
    assert "uv pip" in cp.stderr
    out = subprocess.run([str(venv / "bin" / "python"), "-c", "import torch, sys; print(torch.__version__, sys.prefix)"],
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["2.5.1+cu124", str(venv)]
    assert not _leftovers(str(tmp_path))


def test_a_hanging_install_is_stopped_by_the_time_limit(tmp_path, machine):
    """ENVCHECK_INSTALL_TIMEOUT bounds every step, also one that prints nothing (a stalled wheelhouse)."""
    _Stall.hits = 0
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Stall)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        venv = tmp_path / "train"
        env = dict(os.environ, ENVCHECK_INSTALL_TIMEOUT="20")
        t0 = time.monotonic()
        cp = subprocess.run([sys.executable, "-m", "envcheck", "fix", "--want", "torch==2.5.1", "--snapshot", machine,
                             "--python", PY, "--apply", "--venv", str(venv), "--offline", "--find-links",
                             f"http://127.0.0.1:{srv.server_address[1]}/"], capture_output=True, text=True,
                            timeout=240, env=env, stdin=subprocess.DEVNULL)
        assert cp.returncode == 1 and "longer than 20 s" in cp.stderr, cp.stderr[-800:]
        assert time.monotonic() - t0 < 200
        assert not venv.exists() and not _leftovers(str(tmp_path))
    finally:
        srv.shutdown()
        srv.server_close()
