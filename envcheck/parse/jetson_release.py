"""A Jetson's release as a text names it: the one home of the L4T and JetPack release patterns (issue 20; session 24
onehome40: the paste readers :mod:`envcheck.paste.readers.jetson_prose` and :mod:`envcheck.paste.readers.jetson_image`
each had their own copy). Which JetPack line an L4T release is belongs to the matrix (compat_matrix/jetson.toml
``[[jetpack]]``), whether two releases make a cause to the engine (:mod:`envcheck.engine.jetson_prose`); the board's
own files and jtop's ``jetson_release`` fields are read by :mod:`envcheck.parse.tegra`.

* :data:`L4T_VERSION`: an L4T release number, R24 (the TX1's first) to R39, a minor and an optional patch ("32.7.4",
  "35.4.1", "36.2"); a smaller ``r`` number is no L4T release (``l4t-tensorrt:r8.6.2``: TensorRT's).
* :data:`JETPACK_MAJOR`, :data:`JETPACK_VERSION`: a JetPack release, 3 (L4T R28) to 7 ("4.6.1", "5.1.2", "6").
* :data:`L4T_NAMED` (``v``: the release): "L4T R32.4.3", "[L4T 32.6.1]", "(L4T R35.6.1)", "L4T: 36.4.2",
  jetson-containers' ``L4T_VERSION=32.7.4``, the run scripts' "L4T BSP Version:  L4T R35.4.1"; group ``tag`` where it
  is an L4T container's tag ("l4t-pytorch:r32.6.1", "l4t-base:r35.2.1"): the image's release, not a board's.
* :data:`JETPACK_NAMED` (``v``): "JetPack 4.6.1", "Jetpack4.6.1", "JetPack : 4.4", "JetPack v4.6", "JETSON_JETPACK=4.6",
  ``JETPACK_VERSION=4.6.4``, "jetpack 4", "Jetpack 4.* host"; group ``far`` where the release follows a few words
  later, no other number between ("JetPack for Jetson Nano support ends at version 4.6.3"): a release the text names,
  not a statement of the board's.
* :data:`JETPACK_PACKAGE` (``v``): the ``nvidia-jetpack`` meta package's ``dpkg -l`` row ("ii  nvidia-jetpack  6.1+b123
  arm64", NVIDIA-ISAAC-ROS/isaac_ros_common#163).
* :data:`TEGRA_RELEASE` (``maj`` and ``rev``, or ``core``): /etc/nv_tegra_release's first line ("# R32 (release),
  REVISION: 7.4") and the ``nvidia-l4t-core`` package's ``dpkg -l`` row ("ii  nvidia-l4t-core  35.3.1-20230319081403
  arm64"), as a text quotes them.
* :data:`IMAGE_RELEASE` (``name``, ``sp``, ``tag``; ``l4t`` or ``jp``): a container image whose tag names the L4T
  release it was built for ("nvcr.io/nvidia/l4t-ml:r34.1.0-py3", "dustynv/l4t-ml: r35.4.1",
  "dustynv/l4t-pytorch:2.2-r35.4.1", "dustynv/opencv:4.8.1-r36.2.0", "dustynv/ros:noetic-pytorch-l4t-r35.4.1") or the
  JetPack line ("ultralytics/ultralytics:latest-jetson-jetpack5"); the name is lower-case as Docker's are, a space
  after the colon (``sp``) only for an L4T or a registry's name (the reader checks the name).

Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re

__all__ = ["IMAGE_RELEASE", "JETPACK_MAJOR", "JETPACK_NAMED", "JETPACK_PACKAGE", "JETPACK_STATED", "JETPACK_VERSION",
           "L4T_NAMED", "L4T_STATED", "L4T_VERSION", "TEGRA_RELEASE"]

#: an L4T release number: R24 to R39, a minor and an optional patch
L4T_VERSION = r"(?:2[4-9]|3\d)\.\d{1,2}(?:\.\d{1,2})?"
#: a JetPack release's major: 3 (L4T R28) to 7 (L4T R38)
JETPACK_MAJOR = r"[3-7]"
#: a JetPack release: its major, a minor and a patch where named ("4.6.1", "5.1", "6")
JETPACK_VERSION = JETPACK_MAJOR + r"(?:\.\d{1,2}){0,2}"
#: not the start of a longer number ("32.7.4.1" is no release)
_END = r"(?![\d])(?!\.\d)"

#: the word L4T as a text spells it, and the ways a text states a release after it: "L4T R32.4.3", "[L4T 32.6.1]",
#: "L4T: 36.4.2", "L4T_VERSION=32.7.4", "L4T BSP Version:  L4T R35.4.1"
_L4T_STATED = (r"(?i)(?<![\w-])l4t(?:(?:_VERSION)?(?:\s{1,2}BSP\s{1,2}Version:?\s{0,3}(?:L4T)?)?[\s:=]{0,4}"
               r"%s)r?(?P<v>" + L4T_VERSION + ")" + _END)
#: an L4T release stated as a machine's
L4T_STATED = re.compile(_L4T_STATED % "")
#: an L4T release named in any way: stated, or an L4T container's tag (group ``tag``: "l4t-pytorch:r32.6.1")
L4T_NAMED = re.compile(_L4T_STATED % r"|(?P<tag>-[\w-]{1,30}:)")
#: the word JetPack as a text spells it ("JetPack", "Jetpack", "jet-pack"; "JETSON_JETPACK", "我的JETPACK")
_JETPACK_WORD = r"(?i)(?<![a-z0-9-])jet[\s-]?pack"
#: a JetPack release stated as a machine's: "JetPack 4.6.1", "Jetpack4.6.1", "JetPack : 4.4", "JetPack v4.6",
#: "JETSON_JETPACK=4.6", "JETPACK_VERSION=4.6.4", "Jetpack 4.* host"
JETPACK_STATED = re.compile(_JETPACK_WORD + r"(?:_VERSION)?[\s:=v]{0,4}(?P<v>" + JETPACK_VERSION + ")" + _END)
#: a JetPack release named in any way: stated, glued by a hyphen ("JetPack-6 torch wheels", "jetpack_4"), or a few
#: words before it with no other number between (group ``far``: "JetPack for Jetson Nano support ends at version 4.6.3")
JETPACK_NAMED = re.compile(_JETPACK_WORD + r"(?:(?:_VERSION)?[\s_:=v-]{0,4}|(?P<far>[^\d\n]{1,60}?(?<![\w.])(?="
                           + JETPACK_MAJOR + r"\.\d)))(?P<v>" + JETPACK_VERSION + ")" + _END)
#: the nvidia-jetpack meta package's dpkg -l row: "ii  nvidia-jetpack            6.1+b123       arm64 ..."
JETPACK_PACKAGE = re.compile(r"(?<![\w-])nvidia-jetpack(?::arm64)?\s{1,40}(?P<v>" + JETPACK_MAJOR
                             + r"\.\d{1,2}(?:\.\d{1,2})?)[+-]b\d")
#: /etc/nv_tegra_release's first line; the nvidia-l4t-core package's ``dpkg -l`` row (its version is the L4T release)
TEGRA_RELEASE = re.compile(r"#\s{0,2}R(?P<maj>\d{2})\s{1,2}\(release\),\s{0,2}REVISION:\s{0,2}(?P<rev>\d{1,2}\.\d{1,2})"
                           r"|(?<![\w-])nvidia-l4t-core(?::arm64)?\s{1,40}(?P<core>" + L4T_VERSION + r")-\d")
#: an image reference whose tag names an L4T release ("-r36.2.0", ":r32.7.1", "l4t-r35.4.1") or a JetPack line
#: ("-jetpack5"); the name is lower-case as Docker's are
IMAGE_RELEASE = re.compile(r"(?<![\w./:-])(?P<name>[a-z0-9][a-z0-9._/-]{0,80}):(?P<sp>\s?)"
                           r"(?P<tag>(?:[a-z0-9.]{1,24}-){0,5}?(?:r(?P<l4t>" + L4T_VERSION + r")(?![\d])"
                           r"|[a-z0-9.-]{0,40}?jetpack-?(?P<jp>" + JETPACK_MAJOR + r")(?![\d])))")
