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


def write_json_doc(path: str, doc: dict, schema_prefix: str, force: bool = False) -> str:
    """Write ``doc`` as JSON to ``path`` (``--report``, ``ENVCHECK_REPORT``, ``--json-diagnosis``)
    through :func:`envcheck.safe_io.write_file`: a device or FIFO (``/dev/stderr``) is written in
    place, never replaced; an existing regular file is replaced (atomically, keeping its mode) only
    when it is an earlier envcheck document of the same schema, or with ``force``."""
    from envcheck.render import json_text
    from envcheck.safe_io import encode_text, is_envcheck_json, write_file

    return write_file(path, encode_text(json_text(doc, indent=2) + "\n"), force=force,
                      may_replace=lambda old: is_envcheck_json(old, schema_prefix))


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


def output_width(stream=None) -> int:
    """The width text output is fitted to: ``COLUMNS`` when set, else the terminal's width when
    ``stream`` (default stdout) is a terminal, else 100 columns (a log file, a pipe); never
    below 40."""
    from envcheck.render.width import DEFAULT_WIDTH, MIN_WIDTH

    cols = os.environ.get("COLUMNS", "")
    if cols.isdigit() and int(cols) > 0:
        return max(int(cols), MIN_WIDTH)
    stream = stream or sys.stdout
    try:
        if stream.isatty():
            tty_cols = os.get_terminal_size(stream.fileno()).columns
            if tty_cols > 0:  # a terminal that reports no size gets the default
                return max(tty_cols, MIN_WIDTH)
    except (AttributeError, ValueError, OSError):
        pass
    return DEFAULT_WIDTH


def emit(doc: dict, as_json: bool, markdown: bool, render_module: str, text_fn: str, markdown_fn: str,
         json_indent: int = 2) -> None:
    """Print a report document as JSON, Markdown or (styled) text fitted to :func:`output_width`;
    the renderer loads lazily."""
    import importlib

    from envcheck.render import json_text

    if as_json:
        click.echo(json_text(doc, indent=json_indent))
        return
    mod = importlib.import_module(render_module)
    if markdown:
        click.echo(getattr(mod, markdown_fn)(doc), nl=False)
    else:
        from envcheck.render.width import fit

        import inspect

        fn = getattr(mod, text_fn)
        width = output_width()
        # a renderer that lays out columns itself takes the width; the rest is fitted line by line
        kw = {"width": width} if "width" in inspect.signature(fn).parameters else {}
        click.echo(fit(fn(doc, styler(color_enabled()), **kw), width), nl=False)
