"""The non-NVIDIA accelerators of a machine (contract §9), from whatever subset of captures exists.

One GPU list per machine, merged from the richest source: ``amd-smi static`` (name, gfx, device id,
memory) > rocminfo (name, gfx, chip id) > KFD topology (gfx, device id; no ROCm user space needed) >
rocm-smi (name, sometimes gfx) > ``rocm_agent_enumerator`` (gfx only). A source with fewer facts fills
the gaps of a richer one where both list the same number of GPUs. Partitioned GPUs (DPX/CPX) are folded
to one entry per physical GPU. Intel: xpu-smi > sycl-ls > clinfo > the PCI bus. Apple: system_profiler.
"""

from __future__ import annotations

import re
from dataclasses import replace
from importlib import import_module
from types import SimpleNamespace
from typing import Any, Dict, List, Optional, Set, Tuple

from envcheck.environment._common import Caps, MatrixFacts, s
from envcheck.model import Accelerators, DeviceNode, Environment, Framework, Gpu, PythonInfo
from envcheck.parse.captures import load_json, load_json_object
from envcheck.parse.gfx import normalize_gfx
from envcheck.parse.kfd import (kfd_gpu, parse_amdgpu_version, parse_devices_json, parse_kfd_properties,
                                parse_rocm_version_file)
from envcheck.parse.macos import is_apple_gpu, parse_sw_vers, parse_system_profiler
from envcheck.snapshot import KFD_KEYS

__all__ = ["build_accelerators", "machine_vendor", "report_keys", "framework_keys", "accel_gpu_entries",
           "vendor_list_partial"]

#: an amdgpu module version as rocm-smi prints it: "6.8.5", or the older DKMS form "5.18.2.22.40" (the module
#: version and the release it shipped with); a kernel release ("6.8.0-45-generic") is not one
_MODULE_VERSION = re.compile(r"^\d+\.\d+\.\d+(\.\d+)*$")

#: the readers of AMD's, Intel's and Jetson's tools, imported on first use (issue 24: a machine without those
#: captures, every NVIDIA or CPU-only one, never imports them). For each: its module under envcheck.parse and
#: what it answers for no capture at all (None), given here without importing it; tests/test_status_imports.py
#: checks each against the reader's own answer. The three object answers carry only the fields read below.
_VENDOR_READERS: Dict[str, Tuple[str, Any]] = {
    "parse_amd_smi_static": ("amd_smi", []),
    "parse_amd_smi_list": ("amd_smi", []),
    "parse_amd_smi_version": ("amd_smi", SimpleNamespace(rocm=None, amdgpu=None, kernel=None, tool=None,
                                                          driver_error=None, inbox=False)),
    "parse_amd_smi_default": ("amd_smi", []),
    "driver_version_from_static": ("amd_smi", None),
    "parse_rocm_smi_driver": ("rocm_smi", None),
    "parse_hipconfig": ("hipconfig", SimpleNamespace(hip=None, platform=None, rocm_path=None)),
    "parse_hipinfo": ("hipinfo", []),
    "clinfo_amd_gpus": ("intel", []),
    "clinfo_apple_gpus": ("intel", []),
    "clinfo_amd_gpu_platform": ("intel", None),
    "parse_clinfo": ("intel", []),
    "parse_sycl_ls": ("intel", SimpleNamespace(recognised=False)),
    "sycl_ls_amd_gpus": ("intel", []),
    "intel_small_bar": ("intel", []),
    "parse_xpu_smi": ("intel", []),
    "parse_tegra_release": ("tegra", None),
    "parse_jetson_release": ("tegra", None),
}


def _read(reader: str, text: Optional[str]) -> Any:
    """``envcheck.parse.<module>.<reader>(text)``; the module is imported only when there is a text to read."""
    module, none = _VENDOR_READERS[reader]
    if text is None:
        return list(none) if isinstance(none, list) else none
    return getattr(import_module("envcheck.parse." + module), reader)(text)


def _read_rocm_smi(text: str) -> Any:
    return import_module("envcheck.parse.rocm_smi").parse_rocm_smi(text)


def _physical(gpus: List[Gpu], partitions: Any) -> Tuple[List[Gpu], Optional[str]]:
    return import_module("envcheck.parse.rocm_smi").physical(gpus, partitions)  # type: ignore[no-any-return]


def _fill(primary: List[Gpu], other: List[Gpu]) -> List[Gpu]:
    """Fill the unknown fields of ``primary`` from ``other`` where both list the same number of GPUs, or
    where ``other`` names one target for all of them."""
    if not other:
        return primary
    if len(other) != len(primary):
        gfxs = {g.gfx for g in other if g.gfx}
        if len(gfxs) == 1 and all(g.gfx is None for g in primary):
            gfx = gfxs.pop()
            return [replace(g, gfx=gfx) for g in primary]
        return primary
    out = []
    for a, b in zip(primary, other):
        out.append(replace(a, name=a.name or b.name, gfx=a.gfx or b.gfx, device_id=a.device_id or b.device_id,
                           memory_mib=a.memory_mib or b.memory_mib, bus_id=a.bus_id or b.bus_id))
    return out


def _kfd_gpus(c: Caps) -> List[Gpu]:
    out = []
    for key in KFD_KEYS[1::2]:  # the properties files
        text = c.text(key)
        if not text:
            continue
        node = int(key.split("/")[1])
        g = kfd_gpu(parse_kfd_properties(text), node, c.text(key[: -len("properties")] + "name"))
        if g is not None:
            out.append(g)
    return out


def _agent_enumerator(text: Optional[str]) -> List[Gpu]:
    out: List[Gpu] = []
    for line in (text or "").splitlines()[:256]:
        g = normalize_gfx(line.strip())
        if g and g != "gfx000":
            out.append(Gpu(index=len(out), name=None, vendor="amd", gfx=g, source="rocm_agent_enumerator"))
    return out


#: amd-smi's own words in a capture that lists no GPU (an error, a banner): amd-smi answered
_AMD_SMI_TEXT = re.compile(r"amd-?smi|AMDSMI", re.IGNORECASE)


def _amd_rocminfo(c: Caps, out: Dict[str, object], tools: List[str], notes: List[str]) -> Any:
    """rocminfo: its GPUs, and what it says about /dev/kfd (into ``out``)."""
    rocminfo_text = c.text("rocminfo.txt")
    if rocminfo_text is None:
        return None
    from envcheck.parse.rocminfo import parse_rocminfo

    ri = parse_rocminfo(rocminfo_text)
    if not (ri.recognised or ri.kfd_loaded is not None or ri.kfd_open_error or ri.permission or ri.rock_version
            or ri.runtime):
        # another tool's text under this name (nvidia-smi's, a collect_env): rocminfo did not answer here
        if rocminfo_text.strip():
            notes.append("rocminfo.txt: not a form of rocminfo output envcheck knows; not read")
        return None
    tools.append("rocminfo")
    if ri.error:
        out["rocminfo_error"] = ri.error
    if ri.kfd_loaded is False:
        out["kfd_loaded"] = False
    err = (ri.kfd_open_error or "").lower()
    if ri.permission or err.startswith(("permission denied", "operation not permitted", "no such file")):
        out["permission"] = ri.permission or f"Unable to open /dev/kfd read-write: {ri.kfd_open_error}"
    elif ri.kfd_open_error:
        out["kfd_error"] = ri.kfd_open_error
    if ri.rock_version:
        out["rock_version"] = ri.rock_version
    return ri


def _amd_rocm_smi(c: Caps, notes: List[str], tools: List[str]) -> Tuple[List[Gpu], Optional[str]]:
    """The GPUs of the richest rocm-smi capture (partitions folded) and the "Driver version" any of them prints."""
    rs_gpus: List[Gpu] = []
    rs_driver = None
    for key in ("rocm-smi.json", "rocm-smi-product.txt", "rocm-smi.txt"):
        text = c.text(key)
        if text is None:
            continue
        r = _read_rocm_smi(text)
        if r.form is None and r.error is None:
            notes.append(f"{key}: not a form of rocm-smi output envcheck knows; not read")
            continue
        tools.append("rocm-smi")
        rs_driver = rs_driver or r.driver
        gp, mode = _physical(r.gpus, r.partitions)
        if mode is None and len(gp) < len(r.gpus):
            notes.append(f"rocm-smi lists {len(r.gpus)} entries for {len(gp)} GPU(s) (partition ids > 0 on one bus: "
                         "compute partitions of the same GPU): counted once per GPU")
        elif mode:
            notes.append(f"rocm-smi lists {len(r.gpus)} entries for {len(gp)} GPU(s) in {mode} compute partition "
                         "mode: counted once per GPU")
        if len(gp) > len(rs_gpus) or (len(gp) == len(rs_gpus) and sum(bool(g.name) for g in gp) > sum(
                bool(g.name) for g in rs_gpus)):
            rs_gpus = _fill(gp, rs_gpus)
        else:
            rs_gpus = _fill(rs_gpus, gp)
    driver_only = _read("parse_rocm_smi_driver", c.text("rocm-smi-driver.txt"))
    if driver_only:
        tools.append("rocm-smi")  # `rocm-smi --showdriverversion` answered: AMD's tools are installed
    return rs_gpus, rs_driver or driver_only


def _amd_rocm_version(c: Caps, ver: Any, hc: Any, out: Dict[str, object]) -> None:
    """The ROCm user-space release: the version file > amd-smi version > a versioned ROCM_PATH of hipconfig."""
    rv = parse_rocm_version_file(c.text("rocm-version.txt"))
    if rv:
        out["rocm"], out["rocm_src"] = rv, "rocm-version.txt"
    elif ver.rocm:
        out["rocm"], out["rocm_src"] = ver.rocm, "amd-smi version"
    elif hc.rocm_path and re.search(r"rocm-(\d+\.\d+\.\d+)", hc.rocm_path):
        out["rocm"] = re.search(r"rocm-(\d+\.\d+\.\d+)", hc.rocm_path).group(1)  # type: ignore[union-attr]
        out["rocm_src"] = "hipconfig ROCM_PATH"


def _amd_driver(c: Caps, static_text: Optional[str], ver: Any, rock: Optional[str], rs_driver: Optional[str],
                notes: List[str]) -> Tuple[Optional[str], Optional[str]]:
    """The amdgpu kernel module version and where it was read; the in-tree driver is named by its kernel."""
    mod = parse_amdgpu_version(c.text("sys-module-amdgpu-version.txt"))
    static_drv = _read("driver_version_from_static", static_text)
    for value, src in ((mod, "/sys/module/amdgpu/version"), (static_drv, "amd-smi static"),
                       (ver.amdgpu, "amd-smi version"), (rock, "rocminfo ('ROCk module version')")):
        if value:
            return value, src
    if rs_driver:
        if _MODULE_VERSION.match(rs_driver):
            return rs_driver, "rocm-smi --showdriverversion"
        notes.append(f"rocm-smi reports the kernel release {rs_driver} as the driver version: the in-tree "
                     "(inbox) amdgpu of the kernel is loaded, not AMD's amdgpu-dkms module")
        return None, "in-tree amdgpu (kernel " + rs_driver + ")"
    if ver.kernel:
        notes.append(f"amd-smi names the kernel ({ver.kernel}) as the amdgpu version: the in-tree (inbox) amdgpu "
                     "of the kernel is loaded, not AMD's amdgpu-dkms module")
        return None, "in-tree amdgpu (kernel " + ver.kernel + ")"
    if getattr(ver, "inbox", False):
        notes.append("amd-smi prints 'Linuxver' (the start of /proc/version) as the amdgpu version: the in-tree "
                     "(inbox) amdgpu of the kernel is loaded, not AMD's amdgpu-dkms module")
        return None, "in-tree amdgpu (amd-smi: 'Linuxver')"
    return None, None


#: where amd-smi's default view (``amd-smi`` with no argument) may have been saved: its own file, or pasted
#: where one of the subcommands' output was expected
_AMD_SMI_DEFAULT_KEYS = ("amd-smi.txt", "amd-smi-version.txt", "amd-smi-static.txt", "amd-smi-list.txt")


def _amd_smi_default(c: Caps) -> Tuple[List[Gpu], Any]:
    """The GPUs and the version header of amd-smi's default view, from the first file that holds it."""
    for key in _AMD_SMI_DEFAULT_KEYS:
        text = c.text(key)
        if text is not None and "AMD-SMI" in text:
            gpus = _read("parse_amd_smi_default", text)
            ver = _read("parse_amd_smi_version", text)
            if gpus or ver.tool:
                return gpus, ver
    return [], None


def _amd_smi_version(c: Caps, box_ver: Any, tools: List[str], notes: List[str]) -> Any:
    """``amd-smi version`` (its own file, else the default view's header)."""
    ver = _read("parse_amd_smi_version", c.text("amd-smi-version.json") or c.text("amd-smi-version.txt"))
    if box_ver is not None and not (ver.rocm or ver.amdgpu or ver.kernel):
        ver = box_ver
    if ver.rocm or ver.amdgpu or ver.kernel or ver.tool:
        tools.append("amd-smi")  # amd-smi answered, even where it could name no ROCm release or driver
    if ver.driver_error:
        notes.append(f"amd-smi: {ver.driver_error}")
    return ver


def _amd(c: Caps, notes: List[str], tools: List[str]) -> Dict[str, object]:
    out: Dict[str, object] = {}
    static_text = c.text("amd-smi-static.json") or c.text("amd-smi-static.txt")
    static = _read("parse_amd_smi_static", static_text)
    listing = _read("parse_amd_smi_list", c.text("amd-smi-list.json") or c.text("amd-smi-list.txt"))
    if static or listing or (static_text is not None and _AMD_SMI_TEXT.search(static_text[:200000])):
        tools.append("amd-smi")  # amd-smi answered (its GPUs, or its own words); another tool's text does not count
    elif static_text is not None and static_text.strip():
        static_key = "amd-smi-static.json" if c.text("amd-smi-static.json") else "amd-smi-static.txt"
        notes.append(f"not-checked: {static_key}: not a form of amd-smi output envcheck knows; not read (the AMD GPUs it would "
                     "list are unknown)")
    # partitions: amd-smi list's PARTITION_ID > 0 are extra views of one GPU
    extra = {e["index"] for e in listing if isinstance(e.get("partition_id"), int) and e["partition_id"] > 0}
    # without a PARTITION_ID column (amd-smi list --csv: gpu,gpu_bdf,gpu_uuid) a partition repeats its GPU's BDF and
    # physical UUID (AMD's MI300 partition docs: "gpu_uuid ... is same across all virtual partitions")
    seen_bdf: Set[Tuple[str, str]] = set()
    for e in listing:
        key = (str(e.get("bdf") or "").lower(), str(e.get("uuid") or "").lower())
        if key[0] and key in seen_bdf:
            extra.add(e["index"])
        seen_bdf.add(key)
    if extra:
        notes.append(f"amd-smi list shows {len(listing)} entries, {len(extra)} of them extra compute partitions of "
                     "the same GPU(s) (DPX/CPX mode): counted once")
        static = [g for g in static if g.index not in extra]
    ri = _amd_rocminfo(c, out, tools, notes)
    kfd = _kfd_gpus(c)
    if kfd:
        tools.append("kfd topology")
    rs_gpus, rs_driver = _amd_rocm_smi(c, notes, tools)
    enum = _agent_enumerator(c.text("rocm-agent-enumerator.txt"))
    cl = _read("clinfo_amd_gpus", c.text("clinfo.txt"))
    if cl:
        tools.append("clinfo")
    elif _read("clinfo_amd_gpu_platform", c.text("clinfo.txt")):
        tools.append("AMD OpenCL (clinfo)")  # ROCm's / the Radeon driver's OpenCL platform, listing no device
    # amd-smi list names no model, only each GPU's BDF: it counts the GPUs (partitions folded) and gives bus ids
    listed = [Gpu(index=e["index"], name=None, vendor="amd", bus_id=e.get("bdf"), source="amd-smi list")
              for e in listing if e["index"] not in extra]
    box, box_ver = _amd_smi_default(c)
    if box:
        tools.append("amd-smi")
    hipinfo = _read("parse_hipinfo", c.text("hipinfo.txt"))
    if hipinfo:
        tools.append("hipInfo")
    # sycl-ls's HIP backend (oneAPI's plugin for AMD GPUs): each GPU's name and gfx target
    sycl_hip = _read("sycl_ls_amd_gpus", c.text("sycl-ls.txt"))
    sources = [static, ri.gpus if ri else [], hipinfo, kfd, rs_gpus, box, cl, sycl_hip, listed, enum]
    primary: List[Gpu] = next((g for g in sources if g), [])
    for other in sources:
        if other is not primary:
            primary = _fill(primary, other)
    out["gpus"] = [replace(g, index=i, vendor="amd") for i, g in enumerate(primary)]
    # versions
    ver = _amd_smi_version(c, box_ver, tools, notes)
    hc = _read("parse_hipconfig", c.text("hipconfig.txt"))
    if hc.hip:
        tools.append("hipconfig")
    out["hip_platform"] = hc.platform
    _amd_rocm_version(c, ver, hc, out)
    out["hip"] = hc.hip
    rock = out.get("rock_version")
    out["amdgpu"], out["amdgpu_src"] = _amd_driver(c, static_text, ver, rock, rs_driver, notes)  # type: ignore[arg-type]
    nodes, groups = parse_devices_json(c.text("devices.json"))
    out["nodes"], out["groups"] = nodes, groups
    return out


def _pci(c: Caps) -> List[Dict[str, str]]:
    data = load_json(c.text("pci-gpus.json"))
    if not isinstance(data, list):
        return []
    return [d for d in data if isinstance(d, dict) and all(isinstance(d.get(k), str) for k in ("vendor", "device"))]


def _intel(c: Caps, tools: List[str], notes: List[str]) -> Dict[str, object]:
    out: Dict[str, object] = {}
    xs = _read("parse_xpu_smi", c.text("xpu-smi-discovery.txt"))
    sy_text = c.text("sycl-ls.txt")
    sy = _read("parse_sycl_ls", sy_text)
    cl = [d for d in _read("parse_clinfo", c.text("clinfo.txt"))
          if "intel" in ((d.get("vendor") or "") + (d.get("platform") or "") + (d.get("name") or "")).lower()
          and "gpu" in (d.get("type") or "gpu").lower()]
    if xs:
        tools.append("xpu-smi")
    if sy.recognised:
        tools.append("sycl-ls")
        out["level_zero_gpus"] = tuple(n for n in sy.gpus("level_zero") if "intel" in n.lower())
        out["opencl_gpus"] = tuple(n for n in sy.gpus("opencl") if "intel" in n.lower())
        out["level_zero"], out["compute_runtime"] = sy.level_zero, sy.compute_runtime
    elif sy_text is not None and sy_text.strip() == "":
        out["level_zero_gpus"], out["opencl_gpus"] = (), ()
    if cl:
        tools.append("clinfo")
        out.setdefault("opencl_gpus", tuple(dict.fromkeys(str(d["name"]) for d in cl)))
        out.setdefault("compute_runtime", cl[0].get("driver"))
    gpus: List[Gpu] = list(xs)
    if not gpus:
        names = list(out.get("level_zero_gpus") or ()) or list(out.get("opencl_gpus") or ())  # type: ignore[call-overload]
        # Intel's driver names a GPU it has no marketing name for by its PCI id ("Intel(R) Graphics [0xe20b]"): the
        # name is kept as printed (the Level Zero / OpenCL lists name it so) and the id is the GPU's device_id
        gpus = [Gpu(index=i, name=n, vendor="intel", source="sycl-ls" if sy.recognised else "clinfo",
                    device_id=_bracket_id(n)) for i, n in enumerate(names)]
    pci = [d for d in _pci(c) if d["vendor"] == "0x8086"]
    if pci:
        tools.append("pci")
        if not gpus:
            gpus = [Gpu(index=i, name=None, vendor="intel", device_id=d["device"], source="PCI bus",
                        bus_id=d.get("slot")) for i, d in enumerate(pci)]
        elif len(pci) == len(gpus):
            gpus = [replace(g, device_id=g.device_id or d["device"], bus_id=g.bus_id or d.get("slot"))
                    for g, d in zip(gpus, pci)]
    small_bar = _read("intel_small_bar", "\n".join(t for t in (c.text("clinfo.txt"), sy_text) if t) or None)
    if small_bar:
        notes.append("Intel's compute runtime refused the GPU at " + ", ".join(small_bar) + " for a small PCI BAR "
                     "(\"Small BAR detected\"): enable Resizable BAR in the firmware (and in the hypervisor for a "
                     "passed-through card); until then neither OpenCL nor Level Zero lists it")
    out["small_bar"] = bool(small_bar)  # an Intel GPU is there, but none usable: not listed as a GPU
    out["gpus"] = gpus
    return out


def _bracket_id(name: str) -> Optional[str]:
    m = re.search(r"\s\[(0x[0-9a-fA-F]{4})\]$", name)
    return m.group(1).lower() if m else None


def _apple(c: Caps, python: PythonInfo, tools: List[str], cl_gpus: List[Gpu]) -> Dict[str, object]:
    out: Dict[str, object] = {}
    pj = load_json_object(c.text("python.json")) or {}
    sv = parse_sw_vers(c.text("sw-vers.txt"))
    mac = sv or (s(pj.get("mac_ver")) or None)
    if sv:
        tools.append("sw_vers")
    out["mac"], out["mac_src"] = mac, ("sw_vers" if sv else "platform.mac_ver()" if mac else None)
    gpus = parse_system_profiler(c.text("system-profiler-displays.json") or c.text("system-profiler-displays.txt"))
    if gpus:
        tools.append("system_profiler")
    elif cl_gpus:  # Apple's OpenCL platform lists them (clinfo) where system_profiler was not captured
        gpus = cl_gpus
        tools.append("clinfo")
    out["gpus"] = gpus
    tr = pj.get("proc_translated")
    out["translated"] = tr if isinstance(tr, bool) else None
    apple = any(is_apple_gpu(g) for g in gpus) if gpus else None
    if apple is None and (python.platform or "").startswith("darwin") and python.machine == "arm64":
        apple = True  # an arm64 Python runs only on Apple silicon
    if out["translated"] is True:
        apple = True
    out["apple_silicon"] = apple
    return out


def _nvidia_seen(c: Caps, tools: List[str]) -> List[Gpu]:
    """The NVIDIA GPUs sycl-ls or clinfo lists (envcheck.parse.intel.nvidia_gpus_seen), the reader imported only
    where one of them was captured."""
    clinfo, sycl = c.text("clinfo.txt"), c.text("sycl-ls.txt")
    if not (clinfo or sycl):
        return []
    gpus: List[Gpu] = import_module("envcheck.parse.intel").nvidia_gpus_seen(clinfo, sycl)
    if gpus:
        tools.append(gpus[0].source or "clinfo")
    return gpus


def _amd_by_device_id(c: Caps, gpus: List[Gpu], matrix: Optional[MatrixFacts], tools: List[str],
                      notes: List[str]) -> List[Gpu]:
    """The AMD GPUs with their gfx target and family from their PCI device id where no tool printed the target
    (compat_matrix/rocm.toml ``[[device_gfx]]``: ROCm's thunk table, AMD's device_info table); where no AMD tool
    lists a GPU, the AMD display controllers of ``pci-gpus.json`` are the GPUs (name unknown; a device id neither
    table holds keeps its target unknown, said in a note)."""
    pci = [d for d in _pci(c) if d["vendor"].lower() == "0x1002"
           and str(d.get("class") or "0x03").lower().startswith("0x03")]
    if pci:
        tools.append("pci")
    if pci and not gpus:
        gpus = [Gpu(index=i, name=None, vendor="amd", device_id=d["device"].lower(), source="PCI bus",
                    bus_id=d.get("slot")) for i, d in enumerate(pci)]
    out, unknown = _gfx_from_ids(gpus, matrix)
    if unknown:
        notes.append("the gfx target of AMD device " + ", ".join(dict.fromkeys(unknown)) + " is unknown: neither ROCm's "
                     "device table nor AMD's device_info table holds this PCI id (add rocminfo.txt, or the KFD "
                     "topology, to the snapshot)")
    return out


def _gfx_from_ids(gpus: List[Gpu], matrix: Optional[MatrixFacts]) -> Tuple[List[Gpu], List[str]]:
    """Each AMD GPU with the gfx target its device id has in the matrix's device tables where no tool printed one,
    and the family of its target; the device ids neither table holds."""
    if matrix is None or not hasattr(matrix, "amd_device_gfx"):
        return gpus, []
    out: List[Gpu] = []
    unknown: List[str] = []
    for g in gpus:
        if g.vendor not in (None, "amd"):
            out.append(g)
            continue
        if not g.gfx and g.device_id:
            row = matrix.amd_device_gfx(g.device_id)
            if row and row.get("gfx"):
                g = replace(g, gfx=str(row["gfx"]))
            else:
                unknown.append(str(g.device_id))
        fam = matrix.amd_gfx_family(g.gfx) if g.gfx and hasattr(matrix, "amd_gfx_family") else None
        out.append(replace(g, family=fam) if fam else g)
    return out, unknown


#: the §9 captures that list GPUs
_LIST_KEYS = ("amd-smi-static.txt", "amd-smi-list.txt", "amd-smi.txt", "rocminfo.txt", "rocm-smi.txt", "rocm-smi-product.txt",
              "hipinfo.txt", "xpu-smi-discovery.txt", "sycl-ls.txt", "clinfo.txt", "system-profiler-displays.txt")
#: "..." / "…" on a line of its own (inside a table's borders too), or "... (GPUs 2-7 identical)": rows left out; a
#: snapshot file cut inside its last line ends with one (:func:`envcheck.parse.captures.cut_last_line`)
_ELIDED_LINE = re.compile(r"^[ \t>#|]*(?:\.\.\.|\u2026)[ \t|]*(?:\([^\n]*)?$", re.M)
#: the tool shown run for some GPUs only: one device asked (`xpu-smi discovery -d 0`, `amd-smi static -g 0`, `rocm-smi
#: -d 1`) or its output piped through a filter that drops lines (`| head`, `| grep`)
_NARROWED = re.compile(r"\b(?:xpu-smi|amd-smi|rocm-smi|rocminfo|clinfo|sycl-ls|system_profiler)\b[^\n|]{0,120}?(?:\|[ \t]*"
                       r"(?:head|tail|grep|egrep|sed|awk|findstr|select-object)\b|[ \t](?:-d|-g|--device|--gpu)[ \t=]{1,3}\d)",
                       re.M | re.I)


def vendor_list_partial(c: Caps) -> Optional[str]:
    """The §9 capture whose GPU listing the text itself shows as partial (rows left out as "...", a file cut inside its
    last line, one device asked, a filter), or ``None``: its GPUs are some of the machine's, not all (contract §2)."""
    for key in _LIST_KEYS:
        text = c.text(key)
        if text and (_ELIDED_LINE.search(text[:2000000]) or _NARROWED.search(text[:2000000])):
            return key
    for key in ("xpu-smi-discovery.txt", "amd-smi-static.txt", "amd-smi-list.txt"):
        if _json_left_open(c.text(key)):
            return key
    if _clinfo_short(c.text("clinfo.txt")):
        return "clinfo.txt"
    return "xpu-smi-discovery.txt" if _xpu_block_open(c.text("xpu-smi-discovery.txt")) else None


#: clinfo's count of a platform's devices ("Number of devices                                 2")
_CL_COUNT = re.compile(r"^[ \t>#]*Number of devices[ \t]{2,}(\d{1,4})[ \t]*$", re.M)
_CL_DEVICE = re.compile(r"^[ \t>#]*Device Name[ \t]{2,}\S", re.M)


def _clinfo_short(text: Optional[str]) -> bool:
    """clinfo counts more devices ("Number of devices  2") than the text names ("Device Name" lines): the paste was
    cut before the others (clinfo names each device again under "NULL platform behavior", so more names say nothing)."""
    if not text or "Number of devices" not in text[:2000000]:
        return False
    head = text[:2000000]
    return sum(int(n) for n in _CL_COUNT.findall(head)) > len(_CL_DEVICE.findall(head))


def _json_left_open(text: Optional[str]) -> bool:
    """A JSON listing (`xpu-smi discovery -j`, `amd-smi static --json` pasted in the .txt file) with more "{" / "["
    than it closes: the paste was cut inside it, and devices after the cut may be missing."""
    if not text or '": ' not in text[:200000]:
        return False
    head = text[:2000000]
    return head.count("{") > head.count("}") or head.count("[") > head.count("]")


def _xpu_block_open(text: Optional[str]) -> bool:
    """`xpu-smi discovery`'s table ends inside a device's block (its last line a "|  | ..." row, not the "+---+" border
    that closes each block): the text was cut there, and devices after it may be missing."""
    if not text or "Device ID" not in text[:200000]:
        return False
    last = next((ln.strip() for ln in reversed(text.splitlines()[-50:]) if ln.strip()), "")
    return last.startswith("|") and "Device ID" not in last


def build_accelerators(c: Caps, python: PythonInfo, matrix: Optional[MatrixFacts] = None) -> Accelerators:
    notes: List[str] = []
    tools: List[str] = []
    amd = _amd(c, notes, tools)
    amd["gpus"] = _amd_by_device_id(c, amd["gpus"], matrix, tools, notes)  # type: ignore[arg-type]
    intel = _intel(c, tools, notes)
    cl_mac: List[Gpu] = _read("clinfo_apple_gpus", c.text("clinfo.txt"))
    on_mac = (python.platform or "").startswith("darwin") or c.text("sw-vers.txt") is not None or bool(
        c.text("system-profiler-displays.txt") or c.text("system-profiler-displays.json")) or bool(cl_mac)
    apple = _apple(c, python, tools, cl_mac) if on_mac else {"gpus": []}
    # a Mac's Radeon (built in, or an eGPU) by the device id system_profiler prints: its target, as on Linux
    apple["gpus"] = _gfx_from_ids(apple["gpus"], matrix)[0]  # type: ignore[arg-type]
    amd_gpus: List[Gpu] = amd["gpus"]  # type: ignore[assignment]
    intel_gpus: List[Gpu] = intel["gpus"]  # type: ignore[assignment]
    mac_gpus: List[Gpu] = apple["gpus"]  # type: ignore[assignment]
    nodes: List[DeviceNode] = amd["nodes"]  # type: ignore[assignment]
    kfd_exists = any(n.path == "/dev/kfd" and n.exists for n in nodes)
    # AMD's own tools answered (amd-smi, rocminfo, rocm-smi, the KFD topology), or HIP targets AMD: an AMD
    # machine even where no GPU could be read from them (the GPUs are then unknown, not absent)
    amd_stack = bool({"amd-smi", "rocminfo", "kfd topology", "rocm-smi", "AMD OpenCL (clinfo)"} & set(tools)) or (
        amd.get("hip_platform") == "amd") or amd.get("amdgpu") is not None
    nvidia_pci = any(d["vendor"] == "0x10de" for d in _pci(c))
    # AMD GPUs only Mesa's OpenCL names (rusticl / Clover: no ROCm anywhere) next to Intel GPUs a compute runtime
    # lists (xpu-smi, sycl-ls, Intel's OpenCL): the Intel GPUs are the machine's accelerator
    mesa_only = bool(amd_gpus) and all(g.source == "clinfo (Mesa)" for g in amd_gpus) and not (kfd_exists or amd_stack)
    # AMD display controllers only the PCI bus lists (no AMD tool, no /dev/kfd) next to an NVIDIA one: an AMD iGPU
    # (a Ryzen's Radeon Graphics) beside the NVIDIA GPU is not the machine's accelerator, as an Intel iGPU is not
    if amd_gpus and all(g.source == "PCI bus" for g in amd_gpus) and nvidia_pci and not (kfd_exists or amd_stack):
        amd_gpus = []
    vendor: Optional[str] = None
    gpus: Tuple[Gpu, ...] = ()
    if on_mac:
        vendor = "apple" if (mac_gpus or apple.get("apple_silicon") or apple.get("mac")) else None
        gpus = tuple(mac_gpus)
    elif (amd_gpus and not (mesa_only and intel_gpus)) or kfd_exists or (amd_stack and not nvidia_pci):
        vendor, gpus = "amd", tuple(amd_gpus)
    elif (intel_gpus or intel.get("small_bar")) and not any(d["vendor"] == "0x10de" for d in _pci(c)):
        # an Intel iGPU next to an NVIDIA GPU (driver missing or not) is not the machine's accelerator
        vendor, gpus = "intel", tuple(intel_gpus)
    nvidia_seen = _nvidia_seen(c, tools)
    l4t = _read("parse_tegra_release", c.text("tegra-release.txt"))
    jr = _read("parse_jetson_release", c.text("jetson-release.txt"))
    if jr is not None:
        tools.append("jetson_release")
        if l4t and jr.l4t and not jr.l4t.startswith(l4t) and not l4t.startswith(jr.l4t):
            notes.append(f"/etc/nv_tegra_release says L4T {l4t}, jetson_release says {jr.l4t}: the first is used")
    l4t_src = "tegra-release.txt" if l4t else ("jetson_release" if jr is not None and jr.l4t else None)
    l4t = l4t or (jr.l4t if jr is not None else None)
    return Accelerators(
        vendor=vendor, gpus=gpus, nvidia_gpus=tuple(nvidia_seen),
        rocm_version=amd.get("rocm"), rocm_version_source=amd.get("rocm_src"),  # type: ignore[arg-type]
        hip=amd.get("hip"), amdgpu=amd.get("amdgpu"), amdgpu_source=amd.get("amdgpu_src"),  # type: ignore[arg-type]
        device_nodes=tuple(nodes), groups=amd.get("groups"),  # type: ignore[arg-type]
        permission_text=amd.get("permission"), kfd_error=amd.get("kfd_error"),  # type: ignore[arg-type]
        kfd_loaded=amd.get("kfd_loaded"),  # type: ignore[arg-type]
        level_zero=intel.get("level_zero"), compute_runtime=intel.get("compute_runtime"),  # type: ignore[arg-type]
        level_zero_gpus=intel.get("level_zero_gpus"), opencl_gpus=intel.get("opencl_gpus"),  # type: ignore[arg-type]
        mac_version=apple.get("mac"), mac_source=apple.get("mac_src"),  # type: ignore[arg-type]
        apple_silicon=apple.get("apple_silicon"), translated=apple.get("translated"),  # type: ignore[arg-type]
        l4t=l4t, l4t_source=l4t_src,
        jetpack=jr.jetpack if jr else None, jetson_model=jr.model if jr else None,
        jetson_cuda=jr.cuda if jr else None, jetson_cudnn=jr.cudnn if jr else None,
        jetson_tensorrt=jr.tensorrt if jr else None,
        pci_vendors=tuple(sorted({d["vendor"] for d in _pci(c)})),
        tools=tuple(dict.fromkeys(tools)), notes=tuple(notes) + tuple(
            f"rocminfo failed: {amd['rocminfo_error']}" for _ in [0] if amd.get("rocminfo_error")))


# -- the report's §9 keys (one place, so that whichever module builds the §2 report adds them in three lines) --
def machine_vendor(env: Environment) -> Optional[str]:
    """Contract §9's top-level ``vendor``: NVIDIA where an NVIDIA GPU (nvidia-smi's, or one only sycl-ls / clinfo
    lists), driver or PCI display device (0x10de) is seen, or the machine is a Jetson (an L4T release, or jetson_release's output), else the other accelerator's vendor, else ``None``."""
    if env.gpus or env.accel.nvidia_gpus or env.driver.present or env.driver.error == "driver-library-mismatch" or (
            "0x10de" in env.accel.pci_vendors) or env.accel.l4t or "jetson_release" in env.accel.tools:
        return "nvidia"  # jetson_release (jetson-stats) runs on a Jetson only, in a container too
    return env.accel.vendor


def _lst(v: Any) -> Optional[List[Any]]:
    return list(v) if v is not None else None


def accel_gpu_entries(env: Environment) -> List[Dict[str, Any]]:
    """The AMD / Intel / Apple GPUs as §2 ``gpus`` entries (NVIDIA's get ``"vendor": "nvidia"``), and the NVIDIA GPUs
    only another vendor's tool lists (name only: no compute capability, no driver is guessed for them)."""
    out = []
    for g in env.accel.nvidia_gpus if not env.gpus else ():
        out.append({"index": g.index, "name": g.name, "vendor": "nvidia", "memory_mib": None, "compute_capability": None,
                    "bus_id": None, "source": g.source})
    for g in env.accel.gpus:
        d: Dict[str, Any] = {"index": g.index, "name": g.name, "vendor": g.vendor, "memory_mib": g.memory_mib,
                             "compute_capability": None, "bus_id": g.bus_id, "source": g.source}
        if g.vendor == "amd":
            d["gfx"] = g.gfx
            d["family"] = g.family
        d["device_id"] = g.device_id
        out.append(d)
    return out


def framework_keys(fw: Framework) -> Dict[str, Any]:
    """§9 keys of one framework entry: ``rocm`` (major.minor) and ``hip``, ``xpu``, ``mps``."""
    out: Dict[str, Any] = {}
    if fw.rocm:
        out["rocm"], out["hip"] = fw.rocm, fw.hip
    if fw.xpu:
        out["xpu"] = True
    if fw.mps is not None:
        out["mps"] = dict(fw.mps)
    return out


def report_keys(env: Environment) -> Dict[str, Any]:
    """The top-level §9 keys of the status report: ``vendor``, ``rocm``, ``xpu``, ``mps`` and envcheck's
    ``accelerator``."""
    a = env.accel
    torch = env.frameworks.get("torch")
    m = torch.mps if torch is not None and torch.mps else {}
    return {
        "vendor": machine_vendor(env),
        "rocm": {"version": a.rocm_version, "hip": a.hip, "amdgpu": a.amdgpu, "version_source": a.rocm_version_source,
                 "amdgpu_source": a.amdgpu_source},
        "xpu": {"level_zero": a.level_zero, "compute_runtime": a.compute_runtime,
                "level_zero_gpus": _lst(a.level_zero_gpus), "opencl_gpus": _lst(a.opencl_gpus)},
        "mps": {"built": m.get("built"), "available": m.get("available")},
        "accelerator": {"macos": a.mac_version, "apple_silicon": a.apple_silicon, "rosetta": a.translated,
                        "groups": _lst(a.groups),
                        "device_nodes": [{"path": n.path, "exists": n.exists, "readable": n.readable,
                                          "writable": n.writable} for n in a.device_nodes],
                        "tools": list(a.tools), "l4t": a.l4t, "l4t_source": a.l4t_source,
                        "jetson": ({"jetpack": a.jetpack, "model": a.jetson_model, "cuda": a.jetson_cuda,
                                    "cudnn": a.jetson_cudnn, "tensorrt": a.jetson_tensorrt}
                                   if "jetson_release" in a.tools else None)},
    }
