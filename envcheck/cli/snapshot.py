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
@interpreter_option
def snapshot(destination: str, archive: bool, force: bool, deep: bool, from_snapshot: Optional[str],
             interpreter: Optional[str] = None) -> int:
    """Capture this machine's raw facts into DIR, to replay anywhere with `--snapshot DIR`.

    The files hold exactly what each command printed or each file contained (contract §1); a
    missing file means "not found". Nothing is overwritten without --force.

    Example:

        envcheck snapshot node17 --archive
        envcheck status --snapshot node17.tar.gz
    """
    from envcheck.cli._common import open_source
    from envcheck.snapshot.writer import write_snapshot

    source = open_source(from_snapshot, deep=deep, interpreter=interpreter)
    written = write_snapshot(source, destination, archive=archive, force=force)
    click.echo(f"wrote {written.path} ({len(written.files)} files: {', '.join(written.files)})")
    return exit_codes.OK
