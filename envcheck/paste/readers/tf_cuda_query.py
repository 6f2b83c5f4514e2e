"""TensorFlow's own answer to "was this binary built with CUDA?", printed in a REPL, a notebook or a one-line shell
command: ``>>> tf.test.is_built_with_cuda()`` then ``False``, ``print(tf.test.is_built_with_gpu_support())`` then
``False``, Jupyter's ``In [2]: tf.test.is_built_with_cuda()`` then ``Out[2]: False``, ``python -c "import tensorflow
as tf; print(tf.test.is_built_with_cuda())"`` then ``True``, or the expression and its value on one line
(``tf.test.is_built_with_cuda(): False``, ``... = False``).

The functions are TensorFlow's (tensorflow/python/platform/test.py: ``is_built_with_cuda``, ``is_built_with_rocm``,
``is_built_with_gpu_support`` = CUDA or ROCm, ``is_built_with_xla``), and they read the binary's own build flags
(``_pywrap_util_port.IsGoogleCudaEnabled`` / ``IsBuiltWithROCm``): the answer is a fact of the installed binary,
the same as ``tf.sysconfig.get_build_info()``'s ``is_cuda_build``. Read: ``is_built_with_cuda()`` True or False, and
``is_built_with_gpu_support()`` False (no CUDA either; its True could be a ROCm build, so it says nothing about CUDA).
``tf.test.is_gpu_available()`` and ``tf.config.list_physical_devices('GPU')`` are not read: they answer whether a GPU
was found at run time, which a CUDA build on a machine without a working driver also answers with False / ``[]``.
The fact is ``tf.build.is_cuda_build``, the snapshot's ``tensorflow.json`` key (contract §1)."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of
from envcheck.paste.readers.printed import unquoted, value_line

__all__ = ["NAME", "detect", "read"]

NAME = "tf.test.is_built_with_cuda()"
_EXPR = r"(?:tf|tensorflow)\.test\.is_built_with_(?P<what>cuda|gpu_support)\(\)"
#: the statement alone on its line: a REPL / notebook prompt, a print() of it, or a one-line `python -c "...print(x)"`
_STATEMENT = re.compile(r"^(?:(?:>>>|In\s\[\d{1,4}\]:)\s{0,3}(?:print\(\s{0,3})?|print\(\s{0,3}|[^\n]{0,200}?\bpython[\d.]{0,4}"
                        r"""(?:\.exe)?\s{1,3}-c\s{1,3}["'][^"']{0,200}?print\(\s{0,3})""" + _EXPR +
                        r"""\s{0,3}\)?\s{0,3}(?:["']\s{0,3})?;?\s*$""")
#: the expression and its value on one line ("tf.test.is_built_with_cuda(): False", "... = False", "... -> False")
_SAME_LINE = re.compile(r"^(?:(?:>>>|In\s\[\d{1,4}\]:)\s{0,3})?(?:print\(\s{0,3})?" + _EXPR +
                        r"\s{0,3}\)?\s{0,3}(?::|=|->)\s{0,3}(?P<val>True|False)\s*$")
_VALUE = re.compile(r"^(?:Out\[\d{1,4}\]:\s{0,3})?(?P<val>True|False)\s*$")


def _value_line(lines: Sequence[str], i: int) -> Optional[int]:
    """The index of the True / False printed after the statement at ``i`` (:func:`printed.value_line`)."""
    j = value_line(lines, i)
    return j if j is not None and _VALUE.match(unquoted(lines[j])) else None


def _facts(what: str, val: str, line: str) -> List[Fact]:
    if what == "cuda":
        built: Optional[bool] = val == "True"
    else:
        built = False if val == "False" else None  # gpu_support True: CUDA or ROCm, not known which
    if built is None:
        return []
    return [Fact("tf.build.is_cuda_build", built, line), Fact("seen:tensorflow", line, line), Fact("format", NAME, line)]


def detect(c: Line) -> int:
    if "is_built_with_" not in c.low:
        return 0
    raw = unquoted(c.line)
    if _SAME_LINE.match(raw):
        return 1
    if not _STATEMENT.match(raw):
        return 0
    j = _value_line(c.lines, c.i)
    return 0 if j is None else j + 1 - c.i


def read(lines: Sequence[str]) -> Partial:
    if not lines:
        return partial(NAME, [])
    raw = unquoted(lines[0])
    m = _SAME_LINE.match(raw)
    if m:
        return partial(NAME, _facts(m.group("what"), m.group("val"), text_of(lines[0])))
    sm = _STATEMENT.match(raw)
    vm = _VALUE.match(unquoted(lines[-1])) if len(lines) > 1 else None
    if not sm or not vm:
        return partial(NAME, [])
    return partial(NAME, _facts(sm.group("what"), vm.group("val"), f"{text_of(lines[0])} -> {vm.group('val')}"))
