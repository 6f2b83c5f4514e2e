"""``cat /proc/driver/nvidia/version``'s first line (``NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05
...``), the kernel log's line of the same module as it loads (``NVRM: loading NVIDIA UNIX x86_64 Kernel Module
535.161.07  Sat Feb 17 ...``, behind dmesg's or syslog's time stamp) and the toolkit's ``version.txt`` (``CUDA Version
10.2.89``)."""

from __future__ import annotations

import re
from typing import Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "driver files"
# (behind a prompt, or a comment / quote mark an output shown in a note carries: "## NVRM version: ...", "> NVRM ...")
_PROC_DRIVER = re.compile(r"^(?:\$\s*|[#>]{1,3}[ \t]{0,4})?NVRM version:\s*NVIDIA.*Kernel Module\b")
_VERSION_TXT = re.compile(r"^CUDA Version\s+(\d+\.\d+\.\d+)\s*$")
# the kernel module's own line as it loads (open-gpu-kernel-modules kernel-open/nvidia/nv.c: nv_printf(NV_DBG_ERRORS,
# "NVRM: loading %s\n", pNVRM_ID), pNVRM_ID being the id /proc/driver/nvidia/version prints after "NVRM version: "):
# "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.161.07  Sat Feb 17 22:55:48 UTC 2024",
# the open flavour "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.158.01  Release Build ...", behind
# dmesg -T's "[Thu Apr  4 18:03:56 2024] ", dmesg's "[  903.609564] " or syslog's "Jul 01 22:55:07 host kernel: ".
# The module of that boot is the driver's kernel half (akash-network/support#209, pastes25). A Jetson's "Kernel Module
# for aarch64  34.1.1" names its L4T release, not a driver: only the x86_64 / aarch64 forms of a driver release (three
# digits before the first dot) are read.
_DMESG_LOAD = re.compile(r"^(?:\[[^\]\n]{1,40}\][ \t]{0,3}|\w{3} {1,2}\d{1,2} [\d:]{8} \S{1,64} kernel: ){0,2}"
                         r"NVRM: loading NVIDIA UNIX (?:Open Kernel Module for [\w-]{1,20}|[\w-]{1,20} Kernel Module)"
                         r"[ \t]{1,8}(\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b")


def detect(c: Line) -> int:
    return 1 if _PROC_DRIVER.match(c.s) or _VERSION_TXT.match(c.s) or _DMESG_LOAD.match(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    if _PROC_DRIVER.match(s):
        from envcheck.parse.proc_driver import parse_proc_driver_version

        pd = parse_proc_driver_version(s)  # the reader of a snapshot's proc-driver-version.txt
        if pd is None:
            return partial(NAME, [])
        return partial(NAME, [Fact("format", "/proc/driver/nvidia/version", s), Fact("proc_driver", s + "\n", s),
                              Fact("driver", pd.version, s), Fact("seen:driver", s, s)])
    m = _DMESG_LOAD.match(s)
    if m:
        return partial(NAME, [Fact("format", "kernel log (NVRM: loading ... Kernel Module)", s), Fact("driver", m.group(1), s),
                              Fact("seen:driver", s, s)])
    if _VERSION_TXT.match(s):
        return partial(NAME, [Fact("version_txt", s + "\n", s), Fact("format", "cuda version.txt", s)])
    return partial(NAME, [])
