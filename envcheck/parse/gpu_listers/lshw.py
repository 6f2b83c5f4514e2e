"""``lshw -C display`` / ``-c video`` / a whole ``lshw``: one ``*-display`` node a display device (lshw's pci.cc:
class "display"; ``*-display:1``, ``*-display UNCLAIMED`` when no kernel driver is bound), its fields indented under it:

      *-display
           description: 3D controller
           product: GK107M [GeForce GT 750M]          (pci.ids' name: the chip, then the marketing name in brackets)
           vendor: NVIDIA Corporation                 ("nVidia Corporation" in older pci.ids; "[10DE]" with -numeric)
           bus info: pci@0000:01:00.0
           configuration: driver=nvidia latency=0     (the kernel driver bound to it: nvidia, nouveau, vfio-pci, ...)

Only display nodes whose vendor is NVIDIA are GPUs (an nForce chipset's "RAM memory" or an HDMI audio function is
not). ``driver=nvidia`` means NVIDIA's kernel module is bound to that GPU (loaded; its version is not shown); another
driver, or none, says nothing of a loaded NVIDIA driver. lshw reads the PCI bus: the CUDA the driver supports is
unknown, and whether the listing was cut is too (never a whole list)."""

from __future__ import annotations

import re
from typing import Dict, List, Optional

from envcheck.parse.gpu_listers.common import Listed, ListedGpu, plain_lines

__all__ = ["FORM", "detect", "read"]

FORM = "lshw"

_NODE = re.compile(r"^\*-([a-z][a-z0-9_]{0,30})(?::\d{1,3})?(?:[ \t]+(?:UNCLAIMED|DISABLED))?[ \t]*$")
_FIELD = re.compile(r"^(description|product|vendor|bus info|configuration):[ \t]{0,8}(\S[^\n]{0,300}?)[ \t]*$")
_BRACKET = re.compile(r"\[([^\[\]\n]{2,80})\]")
_IDS = re.compile(r"^[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4})?$")
_DRIVER = re.compile(r"(?:^|[ \t])driver=([A-Za-z0-9_.-]{1,40})")
_BUS = re.compile(r"^pci@((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])$")


def _nodes(text: str) -> List[Dict[str, str]]:
    """The display nodes of the text, each its fields (the first of each kind)."""
    nodes: List[Dict[str, str]] = []
    current: Optional[Dict[str, str]] = None
    for ln in plain_lines(text):
        ln = ln.replace("**", "")
        n = _NODE.match(ln)
        if n:
            current = {} if n.group(1) == "display" else None
            if current is not None and len(nodes) < 1024:
                nodes.append(current)
            continue
        f = _FIELD.match(ln)
        if f and current is not None:
            current.setdefault(f.group(1), f.group(2))
    return nodes


def _nvidia(node: Dict[str, str]) -> bool:
    return "nvidia" in node.get("vendor", "").lower() or node.get("vendor", "").upper().endswith("[10DE]")


def _name(product: Optional[str]) -> Optional[str]:
    """pci.ids' marketing name: the bracketed part after the chip ("GK107M [GeForce GT 750M]"), else the product as
    older pci.ids wrote it ("GeForce 8500 GT"); a vendor name only ("NVIDIA Corporation") is no GPU name."""
    if not product:
        return None
    named = [b.strip() for b in _BRACKET.findall(product) if not _IDS.match(b.strip())]
    if named:
        return str(named[0])
    bare = _BRACKET.sub("", product).strip()
    return None if not bare or "corporation" in bare.lower() else bare


def detect(text: Optional[str]) -> bool:
    if not text or "*-display" not in text:
        return False
    return any(_nvidia(n) for n in _nodes(text))


def read(text: Optional[str]) -> Optional[Listed]:
    """The NVIDIA display devices (names, bus ids) and whether NVIDIA's kernel module is bound to one; None when the
    text holds no lshw display node of NVIDIA."""
    if not text or "*-display" not in text:
        return None
    found = [n for n in _nodes(text) if _nvidia(n)]
    if not found:
        return None
    gpus = []
    drivers = []
    for i, node in enumerate(found):
        bus = _BUS.match(node.get("bus info", ""))
        gpus.append(ListedGpu(index=i, name=_name(node.get("product")), bus_id=bus.group(1) if bus else None))
        d = _DRIVER.search(node.get("configuration", ""))
        drivers.append(d.group(1) if d else None)
    bound = "nvidia" in drivers
    what = ("NVIDIA's kernel module is bound to it, its version is not shown" if bound else
            f"the kernel driver bound to it is {', '.join(sorted({d or 'none' for d in drivers}))}, not NVIDIA's")
    return Listed(form=FORM, gpus=tuple(gpus), complete=False, driver_loaded=bound,
                  note=f"`lshw`'s PCI display devices: {what}; the driver's version and the CUDA it supports are "
                       "unknown from it")
