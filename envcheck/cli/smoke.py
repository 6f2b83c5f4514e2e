"""``envcheck smoke``."""

from __future__ import annotations

from typing import Optional, Tuple

import click

from envcheck import exit_codes
from envcheck.render import json_text
from envcheck.cli._common import color_enabled, styler
from envcheck.errors import UsageError
from envcheck.smoke.runner import DEFAULT_TIMEOUT, FRAMEWORKS


@click.command()
@click.option("--framework", "-f", "frameworks", multiple=True, type=click.Choice(FRAMEWORKS),
              help="A framework to test (repeatable). Default: every one installed.")
@click.option("--timeout", type=click.FloatRange(min=1.0), default=DEFAULT_TIMEOUT, show_default=True,
              help="Seconds each framework's child process may take before it is killed.")
@click.option("--device", type=click.Choice(["auto", "cuda", "xpu", "mps", "cpu"]), default="auto", show_default=True,
              help="auto: the GPU device the build offers (cuda, which is also AMD through HIP on a ROCm build; xpu; mps) when one is visible, else the CPU; cuda / xpu / mps: that device or a failure; cpu: CPU only.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (schema envcheck/smoke/1).")
@click.option("--python", "python", metavar="PATH", default=None,
              help="Run the child with this interpreter (e.g. a virtual environment's python) instead of envcheck's.")
def smoke(frameworks: Tuple[str, ...], timeout: float, device: str, as_json: bool, python: Optional[str]) -> int:
    """Run tiny real operations (import, device, conv2d, batch norm, LSTM, matmul, fp16/bf16) of each
    framework in a child process that may crash or hang without taking envcheck down.

    Exit status: 0 when every step passed, 1 when some step failed (a crash or a timeout is a
    failed step), 2 for a usage error, or when no framework is installed and none was named.

    Example:

        envcheck smoke
        envcheck smoke --framework torch --device cuda --json
    """
    from envcheck.smoke.runner import installed_frameworks, run_smoke

    chosen = list(dict.fromkeys(frameworks))
    if not chosen:
        chosen = installed_frameworks(python)
        if not chosen:
            raise UsageError("no framework to test: none of " + ", ".join(FRAMEWORKS) + " is installed for "
                             + (python or "this Python") + "; install one, or name it with --framework "
                             "to have it reported as missing")
    from envcheck.cli._progress import Progress, progress_wanted

    with Progress("envcheck smoke", progress_wanted(as_json)) as progress:
        doc = run_smoke(chosen, timeout=timeout, device=device, python=python,
                        on_step=lambda fw, step: progress.update(f"{fw}: {step}"))
    if as_json:
        click.echo(json_text(doc, indent=2))
    else:
        from envcheck.render.smoke import render_smoke

        click.echo(render_smoke(doc, styler(color_enabled())), nl=False)
    return exit_codes.OK if doc["ok"] else exit_codes.FINDINGS
