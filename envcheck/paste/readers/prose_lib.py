"""A CUDA / cuDNN library named as the error a thread is about, where the loader's own line is not in the text
(issue 20, session 21 edge33). This module only reads: the fact is evidence (``seen:lib-said-error``, value
``library | line``); what the library's absence means is the engine's (the library table of errors.toml, as for the
loader's own "cannot open shared object file" line: :func:`envcheck.engine.prose_causes.lib_said`).

* an issue title or a line that ends in ``ImportError: libcudart.so.10.0`` (the loader's message cut after the library:
  "install-pytorch.sh ImportError: libcudart.so.10.0", dusty-nv/jetson-inference#622; "ImportError: libcublas.so.8.0",
  JesperChristensen89/TensorFlow-Jetson-TX2#2 - a wheel built for another JetPack's CUDA);
* "the error libcusolver.so.8.0" ("How can I get rid of the error  libcusolver.so.8.0 of cuda 8?",
  jetsonhacks/installTensorFlowTX2#25);
* the program said to use / want / look for the library ("It seems it uses libcudnn.so.8 not cuDNN: 9.3.0.75",
  ultralytics/ultralytics#18829: a torch built for JetPack 5's cuDNN 8 on JetPack 6.2);
* (cudnn36) TensorRT's "Unable to open library: libnvinfer_plugin.so.8 due to libcudnn.so.8" cut before its dlerror
  (DDTRobot/tita_rl#2: a conda env holding cuDNN 9 under TensorRT 8): the library after "due to";
* (jetson38) the program said to be trying to load the library ("Tensorflow 2.3.1 is trying to load libcudart.so.10.2"
  on a Jetson Nano image with CUDA 10.0, tensorflow/tensorflow#43189; "tries to load", "attempting to load"), and
  CUDA's NPP libraries among the named ones ("I get the error `libnppc.so.10 not found`", an image built for JetPack
  4.3's CUDA 10.0 on JetPack 4.4, datamachines/cuda_tensorflow_opencv#5).

* (pastes40) the loader's own line where the paste mangled it, so that the knowledge base's pattern misses it: a
  title that lost the dot before ``so`` ("ImportError: libcudartso.11.0: cannot open shared object file",
  PaddlePaddle/Paddle#53775), full-width punctuation of a Chinese text ("libcudart.so.11.0：cannot open ..."),
  Markdown's escaped underscores (``libcudnn\\_ops\\_infer.so.8``); and an issue title that is the library alone
  ("# libcudart.so.11.0", PaddlePaddle/PaddleOCR#11688: ``import paddle`` failing in the body). The name is restored
  only where its meaning is certain: a known library's stem glued to ``so`` and its version (never a version guessed).

Only NVIDIA's CUDA / cuDNN / TensorRT libraries with a version in the name; not in a condition ("if it needs
libcudnn.so.8"). Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re
from typing import List

from envcheck.paste.readers.base import Fact
from envcheck.paste.readers.prose_join import sentence_start

__all__ = ["line_facts", "present_facts"]

_LIB = (r"(?P<NAME>lib(?:cudart|cublas(?:lt)?|cufft|curand|cusolver|cusparse|nvrtc|nvtoolsext|npp[a-z]{1,6}|cudnn(?:_[a-z_]{1,20})?"
        r"|nvinfer(?:_plugin)?)\.so(?:\.\d{1,4}){1,3})")
_SAID = re.compile(
    r"(?i)(?<![\w-])ImportError:\s{0,3}" + _LIB.replace("NAME", "l1") + r"\s{0,3}$"
    r"|(?<![\w-])(?:the\s{1,2})?error\s{1,3}(?:of\s{1,2}|about\s{1,2}|with\s{1,2}|for\s{1,2})?[\x60'\"]?" + _LIB.replace("NAME", "l2")
    + r"(?![\w.-])"
    r"|(?<![\w-])(?:uses|needs|wants|requires|asks\s{1,2}for|looks\s{1,2}for|is\s{1,2}looking\s{1,2}for"
    r"|(?:is\s{1,2})?(?:trying|tries|tried|attempting|attempts)\s{1,2}to\s{1,2}(?:load|open))\s{1,2}"
    r"[\x60'\"]?" + _LIB.replace("NAME", "l3") + r"(?![\w.-])"
    # (cudnn36) TensorRT's "Unable to open library: libnvinfer_plugin.so.8 due to libcudnn.so.8" cut before its dlerror
    r"|(?<![\w-])open\s{1,2}library:?\s{0,2}[\w.-]{1,60}\s{1,2}due\s{1,2}to\s{1,2}" + _LIB.replace("NAME", "l4")
    + r"(?![\w.-])")
#: (pastes40) a known library's stem glued to its "so" and version ("libcudartso.11.0": a title that lost the dot)
_GLUED = re.compile(r"(?i)(?<![\w.-])(lib(?:cudart|cublas(?:lt)?|cufft|curand|cusolver|cusparse|nvrtc|cudnn(?:_[a-z_]{1,20})?"
                    r"|nvinfer(?:_plugin)?))so((?:\.\d{1,4}){1,3})(?![\w.-])")
#: (pastes40) the loader's line once the mangled form is restored: "LIB: cannot open shared object file"
_LOADER = re.compile(r"(?i)(?<![\w.-])" + _LIB.replace("NAME", "l5") + r"\s{0,3}:\s{0,3}cannot\s{1,3}open\s{1,3}shared\s{1,3}object")
#: (pastes40) an issue title that is the library alone ("# libcudart.so.11.0", "# `libcudnn.so.8`")
_TITLE = re.compile(r"(?i)^#\s{1,3}[\x60'\"*]{0,2}" + _LIB.replace("NAME", "l6") + r"[\x60'\"*]{0,2}\s{0,3}$")
#: a condition or a question word before the statement in its sentence
_CONDITION = re.compile(r"(?i)(?<![\w'])(?:if|whether|unless|when|does|do|is)\s")
#: attack46: the library said present or working after it in its sentence ("it uses libcudnn.so.8 fine", "needs
#: libcudart.so.10.2, which JetPack 4.6 has, so that part works"): no error of it
_PRESENT = re.compile(r"(?i)(?<![\w'])(?:fine|works?|worked|working|ok|okay|is\s{1,2}(?:there|present|installed|found))"
                      r"(?![\w'])|(?<!n't )(?<!not )(?<![\w'])(?:has|have|ships|provides)(?![\w'])")
_END = re.compile(r"(?i)[.!?;](?:\s|$)|(?<![\w'])(?:but|not|however|although|though|while|only)(?![\w'])")


def _restored(s: str) -> str:
    """``s`` with the paste's mangling of library names undone where the meaning is certain: Markdown's ``\\_``,
    full-width colons, a known library's stem glued to its ``so`` (the version kept as written)."""
    t = s.replace("\\_", "_").replace("\uff1a", ": ") if ("\\_" in s or "\uff1a" in s) else s
    return _GLUED.sub(r"\1.so\2", t) if "so." in t.lower() else t


def _mangled(s: str, low: str) -> List[Fact]:
    """(pastes40) the loader's line the paste mangled, and a title that is the library alone."""
    if len(s) > 400 or "so" not in low:
        return []
    m = _TITLE.match(s) if s.startswith("#") else None
    if m:
        return [Fact("seen:lib-said-error", f"{m.group('l6')} | {s}", s)]
    if "shared object" not in low:
        return []
    t = _restored(s)
    m = _LOADER.search(t) if t != s else None
    return [Fact("seen:lib-said-error", f"{m.group('l5')} | {s}", s)] if m else []


#: (attack52) a library said loaded or present: TensorFlow's "Successfully opened dynamic library libcudart.so.11.0", "the
#: library loads fine", "libcudnn.so.8 found", "I have it in /usr/local/cuda/lib64 and everything works"
_LOADS = re.compile(r"(?i)(?<![\w'])(?:successfully\s{1,2}(?:opened|loaded)|loads?\s{1,2}fine|loaded|found|works?|fine"
                    r"|is\s{1,2}(?:there|present|installed)|exists|i\s{1,2}have\s{1,2}it)(?![\w'])")
#: a failure word in the same line: the library is then not said present ("libcudnn.so.8 not found")
_FAILS = re.compile(r"(?i)(?<![\w'])(?:not|no|cannot|can't|couldn't|could\s{1,2}not|unable|missing|fail(?:s|ed|ure)?|error"
                    r"|doesn't|does\s{1,2}not|without)(?![\w'])")


def present_facts(s: str, low: str) -> List[Fact]:
    """(attack52) ``lib-said-present``: a line naming a CUDA / cuDNN library and saying it loaded or is there, no failure
    word in the line (value ``library | line``): an issue title that is that library alone names no failure of it."""
    ok = len(s) <= 400 and ".so." in low and not s.startswith("#")
    m = re.search(r"(?i)(?<![\w.-])" + _LIB.replace("NAME", "l7"), s) if ok else None
    if m is None or not _LOADS.search(s) or _FAILS.search(s):
        return []
    return [Fact("seen:lib-said-present", f"{m.group('l7')} | {s}", s)]


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one line (stripped, and lower-cased) shows: see the module's docstring."""
    mangled = _mangled(s, low)
    if mangled:
        return mangled
    if len(s) > 400 or ".so." not in low or not ("importerror" in low or "error" in low or "uses" in low
                                                  or "needs" in low or "wants" in low or "requires" in low
                                                  or "asks" in low or "looks" in low or "looking" in low
                                                  or "due to" in low or "to load" in low or "to open" in low):
        return []
    for m in _SAID.finditer(s):
        before = s[sentence_start(s, m.start()):m.start()]
        after = s[m.end():m.end() + 80]
        end = _END.search(after)
        if not m.group(0).lower().lstrip().startswith("importerror") and _PRESENT.search(after[:end.start()] if end else after):
            continue
        if m.group(0).lower().lstrip().startswith("importerror") or not _CONDITION.search(before):
            lib = m.group('l1') or m.group('l2') or m.group('l3') or m.group('l4')
            return [Fact("seen:lib-said-error", f"{lib} | {s}", s)]
    return []
