"""``/etc/nv_tegra_release`` of an NVIDIA Jetson: ``# R35 (release), REVISION: 3.1, GCID: ...`` -> L4T 35.3.1."""

from __future__ import annotations

import re
from typing import Optional

__all__ = ["parse_tegra_release"]


def parse_tegra_release(text: Optional[str]) -> Optional[str]:
    m = re.search(r"#\s*R(\d{2})\s*\(release\),\s*REVISION:\s*(\d+)\.(\d+)", (text or "")[:4096])
    return f"{m.group(1)}.{m.group(2)}.{m.group(3)}" if m else None
