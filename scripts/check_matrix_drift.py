"""The maintainers' monthly matrix update: find new releases on PyPI, write the rows that can be sourced, build the bundle.

What it reads (PyPI's JSON API, and each new release's wheel METADATA: the PEP 658 ``.metadata``
file where PyPI serves one, else the ``*.dist-info/METADATA`` member read out of the wheel with
HTTP range requests, so a 2 GB wheel costs a few hundred KB):

* torch          -> [[release]] version, date, python (classifiers), pypi_default_variant (from the CUDA pin
                    of the PyPI wheel: ``nvidia-cuda-runtime-cuXX``, ``nvidia-cuda-runtime`` or, from 2.15.0 on,
                    ``cuda-toolkit[...]==X.Y.Z``)
* tensorflow     -> [[release]] version (series), patches, date, python, package, and_cuda (the
                    ``and-cuda`` extra's pins), cuda and cudnn (from those pins)
* jax            -> [[release]] jax, jaxlib (its pin), cuda_plugins (the ``cudaNN`` extras), python, date
* nvidia-cudnn-cu12 / -cu13 -> cuDNN [[release]] version, patches, cuda majors; the version is read
                    from ``cudnn_version.h`` inside the wheel when it is there
* cupy-cuda11x / 12x / 13x -> cupy.toml [[package]] of the newest release of each distribution newer than its
                    rows: python (classifiers), platforms (wheel tags), the 'ctk' extra and its CUDA libraries
* torchvision, torchaudio, jaxlib, jax-cuda12/13-plugin, nvidia-cuda-runtime-cu12, nvidia-cuda-runtime (CUDA 13:
                    NVIDIA's unsuffixed name; nvidia-cuda-runtime-cu13 is a deprecated stub), cuda-toolkit: new releases
                    are listed (they have no row of their own, or their rows need facts PyPI lacks)

And one primary source outside PyPI: NVIDIA's driver redist index (developer.download.nvidia.com/compute/
nvidia-driver/redist/): a driver branch with no [[driver_branch]] row gets one, highest_cuda from the
cuda_compat package of its newest redistrib_<driver>.json. Where PyPI's JSON API is not served (a mirror),
the JSON simple API (PEP 691/700) is read instead. ``--pr-body FILE`` writes the report as the description
of the pull request the weekly job (.github/workflows/matrix-drift.yml) opens for a maintainer to review.

Every written row carries its ``source`` (the PyPI URL it came from) and ``derived`` (how).
What PyPI cannot tell (compute capabilities of a build, driver floors, CUDA variants on other
indexes) is listed under "cannot_source" for a maintainer to fill from the release notes.

    python scripts/check_matrix_drift.py                    # report only (JSON), exit 1 on drift
    python scripts/check_matrix_drift.py --apply            # also append the rows to compat_matrix/*.toml
    python scripts/check_matrix_drift.py --apply --key ~/.config/envcheck/matrix-signing.key --out dist/
                                                           # ... and build the signed bundle (the monthly run)

Needs the network; never run from pytest against PyPI (tests point ``--index`` at a local server).
Exit status: 0 no drift, 1 drift found (rows written with --apply), 2 a source could not be read or
a usage error.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
import zipfile
from typing import Any, Dict, List, Optional, Set, Tuple
from urllib.parse import urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from envcheck.matrix import Matrix, validate_tables  # noqa: E402

INDEX = "https://pypi.org"
TRACKED = ["torch", "tensorflow", "jax", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13"]
#: CuPy wheels: only a release newer than the newest row of that distribution is proposed (one row each)
CUPY = ["cupy-cuda11x", "cupy-cuda12x", "cupy-cuda13x"]
#: NVIDIA's driver redist index: one redistrib_<driver>.json per data-center driver release
NVIDIA_DRIVER_INDEX = "https://developer.download.nvidia.com/compute/nvidia-driver/redist/"
LISTED = ["torchvision", "torchaudio", "jaxlib", "jax-cuda12-plugin", "jax-cuda13-plugin",
          "nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime", "cuda-toolkit"]
FLOORS = {"torch": (1, 8), "tensorflow": (1, 13), "jax": (0, 4), "nvidia-cudnn-cu12": (8, 9),
          "nvidia-cudnn-cu13": (9, 0)}
MAX_JSON = 64 * 1024 * 1024
MAX_META = 4 * 1024 * 1024
_STABLE = re.compile(r"^\d+(\.\d+)*(\.post\d+)?$")


class SourceError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# HTTP (https only, http to loopback for tests)
# ---------------------------------------------------------------------------------------------
def _get(url: str, timeout: float, limit: int, headers: Optional[Dict[str, str]] = None) -> Tuple[int, bytes, Dict]:
    import urllib.error
    import urllib.request

    parts = urlsplit(url)
    if parts.scheme != "https" and not (parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost",
                                                                                      "::1")):
        raise SourceError(f"{url}: https only")
    req = urllib.request.Request(url, headers=dict(headers or {}, **{"User-Agent": "envcheck-matrix-drift"}))
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:  # noqa: S310 - scheme checked above
            data = r.read(limit + 1)
            if len(data) > limit:
                raise SourceError(f"{url}: more than {limit} bytes")
            return r.status, data, dict(r.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, b"", {}
    except (urllib.error.URLError, OSError) as exc:
        raise SourceError(f"{url}: {exc}") from exc


def project(index: str, name: str, timeout: float) -> Dict[str, Any]:
    """PyPI's JSON API (``/pypi/NAME/json``); where that is not served (mirrors, proxies), the JSON simple API
    (PEP 691 / 700, ``/simple/NAME/``) in the same shape."""
    status, data, _ = _get(f"{index}/pypi/{name}/json", timeout, MAX_JSON)
    if status == 200:
        return json.loads(data)
    url = f"{index}/simple/{name}/"
    s2, data2, _ = _get(url, timeout, MAX_JSON, {"Accept": "application/vnd.pypi.simple.v1+json"})
    if s2 != 200:
        raise SourceError(f"{index}/pypi/{name}/json: HTTP {status}; {url}: HTTP {s2}")
    return simple_to_project(name, json.loads(data2))


def _file_version(name: str, filename: str) -> Optional[str]:
    norm = re.sub(r"[-_.]+", "_", name).lower()
    if filename.endswith(".whl"):
        parts = filename.split("-")
        return parts[1] if len(parts) >= 5 and re.sub(r"[-_.]+", "_", parts[0]).lower() == norm else None
    m = re.match(r"^(.+?)-(\d[^-]*)\.(tar\.gz|zip)$", filename)
    return m.group(2) if m and re.sub(r"[-_.]+", "_", m.group(1)).lower() == norm else None


def simple_to_project(name: str, doc: Dict[str, Any]) -> Dict[str, Any]:
    """A PEP 691 JSON simple page as the JSON API's ``releases`` mapping."""
    releases: Dict[str, List[dict]] = {}
    for f in doc.get("files") or []:
        if not isinstance(f, dict) or not isinstance(f.get("filename"), str) or not isinstance(f.get("url"), str):
            continue
        v = _file_version(name, f["filename"])
        if v is None:
            continue
        releases.setdefault(v, []).append({
            "filename": f["filename"], "url": f["url"], "size": f.get("size"),
            "yanked": bool(f.get("yanked")), "upload_time_iso_8601": f.get("upload-time"),
            "core_metadata": f.get("core-metadata") or f.get("dist-info-metadata") or None,
            "has_metadata": bool(f.get("core-metadata") or f.get("dist-info-metadata"))})
    return {"info": {"name": doc.get("name", name)}, "releases": releases}


def stable_versions(doc: Dict[str, Any]) -> Dict[str, List[dict]]:
    out = {}
    for v, files in (doc.get("releases") or {}).items():
        files = [f for f in files or [] if not f.get("yanked")]
        if files and _STABLE.match(v):
            out[v] = files
    return out


def _vkey(v: str) -> Tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v))


class _RangeFile(io.RawIOBase):
    """A read-only file over HTTP range requests (for zipfile: the central directory and one member)."""

    def __init__(self, url: str, size: int, timeout: float):
        self.url, self.size, self.timeout, self.pos, self.fetched = url, size, timeout, 0, 0

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def seek(self, off: int, whence: int = 0) -> int:
        self.pos = off if whence == 0 else self.pos + off if whence == 1 else self.size + off
        return self.pos

    def tell(self) -> int:
        return self.pos

    def readinto(self, b) -> int:  # type: ignore[no-untyped-def]
        n = min(len(b), self.size - self.pos)
        if n <= 0:
            return 0
        self.fetched += n
        if self.fetched > MAX_META * 4:
            raise SourceError(f"{self.url}: reading the wheel's metadata took too many bytes")
        status, data, _ = _get(self.url, self.timeout, n, {"Range": f"bytes={self.pos}-{self.pos + n - 1}"})
        if status != 206 or len(data) != n:
            raise SourceError(f"{self.url}: the server does not serve byte ranges (HTTP {status})")
        b[:n] = data
        self.pos += n
        return n


def wheel_files(files: List[dict]) -> List[dict]:
    """The release's wheels, Linux x86_64 first (the PyPI default build)."""
    wheels = [f for f in files if f.get("filename", "").endswith(".whl")]
    return sorted(wheels, key=lambda f: ("x86_64" not in f["filename"] or "linux" not in f["filename"],
                                         "py3-none-any" not in f["filename"]))


def read_metadata(wheel: dict, timeout: float, members: Tuple[str, ...] = ()) -> Tuple[str, Dict[str, bytes], str]:
    """(METADATA text, {wanted member suffix: bytes}, how it was read) of one wheel."""
    url = wheel["url"]
    extra: Dict[str, bytes] = {}
    text = None
    how = ""
    if not members and (wheel.get("core_metadata") or wheel.get("data-dist-info-metadata")
                        or wheel.get("has_metadata") is not False):
        status, data, _ = _get(url + ".metadata", timeout, MAX_META)
        if status == 200:
            text, how = data.decode("utf-8", "replace"), "PEP 658 .metadata"
    if text is None or members:
        zf = zipfile.ZipFile(io.BufferedReader(_RangeFile(url, int(wheel["size"]), timeout), 65536))
        for info in zf.infolist():
            if info.filename.endswith(".dist-info/METADATA") and info.filename.count("/") == 1 and text is None:
                text, how = zf.read(info).decode("utf-8", "replace"), "METADATA read from the wheel (HTTP ranges)"
            for m in members:
                if info.filename.endswith(m) and info.file_size <= MAX_META:
                    extra[m] = zf.read(info)
    if text is None:
        raise SourceError(f"{url}: no METADATA")
    return text, extra, how


def parse_metadata(text: str) -> Dict[str, Any]:
    from email.parser import Parser

    msg = Parser().parsestr(text, headersonly=True)
    reqs = msg.get_all("Requires-Dist") or []
    pythons = sorted({m.group(1) for c in (msg.get_all("Classifier") or [])
                      for m in [re.match(r"^Programming Language :: Python :: (3\.\d+)$", c)] if m}, key=_vkey)
    return {"name": msg.get("Name"), "version": msg.get("Version"), "requires_python": msg.get("Requires-Python"),
            "python": pythons, "requires": reqs}


def _pins(reqs: List[str], extra: Optional[str]) -> Dict[str, str]:
    """name -> specifier of the requirements (of one extra, or the unconditional ones)."""
    out = {}
    for r in reqs:
        req, _, marker = r.partition(";")
        in_extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        if (extra is None and in_extra) or (extra is not None and (not in_extra or in_extra.group(1) != extra)):
            continue
        m = re.match(r"^\s*([A-Za-z0-9._-]+)(?:\[[^\]]*\])?\s*\(?\s*([^)]*?)\s*\)?\s*$", req)
        if m:
            out[m.group(1).lower().replace("_", "-")] = m.group(2).replace(" ", "")
    return out


def _cuda_of(spec: Optional[str]) -> Optional[str]:
    m = re.search(r"(\d+)\.(\d+)", spec or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def _cuda_pin(pins: Dict[str, str]) -> Optional[Tuple[str, str]]:
    """(name, specifier) of the pin that fixes a wheel's CUDA X.Y: ``nvidia-cuda-runtime-cuNN`` (CUDA 11/12
    wheels), ``nvidia-cuda-runtime`` (NVIDIA's CUDA 13 name; ``-cu13`` is a deprecated stub) or the
    ``cuda-toolkit`` metapackage, whose version is the toolkit's (torch 2.15.0's Linux wheels pin
    ``cuda-toolkit[cublas,cudart,...]==13.2.2`` and no runtime wheel). A pin without a minor ("==13.*") fixes
    no X.Y and is skipped."""
    for wanted in (lambda k: k.startswith("nvidia-cuda-runtime-cu"), lambda k: k == "nvidia-cuda-runtime",
                   lambda k: k == "cuda-toolkit"):
        for k, v in pins.items():
            if wanted(k) and _cuda_of(v):
                return k, v
    return None


def _date(files: List[dict]) -> Optional[str]:
    t = min((f.get("upload_time_iso_8601") or f.get("upload_time") or "" for f in files), default="")
    return t[:10] if re.match(r"^\d{4}-\d{2}-\d{2}", t) else None


# ---------------------------------------------------------------------------------------------
# rows
# ---------------------------------------------------------------------------------------------
def known_versions(m: Matrix) -> Dict[str, Set[str]]:
    cudnn = {p for r in m.rows("cudnn", "release") for p in [str(r.get("version"))] + list(r.get("patches") or [])}
    return {
        "torch": {str(r.get("version")) for r in m.rows("torch", "release")},
        "tensorflow": {p for r in m.rows("tensorflow", "release") for p in (r.get("patches") or [])},
        "jax": {str(r.get("jax")) for r in m.rows("jax", "release")},
        "nvidia-cudnn-cu12": cudnn, "nvidia-cudnn-cu13": cudnn,
        **{d: {str(r.get("version")) for r in m.rows("cupy", "package") if r.get("distribution") == d} for d in CUPY},
    }


def toolkit_drift(m: Matrix, releases: Dict[str, List[dict]], index: str, report: Dict[str, Any]) -> None:
    """CUDA toolkit releases newer than every [[toolkit]] row, as NVIDIA's ``cuda-toolkit`` metapackage on PyPI
    names them (13.4.1, 13.4.2 and 13.5.0 came out while the tables did not move: issue 23). Reported, not
    written: a toolkit row's facts (its Toolkit Driver Version) are in the release notes, and a metapackage
    version is not always a toolkit release (cuda-toolkit 13.4.3 pins the cudart of 13.4.2, 13.4.92)."""
    rows = [_vkey(str(r.get("version")))[:3] for r in m.rows("cuda", "toolkit") if r.get("version")]
    newest = max(rows) if rows else ()
    newer = sorted((v for v in releases if _vkey(v)[:3] > newest), key=_vkey)
    if not newer:
        return
    report["new"]["cuda-toolkit"] = newer
    for v in newer:
        tk = ".".join(str(x) for x in _vkey(v)[:3])  # PyPI spells some "13.4.1.0": NVIDIA's release is 13.4.1
        report["cannot_source"].append(
            f"CUDA toolkit {tk}: NVIDIA's cuda-toolkit metapackage {v} is on PyPI ({index}/project/cuda-toolkit/{v}/) "
            "and cuda.toml has no [[toolkit]] row that recent: add it from its release notes "
            f"(docs.nvidia.com/cuda/archive/{tk}/cuda-toolkit-release-notes/), with the Toolkit Driver Version where "
            "they print one; a metapackage revision of a release the table has needs no row")


def _cudnn_known(v: str, have: Set[str]) -> bool:
    return any(v == h or v.startswith(h + ".") or h.startswith(v) for h in have)


def row_for(name: str, version: str, files: List[dict], index: str, timeout: float,
            cannot: List[str]) -> Optional[Tuple[str, str, Dict[str, Any]]]:
    """(table file, row table, row) for a new release, or None (then ``cannot`` says why)."""
    wheels = wheel_files(files)
    if not wheels:
        cannot.append(f"{name} {version}: no wheel on PyPI")
        return None
    source = f"{index}/project/{name}/{version}/"
    members = ("/cudnn_version.h",) if name.startswith("nvidia-cudnn") else ()
    text, extra, how = read_metadata(wheels[0], timeout, members)
    meta = parse_metadata(text)
    date = _date(files)
    derived = f"{how} of {wheels[0]['filename']}"
    if name == "torch":
        pins = _pins(meta["requires"], None)
        pin = _cuda_pin(pins)
        row: Dict[str, Any] = {"version": version}
        if date:
            row["date"] = date
        if meta["python"]:
            row["python"] = meta["python"]
        cuda = _cuda_of(pin[1]) if pin else None
        row["pypi_default_variant"] = f"cu{cuda.replace('.', '')}" if cuda else "cpu"
        row.update(source=source, derived=derived + (f"; pypi_default_variant from its pin {pin[0]}{pin[1]}"
                                                     if pin else "; no CUDA pin: CPU"))
        cannot.append(f"torch {version}: the [[variant]] rows (the CUDA and cpu variants on download.pytorch.org, "
                      "compute capabilities, cuDNN per variant) come from RELEASE.md and the pytorch.github.io install "
                      "commands, not PyPI")
        return "torch", "release", row
    if name == "tensorflow":
        and_cuda = _pins(meta["requires"], "and-cuda")
        series = ".".join(version.split(".")[:2])
        row = {"version": series, "patches": [version], "package": "tensorflow"}
        if meta["python"]:
            row["python"] = meta["python"]
        tf_pin = _cuda_pin(and_cuda)
        cuda = _cuda_of(tf_pin[1]) if tf_pin else None
        cudnn = _cuda_of(next((v for k, v in and_cuda.items() if k.startswith("nvidia-cudnn-cu")), None))
        if cuda:
            row["cuda"] = cuda
        if cudnn:
            row["cudnn"] = cudnn
        if and_cuda:
            row["and_cuda"] = and_cuda
        if date:
            row["date"] = date
        row.update(source=source, derived=derived + "; cuda/cudnn from the and-cuda extra's lower bounds")
        cannot.append(f"tensorflow {version}: compute capabilities and the tested CUDA/cuDNN (tensorflow.org "
                      "'Tested build configurations')")
        return "tensorflow", "release", row
    if name == "jax":
        pins = _pins(meta["requires"], None)
        row = {"jax": version}
        jl = pins.get("jaxlib", "")
        m = re.search(r"==\s*([\d.]+)", jl) or re.search(r">=\s*([\d.]+)", jl)
        if m:
            row["jaxlib"] = m.group(1)
        plugins = sorted({p for r in meta["requires"] for p in re.findall(r"jax-cuda\d+-plugin", r.replace("_", "-"))})
        if plugins:
            row["cuda_plugins"] = plugins
        if meta["python"]:
            row["python"] = meta["python"]
        if date:
            row["date"] = date
        row.update(source=source, derived=derived + "; jaxlib and plugins from Requires-Dist")
        cannot.append(f"jax {version}: cuda_min / cudnn_min / min_driver_linux (JAX installation docs), and the "
                      "architecture lists compute_capabilities_cudaNN / ptx_cudaNN (jax-ml/jax .bazelrc at the release "
                      "tag, checked on the plugin wheels with scripts/wheel_cuda_arch.py)")
        return "jax", "release", row
    if name.startswith("nvidia-cudnn-cu"):
        major = int(name.rsplit("cu", 1)[1])
        hv = extra.get("/cudnn_version.h")
        full = version
        if hv:
            nums = {k: v for k, v in re.findall(rb"#define CUDNN_(MAJOR|MINOR|PATCHLEVEL)\s+(\d+)", hv)}
            if len(nums) == 3:
                full = ".".join(nums[k].decode() for k in (b"MAJOR", b"MINOR", b"PATCHLEVEL"))
                derived += f"; version {full} from nvidia/cudnn/include/cudnn_version.h in the wheel"
        row = {"version": ".".join(full.split(".")[:3]), "patches": [version], "cuda": [{"major": major}],
               "source": source, "derived": derived}
        cannot.append(f"{name} {version}: CUDA minor range, driver floor and compute capabilities (cuDNN support "
                      "matrix)")
        return "cudnn", "release", row
    if name in CUPY:
        major = int(re.search(r"cuda(\d+)x", name).group(1))  # type: ignore[union-attr]
        ctk = [r for r in meta["requires"] if re.search(r"extra\s*==\s*['\"]ctk['\"]", r)]
        row = {"distribution": name, "version": version}
        if date:
            row["date"] = date
        row["cuda_major"] = major
        if meta["python"]:
            row["python"] = meta["python"]
        plats = sorted({p for f in wheels for p in [_platform_of(f["filename"])] if p})
        if plats:
            row["platforms"] = plats
        if ctk:
            spec = ctk[0].split(";", 1)[0].strip()
            row["ctk_extra"] = spec
            m = re.search(r"\[([a-z0-9_,-]+)\]", spec)
            if m:
                row["cuda_libraries"] = m.group(1).split(",")
        row.update(source=source, derived=derived + "; python from the classifiers, platforms from the wheel tags "
                   "of the release, ctk_extra / cuda_libraries from its 'ctk' extra")
        cannot.append(f"{name} {version}: cuda_min (the lowest CUDA minor CuPy's installation guide lists)")
        return "cupy", "package", row
    return None


def _platform_of(filename: str) -> Optional[str]:
    for tag, plat in (("manylinux", None), ("win_amd64", "windows-x86_64"), ("win_arm64", "windows-aarch64"),
                      ("macosx", None)):
        if tag in filename and plat:
            return plat
    if "linux" in filename and "x86_64" in filename:
        return "linux-x86_64"
    if "linux" in filename and "aarch64" in filename:
        return "linux-aarch64"
    return None


# ---------------------------------------------------------------------------------------------
# NVIDIA's driver redist index (a primary source the job can read)
# ---------------------------------------------------------------------------------------------
def nvidia_driver_rows(index_url: str, have: Set[str], timeout: float,
                       cannot: List[str], incomplete: Set[str] = frozenset()) -> List[Tuple[str, str, Dict[str, Any]]]:
    """A [[driver_branch]] row for each driver branch in NVIDIA's redist index that cuda.toml lacks: highest_cuda
    from the cuda_compat package of the newest manifest of that branch (the CUDA that driver provides).
    A branch whose row has no highest_cuda (``incomplete``: its manifests carried no cuda_compat when the row was
    written) is read again, and a manifest that now names one is reported for a maintainer to fill in."""
    status, data, _ = _get(index_url, timeout, MAX_JSON)
    if status != 200:
        raise SourceError(f"{index_url}: HTTP {status}")
    names = sorted(set(re.findall(r"redistrib_(\d{3})\.(\d{1,4})\.(\d{1,4})\.json", data.decode("utf-8", "replace"))),
                   key=lambda t: tuple(int(x) for x in t))
    newest: Dict[str, Tuple[str, str, str]] = {}
    for t in names:
        newest[t[0]] = t  # sorted: the last one of a branch is its newest
    rows = []
    for branch, t in sorted(newest.items()):
        if (branch in have and branch not in incomplete) or int(branch) < 580:
            continue
        label = ".".join(t)
        url = index_url.rstrip("/") + f"/redistrib_{label}.json"
        s2, body, _ = _get(url, timeout, MAX_META)
        if s2 != 200:
            raise SourceError(f"{url}: HTTP {s2}")
        doc = json.loads(body)
        variants = ((doc.get("cuda_compat") or {}).get("cuda_variant") or []) if isinstance(doc, dict) else []
        cudas = sorted((v for v in variants if isinstance(v, str) and re.match(r"^\d+\.\d+$", v)), key=_vkey)
        if not cudas:
            cannot.append(f"driver branch {branch}: {url} names no cuda_compat variant")
            continue
        if branch in have:  # its row exists without highest_cuda: say what the manifest now gives
            cannot.append(f"driver branch {branch}: its row has no highest_cuda, and {url} ships cuda_compat for "
                          f"{cudas}: fill highest_cuda = \"{cudas[-1]}\" in cuda.toml after review")
            continue
        rows.append(("cuda", "driver_branch", {
            "branch": branch, "highest_cuda": cudas[-1], "source": url,
            "derived": (f"NVIDIA's driver redist manifest for {label} (release_date {doc.get('release_date')}) ships its "
                        f"CUDA forward-compatibility package for cuda_variant {cudas}; first_driver_linux left out "
                        "(whether this is the branch's first driver is not in the index)")}))
        cannot.append(f"driver branch {branch}: first_driver_linux and the toolkit rows (the CUDA release notes' "
                      "'CUDA Driver' table)")
    return rows


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def toml_row(table: str, row: Dict[str, Any]) -> str:
    return f"\n[[{table}]]\n" + "".join(f"{k} = {_toml_value(v)}\n" for k, v in row.items())


def append_rows(tables_dir: str, rows: List[Tuple[str, str, Dict[str, Any]]]) -> List[str]:
    """Append the rows to the table files (validated first, written atomically); the problems, if any."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    by_file: Dict[str, str] = {}
    for f, table, row in rows:
        by_file[f] = by_file.get(f, "") + toml_row(table, row)
    problems = []
    new_text = {}
    for f, add in by_file.items():
        path = os.path.join(tables_dir, f + ".toml")
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        text = text.rstrip("\n") + "\n" + add
        problems += validate_tables(f, tomllib.loads(text))
        new_text[path] = text
    if problems:
        return problems
    for path, text in new_text.items():
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    return []


def _md(text: Any) -> str:
    """One line of untrusted text for Markdown: no control characters, no HTML, bounded."""
    t = re.sub(r"[\x00-\x1f\x7f]", " ", str(text))
    return t.replace("<", "&lt;").replace(">", "&gt;")[:600]


def pr_body(report: Dict[str, Any]) -> str:
    """The pull request's description: every new row with its source and what was read, what could not be
    sourced (for the reviewer to fill from the release notes), and any source that failed."""
    out = ["Automated matrix drift check (`scripts/check_matrix_drift.py`). Review each row against its source "
           "before merging; nothing here is signed or published until a maintainer merges it.", ""]
    if report.get("rows"):
        out.append("## New rows")
        for r in report["rows"]:
            row = r["row"]
            key = row.get("version") or row.get("branch") or row.get("jax") or "?"
            what = row.get("distribution") or r["file"]
            out.append(f"- `{_md(r['file'])}.toml` [[{_md(r['table'])}]] **{_md(what)} {_md(key)}** - source: "
                       f"{_md(row.get('source'))}")
            if row.get("derived"):
                out.append(f"  - read: {_md(row['derived'])}")
        out.append("")
    if report.get("cannot_source"):
        out.append("## Not sourced (fill from the primary source, or leave empty)")
        out += [f"- {_md(c)}" for c in report["cannot_source"]]
        out.append("")
    if report.get("latest"):
        out.append("## Newest releases of companion packages (no row of their own)")
        out += [f"- {_md(k)}: {_md(', '.join(v))}" for k, v in report["latest"].items()]
        out.append("")
    if report.get("errors"):
        out.append("## Sources that could not be read")
        out += [f"- {_md(k)}: {_md(v)}" for k, v in report["errors"].items()]
        out.append("")
    if not report.get("rows") and not report.get("new"):
        out.append("No drift: the matrix knows every release the sources list.")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--index", default=INDEX, help="PyPI (its /pypi/NAME/json API); tests use a local server")
    ap.add_argument("--tables", default=os.path.join(ROOT, "compat_matrix"))
    ap.add_argument("--apply", action="store_true", help="append the rows that could be sourced to the tables")
    ap.add_argument("--key", help="with --apply: build the signed bundle with this private key")
    ap.add_argument("--out", default="dist", help="where the bundle goes (default dist/)")
    ap.add_argument("--version", help="the bundle's version (default: today, UTC)")
    ap.add_argument("--projects", help="comma-separated PyPI projects to check (default: all tracked and listed)")
    ap.add_argument("--nvidia-driver-index", default=NVIDIA_DRIVER_INDEX,
                    help="NVIDIA's driver redist index (new driver branches); 'none' skips it")
    ap.add_argument("--pr-body", metavar="FILE", help="also write the report as a pull-request description (Markdown)")
    args = ap.parse_args(argv)
    index = args.index.rstrip("/")
    m = Matrix(os.path.abspath(args.tables))
    have = known_versions(m)
    report: Dict[str, Any] = {"new": {}, "rows": [], "cannot_source": [], "latest": {}, "errors": {}}
    rows: List[Tuple[str, str, Dict[str, Any]]] = []
    names = TRACKED + CUPY + LISTED
    if args.projects:
        wanted = [n.strip() for n in args.projects.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in names]
        if unknown:
            print(f"--projects: not tracked: {', '.join(unknown)}", file=sys.stderr)
            return 2
        names = [n for n in names if n in wanted]
    for name in names:
        try:
            releases = stable_versions(project(index, name, args.timeout))
        except (SourceError, ValueError) as exc:
            report["errors"][name] = str(exc)
            continue
        floor = FLOORS.get(name)
        if name in CUPY:
            known = have.get(name, set())
            top = max(releases, key=_vkey) if releases else None
            new = [top] if top and top not in known and (not known or _vkey(top) > max(_vkey(k) for k in known)) \
                else []
        elif name in have:
            known = have[name]
            new = [v for v in releases if (floor is None or _vkey(v)[:2] >= floor)
                   and not (_cudnn_known(v, known) if name.startswith("nvidia-cudnn") else v in known)]
        else:  # listed only: the newest few, for the maintainer to look at
            report["latest"][name] = sorted(releases, key=_vkey)[-3:]
            if name == "cuda-toolkit":
                toolkit_drift(m, releases, index, report)
            continue
        new = sorted(new, key=_vkey)
        if not new:
            continue
        report["new"][name] = new
        for v in new:
            try:
                got = row_for(name, v, releases[v], index, args.timeout, report["cannot_source"])
            except (SourceError, zipfile.BadZipFile, ValueError, KeyError) as exc:
                report["errors"][f"{name} {v}"] = str(exc)
                continue
            if got:
                rows.append(got)
                report["rows"].append({"file": got[0], "table": got[1], "row": got[2]})
    if args.nvidia_driver_index and args.nvidia_driver_index != "none":
        branches = {str(r.get("branch")) for r in m.rows("cuda", "driver_branch")}
        no_cuda = {str(r.get("branch")) for r in m.rows("cuda", "driver_branch") if not r.get("highest_cuda")}
        try:
            got_rows = nvidia_driver_rows(args.nvidia_driver_index, branches, args.timeout, report["cannot_source"],
                                          no_cuda)
        except (SourceError, ValueError) as exc:
            report["errors"]["nvidia-driver-index"] = str(exc)
            got_rows = []
        for got in got_rows:
            rows.append(got)
            report["rows"].append({"file": got[0], "table": got[1], "row": got[2]})
            report["new"].setdefault("nvidia-driver-branch", []).append(got[2]["branch"])
    if args.apply and rows:
        problems = append_rows(args.tables, rows)
        if problems:
            report["errors"]["apply"] = "; ".join(problems[:10])
        else:
            report["applied"] = len(rows)
    if args.apply and args.key and not report["errors"]:
        import datetime

        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from matrix_bundle import build

        version = args.version or datetime.datetime.now(datetime.timezone.utc).strftime("%Y.%m.%d")
        if build(args.tables, args.key, args.out, version, 180) != 0:
            report["errors"]["bundle"] = "the bundle did not pass the checks (see above)"
        else:
            report["bundle"] = os.path.join(args.out, f"envcheck-matrix-{version}.tar.gz")
    if args.pr_body:
        text = pr_body(report)
        tmp = args.pr_body + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, args.pr_body)
    print(json.dumps(report, indent=2))
    if report["errors"]:
        return 2
    return 1 if rows or report["new"] else 0


if __name__ == "__main__":
    sys.exit(main())
