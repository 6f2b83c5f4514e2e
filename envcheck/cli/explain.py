"""``envcheck explain``: diagnose a CUDA / cuDNN / driver failure log."""

from __future__ import annotations

import os
import sys
from typing import List, Optional, Tuple

import click

from envcheck import exit_codes
from envcheck.cli._common import emit, output_options, snapshot_option
from envcheck.errors import UsageError


def _detect(snapshot_path: Optional[str], matrix) -> Tuple[object, Optional[str], List[str]]:
    """The Environment (or None), what it came from, and notes. Never raises for probe problems."""
    from envcheck.cli._common import open_source
    from envcheck.environment import collect

    if snapshot_path and not os.path.exists(snapshot_path):
        raise UsageError(f"no such snapshot: {snapshot_path}")
    try:
        env = collect(open_source(snapshot_path), matrix)
    except Exception as exc:  # noqa: BLE001 - detection must never make explain fail
        what = f"snapshot {snapshot_path}" if snapshot_path else "this machine"
        return None, None, [f"could not read {what} ({type(exc).__name__}: {exc}); explained from the text alone"]
    return env, (f"snapshot {snapshot_path}" if snapshot_path else "live"), []


def _paste_env(report, matrix) -> Tuple[object, Optional[str], List[str]]:
    """The Environment of the pasted report (same parsers and checks as ``status``)."""
    from envcheck.environment import collect
    from envcheck.paste import PasteSource

    what = "pasted report (" + ", ".join(report.formats) + ")"
    try:
        return collect(PasteSource(report), matrix), what, []
    except Exception as exc:  # noqa: BLE001 - a report oddity must never make explain fail
        return None, None, [f"could not read the {what} ({type(exc).__name__}: {exc}); explained from the text alone"]


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
    from envcheck.explain import build_explain_report, explain_stream
    from envcheck.matrix import load_matrix

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
    matrix = load_matrix()
    # an environment report in the text describes the machine the error came from: its facts stand in
    # for detection (no live probe at all then); --snapshot DIR, being explicit, still wins
    from envcheck.paste import PasteCollector

    collector = PasteCollector()
    got: dict = {"detected": None, "notes": [], "report": None, "env": None}

    def machine():
        report = collector.finish() if not snapshot_path else None
        got["text_facts"] = report.facts if report is not None else {}  # log lines alone may state facts
        if report is not None and report.found:
            got["report"] = report
            got["env"], got["detected"], got["notes"] = _paste_env(report, matrix)
        elif not no_detect:
            got["env"], got["detected"], got["notes"] = _detect(snapshot_path, matrix)
        return got["env"]

    from envcheck.cli._progress import Progress, progress_wanted

    # a long input (a multi-gigabyte log) takes seconds: on a terminal, a line on stderr says how far
    # the reading got (shown only after the first second; never in a pipe or with --json)
    with Progress("envcheck explain", progress_wanted(as_json), f"reading {name}") as progress:
        def tap(block: bytes, lowered: bytes, lines_before: int) -> None:
            collector.feed(block, lowered, lines_before)
            progress.update(f"reading {name}: {lines_before:,} lines")

        try:
            res = explain_stream(stream, env=machine, matrix=matrix, tap=tap)  # type: ignore[arg-type]
        except OSError as exc:
            raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from exc
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
    matches = res.matches
    report = got["report"]
    if report is not None:
        from envcheck.explain.rank import add_findings

        matches = add_findings(matches, got["env"], matrix, report.lines)
    rep = build_explain_report(matches, got["detected"], notes=got["notes"] or None, lines_scanned=res.lines,
                               input=name, log_facts=res.facts or None,
                               facts=report.facts if report is not None else got.get("text_facts") or {})
    emit(rep, as_json, markdown, "envcheck.render.explain", "render_explain_text", "render_explain_markdown",
         text_kw={"max_dead_ends": 1000} if verbose else None)
    return exit_codes.OK if matches else exit_codes.FINDINGS
