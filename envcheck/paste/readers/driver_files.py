"""``cat /proc/driver/nvidia/version``'s first line (``NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05
...``) and the toolkit's ``version.txt`` (``CUDA Version 10.2.89``)."""

from __future__ import annotations

import re
from typing import Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "driver files"
# (behind a prompt, or a comment / quote mark an output shown in a note carries: "## NVRM version: ...", "> NVRM ...")
_PROC_DRIVER = re.compile(r"^(?:\$\s*|[#>]{1,3}[ \t]{0,4})?NVRM version:\s*NVIDIA.*Kernel Module\b")
_VERSION_TXT = re.compile(r"^CUDA Version\s+(\d+\.\d+\.\d+)\s*$")


def detect(c: Line) -> int:
    return 1 if _PROC_DRIVER.match(c.s) or _VERSION_TXT.match(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    if _PROC_DRIVER.match(s):
        from envcheck.parse.proc_driver import parse_proc_driver_version

        pd = parse_proc_driver_version(s)  # the reader of a snapshot's proc-driver-version.txt
        if pd is None:
            return partial(NAME, [])
        return partial(NAME, [Fact("format", "/proc/driver/nvidia/version", s), Fact("proc_driver", s + "\n", s),
                              Fact("driver", pd.version, s), Fact("seen:driver", s, s)])
    if _VERSION_TXT.match(s):
        return partial(NAME, [Fact("version_txt", s + "\n", s), Fact("format", "cuda version.txt", s)])
    return partial(NAME, [])
