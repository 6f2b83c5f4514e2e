"""Builds: one typed :class:`Build` for every framework release x variant the matrix knows, for an installed
framework, and for a requirement (``matrix query/why``, ``fix``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from envcheck.engine.rules import arch_names, conda_forge_cuda_missing
from envcheck.environment.frameworks import split_conda_version
from envcheck.errors import UsageError
from envcheck.known import PYTORCH_INDEX, TORCH_FAMILY
from envcheck.matrix import Matrix
from envcheck.model import Environment, Framework
from envcheck.versions import version_tuple
from envcheck.versions import cuda_tuple, major_minor, spec_contains

__all__ = ["Build", "NO_CPU_BUILD", "builds_for", "cuda_builds", "cudnn_pin", "release_pythons", "last_release_for", "mac_x86_list_top", "release_supports_python", "cpu_build", "installed_build", "jax_arch", "jax_builds", "jax_release_row",
           "parse_requirement", "tensorflow_builds", "torch_builds", "version_key", "newest_version", "version_newer"]


@dataclass
class Build:
    """One installable (or installed) build. ``arch`` empty on a GPU build means "unknown"."""

    framework: str  # torch | tensorflow | jax | cupy
    version: str
    variant: Optional[str]  # cu124 | cpu | and-cuda | system | shared | cuda12 | installed ...
    cuda: Optional[str] = None
    cudnn: Optional[str] = None
    python: Tuple[str, ...] = ()
    platforms: Tuple[str, ...] = ()
    arch: Tuple[str, ...] = ()  # sm_XY / compute_XY
    arch_source: Optional[str] = None
    index_url: Optional[str] = None  # None: PyPI
    find_links: Optional[str] = None  # a pip --find-links page (old PyTorch releases), with a local-version pin
    pypi_default: bool = False
    companions: Dict[str, str] = field(default_factory=dict)  # torchvision/torchaudio/jaxlib versions
    extras: Tuple[str, ...] = ()
    pins: Dict[str, str] = field(default_factory=dict)  # pip pins of NVIDIA wheels (name -> specifier)
    source: Optional[str] = None
    installed: bool = False  # describes what is installed here (status), not a candidate
    is_gpu: Optional[bool] = None  # a GPU build whose CUDA version is unknown (an arch list, a cu12 dist name)
    # the build carries PTX for targets the matrix does not list (tensorflow.toml ``ptx_unlisted``: TF's pip builds before
    # 2.3): a GPU newer than every SASS target is reached through it; ``arch`` lists the SASS targets only
    ptx_unlisted: bool = False
    # ``arch`` is a floor that newer toolkits of the same CUDA major extend (CuPy compiles its kernels with the NVRTC it
    # loads at run time, engine/cupy.py): a GPU newer than every target is unknown (this says what decides it), not a
    # failure; a GPU older than every target stays one (newer toolkits drop old targets, never add them back)
    arch_floor: str = ""
    # conda-forge has no CUDA build of this release (engine.rules.conda_forge_cuda_missing): no conda command for it
    no_conda_cuda: bool = False

    @property
    def label(self) -> str:
        return f"{self.framework} {self.version}" + (f" ({self.variant})" if self.variant else "")

    @property
    def gpu(self) -> bool:
        return bool(self.cuda) or bool(self.is_gpu)

    def to_dict(self, matrix: Optional[Matrix] = None, windows: bool = False) -> Dict[str, Any]:
        """The contract-shaped view of ``matrix query`` (SASS and PTX targets apart)."""
        from envcheck.engine.rules import driver_need

        sass = [a[3:] for a in self.arch if a.startswith("sm_")]
        ptx = [a[8:] for a in self.arch if a.startswith("compute_")]
        dmin = driver_need(matrix, self.cuda, windows, False) if matrix and self.cuda else None
        dfull = matrix.toolkit_min_driver(self.cuda, windows=windows) if matrix and self.cuda else None
        return {"framework": self.framework, "version": self.version, "variant": self.variant, "cuda": self.cuda,
                "cudnn": self.cudnn, "python": list(self.python) or None,
                "compute_capabilities": [f"{s[:-1]}.{s[-1]}" for s in sass] or None,
                "ptx": [f"{p[:-1]}.{p[-1]}" for p in ptx] or None,
                "driver_min": str(dmin) if dmin else None, "driver_full": str(dfull) if dfull else None,
                "index_url": self.index_url, "extras": list(self.extras) or None,
                "companions": dict(self.companions) or None, "pins": dict(self.pins) or None,
                "source": self.source}


def version_key(v: str) -> Tuple[Any, ...]:
    from packaging.version import InvalidVersion, Version

    try:
        return (Version(v),)
    except (InvalidVersion, ValueError):  # ValueError: a version too long to convert (5000 digits)
        return (Version("0"),)


def _release_key(v: str) -> Optional[Tuple[int, ...]]:
    """A plain release ("2.11.0": ASCII digits and dots only) as packaging orders it: its numbers with the trailing
    zeros dropped (2.4 == 2.4.0); ``None`` for every other form, which only packaging reads (issue 24: the
    matrix's own versions are plain, and comparing them this way spares the status path importing packaging)."""
    parts = v.split(".")
    if not all(p.isascii() and p.isdigit() and len(p) <= 18 for p in parts):
        return None
    key = [int(p) for p in parts]
    while key and key[-1] == 0:
        key.pop()
    return tuple(key)


def newest_version(vs: List[str]) -> Optional[str]:
    """``max(vs, key=version_key)`` (``None`` for no versions): the same first newest one."""
    if not vs:
        return None
    keys: List[Tuple[int, ...]] = []
    for v in vs:
        k = _release_key(v)
        if k is None:
            return max(vs, key=version_key)
        keys.append(k)
    return vs[max(range(len(vs)), key=keys.__getitem__)]  # max keeps the first of equal keys, as above


def version_newer(a: str, b: str) -> bool:
    """``version_key(a) > version_key(b)``."""
    ka, kb = _release_key(a), _release_key(b)
    if ka is not None and kb is not None:
        return ka > kb
    return version_key(a) > version_key(b)


def release_pythons(rel: Dict[str, Any], platform: Optional[str]) -> Tuple[str, ...]:
    """The CPython minors a torch release row (compat_matrix/torch.toml) has wheels for on ``platform``: Windows' list
    (``python_windows``) on Windows, macOS arm64's (``python_macos_arm64``) on an Apple-silicon Mac, macOS x86_64's
    (``python_macos_x86_64``) on an Intel Mac, else - and where the row has no list of that platform - ``python``
    (Linux x86_64's). The lists differ where Linux was served first: torch 2.5.x has cp313 wheels for Linux only,
    1.13.x cp311 for Linux only (not for either Mac); an Intel Mac has no wheel after 2.2.2 (an empty list)."""
    p = (platform or "").lower()
    mac = p.startswith(("macos", "darwin"))
    key = "python_windows" if p.startswith("win") else "python_macos_arm64" if mac and \
        p.endswith(("aarch64", "arm64")) else "python_macos_x86_64" if mac and p.endswith(("x86_64", "amd64")) else None
    own = rel.get(key) if key else None
    return tuple(str(x) for x in (own if own is not None else rel.get("python") or ()))


def last_release_for(matrix: Matrix, platform: str) -> Optional[str]:
    """The newest torch release (compat_matrix/torch.toml) with a wheel for ``platform`` (:func:`release_pythons`: an
    Intel Mac, "macos-x86_64", has none after 2.2.2), or ``None`` where the matrix lists none."""
    best: Optional[Tuple[Tuple[int, ...], str]] = None
    for rel in matrix.rows("torch", "release"):
        v = rel.get("version")
        t = version_tuple(v) if isinstance(v, str) else None
        if t and release_pythons(rel, platform) and (best is None or t > best[0]):
            best = (t, str(v))
    return best[1] if best else None


#: pip's "(from versions: ...)" and the release wanted on its line ("requirement torch==2.4.1 (from versions: ...)")
_FROM_VERSIONS = re.compile(r"\(from versions: (?P<v>[^)\n]{1,2000})\)")
_WANTED = re.compile(r"(?<![\w-])torch\s{0,2}(?:==|>=|>|~=)\s{0,2}(?P<w>\d{1,3}(?:\.\d{1,3}){0,2})")


def mac_x86_list_top(matrix: Any, pip_line: str) -> Optional[str]:
    """(macarch40) The newest torch release with a macOS x86_64 wheel (:func:`last_release_for`, "macos-x86_64": 2.2.2 in
    compat_matrix/torch.toml, read from PyPI's file lists) where pip's "Could not find a version that satisfies the
    requirement torch==X (from versions: ...)" lists torch's versions up to exactly that release and the release wanted
    (``==`` / ``>=`` / ``>``, where the line names one) is newer: the versions a macOS x86_64 Python can install, and no
    other Python of any platform tops there, so the platform is why pip found none, not the Python's version
    (pytorch/pytorch#137281 on an Intel Mac: "torch==2.4.1 (from versions: 2.2.0, 2.2.1, 2.2.2)"). None otherwise."""
    m = _FROM_VERSIONS.search(pip_line) if matrix is not None and "from versions:" in pip_line else None
    last = last_release_for(matrix, "macos-x86_64") if m else None
    if m is None or not last:
        return None
    found = [version_tuple(v.strip()) for v in m.group("v").split(",")]
    top, last_t = max((t for t in found if t), default=None), version_tuple(last)
    if top is None or last_t is None or top != last_t:
        return None
    w = _WANTED.search(pip_line[:m.start()])
    want = version_tuple(w.group("w")) if w else None
    if w is not None and (want is None or want <= last_t):
        return None
    return last


def python_version_not_why(matrix: Any, cause: str, says: Sequence[str], package: Optional[str], pip_line: str) -> bool:
    """(macarch40) Whether a log match saying the Python's version is why pip found no torch (``python-unsupported``,
    its no-build-line wording) is contradicted by its own line: pip's list stops at the last release with macOS x86_64
    wheels (:func:`mac_x86_list_top`), so the platform is why, whatever the Python's version (an Intel Mac's end of
    wheels is no cause envcheck names; on Apple silicon engine.prose_causes.apple_x86_wheels says
    python-arch-mismatch)."""
    return (cause == "python-unsupported" and "no-build-line" in says and (package or "").lower() == "torch"
            and mac_x86_list_top(matrix, pip_line) is not None)


def torch_builds(matrix: Matrix, platform: str = "linux-x86_64", pypi_default: bool = True) -> List[Build]:
    """Every CUDA variant of every torch release (CPU builds come from :func:`cpu_build`). ``pypi_default`` False
    (the platform is not known): every build names its index, since which variant PyPI's own wheel is depends on
    the platform (a plain ``pip install torch`` is a CUDA build on Linux x86_64, a CPU build on Linux aarch64)."""
    out: List[Build] = []
    for rel in matrix.rows("torch", "release"):
        v = rel.get("version")
        if not isinstance(v, str):
            continue
        comp = {k: rel[k] for k in ("torchvision", "torchaudio") if isinstance(rel.get(k), str)}
        for var in matrix.torch_variants(v):
            name = var.get("variant")
            if not isinstance(name, str) or name.startswith("rocm") or name == "cpu":
                continue
            caps = var.get("compute_capabilities")
            if platform.startswith("windows"):
                caps = var.get("compute_capabilities_windows")  # the main list is Linux x86_64's
            elif platform == "linux-aarch64":
                caps = var.get("compute_capabilities_aarch64")
            elif platform != "linux-x86_64":
                caps = None
            # PyPI's own wheels are this variant on Linux x86_64, and on the other platforms the row names as read
            pypi_platforms = var.get("pypi_platforms") or ["linux-x86_64"]
            default = pypi_default and rel.get("pypi_default_variant") == name and platform in pypi_platforms
            links = var.get("find_links") if not default and not var.get("index_url") else None
            url = None if default or links else (var.get("index_url") or PYTORCH_INDEX + name)
            cuda = var.get("cuda") if name.startswith("cu") else None
            pin = var.get("cudnn_pin")
            pins: Dict[str, str] = {}
            if isinstance(pin, str) and "==" in pin:
                pn, pv = pin.split("==", 1)
                pins[pn.strip()] = "==" + pv.strip()
            out.append(Build(
                framework="torch", version=v, variant=name, cuda=cuda, cudnn=var.get("cudnn"),
                python=tuple(var.get("python") or release_pythons(rel, platform)),
                platforms=tuple(var.get("platforms") or ()),
                arch=arch_names(caps or (), var.get("ptx") or ()) if cuda and caps else (),
                arch_source="matrix" if cuda and caps else None,
                index_url=url, find_links=links, pypi_default=default, companions=comp, pins=pins,
                source=var.get("source") or rel.get("source"),
                no_conda_cuda=bool(cuda) and conda_forge_cuda_missing(matrix, "torch", v, rel.get("date"))))
    return out


def tensorflow_builds(matrix: Matrix, platform: str = "linux-x86_64") -> List[Build]:
    out: List[Build] = []
    windows = platform.startswith("windows")
    for rel in matrix.rows("tensorflow", "release"):
        patches = rel.get("patches") or ([rel["version"]] if isinstance(rel.get("version"), str) else [])
        arch = arch_names(rel.get("compute_capabilities") or [], rel.get("ptx") or ())
        pkg = rel.get("package") or "tensorflow"
        cuda = rel.get("windows_cuda") if windows and rel.get("windows_cuda") else rel.get("cuda")
        cudnn = rel.get("windows_cudnn") if windows and rel.get("windows_cudnn") else rel.get("cudnn")
        for v in patches:
            if not isinstance(v, str):
                continue
            common: Dict[str, Any] = dict(framework="tensorflow", version=v, cuda=cuda, cudnn=cudnn,
                                          python=tuple(rel.get("python") or ()), arch=arch,
                                          arch_source="matrix" if arch else None, source=rel.get("source"),
                                          ptx_unlisted=bool(arch and rel.get("ptx_unlisted")),
                                          no_conda_cuda=conda_forge_cuda_missing(matrix, "tensorflow", v, None))
            if windows:
                if rel.get("windows_gpu"):
                    out.append(Build(variant="system", platforms=("windows-x86_64",), **common))
                continue
            plats = ("linux-x86_64",)
            if isinstance(rel.get("and_cuda"), dict) and rel["and_cuda"]:
                out.append(Build(variant="and-cuda", platforms=plats, extras=("and-cuda",),
                                 pins={k: str(s) for k, s in rel["and_cuda"].items()}, **common))
            b = Build(variant="system", platforms=plats, **common)
            if pkg != "tensorflow":
                b.companions = {"package": pkg}
            out.append(b)
    return out


def jax_arch(rel: Dict[str, Any], major: Optional[int]) -> Tuple[str, ...]:
    """The architectures of a jax release's CUDA ``major`` build (its plugin / pjrt, or the jaxlib +cudaNN wheel):
    the row's ``compute_capabilities_cudaNN`` + ``ptx_cudaNN``; () when the matrix has no list for it."""
    if major is None:
        return ()
    caps = rel.get(f"compute_capabilities_cuda{major}")
    if not caps:
        return ()
    return arch_names(caps, rel.get(f"ptx_cuda{major}") or ())


def jax_release_row(matrix: Matrix, version: str, jaxlib: Optional[str] = None) -> Dict[str, Any]:
    """The jax row of a release; with ``jaxlib`` (the version of the installed jaxlib / CUDA plugin, which carries
    the device code) the row of the jax release that pins that jaxlib, when the two differ (jax 0.4.37 -> 0.4.36)."""
    rows = matrix.rows("jax", "release")
    if jaxlib and jaxlib != version:
        # no row for that jaxlib (a nightly, a source build): {} - the jax release's row describes another build
        return next((r for r in rows if r.get("jax") == jaxlib), None) or next(
            (r for r in rows if r.get("jaxlib") == jaxlib), {})
    return next((r for r in rows if r.get("jax") == version), {})


def jax_builds(matrix: Matrix, platform: str = "linux-x86_64") -> List[Build]:
    out: List[Build] = []
    # the jax extra installing each CUDA plugin (jax.toml [[cuda_extra]]); a plugin no extra installs is not planned
    extras = {r.get("plugin"): str(r["extra"]) for r in matrix.rows("jax", "cuda_extra") if r.get("extra")}
    for rel in matrix.rows("jax", "release"):
        v = rel.get("jax")
        plugins = rel.get("cuda_plugins") or []
        if not isinstance(v, str) or not plugins:
            continue
        for plugin in plugins:
            if not isinstance(plugin, str):
                continue
            major = plugin.replace("jax-cuda", "").replace("-plugin", "")
            extra = extras.get(plugin)
            if not major.isdigit() or not extra:
                continue
            cuda_min = rel.get("cuda_min") if str(rel.get("cuda", "")).startswith(major) else None
            pins = {}
            if rel.get("cudnn_min") and cuda_min:
                pins[f"nvidia-cudnn-cu{major}"] = ">=" + str(rel["cudnn_min"])
            # the .bazelrc list is the build's on Linux x86_64 and aarch64 alike (the jax.toml notes: wheels of both read)
            arch = jax_arch(rel, int(major))
            out.append(Build(framework="jax", version=v, variant=extra, cuda=cuda_min or f"{major}.0",
                             cudnn=rel.get("cudnn_min"), python=tuple(rel.get("python") or ()),
                             arch=arch, arch_source="matrix" if arch else None,
                             platforms=("linux-x86_64", "linux-aarch64"), extras=(extra,), pins=pins,
                             companions={"jaxlib": str(rel.get("jaxlib") or v), "plugin": plugin},
                             source=rel.get("source")))
    return out


def cuda_builds(env: Environment) -> List[Framework]:
    """Installed framework builds that need an NVIDIA GPU stack (``checks.cuda_builds``, explain's report rules)."""
    out = []
    for fw in env.frameworks.values():
        if fw.cpu_only or (not fw.cuda and (fw.rocm or fw.hip or fw.xpu or (fw.mps or {}).get("built"))):
            continue  # CPU, or another vendor's GPU build (contract §9; checks.vendors judges those)
        if fw.cuda or fw.cuda_major or fw.cpu_only is False or fw.arch_list or (
                fw.name in ("jax", "cupy") and fw.build_info.get("cuda_major")):
            out.append(fw)
    return out


def cudnn_pin(matrix: Optional[Matrix], fw: Framework) -> Optional[str]:
    """The exact ``nvidia-cudnn-cuNN==V`` requirement the matrix knows for an installed build: its torch variant's
    ``cudnn_pin``, or the ``and-cuda`` extra of its TensorFlow release; None when the matrix does not say."""
    if matrix is None or not fw.version:
        return None
    if fw.name == "torch":
        variant = fw.build_info.get("variant") if isinstance(fw.build_info, dict) else None
        row = matrix.torch_variant(fw.version, variant) if variant else None
        if row and row.get("cudnn_pin"):
            return str(row["cudnn_pin"])
    if fw.name == "tensorflow":
        tf = matrix.tf_release(fw.version)
        for k, v in ((tf or {}).get("and_cuda") or {}).items():
            if k.startswith("nvidia-cudnn-cu") and str(v).startswith("=="):
                return f"{k}{v}"
    return None


def pypi_torch_is_cpu(platform: str) -> bool:
    """Whether PyPI's own torch wheel (``pip install torch`` with no PyTorch index) is the CPU-only build on ``platform``:
    on Windows, macOS and Linux aarch64 it is - PyTorch's install selector gives those a plain ``pip3 install torch``
    only for the CPU build, and the CUDA builds' commands add ``--index-url https://download.pytorch.org/whl/cuXXX``
    (https://pytorch.org/get-started/locally/; the win_amd64 files of https://pypi.org/project/torch/#files carry no
    CUDA dependency, the manylinux x86_64 ones require the nvidia-*-cu12 wheels); on Linux x86_64 it is a CUDA build."""
    return platform.startswith(("windows", "win32", "macos", "darwin")) or platform == "linux-aarch64"


#: the frameworks ``fix --cpu`` cannot plan, and why (attack36: "no CPU build of onnxruntime fits: no release matches"
#: said nothing true, and the AMD / Apple plans offered --cpu as what lifts a wanted onnxruntime-gpu)
NO_CPU_BUILD: Dict[str, str] = {
    "cupy": "CuPy has no CPU build",
    "onnxruntime": "onnxruntime-gpu has no CPU build (ONNX Runtime's CPU build is the separate package onnxruntime, "
                   "which envcheck does not plan)",
}


def cpu_build(matrix: Matrix, framework: str, version: str, platform: str = "linux-x86_64",
              pypi_default: bool = True) -> Optional[Build]:
    """The CPU build of a release (chosen only when asked for, or on a machine with no NVIDIA GPU); ``pypi_default``
    as for :func:`torch_builds`."""
    if framework == "torch":
        rel = matrix.torch_release(version) or {}
        var = matrix.torch_variant(version, "cpu")
        # on Windows, macOS and Linux aarch64 the PyPI wheel is the CPU build; on Linux x86_64 it is a CUDA
        # build, so the CPU one comes from the row's index (or, for old releases, its find-links page)
        default_cpu = pypi_default and pypi_torch_is_cpu(platform)
        links = None if default_cpu or (var or {}).get("index_url") else (var or {}).get("find_links")
        url = None if default_cpu or links else ((var or {}).get("index_url") or PYTORCH_INDEX + "cpu")
        comp = {k: rel[k] for k in ("torchvision", "torchaudio") if isinstance(rel.get(k), str)}
        return Build(framework="torch", version=version, variant="cpu",
                     python=tuple((var or {}).get("python") or release_pythons(rel, platform)),
                     platforms=tuple((var or {}).get("platforms") or ()), index_url=url, find_links=links,
                     companions=comp, source=(var or rel).get("source"))
    if framework == "tensorflow":
        rel = matrix.tf_release(version) or {}
        return Build(framework="tensorflow", version=version, variant="cpu", python=tuple(rel.get("python") or ()),
                     source=rel.get("source"))
    if framework == "jax":
        jrel = next((r for r in matrix.rows("jax", "release") if r.get("jax") == version), {})
        return Build(framework="jax", version=version, variant="cpu", python=tuple(jrel.get("python") or ()),
                     source=jrel.get("source"))
    return None


#: the local version label of a torch built for NVIDIA Jetson (L4T): NVIDIA's own Jetson wheels ("2.0.0+nv23.05",
#: "2.1.0a0+41361538.nv23.06") and the community's ("2.5.1+l4t35.6"); NVIDIA's TensorFlow for Jetson writes the
#: month without its zero ("1.15.2+nv20.6", "2.7.0+nv22.1": tensorflow/tensorflow#41888, D0352276/CSL-YOLO#7). PyPI's
#: release table (its Python wheels, its CUDA variants' architectures) says nothing of them.
_JETSON_LABEL = re.compile(r"(?:^|[.+])(?:l4t\d|nv\d{2}\.\d{1,2}(?:$|\.))")


def jetson_build(version: Optional[str]) -> bool:
    """True for a framework version whose local label names a build made for a Jetson (L4T)."""
    local = (version or "").partition("+")[2]
    return bool(local) and bool(_JETSON_LABEL.search(local))


def installed_build(matrix: Matrix, fw: Framework) -> Build:
    """The build an installed framework is: its own facts first (version, CUDA, cuDNN, arch list), the
    matrix's row for the same release and variant for what the installed files do not say."""
    version = (fw.version or "").split("+", 1)[0]
    cuda = major_minor(fw.cuda) if fw.cuda else None
    arch: Tuple[str, ...] = tuple(fw.arch_list or ())
    arch_source = fw.arch_source if arch else None
    ptx_unlisted = False
    arch_floor = ""
    python: Tuple[str, ...] = ()
    row: Dict[str, Any] = {}
    if fw.name == "torch" and version and jetson_build(fw.version):
        pass  # a Jetson build: not one of the release table's wheels; its own facts (torch.json) only
    elif fw.name == "torch" and version:
        rel = matrix.torch_release(version) or {}
        t = cuda_tuple(cuda)
        variant = f"cu{t[0]}{t[1]}" if t else None  # 10.2 -> cu102, 12.8 -> cu128
        row = (matrix.torch_variant(version, variant) or {}) if variant else {}
        python = tuple(row.get("python") or rel.get("python") or ())
        if not arch and row.get("compute_capabilities"):
            arch = arch_names(row.get("compute_capabilities") or (), row.get("ptx") or ())
            arch_source = f"the matrix's row for torch {version} {variant}"
    elif fw.name == "tensorflow" and version:
        rel = matrix.tf_release(version) or {}
        python = tuple(rel.get("python") or ())
        if not arch and rel.get("compute_capabilities") and cuda:
            arch = arch_names(rel.get("compute_capabilities") or (), rel.get("ptx") or ())
            arch_source = f"the matrix's row for tensorflow {version}"
            ptx_unlisted = bool(rel.get("ptx_unlisted"))
    elif fw.name == "jax" and version:
        jrel = next((r for r in matrix.rows("jax", "release") if r.get("jax") == version), {})
        python = tuple(jrel.get("python") or ())
        # the device code is the CUDA plugin's (or the +cudaNN jaxlib's): its version picks the row. A conda build
        # (conda-forge compiles jaxlib with its own target list) is not the PyPI build the matrix describes
        info = fw.build_info or {}
        carrier = info.get("plugin_version") if info.get("cuda_plugin") else info.get("jaxlib")
        lib_ver, conda_build = split_conda_version(carrier if isinstance(carrier, str) else None)
        lib = lib_ver.split("+", 1)[0] if lib_ver else None
        major = fw.cuda_major if fw.cuda_major else info.get("cuda_major")
        if not isinstance(major, int) and cuda:
            t = cuda_tuple(cuda)
            major = t[0] if t else None
        arow = jax_release_row(matrix, version, lib)
        if not arch and isinstance(major, int) and not fw.cpu_only and not conda_build:
            arch = jax_arch(arow, major)
            if arch:
                arch_source = f"the matrix's row for jax {arow.get('jax')} (CUDA {major} build)"
    elif fw.name == "cupy" and version:
        from envcheck.engine.cupy import installed_cupy_build

        major = fw.cuda_major if fw.cuda_major else fw.build_info.get("cuda_major")
        got = installed_cupy_build(matrix, fw.distribution, version, major if isinstance(major, int) else None,
                                   fw.build_info.get("nvrtc"))
        python = tuple(got.get("python") or ())
        if got.get("cuda") and not cuda and not fw.cpu_only:
            cuda = str(got["cuda"])  # the major's lowest minor: the driver check is minor-version compatibility
        if not arch and got.get("arch"):
            arch = tuple(got["arch"])
            arch_source = str(got.get("arch_source"))
            arch_floor = str(got.get("arch_floor") or "")
        row = {"source": got.get("source")}
    elif fw.name == "onnxruntime" and version and not fw.cpu_only and fw.distribution == "onnxruntime-gpu":
        from envcheck.engine.onnxruntime import installed_ort_cuda

        ort = installed_ort_cuda(matrix, version)
        if ort is not None:
            cuda, row = ort[0], {"source": ort[1]}  # the lowest CUDA among its feeds' builds: the driver's floor
    if fw.cpu_only:
        cuda = None
    elif cuda is None:
        m = fw.cuda_major if fw.cuda_major else fw.build_info.get("cuda_major")
        cuda = f"{m}" if isinstance(m, int) else None  # the major alone: "12"
    gpu = not fw.cpu_only and bool(cuda or fw.arch_list or fw.cpu_only is False)
    return Build(framework=fw.name, version=fw.version or "?", variant="installed", cuda=cuda,
                 cudnn=fw.cudnn, python=python, arch=arch if gpu else (), arch_source=arch_source,
                 source=row.get("source"), installed=True, is_gpu=gpu, ptx_unlisted=ptx_unlisted and gpu,
                 arch_floor=arch_floor if gpu else "")


def parse_requirement(req: str) -> Tuple[str, Any, str]:
    """(framework, specifier, the name asked for) from ``torch==2.5.1``, ``torchvision>=0.20``,
    ``tensorflow``, ``jax[cuda12]``, ``jax-cuda12-plugin``."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        r = Requirement(req)
    except InvalidRequirement as exc:
        raise UsageError(f"not a requirement: {req!r} ({exc})") from exc
    name = r.name.lower().replace("_", "-")
    if name == "pytorch":
        name = "torch"
    if name in TORCH_FAMILY:
        return "torch", r.specifier, name
    if name in ("tensorflow", "tensorflow-gpu", "tensorflow-cpu"):
        return "tensorflow", r.specifier, name
    if name in ("jax", "jaxlib") or (name.startswith("jax-cuda") and name.endswith("-plugin")):
        return "jax", r.specifier, name
    if name == "cupy" or re.match(r"^cupy-cuda\d{2,3}x?$", name):
        return "cupy", r.specifier, name
    raise UsageError(f"the matrix knows torch, torchvision, torchaudio, tensorflow, jax and cupy builds, not {r.name!r}")


def builds_for(matrix: Matrix, req: str, platform: str = "linux-x86_64", include_cpu: bool = True) -> List[Build]:
    """Every build (release x variant, and the CPU build with ``include_cpu``) matching a requirement such as
    ``torch==2.5.1``; torchvision/torchaudio through the torch release they pair with; jax plugins through
    their jax."""
    fw, spec, asked = parse_requirement(req)

    def ok(v: Optional[str]) -> bool:
        return spec_contains(spec, v)

    out: List[Build] = []
    if fw == "torch":
        versions = []
        for rel in matrix.rows("torch", "release"):
            v = rel.get("version")
            key = v if asked == "torch" else rel.get(asked)
            if isinstance(v, str) and ok(key):
                versions.append(v)
        gpu = [b for b in torch_builds(matrix, platform) if b.version in versions]
        for v in versions:
            out.extend(b for b in gpu if b.version == v)
            cb = cpu_build(matrix, "torch", v, platform) if include_cpu else None
            if cb is not None:
                out.append(cb)
    elif fw == "tensorflow":
        out = [b for b in tensorflow_builds(matrix, platform) if ok(b.version)]
    elif fw == "cupy":
        from envcheck.engine.cupy import cupy_builds

        out = [b for b in cupy_builds(matrix, platform) if ok(b.version)
               and (asked == "cupy" or b.companions.get("package") == asked)]
    else:
        plugin_major = asked[len("jax-cuda"):-len("-plugin")] if asked.startswith("jax-cuda") else None
        for b in jax_builds(matrix, platform):
            key = b.version if asked == "jax" else (b.companions.get("jaxlib") if asked == "jaxlib" else b.version)
            if ok(key) and (plugin_major is None or b.variant == f"cuda{plugin_major}"):
                out.append(b)
    return out


def _platform_kind(platform: Optional[str], machine: Optional[str]) -> Optional[str]:
    """"linux" (x86_64 or machine unknown), "windows", "macos_arm64", "macos_x86_64" (an Intel Mac), or None: another
    or an unknown platform."""
    p, m = (platform or "").lower(), (machine or "").lower()
    arm = m in ("arm64", "aarch64")
    if p.startswith("linux"):
        return None if arm else "linux"
    if p.startswith("win") or p == "nt":
        return None if arm else "windows"
    if p.startswith(("darwin", "mac")):
        return "macos_arm64" if arm else "macos_x86_64" if m in ("x86_64", "amd64") else None
    return None


def release_supports_python(matrix: Matrix, package: str, release: str, python: Optional[str],
                            platform: Optional[str] = "linux", machine: Optional[str] = None) -> Optional[bool]:
    """Whether the matrix lists a wheel of ``package`` ``release`` for CPython ``python`` (x.y[.z]); ``None`` when
    either is unknown. Torch (compat_matrix/torch.toml ``python``) and TensorFlow (tensorflow.toml ``python``; its
    ``tensorflow-gpu`` / ``tensorflow-cpu`` packages were published for the same Pythons); a pre-release or nightly
    (``2.7.0.dev20250311+cu128``, ``2.6.0rc3``) is judged by the release it leads to.

    ``python`` lists the Pythons with Linux x86_64 wheels; torch's rows also list Windows', macOS arm64's and macOS
    x86_64's (``python_windows``, ``python_macos_arm64``, ``python_macos_x86_64``), which differ where Linux was
    served first (torch 1.13.1 has cp311 wheels for Linux only). A Python the platform's own list has is ``True``
    (torch 1.5.0 has a cp27 wheel for an Intel Mac, none for Linux); else one the Linux list lacks is ``False``; one it lists is ``True`` on Linux, on Windows / an Apple-silicon Mac / an Intel Mac
    where that platform's list has it too, and, where the platform is not known (``None``), only where Windows' and
    macOS arm64's lists have it; else ``None``. A row with no other
    platform's list (TensorFlow's) is judged by its one list, as before."""
    if package not in ("torch", "tensorflow", "tensorflow-gpu", "tensorflow-cpu") or not python:
        return None
    m = re.match(r"(\d{1,3}\.\d{1,3}(?:\.\d{1,3})?)", release or "")
    py = major_minor(python)
    if not m or not py:
        return None
    base = m.group(1) if m.group(1).count(".") == 2 else m.group(1) + ".0"
    row = (matrix.torch_release(base) if package == "torch" else matrix.tf_release(base)) or {}
    listed = [str(x) for x in row.get("python") or []]
    if not listed:
        return None
    kind = _platform_kind(platform, machine)
    own = row.get("python_" + kind) if kind not in (None, "linux") else None
    if own is not None and py in [str(x) for x in own]:
        return True  # this platform's own list has it where Linux's does not (torch 1.5.0: cp27 for an Intel Mac only)
    if py not in listed:
        return False
    others = [row.get(k) for k in ("python_windows", "python_macos_arm64")]
    if kind == "linux" or all(o is None for o in others):
        return True  # Linux, or a row whose other platforms were not read (tensorflow.toml): its one list stands
    if kind is not None:
        other = row.get("python_" + kind)
        return True if other is not None and py in [str(x) for x in other] else None
    if platform is None and all(o is not None and py in [str(x) for x in o] for o in others):
        return True  # wherever it runs, this release has a wheel for this Python
    return None
