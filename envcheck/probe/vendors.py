"""Live captures of contract §9 (AMD ROCm, Intel XPU, Apple MPS): a mix-in of :class:`LiveSource`.

Cheap by construction: each command runs only where its hardware can be there (the AMD tools only
where the amdgpu kernel module or ``/dev/kfd`` exists, the Intel tools only with an Intel display
device on the PCI bus, ``sw_vers`` / ``system_profiler`` only on macOS), each through
:func:`envcheck.proc.run_command` with the probe's timeout. Files are read through ``read_text``.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from typing import Callable, Dict, List, Optional

from envcheck.probe import glob_prefix
from envcheck.proc import NOT_FOUND, OK, Capture, read_text, which

__all__ = ["VendorProbes", "AMD_COMMAND_KEYS", "AMD_VIEW_KEYS", "INTEL_COMMAND_KEYS", "MAC_COMMAND_KEYS"]

AMD_COMMAND_KEYS = ("rocm-smi.txt", "rocm-smi-product.txt", "rocm-smi-driver.txt", "amd-smi-version.txt",
                    "amd-smi-list.txt", "amd-smi-static.txt", "rocminfo.txt", "rocm-agent-enumerator.txt",
                    "hipconfig.txt")
#: amd-smi's default view and hipInfo's device list: their own group (a thread of their own beside the AMD tools', so a
#: live run on an AMD machine waits no longer than before for them)
AMD_VIEW_KEYS = ("amd-smi.txt", "hipinfo.txt")
INTEL_COMMAND_KEYS = ("xpu-smi-discovery.txt", "sycl-ls.txt", "clinfo.txt")
MAC_COMMAND_KEYS = ("sw-vers.txt", "system-profiler-displays.txt")
#: device nodes looked at, at most
MAX_RENDER_NODES = 64
MAX_PCI_DEVICES = 512


def _json(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"


class VendorProbes:
    """The §9 ``_k_*`` methods. Needs ``self._p``, ``self._read``, ``self._run``, ``self.env``."""

    _p: Callable[[str], str]
    _read: Callable[[str], Capture]
    _run: Callable[..., Capture]
    env: Dict[str, str]

    # -- where the hardware can be -----------------------------------------------------------
    def _amd_present(self) -> bool:
        known = getattr(self, "_amd_cache", None)  # (asked ~8 times a status run: looked at once)
        if known is None:
            known = self._amd_cache = os.path.exists(self._p("/sys/module/amdgpu")) or os.path.exists(self._p("/dev/kfd"))
        return bool(known)

    def _rocm_roots(self) -> List[str]:
        roots = []
        for v in (self.env.get("ROCM_PATH"), self.env.get("HIP_PATH"), "/opt/rocm"):
            if v and v not in roots:
                roots.append(v)
        return roots

    def _rocm_tool(self, name: str) -> Optional[str]:
        return which(name, [os.path.join(self._p(r), "bin") for r in self._rocm_roots()])

    def _amd_command(self, name: str, args: List[str]) -> Capture:
        if not self._amd_present():
            return Capture(NOT_FOUND, detail=f"{name}: skipped, no amdgpu kernel module and no /dev/kfd", origin=name)
        exe = self._rocm_tool(name)
        if exe is None:
            return Capture(NOT_FOUND, detail=f"{name}: command not found", origin=name)
        return self._run([exe] + args)

    def _intel_present(self) -> bool:
        return any(d.get("vendor") == "0x8086" for d in self._pci_gpus())

    def _intel_command(self, name: str, args: List[str]) -> Capture:
        if not self._intel_present():
            return Capture(NOT_FOUND, detail=f"{name}: skipped, no Intel display device on the PCI bus", origin=name)
        exe = which(name, ["/opt/intel/oneapi/compiler/latest/bin"])
        if exe is None:
            return Capture(NOT_FOUND, detail=f"{name}: command not found", origin=name)
        return self._run([exe] + args)

    def _mac_command(self, argv: List[str]) -> Capture:
        if sys.platform != "darwin":
            return Capture(NOT_FOUND, detail=f"{argv[0]}: not macOS", origin=argv[0])
        exe = which(argv[0], ["/usr/bin", "/usr/sbin"])
        if exe is None:
            return Capture(NOT_FOUND, detail=f"{argv[0]}: command not found", origin=argv[0])
        return self._run([exe] + argv[1:])

    # -- AMD -------------------------------------------------------------------------------------
    def _k_rocm_smi_txt(self) -> Capture:
        return self._amd_command("rocm-smi", [])

    def _k_rocm_smi_product_txt(self) -> Capture:
        return self._amd_command("rocm-smi", ["--showproductname"])

    def _k_rocm_smi_driver_txt(self) -> Capture:
        return self._amd_command("rocm-smi", ["--showdriverversion"])

    def _k_amd_smi_version_txt(self) -> Capture:
        return self._amd_command("amd-smi", ["version"])

    def _k_amd_smi_list_txt(self) -> Capture:
        return self._amd_command("amd-smi", ["list"])

    def _k_amd_smi_static_txt(self) -> Capture:
        return self._amd_command("amd-smi", ["static", "--asic", "--driver", "--vram", "--bus"])

    def _k_amd_smi_txt(self) -> Capture:
        return self._amd_command("amd-smi", [])

    def _k_hipinfo_txt(self) -> Capture:
        """``hipInfo``: on Linux where the AMD tools run (ROCm's / TheRock's ``bin``); on Windows (no amdgpu module,
        no /dev/kfd) where the HIP SDK's ``hipInfo.exe`` is on PATH or in ``%HIP_PATH%\\bin``."""
        if sys.platform != "win32":  # ROCm's /opt/rocm/bin/hipInfo; some builds name it hipinfo
            cap = self._amd_command("hipInfo", [])
            if cap.status == NOT_FOUND and cap.detail.endswith("command not found"):
                return self._amd_command("hipinfo", [])
            return cap
        dirs = [os.path.join(r, "bin") for r in (self.env.get("HIP_PATH"), self.env.get("ROCM_PATH")) if r]
        exe = which("hipInfo", dirs) or which("hipInfo.exe", dirs)
        if exe is None:
            return Capture(NOT_FOUND, detail="hipInfo: command not found (PATH, %HIP_PATH%\\bin)", origin="hipInfo")
        return self._run([exe])

    def _k_rocminfo_txt(self) -> Capture:
        return self._amd_command("rocminfo", [])

    def _k_rocm_agent_enumerator_txt(self) -> Capture:
        return self._amd_command("rocm_agent_enumerator", [])

    def _k_hipconfig_txt(self) -> Capture:
        return self._amd_command("hipconfig", ["--full"])

    def _k_rocm_version_txt(self) -> Capture:
        for root in self._rocm_roots():
            for rel in (".info/version", "core/.info/version"):
                cap = self._read(os.path.join(root, rel))
                if cap.status == OK:
                    return cap
        return Capture(NOT_FOUND, detail="no .info/version in ROCM_PATH or /opt/rocm", origin="/opt/rocm/.info/version")

    def _k_sys_module_amdgpu_version_txt(self) -> Capture:
        return self._read("/sys/module/amdgpu/version")

    def _kfd_key(self, key: str) -> Capture:
        m = re.fullmatch(r"kfd-topology/(\d+)/(name|properties)", key)
        if not m:
            return Capture(NOT_FOUND, detail=f"{key}: unknown key")
        path = f"/sys/class/kfd/kfd/topology/nodes/{m.group(1)}/{m.group(2)}"
        if not self._kfd_nodes_may_exist():  # what reading it says, without trying: the folder is not there
            return Capture(NOT_FOUND, detail=f"{self._p(path)}: no such file", origin=self._p(path))
        return self._read(path)

    def _kfd_nodes_may_exist(self) -> bool:
        """False when the KFD topology's folder is not there (no AMD GPU driver: every machine but an AMD one),
        so that none of its 64 files can (each read would fail with "no such file": two system calls and an
        exception apiece); True when it exists or cannot be told (each file is then read, as before). Asked once."""
        known = vars(self).get("_kfd_nodes_known")
        if known is None:
            try:  # (a file there: each path under it is "not a directory", read as "no such file")
                known = stat.S_ISDIR(os.stat(self._p("/sys/class/kfd/kfd/topology/nodes")).st_mode)
            except (FileNotFoundError, NotADirectoryError):
                known = False
            except (OSError, ValueError):
                known = True
            self._kfd_nodes_known = known
        return bool(known)

    def _k_devices_json(self) -> Capture:
        renders = sorted(os.path.basename(p) for p in glob_prefix(self._p("/dev/dri"), "renderD"))[:MAX_RENDER_NODES]
        out: Dict[str, object] = {}
        for path in ["/dev/kfd"] + [f"/dev/dri/{r}" for r in renders]:
            real = self._p(path)
            exists = os.path.exists(real)
            out[path] = {"exists": exists, "readable": os.access(real, os.R_OK) if exists else None,
                         "writable": os.access(real, os.W_OK) if exists else None}
        if not self._amd_present() and not renders:
            return Capture(NOT_FOUND, detail="no /dev/kfd and no /dev/dri/renderD*", origin="/dev")
        try:
            import grp

            names = []
            for gid in os.getgroups():
                try:
                    names.append(grp.getgrgid(gid).gr_name)
                except KeyError:
                    names.append(str(gid))
            out["groups"] = sorted(set(names))
        except (ImportError, OSError):
            pass
        return Capture(OK, text=_json(out), origin="device nodes")

    def _k_tegra_release_txt(self) -> Capture:
        return self._read("/etc/nv_tegra_release")

    def _k_jetson_release_txt(self) -> Capture:
        """jetson-stats' ``jetson_release``: run only on a Jetson (``/etc/nv_tegra_release`` exists); on JetPack 4-5,
        which have no nvidia-smi, the one place naming the installed CUDA, cuDNN and TensorRT together."""
        if not os.path.exists(self._p("/etc/nv_tegra_release")):
            return Capture(NOT_FOUND, detail="jetson_release: skipped, not a Jetson (no /etc/nv_tegra_release)",
                           origin="jetson_release")
        exe = which("jetson_release", ["/usr/local/bin", "/usr/bin"])
        if exe is None:
            return Capture(NOT_FOUND, detail="jetson_release: command not found (pip install jetson-stats)",
                           origin="jetson_release")
        return self._run([exe])

    # -- Intel -----------------------------------------------------------------------------------
    def _pci_gpus(self) -> List[Dict[str, str]]:
        cached = getattr(self, "_pci_cache", None)
        if cached is not None:
            return cached
        out = []
        for d in sorted(glob_prefix(self._p("/sys/bus/pci/devices"), ""))[:MAX_PCI_DEVICES]:
            cls = read_text(os.path.join(d, "class"), 64)
            if cls.status != OK or not (cls.text or "").strip().startswith("0x03"):
                continue
            ven = read_text(os.path.join(d, "vendor"), 64)
            dev = read_text(os.path.join(d, "device"), 64)
            out.append({"slot": os.path.basename(d), "class": (cls.text or "").strip(),
                        "vendor": (ven.text or "").strip().lower(), "device": (dev.text or "").strip().lower()})
        self._pci_cache = out
        return out

    def _k_pci_gpus_json(self) -> Capture:
        if not os.path.isdir(self._p("/sys/bus/pci/devices")):
            return Capture(NOT_FOUND, detail="no /sys/bus/pci/devices", origin="/sys/bus/pci/devices")
        return Capture(OK, text=_json(self._pci_gpus()), origin="/sys/bus/pci/devices")

    def _k_xpu_smi_discovery_txt(self) -> Capture:
        return self._intel_command("xpu-smi", ["discovery"])

    def _k_sycl_ls_txt(self) -> Capture:
        return self._intel_command("sycl-ls", [])

    def _k_clinfo_txt(self) -> Capture:
        """clinfo: on an Intel GPU (OpenCL vs Level Zero) and on an AMD one (ROCm's OpenCL names the board and
        the gfx target: ``/opt/rocm/bin/clinfo`` or ocl-icd's)."""
        if self._amd_present() and not self._intel_present():
            return self._amd_command("clinfo", [])
        if not self._intel_present():
            return Capture(NOT_FOUND, detail="clinfo: skipped, no Intel display device on the PCI bus and no amdgpu "
                                             "kernel module or /dev/kfd", origin="clinfo")
        return self._intel_command("clinfo", [])

    # -- Apple -----------------------------------------------------------------------------------
    def _k_sw_vers_txt(self) -> Capture:
        return self._mac_command(["sw_vers"])

    def _k_system_profiler_displays_txt(self) -> Capture:
        return self._mac_command(["system_profiler", "SPDisplaysDataType"])
