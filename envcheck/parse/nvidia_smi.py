"""Parse the plain ``nvidia-smi`` table, its failure texts, and the ``--query-gpu`` CSV."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional

__all__ = ["SmiGpu", "SmiTable", "QueryGpu", "SmiQuery", "parse_table", "parse_query_csv", "classify_error"]

# Error kinds, shared with NVML's error strings.
NO_DRIVER = "no-driver"
LIB_MISMATCH = "driver-library-mismatch"
NO_DEVICES = "no-devices"
OTHER = "other"


@dataclass(frozen=True)
class SmiGpu:
    index: int
    name: str  # as printed; the table may truncate long names with "..."
    memory_total_mib: Optional[int] = None
    bus_id: Optional[str] = None
    mig_enabled: Optional[bool] = None


@dataclass(frozen=True)
class SmiTable:
    """What the plain table says. ``driver_version`` is the driver as printed ("535.104.05";
    under WSL2 this is the Windows driver, e.g. "512.15"); ``cuda_version`` the "CUDA Version"
    field (the highest CUDA the driver supports; absent before driver 410); ``error`` one of
    ``no-driver``, ``driver-library-mismatch``, ``no-devices``, ``other`` or ``None``."""

    smi_version: Optional[str] = None
    driver_version: Optional[str] = None
    cuda_version: Optional[str] = None
    gpus: List[SmiGpu] = field(default_factory=list)
    mig_devices: int = 0
    error: Optional[str] = None
    error_line: Optional[str] = None


# "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that
#  the latest NVIDIA driver is installed and running."
# "Failed to initialize NVML: Driver/library version mismatch"  (+ "NVML library version: 535.129")
# "No devices were found"
_ERRORS = [
    (re.compile(r"couldn'?t communicate with the NVIDIA driver", re.I), NO_DRIVER),
    (re.compile(r"couldn'?t find libnvidia-ml\.so", re.I), NO_DRIVER),
    (re.compile(r"NVML Shared Library Not Found", re.I), NO_DRIVER),
    (re.compile(r"Driver Not Loaded", re.I), NO_DRIVER),
    (re.compile(r"Driver/library version mismatch", re.I), LIB_MISMATCH),
    (re.compile(r"^[ \t]*No devices were found", re.I | re.M), NO_DEVICES),
    (re.compile(r"Failed to initialize NVML", re.I), OTHER),
    (re.compile(r"Unable to determine the device handle", re.I), OTHER),
    (re.compile(r"GPU is lost", re.I), OTHER),
]


def classify_error(text: str) -> "tuple[Optional[str], Optional[str]]":
    """(error kind, the line that says so) for an nvidia-smi / NVML failure text, else (None, None)."""
    for rx, kind in _ERRORS:
        m = rx.search(text)
        if m:
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            line = text[start: end if end != -1 else len(text)].strip()
            return kind, line[:300]
    return None, None


# | NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |
# | NVIDIA-SMI 384.81                 Driver Version: 384.81                    |
# | NVIDIA-SMI 510.60.02    Driver Version: 512.15       CUDA Version: 11.6     |   (WSL2)
_HEADER_SMI = re.compile(r"NVIDIA-SMI\s+(\d+(?:\.\d+){1,3})")
_HEADER_DRIVER = re.compile(r"Driver Version:\s*(\d+(?:\.\d+){1,3})")
_HEADER_CUDA = re.compile(r"CUDA Version:\s*(\d+\.\d+)")
_BUS_ID = re.compile(r"\b[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]\b")
# first cell of a GPU row: "   0  NVIDIA A100-SXM4-40GB          On  " (persistence On/Off; WDDM/TCC on Windows)
# (the trailing persistence / driver-model word is split off in code: a lazy name followed by optional
#  groups backtracks cubically on long cells)
_GPU_CELL = re.compile(r"^\s*(\d{1,3})\s+(\S(?:.*\S)?)\s*$")
_GPU_MODE = ("On", "Off", "WDDM", "TCC", "N/A")
_MEM = re.compile(r"(?<!\d)(\d+)\s*MiB\s*/\s*(\d+)\s*MiB")
_SEPARATOR = re.compile(r"^\s*[+|][-=+|\s]*[+|]\s*$")
_MIG_ROW = re.compile(r"^\|\s*\d+\s+\d+\s+\d+\s+\d+\s*\|")


def parse_table(text: Optional[str]) -> SmiTable:
    """Parse ``nvidia-smi`` (no arguments). Never raises."""
    if not text:
        return SmiTable()
    m_smi = _HEADER_SMI.search(text)
    m_drv = _HEADER_DRIVER.search(text)
    m_cuda = _HEADER_CUDA.search(text)
    error, error_line = (None, None)
    if not m_drv:
        error, error_line = classify_error(text)
    gpus: List[SmiGpu] = []
    mig_devices = 0
    section = "gpus"
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        low = line.lower()
        if "mig devices" in low:
            section = "mig"
        elif "processes:" in low:
            section = "processes"
        if section == "mig" and _MIG_ROW.match(line):
            mig_devices += 1
        if section == "gpus" and line.lstrip().startswith("|"):
            cells = line.strip().strip("|").split("|")
            if len(cells) >= 2 and _BUS_ID.search(cells[1]):
                gm = _GPU_CELL.match(cells[0])
                if gm:
                    name = gm.group(2).strip()
                    words = name.rsplit(None, 1)
                    if len(words) == 2 and words[1] in _GPU_MODE:
                        name = words[0].rstrip()
                    bus = _BUS_ID.search(cells[1])
                    mem = None
                    mig = None
                    j = i + 1
                    while j < len(lines) and j <= i + 4 and not _SEPARATOR.match(lines[j]) \
                            and not _BUS_ID.search(lines[j]):
                        mm = _MEM.search(lines[j])
                        if mm and mem is None:
                            mem = int(mm.group(2))
                        last = lines[j].strip().strip("|").split("|")[-1].strip()
                        if last in ("Enabled", "Disabled"):
                            mig = last == "Enabled"
                        j += 1
                    gpus.append(SmiGpu(index=int(gm.group(1)), name=name, memory_total_mib=mem,
                                       bus_id=bus.group(0) if bus else None, mig_enabled=mig))
        i += 1
    if m_drv and not gpus and error is None:
        kind, line = classify_error(text)
        if kind == NO_DEVICES:
            error, error_line = kind, line
    return SmiTable(
        smi_version=m_smi.group(1) if m_smi else None,
        driver_version=m_drv.group(1) if m_drv else None,
        cuda_version=m_cuda.group(1) if m_cuda else None,
        gpus=gpus,
        mig_devices=mig_devices,
        error=error,
        error_line=error_line,
    )


@dataclass(frozen=True)
class QueryGpu:
    index: Optional[int]
    name: Optional[str]
    driver_version: Optional[str] = None
    compute_capability: Optional[str] = None
    memory_total_mib: Optional[int] = None


@dataclass(frozen=True)
class SmiQuery:
    gpus: List[QueryGpu] = field(default_factory=list)
    error: Optional[str] = None
    error_line: Optional[str] = None


# a header row: comma-separated query field names, e.g. "index, name, memory.total [MiB]" or just
# "compute_cap" (field order is the caller's choice; the first field need not be index or name)
_FIELD = re.compile(r"^[A-Za-z][A-Za-z0-9_.]*(?:\s+\[[^\]]*\])?$")
_KNOWN_FIELDS = {"index", "name", "driver_version", "compute_cap", "memory.total"}


def _is_header(line: str) -> bool:
    cells = [c.strip() for c in line.split(",")]
    return (all(_FIELD.match(c) for c in cells)
            and any(c.split(" ")[0].lower() in _KNOWN_FIELDS for c in cells))


_NA = {"", "n/a", "[n/a]", "[not supported]", "not supported", "[unknown error]", "[insufficient permissions]"}


def _cell(v: Optional[str]) -> Optional[str]:
    if v is None:
        return None
    v = v.strip()
    return None if v.lower() in _NA else v


# index, name, driver_version, compute_cap, memory.total [MiB]
# 0, NVIDIA A100-SXM4-40GB, 535.104.05, 8.0, 40960 MiB
def parse_query_csv(text: Optional[str]) -> SmiQuery:
    """Parse ``nvidia-smi --query-gpu=... --format=csv`` output, columns found by the header.
    Without a recognisable header (e.g. ``Field "compute_cap" is not a valid field to query.``)
    the result carries the error. Never raises."""
    if not text:
        return SmiQuery()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    header_at = None
    for n, ln in enumerate(lines):
        if _is_header(ln):
            header_at = n
            break
    if header_at is None:
        kind, line = classify_error(text)
        if kind is None:
            first = lines[0].strip()[:300] if lines else None
            return SmiQuery(error=OTHER, error_line=first)
        return SmiQuery(error=kind, error_line=line)
    cols = [c.strip().split(" ")[0].lower() for c in lines[header_at].split(",")]
    gpus: List[QueryGpu] = []
    for ln in lines[header_at + 1:]:
        parts = [p.strip() for p in ln.split(",")]
        if len(parts) < len(cols):
            continue
        if len(parts) > len(cols) and "name" in cols:
            # a GPU name holding a comma: glue the surplus back into the name
            k = cols.index("name")
            extra = len(parts) - len(cols)
            parts = parts[:k] + [", ".join(parts[k:k + extra + 1])] + parts[k + extra + 1:]
        row = dict(zip(cols, parts))
        idx = _cell(row.get("index"))
        mem = _cell(row.get("memory.total"))
        mem_m = re.match(r"^(\d+)", mem or "")
        cc = _cell(row.get("compute_cap"))
        if cc is not None and not re.match(r"^\d+\.\d+$", cc):
            cc = None
        drv = _cell(row.get("driver_version"))
        if drv is not None and not re.match(r"^\d+(\.\d+){1,3}$", drv):
            drv = None
        gpus.append(QueryGpu(
            index=int(idx) if idx and idx.isascii() and idx.isdigit() else None,
            name=_cell(row.get("name")),
            driver_version=drv,
            compute_capability=cc,
            memory_total_mib=int(mem_m.group(1)) if mem_m else None,
        ))
    return SmiQuery(gpus=gpus)
