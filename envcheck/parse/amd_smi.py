"""amd-smi: ``version``, ``list`` and ``static``, as text, ``--json`` or ``--csv``.

``amd-smi list`` lists AI NICs (``AI_NIC: 0``) and switches next to GPUs on newer releases: only the
``GPU: N`` blocks are GPUs. With compute partitions (DPX/CPX) one physical GPU is listed once per
partition (``PARTITION_ID`` 0, 1, ...). amd-smi has printed ``TARGET_GRAPHICS_VERSION: gfx9008`` (the
decimal-stepping form), normalised here. ``amdgpu version`` in ``amd-smi version`` is the kernel's
``/proc/version`` text when the in-tree (inbox) amdgpu is loaded: that is not a module version.

``amd-smi`` with no argument (26.x) prints a boxed view like nvidia-smi's: a header
``| AMD-SMI 26.2.0+021c61fc      amdgpu version: 6.16.6   ROCm version: 7.1.1    |`` (``Linuxver`` -- the
first letters of ``/proc/version`` -- or a kernel release such as ``6.11.0-17`` for the in-tree driver; 27.x
puts each on its own ``| amdgpu Version:    7.1.3.31500000 |`` line), then two rows per GPU:
``| 0000:04:00.0  AMD Radeon RX 9070 XT | ...`` (bus id, name: cut to the column, then led by ``...``) and
``|   0       0     N/A        SPX/NPS1 | ...  84/16304 MB |`` (index, HIP id, OAM id, partition mode, VRAM
used/total). :func:`parse_amd_smi_version` reads its header, :func:`parse_amd_smi_default` its GPUs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Optional, Tuple

from envcheck.model import Gpu
from envcheck.parse.gfx import normalize_gfx, pci_product_name
from envcheck.parse.rocm_smi import hex_id
from envcheck.parse.limits import gpu_list

__all__ = ["AmdSmiVersion", "AmdSmiEntry", "parse_amd_smi_version", "parse_amd_smi_list", "parse_amd_smi_static",
           "driver_version_from_static", "parse_amd_smi_default"]

_VER = re.compile(r"^\d+\.\d+(?:\.\d+)*$")


@dataclass
class AmdSmiVersion:
    tool: Optional[str] = None
    library: Optional[str] = None
    rocm: Optional[str] = None
    amdgpu: Optional[str] = None  # a module version ("6.10.5"); None for the in-tree driver / unknown
    kernel: Optional[str] = None  # the kernel release when amd-smi printed /proc/version instead
    inbox: bool = False  # amd-smi's default view printed "Linuxver" (its cut of /proc/version): the in-tree amdgpu
    driver_error: Optional[str] = None  # amd-smi could not reach the amdgpu driver ("driver not initialized ...")


#: amd-smi's logged failure to reach the driver: "ERROR:root:Unable to get devices, driver not initialized (amdgpu
#: not found in modules)" (amdgpu not loaded, built into the kernel, or WSL)
_DRIVER_ERROR = re.compile(r"^(?:ERROR:root:)?\s*(Unable to get devices, driver not initialized[^\n]*)$",
                           re.IGNORECASE | re.MULTILINE)


#: a line of amd-smi's boxed default view, after whatever a paste put before it ("> ", "# ", indentation)
_BOX = re.compile(r"^[^|\n]{0,12}\|(?P<body>.*)\|\s*$")
_BOX_TOOL = re.compile(r"\bAMD-SMI\s+(\d+\.\d+\.\d+)\S*")
_BOX_FIELD = re.compile(r"\b(amdgpu|ROCm)\s+version:\s*(\S+)", re.IGNORECASE)
#: a kernel release in place of an amdgpu module version ("6.8.0-45-generic", "6.11.0-17"): the in-tree driver
_KERNEL_RELEASE = re.compile(r"^\d+\.\d+\.\d+-\d+")


def _box_lines(text: str) -> List[str]:
    out = []
    for line in text.splitlines()[:5000]:
        m = _BOX.match(line)
        if m:
            out.append(m.group("body"))
    return out


def _default_view_version(text: str, out: AmdSmiVersion) -> bool:
    """The header of amd-smi's default view (26.x: one line; 27.x: a line per field); False where none."""
    lines = _box_lines(text)
    head = next((ln for ln in lines if _BOX_TOOL.search(ln)), None)
    if head is None:
        return False
    out.tool = _BOX_TOOL.search(head).group(1)  # type: ignore[union-attr]
    for ln in lines[:12]:
        for key, val in _BOX_FIELD.findall(ln):
            _version_field(out, key.lower(), val.strip())
    return True


def _version_field(out: AmdSmiVersion, k: str, v: str) -> None:
    """One ``key: value`` of ``amd-smi version`` (either form)."""
    if k in ("amdsmi tool", "tool", "amdsmi tool version", "tool version", "version"):
        # --json / --csv (amdsmi_commands.py version()): "tool": "AMDSMI Tool" and the tool's own "version"
        if _VER.match(v.split("+")[0]):
            out.tool = v.split("+")[0]
    elif "library" in k:
        out.library = v or None
    elif k.startswith("rocm"):
        out.rocm = v if _VER.match(v) else None
    elif k.startswith("amdgpu"):
        if _KERNEL_RELEASE.match(v):
            out.kernel = v
        elif _VER.match(v.split("-")[0]) and v.lower() != "n/a":
            out.amdgpu = v
        else:
            m = re.search(r"linux\s*version\s*(\d+\.\d+\.\d+\S*?)(?:\(|\s|$)", v, re.IGNORECASE)
            out.kernel = m.group(1) if m else None
            out.inbox = out.kernel is None and v.lower().startswith("linuxver")


def parse_amd_smi_version(text: Optional[str]) -> AmdSmiVersion:
    out = AmdSmiVersion()
    if not text:
        return out
    if _default_view_version(text[:200000], out):
        return out
    t = text.strip()
    if t.startswith("{") or t.startswith("["):
        try:
            data = json.loads(t)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, list) and data and isinstance(data[0], dict):
            data = data[0]
        if isinstance(data, dict):
            flat = {str(k).lower(): v for k, v in data.items()}
            t = " | ".join(f"{k}: {v}" for k, v in flat.items())
    else:
        # --csv: the header of the output's keys, then the values (amdsmi_logger's csv.DictWriter)
        lines = [ln.strip() for ln in t.splitlines()[:200] if ln.strip()]
        i = next((n for n, ln in enumerate(lines) if ln.lower().startswith("tool,") and "version" in ln.lower()), None)
        if i is not None and i + 1 < len(lines):
            import csv

            try:
                keys, vals = next(csv.reader([lines[i]])), next(csv.reader([lines[i + 1]]))
            except (csv.Error, StopIteration):
                keys, vals = [], []
            t = " | ".join(f"{k.strip().lower()}: {v.strip()}" for k, v in zip(keys, vals))
    m = _DRIVER_ERROR.search(t[:20000])
    if m:
        out.driver_error = m.group(1).strip()[:200]
    for part in re.split(r"[|\n]", t[:20000]):
        k, sep, v = part.strip().partition(":")
        if sep:
            _version_field(out, k.strip().lower().replace("_", " "), v.strip())
    return out


@dataclass
class AmdSmiEntry:
    index: int
    fields: Dict[str, str] = field(default_factory=dict)  # flattened: "ASIC.MARKET_NAME" -> value


def _blocks(text: str, kinds: Tuple[str, ...] = ("GPU",)) -> Dict[str, List[AmdSmiEntry]]:
    """Text output: ``GPU: 0`` / ``AI_NIC: 0`` headers, indented ``KEY: value`` under them (sub-sections such as
    ``ASIC:`` prefix their keys). The headers are at column 0 as amd-smi prints them, or all indented alike
    in a paste (a Markdown code block, a shell session quoted in a README): a block holds the lines indented
    deeper than its header."""
    out: Dict[str, List[AmdSmiEntry]] = {}
    cur: Optional[AmdSmiEntry] = None
    base = 0
    stack: List[Tuple[Any, ...]] = []
    for raw in text.splitlines()[:50000]:
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip())
        # a header only outside a block or back at (or left of) its header's column: inside a block,
        # "NUM_COMPUTE_UNITS: 40" is a field
        m = re.match(r"^(\s{0,16})([A-Z][A-Z_]*):\s*(\d{1,9})\s*$", raw) if cur is None or indent <= base else None
        if m:
            cur = AmdSmiEntry(int(m.group(3)))
            base = len(m.group(1))
            out.setdefault(m.group(2), []).append(cur)
            stack = []
            continue
        if cur is not None and indent == base and re.match(r"^\s*[A-Z][A-Z0-9_ ]{0,40}:\s*$", raw):
            # a section at the header's own column (amd-smi 6.0's README prints "GPU: 0" then "ASIC:", "BUS:", ...
            # flush left, their keys indented under them): still the block's
            while stack and stack[-1][0] >= indent:
                stack.pop()
            stack.append((indent, raw.strip()[:-1].strip()))
            continue
        if cur is None or indent <= base:
            cur = None
            continue
        key, sep, val = raw.strip().partition(":")
        if not sep:
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if val.strip() == "":
            stack.append((indent, key.strip()))
            continue
        path = ".".join([s[1] for s in stack] + [key.strip()])
        cur.fields.setdefault(path, val.strip())
    return out


def _flatten(obj: Any, prefix: str, out: Dict[str, str], depth: int = 0) -> None:
    if depth > 8:
        return
    if isinstance(obj, dict):
        if set(obj) >= {"value", "unit"} and not isinstance(obj.get("value"), (dict, list)):
            out[prefix] = f"{obj['value']} {obj['unit']}"
            return
        for k, v in obj.items():
            _flatten(v, f"{prefix}.{str(k).upper()}" if prefix else str(k).upper(), out, depth + 1)
    elif isinstance(obj, (str, int, float)) and not isinstance(obj, bool):
        out[prefix] = str(obj)


def _json_entries(text: str) -> Optional[Dict[str, List[AmdSmiEntry]]]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(data, dict):
        data = data.get("gpu_data") or data.get("gpus") or [data]
    if not isinstance(data, list):
        return None
    out: Dict[str, List[AmdSmiEntry]] = {}
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            continue
        flat: Dict[str, str] = {}
        _flatten({k: v for k, v in item.items() if k not in ("gpu", "nic")}, "", flat)
        kind = "AI_NIC" if "nic" in item else "GPU"
        idx = item.get("gpu", item.get("nic", i))
        out.setdefault(kind, []).append(AmdSmiEntry(idx if isinstance(idx, int) else i, flat))
    return out


def _lenient_json_entries(text: str) -> Dict[str, List[AmdSmiEntry]]:
    """A ``--json`` paste cut short: the complete ``"key": value`` lines, grouped by ``"gpu": N``."""
    out: Dict[str, List[AmdSmiEntry]] = {}
    cur: Optional[AmdSmiEntry] = None
    for line in text.splitlines()[:50000]:
        m = re.match(r'^\s*"(gpu|nic)"\s*:\s*(\d{1,9})\s*,?\s*$', line)
        if m:
            cur = AmdSmiEntry(int(m.group(2)))
            out.setdefault("GPU" if m.group(1) == "gpu" else "AI_NIC", []).append(cur)
            continue
        m = re.match(r'^\s*"([A-Za-z0-9_ ]{1,64})"\s*:\s*"?([^"{}\[\]]{0,200}?)"?\s*,?\s*$', line)
        if m and cur is not None and m.group(2):
            cur.fields.setdefault(m.group(1).upper(), m.group(2).strip())
    return out


#: ``--csv``: amd-smi's logger (amdsmi_cli/amdsmi_logger.py ``_print_csv_output``) writes a header of the output's keys
#: - ``gpu`` first, nested sections flattened to their leaf keys (``flatten_dict``: ``market_name``,
#: ``target_graphics_version``, ``bdf``; a multi-valued sub-dict's keys led by its parent's, ``size_value``) - then
#: one row per GPU (per partition with CPX/DPX); ``list`` names its columns ``gpu_bdf`` / ``gpu_uuid`` (24.x+) and,
#: on a virtualization host, ``vf`` / ``vf_bdf`` / ``vf_uuid``
_CSV_HEADER = re.compile(r"^\s{0,8}gpu,[a-z0-9_,]{1,4000}$", re.IGNORECASE)
_CSV_KEY = {"GPU_BDF": "BDF", "GPU_UUID": "UUID"}


def _csv_entries(text: str) -> Optional[Dict[str, List[AmdSmiEntry]]]:
    """The GPU rows of ``amd-smi ... --csv`` (None: no such header). Rows end at a blank line or a line that is no
    row (a paste's '...' elision is skipped)."""
    import csv

    lines = text.splitlines()[:50000]
    start = next((i for i, ln in enumerate(lines) if _CSV_HEADER.match(ln.strip())), None)
    if start is None:
        return None
    keys = [k.strip().upper() for k in lines[start].strip().split(",")]
    keys = [_CSV_KEY.get(k, k) for k in keys]
    out: Dict[str, List[AmdSmiEntry]] = {}
    for ln in lines[start + 1:]:
        if not ln.strip():
            if out:
                break
            continue
        if ln.strip() in ("...", "\u2026"):
            continue
        try:
            row = next(csv.reader([ln.strip()]))
        except (csv.Error, StopIteration):
            break
        if not row or not row[0].strip().isdigit() or len(row[0].strip()) > 6:
            break
        fields = {k: v.strip() for k, v in zip(keys[1:], row[1:]) if v.strip()}
        if "SIZE" not in fields and "SIZE_VALUE" in fields:
            fields["SIZE"] = f"{fields['SIZE_VALUE']} {fields.get('SIZE_UNIT', 'MB')}"
        out.setdefault("GPU", []).append(AmdSmiEntry(int(row[0].strip()), fields))
    return out


def _entries(text: Optional[str]) -> Dict[str, List[AmdSmiEntry]]:
    if not text or not text.strip():
        return {}
    csv_rows = _csv_entries(text) if "," in text else None
    if csv_rows is not None:
        return csv_rows
    t = text.strip()
    # a paste may start with Python warnings printed by amd-smi itself (SyntaxWarning ... return_dictionary)
    m = re.search(r"^[\[{]\s*$", t, re.M) if t[0] not in "[{" else None
    if m:
        t = t[m.start():]
    if t[0] in "[{":
        return _json_entries(t) or _lenient_json_entries(t)
    return _blocks(text)


def _get(f: Dict[str, str], *names: str) -> Optional[str]:
    for n in names:
        for k, v in f.items():
            if k == n or k.endswith("." + n):
                v = v.strip()
                if v and v.upper() != "N/A":
                    return v
    return None


@gpu_list
def parse_amd_smi_list(text: Optional[str]) -> List[Dict[str, Any]]:
    """The GPUs of ``amd-smi list``: ``[{"index", "bdf", "uuid", "partition_id"}]`` (NICs and switches left
    out)."""
    out = []
    for e in _entries(text).get("GPU", []):
        pid = _get(e.fields, "PARTITION_ID")
        out.append({"index": e.index, "bdf": _get(e.fields, "BDF"), "uuid": _get(e.fields, "UUID"),
                    "partition_id": int(pid) if pid and pid.isascii() and pid.isdigit() and len(pid) <= 9 else None})
    return out


def _mib(v: Optional[str]) -> Optional[int]:
    m = re.match(r"^(\d{1,30})\s*(MB|MiB|GB|GiB|B)?$", (v or "").strip(), re.IGNORECASE)
    if not m:
        return None
    n, unit = int(m.group(1)), (m.group(2) or "MB").lower()
    return n * 1024 if unit in ("gb", "gib") else n // (1024 * 1024) if unit == "b" else n


@gpu_list
def parse_amd_smi_static(text: Optional[str]) -> List[Gpu]:
    """The GPUs of ``amd-smi static`` (text or JSON), one per ``GPU: N`` block; with compute partitions the
    extra partitions (``PARTITION_ID`` > 0, or ``CURRENT: CPX``-style entries repeating a BDF) are kept
    here and folded by the caller."""
    gpus = []
    for e in _entries(text).get("GPU", []):
        f = e.fields
        gfx = normalize_gfx(_get(f, "TARGET_GRAPHICS_VERSION"))
        name = pci_product_name(_get(f, "MARKET_NAME") or _get(f, "PRODUCT_NAME"))
        if name and re.fullmatch(r"0x[0-9a-fA-F]{4}", name):
            name = None  # amd-smi 6.0 printed the device id as MARKET_NAME where it had no name for it ("0x73bf")
        if not (gfx or name or _get(f, "DEVICE_ID")):
            continue  # an "amd-smi list" block, or a block cut before its ASIC section
        part = _get(f, "COMPUTE_PARTITION", "ACCELERATOR_TYPE")
        # "SIZE" (6.1+: "65520 MB" in the text form, a number or {"value", "unit"} in JSON); ROCm 6.0's amd-smi named
        # it VRAM_SIZE_MB (amdsmi_cli/amdsmi_commands.py at rocm-6.0.0: vram_info['vram_size_mb'])
        mem = _mib(_get(f, "VRAM.SIZE", "SIZE", "VRAM_SIZE_MB"))
        gpus.append(Gpu(index=e.index, name=name, memory_mib=mem, vendor="amd", gfx=gfx,
                        device_id=hex_id(_get(f, "DEVICE_ID")), source="amd-smi static",
                        bus_id=_get(f, "BDF"), partition=part if part and part.upper().endswith("PX") else None))
    return gpus


def driver_version_from_static(text: Optional[str]) -> Optional[str]:
    """``DRIVER: VERSION`` of the first GPU (the amdgpu module version)."""
    for e in _entries(text).get("GPU", []):
        # (amd-smi 6.0's DRIVER_VERSION is not read: with the in-box driver it is the kernel's release, "6.1.10")
        v = _get(e.fields, "DRIVER.VERSION")
        if v:
            return v
    return None


_BOX_GPU = re.compile(r"^\s*(?P<bdf>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(?P<name>.*?)\s*$")
_BOX_GPU2 = re.compile(r"^\s*(?P<index>\d{1,4})\s+(?:\S+\s+){2}(?P<part>\S+)\s*$")
_BOX_MEM = re.compile(r"(\d{1,9})/(\d{1,9})\s*MB\s*$")


@gpu_list
def parse_amd_smi_default(text: Optional[str]) -> List[Gpu]:
    """The GPUs of amd-smi's default view (no argument): bus id, name, index, partition mode, VRAM."""
    gpus: List[Gpu] = []
    cur: Optional[Gpu] = None
    for body in _box_lines(text or ""):
        left, _, right = body.partition("|")
        m = _BOX_GPU.match(left)
        if m:
            name = m.group("name").lstrip(".").strip() or None  # a long name is cut and led by "..."
            cur = Gpu(index=len(gpus), name=pci_product_name(name), vendor="amd", bus_id=m.group("bdf"),
                      source="amd-smi")
            gpus.append(cur)
            continue
        m2 = _BOX_GPU2.match(left)
        if cur is not None and m2:
            part = m2.group("part").split("/")[0].upper()
            mem = _BOX_MEM.search(right.strip())
            gpus[-1] = replace(cur, index=int(m2.group("index")), memory_mib=int(mem.group(2)) if mem else None,
                               partition=part if part.endswith("PX") else None)
        cur = None
    return gpus
