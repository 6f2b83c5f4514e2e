"""The compatibility rules, one function each. Pure: facts and the matrix in, an answer out.

Every command that asks "does this run here?" (``status``'s checks, ``fix``, ``matrix why``, ``explain``'s
fixes, ``smoke``) reaches these through :func:`envcheck.engine.evaluate`; nothing else re-implements them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from envcheck import lazyre
from envcheck.matrix import Matrix
from envcheck.versions import DriverVersion, cc_tuple, cuda_tuple, version_tuple

__all__ = ["no_cpu_fallback", "targets_by_cuda", "arch_names", "arch_ok", "cudnn_gpu_threshold", "cudnn_loads_for", "driver_need", "driver_runs", "toolkit_reach",
           "gpu_driver_window", "conda_forge_cuda_missing", "forward_compat", "forward_compat_in_use", "compat_libcuda_pair", "minor_compat_floors", "DriverUpgrade",
           "driver_upgrade", "newest_variant_of_major", "extension_build_differs", "cudnn_wheel", "native_dtype_floors",
           "runtime_file", "runtime_names_minor", "library_soname", "library_sonames", "library_wheel", "library_toolkit_extra",
           "library_older_than_gpu", "named_gpu_ccs"]


def driver_runs(matrix: Matrix, driver_cuda: Optional[str], driver_version: Optional[DriverVersion], cuda: str,
                windows: bool = False) -> Tuple[Optional[bool], str]:
    """Whether a driver (its highest CUDA and/or its version) runs a build made with CUDA ``cuda``.

    True when the driver's own CUDA is at least the build's; also true for the same major when the
    driver is at least that major's minor-version-compatibility floor (CUDA 11 and later only).
    ``None``: unknown. A ``cuda`` of only a major ("12") asks about any build of that major.
    """
    want = cuda_tuple(cuda)
    if driver_cuda is None and driver_version is not None:
        driver_cuda, _ = matrix.driver_highest_cuda(driver_version, windows=windows)
    have = cuda_tuple(driver_cuda)
    if want is not None and have is None and driver_version is not None:
        # the driver's own CUDA is unknown (a branch the matrix does not list, "CUDA Version: N/A"), but a driver
        # below the lowest one of the build's major (its minor-version floor; CUDA 10 and older: the toolkit's
        # own driver) runs none of its builds, whatever its CUDA
        low = matrix.minor_compat_floor(want[0], windows=windows) or (
            matrix.toolkit_min_driver(cuda, windows=windows) if "." in cuda else None)
        if low is not None and driver_version < low:
            return False, f"driver {driver_version} is below {low}, the lowest driver of any CUDA {want[0]}.x build"
    if want is None or have is None:
        return None, "the driver's CUDA support is unknown"
    exact_minor = "." in cuda
    if have >= want or (not exact_minor and have[0] >= want[0]):
        return True, "full support"
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


def driver_need(matrix: Matrix, cuda: Optional[str], windows: bool, ptx_needed: bool) -> Optional[DriverVersion]:
    """The lowest driver that runs a build of CUDA ``cuda``: the major's minor-version floor, or (PTX JIT,
    or CUDA 10 and older, which have no minor-version compatibility) the toolkit's own driver."""
    t = cuda_tuple(cuda)
    if t is None or cuda is None:
        return None
    floor = matrix.minor_compat_floor(t[0], windows=windows)
    full = matrix.toolkit_min_driver(cuda, windows=windows) if "." in cuda else None
    if ptx_needed or floor is None:
        return full or floor
    return floor


def arch_names(caps: Iterable[str], ptx: Iterable[str] = ()) -> Tuple[str, ...]:
    """("8.0", "9.0") + PTX ("9.0",) -> ("sm_80", "sm_90", "compute_90")."""
    return tuple([f"sm_{str(c).replace('.', '')}" for c in caps] + [f"compute_{str(c).replace('.', '')}" for c in ptx])


def _arch_cc(entry: str) -> Optional[Tuple[int, int]]:
    s = str(entry).strip().lower()
    if s.endswith(("a", "f")) and not s.startswith("compute_"):
        s = s[:-1]
    return cc_tuple(s)


def arch_ok(arch_list: Optional[Sequence[str]], cc: str) -> Optional[bool]:
    """Whether a build with ``arch_list`` (sm_XY / compute_XY entries) runs on compute capability ``cc``.

    SASS for sm_M.n runs on M.m with m >= n (same major); PTX compute_XY is JIT-compiled for any GPU at
    or above XY. Arch-specific targets (sm_90a) count only on exactly that GPU. ``None``: unknown.
    """
    gpu = cc_tuple(cc)
    if gpu is None or not arch_list:
        return None
    for a in arch_list:
        s = str(a).strip().lower()
        t = _arch_cc(s)
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


def above_every_target(arch_list: Sequence[str], cc: str) -> bool:
    """Whether compute capability ``cc`` is newer than every target of ``arch_list`` (sm_XY / compute_XY): PTX of any
    of those targets is JIT-compiled for such a GPU."""
    gpu = cc_tuple(cc)
    ts = [_arch_cc(str(a).strip().lower()) for a in arch_list]
    return gpu is not None and bool(ts) and all(t is not None and t < gpu for t in ts)


def sass_only(arch_list: Sequence[str]) -> List[str]:
    return [a for a in arch_list if not str(a).lower().startswith("compute_")]


def below_oldest(arch_list: Sequence[str], cc: str) -> bool:
    """Whether ``cc`` is older than every architecture of a build (so no PTX reaches it either)."""
    t = cc_tuple(cc)
    ts = [x for x in (_arch_cc(a.split("_", 1)[-1]) for a in arch_list) if x]
    return bool(t and ts and t < min(ts))


def below_every_toolkit(matrix: Matrix, ccs: Sequence[str]) -> Optional[str]:
    """The oldest compute capability any CUDA toolkit in the matrix can target ("3.0"), when every GPU of
    ``ccs`` is older than it (compute capability 1.x/2.x parts: no current build of anything reaches them);
    None when some GPU is within reach, or nothing is known."""
    gpus = [t for t in (cc_tuple(c) for c in ccs) if t]
    targets = [t for r in matrix.rows("cuda", "targets") for t in (cc_tuple(c) for c in r.get("compute_capabilities")
                                                                   or ()) if t]
    if not gpus or not targets or max(gpus) >= min(targets):
        return None
    low = min(targets)
    return f"{low[0]}.{low[1]}"


def toolkit_reach(matrix: Matrix, cuda: Optional[str], cc: str) -> Tuple[Optional[bool], str]:
    """Whether *any* build made with CUDA ``cuda`` can have code for compute capability ``cc``.

    Used when a build's own architecture list is unknown: a toolkit compiles only for the targets the
    matrix lists for it; a GPU older than all of them is out of reach, and so is a GPU of a newer major
    than every target (only PTX could reach it, and a build whose list is unknown is not known to ship
    PTX). ``None`` when the toolkit's targets are not in the matrix.
    """
    if cuda and cuda.strip().isdigit():
        # the major alone ("12": a cupy-cuda12x / jax cuda12 build of a release the matrix has no row for): any
        # toolkit of that major may have built it, so the reach is every such toolkit's targets together
        major = int(cuda.strip())
        rows = [r for r in matrix.rows("cuda", "targets") if (cuda_tuple(r.get("cuda")) or (0, 0))[0] == major]
        targets = [str(x) for r in rows for x in (r.get("compute_capabilities") or [])] or None
    else:
        targets = matrix.toolkit_targets(cuda) if cuda else None
    gpu = cc_tuple(cc)
    if not targets or gpu is None:
        return None, "the CUDA toolkit's targets are not in the matrix"
    tt = sorted(t for t in (cc_tuple(x) for x in targets) if t)
    if not tt:
        return None, "the CUDA toolkit's targets are not in the matrix"
    lo, hi = tt[0], tt[-1]
    if gpu < lo:
        return False, (f"CUDA {cuda} cannot compile for compute capability {cc} "
                       f"(its oldest target is {lo[0]}.{lo[1]})")
    if gpu[0] > hi[0]:
        return False, (f"CUDA {cuda} cannot compile for compute capability {cc} (its newest target is "
                       f"{hi[0]}.{hi[1]}; only PTX could reach this GPU, and none is known for this build)")
    return True, f"CUDA {cuda} can target compute capability {cc}"


def targets_by_cuda(matrix: Matrix) -> List[Tuple[Tuple[int, int], str, Set[Tuple[int, int]]]]:
    """compat_matrix/cuda.toml ``[[targets]]`` rows, oldest toolkit first: (its version as a tuple, as written, the
    compute capabilities its compiler builds SASS for)."""
    rows = []
    for r in matrix.rows("cuda", "targets"):
        t = cuda_tuple(r.get("cuda"))
        if t:
            rows.append((t, str(r.get("cuda")), {c for c in (cc_tuple(x) for x in r.get("compute_capabilities") or ()) if c}))
    return sorted(rows, key=lambda row: row[0])


@dataclass(frozen=True)
class ArchToolkits:
    """Which CUDA toolkits build one architecture (:func:`arch_toolkits`). ``verdict``: "none" (no toolkit the matrix
    lists builds it), "all" (every listed toolkit does: a refusal is not the toolkit's release), "newer-toolkit" (built
    from ``first`` on: an older compiler refused it), "dropped" (built up to ``last`` only: a newer compiler refused it).
    ``first_known``: ``first`` is the first toolkit that built it, not merely the oldest the matrix lists."""

    verdict: str
    first: Optional[str]
    last: Optional[str]
    oldest_listed: Optional[str]
    first_known: bool


def arch_toolkits(matrix: Matrix, cc: str) -> Optional[ArchToolkits]:
    """The CUDA toolkits whose compiler builds SASS for compute capability ``cc`` ("9.0", "sm_90", "compute_90":
    :func:`envcheck.versions.cc_tuple`; compat_matrix/cuda.toml ``[[targets]]``), and what a compiler refusing it says of
    that compiler; None where ``cc`` is no compute capability or the matrix lists no targets."""
    gpu = cc_tuple(cc)
    rows = targets_by_cuda(matrix)
    if gpu is None or not rows:
        return None
    oldest, newest = rows[0][1], rows[-1][1]
    have = [v for _, v, ccs in rows if gpu in ccs]
    if not have:
        return ArchToolkits("none", None, None, oldest, False)
    first, last = have[0], have[-1]
    known = first != oldest  # the matrix's oldest toolkit may not be the first that built it
    if last != newest:
        return ArchToolkits("dropped", first, last, oldest, known)
    return ArchToolkits("newer-toolkit" if known else "all", first, last, oldest, known)


def library_older_than_gpu(matrix: Optional[Matrix], cuda: Optional[str], ccs: Sequence[str]
                           ) -> Tuple[Optional[bool], str]:
    """Whether a CUDA math library of the toolkit release ``cuda`` (the one a framework build ships: torch's cuFFT is
    its build's CUDA) is older than the GPU of compute capability ``ccs`` (each GPU the text names). cuFFT has no
    forward compatibility: its kernels exist for the architectures its release knew, and a GPU newer than that fails
    inside the library (pytorch/pytorch#88038: "cufft library doesn't support forward compatibility", RTX 4090 sm_89
    with CUDA 11.7's cuFFT, CUFFT_INTERNAL_ERROR; the CUDA 11.8 build fixes it). The first toolkit that builds the
    GPU's architecture is the matrix's (compat_matrix/cuda.toml ``[[targets]]``, :func:`arch_toolkits`). Returns
    (True, why) where the library's CUDA is older than that first toolkit for a GPU named, (False, why) where it is
    not older for every GPU named, (None, why) where the CUDA is not known but a GPU named is one such a library
    release can predate (its first toolkit is not the oldest the matrix lists); (None, "") where no GPU's compute
    capability is known. ``matrix`` None: the active matrix."""
    matrix = _active(matrix)
    have = cuda_tuple(cuda) if cuda else None
    older: List[str] = []
    checked = False
    for cc in ccs:
        a = arch_toolkits(matrix, cc)
        if a is None or a.first is None or not a.first_known:
            continue
        checked = True
        first = cuda_tuple(a.first)
        if have is None or (first is not None and have < first):
            older.append(f"compute capability {cc} is built from CUDA {a.first} on")
    if not checked:
        return None, ""
    if not older:
        return False, f"the library's CUDA {cuda} already builds the GPU's architecture"
    if have is None:
        return None, f"{older[0]}; the CUDA of the build in use is not in the text"
    return True, f"{older[0]}, the library's CUDA is {cuda}"


def named_gpu_ccs(matrix: Optional[Matrix], names: Sequence[str], known: Sequence[str] = ()) -> List[str]:
    """The distinct compute capabilities of GPUs a text lists (``known``: capabilities a report printed) and names
    (``names``: each looked up in compat_matrix/gpus.toml; "RTX4090" as prose writes it is "RTX 4090"); a name the
    table does not know adds nothing. ``matrix`` None: the active matrix."""
    matrix = _active(matrix)
    out = [str(c) for c in known if c]
    for name in names:
        row = matrix.gpu(_GLUED_MODEL.sub(r"\1 \2", name))
        if row and row.get("compute_capability"):
            out.append(str(row["compute_capability"]))
    return list(dict.fromkeys(out))


def capabilities_at_least(ccs: Sequence[str], floor: str) -> bool:
    """Whether every compute capability of ``ccs`` (at least one) is ``floor`` or more (attack48: cuBLAS's
    ARCH_MISMATCH, "usually caused by compute capability lower than 5.0", explain/machine.py)."""
    return bool(ccs) and all((version_tuple(str(c)) or (0,)) >= (version_tuple(floor) or (0,)) for c in ccs)


#: a GeForce model written without its space ("RTX4090", "GTX1070")
_GLUED_MODEL = lazyre.compile(r"(?<![\w])([RG]TX)(\d)", re.I)


def capability_check(matrix: Any, cuda: Optional[str], cc: str) -> Optional[str]:
    """The CUDA torch's own capability check (compat_matrix/torch.toml ``[[capability_check]]``, torch/cuda/__init__.py
    ``_check_capability``) says a GPU of compute capability ``cc`` needs, where a build made with CUDA ``cuda`` is at or
    below the row's bound: such a build does not work properly on that GPU whatever its architecture list (a CUDA 9.0
    build on a Turing or Ampere GPU reaches it through sm_70 SASS or PTX, but its CUDA libraries fail there). None where
    no row applies or a version is not known."""
    have, gpu = cuda_tuple(cuda), cc_tuple(cc)
    for r in matrix.rows("torch", "capability_check"):
        top = cuda_tuple(r.get("max_cuda"))
        ccs = [cc_tuple(c) for c in r.get("compute_capabilities") or ()]
        if have and top and gpu and have <= top and gpu in ccs:
            return str(r.get("needs_cuda"))
    return None


def cudnn_loads_for(built: Optional[str], loaded: Optional[str]) -> Optional[bool]:
    """Whether a framework built against cuDNN ``built`` accepts the cuDNN ``loaded``: the same major and an
    equal or higher minor (the rule PyTorch and TensorFlow enforce at import). ``None``: unknown."""
    b, h = version_tuple(built), version_tuple(loaded)
    if not b or not h:
        return None
    if h[0] != b[0]:
        return False
    return not (len(b) > 1 and len(h) > 1 and h[1] < b[1])


def cudnn_gpu_threshold(matrix: Matrix, cc: str) -> Optional[str]:
    """The oldest cuDNN release the matrix says has no kernels for compute capability ``cc``."""
    t = cc_tuple(cc)
    best: Optional[str] = None
    for r in matrix.rows("cudnn", "release"):
        floor = cc_tuple(r.get("min_compute_capability"))
        v = r.get("version")
        if t and floor and floor > t and isinstance(v, str) and (
                best is None or (version_tuple(v) or ()) < (version_tuple(best) or ())):
            best = v
    return best


def known_cudnn_wheels(matrix: Matrix) -> List[str]:
    """nvidia-cudnn-cuXX versions the matrix knows exist (the four-part versions torch variants pin)."""
    out = {str(r.get("cudnn")) for r in matrix.rows("torch", "variant") if str(r.get("cudnn", "")).count(".") == 3}
    return sorted(out, key=lambda v: version_tuple(v) or ())


def gpu_driver_window(matrix: Matrix, cc: str, name: Optional[str] = None,
                      windows: bool = False) -> Tuple[Optional[DriverVersion], Optional[DriverVersion], str]:
    """(the first driver branch that supports the GPU's generation, the last branch that still does, the
    generation's name) from the matrix's ``[[generation]]`` rows; ``None`` where the matrix has no value.
    Not for Jetson GPUs, whose driver comes from JetPack."""
    if name and (matrix.gpu(name) or {}).get("segment") == "jetson":
        return None, None, ""
    gen = matrix.gpu_generation(cc, name)
    if not gen:
        return None, None, ""
    first = DriverVersion.parse(str(gen.get("first_branch") or ""))
    last = DriverVersion.parse(str(gen.get("last_branch") or ""))
    return first, last, str(gen.get("name") or "")


def forward_compat_in_use(kernel_cuda: Optional[str], libcuda_cuda: Optional[str],
                          libcuda_path: Optional[str] = None) -> bool:
    """Whether the libcuda that loads is a forward-compatibility one (the cuda-compat package): it supports a
    newer CUDA than the kernel driver, or (the kernel driver's CUDA unknown) it lies in a ``compat`` folder."""
    lc, kc = cuda_tuple(libcuda_cuda), cuda_tuple(kernel_cuda)
    if lc is None:
        return False
    if kc is not None:
        return lc > kc
    return bool(libcuda_path and "compat" in libcuda_path)


def compat_libcuda_pair(libcuda: Optional[str], kernel: Optional[str], in_container: bool) -> Optional[bool]:
    """Whether a user-space libcuda and a loaded kernel module that a text names as different ("kernel version 455.32.0
    does not match DSO version 460.73.1") are a forward-compatibility libcuda on a GPU that does not take it, rather
    than a driver whose user space was upgraded over a module still loaded. True: the libcuda is of a later driver
    branch than the module and the text runs in a container - CUDA's container images carry the cuda-compat package
    (a newer driver's libcuda; nvidia/container-images/cuda#182) and the container toolkit injects a host's cuda-compat
    (NVIDIA/nvidia-docker#1515), and where the GPU supports forward compatibility that pair works, so a pair that fails
    there is forward-compat-unsupported (NVIDIA's CUDA Compatibility guide: data-center GPUs, NGC Server Ready RTX
    SKUs and Jetson boards only). False: the libcuda is not of a later branch, or no container is shown (a host's
    driver upgrade without a reboot: driver-library-mismatch). None: a version is not known or not a driver version."""
    def branch(v: Optional[str]) -> Optional[int]:
        head = (v or "").strip().split(".")[0]
        return int(head) if head.isdigit() and len(head) == 3 else None

    lb, kb = branch(libcuda), branch(kernel)
    if lb is None or kb is None:
        return None
    return lb > kb and in_container


def forward_compat(matrix: Matrix, gpus: Sequence[Tuple[str, Optional[str]]]
                   ) -> Tuple[Optional[bool], str, List[str]]:
    """Whether every GPU of ``gpus`` ((name, gpus.toml segment) pairs) supports CUDA forward compatibility,
    from the matrix's ``[[forward_compat]]`` rows (NVIDIA's list: data-center GPUs, select NGC Server Ready RTX
    SKUs, Jetson boards). (True / False / None = unknown, the reason, the GPUs that do not or may not)."""
    rows = {str(r.get("segment")): r for r in matrix.rows("cuda", "forward_compat")}
    kinds = [str(r.get("label") or s) for s, r in rows.items() if r.get("supported") is not False]
    where = ("NVIDIA supports it only on " + (", ".join(kinds[:-1]) + " and " + kinds[-1] if len(kinds) > 1
                                              else "".join(kinds) or "no GPU it names"))
    if not gpus:
        return None, f"the GPU model is not known ({where})", []
    no: List[str] = []
    unknown: List[str] = []
    notes: List[str] = []
    for name, segment in gpus:
        row = rows.get(segment or "")
        answer = row.get("supported") if row else None
        if answer is False:
            no.append(f"{name} (a {segment} GPU)")
        elif answer is not True:
            unknown.append(f"{name} ({segment + ' GPU' if segment else 'segment unknown'})")
            if row and row.get("note") and row["note"] not in notes:
                notes.append(str(row["note"]))
    if no:
        return False, f"{', '.join(no)} does not support CUDA forward compatibility: {where}", no
    if unknown:
        return None, (f"whether {', '.join(unknown)} supports CUDA forward compatibility is not known: {where}"
                      + "".join(f"; {n}" for n in notes)), unknown
    return True, f"CUDA forward compatibility: {where}", []


def minor_compat_floors(matrix: Matrix, windows: bool = False) -> Dict[int, DriverVersion]:
    """{CUDA major: the driver floor of its minor-version compatibility}, for every major the matrix has."""
    out: Dict[int, DriverVersion] = {}
    for r in matrix.rows("cuda", "minor_compat"):
        major = r.get("major")
        floor = matrix.minor_compat_floor(major, windows=windows) if isinstance(major, int) else None
        if floor is not None and isinstance(major, int):
            out[major] = floor
    return dict(sorted(out.items()))


def native_dtype_floors(matrix: Optional[Matrix]) -> Dict[str, str]:
    """{dtype: the compute capability where its native arithmetic starts} (cuda.toml ``[[native_dtype]]``: "float16",
    "bfloat16"); a dtype without a row is left out (unknown)."""
    out: Dict[str, str] = {}
    for r in matrix.rows("cuda", "native_dtype") if matrix is not None else []:
        dtype, cc = r.get("dtype"), r.get("min_compute_capability")
        if isinstance(dtype, str) and isinstance(cc, str):
            out[dtype] = cc
    return out


@dataclass(frozen=True)
class DriverUpgrade:
    """The driver to recommend for a program built with one CUDA version, given the current driver."""

    need: Optional[DriverVersion]  # the lowest driver that runs it (the major's floor, else full support)
    floor: Optional[DriverVersion]  # the major's minor-version-compatibility floor
    full: Optional[DriverVersion]  # the toolkit's own driver (full support of that CUDA minor)
    enough: Optional[bool]  # the current driver is at least ``need`` (None: unknown)
    upgrade_to: Optional[DriverVersion]  # what to install: ``need``, or ``full`` when the floor is met already
    runs_fully: Optional[bool] = None  # the current driver runs that CUDA fully (>= ``need`` and >= ``full``)

    @property
    def names_full_beside_need(self) -> bool:
        """Whether full support is a different driver than ``need``, worth naming beside it."""
        return self.full is not None and self.need is not None and self.full != self.need

    @property
    def names_floor_and_full(self) -> bool:
        """Whether the major's floor and full support are two different drivers (both worth naming)."""
        return self.floor is not None and self.full is not None and self.floor != self.full


def driver_upgrade(matrix: Matrix, cuda: str, current: Optional[DriverVersion], windows: bool = False) -> DriverUpgrade:
    """A program built with CUDA ``cuda`` failed for the driver: the driver to install. When the current driver
    already meets the major's minor-version floor, what is missing is full support (PTX JIT, a newer API): the
    toolkit's own driver."""
    t = cuda_tuple(cuda)
    floor = matrix.minor_compat_floor(t[0], windows=windows) if t else None
    full = matrix.toolkit_min_driver(cuda, windows=windows) if "." in cuda else None
    need = driver_need(matrix, cuda, windows, False)
    enough = None if current is None or need is None else current >= need
    upgrade_to = need
    if enough and full is not None and current is not None and current < full:
        upgrade_to = full
    fully = None if current is None or enough is None else bool(enough and (full is None or current >= full))
    return DriverUpgrade(need=need, floor=floor, full=full, enough=enough, upgrade_to=upgrade_to, runs_fully=fully)


def newest_variant_of_major(matrix: Matrix, major: int) -> Optional[str]:
    """The newest torch CUDA variant ("cu118") of a CUDA major, from the matrix's variants; None if none."""
    best: Optional[Tuple[Tuple[int, int], str]] = None
    for r in matrix.rows("torch", "variant"):
        t = cuda_tuple(r.get("cuda"))
        name = r.get("variant")
        if t and t[0] == major and isinstance(name, str) and (best is None or t > best[0]):
            best = (t, name)
    return best[1] if best else None


def compare_versions(have: str, op: str, want: str) -> Optional[bool]:
    """``have <op> want`` on dotted versions ("8.6" >= "8.0", "535.104.05" < "550"), padded with zeros; a local
    label ("+cu121") is ignored. None when either does not parse. The one version comparison of the knowledge
    base's ``when`` conditions (errors.toml: "cc>=12.0", "driver<525")."""
    a, b = version_tuple(have.split("+")[0]), version_tuple(want)
    if a is None or b is None or op not in ("<", "<=", "==", "!=", ">=", ">"):
        return None
    n = max(len(a), len(b))
    a, b = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return {">=": a >= b, "<=": a <= b, "==": a == b, "!=": a != b, "<": a < b, ">": a > b}[op]


def driver_upgrade_needed(current: Optional[DriverVersion], need: Optional[DriverVersion]) -> Optional[bool]:
    """Whether the installed driver is below the one a plan needs (None: either is unknown)."""
    if current is None or need is None:
        return None
    return current < need


def conda_forge_cuda_missing(matrix: Any, framework: str, version: Optional[str], date: Optional[str]) -> bool:
    """Whether conda-forge has no CUDA build of this release (``[[conda_forge_cuda]]`` of torch.toml /
    tensorflow.toml): torch releases published before the feedstock's first CUDA builds, the TensorFlow series the row
    lists (published before conda-forge built CUDA TensorFlow). False where no row says so."""
    series = ".".join((version or "").split(".")[:2])
    for r in matrix.rows(framework, "conda_forge_cuda"):
        if date and str(date) < str(r.get("first_build_after")):
            return True
        if series and series in (r.get("releases_before") or ()):
            return True
    return False


def conda_cuda_version(cudas: Sequence[str], driver_cuda: Optional[str]) -> Optional[str]:
    """conda-forge's ``cuda-version`` spec for builds of CUDA ``cudas`` (one major): the major, capped at the
    highest CUDA the driver runs fully when the driver is of that major; the builds' own CUDA without a driver."""
    ts = [t for t in (cuda_tuple(c) for c in cudas) if t]
    if not ts:
        return None
    major = ts[0][0]
    have = cuda_tuple(driver_cuda)
    if have and have[0] == major:
        return f"cuda-version>={major}.0,<={have[0]}.{have[1]}"
    if have and have[0] > major:
        return f"cuda-version>={major}.0,<{major + 1}"
    top = max(ts)
    return f"cuda-version={top[0]}.{top[1]}"


def majors_above(floors: Dict[int, DriverVersion], driver_cuda: Optional[str]) -> Dict[int, DriverVersion]:
    """The CUDA majors (and their driver floors) a driver of CUDA ``driver_cuda`` does not reach; all of them
    when the driver's CUDA is unknown."""
    have = cuda_tuple(driver_cuda)
    return {k: v for k, v in floors.items() if have is None or k > have[0]}


def driver_cuda_major(driver_cuda: Optional[str]) -> Optional[int]:
    t = cuda_tuple(driver_cuda)
    return t[0] if t else None


def nvidia_wheel_kind(matrix: Optional[Matrix], cuda_major: int) -> str:
    """How NVIDIA's pip wheels carry the CUDA ``cuda_major`` libraries (cuda.toml ``[[pip_wheels]]``): ``"none"``
    (no NVIDIA pip wheel: CUDA 10 and older), ``"suffixed"`` (nvidia-cuda-runtime-cu12 ...), ``"toolkit"``
    (unsuffixed wheels through the cuda-toolkit[extra] metapackage). ``matrix`` None: the active matrix."""
    if matrix is None:
        from envcheck.matrix import load_matrix

        matrix = load_matrix()
    return matrix.pip_wheel_kind(cuda_major)


def _active(matrix: Optional[Matrix]) -> Matrix:
    if matrix is None:
        from envcheck.matrix import load_matrix

        matrix = load_matrix()
    return matrix


def _runtime_row(matrix: Optional[Matrix], cuda_major: Optional[int]) -> Optional[Dict[str, Any]]:
    return next((r for r in _active(matrix).rows("cuda", "runtime_file") if r.get("major") == cuda_major), None)


def runtime_file(matrix: Optional[Matrix], cuda: str, windows: bool = False) -> Optional[str]:
    """The file of the CUDA runtime a build for CUDA ``cuda`` ("10.1", "12") loads: its Linux soname
    (libcudart.so.10.1, libcudart.so.11.0, libcudart.so.12) or native Windows DLL (cudart64_101.dll, cudart64_110.dll,
    cudart64_12.dll), from cuda.toml ``[[runtime_file]]``; None where the major has no row, or the name needs a minor
    ``cuda`` does not state."""
    parts = (cuda or "").strip().split(".")
    if not parts[0].isdigit():
        return None
    minor = parts[1] if len(parts) > 1 and parts[1].isdigit() else None
    row = _runtime_row(matrix, int(parts[0]))
    pattern = row.get("windows" if windows else "linux") if row else None
    if not isinstance(pattern, str) or ("{minor}" in pattern and minor is None):
        return None
    return pattern.replace("{major}", str(int(parts[0]))).replace("{minor}", minor or "")


def runtime_names_minor(matrix: Optional[Matrix], cuda_major: Optional[int]) -> Optional[bool]:
    """Whether the CUDA runtime's file of a CUDA ``cuda_major`` build names the minor too (up to CUDA 10: a 10.2 install
    does not provide libcudart.so.10.1), so that only that minor's runtime serves it; None: no cuda.toml row."""
    row = _runtime_row(matrix, cuda_major)
    return None if row is None else "{minor}" in str(row.get("linux", "")) + str(row.get("windows", ""))


def _library_row(matrix: Optional[Matrix], family: str) -> Dict[str, Any]:
    return next((r for r in _active(matrix).rows("cuda", "cuda_library") if r.get("family") == family), {})


def library_soname(matrix: Optional[Matrix], family: str) -> Optional[str]:
    """What the number in a CUDA library family's soname / DLL name is (cuda.toml ``[[cuda_library]]`` ``soname``):
    "cuda" (the CUDA major it ships with: libcudart.so.11.0, cublas64_12.dll), "cudnn" (cuDNN's own major), or None
    (its own version: libcufft.so.11 ships with CUDA 12; or a family without a row)."""
    return _library_row(matrix, family).get("soname")


def library_sonames(matrix: Optional[Matrix]) -> Dict[str, str]:
    """Every library family whose soname carries a major -> what it is (:func:`library_soname`)."""
    return {str(r.get("family")): str(r["soname"]) for r in _active(matrix).rows("cuda", "cuda_library")
            if r.get("soname")}


def library_wheel(matrix: Optional[Matrix], family: str) -> Optional[str]:
    """NVIDIA's pip wheel of a library family, without the "-cuNN" suffix ("nvidia-cuda-runtime"); None: no row."""
    return _library_row(matrix, family).get("wheel")


def library_toolkit_extra(matrix: Optional[Matrix], family: str) -> Optional[str]:
    """The extra of NVIDIA's cuda-toolkit metapackage that installs a library family ("cublas" for cublaslt)."""
    return _library_row(matrix, family).get("toolkit_extra")


def windows_dll_major(number: int) -> int:
    """The major of a Windows CUDA library's number (``cudart64_110.dll``: 110): major and minor run together before
    CUDA 11.1 (110 = 11.0, 101 = 10.1, 90 = 9.0), the major alone after (cublas64_12.dll, cudart64_12.dll) and in
    cuDNN's names (cudnn64_8.dll)."""
    return number // 10 if number >= 20 else number


def cudnn_wheel_majors(matrix: Matrix, cudnn_major: int) -> List[int]:
    """The CUDA majors with an ``nvidia-cudnn-cuNN`` wheel of cuDNN ``cudnn_major``.x, newest first: the majors its
    releases are built for (:func:`cudnn_cuda_majors`) that have NVIDIA pip wheels at all (CUDA 11 on)."""
    return [k for k in cudnn_cuda_majors(matrix, cudnn_major) if nvidia_wheel_kind(matrix, k) != "none"]


def cudnn_cuda_majors(matrix: Matrix, cudnn_major: int) -> List[int]:
    """The CUDA majors the cuDNN ``cudnn_major``.x releases are built for (the ``nvidia-cudnn-cuNN`` wheels that
    can exist), newest first, from the matrix's cuDNN rows."""
    majors: set[int] = set()
    for r in matrix.rows("cudnn", "release"):
        t = version_tuple(r.get("version"))
        if t and t[0] == cudnn_major:
            majors.update(c["major"] for c in r.get("cuda") or () if isinstance(c, dict) and isinstance(c.get("major"), int))
    return sorted(majors, reverse=True)


def extension_build_differs(built_torch: Optional[str], torch: Optional[str]) -> Optional[bool]:
    """Whether an extension built for torch ``built_torch`` (xformers' "built for: PyTorch 2.1.0+cu121") runs on a
    different torch than the one in use (``torch``, its "you have 2.1.0+cu118"): the release or the local build tag
    (``+cu121``, ``+cpu``) differ. A binary extension is compiled against one torch build; when the two strings are
    the same build, the extension failed to load for another reason. ``None``: a version is missing."""
    if not built_torch or not torch:
        return None
    b, h = built_torch.strip().lower(), torch.strip().lower()
    b_rel, _, b_tag = b.partition("+")
    h_rel, _, h_tag = h.partition("+")
    bt, ht = version_tuple(b_rel), version_tuple(h_rel)
    if not bt or not ht:
        return None
    n = max(len(bt), len(ht))  # "2.6" is "2.6.0"
    return tuple(bt) + (0,) * (n - len(bt)) != tuple(ht) + (0,) * (n - len(ht)) or b_tag != h_tag


def driver_pair_differs(libcuda: Optional[str], kernel: Optional[str]) -> Optional[bool]:
    """Whether the user-space driver library (libcuda) and the loaded kernel module are different driver versions,
    as TensorFlow's cuda_diagnostics reports them ("libcuda reported version is: X", "kernel reported version is:
    Y"; both printed as major.minor.patch, "384.111.0"): a trailing ".0" is no difference. None when either is
    unknown or not a version."""
    if not libcuda or not kernel:
        return None

    def key(v: str) -> Optional[Tuple[int, ...]]:
        parts = v.strip().split(".")
        if not all(p.isdigit() for p in parts):
            return None
        nums = [int(p) for p in parts]
        while len(nums) > 1 and nums[-1] == 0:
            nums.pop()
        return tuple(nums)

    a, b = key(libcuda), key(kernel)
    if a is None or b is None:
        return None
    return a != b


def no_cpu_fallback(framework: str, environ: Dict[str, str]) -> Optional[str]:
    """Why a CUDA build of ``framework`` does not go on on the CPU where no NVIDIA GPU answers, or None where it does
    (torch, TensorFlow, JAX by default):

    * CuPy has no CPU path: its first array operation raises CUDARuntimeError (cupy/cupy#8152: ``cupy.ones(10)`` ->
      cudaErrorNoDevice; WagnerGroup/pyqmc#281);
    * JAX with ``JAX_PLATFORMS`` set to a list without ``cpu``: it fails instead of choosing the CPU (jax/_src/
      xla_bridge.py: a platform listed explicitly "always fail[s] loudly", 'Unable to initialize backend ...
      (set JAX_PLATFORMS='' to automatically choose an available backend)')."""
    if framework == "cupy":
        return "CuPy has no CPU path, and its first array operation raises CUDARuntimeError"
    platforms = (environ.get("JAX_PLATFORMS") or "").strip()
    if framework == "jax" and platforms and "cpu" not in [p.strip().lower() for p in platforms.split(",")]:
        return f"JAX_PLATFORMS={platforms!r} names no cpu, so JAX fails instead of falling back to the CPU"
    return None


def cudnn_wheel(matrix: Optional[Matrix], cudnn_major: int, cuda_major: Optional[int]) -> Tuple[str, str]:
    """The nvidia-cudnn wheel for a build of CUDA ``cuda_major`` (when known), else for the newest CUDA major the
    matrix's cuDNN rows pair with this cuDNN major, and a note naming the others. ``("", why)`` when no such wheel
    can exist: NVIDIA's nvidia-cudnn-cuNN wheels start with CUDA 11 (cuDNN 8 and 9), and only for the CUDA majors
    a cuDNN major is built for (nvidia-cudnn-cu13 holds cuDNN 9 only)."""
    majors = cudnn_wheel_majors(matrix, cudnn_major) if matrix is not None else []
    if cuda_major:
        if nvidia_wheel_kind(matrix, cuda_major) != "none" and (matrix is None or cuda_major in majors):
            return f"nvidia-cudnn-cu{cuda_major}", ""
        return "", (f"no nvidia-cudnn pip wheel carries cuDNN {cudnn_major}.x for CUDA {cuda_major}: install it from "
                    "NVIDIA's cuDNN archive (or conda's cudnn package) and put its lib folder on the library path")
    if matrix is not None and not majors:
        return "", (f"no nvidia-cudnn pip wheel carries cuDNN {cudnn_major}.x (the wheels start with CUDA 11 and "
                    "cuDNN 8): install it from NVIDIA's cuDNN archive (or conda's cudnn package)")
    if not majors:
        return "nvidia-cudnn-cu<CUDA major>", " (the wheel of the program's CUDA major)"
    return (f"nvidia-cudnn-cu{majors[0]}",
            " (" + ", ".join(f"cu{k} for CUDA {k} builds" for k in majors) + ")" if len(majors) > 1 else "")


def invalid_image_driver_note(ptxas_major: int, facts: Dict[str, str], matrix: Optional[Matrix]) -> Optional[str]:
    """For a refused kernel image compiled by a ptxas of CUDA major ``ptxas_major`` (the knowledge base's
    ``ptxas_cuda_major`` of the match's signature: Triton's "device kernel image is invalid", whose bundled ptxas is
    CUDA 12.x; 0 = the signature states none) where the facts show a driver (``driver``, else ``driver_cuda``) at least
    the minor-version floor (the matrix's) of the CUDA in play - that ptxas's, or the torch build's CUDA where that is
    newer: the note that says what is known and what is not, for the match that would say ``driver-too-old`` falsely.
    None where the signature states no ptxas, the driver is not shown, is below that floor, or the matrix has no floor
    for that CUDA (then the driver reading stands)."""
    if not ptxas_major or matrix is None:
        return None
    torch_cuda = cuda_tuple(facts.get("torch_cuda"))
    major = max(ptxas_major, torch_cuda[0] if torch_cuda else 0)
    floor = minor_compat_floors(matrix).get(major)
    if floor is None:
        return None
    driver = DriverVersion.parse(facts.get("driver"))
    have = cuda_tuple(facts.get("driver_cuda"))
    if driver is not None:
        enough = not driver < floor
        shown = f"driver {driver.raw}"
    elif have is not None:
        enough = have[0] >= major
        shown = f"a driver of CUDA {facts.get('driver_cuda')}"
    else:
        return None
    if not enough:
        return None
    return (f"not-checked: Triton's \"device kernel image is invalid\" beside {shown}, which runs CUDA {major}.x "
            f"builds (minor-version floor {floor.raw}; CUDA {major}.x is what Triton's bundled ptxas compiles for): a "
            "driver too old is not what the text shows. Known: the driver refused a kernel image it could not load - "
            "one built by a ptxas of a newer CUDA than this driver runs (TRITON_PTXAS_PATH pointing at another "
            "toolkit), or a Triton kernel cache (~/.triton/cache) written by another CUDA or GPU. Not known: which "
            "of these, or whether the driver shown is the failing machine's.")
