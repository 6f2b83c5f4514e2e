"""Stable Diffusion web UI's footer, pasted in its bug form's "Commit where the problem happens" / "Version" field
(AUTOMATIC1111 and its forks): ``version: v1.6.0 • python: 3.10.11 • torch: 2.0.1+cu118 • xformers: N/A • gradio:
3.41.2 • commit: 5ef669de``, the fields separated by ``•`` (or ``|``). The Python's version and torch's version (its
``+cu118`` tag with it) are read; the other fields are the web UI's own."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, clean, first_version, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "webui footer"
#: one ``key: value`` field of the footer (the line is split on its separators first)
_FIELD = re.compile(r"(?:^|\s)(?P<key>python|torch)\s{0,3}:\s{0,3}(?P<val>\S{1,60})\s*$", re.I)
_SEP = re.compile(r"\s{1,4}[\u2022|]\s{1,4}")
Facts = List[Fact]


def _facts(s: str) -> Facts:
    out: Facts = []
    for part in _SEP.split(s)[:16]:
        m = _FIELD.search(part)
        if not m:
            continue
        key, val = m.group("key").lower(), clean(m.group("val"))
        v = first_version(val)
        if key == "python" and v and re.match(r"^[23]\.\d{1,2}(?:\.\d{1,2})?$", v):
            out.append(Fact("python", v, s))
        elif key == "torch" and v:
            out += [Fact("torch.version", v, s), Fact("seen:torch", f"torch: {val}", s)]
    return out + [Fact("format", NAME, s)] if out else []


def detect(c: Line) -> int:
    if "torch:" not in c.low or "python:" not in c.low or not _SEP.search(c.s):
        return 0
    return 1 if _facts(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    return partial(NAME, _facts(text_of(lines[0])) if lines else [])
