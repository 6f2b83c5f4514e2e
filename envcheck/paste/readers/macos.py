"""macOS outside collect_env: ``torch.backends.mps.is_built()`` / ``is_available()`` as printed (``Is MPS (Metal
Performance Shader) built? True``, ``mps_built True``, ``MPS available?: False``), ``sysctl machdep.cpu.brand_string``
(``Apple M1``: Apple silicon), ``sw_vers`` (``ProductName: macOS`` / ``ProductVersion: 12.7.6`` / ``BuildVersion``,
tab- or space-separated, with or without ``ProductName``; ``sw_vers -productVersion`` and the bare version under it) and Python's platform string anywhere in a line
(``I have a MacBook M1 (macOS-12.7.6-arm64-arm-64bit)``, ``platform: macOS-26.0-arm64-arm-64bit``): the macOS
version (``mac_ver``; never the ``10.16`` compatibility version of an old-SDK x86_64 Python) and the Python's
architecture. See :mod:`~envcheck.paste.readers.vendor_fields`.

Also the Darwin kernel's version string (``platform.version()`` / ``uname -v``: ``Darwin Kernel Version 22.1.0: ...;
root:xnu-8792.41.9~2/RELEASE_ARM64_T8103``), whose ``RELEASE_ARM64`` names the kernel of Apple silicon whatever the
Python's architecture, and ``platform.processor()`` printed as a key (``- processor: i386``, PyTorch Lightning's
report): ``i386`` is what an x86_64 Python says on macOS (``arm`` an arm64 one), so beside that kernel the Python runs
under Rosetta 2 (Lightning-AI/pytorch-lightning#16124)."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers import vendor_fields
from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read", "mps_state"]

NAME = "macos"
#: a printed MPS state: "Is MPS (Metal Performance Shader) built? True", "mps_built True", "MPS available?: False",
#: "torch.backends.mps.is_available() == False"
_MPS = re.compile(r"(?i)^(?:>>>\s{0,3})?(?:print\W{0,3})?[\w .()]{0,40}?\bmps(?:\b|_)[\w .()?]{0,45}?(?P<what>built|available)"
                  r"(?:\(\))?\s{0,3}\??\s{0,3}(?:==|[:=]|->)?\s{0,3}(?P<val>True|False)\s*$")
_BRAND = re.compile(r"^(?:sysctl\s{1,3}(?:-n\s{1,3})?)?machdep\.cpu\.brand_string\s{0,3}[:=]\s{0,3}(?P<cpu>Apple M\d{1,2}(?: (?:Pro|Max|Ultra))?)\s*$")
#: ``sw_vers -productVersion`` and the bare version it printed on the next line (``envcheck.parse.macos``)
_FLAG = re.compile(r"\bsw_vers[ \t]{1,8}-productVersion(?![A-Za-z])", re.IGNORECASE)
_BARE = re.compile(r"^\s*(?:>\s?)?(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)\s*(?:#.*)?$")
#: the Darwin kernel's version string and its build's architecture (RELEASE_ARM64_T8103, RELEASE_X86_64)
_KERNEL = re.compile(r"Darwin Kernel Version \d{1,3}\.\d{1,3}(?:\.\d{1,3})?:.{0,120}?/RELEASE_(?P<arch>ARM64|X86_64)(?P<soc>_T\d{4})?")
#: ``platform.processor()`` as a key of a report (``- processor: i386``): the Python's architecture on macOS
_PROCESSOR = re.compile(r"^(?:-\s{1,3})?processor:\s{1,20}(?P<val>i386|arm)\s*$")
_SW_VERS = re.compile(r"^(?:>>\s{0,3})?(?P<key>ProductName|ProductVersion|BuildVersion)\s{0,3}:\s{0,8}(?P<val>\S{1,40})\s*$")


def mps_state(s: str, line: str) -> List[Fact]:
    """A printed ``torch.backends.mps`` state (``Is MPS ... built? True``): fact ``torch.mps_built`` /
    ``torch.mps_available``; [] for any other line."""
    m = _MPS.match(s) if "mps" in s.lower() else None
    return [Fact(f"torch.mps_{m.group('what').lower()}", m.group("val") == "True", line)] if m else []


def detect(c: Line) -> int:
    if "productversion" in c.low and _FLAG.search(c.s) and c.i + 1 < len(c.lines) and \
            _BARE.match(text_of(c.lines[c.i + 1])):
        return 2
    m = _SW_VERS.match(c.s)
    if m:
        j = c.i + 1
        while j < len(c.lines) and j - c.i < 3 and _SW_VERS.match(text_of(c.lines[j])):
            j += 1
        return j - c.i
    if "mps" in c.low and _MPS.match(c.s) or "machdep" in c.low and _BRAND.match(c.s):
        return 1
    if "darwin kernel" in c.low and _KERNEL.search(c.s) or "processor" in c.low and _PROCESSOR.match(c.s) and \
            _darwin_near(c):
        return 1
    return 1 if "64bit" in c.s and vendor_fields.MAC_PLATFORM.search(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    out: List[Fact] = []
    if len(lines) == 2 and _FLAG.search(text_of(lines[0])):
        bare = _BARE.match(text_of(lines[1]))
        if bare:
            return partial(NAME, [Fact("format", "sw_vers", lines[0]), Fact("platform", "darwin", lines[0]),
                                  Fact("mac_ver", bare.group(1), lines[1]), Fact("seen:macos", text_of(lines[0])[:300],
                                                                                  lines[0])])
    for ln in lines:
        s = text_of(ln)
        mps = mps_state(s, ln)
        if mps:
            out += [Fact("format", "torch.backends.mps", ln)] + mps
            continue
        brand = _BRAND.match(s) if "machdep" in s else None
        if brand:
            out += [Fact("format", "sysctl", ln), Fact("platform", "darwin", ln), Fact("apple_cpu", brand.group("cpu"), ln),
                    Fact("seen:apple-cpu", s[:300], ln)]
            continue
        kernel = _darwin_kernel(s, ln)
        if kernel:
            out += kernel
            continue
        m = _SW_VERS.match(s)
        if m and m.group("key") == "ProductVersion" and re.fullmatch(r"\d{1,2}\.\d{1,2}(?:\.\d{1,2})?", m.group("val")):
            out += [Fact("format", "sw_vers", ln), Fact("platform", "darwin", ln), Fact("mac_ver", m.group("val"), ln),
                    Fact("seen:macos", s[:300], ln)]
        elif not m:
            got = vendor_fields.mac_platform(s, ln)
            if got:
                out += [Fact("format", "python platform string", ln)] + got + [Fact("seen:macos", s[:300], ln)]
    return partial(NAME, out)


def _darwin_near(c: Line) -> bool:
    """A report's lines around ``c`` name Darwin (``- OS: Darwin``, its kernel): ``i386`` is then macOS's word for an
    x86_64 Python (elsewhere it is no fact about the machine: a 32-bit Linux's)."""
    return any("darwin" in text_of(x).lower() for x in c.lines[max(0, c.i - 6):c.i + 7])


def _darwin_kernel(s: str, ln: str) -> List[Fact]:
    """The Darwin kernel's version string (an arm64 kernel: Apple silicon) or ``processor: i386`` / ``arm`` (the
    Python's architecture, read as such only on macOS: the merge needs ``platform`` darwin beside it)."""
    k = _KERNEL.search(s) if "Darwin Kernel" in s else None
    if k:
        out = [Fact("format", "darwin kernel version", ln), Fact("platform", "darwin", ln)]
        if k.group("arch") == "ARM64":
            out += [Fact("apple_cpu", f"Apple silicon (RELEASE_ARM64{k.group('soc') or ''})", ln),
                    Fact("seen:apple-cpu", s[:300], ln)]
        return out
    p = _PROCESSOR.match(s) if "processor" in s else None
    if p:
        return [Fact("format", "platform.processor()", ln),
                Fact("machine", "x86_64" if p.group("val") == "i386" else "arm64", ln)]
    return []
