"""Options and helpers shared by the inspecting commands."""

from __future__ import annotations

from typing import Callable, Optional

import click

from envcheck.cli_plain import output_width, styler, write_json_doc  # noqa: F401 - the commands import them from here
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
    from envcheck.cli_plain import env_set

    return env_set(name)


def _env_forces(name: str) -> bool:
    from envcheck.cli_plain import env_forces

    return env_forces(name)


def set_color_mode(ctx: click.Context, mode: Optional[str]) -> None:
    """Record ``--color`` (auto / always / never; None: auto) on the root context, and tell click whether
    to keep the escape sequences of what it echoes (it strips them when stdout is not a terminal)."""
    from envcheck.cli_plain import forced_color

    root = ctx.find_root()
    root.meta["envcheck.color"] = mode or "auto"
    forced = forced_color(mode)
    if forced is not None:
        root.color = forced


def color_mode() -> str:
    ctx = click.get_current_context(silent=True)
    return ctx.find_root().meta.get("envcheck.color", "auto") if ctx is not None else "auto"


def color_enabled(stream=None) -> bool:
    """Whether text output is coloured (:func:`envcheck.cli_plain.color_enabled_for` of ``--color``)."""
    from envcheck.cli_plain import color_enabled_for

    return color_enabled_for(color_mode(), stream)


def emit(doc: dict, as_json: bool, markdown: bool, render_module: str, text_fn: str,
         markdown_fn: Optional[str] = None, json_indent: int = 2, err: bool = False,
         fit_text: bool = True, text_kw: Optional[dict] = None) -> None:
    """The one output path (:func:`envcheck.cli_plain.emit`), printed with click.echo under ``--color``."""
    from envcheck.cli_plain import emit as plain_emit

    plain_emit(doc, as_json, markdown, render_module, text_fn, markdown_fn, json_indent, err, fit_text, text_kw,
               mode=color_mode(), echo=click.echo)
