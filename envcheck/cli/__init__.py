"""The command line. Subcommands load lazily so that ``envcheck status`` imports only what it uses.

This package and :mod:`envcheck.render` are the only places that print. Errors map to exit
statuses in one place, :func:`main`.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
from typing import List, Optional

import click

from envcheck import __version__, exit_codes
from envcheck.cli._format import SuggestingGroup, prepare
from envcheck.errors import EnvcheckError, MatrixError, UsageError
from envcheck.render import clean_text

__all__ = ["main", "cli", "COMMANDS"]

#: name -> "module:function" (loaded on first use)
COMMANDS = {
    "status": "envcheck.cli.status:status",
    "snapshot": "envcheck.cli.snapshot:snapshot",
    "matrix": "envcheck.cli.matrix:matrix",
    "fix": "envcheck.cli.fix:fix",
    "explain": "envcheck.cli.explain:explain",
    "smoke": "envcheck.cli.smoke:smoke",
    "run": "envcheck.cli.run:run",
    "fleet": "envcheck.cli.fleet:fleet",
}

INTERNAL_ERROR = exit_codes.INTERNAL_ERROR


class LazyGroup(SuggestingGroup):
    def list_commands(self, ctx: click.Context) -> List[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx: click.Context, name: str) -> Optional[click.Command]:
        if name in COMMANDS:
            mod, attr = COMMANDS[name].split(":")
            return prepare(getattr(importlib.import_module(mod), attr))
        return super().get_command(ctx, name)


def _version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from envcheck.explain.matcher import engine

    click.echo(f"envcheck, version {__version__} (explain matcher: {engine()})")
    ctx.exit()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version (and the regex engine explain uses) and exit.")
@click.option("--debug", is_flag=True, help="Show tracebacks of unexpected errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """envcheck: read this machine's NVIDIA driver, GPUs, CUDA toolkit, cuDNN and framework builds,
    say what does not fit together, and how to fix it.

    Example:

        envcheck status
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def _silence_stdout() -> None:
    # After a broken pipe (`envcheck status | head`), point stdout at /dev/null so that the
    # interpreter's final flush does not raise again.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


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
    if sys.stdout is None:
        sys.stdout = open(1, "w", encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
    if sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115


def main(argv: Optional[List[str]] = None) -> None:
    """Console-script entry point: run the CLI and map every outcome to an exit status."""
    _hold_closed_std_fds()
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or os.environ.get("ENVCHECK_DEBUG") == "1"
    try:
        rv = cli.main(args=args, prog_name="envcheck", standalone_mode=False)
        code = rv if isinstance(rv, int) else exit_codes.OK
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        code = exit_codes.INTERRUPTED
    except click.ClickException as exc:  # usage errors, bad parameters, missing files
        exc.show()
        code = exit_codes.USAGE
    except UsageError as exc:
        click.echo(f"envcheck: error: {clean_text(exc)}", err=True)
        code = exit_codes.USAGE
    except MatrixError as exc:
        click.echo(f"envcheck: the compatibility matrix is broken: {exc}", err=True)
        code = INTERNAL_ERROR
    except EnvcheckError as exc:
        click.echo(f"envcheck: error: {clean_text(exc)}", err=True)
        code = exit_codes.USAGE
    except BrokenPipeError:
        _silence_stdout()
        code = exit_codes.OK
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRNOS:
            raise_or_report(exc, debug)
            code = INTERNAL_ERROR
        else:  # `envcheck status > /dev/full`: the output could not be written; not a bug
            _silence_stdout()
            _say_error(f"cannot write the output: {exc.strerror or exc}")
            code = exit_codes.USAGE
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        code = exit_codes.INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        raise_or_report(exc, debug)
        code = INTERNAL_ERROR
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    except OSError as exc:
        _silence_stdout()
        if code == exit_codes.OK or code == exit_codes.FINDINGS:
            _say_error(f"cannot write the output: {exc.strerror or exc}")
            code = exit_codes.USAGE
    except ValueError:
        pass
    sys.exit(code)


#: errors of writing the output (a full disk, /dev/full, a vanished terminal): the user's, not a bug
_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EBADF, errno.EROFS}


def _say_error(msg: str) -> None:
    try:
        click.echo(f"envcheck: error: {msg}", err=True)
    except OSError:
        pass


def raise_or_report(exc: BaseException, debug: bool) -> None:
    if debug:
        raise exc
    _say_error(f"internal error: {type(exc).__name__}: {clean_text(exc)}\n"
               "Re-run with --debug for the traceback, and please report it.")
