"""A Ctrl-C at any moment of a run prints one line and ends with exit status 130 (README "Exit status"): also
while envcheck's modules are still loading, where it printed Python's traceback (a KeyboardInterrupt raised in
``envcheck.codecache`` or in the import of click, outside the command's own handling).

Real subprocesses: the console script and ``python -m envcheck``. One case holds the child at a known point of
its imports (a ``click`` module on PYTHONPATH that says it is loading, then waits), so the interrupt lands there
for sure; the sweep sends SIGINT at several delays and asserts only what holds whenever it lands (no timing)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

import envcheck
from helpers import default_stop_signals

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.dirname(os.path.abspath(envcheck.__file__)) + os.sep
SNAP = os.path.join(ROOT, "tests", "data", "snapshots", "gh200-570.124.06-warpik")

# stands in for click: says that the import reached it, then waits to be interrupted
SLOW_CLICK = """import os, time
open(os.environ["READY_FILE"] + ".tmp", "w").close()
os.replace(os.environ["READY_FILE"] + ".tmp", os.environ["READY_FILE"])
time.sleep(120)
"""


def _entries():
    """The two ways in: the console script next to this Python (when installed) and ``python -m envcheck``."""
    out = [[sys.executable, "-m", "envcheck"]]
    script = shutil.which("envcheck", path=os.path.dirname(sys.executable))
    if script:
        out.append([script])
    return out


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENVCHECK_", "PYTHON"))}
    env["PYTHONPATH"] = ROOT
    env.update(extra)
    return env


def _assert_one_line_130(proc_, err: bytes) -> None:
    text = err.decode("utf-8", "replace")
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert len([ln for ln in text.splitlines() if ln.strip()]) == 1, text
    assert proc_.returncode == 130, (proc_.returncode, text)


@pytest.mark.parametrize("entry", _entries(), ids=lambda e: "script" if len(e) == 1 else "-m")
def test_interrupt_while_click_is_imported_is_one_line_and_130(tmp_path, entry):
    (tmp_path / "click.py").write_text(SLOW_CLICK)
    ready = tmp_path / "ready"
    env = _env(PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]), READY_FILE=str(ready))
    p = subprocess.Popen(entry + ["explain", "-"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, cwd=str(tmp_path), preexec_fn=default_stop_signals)
    try:
        for _ in range(1200):  # the import reached the stand-in (bounded: 120 s)
            if ready.exists() or p.poll() is not None:
                break
            time.sleep(0.1)
        assert ready.exists(), p.communicate(timeout=60)
        p.send_signal(signal.SIGINT)
        _out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    _assert_one_line_130(p, err)


@pytest.mark.parametrize("entry", _entries(), ids=lambda e: "script" if len(e) == 1 else "-m")
def test_interrupt_at_several_moments_never_shows_an_envcheck_traceback(tmp_path, entry):
    # wherever the signal lands: before Python handles signals (killed by SIGINT, silent), in Python's own
    # start or pip's script before any envcheck line (Python's traceback, no envcheck frame: outside envcheck's
    # reach), while envcheck loads or runs (one line, 130), or after the run ended (its own exit status)
    outcomes = set()
    for delay in (0.0, 0.02, 0.05, 0.08, 0.12, 0.2, 0.3, 0.5, 0.8):
        p = subprocess.Popen(entry + ["status", "--snapshot", SNAP], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=_env(), cwd=str(tmp_path), preexec_fn=default_stop_signals)
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
        text = err.decode("utf-8", "replace")
        envcheck_frames = [ln for ln in text.splitlines() if ln.strip().startswith("File ") and PACKAGE in ln]
        assert not envcheck_frames, text
        assert p.returncode in (0, 1, 130, -signal.SIGINT), (delay, p.returncode, text)
        if p.returncode == 130:
            assert len([ln for ln in text.splitlines() if ln.strip()]) <= 2 and "Traceback" not in text, text
        outcomes.add(p.returncode)
    assert outcomes  # every run ended (bounded by the timeout above)


def test_an_interrupt_wrapped_by_python_is_an_interrupt(capsys):
    # Python 3.11 wraps an exception raised in __set_name__ (a dataclass field, while a module loads) in a
    # RuntimeError whose __cause__ is the KeyboardInterrupt: seen as exit 70 "internal error" before
    from envcheck import cli_plain

    class Probe:
        def __set_name__(self, owner, name):
            raise KeyboardInterrupt

    try:
        type("Made", (), {"field": Probe()})
    except RuntimeError as exc:  # 3.11
        wrapped: BaseException = exc
    except KeyboardInterrupt as exc:  # 3.12+ adds a note instead of wrapping
        wrapped = RuntimeError("Error calling __set_name__")
        wrapped.__cause__ = exc
    assert cli_plain.exit_code_of(wrapped, debug=False) == 130
    assert "internal error" not in capsys.readouterr().err
    assert cli_plain.exit_code_of(RuntimeError("a bug"), debug=False) == 70


def test_a_program_that_imports_envcheck_keeps_its_own_excepthook(tmp_path):
    # the CLI's quiet interrupt is the envcheck command's own; a program using the library keeps Python's
    prog = tmp_path / "envcheck_user.py"
    prog.write_text("import sys, envcheck\nprint(sys.excepthook is sys.__excepthook__)\n")
    r = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, env=_env(), timeout=60)
    assert r.stdout.strip() == "True", r.stderr
