"""Copies of the CUDA / cuDNN libraries: ldconfig cache, ``libraries.txt``, the cuDNN header."""

from __future__ import annotations

import functools
import posixpath
import re
from typing import Dict, List, Optional, Set, Tuple

from envcheck.environment._common import short3
from envcheck.model import LibCopy
from envcheck.parse.cudnn_header import parse_cudnn_header
from envcheck.parse.ldconfig import LdEntry
from envcheck.parse.libraries import LibFile, parse_library_path

__all__ = ["build_libraries", "PIP_STEM"]

#: pip distribution stem that ships each library family
PIP_STEM = {
    "cudnn": "nvidia-cudnn", "cudart": "nvidia-cuda-runtime", "cublas": "nvidia-cublas",
    "nvrtc": "nvidia-cuda-nvrtc", "cufft": "nvidia-cufft", "curand": "nvidia-curand",
    "cusparse": "nvidia-cusparse", "cusolver": "nvidia-cusolver", "nccl": "nvidia-nccl",
    "nvjitlink": "nvidia-nvjitlink", "cupti": "nvidia-cuda-cupti",
}
_MAIN_NAME = {"cudnn": "libcudnn.so", "cudart": "libcudart.so", "cublas": "libcublas.so", "cuda": "libcuda.so",
              "nvidia-ml": "libnvidia-ml.so"}


def _location(directory: str, ld_dirs: Set[str], ld_path: List[str], conda: Optional[str]) -> str:
    d = directory.rstrip("/")
    if "-packages/" in d:  # what each of the three patterns needs (no compile for a system folder: issue 24)
        if re.search(r"/(site|dist)-packages/nvidia/[^/]+/lib$", d):
            return "pip"
        if re.search(r"/(site|dist)-packages/torch/lib$", d):
            return "torch"
        if re.search(r"/(site|dist)-packages/", d):
            return "pip"
    if conda and (d == conda.rstrip("/") + "/lib" or d.startswith(conda.rstrip("/") + "/")):
        return "conda"
    if d.endswith("/compat") or "/compat/" in d:
        return "compat"
    if d in ld_dirs:
        return "ldconfig"
    if d in ld_path:
        return "LD_LIBRARY_PATH"
    if d.startswith("/usr/lib/wsl"):
        return "wsl"
    if re.match(r"^/usr/local/cuda[^/]*/", d + "/") or "/targets/" in d:
        return "toolkit"
    return "other"


@functools.lru_cache(maxsize=None)
def _cu_suffix(stem: str) -> "re.Pattern[str]":
    """``STEM-cuNN`` (a pip distribution of one CUDA major: nvidia-cudnn-cu12), compiled once per stem."""
    return re.compile(re.escape(stem) + r"-cu\d+$")


def _owner(family: str, major: Optional[int], loc: str, packages: Dict[str, str],
           directory: str) -> Tuple[Optional[str], Optional[str]]:
    """(distribution, its version) that owns a pip-installed library copy."""
    if loc == "torch":
        return "torch", packages.get("torch")
    if loc != "pip":
        return None, None
    stem = PIP_STEM.get(family)
    if not stem:
        return None, None
    # (the names beginning with the stem first: one string test per installed distribution, where a pattern call per
    # distribution and copy cost a machine with 200 distributions ~2,000 calls)
    cands = [(n, v) for n, v in packages.items()
             if n.startswith(stem) and (n == stem or _cu_suffix(stem).match(n) is not None)]
    if family == "cudnn" and major is not None:
        cands = [(n, v) for n, v in cands if v.split(".")[0] == str(major)] or cands
    elif major is not None:
        exact = [(n, v) for n, v in cands if n.endswith(f"-cu{major}") or (n == stem and v.split(".")[0] == str(major))]
        cands = exact or cands
    if "/nvidia/cu13/" in directory + "/":
        cands = [(n, v) for n, v in cands if not re.search(r"-cu1[0-2]$", n)] or cands
    return cands[0] if cands else (None, None)


def _merged_usr_aliases(ld_dirs: Set[str], scan_dirs: Set[str]) -> Dict[str, str]:
    """``/lib/x86_64-linux-gnu`` -> ``/usr/lib/x86_64-linux-gnu`` where the two name one folder: on a merged-/usr
    system (Debian 12, Ubuntu 20.04 and later, Fedora) ``/lib`` is a link to ``usr/lib``, ldconfig's cache names
    the first and the file scan the second. Only where each side was seen by one reader alone: two real folders
    would both be in ldconfig's cache (both are in ld.so.conf), and are then kept apart."""
    aliases = {}
    for d in ld_dirs:
        usr = "/usr" + d
        if d.startswith(("/lib/", "/lib64/", "/lib32/")) and usr in scan_dirs and usr not in ld_dirs \
                and d not in scan_dirs:
            aliases[d] = usr
    return aliases


def build_libraries(ld_entries: List[LdEntry], lib_paths: List[str], env: Dict[str, str], packages: Dict[str, str],
                    header: Optional[str], header_origin: str, header_is_real_path: bool) -> List[LibCopy]:
    ld_dirs = {posixpath.dirname(e.path) for e in ld_entries}
    aliases = _merged_usr_aliases(ld_dirs, {posixpath.dirname(p) for p in lib_paths})
    if aliases:
        ld_entries = [LdEntry(e.soname, e.flags, posixpath.join(aliases[posixpath.dirname(e.path)],
                                                                   posixpath.basename(e.path)))
                      if posixpath.dirname(e.path) in aliases else e for e in ld_entries]
        ld_dirs = {posixpath.dirname(e.path) for e in ld_entries}
    ld_path = [d.rstrip("/") for d in env.get("LD_LIBRARY_PATH", "").split(":") if d.startswith("/")]
    conda = env.get("CONDA_PREFIX")
    files: List[LibFile] = []
    seen = set()
    for e in ld_entries:
        lf = parse_library_path(e.path) or parse_library_path(e.soname)
        if lf and e.path not in seen:
            seen.add(e.path)
            sl = parse_library_path(e.soname)
            files.append(LibFile(path=e.path, family=lf.family, name=posixpath.basename(e.path),
                                 component=lf.component, suffix=sl.suffix if sl else lf.suffix))
    for p in lib_paths:
        lf = parse_library_path(p)
        if lf and p not in seen:
            seen.add(p)
            files.append(lf)
    groups: Dict[Tuple[str, str, Optional[int]], List[LibFile]] = {}
    order: List[Tuple[str, str, Optional[int]]] = []
    key: Tuple[str, str, Optional[int]]
    for f in files:
        if f.family in ("cuda", "nvidia-ml"):
            key = (f.directory.rstrip("/"), f.family, None)
        else:
            if f.major is None:
                continue  # an unversioned development symlink (libcudnn.so): not what programs load
            key = (f.directory.rstrip("/"), f.family, f.major)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(f)
    header_ver = parse_cudnn_header(header)
    header_path = header_origin.split(" ")[0] if header_is_real_path and header_origin.startswith("/") else None
    header_prefix = posixpath.dirname(posixpath.dirname(header_path)) if header_path else None
    header_used = False
    copies: List[LibCopy] = []
    for key in order:
        directory, family, major = key
        fs = groups[key]
        loc = _location(directory, ld_dirs, ld_path, conda)
        main_name = _MAIN_NAME.get(family)
        main = [f for f in fs if main_name and f.name.startswith(main_name + ".")] or fs
        soname = sorted(main, key=lambda f: len(f.suffix))[0]
        version: Optional[str] = None
        vsrc: Optional[str] = None
        versioned = sorted((f for f in main if f.version), key=lambda f: f.suffix, reverse=True)
        if versioned:
            version, vsrc = versioned[0].version, "file name"
        owner, owner_ver = _owner(family, major, loc, packages, directory)
        if version is None and owner and owner != "torch" and owner_ver:
            version, vsrc = short3(owner_ver), f"pip distribution {owner}"
        if version is None and family == "cudnn" and header_ver and header_prefix and major is not None \
                and header_ver.split(".")[0] == str(major) and (directory.startswith(header_prefix + "/")):
            version, vsrc = header_ver, "cudnn_version.h"
            header_used = True
        if version is None and family == "cudnn" and major is not None:
            # only the soname is known (libcudnn.so.9): the major is a fact, the rest is not (contract §2)
            version, vsrc = str(major), "soname"
        if family == "cudnn" and header_ver and version == header_ver:
            header_used = True
        on_path = directory in ld_dirs or directory in ld_path
        copies.append(LibCopy(family=family, major=major, version=version, version_source=vsrc, path=soname.path,
                              directory=directory, source=loc, owner=owner, on_search_path=on_path,
                              files=tuple(f.path for f in fs)))
    if header_ver and not header_used:
        # a cuDNN header with no library of its version: listed, but nothing loads from it
        hmajor = header_ver.split(".")[0]
        path = header_path or "cudnn_version.h"
        copies.append(LibCopy(family="cudnn", major=int(hmajor) if hmajor.isdigit() else None, version=header_ver,
                              version_source="cudnn_version.h", path=path,
                              directory=posixpath.dirname(path) if header_path else "", source="header",
                              on_search_path=False, files=(path,) if header_path else ()))
    return copies
