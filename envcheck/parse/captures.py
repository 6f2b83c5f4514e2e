"""Parse the JSON and small text captures of a snapshot (contract §1)."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional

__all__ = ["load_json_object", "parse_os_release", "is_wsl", "parse_requires"]


def load_json_object(text: Optional[str]) -> Optional[Dict[str, Any]]:
    """A JSON object, or ``None`` for missing, malformed or non-object content."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def parse_os_release(text: Optional[str]) -> Dict[str, str]:
    """``/etc/os-release`` as a dict (quotes removed)."""
    out: Dict[str, str] = {}
    for line in (text or "").splitlines():
        if "=" not in line:  # cheap skip (a megabyte of blank lines must stay fast)
            continue
        m = re.match(r"^\s*([A-Z0-9_]+)=(.*)$", line)
        if m:
            v = m.group(2).strip()
            if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
                v = v[1:-1]
            out[m.group(1)] = v
    return out


# Linux version 5.15.146.1-microsoft-standard-WSL2 (root@65c757a075e2) (gcc (GCC) 11.2.0, ...) #1 SMP ...
def is_wsl(proc_version: Optional[str]) -> Optional[str]:
    """"WSL2" / "WSL1" when ``/proc/version`` names a Microsoft kernel, else ``None``."""
    if not proc_version:
        return None
    low = proc_version.lower()
    if "microsoft" not in low:
        return None
    if "wsl2" in low or "microsoft-standard" in low:
        return "WSL2"
    return "WSL1"


def parse_requires(lines: Any) -> List[str]:
    """A list of Requires-Dist strings from a JSON value (tolerant of junk)."""
    if not isinstance(lines, list):
        return []
    return [x for x in lines if isinstance(x, str) and len(x) < 2000]
