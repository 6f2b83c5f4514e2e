"""pip's own output, pasted with an install: ``Successfully installed torch-2.1.0+cu121 torchvision-0.16.0``,
``pip show``'s ``Name: torch`` / ``Version: 2.1.0+cu121`` pair,
``Requirement already satisfied: torch in c:\\...\\site-packages (2.0.0)``, and the wheel it fetched
(``Downloading torch-1.7.1-cp38-cp38-win_amd64.whl (184.0 MB)``, ``Downloading
https://download.pytorch.org/whl/cu118/torch-2.0.1%2Bcu118-cp310-cp310-win_amd64.whl``): the relevant packages'
versions (a wheel's local label gives the build's CUDA), and from a wheel's tags the Python's major.minor (pip installs
only a ``cp310`` wheel into a Python 3.10) and the platform (``win_amd64``: Windows; ``manylinux`` / ``linux_``: Linux;
``macosx``: macOS). Only :data:`~envcheck.paste.readers.base.RELEVANT` packages are kept."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import RELEVANT, Fact, Line, Partial, norm, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "pip output"
_INSTALLED = re.compile(r"^Successfully installed\s(?P<pkgs>.{1,1900})$")
_PKG = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._]*(?:-[A-Za-z][A-Za-z0-9._]*)*)-(?P<ver>\d[\w.+!]{0,60})$")
_SATISFIED = re.compile(r"^Requirement already satisfied:\s(?P<name>[A-Za-z0-9][\w.-]{0,60}?)(?:\[[\w,]{0,60}\])?"
                        r"(?:\s{0,2}[<>=!~][^\s]{0,60})?\sin\s[^()]{1,300}\((?P<ver>\d[\w.+!]{0,60})\)\s*$")
_WHEEL = re.compile(r"^(?:Downloading|Collecting|Processing|Using cached)\s(?:\S{0,300}/)?(?P<name>[A-Za-z0-9][\w.]{0,60})-"
                    r"(?P<ver>\d[\w.!]{0,40}(?:(?:\+|%2B)[\w.]{1,30})?)-(?P<py>cp3\d{1,2})-[\w]{1,20}-(?P<plat>[\w.]{1,80})"
                    r"\.whl\b")
_SHOW_NAME = re.compile(r"^Name:\s(?P<name>[A-Za-z0-9][\w.-]{0,60})\s*$")
_SHOW_VERSION = re.compile(r"^Version:\s(?P<ver>\d[\w.+!]{0,60})\s*$")
Facts = List[Fact]


def _show(lines: Sequence[str]) -> Facts:
    """``pip show``: its ``Name:`` line and the ``Version:`` line right under it."""
    if len(lines) < 2:
        return []
    nm, vm = _SHOW_NAME.match(text_of(lines[0])), _SHOW_VERSION.match(text_of(lines[1]))
    got = _pkg(nm.group("name"), vm.group("ver"), text_of(lines[1])) if nm and vm else []
    return got + [Fact("format", NAME, lines[0])] if got else []


def _pkg(name: str, ver: str, line: str) -> Facts:
    return [Fact("package", (name, ver.replace("%2B", "+"), None), line)] if RELEVANT.match(norm(name)) else []


def _wheel(s: str) -> Facts:
    m = _WHEEL.match(s)
    if not m:
        return []
    out = _pkg(m.group("name"), m.group("ver"), s)
    if not out:
        return []
    py = m.group("py")[2:]
    out.append(Fact("python_path", f"{py[0]}.{py[1:]}", s))
    plat = m.group("plat")
    kind = "win32" if plat.startswith("win") else "linux" if "linux" in plat else "darwin" if plat.startswith("macosx") else None
    return out + ([Fact("platform", kind, s)] if kind else [])


def _facts(s: str) -> Facts:
    if s.startswith("Successfully installed"):
        m = _INSTALLED.match(s)
        got = [f for tok in (m.group("pkgs").split()[:200] if m else []) for f in _match_pkg(tok, s)]
    elif s.startswith("Requirement already satisfied"):
        m = _SATISFIED.match(s)
        got = _pkg(m.group("name"), m.group("ver"), s) if m else []
    else:
        got = _wheel(s)
    return got + [Fact("format", NAME, s)] if got else []


def _match_pkg(tok: str, s: str) -> Facts:
    m = _PKG.match(tok)
    return _pkg(m.group("name"), m.group("ver"), s) if m else []


def detect(c: Line) -> int:
    if c.s.startswith("Name: "):
        return 2 if _show(c.lines[c.i:c.i + 2]) else 0
    if not c.s.startswith(("Successfully installed", "Requirement already satisfied", "Downloading", "Collecting",
                           "Processing", "Using cached")):
        return 0
    return 1 if _facts(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    if len(lines) == 2 and text_of(lines[0]).startswith("Name: "):
        return partial(NAME, _show(lines))
    return partial(NAME, _facts(text_of(lines[0])) if lines else [])
