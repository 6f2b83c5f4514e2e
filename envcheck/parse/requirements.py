"""Requires-Dist lines -> ``{distribution: specifier}`` for one platform, without importing packaging
for the common forms (it costs ~30 ms at start-up); anything unusual falls back to packaging."""

from __future__ import annotations

import re
from typing import Dict, List, Mapping, Optional

from envcheck.model import version_tuple

__all__ = ["requirement_pins"]

# nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux" and platform_machine == "x86_64"
# nvidia-cublas-cu12<13.0,>=12.5.3.2; extra == "and-cuda"
_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?\s*([<>=!~][^;()]*?)?\s*\)?\s*(?:;\s*(.*))?$")
_CMP = re.compile(r"""^\s*([a-z_]+)\s*(==|!=|<=|>=|<|>)\s*(['"])([^'"]*)\3\s*$""")
_VERSION_VARS = ("python_version", "python_full_version")


def _compare(var: str, op: str, have: str, want: str) -> Optional[bool]:
    if var in _VERSION_VARS:
        a, b = version_tuple(have), version_tuple(want)
        if a is None or b is None or "*" in want:
            return None
        n = max(len(a), len(b))
        a, b = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
        return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    if op == "==":
        return have == want
    if op == "!=":
        return have != want
    return None


def _simple_marker(marker: str, env: Mapping[str, str]) -> Optional[bool]:
    """Evaluate ``a == "x" and python_version >= "3.9" or ...`` (no parentheses; version operators only on
    the python version variables); ``None`` when unsupported, so that packaging decides."""
    inner = re.compile(r"\(([^()]*)\)")
    for _ in range(20):  # parentheses: evaluate the innermost groups first
        m = inner.search(marker)
        if not m:
            break
        v = _simple_marker(m.group(1), env)
        if v is None:
            return None
        marker = marker[:m.start()] + ("__true__" if v else "__false__") + marker[m.end():]
    if "(" in marker or ")" in marker:
        return None
    result = False
    for alt in re.split(r"\s+or\s+", marker):
        ok = True
        for term in re.split(r"\s+and\s+", alt):
            if term.strip() in ("__true__", "__false__"):
                ok = ok and term.strip() == "__true__"
                continue
            m = _CMP.match(term)
            if not m or m.group(1) not in env:
                return None
            c = _compare(m.group(1), m.group(2), env[m.group(1)], m.group(4))
            if c is None:
                return None
            ok = ok and c
        result = result or ok
    return result


def requirement_pins(lines: List[str], env: Mapping[str, str]) -> Dict[str, str]:
    """``{normalized name: specifier}`` of the lines whose markers hold in ``env`` (marker variables)."""
    out: Dict[str, str] = {}
    for line in lines:
        m = _REQ.match(line)
        verdict: Optional[bool] = None
        if m:
            marker = (m.group(3) or "").strip()
            verdict = True if not marker else _simple_marker(marker, env)
        if verdict is None:
            verdict, name, spec = _with_packaging(line, env)
            if verdict and name:
                out[name] = spec
            continue
        if verdict and m:
            spec = ",".join(p.strip() for p in (m.group(2) or "").split(",") if p.strip())
            out[re.sub(r"[-_.]+", "-", m.group(1)).lower()] = spec
    return out


def _with_packaging(line: str, env: Mapping[str, str]):
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        r = Requirement(line)
        if r.marker is not None and not r.marker.evaluate(dict(env)):
            return False, None, ""
    except (InvalidRequirement, Exception):  # noqa: BLE001 - a strange line: skip it
        return False, None, ""
    return True, re.sub(r"[-_.]+", "-", r.name).lower(), str(r.specifier)
