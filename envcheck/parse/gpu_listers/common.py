"""What the GPU-lister readers share: the text's lines without what a paste put before them (an indent, a comment
or quote mark: ``# ``, ``// ``, ``> ``; a forum's ``<br>`` is undone by :func:`envcheck.parse.nvidia_smi.clean_capture`
first), each cut to a bounded length, and the GPU entry they build."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

__all__ = ["MAX_LINES", "MAX_LINE", "Listed", "ListedGpu", "plain_lines", "mib"]

MAX_LINES = 100000
MAX_LINE = 2000
_MARKS = ("//", "#", ">", ";")


@dataclass(frozen=True)
class ListedGpu:
    """One GPU as a lister shows it; what it does not show is None."""

    index: int
    name: Optional[str]
    memory_mib: Optional[int] = None
    compute_capability: Optional[str] = None  # "8.6", only where the lister prints it
    uuid: Optional[str] = None
    bus_id: Optional[str] = None


@dataclass(frozen=True)
class Listed:
    """What one lister's text makes certain. ``driver_loaded``: the lister only answers through a loaded NVIDIA
    driver (its GPU list is the driver's); ``complete``: the list is the whole one (True), a part (False), or there
    is none (None); ``note``: what the form does not tell, said in the report's ``not-checked`` note."""

    form: str
    driver_version: Optional[str] = None
    cuda_version: Optional[str] = None
    gpus: Tuple[ListedGpu, ...] = ()
    complete: Optional[bool] = None
    driver_loaded: bool = False
    note: Optional[str] = None


def _unmark(line: str) -> str:
    s = line.strip(" \t\r")
    for _ in range(4):  # "# > " / "## " at most a few marks deep
        mark = next((m for m in _MARKS if s.startswith(m)), None)
        if mark is None:
            break
        s = s[len(mark):].lstrip(" \t")
    return s


def plain_lines(text: str) -> List[str]:
    """The text's lines (at most :data:`MAX_LINES`, each cut to :data:`MAX_LINE` characters), stripped of their
    indent, trailing blanks and leading comment / quote marks. Linear in the text's length."""
    return [_unmark(ln[:MAX_LINE]) for ln in text.split("\n", MAX_LINES)[:MAX_LINES]]


def mib(value: str, unit: str) -> Optional[int]:
    """A memory size in MiB from a number and its unit as a lister prints it (``MBytes`` / ``MB`` / ``MiB``: already
    MiB (totalGlobalMem / 1048576; gpustat's "MB" is NVML's MiB); ``bytes``: divided and rounded), or None."""
    try:
        n = int(value)
    except ValueError:
        return None
    u = unit.lower()
    if u in ("mbytes", "mb", "mib"):
        return n if 0 < n < 10 ** 8 else None
    if u == "bytes":
        return round(n / 1048576) if n >= 1048576 else None
    return None
