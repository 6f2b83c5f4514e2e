"""``envcheck status``."""

from __future__ import annotations

from typing import Optional

import click

from envcheck.cli._common import interpreter_option, output_options, quiet_option, snapshot_option


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
    from envcheck.cli._common import color_mode
    from envcheck.cli_plain import run_status

    return run_status(snapshot_path, as_json, markdown, strict, require_gpu, deep, quiet, report_path, hostname,
                      prometheus, interpreter, force, echo=click.echo, mode=color_mode())

