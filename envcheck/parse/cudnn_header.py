"""Parse the cuDNN version header (``cudnn_version.h`` for cuDNN >= 8, ``cudnn.h`` before)."""

from __future__ import annotations

import re
from typing import Dict, Optional
from envcheck import lazyre

__all__ = ["parse_cudnn_header"]

# #define CUDNN_MAJOR 8
# #define CUDNN_MINOR 9
# #define CUDNN_PATCHLEVEL 2
# As pasted: behind a quote mark ("> #define ..."), or with the file name `grep` puts before each line when it reads
# several headers ("/usr/include/cudnn_version.h:#define CUDNN_MAJOR 8", "...cudnn_version.h-#define CUDNN_MINOR 9").
_DEF = lazyre.compile(r"^[ \t>]*(?:[^\s:]{0,240}\.h[:-])?#[ \t]*define[ \t]+CUDNN_(MAJOR|MINOR|PATCHLEVEL)[ \t]+(\d{1,4})\b",
                      re.M)


def parse_cudnn_header(text: Optional[str]) -> Optional[str]:
    """"8.9.2" (or "8.9" without a patch level), or ``None`` without a CUDNN_MAJOR define."""
    if not text:
        return None
    found: Dict[str, str] = {}
    for m in _DEF.finditer(text):
        found.setdefault(m.group(1), m.group(2))
    if "MAJOR" not in found:
        return None
    parts = [str(int(found["MAJOR"]))]
    if "MINOR" in found:
        parts.append(str(int(found["MINOR"])))
        if "PATCHLEVEL" in found:
            parts.append(str(int(found["PATCHLEVEL"])))
    return ".".join(parts)
