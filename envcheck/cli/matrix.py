"""``envcheck matrix``: show, query, why, status, update, reset."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import click

from envcheck import exit_codes
from envcheck.cli._common import emit, output_options

#: table name -> (matrix file, row key); the columns shown as text are envcheck.render.matrix's
TABLES = {
    "cuda": ("cuda", "toolkit"),
    "drivers": ("cuda", "driver_branch"),
    "gpus": ("gpus", "gpu"),
    "torch": ("torch", "variant"),
    "tensorflow": ("tensorflow", "release"),
    "cudnn": ("cudnn", "release"),
    "jax": ("jax", "release"),
    "cupy": ("cupy", "package"),
    "onnxruntime": ("onnxruntime", "release"),
    "rocm": ("rocm", "torch_variant"),
    "xpu": ("xpu", "torch_xpu"),
    "xpu-aot": ("xpu", "aot_target"),
    "intel-gpus": ("xpu", "intel_gpu"),
}


def _clean(text: str) -> str:
    """Untrusted text (a URL, a server's error) without raw control characters for the terminal."""
    return "".join(c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" for c in text)


@click.group()
def matrix() -> None:
    """The curated compatibility matrix: show tables, query builds, explain whether a build runs here.

    Example:

        envcheck matrix query 'torch==2.5.1'
    """


@matrix.command()
@click.argument("table", type=click.Choice(sorted(TABLES)), default="cuda")
@output_options("rows, each with its source,", schema="envcheck/matrix-table/1")
def show(table: str, as_json: bool) -> int:
    """Show one table of the active matrix (every row carries its source in --json).

    Example:

        envcheck matrix show gpus
    """
    from envcheck.matrix import load_matrix

    m = load_matrix()
    name, key = TABLES[table]
    doc = {"schema": "envcheck/matrix-table/1", "table": table, "matrix": m.origin, "meta": m.meta(name),
           "rows": m.rows(name, key)}
    emit(doc, as_json, False, "envcheck.render.matrix", "render_table_text", fit_text=False)
    return exit_codes.OK


@matrix.command()
@click.argument("requirement", metavar="REQ")
@output_options("builds", schema="envcheck/matrix-query/1")
def query(requirement: str, as_json: bool) -> int:
    """List the builds matching REQ with driver floor, Python range, cuDNN and compute capabilities.

    REQ names torch, torchvision, torchaudio (through the torch release they pair with), tensorflow,
    jax, jaxlib, a jax CUDA plugin, cupy or cupy-cudaNNx. DRIVER_MIN is the lowest driver the build runs on (the
    minor-version-compatibility floor of its CUDA major); DRIVER_FULL the driver of its CUDA toolkit
    release. COMPUTE_CAPABILITIES are the SASS targets, PTX the PTX targets. Exit status 1 when nothing
    matches.

    \b
    Example:
        envcheck matrix query 'tensorflow>=2.15'
        envcheck matrix query 'torchvision==0.20.1'
    """
    from envcheck.engine.builds import builds_for
    from envcheck.matrix import load_matrix

    m = load_matrix()
    builds = [b.to_dict(m) for b in builds_for(m, requirement)]
    doc: Dict[str, Any] = {"schema": "envcheck/matrix-query/1", "requirement": requirement, "builds": builds}
    note = None if builds else _unlisted_note(m, requirement)
    if note:
        doc["note"] = note
    emit(doc, as_json, False, "envcheck.render.matrix", "render_query_text", fit_text=False)
    return exit_codes.OK if builds else exit_codes.FINDINGS


@matrix.command()
@click.argument("requirement", metavar="REQ")
@click.option("--driver", "driver", metavar="VERSION", help="NVIDIA driver version, e.g. 535.104.05.")
@click.option("--gpu", "gpu", metavar="NAME", help="GPU name, e.g. 'GeForce GTX 1080 Ti'.")
@click.option("--cc", "cc", metavar="X.Y", help="GPU compute capability, e.g. 6.1.")
@click.option("--python", "python", metavar="X.Y", help="Python version, e.g. 3.11.")
@click.option("--platform", "platform", type=click.Choice(["linux-x86_64", "linux-aarch64", "windows-x86_64"]),
              help="Platform of the machine (default: the snapshot's, else linux-x86_64).")
@click.option("--snapshot", "snapshot_path", metavar="DIR|FILE.tar.gz", help="Take the machine's facts from a snapshot.")
@output_options("verdicts (each build: runs, does not run or unknown, with its reasons)", schema="envcheck/matrix-why/1")
def why(requirement: str, driver: Optional[str], gpu: Optional[str], cc: Optional[str], python: Optional[str],
        platform: Optional[str], snapshot_path: Optional[str], as_json: bool) -> int:
    """Whether and why each build matching REQ runs on a machine, line by line.

    Each build gets RUNS, DOES NOT RUN or UNKNOWN (a fact is missing: the lines say which, and how to
    give it). The answer is the one `envcheck fix` and `envcheck status` use. Exit status 0 when at
    least one build runs, 1 when none does.

    \b
    Example:
        envcheck matrix why 'torch==2.8.0' --driver 570.86.10 --gpu 'GeForce GTX 1080 Ti' --python 3.12
    """
    from envcheck.engine import Status, evaluate, machine_from_env
    from envcheck.engine.builds import builds_for
    from envcheck.matrix import load_matrix

    m = load_matrix()
    if snapshot_path:
        from envcheck.environment import collect
        from envcheck.snapshot import open_snapshot

        env = collect(open_snapshot(snapshot_path), m)
    else:
        env = _blank_environment()
    machine = machine_from_env(env, m, python=python, driver=driver, ccs=(cc,) if cc else (),
                               gpus=(gpu,) if gpu else (), platform=platform)
    from envcheck.engine.advice import advice_from_verdicts

    results: List[Dict[str, Any]] = []
    verdicts = []
    # a CPU build is an answer only where no NVIDIA GPU is seen or expected (as `envcheck fix` plans it)
    from envcheck.engine.vendors import cuda_build_line, jetson_cuda_line

    other = cuda_build_line(env)  # a CUDA build on an AMD / Intel / Apple machine says so first
    jetson = jetson_cuda_line(env, m)  # on a Jetson, PyTorch's aarch64 CUDA wheels are server (SBSA) builds
    for b in builds_for(m, requirement, machine.platform, include_cpu=not machine.gpu_signs):
        v = evaluate(m, b, machine)
        verdicts.append(v)
        off = bool(jetson and b.gpu)
        results.append({"build": b.to_dict(m, windows=machine.windows_driver),
                        "verdict": "does-not-run" if off else v.status.value,
                        "runs": False if off else {Status.RUNS: True, Status.NO: False}.get(v.status),
                        "reasons": ([other] if other and b.gpu else []) + ([jetson] if off else []) + v.lines,
                        "missing": list(v.unknown),
                        "required_driver": str(v.required_driver) if v.required_driver else None})
    # an AMD or Intel machine: the PyTorch-index ROCm / XPU builds of the matched torch releases too
    from envcheck.engine.builds import parse_requirement
    from envcheck.engine.vendors import vendor_why

    fw_name, _spec, _asked = parse_requirement(requirement)
    if fw_name == "torch":
        from envcheck.versions import version_tuple

        found = builds_for(m, requirement, machine.platform) or builds_for(m, requirement)  # a Mac: the releases
        releases = sorted({b.version for b in found}, key=lambda r: version_tuple(r) or ())
        results.extend(vendor_why(env, m, releases, machine.python, machine.platform))
    # when the driver alone holds every matching build back: the smallest upgrade and the newest build's floor
    advice = advice_from_verdicts(verdicts) if machine.driver is not None else None
    doc = {"schema": "envcheck/matrix-why/1", "requirement": requirement, "machine": machine.to_dict(),
           "results": results, "driver_advice": advice.to_dict() if advice else None,
           "driver_advice_text": advice.sentence(machine.driver) if advice else None}
    note = None if results else _unlisted_note(m, requirement)
    if note:
        doc["note"] = note
    emit(doc, as_json, False, "envcheck.render.matrix", "render_why_text", fit_text=False)
    return exit_codes.OK if any(r["runs"] for r in results) else exit_codes.FINDINGS


def _unlisted_note(m: Any, requirement: str) -> Optional[str]:
    """Why no build matches a requirement that pins one release (``torch==2.16.0.dev20260301``): the release is not
    in the matrix, so whether it runs is not known (not that it does not run)."""
    from envcheck.engine.builds import parse_requirement
    from envcheck.engine.freshness import not_in_matrix

    fw, spec, asked = parse_requirement(requirement)
    pins = [s.version for s in spec if s.operator in ("==", "===") and "*" not in s.version]
    # torchvision / jaxlib / cupy-cuda12x versions are not the framework's own release numbers
    own = asked == fw or (fw == "tensorflow" and asked.startswith("tensorflow"))
    got = not_in_matrix(m, fw, pins[0]) if own and len(pins) == 1 and len(list(spec)) == 1 else None
    if got is None:
        return None
    return (f"{fw} {pins[0]} is {got[1]}, so whether it runs is not known"
            + (" (`envcheck matrix update`)" if got[0] == "newer" else ""))


def _blank_environment() -> Any:
    """The facts of no machine: everything unknown, for `matrix why` without --snapshot (no driver given is an
    unknown driver, not a machine without one; no GPU given is an unknown GPU list, not none)."""
    from envcheck.engine import DRIVER_CAPTURE_FILES
    from envcheck.model import Driver, Environment, Host, PythonInfo, Toolkit

    return Environment(source="command line", host=Host(), python=PythonInfo(), driver=Driver(), gpus=(),
                       toolkit=Toolkit(), libraries=(), frameworks={}, packages={}, gpus_known=False,
                       not_captured=DRIVER_CAPTURE_FILES)


@matrix.command(name="status")
@output_options("active matrix's origin, version, signing key and table dates")
def status_cmd(as_json: bool) -> int:
    """Which matrix is active: where it came from, its version, the key that signed it, each table's date.

    Example:

        envcheck matrix status
    """
    from envcheck.engine.freshness import matrix_age_days, matrix_updated, newest_known
    from envcheck.matrix import load_matrix
    from envcheck.matrix.bundle import status_info

    info = status_info()
    active = load_matrix()
    info["updated"] = matrix_updated(active)  # the oldest table's date: the matrix is as old as its oldest part
    info["age_days"] = matrix_age_days(active)
    info["newest"] = newest_known(active)
    from envcheck.matrix.download import DEFAULT_SOURCE

    info["update_source"] = DEFAULT_SOURCE or None  # where `matrix update` looks without --from (None: nowhere)
    for w in info["warnings"]:  # type: ignore[attr-defined]
        click.echo(f"WARNING: {_clean(str(w))}", err=True)
    emit(dict(info), as_json, False, "envcheck.render.matrix", "render_status_text", fit_text=False)
    return exit_codes.OK


@matrix.command()
@click.option("--from", "source", metavar="URL|FILE", default=None,
              help="Where to take the bundle from: an https:// URL or a local .tar.gz (default: the signed "
                   "bundle published with envcheck's releases, where this release knows that address; "
                   "`matrix status` shows it as the update source, and without one --from is required).")
@click.option("--timeout", type=float, default=60.0, show_default=True,
              help="Seconds the whole download may take (connection and every read included).")
def update(source: Optional[str], timeout: float) -> int:
    """Install a newer signed matrix bundle into the user cache; it is used over the bundled one from then on.

    The bundle must be signed with a key of the envcheck maintainers that this release still trusts
    (envcheck/matrix/keys.toml: validity dates, revocations) and is checked before anything is
    written: https only (http only to this machine's loopback address), no redirect to another host,
    size and time limits, the signature and every file's digest, an expiry date (at most 400 days
    out, not past), a version newer than the active matrix and than every version installed here
    before (the rollback floor, kept by `matrix reset`) and at most a few days ahead of today, the
    schema of every table, driver floors close to the bundled ones, no gutted table, package indexes
    on the allow-list, fixes as data (no free shell text), and every regex of errors.toml safe.
    Any failure leaves the cache untouched (exit status 2). `envcheck matrix reset` returns to the
    bundled matrix. Without --from the bundle published with envcheck's releases is taken; a release
    that knows no published address (`matrix status`: "update source: none configured") refuses with
    exit status 2 and asks for --from (docs/matrix.md; docs/security.md says what is trusted, and for
    how long).

    Example:

        envcheck matrix update --from envcheck-matrix-2027.01.10.tar.gz
        envcheck matrix update --from https://example.org/envcheck-matrix-2027.01.10.tar.gz
    """
    import os

    from envcheck.matrix.download import DEFAULT_SOURCE

    if not source:
        if not DEFAULT_SOURCE:
            from envcheck.errors import UsageError

            raise UsageError("no default source to update from: envcheck has no published repository address yet; "
                             "give the bundle with --from URL|FILE (a signed bundle from the maintainers)")
        source = DEFAULT_SOURCE
        click.echo(f"downloading the matrix bundle from {DEFAULT_SOURCE}", err=True)
    from envcheck.errors import MatrixError, UsageError
    from envcheck.explain.kb import bundle_kb_problems
    from envcheck.matrix.bundle import update as do_update
    from envcheck.matrix.signing import ENV_KEYS

    if os.environ.get(ENV_KEYS):
        click.echo(f"WARNING: {ENV_KEYS}={_clean(os.environ[ENV_KEYS])} is set: bundles signed by the key(s) in "
                   "that file are trusted too (meant for tests and private mirrors only)", err=True)
    try:
        info = do_update(source, timeout=timeout, kb_problems=bundle_kb_problems)
    except (MatrixError, UsageError) as exc:
        raise UsageError(_clean(str(exc))) from exc
    click.echo(f"installed matrix {info['version']} signed by {info['key']} ({_clean(str(info['key_origin']))}); "
               "`envcheck matrix status` shows it")
    if info["key_origin"] != "shipped":
        click.echo(f"WARNING: the bundle was signed by a key that does not ship with envcheck ({info['key']})",
                   err=True)
    return exit_codes.OK


@matrix.command()
def reset() -> int:
    """Return to the matrix bundled with envcheck: remove every bundle installed by `matrix update`.

    Example:

        envcheck matrix reset
    """
    from envcheck.matrix.bundle import active_directory, reset as do_reset

    try:
        removed = do_reset()
    except OSError as exc:
        from envcheck.errors import UsageError

        raise UsageError(f"cannot reset the matrix cache: {exc}") from exc
    _, active = active_directory()
    if removed:
        click.echo(f"removed {len(removed)} installed bundle file(s); active matrix: {active}")
    else:
        click.echo(f"nothing installed; active matrix: {active}")
    return exit_codes.OK
