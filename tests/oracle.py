"""An independent re-statement of the compatibility rules, written apart from ``envcheck.engine`` (it was the
original ``matrix why`` code): the tests re-check the engine's plans and verdicts against it, so a bug has to
be made twice to pass."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from envcheck.engine.builds import builds_for as _builds_for
from envcheck.matrix import Matrix
from envcheck.versions import DriverVersion, cc_tuple, cuda_tuple


def builds_for(matrix: Matrix, req: str) -> List[Dict[str, Any]]:
    """The builds matching ``req`` as plain dicts (CPU builds left out, as the original did)."""
    return [b.to_dict(matrix) for b in _builds_for(matrix, req) if b.variant != "cpu"]


def driver_runs(matrix: Matrix, driver_cuda: Optional[str], driver_version, cuda: str,
                windows: bool = False) -> Tuple[Optional[bool], str]:
    """Whether a driver (its highest CUDA and/or its version) runs a build made with CUDA ``cuda``.

    True when the driver's own CUDA is at least the build's; also true for the same major when
    the driver is at least that major's minor-version-compatibility floor. ``None``: unknown.
    """
    want = cuda_tuple(cuda)
    if driver_cuda is None and driver_version is not None:
        driver_cuda, _ = matrix.driver_highest_cuda(driver_version, windows=windows)
    have = cuda_tuple(driver_cuda)
    if want is None or have is None:
        return None, "unknown"
    exact_minor = "." in cuda
    if have >= want or (not exact_minor and have[0] >= want[0]):
        return True, "full"
    if have[0] == want[0]:
        floor = matrix.minor_compat_floor(want[0], windows=windows)
        if floor is None:
            # minor-version compatibility exists from CUDA 11 on; before, a build needs full support
            return False, (f"the driver supports CUDA {have[0]}.{have[1]} at most, and CUDA {want[0]}.x has no "
                           "minor-version compatibility")
        if driver_version is None:
            return True, "minor-version compatibility (driver version unknown)"
        if driver_version >= floor:
            return True, f"minor-version compatibility (driver >= {floor})"
        return False, f"below the CUDA {want[0]}.x minor-version-compatibility floor {floor}"
    return False, f"the driver supports CUDA {have[0]}.{have[1]} at most"


def arch_ok(arch_list, cc: str) -> Optional[bool]:
    """Whether a build with ``arch_list`` (sm_XY / compute_XY entries) runs on compute capability ``cc``.

    SASS for sm_M.n runs on M.m with m >= n (same major); PTX compute_XY is JIT-compiled for any
    GPU at or above XY. Arch-specific targets (sm_90a) count only on exactly that GPU.
    """
    gpu = cc_tuple(cc)
    if gpu is None or not arch_list:
        return None
    for a in arch_list:
        s = str(a).strip().lower()
        t = cc_tuple(s.rstrip("af")) if s.endswith(("a", "f")) and not s.startswith("compute_") else cc_tuple(s)
        if t is None:
            continue
        if s.startswith("compute_"):
            if t <= gpu:
                return True
        elif s.endswith("a"):
            if t == gpu:
                return True
        elif t[0] == gpu[0] and t[1] <= gpu[1]:
            return True
    return False



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
