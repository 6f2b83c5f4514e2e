"""Versions of the CUDA world, parsed once: driver versions as NVIDIA prints them, CUDA "major.minor",
compute capabilities and plain dotted versions. Never compare version strings."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional, Tuple

__all__ = ["DriverVersion", "cc_tuple", "cuda_tuple", "major_minor", "version_tuple", "plain_spec_contains"]


@dataclass(frozen=True, order=False)
class DriverVersion:
    """An NVIDIA driver version kept as printed ("535.104.05") with a comparable key (535, 104, 5).

    Never compare driver strings (``'96.43' >= '456.38'`` is true) and never use
    ``packaging.version.Version`` for them (it prints "535.104.5").
    """

    raw: str
    key: Tuple[int, ...]

    @classmethod
    def parse(cls, text: Optional[str]) -> Optional["DriverVersion"]:
        if not isinstance(text, str):
            return None
        t = text.strip()
        if not re.match(r"^\d{1,4}(\.\d{1,4}){0,3}$", t):
            return None
        return cls(raw=t, key=tuple(int(x) for x in t.split(".")))

    @property
    def major(self) -> int:
        return self.key[0]

    def __lt__(self, other: "DriverVersion") -> bool:
        return self.key < other.key

    def __le__(self, other: "DriverVersion") -> bool:
        return self.key <= other.key

    def __gt__(self, other: "DriverVersion") -> bool:
        return self.key > other.key

    def __ge__(self, other: "DriverVersion") -> bool:
        return self.key >= other.key

    def __str__(self) -> str:
        return self.raw


def version_tuple(v: Optional[str]) -> Optional[Tuple[int, ...]]:
    """A plain dotted numeric version "9.1.0.70" -> (9, 1, 0, 70); ``None`` for anything else."""
    if not isinstance(v, str):
        return None
    parts = v.split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None


def cuda_tuple(v: Optional[str]) -> Optional[Tuple[int, int]]:
    """"12.4" / "12.4.1" / "12" -> (12, 4) / (12, 4) / (12, 0); ``None`` for anything else."""
    if not isinstance(v, str):
        return None
    m = re.match(r"^\s*(\d{1,3})(?:\.(\d{1,3}))?", v)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2) or 0)


def cc_tuple(v: Any) -> Optional[Tuple[int, int]]:
    """A compute capability "8.6", "sm_86", "compute_90", "90", [8, 6] -> (8, 6)."""
    if isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, int) for x in v):
        return int(v[0]), int(v[1])
    if not isinstance(v, str):
        return None
    s = v.strip().lower()
    m = re.match(r"^(\d{1,2})\.(\d)$", s)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = re.match(r"^(?:sm_|compute_)?(\d{1,2})(\d)[a-z]?$", s)
    if m:
        return int(m.group(1)), int(m.group(2))
    return None


def major_minor(v: Optional[str]) -> Optional[str]:
    """"10.0.130" / "12.4" / "12" -> "10.0" / "12.4" / "12.0": the contract's form of a CUDA version."""
    t = cuda_tuple(v)
    return f"{t[0]}.{t[1]}" if t else None


_PLAIN_SPEC = re.compile(r"\s*(==|!=|<=|>=|<|>)\s*([0-9]{1,12}(?:\.[0-9]{1,12}){0,7})\s*\Z")
_PLAIN_VERSION = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,12}){0,7}\Z")


def _release_key(v: str) -> Tuple[int, ...]:
    t = [int(x) for x in v.split(".")]
    while t and t[-1] == 0:  # 1.0 == 1.0.0 for packaging too
        t.pop()
    return tuple(t)


def plain_spec_contains(spec: str, version: str) -> Optional[bool]:
    """``Version(version) in SpecifierSet(spec)`` without packaging, where both sides are plain release numbers
    (``>=9.11``, ``<2.6,>=2.4``; ``2.11.0``): for those, packaging's answer is the comparison of the release
    numbers with trailing zeros dropped. ``None`` for any other form (a pre-/post-/dev release, a wildcard,
    ``~=``, ``===``, a local label, an empty part): packaging decides those."""
    if not _PLAIN_VERSION.match(version):
        return None
    parts = spec.split(",")
    checks = []
    for part in parts:
        m = _PLAIN_SPEC.match(part)
        if m is None:
            return None
        checks.append((m.group(1), _release_key(m.group(2))))
    a = _release_key(version)
    for op, b in checks:
        ok = (a == b if op == "==" else a != b if op == "!=" else a <= b if op == "<=" else a >= b if op == ">="
              else a < b if op == "<" else a > b)
        if not ok:
            return False
    return True


def spec_contains(spec: Any, version: Optional[str]) -> bool:
    """``spec.contains(version, prereleases=True)`` of a ``packaging`` SpecifierSet, False where either side
    is not a version packaging can read: an invalid string, or a release number of thousands of digits (that
    raises a plain ValueError from ``int()``, not InvalidVersion, in the version or in the specifier's own)."""
    if not isinstance(version, str):
        return False
    try:
        return bool(spec.contains(version, prereleases=True))
    except ValueError:  # packaging's InvalidVersion is a ValueError too
        return False
