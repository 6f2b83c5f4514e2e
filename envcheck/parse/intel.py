"""Intel GPU tools: ``sycl-ls`` (which backend sees which device: Level Zero vs OpenCL), ``xpu-smi
discovery`` and ``clinfo``. PyTorch's XPU backend uses Level Zero: a GPU that only OpenCL lists is not
usable by it.

sycl-ls has printed three line forms: ``[opencl:gpu:2] Platform, Device ...`` (2023-2024),
``[ext_oneapi_level_zero:gpu:0] ...`` and ``[level_zero:gpu][level_zero:0] ...`` (2024+); CI logs add a
timestamp before each line; READMEs quote it as a shell comment (``# [level_zero:gpu]...``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Tuple

from envcheck.model import Gpu
from envcheck.parse.limits import gpu_list

__all__ = ["SyclDevice", "SyclLs", "parse_sycl_ls", "parse_xpu_smi", "parse_clinfo", "intel_pci_gpu", "clinfo_amd_gpus",
           "clinfo_amd_gpu_platform", "nvidia_gpus_seen", "sycl_ls_amd_gpus",
           "intel_small_bar"]

_LINE = re.compile(r"^(?:[#>]\s*)?(?:\S*Z\s+)?\[(?P<be>[a-z_]+):(?P<type>[a-z]+)"
                   r"(?::(?P<i1>\d+))?\](?:\[[a-z_]+:(?P<i2>\d+)\])?\s+(?P<rest>.+?)\s*$")


@dataclass
class SyclDevice:
    backend: str  # "level_zero", "opencl", "cuda", "hip", "native_cpu"
    type: str  # "gpu", "cpu", "acc", "fpga"
    platform: str
    name: str
    driver: Optional[str]
    index: Optional[int] = None  # the device's number in its backend ("[opencl:gpu:2]", "[level_zero:0]")


@dataclass
class SyclLs:
    devices: List[SyclDevice] = field(default_factory=list)
    recognised: bool = False

    def gpus(self, backend: str) -> List[str]:
        """One name per GPU device the backend lists (two A770 are two entries); a line pasted twice (the same
        device number) counts once."""
        seen: Dict[object, str] = {}
        for n, d in enumerate(self.devices):
            if d.type == "gpu" and d.backend == backend:
                seen.setdefault(d.index if d.index is not None else ("line", n), d.name)
        return list(seen.values())

    @property
    def level_zero(self) -> Optional[str]:
        return next((d.driver for d in self.devices if d.backend == "level_zero" and d.type == "gpu" and d.driver),
                    None)

    @property
    def compute_runtime(self) -> Optional[str]:
        return next((d.driver for d in self.devices if d.backend == "opencl" and d.type == "gpu"
                     and "intel" in d.platform.lower() and d.driver), None)


def _device_name(rest: str, backend: str) -> str:
    name = rest
    if backend == "opencl":
        name = re.sub(r"\s+OpenCL\s+\d+\.\d+.*$", "", name)
        name = re.sub(r"\s+\d+\.\d+\s*$", "", name)  # 2023: "... Max 1550 3.0" (no "OpenCL" word)
    else:
        name = re.sub(r"\s+\d+(?:\.\d+)+\s*$", "", name)  # the device / architecture version after the name
    return name.strip()


#: ``sycl-ls --verbose`` (intel/llvm sycl/tools/sycl-ls/sycl-ls.cpp): "Platforms: N", then per platform "Platform [#n]:"
#: with indented "Name     : <platform>" and per device "Device [#k]:" with "Type : gpu", "Name : <device>",
#: "Driver : <version>" (the backend is named only by the platform: "Intel(R) oneAPI Unified Runtime over
#: Level-Zero [V2]", "Intel(R) Level-Zero", "Intel(R) OpenCL [Graphics]", "NVIDIA CUDA BACKEND", "AMD HIP BACKEND")
_V_PLATFORM = re.compile(r"^\s{0,12}Platform \[#\d{1,3}\]:\s*$")
_V_DEVICE = re.compile(r"^\s{0,16}Device \[#(\d{1,3})\]:\s*$")
_V_FIELD = re.compile(r"^\s{0,24}(Name|Type|Driver|Version)\s{0,24}:\s?(.{0,300}?)\s*$")


def _verbose_backend(platform: str) -> Optional[str]:
    p = platform.lower()
    for word, be in (("level-zero", "level_zero"), ("level zero", "level_zero"), ("opencl", "opencl"),
                     ("cuda", "cuda"), ("hip", "hip"), ("native cpu", "native_cpu")):
        if word in p:
            return be
    return None


def _parse_sycl_ls_verbose(lines: List[str], r: SyclLs) -> None:
    """The platform / device blocks of ``sycl-ls --verbose`` where no one-line ``[backend:type]`` list came first."""
    platform: Optional[str] = None
    dev: Optional[Dict[str, str]] = None
    counts: Dict[str, int] = {}

    def flush() -> None:
        if dev is None or platform is None:
            return
        be = _verbose_backend(platform)
        if be and dev.get("Type") and dev.get("Name"):
            n = counts.get(be, 0)
            counts[be] = n + 1
            r.devices.append(SyclDevice(be, dev["Type"].lower(), platform, dev["Name"], dev.get("Driver") or None, n))
            r.recognised = True

    for line in lines:
        if _V_PLATFORM.match(line):
            flush()
            platform, dev = "", None
            continue
        if platform is None:
            continue
        m = _V_DEVICE.match(line)
        if m:
            flush()
            dev = {}
            continue
        m = _V_FIELD.match(line)
        if not m:
            continue
        if dev is None:
            if m.group(1) == "Name" and not platform:
                platform = m.group(2)
        else:
            dev.setdefault(m.group(1), m.group(2))
    flush()


@gpu_list
def parse_sycl_ls(text: Optional[str]) -> SyclLs:
    r = SyclLs()
    lines = (text or "").splitlines()[:5000]
    for line in lines:
        m = _LINE.match(line.strip())
        if not m:
            continue
        be = m.group("be").replace("ext_oneapi_", "")
        # a guide that elided the platform ("[level_zero:gpu][level_zero:0] ... Intel(R) Data Center GPU Max 1550 1.3")
        rest = re.sub(r"^(?:\.{3}|\u2026)\s+", "", m.group("rest"))
        drv = None
        dm = re.search(r"\[([^\[\]]+)\]\s*$", rest)
        if dm:
            drv = dm.group(1).strip() or None
            rest = rest[: dm.start()].rstrip()
        platform, _, dev = rest.partition(", ")
        num = m.group("i2") or m.group("i1")
        r.devices.append(SyclDevice(be, m.group("type"), platform.strip(), _device_name(dev or platform, be), drv,
                                    int(num) if num else None))
        r.recognised = True
    if not r.devices:
        _parse_sycl_ls_verbose(lines, r)
    return r


def _pci_device_id(value: object) -> Optional[str]:
    """xpu-smi's ``pci_device_id`` as the report writes device ids: "0x20a" and "56c0" -> "0x020a", "0x56c0"."""
    m = re.fullmatch(r"(?:0x)?([0-9a-fA-F]{1,4})", str(value).strip()) if isinstance(value, (str, int)) else None
    return f"0x{int(m.group(1), 16):04x}" if m else None


#: one ``"key": "value"`` or ``"key": number`` pair of a JSON object cut short (no nesting is read)
_JSON_PAIR = re.compile(r'"([A-Za-z_][A-Za-z0-9_]{0,63})"\s{0,8}:\s{0,8}(?:"([^"\\\n]{0,300})"|(-?\d{1,18})\b)')


def _json_objects(rest: str, need: Tuple[str, ...]) -> List[Dict[str, object]]:
    """The objects of a JSON list from just after its ``[``: each whole one decoded, and a last one cut short (a
    truncated paste) read for its plain string and number fields, kept only when it holds one of ``need``."""
    import json

    dec = json.JSONDecoder()
    out: List[Dict[str, object]] = []
    i = 0
    while True:
        while i < len(rest) and rest[i] in " \t\r\n,":
            i += 1
        if i >= len(rest) or rest[i] != "{":
            return out
        try:
            obj, i = dec.raw_decode(rest, i)
        except (ValueError, RecursionError):
            part: Dict[str, object] = {}
            for m in _JSON_PAIR.finditer(rest, i, min(len(rest), i + 200_000)):
                part.setdefault(m.group(1), m.group(2) if m.group(2) is not None else int(m.group(3)))
            return out + [part] if any(k in part for k in need) else out
        if isinstance(obj, dict):
            out.append(obj)


def _xpu_smi_json(text: str) -> List[Gpu]:
    """``xpu-smi discovery -j`` (``xpumcli discovery -j`` on Windows): ``{"device_list": [{"device_id",
    "device_name", "pci_bdf_address", "pci_device_id", ...}]}``, after whatever a paste put before it."""
    import json

    start = text.rfind("{", 0, text.find('"device_list"') + 1)
    try:
        data, _ = json.JSONDecoder().raw_decode(text[start:start + 4_000_000])
    except (ValueError, RecursionError):
        data = None
    devices = data.get("device_list") if isinstance(data, dict) else None
    if devices is None:
        # the list alone after its key in another notation (a jq filter's ".device_list == [ {...} ]"), or a
        # paste cut inside the list: its devices one by one, the last one cut read for its plain fields
        k = text.find("device_list")
        b = text.find("[", k) if k >= 0 else -1
        devices = (_json_objects(text[b + 1:b + 4_000_000], ("device_name", "pci_device_id"))
                   if b >= 0 and b - k < 40 else None)
    gpus: List[Gpu] = []
    for d in devices if isinstance(devices, list) else []:
        # "GPU"; newer builds "Discrete GPU" / "Integrated GPU"
        if not isinstance(d, dict) or "GPU" not in str(d.get("device_type") or "GPU").upper():
            continue
        name = d.get("device_name") if isinstance(d.get("device_name"), str) else None
        dev = _pci_device_id(d.get("pci_device_id"))
        m = re.match(r"^(.*\S)\s+\[(0x[0-9a-fA-F]{4})\]$", name or "")
        if m:  # "Intel(R) Graphics [0x020a]": the id appended to a name the driver lacks, as in the table form
            name, dev = m.group(1), dev or m.group(2).lower()
        idx = d.get("device_id")
        bdf = d.get("pci_bdf_address")
        mem = d.get("memory_physical_size_byte")
        gpus.append(Gpu(index=idx if isinstance(idx, int) and not isinstance(idx, bool) else len(gpus),
                        name=name or None, vendor="intel", device_id=dev, source="xpu-smi",
                        memory_mib=_mib(mem if mem is not None else d.get("memory_physical_size")),
                        bus_id=bdf if isinstance(bdf, str) and bdf else None))
    return gpus


def _mib(value: object) -> Optional[int]:
    """xpu-smi's memory size as MiB: ``"16384.00 MiB"`` (the table and ``discovery -d``: xpumanager formats it
    ``{:.2f} MiB``), ``memory_physical_size_byte`` (a number, or a string of digits before 2.x promoted it)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 20):
        return int(value) >> 20 or None
    m = re.match(r"^\s*(\d{1,12})(?:\.\d{1,6})?\s*MiB\b", value) if isinstance(value, str) else None
    return int(m.group(1)) if m else None


#: xpu-smi 2.x's default view (``xpu-smi`` with no argument, ial/cmn/cmd_smi.cpp ``buildGpuTable``), cell 1 of a
#: GPU's first row: ``"{:>3}  {:<22}  Off"`` (index, the name's first 22 characters padded, Persistence-M)
_SMI_ROW = re.compile(r"^\s{0,4}(\d{1,4})  (.{0,22}?)\s*  Off\s*$")


def _xpu_smi_default(lines: List[str]) -> List[Gpu]:
    """xpu-smi 2.x's nvidia-smi-like default view: a banner ``Intel XPU-SMI v2.0  Driver: ...  Level Zero: ...``,
    one bordered row per GPU whose name is cut into 22-character pieces, each further piece on its own line
    (``"     {}"``), then a ``Fan  Temp  Pwr`` line whose second cell is ``"{used}MiB / {total}MiB"``. A name the
    tool could not read is left empty (a B580 under xpu-smi 2.0.1): the GPU is still listed, unnamed. The
    ``Processes:`` table after it is not read."""
    gpus: List[Gpu] = []
    last_piece = 0  # the length of the name's last piece read: short of 22, the cut fell on a space
    col = 6  # where the name starts in its cell: each further piece starts there too ("{:>3}  " and "     ")
    for raw in lines:
        if "Processes:" in raw:
            break
        cells = raw.strip().split("|")
        if len(cells) < 4 or cells[0] or cells[-1]:
            continue  # a border line, or not a row of three cells
        first, second = cells[1].rstrip(), cells[2].strip()
        m = _SMI_ROW.match(first)
        if m:
            bus = re.match(r"^([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\b", second)
            gpus.append(Gpu(index=int(m.group(1)), name=m.group(2).strip() or None, vendor="intel",
                            bus_id=bus.group(1) if bus else None, source="xpu-smi"))
            last_piece, col = len(m.group(2)), m.start(2)
            continue
        if not gpus:
            continue
        g = gpus[-1]
        mem = re.match(r"^(?:\d{1,9}|N/A)\s*MiB\s*/\s*(\d{1,9})\s*MiB$", second)
        if mem:
            gpus[-1] = replace(g, memory_mib=int(mem.group(1)) or None)
        elif not second and not first[:col].strip() and first[col:].strip() and g.memory_mib is None and g.name:
            piece = first[col:].rstrip()
            sep = " " if last_piece < 22 or piece.startswith(" ") else ""
            gpus[-1] = replace(g, name=g.name + sep + piece.strip())
            last_piece = len(piece)
    return gpus


def _name_and_id(name: str, dev: str) -> Tuple[str, str]:
    """"Intel(R) Graphics [0x020a]": the driver appends the PCI device id to a name it lacks or shares; (name
    without it, the device id given or that one)."""
    m = re.match(r"^(.*\S)\s+\[(0x[0-9a-fA-F]{4})\]$", name)
    return (m.group(1), dev or m.group(2)) if m else (name, dev)


@gpu_list
def parse_xpu_smi(text: Optional[str]) -> List[Gpu]:
    """``xpu-smi discovery`` (the boxed table), ``xpu-smi discovery -d N`` (the plain one) or
    ``xpu-smi discovery --dump ...`` (CSV with a ``Device ID,Device Name,...`` header)."""
    gpus: List[Gpu] = []
    if text and ('"device_list"' in text or re.search(r"\.device_list\s{0,3}==\s{0,3}\[", text[:200000])):
        return _xpu_smi_json(text)
    lines = (text or "").strip().splitlines()
    if any("Persistence-M" in ln for ln in lines[:400]) and any("XPU-SMI" in ln for ln in lines[:400]):
        return _xpu_smi_default(lines[:20000])
    # the CSV's header, under the command line that printed it ("xpu-smi discovery --dump 1,2,3,6", a prompt)
    head_at = next((i for i, ln in enumerate(lines[:4]) if ln.lstrip("\ufeff").startswith("Device ID,")), None)
    if head_at is not None:
        lines = [lines[head_at].lstrip("\ufeff")] + lines[head_at + 1:]
        import csv

        rows = list(csv.reader(lines[:1025]))
        head = [h.strip() for h in rows[0]]
        for row in rows[1:]:
            rec = dict(zip(head, (c.strip() for c in row)))
            did = rec.get("Device ID", "")
            if not (did.isascii() and did.isdigit() and len(did) <= 9):
                continue
            name, dev = _name_and_id(rec.get("Device Name") or "", rec.get("PCI Device ID", ""))
            gpus.append(Gpu(index=int(rec["Device ID"]), name=name or None, vendor="intel",
                            device_id=dev.lower() if re.fullmatch(r"0x[0-9a-fA-F]{4}", dev) else None,
                            memory_mib=_mib(rec.get("Memory Physical Size")), source="xpu-smi --dump"))
        return gpus
    cur: Optional[Dict[str, str]] = None
    idx: Optional[int] = None

    def flush() -> None:
        # a device row with no name (xpu-smi 2.1 lists a card "Device State: survivability mode" with only its state;
        # that state is not a fault to report: 2.1.0 also prints it for healthy Battlemage cards): a GPU still
        if cur is not None and (cur.get("Device Name") or cur.get("PCI Device ID") or cur.get("Device State")):
            name, dev = _name_and_id(cur.get("Device Name") or "", cur.get("PCI Device ID", ""))
            cur["Device Name"] = name
            gpus.append(Gpu(index=idx, name=cur.get("Device Name") or None, vendor="intel",
                            device_id=dev.lower() if re.fullmatch(r"0x[0-9a-fA-F]{4}", dev) else None,
                            memory_mib=_mib(cur.get("Memory Physical Size")), source="xpu-smi",
                            bus_id=cur.get("PCI BDF Address") or None))

    for raw in (text or "").splitlines()[:20000]:
        line = raw.replace("|", " ").rstrip()
        if not line.strip() or set(line.strip()) <= set("+-= "):
            continue
        m = re.match(r"^\s{0,4}(\d{1,9})\s{2,}(.*)$", line)
        if m:
            flush()
            cur, idx = {}, int(m.group(1))
            line = m.group(2)
        if cur is None:
            continue
        k, sep, v = line.strip().partition(": ")
        if sep:
            cur.setdefault(k.strip(), v.strip())
    flush()
    return gpus


#: ``clinfo -l`` prints no device type: a CPU is known by its name (Intel's CPU runtime, platform "Intel(R) OpenCL",
#: lists "Intel(R) Core(TM) i7-8565U CPU @ 1.80GHz"; pocl lists "cpu-haswell-..."), an FPGA emulator by its
_LISTED_CPU = re.compile(r"\bCPU\b|\bcpu-|Core\(TM\)|Xeon|EPYC|Threadripper|\bProcessor\b", re.IGNORECASE)


def _listed_type(platform: Optional[str], name: str) -> Optional[str]:
    if "fpga" in name.lower() or "fpga" in (platform or "").lower():
        return "ACCELERATOR"
    if _LISTED_CPU.search(name):
        return "CPU"
    return None  # unknown: a GPU for the callers that want GPUs, as before


#: `clinfo -l`'s own lines, also behind a quote or a note ("# Platform #0: ...", "# \ucd9c\ub825 \uacb0\uacfc: Platform #0: ...")
#: and with the tree glyph lost ("#  -- Device #0: ...")
_L_PLATFORM = re.compile(r"(?:^|[\s#>:])Platform #\d{1,3}:[ \t]*(\S.{0,300})$")
_L_DEVICE = re.compile(r"^[#>]?\s{0,8}[`+|]?-- Device #\d{1,3}:[ \t]*(\S.{0,300})$")
#: `clinfo -l`'s platform and device lines joined into one ("Platform #0: X / Device #0: Y")
_L_JOINED = re.compile(r"\s/\s+(?=(?:[`+|]?--\s*)?Device #\d{1,3}:)")


#: a Markdown backslash escape of a bracket or another punctuation mark ("Iris(R) Xe Graphics \[0x9a49\]" in a page
#: converted to Markdown): clinfo never prints a backslash before these
_MD_ESCAPE = re.compile(r"\\([\[\]()_*#`])")


def _clinfo_lines(text: Optional[str]) -> List[str]:
    out: List[str] = []
    for raw in (text or "").splitlines()[:50000]:
        s = _MD_ESCAPE.sub(r"\1", raw.strip()) if "\\" in raw else raw.strip()
        if s.startswith(">") and not s.startswith(">>"):
            s = s[1:].strip()  # a Markdown / e-mail quote of the output ("> Number of platforms   1")
        if "Platform #" in s and _L_JOINED.search(s):
            first, *rest = _L_JOINED.split(s)
            out.append(first)
            out.extend("-- " + r.lstrip("`+|-").strip() for r in rest)
            continue
        out.append(s)
    return out


@gpu_list
def parse_clinfo(text: Optional[str]) -> List[Dict[str, Optional[str]]]:
    """``clinfo`` (ocl-icd's ``Device Name   X`` form and AMD's ``Name:   X`` form): ``[{"platform", "name",
    "type", "vendor", "driver"}]`` per device."""
    out: List[Dict[str, Optional[str]]] = []
    platform: Optional[str] = None
    cur: Optional[Dict[str, Optional[str]]] = None
    keys = ("Platform Name", "Device Name", "Name", "Device Type", "Device Vendor", "Vendor", "Driver Version",
            "Driver version")
    for s in _clinfo_lines(text):
        # `clinfo -l`: "Platform #0: NAME" / " `-- Device #0: NAME"
        m = _L_PLATFORM.search(s)
        if m:
            platform, cur = m.group(1).strip(), None
            continue
        m = _L_DEVICE.match(s)
        if m:
            name = m.group(1).strip()
            out.append({"platform": platform, "name": name, "type": _listed_type(platform, name), "vendor": None,
                        "driver": None})
            continue
        m = re.match(r"^(" + "|".join(keys) + r"):?\s{1,}(\S.*)$", s)
        if not m:
            continue
        k, v = m.group(1), m.group(2).strip()
        if k == "Platform Name":
            if cur is None:
                platform = v
            continue
        if k == "Device Type" and (cur is None or (cur.get("name") and cur.get("type"))):
            if cur is not None:
                out.append(cur)
            cur = {"platform": platform, "name": None, "type": v, "vendor": None, "driver": None}
            continue
        if k in ("Device Name", "Name"):
            if cur is not None and cur.get("name"):
                out.append(cur)
                cur = None
            if cur is None:
                cur = {"platform": platform, "name": None, "type": None, "vendor": None, "driver": None}
            cur["name"] = v
        elif cur is None:
            continue
        elif k == "Device Type":
            cur["type"] = v
        elif k in ("Device Vendor", "Vendor"):
            cur["vendor"] = cur.get("vendor") or v
        else:
            cur["driver"] = cur.get("driver") or v
    if cur is not None and cur.get("name"):
        out.append(cur)
    # a device whose "Device Type" line a paste cut off: typed by its name, as `clinfo -l`'s are (Intel's CPU runtime
    # lists "AMD Ryzen 5 5600 6-Core Processor")
    return [d if d.get("type") else dict(d, type=_listed_type(d.get("platform"), str(d.get("name") or "")))
            for d in out]


#: a device vendor as Apple's OpenCL names it ("Apple", "AMD", "Intel Inc.", "NVIDIA")
_CL_VENDORS = (("apple", "apple"), ("amd", "amd"), ("advanced micro devices", "amd"), ("intel", "intel"),
               ("nvidia", "nvidia"))


def clinfo_apple_gpus(text: Optional[str]) -> List[Gpu]:
    """The GPU devices of Apple's own OpenCL platform (platform name "Apple", macOS only): Apple silicon's GPU ("Apple
    M4 Pro"), an Intel Mac's AMD or Intel GPU. They make the machine a Mac where system_profiler was not captured; the
    memory clinfo prints is unified memory on Apple silicon, so none is read."""
    out: List[Gpu] = []
    for d in parse_clinfo(text):
        if (d.get("platform") or "").strip() != "Apple" or "GPU" not in (d.get("type") or "").upper():
            continue
        who = ((d.get("vendor") or "") + " " + (d.get("name") or "")).lower()
        vendor = next((v for key, v in _CL_VENDORS if key in who), None)
        out.append(Gpu(index=len(out), name=d.get("name"), vendor=vendor, source="clinfo (Apple)"))
    return out


#: Intel's compute runtime (NEO, shared/source/os_interface/linux/drm_neo.cpp) on a discrete GPU whose PCI BAR is too
#: small for it, before it refuses the device: "WARNING: Small BAR detected for device 0000:1b:00.0" (newer
#: releases: "WARNING: Resizable BAR not detected for device ..."); clinfo then lists no platform or only the CPU
_SMALL_BAR = re.compile(r"WARNING: (?:Small BAR detected|Resizable BAR not detected) for device "
                        r"([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])")


def intel_small_bar(text: Optional[str]) -> List[str]:
    """The PCI addresses of the Intel GPUs Intel's compute runtime refused for a small BAR (Resizable BAR off), in
    the order first named."""
    return list(dict.fromkeys(m.group(1).lower() for m in _SMALL_BAR.finditer((text or "")[:2_000_000])))


def intel_pci_gpu(vendor: str, device: str, klass: str) -> bool:
    """``/sys/bus/pci/devices/*/{vendor,device,class}``: an Intel (0x8086) display controller (class 0x03xxxx)."""
    return vendor.strip().lower() == "0x8086" and klass.strip().lower().startswith("0x03")


# -- clinfo on AMD: ROCm's OpenCL names a device by its gfx target and the card in a separate key ----------------
_CL_KEY = re.compile(r"^\s{0,8}(Device Type|Device Name|Name|Board name|Device Board Name \(AMD\)|Vendor ID|"
                     r"Device Vendor ID|Vendor|Device Vendor|Device PCI-e ID \(AMD\)|Device Topology \(AMD\)|"
                     r"Device Topology|Platform Name):?[ \t]*(.*?)\s*$")
_MESA_PLATFORMS = ("clover", "rusticl")


def _amd_cl_gpu(d: Dict[str, str], platform: Optional[str]) -> Optional[Gpu]:
    from envcheck.parse.gfx import normalize_gfx

    typ = d.get("type", "").upper()
    if typ and "GPU" not in typ:
        return None
    if (platform or "").strip().lower() in _MESA_PLATFORMS:
        return None  # Mesa's OpenCL (Clover / rusticl) is not ROCm; the same GPU is listed by ROCm's platform
    vend = (d.get("vendor") or "") + " " + (d.get("vendor_id") or "")
    amd = ("advanced micro devices" in vend.lower() or re.search(r"(?:^|\W)(?:0x1002|1002h)(?:\W|$)", vend)
           or "amd accelerated parallel processing" in (platform or "").lower())
    if not amd:
        return None
    gfx = normalize_gfx(d.get("name"))
    board = (d.get("board") or "").strip() or None
    if board is None and gfx is None:
        return None
    dev = None
    m = re.fullmatch(r"0x([0-9a-fA-F]{1,4})", (d.get("pci_id") or "").strip())
    if m:
        dev = "0x%04x" % int(m.group(1), 16)
    m = re.fullmatch(r"Device ([0-9a-fA-F]{4})", board or "")
    if m:  # the PCI name database (pci.ids) had no name for it: libpciaccess prints "Device <id>"
        board, dev = None, dev or "0x" + m.group(1).lower()
    bus = None
    m = re.search(r"([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d)", d.get("topology") or "")
    if m:
        bus = m.group(1)
    return Gpu(index=None, name=board, vendor="amd", gfx=gfx, device_id=dev, bus_id=bus, source="clinfo")


def _mesa_cl_gpu(d: Dict[str, str]) -> Optional[Gpu]:
    """An AMD GPU as Mesa's OpenCL (rusticl / Clover, ``radeonsi``) lists it: its name without Mesa's parenthesis
    ("AMD Radeon Graphics (radeonsi, renoir, LLVM ..., DRM ...)"), no gfx target (Mesa prints none)."""
    typ = d.get("type", "").upper()
    vend = (d.get("vendor") or "") + " " + (d.get("vendor_id") or "")
    if (typ and "GPU" not in typ) or not re.search(r"(?:^|\W)(?:AMD|0x1002)(?:\W|$)", vend):
        return None
    name = (d.get("board") or d.get("name") or "").split(" (", 1)[0].strip()
    return Gpu(index=None, name=name or None, vendor="amd", source="clinfo (Mesa)") if name else None


#: the renderer name Mesa's radeonsi (and r600) driver gives an AMD GPU, which Clover and rusticl print as the device
#: name: "AMD Radeon RX 6800 (radeonsi, navi21, LLVM 15.0.7, DRM 3.49, 6.2.0)" (Mesa 22+), "AMD Radeon RX 5500 XT
#: (navi14, LLVM 13.0.1, DRM 3.41, 5.13.0-28-generic)", "Radeon RX 570 Series (POLARIS10, DRM 3.33.0, 5.3.6, LLVM
#: 9.0.0)": a chip name, then the kernel DRM interface version (src/gallium/drivers/radeonsi/si_get.c)
_MESA_AMD_NAME = re.compile(r"^(\S.{0,120}?)\s\((?:radeonsi,\s)?[A-Za-z][A-Za-z0-9_]{1,20},\s.{0,80}?\bDRM\s\d{1,2}\.\d{1,3}")


def _listed_mesa_amd(text: Optional[str]) -> List[Gpu]:
    """`clinfo -l`'s devices of a Mesa platform (rusticl, Clover) named by radeonsi: AMD GPUs, the lines naming no
    vendor (the name without Mesa's parenthesis; no gfx target: Mesa prints none)."""
    out: List[Gpu] = []
    for d in parse_clinfo(text):
        m = _MESA_AMD_NAME.match(d.get("name") or "")
        if m and d.get("vendor") is None and (d.get("platform") or "").strip().lower() in _MESA_PLATFORMS \
                and "intel" not in m.group(1).lower():
            out.append(Gpu(index=None, name=m.group(1).strip(), vendor="amd", source="clinfo (Mesa)"))
    return out


@gpu_list
def clinfo_amd_gpus(text: Optional[str]) -> List[Gpu]:
    """The AMD GPUs of a ``clinfo`` capture, in both of its forms: ROCm's own clinfo (``Board name:`` / ``Name:
    gfx900:xnack-``) and ocl-icd's (``Device Board Name (AMD)`` / ``Device Name gfx1100``, ``Device PCI-e ID (AMD)``,
    ``Device Topology (AMD)``). The name is the board name (``CL_DEVICE_BOARD_NAME_AMD``), the gfx target is the
    device name; CPU devices are left out, and Mesa's platforms (Clover, rusticl) count only where no ROCm platform
    lists a GPU (they name the same cards, without a gfx target); ``clinfo -l`` lines, which name no vendor, count
    where a Mesa platform lists a device under radeonsi's renderer name (:data:`_MESA_AMD_NAME`)."""
    out: List[Gpu] = []
    mesa: List[Gpu] = []  # Mesa's devices: the GPUs only where no ROCm platform lists them (the same cards)
    platform: Optional[str] = None
    cur: Optional[Dict[str, str]] = None
    cur_platform: Optional[str] = None

    def flush() -> None:
        if cur is not None:
            g = _amd_cl_gpu(cur, cur_platform)
            if g is not None:
                out.append(g)
            elif (cur_platform or "").strip().lower() in _MESA_PLATFORMS:
                m = _mesa_cl_gpu(cur)
                if m is not None:
                    mesa.append(m)

    for raw in (text or "").splitlines()[:50000]:
        m = _CL_KEY.match(raw[:400])
        if not m:
            continue
        key, val = m.group(1), m.group(2)
        if key == "Platform Name":
            flush()
            cur = None
            platform = val
            continue
        # a new device: AMD's clinfo starts each with "Device Type:", ocl-icd's with "Device Name"
        starts = (key == "Device Type" and raw.rstrip().find(":") > 0 and (cur is None or "type" in cur)) or (
            key == "Device Name" and (cur is None or "name" in cur))
        if starts or cur is None:
            flush()
            cur, cur_platform = {}, platform
        field_name = {"Device Type": "type", "Device Name": "name", "Name": "name", "Board name": "board",
                      "Device Board Name (AMD)": "board", "Vendor ID": "vendor_id", "Device Vendor ID": "vendor_id",
                      "Vendor": "vendor", "Device Vendor": "vendor", "Device PCI-e ID (AMD)": "pci_id",
                      "Device Topology (AMD)": "topology", "Device Topology": "topology"}[key]
        cur.setdefault(field_name, val)
    flush()
    return [replace(g, index=i) for i, g in enumerate(out or mesa or _listed_mesa_amd(text))]


#: the platform version of AMD's GPU OpenCL runtime (ROCm's, or the Radeon driver's): "OpenCL 2.1 AMD-APP (3581.0)".
#: Builds from 3000 on come with AMD's GPU drivers; the old APP SDK's CPU-only runtime was 1xxx-2xxx
_AMD_APP = re.compile(r"^\s*Platform Version:?\s+OpenCL\s+\d\.\d+\s+AMD-APP\s+\((\d{4,6})(?:\.\d+)?\)", re.MULTILINE)


def clinfo_amd_gpu_platform(text: Optional[str]) -> Optional[str]:
    """The AMD-APP build of a clinfo platform that only AMD's GPU drivers install (ROCm, Radeon), e.g. "3581.0"
    -- listed even where it found no device (the GPU driver unreachable); None where there is none."""
    for m in _AMD_APP.finditer((text or "")[:2_000_000]):
        if int(m.group(1)) >= 3000:
            return m.group(1)
    return None


# -- an NVIDIA GPU as another vendor's tool lists it ---------------------------------------------------------------
#: NVIDIA's OpenCL platform is "NVIDIA CUDA" (the ICD of every NVIDIA driver), its devices' vendor "NVIDIA Corporation"
#: (vendor id 0x10de); sycl-ls names NVIDIA's GPUs under its ``cuda`` backend (``[cuda:gpu]``, ``[ext_oneapi_cuda:gpu]``,
#: the verbose form's platform "NVIDIA CUDA BACKEND")
_NVIDIA_CL = re.compile(r"\bNVIDIA\b|(?:^|\W)0x10de(?:\W|$)", re.IGNORECASE)


@gpu_list
@gpu_list
def sycl_ls_amd_gpus(text: Optional[str]) -> List[Gpu]:
    """The AMD GPUs ``sycl-ls``'s HIP backend lists (platform ``AMD HIP BACKEND``; backend ``hip``, before 2024
    ``ext_oneapi_hip``). Its device field is the device's name then its version, which the HIP adapter takes from
    ``gcnArchName``: ``AMD Radeon Pro W7900 gfx1100 [HIP 60342.13]``; ``gfx1030 gfx1030`` where HIP had no marketing
    name (a Steam Deck APU); ``Device 6861 0.0`` from a 2022 adapter (the PCI id, no target). One GPU per device
    number."""
    from envcheck.parse.gfx import normalize_gfx

    seen: Dict[object, str] = {}
    for n, d in enumerate(parse_sycl_ls(text).devices):
        if d.backend == "hip" and d.type == "gpu" and d.name:
            seen.setdefault(d.index if d.index is not None else ("line", n), d.name)
    out: List[Gpu] = []
    for name in seen.values():
        head, _, last = name.rpartition(" ")
        gfx = normalize_gfx(last) if re.fullmatch(r"gfx[0-9a-fA-F]{3,5}(?::[\w+-]{1,40})?", last) else None
        name = head.strip() if gfx else name
        dev = re.fullmatch(r"Device ([0-9a-fA-F]{4})", name)
        out.append(Gpu(index=len(out), name=None if dev or normalize_gfx(name) else name or None, vendor="amd",
                       gfx=gfx, device_id="0x" + dev.group(1).lower() if dev else None, source="sycl-ls"))
    return out


def nvidia_gpus_seen(clinfo: Optional[str], sycl_ls: Optional[str]) -> List[Gpu]:
    """The NVIDIA GPUs that ``sycl-ls`` (its ``cuda`` backend's GPUs) or else ``clinfo`` (the devices of NVIDIA's
    OpenCL platform) lists, by name only: these tools name no driver and no compute capability envcheck would trust
    (sycl-ls' ``8.6`` after the name is the CUDA backend's device version; it is not read). One list per machine:
    both tools list the same GPUs, sycl-ls first as it numbers them."""
    out: List[Gpu] = []
    if sycl_ls:
        seen: Dict[object, str] = {}
        for n, d in enumerate(parse_sycl_ls(sycl_ls).devices):
            if d.backend == "cuda" and d.type == "gpu" and d.name:
                seen.setdefault(d.index if d.index is not None else ("line", n), d.name)
        out = [Gpu(index=i, name=name, vendor="nvidia", source="sycl-ls") for i, name in enumerate(seen.values())]
    if out or not clinfo:
        return out
    for dev in parse_clinfo(clinfo):
        where = " ".join(str(dev.get(k) or "") for k in ("platform", "vendor"))
        typ = (dev.get("type") or "GPU").upper()
        if dev.get("name") and "GPU" in typ and _NVIDIA_CL.search(where):
            out.append(Gpu(index=len(out), name=str(dev["name"]), vendor="nvidia", source="clinfo"))
    return out
