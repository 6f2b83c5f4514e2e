"""``envcheck matrix``: show, query, why, status, update."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

import click

from envcheck import exit_codes

TABLES = {
    "cuda": ("cuda", "toolkit", ["version", "min_driver_linux", "min_driver_windows"]),
    "drivers": ("cuda", "driver_branch", ["branch", "highest_cuda", "first_driver_linux"]),
    "gpus": ("gpus", "gpu", ["name", "compute_capability", "architecture", "segment"]),
    "torch": ("torch", "variant", ["releases", "variant", "cuda", "cudnn", "compute_capabilities"]),
    "tensorflow": ("tensorflow", "release", ["version", "python", "cuda", "cudnn", "compute_capabilities"]),
    "cudnn": ("cudnn", "release", ["version", "cuda", "min_compute_capability", "layout"]),
    "jax": ("jax", "release", ["jax", "jaxlib", "cuda_plugins", "cuda", "cudnn_min", "python"]),
}


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, list):
        if v and isinstance(v[0], dict):
            return ", ".join(f"{d.get('major')}.x {d.get('min', '')}-{d.get('max', '')}" for d in v)
        return " ".join(str(x) for x in v) if len(v) <= 12 else " ".join(str(x) for x in v[:3]) + f" ... ({len(v)})"
    return str(v)


def _table(rows: List[Dict[str, Any]], cols: List[str]) -> str:
    cells = [[_cell(r.get(c)) for c in cols] for r in rows]
    widths = [min(max([len(c)] + [len(x[i]) for x in cells]), 60) for i, c in enumerate(cols)]
    out = ["  ".join(c.upper().ljust(w) for c, w in zip(cols, widths))]
    for x in cells:
        out.append("  ".join(v[:60].ljust(w) for v, w in zip(x, widths)).rstrip())
    return "\n".join(out) + "\n"


@click.group()
def matrix() -> None:
    """The curated compatibility matrix: show tables, query builds, explain whether a build runs here.

    Example:

        envcheck matrix query 'torch==2.5.1'
    """


@matrix.command()
@click.argument("table", type=click.Choice(sorted(TABLES)), default="cuda")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
def show(table: str, as_json: bool) -> int:
    """Show one table of the active matrix (every row carries its source in --json).

    Example:

        envcheck matrix show gpus
    """
    from envcheck.matrix import load_matrix

    m = load_matrix()
    name, key, cols = TABLES[table]
    rows = m.rows(name, key)
    if as_json:
        click.echo(json.dumps({"schema": "envcheck/matrix-table/1", "table": table, "matrix": m.origin,
                               "meta": m.meta(name), "rows": rows}, indent=2))
    else:
        click.echo(_table(rows, cols), nl=False)
        click.echo(f"({len(rows)} rows; matrix {m.origin}; sources: --json)")
    return exit_codes.OK


_BUILD_COLS = ["version", "variant", "cuda", "driver_min", "driver_full", "python", "cudnn", "compute_capabilities"]


@matrix.command()
@click.argument("requirement", metavar="REQ")
@click.option("--json", "as_json", is_flag=True, help="Print the builds as JSON.")
def query(requirement: str, as_json: bool) -> int:
    """List the builds matching REQ with driver floor, Python range, cuDNN and compute capabilities.

    DRIVER_MIN is the minor-version-compatibility floor of the build's CUDA major; DRIVER_FULL the
    driver of its CUDA toolkit release. Exit status 1 when nothing matches.

    Example:

        envcheck matrix query 'tensorflow>=2.15'
    """
    from envcheck.builds import builds_for
    from envcheck.matrix import load_matrix

    m = load_matrix()
    builds = builds_for(m, requirement)
    if as_json:
        click.echo(json.dumps({"schema": "envcheck/matrix-query/1", "requirement": requirement, "builds": builds},
                              indent=2))
    elif builds:
        click.echo(_table(builds, _BUILD_COLS), nl=False)
    else:
        click.echo(f"no build in the matrix matches {requirement!r}")
    return exit_codes.OK if builds else exit_codes.FINDINGS


@matrix.command()
@click.argument("requirement", metavar="REQ")
@click.option("--driver", "driver", metavar="VERSION", help="NVIDIA driver version, e.g. 535.104.05.")
@click.option("--gpu", "gpu", metavar="NAME", help="GPU name, e.g. 'GeForce GTX 1080 Ti'.")
@click.option("--cc", "cc", metavar="X.Y", help="GPU compute capability, e.g. 6.1.")
@click.option("--python", "python", metavar="X.Y", help="Python version, e.g. 3.11.")
@click.option("--snapshot", "snapshot_path", metavar="DIR|FILE.tar.gz", help="Take the machine's facts from a snapshot.")
@click.option("--json", "as_json", is_flag=True)
def why(requirement: str, driver: Optional[str], gpu: Optional[str], cc: Optional[str], python: Optional[str],
        snapshot_path: Optional[str], as_json: bool) -> int:
    """Whether and why each build matching REQ runs on a machine, line by line.

    Exit status 0 when at least one build runs, 1 when none does.

    Example:

        envcheck matrix why 'torch==2.8.0' --driver 570.86.10 --gpu 'GeForce GTX 1080 Ti' --python 3.12
    """
    from envcheck.builds import builds_for, runs_on
    from envcheck.errors import UsageError
    from envcheck.matrix import load_matrix
    from envcheck.model import DriverVersion, cc_tuple

    m = load_matrix()
    drv = DriverVersion.parse(driver) if driver else None
    if driver and drv is None:
        raise UsageError(f"not a driver version: {driver!r}")
    ccs: Tuple[str, ...] = ()
    driver_cuda = None
    windows = False
    if cc:
        t = cc_tuple(cc)
        if t is None:
            raise UsageError(f"not a compute capability: {cc!r}")
        ccs = (f"{t[0]}.{t[1]}",)
    if gpu:
        row = m.gpu(gpu)
        if row is None:
            raise UsageError(f"GPU {gpu!r} is not in the GPU table; give --cc X.Y instead")
        ccs = ccs + (row["compute_capability"],)
    if snapshot_path:
        from envcheck.environment import collect
        from envcheck.snapshot import open_snapshot

        env = collect(open_snapshot(snapshot_path), m)
        drv = drv or env.driver.version
        driver_cuda = env.driver.cuda if not driver else None
        windows = bool(env.host.wsl)
        ccs = ccs or tuple(g.compute_capability for g in env.visible_gpus if g.compute_capability)
        python = python or env.python.minor
    builds = builds_for(m, requirement)
    results = []
    for b in builds:
        ok, lines = runs_on(m, b, driver=drv, driver_cuda=driver_cuda, ccs=ccs, python=python, windows=windows)
        results.append({"build": b, "runs": ok, "reasons": lines})
    if as_json:
        click.echo(json.dumps({"schema": "envcheck/matrix-why/1", "requirement": requirement, "results": results},
                              indent=2))
    else:
        if not results:
            click.echo(f"no build in the matrix matches {requirement!r}")
        for r in results:
            b = r["build"]
            word = {True: "RUNS", False: "DOES NOT RUN", None: "UNKNOWN"}[r["runs"]]
            click.echo(f"{b['framework']} {b['version']} {b.get('variant') or ''}: {word}")
            for line in r["reasons"]:
                click.echo(f"    {line}")
    return exit_codes.OK if any(r["runs"] for r in results) else exit_codes.FINDINGS


@matrix.command(name="status")
@click.option("--json", "as_json", is_flag=True)
def status_cmd(as_json: bool) -> int:
    """Which matrix is active (bundled or updated), its version and the date of each table.

    Example:

        envcheck matrix status
    """
    from envcheck.matrix.bundle import status_info

    info = status_info()
    if as_json:
        click.echo(json.dumps(info, indent=2))
    else:
        click.echo(f"active matrix: {info['active']} ({info['directory']})")
        for t, d in info["tables"].items():
            click.echo(f"  {t:<11} updated {d}")
        click.echo(f"update cache: {info['cache']}")
    return exit_codes.OK


@matrix.command()
@click.option("--from", "source", metavar="URL|FILE", required=True,
              help="Where to take the bundle from (an http(s) URL or a local .tar.gz).")
@click.option("--timeout", type=float, default=30.0, show_default=True, help="Download timeout in seconds.")
def update(source: str, timeout: float) -> int:
    """Install a newer matrix bundle into the user cache; it is used over the bundled one from then on.

    The bundle is validated first (schema of every table, a version higher than the active one);
    a malformed, truncated or older bundle leaves the cache untouched (exit status 2).

    Example:

        envcheck matrix update --from https://example.org/envcheck-matrix-2027.01.10.tar.gz
    """
    from envcheck.errors import MatrixError, UsageError
    from envcheck.matrix.bundle import update as do_update

    try:
        version = do_update(source, timeout=timeout)
    except MatrixError as exc:
        raise UsageError(str(exc)) from exc
    click.echo(f"installed matrix {version}; `envcheck matrix status` shows it")
    return exit_codes.OK
