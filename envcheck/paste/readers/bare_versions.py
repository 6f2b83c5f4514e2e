"""TensorFlow's, PyTorch's and Python's version on a line of their own, as people type them outside any template: a
keyless bullet (``- tensorflow-gpu 2.2.0``, ``- Python 3.8.3``, a numbered ``- [2] pytorch=1.13.1`` or ``2) torch
2.1.0``), a bare line (``tensorflow: 2.8.0``, ``Pytorch 2.5.1``, ``python version 3.8``, ``python3.10.8``, ``pytorch1.7.1``, after an
OS word: ``Linux python3.10.8``) or the ``X version is Y`` wording (``- Tensorflow version is 2.12.0``, ``- Python version
is 3.8.13``), in backticks (``- `torch==2.5.1` ``), torch's with a note after it (``- torch 2.5.1 (cu121)``: a build's
local label; ``(from pip)``: dropped). Only a line that is nothing but the name and the version is read ("tf 2.1 was used", "I tried torch 2.1
and 2.3" are prose); a CUDA or cuDNN typed this way is the reporter's claim and is not read here; a line under a
"Requirements" / "Supported versions" heading never reaches this reader (:mod:`~envcheck.paste.readers.wanted`).

The same items in one comma- or semicolon-separated list (``CUDA 11.6, Python 3.8.15, pytorch 1.13.1``, ultralytics
#227's wording on one line) are read where every item is such a name-and-version (a CUDA / cuDNN / driver / OS item is
accepted and not read: the reporter's claim), JAX's and jaxlib's too, after a few words and a colon on the same line;
one item of prose and the line is prose. Under an introduction that says the versions are another machine's or
another time's ("the environment that I used:", "tested with:") nothing is read."""

from __future__ import annotations

import re
from typing import Callable, List, Optional, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, in_requirements_file, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "version lines"
#: the name, an optional "version", then "is", ":" / "=" / "==" or a space (or "version -": "Torch version - 1.10.2");
#: the version ends the line
_SEP = r"(?:\s{1,3}version\s{1,3}-|(?:\s{1,3}version)?(?:\s{1,3}is\s|\s{0,3}(?:==|[:=])|\s))\s{0,3}v?"
#: a bullet, a number (``[2]``, ``2.``, ``2)``) or both
_LEAD = r"^(?:[-*\u2022]\s{1,3})?(?:\[\d{1,2}\]\s{0,3}|\d{1,2}[.)]\s{1,3})?"
#: an OS word before a glued ``python3.10.8`` (``- [1] Linux python3.10.8``)
_OS = r"(?:(?:linux|windows(?:\s?1[01])?|win1[01]|ubuntu(?:\s\d{2}\.\d{2}(?:\.\d)?)?|macos(?:\s\d{2}(?:\.\d{1,2})?)?)[,;]?\s{1,3})?"
_TF = re.compile(_LEAD + r"tensorflow(?:-gpu|-cpu)?" + _SEP
                 + r"(?P<v>[12]\.\d{1,2}(?:\.\d{1,3})?)\s{0,3}$", re.I)
_PY = re.compile(_LEAD + r"python" + _SEP + r"(?P<v>3\.\d{1,2}(?:\.\d{1,2})?)\s{0,3}$", re.I)
_PY_GLUED = re.compile(_LEAD + _OS + r"python(?P<v>3\.\d{1,2}\.\d{1,2})\s{0,3}$", re.I)
_TORCH = re.compile(_LEAD + r"(?:py)?torch" + _SEP + r"(?P<v>[012]\.\d{1,2}(?:\.\d{1,3})?(?:\+(?:cu\d{2,3}|cpu|rocm[\d.]{1,8}))?)"
                    r"(?:\s{1,3}\((?P<note>[^()]{1,30})\))?\s{0,3}$", re.I)
#: a glued ``pytorch1.7.1`` / ``torch2.1.0+cu118`` on a line of its own (open-mmlab/mmdetection#4291's "my environment"
#: list); only a three-part version, as for Python (``pytorch1.7`` may name a conda environment)
_TORCH_GLUED = re.compile(_LEAD + r"(?:py)?torch(?P<v>[012]\.\d{1,2}\.\d{1,3}(?:\+(?:cu\d{2,3}|cpu|rocm[\d.]{1,8}))?)"
                          r"(?P<note>)\s{0,3}$", re.I)
#: a bullet's value wrapped in backticks, as Markdown bullets are often typed (``- `torch==2.5.1` ``)
_TICKED = re.compile(r"^(?P<lead>[-*\u2022]\s{1,3})?`(?P<body>[^`]{1,70})`(?P<rest>[^`]{0,40})$")
#: JAX's and jaxlib's own items (``jax 0.4.16``, ``jaxlib 0.4.16+cuda11.cudnn86``: the wheel's label says what it was
#: built for)
_JAX = re.compile(_LEAD + r"(?P<name>jaxlib|jax)" + _SEP + r"(?P<v>0\.\d{1,2}\.\d{1,3}(?:\.dev\d{8})?"
                  r"(?:\+cuda\d{2,3}(?:\.cudnn\d{2,3})?|\+cpu)?)\s{0,3}$", re.I)
#: list items accepted but not read: a CUDA / cuDNN / driver version (the reporter's claim, a deb's revision and CUDA
#: label too: ``cudnn 8.9.4.25-1+cuda11.8``), an OS with its version
_CLAIM_ITEM = re.compile(r"^(?:cuda(?:\s{1,3}toolkit)?|cudnn|nvidia\s{1,3}driver|driver|ubuntu|windows|win|centos|debian|macos)"
                         + _SEP + r"\d{1,3}(?:\.\d{1,3}){0,3}(?:-\d{1,2})?(?:\+cuda\d{1,2}(?:\.\d)?)?\s{0,3}$", re.I)
#: the words that introduce a list (before its ":", on its line or the line above) as not this machine's: an environment
#: used or tested elsewhere, recommended, required, expected ("Here is the 3090 machine environment that I used:",
#: leonnnop/VAR#5)
_INTRO_NOT_MINE = re.compile(r"(?i)\bused\b|\btried\b|\btested\b|recommend|suggest|requir|\bsupported\b|\bshould\b"
                             r"|\bneed|\bworks?\b|\bworked\b|previous|\bbefore\b|\bold\b|\bofficial\b|\bexpected\b"
                             r"|\bexample\b|\byour\b|\?")
#: the stricter words for the lists a reporter writes their own environment as (a bullet list, a torch build string):
#: advised, required, expected, an example - not "used" / "tested" / "works", which reporters say of their own
#: environment ("Environment used:"), nor a question, "need" or "your" ("Any idea? My environment:", "I need help, my
#: setup:", "the output of your script:")
_INTRO_ADVICE = re.compile(r"(?i)recommend|suggest|requir|\bshould\b|\bofficial\b|\bexpected\b|\bexample\b")
#: a question that asks whether a listed set of versions would do: "Does it probably work with the following versions?"
#: (stanfordnlp/phrasenode#2, pastes24: the reporter's own torch is named above it; the list is what they ask about)
_ASKED_LIST = re.compile(r"(?i)\b(?:following|these|those|below)\s{1,2}(?:\w{1,20}\s{1,2}){0,2}?(?:versions?|setups?"
                         r"|combinations?|configurations?|packages?)\b")
#: another item of the same list that no reader here takes ("- cuda 9.0" above "- pytorch 1.1.0")
_VERSION_ITEM = re.compile(r"^[-*\u2022]\s{1,3}[\w .+-]{1,40}?\d{1,4}\.\d{1,4}[\w.+-]{0,20}$")
_LIST_SPLIT = re.compile(r"\s{0,3}[,;]\s{0,3}")
#: a note after torch's version that is its build's local label: ``(cu121)``, ``(cpu)``
_BUILD_NOTE = re.compile(r"^(?:cu\d{2,3}|cpu)$", re.I)


def _torch_version(om: "re.Match[str]") -> str:
    """The version, with a build note (``- torch 2.5.1 (cu121)``) as its local label where it has none; any other
    note (``(from pip)``, ``(nightly)``) is dropped."""
    v, note = om.group("v"), (om.group("note") or "").strip()
    return f"{v}+{note.lower()}" if "+" not in v and _BUILD_NOTE.match(note) else v


def _other_version(om: "re.Match[str]") -> bool:
    """A note naming another version (``- torch 2.1.0 (tried 2.0.1 too)``): which one is installed is not certain."""
    return bool(re.search(r"\d\.\d", om.group("note") or ""))


def _list_facts(s: str) -> List[Fact]:
    """A comma/semicolon list of name-and-version items, each one read alone; nothing where any item is not one. The
    list may follow a few words and a colon ("Some information may help others: ubuntu 20.04; cuda 11.3; jaxlib
    0.4.16+cuda11.cudnn86; jax 0.4.16; python 3.9.", srush/annotated-s4#75) unless they say it is not this machine's."""
    items = [x for x in _LIST_SPLIT.split(s.rstrip(".")) if x]
    if items and ":" in items[0]:
        intro, first = items[0].rsplit(":", 1)
        if len(intro) > 80 or _INTRO_NOT_MINE.search(intro) or not first.strip():
            return []
        items[0] = first.strip()
    if not 2 <= len(items) <= 6:
        return []
    out: List[Fact] = []
    for i, item in enumerate(items):
        got = _one(item if i == 0 else item.strip())
        if got:
            out += [Fact(f.field, f.value, s) for f in got if f.field != "format"]
        elif not _CLAIM_ITEM.match(item.strip()):
            return []
    return out + [Fact("format", NAME, s)] if out else []


def _facts(s: str) -> List[Fact]:
    if len(s) > 160:
        return []
    if ("," in s or ";" in s) and len(s) > 8:
        return _list_facts(s)
    return _one(s) if len(s) <= 80 else []


def _one(s: str) -> List[Fact]:
    tk = _TICKED.match(s)
    s = f"{tk.group('lead') or ''}{tk.group('body')}{tk.group('rest')}" if tk else s
    tm = _TF.match(s)
    if tm:
        return [Fact("tf.version", tm.group("v"), s), Fact("seen:tensorflow", s, s), Fact("format", NAME, s)]
    pm = _PY.match(s) or _PY_GLUED.match(s)
    if pm:
        return [Fact("python", pm.group("v"), s), Fact("format", NAME, s)]
    om = _TORCH.match(s) or _TORCH_GLUED.match(s)
    if om and not _other_version(om):
        return [Fact("torch.version", _torch_version(om), s), Fact("seen:torch", s, s), Fact("format", NAME, s)]
    jm = _JAX.match(s)
    if jm:
        return [Fact("jax.jaxlib" if jm.group("name").lower() == "jaxlib" else "jax.version", jm.group("v"), s),
                Fact("format", NAME, s)]
    return []


def introduced_as_not_mine(c: Line, item: Optional[Callable[[str], object]] = None, advice_only: bool = False) -> bool:
    """Whether the line (or the list it ends) follows an introduction ending with ":" that says the versions are
    not this machine's (:data:`_INTRO_NOT_MINE`), or a question asking about "the following versions" (:data:`_ASKED_LIST`):
    up to 8 lines above, over blank lines and other version lines (and
    the lines ``item`` takes: another reader's list; ``advice_only``: only :data:`_INTRO_ADVICE`'s words count); or
    ends a sentence the line right above leaves open on such words (a hard-wrapped "The README recommends using" /
    "torch 2.1.0+cu118": prose_join's continuation, attack35)."""
    from envcheck.paste.readers.prose_join import leaves_open

    for j in range(c.i - 1, max(-1, c.i - 9), -1):
        t = text_of(c.lines[j][:300]).strip()
        if not t or _facts(t) or (item is not None and item(t)) or _VERSION_ITEM.match(t):
            continue
        if t.endswith(("?", "\uff1f")) and _ASKED_LIST.search(t):
            return True  # versions asked about, not installed
        words = _INTRO_ADVICE if advice_only else _INTRO_NOT_MINE
        return (t.endswith((":", "\uff1a")) or (j == c.i - 1 and leaves_open(t))) and bool(words.search(t))
    return False


def detect(c: Line) -> int:
    # a requirements file's pin (under its --index-url line) is what someone asks pip for, not what is installed
    return 1 if _facts(c.s) and not in_requirements_file(c) and not introduced_as_not_mine(c) else 0


def read(lines: Sequence[str]) -> Partial:
    return partial(NAME, _facts(text_of(lines[0])) if lines else [])
