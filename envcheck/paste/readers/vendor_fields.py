"""What a report says about a machine whose accelerator is not NVIDIA's (contract §9), read into facts (pure
functions, no state): shared by :mod:`~envcheck.paste.readers.collect_env` (its ROCm, XPU and macOS fields) and
:mod:`~envcheck.paste.readers.macos` (``sw_vers``, Python's platform string).

* **AMD** — collect_env's ``GPU models and configuration`` of a ROCm build: ``AMD Radeon RX 6950 XT (gfx1030)``,
  ``AMD Instinct MI100 (gfx908:sramecc+:xnack-)``, a line cut inside the parenthesis (``(gfx942:sramecc+:xnack``),
  and the ``NoGCNArchNameOnOldPyTorch`` that older collect_env scripts glue to the name when torch had no
  ``gcnArchName`` (the target is then unknown, never guessed from the name).
* **Intel** — collect_env 2.8+'s ``Intel GPU models onboard:`` (one ``* name`` line per GPU, or ``N/A``) and
  ``Intel GPU models detected:`` (``* [0] _XpuDeviceProperties(name='Intel(R) Data Center GPU Max 1100',
  platform_name='Intel(R) oneAPI Unified Runtime over Level-Zero', ...)``): a GPU that torch's XPU backend
  enumerated, through Level Zero when its platform says so, and proof that torch is an XPU build.
* **Apple** — ``OS: macOS 12.2.1 (arm64)`` (collect_env runs ``sw_vers -productVersion``; the parenthesis is the
  Python's ``platform.machine()``), ``Mac OSX 11.0 (x86_64)`` (before 1.8), ``sw_vers``'s ``ProductVersion:``,
  Python's platform string ``macOS-12.7.6-arm64-arm-64bit`` (whose ``10.16`` is the compatibility version that an
  x86_64 Python built with an old SDK reports on any macOS from 11: not the macOS version) and the CPU
  collect_env prints (``Apple M2 Pro``: Apple silicon, whatever the Python's architecture).

Facts: ``vgpu`` (index, name, vendor, gfx, source), ``xpu_level_zero``, ``mac_ver``, ``apple_cpu``, ``machine``,
``platform``, ``torch._xpu``, ``torch.miopen``.
"""

from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

from envcheck.paste.readers.base import Fact, clean, gpu_name, text_of

__all__ = ["looks_amd", "amd_gpu", "intel_onboard", "intel_detected", "macos_os", "mac_platform", "apple_cpu", "XPU_PROPS",
           "MAC_PLATFORM", "NO_GCN"]

#: "(gfx1100)", "(gfx90a:sramecc+:xnack-)", and a line cut after the target: "(gfx942:sramecc+:xnack"
_GFX = re.compile(r"\((gfx[0-9a-f]{3,4})(?:(?::[^)]{0,40})?\)|:[^)]{0,40})\s*$")
NO_GCN = "NoGCNArchNameOnOldPyTorch"
#: torch.xpu's device properties as collect_env prints them
XPU_PROPS = re.compile(r"^\s*(?:[*-]\s{0,3})?\[(?P<idx>\d{1,3})\]\s{0,3}_XpuDeviceProperties\(name='(?P<name>[^']{1,120})'"
                       r"(?:,\s{0,3}platform_name='(?P<platform>[^']{0,120})')?")
#: Python's platform.platform() on macOS: "macOS-12.7.6-arm64-arm-64bit", "macOS-10.16-x86_64-i386-64bit"
MAC_PLATFORM = re.compile(r"\bmacOS-(?P<ver>\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)-(?P<arch>arm64|x86_64)-(?:arm|i386)-64bit")
_MAC_OS = re.compile(r"^(?:macOS|Mac OSX|Mac OS X)\s{1,3}(?P<ver>\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)(?:\s{1,3}\((?P<arch>x86_64|arm64)\))?",
                     re.I)
_APPLE_CPU = re.compile(r"^(?:machdep\.cpu\.brand_string\s{0,3}[:=]?\s{0,3})?Apple M\d{1,2}(?:\s(?:Pro|Max|Ultra))?\s*$")

Facts = List[Fact]


def looks_amd(raw: str) -> bool:
    """A GPU name only a ROCm build prints: with its gfx target, the NoGCNArchName mark, or an AMD name."""
    return bool(_GFX.search(raw) or NO_GCN in raw or re.match(r"^\s*(?:AMD\s|Radeon\b)", raw))


def amd_gpu(idx: int, raw: str, line: str) -> Fact:
    """A GPU of a ROCm build's list: its name, and its gfx target where collect_env printed one."""
    gm = _GFX.search(raw)
    name = raw[: gm.start()] if gm else raw
    if name.rstrip().endswith(NO_GCN):
        name = name.rstrip()[: -len(NO_GCN)]
    return Fact("vgpu", (idx, gpu_name(name), "amd", gm.group(1) if gm else None, "collect_env"), line)


def intel_onboard(lines: Sequence[str]) -> Facts:
    """``* Intel(R) Data Center GPU Max 1100`` lines under ``Intel GPU models onboard:`` (``N/A``: none)."""
    out: Facts = []
    for ln in lines:
        s = ln.strip()
        if s.startswith("*"):
            n = clean(s[1:])
            if n and "_XpuDeviceProperties" not in n:
                out.append(Fact("vgpu", (len(out), n, "intel", None, "collect_env onboard"), ln))
    return out


def intel_detected(lines: Sequence[str]) -> Tuple[Facts, bool]:
    """The GPUs torch's XPU backend enumerated (``[0] _XpuDeviceProperties(name=...)``), and whether any is seen
    through Level Zero."""
    out: Facts = []
    level_zero = False
    for ln in lines:
        m = XPU_PROPS.match(ln)
        if not m:
            continue
        out.append(Fact("vgpu", (int(m.group("idx")), m.group("name").strip(), "intel", None, "torch.xpu"), ln))
        if "level-zero" in (m.group("platform") or "").lower():
            level_zero = True
            out.append(Fact("xpu_level_zero", m.group("name").strip(), ln))
    if out:
        out.append(Fact("torch._xpu", True, out[0].line))  # only an XPU build of torch enumerates xpu devices
    return out, level_zero


def macos_os(val: str, line: str) -> Facts:
    """collect_env's ``OS: macOS 12.2.1 (arm64)``: the macOS version (from sw_vers) and the Python's machine."""
    m = _MAC_OS.match(val.strip())
    if not m:
        return []
    out = [Fact("platform", "darwin", line), Fact("mac_ver", m.group("ver"), line),
           Fact("seen:macos", line.strip()[:300], line)]
    return out + ([Fact("machine", m.group("arch"), line)] if m.group("arch") else [])


def mac_platform(s: str, line: str) -> Facts:
    """Python's platform string anywhere in a line: the Python's architecture, and the macOS version unless it is
    the 10.16 compatibility version."""
    m = MAC_PLATFORM.search(s)
    if not m:
        return []
    out = [Fact("platform", "darwin", line), Fact("machine", m.group("arch"), line)]
    if m.group("ver") != "10.16":
        out.append(Fact("mac_ver", m.group("ver"), line))
    return out


def apple_cpu(lines: Sequence[str]) -> Optional[Fact]:
    """``Apple M2 Pro`` (collect_env's CPU on a Mac, ``sysctl machdep.cpu.brand_string``): Apple silicon."""
    for ln in lines[:3]:
        s = text_of(ln)  # a quoted paste ("> Apple M2 Pro") too
        if _APPLE_CPU.match(s):
            return Fact("apple_cpu", s.split(":")[-1].split("=")[-1].strip(), ln)
    return None
