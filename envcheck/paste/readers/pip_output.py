"""pip's own output, pasted with an install: ``Successfully installed torch-2.1.0+cu121 torchvision-0.16.0``,
``pip show``'s ``Name: torch`` / ``Version: 2.1.0+cu121`` pair,
``Requirement already satisfied: torch in c:\\...\\site-packages (2.0.0)``, ``Found existing installation: torch 2.8.0`` of a
``pip uninstall`` (what was installed before the command: pip's ``req_install.py`` logs the distribution as
``"<name> <version>"``; only where the line before is not ``Attempting uninstall: torch``, which pip's
``install_given_reqs`` logs when an install replaces the package: then the version shown is being replaced by one the
text may not show), and the wheel it fetched
(``Downloading torch-1.7.1-cp38-cp38-win_amd64.whl (184.0 MB)``, ``Downloading
https://download.pytorch.org/whl/cu118/torch-2.0.1%2Bcu118-cp310-cp310-win_amd64.whl``): the relevant packages'
versions (a wheel's local label gives the build's CUDA), and from a wheel's tags the Python's major.minor (pip installs
only a ``cp310`` wheel into a Python 3.10) and the platform (``win_amd64``: Windows; ``manylinux`` / ``linux_``: Linux;
``macosx``: macOS). Only :data:`~envcheck.paste.readers.base.RELEVANT` packages are kept.

uv's output too: ``Installed 8 packages in 79ms`` and its `` + torch==2.0.1+cpu`` lines (installed; `` - `` lines were
removed; ``Would install`` of a dry run installs nothing), and ``Using Python 3.11.9 interpreter at: ...`` /
``Using CPython 3.12.3 environment at: ...`` (the Python of the environment it works in), and its hint that a release
has wheels for other platforms only (``hint: You're on Linux (`manylinux_2_35_x86_64`), but `torch` (v2.6.0) only has
wheels for the following platform: ...``: evidence ``uv-platform-only``, the package)."""

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
_UV_INSTALLED = re.compile(r"^Installed \d{1,5} packages? in \d")
_UV_ROW = re.compile(r"^\s{0,3}(?P<op>[-+~])\s(?P<name>[A-Za-z0-9][\w.-]{0,60})==(?P<ver>\d[\w.+!]{0,60})(?:\s.{0,300})?$")
#: uv's interpreter line: "Using CPython 3.12.3 environment at: ...", "Using Python 3.11.9 interpreter at: ...", and
#: alone as `uv venv` / `uv init` print it before "Creating virtual environment at: .venv"
_UV_USING = re.compile(r"^Using (?:C?Python|PyPy) (?P<v>3\.\d{1,2}\.\d{1,2})\S{0,20}(?: (?:environment|interpreter) at: |\s*$)")
#: uv's hint under "can't be installed because it doesn't have a source distribution or wheel for the current
#: platform" when the release has wheels for other platforms only (crates/uv-resolver/src/lock/mod.rs: "You're on
#: Linux (`manylinux_2_35_x86_64`), but `torch` (v2.6.0) only has wheels for the following platform:
#: `macosx_11_0_arm64`", astral-sh/uv#1497): the platform, not the Python, has no wheel (uv's Python hint reads "You're
#: using CPython 3.13 (`cp313`), but ... only has wheels with the following Python ABI tags")
_UV_PLATFORM_HINT = re.compile(r"^(?:hint:\s{1,3})?You're on [^(`\n]{1,40}\(`[\w.]{1,80}`\), but `(?P<name>[A-Za-z0-9][\w.-]{0,60})`"
                               r" \(v[\w.+!]{1,60}\) only has wheels for the following platforms?:")
_FOUND = re.compile(r"^Found existing installation:\s(?P<name>[A-Za-z0-9][\w.-]{0,60})\s(?P<ver>\d[\w.+!]{0,60})\s*$")
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


def _uv_end(lines: Sequence[str], i: int) -> int:
    j = i + 1
    while j < len(lines) and j - i < 2000 and _UV_ROW.match(lines[j][:400]):
        j += 1
    return j


def _uv(lines: Sequence[str]) -> Facts:
    """uv's ``Installed N packages`` and its `` + name==version`` rows (only ``+``: installed)."""
    out: Facts = []
    for ln in lines[1:]:
        m = _UV_ROW.match(ln[:400])
        if m and m.group("op") == "+":
            out += _pkg(m.group("name"), m.group("ver"), ln.strip())
    return out + [Fact("format", NAME, text_of(lines[0]))] if out else []


def _pkg(name: str, ver: str, line: str) -> Facts:
    return [Fact("package", (name, ver.replace("%2B", "+"), None), line)] if RELEVANT.match(norm(name)) else []


def _wheel(s: str) -> Facts:
    m = _WHEEL.match(s)
    if not m:
        return []
    # fetched is not installed: pip may fetch several versions while it resolves, or fail after (merge: package.fetched)
    out = [Fact("package.fetched", f.value, s) for f in _pkg(m.group("name"), m.group("ver"), s)]
    if not out:
        return []
    py = m.group("py")[2:]
    out.append(Fact("python_path", f"{py[0]}.{py[1:]}", s))
    plat = m.group("plat")
    kind = "win32" if plat.startswith("win") else "linux" if "linux" in plat else "darwin" if plat.startswith("macosx") else None
    if norm(m.group("name")) == "torch":
        out.append(Fact("seen:torch-wheel", s, s))  # the wheel's file name: its platform tag and local label say the build
    return out + ([Fact("platform", kind, s)] if kind else [])


#: pip's words for an install that did not happen (it installs all or nothing): what it fetched before is not installed.
#: Also pip's own crash and Ctrl-C (pip/_internal/cli/base_command.py: ``logger.critical("Exception:", ...)`` - a torch
#: wheel's download that timed out, AUTOMATIC1111/stable-diffusion-webui#8810 - and "Operation cancelled by user",
#: bmaltais/kohya_ss#249), its hash check (HashErrors: "THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS
#: FILE.") and a wheel that could not be built (attack35)
_FAILED = re.compile(r"^ERROR: (?:Could not install packages due to|Could not find a version that satisfies|No matching "
                     r"distribution found|Cannot install|ResolutionImpossible|\S{1,300}\.whl is not a supported wheel"
                     r"|Exception:\s*$|Operation cancelled by user|THESE PACKAGES DO NOT MATCH THE HASHES"
                     r"|Could not build wheels for|Failed to build installable wheels)")


def _facts(s: str) -> Facts:
    if _FAILED.match(s):
        return [Fact("pip_failed", True, s)]
    if s.startswith("Successfully installed"):
        m = _INSTALLED.match(s)
        got = [f for tok in (m.group("pkgs").split()[:200] if m else []) for f in _match_pkg(tok, s)]
    elif s.startswith("Requirement already satisfied"):
        m = _SATISFIED.match(s)
        got = _pkg(m.group("name"), m.group("ver"), s) if m else []
    elif s.startswith("Found existing installation"):
        m = _FOUND.match(s)
        got = _pkg(m.group("name"), m.group("ver"), s) if m else []
    elif s.startswith(("hint: You're on", "You're on")):
        hm = _UV_PLATFORM_HINT.match(s)
        return [Fact("seen:uv-platform-only", norm(hm.group("name")), s)] if hm else []  # evidence only: no report
    elif s.startswith("Using ") and not s.startswith("Using cached"):
        um = _UV_USING.match(s)
        got = [Fact("python", um.group("v"), s)] if um else []
    else:
        got = _wheel(s)
    return got + [Fact("format", NAME, s)] if got else []


def _match_pkg(tok: str, s: str) -> Facts:
    m = _PKG.match(tok)
    return _pkg(m.group("name"), m.group("ver"), s) if m else []


def detect(c: Line) -> int:
    if c.s.startswith("Name: "):
        return 2 if _show(c.lines[c.i:c.i + 2]) else 0
    if c.s.startswith("Installed ") and _UV_INSTALLED.match(c.s):
        k = _uv_end(c.lines, c.i) - c.i
        return k if _uv(c.lines[c.i:c.i + k]) else 0
    if c.s.startswith("Found existing installation") and c.i > 0 and text_of(c.lines[c.i - 1]).startswith("Attempting uninstall"):
        return 0  # an install replacing the package: the version found is the one going away
    if not c.s.startswith(("Successfully installed", "Using ", "Requirement already satisfied", "Downloading", "Collecting",
                           "Processing", "Using cached", "ERROR: ", "Found existing installation", "hint: You're on",
                           "You're on")):
        return 0
    return 1 if _facts(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    if len(lines) == 2 and text_of(lines[0]).startswith("Name: "):
        return partial(NAME, _show(lines))
    if lines and _UV_INSTALLED.match(text_of(lines[0])):
        return partial(NAME, _uv(lines))
    return partial(NAME, _facts(text_of(lines[0])) if lines else [])
