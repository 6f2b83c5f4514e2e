"""Parse the CUDA toolkit's ``version.json`` (CUDA >= 11.1) and ``version.txt`` (older)."""

from __future__ import annotations

import json
import re
from typing import Optional
from envcheck import lazyre

__all__ = ["parse_version_json", "parse_version_txt"]

_VER = lazyre.compile(r"^\d+\.\d+(?:\.\d+){0,2}$")


# {"cuda": {"name": "CUDA SDK", "version": "12.1.1"}, "cuda_cccl": {...}, ...}
def parse_version_json(text: Optional[str]) -> Optional[str]:
    """The toolkit's full version ("12.1.1"), or ``None``."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    cuda = data.get("cuda")
    if isinstance(cuda, dict):
        v = cuda.get("version")
        if isinstance(v, str) and _VER.match(v.strip()):
            return v.strip()
    return None


# CUDA Version 10.2.89
# CUDA Version 9.0.176
# CUDA Patch Version 9.0.176.1
def parse_version_txt(text: Optional[str]) -> Optional[str]:
    """The toolkit's version from ``version.txt`` ("10.2.89"), or ``None``."""
    if not text:
        return None
    m = re.search(r"^[ \t]*CUDA Version\s+(\d+\.\d+(?:\.\d+){0,2})\s*$", text, re.M)
    return m.group(1) if m else None
