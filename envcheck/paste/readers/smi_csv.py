"""``nvidia-smi --query-gpu=... --format=csv`` output, with its header (``index, name, driver_version, ...``) or
without it (``--format=csv,noheader``: each cell read by its shape), read by
:func:`envcheck.parse.nvidia_smi.parse_query_csv` / :func:`~envcheck.parse.nvidia_smi.parse_query_rows`, the readers
a snapshot's ``nvidia-smi-query.csv`` gets."""

from __future__ import annotations

from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "nvidia-smi --query-gpu"


def detect(c: Line) -> int:
    from envcheck.parse.nvidia_smi import is_query_header, is_query_row, parse_query_rows

    if "," not in c.s:
        return 0
    header = is_query_header(c.s)
    if not header and not parse_query_rows(c.s).gpus:
        return 0
    j = c.i + 1
    # under a header, a row is one whose cells fit the header's columns (a UUID, a MIG mode: cells of no shape)
    while j < len(c.lines) and j - c.i < 257 and (
            is_query_row(c.s, text_of(c.lines[j])) if header else parse_query_rows(text_of(c.lines[j])).gpus):
        j += 1
    return j - c.i if j - c.i > 1 or not header else 0


def read(lines: Sequence[str]) -> Partial:
    from envcheck.parse.nvidia_smi import is_query_header, parse_query_csv, parse_query_rows

    text = "\n".join(text_of(ln) for ln in lines)
    q = parse_query_csv(text) if lines and is_query_header(text_of(lines[0])) else parse_query_rows(text)
    out: List[Fact] = []
    for k, g in enumerate(q.gpus):
        line = text_of(lines[min(k + 1 if is_query_header(text_of(lines[0])) else k, len(lines) - 1)])
        idx = g.index if g.index is not None else k
        out += [Fact("gpu", (idx, g.name, g.compute_capability, g.memory_total_mib), line), Fact("seen:gpu", line, line)]
        if g.driver_version:
            out += [Fact("driver", g.driver_version, line), Fact("seen:driver", line, line)]
    return partial(NAME, ([Fact("format", NAME, text_of(lines[0]))] if out else []) + out)
