"""A plain `envcheck status` run takes a road without click (envcheck.cli_plain, issue 24): it must accept exactly
what click's status command accepts the same way, and give the same output, files and exit status as click's
road (``envcheck.cli.main``) for every flag, snapshot, environment and output it takes; anything else goes to
click."""

from __future__ import annotations

import errno
import io
import json
import os
import pty
import re
import subprocess
import sys

import pytest

from envcheck import cli_plain

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SNAPSHOTS = sorted(os.path.join(ROOT, "tests", "data", "snapshots", n)
                   for n in os.listdir(os.path.join(ROOT, "tests", "data", "snapshots")))
H100 = os.path.join(ROOT, "tests", "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot")

#: the road without click (the console entry) and click's road (envcheck.cli.main), each in a child
FAST = [sys.executable, "-m", "envcheck"]
CLICK = [sys.executable, "-c", "import sys; from envcheck.cli import main; sys.argv[0] = 'envcheck'; main()"]


def _env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("ENVCHECK_HOSTNAME", "ENVCHECK_INTERPRETER", "NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE",
                        "COLUMNS", "ENVCHECK_DEBUG")}
    env.update(PYTHONPATH=ROOT, ENVCHECK_CACHE_DIR=str(tmp_path / "cache"))
    env.update(extra)
    return env


def _untimed(text):
    text = re.sub(r"(envcheck_report_created_timestamp_seconds(\{[^}]*\})?) \S+", r"\1 TIME", text)
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(Z|\+00:00)?", "TIME", text)


def _both(tmp_path, args, **env):
    out = []
    for road in (FAST, CLICK):
        r = subprocess.run(road + args, capture_output=True, text=True, env=_env(tmp_path, **env), cwd=ROOT,
                           timeout=300)
        out.append((r.returncode, _untimed(r.stdout), _untimed(r.stderr)))
    return out


# -- what the short road accepts -------------------------------------------------------------------------

def _status_command():
    from envcheck.cli.status import status

    return status


def test_the_short_roads_flags_are_status_options_spelt_as_click_spells_them():
    params = {p.name: p for p in _status_command().params}
    for spelling, name in cli_plain._FLAGS.items():
        p = params[name]
        assert p.is_flag and spelling in p.opts + p.secondary_opts, spelling
        assert not p.secondary_opts and p.envvar is None
    for spelling, name in cli_plain._VALUES.items():
        p = params[name]
        assert not p.is_flag and p.nargs == 1 and spelling in p.opts and p.envvar is None and p.default is None
    # every option click would fill from the environment sends the run to click when that variable is set
    envvars = {p.envvar for p in params.values() if getattr(p, "envvar", None)}
    assert envvars == set(cli_plain._OPTION_ENV)


@pytest.mark.parametrize("argv, want", [
    (["status"], {}),
    (["status", "--json"], {"as_json": True}),
    (["status", "-q", "--strict", "--require-gpu"], {"quiet": True, "strict": True, "require_gpu": True}),
    (["status", "--snapshot", "x", "--json"], {"snapshot_path": "x", "as_json": True}),
    (["status", "--snapshot=x", "--snapshot=y"], {"snapshot_path": "y"}),
    (["status", "--report", "r.json", "--force"], {"report_path": "r.json", "force": True}),
    (["status", "--json", "--json"], {"as_json": True}),
])
def test_plain_status_runs_take_the_short_road(argv, want, monkeypatch):
    for k in cli_plain._OPTION_ENV:
        monkeypatch.delenv(k, raising=False)
    assert cli_plain.status_fast_args(argv) == want


@pytest.mark.parametrize("argv", [
    [], ["--json"], ["stat"], ["status", "--help"], ["status", "-h"], ["--color", "never", "status"],
    ["status", "--color", "never"], ["status", "--colour=never"], ["--debug", "status"], ["status", "--jsn"],
    ["status", "--snapshot"], ["status", "--snapshot="], ["status", "--snapshot", "--json"], ["status", "-qj"],
    ["status", "--json", "--markdown"], ["status", "--prometheus", "--json"], ["status", "extra"],
    ["status", "--"], ["status", "--json=1"], ["status", "--interpreter", "python3"], ["status", "--hostname", "n"],
    ["status", "--report"], ["snapshot", "x"], ["explain", "log"],
])
def test_everything_else_goes_to_click(argv, monkeypatch):
    for k in cli_plain._OPTION_ENV:
        monkeypatch.delenv(k, raising=False)
    assert cli_plain.status_fast_args(argv) is None


@pytest.mark.parametrize("var", ["ENVCHECK_HOSTNAME", "ENVCHECK_INTERPRETER"])
@pytest.mark.parametrize("value", ["", "node1", "bad name"])
def test_an_option_from_the_environment_goes_to_click(var, value, monkeypatch):
    monkeypatch.setenv(var, value)
    assert cli_plain.status_fast_args(["status", "--json"]) is None


def test_shell_completion_goes_to_click(monkeypatch, tmp_path):
    monkeypatch.setenv("_ENVCHECK_COMPLETE", "bash_complete")
    assert cli_plain.status_fast_args(["status", "--json"]) is None
    fast, slow = _both(tmp_path, ["status", "--js"], _ENVCHECK_COMPLETE="bash_complete", COMP_WORDS="envcheck status --js",
                       COMP_CWORD="2")
    assert fast == slow


def test_the_short_road_imports_no_click(tmp_path):
    code = ("import sys, runpy\nsys.argv = ['envcheck'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('envcheck', run_name='__main__')\nexcept SystemExit as e:\n    rc = e.code\n"
            "sys.stderr.write('\\nCLICK=%s RC=%s\\n' % ('click' in sys.modules, rc))\n")
    for args, want in ((["status", "--json"], "False"), (["status", "--snapshot", SNAPSHOTS[0]], "False"),
                       (["status", "--color", "never"], "True")):
        r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                           env=_env(tmp_path), cwd=ROOT, timeout=300)
        assert f"CLICK={want} RC=" in r.stderr, (args, r.stderr[-400:])


# -- the same output, files and exit status as click's road ------------------------------------------------

@pytest.mark.parametrize("snap", SNAPSHOTS + [H100])
def test_snapshots_report_the_same(tmp_path, snap):
    for args in (["status", "--json", "--snapshot", snap], ["status", f"--snapshot={snap}"],
                 ["status", "--markdown", "--snapshot", snap], ["status", "--prometheus", "--snapshot", snap],
                 ["status", "--strict", "-q", "--snapshot", snap], ["status", "--require-gpu", "--snapshot", snap]):
        fast, slow = _both(tmp_path, args)
        assert fast == slow, args
        assert fast[1].strip() or "-q" in args


@pytest.mark.parametrize("args", [["status"], ["status", "--json"], ["status", "--markdown"], ["status", "-q"],
                                  ["status", "--strict"], ["status", "--require-gpu", "--json"],
                                  ["status", "--prometheus"], ["status", "--json", "--quiet"]])
def test_this_machine_reports_the_same(tmp_path, args):
    fast, slow = _both(tmp_path, args)
    assert fast == slow


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"FORCE_COLOR": "1"}, {"CLICOLOR_FORCE": "1"}, {"TERM": "dumb"},
                                 {"COLUMNS": "50"}, {"FORCE_COLOR": "0"}, {"NO_COLOR": "1", "FORCE_COLOR": "1"}])
def test_colour_and_width_settings_print_the_same(tmp_path, env):
    snap = SNAPSHOTS[1]
    fast, slow = _both(tmp_path, ["status", "--snapshot", snap], **env)
    assert fast == slow
    if env.get("FORCE_COLOR") == "1" and "NO_COLOR" not in env:
        assert "\x1b[" in fast[1]  # colour in a pipe: printed through click.echo, escapes kept


def _on_a_terminal(tmp_path, road, args):
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen(road + args, stdout=slave, stderr=subprocess.PIPE, env=_env(tmp_path, COLUMNS="90"),
                             cwd=ROOT)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        p.wait(timeout=300)
        return p.returncode, _untimed(b"".join(chunks).decode("utf-8", "replace")), p.stderr.read()
    finally:
        os.close(master)


def test_a_terminal_gets_the_same_colours(tmp_path):
    for snap in SNAPSHOTS[:3]:
        fast = _on_a_terminal(tmp_path, FAST, ["status", "--snapshot", snap])
        slow = _on_a_terminal(tmp_path, CLICK, ["status", "--snapshot", snap])
        assert fast == slow
        assert "\x1b[" in fast[1]


def test_reports_written_the_same(tmp_path):
    snap = SNAPSHOTS[1]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for road, path in ((FAST, a), (CLICK, b)):
        r = subprocess.run(road + ["status", "--snapshot", snap, "--report", str(path), "-q"], capture_output=True,
                           text=True, env=_env(tmp_path), cwd=ROOT, timeout=300)
        assert r.returncode in (0, 1)
    assert _untimed(a.read_text()) == _untimed(b.read_text())
    other = tmp_path / "notes.txt"
    for force in ([], ["--force"]):
        other.write_text("my notes\n")
        fast, slow = _both(tmp_path, ["status", "--snapshot", snap, "--report", str(other), *force])
        assert fast == slow
        if not force:
            assert fast[0] == 2 and other.read_text() == "my notes\n"


@pytest.mark.parametrize("args", [["status", "--snapshot", "/nonexistent/snap"], ["status", "--snapshot", ROOT + "/README.md"],
                                  ["status", "--report", ROOT + "/README.md/r.json"]])
def test_errors_say_the_same(tmp_path, args):
    fast, slow = _both(tmp_path, args)
    assert fast == slow and fast[0] == 2 and fast[2]


def test_a_full_disk_and_a_closed_stdout_say_the_same(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    got = []
    for road in (FAST, CLICK):
        with open("/dev/full", "w") as full:
            r = subprocess.run(road + ["status", "--json", "--snapshot", SNAPSHOTS[0]], stdout=full,
                               stderr=subprocess.PIPE, text=True, env=_env(tmp_path), cwd=ROOT, timeout=300)
        c = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *road, "status", "--snapshot", SNAPSHOTS[0]],
                           stderr=subprocess.PIPE, text=True, env=_env(tmp_path), cwd=ROOT, timeout=300)
        got.append((r.returncode, r.stderr, c.returncode, c.stderr))
    assert got[0] == got[1] and got[0][0] == 2


def test_a_broken_pipe_ends_the_same(tmp_path):
    got = []
    for road in (FAST, CLICK):
        p = subprocess.Popen(road + ["status", "--json", "--snapshot", H100], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=_env(tmp_path), cwd=ROOT)
        p.stdout.close()  # nobody reads: the first write fails with EPIPE
        err = p.stderr.read()
        got.append((p.wait(timeout=300), err))
    assert got[0] == got[1]


# -- the outcomes of a run, in process ------------------------------------------------------------------------

def _raiser(exc):
    def run_status(*a, **k):
        raise exc
    return run_status


@pytest.mark.parametrize("exc", [
    "usage", "matrix", "envcheck", "oserror", "full", "keyboard", "eof", "internal",
])
def test_each_outcome_maps_as_clicks_road_maps_it(exc, monkeypatch, capsys):
    from envcheck.errors import EnvcheckError, MatrixError, UsageError

    make = {"usage": lambda: UsageError("bad input"), "matrix": lambda: MatrixError("broken row"),
            "envcheck": lambda: EnvcheckError("unreadable"), "oserror": lambda: OSError(errno.EACCES, "denied"),
            "full": lambda: OSError(errno.ENOSPC, "No space left on device"), "keyboard": KeyboardInterrupt,
            "eof": EOFError, "internal": lambda: RuntimeError("boom")}[exc]
    monkeypatch.delenv("ENVCHECK_DEBUG", raising=False)
    monkeypatch.setattr(cli_plain, "run_status", lambda *a, **k: (_ for _ in ()).throw(make()))
    monkeypatch.setattr(cli_plain, "silence_stdout", lambda: None)
    got = []
    for road in ("fast", "click"):
        if road == "fast":
            code = cli_plain.run_fast_status({"as_json": True})
        else:
            from envcheck import cli

            with pytest.raises(SystemExit) as info:
                cli.main(["status", "--json"])
            code = info.value.code
        cap = capsys.readouterr()
        got.append((code, cap.out, cap.err))
    assert got[0] == got[1]
    assert got[0][0] != 0


def test_a_broken_pipe_inside_the_run_is_clicks_exit_1(monkeypatch):
    monkeypatch.setattr(cli_plain, "run_status", lambda *a, **k: (_ for _ in ()).throw(BrokenPipeError(errno.EPIPE, "x")))
    out, err = sys.stdout, sys.stderr
    try:
        with pytest.raises(SystemExit) as info:
            cli_plain.run_fast_status({})
        assert info.value.code == 1
        assert isinstance(sys.stdout, cli_plain._PacifyFlush)
    finally:
        sys.stdout, sys.stderr = out, err


def test_echo_is_clicks_echo_for_plain_text(capsys):
    import click

    for text, nl in (("plain", True), ("", True), ("", False), ("a\nb\n", False), ("ünïcode …", True),
                     ("\x1b[31mred\x1b[0m", True)):
        cli_plain.echo(text, nl=nl)
        mine = capsys.readouterr()
        click.echo(text, nl=nl)
        theirs = capsys.readouterr()
        assert mine == theirs, text
    buf = io.StringIO()
    assert json.dumps({"a": 1}) and buf.getvalue() == ""


def test_a_status_run_imports_none_of_the_modules_it_does_without(tmp_path):
    """The short road imports neither click nor inspect (dataclasses gets a stand-in that loads it on first use;
    every dataclass on the way has a docstring, so dataclasses never asks), nor platform, datetime or glob; and
    after the run inspect is the real module and dataclasses' own use of it works."""
    code = "import sys, runpy\n" + (
        "sys.argv = ['envcheck'] + sys.argv[1:]\n"
        "try:\n    runpy.run_module('envcheck', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "gone = [m for m in ('click', 'inspect', 'dis', 'tokenize', 'platform', 'datetime', 'glob') if m in sys.modules]\n"
        # a live run on a machine with a package whose requirements carry markers (tensorflow's do) evaluates
        # them with packaging.markers, which imports platform, and dataclasses (so inspect, dis, tokenize) for
        # its tokenizer: those are packaging's imports, not the short road's
        "if 'packaging.markers' in sys.modules:\n"
        "    gone = [m for m in gone if m not in ('inspect', 'dis', 'tokenize', 'platform')]\n"
        "import dataclasses\n"
        "nodoc = []\n"
        "for name, mod in list(sys.modules.items()):\n"
        "    if name.startswith('envcheck'):\n"
        "        for obj in list(vars(mod).values()):\n"
        "            if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == name:\n"
        "                if not obj.__doc__ or obj.__doc__.startswith(obj.__name__ + '('):\n"
        "                    nodoc.append(name + '.' + obj.__name__)\n"
        "@dataclasses.dataclass\nclass Late:\n    a: int\n"
        "import inspect\n"
        "sys.stderr.write('\\nRESULT %r %r %r %r\\n' % (gone, nodoc, Late.__doc__, type(inspect).__name__))\n")
    for args in (["status", "--json"], ["status"], ["status", "--snapshot", H100]):
        # the suite's schema check (ENVCHECK_VALIDATE_SCHEMAS: jsonschema, attrs) is not a user's run
        env = {k: v for k, v in _env(tmp_path).items() if k != "ENVCHECK_VALIDATE_SCHEMAS"}
        for _warm in range(2):  # the first run fills the user cache (parsed matrix, code): the second is a usual one
            r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                               cwd=ROOT, timeout=300)
        line = r.stderr.rsplit("\nRESULT ", 1)[1].strip()
        assert line == "[] [] 'Late(a: int)' 'module'", (args, line, sorted(os.listdir(tmp_path / "cache")))
