"""TensorFlow's issue template, plain (``- TensorFlow version: 2.9.1``) and bold Markdown
(``**CUDA/cuDNN version**: 11.2/8.1``), a field whose value is on a later line (``- TensorFlow version:`` then
`` `2.2.0` ``), the newer form's ``### Tensorflow Version`` headings, and ``tf.__version__ = 2.4.0``.

The template's CUDA/cuDNN field is the user's claim (facts ``claims``), never the installed toolkit; a driver
it names is the driver's version."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.paste.readers import fields
from envcheck.paste.readers.base import KV, Fact, Line, Partial, first_version, next_value, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "tensorflow template"
_HEADING = re.compile(r"^#{2,4}\s*(tensorflow version|python version|gpu model and memory|os platform and "
                      r"distribution|cuda/cudnn version|source)\s*$")
_LATER = fields.TF_TEMPLATE_KEYS | {"python version", "gpu model and memory", "cuda/cudnn version"}
_ASSIGN = re.compile(r"^tf\.__version__\s*=")
Facts = List[Fact]


def detect(c: Line) -> int:
    km, lines, i = c.km, c.lines, c.i
    if km and not km.group("val").strip("`* ") and km.group("key").strip().lower() in _LATER:
        j = next_value(lines, i)
        if j < len(lines) and not KV.match(lines[j].strip()) and not lines[j].strip().startswith("#"):
            return j + 1 - i
    if km and fields.tf_field(km.group("key"), km.group("val")) is not None:
        return 1
    if _HEADING.match(c.low):
        j = next_value(lines, i)
        if j < len(lines) and not lines[j].strip().startswith("#"):
            return j + 1 - i
    return 1 if _ASSIGN.match(c.s) else 0


def _value(key: str, val: str, line: str, python_fact: str) -> Facts:
    if key == "source":  # the issue form's "### Source" heading: source or binary
        key = "tensorflow installed from"
    if key == "python version":
        v = first_version(val)
        return [Fact(python_fact, v, line)] if v else []
    return fields.tf_field(key, val, line) or []


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    km = KV.match(s)
    later = lines[-1].strip() if len(lines) > 1 else None
    out: Optional[Facts] = None
    if km and later is not None and not km.group("val").strip("`* "):
        # a template field whose value is on a later line ("- TensorFlow version:\n\n`2.2.0`")
        out = _value(km.group("key").strip().lower(), later.strip("`"), later, "python")
    elif km and fields.tf_field(km.group("key"), km.group("val")) is not None:
        out = fields.tf_field(km.group("key"), km.group("val"), s)
    elif later is not None:
        hm = _HEADING.match(s.lower())
        if hm:  # "### Python version" counts only in a TensorFlow template: merged as "python.tf"
            out = _value(hm.group(1), later, later, "python.tf")
    elif _ASSIGN.match(s):
        v = first_version(s.split("=", 1)[1])
        out = [Fact("tf.version", v, s), Fact("format", "tensorflow version", s)] if v else []
    return partial(NAME, out or [])
