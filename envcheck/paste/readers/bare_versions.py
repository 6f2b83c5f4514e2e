"""TensorFlow's, PyTorch's and Python's version on a line of their own, as people type them outside any template: a
keyless bullet (``- tensorflow-gpu 2.2.0``, ``- Python 3.8.3``, a numbered ``- [2] pytorch=1.13.1`` or ``2) torch
2.1.0``), a bare line (``tensorflow: 2.8.0``, ``Pytorch 2.5.1``, ``python version 3.8``, ``python3.10.8``, after an OS
word: ``Linux python3.10.8``) or the ``X version is Y`` wording (``- Tensorflow version is 2.12.0``, ``- Python version
is 3.8.13``). Only a line that is nothing but the name and the version is read ("tf 2.1 was used", "I tried torch 2.1
and 2.3" are prose); a CUDA or cuDNN typed this way is the reporter's claim and is not read here; a line under a
"Requirements" / "Supported versions" heading never reaches this reader (:mod:`~envcheck.paste.readers.wanted`)."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "version lines"
#: the name, an optional "version", then "is", ":" / "=" / "==" or a space; the version ends the line
_SEP = r"(?:\s{1,3}version)?(?:\s{1,3}is\s|\s{0,3}(?:==|[:=])|\s)\s{0,3}v?"
#: a bullet, a number (``[2]``, ``2.``, ``2)``) or both
_LEAD = r"^(?:[-*\u2022]\s{1,3})?(?:\[\d{1,2}\]\s{0,3}|\d{1,2}[.)]\s{1,3})?"
#: an OS word before a glued ``python3.10.8`` (``- [1] Linux python3.10.8``)
_OS = r"(?:(?:linux|windows(?:\s?1[01])?|win1[01]|ubuntu(?:\s\d{2}\.\d{2}(?:\.\d)?)?|macos(?:\s\d{2}(?:\.\d{1,2})?)?)[,;]?\s{1,3})?"
_TF = re.compile(_LEAD + r"tensorflow(?:-gpu|-cpu)?" + _SEP
                 + r"(?P<v>[12]\.\d{1,2}(?:\.\d{1,3})?)\s{0,3}$", re.I)
_PY = re.compile(_LEAD + r"python" + _SEP + r"(?P<v>3\.\d{1,2}(?:\.\d{1,2})?)\s{0,3}$", re.I)
_PY_GLUED = re.compile(_LEAD + _OS + r"python(?P<v>3\.\d{1,2}\.\d{1,2})\s{0,3}$", re.I)
_TORCH = re.compile(_LEAD + r"(?:py)?torch" + _SEP + r"(?P<v>[012]\.\d{1,2}(?:\.\d{1,3})?(?:\+(?:cu\d{2,3}|cpu|rocm[\d.]{1,8}))?)"
                    r"\s{0,3}$", re.I)


def _facts(s: str) -> List[Fact]:
    if len(s) > 80:
        return []
    tm = _TF.match(s)
    if tm:
        return [Fact("tf.version", tm.group("v"), s), Fact("seen:tensorflow", s, s), Fact("format", NAME, s)]
    pm = _PY.match(s) or _PY_GLUED.match(s)
    if pm:
        return [Fact("python", pm.group("v"), s), Fact("format", NAME, s)]
    om = _TORCH.match(s)
    if om:
        return [Fact("torch.version", om.group("v"), s), Fact("seen:torch", s, s), Fact("format", NAME, s)]
    return []


def detect(c: Line) -> int:
    return 1 if _facts(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    return partial(NAME, _facts(text_of(lines[0])) if lines else [])
