"""The compatibility matrix: load ``compat_matrix/*.toml``, validate the schema, answer questions.

Files load lazily (``status`` on a CPU box reads only ``cuda.toml``). The active bundle is the
newest valid one of: the bundled tables, and a bundle installed by ``envcheck matrix update``
into the user cache folder.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Optional, Tuple

from envcheck import lazyre
from envcheck.errors import MatrixError
from envcheck.matrix.schema import FILES, validate_tables
from envcheck.versions import DriverVersion, cc_tuple, cuda_tuple, version_tuple



class _LazyToml:
    """The TOML module (tomllib, tomli before 3.11), imported on first use: ``envcheck status`` reads the
    tables from their parsed-JSON cache and needs no TOML parser (~1.5 ms to import)."""

    def __getattr__(self, name: str) -> Any:
        if sys.version_info >= (3, 11):
            import tomllib as mod
        else:  # pragma: no cover - exercised on 3.9/3.10
            import tomli as mod
        return getattr(mod, name)


tomllib: Any = _LazyToml()

__all__ = ["Matrix", "FILES", "validate_tables", "bundled_dir", "load_matrix", "tokens"]

def bundled_dir() -> str:
    """The folder of the bundled TOML files: inside the installed package, else the source tree."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the envcheck package
    inside = os.path.join(here, "compat_matrix")
    if os.path.isdir(inside):
        return inside
    return os.path.join(os.path.dirname(here), "compat_matrix")


# ---------------------------------------------------------------------------------------------
# GPU name matching
# ---------------------------------------------------------------------------------------------
#: brand words nvidia-smi prints before a model name, which people leave out when they type it
_BRANDS = frozenset(("geforce", "tesla", "quadro"))
#: architecture words a GPU's name may carry ("NVIDIA RTX6000-Ada-48Q", a vGPU type of the RTX 6000 Ada; "RTX PRO 6000
#: Blackwell"), by the gpus.toml ``architecture`` they name ("tesla" is a brand word too: not one of them)
_ARCH_WORDS = {"ada": "Ada Lovelace", "lovelace": "Ada Lovelace", "blackwell": "Blackwell", "hopper": "Hopper",
               "ampere": "Ampere", "turing": "Turing", "volta": "Volta", "pascal": "Pascal", "maxwell": "Maxwell",
               "kepler": "Kepler", "fermi": "Fermi"}


def tokens(name: str) -> Tuple[str, ...]:
    """"NVIDIA GeForce RTX 3090 Ti" -> ("geforce", "rtx", "3090", "ti"); "nvidia" dropped."""
    toks = _WORD.findall(name.lower())
    return tuple(t for t in toks if t != "nvidia")


_WORD = lazyre.compile(r"[a-z0-9]+")  # (compiled on first use: a status run without a GPU name needs none)


def _unbranded(toks: List[str]) -> List[str]:
    """The name's words without its leading brand words ("geforce rtx 4090" -> "rtx 4090")."""
    i = 0
    while i < len(toks) and toks[i] in _BRANDS:
        i += 1
    return toks[i:]


def _begins(toks: List[str], shown: List[str], part: str) -> bool:
    """Does a name of the table (its words ``toks``) begin with the words ``shown``, then a word beginning with
    ``part`` (the word a "..." cut; "" when none was cut)?"""
    n = len(shown)
    if toks[:n] != shown:
        return False
    return not part or (len(toks) > n and toks[n].startswith(part))


def _contains(hay: Tuple[str, ...], needle: Tuple[str, ...]) -> bool:
    n = len(needle)
    return n > 0 and any(hay[i:i + n] == needle for i in range(len(hay) - n + 1))


class Matrix:
    """Typed questions over the tables. ``tables`` maps file name (without .toml) -> parsed TOML."""

    def __init__(self, directory: Optional[str] = None, tables: Optional[Dict[str, Any]] = None,
                 origin: str = "bundled"):
        self.directory = directory
        self.origin = origin
        #: why an installed bundle is not used (expired, key revoked, test key no longer set), else None
        self.not_used: Optional[str] = None
        self._tables: Dict[str, Any] = dict(tables or {})
        self._gpu_index: Optional[List[Tuple[Tuple[str, ...], Dict[str, Any]]]] = None

    # -- loading -----------------------------------------------------------------------------
    def table(self, name: str) -> Dict[str, Any]:
        if name not in self._tables:
            data: Dict[str, Any] = {}
            if self.directory:
                path = os.path.join(self.directory, name + ".toml")
                if os.path.exists(path):
                    data = load_cached(path)
            self._tables[name] = data
        table: Dict[str, Any] = self._tables[name]
        return table

    def rows(self, name: str, table: str) -> List[Dict[str, Any]]:
        rows = self.table(name).get(table, [])
        return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []

    def meta(self, name: str) -> Dict[str, Any]:
        m = self.table(name).get("meta", {})
        return m if isinstance(m, dict) else {}

    # -- CUDA toolkit and driver -------------------------------------------------------------
    def minor_compat_floor(self, major: int, windows: bool = False) -> Optional[DriverVersion]:
        """The lowest driver on which any CUDA ``major``.x build runs (minor-version compatibility)."""
        key = "min_driver_windows" if windows else "min_driver_linux"
        for r in self.rows("cuda", "minor_compat"):
            if r.get("major") == major:
                return DriverVersion.parse(r.get(key))
        return None

    def pip_wheel_kind(self, major: int) -> str:
        """How NVIDIA's pip wheels carry CUDA ``major``'s libraries (cuda.toml ``[[pip_wheels]]``): "suffixed",
        "toolkit", or "none" for a major without a row (no NVIDIA pip wheel)."""
        for r in self.rows("cuda", "pip_wheels"):
            if r.get("major") == major:
                return str(r.get("kind"))
        return "none"

    def toolkit_min_driver(self, cuda: str, windows: bool = False) -> Optional[DriverVersion]:
        """The driver shipped with the first release of toolkit ``cuda`` ("12.4"): full support."""
        want = cuda_tuple(cuda)
        key = "min_driver_windows" if windows else "min_driver_linux"
        best: Optional[DriverVersion] = None
        for r in self.rows("cuda", "toolkit"):
            if cuda_tuple(r.get("version")) == want:
                d = DriverVersion.parse(r.get(key))
                if d and (best is None or d < best):
                    best = d
        return best

    def driver_highest_cuda(self, driver: DriverVersion, windows: bool = False) -> Tuple[Optional[str], str]:
        """The highest CUDA ``driver`` supports, and how that was found.

        From the driver-branch table when the branch is listed, else the newest toolkit whose
        required driver is at most ``driver``.
        """
        key = "first_driver_windows" if windows else "first_driver_linux"
        best: Optional[Tuple[int, int]] = None
        if len(driver.key) == 1:
            # a branch named by its major alone ("580", as NVIDIA prints the CUDA 13 floor): that branch
            row = next((r for r in self.rows("cuda", "driver_branch") if r.get("branch") == str(driver.key[0])), None)
            if row is not None and cuda_tuple(row.get("highest_cuda")):
                return str(row["highest_cuda"]), "driver-branch table"
        for r in self.rows("cuda", "driver_branch"):
            hc = cuda_tuple(r.get("highest_cuda"))
            first = DriverVersion.parse(r.get(key))
            if hc is None or first is None:
                continue
            if first <= driver and (best is None or hc > best):
                best = hc
        if best is not None:
            return f"{best[0]}.{best[1]}", "driver-branch table"
        tk_key = "min_driver_windows" if windows else "min_driver_linux"
        for r in self.rows("cuda", "toolkit"):
            d = DriverVersion.parse(r.get(tk_key))
            t = cuda_tuple(r.get("version"))
            if d and t and d <= driver and (best is None or t > best):
                best = t
        if best is not None:
            return f"{best[0]}.{best[1]}", "toolkit driver table"
        return None, ""

    def newest_driver(self, windows: bool = False) -> Optional[DriverVersion]:
        """The first driver of the newest driver branch the table lists (``envcheck fix --check-pins``
        assumes it when no machine is given: "can these pins work on an up-to-date GPU machine")."""
        key = "first_driver_windows" if windows else "first_driver_linux"
        found = [d for d in (DriverVersion.parse(r.get(key)) for r in self.rows("cuda", "driver_branch")) if d]
        return max(found) if found else None

    def toolkit_targets(self, cuda: str) -> Optional[List[str]]:
        want = cuda_tuple(cuda)
        for r in self.rows("cuda", "targets"):
            if cuda_tuple(r.get("cuda")) == want:
                return list(r.get("compute_capabilities", []))
        return None

    def cuda_versions(self) -> List[str]:
        seen = []
        for r in self.rows("cuda", "toolkit"):
            t = cuda_tuple(r.get("version"))
            if t and f"{t[0]}.{t[1]}" not in seen:
                seen.append(f"{t[0]}.{t[1]}")
        return seen

    # -- GPUs -----------------------------------------------------------------------------------
    def gpu(self, name: Optional[str]) -> Optional[Dict[str, Any]]:
        """The GPU-table row for a printed GPU name (longest contiguous token match), or ``None``."""
        if not name:
            return None
        if self._gpu_index is None:
            idx = []
            for r in self.rows("gpus", "gpu"):
                for n in [r.get("name", "")] + list(r.get("aliases", []) or []):
                    toks = tokens(n) if isinstance(n, str) else ()
                    if toks:
                        idx.append((toks, r))
            self._gpu_index = idx
        best_row = self._gpu_best(name)
        named = {_ARCH_WORDS[t] for t in tokens(name) if t in _ARCH_WORDS}
        if best_row is not None and named and best_row.get("architecture") not in named:
            # the name says its architecture and the row found is another's ("NVIDIA RTX6000-Ada-48Q" holds the
            # Quadro RTX 6000's alias "RTX6000", a Turing): unknown, never the other GPU's compute capability
            return None
        if best_row is not None and name.rstrip().endswith(("...", "\u2026")):
            return best_row if self._gpu_cut_agrees(name, best_row) else None
        return best_row

    def _gpu_best(self, name: str) -> Optional[Dict[str, Any]]:
        assert self._gpu_index is not None
        hay = tokens(name.replace("...", " "))
        best: Optional[Tuple[int, Dict[str, Any]]] = None
        for toks, row in self._gpu_index:
            if _contains(hay, toks):
                score = sum(len(t) for t in toks) + 100 * len(toks)
                if best is None or score > best[0]:
                    best = (score, row)
        if best is None:
            # a name typed by a person ("RTX 4090", "V100"): the table name without its brand word
            for toks, row in self._gpu_index:
                if toks and toks[0] in _BRANDS and len(toks) >= 3 and _contains(hay, toks[1:]):
                    score = sum(len(t) for t in toks[1:]) + 100 * len(toks[1:])
                    if best is None or score > best[0]:
                        best = (score, row)
        return best[1] if best else None

    def _gpu_cut_agrees(self, name: str, row: Dict[str, Any]) -> bool:
        """A name nvidia-smi cut to fit its column ("NVIDIA RTX 6000 Ada Gene...", "NVIDIA A100 80G...") may be
        any GPU whose name begins with the part shown; the row found is kept only when every such GPU of the table
        has its compute capability (a token glued to the "..." is itself cut: "NVIDIA A10..." may be an A100, and
        "NVIDIA RTX 6000 ..." a Quadro RTX 6000 or an RTX 6000 Ada). Nothing is guessed."""
        assert self._gpu_index is not None
        cut = name.rstrip()
        cut = cut[:-3] if cut.endswith("...") else cut[:-1]
        shown = list(tokens(cut))
        part = shown.pop() if shown and cut and not cut[-1].isspace() else ""  # the word cut where "..." begins
        shown = _unbranded(shown)
        if not shown and not part:
            return False
        ccs = {str(r.get("compute_capability")) for toks, r in self._gpu_index
               if _begins(_unbranded(list(toks)), shown, part)}
        if not ccs and shown:  # no name of the table goes on with that word: every GPU the whole words allow
            ccs = {str(r.get("compute_capability")) for toks, r in self._gpu_index
                   if _begins(_unbranded(list(toks)), shown, "")}
        return ccs == {str(row.get("compute_capability"))}

    # -- frameworks -----------------------------------------------------------------------------
    def torch_release(self, version: str) -> Optional[Dict[str, Any]]:
        base = version.split("+", 1)[0]
        for r in self.rows("torch", "release"):
            if r.get("version") == base:
                return r
        return None

    def torch_variants(self, version: str) -> List[Dict[str, Any]]:
        base = version.split("+", 1)[0]
        return [r for r in self.rows("torch", "variant") if base in (r.get("releases") or [])]

    def torch_variant(self, version: str, variant: Optional[str]) -> Optional[Dict[str, Any]]:
        for r in self.torch_variants(version):
            if r.get("variant") == variant:
                return r
        return None

    def tf_release(self, version: str) -> Optional[Dict[str, Any]]:
        base = version.split("+", 1)[0]
        series = ".".join(base.split(".")[:2])
        fallback = None
        for r in self.rows("tensorflow", "release"):
            if base in (r.get("patches") or []):
                return r
            if r.get("version") == series:
                fallback = r
        return fallback

    def onnxruntime_releases(self, version: str) -> List[Dict[str, Any]]:
        """The onnxruntime.toml rows of one onnxruntime-gpu release, one per package feed: a row naming the release
        itself ("1.18.1") wins over its line's ("1.18"); [] when no row covers it (unknown, never a neighbour)."""
        base = version.split("+", 1)[0].strip()
        parts = base.split(".")
        if len(parts) < 2:
            return []
        line = ".".join(parts[:2])
        exact: Dict[str, Dict[str, Any]] = {}
        by_line: Dict[str, Dict[str, Any]] = {}
        for r in self.rows("onnxruntime", "release"):
            got = r.get("versions")
            vs: List[Any] = got if isinstance(got, list) else []
            feed = str(r.get("feed"))
            if base in vs and len(parts) >= 3:
                exact.setdefault(feed, r)
            elif line in vs:
                by_line.setdefault(feed, r)
        feeds = sorted(dict.fromkeys([*exact, *by_line]), key=lambda f: (f != "pypi", f))  # PyPI's build first
        return [exact.get(f) or by_line[f] for f in feeds]

    def cudnn_release(self, version: str) -> Optional[Dict[str, Any]]:
        parts = version.split(".")
        best = None
        for r in self.rows("cudnn", "release"):
            rv = str(r.get("version", ""))
            if rv == version or version in (r.get("patches") or []):
                return r
            rp = rv.split(".")
            if rp == parts[: len(rp)] and (best is None or len(rp) > len(str(best.get("version")).split("."))):
                best = r
        return best

    def known_bad(self) -> List[Dict[str, Any]]:
        return self.rows("cudnn", "known_bad")

    def gpu_generation(self, cc: Optional[str], name: Optional[str] = None) -> Optional[Dict[str, Any]]:
        """The ``[[generation]]`` row (architecture, first and last driver branch) whose inclusive
        [min_compute_capability, max_compute_capability] range holds ``cc``; ``None`` when none does."""
        t = cc_tuple(cc)
        if t is None:
            return None
        for r in self.rows("gpus", "generation"):
            lo, hi = cc_tuple(r.get("min_compute_capability")), cc_tuple(r.get("max_compute_capability"))
            if lo and hi and lo <= t <= hi:
                return r
        return None

    # -- AMD ROCm (rocm.toml) ------------------------------------------------------------------------
    def torch_rocm_variants(self, release: str) -> List[Dict[str, Any]]:
        """The ROCm builds PyTorch published for ``release`` ("2.4.1", "2.4.1+rocm6.1"), oldest ROCm first."""
        base = release.split("+", 1)[0]
        rows = [r for r in self.rows("rocm", "torch_variant") if r.get("release") == base]
        return sorted(rows, key=lambda r: version_tuple(str(r.get("rocm", ""))) or ())

    def torch_rocm_variant(self, release: str, variant: Optional[str]) -> Optional[Dict[str, Any]]:
        """The row of one build: ``variant`` "rocm6.1" (or the "+rocm6.1" local tag of ``release``)."""
        if variant is None and "+" in release:
            variant = release.split("+", 1)[1]
        for r in self.torch_rocm_variants(release):
            if r.get("variant") == variant:
                return r
        return None

    def rocm_gfx_targets(self, release: str, variant: Optional[str] = None) -> Optional[List[str]]:
        """The gfx targets a PyTorch ROCm wheel was compiled for; ``None`` when the tables do not know."""
        row = self.torch_rocm_variant(release, variant)
        gfx = row.get("gfx") if row else None
        return list(gfx) if isinstance(gfx, list) else None

    def rocm_rocblas_missing(self, release: str, variant: Optional[str] = None) -> List[str]:
        """The targets compiled into a PyTorch ROCm wheel whose kernels its bundled rocBLAS lacks (gfx900 / gfx906
        from ROCm 6.4 on): matrix products abort there although ``get_arch_list()`` names the target."""
        row = self.torch_rocm_variant(release, variant)
        miss = row.get("rocblas_missing") if row else None
        return list(miss) if isinstance(miss, list) else []

    def rocm_release(self, version: str) -> Optional[Dict[str, Any]]:
        """The ROCm compatibility-matrix column of ``version``: "6.2.4" exactly; "6.2" / "6.2.0-xyz" -> its
        x.y.z, else the newest patch of that x.y."""
        t = version_tuple(version.split("-", 1)[0].strip())
        if not t:
            return None
        rows = [(version_tuple(str(r.get("version"))) or (), r) for r in self.rows("rocm", "rocm_release")]
        want = t + (0,) * (3 - len(t)) if len(t) < 3 else t
        for rt, r in rows:
            if rt == want:
                return r
        same = [(rt, r) for rt, r in rows if rt[:2] == t[:2]]
        return max(same, key=lambda x: x[0])[1] if same else None

    def rocm_official_gfx(self, version: str) -> Optional[List[str]]:
        """The gfx targets ROCm ``version`` supports officially (its compatibility matrix), or ``None``."""
        row = self.rocm_release(version)
        gfx = row.get("gfx") if row else None
        return list(gfx) if isinstance(gfx, list) else None

    def rocm_kernel_window(self, rocm_version: str) -> Optional[List[str]]:
        """The ROCm user-space releases ("6.3", "6.2", ...) tested with the amdgpu kernel driver (KMD) of ROCm
        release ``rocm_version``; ``None`` when that release is not in the table."""
        row = self.rocm_release(rocm_version)
        us = row.get("kmd_user_space") if row else None
        return list(us) if isinstance(us, list) else None

    def amdgpu_driver_for_module(self, module: Optional[str]) -> Optional[Dict[str, Any]]:
        """The ``[[amdgpu_driver]]`` row (AMD GPU Driver 30.x, released apart from ROCm from 7.0) whose amdgpu
        module version is ``module`` ("6.14.14", as /sys/module/amdgpu/version or amd-smi print it; a DKMS
        build suffix "-2204008" is ignored); ``None`` when no row names it."""
        m = (module or "").strip().split("-", 1)[0]
        if not m:
            return None
        for r in self.rows("rocm", "amdgpu_driver"):
            if m in (r.get("modules") or []):
                return r
        return None

    def rocm_kmd_releases_for(self, user_space: str) -> List[str]:
        """The ROCm releases whose kernel driver was tested with user space ``user_space`` ("6.2" or "6.2.4").

        A table entry "6.2" (a series) holds every 6.2.z; an entry "5.6.1" (as the 5.x tables print them)
        holds 5.6.1, and holds a bare "5.6" too (that series has a tested patch)."""
        want = version_tuple(user_space.split("-", 1)[0].strip())
        if want is None:
            return []
        out = []
        for r in self.rows("rocm", "rocm_release"):
            for entry in r.get("kmd_user_space") or []:
                et = version_tuple(str(entry))
                if et is None:
                    continue
                n = min(len(et), len(want))
                if et[:n] == want[:n] and len(et) >= 2 and len(want) >= 2:
                    out.append(str(r.get("version")))
                    break
        return out

    def rocm_wheel_source(self, name_or_url: Optional[str]) -> Optional[Dict[str, Any]]:
        """The ``[[wheel_source]]`` row by name ("pytorch-index", "therock") or by an index URL it starts."""
        if not name_or_url:
            return None
        for r in self.rows("rocm", "wheel_source"):
            prefix = str(r.get("index_url_prefix") or "")
            if r.get("name") == name_or_url or (prefix and name_or_url.startswith(prefix)):
                return r
        return None

    def hsa_override(self, gfx: Optional[str]) -> List[Dict[str, Any]]:
        """The reported HSA_OVERRIDE_GFX_VERSION uses for a GPU of target ``gfx``: rows with ``works`` true (a
        labelled, unofficial workaround) and false (reported to crash)."""
        if not gfx:
            return []
        g = gfx.strip().lower()
        return [r for r in self.rows("rocm", "hsa_override") if g in (r.get("gfx") or [])]

    def amd_gfx_family(self, gfx: Optional[str]) -> Optional[str]:
        """The hardware generation AMD's GPU table gives a gfx target ("GFX11", "CDNA3"; ``[[gfx_family]]``), or None."""
        g = (gfx or "").strip().lower()
        return next((str(r["generation"]) for r in self.rows("rocm", "gfx_family") if r.get("gfx") == g), None)

    def amd_gfx_of_name(self, name: Optional[str]) -> Optional[str]:
        """amd35: the gfx target of an AMD GPU named by its model ("W7900 Dual Slot", "AMD Radeon RX 7900 XTX",
        "Instinct MI300X", amd42: "780M"): the ``[[gpu_arch_spec]]`` row (ROCm's GPU architecture specification table)
        or ``[[amd_model_gfx]]`` row (Ollama's GPU page, AMD's device table) whose model is
        the same once the maker's and family's words (AMD, Radeon, PRO, Instinct, RX, (TM), Graphics), a memory size in
        parentheses, blanks and case are set aside; None where no row is (no nearest model is guessed)."""
        key = _gpu_model_key(name or "")
        if not key:
            return None
        # amd42: and the models Ollama's GPU page and AMD's device table name (``[[amd_model_gfx]]``: "Radeon 780M")
        rows = self.rows("rocm", "gpu_arch_spec") + self.rows("rocm", "amd_model_gfx")
        got = {str(r["gfx"]) for r in rows if _gpu_model_key(str(r.get("name"))) == key}
        return got.pop() if len(got) == 1 else None

    def amd_device_gfx(self, device_id: Optional[str]) -> Optional[Dict[str, Any]]:
        """The ``[[device_gfx]]`` row of an AMD PCI device id ("0x73df", "73DF"): the gfx ROCm's thunk assigns it
        (gfx 10 and older), else the one AMD's GPU table (GPUOpen-Tools/device_info) names, or ``None``."""
        d = (device_id or "").strip().lower()
        if not d.startswith("0x"):
            d = "0x" + d
        if len(d) != 6:
            return None
        return next((r for r in self.rows("rocm", "device_gfx") if d in (r.get("device_ids") or [])), None)

    # -- Intel XPU (xpu.toml) ------------------------------------------------------------------------
    def torch_xpu(self, release: str) -> Optional[Dict[str, Any]]:
        """The XPU build of torch ``release`` ("2.7.1", "2.7.1+xpu"), or ``None`` (none published / unknown)."""
        base = release.split("+", 1)[0]
        for r in self.rows("xpu", "torch_xpu"):
            if r.get("release") == base:
                return r
        return None

    # -- Apple MPS (mps.toml) ------------------------------------------------------------------------
    def mps_row(self, release: str) -> Optional[Dict[str, Any]]:
        """The ``[[mps]]`` row in force for torch ``release``: the one with the highest ``since`` <= it."""
        t = cuda_tuple(release.split("+", 1)[0])
        if t is None:
            return None
        best: Optional[Tuple[Tuple[int, int], Dict[str, Any]]] = None
        for r in self.rows("mps", "mps"):
            since = cuda_tuple(str(r.get("since", "")))
            if since is not None and since <= t and (best is None or since > best[0]):
                best = (since, r)
        return best[1] if best else None

    def mps_min_macos(self, release: str) -> Optional[str]:
        """The lowest macOS ("13.0") on which torch ``release`` offers MPS; ``None`` before MPS or when unknown."""
        row = self.mps_row(release)
        v = row.get("min_macos") if row else None
        return str(v) if v else None

    def macos_wheel_rows(self, arch: str) -> List[Dict[str, Any]]:
        """The ``[[macos_wheels]]`` rows of a macOS architecture ("arm64" | "x86_64"): which torch releases have
        PyPI wheels for it (``since`` / ``until``, major.minor) and the lowest macOS their platform tag allows."""
        return [r for r in self.rows("mps", "macos_wheels") if r.get("arch") == arch]

    # -- NVIDIA Jetson (jetson.toml) -----------------------------------------------------------------
    def jetpack(self, l4t_or_jetpack: Optional[str]) -> Optional[Dict[str, Any]]:
        """The ``[[jetpack]]`` row of a JetPack version ("5.0.2") or of an L4T release ("35.1", "R35.1.0",
        "35.1.0"), trailing zero parts ignored; ``None`` when the table does not hold it."""
        if not l4t_or_jetpack:
            return None
        v = l4t_or_jetpack.strip().lstrip("Rr")
        t = version_tuple(v)
        if t is None:
            return None

        def norm(x: Tuple[int, ...]) -> Tuple[int, ...]:
            while len(x) > 1 and x[-1] == 0:
                x = x[:-1]
            return x
        want = norm(t)
        rows = self.rows("jetson", "jetpack")
        for key in ("l4t", "version") if t[0] >= 10 else ("version", "l4t"):
            for r in rows:
                values = [r.get(key, "")] + (list(r.get("l4t_patches") or []) if key == "l4t" else [])
                for value in values:
                    rt = version_tuple(str(value))
                    if rt is not None and norm(rt) == want:
                        return r
        return None

    def jetson_wheel_indexes(self) -> List[Dict[str, Any]]:
        return self.rows("jetson", "wheel_index")


def _cache_base() -> str:
    return os.environ.get("ENVCHECK_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "envcheck")


def _folder_tag(folder: str) -> str:
    """Eight hex digits naming a folder in a cache key (FNV-1a, 32 bits, of its bytes: written out, where
    ``zlib.crc32`` cost a status run the import of zlib, ~0.3 ms)."""
    h = 0x811C9DC5
    for b in os.fsencode(folder):
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return f"{h:08x}"


def _cache_path(path: str) -> Optional[str]:
    """The parsed copy of a table file: keyed by its name, mtime, size and folder (as Python keys a ``.pyc``
    by its source's mtime and size: hashing the content would read the file each run, which is what the copy
    saves); a bundle update writes new files, hence new keys."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = f"{os.path.basename(path)[:-5]}-{st.st_mtime_ns}-{st.st_size}-{_folder_tag(os.path.dirname(path))}"
    return os.path.join(_cache_base(), "parsed", key + ".json")


def load_cached(path: str) -> Dict[str, Any]:
    """Parse a TOML table file; keep a JSON copy in the user cache (TOML parsing costs ~10 ms a file,
    JSON ~0.2 ms) keyed by the file's mtime and size. Cache problems are ignored, and so is a cache
    folder that is not the user's own (another owner, writable by others, a link): no other user can
    plant a link that envcheck writes through, nor a parsed matrix it reads."""
    import json

    from envcheck.safe_io import private_dir, read_bytes, replace_file

    cache = _cache_path(path)
    parsed_dir = None
    if cache:
        try:
            private_dir(os.path.dirname(os.path.dirname(cache)))
            parsed_dir = private_dir(os.path.dirname(cache))
            data = json.loads(read_bytes(cache, 64 * 1024 * 1024, follow=False, strict=True).decode("utf-8"))
            if isinstance(data, dict):
                return data
        except (OSError, ValueError, RecursionError):
            pass
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise MatrixError(f"cannot load {path}: {exc}") from exc
    if cache:
        try:
            base = private_dir(os.path.dirname(os.path.dirname(cache)), create=True)
            parsed_dir = parsed_dir or private_dir(os.path.join(base, "parsed"), create=True)
            # 0600, not synced: a cache that is rebuilt when it is missing
            replace_file(os.path.join(parsed_dir, os.path.basename(cache)), json.dumps(data).encode("utf-8"),
                         sync=False)
        except (OSError, TypeError, ValueError):
            pass
    loaded: Dict[str, Any] = data
    return loaded


def load_matrix() -> Matrix:
    """The active matrix: a valid updated bundle in the user cache when newer, else the bundled one."""
    why = None
    try:
        from envcheck.matrix.bundle import active_state

        directory, origin, why = active_state()
    except ImportError:  # pragma: no cover
        directory, origin = bundled_dir(), "bundled"
    m = Matrix(directory, origin=origin)
    m.not_used = why
    return m


def _gpu_model_key(name: str) -> str:
    """An AMD GPU model's name without its maker's and family's words, a memory size in parentheses, marks and blanks
    (``amd_gfx_of_name``): "AMD Radeon(TM) PRO W7900 Dual Slot" and "W7900 Dual Slot" -> "w7900dualslot"."""
    n = _MODEL_MARKS.sub(" ", name)
    n = _MODEL_WORDS.sub(" ", n)
    return str(_NOT_ALNUM.sub("", n.lower()))


_MODEL_MARKS = lazyre.compile(r"(?i)\(\s{0,2}\d{1,3}\s{0,2}gb\s{0,2}\)|\((?:tm|r)\)|[™®]")
_MODEL_WORDS = lazyre.compile(r"(?i)(?<![a-z])(?:amd|radeon|pro|instinct|graphics|rx)(?![a-z])")
_NOT_ALNUM = lazyre.compile(r"[^a-z0-9]")
