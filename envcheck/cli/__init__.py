"""The command line. Subcommands load lazily so that ``envcheck status`` imports only what it uses.

This package and :mod:`envcheck.render` are the only places that print. Errors map to exit
statuses in one place, :func:`main`.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from typing import List, Optional

import click

from envcheck import __version__, exit_codes
from envcheck import cli_plain as _plain
from envcheck.cli._format import SuggestingGroup, prepare

__all__ = ["main", "cli", "COMMANDS", "COMMAND_TABLE"]

#: The command table: (name, "module:function" loaded on first use, the task it belongs to, its summary).
#: `envcheck --help` prints the groups and summaries from here, so it imports none of the command
#: modules (tests/test_cli_conventions.py checks that each summary is its command's first help line).
COMMAND_TABLE = [
    ("status", "envcheck.cli.status:status", "Check a machine",
     "Read the machine (or a snapshot) and say which parts do not fit together."),
    ("snapshot", "envcheck.cli.snapshot:snapshot", "Check a machine",
     "Capture this machine's raw facts into DIR, to replay anywhere with `--snapshot DIR`."),
    ("smoke", "envcheck.cli.smoke:smoke", "Check a machine",
     "Run tiny real operations of each framework in a child process that may crash or hang."),
    ("fix", "envcheck.cli.fix:fix", "Fix and explain",
     "Plan a working GPU environment for this machine; print, write or build it."),
    ("explain", "envcheck.cli.explain:explain", "Fix and explain",
     "Read a log or traceback and say which known CUDA / cuDNN / driver failure it shows, and the fix."),
    ("run", "envcheck.cli.run:run", "Jobs and fleets",
     "Check the stack, run a job with its output live, and explain its failure."),
    ("fleet", "envcheck.cli.fleet:fleet", "Jobs and fleets",
     "Work with the reports of many nodes (a cluster, a fleet of containers)."),
    ("matrix", "envcheck.cli.matrix:matrix", "The compatibility matrix",
     "The curated compatibility matrix: show tables, query builds, explain whether a build runs here."),
    ("completion", "envcheck.cli.completion:completion", "Shell",
     "Print the shell completion script for bash, zsh or fish."),
]

#: name -> "module:function" (loaded on first use)
COMMANDS = {name: target for name, target, _group, _summary in COMMAND_TABLE}

INTERNAL_ERROR = exit_codes.INTERNAL_ERROR

COLOR_CHOICES = ("auto", "always", "never")

#: the commands that run with Python's cyclic garbage collector paused when started by :func:`main` (issue 24):
#: a status run is short and bounded (its imports and one report of a snapshot of bounded size): with the
#: collector running it makes ~34 collections that free ~840 objects in all, and they cost 3-5 ms of CPU
#: (benchmarks/README.md). Every other command (explain over a 500 MB log, fleet over 100,000 reports, run's job) resumes the
#: collector as soon as it is chosen, before its module is imported.
GC_PAUSED_COMMANDS = frozenset({"status"})
_gc_paused = False


def ends_without_teardown() -> bool:
    """:func:`envcheck.cli_plain.ends_without_teardown` (asked by ``envcheck.__main__``)."""
    return _plain.ends_without_teardown()


def _resume_gc() -> None:
    global _gc_paused
    if _gc_paused:
        _gc_paused = False
        gc.enable()


class LazyGroup(SuggestingGroup):
    def list_commands(self, ctx: click.Context) -> List[str]:
        extra = sorted(set(super().list_commands(ctx)) - set(COMMANDS))
        return list(COMMANDS) + extra

    def get_command(self, ctx: click.Context, name: str) -> Optional[click.Command]:
        _plain.asked.add(name)
        if name not in GC_PAUSED_COMMANDS:
            _resume_gc()
        if name in COMMANDS:
            mod, attr = COMMANDS[name].split(":")
            return prepare(getattr(importlib.import_module(mod), attr))
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands grouped by task, `status` first, each with its whole summary, from the
        table (no command module is imported)."""
        groups: dict = {}
        for name, _target, group, summary in COMMAND_TABLE:
            groups.setdefault(group, []).append((name, summary))
        for group, rows in groups.items():
            with formatter.section(group):
                formatter.write_dl(rows)


def _version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from envcheck.explain.matcher import engine

    click.echo(f"envcheck, version {__version__} (explain matcher: {engine()})")
    ctx.exit()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]},
             epilog="Run `envcheck COMMAND --help` for a command's options and examples. Colour: --color, "
                    "NO_COLOR, FORCE_COLOR; exit statuses and conventions: docs/cli.md.")
@click.option("-V", "--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version (and the regex engine explain uses) and exit.")
@click.option("--color", "--colour", "color", type=click.Choice(COLOR_CHOICES), default=None, metavar="WHEN",
              help="Colour the text output: auto (default: on a terminal, unless NO_COLOR is set or "
                   "TERM=dumb; FORCE_COLOR / CLICOLOR_FORCE force it), always, never. Also accepted after "
                   "the command: `envcheck status --color never`.")
@click.option("--debug", is_flag=True, help="Show tracebacks of unexpected errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool, color: Optional[str] = None) -> None:
    """envcheck: read this machine's NVIDIA driver, GPUs, CUDA toolkit, cuDNN and framework builds,
    say what does not fit together, and how to fix it.

    Example:

        envcheck status
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    from envcheck.cli._common import set_color_mode

    set_color_mode(ctx, color)


#: options of `envcheck run` that take a value: the word after them is not the job
_RUN_VALUE_OPTIONS = {"--mode", "--report", "--snapshot", "--json-diagnosis", "--interpreter"}


def _hoist_global_options(args: List[str]) -> List[str]:
    """``--color WHEN`` anywhere before the job's words (``envcheck status --color never``) moves to the
    front, where click reads the group's options. A job's own words are left alone: everything after
    ``--``, and for ``run`` everything from its first word that is not one of run's options (``envcheck
    run python train.py --color always`` hands ``--color always`` to the job)."""
    out: List[str] = []
    front: List[str] = []
    command: Optional[str] = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return front + out + args[i:]
        if command == "run" and not a.startswith("-"):
            return front + out + args[i:]  # the job starts here
        if a in ("--color", "--colour"):
            if i + 1 == len(args):
                return [a]  # no value: click says "Option '--color' requires an argument"
            front += args[i:i + 2]
            i += 2
            continue
        if a.startswith(("--color=", "--colour=")):
            front.append(a)
        else:
            out.append(a)
            if command is None and not a.startswith("-"):
                command = a
            elif command == "run" and a in _RUN_VALUE_OPTIONS and i + 1 < len(args):
                out.append(args[i + 1])
                i += 1
        i += 1
    return front + out


def main(argv: Optional[List[str]] = None, gc_paused: bool = False) -> None:
    """Run the CLI and map every outcome to an exit status. ``gc_paused``: the caller (``envcheck.__main__``,
    the console script) paused the collector itself before importing this module, for this function to resume."""
    global _gc_paused
    if gc_paused or gc.isenabled():  # paused until the command is known: see GC_PAUSED_COMMANDS
        gc.disable()
        _gc_paused = True
    try:
        _main(argv)
    finally:
        _resume_gc()


def _main(argv: Optional[List[str]]) -> None:
    _plain.prepare_std_streams()
    args = _hoist_global_options(list(sys.argv[1:] if argv is None else argv))
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
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - envcheck's errors, output errors, the rest
        code = _plain.exit_code_of(exc, debug)
    sys.exit(_plain.finish_output(code))


#: errors of writing the output (a full disk, /dev/full, a vanished terminal): the user's, not a bug
_OUTPUT_ERRNOS = _plain.OUTPUT_ERRNOS


def raise_or_report(exc: BaseException, debug: bool) -> None:
    _plain.raise_or_report(exc, debug)
