"""An Intel GPU that the reporter says is the machine's own, in a sentence (session 18, cpuonly29): "I have Intel iRIS
Graphics GPU" (lm-sys/FastChat#2105), "I'm using a integrated Intel GPU(iris xe graphics)" (Akegarasu/lora-scripts#101),
"My PC is Intel R lris Xe Graphics" (Rudrabha/Wav2Lip#502), "being on an Intel GPU" (Acly/krita-ai-diffusion#2572).
Evidence only (``seen:intel-gpu-said``, the line quoted): whether it makes a CUDA failure of the text a build asked of
another vendor's GPU is decided in :mod:`envcheck.engine.vendors` (``log_intel_gpu``), where the text names no NVIDIA
GPU. Not a question, a negation, a condition or someone else's machine ("if you have an Intel GPU", "I don't have an
Intel GPU", "does it work with Intel Arc?"); an Intel CPU ("I have an Intel i7") is no GPU: a GPU word (GPU,
graphics, iGPU) or an Intel GPU family (Iris, Arc, UHD / HD Graphics, Xe) must follow the word Intel. A line that also
names an NVIDIA GPU says nothing here (a laptop's iGPU beside its GeForce). Lines no reader above took; no
``format`` (prose is no report)."""

from __future__ import annotations

import re
from typing import Sequence

from envcheck.paste.readers.base import MAXLINE, Line, Partial, partial, text_of
from envcheck.paste.readers.base import Fact

__all__ = ["NAME", "detect", "read"]

NAME = "prose intel gpu"

#: the reporter's own machine: "I have", "I'm using", "I use", "my PC is", "being on", "I'm on", "I only have"
_OWN = (r"(?:i\s{1,2}(?:only\s{1,2})?(?:have|own|use|got)|i['’]?m\s{1,2}(?:using|on|running\s{1,2}on)|i\s{1,2}am\s{1,2}"
        r"(?:using|on|running\s{1,2}on)|being\s{1,2}on|(?:my|our)\s{1,2}(?:pc|laptop|computer|notebook|machine|gpu"
        r"|graphics\s{1,2}card|video\s{1,2}card|card)\s{1,2}(?:is|has)(?:\s{1,2}an?)?|running\s{1,2}on)")
#: an Intel GPU after it: the word Intel, then a GPU word or an Intel GPU family within a few words ("integrated Intel
#: GPU(iris xe graphics)", "Intel iRIS Graphics GPU", "Intel R lris Xe Graphics", "Intel(R) Arc(TM) A770")
_INTEL_GPU = re.compile(
    r"(?i)(?<![\w'])" + _OWN + r"\s{1,2}(?:an?\s{1,2})?(?:laptop\s{1,2}with\s{1,2}(?:an?\s{1,2})?)?"
    r"(?:(?:integrated|onboard|intergrated)\s{1,2})?(?P<gpu>intel(?:\s{0,2}\(r\)|\s{1,2}r(?=\s))?"
    r"(?:[\s(]{1,3}[\w()®™-]{1,14}){0,3}?[\s(]{1,3}(?:gpu|igpu|graphics|[il]ris|arc|uhd|xe)(?![\w-])"
    r"(?:[\s(]{1,3}(?:\(r\)\s{0,2})?(?:[il]ris|xe|graphics|gpu|a\d{3}m?|b\d{3}))?)")
#: a question, a condition, a negation or a hedge before the statement in its sentence
_NOT_OWN = re.compile(r"(?i)(?<![\w'])(?:if|whether|unless|when|does|do|can|could|would|should|not|never|no|don['’]?t"
                      r"|doesn['’]?t|haven['’]?t|didn['’]?t)(?![\w'])")
#: the help-seeker's own case and a concession, not a condition: "What should I do if I have ...", "what can i do if",
#: "even if I am using XPU, being on an Intel GPU"
_HELP = re.compile(r"(?i)(?<![\w'])(?:what\s{1,2}(?:should|can|do|shall)\s{1,2}i\s{1,2}\w{1,3}\s{1,2}if"
                   r"|even\s{1,2}(?:if|though))(?=\s)")
#: an NVIDIA GPU on the same line (a laptop's iGPU beside its GeForce: which one ran is not said)
_NVIDIA = re.compile(r"(?i)(?<![\w-])(?:nvidia|geforce|quadro|tesla|[rg]tx\s{0,2}\d{3,4}|mx\s{0,2}\d{3})(?![\w-])")


def _said(s: str) -> str:
    s = s[:MAXLINE]
    if "intel" not in s.lower() or _NVIDIA.search(s):
        return ""
    m = _INTEL_GPU.search(s)
    if not m:
        return ""
    start = max(s.rfind(c, 0, m.start()) for c in ".!?\n") + 1  # the sentence the statement stands in
    stop = min([i for i in (s.find(c, m.end()) for c in ".!?") if i >= 0] or [len(s)])
    before = _HELP.sub("", s[start:m.start()])
    before = before[max(before.rfind(c) for c in "\"”:;") + 1:]  # not a quoted error message's words before it
    if _NOT_OWN.search(before) or s[m.end():stop + 1].rstrip().endswith("?"):
        return ""
    return re.sub(r"[\s(]{1,6}", " ", m.group("gpu")).strip()


def detect(c: Line) -> int:
    return 1 if _said(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    gpu = _said(s)
    return partial(NAME, [Fact("seen:intel-gpu-said", gpu, s)] if gpu else [])
