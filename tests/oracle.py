"""A second statement of the compatibility rules, written from the texts that define them, not from
``envcheck.engine``: the tests re-check the engine's verdicts and plans against it, so that a wrong rule has to be
written twice, differently, to pass.

It imports nothing of envcheck but the matrix loader (the data): its own version parsing, its own candidate list
(read from the raw ``compat_matrix/torch.toml`` rows), its own driver lookup. The rules, each with its text:

* **Driver (NVIDIA, CUDA Compatibility, https://docs.nvidia.com/deploy/cuda-compatibility/):** an application
  built with a CUDA toolkit runs on a driver whose CUDA version (nvidia-smi's "CUDA Version") is at least the
  toolkit's. "From CUDA 11 onwards, applications compiled with a CUDA Toolkit release from within a CUDA major
  release family can run, with limited feature-set, on systems having at least a minimum required driver
  version" (the table of that minimum per major: cuda.toml ``[[minor_compat]]``). Minor-version compatibility
  does not cover PTX JIT.
* **Forward compatibility (the same guide, "Forward Compatibility"):** the cuda-compat package's libcuda lets a
  newer CUDA run on an older driver, "applicable only for systems with NVIDIA Data Center GPUs, select NGC Server
  Ready SKUs of RTX cards, Jetson boards". A GeForce card (and a laptop part) does not; a workstation RTX card may
  be one of the select SKUs, which NVIDIA does not list: unknown.
* **Architectures (NVIDIA, CUDA C++ Programming Guide, "Binary Compatibility" / "PTX Compatibility"):** "a cubin
  object generated for compute capability X.y will only execute on devices of compute capability X.z where z≥y";
  PTX for compute capability X.y can be JIT-compiled for devices of that or a higher compute capability; an
  architecture-specific target (sm_90a) runs only on exactly that compute capability.
* **Python (PyPI / download.pytorch.org file lists):** a release has wheels for the Python versions it lists.
* **torch's own capability check (torch/cuda/__init__.py ``_check_capability``, pytorch/pytorch#21468):**
  ``elif CUDA_VERSION <= 9000 and major >= 7 and minor >= 5:`` warn "Found GPU%d %s which requires CUDA_VERSION >= %d
  to work properly": a torch build made with CUDA 9.0 or older does not work on such a GPU, whatever its arch list.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

PYTORCH_WHEELS = "https://download.pytorch.org/whl/"  # PyTorch's "Start Locally": --index-url .../whl/<variant>


def _v(text: Any) -> Optional[Tuple[int, ...]]:
    """"12.4" -> (12, 4); "535.104.05" -> (535, 104, 5); anything without a leading number -> None."""
    m = re.match(r"^\s*(\d+(?:\.\d+)*)", str(text or ""))
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


def _at_least(have: Tuple[int, ...], want: Tuple[int, ...]) -> bool:
    n = max(len(have), len(want))
    return have + (0,) * (n - len(have)) >= want + (0,) * (n - len(want))


# ------------------------------------------------------------------------------------------------------------
# candidates: the torch builds of a release, from the raw rows


def builds_for(matrix, req: str) -> List[Dict[str, Any]]:
    """The CUDA builds of ``torch==X`` (Linux x86_64) as plain dicts: variant, cuda, cudnn, compute_capabilities,
    ptx, python, index_url, driver_min (the major's minor-version floor)."""
    m = re.match(r"^\s*torch\s*==\s*([0-9][0-9.]*)\s*$", req)
    if not m:
        raise ValueError(f"the oracle plans torch==X only, not {req!r}")
    version = m.group(1)
    release = next((r for r in matrix.rows("torch", "release") if r.get("version") == version), None)
    if release is None:
        return []
    default = release.get("pypi_default_variant")
    floors = minor_compat_floors(matrix)
    out = []
    for row in matrix.rows("torch", "variant"):
        if version not in (row.get("releases") or []) or row.get("variant") == "cpu":
            continue
        plats = row.get("platforms") or ["linux-x86_64"]
        if "linux-x86_64" not in plats:
            continue
        cuda = row.get("cuda")
        major = (_v(cuda) or (None,))[0]
        name = row.get("variant")
        out.append({"variant": name, "cuda": cuda, "cudnn": row.get("cudnn"),
                    "compute_capabilities": row.get("compute_capabilities"), "ptx": row.get("ptx") or [],
                    "python": row.get("python") or release.get("python") or [],
                    "index_url": None if name == default else (row.get("index_url") or
                                                              (None if row.get("find_links") else PYTORCH_WHEELS + name)),
                    "driver_min": floors.get(major)})
    return out


# ------------------------------------------------------------------------------------------------------------
# the driver


def minor_compat_floors(matrix, windows: bool = False) -> Dict[int, str]:
    key = "min_driver_windows" if windows else "min_driver_linux"
    return {r["major"]: r[key] for r in matrix.rows("cuda", "minor_compat") if r.get(key)}


def driver_cuda(matrix, driver: str, windows: bool = False) -> Optional[str]:
    """nvidia-smi's "CUDA Version" of a driver: the newest CUDA of a branch whose first driver it is at least
    (cuda.toml ``[[driver_branch]]``), else of a toolkit whose driver it is at least."""
    d = _v(driver)
    if d is None:
        return None
    best: Optional[Tuple[int, ...]] = None
    for key, rows, field in (("first_driver_windows" if windows else "first_driver_linux", "driver_branch",
                              "highest_cuda"),
                             ("min_driver_windows" if windows else "min_driver_linux", "toolkit", "version")):
        for r in matrix.rows("cuda", rows):
            first, cuda = _v(r.get(key)), _v(r.get(field))
            if first and cuda and _at_least(d, first) and (best is None or cuda[:2] > best):
                best = cuda[:2]
        if best is not None:
            return f"{best[0]}.{best[1]}"
    return None


def driver_runs(matrix, have_cuda: Optional[str], driver: Optional[str], build_cuda: str,
                windows: bool = False, ptx_only: bool = False) -> Tuple[Optional[bool], str]:
    """NVIDIA's rule: the driver's CUDA at least the build's, else (CUDA 11+, not for PTX JIT) the same major
    and a driver at least that major's minor-version floor."""
    if have_cuda is None and driver is not None:
        have_cuda = driver_cuda(matrix, driver, windows)
    have, want = _v(have_cuda), _v(build_cuda)
    if have is None or want is None:
        return None, "unknown"
    if have[:2] >= want[:2]:
        return True, "full"
    if ptx_only:
        return False, f"PTX JIT needs a driver with CUDA {build_cuda}; this one has {have_cuda}"
    floor = minor_compat_floors(matrix, windows).get(want[0])
    if have[0] != want[0] or floor is None:
        return False, f"driver CUDA {have_cuda} < {build_cuda}"
    if driver is None:
        return True, "minor-version compatibility (driver version unknown)"
    if _at_least(_v(driver) or (0,), _v(floor) or (0,)):
        return True, f"minor-version compatibility (>= {floor})"
    return False, f"driver {driver} < the CUDA {want[0]}.x floor {floor}"


def forward_compat(gpus: Sequence[Tuple[str, Optional[str]]]) -> Optional[bool]:
    """NVIDIA's list, by the GPU table's segment (the oracle's own reading of the guide, not the matrix's rows)."""
    if not gpus:
        return None
    answers = [{"datacenter": True, "jetson": True, "consumer": False, "mobile": False}.get(seg or "")
               for _, seg in gpus]
    if False in answers:
        return False
    return None if None in answers else True


# ------------------------------------------------------------------------------------------------------------
# architectures


def arch_ok(arch_list, cc: str) -> Optional[bool]:
    """Whether a build compiled for ``arch_list`` (sm_XY, sm_XYa, compute_XY) runs on compute capability ``cc``,
    and whether only through PTX: (runs?) with ``arch_via`` telling how."""
    return arch_via(arch_list, cc)[0]


def arch_via(arch_list, cc: str) -> Tuple[Optional[bool], str]:
    gpu = _v(cc)
    if gpu is None or not arch_list:
        return None, ""
    gpu = gpu[:2]
    ptx = False
    for entry in arch_list:
        m = re.match(r"^(sm|compute)_(\d+)(\d)([af]?)$", str(entry).strip().lower())
        if not m:
            continue
        kind, target, suffix = m.group(1), (int(m.group(2)), int(m.group(3))), m.group(4)
        if kind == "sm" and suffix == "a":
            if target == gpu:
                return True, "sass"
        elif kind == "sm":
            if target[0] == gpu[0] and target[1] <= gpu[1]:
                return True, "sass"
        elif target <= gpu:
            ptx = True
    return (True, "ptx") if ptx else (False, "")


def _arch_names(build: Dict[str, Any]) -> List[str]:
    return ([f"sm_{c.replace('.', '')}" for c in build.get("compute_capabilities") or []]
            + [f"compute_{c.replace('.', '')}" for c in build.get("ptx") or []])


# ------------------------------------------------------------------------------------------------------------
# a build on a machine


def runs_on(matrix, build: Dict[str, Any], *, driver: Optional[Any] = None, driver_cuda: Optional[str] = None,
            ccs: Tuple[str, ...] = (), python: Optional[str] = None, windows: bool = False,
            libcuda_cuda: Optional[str] = None, gpus: Sequence[Tuple[str, Optional[str]]] = ()
            ) -> Tuple[Optional[bool], List[str]]:
    """(runs? None = unknown, the reasons line by line). ``libcuda_cuda``: the CUDA of a forward-compatibility
    libcuda that loads; ``gpus``: (name, segment) of the GPUs, for forward compatibility."""
    lines: List[str] = []
    verdict: Optional[bool] = True

    def worse(v: Optional[bool]) -> None:
        nonlocal verdict
        if v is False:
            verdict = False
        elif v is None and verdict is True:
            verdict = None

    arch = _arch_names(build)
    ptx_only = False
    built = _v(build.get("cuda"))
    for cc in ccs:
        gv = _v(cc)
        if built and gv and len(gv) == 2 and built[:2] <= (9, 0) and gv[0] >= 7 and gv[1] >= 5:
            lines.append(f"gpu {cc}: NO - torch's capability check: CUDA {build.get('cuda')} <= 9.0 on a "
                         "GPU of major >= 7 and minor >= 5")
            worse(False)
            continue
        if not build.get("compute_capabilities"):
            lines.append(f"gpu {cc}: unknown (no arch list in the matrix for this build)")
            worse(None)
            continue
        ok, how = arch_via(arch, cc)
        ptx_only = ptx_only or how == "ptx"
        lines.append(f"gpu {cc}: {'ok' if ok else 'NO'} - compiled for {' '.join(arch)}")
        worse(ok)
    cuda = build.get("cuda")
    drv = str(driver) if driver is not None else None
    if not cuda:
        lines.append("driver: not needed (CPU build or CUDA unknown)")
    elif drv is None and driver_cuda is None:
        lines.append(f"driver: unknown here; needs >= {build.get('driver_min') or '?'} (CUDA {cuda})")
        worse(None)
    else:
        ok, how = driver_runs(matrix, driver_cuda, drv, cuda, windows, ptx_only)
        if ok is False and libcuda_cuda and _v(libcuda_cuda) and _v(libcuda_cuda)[:2] >= (_v(cuda) or (99,))[:2]:
            fwd = forward_compat(gpus)
            ok, how = fwd, f"forward compatibility ({'supported' if fwd else 'not supported' if fwd is False else 'unknown'})"
        lines.append(f"driver: {'ok' if ok else ('unknown' if ok is None else 'NO')} - build CUDA {cuda}; {how}")
        worse(ok)
    if python:
        pys = build.get("python") or []
        if not pys:
            lines.append(f"python {python}: unknown")
            worse(None)
        elif python in pys:
            lines.append(f"python {python}: ok")
        else:
            lines.append(f"python {python}: NO - wheels for {', '.join(pys)}")
            worse(False)
    return verdict, lines
