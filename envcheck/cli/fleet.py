"""``envcheck fleet summarize``."""

from __future__ import annotations

import sys
from typing import Tuple

import click

from envcheck.cli._common import emit

MAX_WARNINGS = 20


@click.group()
def fleet() -> None:
    """Work with the reports of many nodes (a cluster, a fleet of containers).

    Example:

        envcheck fleet summarize reports/
    """


@fleet.command()
@click.argument("inputs", nargs=-1, required=True, metavar="REPORTS...|-")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON (contract schema envcheck/fleet/1).")
@click.option("--markdown", is_flag=True, help="Print the summary as Markdown.")
@click.option("--quiet", "-q", is_flag=True, help="Do not warn about each unreadable report on stderr.")
def summarize(inputs: Tuple[str, ...], as_json: bool, markdown: bool, quiet: bool) -> int:
    """Group nodes by stack fingerprint, list what differs across nodes and which nodes fail.

    REPORTS are `envcheck status --json` files, folders of them (searched recursively for
    *.json), `-` for JSON lines on stdin, or .tar/.tar.gz archives of reports or of snapshot
    folders (a snapshot is checked here). Malformed reports are skipped and listed as unreadable.

    Exit status: 0 when no node fails and nothing differs, 1 otherwise, 2 when nothing could be read.

    Example:

        srun --ntasks-per-node=1 sh -c 'envcheck status --json > reports/$(hostname).json'
        envcheck fleet summarize reports/
        cat reports/*.json | envcheck fleet summarize - --json
    """
    if as_json and markdown:
        raise click.UsageError("--json and --markdown exclude each other")
    from envcheck.fleet import exit_status, read_inputs, summarize as summarize_reports

    stdin_text = None
    if "-" in inputs:
        data = sys.stdin.buffer.read()
        stdin_text = data.decode("utf-8", errors="replace")
    got = read_inputs(list(inputs), stdin_text=stdin_text)
    summary = summarize_reports(got)
    if not quiet:
        for name, why in got.unreadable[:MAX_WARNINGS]:
            click.echo(f"envcheck fleet: skipped {name}: {why}", err=True)
        if len(got.unreadable) > MAX_WARNINGS:
            click.echo(f"envcheck fleet: ... and {len(got.unreadable) - MAX_WARNINGS} more unreadable input(s)",
                       err=True)
    if summary["duplicate_hostnames"] and not quiet:
        dup = summary["duplicate_hostnames"]
        click.echo(f"envcheck fleet: warning: several reports for {', '.join(dup[:10])}"
                   f"{' ...' if len(dup) > 10 else ''} (named NAME#2, ...)", err=True)
    if summary["nodes"] == 0:
        click.echo("envcheck fleet: error: no report could be read", err=True)
    emit(summary, as_json, markdown, "envcheck.render.fleet", "render_fleet_text", "render_fleet_markdown",
         json_indent=1)
    return exit_status(summary)
