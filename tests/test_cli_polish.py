"""The command line as a person reads it: help examples kept line for line, a suggestion for a mistyped
command, a progress line on a terminal only, text fitted to the width, and no phrase said twice."""

from __future__ import annotations

import inspect
import json
import os
import re
import select
import subprocess
import sys
import time

import pytest

from helpers import gpu_machine, make_snapshot, torch_install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def envcheck(*args, **env_extra):
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
    env.pop("COLUMNS", None)
    env.update(env_extra)
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, env=env,
                          timeout=120)


# -- help ----------------------------------------------------------------------------------------

def _all_commands():
    import click

    from envcheck.cli import COMMANDS, cli

    ctx = click.Context(cli, info_name="envcheck")
    out = [((), cli)]
    for name in COMMANDS:
        cmd = cli.get_command(ctx, name)
        out.append(((name,), cmd))
        for sub, subcmd in (getattr(cmd, "commands", None) or {}).items():
            out.append(((name, sub), subcmd))
    return out


def _example_lines(cmd):
    doc = inspect.cleandoc(cmd.help or "")
    return [ln.strip() for ln in doc.splitlines() if ln.startswith("    ") and ln.strip()]


def test_every_help_example_is_printed_line_for_line():
    checked = 0
    for path, cmd in _all_commands():
        examples = _example_lines(cmd)
        if not examples:
            continue
        r = envcheck(*path, "--help", COLUMNS="80")
        assert r.returncode == 0, r.stderr
        lines = [ln.strip() for ln in r.stdout.splitlines()]
        for ex in examples:
            assert ex in lines, (path, ex, r.stdout)
            checked += 1
    assert checked >= 15  # every command has examples; each one survived intact


def test_run_help_keeps_its_two_examples_apart():
    r = envcheck("run", "--help", COLUMNS="80")
    assert "\n      envcheck run -- python train.py --epochs 10\n" in r.stdout
    assert "      envcheck run --mode block --report /tmp/envcheck.json -- torchrun train.py\n" in r.stdout


def test_prose_is_still_wrapped_to_the_width():
    r = envcheck("run", "--help", COLUMNS="60")
    prose = r.stdout.split("Example:")[0]
    assert max(len(ln) for ln in prose.splitlines()) <= 60


# -- typos ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("typo,want", [("stauts", "status"), ("snapshto", "snapshot"), ("explian", "explain"),
                                       ("smok", "smoke"), ("fleat", "fleet")])
def test_mistyped_command_gets_a_suggestion(typo, want):
    r = envcheck(typo)
    assert r.returncode == 2
    assert f"No such command '{typo}'. Did you mean '{want}'?" in r.stderr
    assert r.stdout == ""


def test_unknown_command_without_a_close_match_lists_the_commands():
    r = envcheck("frobnicate")
    assert r.returncode == 2 and "Did you mean" not in r.stderr
    assert "status" in r.stderr and "snapshot" in r.stderr


def test_a_real_command_and_options_are_not_mistaken_for_typos():
    r = envcheck("--version")
    assert r.returncode == 0 and r.stdout.startswith("envcheck, version")
    r = envcheck("status", "--bogus")
    assert r.returncode == 2 and "No such option" in r.stderr and "No such command" not in r.stderr


# -- progress ------------------------------------------------------------------------------------

def _run_in_pty(argv, env, cols=100, stdout_pipe=False, timeout=120):
    """Run argv with stderr (and stdout unless stdout_pipe) on a pseudo-terminal of `cols` columns;
    return (exit status, terminal bytes, piped stdout)."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE if stdout_pipe else slave,
                         stderr=slave, env=env, close_fds=True)
    os.close(slave)
    buf = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buf += chunk
        elif p.poll() is not None:
            break
    out = p.stdout.read() if stdout_pipe and p.stdout else b""
    p.wait(timeout=30)
    os.close(master)
    return p.returncode, buf, out


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1", TERM="xterm")
    env.pop("COLUMNS", None)
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def good_snapshot(tmp_path_factory):
    return make_snapshot(str(tmp_path_factory.mktemp("snap") / "s"),
                         dict(gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"]),
                              **torch_install("2.5.1+cu124", "12.4")))


def test_progress_line_on_a_terminal_then_erased(good_snapshot):
    # delay 0: the line appears at once even for this quick check
    rc, tty, _ = _run_in_pty([sys.executable, "-m", "envcheck", "status", "--snapshot", good_snapshot],
                             _env(ENVCHECK_PROGRESS_DELAY="0", ENVCHECK_PROBE_TIMEOUT="5"))
    text = tty.decode()
    assert "\r\x1b[2Kenvcheck status: reading the snapshot (0 s)" in text
    # erased just before the report, and not drawn again into it
    from envcheck import __version__

    hdr = text.index(f"envcheck {__version__} - ")
    assert text[:hdr].endswith("\r\x1b[2K") and "reading the snapshot" not in text[hdr:]
    assert rc in (0, 1) and "Findings" in text[hdr:]


def test_no_progress_when_piped_or_json(good_snapshot):
    # stdout is a pipe (stderr still a terminal): nothing on the terminal
    rc, tty, out = _run_in_pty([sys.executable, "-m", "envcheck", "status", "--snapshot", good_snapshot],
                               _env(ENVCHECK_PROGRESS_DELAY="0"), stdout_pipe=True)
    assert b"reading the snapshot" not in tty and b"\x1b[2K" not in tty
    assert out.decode().startswith("envcheck ")
    # --json on a terminal: only JSON
    rc, tty, _ = _run_in_pty([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", good_snapshot],
                             _env(ENVCHECK_PROGRESS_DELAY="0"))
    assert b"\x1b[2K" not in tty
    assert json.loads(tty.decode().replace("\r\n", "\n"))["schema"] == "envcheck/report/1"


def test_no_progress_for_quick_work_with_the_default_delay(good_snapshot):
    rc, tty, _ = _run_in_pty([sys.executable, "-m", "envcheck", "status", "--snapshot", good_snapshot], _env())
    assert b"reading the snapshot" not in tty


def test_smoke_progress_names_the_framework_and_step(tmp_path):
    """A stand-in interpreter speaks the smoke child's protocol slowly: the progress line follows it."""
    fake = tmp_path / "python"
    events = [{"event": "info", "version": "9.9", "device": "cpu"},
              {"event": "start", "step": "import"}, {"event": "step", "name": "import", "passed": True,
                                                    "seconds": 0.5},
              {"event": "start", "step": "conv2d"}, {"event": "step", "name": "conv2d", "passed": True,
                                                    "seconds": 0.5},
              {"event": "done"}]
    body = "".join(f"echo '{json.dumps(e)}'; sleep 0.6\n" for e in events)
    fake.write_text("#!/bin/sh\n" + body)
    fake.chmod(0o755)
    rc, tty, _ = _run_in_pty([sys.executable, "-m", "envcheck", "smoke", "--framework", "torch", "--python",
                              str(fake)], _env(ENVCHECK_PROGRESS_DELAY="0"))
    text = tty.decode()
    assert "envcheck smoke: torch: import" in text and "envcheck smoke: torch: conv2d" in text
    assert "PASS" in text and rc == 0, text


# -- width ---------------------------------------------------------------------------------------

LONG = "/opt/conda/envs/training-environment-with-a-long-name/lib/python3.11/site-packages/nvidia/cudnn/lib"


@pytest.fixture(scope="module")
def long_path_snapshot(tmp_path_factory):
    files = dict(gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"]),
                 **torch_install("2.5.1+cu124", "12.4"))
    files["ldconfig.txt"] = ("2 libs found in cache `/etc/ld.so.cache'\n"
                             f"\tlibcudnn.so.8 (libc6,x86-64) => {LONG}/libcudnn.so.8.9.7\n"
                             "\tlibcudnn.so.9 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0\n")
    return make_snapshot(str(tmp_path_factory.mktemp("long") / "s"), files)


@pytest.mark.parametrize("cols", [60, 80, 120])
def test_text_fits_the_width(long_path_snapshot, cols):
    r = envcheck("status", "--snapshot", long_path_snapshot, COLUMNS=str(cols))
    assert r.returncode in (0, 1), r.stderr
    lines = r.stdout.splitlines()
    assert max(len(ln) for ln in lines) <= cols, "\n".join(ln for ln in lines if len(ln) > cols)
    full = envcheck("status", "--json", "--snapshot", long_path_snapshot, COLUMNS=str(cols))
    assert LONG in full.stdout  # JSON keeps every path whole
    if cols == 60:
        assert "..." in r.stdout  # a path longer than a line was shortened in the middle
        assert "libcudnn.so.8.9.7" in r.stdout  # ... keeping its file name


def test_default_width_when_not_a_terminal_is_100(long_path_snapshot):
    r = envcheck("status", "--snapshot", long_path_snapshot)
    assert max(len(ln) for ln in r.stdout.splitlines()) <= 100
    assert max(len(ln) for ln in r.stdout.splitlines()) > 80  # it is used, not a narrower one


def test_markdown_is_never_wrapped(long_path_snapshot):
    r = envcheck("status", "--markdown", "--snapshot", long_path_snapshot, COLUMNS="60")
    assert LONG in r.stdout


def test_shorten_middle_and_fit():
    from envcheck.render._width import fit, shorten_middle

    p = "/usr/local/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9"
    s = shorten_middle(p, 40)
    assert len(s) == 40 and s.startswith("/usr/local/") and s.endswith("/libcudnn.so.9") and "..." in s
    assert shorten_middle(p, len(p)) == p
    out = fit("      fix: " + "word " * 40, 50)
    lines = out.splitlines()
    assert all(len(ln) <= 50 for ln in lines)
    assert all(ln.startswith(" " * 11) for ln in lines[1:])  # hangs under the text after "fix: "
    assert fit("short", 50) == "short" and fit("x " * 100, None) == "x " * 100


# -- no phrase said twice ------------------------------------------------------------------------

def _repeated(text, n=4):
    words = [w.strip(".,;:()`'\"").lower() for w in text.split()]  # a path is one word
    seen = set()
    for i in range(len(words) - n + 1):
        gram = tuple(words[i:i + n])
        if gram in seen:
            return " ".join(gram)
        seen.add(gram)
    return None


def _collect_findings(tmp_path_factory):
    """Every finding of the status scenarios of test_checks.py (their own assertions run too)."""
    import test_checks

    reports = []
    from click.testing import CliRunner

    from envcheck.cli import cli

    def run_status(snapshot_dir, *extra):
        res = CliRunner().invoke(cli, ["status", "--json", "--snapshot", str(snapshot_dir), *extra],
                                 standalone_mode=False, catch_exceptions=False)
        rep = json.loads(res.output)
        reports.append(rep)
        code = res.return_value if isinstance(res.return_value, int) else res.exit_code
        return code, rep, res.output

    for name, fn in vars(test_checks).items():
        if name.startswith("test_") and list(inspect.signature(fn).parameters) == ["tmp_path", "run_status"]:
            fn(tmp_path_factory.mktemp(name[:40]), run_status)
    return [f for rep in reports for f in rep["findings"]]


def test_findings_say_nothing_twice(tmp_path_factory):
    findings = _collect_findings(tmp_path_factory)
    ids = {f["id"] for f in findings}
    assert len(findings) >= 20 and {"driver-too-old", "driver-library-mismatch"} <= ids
    for f in findings:
        fix = f.get("fix") or ""
        # the renderers print "fix: " themselves
        assert not re.match(r"(?i)\s*fix\b", fix), f
        for field in ("message", "fix"):
            assert _repeated(f.get(field) or "") is None, (f["id"], field, _repeated(f.get(field) or ""), f)
        assert _repeated(f["message"] + " " + fix, n=6) is None, (f["id"], _repeated(f["message"] + " " + fix, 6))


def test_driver_too_old_says_the_driver_limit_once(tmp_path):
    snap = make_snapshot(str(tmp_path / "s"), dict(gpu_machine("520.61.05", "11.8", [("NVIDIA A100-SXM4-40GB",
                                                                                        40960)], cc=["8.0"]),
                                                   **torch_install("2.5.1+cu124", "12.4")))
    r = envcheck("status", "--json", "--snapshot", snap)
    (f,) = [f for f in json.loads(r.stdout)["findings"] if f["id"] == "driver-too-old"]
    assert f["message"].count("at most") == 1 and f["message"].count("CUDA 12.4") == 1, f["message"]
    assert "driver 520.61.05 supports CUDA 11.8 at most" in f["message"]
    r = envcheck("status", "--snapshot", snap)
    assert "fix: fix" not in r.stdout.lower()
