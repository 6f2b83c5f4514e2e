"""macOS: ``sw_vers`` and ``system_profiler SPDisplaysDataType`` (text or ``-json``)."""

from __future__ import annotations

import json
import re
from typing import Dict, List, Optional

from envcheck.model import Gpu
from envcheck.parse.limits import gpu_list

__all__ = ["parse_sw_vers", "parse_system_profiler", "is_apple_gpu"]


def parse_sw_vers(text: Optional[str]) -> Optional[str]:
    """``ProductVersion: 14.4.1`` -> ``14.4.1`` (``10.13`` stays ``10.13``)."""
    for line in (text or "").splitlines()[:2000]:
        # also quoted as a shell comment ("# ProductVersion:  14.1.1") in READMEs and scripts
        m = re.match(r"^\s*(?:[#>]\s*)?ProductVersion:\s*(\d+(?:\.\d+){0,2})\s*$", line)
        if m:
            return m.group(1)
    # its lines joined into one ("ProductName: macOS; ProductVersion: 15.7.9; BuildVersion: 24G830"): the key is
    # sw_vers's own, read where it stands when the text also holds sw_vers's ProductName key
    head = (text or "")[:262144]
    if "ProductName:" in head:
        m = _JOINED.search(head)
        if m:
            return m.group(1)
    return None


_JOINED = re.compile(r"(?<![A-Za-z])ProductVersion:[ \t]*(\d{1,3}(?:\.\d{1,3}){0,2})(?![\d.])")


def _vendor(v: str) -> Optional[str]:
    lv = v.lower()
    for key, name in (("apple", "apple"), ("0x106b", "apple"), ("amd", "amd"), ("ati", "amd"), ("0x1002", "amd"),
                      ("intel", "intel"), ("0x8086", "intel"), ("nvidia", "nvidia"), ("0x10de", "nvidia")):
        if key in lv:
            return name
    return None


def is_apple_gpu(g: Gpu) -> bool:
    return g.vendor == "apple" or bool(g.name and re.match(r"^Apple M\d", g.name))


def _mib(v: str) -> Optional[int]:
    m = re.match(r"^\s*(\d{1,30})\s*(GB|MB)", v or "")
    if not m:
        return None
    return int(m.group(1)) * (1024 if m.group(2) == "GB" else 1)


def _from_json(text: str) -> Optional[List[Gpu]]:
    items: List[Dict[str, str]] = []
    try:
        data = json.loads(text)
        arr = data.get("SPDisplaysDataType") if isinstance(data, dict) else None
        if isinstance(arr, list):
            items = [{k: v for k, v in it.items() if isinstance(v, str)} for it in arr if isinstance(it, dict)]
    except (ValueError, RecursionError):
        # a paste cut short: the GPU-level keys are those indented by 6 spaces, before "spdisplays_ndrvs"
        cur: Optional[Dict[str, str]] = None
        for line in text.splitlines()[:20000]:
            m = re.match(r'^ {4,6}"([^"]+)"\s*:\s*"([^"]*)"', line)
            if line.startswith("    {") and len(line) - len(line.lstrip()) == 4:
                cur = {}
                items.append(cur)
                continue
            if m and cur is not None and len(line) - len(line.lstrip()) == 6:
                cur.setdefault(m.group(1), m.group(2))
    if not items:
        return None
    out = []
    for i, it in enumerate(items):
        name = it.get("sppci_model") or it.get("_name") or ""
        m = re.match(r"^kHW_Apple(M\d+)(Pro|Max|Ultra)?Item$", name)
        if m:
            name = "Apple " + m.group(1) + (" " + m.group(2) if m.group(2) else "")
        vendor = _vendor(it.get("spdisplays_vendor", "")) or ("apple" if name.startswith("Apple") else None)
        dev = it.get("spdisplays_device-id", "")
        out.append(Gpu(index=i, name=name or None, vendor=vendor,
                       device_id=dev.lower() if re.fullmatch(r"0x[0-9a-fA-F]{4}", dev) else None,
                       memory_mib=_mib(it.get("spdisplays_vram", "") or it.get("_spdisplays_vram", "")),
                       source="system_profiler -json"))
    return out


@gpu_list
def parse_system_profiler(text: Optional[str]) -> List[Gpu]:
    """The GPUs (``Chipset Model``) of ``system_profiler SPDisplaysDataType``."""
    if not text or not text.strip():
        return []
    if text.lstrip().startswith("{"):
        return _from_json(text.lstrip()) or []
    gpus: List[Gpu] = []
    cur: Optional[Dict[str, str]] = None
    for line in text.splitlines()[:20000]:
        line = line.replace(":\t", ": ")  # a copy whose key and value are parted by a tab (older macOS, a forum's)
        s = line.strip()
        indent = len(line) - len(line.lstrip())
        k, sep, v = s.partition(": ")
        if not sep and s.endswith(":") and indent == 4:
            if cur:
                gpus.append(_text_gpu(cur, len(gpus)))
            cur = {}
            continue
        if cur is None and sep and indent == 6 and k == "Chipset Model":
            cur = {}  # a paste cut below the first GPU's title: its fields still make a GPU
        if cur is not None and sep and indent == 6:
            cur.setdefault(k, v.strip())
    if cur:
        gpus.append(_text_gpu(cur, len(gpus)))
    gpus = [g for g in gpus if g.name]
    return gpus or _flattened(text)


def _flattened(text: str) -> List[Gpu]:
    """A paste that lost the indentation (a README's list, blank lines between the fields, "- Chipset Model: ..."
    bullets): each ``Chipset Model`` line starts a GPU, the ``Key: value`` lines after it are its fields."""
    gpus: List[Gpu] = []
    cur: Optional[Dict[str, str]] = None
    for line in text.splitlines()[:20000]:
        s = re.sub(r"^[-*\u2022]\s+", "", line.replace(":\t", ": ").strip())
        k, sep, v = s.partition(": ")
        if not sep:
            continue
        if k == "Chipset Model":
            if cur:
                gpus.append(_text_gpu(cur, len(gpus)))
            cur = {}
        if cur is not None:
            cur.setdefault(k.strip(), v.strip())
    if cur:
        gpus.append(_text_gpu(cur, len(gpus)))
    return [g for g in gpus if g.name]


def _text_gpu(f: Dict[str, str], i: int) -> Gpu:
    name = f.get("Chipset Model")
    dev = f.get("Device ID", "")
    return Gpu(index=i, name=name, vendor=_vendor(f.get("Vendor", "")) or (
        "apple" if (name or "").startswith("Apple") else None),
        device_id=dev.lower() if re.fullmatch(r"0x[0-9a-fA-F]{4}", dev) else None,
        memory_mib=_mib(f.get("VRAM (Total)", "") or f.get("VRAM (Dynamic, Max)", "")), source="system_profiler")
