"""The CUDA a thread's text says its build, image or environment is made with, and what it says of that CUDA against
a GPU newer than it (issue 20, round newgpu39): evidence for :func:`envcheck.engine.prose_causes.arch_stated`.

A GPU newer than the CUDA it is given (an RTX 30xx / A100 / A6000 with CUDA 10.x or TF 1.x, an RTX 50xx with a CUDA 12.2
image) is often told without the "no kernel image" line: in a maintainer's prose ("The docker image provided is built
with `cuda 10.1`. However, 3090 GPU requires `cuda 11`", neural-audio-fp#20; "This environment uses TensorFlow 1.14 and
CUDA 10.0", "the A6000 is too modern for our GPU environment", nn4dms#4; "CUDA 10.2 is too old for sm_86", RAFT#171), in
an issue template's fields ("cuda ver: 10.2", Paddle#44140; "CUDA/cuDNN version: 10.0/7.6.0.64"), in a sentence
("显卡是A100，cuda=10.0.130", KIM#7; "tensorflow-gpu==1.12.0 and cuda==9.0", tensorflow#58026), or in a container
image's tag (``nvidia/cuda:10.0-cudnn7-devel-ubuntu18.04``, flashlight#357; ``tensorflow/tensorflow:1.14.0-gpu-py3``).
This reader keeps what the text states; whether the matrix says that CUDA cannot target the GPU is the engine's.

Evidence (``Report.lines`` keys; the first line of each kept):

* ``cuda-used-said``: ``cuda | line``: the CUDA (major.minor) a build, image or environment is made with or the toolkit
  the reporter installed or uses. Not where the words before it make it another's, an earlier or a removed one
  (prose_cause's ``GONE_BEFORE``), nor in a question, nor a tag or version that is the target of a change ("change
  the base image to nvidia/cuda:12.8.1", "upgrade to CUDA 11.1"), nor an install command's pin (``cudatoolkit=11.2``),
  nor an image tag the sentence gives to the docs or another's advice ("The README suggests the docker image ...",
  attack51; also for ``tf-image-said``).
* ``cuda-used-gpus``: ``gpu|gpu | line``: (attack51) the GPU models the sentence of that CUDA names before it, the
  machine it is said of ("My old workstation with a GTX 1080 Ti uses CUDA 10.0"); the engine does not judge another
  GPU of the text by it.
* ``tf-image-said``: ``release | line``: a TensorFlow GPU container image's tag (``tensorflow/tensorflow:1.14.0-gpu-py3``,
  ``tensorflow:1.15-gpu``): the build's CUDA is the release's (compat_matrix/tensorflow.toml), the engine's.
* ``cuda-fix-said``: ``cuda | line``: the line says a change to CUDA N (an image tag, a toolkit installed) resolved the
  failure ("update base image from nvidia/cuda:10.0-... to nvidia/cuda:11.1-... will resolve this issue"; "问题解决了
  ...我装了cuda11.2").
* ``arch-cuda-said``: ``gpu | cc | line``: a sentence says the GPU needs a newer CUDA than it is given, or that the two
  do not go together ("3090 GPU requires `cuda 11`", "too modern", "too old for sm_86", "not compatible", "无法兼容",
  "不支持"); ``gpu`` the model token the line names (``-``: none), ``cc`` a compute capability the line names as
  ``sm_XY`` (``-``: none). Not hedged ("I'm not sure", "I think", ``if``/``may``), and not a question, except a
  question of the reporter's own ("是因为30系列显卡和cuda版本不兼容导致的吗？"): that is ``arch-cuda-asked``, which the
  engine takes only beside the reporter's own fix.

Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

from envcheck.paste.readers.base import Fact
from envcheck.paste.readers.prose_cause import GONE_BEFORE
from envcheck.paste.readers.prose_gpu import gpu_models, gpu_series, modern_gpu_models
from envcheck.paste.readers.prose_join import sentence_start, sentence_stop

__all__ = ["line_facts"]

#: a CUDA container image's tag: ``nvidia/cuda:10.0-cudnn7-devel``, ``nvcr.io/nvidia/cuda:12.4.1-runtime``
_IMAGE = re.compile(r"(?i)(?<![\w.-])(?:nvcr\.io/)?nvidia/cuda:(?P<v>\d{1,2}\.\d{1,2})(?![\d])")
#: a TensorFlow GPU image's tag: ``tensorflow/tensorflow:1.14.0-gpu-py3``, ``tensorflow:1.15-gpu``
_TF_IMAGE = re.compile(r"(?i)(?<![\w.-])(?:tensorflow/)?tensorflow:(?P<v>\d\.\d{1,2})(?:\.\d{1,2})?-gpu")
#: a CUDA version a sentence states as made with, used or installed (group ``v``)
_USED = re.compile(
    r"(?i)(?:\b(?:built|compiled|made|based)\s(?:with|on|for|against|upon)\s(?:the\s)?"
    r"|\b(?:uses?|using|installed|i\shave|running|runs|environment\swith)\s(?:[^.;?!。；？！]|\.(?=\S)){0,40}?"
    r"|(?:我)?(?:安装了|装了|使用的?是?|用的是)[^。；？！]{0,20}?)"
    r"[`'\"]?cuda[\s`'\"_=-]{0,3}(?:version\s)?v?(?P<v>\d{1,2}\.\d{1,2})(?![\d])")
#: ``cuda=10.0.130`` / ``cuda==9.0`` / ``cudatoolkit=11.8.0`` in a sentence ("cudatoolkit=11.8.0 is not supported for
#: NVIDIA RTX5080", xsuite#716; an install command's pin is not read: ``_INSTALL_CMD``)
_EQ = re.compile(r"(?i)(?<![\w-])cuda(?:toolkit)?\s{0,2}={1,2}\s{0,2}v?(?P<v>\d{1,2}\.\d{1,2})(?![\d])")
#: a template's field: ``cuda ver: 10.2``, ``paddle with cuda: 10.2``, ``CUDA/cuDNN version: 10.0/7.6.0.64``,
#: ``CUDA版本：10.2``
_FIELD = re.compile(r"(?i)^[\s*>-]{0,6}(?:\*\*)?(?:\w{1,12}\swith\s)?cuda(?:/cudnn)?\s{0,2}(?:ver(?:sion)?|版本)?\s{0,2}"
                    r"(?:\*\*)?\s{0,2}[:：]\s{0,3}(?:\*\*)?\s{0,2}v?(?P<v>\d{1,2}\.\d{1,2})(?![\d])")
#: "CUDA 10.2 is too old for sm_86"
_TOO_OLD = re.compile(r"(?i)(?<![\w.])cuda\s{0,2}v?(?P<v>\d{1,2}\.\d{1,2})\s(?:is|was)\s(?:too\sold|not\ssupported)\sfor\b")
#: the target of a change: the version after it is the new one, not the one in use
_TARGET_BEFORE = re.compile(r"(?i)(?:\bto|\btry|\btrying|\binto|换成|升级到|改为|改成)\s{0,3}[`'\"(]?$")
#: an install command's line (its pins are what is being installed, not what was in use)
_INSTALL_CMD = re.compile(r"(?i)\b(?:pip3?|conda|mamba|apt(?:-get)?)\s(?:install|create)\b")
#: the text says the change resolved the failure
_RESOLVED = re.compile(r"(?i)\b(?:resolv\w{1,3}|fix\w{0,3}|solv\w{1,3}|works?\snow|now\sworks?)\b|解决|没有卡死|可用|成功")
#: a sentence saying the GPU needs a newer CUDA, or that the GPU and the CUDA / framework do not go together
_SAID = re.compile(
    r"(?i)\b(?:requires?|needs?)\s[`'\"]?(?:at\sleast\s|a\sminimum\sof\s)?[`'\"]?(?:cuda|sm_\d{2,3})"
    r"|\btoo\s(?:modern|new|old)\b|\bincompatible\b|\bnot\s(?:be\s)?(?:compatible|supported)\b"
    r"|n[’'`]?t\s(?:support|work\swith)\b|\bdoes\snot\s(?:support|work\swith)\b"
    r"|无法兼容|不兼容|不支持|只支持|需要(?:有)?cuda")
#: a hedge: the sentence is a guess, a condition or another's claim ("I'm not sure about this, but I think ...")
_HEDGE = re.compile(r"(?i)\bnot\ssure\b|\bi\sthink\b|\bi\sguess\b|\bmaybe\b|\bperhaps\b|\bmay\b|\bmight\b|\bwonder\b"
                    r"|\bdoes\sanyone\b|\bwhether\b|不知道|是否")
#: a GPU model token a sentence names bare ("the A6000", "显卡是A100"): the engine looks it up in the GPU table
_BARE_GPU = re.compile(r"(?<![A-Za-z0-9])(?P<g>[AHL]\d{2,4}|RTX\s?\d{4}(?:\s?Ti)?)(?![A-Za-z0-9])")
_SM = re.compile(r"(?i)\bsm_?(?P<cc>\d{2,3})\b")


#: (attack51) the sentence before a container image's tag gives it to the docs or another's advice ("The README suggests
#: the docker image tensorflow/tensorflow:1.15.5-gpu-py3, but I installed tensorflow 2.5.0 with pip"): no image that ran
_ADVISED_BEFORE = re.compile(r"(?i)(?<![\w-])(?:readme|docs?|documentation|tutorial|guide|faq|suggest(?:s|ed)?"
                             r"|recommend(?:s|ed)?|according\sto)(?![\w-])")


def _advised(s: str, start: int) -> bool:
    return bool(_ADVISED_BEFORE.search(s[sentence_start(s, start):start]))


def _question(s: str, start: int, end: int) -> bool:
    part = s[sentence_start(s, start):sentence_stop(s, end)]
    return any(q in part for q in ("?", "？", "吗"))


def _gone(s: str, start: int) -> bool:
    return bool(GONE_BEFORE.search(s[max(sentence_start(s, start), start - 40):start]))


def _used(s: str) -> Optional[Tuple[str, List[str]]]:
    """The first CUDA the line states as in use (see the module's docstring) and the GPUs its sentence names before it
    (:func:`_gpus_before`), or None."""
    if _INSTALL_CMD.search(s):
        return None
    for pattern in (_FIELD, _TOO_OLD, _IMAGE, _USED, _EQ):
        for m in pattern.finditer(s):
            start = m.start("v") if pattern is _USED else m.start()
            if pattern not in (_FIELD, _EQ) and (_question(s, start, m.end()) or _gone(s, m.start())
                                          or _TARGET_BEFORE.search(s[max(0, m.start() - 12):m.start()])
                                          or (pattern is _IMAGE and _advised(s, m.start()))):
                continue
            return m.group("v"), _gpus_before(s, m.start())
    return None


def _gpus_before(s: str, start: int) -> List[str]:
    """(attack51) The GPU models the sentence of a stated CUDA names before it: the machine that CUDA is said of ("My old
    workstation with a GTX 1080 Ti uses CUDA 10.0. The new RTX 3090 requires CUDA 11", "Our server has a Tesla V100
    using CUDA 10.1"): the engine does not give that CUDA to another GPU of the text."""
    part = s[sentence_start(s, start):start]
    got = modern_gpu_models(part) + gpu_models(part)
    bare = _BARE_GPU.search(part)
    return list(dict.fromkeys(got or ([bare.group("g")] if bare else [])))


def _fix(s: str) -> Optional[str]:
    """The CUDA a change to which the line says resolved the failure, or None."""
    if not _RESOLVED.search(s):
        return None
    got = [m.group("v") for m in _IMAGE.finditer(s) if _TARGET_BEFORE.search(s[max(0, m.start() - 12):m.start()])]
    got += [m.group("v") for m in re.finditer(r"(?i)(?:装了|installed|upgraded\sto|updated\sto|switched\sto)\s{0,3}"
                                              r"cuda\s{0,2}v?(?P<v>\d{1,2}\.\d{1,2})(?![\d])", s)]
    return got[0] if got else None


def _statements(s: str) -> List[str]:
    """The sentences of line ``s`` that are not questions."""
    out, begin = [], 0
    while begin < len(s):
        end = sentence_stop(s, begin)
        part = s[begin:end] if end > begin else s[begin:]
        if not any(q in part for q in ("?", "？", "吗")):
            out.append(part)
        begin = max(end, begin + 1) if end > begin else len(s)
    return out


def _gpu_token(s: str) -> str:
    models = modern_gpu_models(s) + gpu_models(s)
    if models:
        return str(models[0])
    series = gpu_series(s)
    if series:
        return f"{series[0]} series"
    m = _BARE_GPU.search(s)
    return m.group("g") if m else ""


def _said(s: str) -> List[Fact]:
    for m in _SAID.finditer(s):
        part = s[sentence_start(s, m.start()):sentence_stop(s, m.end())]
        if _HEDGE.search(part) or re.search(r"(?i)\bif\s(?!i\s)", s[sentence_start(s, m.start()):m.start()]):
            continue
        # the sentence's GPU, else one another sentence of the line states (a GPU asked of, "Are you on a 20 series
        # graphics card? Those require ...", is not the reporter's)
        gpu = _gpu_token(part) or next((g for g in (_gpu_token(x) for x in _statements(s)) if g), "")
        sm = _SM.search(part)
        if not gpu and not sm:
            continue
        cc = f"{sm.group('cc')[:-1]}.{sm.group('cc')[-1]}" if sm else ""
        key = "seen:arch-cuda-asked" if _question(s, m.start(), m.end()) else "seen:arch-cuda-said"
        return [Fact(key, f"{gpu or '-'} | {cc or '-'} | {s}", s)]
    return []


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence of one line (stripped, and lower-cased): see the module's docstring."""
    if len(s) > 800 or not ("cuda" in low or "gpu" in low or "sm_" in low or "显卡" in s or "tensorflow:" in low):
        return []
    out: List[Fact] = []
    used = _used(s) if "cuda" in low else None
    if used:
        out.append(Fact("seen:cuda-used-said", f"{used[0]} | {s}", s))
        if used[1]:
            out.append(Fact("seen:cuda-used-gpus", f"{'|'.join(used[1])} | {s}", s))
    tf = _TF_IMAGE.search(s)
    if tf and not _TARGET_BEFORE.search(s[max(0, tf.start() - 12):tf.start()]) and not _advised(s, tf.start()):
        out.append(Fact("seen:tf-image-said", f"{tf.group('v')} | {s}", s))
    fix = _fix(s) if "cuda" in low else None
    if fix:
        out.append(Fact("seen:cuda-fix-said", f"{fix} | {s}", s))
    return out + _said(s)
