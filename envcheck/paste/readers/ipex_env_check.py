"""ipex-llm's ``env-check.sh`` (``python/llm/scripts/env-check.sh`` of intel-analytics/ipex-llm, BigDL-LLM before
it): each check prints a line of dashes, then its result. The results read here, as the script echoes them:

* ``PYTHON_VERSION=3.11.8`` (``check_python``: ``python -V``'s version);
* ``torch=2.1.0a0+cxx11.abi`` (``check_torch``: ``torch.__version__``), or ``PyTorch is not installed.``;
* ``ipex=2.1.10+xpu`` (``check_ipex``: ``intel_extension_for_pytorch.__version__``) is seen, not kept (no fact of
  the contract holds it).

A line is this form only right under the script's separator (a run of dashes), so ``torch=2.1`` written elsewhere
(a conda spec) is not taken for it. ``transformers=``, the ``lscpu`` / ``xpu-smi`` / ``lspci`` sections and the
memory lines state no fact of the contract.
"""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import PRE, Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "ipex-llm env-check"

_SEP = re.compile(r"^-{20,80}$")
_PY = re.compile(r"^PYTHON_VERSION=(?P<v>3\.\d{1,2}\.\d{1,2})\s*$")
_TORCH = re.compile(r"^torch=(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?" + PRE + r"(?:\+[\w.]{1,30})?)\s*$")
_SEEN = re.compile(r"^(?:ipex=\d|PyTorch is not installed\.|IPEX is not installed\.)")


def _after_separator(c: Line) -> bool:
    return c.i > 0 and bool(_SEP.match(text_of(c.lines[c.i - 1])))


def _facts(s: str) -> List[Fact]:
    pm, tm = _PY.match(s), _TORCH.match(s)
    if pm:
        return [Fact("python", pm.group("v"), s), Fact("format", NAME, s)]
    if tm:
        return [Fact("torch.version", tm.group("v"), s), Fact("seen:torch", s, s), Fact("format", NAME, s)]
    return [Fact("format", NAME, s)] if _SEEN.match(s) else []


def detect(c: Line) -> int:
    return 1 if _after_separator(c) and _facts(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    return partial(NAME, _facts(text_of(lines[0])) if lines else [])
