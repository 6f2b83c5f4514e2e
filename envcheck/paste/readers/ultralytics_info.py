"""Ultralytics' system information (``yolo checks``, ``ultralytics.checks()``, the Environment field of its issue
template), a block of ``Key<spaces>value`` rows::

    OS                  Windows-10-10.0.19044-SP0
    Environment         Windows
    Python              3.11.0
    Install             pip
    RAM                 15.91 GB
    CPU                 AMD Ryzen 5 5600X 6-Core Processor
    CUDA                None

    torch               ✅ 2.1.0>=1.8.0
    torchvision         ✅ 0.16.0>=0.9.0

(newer releases add ``Path``, ``Disk``, ``CPU count``, ``GPU  NVIDIA GeForce RTX 3090, 24135MiB`` and ``GPU count``).
Read from ultralytics/utils/checks.py ``collect_system_info`` (ultralytics/ultralytics): ``"OS": platform.platform()``,
``"Python": PYTHON_VERSION``, ``"GPU": get_gpu_info(index=0) if cuda else None``, ``"CUDA": torch.version.cuda if
cuda else None`` with ``cuda = torch.cuda.is_available()`` - so ``CUDA  None`` is torch not reaching a CUDA GPU (a CPU
build, or a CUDA build that found none), and a version there is the torch build's CUDA; each requirement row is
``f"{name:<23}{'✅ ' or '❌ '}{metadata.version(name)}{specifier}"``: the installed distribution's version, whose local
label is kept (``2.1.1+cu121``; PyPI's Windows CPU wheel's distribution version is ``2.4.0`` while its
``torch.__version__`` prints ``2.4.0+cpu``: tests/data/pastes/pastes20d/sunone-36-*, heldout/pastes21a/ultralytics-14776-*).
A row ``(not installed)`` states no version.
"""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import RELEVANT, Fact, Line, Partial, mm, norm, partial, text_of
from envcheck.paste.readers.fields import platform_facts

__all__ = ["NAME", "detect", "read"]

NAME = "ultralytics system info"

#: one row: a key, two or more spaces, its value (Ultralytics pads the key to 20 / 23 characters)
_ROW = re.compile(r"^(?P<key>[A-Za-z][\w .-]{0,28}?)\s{2,}(?P<val>\S.{0,300})$")
_FIRST = re.compile(r"^OS\s{2,}(?:Windows|Linux|macOS|Darwin)-\S")
_SECOND = re.compile(r"^Environment\s{2,}\S")
_VERSION = re.compile(r"^(?:✅\s|❌\s)?(?P<v>\d{1,4}(?:\.\d{1,6}){1,3}(?:[a-z]{1,5}\d{0,8})?(?:\+[\w.]{1,30})?)")
_GPU = re.compile(r"^(?P<name>\S.{0,80}?),\s{0,2}(?P<mem>\d{3,7})MiB$")
_CUDA = re.compile(r"^\d{1,2}\.\d{1,2}$")
#: how many lines the block may take (its info rows and its requirement rows)
_MAX = 60


def detect(c: Line) -> int:
    if not _FIRST.match(c.s) or c.i + 1 >= len(c.lines) or not _SECOND.match(text_of(c.lines[c.i + 1])):
        return 0
    j, blank = c.i + 1, 0
    while j < len(c.lines) and j - c.i < _MAX:
        s = text_of(c.lines[j])
        if not s:
            blank += 1
            if blank > 1:
                break
        elif _ROW.match(s):
            blank = 0
        else:
            break
        j += 1
    while j > c.i + 1 and not text_of(c.lines[j - 1]):
        j -= 1
    return j - c.i


def _row(key: str, val: str, line: str) -> List[Fact]:
    k = key.strip().lower()
    if k == "os":
        return platform_facts(val, line)
    if k == "python":
        vm = _VERSION.match(val)
        return [Fact("python", vm.group("v"), line)] if vm else []
    if k == "cuda":
        if val == "None":
            return [Fact("gpu_fails", "torch", line)]
        return [Fact("torch.cuda", mm(val), line), Fact("gpu_works", "torch", line)] if _CUDA.match(val) else []
    if k == "gpu":
        gm = _GPU.match(val)
        return [Fact("gpu", (0, gm.group("name").strip(), None, int(gm.group("mem"))), line)] if gm else []
    vm = _VERSION.match(val)
    if vm and RELEVANT.match(norm(key.strip())):
        return [Fact("package", (key.strip(), vm.group("v"), None), line)]
    return []


def read(lines: Sequence[str]) -> Partial:
    first = text_of(lines[0]) if lines else ""
    out: List[Fact] = [Fact("format", NAME, first)]
    for raw in lines:
        s = text_of(raw)
        m = _ROW.match(s) if s else None
        if m:
            out += _row(m.group("key"), m.group("val").strip(), s)
    return partial(NAME, out)
