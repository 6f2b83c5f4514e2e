"""TensorFlow's and Python's version on a line of their own, as people type them outside any template: a keyless
bullet (``- tensorflow-gpu 2.2.0``, ``- Python 3.8.3``), a bare line (``tensorflow: 2.8.0``, ``python version 3.8``)
or the ``X version is Y`` wording (``- Tensorflow version is 2.12.0``, ``- Python version is 3.8.13``). Only a line
that is nothing but the name and the version is read ("tf 2.1 was used" is prose); a CUDA or cuDNN typed this way is
the reporter's claim and is not read here."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "version lines"
#: the name, an optional "version", then "is", ":" / "=" / "==" or a space; the version ends the line
_SEP = r"(?:\s{1,3}version)?(?:\s{1,3}is\s|\s{0,3}(?:==|[:=])|\s)\s{0,3}v?"
_TF = re.compile(r"^(?:[-*\u2022]\s{1,3})?tensorflow(?:-gpu|-cpu)?" + _SEP
                 + r"(?P<v>[12]\.\d{1,2}(?:\.\d{1,3})?)\s{0,3}$", re.I)
_PY = re.compile(r"^(?:[-*\u2022]\s{1,3})?python" + _SEP + r"(?P<v>3\.\d{1,2}(?:\.\d{1,2})?)\s{0,3}$", re.I)


def _facts(s: str) -> List[Fact]:
    if len(s) > 80:
        return []
    tm = _TF.match(s)
    if tm:
        return [Fact("tf.version", tm.group("v"), s), Fact("seen:tensorflow", s, s), Fact("format", NAME, s)]
    pm = _PY.match(s)
    if pm:
        return [Fact("python", pm.group("v"), s), Fact("format", NAME, s)]
    return []


def detect(c: Line) -> int:
    return 1 if _facts(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    return partial(NAME, _facts(text_of(lines[0])) if lines else [])
