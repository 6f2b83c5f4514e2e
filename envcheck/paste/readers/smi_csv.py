"""``nvidia-smi --query-gpu=... --format=csv`` output, with its header (``index, name, driver_version, ...``) or
without it (``--format=csv,noheader``: each cell read by its shape), read by
:func:`envcheck.parse.nvidia_smi.parse_query_csv` / :func:`~envcheck.parse.nvidia_smi.parse_query_rows`, the readers
a snapshot's ``nvidia-smi-query.csv`` gets."""

from __future__ import annotations

from typing import List, Optional, Sequence

from envcheck.paste.readers.base import MAXLINE, Fact, Line, Partial, partial, remembered, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "nvidia-smi --query-gpu"
#: a CSV line is read whole up to this many characters, not cut at base.MAXLINE: a query of every field (~300 of
#: them, as monitoring exporters run it) has a header of ~8 KB, and a header cut short would shift every cell after
#: the cut into the name column. A longer line is not read as a CSV line at all.
_CSV_LINE = 65536


def _whole(line: str) -> Optional[str]:
    """The line as :func:`text_of` gives it but whole, or ``None`` when it is longer than :data:`_CSV_LINE`."""
    if len(line) > _CSV_LINE:
        return None
    return text_of(line) if len(line) <= MAXLINE else (line.strip().lstrip("> ").strip() if line.lstrip()
                                                       .startswith(">") else line.strip())


@remembered
def _starts(first: str) -> List[bool]:
    """[whether ``first`` (a whole line with a comma) is a query's header], or [] where it is neither a header nor a row
    of GPUs: a pure function of the line (a long log's lines with commas, each parsed as a row once)."""
    from envcheck.parse.nvidia_smi import is_query_header, parse_query_rows

    header = is_query_header(first)
    return [header] if header or parse_query_rows(first).gpus else []


def detect(c: Line) -> int:
    from envcheck.parse.nvidia_smi import is_query_row, parse_query_rows

    first = _whole(c.lines[c.i])
    if first is None or "," not in first:
        return 0
    starts = _starts(first)
    if not starts:
        return 0
    header = starts[0]
    j = c.i + 1
    # under a header, a row is one whose cells fit the header's columns (a UUID, a MIG mode: cells of no shape)
    while j < len(c.lines) and j - c.i < 257:
        row = _whole(c.lines[j])
        if row is None or not (is_query_row(first, row) if header else parse_query_rows(row).gpus):
            break
        j += 1
    return j - c.i if j - c.i > 1 or not header else 0


def read(lines: Sequence[str]) -> Partial:
    from envcheck.parse.nvidia_smi import is_query_header, parse_query_csv, parse_query_rows

    whole = [_whole(ln) or "" for ln in lines]
    text = "\n".join(whole)
    q = parse_query_csv(text) if lines and is_query_header(whole[0]) else parse_query_rows(text)
    out: List[Fact] = []
    for k, g in enumerate(q.gpus):
        line = text_of(lines[min(k + 1 if is_query_header(whole[0]) else k, len(lines) - 1)])
        idx = g.index if g.index is not None else k
        out += [Fact("gpu", (idx, g.name, g.compute_capability, g.memory_total_mib), line), Fact("seen:gpu", line, line)]
        if g.driver_version:
            out += [Fact("driver", g.driver_version, line), Fact("seen:driver", line, line)]
    return partial(NAME, ([Fact("format", NAME, text_of(lines[0]))] if out else []) + out)
