"""``envcheck explain``: diagnose a CUDA / cuDNN / driver failure log."""

from __future__ import annotations

import os
import sys
from typing import Optional

import click

from envcheck import exit_codes
from envcheck.cli._common import emit, output_options, snapshot_option
from envcheck.errors import UsageError


@click.command()
@click.argument("file", required=False, default=None, metavar="[FILE|-]")
@snapshot_option
@click.option("--no-detect", is_flag=True, help="Explain from the text alone (the log came from another machine).")
@output_options("result", schema="envcheck/explain/1",
                markdown="Print a Markdown comment ready to post on an issue: cause, evidence quoted, facts read, fix.")
@click.option("--verbose", "-v", is_flag=True, help="Show every dead end of each cause (default: the first 3).")
def explain(file: Optional[str], snapshot_path: Optional[str], no_detect: bool, as_json: bool,
            markdown: bool, verbose: bool = False) -> int:
    """Read a log or traceback (FILE, or standard input with - or a pipe), find every known CUDA /
    cuDNN / driver failure in it, rank them and say how to fix each, and what not to try.

    By default the fixes use what is detected on this machine (or in --snapshot DIR), e.g. the
    exact cuDNN wheel to install; --no-detect explains from the text alone.

    Exit status: 0 when something was recognised, 1 when nothing was, 2 for an unreadable input.

    Example:

        python train.py 2>&1 | envcheck explain
        envcheck explain crash.log --no-detect --json
    """
    if as_json and markdown:
        raise click.UsageError("--json and --markdown exclude each other")
    if no_detect and snapshot_path:
        raise click.UsageError("--no-detect and --snapshot exclude each other")
    if file in (None, "-"):
        if file is None and sys.stdin.isatty():
            raise click.UsageError("give a log FILE, or pipe the log into `envcheck explain -`")
        stream = sys.stdin.buffer
        name = "standard input"
    else:
        if os.path.isdir(file):
            raise UsageError(f"{file} is a directory, not a log file")
        try:
            stream = open(file, "rb")
        except OSError as exc:
            raise UsageError(f"cannot read {file}: {exc.strerror or exc}") from exc
        name = file
    from envcheck.explain.document import explain_document

    from envcheck.cli._progress import Progress, progress_wanted

    # a long input (a multi-gigabyte log) takes seconds: on a terminal, a line on stderr says how far
    # the reading got (shown only after the first second; never in a pipe or with --json)
    with Progress("envcheck explain", progress_wanted(as_json), f"reading {name}") as progress:
        try:
            rep = explain_document(stream, name, snapshot_path=snapshot_path, detect=not no_detect,
                                   on_block=lambda n: progress.update(f"reading {name}: {n:,} lines"))
        except OSError as exc:
            raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from exc
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
    emit(rep, as_json, markdown, "envcheck.render.explain", "render_explain_text", "render_explain_markdown",
         text_kw={"max_dead_ends": 1000} if verbose else None)
    return exit_codes.OK if rep["matches"] else exit_codes.FINDINGS
