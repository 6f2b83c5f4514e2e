"""Package lists: ``pip list`` / ``conda list`` (their header starts a block of rows), ``pip freeze`` rows (one a line,
or several typed on one line), collect_env's ``[pip3] torch==2.1.0`` / ``[conda] pytorch 2.1.0 py3.9_cuda12.1_...`` rows, conda transaction
plans (``jaxlib  conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1``) and their download tables
(``pytorch-1.12.1  |  py3.8_cpu_0  133.8 MB  pytorch``), and header-less ``pip list | grep``
rows (and ``conda list | grep`` rows: a conda row is told by its build string, ``pypi_0`` / ``h966fe2a_0``; its
track-feature column, ``pytorch 1.4.0 py3.7_cpu_0 [cpuonly] pytorch``, is skipped; a ``python`` row gives the Python).
Only the packages of :data:`~envcheck.paste.readers.base.RELEVANT` are kept."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.paste.readers.base import RELEVANT, Fact, Line, Partial, in_requirements_file, norm, partial, text_of

__all__ = ["NAME", "detect", "read", "package_row"]

NAME = "packages"
_PIP_FREEZE = re.compile(r"^\s*(?:\[(?:pip3?|conda)\]\s+)?(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(?P<ver>\d[\w.+!-]*)\s*$")
_PIP_ROW = re.compile(r"^\s*(?:\[(?:pip3?|conda)\]\s+)?(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s+(?P<ver>\d[\w.+!-]*)"
                      r"(?:\s+(?P<build>[\w.+!<>-]+))?(?:\s+\[[\w-]{1,40}\])?(?:\s+(?P<chan>[\w./:-]+))?\s*$")
#: a conda transaction plan row: "  jaxlib   conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1"
_CONDA_PLAN = re.compile(r"^\s*(?P<name>[A-Za-z0-9][\w.-]*)\s+[\w.-]+/[\w-]+::(?P=name)-(?P<ver>\d[\w.!+]*)-(?P<build>\S+?)"
                         r"(?:\s.*)?$")
#: a row of the download table conda prints before a transaction ("The following packages will be downloaded"):
#: "    pytorch-1.12.1             |      py3.8_cpu_0       133.8 MB  pytorch". conda prints it with
#: ``"    %-27s|%17s"`` (conda/plan.py display_actions): a name-version of 27 characters or more, or a build of 17 or
#: more ("pytorch-2.0.1              |cpu_py38hab5cca8_0        56.9 MB"), leaves no blank beside the bar; the size
#: after it is printed only where conda knew it
_CONDA_DL = re.compile(r"^\s*(?P<name>[A-Za-z0-9][\w.]*(?:-[A-Za-z][\w.]*)*)-(?P<ver>\d[\w.!+]*)\s{0,40}\|\s{0,40}"
                       r"(?P<build>[A-Za-z0-9][\w.+!]*)(?:\s{1,40}\d[\d.]{0,12}\s?[KMG]?B\b|\s*$)")  # conda 1.x-4.3: no size
#: a ``pip list`` row without its header (``pip list | grep nvidia``): name, two or more spaces, a version
_PIP_BARE = re.compile(r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s{2,}(?P<ver>\d[\w.+!-]*)\s*$")
#: a ``conda list`` row without its header (``conda list | grep pytorch``): name, version and a build string with
#: an underscore, each two or more spaces apart (prose never looks so), its track-feature column and channel optional
_CONDA_BARE = re.compile(r"^\s*(?P<name>[A-Za-z0-9][\w.-]*)\s{2,}(?P<ver>\d[\w.+!]*)\s{2,}(?P<build>[A-Za-z0-9][\w.+!]*_[\w.+!]*)"
                         r"(?:\s+\[[\w-]{1,40}\])?(?:\s+[\w./:-]+)?\s*$")
_HEADER = re.compile(r"^(?:Package\s+Version\b|#\s*Name\s+Version\s+Build)")
#: a line that may sit inside a list: a row (a name then a version), a ``---- ----`` rule, a ``#`` comment
_IN_LIST = re.compile(r"^(?:\[(?:pip3?|conda)\]\s+)?(?:[A-Za-z0-9_][A-Za-z0-9_.-]*(?:\s+v?\d|\s*==)|-{3,}\s+-{3,}|#)")
MAX_ROWS = 2000  # rows of one list


def _freeze_line(s: str) -> List[str]:
    """``pip freeze`` rows typed on one line, blank-separated ("torch==1.7.1 torchvision==0.8.2
    torchaudio==0.7.0a0+a853dff", limhoyeon/ToothGroupNetwork#16): its rows; [] where any word is not a row (a ``pip
    install`` command, a sentence)."""
    if s.count("==") < 2:
        return []
    words = s.split()
    return words if 2 <= len(words) <= 8 and all(_PIP_FREEZE.match(w) for w in words) else []


def package_row(s: str, line: str = "") -> Optional[List[Fact]]:
    """One ``name==version`` row (any package) or ``name version [build [channel]]`` row (a relevant one):
    the relevant package's fact ([] for another package's ``==`` row); None when the line is not a row."""
    m = _PIP_FREEZE.match(s)
    if m:
        return _pkg(m.group("name"), m.group("ver"), None, line or s)
    m = _PIP_ROW.match(s)
    if m and RELEVANT.match(norm(m.group("name"))):
        return _pkg(m.group("name"), m.group("ver"), m.group("build"), line or s)
    return None


def _pkg(name: str, ver: str, build: Optional[str], line: str) -> List[Fact]:
    return [Fact("package", (name, ver, build), line)] if RELEVANT.match(norm(name)) else []


def _list_end(lines: Sequence[str], i: int) -> int:
    j = i + 1
    while j < len(lines) and j - i <= MAX_ROWS:
        s = text_of(lines[j])
        if s and not _IN_LIST.match(s):
            break
        j += 1
    return j


def detect(c: Line) -> int:
    s = c.s
    if _HEADER.match(s) or c.low.startswith("# packages in environment"):
        return _list_end(c.lines, c.i) - c.i
    m = _CONDA_PLAN.match(s) or _CONDA_DL.match(s)
    if m and RELEVANT.match(norm(m.group("name"))):
        return 1
    m = _PIP_BARE.match(s) or _CONDA_BARE.match(s)
    if m and RELEVANT.match(norm(m.group("name"))):
        return 1
    m = _CONDA_BARE.match(s)
    if m and m.group("name") == "python":
        return 1
    if s.startswith(("[pip", "[conda]")):
        return 1
    return 1 if (_PIP_FREEZE.match(s) or _freeze_line(s)) and not in_requirements_file(c) else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    if _HEADER.match(s) or s.lower().startswith("# packages in environment"):
        out = [Fact("format", "pip list" if s.startswith("Package") else "conda list", lines[0])]
        for ln in lines[1:]:
            out += _list_row(text_of(ln), ln)
        return partial(NAME, out)
    m = _CONDA_PLAN.match(s) or _CONDA_DL.match(s)
    if m and RELEVANT.match(norm(m.group("name"))):
        return partial(NAME, [Fact("format", "conda transaction plan", s), Fact("seen:package", s, s),
                              Fact("package", (m.group("name"), m.group("ver"), m.group("build")), s)])
    m = _PIP_BARE.match(s)
    if m and RELEVANT.match(norm(m.group("name"))):
        return partial(NAME, [Fact("format", "pip list", s), Fact("package", (m.group("name"), m.group("ver"), None), s)])
    m = _CONDA_BARE.match(s)
    if m and m.group("name") == "python":  # the environment's own interpreter
        return partial(NAME, [Fact("format", "conda list", s), Fact("python", m.group("ver"), s)])
    if m and RELEVANT.match(norm(m.group("name"))):
        return partial(NAME, [Fact("format", "conda list", s),
                              Fact("package", (m.group("name"), m.group("ver"), m.group("build")), s)])
    words = _freeze_line(s)
    if words:
        return partial(NAME, [f for w in words for f in _list_row(w, s)])
    return partial(NAME, _list_row(s, s))


def _list_row(s: str, line: str) -> List[Fact]:
    got = package_row(s, line)
    return [] if got is None else got + [Fact("format", "pip/conda packages", line)]
