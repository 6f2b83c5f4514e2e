"""A sentence saying a TensorFlow release does not work (issue 20, nv33): "It seems that tensorflow1.8 doesn't work
properly on RTX3090" (ElementAI/generative-compression#47), "TF 1.x does not support RTX 3000, as it only supports
older versions of CUDA" (tensorflow/tensorflow#42958), "RTX 3080 TI does not work with TF 1.12 CUDA 9.2" (ibid.), "... but
TF 2.3 will not" (NVIDIA/tensorflow#96, of an RTX 4090), "all Tensorflow 1.14 projects don't run". This module only
reads: the evidence ``tf-fails-said`` (``release | line``; ``release`` is ``X.Y`` or a series ``X.x``) names the release
the sentence says fails - the one named nearest before the failure words, or else the first after them ("does not work
with TF 1.12"); whether the GPU the text names is newer than that release's build is decided in
:func:`envcheck.engine.prose_causes.tf_too_old`, from the matrix.

A question ("Will I run the program on version tf.1.x with RTX3000?"), a condition ("if"), and a release said to work
("TF 2.4 will") state nothing. Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re
from typing import List, Optional

from envcheck.paste.readers.base import Fact

__all__ = ["line_facts"]

#: a TensorFlow release or series: "tensorflow1.8", "TF 1.12", "tensorflow=1.12.0", "Tensorflow 1.14", "tf.1.x",
#: "tensorflow-gpu==2.3"
_TF = re.compile(r"(?i)(?<![\w.-])(?:tensorflow(?:-gpu)?|tf)\s{0,2}(?:==|=|\.|v)?\s{0,2}(?P<v>[12]\.(?:\d{1,2}|x))"
                 r"(?:\.\d{1,2})?(?![\w.])")
#: the failure words of a sentence
_FAILS = re.compile(r"(?i)(?<![\w'])(?:does\s{1,2}not|doesn'?t|do\s{1,2}not|don'?t|will\s{1,2}not|won'?t|can\s{0,2}not"
                    r"|can'?t|cannot)\s{1,2}(?:work|support|run)(?![\w'])|(?<![\w'])will\s{1,2}not\s{0,2}(?:$|[.,;])"
                    r"|不支持|不能用|无法(?:使用|运行)")
_NOT_STATED = re.compile(r"(?i)[?？]|(?<![\w'])(?:if|whether|unless)(?![\w'])")
_SENTENCE = re.compile(r"(?<=[.!;?])\s{1,4}(?!\d)|(?<=[。！；？])")


#: what the failure words are said of when it is not the GPU: a Python release ("TensorFlow 1.15 doesn't support Python
#: 3.8", tensorflow/tensorflow#37461; "TensorFlow 1.x even 2.1 does not support Python 3.8", tensorflow#39768): pip finds
#: no wheel, which says nothing of the GPU (attack46)
_OTHER_OBJECT = re.compile(r"(?i)\s{1,2}(?:(?:with|on|in|for|under)\s{1,2})?(?:python|py)\s{0,2}v?\d")
#: what the failure words may be said of: the GPU (its maker, series, model or architecture), CUDA, the release itself
#: ("does not work with TF 1.12"), or nothing named (the sentence ends: "but TF 2.3 will not", "projects don't run");
#: another object ("won't work with numpy 2.0", "does not support eager mode") says nothing of the GPU (attack46)
_OBJECT = re.compile(r"(?i)\s{0,2}(?:(?:properly|correctly|well|anymore|at\s{1,2}all)\s{0,2})?(?:(?:with|on|in|for|under)"
                     r"\s{1,2})?(?:(?:the|my|a|an|new|newer|newest|latest|any)\s{1,2}){0,2}(?P<o>[\w-]{1,20})?")
_GPU_OBJECT = re.compile(r"(?i)(?:rtx|gtx|gpus?|cards?|graphics|ampere|ada|lovelace|hopper|blackwell|turing|volta|geforce"
                         r"|nvidia|quadro|tesla|titan|[ahlv]\d{2,3}|\d{4}(?:ti)?|rtx\d{4}(?:ti)?|sm_?\d{2,3}|cuda\d{0,3}"
                         r"|compute|tensorflow(?:-gpu)?|tf|it|them|this|that)")


def _said_of_gpu(part: str, at: int) -> bool:
    m = _OBJECT.match(part, at)
    obj = m.group("o") if m else None
    return obj is None or _GPU_OBJECT.fullmatch(obj) is not None


def _release(part: str) -> Optional[str]:
    fail = _FAILS.search(part)
    if fail is None or _OTHER_OBJECT.match(part, fail.end()) or not _said_of_gpu(part, fail.end()):
        return None
    before = [m for m in _TF.finditer(part) if m.end() <= fail.start()]
    if before and fail.start() - before[-1].end() <= 40:
        return before[-1].group("v").lower()
    after = next((m for m in _TF.finditer(part) if m.start() >= fail.end()), None)
    if after is not None and after.start() - fail.end() <= 12:
        return after.group("v").lower()
    return None


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one line (stripped, and lower-cased) shows: see the module's docstring."""
    if ("tf" not in low and "tensorflow" not in low) or not ("not" in low or "n't" in low or "不" in s or "无法" in s):
        return []
    for part in _SENTENCE.split(s):
        if _NOT_STATED.search(part):
            continue
        got = _release(part)
        if got:
            return [Fact("seen:tf-fails-said", f"{got} | {s}", s)]
    return []
