"""cuBLAS failing to initialise, and a sentence of the thread blaming GPU memory for it (issue 20, nv33). This module
only reads: each is evidence, and whether the pair makes ``gpu-out-of-memory`` the cause is decided in
:func:`envcheck.engine.prose_causes.memory_blamed`.

* ``cublas-init-failed`` (the line): cuBLAS could not be initialised - ``CUBLAS_STATUS_NOT_INITIALIZED`` (torch's
  "CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`", TensorFlow's "failed to create cublas
  handle: CUBLAS_STATUS_NOT_INITIALIZED"), or "CUBLAS initialization failed" said. cuBLAS allocates its handle's
  resources on the GPU in ``cublasCreate``, so a GPU whose memory is already taken fails there with this status, not
  with an allocator's out-of-memory message (tensorflow/tensorflow#9489, jax-ml/jax#7118).
* ``memory-blamed`` (the line): a sentence says GPU memory is (likely) why - "most likely caused by exceeding GPU
  memory" in Chinese ("这个错误大概率是超显存导致的", QwenLM/Qwen#120; "我推测是显存不足导致handle无法初始化",
  OpenBMB/VisCPM#3; "大概需要18G显存，3080Ti应该是不够的", OpenBMB/CPM-Bee#73), "an out-of-memory being masked by the
  CUBLAS_STATUS_NOT_INITIALIZED error", "loading CUDA libraries with insufficient memory", "typical a memory issue",
  "most probably due to not having enough memory". A question, a condition ("if caused due to GPU memory limit") or a
  denial ("it is not a memory issue", "显存充足") says nothing.
* ``memory-refuted`` (the line): the failure said to persist at the smallest size, which memory cannot explain - "Even
  with batch size 1 and seq length = 256, getting this error" (karpathy/llama2.c#279, the reporter's answer to the
  memory guess; the thread ends "Seems like a os issue"), "still fails with batch_size=1": the blame is refuted.

Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re
from typing import List

from envcheck.paste.readers.base import Fact

__all__ = ["line_facts"]

_INIT = re.compile(r"(?i)CUBLAS_STATUS_NOT_INITIALIZED|(?<![\w-])cublas\s{1,2}initiali[sz]ation\s{1,2}failed")
#: GPU memory said to be why (English)
_BLAMED_EN = re.compile(
    r"(?i)(?<![\w-])(?:out[ -]of[ -]memory\s{1,2}being\s{1,2}masked"
    r"|(?:not|n't)\s{1,2}(?:having\s{1,2})?enough\s{1,2}(?:(?:gpu\s{1,2}|video\s{1,2}|device\s{1,2}|v)ram|(?:gpu\s{1,2}"
    r"|video\s{1,2}|device\s{1,2})?memory)"
    r"|insufficient\s{1,2}(?:(?:gpu\s{1,2}|video\s{1,2}|device\s{1,2}|v)ram|(?:gpu\s{1,2}|video\s{1,2}|device\s{1,2})?"
    r"memory)"
    r"|(?:a|the)\s{1,2}(?:gpu\s{1,2})?memory\s{1,2}(?:issue|problem)"
    r"|memory\s{1,2}starvation)(?![\w-])")
#: GPU memory (显存) said to be exceeded or too small (Chinese)
_BLAMED_ZH = re.compile(r"超(?:出)?显存|显存(?:不足|不够|溢出|爆了|超了)|爆显存|显存[^。；\n]{0,16}不够")
_NOT_STATED = re.compile(r"(?i)[?？]|(?<![\w'])(?:if|whether|unless|not\s{1,2}(?:a|the)\s{1,2}memory)(?![\w'])"
                         r"|(?<![\w'])(?:on\s{1,2}the\s{1,2}host|host\s{1,2}memory|system\s{1,2}(?:ram|memory)"
                         r"|cpu\s{1,2}(?:ram|memory))(?![\w'])"
                         r"|是不是|是否|如果|充足|不是显存")
#: the failure persisting at batch size 1 ("even with batch size 1", "still ... with batch_size=1", "batch size of 1
#: still fails")
_REFUTED = re.compile(r"(?i)(?<![\w'])(?:even|still)\s{1,2}(?:[\w']{1,12}\s{1,2}){0,4}?(?:with|at|using|on)\s{1,2}(?:a\s{1,2})?"
                      r"batch[\s_-]{0,2}size\s{0,2}(?:of\s{1,2}|=\s{0,2}|:\s{0,2})?1(?![\d.])"
                      r"|(?<![\w'])batch[\s_-]{0,2}size\s{0,2}(?:of\s{1,2}|=\s{0,2})?1(?![\d.])[^.!?\n]{0,40}?"
                      r"(?<![\w'])still\s{1,2}(?:fails?|failing|crash(?:es)?|errors?|getting|gets|get|happens?)(?![\w'])")
_SENTENCE = re.compile(r"(?<=[.!;?])\s{1,4}|(?<=[。！；？])")


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one line (stripped, and lower-cased) shows: see the module's docstring."""
    out: List[Fact] = []
    if "cublas" in low and _INIT.search(s):
        out.append(Fact("seen:cublas-init-failed", s, s))
    if "batch" in low and _REFUTED.search(s):
        out.append(Fact("seen:memory-refuted", s, s))
    if "显存" in s or (("memory" in low or "ram" in low) and any(
            w in low for w in ("enough", "insufficient", "issue", "problem", "masked", "starvation"))):
        for part in _SENTENCE.split(s):
            if (_BLAMED_EN.search(part) or _BLAMED_ZH.search(part)) and not _NOT_STATED.search(part):
                out.append(Fact("seen:memory-blamed", s, s))
                break
    return out
