"""The CUDA toolkit (nvcc, version.json / version.txt)."""

from __future__ import annotations

import posixpath
from typing import Dict

from envcheck.environment._common import Caps
from envcheck.model import Toolkit
from envcheck.parse.cuda_version import parse_version_json, parse_version_txt
from envcheck.parse.nvcc import parse_nvcc
from envcheck.parse.versions import cuda_major_minor

__all__ = ["build_toolkit"]


def build_toolkit(c: Caps, env: Dict[str, str]) -> Toolkit:
    nv = parse_nvcc(c.text("nvcc.txt"))
    full = parse_version_json(c.text("cuda-version.json")) or parse_version_txt(c.text("cuda-version.txt"))
    tk_version = cuda_major_minor(nv.release) if nv and nv.release else None
    tk_source = "nvcc --version" if tk_version else None
    # the SDK entry of version.json may carry a release date as its third part ("11.8.20220929", "12.6.20241114")
    full_mm = cuda_major_minor(".".join(full.split(".")[:2])) if full else None
    if tk_version is None and full_mm:
        tk_version, tk_source = full_mm, "version.json/version.txt"
    elif tk_version and full_mm and full_mm != tk_version:
        c.note(f"nvcc --version says CUDA {tk_version} but the toolkit's version file says {full}; "
               "the toolkit version is taken from nvcc.")
    nvcc_origin = c.cap("nvcc.txt").origin if c.cap("nvcc.txt").has_text else ""
    root = env.get("CUDA_HOME") or env.get("CUDA_PATH") or None
    if root is None and nvcc_origin.endswith(" --version") and "/" in nvcc_origin:
        cand = posixpath.dirname(posixpath.dirname(nvcc_origin[: -len(" --version")]))
        root = cand if cand not in ("/", "/usr", "/usr/local", "/opt") else None
    return Toolkit(version=tk_version, nvcc=nv.version if nv else None, full_version=full, root=root,
                   source=tk_source)
