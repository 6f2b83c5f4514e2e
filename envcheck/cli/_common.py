"""Options and helpers shared by the inspecting commands."""

from __future__ import annotations

import os
import sys
from typing import Callable, Optional

import click

from envcheck.sources import Source

snapshot_option = click.option(
    "--snapshot", "snapshot_path", metavar="DIR|FILE.tar.gz", default=None,
    help="Replay a snapshot (from `envcheck snapshot`) instead of reading this machine.")


def open_source(snapshot_path: Optional[str], deep: bool = False) -> Source:
    if snapshot_path:
        from envcheck.sources import open_snapshot

        return open_snapshot(snapshot_path)
    from envcheck.probe.live import LiveSource

    # ENVCHECK_FS_ROOT prefixes every absolute file path the probe reads (/proc, /sys, /usr/local/cuda):
    # a testing aid that points the live probe at a fake machine tree.
    return LiveSource(deep=deep, root=os.environ.get("ENVCHECK_FS_ROOT", ""))


def color_enabled(stream=None) -> bool:
    """Colour only on a terminal, and never with NO_COLOR (https://no-color.org)."""
    if "NO_COLOR" in os.environ:
        return False
    stream = stream or sys.stdout
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


_COLORS = {"error": "red", "warning": "yellow", "ok": "green", "info": "cyan", "dim": None}


def styler(enabled: bool) -> Callable[[str, str], str]:
    def st(text: str, kind: str) -> str:
        if not enabled:
            return text
        if kind == "bold":
            return click.style(text, bold=True)
        color = _COLORS.get(kind)
        return click.style(text, fg=color, bold=kind == "error") if color else click.style(text, dim=True)

    return st
