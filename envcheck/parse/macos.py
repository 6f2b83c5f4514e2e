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
    return _product_version_flag(head)


#: ``sw_vers -productVersion`` (the flag prints the bare version; ``-productVersionExtra`` prints the Rapid Security
#: Response's "(a)"), behind a prompt or a path, maybe piped ("| cut -d. -f1,2")
_FLAG = re.compile(r"\bsw_vers[ \t]{1,8}-productVersion(?![A-Za-z])", re.IGNORECASE)
#: its output line, also quoted ("> 10.10.4") or annotated ("26.6.2     # ...")
_BARE = re.compile(r"^\s*(?:>\s?)?(\d{1,3}(?:\.\d{1,3}){0,2})\s*(?:#.*)?$")


def _product_version_flag(text: str) -> Optional[str]:
    """The version ``sw_vers -productVersion`` printed: the first bare version line after its command line; or the
    whole capture where it is one bare macOS version (10.x, 11 and later) and nothing else."""
    lines = [ln for ln in text.splitlines()[:2000] if ln.strip()]
    for i, line in enumerate(lines[:-1]):
        if _FLAG.search(line):
            m = _BARE.match(lines[i + 1])
            if m:
                return m.group(1)
    m = _BARE.match(lines[0]) if len(lines) == 1 else None
    return m.group(1) if m and int(m.group(1).split(".")[0]) >= 10 else None


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


#: the keys read, as System Information prints them in the other languages of the real samples
#: (tests/data/vendors/system-profiler/v21k-*: German and Simplified Chinese macOS) -> the English key
_LOCAL_KEYS = {
    "Chipsatz-Modell": "Chipset Model", "Hersteller": "Vendor", "Ger\u00e4te-ID": "Device ID",
    "VRAM (gesamt)": "VRAM (Total)", "VRAM (dynamisch, maximal)": "VRAM (Dynamic, Max)",
    "\u82af\u7247\u7ec4\u578b\u53f7": "Chipset Model", "\u4f9b\u5e94\u5546": "Vendor", "\u8bbe\u5907ID": "Device ID",
    "VRAM\uff08\u52a8\u6001\uff0c\u6700\u5927\u503c\uff09": "VRAM (Dynamic, Max)",
}
_KEY_AT = re.compile(r"^(\s*(?:[-*\u2022]\s+)?)(" + "|".join(re.escape(k) for k in _LOCAL_KEYS) + r")(?=:)")
#: a quote prefix every line of the paste carries ("// " in a source comment, "# " in a script, "> " in Markdown)
_QUOTE = re.compile(r"^(//|#|>)[ \t]?")
#: a reader's note after a value, set off by spaces and an arrow ("Bus: Built-In      \u2190 integrated")
_NOTE = re.compile(r"[ \t]{2,40}(?:\u2190|<-)\s.*$")  # bounded: linear over a value of any length
#: the fields that follow "Chipset Model" on a line that lost its line breaks (a mail's folded paste)
_RUN_ON = re.compile(r"\s(?=(?:Type|Bus|PCIe Lane Width|VRAM \([A-Za-z, ]{1,20}\)|Vendor|Device ID|Revision ID|"
                     r"ROM Revision|VBIOS Version|Option ROM Version|EFI Driver Version|Automatic Graphics Switching|"
                     r"gMux Version|Metal(?: Support| Family)?|Total Number of Cores|Displays): )")


def _english(line: str) -> str:
    """One line with its key in English and its colon ASCII: a localised System Information copy (a German
    ``Chipsatz-Modell:\tGMA X3100``, a Chinese ``\u82af\u7247\u7ec4\u578b\u53f7\uff1a\tIntel HD Graphics 620``), a tab between key and value."""
    line = line.replace("\uff1a", ":").replace(":\t", ": ")
    return _KEY_AT.sub(lambda m: m.group(1) + _LOCAL_KEYS[m.group(2)], line, count=1)


def _unquoted(lines: List[str]) -> List[str]:
    """The lines without the quote prefix that every non-blank one carries (``// ``, ``# ``, ``> ``), and a mail's
    quoted-printable soft line breaks (a line ending in ``=``) joined again."""
    body = [ln.strip() for ln in lines if ln.strip()]
    for mark in ("//", "#", ">"):
        if body and all(b.startswith(mark) for b in body):
            lines = [_QUOTE.sub("", ln.strip()) for ln in lines]
            break
    if sum(ln.rstrip().endswith(" =") for ln in lines) >= 2:
        joined: List[str] = []
        carry = ""
        for ln in lines:
            if ln.rstrip().endswith(" ="):
                carry += ln.rstrip()[:-1]
                continue
            joined.append(carry + ln)
            carry = ""
        lines = joined + ([carry] if carry else [])
    return lines


@gpu_list
def parse_system_profiler(text: Optional[str]) -> List[Gpu]:
    """The GPUs (``Chipset Model``) of ``system_profiler SPDisplaysDataType``."""
    if not text or not text.strip():
        return []
    if text.lstrip().startswith("{"):
        return _from_json(text.lstrip()) or []
    unquoted = "\n".join(_unquoted(text.splitlines()[:20000])).lstrip()
    if unquoted.startswith("{"):  # -json quoted as a source comment ("//\t{" lines of a Go file)
        return _from_json(unquoted) or []
    gpus: List[Gpu] = []
    cur: Optional[Dict[str, str]] = None
    lines = _unquoted([_english(ln) for ln in text.splitlines()[:20000]])
    for line in lines:
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
    return gpus or _flattened(lines)


def _flattened(lines: List[str]) -> List[Gpu]:
    """A paste that lost the indentation (a README's list, blank lines between the fields, "- Chipset Model: ..."
    bullets, the fields run together on one line): each ``Chipset Model`` starts a GPU, the ``Key: value`` fields
    after it are its fields."""
    gpus: List[Gpu] = []
    cur: Optional[Dict[str, str]] = None
    split: List[str] = []
    for line in lines:
        split.extend(_RUN_ON.split(line) if "Chipset Model: " in line else [line])
    for line in split:
        # a line's own quote mark ("#   Chipset Model: ..." of a grep in notes), then a bullet
        s = re.sub(r"^[-*\u2022]\s+", "", _QUOTE.sub("", line.strip()).strip())
        k, sep, v = s.partition(": ")
        if not sep:
            continue
        if k == "Chipset Model":
            if cur:
                gpus.append(_text_gpu(cur, len(gpus)))
            cur = {}
        if cur is not None:
            cur.setdefault(k.strip(), _NOTE.sub("", v).strip())
    if cur:
        gpus.append(_text_gpu(cur, len(gpus)))
    return [g for g in gpus if g.name]


#: a GPU's maker from its own name, where the copy has no ``Vendor`` line (a README that kept a few fields)
_NAME_VENDOR = re.compile(r"^(?:(Apple) M\d|(Intel)\b|(AMD|ATI|Radeon)\b|(NVIDIA|GeForce|Quadro)\b)", re.IGNORECASE)


def _vendor_of_name(name: Optional[str]) -> Optional[str]:
    m = _NAME_VENDOR.match(name or "")
    if not m:
        return None
    return ("apple", "intel", "amd", "nvidia")[next(i for i in range(4) if m.group(i + 1))]


def _text_gpu(f: Dict[str, str], i: int) -> Gpu:
    name = f.get("Chipset Model")
    dev = f.get("Device ID", "")
    return Gpu(index=i, name=name, vendor=_vendor(f.get("Vendor", "")) or _vendor_of_name(name),
        device_id=dev.lower() if re.fullmatch(r"0x[0-9a-fA-F]{4}", dev) else None,
        memory_mib=_mib(f.get("VRAM (Total)", "") or f.get("VRAM (Dynamic, Max)", "")), source="system_profiler")
