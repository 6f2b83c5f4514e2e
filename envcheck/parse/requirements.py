"""Requires-Dist lines -> ``{distribution: specifier}`` for one platform.

Markers are evaluated by :mod:`packaging.markers` (PEP 508, with PEP 685's normalised extras: ``extra ==
"and_cuda"`` is the ``and-cuda`` extra). A marker that needs a fact the caller does not know (the Python version,
the machine) is not evaluated with a default: its line is skipped and reported in ``skipped``, so that the
caller can say so. Packaging's own ``Marker.evaluate`` fills a missing variable from the running interpreter,
which is the wrong machine for a snapshot; the variables a marker uses are read first for that reason.
"""

from __future__ import annotations

import re
from typing import Dict, List, Mapping, Optional, Tuple

__all__ = ["requirement_pins", "MARKER_VARIABLES"]

#: the PEP 508 environment markers
MARKER_VARIABLES = ("python_version", "python_full_version", "os_name", "sys_platform", "platform_release",
                    "platform_system", "platform_version", "platform_machine", "platform_python_implementation",
                    "implementation_name", "implementation_version", "extra")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_SPLIT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _variables(marker: str) -> List[str]:
    """The marker variables a marker text uses (names outside its quoted strings)."""
    bare = _QUOTED.sub(" ", marker)
    return [n for n in dict.fromkeys(_NAME.findall(bare)) if n in MARKER_VARIABLES]


def _one(line: str, env: Mapping[str, str]) -> Tuple[Optional[bool], Optional[str], str, List[str]]:
    """(holds? None = not evaluated, normalized name, specifier, the unknown variables that stopped it)."""
    from packaging.markers import InvalidMarker, UndefinedComparison, UndefinedEnvironmentName
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        r = Requirement(line)
    except InvalidRequirement:
        return False, None, "", []  # not a requirement: nothing to pin
    name = re.sub(r"[-_.]+", "-", r.name).lower()
    if r.marker is None:
        return True, name, str(r.specifier), []
    missing = [v for v in _variables(str(r.marker)) if v not in env]
    if missing:
        return None, name, str(r.specifier), missing
    try:
        holds = r.marker.evaluate(dict(env))
    except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName, ValueError, TypeError):
        return None, name, str(r.specifier), []
    return holds, name, str(r.specifier), []


def requirement_pins(lines: List[str], env: Mapping[str, str],
                     skipped: Optional[List[str]] = None) -> Dict[str, str]:
    """``{normalized name: specifier}`` of the lines whose markers hold in ``env`` (marker variables; a variable
    left out is unknown). A line whose marker could not be evaluated is left out and, with ``skipped``, added
    there as ``"<line>: <why>"``."""
    out: Dict[str, str] = {}
    for line in lines:
        holds, name, spec, missing = _one(line, env)
        if holds and name:
            out[name] = ",".join(p.strip() for p in spec.split(",") if p.strip())
        elif holds is None and skipped is not None:
            why = (f"{', '.join(missing)} unknown" if missing else "the marker could not be evaluated")
            skipped.append(f"{line.strip()}: {why}")
    return out
