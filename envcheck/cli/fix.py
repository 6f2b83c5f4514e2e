"""``envcheck fix``: the plan for a working GPU environment here (or on a snapshot's machine)."""

from __future__ import annotations

import os
from typing import List, Optional, Tuple

import click

from envcheck import exit_codes
from envcheck.cli._common import emit, interpreter_option, open_source, output_options, snapshot_option


@click.command()
@click.argument("files", nargs=-1, metavar="[FILES]...")
@click.option("--check-pins", "check_pins", is_flag=True,
              help="Check the framework pins of FILES (requirements*.txt, environment.yml, pyproject.toml) "
                   "instead of planning: exit 1 when they cannot work together on the machine (the pre-commit "
                   "hook).")
@click.option("--want", "wants", multiple=True, metavar="REQ",
              help="A PEP 508 requirement: torch, 'torch==2.5.*', 'tensorflow>=2.15', torchvision, 'jax[cuda12]'. "
                   "Repeatable. Default: the frameworks installed now.")
@snapshot_option
@interpreter_option
@click.option("--python", "python", metavar="X.Y", default=None, help="Plan for this Python (default: the one here).")
@click.option("--driver", metavar="VERSION", default=None, help="Plan for this NVIDIA driver instead of the detected one.")
@click.option("--gpu", "gpus", multiple=True, metavar="NAME", help="Plan for this GPU model (repeatable).")
@click.option("--cc", "ccs", multiple=True, metavar="X.Y", help="Plan for this compute capability (repeatable).")
@click.option("--platform", type=click.Choice(["linux-x86_64", "linux-aarch64", "windows-x86_64"]), default=None,
              help="Plan for this platform (default: this machine's).")
@click.option("--cpu", is_flag=True, help="Plan the CPU-only builds (chosen without this flag only on a machine with "
                                          "no NVIDIA driver and no sign of an NVIDIA GPU).")
@click.option("--require-gpu", "require_gpu", is_flag=True, envvar="ENVCHECK_REQUIRE_GPU",
              help="Plan for a GPU even where no NVIDIA driver or GPU is seen (unsatisfiable until one is there).")
@output_options("plan", schema="envcheck/plan/1")
@click.option("--write-env", "write_env", is_flag=False, flag_value=".", default=None, metavar="[DIR]",
              help="Write requirements.txt, environment.yml and envcheck.env into DIR (default: .).")
@click.option("--force", is_flag=True, help="Overwrite existing files / replace an existing venv.")
@click.option("--apply", "apply_", is_flag=True, help="Build the venv: in a temporary folder, re-checked, then moved "
                                                      "into place.")
@click.option("--venv", "venv", metavar="PATH", default=".venv", show_default=True, help="The venv --apply builds.")
@click.option("--uv", "use_uv", is_flag=True, help="With --apply: build with uv (when installed) instead of venv + pip.")
@click.option("--find-links", "find_links", multiple=True, metavar="DIR|URL",
              help="With --apply: also look for wheels here (repeatable).")
@click.option("--index-url", "index_url", default=None, metavar="URL",
              help="With --apply: install everything from this index (a mirror) instead of the plan's indexes.")
@click.option("--offline", is_flag=True, help="With --apply: use no index at all (only --find-links).")
def fix(files: Tuple[str, ...], check_pins: bool, wants: Tuple[str, ...], snapshot_path: Optional[str], interpreter: Optional[str], python: Optional[str], driver: Optional[str],
        gpus: Tuple[str, ...], ccs: Tuple[str, ...], platform: Optional[str], cpu: bool, require_gpu: bool,
        as_json: bool, write_env: Optional[str],
        force: bool, apply_: bool, venv: str, use_uv: bool, find_links: Tuple[str, ...], index_url: Optional[str],
        offline: bool) -> int:
    """Plan a working GPU environment for this machine: its driver, its GPUs' compute
    capabilities, its Python and platform; print the pip, uv and conda commands; optionally
    write them as files or build the venv.

    The plan picks the newest release and CUDA variant that runs on the driver (minor-version
    compatibility understood), is compiled for every GPU, and has wheels for the Python and
    platform. Several frameworks must share one CUDA/cuDNN; when none can, it proposes two
    environments. When nothing fits it says which constraint failed and what lifts it
    (a driver upgrade, another Python, or the CPU build, offered explicitly, never silently). On a
    machine with no NVIDIA driver and no sign of an NVIDIA GPU it plans the CPU builds and says so
    (--require-gpu plans for a GPU all the same).

    With --check-pins FILES it plans nothing new: it reads the torch / torchvision / torchaudio /
    tensorflow / jax pins of FILES (pip requirements, conda environment.yml, pyproject.toml) and asks
    the same planner whether they can work together on the machine: the snapshot's, or the one --driver,
    --gpu/--cc, --python and --platform describe (without --driver: the newest driver the matrix knows).

    Exit status: 0 when a plan fits (with --check-pins: the pins can work), 1 when none does (or --apply
    failed), 2 for a usage error.

    Example:

        envcheck fix --want 'torch==2.5.*' --want torchvision
        envcheck fix --snapshot node17.tar.gz --json
        envcheck fix --want torch --write-env envdir
        envcheck fix --want torch --apply --venv ~/venvs/train
        envcheck fix --check-pins requirements.txt environment.yml --python 3.11 --gpu 'RTX 4090'
    """
    from envcheck.environment import collect
    from envcheck.errors import UsageError
    from envcheck.matrix import load_matrix
    from envcheck.plan.output import env_file, environment_yml, requirements_txt

    if check_pins or files:
        if not check_pins:
            raise UsageError(f"unexpected argument {files[0]!r} (files are read with --check-pins)")
        if not files:
            raise UsageError("--check-pins needs the files to read (requirements.txt, environment.yml, ...)")
        if wants or apply_ or write_env is not None or cpu:
            raise UsageError("--check-pins goes with neither --want, --cpu, --write-env nor --apply")
        return _check_pins(files, snapshot_path, python, driver, gpus, ccs, platform, as_json)
    if offline and index_url:
        raise UsageError("--offline and --index-url exclude each other")
    if (use_uv or find_links or index_url or offline) and not apply_:
        raise UsageError("--uv, --find-links, --index-url and --offline go with --apply")
    matrix = load_matrix()
    env = collect(open_source(snapshot_path, interpreter=interpreter), matrix)
    from envcheck.plan.document import plan_document

    d, plan, kind = plan_document(env, matrix, wants, cpu=cpu, require_gpu=require_gpu, python=python,
                                  driver=driver, ccs=ccs, gpus=gpus, platform=platform)
    if kind is not None:  # contract §9: an AMD / Intel / Apple / Jetson machine gets its vendor's builds
        if write_env is not None or apply_:
            raise UsageError(f"--write-env and --apply plan NVIDIA CUDA / CPU builds; on this {kind} machine use the "
                             "printed commands")
        emit(d, as_json, False, "envcheck.render.plan", "render_plan_text", fit_text=False)
        return exit_codes.OK if d["satisfiable"] else exit_codes.FINDINGS
    assert plan is not None
    emit(d, as_json, False, "envcheck.render.plan", "render_plan_text", fit_text=False)
    if (write_env is not None or apply_) and plan.satisfiable and not plan.builds:
        # e.g. only a nightly or source build is installed, which the matrix does not list: an environment with
        # nothing in it would lose it
        click.echo("envcheck: the plan installs nothing (see its notes), so no files were written and nothing was "
                   "installed; name what to plan with --want", err=True)
        return exit_codes.OK
    if write_env is not None:
        if not plan.satisfiable:
            click.echo("envcheck: no plan fits, so no files were written", err=True)
            return exit_codes.FINDINGS
        written = _write_files(write_env, force, {
            "requirements.txt": requirements_txt(plan),
            "environment.yml": environment_yml(plan),
            "envcheck.env": env_file(plan),
        })
        for p in written:
            click.echo(f"wrote {p}", err=as_json)
    if apply_:
        if not plan.satisfiable:
            click.echo("envcheck: no plan fits, so nothing was installed", err=True)
            return exit_codes.FINDINGS
        from envcheck.errors import ApplyError
        from envcheck.plan.apply import apply_plan

        try:
            result = apply_plan(plan, venv, force=force, use_uv=use_uv, find_links=list(find_links),
                                index_url=index_url, offline=offline, python=python,
                                log=lambda line: click.echo(line, err=True))
        except ApplyError as exc:
            click.echo(f"envcheck: --apply failed: {exc}", err=True)
            click.echo(f"envcheck: {os.path.abspath(venv)} was left as it was", err=True)
            return exit_codes.FINDINGS
        click.echo(f"envcheck: built {result.venv} and re-checked it: ok", err=True)
        click.echo(f"envcheck: activate it with:  . {os.path.join(result.venv, 'bin', 'activate')}", err=True)
    return exit_codes.OK if plan.satisfiable else exit_codes.FINDINGS


def _write_files(directory: str, force: bool, files: dict) -> List[str]:
    """The three files as one change (:func:`envcheck.safe_io.write_files`): all written or none."""
    from envcheck.safe_io import encode_text, write_files

    return write_files(directory, {name: encode_text(text) for name, text in files.items()}, force=force)


def _check_pins(files: Tuple[str, ...], snapshot_path: Optional[str], python: Optional[str], driver: Optional[str],
                gpus: Tuple[str, ...], ccs: Tuple[str, ...], platform: Optional[str], as_json: bool) -> int:
    """``fix --check-pins FILES``: the pins' plan on the machine, and exit 0 / 1."""
    from envcheck.matrix import load_matrix
    from envcheck.parse.pins import read_pins
    from envcheck.plan.output import plan_dict
    from envcheck.plan.pins import check_pins
    from envcheck.render import clean_text

    matrix = load_matrix()
    pins = [p for f in dict.fromkeys(files) for p in read_pins(f)]
    if snapshot_path:
        from envcheck.environment import collect

        env = collect(open_source(snapshot_path), matrix)
    else:
        from envcheck.model import Driver, Environment, Host, PythonInfo, Toolkit

        env = Environment(source="--check-pins", host=Host(), python=PythonInfo(), driver=Driver(), gpus=(),
                          toolkit=Toolkit(), libraries=(), frameworks={}, packages={})
    res = check_pins(matrix, env, pins, python=python, driver=driver, gpus=gpus, ccs=ccs, platform=platform,
                     assume_driver=not snapshot_path)
    if res.plan is None:
        if not as_json:
            for n in res.notes:
                click.echo(clean_text(f"note: {n}"))
            for pr in res.problems:
                click.echo(clean_text(f"problem: {pr}"))
            what = "no readable" if res.problems else "no checkable" if any(
                n.endswith(("not checked", "not checked here")) for n in res.notes) else "no"
            click.echo(clean_text(f"envcheck fix --check-pins: {what} torch / tensorflow / jax pin in "
                                  f"{', '.join(files)}; nothing to check"))
        else:
            for pr in res.problems:
                click.echo(clean_text(f"envcheck: {pr}"), err=True)
        # a framework line that cannot be read is a broken pin, not the absence of one
        return exit_codes.FINDINGS if res.problems else exit_codes.OK
    if as_json:
        emit(plan_dict(res.plan), True, False, "envcheck.render.plan", "render_plan_text")
    else:
        read = ", ".join(f"{p.text} ({p.file}{':' + str(p.line) if p.line else ''})" for p in res.pins)
        click.echo(clean_text(f"pins: {read}"))
        for n in res.notes:
            click.echo(clean_text(f"note: {n}"))
        for pr in res.problems:
            click.echo(clean_text(f"problem: {pr}"))
        emit(plan_dict(res.plan), False, False, "envcheck.render.plan", "render_plan_text", fit_text=False)
        verdict = "OK: these pins can work together" if res.ok else "CANNOT WORK: these pins do not fit the machine"
        if res.ok and res.platform_unknown:
            works = [p for p, ok in (res.platforms or {}).items() if ok]
            verdict = (f"NOT CHECKED: these pins can work together on {', '.join(works)} only, and this machine's "
                       "platform is not known (give --platform, or capture python.json)")
        click.echo(verdict)
    for pr in res.problems if as_json else ():
        click.echo(clean_text(f"envcheck: {pr}"), err=True)
    return exit_codes.OK if res.ok else exit_codes.FINDINGS
