"""``envcheck completion SHELL``: the shell completion script (click's, for this command)."""

from __future__ import annotations

import click

from envcheck import exit_codes

SHELLS = ("bash", "zsh", "fish")


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> int:
    """Print the shell completion script for bash, zsh or fish (commands, options and their choices).

    Add one line to the shell's start-up file, or write the script to a file once (a faster start):

    Example:

        eval "$(envcheck completion bash)"                                   # ~/.bashrc
        eval "$(envcheck completion zsh)"                                    # ~/.zshrc
        envcheck completion fish > ~/.config/fish/completions/envcheck.fish  # fish
        envcheck completion bash > ~/.envcheck-complete.bash                 # then: source it
    """
    from click.shell_completion import get_completion_class

    from envcheck.cli import cli

    cls = get_completion_class(shell)
    if cls is None:  # pragma: no cover - click ships all three
        raise click.UsageError(f"no completion for {shell}")
    click.echo(cls(cli, {}, "envcheck", "_ENVCHECK_COMPLETE").source())
    return exit_codes.OK
