"""CuPy: its wheels (cupy-cuda11x / 12x / 13x, compat_matrix/cupy.toml) as :class:`Build` objects, the way torch's
variants are, so ``status`` and ``fix`` judge CuPy with the same engine (driver, Python, platform, GPU targets).

The rules that are CuPy's own live here:

* a ``cupy-cudaNNx`` wheel runs CUDA NN: the driver must run that major (minor-version compatibility from the
  lowest minor CuPy lists for it, ``cuda_min``);
* CuPy compiles its kernels at run time with NVRTC for the GPU in use, so the GPUs it can use are the targets of the
  CUDA toolkit of that major (cuda.toml ``[[targets]]`` of ``cuda_min``);
* its CUDA libraries come either from a local toolkit or, where the wheel has a ``ctk`` extra, from PyPI
  (``pip install cupy-cudaNNx[ctk]``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from envcheck.engine.builds import Build, version_key
from envcheck.engine.rules import arch_names
from envcheck.matrix import Matrix
from envcheck.parse.versions import cupy_dist_cuda

__all__ = ["cupy_builds", "cupy_row", "cupy_rows", "cupy_system_libs_ok", "libraries_fix", "parse_cupy_name"]



def parse_cupy_name(name: str) -> Optional[Tuple[int, bool]]:
    """(CUDA major, whether the name is a per-major ``...x`` wheel) of ``cupy-cuda12x`` / ``cupy-cuda117``."""
    got = cupy_dist_cuda(name)  # cupy-cuda117 -> 11, cupy-cuda102 -> 10
    return (got[0], got[1] is None) if got else None


def cupy_rows(matrix: Matrix) -> List[Dict[str, Any]]:
    return [r for r in matrix.rows("cupy", "package")
            if isinstance(r.get("distribution"), str) and isinstance(r.get("version"), str)
            and isinstance(r.get("cuda_major"), int) and cupy_dist_cuda(str(r["distribution"])) is not None]


def cupy_row(matrix: Matrix, distribution: str, version: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """The row of this distribution and release, else (``version`` None or unknown) the newest row of the
    distribution when it is the same major.minor series (CuPy keeps Python/CUDA support within a series)."""
    name = distribution.lower().replace("_", "-")
    rows = [r for r in cupy_rows(matrix) if r["distribution"] == name]
    base = (version or "").split("+", 1)[0]
    exact = [r for r in rows if r["version"] == base]
    if exact:
        return exact[0]
    if version is None:
        return max(rows, key=lambda r: version_key(r["version"])) if rows else None
    series = ".".join(base.split(".")[:2])
    same = [r for r in rows if ".".join(r["version"].split(".")[:2]) == series]
    return max(same, key=lambda r: version_key(r["version"])) if same else None


def _arch(matrix: Matrix, cuda: Optional[str]) -> Tuple[str, ...]:
    caps = matrix.toolkit_targets(cuda) if cuda else None
    return arch_names(caps, ()) if caps else ()


def build_from_row(matrix: Matrix, r: Dict[str, Any]) -> Build:
    # the lowest minor CuPy lists for the major; without it the major's x.0: the driver rule is the same either way
    # (minor-version compatibility of that major), and the GPU targets are then those of the major's first toolkit
    cuda = r.get("cuda_min") if isinstance(r.get("cuda_min"), str) else f"{r['cuda_major']}.0"
    arch = _arch(matrix, cuda)
    return Build(framework="cupy", version=r["version"], variant=f"cuda{r['cuda_major']}x", cuda=cuda,
                 python=tuple(r.get("python") or ()), platforms=tuple(r.get("platforms") or ()),
                 arch=arch, arch_source=(f"the CUDA {cuda} toolkit's targets (CuPy compiles its kernels with NVRTC at "
                                         "run time)") if arch else None,
                 extras=("ctk",) if r.get("ctk_extra") else (), companions={"package": r["distribution"]},
                 source=r.get("source"))


def cupy_builds(matrix: Matrix, platform: str = "linux-x86_64") -> List[Build]:
    """Every CuPy wheel the matrix knows, as a build ``fix`` can plan."""
    return [build_from_row(matrix, r) for r in cupy_rows(matrix)]


def installed_cupy_build(matrix: Matrix, distribution: Optional[str], version: Optional[str],
                         cuda_major: Optional[int], nvrtc: Optional[str] = None) -> Dict[str, Any]:
    """What the matrix adds to an installed CuPy: its python list, its CUDA (the major's lowest minor CuPy
    lists, so the driver check applies minor-version compatibility), its target list, the row's source.

    The targets are those of the NVRTC CuPy compiles with at run time: the newer of the major's lowest toolkit and
    ``nvrtc`` (an NVRTC of the same major seen on the machine, e.g. nvidia-cuda-nvrtc-cu12 12.8). Which NVRTC CuPy
    loads is not captured (a local toolkit, a pip wheel), so the list is a floor (``arch_floor``): a GPU newer than
    every target is unknown, never a failure - CuPy 13.4+ with a CUDA 12.8 NVRTC runs on a Blackwell GPU, with 12.6
    it does not (cupy/cupy#9121)."""
    r = cupy_row(matrix, distribution, version) if distribution else None
    if r is None:
        return {}
    cuda = r.get("cuda_min") if isinstance(r.get("cuda_min"), str) else None
    if cuda_major is not None and cuda and not cuda.startswith(f"{cuda_major}."):
        return {}
    from envcheck.versions import cuda_tuple

    seen = cuda_tuple(nvrtc) if nvrtc else None
    floor = cuda_tuple(cuda) if cuda else None
    compiler = nvrtc if seen and floor and seen[0] == floor[0] and seen > floor and _arch(matrix, nvrtc) else cuda
    where = f"the CUDA {compiler} NVRTC's targets (nvidia-cuda-nvrtc {nvrtc} on the machine)" if compiler != cuda \
        else f"the CUDA {cuda} toolkit's targets (CuPy compiles its kernels with NVRTC at run time)"
    major = floor[0] if floor else cuda_major
    return {"python": tuple(r.get("python") or ()), "cuda": cuda, "arch": _arch(matrix, compiler),
            "arch_source": where,
            "arch_floor": (f"CuPy compiles its kernels with the NVRTC it loads at run time, and {where} stop below "
                           f"this GPU; a newer CUDA {major}.x NVRTC (a local toolkit, or pip's "
                           f"nvidia-cuda-nvrtc-cu{major}) may target it - which one CuPy loads was not captured "
                           "(`python -c 'import cupy; cupy.show_config()'` prints its NVRTC Version)"),
            "source": r.get("source"), "ctk": bool(r.get("ctk_extra")),
            "libraries": tuple(r.get("cuda_libraries") or ())}


def libraries_fix(matrix: Matrix, distribution: str, version: Optional[str], major: int) -> str:
    """How to get the CUDA libraries an installed CuPy wheel loads."""
    r = cupy_row(matrix, distribution, version)
    base = (version or "").split("+", 1)[0]
    if r is not None and r.get("ctk_extra"):
        libs = ", ".join(r.get("cuda_libraries") or [])
        return (f"pip install '{distribution}[ctk]=={base or r['version']}' (its ctk extra installs the CUDA {major} "
                f"libraries from PyPI{': ' + libs if libs else ''}), or install a CUDA {major}.x toolkit and put its "
                "lib folder on LD_LIBRARY_PATH.")
    return (f"Install a CUDA {major}.x toolkit (CuPy loads its libraries from it) and put its lib folder on "
            f"LD_LIBRARY_PATH, or use a CuPy wheel with a ctk extra (cupy-cuda12x / cupy-cuda13x 14.x: "
            "`pip install cupy-cuda12x[ctk]`).")


def cupy_system_libs_ok(b: Build, system_cudart: Tuple[str, ...]) -> bool:
    """A CuPy wheel without a ctk extra loads the CUDA libraries of a toolkit on the machine: one of the build's
    CUDA major, at least its lowest listed minor, must be there."""
    from envcheck.versions import cuda_tuple

    need = cuda_tuple(b.cuda)
    if need is None:
        return False
    return any((cuda_tuple(v) or (0, 0))[0] == need[0] and (cuda_tuple(v) or (0, 0)) >= need for v in system_cudart)
