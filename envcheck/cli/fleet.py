"""``envcheck fleet summarize``."""

from __future__ import annotations

import sys
from typing import Optional, Tuple

import click

from envcheck.cli._common import emit, output_options, parse_size, quiet_option

MAX_WARNINGS = 20


@click.group()
def fleet() -> None:
    """Work with the reports of many nodes (a cluster, a fleet of containers).

    Example:

        envcheck fleet summarize reports/
    """


@fleet.command()
@click.argument("inputs", nargs=-1, required=True, metavar="REPORTS...|-")
@click.option("--expect", "expect", multiple=True, metavar="NODES",
              help="The nodes that should have reported, as a Slurm host list (node[01-64], a[1-3,5],b07; "
                   "repeatable): those without a report are listed as missing.")
@click.option("--max-age", "max_age", metavar="AGE", default=None,
              help="Reports older than AGE (3600, 90m, 2h, 1d) are listed as stale, and so are reports "
                   "without a creation time.")
@click.option("--max-bytes", "max_bytes", metavar="SIZE", default="4G", show_default=True,
              help="Read at most SIZE bytes in all (500M, 4G); what is left is listed as unreadable.")
@output_options("summary", schema="envcheck/fleet/1", markdown="Print the summary as Markdown (for a job log or an issue).")
@quiet_option
@click.option("--verbose", "-v", is_flag=True,
              help=f"Warn on stderr about every unreadable input (default: the first {MAX_WARNINGS}).")
def summarize(inputs: Tuple[str, ...], expect: Tuple[str, ...], max_age: Optional[str], max_bytes: str,
              as_json: bool, markdown: bool, quiet: bool, verbose: bool = False) -> int:
    """Compare the reports of many nodes: which nodes fail, what differs, which nodes never reported
    (--expect) or reported too long ago (--max-age), and the finding to fix first in each group of
    nodes with the same stack.

    REPORTS are `envcheck status --json` files, folders of them (searched for *.json, *.jsonl,
    *.ndjson; links inside folders are not followed), .tar/.tar.gz archives of reports or of snapshot
    folders (a snapshot is checked here), or `-` for stdin: concatenated or line-delimited JSON. Several
    reports of one node (by hostname, else file name) count once: the newest by its `created` time.
    Unreadable inputs are listed and make the exit status 1.

    Exit status: 0 when every node passes, nothing differs, every input was read and no expected node
    is missing or stale; 1 otherwise; 2 when nothing could be read, or for a usage error.

    Example:

        srun --ntasks-per-node=1 sh -c 'envcheck status --json --hostname "$SLURMD_NODENAME" > reports/$SLURMD_NODENAME.json'
        envcheck fleet summarize reports/ --expect "$SLURM_JOB_NODELIST" --max-age 2h
        cat reports/*.json | envcheck fleet summarize - --json
    """
    if as_json and markdown:
        raise click.UsageError("--json and --markdown exclude each other")
    if list(inputs).count("-") > 1:
        raise click.UsageError("stdin ('-') can be read only once")
    from envcheck.fleet import exit_status, expand_hostlist, parse_age, read_inputs
    from envcheck.fleet import summarize as summarize_reports

    limit = parse_size(max_bytes)
    expected = None
    if expect:
        expected = []
        for e in expect:
            expected += expand_hostlist(e)
    age = parse_age(max_age) if max_age is not None else None
    if "-" in inputs:
        from envcheck.safe_io import open_stream

        open_stream("-", sys.stdin.buffer)  # refuses `- < /dev/zero` (a device that never ends)
    got = read_inputs(list(inputs), stdin=sys.stdin.buffer if "-" in inputs else None, max_bytes=limit)
    summary = summarize_reports(got, expect=expected, max_age=age)
    status = exit_status(summary)
    if quiet and status == 0 and not as_json:
        return status  # -q: nothing to say when every node passes (a --json document is still printed)
    if not quiet:  # -q: the summary lists the unreadable inputs; no line each on stderr
        from envcheck.render.fleet import safe as clean_text

        limit = len(got.unreadable) if verbose else MAX_WARNINGS
        for name, why in got.unreadable[:limit]:
            click.echo(clean_text(f"envcheck fleet: skipped {name}: {why}"), err=True)
        if len(got.unreadable) > limit:
            click.echo(f"envcheck fleet: ... and {len(got.unreadable) - MAX_WARNINGS} more unreadable input(s)",
                       err=True)
        if summary["duplicate_hostnames"]:
            dup = summary["duplicate_hostnames"]
            click.echo(clean_text(f"envcheck fleet: note: several reports for {', '.join(dup[:10])}"
                                  f"{' ...' if len(dup) > 10 else ''}; the newest of each counts"), err=True)
    if summary["nodes"] == 0:
        click.echo("envcheck fleet: error: no report could be read", err=True)
    emit(summary, as_json, markdown, "envcheck.render.fleet", "render_fleet_text", "render_fleet_markdown",
         json_indent=1)
    return status
