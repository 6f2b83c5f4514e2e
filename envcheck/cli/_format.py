"""Help text as written, and suggestions for mistyped commands.

click re-wraps every paragraph of a command's help into one flowing block, which turns an
example block (one command per line) into a single unusable line. :func:`keep_blocks` marks
every indented paragraph with click's ``\\b`` (no re-wrapping), so that the docstrings can stay
plain; :class:`SuggestingGroup` answers ``envcheck stauts`` with "Did you mean 'status'?".
"""

from __future__ import annotations

import inspect
import weakref
from typing import Any, List, Optional, Tuple

import click

__all__ = ["keep_blocks", "prepare", "SuggestingGroup"]


def keep_blocks(text: Optional[str]) -> Optional[str]:
    """``text`` with a ``\\b`` line before each paragraph that has an indented line (an example
    block, a list), so that click prints it line for line."""
    if not text:
        return text
    paras = inspect.cleandoc(text).split("\n\n")
    out = []
    for p in paras:
        lines = p.split("\n")
        if lines[0].strip() != "\b" and any(ln[:1] in (" ", "\t") and ln.strip() for ln in lines):
            p = "\b\n" + p
        out.append(p)
    return "\n\n".join(out)


_PREPARED: "weakref.WeakSet[click.Command]" = weakref.WeakSet()


def prepare(cmd: click.Command) -> click.Command:
    """Apply :func:`keep_blocks` to ``cmd``'s help and epilog, and to its subcommands' (once)."""
    if cmd in _PREPARED:
        return cmd
    cmd.help = keep_blocks(cmd.help)
    cmd.epilog = keep_blocks(cmd.epilog)
    _PREPARED.add(cmd)
    for sub in (getattr(cmd, "commands", None) or {}).values():
        prepare(sub)
    return cmd


class SuggestingGroup(click.Group):
    """A group that names the closest command when the one typed does not exist (exit status 2)."""

    def resolve_command(self, ctx: click.Context,
                        args: List[str]) -> Tuple[Optional[str], Optional[click.Command], List[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib  # only on a typo: never on a good command's path

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1, cutoff=0.6)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            ctx.fail(f"No such command '{click.utils.make_str(name)}'.{hint} "
                     f"(the commands: {', '.join(self.list_commands(ctx))})")
        return super().resolve_command(ctx, args)

    def get_command(self, ctx: click.Context, name: str) -> Optional[click.Command]:
        cmd = super().get_command(ctx, name)
        return prepare(cmd) if cmd is not None else None

    def format_help(self, ctx: click.Context, formatter: Any) -> None:
        prepare(self)
        super().format_help(ctx, formatter)
