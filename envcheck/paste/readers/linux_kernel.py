"""The Linux kernel a text's machine runs and the Intel GPU it names, read from single lines (intel33, issue 20): the
evidence of an Intel GPU on a kernel older than the GPU (the engine's rule: :func:`envcheck.engine.vendors_prose.
intel_kernel_too_old`, with the floors of compat_matrix/xpu.toml ``[[intel_kernel]]``). Called from
:func:`envcheck.paste.readers.observe.line_facts` (every line a reader starts at or leaves alone) and from
collect_env's ``Python platform`` field; evidence only, no fact of a report:

* ``seen:linux-kernel`` (``RELEASE | line``): the kernel release a line states - ``uname -a`` / ``uname -sr``
  ("Linux dg2-demo 5.19.0-35-generic #36~22.04.1-Ubuntu SMP ...", openvinotoolkit/openvino#17342), the kernel log's
  first line ("Linux version 5.8.8-arch1-1 (linux@archlinux) ..."), a report's or a sentence's kernel ("Linux Kernel:
  6.0.2-1201.native", JuliaGPU/oneAPI.jl#228; "kernel  5.17.0-1020-oem"; inxi's "Kernel: 6.10.3-1-default"; xpu-smi's
  "Kernel Version: 6.17.0-35-generic"), Python's platform string ("Linux-5.19.0-41-generic-x86_64-with-glibc2.35").
  A WSL kernel ("5.15.153.1-microsoft-standard-WSL2": the GPU is driven by the Windows driver there) and an
  enterprise kernel that carries its vendor's own backports (RHEL's ".el9", SLES's "-150400.") say nothing of the
  upstream i915 / xe driver: not read;
* ``seen:intel-gpu-named`` (``NAME | line``): an Intel Arc GPU by its model ("DG2 [Arc A770]", lspci; "Intel(R)
  Arc(TM) A750 Graphics", sycl-ls / Mesa; "Arc Pro B60"), written back in the driver's own form ("Intel(R) Arc(TM)
  A770 Graphics", what compat_matrix/xpu.toml ``[[intel_gpu]]`` ``names`` hold), or by its PCI device id on a line
  about an Intel GPU ("(0x56a1)", "8086:56a0", "device ID 56a0", lspci's "Intel Corporation Device 56a6"; never a
  "Subsystem:" line, whose id is the board maker's);
* ``seen:i915-backport``: Intel's out-of-tree kernel driver installed (``intel-i915-dkms``, modinfo's "backported to
  5.19.0-50 from ... using backports I915_23.9.11_PSB_231003.15", intel/intel-extension-for-tensorflow#56): the GPU
  is then driven by Intel's backport, whatever the kernel's release.
"""

from __future__ import annotations

import re
from typing import List, Optional

from envcheck.paste.readers.base import MAXLINE, Fact
from envcheck.paste.readers.prose_amd import ELSEWHERE

__all__ = ["line_facts", "kernel_release", "platform_kernel"]

#: a kernel release: major 2-7 (Linux 2.6 ... 7.x), minor, optional patch, and its local version ("-35-generic",
#: "-1201.native", "-arch1-1", "-1020-oem", "+")
_REL = r"(?P<rel>[2-7]\.\d{1,2}(?:\.\d{1,3}){0,2}(?:[-+~][\w.+~-]{0,60})?)"
#: uname -a / -sr ("Linux <host> <release> #<build>"), the kernel log's "Linux version <release> (builder)"
_UNAME = re.compile(r"(?<![\w-])Linux\s{1,3}(?:[\w.-]{1,64}\s{1,3})?" + _REL + r"\s{1,3}#\d")
_LOG = re.compile(r"(?<![\w-])Linux version " + _REL + r"\s{1,3}\(")
#: a bare "Linux 6.0.9" (a release with its patch number or local version: "My environment is Linux 6.0.9 on Fedora
#: 36", intel/intel-extension-for-pytorch#266), not "Linux 6" nor a distribution's "Linux 22.04"
_BARE = re.compile(r"(?<![\w-])Linux\s{1,2}v?(?P<rel>[2-7]\.\d{1,2}(?:\.\d{1,3}(?:[-+~][\w.+~-]{0,60})?|[-+~][\w.+~-]{1,60}))"
                   r"(?!\w|\.\d)")
#: a kernel stated with its word: "Kernel: 6.0.2-...", "Linux Kernel: ...", "kernel  5.17.0-1020-oem", "Kernel Version:
#: 6.17.0-35-generic", "kernel version 5.15.0-91"
_SAID = re.compile(r"(?i)(?<![\w-])(?:linux\s{1,2})?kernel(?:\s{1,2}version)?\s{0,3}(?:[:=]|=>|is)?\s{0,3}v?" + _REL
                   + r"(?!\w|\.\d)")
#: Python's platform string: "Linux-5.19.0-41-generic-x86_64-with-glibc2.35"
_PLATFORM = re.compile(r"(?<![\w-])Linux-(?P<rel>[2-7]\.\d{1,2}(?:\.\d{1,3}){0,2}(?:-[\w.+~-]{1,40}?)?)-(?:x86_64|aarch64"
                       r"|arm64|i686)(?![\w])")
#: a release written before its word, with its local version: "ubuntu 24.04 with 6.8.0-51-generic kernel"
#: (intel-gpu/intel-gpu-i915-backports#209); a bare "6.11 kernel" is often a kernel to come ("wait for ... 6.11
#: kernel"), not read
_BEFORE = re.compile(r"(?i)(?<![\w.-])(?P<rel>[2-7]\.\d{1,2}(?:\.\d{1,3}){0,2}-[\w.+~-]{1,60}?)\s{1,2}kernel(?![\w-])")
#: kernels that say nothing of the upstream GPU driver: WSL's (the Windows driver drives the GPU), RHEL's / SLES's
#: (their vendors backport GPU support into an older release)
_NOT_UPSTREAM = re.compile(r"(?i)microsoft|wsl|\.el\d|-150\d00\.")

#: an Arc model: "Arc A770", "Arc(TM) A750", "Arc™ B580", "Arc Pro B60", "Arc Pro A40/A50"; lspci's "DG2 [Arc A770]"
_ARC = re.compile(r"(?i)(?<![\w-])arc(?:\s{0,2}\((?:tm)\)|™)?\s{1,2}(?P<pro>pro\s{1,2})?(?P<model>[ab]\d{2,3}[a-z]{0,2})"
                  r"(?![\w-])")
#: a PCI device id on a line about an Intel GPU: "8086:56a0", "(0x56a1)", "device ID 56a0", "Device 56a6"
_PCI = re.compile(r"(?i)(?:8086:|(?<![\w])0x|device\s{1,2}(?:id\s{1,2})?(?:0x)?)(?P<id>[0-9a-f]{4})(?![\w])")
#: an Intel GPU family named by its code name only: lspci's "Intel Corporation Battlemage G21 [Intel Graphics]", a
#: title's "Intel arc/battlemage iGPUs" (linuxserver/docker-boinc#28); written back as the code name, which
#: compat_matrix/xpu.toml ``[[intel_kernel]]`` ``codenames`` give a floor
_CODENAME = re.compile(r"(?i)(?<![\w-])(?P<name>battlemage)(?![\w-])")
#: a line that lists several families (a support table, a driver's release notes) names no one GPU of the machine
_FAMILY_LIST = re.compile(r"(?i)alchemist|a-series|meteor\s?lake|lunar\s?lake|arrow\s?lake|panther\s?lake|\bdg2\b")
_INTEL_WORD = re.compile(r"(?i)intel|(?<![\w-])arc(?![\w-])|i915|(?<![\w-])xe(?![\w-])|8086:|dg2|battlemage|alchemist")
#: the words one of the readings below needs (a line without any is passed by at once)
_WORDS = ("linux", "kernel", "arc", "device", "8086", "0x", "dkms", "backport", "battlemage")
_BACKPORT = re.compile(r"(?i)intel-i915-dkms|i915-dkms|backported to [\d.]{3,}|using backports i915_")


def kernel_release(s: str) -> Optional[str]:
    """The kernel release one line states (None: none, or one that says nothing of the upstream GPU driver)."""
    low = s.lower()
    m = None
    if "linux" in low:
        m = _UNAME.search(s) or _LOG.search(s) or _BARE.search(s)
    if m is None and "kernel" in low:
        m = _SAID.search(s) or _BEFORE.search(s)
    if m is None and "linux-" in low:
        m = _PLATFORM.search(s)
    if m is None:
        return None
    rel = m.group("rel").rstrip(".-+~")
    return None if _NOT_UPSTREAM.search(rel) or _NOT_UPSTREAM.search(s[m.end():m.end() + 40]) else rel


def platform_kernel(value: str, line: str) -> List[Fact]:
    """collect_env's ``Python platform`` value ("Linux-5.19.0-41-generic-x86_64-with-glibc2.35"): its kernel."""
    m = _PLATFORM.search(value[:MAXLINE])
    if m is None or _NOT_UPSTREAM.search(m.group("rel")):
        return []
    return [Fact("seen:linux-kernel", f"{m.group('rel')} | {line.strip()[:200]}", line)]


def _arc_name(m: "re.Match[str]") -> str:
    return f"Intel(R) Arc(TM) {'Pro ' if m.group('pro') else ''}{m.group('model').upper()} Graphics"


def line_facts(s: str, low: str) -> List[Fact]:
    """The kernel, Intel GPU and backport evidence of one line (stripped; ``low`` lower-cased)."""
    if not any(w in low for w in _WORDS):
        return []
    s = s[:MAXLINE]
    out: List[Fact] = []
    if "linux" in low or "kernel" in low:
        rel = kernel_release(s)
        if rel:
            out.append(Fact("seen:linux-kernel", f"{rel} | {s[:200]}", s))
    if "arc" in low:
        am = _ARC.search(s)
        if am and not ELSEWHERE.search(s):  # (attack46) "I have an Intel Arc A770 in my other PC": not this machine's
            out.append(Fact("seen:intel-gpu-named", f"{_arc_name(am)} | {s[:200]}", s))
    if not any(f.field == "seen:intel-gpu-named" for f in out) and not low.lstrip().startswith("subsystem") \
            and ("8086" in low or "0x" in low or "device" in low) and _INTEL_WORD.search(s):
        pid = next((m.group("id").lower() for m in _PCI.finditer(s) if m.group("id").lower() != "8086"), None)
        if pid:
            out.append(Fact("seen:intel-gpu-named", f"0x{pid} | {s[:200]}", s))
    if "battlemage" in low and not any(f.field == "seen:intel-gpu-named" for f in out) \
            and not _FAMILY_LIST.search(s):
        cm = _CODENAME.search(s)
        if cm:
            out.append(Fact("seen:intel-gpu-named", f"Battlemage | {s[:200]}", s))
    if ("dkms" in low or "backport" in low) and _BACKPORT.search(s):
        out.append(Fact("seen:i915-backport", s[:200], s))
    return out
