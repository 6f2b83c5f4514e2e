"""Options and helpers shared by the inspecting commands."""

from __future__ import annotations

import os
import sys
from typing import Callable, Optional

import click

from envcheck.snapshot import Source

snapshot_option = click.option(
    "--snapshot", "snapshot_path", metavar="DIR|FILE.tar.gz", default=None,
    help="Replay a snapshot (from `envcheck snapshot`) instead of reading this machine.")


interpreter_option = click.option(
    "--interpreter", "interpreter", metavar="PYTHON", default=None, envvar="ENVCHECK_INTERPRETER",
    help="Read the packages and Python version of this interpreter (the training environment's python) "
         "instead of the one running envcheck [env: ENVCHECK_INTERPRETER].")


def open_source(snapshot_path: Optional[str], deep: bool = False, interpreter: Optional[str] = None) -> Source:
    """The snapshot at ``snapshot_path``, else the live machine.

    ``interpreter`` (``--interpreter``; default: ``ENVCHECK_INTERPRETER``) names another Python whose
    ``sys.path`` and version the live probe reads, so that an envcheck installed in its own venv
    inspects the training environment's frameworks."""
    if snapshot_path:
        from envcheck.snapshot import open_snapshot

        return open_snapshot(snapshot_path)
    from envcheck.errors import UsageError
    from envcheck.probe.live import LiveSource, resolve_interpreter

    if interpreter is None:
        interpreter = os.environ.get("ENVCHECK_INTERPRETER") or None
    resolved = resolve_interpreter(interpreter)
    if resolved is not None and not (os.path.isfile(resolved) and os.access(resolved, os.X_OK)):
        raise UsageError(f"--interpreter / ENVCHECK_INTERPRETER: {interpreter!r} is not an executable "
                         "Python (give a path, or a name on PATH)")
    # ENVCHECK_FS_ROOT prefixes every absolute file path the probe reads (/proc, /sys, /usr/local/cuda):
    # a testing aid that points the live probe at a fake machine tree.
    return LiveSource(deep=deep, root=os.environ.get("ENVCHECK_FS_ROOT", ""), interpreter=resolved)


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


def emit(doc: dict, as_json: bool, markdown: bool, render_module: str, text_fn: str, markdown_fn: str,
         json_indent: int = 2) -> None:
    """Print a report document as JSON, Markdown or (styled) text; the renderer loads lazily."""
    import importlib
    import json

    if as_json:
        click.echo(json.dumps(doc, indent=json_indent))
        return
    mod = importlib.import_module(render_module)
    if markdown:
        click.echo(getattr(mod, markdown_fn)(doc), nl=False)
    else:
        click.echo(getattr(mod, text_fn)(doc, styler(color_enabled())), nl=False)
