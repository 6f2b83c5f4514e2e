"""The conventions uv, ruff and gh follow (issue 22 item 6) and one output path (issue 19 item 3):
colour (--color, NO_COLOR only when non-empty, FORCE_COLOR / CLICOLOR_FORCE, TERM=dumb), the top-level
help grouped by task with `status` first, whole summaries and no command module imported, -V, help for
every option, `envcheck completion SHELL`, one meaning for -q, errors that name the real cause, and
progress for `snapshot --deep` and long explain inputs. Every run is a real subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from helpers import gpu_machine, make_snapshot, torch_install
from test_cli_polish import _run_in_pty

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANSI = "\x1b["


def envcheck(*args, **env_extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "COLUMNS") and not k.startswith("ENVCHECK_")}
    env.update(PYTHONPATH=ROOT, TERM="xterm")
    env.update(env_extra)
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    """A machine that passes: the CUDA libraries the cu124 wheel brings are there (pip)."""
    sp = "/opt/venv/lib/python3.11/site-packages"
    good = dict(gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"]),
                **torch_install("2.5.1+cu124", "12.4", packages={"nvidia-cudnn-cu12": "9.1.0.70"}))
    good["libraries.txt"] = "".join(f"{sp}/nvidia/{d}/lib/{lib}\n" for d, lib in (
        ("cuda_runtime", "libcudart.so.12"), ("cudnn", "libcudnn.so.9"), ("cublas", "libcublas.so.12")))
    return make_snapshot(str(tmp_path_factory.mktemp("snap") / "s"), good)


# -- colour ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args,env,coloured", [
    ([], {}, False),  # a pipe: no colour
    (["--color", "always"], {}, True),
    (["--color=always"], {"NO_COLOR": "1"}, True),  # the flag beats the environment
    (["--color", "never"], {"FORCE_COLOR": "1"}, False),
    ([], {"FORCE_COLOR": "1"}, True),
    ([], {"CLICOLOR_FORCE": "1"}, True),
    ([], {"FORCE_COLOR": "0"}, False),  # FORCE_COLOR=0 forces nothing
    ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),  # NO_COLOR wins over FORCE_COLOR
    ([], {"FORCE_COLOR": "1", "NO_COLOR": ""}, True),  # an empty NO_COLOR is unset (no-color.org)
])
def test_colour_in_a_pipe(snap, args, env, coloured):
    r = envcheck(*args, "status", "--snapshot", snap, **env)
    assert r.returncode in (0, 1), r.stderr
    assert (ANSI in r.stdout) is coloured, (args, env, r.stdout[:200])


def test_color_after_the_command_and_never_inside_a_job(snap, tmp_path):
    r = envcheck("status", "--snapshot", snap, "--color", "always")
    assert ANSI in r.stdout, r.stderr
    r = envcheck("status", "--color=never", "--snapshot", snap, FORCE_COLOR="1")
    assert ANSI not in r.stdout and r.returncode in (0, 1)
    r = envcheck("status", "--color", "sometimes", "--snapshot", snap)
    assert r.returncode == 2 and "sometimes" in r.stderr
    r = envcheck("status", "--snapshot", snap, "--color")
    assert r.returncode == 2 and "requires an argument" in r.stderr
    # after `--` the words belong to the job, untouched
    for sep in (["--"], []):  # with `--`, and without it (run's first word starts the job)
        r = envcheck("run", "--mode", "off", "--no-explain", *sep, sys.executable, "-c",
                     "import sys; print(sys.argv[1:])", "--color", "always")
        assert r.returncode == 0 and r.stdout.strip() == "['--color', 'always']", r.stderr


def test_colour_on_a_terminal_and_term_dumb(snap):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(PYTHONPATH=ROOT, TERM="xterm", ENVCHECK_PROGRESS_DELAY="100")
    argv = [sys.executable, "-m", "envcheck", "status", "--snapshot", snap]
    _rc, tty, _ = _run_in_pty(argv, env)
    assert ANSI.encode() in tty
    _rc, tty, _ = _run_in_pty(argv, dict(env, TERM="dumb"))
    assert ANSI.encode() not in tty and b"envcheck " in tty
    _rc, tty, _ = _run_in_pty(argv, dict(env, NO_COLOR="1"))
    assert ANSI.encode() not in tty
    _rc, tty, _ = _run_in_pty(argv, dict(env, NO_COLOR=""))
    assert ANSI.encode() in tty


# -- help ------------------------------------------------------------------------------------------

def test_top_level_help_is_grouped_with_status_first_and_imports_no_command():
    code = ("import sys\nfrom envcheck.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit as e:\n    code = e.code\n"
            "mods = sorted(m for m in sys.modules if m.startswith('envcheck.cli.') and m.split('.')[-1] in "
            "('status','snapshot','smoke','fix','explain','run','fleet','matrix','completion'))\n"
            "print('MODULES=' + ','.join(mods))\nsys.exit(code)\n")
    env = dict(os.environ, PYTHONPATH=ROOT, COLUMNS="200", NO_COLOR="1")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "MODULES=\n" in r.stdout  # --help loaded none of the command modules
    from envcheck.cli import COMMAND_TABLE

    text = r.stdout
    headings = [ln[:-1] for ln in text.splitlines() if ln and not ln.startswith(" ") and ln.endswith(":")]
    groups = list(dict.fromkeys(g for _n, _t, g, _s in COMMAND_TABLE))
    assert [h for h in headings if h in groups] == groups
    names = re.findall(r"^  (\w+) {2,}", text, re.M)
    assert names[0] == "status" and set(names) >= {n for n, *_ in COMMAND_TABLE}
    for name, _target, _group, summary in COMMAND_TABLE:
        assert summary in " ".join(text.split()), name  # whole, never cut with "..."
    assert "..." not in text.split("Check a machine:")[1]


def test_dash_capital_v_prints_the_version():
    from envcheck import __version__

    for flag in ("-V", "--version"):
        r = envcheck(flag)
        assert r.returncode == 0 and r.stdout.startswith(f"envcheck, version {__version__}"), r.stdout


def _every_command():
    import click

    from envcheck.cli import COMMANDS, cli

    ctx = click.Context(cli, info_name="envcheck")
    out = [("envcheck", cli)]
    for name in COMMANDS:
        cmd = cli.get_command(ctx, name)
        out.append((f"envcheck {name}", cmd))
        for sub, subcmd in (getattr(cmd, "commands", None) or {}).items():
            out.append((f"envcheck {name} {sub}", subcmd))
    return out


def test_every_option_has_help():
    missing = []
    for path, cmd in _every_command():
        assert cmd.help, path
        for p in cmd.params:
            if getattr(p, "hidden", False) or p.param_type_name != "option":
                continue
            if not (getattr(p, "help", None) or "").strip():
                missing.append(f"{path} {'/'.join(p.opts)}")
    assert not missing, missing


def test_json_and_markdown_are_one_bundle_with_one_wording():
    helps = {}
    for path, cmd in _every_command():
        for p in cmd.params:
            if "--json" in getattr(p, "opts", ()):
                helps[path] = p.help
    assert {"envcheck status", "envcheck explain", "envcheck fix", "envcheck smoke", "envcheck fleet summarize",
            "envcheck matrix why", "envcheck matrix status", "envcheck matrix show"} <= set(helps)
    assert all(h.startswith("Print the ") and " as JSON" in h for h in helps.values()), helps


def test_quiet_has_one_meaning(tmp_path, snap):
    from envcheck.cli._common import QUIET_HELP

    quiet = {path: p.help for path, cmd in _every_command() for p in cmd.params if "-q" in getattr(p, "opts", ())}
    assert set(quiet) >= {"envcheck status", "envcheck fleet summarize"}
    assert set(quiet.values()) == {QUIET_HELP}
    # fleet summarize -q: nothing when every node passes, the summary when one fails
    good = tmp_path / "good.json"
    r = envcheck("status", "--snapshot", snap, "--json", "--hostname", "n1")
    good.write_text(r.stdout)
    r = envcheck("fleet", "summarize", str(good), "-q")
    assert r.returncode == 0 and r.stdout == "" and r.stderr == "", r.stdout + r.stderr
    r = envcheck("fleet", "summarize", str(good), "-q", "--json")  # a document asked for is printed
    assert r.returncode == 0 and json.loads(r.stdout)["schema"] == "envcheck/fleet/1"
    r = envcheck("status", "--snapshot", snap, "-q")
    assert r.returncode == 0 and r.stdout == ""
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = envcheck("fleet", "summarize", str(good), str(bad), "-q")
    assert r.returncode == 1 and r.stdout and "skipped" not in r.stderr


def test_completion_command_prints_the_script_for_each_shell():
    r = envcheck("--help", COLUMNS="200")
    assert "completion" in r.stdout
    for shell, marker in (("bash", "complete -o nosort -F _envcheck_completion envcheck"),
                          ("zsh", "#compdef envcheck"), ("fish", "complete --no-files --command envcheck")):
        r = envcheck("completion", shell)
        assert r.returncode == 0 and marker in r.stdout, shell
        old = envcheck(**{"_ENVCHECK_COMPLETE": f"{shell}_source"})
        assert old.stdout.strip() == r.stdout.strip()  # the same script as click's variable gives
    r = envcheck("completion", "tcsh")
    assert r.returncode == 2


# -- errors that name the real cause ---------------------------------------------------------------

def test_smoke_with_a_missing_interpreter_says_so(tmp_path):
    missing = str(tmp_path / "no-such-python")
    for flag in ("--interpreter", "--python"):  # --python: the old spelling, hidden, still accepted
        r = envcheck("smoke", flag, missing)
        assert r.returncode == 2
        assert "does not exist" in r.stderr and "no-such-python" in r.stderr, r.stderr
        assert "no framework" not in r.stderr
    r = envcheck("smoke", "--interpreter", "envcheck-no-such-python-xyz")
    assert r.returncode == 2 and "not on PATH" in r.stderr
    plain = tmp_path / "notes.txt"
    plain.write_text("x")
    r = envcheck("smoke", "--interpreter", str(plain))
    assert r.returncode == 2 and "not an executable file" in r.stderr
    r = envcheck("smoke", "--help")
    assert "--interpreter" in r.stdout and "--python" not in r.stdout


def test_fix_sends_nobody_to_a_matrix_update_without_a_source(snap):
    from envcheck.matrix import download

    r = envcheck("fix", "--want", "torch==0.0.1", "--snapshot", snap, "--json")
    assert r.returncode == 1, r.stderr
    plan = json.loads(r.stdout)
    has_default = bool(getattr(download, "DEFAULT_SOURCE", None) or getattr(download, "DEFAULT_URL", None))
    assert ("matrix update" in plan["reason"]) is has_default, plan["reason"]
    assert "torch" in plan["reason"]


# -- progress ----------------------------------------------------------------------------------------

def test_snapshot_deep_shows_progress_on_a_terminal(tmp_path):
    """A stand-in nvidia-smi that takes two seconds: the terminal shows what snapshot is doing."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    smi = bindir / "nvidia-smi"
    smi.write_text("#!/bin/sh\nsleep 2\nexit 9\n")
    smi.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1", TERM="xterm", ENVCHECK_PROGRESS_DELAY="0",
               PATH=f"{bindir}:{os.environ['PATH']}")
    env.pop("ENVCHECK_INTERPRETER", None)
    rc, tty, _ = _run_in_pty([sys.executable, "-m", "envcheck", "snapshot", str(tmp_path / "s"), "--deep"], env)
    text = tty.decode(errors="replace")
    assert rc == 0, text
    assert "envcheck snapshot: importing the frameworks" in text and "wrote " in text
    # and nothing of it in a pipe
    r = subprocess.run([sys.executable, "-m", "envcheck", "snapshot", str(tmp_path / "s2"), "--deep"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and "\x1b[2K" not in r.stderr + r.stdout


def test_explain_shows_how_far_it_read_on_a_terminal(tmp_path):
    log = tmp_path / "big.log"
    with open(log, "w") as fh:
        for i in range(300_000):
            fh.write(f"step {i} loss 0.5 an ordinary line of training output\n")
        fh.write("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1", TERM="xterm", ENVCHECK_PROGRESS_DELAY="0")
    rc, tty, _ = _run_in_pty([sys.executable, "-m", "envcheck", "explain", str(log), "--no-detect"], env)
    text = tty.decode(errors="replace")
    assert rc == 0, text
    assert f"envcheck explain: reading {log}" in text
    assert "\r\x1b[2K" in text  # erased before the result
