"""Values printed in a REPL, a notebook or a one-line shell command, the expression on one line and its value on the
next: ``>>> torch.__version__`` then ``'2.0.1+cu118'``, ``print(torch.version.cuda)`` then ``11.8``, ``$ python -c
"import torch; print(torch.cuda.is_available())"`` then ``False``, Jupyter's ``In [3]: tf.__version__`` then ``Out[3]:
'2.10.0'``. Read: ``torch.__version__``, ``torch.version.cuda`` (``None``: not a CUDA build), ``torch.cuda.is_available()``,
``torch.backends.cudnn.version()`` (torch's own cuDNN: ``8700`` -> 8.7.0, ``90100`` -> 9.1.0),
``torch.cuda.get_device_name(N)``, ``tf.__version__`` and ``platform.machine()`` (the Python's architecture:
``'x86_64'`` printed on an Apple silicon Mac is an Intel Python under Rosetta 2, python/cpython#96993). A value must look like what its expression returns; a value
that is not on the next non-blank line is not read. One ``print(a, b, c)`` of several of these expressions (not of a
device name, whose value has blanks) is read when its output line has exactly one word per expression
(``print(torch.__version__, torch.version.cuda, torch.cuda.is_available())`` then ``2.1.0+cu121 12.1 True``).
A build script's own one-line print of the torch it builds against (NVIDIA Apex's and others' setup.py:
``torch.__version__  = 2.1.0+cu121``) is read too."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.parse.versions import cudnn_digits
from envcheck.paste.readers import fields
from envcheck.paste.readers.base import MAXLINE, Fact, Line, Partial, gpu_name, mm, partial, text_of

__all__ = ["NAME", "detect", "read", "unquoted", "value_line"]

NAME = "printed values"
_EXPRS = (r"torch\.__version__|torch\.version\.cuda|torch\.cuda\.is_available\(\)|torch\.backends\.cudnn\.version\(\)"
          r"|torch\.cuda\.get_device_name\((?P<idx>\d{0,2})\)|(?:tf|tensorflow)\.__version__|platform\.machine\(\)")
#: the statement, at the start of its line: a REPL / notebook prompt, a print() of one expression, or a one-line
#: `python -c "...; print(x)"` (an expression quoted in prose, "`print(torch.__version__)` gives", is not one)
_STATEMENT = re.compile(r"^(?:(?:>>>|In\s\[\d{1,4}\]:)\s{0,3}(?:print\()?|print\(|[^\n]{0,200}?\bpython[\d.]{0,4}(?:\.exe)?\s{1,3}-c"
                        r"""\s{1,3}["'][^"']{0,200}?print\()(?P<expr>""" + _EXPRS + r")\)?\s{0,3}\)?"
                        r"""(?:\s{0,3}["']\s{0,3})?\s*$""")
#: a GPU's name as print() shows it (unquoted): letters, digits, blanks, "-", "(", ")", with a digit in it
_BARE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9 ()\-]{1,80}$")
#: and a word of a GPU's name in it (get_device_name gives "NVIDIA GeForce RTX 3060", "Tesla T4", "AMD Radeon
#: RX 7900 XTX", "Orin"): the next line of a script's listing ("main(1)", "Step 1 (warmup)") is no GPU
_GPU_WORD = re.compile(r"\b(?:NVIDIA|GeForce|Tesla|Quadro|TITAN|RTX|GTX|Radeon|AMD|Instinct|Intel|Arc|Orin|Xavier|"
                       r"Jetson|[AHLTVPK]\d{1,3}[A-Z]?)\b", re.I)
_ONE = (r"torch\.__version__|torch\.version\.cuda|torch\.cuda\.is_available\(\)|torch\.backends\.cudnn\.version\(\)"
        r"|(?:tf|tensorflow)\.__version__")
#: one print() of several expressions (a REPL prompt or `python -c "...; print(a, b)"`)
_MULTI = re.compile(r"^(?:(?:>>>|In\s\[\d{1,4}\]:)\s{0,3}|[^\n]{0,200}?\bpython[\d.]{0,4}(?:\.exe)?\s{1,3}-c"
                    r"""\s{1,3}["'][^"']{0,200}?)print\((?P<exprs>(?:""" + _ONE + r")(?:\s{0,3},\s{0,3}(?:" + _ONE + r")){1,5})"
                    r"""\)\s{0,3}(?:["']\s{0,3})?$""")
#: a setup.py's "print('torch.__version__  = {}'.format(torch.__version__))" (NVIDIA Apex, many CUDA extensions)
_SETUP = re.compile(r"^torch\.__version__\s{1,4}=\s{1,4}(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:[a-z]+\d*)?(?:\.dev\d+)?"
                    r"(?:\+[\w.]{1,30})?)\s*$")
#: (vendor41) a labelled print, the label the expression itself: ``print('torch.__version__:', torch.__version__)`` gives
#: "torch.__version__: 2.6.0+cu124", and "torch.version.cuda: 12.4" (invoke-ai/InvokeAI#7977, a ROCm image's one-liner;
#: a vLLM ROCm build's notes "torch.version.cuda: 12.8 / torch.version.hip: None"); also as a list item or in backticks
_LABELLED = re.compile(r"""^(?:[-*]\s{1,3})?\x60?(?P<expr>torch\.__version__|torch\.version\.cuda|torch\.cuda\.is_available\(\))\x60?"""
                       r"""\s{0,4}:\s{0,4}[\x60'"]?(?P<v>[\w.+-]{1,40})[\x60'"]?\s*$""")
_OUT = re.compile(r"^(?:Out\[\d{1,4}\]:\s{0,3})?(?P<v>.{1,120}?)\s*$")
#: a value as its expression returns it; a TensorFlow nightly's ``__version__`` keeps its date ("2.4.0-dev20200714")
#: what ``platform.machine()`` returns for a 64-bit x86 or Arm Python (``AMD64`` on Windows)
_MACHINE = {"x86_64": "x86_64", "AMD64": "x86_64", "arm64": "arm64", "aarch64": "aarch64"}
_VER = re.compile(r"""^['"]?(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:[a-z]+\d*)?(?:\.dev\d+|-dev\d{8})?(?:\+[\w.]{1,30})?)['"]?$""")
Facts = List[Fact]


def unquoted(line: str) -> str:
    """The line with a Markdown quote's "> " taken off but a REPL prompt's ">>>" kept (text_of takes both)."""
    s = line[:MAXLINE].strip()
    while s.startswith("> "):
        s = s[2:].lstrip()
    return s


def value_line(lines: Sequence[str], i: int) -> Optional[int]:
    """The index of the value printed after the statement at ``i``: the next non-blank line, at most two lines on,
    that is no prompt or statement itself; None where there is none."""
    j = i + 1
    while j < len(lines) and j - i <= 2 and not lines[j].strip():
        j += 1
    if j >= len(lines) or j - i > 2:
        return None
    s = unquoted(lines[j])
    return None if s.startswith((">>>", "In [", "$", "print(")) else j


def _facts(expr: str, idx: Optional[str], val: str, line: str) -> Facts:
    v = val.strip().strip("'\"")
    vm = _VER.match(val.strip())
    if expr == "torch.__version__" and vm:
        return [Fact("torch.version", vm.group("v"), line), Fact("seen:torch", line, line)]
    if expr.endswith(".__version__") and vm:
        return [Fact("tf.version", vm.group("v"), line), Fact("seen:tensorflow", line, line)]
    if expr == "torch.version.cuda":
        if v == "None":
            return [Fact("torch._cuda_none", True, line), Fact("seen:torch-cuda", line, line)]
        return [Fact("torch.cuda", mm(v), line)] if vm and mm(v) else []
    if expr == "torch.cuda.is_available()":
        return fields.gpu_state("torch", v if v in ("True", "False") else "", line)
    if expr == "platform.machine()":
        if v not in _MACHINE:
            return []
        # "AMD64" is what Windows alone returns (its PROCESSOR_ARCHITECTURE; Linux and macOS say "x86_64"): the
        # Python is a Windows one, never an x86_64 Python under Rosetta 2 on a Mac the text names (attack39)
        win = [Fact("platform", "win32", line)] if v == "AMD64" else []
        return [Fact("machine", _MACHINE[v], line)] + win
    if expr == "torch.backends.cudnn.version()":
        c = cudnn_digits(v)
        return [Fact("torch.cudnn", c, line)] if c else []
    quoted = len(val.strip()) > 2 and val.strip()[0] == val.strip()[-1] and val.strip()[0] in "'\""
    shaped = quoted or bool(_BARE_NAME.match(v) and re.search(r"\d", v) and _GPU_WORD.search(v))
    name = gpu_name(v) if expr.startswith("torch.cuda.get_device_name") and shaped else None
    return [Fact("gpu", (int(idx or 0), name, None, None), line), Fact("seen:gpu", line, line)] if name else []


def _read_multi(s: str, out: str) -> Facts:
    """``print(a, b, c)`` and its one output line: a fact per expression when the words match one to one."""
    m = _MULTI.match(s)
    if not m:
        return []
    exprs = [e.strip() for e in m.group("exprs").split(",")]
    words = out.split()
    if len(words) != len(exprs):
        return []
    got = [f for e, w in zip(exprs, words) for f in _facts(e, None, w, f"{s} -> {out}")]
    return got + [Fact("format", NAME, s)] if got else []


def _read(lines: Sequence[str]) -> Facts:
    if len(lines) < 2:
        return []
    s = unquoted(lines[0])
    if s.count(",") and _MULTI.match(s):
        return _read_multi(s, text_of(lines[-1]))
    m = _STATEMENT.match(s) if _hinted(s) else None
    if not m or s.count("print(") > 1:  # `python -c "...; print(a); print(b)"`: the next line is a's value, not b's
        return []
    om = _OUT.match(text_of(lines[-1]))
    got = _facts(m.group("expr"), m.group("idx"), om.group("v"), f"{s} -> {text_of(lines[-1])}") if om else []
    return got + [Fact("format", NAME, lines[0])] if got else []


def _hinted(s: str) -> bool:
    """Whether a line may hold one of the expressions read (a cheap test before the patterns)."""
    return "torch" in s or "tf." in s or "tensorflow" in s or "platform.machine" in s


def detect(c: Line) -> int:
    if not _hinted(c.low):
        return 0
    if _SETUP.match(c.s) or _labelled(c.s):
        return 1
    j = value_line(c.lines, c.i)
    raw = unquoted(c.line)
    if j is None or not (_STATEMENT.match(raw) or _MULTI.match(raw)) or raw.count("print(") > 1:
        return 0
    return j + 1 - c.i if _read([c.lines[c.i], c.lines[j]]) else 0


def _labelled(s: str) -> Facts:
    """A labelled print's line (:data:`_LABELLED`): its expression's facts."""
    m = _LABELLED.match(s.strip())
    got = _facts(m.group("expr"), None, m.group("v"), s.strip()) if m else []
    return got + [Fact("format", NAME, s.strip())] if got else []


def read(lines: Sequence[str]) -> Partial:
    got = _labelled(text_of(lines[0])) if len(lines) == 1 else []
    if got:
        return partial(NAME, got)
    sm = _SETUP.match(text_of(lines[0])) if lines else None
    if sm:
        s = text_of(lines[0])
        return partial(NAME, [Fact("torch.version", sm.group("v"), s), Fact("seen:torch", s, s), Fact("format", NAME, s)])
    return partial(NAME, _read([lines[0], lines[-1]]) if lines else [])
