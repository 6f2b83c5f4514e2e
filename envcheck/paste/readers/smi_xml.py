"""``nvidia-smi -q -x`` (its XML), whole or cut anywhere, from its ``<?xml`` / ``<nvidia_smi_log>`` start, read by
:func:`envcheck.parse.nvidia_smi.parse_xml` (the reader a snapshot's ``nvidia-smi.txt`` gets): the driver, its CUDA
("Not Found" is unknown), each ``<gpu id=...>``'s product name."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, gpu_name, partial

__all__ = ["NAME", "detect", "read"]

NAME = "nvidia-smi -q -x"
_START = re.compile(r'^(?:<\?xml version="1\.0" \?>|<nvidia_smi_log>)\s*$')
#: a line of the XML: an element (opened, closed or a leaf; DTD v13 has camelCase names: <cliqueId>), or the bare
#: word nvidia-smi writes in an empty one
_BODY = re.compile(r"^\s*(?:<[!/?]?[A-Za-z_][^<>]{0,300}>(?:[^<>]{0,300}</[A-Za-z_0-9]{1,60}>)?|[A-Za-z/ .]{1,20})\s*$")


def detect(c: Line) -> int:
    if not _START.match(c.s):
        return 0
    lines, i = c.lines, c.i
    j = i + 1
    while j < len(lines) and j - i < 20000 and _BODY.match(lines[j]):
        j += 1
        if lines[j - 1].strip() == "</nvidia_smi_log>":
            break
    return j - i


def read(lines: Sequence[str]) -> Partial:
    from envcheck.parse.nvidia_smi import parse_xml

    text = "\n".join(lines) + "\n"
    x = parse_xml(text)
    if x.state is None:
        return partial(NAME, [])
    # the text is the paste's nvidia-smi.txt too: parse_smi reads it by its content, as in a snapshot
    out: List[Fact] = [Fact("format", NAME, lines[0]), Fact("smi", text, lines[0])]
    if x.driver_version:
        line = f"<driver_version>{x.driver_version}</driver_version>"
        out += [Fact("driver", x.driver_version, line), Fact("seen:driver", line, line)]
    if x.cuda_version:
        out.append(Fact("smi_cuda", x.cuda_version, f"<cuda_version>{x.cuda_version}</cuda_version>"))
    for g in x.gpus:
        if g.name:
            out += [Fact("gpu", (g.index, gpu_name(g.name), None, g.memory_total_mib), g.name),
                    Fact("seen:gpu", g.name, g.name)]
    return partial(NAME, out)
