"""``lspci -nn`` pasted in a report: each display controller's PCI vendor and device id (``03:00.0 VGA compatible
controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 [Radeon RX 7900 XT/7900 XTX] [1002:744c] (rev c8)``),
handed on as the snapshot's ``pci-gpus.json`` (contract §9: ``[{"slot", "vendor", "device", "class"}]``), so that an
AMD GPU known only by its PCI id gets its gfx target from the same table a snapshot's does. Only the ``-nn`` form
(with the ``[vvvv:dddd]`` ids) is read: a name from pci.ids is no driver's name, and no GPU is listed from it.
Display controllers only (class 03xx, or lspci's words for it); a run of such lines (``lspci -nn | grep VGA``)."""

from __future__ import annotations

import json
import re
from typing import List, Sequence

from envcheck.paste.readers.base import MAXLINE, Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "lspci"
# [domain:]bus:slot.func, the class name with its code ([0300]), the vendor:device ids
_ROW = re.compile(r"^(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\s+"
                  r"(VGA compatible controller|Display controller|3D controller)\s+\[(03[0-9a-fA-F]{2})\]:\s"
                  r"[^\n]{0,300}?\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\](?:\s+\(rev [0-9a-fA-F]{1,2}\))?(?:\s+\(prog-if [^)]{0,40}\))?\s*$")
_MAX = 1024


def detect(c: Line) -> int:
    if not _ROW.match(c.s):
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < _MAX and _ROW.match(text_of(c.lines[j])):
        j += 1
    return j - c.i


def read(lines: Sequence[str]) -> Partial:
    out: List[Fact] = []
    for ln in lines:
        s = text_of(ln[:MAXLINE])
        m = _ROW.match(s)
        if m:
            slot = s.split(None, 1)[0]
            out.append(Fact("pci", json.dumps({"slot": slot if slot.count(":") == 2 else "0000:" + slot,
                                               "vendor": "0x" + m.group(3).lower(), "device": "0x" + m.group(4).lower(),
                                               "class": "0x" + m.group(2).lower() + "00"}), s))
    if out:
        out.append(Fact("format", NAME, text_of(lines[0])))
    return partial(NAME, out)
