"""``hipconfig --full`` (and plain ``hipconfig``): the HIP version, platform and paths."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

__all__ = ["Hipconfig", "parse_hipconfig", "hip_short"]


@dataclass
class Hipconfig:
    hip: Optional[str] = None  # "6.2.41133" (git hash dropped)
    hip_full: Optional[str] = None  # as printed: "6.2.41133-dd7f95766"
    platform: Optional[str] = None  # "amd" ("hcc" before ROCm 4.1 means the same) | "nvidia" ("nvcc")
    rocm_path: Optional[str] = None
    hip_path: Optional[str] = None
    clang: Optional[str] = None  # "AMD clang version 18.0.0git (...roc-6.2.0 ...)" -> "18.0.0git"


def hip_short(v: Optional[str]) -> Optional[str]:
    """``3.0.19493-36529b1`` / ``6.2.41133-dd7f95766`` -> ``3.0.19493`` / ``6.2.41133``."""
    if not v:
        return None
    m = re.match(r"^\s*(\d+\.\d+(?:\.\d+)?)", str(v))
    return m.group(1) if m else None


def parse_hipconfig(text: Optional[str]) -> Hipconfig:
    h = Hipconfig()
    if not text:
        return h
    for line in text.splitlines()[:5000]:
        s = line.strip()
        m = re.match(r"^HIP version\s*:\s*(\S+)", s)
        if m and h.hip is None:
            h.hip_full, h.hip = m.group(1), hip_short(m.group(1))
            continue
        m = re.match(r"^(HIP_PLATFORM|ROCM_PATH|HIP_PATH)\s*:\s*(\S.*)$", s)
        if m:
            v = m.group(2).strip()
            if m.group(1) == "HIP_PLATFORM":
                h.platform = {"hcc": "amd", "nvcc": "nvidia"}.get(v, v)
            elif m.group(1) == "ROCM_PATH":
                h.rocm_path = v
            else:
                h.hip_path = v
            continue
        m = re.match(r"^(?:AMD |HCC )?clang version (\S+)", s)
        if m and h.clang is None:
            h.clang = m.group(1)
    if h.hip is None:
        _bare_version(text, h)
    return h


#: ``hipconfig --version`` (``-v``): the HIP version and its git hash alone on a line, "6.5.25214-d6bb0478b"
_BARE = re.compile(r"^\s*(\d{1,2}\.\d{1,2}\.\d{4,6}-[0-9a-f]{6,12})\s*$", re.MULTILINE)


def _bare_version(text: str, h: Hipconfig) -> None:
    """The output of ``hipconfig --version``: a capture holding nothing else of hipconfig's."""
    m = _BARE.search(text[:100000])
    if m:
        h.hip_full, h.hip = m.group(1), hip_short(m.group(1))
