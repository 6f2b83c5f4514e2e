"""AMD GPU targets (LLVM ``gfxNNN`` names) as the tools print them, normalised.

The LLVM name is ``gfx`` + major (decimal) + minor (one decimal digit) + stepping (one *hex* digit):
``gfx90a`` is major 9, minor 0, stepping 10. The kernel's KFD writes the same target as the integer
``gfx_target_version`` = major*10000 + minor*100 + stepping (``90010``), and some tools turn that
integer into a name with the stepping in decimal: rocm-smi prints ``gfx9010`` for an MI250X and amd-smi
has printed ``gfx9008`` for an MI100. :func:`normalize_gfx` undoes that, :func:`gfx_from_target_version`
reads the integer.
"""

from __future__ import annotations

import re
from typing import Optional, Tuple

from envcheck import lazyre

__all__ = ["normalize_gfx", "gfx_from_target_version", "gfx_family", "gfx_parts", "GFX_RE", "pci_product_name"]

#: a gfx target in free text (``gfx90a``, ``gfx1100``, ``gfx90a:sramecc+:xnack-``, ``gfx9-generic``)
GFX_RE = lazyre.compile(r"\bgfx(\d{2,5}[0-9a-f]?|\d{1,2}-\d-generic|\d{1,2}-generic)\b", re.IGNORECASE)


def gfx_from_target_version(value: object) -> Optional[str]:
    """KFD's ``gfx_target_version`` (``90010``, ``110501``) -> ``gfx90a`` / ``gfx1151``; ``None`` for 0 (a
    CPU node), a value out of range, or not a number."""
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    if n <= 0 or n > 999999:
        return None
    major, minor, step = n // 10000, (n // 100) % 100, n % 100
    if major < 6 or minor > 9 or step > 15:
        return None
    return f"gfx{major}{minor}{step:x}"


def normalize_gfx(text: Optional[str]) -> Optional[str]:
    """A target as some tool printed it -> the LLVM name, lower case, feature flags dropped.

    ``gfx90a:sramecc+:xnack-`` -> ``gfx90a``; ``amdgcn-amd-amdhsa--gfx1100`` -> ``gfx1100``; rocm-smi's
    ``gfx9010`` -> ``gfx90a``; amd-smi's ``gfx9008`` -> ``gfx908``; ``gfx11501`` -> ``gfx1151``. A
    generic target (``gfx11-generic``) is kept as it is. ``None`` for anything that is not a target."""
    if not text:
        return None
    t = text.strip().lower()
    if "--" in t:
        t = t.rsplit("--", 1)[1]
    t = t.split(":", 1)[0]
    m = re.fullmatch(r"gfx(\d{1,2})-(?:\d-)?generic", t)
    if m:
        return t
    m = re.fullmatch(r"gfx([0-9a-f]+)", t)
    if not m:
        return None
    body = m.group(1)
    # the decimal-stepping form: one digit too many for the major
    if re.fullmatch(r"[6-9]\d{3}", body) or re.fullmatch(r"1[0-2]\d{3}", body):
        major = int(body[:-3])
        minor = int(body[-3])
        step = int(body[-2:])
        return f"gfx{major}{minor}{step:x}" if step <= 15 else None
    if re.fullmatch(r"[6-9]\d[0-9a-f]", body) or re.fullmatch(r"1[0-2]\d[0-9a-f]", body):
        return f"gfx{body}"
    return None


def gfx_parts(gfx: Optional[str]) -> Optional[Tuple[int, int, int]]:
    """``gfx90a`` -> (9, 0, 10); ``None`` when not a plain target."""
    g = normalize_gfx(gfx)
    if not g or "generic" in g:
        return None
    body = g[3:]
    return int(body[:-2]), int(body[-2]), int(body[-1], 16)


def gfx_family(gfx: Optional[str]) -> Optional[str]:
    """The ISA family a target belongs to for ``HSA_OVERRIDE_GFX_VERSION`` purposes: major and minor
    (``gfx1031`` -> ``gfx103``, ``gfx90a`` -> ``gfx90``)."""
    p = gfx_parts(gfx)
    return f"gfx{p[0]}{p[1]}" if p else None


def pci_product_name(v: Optional[str]) -> Optional[str]:
    """An AMD GPU name as pci.ids gives it (amd-smi's MARKET_NAME, rocminfo's Marketing Name on some versions): the
    chip, then the product in brackets: "Navi 33 [Radeon Pro W7500]", "Vega 10 XTX [Radeon Vega Frontier Edition]"
    -> the product. A bracket naming several products ("Navi 31 [Radeon RX 7900 XT/7900 XTX/7900M]") is kept whole,
    as is any other name."""
    m = re.match(r"^[A-Za-z][A-Za-z0-9 ]{0,40}? \[([^\[\]/]{2,80})\]$", (v or "").strip())
    return m.group(1).strip() if m else v
