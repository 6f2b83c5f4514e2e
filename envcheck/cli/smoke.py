"""``envcheck smoke``."""

from __future__ import annotations

from typing import Optional, Tuple

import click

from envcheck import exit_codes
from envcheck.cli._common import checked_interpreter, emit, interpreter_option, output_options
from envcheck.errors import UsageError
from envcheck.smoke.runner import DEFAULT_TIMEOUT, FRAMEWORKS


@click.command()
@click.option("--framework", "-f", "frameworks", multiple=True, type=click.Choice(FRAMEWORKS),
              help="A framework to test (repeatable). Default: every one installed.")
@click.option("--timeout", type=click.FloatRange(min=1.0), default=DEFAULT_TIMEOUT, show_default=True,
              help="Seconds each framework's child process may take before it is killed.")
@click.option("--device", type=click.Choice(["auto", "cuda", "xpu", "mps", "cpu"]), default="auto", show_default=True,
              help="auto: the GPU device the build offers (cuda, which is also AMD through HIP on a ROCm build; xpu; mps) when one is visible, else the CPU; cuda / xpu / mps: that device or a failure; cpu: CPU only.")
@output_options("result", schema="envcheck/smoke/1")
@interpreter_option
@click.option("--python", "python", metavar="PATH", default=None, hidden=True,
              help="The old spelling of --interpreter (kept for a release).")
def smoke(frameworks: Tuple[str, ...], timeout: float, device: str, as_json: bool, interpreter: Optional[str],
          python: Optional[str] = None) -> int:
    """Run tiny real operations (import, device, conv2d, batch norm, LSTM, matmul, fp16/bf16) of each
    framework in a child process that may crash or hang without taking envcheck down.

    Exit status: 0 when every step passed, 1 when some step failed (a crash or a timeout is a
    failed step), 2 for a usage error, or when no framework is installed and none was named.

    With --interpreter PYTHON (or ENVCHECK_INTERPRETER, as for `status`) the child runs under the
    training environment's Python instead of envcheck's.

    Example:

        envcheck smoke
        envcheck smoke --framework torch --device cuda --json
        envcheck smoke --interpreter ~/venvs/train/bin/python
    """
    from envcheck.smoke.runner import installed_frameworks, run_smoke

    if python is not None and interpreter is not None and python != interpreter:
        source = click.get_current_context().get_parameter_source("interpreter")
        if source == click.core.ParameterSource.COMMANDLINE:
            raise click.UsageError("--python is the old spelling of --interpreter: give one of them")
    given = python if python is not None else interpreter
    # the real cause first: a missing interpreter is said as such, never as "no framework installed"
    python = checked_interpreter(given)
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
    emit(doc, as_json, False, "envcheck.render.smoke", "render_smoke", fit_text=False)
    return exit_codes.OK if doc["ok"] else exit_codes.FINDINGS
