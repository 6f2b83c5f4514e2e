"""The AMD kernel side, readable without any ROCm user space: KFD topology node ``properties``
(``gfx_target_version 90010``, ``vendor_id 4098``, ``device_id 29580``), ``/sys/module/amdgpu/version``,
ROCm's version file (``/opt/rocm/.info/version`` or ``/opt/rocm/core/.info/version``: ``6.2.4-120``) and
envcheck's ``devices.json`` (device nodes and the user's groups)."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from envcheck.model import DeviceNode, Gpu
from envcheck.parse.captures import load_json_object
from envcheck.parse.gfx import gfx_from_target_version
from envcheck.parse.limits import gpu_list

__all__ = ["parse_kfd_properties", "kfd_gpu", "parse_rocm_version_file", "parse_amdgpu_version",
           "parse_devices_json"]


def parse_kfd_properties(text: Optional[str]) -> Dict[str, int]:
    """``key value`` lines -> ``{key: int}`` (lines that are not that are skipped)."""
    out: Dict[str, int] = {}
    for line in (text or "").splitlines()[:2000]:
        m = re.match(r"^\s*([a-z0-9_]{1,64})\s+(-?\d{1,20})\s*$", line)
        if m:
            out.setdefault(m.group(1), int(m.group(2)))
    return out


def kfd_gpu(props: Dict[str, int], node: Optional[int] = None, name: Optional[str] = None) -> Optional[Gpu]:
    """The GPU a node describes; ``None`` for a CPU node (``gfx_target_version 0`` / no SIMDs)."""
    gfx = gfx_from_target_version(props.get("gfx_target_version"))
    if gfx is None or props.get("simd_count", 1) == 0:
        return None
    vendor = props.get("vendor_id")
    dev = props.get("device_id")
    mem = props.get("local_mem_size")
    nm = (name or "").strip() or None
    return Gpu(index=node, name=nm if nm and not nm.startswith("gfx") else None,
               memory_mib=mem // (1024 * 1024) if mem else None,
               vendor="amd" if vendor in (None, 4098) else None, gfx=gfx,
               device_id="0x%04x" % dev if isinstance(dev, int) and 0 < dev < 65536 else None,
               source="kfd topology")


def parse_rocm_version_file(text: Optional[str]) -> Optional[str]:
    """``6.2.4-120`` -> ``6.2.4``; ``5.7.1`` -> ``5.7.1``; anything else (an error text) -> None."""
    for line in (text or "").splitlines()[:5]:
        m = re.match(r"^\s*(\d+\.\d+(?:\.\d+)?)(?:[-.]\d+)*\s*$", line)
        if m:
            return m.group(1)
    return None


def parse_amdgpu_version(text: Optional[str]) -> Optional[str]:
    """``/sys/module/amdgpu/version`` (only the DKMS module from AMD has one): ``6.8.5`` -> ``6.8.5``. The same
    field as ``modinfo amdgpu | grep version`` prints it, ``version:        6.16.13`` (the in-box module has no
    ``version:`` line: its ``srcversion`` / ``vermagic`` - the kernel's release - are not the driver's version)."""
    line = (text or "").strip().splitlines()[:1]
    if line and re.fullmatch(r"\d+\.\d+(\.\d+)*(-\S+)?", line[0].strip()):
        return line[0].strip()
    for raw in (text or "").splitlines()[:200]:
        m = re.match(r"^\s*version:\s+(\d{1,3}\.\d{1,3}\.\d{1,4}(?:\.\d{1,6})*)\s*$", raw)
        if m:
            return m.group(1)
    return None


@gpu_list
def parse_devices_json(text: Optional[str]) -> Tuple[List[DeviceNode], Optional[Tuple[str, ...]]]:
    data = load_json_object(text)
    if not data:
        return [], None
    nodes = []
    for k, v in data.items():
        if not isinstance(k, str) or not k.startswith("/dev/") or not isinstance(v, dict):
            continue

        def b(x: Any) -> Optional[bool]:
            return x if isinstance(x, bool) else None

        nodes.append(DeviceNode(k, b(v.get("exists")), b(v.get("readable")), b(v.get("writable"))))
    g = data.get("groups")
    groups = tuple(str(x) for x in g if isinstance(x, str)) if isinstance(g, list) else None
    nodes.sort(key=lambda n: (n.path != "/dev/kfd", n.path))
    return nodes[:64], groups
