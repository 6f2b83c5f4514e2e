"""rocm-smi, in every form people capture: the default table (the old one-line-per-GPU table and the
"Concise Info" table with partitions), ``--showproductname`` / ``--showdriverversion`` plain or
``--csv``, ``-a`` / ``--showall`` sections (``GPU[0] : key: value``) and ``--json``.

rocm-smi disagrees with itself across versions: ``Card model`` is a name on some versions and a hex id
(the subsystem id on ROCm 5.x, the device id on 6.x) on others; a hex ``Card series`` is the device id (ROCm 4.0
to 6.x); ``GFX Version`` is ``gfx9010`` for gfx90a. Only what is certain is read: a hex ``Card model``
becomes the device id only where the same output names the subsystem id separately or prints ``GFX Version``
(both only from the 6.x form on).
Pure functions; bad input gives empty results, never an exception.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Optional, Tuple

from envcheck.model import Gpu
from envcheck.parse.gfx import normalize_gfx
from envcheck.parse.limits import gpu_list

__all__ = ["RocmSmi", "parse_rocm_smi", "parse_rocm_smi_driver", "is_hex_id", "hex_id"]

_HEX = re.compile(r"^0x[0-9a-fA-F]{1,4}$")
#: ``GPU[N]  : key : value``; the key and value are split off with str.partition (linear: the former
#: ``(.*?)\s*:\s*(.*?)\s*$`` took minutes on one 10 KB line of spaces)
#: ``--showproductname`` quoted without the colon after ``GPU[N]`` ("GPU[0] Card Series: AMD Instinct MI300X") is read too
_SECTION_HEAD = re.compile(r"^\s*GPU\[(\d{1,9})\]\s*:?")


def _section_line(line: str) -> Optional[Tuple[int, str, str]]:
    """``GPU[0]\t\t: Card series: \t\tMI100`` -> ``(0, "Card series", "MI100")``, else ``None``."""
    m = _SECTION_HEAD.match(line)
    if not m:
        return None
    key, colon, value = line[m.end():].partition(":")
    return (int(m.group(1)), key.strip(), value.strip()) if colon else None
_CARD_KEY = re.compile(r"^card(\d{1,9})$")


def is_hex_id(v: Optional[str]) -> bool:
    return bool(v and _HEX.match(v.strip()))


def hex_id(v: Optional[str]) -> Optional[str]:
    """``0xc34`` -> ``0x0c34``; ``None`` unless a 16-bit hex id."""
    if not is_hex_id(v):
        return None
    return "0x%04x" % int(str(v).strip(), 16)


@dataclass
class RocmSmi:
    """What one rocm-smi capture says. ``form``: "table", "concise", "sections", "product", "csv",
    "json", "error" or None (not recognised)."""

    form: Optional[str] = None
    gpus: List[Gpu] = field(default_factory=list)
    driver: Optional[str] = None  # "Driver version" as printed (amdgpu module version, or the kernel's)
    partitions: Dict[int, str] = field(default_factory=dict)  # index -> compute partition (DPX, CPX ...)
    error: Optional[str] = None


def _name(v: Optional[str]) -> Optional[str]:
    v = (v or "").strip()
    if not v or v.upper() in ("N/A", "NA", "UNKNOWN") or is_hex_id(v):
        return None
    return v


def _gpu_from_fields(index: Optional[int], f: Dict[str, str], source: str) -> Gpu:
    low = {k.strip().lower().rstrip(":"): (v or "").strip() for k, v in f.items()}
    model, series = low.get("card model"), low.get("card series")
    name = _name(model) or _name(series) or _name(low.get("marketing name")) or _name(low.get("device name"))
    dev = hex_id(low.get("device id")) or hex_id(low.get("gpu id"))
    if dev is None and is_hex_id(series):
        # a hex "Card series" is the device id in every generation seen: ROCm 4.0's "Card series: 0x738c" of an
        # MI100 (rocminfo's Chip ID of an MI100 is 29580(0x738c)), a Cezanne APU's "0x1638" next to the model name
        # "Radeon RX Vega 11", 6.x's "Card Series: 0x7448" of a W7900 next to its "Subsystem ID: 0x0e0d"
        dev = hex_id(series)
    if dev is None and is_hex_id(model) and ("subsystem id" in low or "gfx version" in low):
        # 6.x: "Card Model" is the device id; the same outputs name the subsystem id apart and/or print the
        # "GFX Version" line, which no 5.x output (where the model was the subsystem id) has
        dev = hex_id(model)
    gfx = normalize_gfx(low.get("gfx version"))
    mem = None
    vt = low.get("vram total memory (b)")
    if vt and vt.isascii() and vt.isdigit() and len(vt) <= 30:
        mem = int(vt) // (1024 * 1024)
    return Gpu(index=index, name=name, memory_mib=mem, vendor="amd", gfx=gfx, device_id=dev, source=source,
               bus_id=_name(low.get("pci bus")))


#: what only NVIDIA's tools print (nvidia-smi's table and ``-q``, collect_env's NVIDIA rows), and rocm-smi's banner
_NVIDIA_OUTPUT = re.compile(r"NVIDIA-SMI \d|NVSMI LOG|CUDA Version\s*:|Nvidia driver version\s*:", re.IGNORECASE)
#: a failure text is rocm-smi's only where it speaks of AMD's stack
#: a shell saying the command or the file is not there ("bash: rocm-smi: command not found", "zsh: command not found:
#: rocm-smi", "bash: /opt/rocm/bin/rocm-smi: No such file or directory", `cat`'s "cat: /sys/...: No such file or
#: directory"): rocm-smi did not run (an AMD tool that ran and failed is AMD's stack answering; this is not)
_SHELL_NOT_FOUND = re.compile(r"^[ \t>$#]*(?:(?:-?bash|sh|zsh|dash|ksh)(?:: line \d{1,6}|: \d{1,6})?: )?(?:[\w./-]{0,80}rocm-smi[\w.]{0,8}: "
                              r"(?:command )?not found|command not found: rocm-smi|[\w./-]{0,80}rocm-smi[\w.]{0,8}: No such "
                              r"file or directory|(?:cat|ls|head): [^\n]{0,200}: No such file or directory)[ \t]*$", re.M)
_AMD_WORDS = re.compile(r"rocm|rsmi|amdgpu|/dev/kfd|/dev/dri|\bAMD\b", re.IGNORECASE)
_ROCM_BANNER = re.compile(r"ROCm System Management Interface|ROCM-SMI", re.IGNORECASE)


def parse_rocm_smi_driver(text: Optional[str]) -> Optional[str]:
    """``rocm-smi --showdriverversion`` (plain or ``--csv``), or any output with a "Driver version" line."""
    if not text:
        return None
    if _NVIDIA_OUTPUT.search(text[:200000]) and not _ROCM_BANNER.search(text[:200000]):
        return None  # nvidia-smi's table / -q, a collect_env under a rocm-smi file name: its driver is NVIDIA's
    for line in text.splitlines()[:5000]:
        # rocm-smi's line starts with it ("Driver version: 6.1.5"); "Nvidia driver version: ..." is another's
        m = re.match(r"^[\s>#|*-]*Driver version\s*:\s*(\S+)", line, re.IGNORECASE)
        if m:
            return m.group(1)
        m = re.match(r"^\s*cardsystem\s*,\s*(\S+)\s*$", line)
        if m:
            return m.group(1)
    return None


_JSON_TOKEN = re.compile(r'"([^"\n]{1,200})"\s*:\s*(\{|"([^"\n]{0,500})")')


def _lenient_json(text: str) -> Optional[Dict[str, Any]]:
    try:
        data = json.loads(text)
        return data if isinstance(data, dict) else None
    except (ValueError, RecursionError):
        pass
    # a paste cut short, elided ("... }") or several documents in a row: the complete "key": "value" pairs,
    # grouped by the "cardN" / "system" object they follow (repeated objects of one card merge); pairs before any
    # such key belong to a card whose key was cut off ("card?")
    out: Dict[str, Dict[str, str]] = {}
    cur: Optional[str] = None
    for m in _JSON_TOKEN.finditer(text[:2_000_000]):
        key, val = m.group(1), m.group(3)
        if m.group(2) == "{":
            if _CARD_KEY.match(key) or key == "system":
                cur = key
                out.setdefault(cur, {})
            continue
        if cur is None:
            cur = "card?"
            out.setdefault(cur, {})
        out[cur].setdefault(key, val or "")
    return out or None


def _parse_json(text: str) -> Optional[RocmSmi]:
    data = _lenient_json(text)
    if not data:
        return None
    r = RocmSmi(form="json")
    for k in sorted(data, key=lambda x: int(x[4:]) if _CARD_KEY.match(x) else 10**6):
        v = data[k]
        m = _CARD_KEY.match(k)
        if not isinstance(v, dict):
            continue
        f = {str(a): str(b) for a, b in v.items() if isinstance(b, (str, int, float))}
        if m:
            r.gpus.append(_gpu_from_fields(int(m.group(1)), f, "rocm-smi --json"))
        elif k == "card?" and any(a.lower() in ("card series", "card model", "gfx version") for a in f):
            r.gpus.append(_gpu_from_fields(None, f, "rocm-smi --json"))
        elif k == "system":
            for a, b in f.items():
                if a.lower().startswith("driver version"):
                    r.driver = b
    return r if r.gpus or r.driver else None


def _parse_csv(lines: List[str]) -> Optional[RocmSmi]:
    head = [h.strip() for h in lines[0].split(",")]
    if not head or head[0].lower() != "device":
        return None
    r = RocmSmi(form="csv")
    for line in lines[1:]:
        cells = [c.strip() for c in line.split(",")]
        if not cells or not cells[0]:
            continue
        if cells[0] == "cardsystem":
            if len(cells) > 1 and "driver" in " ".join(head).lower():
                r.driver = cells[1]
            continue
        m = _CARD_KEY.match(cells[0])
        if not m or len(cells) != len(head):
            continue
        r.gpus.append(_gpu_from_fields(int(m.group(1)), dict(zip(head[1:], cells[1:])), "rocm-smi --csv"))
    return r


def _parse_sections(lines: List[str]) -> RocmSmi:
    r = RocmSmi(form="sections")
    per: Dict[int, Dict[str, str]] = {}
    for line in lines:
        sec = _section_line(line)
        if sec:
            per.setdefault(sec[0], {}).setdefault(sec[1], sec[2])
    product = any("card series" in k.lower() or "card model" in k.lower() for f in per.values() for k in f)
    r.form = "product" if product else "sections"
    for idx in sorted(per):
        r.gpus.append(_gpu_from_fields(idx, per[idx], "rocm-smi"))
    r.driver = parse_rocm_smi_driver("\n".join(lines))
    return r


_MODEL_ROW = re.compile(r"^\s*(\d{1,9})\s+\[(0x[0-9a-fA-F]{1,4})\s*:\s*(0x[0-9a-fA-F]{1,2})\]")


def _concise_name(text: str) -> Tuple[Optional[str], Optional[str]]:
    """The "Name (20 chars)" line under a row: (name, device id). rocm_smi_lib's ``rsmi_dev_name_get`` returns
    the hex device id when the id is not in the system's name files (pci.ids): a hex name is the device id and
    the name is unknown. A name cut at 20 characters loses a dangling "(" ("AMD INSTINCT MI200 (")."""
    v = text.strip()
    if is_hex_id(v):
        return None, hex_id(v)
    v = re.sub(r"\s*\($", "", v).strip()
    return (v or None), None


def _parse_model_revision(lines: List[str]) -> RocmSmi:
    """The concise table of rocm-smi 5.7 to 6.1: ``Device  [Model : Revision] ...`` with each GPU's name on the
    line below its row (``Name (20 chars)``). ``[Model : Revision]`` is the subsystem id and revision id (an
    RX 7900 XTX prints ``[0x5200 : 0xc8]`` with the name ``0x744c``), so it gives no device id."""
    r = RocmSmi(form="concise")
    pending: Optional[int] = None
    for line in lines:
        if not line.strip():
            continue
        if line.strip().startswith("="):
            pending = None
            if r.gpus and "End of ROCm SMI Log" in line:
                break
            continue
        m = _MODEL_ROW.match(line)
        if m:
            r.gpus.append(Gpu(index=int(m.group(1)), name=None, vendor="amd", source="rocm-smi"))
            pm = re.search(r"\b(N/A|NPS\d)\s*,\s*(N/A|[A-Z]PX)\b", line)
            if pm and pm.group(2) != "N/A":
                r.partitions[int(m.group(1))] = f"{pm.group(2)}:0"
            pending = len(r.gpus) - 1
            continue
        if pending is not None and line[:1].isspace():
            name, dev = _concise_name(line[:200])
            g = r.gpus[pending]
            r.gpus[pending] = replace(g, name=name, device_id=dev)
            pending = None
    return r


def _parse_tables(lines: List[str]) -> Optional[RocmSmi]:
    """The default table: ``GPU  Temp AvgPwr ...`` (ROCm <= 5) or ``Device  Node  IDs ... Partitions`` (6+)."""
    hdr_i = None
    for i, line in enumerate(lines):
        s = line.split()
        if s[:2] in (["GPU", "Temp"], ["Device", "Node"], ["GPU", "NODE"], ["GPU", "DID"]):
            hdr_i = i
            break
        if s[:4] == ["Device", "[Model", ":", "Revision]"]:
            return _parse_model_revision(lines[i + 1:])
    if hdr_i is None:
        return None
    header = lines[hdr_i].split()
    concise = header[0] == "Device"
    # --showhw: "GPU NODE DID GUID GFX VER ... BUS PARTITION ID" (6.x), "GPU DID GFX RAS ... BUS" (5.x, DID bare hex)
    hw = header[:2] in (["GPU", "NODE"], ["GPU", "DID"])
    r = RocmSmi(form="concise" if concise else "hardware" if hw else "table")
    for line in lines[hdr_i + 1:]:
        s = line.split()
        if not s or line.lstrip().startswith(("=", "(")) or not (s[0].isascii() and s[0].isdigit() and len(s[0]) <= 9):
            if r.gpus and line.strip().startswith("="):
                if "End of ROCm SMI Log" in line:
                    break
            continue
        idx = int(s[0])
        dev = None
        part = None
        if concise:
            m = re.match(r"^\s*\d+\s+\d+\s+(0x[0-9a-fA-F]+),", line)
            dev = hex_id(m.group(1)) if m else None
            m = re.search(r"\b(N/A|NPS\d),\s*(N/A|[A-Z]PX),\s*(\d{1,9})\b", line)
            if m:
                part = (m.group(2), int(m.group(3)))
        gfx = bus = None
        if hw:
            dev = next((hex_id(t) for t in s[1:4] if is_hex_id(t)), None)
            if dev is None and header[1] == "DID" and len(s) > 1 and re.fullmatch(r"[0-9a-fA-F]{4}", s[1]):
                dev = hex_id("0x" + s[1])
            gfx = next((normalize_gfx(t) for t in s if t.lower().startswith("gfx")), None)
            bus = next((t for t in s if re.fullmatch(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d", t)), None)
            # 6.1.1+ ends with "PARTITION ID" (rocm_smi_lib CHANGELOG: the KFD partition of a DPX/CPX/TPX GPU, its
            # rows sharing one BUS): partition 1, 2, ... are extra views of the GPU of partition 0
            if header[-2:] == ["PARTITION", "ID"] and bus and s[-1].isascii() and s[-1].isdigit() and len(s[-1]) <= 4:
                r.partitions[idx] = f"N/A:{int(s[-1])}"
        r.gpus.append(Gpu(index=idx, name=None, vendor="amd", device_id=dev, gfx=gfx, bus_id=bus, source="rocm-smi",
                          partition=part[0] if part and part[0] != "N/A" else None))
        if part is not None:
            r.partitions[idx] = f"{part[0]}:{part[1]}"
    return r


def _uncommented(lines: List[str]) -> List[str]:
    """A table quoted as shell comments in notes or a script ("# GPU  Temp   AvgPwr ...", "# 0    37.0c ..."):
    the lines without the "# " where most non-blank lines carry it; else no lines."""
    body = [ln for ln in lines if ln.strip()]
    if not body or sum(ln.lstrip().startswith("#") for ln in body) * 5 < len(body) * 4:
        return []
    return [re.sub(r"^\s*# ?", "", ln) for ln in lines]


def _csv_as_python_list(lines: List[str]) -> Optional[List[str]]:
    """A ``--csv`` output pasted as the Python list of its lines (``['device,Card Series,...', 'card0,...']``,
    e.g. a report printing ``stdout.splitlines()``): the quoted lines, else ``None``."""
    for ln in lines:
        at = ln.find("['device,")
        if at < 0:
            continue
        items = re.findall(r"'([^'\n]{0,4000})'", ln[at:at + 400000])
        if items and items[0].lower().startswith("device,"):
            return items[:4096]
    return None


@gpu_list
def parse_rocm_smi(text: Optional[str]) -> RocmSmi:
    """Any rocm-smi capture -> :class:`RocmSmi`. An unrecognised text gives ``form=None``."""
    if not text or not text.strip():
        return RocmSmi()
    stripped = text.lstrip()
    if stripped.startswith("{") or (stripped.startswith('"') and re.search(
            r'"(?:Card [Ss]eries|Card [Mm]odel|GFX Version|card\d{1,9})"\s*:', stripped[:200000])):
        # JSON, or a JSON paste whose first lines were cut off
        return _parse_json(stripped) or RocmSmi(error="not valid rocm-smi JSON")
    lines = text.splitlines()[:20000]
    body = [ln for ln in lines if ln.strip()]
    if len(body) > 1 and "rocm-smi" in body[0] and "--csv" in body[0] and body[1].strip().lower().startswith("device,"):
        body = body[1:]  # the command line pasted above its output ("$ rocm-smi --showproductname --csv")
    if body and body[0].strip().lower().startswith("device,"):
        return _parse_csv(body) or RocmSmi()
    listed = _csv_as_python_list(lines)
    if listed:
        return _parse_csv(listed) or RocmSmi()
    if any(_section_line(ln) for ln in lines):
        return _parse_sections(lines)
    t = _parse_tables(lines) or _parse_tables(_uncommented(lines))
    if t is not None and (t.gpus or _ROCM_BANNER.search(text[:200000])):
        t.driver = parse_rocm_smi_driver(text)
        return t  # (a "table" with no GPU row and no rocm-smi banner is another tool's columns: clinfo's)
    if _NVIDIA_OUTPUT.search(text[:200000]) and not _ROCM_BANNER.search(text[:200000]):
        return RocmSmi()  # NVIDIA's output under a rocm-smi file name ("ECC Errors" is no rocm-smi failure)
    if _SHELL_NOT_FOUND.search(text[:200000]):
        return RocmSmi()  # the shell's answer: rocm-smi (or the file) was not there, so it did not run, let alone fail
    low = text.lower()
    if not _AMD_WORDS.search(text[:200000]):
        return RocmSmi()  # an error of some other tool (clinfo's, a shell's): not rocm-smi failing
    for needle in ("rocm-smi: command not found", "no such file or directory", "permission denied",
                   "unable to initialize", "rsmi_status", "error"):
        if needle in low:
            line = next((ln.strip() for ln in lines if needle in ln.lower()), needle)
            return RocmSmi(form="error", error=line[:300], driver=parse_rocm_smi_driver(text))
    drv = parse_rocm_smi_driver(text)
    return RocmSmi(form="sections" if drv else None, driver=drv)


def physical(gpus: List[Gpu], partitions: Dict[int, str]) -> Tuple[List[Gpu], Optional[str]]:
    """Entries of a partitioned GPU (DPX/CPX: one GPU listed once per partition, partition id > 0 on the
    extra rows) folded to one per physical GPU; the partition mode seen (``DPX``), if any."""
    mode = None
    out = []
    for g in gpus:
        p = partitions.get(g.index) if g.index is not None else None
        if p:
            m, _, pid = p.partition(":")
            if m not in ("N/A", "SPX") and mode is None:
                mode = m
            if pid not in ("", "0"):
                continue
        out.append(g)
    return out, mode
