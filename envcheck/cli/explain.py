"""``envcheck explain``: diagnose a CUDA / cuDNN / driver failure log."""

from __future__ import annotations

import sys
from typing import IO, Any, Dict, Optional, cast

import click

from envcheck import exit_codes
from envcheck.cli._common import emit, output_options, parse_size, snapshot_option
from envcheck.errors import UsageError

#: the default of --max-bytes: a log is read up to this much (at ~100 MB/s, well under a minute)
MAX_BYTES = "4G"


def _say_cut(rep: Dict[str, Any], name: str, limit: int, as_json: bool) -> None:
    """Tell (in the document's notes, which the text and Markdown show, and with --json on stderr too)
    that only the first ``limit`` bytes of the input were read."""
    rep["truncated_at"] = limit
    note = (f"only the first {limit} bytes of {name} were read (--max-bytes); the rest was not: "
            "explain the end of a longer log with `tail -c 100M LOG | envcheck explain -`")
    rep["notes"] = [*(rep.get("notes") or []), note]
    if as_json:
        from envcheck.render import clean_text

        click.echo(clean_text(f"envcheck explain: note: {note}"), err=True)


@click.command()
@click.argument("file", required=False, default=None, metavar="[FILE|-]")
@snapshot_option
@click.option("--no-detect", is_flag=True, help="Explain from the text alone (the log came from another machine).")
@output_options("result", schema="envcheck/explain/1",
                markdown="Print a Markdown comment ready to post on an issue: cause, evidence quoted, facts read, fix.")
@click.option("--verbose", "-v", is_flag=True, help="Show every dead end of each cause (default: the first 3).")
@click.option("--max-bytes", "max_bytes", metavar="SIZE", default=MAX_BYTES, show_default=True,
              help="Read at most SIZE bytes (500M, 4G); the rest is not read, and the output says so.")
def explain(file: Optional[str], snapshot_path: Optional[str], no_detect: bool, as_json: bool,
            markdown: bool, verbose: bool = False, max_bytes: str = MAX_BYTES) -> int:
    """Read a log or traceback (FILE, or standard input with - or a pipe), find every known CUDA /
    cuDNN / driver failure in it, rank them and say how to fix each, and what not to try.

    By default the fixes use what is detected on this machine (or in --snapshot DIR), e.g. the
    exact cuDNN wheel to install; --no-detect explains from the text alone.

    Reading stops after --max-bytes (an endless pipe is not read for ever); a character device
    (/dev/zero), a named FIFO or a folder is refused.

    Exit status: 0 when something was recognised, 1 when nothing was, 2 for an unreadable input
    (or one cut at --max-bytes in which nothing was recognised).

    Example:

        python train.py 2>&1 | envcheck explain
        envcheck explain crash.log --no-detect --json
    """
    if as_json and markdown:
        raise click.UsageError("--json and --markdown exclude each other")
    if no_detect and snapshot_path:
        raise click.UsageError("--no-detect and --snapshot exclude each other")
    if file is None and sys.stdin.isatty():
        raise click.UsageError("give a log FILE, or pipe the log into `envcheck explain -`")
    from envcheck.safe_io import BoundedReader, open_stream

    limit = parse_size(max_bytes)
    raw = open_stream(file, sys.stdin.buffer)
    name = "standard input" if file in (None, "-") else file
    stream = BoundedReader(raw, limit)
    from envcheck.cli._progress import Progress, progress_wanted
    from envcheck.explain.document import explain_document

    # a long input (a multi-gigabyte log) takes seconds: on a terminal, a line on stderr says how far
    # the reading got (shown only after the first second; never in a pipe or with --json)
    with Progress("envcheck explain", progress_wanted(as_json), f"reading {name}") as progress:
        try:
            rep = explain_document(cast(IO[bytes], stream), name, snapshot_path=snapshot_path, detect=not no_detect,
                                   on_block=lambda n: progress.update(f"reading {name}: {n:,} lines"))
        except OSError as exc:
            raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from exc
        finally:
            if raw is not sys.stdin.buffer:
                raw.close()
    if stream.cut:
        _say_cut(rep, name, limit, as_json)
    emit(rep, as_json, markdown, "envcheck.render.explain", "render_explain_text", "render_explain_markdown",
         text_kw={"max_dead_ends": 1000} if verbose else None)
    if rep["matches"]:
        return exit_codes.OK
    return exit_codes.USAGE if stream.cut else exit_codes.FINDINGS  # a cut log may hold a cause further on
