"""Framework builds from the matrix, and whether one runs on a given machine (``matrix query/why``)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from envcheck.checks._util import arch_ok, driver_runs
from envcheck.matrix import Matrix
from envcheck.model import DriverVersion, cuda_tuple

__all__ = ["builds_for", "runs_on", "parse_req"]


def parse_req(req: str):
    from packaging.requirements import InvalidRequirement, Requirement

    from envcheck.errors import UsageError

    try:
        r = Requirement(req)
    except InvalidRequirement as exc:
        raise UsageError(f"not a requirement: {req!r} ({exc})") from exc
    name = r.name.lower().replace("_", "-")
    if name not in ("torch", "tensorflow", "tensorflow-gpu", "tensorflow-cpu"):
        raise UsageError(f"the matrix knows torch and tensorflow builds, not {r.name!r}")
    return ("tensorflow" if name.startswith("tensorflow") else "torch"), r.specifier


def _driver_min(matrix: Matrix, cuda: Optional[str]) -> Optional[str]:
    """The lowest driver a build of CUDA ``cuda`` runs on: the major's minor-version-compatibility floor
    (CUDA 11+), else (CUDA 10 and older have none) the driver of the toolkit itself."""
    t = cuda_tuple(cuda)
    if not t:
        return None
    d = matrix.minor_compat_floor(t[0]) or matrix.toolkit_min_driver(f"{t[0]}.{t[1]}")
    return str(d) if d else None


def builds_for(matrix: Matrix, req: str) -> List[Dict[str, Any]]:
    """Every build (release x variant) matching a requirement such as ``torch==2.5.1``."""
    fw, spec = parse_req(req)
    out: List[Dict[str, Any]] = []
    if fw == "torch":
        for rel in matrix.rows("torch", "release"):
            v = rel.get("version")
            if not v or not spec.contains(v, prereleases=True):
                continue
            variants = matrix.torch_variants(v) or [{}]
            for var in variants:
                cuda = var.get("cuda")
                out.append({
                    "framework": "torch", "version": v, "variant": var.get("variant"), "cuda": cuda,
                    "cudnn": var.get("cudnn"), "python": var.get("python") or rel.get("python"),
                    "compute_capabilities": var.get("compute_capabilities"), "ptx": var.get("ptx"),
                    "driver_min": _driver_min(matrix, cuda),
                    "driver_full": str(matrix.toolkit_min_driver(cuda)) if cuda and matrix.toolkit_min_driver(cuda)
                    else None,
                    "index_url": var.get("index_url"), "torchvision": rel.get("torchvision"),
                    "source": var.get("source") or rel.get("source"),
                })
    else:
        for rel in matrix.rows("tensorflow", "release"):
            for v in rel.get("patches") or [rel.get("version")]:
                if not v or not spec.contains(v, prereleases=True):
                    continue
                cuda = rel.get("cuda")
                caps = list(rel.get("compute_capabilities") or [])
                out.append({
                    "framework": "tensorflow", "version": v, "variant": "and-cuda" if rel.get("and_cuda") else None,
                    "cuda": cuda, "cudnn": rel.get("cudnn"), "python": rel.get("python"),
                    "compute_capabilities": caps or None, "ptx": rel.get("ptx"),
                    "driver_min": _driver_min(matrix, cuda),
                    "driver_full": str(matrix.toolkit_min_driver(cuda)) if cuda and matrix.toolkit_min_driver(cuda)
                    else None,
                    "index_url": None, "source": rel.get("source"),
                })
    return out


def runs_on(matrix: Matrix, build: Dict[str, Any], *, driver: Optional[DriverVersion] = None,
            driver_cuda: Optional[str] = None, ccs: Tuple[str, ...] = (), python: Optional[str] = None,
            windows: bool = False) -> Tuple[Optional[bool], List[str]]:
    """(runs?, reasons line by line). ``None`` when some needed fact is unknown and nothing failed."""
    lines: List[str] = []
    verdict: Optional[bool] = True
    cuda = build.get("cuda")
    if not cuda:
        lines.append("driver: not needed (CPU build or CUDA unknown)")
    elif driver is None and driver_cuda is None:
        lines.append(f"driver: unknown here; needs >= {build.get('driver_min') or '?'} (CUDA {cuda})")
        verdict = None
    else:
        ok, how = driver_runs(matrix, driver_cuda, driver, cuda, windows=windows)
        lines.append(f"driver: {'ok' if ok else ('unknown' if ok is None else 'NO')} - build CUDA {cuda}; {how}")
        if ok is False:
            verdict = False
        elif ok is None and verdict:
            verdict = None
    caps = build.get("compute_capabilities")
    arch = ([f"sm_{c.replace('.', '')}" for c in caps or []] +
            [f"compute_{c.replace('.', '')}" for c in build.get("ptx") or []])
    for cc in ccs:
        if not caps:
            lines.append(f"gpu {cc}: unknown (no arch list in the matrix for this build)")
            verdict = None if verdict else verdict
            continue
        ok = arch_ok(arch, cc) if cuda else True
        lines.append(f"gpu {cc}: {'ok' if ok else 'NO'} - compiled for {' '.join(arch)}")
        if ok is False:
            verdict = False
    if python:
        pys = build.get("python") or []
        if not pys:
            lines.append(f"python {python}: unknown")
            verdict = None if verdict else verdict
        elif python in pys:
            lines.append(f"python {python}: ok")
        else:
            lines.append(f"python {python}: NO - wheels for {', '.join(pys)}")
            verdict = False
    return verdict, lines
