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
_RELEASE = lazyre.compile(r"Cuda compilation tools,\s*release\s+(\d+\.\d+)(?:,\s*V(\d+(?:\.\d+){1,3}))?", re.I)


def parse_nvcc(text: Optional[str]) -> Optional[NvccInfo]:
    """The toolkit release and compiler version, or ``None`` when the text is not nvcc's."""
    if not text:
        return None
    m = _RELEASE.search(text)
    if not m:
        return None
    return NvccInfo(release=m.group(1), version=m.group(2))
