"""A Jetson container image's L4T release and the host's release a text names (issue 20, session 23 jetson38). This
module only reads: each is evidence, and whether the two releases make a cause is decided in
:func:`envcheck.engine.jetson_prose.container_l4t` (which JetPack line an L4T release is belongs to the matrix,
compat_matrix/jetson.toml ``[[jetpack]]``).

* ``l4t-image-<major>`` (``l4t|R.P | line`` or ``jetpack|N | line``): a container image whose tag names the L4T
  release it was built for - NVIDIA's and the community's L4T images (``nvcr.io/nvidia/l4t-ml:r34.1.0-py3``,
  ``dustynv/l4t-ml: r35.4.1``, ``dustynv/l4t-pytorch:2.2-r35.4.1``), any image tagged with a release suffix
  (``dustynv/opencv:4.8.1-r36.2.0``, ``dustynv/ros:noetic-pytorch-l4t-r35.4.1``) - or the JetPack line its tag names
  (``ultralytics/ultralytics:latest-jetson-jetpack5``); one key per L4T major (``jetpack-<N>`` for a JetPack tag), the
  first line that names it. A tag's ``r`` number below R24 is no L4T release (``l4t-tensorrt:r8.6.2``: TensorRT's).
* ``l4t-host`` (``l4t|R.P | line`` or ``jetpack|X.Y | line``): the first release the text names that is not an image's:
  ``/etc/nv_tegra_release`` (``# R32 (release), REVISION: 7.4``), the ``nvidia-l4t-core`` package's ``dpkg -l`` row
  (``ii  nvidia-l4t-core  35.3.1-20230319081403  arm64``) or of the ``nvidia-jetpack`` meta package
  (``ii  nvidia-jetpack  6.1+b123  arm64``, NVIDIA-ISAAC-ROS/isaac_ros_common#163), jetson-containers'
  ``L4T_VERSION=32.7.4`` (or its table), the run scripts' ``L4T BSP Version:  L4T R35.4.1``, ``Jetpack 4.6 [L4T
  32.6.1]``, ``(L4T R35.6.1)``, or a JetPack release (``Jetpack 4.5.1``, ``JETPACK_VERSION=4.6.4``, ``Jetpack6.2``,
  ``Jetpack 4.* host``). A release
  followed closely by an image's word (``JetPack 5.1.2 (r35.4.1) image``, ``JetPack6 R36 images``, ``the L4T r32.5.0
  container``) is the image's, not the host's; the board's release is what a reporter names first.
* ``l4t-hosts-<kind>-<major>`` (``l4t|R.P | line`` or ``jetpack|X.Y | line``, kind ``l4t`` or ``jetpack``): every
  release named outside an image, by its major (the first line naming it): a docs list of tags under their JetPack
  headings ("JetPack 4.6.1 (L4T R32.7.1)") names the images' own releases, so no board is known (attack50). A release
  said shortly after another board ("my other board (Jetson Nano, JetPack 4.6)", "on another Jetson with") is none
  of these.
* ``l4t-image-lib-missing`` (``library | line``): the loader's own line for a library that does not load ("OSError:
  libcurand.so.10: cannot open shared object file", "error while loading shared libraries: libcudart.so.10.0"): what
  failed is then that library (an r32 image, whose CUDA the JetPack 4 host mounts in, on a JetPack 5 or 6 host:
  dusty-nv/jetson-containers#164, yolact_edge#202).
* ``l4t-image-fails`` (the line): a line saying something failed (an error or an ``ImportError``, a failure, "does not work", "can't use
  cuda", a ``False`` from ``is_available()``): the text shows a failure, not only a question about releases.

Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re
from typing import List

from envcheck.paste.readers.base import Fact

__all__ = ["line_facts"]

#: an image reference whose tag names an L4T release ("-r36.2.0", ":r32.7.1", "l4t-r35.4.1") or a JetPack line
#: ("-jetpack5"); the name is lower-case as Docker's are; a space after the colon only for an L4T / registry name
_IMAGE = re.compile(r"(?<![\w./:-])(?P<name>[a-z0-9][a-z0-9._/-]{0,80}):(?P<sp>\s?)"
                    r"(?P<tag>(?:[a-z0-9.]{1,24}-){0,5}?(?:r(?P<l4t>(?:2[4-9]|3\d)\.\d{1,2}(?:\.\d{1,2})?)(?![\d])"
                    r"|[a-z0-9.-]{0,40}?jetpack-?(?P<jp>[4-7])(?![\d])))")
#: /etc/nv_tegra_release's first line; the nvidia-l4t-core package's ``dpkg -l`` row (its version is the L4T release)
_TEGRA = re.compile(r"#\s{0,2}R(?P<maj>\d{2})\s{1,2}\(release\),\s{0,2}REVISION:\s{0,2}(?P<rev>\d{1,2}\.\d{1,2})"
                    r"|(?<![\w-])nvidia-l4t-core(?::arm64)?\s{1,40}(?P<core>(?:2[4-9]|3\d)\.\d{1,2}(?:\.\d{1,2})?)-\d")
#: an L4T release named for the board: "L4T_VERSION=32.7.4", "L4T_VERSION   35.6.4", "L4T BSP Version:  L4T R35.4.1",
#: "[L4T 32.6.1]", "(L4T R35.6.1)", "L4T: 36.4.2", "L4T 32.7.4"
_L4T = re.compile(r"(?i)(?<![\w-])L4T(?:_VERSION)?(?:\s{1,2}BSP\s{1,2}Version:?\s{0,3}L4T)?[\s:=]{0,4}R?"
                  r"(?P<v>(?:2[4-9]|3\d)\.\d{1,2}(?:\.\d{1,2})?)(?![\d.])")
#: a JetPack release named: "Jetpack 4.5.1", "JETPACK_VERSION=4.6.4", "Jetpack6.2", "jetpack 6.4 [L4T 36.4.0]",
#: "Jetpack 4.* host"
_JETPACK = re.compile(r"(?i)(?<![\w-])jet[\s-]?pack(?:_VERSION)?[\s:=v]{0,4}(?P<v>[4-7](?:\.\d{1,2}){0,2})(?![\d])")
#: the nvidia-jetpack meta package's dpkg -l row: "ii  nvidia-jetpack            6.1+b123       arm64 ..."
_JETPACK_PKG = re.compile(r"(?<![\w-])nvidia-jetpack(?::arm64)?\s{1,40}(?P<v>[4-7]\.\d{1,2}(?:\.\d{1,2})?)[+-]b\d")
#: an image's word right after a release ("... (r35.4.1) image", "R36 images", "r32.5.0 container")
_IMAGE_WORD = re.compile(r"(?i)^[^;,!?\n]{0,24}?(?<![\w-])(?:images?|containers?|dockers?|tags?|base\s{1,2}image)(?![\w-])")
#: another board named shortly before a release ("my other board (Jetson Nano, ", "on another Jetson with ")
_OTHER_BOARD = re.compile(r"(?i)(?<![\w-])(?:(?:an)?other|second|previous)\s{1,2}(?:[\w-]{1,20}\s{1,2}){0,2}?(?:boards?|jetsons?"
                          r"|devices?|machines?|units?|kits?|hosts?|nanos?|orins?|xaviers?)(?![\w-])")
#: the loader's line for a library that does not load
_LIB_MISSING = re.compile(r"(?<![\w.+-])(?P<lib>lib[\w+-]{1,40}\.so(?:\.\d{1,4}){0,3}):\s{0,2}cannot\s{1,2}open\s{1,2}shared"
                          r"|error\s{1,2}while\s{1,2}loading\s{1,2}shared\s{1,2}libraries:\s{0,2}(?P<lib2>lib[\w+-]{1,40}"
                          r"\.so(?:\.\d{1,4}){0,3})")
#: a failure said or shown on a line
_FAILS = re.compile(r"(?i)(?<![\w-])(?:[a-z]{0,30}error|errors|fail(?:s|ed|ure)?|cannot|can't|unable|not\s{1,2}work(?:ing)?"
                    r"|doesn't\s{1,2}work|stopped\s{1,2}working|does\s{1,2}not\s{1,2}(?:work|support))(?![\w-])"
                    r"|^\s{0,4}False\s{0,2}$")


def _host(s: str, low: str, images: List[str]) -> List[Fact]:
    """The host release a line names first (not an image's) and every one it names (``l4t-hosts-<kind>-<major>``)."""
    found = []
    if ("release" in low and "revision" in low) or "l4t-core" in low:
        tm = _TEGRA.search(s)
        if tm:
            found.append((tm.start(), f"l4t|{tm.group('core') or tm.group('maj') + '.' + tm.group('rev')}"))
    if "l4t" in low:
        found += [(m.start(), f"l4t|{m.group('v')}") for m in _L4T.finditer(s)
                  if m.group("v") not in images and not _IMAGE_WORD.search(s[m.end():m.end() + 40])]
    if "jet" in low:
        found += [(m.start(), f"jetpack|{m.group('v')}") for m in _JETPACK.finditer(s)
                  if not _IMAGE_WORD.search(s[m.end():m.end() + 40])]
        found += [(m.start(), f"jetpack|{m.group('v')}") for m in _JETPACK_PKG.finditer(s)]
    if "other" in low or "second" in low or "previous" in low:
        # a release said of another board ("On my other board (Jetson Nano, JetPack 4.6) ...") is not this one's
        found = [f for f in found if not _OTHER_BOARD.search(s[max(0, f[0] - 60):f[0]])]
    if not found:
        return []
    # the first one is the host's; every release named also by its kind and major (a text naming releases of two
    # JetPack lines - a docs list of tags under their JetPack headings, two boards - leaves the host unknown: attack50)
    return [Fact("seen:l4t-host", f"{min(found)[1]} | {s}", s)] + [
        Fact(f"seen:l4t-hosts-{v.split('|', 1)[0]}-{v.split('|', 1)[1].split('.', 1)[0]}", f"{v} | {s}", s)
        for _, v in found]


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one line (stripped, and lower-cased) shows: see the module's docstring."""
    if not ("l4t" in low or "jet" in low or "release" in low or ":" in s or "false" in low or "error" in low
            or "fail" in low or "not" in low or "can" in low or "unable" in low):
        return []
    out: List[Fact] = []
    images: List[str] = []
    if ":" in s and ("r2" in low or "r3" in low or "jetpack" in low):
        for m in _IMAGE.finditer(s):
            if m.group("sp") and not ("/" in m.group("name") or "l4t" in m.group("name")):
                continue
            if m.group("l4t"):
                images.append(m.group("l4t"))
                out.append(Fact("seen:l4t-image-" + m.group("l4t").split(".", 1)[0], f"l4t|{m.group('l4t')} | {s}", s))
            else:
                out.append(Fact("seen:l4t-image-jetpack-" + m.group("jp"), f"jetpack|{m.group('jp')} | {s}", s))
    if "l4t" in low or "jet" in low or "revision" in low:
        out += _host(s, low, images)
    if "shared" in low:
        lm = _LIB_MISSING.search(s)
        if lm:
            out.append(Fact("seen:l4t-image-lib-missing", f"{lm.group('lib') or lm.group('lib2')} | {s}", s))
    if _FAILS.search(s):
        out.append(Fact("seen:l4t-image-fails", s, s))
    return out
