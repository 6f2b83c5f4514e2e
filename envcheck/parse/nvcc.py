"""Parse ``nvcc --version``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional
from envcheck import lazyre

__all__ = ["NvccInfo", "parse_nvcc"]


@dataclass(frozen=True)
class NvccInfo:
    """The toolkit release and compiler version ``nvcc --version`` prints."""

    release: str  # "12.1": the toolkit's major.minor
    version: Optional[str]  # "12.1.105": the compiler's full version (V-number), when printed


# nvcc: NVIDIA (R) Cuda compiler driver
# Copyright (c) 2005-2023 NVIDIA Corporation
# Built on Mon_Apr__3_17:16:06_PDT_2023
# Cuda compilation tools, release 12.1, V12.1.105
# Build cuda_12.1.r12.1/compiler.32688072_0
# CUDA 2.x-5.0 printed the front end's own number: "Cuda compilation tools, release 4.2, V0.2.1221" (nvcc of
# CUDA 4.0 / 4.1 / 4.2 pasted in public READMEs and mailing lists); from 5.5 on the V-number is the release's
# ("release 5.5, V5.5.0"). The banner is whole or it is not nvcc's: a "release 1.1" without its V-number, or a
# V-number of another release, is text that only looks like it (an unrecognised form: not-checked).
_RELEASE = lazyre.compile(r"Cuda compilation tools,\s*release\s+(\d{1,2}\.\d{1,2}),\s*V(\d{1,2}(?:\.\d{1,5}){1,3})"
                          r"(?![\d.]*\w)", re.I)


def parse_nvcc(text: Optional[str]) -> Optional[NvccInfo]:
    """The toolkit release and compiler version, or ``None`` when the text is not nvcc's banner (module docstring)."""
    if not text:
        return None
    for m in _RELEASE.finditer(text):
        release, version = m.group(1), m.group(2)
        major = version.split(".", 1)[0]
        if major == "0" or version.split(".")[:2] == release.split("."):
            return NvccInfo(release=release, version=version)
    return None
