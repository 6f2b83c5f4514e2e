"""Small helpers shared by the checks."""

from __future__ import annotations

from typing import List, Optional, Tuple

from envcheck.matrix import Matrix
from envcheck.model import Environment, Framework, cc_tuple, cuda_tuple

PYTORCH_INDEX = "https://download.pytorch.org/whl/"


def cuda_builds(env: Environment) -> List[Framework]:
    """Installed framework builds that need an NVIDIA GPU stack."""
    out = []
    for fw in env.frameworks.values():
        if fw.cpu_only:
            continue
        if fw.cuda or (fw.name == "jax" and fw.build_info.get("cuda_major")) or (
                fw.name == "cupy" and fw.build_info.get("cuda_major")):
            out.append(fw)
    return out


def label(fw: Framework) -> str:
    return f"{fw.distribution or fw.name} {fw.version or '(unknown version)'}"


def cuda_major(fw: Framework) -> Optional[int]:
    t = cuda_tuple(fw.cuda)
    if t:
        return t[0]
    m = fw.build_info.get("cuda_major")
    return m if isinstance(m, int) else None


def driver_supports(env: Environment, matrix: Matrix, cuda: str) -> Tuple[Optional[bool], str]:
    """Whether this machine's driver runs a build made with CUDA ``cuda`` ("12.4" or "12"), and how."""
    return driver_runs(matrix, env.driver.cuda, env.driver.version, cuda, windows=bool(env.host.wsl))


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


def torch_variant_suggestion(env: Environment, matrix: Matrix, fw: Framework,
                             need_cc: Optional[List[str]] = None) -> Optional[str]:
    """A pip command for a variant of the same torch release that runs here (driver + GPU archs)."""
    if not fw.version:
        return None
    base = fw.version.split("+")[0]
    best = None
    for row in matrix.torch_variants(base):
        var = row.get("variant", "")
        if not var.startswith("cu") or not row.get("cuda"):
            continue
        ok, _ = driver_supports(env, matrix, row["cuda"]) if env.driver.cuda else (True, "")
        if ok is False:
            continue
        ccs = row.get("compute_capabilities") or []
        arch = [f"sm_{c.replace('.', '')}" for c in ccs] + [f"compute_{c.replace('.', '')}" for c in row.get("ptx") or []]
        if need_cc and ccs and not all(arch_ok(arch, c) for c in need_cc):
            continue
        key = cuda_tuple(row["cuda"])
        if best is None or key > cuda_tuple(best["cuda"]):
            best = row
    if best is None:
        return None
    url = best.get("index_url") or PYTORCH_INDEX + best["variant"]
    return f"pip install 'torch=={base}' --index-url {url}"
