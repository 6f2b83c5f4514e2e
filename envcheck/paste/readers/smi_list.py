"""``nvidia-smi -L``: ``GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5d0a...)`` lines (the ``MIG 1g.10gb Device 0:
(UUID: MIG-...)`` lines under a GPU are not GPUs), read by :func:`envcheck.parse.nvidia_smi.parse_list`, the
reader a snapshot's ``nvidia-smi.txt`` gets; its lines joined into one (a one-line form field) are read as the lines."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, gpu_name, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "nvidia-smi -L"
_GPU = re.compile(r"^GPU (?P<idx>\d{1,3}): (?P<name>[^()]{2,80}?(?: \([a-z]{2,12}\))?) \(UUID: (?:GPU-[0-9a-fA-F-]{8,}"
                  r"\**|GPU-|\[removed\])\)\s*$")  # "GPU-" alone: a Windows driver that could not read it; "GPU-7780f282-...
# -65a55230****": a docs page's masked UUID
_MIG = re.compile(r"^\s*MIG\s+\S+\s+Device\s+\d+:\s*\(UUID:")
#: the "# " a script's comment puts before each line of a listing it keeps ("# GPU 0: A100-PCIE-40GB (UUID: ...)",
#: "#   MIG 3g.20gb Device 0: (UUID: ...)")
_COMMENT = re.compile(r"^#[ \t]*(?=GPU \d|MIG )")


def _uncommented(line: str) -> str:
    """The line without a shell comment's "#" before a listing's line (what the snapshot reader passes over too)."""
    return _COMMENT.sub("", line.strip(), count=1)


def _first(line: str) -> str:
    """The line, or the first of the ``-L`` lines it joins (:func:`envcheck.parse.nvidia_smi.split_joined_list`)."""
    from envcheck.parse.nvidia_smi import split_joined_list

    line = _uncommented(line)
    return split_joined_list(line)[0] if "(UUID:" in line else line


def detect(c: Line) -> int:
    from envcheck.parse.nvidia_smi import nvlink_line

    if not _GPU.match(_first(c.s)):
        return 0
    j = c.i + 1
    # `nvidia-smi nvlink -s` prints each GPU as -L does, its link lines under it: they are taken with the GPU lines,
    # so that the reader knows the list is nvlink's (never the whole list)
    while j < len(c.lines) and j - c.i < 1024 and (_GPU.match(_uncommented(text_of(c.lines[j])))
                                                    or _MIG.match(_uncommented(c.lines[j])) or nvlink_line(c.lines[j])):
        j += 1
    return j - c.i


def read(lines: Sequence[str]) -> Partial:
    from envcheck.parse.nvidia_smi import parse_list, split_joined_list

    pieces = [piece for ln in lines for piece in split_joined_list(_uncommented(text_of(ln)))]
    text = "\n".join(pieces) + "\n"
    listed = parse_list(text)
    out: List[Fact] = []
    for g in listed.gpus:
        line = next((p for p in pieces if p.startswith(f"GPU {g.index}:")), "")
        out += [Fact("gpu", (g.index, gpu_name(g.name or ""), None, None), line), Fact("seen:gpu", line, line)]
    if out:  # the text is the paste's nvidia-smi.txt too: parse_smi reads it by its content, as in a snapshot
        out += [Fact("format", NAME, out[0].line), Fact("smi", text, out[0].line)]
    return partial(NAME, out)
