"""A Jetson's own release files: ``/etc/nv_tegra_release`` (snapshot file ``tegra-release.txt``) and the output of
jetson-stats' ``jetson_release`` (``jetson-release.txt``, contract §9). Pure functions; bad input gives ``None``
/ empty results, never an exception."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Tuple

__all__ = ["parse_tegra_release", "JetsonRelease", "parse_jetson_release", "jetson_release_python"]

# "# R32 (release), REVISION: 5.1, GCID: 26202423, BOARD: t186ref, EABI: aarch64, DATE: Fri Feb 19 ..."
# "# R36 (release), REVISION: 4.7, GCID: 42132812, BOARD: generic, EABI: aarch64, DATE: ..."  (+ more lines)
# "# R32 (release), REVISION: 5, GCID: ..."  (JetPack 4.5: no minor)
# The "R36 (release), REVISION:" token is the file's own and found wherever the line starts: behind a Markdown
# quote ("> # R36 ..."), a key ("l4t: # R36 ..."), an indent
_RELEASE = re.compile(r"(?<![A-Za-z0-9])R(\d{2})[ \t]*\(release\),[ \t]*REVISION:[ \t]*(\d+(?:\.\d+)?)")


# The L4T core package, whose version is the L4T release ("36.3.0-20240719161631": L4T 36.3.0, then its build date):
# a `dpkg -l` row "ii  nvidia-l4t-core   36.3.0-20240719161631   arm64   NVIDIA Core Package", `apt show`'s
# "Package: nvidia-l4t-core" with its "Version: 35.4.1-20230801124926" line below
_CORE_ROW = re.compile(r"^[ \t]{0,8}[a-z][a-zA-Z]{1,2}[ \t]{1,8}nvidia-l4t-core(?::arm64)?[ \t]{1,80}"
                       r"(\d{2})\.(\d{1,2}(?:\.\d{1,2})?)-\d{8,14}\b", re.M)
_CORE_SHOW = re.compile(r"^Package:[ \t]{0,8}nvidia-l4t-core[ \t]*\n(?:[^\n]{0,200}\n){0,3}?Version:[ \t]{0,8}"
                        r"(\d{2})\.(\d{1,2}(?:\.\d{1,2})?)-\d{8,14}\b", re.M)


#: a terminal's colour / style escape (SGR: ESC [ params m), as jetson-stats' bcolors prints (jtop/terminal_colors.py)
_SGR = re.compile(r"\x1b\[[0-9;]{0,32}m")


def parse_tegra_release(text: Optional[str]) -> Optional[str]:
    """The L4T (Jetson Linux) release, "32.5.1" / "36.4" / "32.5", from /etc/nv_tegra_release or the version of the
    ``nvidia-l4t-core`` package (``dpkg -l`` / ``apt show``); None when the text is neither."""
    if not text:
        return None
    head = text[:65536]
    m = _RELEASE.search(head) or _CORE_ROW.search(head) or _CORE_SHOW.search(head)
    if not m:
        return None
    return f"{int(m.group(1))}.{m.group(2)}"


@dataclass(frozen=True)
class JetsonRelease:
    """What ``jetson_release`` printed. ``jetpack`` is None where jetson-stats did not know the L4T release
    ("Jetpack missing!"); a library it reports as not installed is None."""

    l4t: Optional[str] = None
    jetpack: Optional[str] = None
    model: Optional[str] = None
    cuda: Optional[str] = None
    cudnn: Optional[str] = None
    tensorrt: Optional[str] = None
    stats_version: Optional[str] = None


# jetson-stats 4.x: "Model: NVIDIA Jetson Nano Developer Kit - Jetpack 4.6 [L4T 32.6.1]"
# jetson-stats 2.x/3.x: "   * Jetpack 4.6 [L4T 32.6.1]" (the model on the " - NVIDIA Jetson ..." line above it)
_JETPACK = re.compile(r"Jetpack[ \t]{1,4}(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?(?:[ \t]{1,2}DP)?)[ \t]{0,4}\[L4T[ \t]{1,4}"
                      r"(\d{2}\.\d{1,2}(?:\.\d{1,2})?)\]")
# (a README that lower-cased it: "model: Jetson AGX Orin Developer Kit - Jetpack 5.1.2 [L4T 35.4.1]")
_MODEL4 = re.compile(r"^[ \t]{0,8}(?:-[ \t]{1,4})?(?:Model|model(?=:[^\n]{1,200}[ \t]-[ \t]{1,4}Jetpack\b)):[ \t]{0,4}(\S[^\n]{0,200}?)(?:[ \t]{1,4}-[ \t]{1,4}Jetpack\b.*)?$")
_L4T_ONLY = re.compile(r"^[ \t]{0,8}-[ \t]{1,4}L4T:[ \t]{0,4}(\d{2}\.\d{1,2}(?:\.\d{1,2})?)[ \t]*$")
_MODEL3 = re.compile(r"^[ \t]{0,4}-[ \t]{1,4}(NVIDIA[ \t][^\n]{1,120}?|Jetson[ \t][^\n]{1,120}?)[ \t]*$")
# "   * CUDA: 10.2.300" / " - CUDA: 12.6.68" / "   * CUDA 10.0.326" (2.x) / "cuDNN 7.5.0.56-1+cuda10.0"
_LIB = re.compile(r"^[ \t]{0,8}[-*][ \t]{1,4}(CUDA|cuDNN|TensorRT):?[ \t]{1,32}(\S[^\n]{0,80}?)[ \t]*$")
_VERSION = re.compile(r"^(\d{1,3}\.\d{1,4}(?:\.\d{1,6}){0,2})")
# jetson-stats 1.x-3.x's plain layout (no bullets): "NVIDIA Jetson AGX Xavier [16GB]" / " L4T 32.6.1 [ JetPack 4.6 ]" /
# " CUDA 10.2.300" / " CUDNN: 8.2.1.32" / " TensorRT: 8.0.1.6"; inside a container it prints "L4T N.N.N [ JetPack
# UNKNOWN ]" (neither known) and NOT_INSTALLED for what the container lacks
_L4T_JP = re.compile(r"^[ \t]{0,8}L4T[ \t]{1,4}(\d{2}\.\d{1,2}(?:\.\d{1,2})?|N\.N\.N)[ \t]{1,4}\[[ \t]{0,4}JetPack[ \t]{1,4}"
                     r"(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?|UNKNOWN)[ \t]{0,4}\]")
_LIB_PLAIN = re.compile(r"^[ \t]{0,8}(CUDA|CUDNN|cuDNN|TensorRT):?[ \t]{1,32}(\S[^\n]{0,80}?)[ \t]*$")
_MODEL_PLAIN = re.compile(r"^(NVIDIA[ \t]Jetson[ \t][^\n]{1,120}?)[ \t]*$")
_STATS = re.compile(r"Software part of jetson-stats[ \t]{1,4}(\d{1,3}\.\d{1,3}(?:\.\d{1,4})?)")


def _lib_version(value: str) -> Optional[str]:
    """``10.2.300`` -> itself; ``7.5.0.56-1+cuda10.0`` -> ``7.5.0.56``; ``NOT_INSTALLED`` / ``Not installed`` -> None."""
    m = _VERSION.match(value.strip())
    return m.group(1) if m else None


def _lib(name: str, value: str, cuda: Optional[str], cudnn: Optional[str],
         trt: Optional[str]) -> Tuple[Optional[str], Optional[str], Optional[str]]:
    """(cuda, cudnn, trt) with a library line's version filled in where not known yet ("CUDA Architecture: 7.2"
    and "CUDA: GPU ..." are no CUDA version)."""
    v = _lib_version(value)
    name = name.upper()
    if name == "CUDA" and cuda is None and not value.lower().startswith(("gpu", "architecture")):
        cuda = v
    elif name == "CUDNN" and cudnn is None:
        cudnn = v
    elif name == "TENSORRT" and trt is None:
        trt = v
    return cuda, cudnn, trt


def parse_jetson_release(text: Optional[str]) -> Optional[JetsonRelease]:
    """``jetson_release`` (jetson-stats 2.x to 4.x, with or without ``-v``, inside other output or cut short):
    the L4T and JetPack releases, the model, and the CUDA / cuDNN / TensorRT it lists. None when the text holds
    neither an L4T release nor a library line of that tool."""
    if not text:
        return None
    if "\x1b" in text:  # kept with its colours (jetson_release wraps names and values in bcolors' bold / ok / fail)
        text = _SGR.sub("", text)
    l4t = jetpack = model = cuda = cudnn = trt = stats = None
    model3: Optional[str] = None
    plain = False  # the plain layout's L4T line was seen: its library lines have no bullets
    for line in text[:256 * 1024].splitlines()[:2000]:
        line = line.rstrip()
        if len(line) > 400:
            continue
        m = _STATS.search(line)
        if m:
            stats = stats or m.group(1)
            continue
        m = _JETPACK.search(line)
        if m and l4t is None:
            jetpack, l4t = m.group(1).replace("\t", " "), m.group(2)
            mm = _MODEL4.match(line)
            model = model or (mm.group(1).strip() if mm else None) or model3
            continue
        m = _L4T_ONLY.match(line)
        if m and l4t is None:
            l4t = m.group(1)
            continue
        m = _L4T_JP.match(line)
        if m and not plain:
            plain = True
            l4t = l4t or (m.group(1) if m.group(1) != "N.N.N" else None)
            jetpack = jetpack or (m.group(2) if m.group(2) != "UNKNOWN" else None)
            continue
        m = _MODEL_PLAIN.match(line)
        if m and not plain and model3 is None:
            model3 = m.group(1)
            continue
        m = _MODEL4.match(line)
        if m and model is None:
            model = m.group(1).strip()
            continue
        m = _MODEL3.match(line)
        if m and l4t is None and model3 is None:
            model3 = m.group(1).strip()
            continue
        # library lines without bullets: the plain layout's, or under 4.x's "Model: ... - Jetpack X [L4T Y]" line where a
        # README abridged the output ("  CUDA: 11.4.315")
        m = _LIB.match(line) or (_LIB_PLAIN.match(line) if plain or jetpack else None)
        if m:
            cuda, cudnn, trt = _lib(m.group(1), m.group(2), cuda, cudnn, trt)
    if l4t is None and not (cuda or cudnn or trt):
        return None
    return JetsonRelease(l4t=l4t, jetpack=jetpack, model=model or model3, cuda=cuda, cudnn=cudnn, tensorrt=trt,
                         stats_version=stats)


# The Python a jetson_release capture names: jetson-stats 4.x's `jetson_release -v` lists it in its Platform section
# (" - Python: 3.8.10", platform.python_version() of the Python jetson-stats runs under: jtop/jetson_release.py); a
# "Python Environment:" heading with "Python 3.8.10" on the line below it is an environment check printed with it
# (the jetson-fpv project's, tests/data/vendors/jetson-release/v4.2.12-jp5.1.4-cuda12.3-jetson-fpv.txt), naming the
# Python its framework versions below were read in
_PY_PLATFORM = re.compile(r"^[ \t]{0,8}-[ \t]{1,4}Python:[ \t]{0,4}(3\.\d{1,2}(?:\.\d{1,3})?)[ \t]*$", re.M)
_PY_ENV = re.compile(r"^[ \t]{0,8}Python Environment:[ \t]*\r?\n[ \t]{0,8}Python[ \t]{1,4}(3\.\d{1,2}(?:\.\d{1,3})?)[ \t]*$",
                     re.M)


def jetson_release_python(text: Optional[str]) -> Optional[Tuple[str, str]]:
    """``(version, where)`` of the Python a ``jetson_release`` capture names ("3.8.10", and which line said it), or
    None where it names none. The "Python Environment:" block outranks the Platform line: it names the Python whose
    packages it lists, the Platform line the one jetson-stats itself runs under."""
    if not text or parse_jetson_release(text) is None:
        return None
    head = _SGR.sub("", text[:256 * 1024]) if "\x1b" in text else text[:256 * 1024]
    m = _PY_ENV.search(head)
    if m:
        return m.group(1), 'its "Python Environment:" block'
    m = _PY_PLATFORM.search(head)
    if m:
        return m.group(1), 'jetson_release -v\'s "Python:" line (the Python jetson-stats runs under)'
    return None
