"""``/etc/nv_tegra_release`` of a Jetson (snapshot file ``tegra-release.txt``, contract §9)."""

from __future__ import annotations

import re
from typing import Optional

__all__ = ["parse_tegra_release"]

# "# R32 (release), REVISION: 5.1, GCID: 26202423, BOARD: t186ref, EABI: aarch64, DATE: Fri Feb 19 ..."
# "# R36 (release), REVISION: 4.7, GCID: 42132812, BOARD: generic, EABI: aarch64, DATE: ..."  (+ more lines)
# "# R32 (release), REVISION: 5, GCID: ..."  (JetPack 4.5: no minor)
_RELEASE = re.compile(r"^[ \t#]*R(\d{2})[ \t]*\(release\),[ \t]*REVISION:[ \t]*(\d+(?:\.\d+)?)", re.M)


def parse_tegra_release(text: Optional[str]) -> Optional[str]:
    """The L4T (Jetson Linux) release, "32.5.1" / "36.4" / "32.5"; None when the text is not that file."""
    if not text:
        return None
    m = _RELEASE.search(text[:4096])
    if not m:
        return None
    return f"{int(m.group(1))}.{m.group(2)}"
