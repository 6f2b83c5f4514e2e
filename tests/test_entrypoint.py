"""install_scripts/entrypoint.sh through real shells (sh, dash, bash --posix, busybox when present):
exit codes, exec'd signals, passthrough, every mode, a missing / broken / hanging envcheck."""

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time

import pytest

from helpers import gpu_machine, make_snapshot, torch_install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENTRYPOINT = os.path.join(ROOT, "install_scripts", "entrypoint.sh")


def _shells():
    out = [("sh", ["/bin/sh"])]
    for name, argv in (("dash", ["dash"]), ("bash-posix", ["bash", "--posix"]), ("busybox", ["busybox", "sh"])):
        exe = shutil.which(argv[0])
        if exe:
            out.append((name, [exe] + argv[1:]))
    return out


SHELLS = _shells()


def write_exe(path, body, shebang="#!/bin/sh"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(shebang + "\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


@pytest.fixture(scope="module")
def machines(tmp_path_factory):
    d = tmp_path_factory.mktemp("machines")
    gpu = gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"])
    ok = make_snapshot(str(d / "ok"), gpu)
    # torch cu124 on a 470 driver: driver-too-old (an error finding)
    bad = make_snapshot(str(d / "bad"), dict(gpu_machine("470.57.02", "11.4", [("NVIDIA A100-SXM4-40GB", 40960)],
                                                         cc=["8.0"]), **torch_install("2.5.1+cu124", "12.4")))
    # a CPU-only torch on a GPU machine: framework-cpu-only (a warning only)
    warn = make_snapshot(str(d / "warn"), dict(gpu, **torch_install("2.5.1+cpu", None)))
    return {"ok": ok, "bad": bad, "warn": warn}


@pytest.fixture
def box(tmp_path):
    """A bin dir with `envcheck` (this checkout) and a job script; a clean environment."""
    bindir = tmp_path / "bin"
    write_exe(bindir / "envcheck", f'exec "{sys.executable}" -m envcheck "$@"')
    job = write_exe(tmp_path / "job.py", """
import os, signal, sys, time
d = os.environ["JOB_DIR"]
def on_term(sig, frame):
    open(os.path.join(d, "got-sigterm"), "w").write(str(os.getpid()))
    sys.exit(42)
signal.signal(signal.SIGTERM, on_term)
open(os.path.join(d, "ran"), "w").write(" ".join(sys.argv[1:]))
sys.stdout.write("job-out\\n"); sys.stdout.flush()
sys.stderr.write("job-err\\n"); sys.stderr.flush()
if os.environ.get("JOB_WAIT"):
    open(os.path.join(d, "ready.tmp"), "w").write(str(os.getpid()))
    os.rename(os.path.join(d, "ready.tmp"), os.path.join(d, "ready"))  # whole when it appears
    time.sleep(60)
sys.exit(int(os.environ.get("JOB_RC", "0")))
""", shebang=f"#!{sys.executable}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_") or k == "ENVCHECK_CACHE_DIR"}
    env.update({"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": ROOT, "NO_COLOR": "1", "JOB_DIR": str(tmp_path),
                "ENVCHECK_TIMEOUT": "60"})
    return {"bin": bindir, "job": job, "env": env, "dir": tmp_path}


def entry(shell, box, *job_args, timeout=120, **env):
    e = dict(box["env"], **env)
    args = list(job_args) or [box["job"], "a b", "c"]
    return subprocess.run(shell + [ENTRYPOINT] + args, env=e, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(params=[s[0] for s in SHELLS])
def shell(request):
    return dict(SHELLS)[request.param]


def test_posix_syntax_and_lint():
    for name, sh in SHELLS:
        r = subprocess.run(sh + ["-n", ENTRYPOINT], capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, (name, r.stderr)
    if shutil.which("shellcheck"):
        r = subprocess.run(["shellcheck", "-s", "sh", ENTRYPOINT], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stdout
    if shutil.which("checkbashisms"):
        r = subprocess.run(["checkbashisms", ENTRYPOINT], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stdout + r.stderr


def test_passes_quietly_and_keeps_args_output_and_exit_code(shell, box, machines):
    r = entry(shell, box, ENVCHECK_SNAPSHOT=machines["ok"], JOB_RC="7")
    assert r.returncode == 7
    assert r.stdout == "job-out\n"
    assert r.stderr == "job-err\n"  # the check said nothing
    assert (box["dir"] / "ran").read_text() == "a b c"


def test_warn_mode_reports_and_runs(shell, box, machines):
    r = entry(shell, box, ENVCHECK_SNAPSHOT=machines["bad"], JOB_RC="0")
    assert r.returncode == 0 and r.stdout == "job-out\n"  # the report never pollutes the job's stdout
    assert "driver-too-old" in r.stderr and "running the job anyway" in r.stderr
    assert r.stderr.endswith("job-err\n")
    assert (box["dir"] / "ran").exists()


def test_block_mode_stops_with_3(shell, box, machines):
    r = entry(shell, box, ENVCHECK_SNAPSHOT=machines["bad"], ENVCHECK_MODE="block")
    assert r.returncode == 3
    assert "driver-too-old" in r.stderr and "not starting the job" in r.stderr
    assert not (box["dir"] / "ran").exists()
    r = entry(shell, box, ENVCHECK_SNAPSHOT=machines["ok"], ENVCHECK_MODE="block", JOB_RC="5")
    assert r.returncode == 5 and (box["dir"] / "ran").exists()


def test_strict_makes_warnings_block(shell, box, machines):
    r = entry(shell, box, ENVCHECK_SNAPSHOT=machines["warn"], ENVCHECK_MODE="block")
    assert r.returncode == 0 and r.stderr == "job-err\n"
    r = entry(shell, box, ENVCHECK_SNAPSHOT=machines["warn"], ENVCHECK_MODE="block", ENVCHECK_STRICT="1")
    assert r.returncode == 3 and "framework-cpu-only" in r.stderr


def test_report_is_written(shell, box, machines):
    out = box["dir"] / "reports" / "node.json"
    r = entry(shell, box, ENVCHECK_SNAPSHOT=machines["bad"], ENVCHECK_REPORT=str(out))
    assert r.returncode == 0
    rep = json.loads(out.read_text())
    assert rep["schema"] == "envcheck/report/1" and rep["ok"] is False
    assert rep["driver"]["version"] == "470.57.02"


def test_off_mode_never_calls_envcheck(shell, box):
    marker = box["dir"] / "envcheck-called"
    write_exe(box["bin"] / "envcheck", f"touch {marker}; exit 1")
    r = entry(shell, box, ENVCHECK_MODE="off", JOB_RC="4")
    assert r.returncode == 4 and not marker.exists() and r.stderr == "job-err\n"


@pytest.mark.parametrize("mode", ["warn", "block"])
def test_missing_envcheck_runs_the_job(shell, box, mode):
    os.unlink(box["bin"] / "envcheck")
    r = entry(shell, box, ENVCHECK_MODE=mode, JOB_RC="6")
    assert r.returncode == 6
    assert "envcheck not found" in r.stderr and "running the job unchecked" in r.stderr
    r = entry(shell, box, ENVCHECK_MODE=mode, ENVCHECK_FAIL_CLOSED="1")
    assert r.returncode == (3 if mode == "block" else 0)


@pytest.mark.parametrize("rc", [2, 70])
def test_envcheck_failure_never_blocks_by_default(shell, box, rc):
    write_exe(box["bin"] / "envcheck", f"echo 'envcheck: internal error' >&2; exit {rc}")
    for mode in ("warn", "block"):
        r = entry(shell, box, ENVCHECK_MODE=mode)
        assert r.returncode == 0 and (box["dir"] / "ran").exists(), (mode, r.stderr)
        assert f"failed itself (exit status {rc})" in r.stderr
    r = entry(shell, box, ENVCHECK_MODE="block", ENVCHECK_FAIL_CLOSED="1")
    assert r.returncode == 3


def test_unreadable_snapshot_is_envchecks_usage_error_not_a_block(shell, box):
    r = entry(shell, box, ENVCHECK_MODE="block", ENVCHECK_SNAPSHOT=str(box["dir"] / "nope"), JOB_RC="0")
    assert r.returncode == 0 and "exit status 2" in r.stderr


def test_hanging_envcheck_is_cut_off(shell, box):
    if not shutil.which("timeout"):
        pytest.skip("no timeout command on this machine")
    write_exe(box["bin"] / "envcheck", "sleep 30")
    t0 = time.monotonic()
    r = entry(shell, box, ENVCHECK_TIMEOUT="1", ENVCHECK_MODE="block")
    assert time.monotonic() - t0 < 15
    assert r.returncode == 0 and "no answer within 1 s" in r.stderr
    assert (box["dir"] / "ran").exists()


def test_fix_write_env_writes_the_files(shell, box, machines):
    from envcheck.cli import COMMANDS
    try:
        import envcheck.cli.fix  # noqa: F401
    except ImportError:
        pytest.skip("envcheck fix is not there yet")
    assert "fix" in COMMANDS
    d = box["dir"] / "fixenv"
    for _ in range(2):  # a restarted container writes them again
        r = entry(shell, box, ENVCHECK_SNAPSHOT=machines["bad"], ENVCHECK_FIX="write-env", ENVCHECK_FIX_DIR=str(d))
        assert r.returncode == 0 and "'envcheck fix' failed" not in r.stderr, r.stderr
    assert (d / "requirements.txt").read_text().strip()


def test_fix_print_is_tolerated(shell, box, machines):
    """`envcheck fix` may be absent or fail: a warning, and the job still runs."""
    r = entry(shell, box, ENVCHECK_SNAPSHOT=machines["bad"], ENVCHECK_FIX="print", JOB_RC="0")
    assert r.returncode == 0 and (box["dir"] / "ran").exists()
    assert r.stderr.endswith("job-err\n")
    write_exe(box["bin"] / "envcheck", 'case "$1" in status) exit 1;; fix) echo boom >&2; exit 70;; esac')
    r = entry(shell, box, ENVCHECK_FIX="write-env", ENVCHECK_FIX_DIR=str(box["dir"] / "fixenv"))
    assert r.returncode == 0 and "'envcheck fix' failed (exit status 70)" in r.stderr


def test_fix_gets_the_snapshot_and_dir(shell, box, machines):
    log = box["dir"] / "calls"
    write_exe(box["bin"] / "envcheck", f'printf "%s|" "$@" >> {log}; echo >> {log}; '
                                       'case "$1" in status) exit 1;; esac; exit 0')
    r = entry(shell, box, ENVCHECK_SNAPSHOT="/snap dir", ENVCHECK_FIX="write-env",
              ENVCHECK_FIX_DIR=str(box["dir"] / "fix env"), ENVCHECK_REPORT="/r p.json", ENVCHECK_STRICT="1")
    assert r.returncode == 0
    calls = log.read_text().splitlines()
    assert calls[0] == "status|--quiet|--strict|--report|/r p.json|--snapshot|/snap dir|"
    assert calls[1] == f"fix|--snapshot|/snap dir|--write-env|{box['dir'] / 'fix env'}|--force|"


def test_sigterm_reaches_the_job(shell, box, machines):
    e = dict(box["env"], ENVCHECK_SNAPSHOT=machines["ok"], JOB_WAIT="1")
    p = subprocess.Popen(shell + [ENTRYPOINT, box["job"]], env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ready = box["dir"] / "ready"
    deadline = time.monotonic() + 60
    while not ready.exists() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    assert ready.exists(), p.communicate(timeout=5)
    # exec: the job *is* the entrypoint's process
    assert int(ready.read_text()) == p.pid
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=30)
    assert p.returncode == 42
    assert (box["dir"] / "got-sigterm").exists()


def test_no_command_is_a_usage_error(shell, box):
    r = subprocess.run(shell + [ENTRYPOINT], env=box["env"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "usage" in r.stderr


def test_runs_in_an_image_without_bash(box, machines, tmp_path):
    """Only dash (or busybox) and coreutils on PATH: no bash anywhere the script could reach."""
    dash = shutil.which("dash") or shutil.which("busybox")
    if not dash:
        pytest.skip("neither dash nor busybox installed")
    bindir = tmp_path / "minbin"
    bindir.mkdir()
    for tool in ("timeout", "sleep", "touch", "cat"):
        src = shutil.which(tool)
        if src:
            os.symlink(src, bindir / tool)
    os.symlink(str(box["bin"] / "envcheck"), bindir / "envcheck")
    env = dict(box["env"], PATH=str(bindir), ENVCHECK_SNAPSHOT=machines["bad"], ENVCHECK_MODE="block")
    argv = [dash] + (["sh"] if dash.endswith("busybox") else []) + [ENTRYPOINT, box["job"]]
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 3 and "driver-too-old" in r.stderr


@pytest.mark.parametrize("mode", ["blcok", "BLOCK", "1"])
def test_unknown_mode_fails_closed(shell, box, machines, mode):
    """A typo of block must not run the job unchecked: exit status 2, the job never starts."""
    r = entry(shell, box, ENVCHECK_SNAPSHOT=machines["bad"], ENVCHECK_MODE=mode)
    assert r.returncode == 2 and "unknown ENVCHECK_MODE" in r.stderr and "not starting the job" in r.stderr
    assert not (box["dir"] / "ran").exists() and r.stdout == ""


def test_write_env_default_folder_is_private_and_new(shell, box):
    """Without ENVCHECK_FIX_DIR the files go into a fresh mktemp -d folder (0700), never into the
    predictable $TMPDIR/envcheck-fix that another user could have planted (here: a link to a victim)."""
    log = box["dir"] / "calls"
    write_exe(box["bin"] / "envcheck", f'printf "%s|" "$@" >> {log}; echo >> {log}; '
                                       'case "$1" in status) exit 1;; esac; exit 0')
    tmpdir = box["dir"] / "shared-tmp"
    victim = box["dir"] / "victim"
    victim.mkdir()
    tmpdir.mkdir()
    os.symlink(victim, tmpdir / "envcheck-fix")
    dirs = []
    for _ in range(2):
        r = entry(shell, box, ENVCHECK_FIX="write-env", TMPDIR=str(tmpdir))
        assert r.returncode == 0 and (box["dir"] / "ran").exists(), r.stderr
        fix_call = [c for c in log.read_text().splitlines() if c.startswith("fix|")][-1].split("|")
        d = fix_call[fix_call.index("--write-env") + 1]
        assert f"writing the fix files into {d}" in r.stderr
        dirs.append(d)
        assert os.path.dirname(d) == str(tmpdir) and os.path.basename(d).startswith("envcheck-fix.")
        st = os.lstat(d)
        assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700
    assert dirs[0] != dirs[1]  # a new folder each time
    assert os.listdir(victim) == []


# every kind of argument a job may get; the job writes back what it received
ODD_ARGS = ["", " ", "a b", "line\nbreak", "'", '"', "it's \"x\"", "-", "--", "-n", "-e", "--help", "$HOME", "`id`",
            "$(id)", "\\", "\\n", "*", "?", "[a]", "~", "a=b", "%s", "\t"]


@pytest.mark.parametrize("n", [1, 20000])
def test_arguments_pass_byte_for_byte_in_linear_time(shell, box, n):
    """20,000 arguments (a long file list): before, the entrypoint took 52 s (quadratic shuffling of "$@");
    they must pass unchanged, in order, in a few seconds, whatever the check's outcome."""
    out = box["dir"] / "argv.json"
    job = write_exe(box["dir"] / "echo_args.py",
                    f"import json, sys\nopen({str(out)!r}, 'w').write(json.dumps(sys.argv[1:]))\n",
                    shebang=f"#!{sys.executable}")
    args = [ODD_ARGS[i % len(ODD_ARGS)] + (str(i) if i % 3 == 0 else "") for i in range(n)]
    for status_rc in (0, 1):
        write_exe(box["bin"] / "envcheck", f'exit {status_rc}')
        t0 = time.monotonic()
        r = entry(shell, box, job, *args)
        took = time.monotonic() - t0
        assert r.returncode == 0, r.stderr[-500:]
        assert json.loads(out.read_text()) == args
        assert took < 10, f"{n} arguments took {took:.1f} s"


def test_a_hanging_fix_step_is_cut_off_and_the_job_runs(shell, box):
    """Issue 18: ENVCHECK_FIX has its own time limit (ENVCHECK_FIX_TIMEOUT), so a hanging `fix` never
    holds the job in warn mode."""
    if not shutil.which("timeout"):
        pytest.skip("no timeout command on this machine")
    write_exe(box["bin"] / "envcheck", 'case "$1" in status) exit 1;; fix) sleep 60;; esac')
    t0 = time.monotonic()
    r = entry(shell, box, ENVCHECK_FIX="print", ENVCHECK_FIX_TIMEOUT="1")
    assert time.monotonic() - t0 < 30
    assert r.returncode == 0 and (box["dir"] / "ran").exists()
    assert "'envcheck fix' gave no answer within 1 s (ENVCHECK_FIX_TIMEOUT)" in r.stderr
    write_exe(box["bin"] / "envcheck", 'case "$1" in status) exit 1;; fix) exit 0;; esac')
    r = entry(shell, box, ENVCHECK_FIX="print", ENVCHECK_FIX_TIMEOUT="soon", ENVCHECK_MODE="block")
    assert r.returncode == 3 and "ENVCHECK_FIX_TIMEOUT='soon' is not a whole number" in r.stderr
