"""What a thread's sentences say about a non-NVIDIA machine's cause, where no report or error message of the text says it
(issue 20, round prose27: heldout/rounds/prose27-classes.md). This module only reads: each fact is evidence
(``seen:<what>``, the line quoted); whether it makes a cause certain is decided in
:mod:`envcheck.engine.vendors_prose`, with the text's other evidence and the matrix.

* ``gpu-said-unsupported``: a sentence says a GPU is not supported, in one of the forms ROCm's maintainers and
  reporters use: the GPU (a gfx target, a Radeon / RX model, a Navi / Vega / Polaris family, integrated GPUs / APUs,
  "the said card", "your gpu type") "is / are not (officially) supported", "is unsupported", "is not in the (official)
  supported list" ("iGPUs are not supported.", ROCm/hip#3282; "the gfx90c is not officially supported",
  pytorch#91699); or a vendor / the maintainers do not support it ("ROCm doesnt support the said card",
  ROCmValidationSuite#556; "We are not supporting Navi14 with ROCm now", ROCm#1525; "AMD has not released ROCm support
  for these GPUs"). Value ``subject | line``. Not in a question, nor after a hedge, a doubt or a condition in its
  sentence ("I really doubt if ... supported by ROCm", "if your GPU is not supported", "maybe", "I think"), nor with a
  clause that says the GPU works all the same ("... is not officially supported but works fine with
  HSA_OVERRIDE_GFX_VERSION", "works fine even though gfx1031 is not officially supported").
* ``python-x86-said``: the text shows its Python is an x86_64 one where an Apple-silicon Mac is in question: ``file
  $(which python)``'s answer for a ``python`` path, "Mach-O 64-bit executable x86_64" (a universal binary's per-slice
  line, "(for architecture x86_64)", is not it); ``platform.machine()`` said to return x86_64 ("`platform.machine()`
  returns `x86_64` on `arm64` Macbook Pros"), "X86 as machine"; or the reporter installed / ran it in a Rosetta
  terminal ("I installed TF with Rosetta terminal"). Not a question, a hedge, a condition ("when the installer is run
  with Rosetta", "if I don't have Rosetta installed") or a negation ("I'm running my terminal not rosetta").
  Value: the line. Whether the Mac is an Apple-silicon one is the engine's (evidence ``apple-silicon``).
* ``cuda-only-said``: a sentence says a package or program works only with CUDA / NVIDIA GPUs, or needs CUDA: "the
  bitsandbytes library only works on CUDA GPU", "we only support GPUs with CUDA capability", "currently only pytorch
  with cuda is supported", "only supports CUDA", "Flash attention requires CUDA or ROCm", "not supported on Mac";
  not a CUDA *version* needed ("requires CUDA 11.8" is another matter), a question or a hedge ("It seems that only
  CUDA is supported?"). Value: the line. What it means for the text's machine (another vendor's) is the engine's.

Every pattern is bounded (linear on any line); lines longer than 400 characters are read in pieces by the caller
(:func:`envcheck.paste.readers.observe.prose_facts_of`).
"""

from __future__ import annotations

import re
from typing import List, Optional

from envcheck.paste.readers.base import Fact
from envcheck.paste.readers.prose_join import sentence_start, sentence_stop

__all__ = ["line_facts"]

#: a GPU as the subject of "not supported": a gfx target, an AMD model or family, integrated GPUs / APUs, or a GPU
#: pointed at ("the said card", "your gpu type", "these GPUs")
_SUBJECT = (r"(?:gfx\d{1,4}[a-z]?|(?:amd\s{1,2})?radeon(?:\s{1,2}[\w™-]{1,12}){0,3}|rx\s{0,2}\d{3,4}(?:\s{0,2}xtx?)?"
            r"|navi\s{0,2}\d{1,2}(?:\s{1,2}xl)?|vega(?:\s{0,2}\d{1,2})?|polaris|rdna\s{0,2}\d?"
            r"|['\"‘’]{0,2}(?:integrated|intergrated)['\"‘’]{0,2}\s{1,2}gpus?|igpus?|apus?"
            r"|(?:this|that|these|those|the\s{1,2}said|your|my|the)\s{1,2}(?:gpu\s{1,2}(?:type|model)s?|cards?|gpus?"
            r"|devices?|asics?|chips?)"
            r"|(?:gfx\d{1,4}|navi\s?\d{1,2})\s{1,2}(?:devices?|cards?|gpus?))")
_UNSUPPORTED = re.compile(
    r"(?i)(?<![\w-])(?P<s1>" + _SUBJECT + r")(?![\w-])[^.?!\n]{0,40}?(?<![\w-])(?:(?:is|are|was|were)\s{1,2}(?:not|NOT)"
    r"\s{1,2}(?:officially\s{1,2}|yet\s{1,2})?supported|(?:is|are)n['’]?t\s{1,2}(?:officially\s{1,2})?supported"
    r"|(?:is|are)\s{1,2}unsupported|(?:is|are)\s{1,2}not\s{1,2}in\s{1,2}the\s{1,2}(?:official\s{1,2})?support(?:ed)?"
    r"\s{1,2}(?:list|matrix))(?![\w-])"
    r"|(?<![\w-])(?:rocm|amd|we|they)\s{1,2}(?:(?:does|do)\s{0,2}n['’]?o?t|(?:are|is)\s{1,2}not|(?:are|is)n['’]?t"
    r"|ha(?:s|ve)\s{1,2}not|ha(?:s|ve)n['’]?t|no\s{1,2}longer)\s{1,2}(?:officially\s{1,2})?(?:support(?:s|ing)?"
    r"|released\s{1,2}(?:rocm\s{1,2})?support\s{1,2}for)\s{1,2}(?:[\w.]{1,12}\s{1,2}){0,3}?(?P<s2>" + _SUBJECT
    + r")(?![\w-])")
#: a hedge, a doubt, a condition or a question word before the statement in its sentence
_HEDGE = re.compile(r"(?i)(?<![\w'])(?:if|whether|unless|when|maybe|perhaps|might|may|could|would|should|will|doubt\w{0,3}"
                    r"|not\s{1,2}sure|i\s{1,2}(?:think|guess|wonder|suspect|believe)|seems?|probably|possibly|hope\w{0,2}"
                    r"|don['’]?t|do\s{1,2}not|not|never)(?![\w'])")
#: ``file $(which python)``'s answer for an x86_64 interpreter (a universal binary's slice lines say "(for architecture")
_MACHO_X86 = re.compile(r"(?i)/python(?:3(?:\.\d{1,2})?)?\s{0,2}:\s{0,3}Mach-O\s{1,2}64-bit\s{1,2}executable\s{1,2}x86_64\s{0,3}$")
#: ``platform.machine()`` said to give x86_64, or "X86 as machine"
_MACHINE_X86 = re.compile(
    r"(?i)platform\.machine\(\)\W{0,3}\s{0,2}(?:returns?|returned|gives|gave|shows|showed|says|said|prints|printed|is)"
    r"\s{1,2}\W{0,3}x86_64(?![\w])"
    r"|(?<![\w-])(?:seeing|see|sees|shows?|showing|reports?|returns?)\s{1,2}['\"`]?x86(?:_64)?['\"`]?\s{1,2}as\s{1,2}"
    r"(?:the\s{1,2})?machine(?![\w-])")
#: the reporter installed / ran the stack in a Rosetta terminal: "I installed TF with Rosetta terminal"
_ROSETTA_RAN = re.compile(
    r"(?i)(?<![\w'])(?:i|we)\s{1,2}(?:had\s{1,2})?(?:installed|ran|run|launched|opened|started|created|set\s{1,2}up)\b"
    r"[^.?!\n]{0,60}?\b(?:with|through|via|under|in|using|from)\s{1,2}(?:the\s{1,2}|a\s{1,2}|my\s{1,2})?rosetta(?![\w-])")
#: a package or program said to work only with CUDA / NVIDIA GPUs, or to need CUDA (not a CUDA version)
_CUDA_ONLY = re.compile(
    r"(?i)(?<![\w-])only\s{1,2}(?:works?|runs?|supports?|support(?:ed)?)\s{1,2}(?:on\s{1,2}|with\s{1,2}|for\s{1,2})?"
    r"(?:the\s{1,2}|an?\s{1,2})?(?:nvidia\s{1,2}(?:gpus?|cards?|cuda)|cuda(?:[\s-]{1,2}(?:capable|enabled))?"
    r"(?:\s{1,2}(?:gpus?|devices?|cards?))?|gpus?\s{1,2}with\s{1,2}cuda)(?![\w.-]|\s{1,2}\d)"
    r"|(?<![\w-])only\s{1,2}(?:py)?torch\s{1,2}with\s{1,2}cuda\s{1,2}is\s{1,2}supported"
    r"|(?<![\w-])only\s{1,2}cuda\s{1,2}(?:gpus?\s{1,2})?(?:is|are)\s{1,2}supported"
    r"|(?<![\w-])(?:support\s{1,2}is\s{1,2})?(?:currently\s{1,2})?limited\s{1,2}to\s{1,2}(?:cuda|nvidia)"
    r"|(?<![\w-])(?:requires?|needs?)\s{1,2}(?:an?\s{1,2})?(?:nvidia\s{1,2}gpu|cuda(?:\s{1,2}or\s{1,2}rocm)?)(?![\w.-]|\s{1,2}\d)"
    r"|(?<![\w-])not\s{1,2}supported\s{1,2}on\s{1,2}(?:mac(?:os)?|apple(?:\s{1,2}silicon)?)(?![\w-])")
_HINTS = ("support", "gfx", "mach-o", "machine", "rosetta", "cuda", "rocm", "radeon")


def _sentence_before(s: str, at: int) -> str:
    return s[sentence_start(s, at):at]


def _sentence_asks(s: str, at: int) -> bool:
    rest = s[at:sentence_stop(s, at)]
    return "?" in rest or "？" in rest


def _stated(s: str, start: int, negation_ok: bool = False) -> bool:
    """Whether the words at ``s[start:]`` are stated: no hedge, condition or doubt (nor, unless ``negation_ok``, a
    negation) before them in their sentence, and their sentence asks no question."""
    before = _sentence_before(s, start)
    if negation_ok:
        before = re.sub(r"(?i)(?<![\w'])(?:don['’]?t|do\s{1,2}not|not|never)(?![\w'])", " ", before)
    return not _HEDGE.search(before) and not _sentence_asks(s, start)


#: the rest of the sentence says the GPU works all the same ("gfx1031 is not officially supported but works fine with
#: HSA_OVERRIDE_GFX_VERSION"): a hedge of the support list, no failure (attack45)
_WORKS_ANYWAY = re.compile(r"(?i)(?<![\w'])(?:but|though|although|yet|however)(?![\w'])[^.?!\n]{0,80}?(?<![\w'])"
                           r"(?:works?|worked|working|runs?|ran|running)(?![\w'])")
#: ... or says so before it: "Our RX 6700 XT works fine even though gfx1031 is not officially supported"
_WORKS_THOUGH = re.compile(r"(?i)(?<![\w'])(?:works?|worked|working|runs?|ran|running)(?![\w'])[^.?!\n]{0,40}?"
                           r"(?<![\w'])(?:even\s{1,2}though|although|though|despite)(?![\w'])")


def _unsupported(s: str) -> Optional[Fact]:
    for m in _UNSUPPORTED.finditer(s):
        if _WORKS_ANYWAY.search(s, m.end(), sentence_stop(s, m.end())) \
                or _WORKS_THOUGH.search(s, sentence_start(s, m.start()), m.end()):
            continue
        if _stated(s, m.start(), negation_ok=True):
            subject = re.sub(r"\s{2,}", " ", (m.group("s1") or m.group("s2") or "").strip(" '\"‘’"))
            return Fact("seen:gpu-said-unsupported", f"{subject} | {s}", s)
    return None


def _python_x86(s: str) -> Optional[Fact]:
    if _MACHO_X86.search(s):
        return Fact("seen:python-x86-said", s, s)
    for p in (_MACHINE_X86, _ROSETTA_RAN):
        m = p.search(s)
        if m and _stated(s, m.start()):
            return Fact("seen:python-x86-said", s, s)
    return None


def _cuda_only(s: str) -> Optional[Fact]:
    for m in _CUDA_ONLY.finditer(s):
        if _stated(s, m.start(), negation_ok=True):
            return Fact("seen:cuda-only-said", s, s)
    return None


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one line (stripped, and lower-cased) shows: see the module's docstring."""
    if len(s) > 400 or not any(h in low for h in _HINTS):
        return []
    got = [_unsupported(s) if "support" in low else None,
           _python_x86(s) if ("x86" in low or "rosetta" in low) else None,
           _cuda_only(s) if ("cuda" in low or "nvidia" in low or "mac" in low or "apple" in low) else None]
    return [f for f in got if f is not None]
