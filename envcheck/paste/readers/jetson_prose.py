"""A Jetson's release and the Pythons a text names (issue 20, jetson35). This module only reads: each is evidence, and
whether they make a cause is decided in :func:`envcheck.engine.prose_causes.jetpack_python` (NVIDIA's framework wheels
for a JetPack are built for that JetPack's one Python: compat_matrix/jetson.toml ``[[wheel_python]]``) and
:func:`envcheck.engine.prose_causes.ort_jetson_release` (ONNX Runtime's released packages on a Jetson).

* ``jetson-named`` (the line): a Jetson board ("Jetson Orin Nano", "jetson nx2"), a Tegra kernel ("Linux server
  5.15.148-tegra #1 SMP ... aarch64", microsoft/onnxruntime#24159), an L4T or JetPack release.
* ``jetpack-named`` (``jetpack|X.Y | line`` or ``l4t|R.P | line``): the JetPack or L4T release the text names first -
  "JetPack : 4.4" (pytorch/pytorch#78067), "Jetpack4.6.1 l4t-pytorch docker" (dusty-nv/jetson-containers#344),
  "jetpack 4" (dusty-nv/NanoLLM#15), "JetPack v4.6", "JETSON_JETPACK=4.6", "Jetpack 4.6.4 [L4T 32.7.4]", an L4T
  container's tag ("l4t-pytorch:r32.6.1-pth1.9-py3") or "L4T R32.4.3". Which JetPack an L4T release is, is the
  matrix's (jetson.toml ``[[jetpack]]``).
* ``jetson-build-named`` (the line): NVIDIA's Jetson builds named as where a package came from - the Jetson Zoo
  ("downloading it from Jetson zoo", microsoft/onnxruntime#22809), the jetson-ai-lab index, NVIDIA's box.com wheel
  links or its redist/jp index: a package from there is no released package of the framework's own.
* ``python-named-X.Y`` (the line): a Python the text names - "python3.8", "Python 3.8", "Python3.8", a Python's
  install path (".../lib/python3.8/dist-packages/..."), "at least Python 3.8" - one key per version (a text that
  names Python 3.6 as the wheels' and 3.8 as the reporter's has both). A wheel's tag (cp36) is the wheel's, not read.
* ``framework-installed-python-X.Y`` (the line): a framework's own install path under that Python
  (".../lib/python3.10/site-packages/torch/version.py"): a build of it exists for that Python.

The release patterns (a JetPack or L4T release named) are :mod:`envcheck.parse.jetson_release`'s, their one home.
Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re
from typing import List

from envcheck.parse.jetson_release import JETPACK_NAMED, L4T_NAMED
from envcheck.paste.readers.base import Fact

__all__ = ["line_facts"]

#: a Jetson board, a Tegra kernel, an L4T or JetPack release named
_JETSON = re.compile(r"(?i)(?<![a-z0-9-])jetson(?![a-z0-9-])|(?<![\w.])\d\.\d{1,2}\.\d{1,3}-tegra(?![\w-])"
                     r"|(?<![\w-])l4t(?![a-z])|(?<![a-z0-9-])jetpack(?![a-z])")
#: NVIDIA's Jetson builds: the Jetson Zoo (elinux.org/Jetson_Zoo), the jetson-ai-lab index, box.com wheel links, the
#: redist/jp index
_JETSON_BUILD = re.compile(r"(?i)jetson[\s_-]?zoo|jetson-ai-lab\.|nvidia\.box\.com/|/compute/redist/jp")
#: a Python named: "python3.8", "Python 3.8", "python 3.10.16", "Python>=3.8", ".../python3.8/dist-packages/..."; not
#: a longer number ("python 3.8.1" is 3.8), not a word glued before it ("cpython3.8" is read too: a Python)
_PYTHON = re.compile(r"(?i)(?<![a-z])python\s{0,2}(?:[<>=]=?\s{0,2}|v(?=\d))?(?P<v>3\.\d{1,2})(?![\d])")


#: a framework installed for a Python, by its path: ".../lib/python3.10/site-packages/torch/version.py" - a build of it
#: exists for that Python (built on the board from source, or another wheel: dusty-nv/jetson-containers#1549)
_INSTALLED = re.compile(r"(?i)(?<![a-z])python(?P<v>3\.\d{1,2})/(?:site|dist)-packages/(?:torch|tensorflow|jax|jaxlib"
                        r"|onnxruntime|paddle|torchvision)(?:/|\b)")


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one line (stripped, and lower-cased) shows: see the module's docstring."""
    out: List[Fact] = []
    if ("jetson" in low or "tegra" in low or "l4t" in low or "jetpack" in low) and _JETSON.search(s):
        out.append(Fact("seen:jetson-named", s, s))
        jm = JETPACK_NAMED.search(s) if "jetpack" in low else None
        lm = L4T_NAMED.search(s) if "l4t" in low else None
        if jm is not None and (lm is None or jm.start() <= lm.start()):
            out.append(Fact("seen:jetpack-named", f"jetpack|{jm.group('v')} | {s}", s))
        elif lm is not None:
            out.append(Fact("seen:jetpack-named", f"l4t|{lm.group('v')} | {s}", s))
    if ("zoo" in low or "ai-lab" in low or "box.com" in low or "redist" in low) and _JETSON_BUILD.search(s):
        out.append(Fact("seen:jetson-build-named", s, s))
    if "python" in low:
        for v in sorted({m.group("v") for m in _PYTHON.finditer(s)}):
            out.append(Fact("seen:python-named-" + v, s, s))
        if "-packages/" in low:
            for v in sorted({m.group("v") for m in _INSTALLED.finditer(s)}):
                out.append(Fact("seen:framework-installed-python-" + v, s, s))
    return out
