"""``lspci`` (``| grep -i nvidia``, ``-nn``, ``-v``): the PCI display controllers of NVIDIA
(class "VGA compatible controller" / "3D controller" / "Display controller", pciutils' names), e.g.

    5e:00.0 3D controller: NVIDIA Corporation GV100GL [Tesla V100S PCIe 32GB] (rev a1)
    04:00.0 3D controller: NVIDIA Corporation Device 1b38 (rev a1)     (a pci.ids too old to name it)

The GPU's marketing name is the bracketed part after the chip code (not the ``[10de:1db6]`` IDs of ``-nn``); an
unnamed device stays unnamed. lspci reads the PCI bus, not the driver: whether a driver is loaded, its version and
its CUDA are unknown from it, and so is whether the listing was filtered."""

from __future__ import annotations

import re
from typing import List, Optional

from envcheck.parse.gpu_listers.common import Listed, ListedGpu, plain_lines

__all__ = ["FORM", "detect", "read"]

FORM = "lspci"

_CTRL = re.compile(r"(?:^|(?<=[\s)]))((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])[ \t]+"
                   r"(?:VGA compatible|3D|Display) controller(?:[ \t]+\[03[0-9a-fA-F]{2}\])?:[ \t]+"
                   r"NVIDIA Corporation[ \t]+([^\n]{1,200})")
_BRACKET = re.compile(r"\[([^\[\]\n]{2,80})\]")
_IDS = re.compile(r"^[0-9a-fA-F]{4}:[0-9a-fA-F]{4}$")
_REV = re.compile(r"[ \t]*\(rev [0-9a-fA-F]{2}\).*$")


def detect(text: Optional[str]) -> bool:
    if not text:
        return False
    return any(_CTRL.search(ln) for ln in plain_lines(text))


def _name(rest: str) -> Optional[str]:
    rest = _REV.sub("", rest)
    return next((b.strip() for b in _BRACKET.findall(rest) if not _IDS.match(b.strip())), None)


def read(text: Optional[str]) -> Optional[Listed]:
    if not text or not detect(text):
        return None
    gpus: List[ListedGpu] = []
    for ln in plain_lines(text):
        m = _CTRL.search(ln)
        if m and len(gpus) < 1024:
            gpus.append(ListedGpu(index=len(gpus), name=_name(m.group(2)), bus_id=m.group(1)))
    return Listed(form=FORM, gpus=tuple(gpus), complete=False, driver_loaded=False,
                  note="`lspci`'s PCI listing: it names the NVIDIA GPUs on the bus but not the driver (whether one is "
                       "loaded, its version, the CUDA it supports)")
