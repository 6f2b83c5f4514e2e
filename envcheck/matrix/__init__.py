"""The compatibility matrix: load ``compat_matrix/*.toml``, validate the schema, answer questions.

Files load lazily (``status`` on a CPU box reads only ``cuda.toml``). The active bundle is the
newest valid one of: the bundled tables, and a bundle installed by ``envcheck matrix update``
into the user cache folder.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, Dict, List, Optional, Tuple

from envcheck.errors import MatrixError
from envcheck.matrix.schema import FILES, validate_tables
from envcheck.versions import DriverVersion, cc_tuple, cuda_tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10
    import tomli as tomllib

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


def tokens(name: str) -> Tuple[str, ...]:
    """"NVIDIA GeForce RTX 3090 Ti" -> ("geforce", "rtx", "3090", "ti"); "nvidia" dropped."""
    toks = re.findall(r"[a-z0-9]+", name.lower())
    return tuple(t for t in toks if t != "nvidia")


def _contains(hay: Tuple[str, ...], needle: Tuple[str, ...]) -> bool:
    n = len(needle)
    return n > 0 and any(hay[i:i + n] == needle for i in range(len(hay) - n + 1))


class Matrix:
    """Typed questions over the tables. ``tables`` maps file name (without .toml) -> parsed TOML."""

    def __init__(self, directory: Optional[str] = None, tables: Optional[Dict[str, Any]] = None,
                 origin: str = "bundled"):
        self.directory = directory
        self.origin = origin
        self._tables: Dict[str, Any] = dict(tables or {})
        self._gpu_index: Optional[List[Tuple[Tuple[str, ...], Dict[str, Any]]]] = None

    # -- loading -----------------------------------------------------------------------------
    def table(self, name: str) -> Dict[str, Any]:
        if name not in self._tables:
            data: Dict[str, Any] = {}
            if self.directory:
                path = os.path.join(self.directory, name + ".toml")
                if os.path.exists(path):
                    data = _load_cached(path)
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
                    if isinstance(n, str) and tokens(n):
                        idx.append((tokens(n), r))
            self._gpu_index = idx
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


def _cache_base() -> str:
    return os.environ.get("ENVCHECK_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "envcheck")


def _cache_path(path: str) -> Optional[str]:
    import zlib

    try:
        st = os.stat(path)
    except OSError:
        return None
    key = f"{os.path.basename(path)[:-5]}-{st.st_mtime_ns}-{st.st_size}-{zlib.crc32(os.path.dirname(path).encode()):08x}"
    return os.path.join(_cache_base(), "parsed", key + ".json")


def _load_cached(path: str) -> Dict[str, Any]:
    """Parse a TOML table file; keep a JSON copy in the user cache (TOML parsing costs ~10 ms a file,
    JSON ~0.2 ms) keyed by the file's mtime and size. Cache problems are ignored, and so is a cache
    folder that is not the user's own (another owner, writable by others, a link): no other user can
    plant a link that envcheck writes through, nor a parsed matrix it reads."""
    import json

    from envcheck.safe_io import private_dir, read_bytes

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
            _write_private(os.path.join(parsed_dir, os.path.basename(cache)), json.dumps(data).encode("utf-8"))
        except (OSError, TypeError, ValueError):
            pass
    loaded: Dict[str, Any] = data
    return loaded


def _write_private(path: str, data: bytes) -> None:
    """Create a new file next to ``path`` (never through a link: O_EXCL|O_NOFOLLOW) and rename it there."""
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def load_matrix() -> Matrix:
    """The active matrix: a valid updated bundle in the user cache when newer, else the bundled one."""
    try:
        from envcheck.matrix.bundle import active_directory

        directory, origin = active_directory()
    except ImportError:  # pragma: no cover
        directory, origin = bundled_dir(), "bundled"
    return Matrix(directory, origin=origin)

