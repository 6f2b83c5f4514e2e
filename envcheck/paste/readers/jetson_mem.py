"""A Jetson's shared RAM running out during a TensorRT engine build, an INT8 calibration or an inference (issue 20,
jetmem39). This module only reads: each is evidence, and whether it makes ``gpu-out-of-memory`` the cause is decided in
:func:`envcheck.engine.jetson_prose.jetson_memory` - only where the text names a Jetson (``jetson-named``,
:mod:`jetson_prose`): a Jetson's GPU has no memory of its own and allocates from the board's RAM, so an allocation
that fails there is the GPU's memory running out; the same words on a desktop are the host's RAM or a bug, not read.

* ``trt-alloc-failed`` (the line): TensorRT's own allocation failure - its logger's "FAILED_ALLOCATION: std::bad_alloc"
  (enazoe/yolo-tensorrt#61, a Nano serialising a yolov4 engine; jkjung-avt/tensorrt_demos#105: "simply means TensorRT
  failed to allocate memory"), the builder's "[TRT] [E] 1: Unexpected exception std::bad_alloc" (open-mmlab/mmdeploy#641,
  a Nano's onnx2tensorrt). FAILED_ALLOCATION with std::exception and an absurd size ("18446744065119617096 bytes",
  NVIDIA/TensorRT#398, a desktop) is a size bug, not read.
* ``bad-alloc-thrown`` (the line): C++'s "terminate called after throwing an instance of 'std::bad_alloc'" / its
  "what():  std::bad_alloc". It speaks only beside ``engine-build-shown``: after a failed read of an engine file
  (emptysoal/TensorRT-YOLOv8-ByteTrack#12) or from a program of another TensorRT's API
  (RichardoMrMu/yolov5-deepsort-tensorrt#22) it is no memory running out.
* ``engine-build-shown`` (the line): a TensorRT engine being built, serialised or calibrated ("Building the TensorRT
  Engine...", "Begin building engine...", "Building an engine", "Serializing the TensorRT Engine", onnx2tensorrt /
  trtexec / torch2trt, "calibration").
* ``jetson-memory-said`` (the line): a sentence says the memory or RAM ran short - "not enough memory on the device"
  (WisconsinAIVision/yolact_edge#88), "results to out of memory issue" (NVIDIA/TensorRT#1404), "lack of memory"
  (jkjung-avt/tensorrt_demos#293), "a memory problem", "insufficient memory", in Chinese 内存不够 / 内存问题
  (enazoe/yolo-tensorrt#61). On a Jetson the RAM IS the GPU's memory, so RAM, system memory and swap count. A
  question, a condition ("if", "whether") or a denial ("not a memory issue", "doesn't show any signs") says nothing;
  nor a sentence about storage called memory ("not enough memory on the eMMC", attack51).
* ``compile-shown`` (the line): a compiler or a source build at work ("internal compiler error: Killed (program
  cc1plus)", "make -j4", "Building CUDA object"): what ran short there is the host's RAM for the compiler (attack47's
  dso8 thread, a Jetson: "a problem of not enough memory", fixed by "make -j4"), so without an engine build or
  TensorRT's own allocation failure beside it nothing is read.
* ``crash-shown`` (the line): the process crashed - "Segmentation fault", "core dumped", SIGSEGV, "crashes".
* ``memory-fix-said`` (the line): what the thread does to use less memory - fewer calibration images
  (yolact_edge#88: "a smaller set of calib-image"), a smaller builder workspace ("reduce GPU workspace size", "lower
  max_workspace_size"), more swap ("increase the swap", "adding a swap might likely help"), closing the other programs
  ("closing all other applications"). Not in a sentence saying it did not help ("added 4GB swap, still the same",
  attack51). Beside ``crash-shown``
  on a Jetson: the crash was the memory running out.

Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re
from typing import List

from envcheck.paste.readers.base import MAXLINE, Fact

__all__ = ["line_facts"]

#: TensorRT's logger / builder reporting a failed allocation
_TRT_ALLOC = re.compile(r"FAILED_ALLOCATION:\s{0,3}std::bad_alloc|Unexpected\s{1,2}exception\s{1,2}std::bad_alloc")
#: C++'s uncaught std::bad_alloc
_BAD_ALLOC = re.compile(r"throwing\s{1,2}an\s{1,2}instance\s{1,2}of\s{1,2}.std::bad_alloc|what\(\):\s{0,3}std::bad_alloc")
#: a TensorRT engine built, serialised or calibrated
_BUILD = re.compile(r"(?i)(?<![\w-])(?:build(?:ing)?|serializ(?:e|ing)|creat(?:e|ing))\s{1,2}(?:the\s{1,2}|an?\s{1,2})?"
                    r"(?:(?:tensorrt|trt|cuda|int8|fp16)\s{1,2}){0,2}engine(?![\w-])"
                    r"|(?<![\w-])(?:onnx2t(?:ensor)?rt|trtexec|torch2trt)(?![\w-])|(?<![\w-])calibrat(?:ion|ing|e)(?![\w-])")
#: memory / RAM said to run short (English); on a Jetson the RAM is the GPU's memory
_MEM = r"(?:(?:gpu|device|system|shared|cpu)\s{1,2})?(?:memory|ram)"
_SAID = re.compile(
    r"(?i)(?<![\w-])(?:(?:not|n't)\s{1,2}(?:having\s{1,2})?enough\s{1,2}" + _MEM
    + r"|(?:lack|shortage)(?:ing)?\s{1,2}(?:of\s{1,2})?" + _MEM
    + r"|(?:ran|run|runs|running)\s{1,2}out\s{1,2}of\s{1,2}" + _MEM
    + r"|(?:results?|resulted|leads?|led)\s{1,2}(?:to|in)\s{1,2}(?:an?\s{1,2})?out[ -]of[ -]memory"
    + r"|insufficient\s{1,2}" + _MEM
    + r"|(?:a|the)\s{1,2}" + _MEM + r"\s{1,2}(?:issue|problem)"
    + r"|" + _MEM + r"\s{1,2}is\s{1,2}(?:not\s{1,2}enough|too\s{1,2}small|full))(?![\w-])")
#: the same in Chinese: 内存 (RAM; on a Jetson the GPU's too) / 显存 too small, exceeded or the problem
_SAID_ZH = re.compile(r"(?:内存|显存)(?:不够|不足|溢出|爆了|问题)|爆(?:内存|显存)")
#: a question, a condition or a denial: says nothing
_NOT_STATED = re.compile(r"(?i)[?？]|(?<![\w'])(?:if|whether|unless|not\s{1,2}(?:a|the|an)\s{1,2}\w{0,8}\s{0,2}(?:memory|ram)"
                         r"|no\s{1,2}(?:sign|signs)|doesn't\s{1,2}show|isn't|wasn't|not\s{1,2}because|thought|ruled\s{1,2}out)(?![\w'])"
                         r"|是不是|是否|如果|充足|不是")
#: (attack51) storage called memory ("There is not enough memory on the eMMC, 16GB is too small"): no RAM ran short;
#: looked for within 30 characters of the words that say the memory ran short
_STORAGE = re.compile(r"(?i)(?<![\w-])(?:emmc|sd[\s-]?card|micro\s?sd|disk|storage|ssd|nvme|space\s{1,2}left|partition)(?![\w-])"
                      r"|存储|硬盘|磁盘|SD卡")
_CRASH = re.compile(r"(?i)segmentation\s{1,2}fault|core\s{1,2}dumped|(?<![\w-])SIGSEGV(?![\w-])"
                    r"|(?<![\w-])crash(?:es|ed)?\s{1,2}(?:on|at|when|while|during|with)(?![\w-])")
#: a thread's way of using less memory: fewer calibration images, a smaller workspace, more swap, other programs closed
_FIX = re.compile(
    r"(?i)(?<![\w-])(?:(?:fewer|less|smaller\s{1,2}(?:set|number)\s{1,2}of)\s{1,2}(?:calib(?:ration)?[\s_-]{0,2})images?"
    r"|max_calibration_images\s{0,2}=\s{0,2}\d{1,3}(?!\d)"
    r"|(?:reduc|decreas|lower|shrink)(?:e|es|ed|ing)?\s{1,2}(?:the\s{1,2}|your\s{1,2})?(?:(?:gpu|builder|max(?:imum)?)[\s_]{1,2})?"
    r"workspace"
    r"|(?:increas|add|enlarg|extend)(?:e|es|ed|ing)?\s{1,2}(?:the\s{1,2}|a\s{1,2}|your\s{1,2}|more\s{1,2})?swap"
    r"|clos(?:e|es|ed|ing)\s{1,2}(?:all\s{1,2})?(?:the\s{1,2}|your\s{1,2})?"
    r"(?:other|background|web)\s{1,2}(?:programs?|applications?|apps?|processes|browsers?))(?![\w-])")
#: a compiler or a source build at work: its memory is the host's RAM, not a GPU allocation (attack47's dso8 thread:
#: "internal compiler error: Killed (program cc1plus)", "not enough memory" fixed by "make -j4")
_COMPILE = re.compile(r"(?i)internal\s{1,2}compiler\s{1,2}error|(?<![\w-])cc1plus(?![\w-])|(?<![\w-])make\s{1,2}-j\s{0,2}\d{0,3}"
                      r"|Building\s{1,2}(?:CUDA|CXX|C|HIP)\s{1,2}object|compilation\s{1,2}terminated"
                      r"|building\s{1,2}wheels?\s{1,2}for|(?<![\w-])(?:nvcc|ninja|gcc|g\+\+)\s{1,2}(?:fatal|error|-)")
#: (attack51) the sentence says the change did not help ("so I added 4GB swap, still the same"): no way out of a memory
#: shortage, the crash was something else (a wheel of another JetPack)
_NO_HELP = re.compile(r"(?i)(?<![\w-])(?:still\s{1,2}(?:the\s{1,2}same|crash\w{0,2}|fail\w{0,3}|segfault\w{0,3}|get|got|happens?)"
                      r"|(?:did\s{0,2}n[o']?t|does\s{0,2}n[o']?t|didn't|doesn't)\s{1,2}(?:help|work|change|fix)|no\s{1,2}luck"
                      r"|same\s{1,2}(?:error|result|crash|problem|issue)|without\s{1,2}(?:success|luck)|to\s{1,2}no\s{1,2}avail)"
                      r"(?![\w-])|没用|无效|还是")
_SENTENCE = re.compile(r"(?<=[.!;?])\s{1,4}|(?<=[。！；？])")


def _fix_helped(part: str) -> bool:
    """A way of using less memory in sentence ``part``, not followed there by words saying it did not help."""
    m = _FIX.search(part)
    return m is not None and not _NO_HELP.search(part[m.end():])


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one line (stripped, and lower-cased) shows: see the module's docstring."""
    out: List[Fact] = []
    if len(s) > MAXLINE:
        return out
    if "bad_alloc" in low:
        if _TRT_ALLOC.search(s):
            out.append(Fact("seen:trt-alloc-failed", s, s))
        elif _BAD_ALLOC.search(s):
            out.append(Fact("seen:bad-alloc-thrown", s, s))
    if ("engine" in low or "calibrat" in low or "trt" in low) and _BUILD.search(s):
        out.append(Fact("seen:engine-build-shown", s, s))
    if ("fault" in low or "dump" in low or "sigsegv" in low or "crash" in low) and _CRASH.search(s):
        out.append(Fact("seen:crash-shown", s, s))
    if any(w in low for w in ("compil", "cc1plus", "-j", "object", "wheel", "nvcc", "ninja", "gcc", "g++")) \
            and _COMPILE.search(s):
        out.append(Fact("seen:compile-shown", s, s))
    if "memory" in low or " ram" in low or "ram " in low or "内存" in s or "显存" in s:
        for part in _SENTENCE.split(s):
            said = _SAID.search(part) or _SAID_ZH.search(part)
            if said and not _NOT_STATED.search(part) and not _STORAGE.search(part[max(0, said.start() - 30):said.end() + 30]):
                out.append(Fact("seen:jetson-memory-said", s, s))
                break
    if any(w in low for w in ("calib", "workspace", "swap", "clos")) and any(_fix_helped(part) for part in _SENTENCE.split(s)):
        out.append(Fact("seen:memory-fix-said", s, s))
    return out
