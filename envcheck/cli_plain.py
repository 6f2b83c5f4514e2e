"""The parts of the CLI that need no ``click`` (a module beside the ``envcheck.cli`` package, whose import is
click's): output (colour, width, the one ``emit``), the mapping of outcomes
to exit statuses, and the short road of a plain ``envcheck status`` (issue 24).

``click`` costs a process ~15 ms of its ~20 ms more than a bare ``python -c pass`` to import. A status run
with nothing but status's own flags (:func:`status_fast_args`: ``--json``, ``--markdown``, ``--prometheus``,
``--strict``, ``--require-gpu``, ``--deep``, ``--quiet``/``-q``, ``--force``, ``--snapshot``/``--report PATH``)
reads the same flags click would, runs the same function (:func:`run_status`), prints
through :func:`echo` (``click.echo`` itself, imported then, for any text that is not plain ASCII) and maps
every outcome to the same exit status and message as :func:`envcheck.cli.main` (:func:`exit_code_of`, shared
by both). Anything else (``--help``, ``--color``, an unknown or misspelt flag, a missing value,
``ENVCHECK_HOSTNAME`` / ``ENVCHECK_INTERPRETER`` set) takes click's road. tests/test_status_fast.py runs both
roads side by side.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any, Callable, Dict, List, Optional

from envcheck import exit_codes

__all__ = ["echo", "color_enabled_for", "styler", "output_width", "emit", "write_json_doc", "exit_code_of",
           "finish_output", "prepare_std_streams", "status_fast_args", "asked", "ends_without_teardown",
           "run_fast_status", "run_status", "check_hostname"]

#: the commands this process asked for (see :func:`ends_without_teardown`)
asked: set = set()
#: the commands whose run may end without the interpreter's teardown (envcheck.cli.GC_PAUSED_COMMANDS)
TEARDOWN_FREE = frozenset({"status"})


# -- output -----------------------------------------------------------------------------------------------

def env_set(name: str) -> bool:
    """An environment variable that is set and non-empty (no-color.org: an empty NO_COLOR is unset)."""
    return bool(os.environ.get(name, ""))


def env_forces(name: str) -> bool:
    """FORCE_COLOR / CLICOLOR_FORCE: set, non-empty and not "0" (FORCE_COLOR=0 asks for no force)."""
    return os.environ.get(name, "") not in ("", "0")


def forced_color(mode: Optional[str]) -> Optional[bool]:
    """What ``--color`` (None: auto) tells click's echo about keeping escape sequences: True to keep them,
    False to strip them, None to decide by the stream (a terminal keeps them)."""
    if mode == "always" or (mode in (None, "auto") and not env_set("NO_COLOR")
                            and (env_forces("FORCE_COLOR") or env_forces("CLICOLOR_FORCE"))):
        return True
    if mode == "never":
        return False
    return None


def color_enabled_for(mode: str, stream: Any = None) -> bool:
    """Whether text output is coloured, the way uv, ruff and gh decide it:

    1. ``--color always`` / ``--color never``;
    2. ``NO_COLOR`` set and non-empty: no colour (https://no-color.org; an empty value is unset);
    3. ``FORCE_COLOR`` or ``CLICOLOR_FORCE`` set, non-empty and not ``0``: colour, even in a pipe;
    4. ``TERM=dumb``: no colour;
    5. otherwise colour only when ``stream`` (default stdout) is a terminal."""
    if mode in ("always", "never"):
        return mode == "always"
    if env_set("NO_COLOR"):
        return False
    if env_forces("FORCE_COLOR") or env_forces("CLICOLOR_FORCE"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    stream = stream or sys.stdout
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


_COLORS = {"error": "red", "warning": "yellow", "ok": "green", "info": "cyan", "dim": None}


def styler(enabled: bool) -> Callable[[str, str], str]:
    def st(text: str, kind: str) -> str:
        if not enabled:
            return text
        import click

        if kind == "bold":
            return click.style(text, bold=True)
        color = _COLORS.get(kind)
        return click.style(text, fg=color, bold=kind == "error") if color else click.style(text, dim=True)

    return st


def output_width(stream: Any = None) -> int:
    """The width text output is fitted to: ``COLUMNS`` when set, else the terminal's width when
    ``stream`` (default stdout) is a terminal, else 100 columns (a log file, a pipe); never
    below 40."""
    from envcheck.render.width import DEFAULT_WIDTH, MIN_WIDTH

    cols = os.environ.get("COLUMNS", "")
    if cols.isdigit() and int(cols) > 0:
        return max(int(cols), MIN_WIDTH)
    stream = stream or sys.stdout
    try:
        if stream.isatty():
            tty_cols = os.get_terminal_size(stream.fileno()).columns
            if tty_cols > 0:  # a terminal that reports no size gets the default
                return max(tty_cols, MIN_WIDTH)
    except (AttributeError, ValueError, OSError):
        pass
    return int(DEFAULT_WIDTH)


def echo(message: Optional[str] = None, nl: bool = True, err: bool = False, color: Optional[bool] = None) -> None:
    """``click.echo`` of a str without importing click for plain ASCII text without escape sequences (there it
    writes the text and flushes, whatever the stream's encoding); anything else goes through click.echo."""
    out = (message or "") + ("\n" if nl else "")
    if not out.isascii() or "\x1b" in out:
        import click

        click.echo(message, nl=nl, err=err, color=color)
        return
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    if out:
        stream.write(out)
    stream.flush()


def emit(doc: dict, as_json: bool, markdown: bool, render_module: str, text_fn: str,
         markdown_fn: Optional[str] = None, json_indent: int = 2, err: bool = False,
         fit_text: bool = True, text_kw: Optional[dict] = None, *, mode: str = "auto",
         echo: Callable[..., None] = echo) -> None:
    """The one output path: print a command's document as JSON, Markdown or (styled) text fitted to
    :func:`output_width`, through one style (:func:`styler` of :func:`color_enabled_for` ``mode``); the renderer
    loads lazily. A text renderer that takes ``width`` lays out its own columns; the rest is fitted
    line by line, except with ``fit_text=False`` (text that holds commands to copy: never shortened)."""
    import importlib

    from envcheck.render import json_text

    if as_json and markdown:
        import click

        raise click.UsageError("--json and --markdown exclude each other")
    if as_json:
        echo(json_text(doc, indent=json_indent), err=err)
        return
    mod = importlib.import_module(render_module)
    if markdown and markdown_fn:
        echo(getattr(mod, markdown_fn)(doc), nl=False, err=err)
        return
    from envcheck.render.width import fit

    fn = getattr(mod, text_fn)
    stream = sys.stderr if err else sys.stdout
    width = output_width(stream)
    kw = {"width": width} if _takes(fn, "width") else {}
    kw.update(text_kw or {})
    text = fn(doc, styler(color_enabled_for(mode, stream)), **kw)
    echo(fit(text, width) if fit_text else text, nl=False, err=err)


def _takes(fn: Callable[..., Any], name: str) -> bool:
    """``name in inspect.signature(fn).parameters``: read from the code object of a plain function (its
    parameters are the first names of ``co_varnames``: positional, keyword-only, ``*args``, ``**kwargs``),
    from inspect for anything else (a wrapper, a partial, a builtin)."""
    import types

    code = getattr(fn, "__code__", None)
    if type(fn) is types.FunctionType and code is not None and not hasattr(fn, "__wrapped__"):
        n = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
        return name in code.co_varnames[:n]
    import inspect

    return name in inspect.signature(fn).parameters


def write_json_doc(path: str, doc: dict, schema_prefix: str, force: bool = False) -> str:
    """Write ``doc`` as JSON to ``path`` (``--report``, ``ENVCHECK_REPORT``, ``--json-diagnosis``)
    through :func:`envcheck.safe_io.write_file`: a device or FIFO (``/dev/stderr``) is written in
    place, never replaced; an existing regular file is replaced (atomically, keeping its mode) only
    when it is an earlier envcheck document of the same schema, or with ``force``."""
    from envcheck.render import json_text
    from envcheck.safe_io import encode_text, is_envcheck_json, write_file

    return write_file(path, encode_text(json_text(doc, indent=2) + "\n"), force=force,
                      may_replace=lambda old: is_envcheck_json(old, schema_prefix))


# -- outcomes and exit statuses ----------------------------------------------------------------------------

#: errors of writing the output (a full disk, /dev/full, a vanished terminal): the user's, not a bug
OUTPUT_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EBADF, errno.EROFS}


def silence_stdout() -> None:
    # After a broken pipe (`envcheck status | head`), point stdout at /dev/null so that the
    # interpreter's final flush does not raise again.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def say_error(msg: str) -> None:
    try:
        echo(f"envcheck: error: {msg}", err=True)
    except OSError:
        pass


def raise_or_report(exc: BaseException, debug: bool) -> None:
    from envcheck.render import clean_text

    if debug:
        raise exc
    say_error(f"internal error: {type(exc).__name__}: {clean_text(exc)}\n"
              "Re-run with --debug for the traceback, and please report it.")


def _wraps_interrupt(exc: BaseException) -> bool:
    """A Ctrl-C that Python wrapped in another exception (3.11's "Error calling __set_name__" RuntimeError
    when it lands while a class of a module being imported is made): an interrupt, not a bug."""
    seen = 0
    cause = exc.__cause__
    while cause is not None and seen < 20:
        if isinstance(cause, KeyboardInterrupt):
            return True
        cause, seen = cause.__cause__, seen + 1
    return False


def exit_code_of(exc: BaseException, debug: bool) -> int:
    """The exit status (and the message on stderr) of a command that raised ``exc`` (not one of click's own
    exceptions); re-raises what is not an outcome of a command (SystemExit, GeneratorExit)."""
    from envcheck.errors import EnvcheckError, MatrixError, UsageError
    from envcheck.render import clean_text

    if isinstance(exc, UsageError):
        echo(f"envcheck: error: {clean_text(exc)}", err=True)
        return exit_codes.USAGE
    if isinstance(exc, MatrixError):
        echo(f"envcheck: the compatibility matrix is broken: {exc}", err=True)
        return exit_codes.INTERNAL_ERROR
    if isinstance(exc, EnvcheckError):
        echo(f"envcheck: error: {clean_text(exc)}", err=True)
        return exit_codes.USAGE
    if isinstance(exc, BrokenPipeError):
        silence_stdout()
        return exit_codes.OK
    if isinstance(exc, OSError):
        if exc.errno not in OUTPUT_ERRNOS:
            raise_or_report(exc, debug)
            return exit_codes.INTERNAL_ERROR
        # `envcheck status > /dev/full`: the output could not be written; not a bug
        silence_stdout()
        say_error(f"cannot write the output: {exc.strerror or exc}")
        return exit_codes.USAGE
    if isinstance(exc, KeyboardInterrupt) or _wraps_interrupt(exc):
        echo("Interrupted.", err=True)
        return exit_codes.INTERRUPTED
    if isinstance(exc, Exception):  # the last line of defence
        raise_or_report(exc, debug)
        return exit_codes.INTERNAL_ERROR
    raise exc


def finish_output(code: int) -> int:
    """Flush stdout; the exit status once it is written (a failed write of a successful run is exit 2)."""

    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
    except OSError as exc:
        silence_stdout()
        if code == exit_codes.OK or code == exit_codes.FINDINGS:
            say_error(f"cannot write the output: {exc.strerror or exc}")
            code = exit_codes.USAGE
    except ValueError:
        pass
    return code


def _hold_closed_std_fds() -> None:
    """A standard descriptor the caller closed (``envcheck status >&-``) is taken by /dev/null opened
    the wrong way round (stdout read-only, stdin write-only), so that nothing envcheck opens later
    lands on it (a report file written as "stdout", a file handed to a child as its stdin) while using
    it still fails with EBADF as on the closed one: output that cannot be written is "cannot write the
    output" (exit 2). A closed stderr takes /dev/null for writing: messages having nowhere to go is no
    reason to fail, nor to leave `run`'s job unstarted."""
    for fd, flags in ((0, os.O_WRONLY), (1, os.O_RDONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        try:
            held = os.open(os.devnull, flags)
            if held != fd:
                os.dup2(held, fd)
                os.close(held)
            else:
                os.set_inheritable(fd, True)
        except OSError:
            continue


def prepare_std_streams() -> None:
    _hold_closed_std_fds()
    if sys.stdout is None:
        sys.stdout = open(1, "w", encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
    if sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115


def ends_without_teardown() -> bool:
    """Whether the process may end without the interpreter's teardown once the command has returned (issue 24):
    a status run (only the commands of :data:`TEARDOWN_FREE` were asked for) whose output is written and
    closed, with no other thread than daemon ones left. Tearing down ~100 modules and ~17,000 objects (and the
    final collection) costs a status run ~6 ms of CPU and changes nothing it wrote. ``envcheck.__main__`` asks
    this (the CLI's own process only)."""
    import threading

    return (bool(asked) and asked <= TEARDOWN_FREE
            and all(t.daemon or t is threading.main_thread() for t in threading.enumerate()))


# -- envcheck status ------------------------------------------------------------------------------------

def check_hostname(name: Optional[str]) -> Optional[str]:
    """``--hostname`` / ``ENVCHECK_HOSTNAME``: empty means unset; control characters, whitespace inside
    and over-long names are a usage error (exit 2)."""
    if name is None or not name.strip():
        return None
    name = name.strip()
    if len(name) > 253 or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in name):
        import click

        raise click.UsageError(f"--hostname / ENVCHECK_HOSTNAME: {name[:80]!r} is not a host name "
                               "(no spaces or control characters, at most 253 characters)")
    return name


def run_status(snapshot_path: Optional[str] = None, as_json: bool = False, markdown: bool = False,
               strict: bool = False, require_gpu: bool = False, deep: bool = False, quiet: bool = False,
               report_path: Optional[str] = None, hostname: Optional[str] = None, prometheus: bool = False,
               interpreter: Optional[str] = None, force: bool = False, *, echo: Callable[..., None],
               mode: str = "auto", color: Optional[bool] = None) -> int:
    """``envcheck status``: its exit status. ``echo``: click.echo or :func:`echo`; ``mode``:
    ``--color``; ``color``: what click's echo is told about escape sequences (:func:`forced_color`)."""
    from envcheck.probe.open import open_source

    if sum((as_json, markdown, prometheus)) > 1:
        import click

        raise click.UsageError("--json, --markdown and --prometheus exclude each other")
    hostname = check_hostname(hostname)
    from envcheck.checks.pipeline import build_status
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix

    from envcheck.progress import Progress, progress_wanted

    def out(*args: Any, **kw: Any) -> None:
        if color is not None:
            kw["color"] = color
        echo(*args, **kw)

    doing = ("reading the snapshot" if snapshot_path else
             "importing the frameworks in a child process (--deep)" if deep else "reading the machine")
    with Progress("envcheck status", progress_wanted(as_json), doing):
        source = open_source(snapshot_path, deep=deep, interpreter=interpreter)
        matrix = load_matrix()
        env = collect(source, matrix)
    if matrix.not_used and not quiet:
        from envcheck.render import clean_text

        out(f"envcheck: {clean_text(matrix.not_used)}; using the {matrix.origin} matrix", err=True)
    result = build_status(env=env, matrix=matrix, require_gpu=require_gpu, hostname=hostname)
    findings, rep = result.findings, dict(result.document)
    failed = (not rep["ok"]) or (strict and any(f.severity == "warning" for f in findings))
    if report_path:
        write_json_doc(report_path, rep, "envcheck/report/", force=force)
    if quiet and not failed and not as_json:
        return exit_codes.OK
    if prometheus:
        from envcheck.render.prometheus import render_prometheus

        out(render_prometheus(rep), nl=False)
        return exit_codes.FINDINGS if failed else exit_codes.OK
    emit(rep, as_json, markdown, "envcheck.render.text", "render_text", "render_markdown", mode=mode, echo=out)
    return exit_codes.FINDINGS if failed else exit_codes.OK


# -- the short road of `envcheck status` -----------------------------------------------------------------

#: status's flags (the spellings click accepts for them) -> run_status's parameter
_FLAGS = {"--json": "as_json", "--markdown": "markdown", "--prometheus": "prometheus", "--strict": "strict",
          "--require-gpu": "require_gpu", "--deep": "deep", "--quiet": "quiet", "-q": "quiet", "--force": "force"}
#: status's options that take a value -> run_status's parameter
_VALUES = {"--snapshot": "snapshot_path", "--report": "report_path"}
#: environment variables click would read into status's options: with one of them set, click's road
_OPTION_ENV = ("ENVCHECK_HOSTNAME", "ENVCHECK_INTERPRETER")


def status_fast_args(argv: List[str]) -> Optional[Dict[str, Any]]:
    """run_status's arguments when ``argv`` (``sys.argv[1:]``) is ``status`` with only status's own flags and
    options, each spelt exactly, that cannot be a usage error (at most one output format); else None (click)."""
    if not argv or argv[0] != "status" or any(os.environ.get(k) is not None for k in _OPTION_ENV):
        return None
    if os.environ.get("_ENVCHECK_COMPLETE"):  # click's shell completion answers instead of running the command
        return None
    kw: Dict[str, Any] = {}
    args = argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if a in _FLAGS:
            kw[_FLAGS[a]] = True
            i += 1
            continue
        name, eq, value = a.partition("=")
        if name in _VALUES:
            if not eq:
                if i + 1 >= len(args):
                    return None
                value = args[i + 1]
                i += 1
            if not value or value.startswith("-"):
                return None
            kw[_VALUES[name]] = value  # the last one given, as click keeps it
            i += 1
            continue
        return None
    if sum(bool(kw.get(k)) for k in ("as_json", "markdown", "prometheus")) > 1:
        return None
    return kw


class _PacifyFlush:
    """click's wrapper of stdout and stderr after a broken pipe: the final flush's EPIPE is not an error."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as e:
            if e.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.wrapped, attr)


def run_fast_status(kw: Dict[str, Any]) -> int:
    """A plain status run (:func:`status_fast_args`) without click: its exit status (messages printed), each
    outcome as click's road gives it: click's own handling of an interrupt and of a broken pipe inside the
    command (a blank line and "Aborted."; exit 1 with stdout and stderr wrapped), then :func:`exit_code_of`."""
    asked.add("status")
    debug = os.environ.get("ENVCHECK_DEBUG") == "1"
    prepare_std_streams()
    try:
        try:
            code = run_status(echo=echo, mode="auto", color=forced_color(None), **kw)
        except (EOFError, KeyboardInterrupt):
            echo(err=True)  # click closes the terminal's ^C echo, then raises Abort
            echo("Aborted.", err=True)
            code = exit_codes.INTERRUPTED
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise
            sys.stdout = _PacifyFlush(sys.stdout)
            sys.stderr = _PacifyFlush(sys.stderr)
            sys.exit(1)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - mapped as envcheck.cli.main maps it
        code = exit_code_of(exc, debug)
    return finish_output(code)
