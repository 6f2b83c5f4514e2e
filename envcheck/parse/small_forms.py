"""What a small capture of a snapshot holds when its own reader read nothing from it (``nvcc.txt``,
``cuda-version.txt`` / ``.json``, ``cudnn_version.h``, ``proc-driver-version.txt``, ``sys-module-nvidia-version.txt``,
``ldconfig.txt``; docs/contract.md §1): a form envcheck recognises but does not take as that file's fact (``modinfo
nvidia``, a kernel log line, a Jetson's module line, a shell's "not found"), or ``None`` (a form not recognised).
Either way the file's fact is unknown, and the report says so (a ``not-checked`` note), never a failure."""

from __future__ import annotations

import re
from typing import Optional

from envcheck import lazyre

__all__ = ["describe_unread", "first_line"]

# modinfo nvidia:  "filename:       /lib/modules/6.8.0-45-generic/updates/dkms/nvidia.ko"  "version:        550.120"
_MODINFO_FILE = lazyre.compile(r"^[ \t>$#]*filename:[ \t]+\S*/nvidia\.ko(?:\.[a-z]{1,4})?[ \t]*$", re.M)
_MODINFO_VERSION = lazyre.compile(r"^[ \t>]*version:[ \t]+(\d+(?:\.\d+){1,3})[ \t]*$", re.M)
# the kernel log as the module loads: "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ..."
_DMESG = lazyre.compile(r"NVRM: loading NVIDIA UNIX [^\n]{0,60}?Kernel Module(?: for [\w-]{1,20})?[ \t]+(\d+(?:\.\d+){1,3})\b")
# a Jetson's module (L4T): "NVRM version: NVIDIA UNIX Kernel Module for aarch64  34.1.1  Release Build  (buildbrain@...)"
_TEGRA = lazyre.compile(r"NVRM version: NVIDIA UNIX Kernel Module for ([\w-]{1,20})[ \t]+(\d+(?:\.\d+){1,3})\b")
# a shell or the OS saying the command / file is not there
_NOT_FOUND = lazyre.compile(r"command not found|Command '[^'\n]{1,40}' not found|: not found$|No such file or directory|"
                            r"is not recognized as an internal or external command|cannot find the path", re.M)


def first_line(text: str) -> str:
    """The first non-blank line, cut to 120 characters (for the note's evidence)."""
    for line in text.splitlines()[:10000]:
        if line.strip():
            return line.strip()[:120]
    return ""


def describe_unread(text: Optional[str]) -> Optional[str]:
    """A short description of a form recognised but not read as the file's fact, or ``None``."""
    if not text:
        return None
    if _MODINFO_FILE.search(text):
        m = _MODINFO_VERSION.search(text)
        ver = f" version {m.group(1)}" if m else ""
        return (f"`modinfo nvidia`: the module file on disk{ver}, which is not necessarily the module loaded (after a "
                "driver upgrade without a reboot the two differ)")
    m = _TEGRA.search(text)
    if m:
        return (f"a Jetson's kernel module line ({m.group(1)}): {m.group(2)} is its L4T release, not a driver "
                "branch")
    m = _DMESG.search(text)
    if m:
        return f"a kernel log line: module {m.group(1)} was loaded at that boot, which need not be the running one"
    m = _NOT_FOUND.search(text)
    if m:
        line = next((ln.strip() for ln in text.splitlines() if m.group(0) in ln), m.group(0))
        return f"an error, not the output: {line[:120]!r}"
    return None
