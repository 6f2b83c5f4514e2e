"""``envcheck snapshot``."""

from __future__ import annotations

from typing import Optional

import click

from envcheck import exit_codes
from envcheck.cli._common import interpreter_option


@click.command()
@click.argument("destination", metavar="DIR")
@click.option("--archive", is_flag=True, help="Write DIR.tar.gz (one file, easy to attach) instead of a folder.")
@click.option("--force", is_flag=True, help="Replace an existing snapshot at DIR.")
@click.option("--deep", is_flag=True, help="Also import the frameworks in a child process (runtime facts).")
@click.option("--from", "from_snapshot", metavar="DIR|FILE.tar.gz", default=None,
              help="Re-write an existing snapshot (e.g. turn a folder into an archive) instead of reading the machine.")
@click.option("--redact", is_flag=True,
              help="Replace the host name, user names in paths, GPU UUIDs and serial numbers in every file "
                   "(consistently, so that the snapshot still replays the same), for a public bug report.")
@interpreter_option
def snapshot(destination: str, archive: bool, force: bool, deep: bool, from_snapshot: Optional[str],
             redact: bool = False, interpreter: Optional[str] = None) -> int:
    """Capture this machine's raw facts into DIR, to replay anywhere with `--snapshot DIR`.

    The files hold exactly what each command printed or each file contained (contract §1); a
    missing file means "not found". Nothing is overwritten without --force.

    Example:

        envcheck snapshot node17 --archive
        envcheck snapshot bug-report --archive --redact
        envcheck status --snapshot node17.tar.gz
    """
    from envcheck.cli._common import emit, open_source
    from envcheck.cli._progress import Progress, progress_wanted
    from envcheck.snapshot.writer import write_snapshot

    doing = ("re-writing the snapshot" if from_snapshot else
             "importing the frameworks in a child process (--deep)" if deep else "reading the machine")
    # --deep imports every framework (seconds): a terminal shows what it is doing, on stderr
    with Progress("envcheck snapshot", progress_wanted(), doing):
        source = open_source(from_snapshot, deep=deep, interpreter=interpreter)
        written = write_snapshot(source, destination, archive=archive, force=force, redact=redact)
    doc = {"path": written.path, "files": list(written.files), "redacted": written.redacted}
    emit(doc, False, False, "envcheck.render.snapshot", "render_snapshot_text", fit_text=False)
    return exit_codes.OK
