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

The release patterns (an image's tag, a release stated, /etc/nv_tegra_release, the packages' rows) are
:mod:`envcheck.parse.jetson_release`'s, their one home. Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re
from typing import List

from envcheck.parse.jetson_release import IMAGE_RELEASE, JETPACK_PACKAGE, JETPACK_STATED, L4T_STATED, TEGRA_RELEASE
from envcheck.paste.readers.base import Fact

__all__ = ["line_facts"]

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
        tm = TEGRA_RELEASE.search(s)
        if tm:
            found.append((tm.start(), f"l4t|{tm.group('core') or tm.group('maj') + '.' + tm.group('rev')}"))
    if "l4t" in low:
        found += [(m.start(), f"l4t|{m.group('v')}") for m in L4T_STATED.finditer(s)
                  if m.group("v") not in images and not _IMAGE_WORD.search(s[m.end():m.end() + 40])]
    if "jet" in low:
        found += [(m.start(), f"jetpack|{m.group('v')}") for m in JETPACK_STATED.finditer(s)
                  if not _IMAGE_WORD.search(s[m.end():m.end() + 40])]
        found += [(m.start(), f"jetpack|{m.group('v')}") for m in JETPACK_PACKAGE.finditer(s)]
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
        for m in IMAGE_RELEASE.finditer(s):
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
