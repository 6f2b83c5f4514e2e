"""A process of a build killed (attack47): the shell's bare ``Killed`` (or the compiler's own ``Killed signal
terminated program cc1plus``, ``internal compiler error: Killed``) within a few lines of a compile step - CMake's /
Ninja's ``Building CUDA object ....cu.o``, make's ``*** [....cu.o] Error 137``, ``CMake Error at ....cu.o.cmake``
("Error generating file"), gcc's ``compilation terminated.``. The process the kernel's OOM killer ended there is a
compiler (cc1plus, nvcc's cicc), whose memory is the host's RAM: on a Jetson too it is no GPU allocation, so the
Jetson's "the GPU ran out of memory" reading of a ``Killed`` line (errors.toml, says ``jetson-only``) does not hold
(explain/rank.py :func:`drop_killed_in_build`). Real: dusty-nv/jetson-containers#1551 and #1295 (onnxruntime's CUDA
provider built on a Jetson Orin: ``Building CUDA object`` then ``Killed``, ``gmake[2]: *** [...cu.o] Error 137``),
#1430 (Jetson Thor, the same build, ``Killed`` lines under ``Building CUDA object``), dusty-nv/rovernet#2 (cutorch on a
Jetson TX1: ``Killed`` above ``CMake Error at THC_generated_...cu.o.cmake``). A TensorRT engine being built ("Begin
building engine...", "Building the TensorRT Engine") is no compile step: its memory is the GPU's (jetson32).

Evidence only (``seen:build-killed``: the Killed line); whole text (:func:`killed_in_build`, as observe.docker), each
line looked at once and the window bounded: linear on any text."""

from __future__ import annotations

import re
from typing import Sequence

from envcheck.paste.readers.base import MAXLINE, Fact, Partial, partial

__all__ = ["NAME", "killed_in_build", "WINDOW"]

NAME = "build killed"
#: lines before or after a Killed line searched for the compile step
WINDOW = 3
#: the kill as the shell or the compiler prints it
_KILLED = re.compile(r"^\s{0,8}(?:>\s{0,3})?\**Killed\**\s{0,8}$|Killed signal terminated program"
                     r"|internal compiler error: Killed")
#: a compile step of a build: CMake's / Ninja's progress line of an object file (FindCUDA's "Building NVCC (Device)
#: object", pytorch/pytorch#67938), make's failed object target (its "***" escaped as "**\\*" in a Markdown paste),
#: FindCUDA's step script ("...cu.o.Release.cmake:281 (message)", "Error generating file"), gcc's last word
_STEP = re.compile(r"Building (?:CUDA|CXX|C|HIP|NVCC \((?:Device|Host)\)) object \S"
                   r"|\.(?:cu|cpp|cc|cxx|c)\.o\]\s{1,3}Error \d{1,3}"
                   r"|\.cu\.o(?:\.[A-Za-z]{1,16})?\.cmake:\d{1,6} \(message\)|^\s{0,8}Error generating file\s{0,8}$"
                   r"|^\s{0,8}compilation terminated\.\s{0,8}$")


def killed_in_build(lines: Sequence[str]) -> Partial:
    """The first Killed line (``seen:build-killed``) that has a compile step within :data:`WINDOW` lines of it."""
    n = len(lines)
    for i in range(n):
        s = lines[i]
        if "illed" not in s or len(s) > MAXLINE or not _KILLED.search(s):
            continue
        for j in range(max(0, i - WINDOW), min(n, i + WINDOW + 1)):
            t = lines[j]
            if j != i and len(t) <= MAXLINE and ("object" in t or ".o" in t or "rror" in t or "terminated" in t) \
                    and _STEP.search(t):
                return partial(NAME, [Fact("seen:build-killed", s.strip()[:300], s)])
    return partial(NAME, [])
