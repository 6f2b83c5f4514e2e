"""Parse the CUDA toolkit's ``version.json`` (CUDA >= 11.1) and ``version.txt`` (older)."""

from __future__ import annotations

import json
import re
from typing import Optional
from envcheck import lazyre

__all__ = ["parse_version_json", "parse_version_txt"]

_VER = lazyre.compile(r"^\d+\.\d+(?:\.\d+){0,2}$")


# {"cuda": {"name": "CUDA SDK", "version": "12.1.1"}, "cuda_cccl": {...}, ...}
# A pasted part is no JSON document: `head version.json` (no closing brace), `grep version -B 2`, a listing cut
# or elided ("......", "[... 20 lines trimmed ...]") after the toolkit's own entry: the "cuda" entry (its exact
# key; "cuda_cudart" etc. are components) is read from the text, within its own braces.
_CUDA_ENTRY = lazyre.compile(r'"cuda"[ \t]*:[ \t]*\{([^{}]{0,1000})')
_ENTRY_VERSION = lazyre.compile(r'"version"[ \t]*:[ \t]*"([^"\n]{1,40})"')


def _entry_version(text: str) -> Optional[str]:
    m = _CUDA_ENTRY.search(text)
    if not m:
        return None
    v = _ENTRY_VERSION.search(m.group(1))
    return v.group(1).strip() if v and _VER.match(v.group(1).strip()) else None


def parse_version_json(text: Optional[str]) -> Optional[str]:
    """The toolkit's full version ("12.1.1"), or ``None``; a document cut or elided is read from its "cuda"
    entry."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return _entry_version(text)
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
