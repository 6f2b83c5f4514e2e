"""``envcheck status``."""

from __future__ import annotations

from typing import Optional

import click

from envcheck import exit_codes
from envcheck.cli._common import (emit, interpreter_option, open_source, output_options, quiet_option,
                                  snapshot_option, write_json_doc)


@click.command()
@snapshot_option
@output_options("report", schema="envcheck/report/1",
                markdown="Print the report as Markdown, to paste into a bug report.")
@click.option("--strict", is_flag=True, help="Warnings also give exit status 1.")
@click.option("--require-gpu", is_flag=True,
              help="A missing driver or GPU is an error (for GPU nodes and training containers).")
@click.option("--deep", is_flag=True,
              help="Also import the installed frameworks in a child process for runtime facts (slower).")
@quiet_option
@click.option("--report", "report_path", metavar="PATH", default=None,
              help="Also write the JSON report to PATH (atomically; an existing file only when it is an "
                   "earlier envcheck report, or with --force; a device such as /dev/stderr is written in place).")
@click.option("--force", is_flag=True, help="With --report: overwrite an existing file that is not an envcheck report.")
@click.option("--hostname", "hostname", metavar="NAME", default=None, envvar="ENVCHECK_HOSTNAME",
              help="Name the machine NAME in the report (a pod's node: spec.nodeName; a Slurm node: "
                   "$SLURMD_NODENAME) instead of its own host name [env: ENVCHECK_HOSTNAME].")
@click.option("--prometheus", is_flag=True,
              help="Print the report in the Prometheus text format (metrics envcheck_*), for "
                   "node-exporter's textfile collector.")
@interpreter_option
def status(snapshot_path: Optional[str], as_json: bool, markdown: bool, strict: bool, require_gpu: bool,
           deep: bool, quiet: bool, report_path: Optional[str], hostname: Optional[str] = None,
           prometheus: bool = False, interpreter: Optional[str] = None, force: bool = False) -> int:
    """Read the machine (or a snapshot) and say which parts do not fit together.

    Exit status: 0 when no finding is an error (with --strict: no warning either), 1 otherwise,
    2 for a usage error or an unreadable snapshot.

    Example:

        envcheck status
        envcheck status --json --snapshot node17.tar.gz
        envcheck status --interpreter /opt/venv/bin/python
        envcheck status --prometheus > envcheck.prom.tmp; mv envcheck.prom.tmp envcheck.prom
    """
    if sum((as_json, markdown, prometheus)) > 1:
        raise click.UsageError("--json, --markdown and --prometheus exclude each other")
    hostname = _check_hostname(hostname)
    from envcheck.checks.pipeline import build_status
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix

    from envcheck.cli._progress import Progress, progress_wanted

    doing = ("reading the snapshot" if snapshot_path else
             "importing the frameworks in a child process (--deep)" if deep else "reading the machine")
    with Progress("envcheck status", progress_wanted(as_json), doing):
        source = open_source(snapshot_path, deep=deep, interpreter=interpreter)
        matrix = load_matrix()
        env = collect(source, matrix)
    if matrix.not_used and not quiet:
        from envcheck.render import clean_text

        click.echo(f"envcheck: {clean_text(matrix.not_used)}; using the {matrix.origin} matrix", err=True)
    result = build_status(env=env, matrix=matrix, require_gpu=require_gpu, hostname=hostname)
    findings, rep = result.findings, dict(result.document)
    failed = (not rep["ok"]) or (strict and any(f.severity == "warning" for f in findings))
    if report_path:
        write_json_doc(report_path, rep, "envcheck/report/", force=force)
    if quiet and not failed and not as_json:
        return exit_codes.OK
    if prometheus:
        from envcheck.render.prometheus import render_prometheus

        click.echo(render_prometheus(rep), nl=False)
        return exit_codes.FINDINGS if failed else exit_codes.OK
    emit(rep, as_json, markdown, "envcheck.render.text", "render_text", "render_markdown")
    return exit_codes.FINDINGS if failed else exit_codes.OK


def _check_hostname(name: Optional[str]) -> Optional[str]:
    """``--hostname`` / ``ENVCHECK_HOSTNAME``: empty means unset; control characters, whitespace inside
    and over-long names are a usage error (exit 2)."""
    if name is None or not name.strip():
        return None
    name = name.strip()
    if len(name) > 253 or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in name):
        raise click.UsageError(f"--hostname / ENVCHECK_HOSTNAME: {name[:80]!r} is not a host name "
                               "(no spaces or control characters, at most 253 characters)")
    return name
