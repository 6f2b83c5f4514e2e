"""OpenMMLab's environment block: ``mmcv``/``mmengine``'s ``collect_env`` as printed by mmdet / mmseg / mmpose /
mmdet3d / mmocr (``python mmdet/utils/collect_env.py``, the "Environment info" at the top of their training logs and
their issue template's "Environment"): ``sys.platform: linux``, ``Python: 3.7.6 (default, ...)``, ``CUDA available:
True``, ``GPU 0,1: Tesla T4`` (one line for several identical GPUs), ``NVCC: Cuda compilation tools, release 10.2,
V10.2.89``, ``PyTorch: 1.7.1``, ``PyTorch compiling details: PyTorch built with:`` and torch's build block, then
``TorchVision: 0.8.2``, ``OpenCV``, ``MMCV``, ``MMCV Compiler``, ``MMCV CUDA Compiler``, ``MMDetection: ...``.

The same block printed as the dict ``collect_env()`` returns (the mmcv / mmdet issue template's ``python -c "from
mmcv.utils import collect_env; print(collect_env())"``): one line ``{'sys.platform': 'linux', 'Python': '3.8.12 ...',
'CUDA available': True, 'GPU 0,1': 'NVIDIA TITAN Xp', ..., 'PyTorch': '1.12.1+cu116', 'PyTorch compiling details':
'PyTorch built with:\\n - GCC 9.3\\n ...'}``, often cut; its pairs are read as the block's rows.

Each row is read by the rules detectron2's table shares (:func:`.detectron2.row`, :func:`.detectron2.built_item`):
one home for them. ``MMCV CUDA Compiler`` is the toolkit mmcv was built with, not the installed one: not read."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.paste.readers import fields
from envcheck.paste.readers.base import Fact, Line, Partial, partial
from envcheck.paste.readers.detectron2 import built_item, row

__all__ = ["NAME", "detect", "read"]

NAME = "openmmlab collect_env"
_START = re.compile(r"^sys\.platform:\s*\S")
#: a row of the block ("GPU 0,1,2,3: Tesla V100-SXM2-32GB", "CUDA_HOME: /usr/local/cuda", "MMCV CUDA Compiler: 11.3")
_ROW = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9 _.,()/+-]{0,60}?):(?:\s(?P<val>.*))?$")
#: the rows after torch's build block: torchvision, OpenCV and the OpenMMLab packages
_AFTER = re.compile(r"^(?:TorchVision|OpenCV|MM[A-Za-z0-9]*|mm[a-z0-9]*)\b[^:]{0,40}:")
_MAX = 300
#: the dict form's first pair, and each ``'key': 'value'`` / ``'key': True`` pair (a value's escapes kept: ``\\n``
#: separates the lines of torch's build details); one pass over the line, no nested repeats
_DICT_START = re.compile(r"^\{\s{0,3}'sys\.platform':\s{0,3}'")
_PAIR = re.compile(r"'(?P<k>[A-Za-z][A-Za-z0-9 _.,()/+-]{0,60})':\s{0,3}(?:'(?P<s>(?:[^'\\\n]|\\.){0,4000})'"
                   r"|(?P<b>True|False|None))")


def _dict_rows(s: str) -> List[str]:
    """The rows of the block from the dict form's line."""
    rows: List[str] = []
    for m in _PAIR.finditer(s):
        v = m.group("s") if m.group("s") is not None else m.group("b")
        parts = v.replace("\\n", "\n").split("\n")
        rows.append(f"{m.group('k')}: {parts[0].strip()}")
        rows.extend(p.strip() for p in parts[1:] if p.strip())
    return rows


def _continues(s: str, in_built: bool) -> bool:
    if in_built:
        return s.startswith("-") or bool(_AFTER.match(s))
    return bool(_ROW.match(s))


def _end(lines: Sequence[str], start: int) -> int:
    """The index after the block: its rows, torch's build block, the rows after it; one blank line is allowed
    between parts (a log prints one after the build block)."""
    in_built = False
    i, last = start, start
    while i < len(lines) and i - start < _MAX:
        s = lines[i].strip()
        if not s:
            i += 1
            continue
        if not _continues(s, in_built) and i > start:
            break
        in_built = in_built or "PyTorch built with" in s
        last = i
        i += 1
    return last + 1


def detect(c: Line) -> int:
    if _DICT_START.match(c.s):
        return 1
    return _end(c.lines, c.i) - c.i if _START.match(c.s) else 0


def _cells(s: str) -> Optional[List[str]]:
    m = _ROW.match(s)
    return [m.group("key").strip(), (m.group("val") or "").strip()] if m else None


def read(lines: Sequence[str]) -> Partial:
    out: List[Fact] = [Fact("format", NAME, lines[0] if lines else "")]
    if lines and _DICT_START.match(lines[0].strip()):
        lines = _dict_rows(lines[0].strip())
    in_built = False
    for ln in lines:
        s = ln.strip()
        if in_built and s.startswith("- "):
            out += built_item(s[2:], ln)
            continue
        kv = _cells(s)
        if not kv or not kv[1]:
            continue
        key, val = kv
        if "PyTorch built with" in val:
            in_built = True
        elif key.lower() == "cuda available":
            out += [Fact("seen:cuda-available", s[:300], ln)] + fields.gpu_state("torch", val, ln)
        else:
            out += row(key, val, ln)
    return partial(NAME, out)
