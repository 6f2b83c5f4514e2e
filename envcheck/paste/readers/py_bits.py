"""A 32-bit Python shown or said in a bug report, and pip finding no build of a framework (issue 20, nv33). This module
only reads: each is evidence, and whether the pair makes ``python-arch-mismatch`` certain is decided in
:func:`envcheck.engine.prose_causes.python_bits`.

* ``python-32bit`` (the line): the Python is a 32-bit one, shown by what it prints - its banner or ``sys.version``
  (``[MSC v.1916 32 bit (Intel)]``, as ``pip debug verbose`` prints it: tensorflow/tensorflow#43244), collect_env's
  ``Python version: 3.7 (32-bit runtime)`` - or by the folder python.org's 32-bit Windows installer makes
  (``C:\\Python\\Python37-32\\Scripts>``, ``...\\python38-32\\python.exe``: pytorch/pytorch#41005); or said in a
  sentence of the thread: the Python is 32-bit ("My python is 32 bit", "I had the 32-bit version of Python 3.6.1", "you
  use Python 32 bit", "uninstall the x32 version"), or the answer that it must be 64-bit ("Please use 64-bit Python
  instead", "Install python 64bit not 32bit", "Make sure it is 64-bit python", "`tensorflow` requires 64-bit Python",
  "tensorflow is just for x64 versions of python", "please use Python x64 instead", "Reinstall python of 64bit").
  A question ("Are you using 32-bit Python?", "Is your Python on 32 bits?"), a condition or an assumption ("Assuming
  your Python distribution is 64-bit and not 32-bit", "If you are using Python 64-bit, ...") and a writer's own 64-bit
  Python ("I am pretty sure that I am using 64-bit Python") say nothing; nor does "32-bit" of anything but the Python
  (lscpu's ``CPU op-mode(s): 32-bit, 64-bit``, cuDNN's 32-bit indexing, ``(64-bit runtime)``).
* ``pip-none-said`` (``package | line``): pip's failure retold in a sentence that names torch or TensorFlow ("I tried to
  install tensorflow but encountered an error as there is no matching distribution", the misspelt "couldnot find a
  version that satisfies the requirements tensorflow"), not in a question. pip's own lines ("No matching distribution
  found for torch", "... is not a supported wheel on this platform") are the knowledge base's signatures (cause
  ``python-unsupported``): explain hands their match to the rule (:func:`envcheck.explain.rank.no_build`). PyTorch and
  TensorFlow publish no 32-bit wheels (pytorch/pytorch#40511: "we don't provide windows 32-bit binaries"). Also
  (pyarch39) a title or sentence saying the framework cannot be installed ("# Cant install PyTorch", "Can't install
  pytorch using pip under Windows 10"): where the text shows or says a 32-bit Python too, pip found no build for it;
  and pip building torch's placeholder source distribution (``torch-0.1.2.post2.tar.gz``, "Running setup.py install for
  torch ... error"), which it takes only where no torch wheel fits the Python.

Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re
from typing import List, Optional

from envcheck.paste.readers.base import Fact

__all__ = ["line_facts"]

#: what a 32-bit Python prints of itself: its banner / sys.version, collect_env's Python line
_SHOWN = re.compile(r"(?i)\[MSC v\.\d{3,4} 32 bit \(Intel\)\]|python\s{1,2}version:\s{0,2}\d\.\d{1,2}[^\n]{0,80}"
                    r"\(32-bit runtime\)")
#: the folder python.org's 32-bit Windows installer makes: Python37-32, python38-32 (the 64-bit one has no suffix)
_FOLDER = re.compile(r"(?i)(?<![\w-])python3\d{1,2}-32[\\/]")
_B32 = r"(?:32[\s-]?bits?|x32)"
_B64 = r"(?:64[\s-]?bits?|x64)"
#: a sentence saying the Python is 32-bit
_SAID32 = re.compile(
    r"(?i)(?<![\w-])" + _B32 + r"\s{0,2}(?:versions?\s{1,2}of\s{1,2})?(?:the\s{1,2})?python(?![\w-])"
    r"|(?<![\w-])python(?:\s{0,2}v?\d(?:\.\d{1,2}){0,2})?\s{0,2}(?:is\s{1,2}(?:on\s{1,2})?|on\s{1,2}|of\s{1,2})?"
    + _B32 + r"(?![\w-])(?!\s{0,2}(?:floats?|ints?|integers?|precision|values?|numbers?|types?|indexing|arithmetic)(?![\w-]))"
    r"|(?<![\w-])x32\s{1,2}version(?![\w-])")
#: the answer that the Python must be 64-bit: a verb of need or advice, then a 64-bit Python
_NEED64 = re.compile(
    r"(?i)(?<![\w-])(?:us(?:e|ing)|(?:re-?)?install(?:ing)?|requires?|needs?|make\s{1,2}sure|only\s{1,2}supports?"
    r"|(?:is|are)\s{1,2}(?:just|only)\s{1,2}for)(?![\w-])[^.;!?\n]{0,30}?"
    r"(?:(?<![\w-])" + _B64 + r"\s{0,2}(?:(?:versions?|distributions?|installations?|installers?|builds?)\s{1,2}of\s{1,2})?"
    r"python(?![\w-])"
    r"|(?<![\w-])python\s{0,2}(?:of\s{1,2})?" + _B64 + r"(?![\w-]))")
#: what makes a sentence no statement: a question, a condition, an assumption, a negation just before
_NOT_STATED = re.compile(r"(?i)\?|(?<![\w-])(?:if|whether|assuming|unless|pretty\s{1,2}sure)(?![\w-])")
_NOT_BEFORE = re.compile(r"(?i)(?<![\w-])(?:not|no)\s{1,2}(?:a\s{1,2})?$")
_SENTENCE = re.compile(r"(?<=[.!?;])\s{1,4}")
#: the writer's own Python before the verb ("I use 64-bit Python 3.9", "we already use python 64 bit"): a statement of
#: what the machine has, no advice (attack46)
_OWN_BEFORE = re.compile(r"(?i)(?<![\w'])(?:i|we|i'm|we're|i\s{1,2}am|we\s{1,2}are)(?:\s{1,2}(?:already|also|do|did|"
                         r"only|always|just|tried|have|had|was|were|even))?\s{1,2}$")
#: pip's failure retold in a sentence that names the framework ("I tried to install tensorflow but encountered an error
#: as there is no matching distribution", the misspelt "couldnot find a version ... tensorflow"): pip's own lines are the
#: knowledge base's (errors.toml, cause python-unsupported), read by explain and handed to the rule
_RETOLD = re.compile(r"(?i)(?<![\w-])(?:no\s{1,2}matching\s{1,2}distribution(?!\s{1,2}found)|couldnot\s{1,2}find\s{1,2}a\s{1,2}version)"
                     r"(?![\w-])")
#: (pyarch39) pip building torch from a source distribution: PyPI's only torch sdists are the 2017 placeholders 0.1.2 /
#: 0.1.2.post1 / 0.1.2.post2, which pip takes ("Using cached .../torch-0.1.2.post2.tar.gz") and builds ("Running setup.py
#: install for torch ... error", "Building wheel for torch (setup.py) ... error", a traceback through
#: pip-install-XXXX\torch\setup.py) only where no torch wheel fits the Python: pytorch/pytorch#37379 (Python38-32),
#: #28840 (Python37-32). Alone it says nothing (a Python too new, or before torch 1.5 Windows, whose wheels were not on
#: PyPI: #34798, a 64-bit Python)
_SDIST = re.compile(r"(?:Running setup\.py install for |Building wheel for |pip-install-\w{1,12}[\\/]{1,2}|[\s/\\])torch"
                    r"(?: \.\.\. error| \(setup\.py\)(?: \.\.\. error|: finished with status .error.)|[\\/]{1,2}setup\.py"
                    r"|-0\.1\.2(?:\.post\d)?\.tar\.gz)")
#: (pyarch39) a title or sentence saying the framework cannot be installed ("# Cant install PyTorch", pytorch/pytorch#42832;
#: "# Can't install pytorch using pip under Windows 10", #27815): with a 32-bit Python shown or said, pip found no build
_CANT = re.compile(r"(?i)(?<![\w-])(?:can'?t|cannot|can\s{1,2}not|unable\s{1,2}to|not\s{1,2}able\s{1,2}to)\s{1,2}install\s{1,2}"
                   r"(?:the\s{1,2})?(?:py)?(?:torch|tensorflow)(?![\w-])")
_FW = re.compile(r"(?i)(?<![\w-])(?P<p>torch|pytorch|tensorflow(?:-gpu|-cpu)?)(?![\w-])")


def _said(s: str) -> bool:
    for part in _SENTENCE.split(s):
        if _NOT_STATED.search(part):
            continue
        m = _SAID32.search(part)
        if m and not _NOT_BEFORE.search(part[max(0, m.start() - 8):m.start()]):
            return True
        need = _NEED64.search(part)
        if need and not _OWN_BEFORE.search(part[max(0, need.start() - 24):need.start()]):
            return True
    return False


def _bits(s: str, low: str) -> Optional[Fact]:
    if ("32 bit" in low and "msc v." in low) or "32-bit runtime" in low:
        if _SHOWN.search(s):
            return Fact("seen:python-32bit", s, s)
    if "-32" in low and _FOLDER.search(s):
        return Fact("seen:python-32bit", s, s)
    if "python" in low and ("bit" in low or "x32" in low or "x64" in low) and _said(s):
        return Fact("seen:python-32bit", s, s)
    return None


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one line (stripped, and lower-cased) shows: see the module's docstring."""
    out: List[Fact] = []
    if "32" in low or "64" in low:
        got = _bits(s, low)
        if got:
            out.append(got)
    if ("distribution" in low or "couldnot" in low or "install" in low) and ("torch" in low or "tensorflow" in low) \
            and (_RETOLD.search(s) or _CANT.search(s)) and not _NOT_STATED.search(s):
        fw = _FW.search(s)
        if fw:
            out.append(Fact("seen:pip-none-said", f"{fw.group('p').lower().replace('pytorch', 'torch')} | {s}", s))
    elif "torch" in low and ("0.1.2" in low or "setup.py" in low) and _SDIST.search(s):
        out.append(Fact("seen:pip-none-said", f"torch | {s}", s))
    return out
