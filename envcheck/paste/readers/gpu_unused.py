"""A CPU-only framework told by its symptoms and by the thread's answer, not by a build string (issue 20, cpu41).

A thread often shows no "+cpu" and no "Torch not compiled with CUDA enabled": the reporter only says what the CPU build
does - the program runs, but not on the GPU ("It works for CPU, but not for GPU", ultralytics/ultralytics#290), slowly
("the fps is only 2 fps" on a GTX 1080, alievk/avatarify-python#15), or a library's own warning says so ("No GPU being
used. Careful, inference might be very slow!", suno-ai/bark#437) - and the answer is to install PyTorch with CUDA ("You
need to verify if you Pytorch is installed correctly with GPU support", ultralytics#290; "install torch with cuda",
KyanChen/TTP#6; "download the corresponding version of PyTorch on the official website", innnky/so-vits-svc#50;
"Uninstall it and install Pytorch CUDA ... from the official source", uzh-rpg/rpg_e2vid#27). This module only reads:

* ``gpu-unused-said``: a sentence says the GPU is not used while the program runs, or that a run on the GPU is slow (a
  frame rate "only N fps" on a line naming the GPU): the symptom of a build that falls back to the CPU. A question
  ("why is it not using my GPU?") says it too: it is the reporter's observation. A run said to be on the CPU on
  purpose ("training with the CPU backend") is not it (no GPU named as unused).
* ``cuda-build-advised``: a sentence says to install PyTorch with CUDA / GPU support, or the CUDA build from
  pytorch.org's own selector ("the official website / source", pytorch.org): advice, which the resolution reader
  (:mod:`envcheck.paste.readers.resolution`) never keeps. A negation ("no need to install torch with cuda") is not it,
  nor the writer's own install ("I installed torch with CUDA 11.8 and it still fails": a CUDA build the text has).

Whether the two make the cause certain is :func:`envcheck.engine.prose_causes.cuda_build_advised`'s: only where the text
shows the GPU was wanted and no CUDA build is shown. Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re
from typing import List

from envcheck.paste.readers.base import Fact

__all__ = ["line_facts"]

#: the GPU goes unused while the program runs: "works for CPU, but not for GPU", "it runs on the CPU instead of the GPU",
#: "the GPU is not being used", "not using my GPU", "No GPU being used", "doesn't use the GPU", "GPU utilization is 0%"
_UNUSED = re.compile(
    r"(?i)\bworks?\s(?:on|for|with)\s(?:the\s)?cpu\b[^.?!\n]{0,12}?\bbut\snot\s(?:on|for|with)\s(?:the\s|my\s)?gpu\b"
    r"|\b(?:runs?|running|ran|is\srunning|uses?|using|used|trains?|training)\s(?:only\s)?(?:on\s)?(?:the\s)?cpu\s"
    r"(?:instead\sof|rather\sthan|and\snot|but\snot|not)\s(?:on\s)?(?:the\s|my\s)?gpu\b"
    r"|\b(?:the\s|my\s)?gpu\s(?:is\s|was\s)?(?:not|never)\s(?:being\s)?(?:used|utili[sz]ed)\b"
    r"|\bnot\s(?:using|utili[sz]ing)\s(?:the\s|my\s|any\s)?gpu\b|\bno\sgpu\sbeing\sused\b"
    r"|\b(?:doesn'?t|does\snot|don'?t|do\snot|didn'?t|did\snot)\s(?:use|utili[sz]e)\s(?:the\s|my\s|any\s)?gpu\b"
    # the same in Chinese: "没有用到GPU", "没有使用显卡", "只用了CPU", "GPU没有被调用"
    r"|(?:没有|没|未)(?:用到|使用|调用)(?:到)?\s{0,2}(?:gpu|显卡)|只(?:用|使用)了?\s{0,2}cpu|(?:gpu|显卡)\s{0,2}(?:没有|没|未)(?:被)?(?:用到|使用|调用)")
#: a run on the GPU said slow: a frame rate "only N fps" / "fps is only N", on a line that names the GPU
_SLOW = re.compile(r"(?i)\bonly\s(?:about\s|around\s)?\d{1,2}(?:\.\d)?\s?fps\b|\bfps\s(?:is|was)\s(?:only\s|just\s)\d{1,2}\b")
_GPU = re.compile(r"(?i)\bgpu\b|\bnvidia\b|\b[gr]tx\s?\d{3,4}|\bgeforce\b|\bcuda\b")
#: a run on the CPU on purpose: "with the CPU backend", "on a CPU-only machine", "without a GPU"
_CPU_WANTED = re.compile(r"(?i)\bcpu\sbackend\b|\bcpu[\s-]only\s(?:machine|computer|laptop|server)\b|\bwithout\s(?:a\s|any\s)?gpu\b"
                         r"|\bno\sgpu\b(?!\sbeing\sused)|\bdon'?t\shave\s(?:a\s|any\s)?gpu\b")
#: PyTorch with CUDA advised (or installed): "install torch with cuda", "installed correctly with GPU support", "install
#: Pytorch CUDA", "the CUDA version of PyTorch", "PyTorch ... from the official website / pytorch.org"
_ADVISED = re.compile(
    # (an imperative or an infinitive, not "installed torch for CUDA accidentally": pytorch/pytorch#51213's AMD machine)
    r"(?i)\b(?:re-?)?install(?:ing)?\s(?:the\s)?(?:py)?torch\s(?:\w{1,12}\s){0,2}?with\s(?:the\s)?(?:cuda|gpu)\b"
    r"|\b(?:py)?torch\s(?:is\s|was\s)?installed\s(?:correctly\s|properly\s)?with\s(?:the\s)?(?:cuda|gpu)\s(?:support|enabled)\b"
    r"|\b(?:re-?)?install\w{0,3}\s(?:the\s)?(?:py)?torch[\s-](?:cuda|gpu)\b"
    r"|\b(?:re-?)?install\w{0,3}\s(?:the\s)?(?:cuda|gpu)[\s-](?:enabled\s)?(?:version|build)\s(?:of\s)?(?:py)?torch\b"
    r"|\b(?:download|install)\w{0,3}\s(?:the\s)?(?:corresponding\s|right\s|correct\s|matching\s)?(?:version\s(?:of\s)?)?(?:py)?torch\b"
    r"[^.?!\n]{0,80}?\b(?:official\s(?:website|site|source|page)|pytorch\.org)"
    # Chinese: "安装cuda版本的torch", "装GPU版的pytorch", "去官网下载对应版本的pytorch"
    r"|(?:安装|装|下载)\s{0,2}(?:cuda|gpu)\s{0,2}版(?:本)?的?\s{0,2}(?:py)?torch|官网\s{0,2}(?:下载|安装)[^。！？\n]{0,16}(?:py)?torch")
#: the writer's own install before it ("I installed torch with CUDA 11.8 and ..."): a build the text has, no advice (a
#: CUDA build installed that still fails is some other cause's)
_MINE = re.compile(r"(?i)(?:^|[^\w'])(?:i|we|i'?ve|we'?ve)\s(?:[\w']{1,12}\s){0,3}$|我[^。！？\n]{0,6}$")
#: a negation before the advice: "no need to install torch with CUDA", "don't install the CUDA version"
_NOT_ADVISED = re.compile(r"(?i)\b(?:no\sneed|not\sneed|needn'?t|don'?t|do\snot|didn'?t|did\snot|never|without)\b[^.?!\n]{0,30}$"
                          r"|不(?:用|需要|必)[^。！？\n]{0,10}$")

#: what a thing does, not advice: "Installing the repo as described will install torch with cuda 11.7" (NOTSOFAR1-
#: Challenge#40: the repo's CUDA build, which the text then has), "a script which installs torch with CUDA"
_DESCRIBED = re.compile(r"(?i)\b(?:will|would|which|it)\s$")
#: the line shows the torch is a CUDA build: torch's own "your PyTorch was compiled with CUDA_VERSION 7500. Please install
#: the correct PyTorch binary using instructions from http://pytorch.org" (a CUDA too old for the GPU, pytorch PR 3601's
#: healthy run), a "+cu118" tag
_CUDA_BUILD_SHOWN = re.compile(r"(?i)\bcompiled\swith\s(?:cuda\b|cuda_version\b)|\+cu\d{2,3}\b")
#: (attack53) the install the sentence names was done, and did not cure: "Even after installing pytorch with CUDA the
#: GPU is not used", "Tried reinstalling torch with cuda 12.1, still not using my GPU", "已经安装GPU版本的pytorch" (the
#: words before it); "Installing the CUDA version of PyTorch didn't change anything", "安装cuda版本的torch后还是没有用到GPU"
#: (the words after it): the writer's own install, as _MINE, not the thread's answer
_DONE_BEFORE = re.compile(r"(?i)\b(?:after|tried|despite|already)\s(?:\w{1,12}\s)?$|(?:已经|已)\s{0,2}$")
_DONE_AFTER = re.compile(r"(?i)^[^.?!\n]{0,60}?\b(?:didn'?t|did\snot|doesn'?t|does\snot|won'?t)\s(?:help|work|change|fix|solve)\w{0,3}\b"
                         r"|^[^.?!\n]{0,60}?\b(?:but|and)\s(?:it\s|the\sgpu\s)?(?:is\s)?still\b|^[^。！？\n]{0,16}?后(?:还是|仍然|仍|依然|也)")
#: (attack53) a launcher's own progress line: "CUDA not available, reinstalling PyTorch with CUDA support...", "[REPAIR]
#: Reinstalling PyTorch with CUDA cu121..." (a gerund, the line ending in an ellipsis): the program installs the CUDA
#: build itself, as _DESCRIBED
_PROGRESS = re.compile(r"(?i)(?:re-?)?installing\s")
#: (attack53) the line says torch reaches the GPU: "torch.cuda.is_available() returns True", "\"torch.cuda.is_available\" is
#: true" (syorami/DDC-transfer-learning#3's title), "torch.cuda.is_available()返回为True" (yeyupiaoling/
#: VoiceprintRecognition-Pytorch#66): only a CUDA build of torch says True, so the engine gives no CPU-build cause for it
_REACHED = re.compile(r"(?i)cuda\.?is_?available(?:\(\))?[\"'`]?\s{0,3}(?:->|=|:|is|returns?|returned|gives|gave|shows|为|返回(?:为|了)?)?"
                      r"\s{0,3}[\"'`]?true\b")
#: a check asked or advised, not a result: "Is torch.cuda.is_available() True?", "make sure torch.cuda.is_available()
#: returns True", "if torch.cuda.is_available() is True:"
_ASKED = re.compile(r"(?i)\b(?:check|sure|verify|whether|if|does|do|is|ensure|should|until|assert)\s(?:that\s)?(?:the\s)?"
                    r"[`\"']?(?:torch\.)?$")


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one sentence-line (and its lower-cased copy) shows: see the module's docstring."""
    out: List[Fact] = []
    if ("gpu" in low or "显卡" in s) and not _CPU_WANTED.search(s) and _UNUSED.search(s):
        out.append(Fact("seen:gpu-unused-said", s, s))
    elif "fps" in low and _SLOW.search(s) and _GPU.search(s):
        out.append(Fact("seen:gpu-unused-said", s, s))
    if "torch" in low:
        m = _ADVISED.search(s)
        before = s[max(0, m.start() - 40):m.start()] if m is not None else ""
        if m is not None and not _NOT_ADVISED.search(before) and not _MINE.search(before) \
                and not _DESCRIBED.search(before) and not _CUDA_BUILD_SHOWN.search(s) \
                and not _DONE_BEFORE.search(before) and not _DONE_AFTER.search(s[m.end():m.end() + 80]) \
                and not (_PROGRESS.match(m.group(0)) and s.rstrip().endswith(("...", "…"))):
            out.append(Fact("seen:cuda-build-advised", s, s))
        r = _REACHED.search(s) if "true" in low else None
        if r is not None and not _ASKED.search(s[max(0, r.start() - 40):r.start()]) and "?" not in s[r.end():r.end() + 3]:
            out.append(Fact("seen:cuda-reached-said", s, s))
    return out
