"""Options and helpers shared by the inspecting commands."""

from __future__ import annotations

import os
import sys
from typing import Callable, Optional

import click

from envcheck.probe.open import checked_interpreter, open_source  # noqa: F401 - the commands import them from here

snapshot_option = click.option(
    "--snapshot", "snapshot_path", metavar="DIR|FILE.tar.gz", default=None,
    help="Replay a snapshot (from `envcheck snapshot`) instead of reading this machine.")


interpreter_option = click.option(
    "--interpreter", "interpreter", metavar="PYTHON", default=None, envvar="ENVCHECK_INTERPRETER",
    help="Read the packages and Python version of this interpreter (the training environment's python) "
         "instead of the one running envcheck [env: ENVCHECK_INTERPRETER].")


def output_options(what: str, schema: Optional[str] = None, markdown: Optional[str] = None) -> Callable:
    """The one option bundle of the document commands: ``--json`` (the document, ``schema``) and, where
    the command renders Markdown, ``--markdown``; they exclude each other (checked by :func:`emit`)."""
    json_help = f"Print the {what} as JSON" + (f" (schema {schema}; see docs/schemas.md)." if schema else ".")

    def deco(f: Callable) -> Callable:
        if markdown:
            f = click.option("--markdown", is_flag=True, help=markdown)(f)
        return click.option("--json", "as_json", is_flag=True, help=json_help)(f)

    return deco


#: the one meaning of -q across commands
QUIET_HELP = ("Print nothing when everything passes (exit status 0), unless --json asks for the document; "
              "what is wrong is still printed.")

quiet_option = click.option("--quiet", "-q", is_flag=True, help=QUIET_HELP)


def write_json_doc(path: str, doc: dict, schema_prefix: str, force: bool = False) -> str:
    """Write ``doc`` as JSON to ``path`` (``--report``, ``ENVCHECK_REPORT``, ``--json-diagnosis``)
    through :func:`envcheck.safe_io.write_file`: a device or FIFO (``/dev/stderr``) is written in
    place, never replaced; an existing regular file is replaced (atomically, keeping its mode) only
    when it is an earlier envcheck document of the same schema, or with ``force``."""
    from envcheck.render import json_text
    from envcheck.safe_io import encode_text, is_envcheck_json, write_file

    return write_file(path, encode_text(json_text(doc, indent=2) + "\n"), force=force,
                      may_replace=lambda old: is_envcheck_json(old, schema_prefix))


def parse_size(text: str, option: str = "--max-bytes") -> int:
    """A byte count as ``--max-bytes`` takes it: 1000000, 500K, 500M, 4G, 1T (powers of 1024)."""
    import re

    m = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)i?b?\s*", text.lower())
    if not m:
        raise click.BadParameter(f"{text!r} is not a size (e.g. 500M, 4G, 1000000)", param_hint=option)
    n = int(m.group(1)) * 1024 ** " kmgt".index(m.group(2) or " ")
    if n < 1:
        raise click.BadParameter("must be at least 1 byte", param_hint=option)
    return n


def _env_set(name: str) -> bool:
    """An environment variable that is set and non-empty (no-color.org: an empty NO_COLOR is unset)."""
    return bool(os.environ.get(name, ""))


def _env_forces(name: str) -> bool:
    """FORCE_COLOR / CLICOLOR_FORCE: set, non-empty and not "0" (FORCE_COLOR=0 asks for no force)."""
    return os.environ.get(name, "") not in ("", "0")


def set_color_mode(ctx: click.Context, mode: Optional[str]) -> None:
    """Record ``--color`` (auto / always / never; None: auto) on the root context, and tell click whether
    to keep the escape sequences of what it echoes (it strips them when stdout is not a terminal)."""
    root = ctx.find_root()
    root.meta["envcheck.color"] = mode or "auto"
    if mode == "always" or (mode in (None, "auto") and not _env_set("NO_COLOR")
                            and (_env_forces("FORCE_COLOR") or _env_forces("CLICOLOR_FORCE"))):
        root.color = True
    elif mode == "never":
        root.color = False


def color_mode() -> str:
    ctx = click.get_current_context(silent=True)
    return ctx.find_root().meta.get("envcheck.color", "auto") if ctx is not None else "auto"


def color_enabled(stream=None) -> bool:
    """Whether text output is coloured, the way uv, ruff and gh decide it:

    1. ``--color always`` / ``--color never``;
    2. ``NO_COLOR`` set and non-empty: no colour (https://no-color.org; an empty value is unset);
    3. ``FORCE_COLOR`` or ``CLICOLOR_FORCE`` set, non-empty and not ``0``: colour, even in a pipe;
    4. ``TERM=dumb``: no colour;
    5. otherwise colour only when ``stream`` (default stdout) is a terminal."""
    mode = color_mode()
    if mode in ("always", "never"):
        return mode == "always"
    if _env_set("NO_COLOR"):
        return False
    if _env_forces("FORCE_COLOR") or _env_forces("CLICOLOR_FORCE"):
        return True
    if os.environ.get("TERM") == "dumb":
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


def emit(doc: dict, as_json: bool, markdown: bool, render_module: str, text_fn: str,
         markdown_fn: Optional[str] = None, json_indent: int = 2, err: bool = False,
         fit_text: bool = True, text_kw: Optional[dict] = None) -> None:
    """The one output path: print a command's document as JSON, Markdown or (styled) text fitted to
    :func:`output_width`, through one style (:func:`styler` of :func:`color_enabled`); the renderer
    loads lazily. A text renderer that takes ``width`` lays out its own columns; the rest is fitted
    line by line, except with ``fit_text=False`` (text that holds commands to copy: never shortened)."""
    import importlib

    from envcheck.render import json_text

    if as_json and markdown:
        raise click.UsageError("--json and --markdown exclude each other")
    if as_json:
        click.echo(json_text(doc, indent=json_indent), err=err)
        return
    mod = importlib.import_module(render_module)
    if markdown and markdown_fn:
        click.echo(getattr(mod, markdown_fn)(doc), nl=False, err=err)
        return
    import inspect

    from envcheck.render.width import fit

    fn = getattr(mod, text_fn)
    stream = sys.stderr if err else sys.stdout
    width = output_width(stream)
    kw = {"width": width} if "width" in inspect.signature(fn).parameters else {}
    kw.update(text_kw or {})
    text = fn(doc, styler(color_enabled(stream)), **kw)
    click.echo(fit(text, width) if fit_text else text, nl=False, err=err)
