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
  amdigpu40: a program's verdict reported with a pronoun for the GPU ("The GPU is recognized but it says always, that
  it is not supported"; "only fallback to cpu as ollama official doesn't support it", whose clause of cause a condition
  before it does not reach), only where the sentence names the GPU or the CPU fallback (subject "the GPU"); and "gfx1150
  is marked as not a compatible GPU by LM studio".
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

* ``root-only-said`` (amd33): the GPU or a GPU program works only as root / with sudo, in wordings the knowledge
  base's line does not read ("both the square example and vector_copy example work with sudo", "not working outside
  root account", "only runs for root", "none work without using sudo"); not a question, a condition or advice.
  Value: the line. Whose machine (an AMD one) is the engine's.
* ``docker-desktop`` (amd33): Docker Desktop named. Value: the line. The engine reads it beside AMD's stack.
* ``adrenalin-driver:RELEASE`` / ``zluda-named`` (r2amd): a release of AMD's Windows driver named ("AMD Adrenalin Driver
  Version 25.5.1", "Radeon 25.5.1"; value ``release | line``), ZLUDA named (value: the line), a ZLUDA release named
  (``zluda-version:RELEASE``, attack56; value: the line). The engine reads them
  against compat_matrix/rocm.toml ``[[zluda_adrenalin]]``.
* ``gpu-run-measured`` (amdkm39): a run on the GPU completed and measured: a throughput ("8~9 it/s", "tok/s"), a
  benchmark table's timings header ("fp32 time (msec)"), a test said to pass on the GPU ("Test past on 7700XT"), a
  Markdown table's throughput column (llama-bench's "| t/s |", "| TPS |"; r2amd).
  Value: the line. The engine reads it as the GPU running (a request for its support is then no failure).

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
            r"|(?:gfx\d{1,4}|navi\s?\d{1,2})\s{1,2}(?:devices?|cards?|gpus?)"
            # amd33: a Radeon named without the word Radeon: a mobile / integrated part by its number and M or S
            # ("the AMD 6700M GPU", "780M", "5500M", "8060S"), "AMD" with a card number and a GPU word or XT / XTX /
            # GRE ("AMD 6800 XT"); never a bare "AMD 5800X" (a Ryzen CPU)
            r"|(?:amd\s{1,2})?(?:[6-8][1-9]0|[5-8]\d[0-9]0)[ms](?:\s{1,2}(?:gpu|igpu|apu|graphics))?"
            r"|amd\s{1,2}[5-9]\d{3}(?:\s{0,2}(?:xtx?|gre))?\s{1,2}(?:gpu|card|graphics(?:\s{1,2}card)?)"
            r"|amd\s{1,2}[5-9]\d{3}\s{0,2}(?:xtx?|gre)"
            # amd35: AMD's APU families and a card number with its XT / XTX / GRE written without "RX" or "AMD" ("the
            # 9070 XT", "9070xt AKA gfx1201", ROCm/aiter#321); "Strix" alone is also ASUS' ROG laptop brand
            r"|strix\s{1,2}(?:halo|point)|krackan(?:\s{1,2}point)?|ryzen(?:™)?\s{1,2}a[il]\s{1,2}max\+?(?:\s{1,2}pro)?"
            r"(?:\s{1,2}\d{3})?|(?<![\w.])[5-9]\d{3}\s{0,2}(?:xtx?|gre))")
#: amd33: a program or library of AMD's stack (or one built on it) that "does not (yet) support" the GPU: "Ollama does
#: simply not support the RX 6600 yet" (Jeffser/Alpaca#742), "AMD's official HIP SDK does not support RX 6750 XT"
#: (ollama#9937), "the ROCm library does not yet support your GPU (gfx1032)"
_STACK = (r"|(?:the\s{1,2})?(?:rocm|hip)\s{1,2}(?:librar(?:y|ies)|runtime|stack|sdk)|hip\s{1,2}sdk|rocblas|ollama"
          r"|llama\.cpp|lm\s{1,2}studio|koboldcpp(?:-rocm)?")
#: (not torch / TensorFlow: "PyTorch no longer supports this GPU because it is too old" is torch's own warning, printed
#: on a ROCm build that still runs: ROCm/pytorch#627, heldout/acceptance16)
_UNSUPPORTED = re.compile(
    r"(?i)(?<![\w-])(?P<s1>" + _SUBJECT + r")(?![\w-])[^.?!\n]{0,40}?(?<![\w-])(?:(?:is|are|was|were)\s{1,2}(?:not|NOT)"
    r"\s{1,2}(?:officially\s{1,2}|yet\s{1,2}|currently\s{1,2})?supported|(?:is|are)n['’]?t\s{1,2}(?:officially\s{1,2}|currently\s{1,2}|yet\s{1,2})?supported"
    r"|(?:is|are)\s{1,2}currently\s{1,2}not\s{1,2}supported"
    r"|(?:is|are)\s{1,2}unsupported|(?:is|are)\s{1,2}not\s{1,2}in\s{1,2}the\s{1,2}(?:official\s{1,2})?support(?:ed)?"
    r"\s{1,2}(?:list|matrix)"
    # amd35: "gfx1150/gfx1151 are not yet ready for WSL or Linux/pytorch" (daMustermann/rocm-wsl-ai#9)
    r"|(?:is|are)\s{1,2}not\s{1,2}(?:yet\s{1,2})?ready\s{1,2}for"
    # amdigpu40: a program's verdict on the target ("gfx1150 is marked as not a compatible GPU by LM studio",
    # lmstudio-ai/lmstudio-bug-tracker#1394)
    r"|(?:is|are)\s{1,2}(?:marked\s{1,2}as\s{1,2})?not\s{1,2}an?\s{1,2}compatible\s{1,2}gpus?)(?![\w-])"
    r"|(?<![\w-])(?:rocm(?:\s{1,2}\d{1,2}(?:\.\d{1,2}){0,2})?|amd|we|they" + _STACK + r")"
    r"\s{1,2}(?:(?:does|do)\s{0,2}(?:(?:simply|currently|still|yet)\s{1,2})?n['’]?o?t|(?:are|is)\s{1,2}not|(?:are|is)n['’]?t"
    r"|ha(?:s|ve)\s{1,2}not|ha(?:s|ve)n['’]?t|no\s{1,2}longer)\s{1,2}(?:(?:officially|yet|currently)\s{1,2})?(?:support(?:s|ing)?"
    r"|released\s{1,2}(?:rocm\s{1,2})?support\s{1,2}for)\s{1,2}(?:[\w.]{1,12}\s{1,2}){0,3}?(?P<s2>" + _SUBJECT
    + r")(?![\w-])"
    # amd33: the stack lacks the GPU's support ("Currently rocBLAS lacks 780M gpu support", ROCm/rocBLAS#1536; "ROCm
    # lacks support for gfx1103") or has none for it ("ROCm has no support for the RX 6600")
    r"|(?<![\w-])(?:rocm(?:\s{1,2}\d{1,2}(?:\.\d{1,2}){0,2})?|amd" + _STACK + r")\s{1,2}(?:(?:currently|still)\s{1,2})?"
    r"(?:lacks?|lacking|ha(?:s|ve)\s{1,2}no)\s{1,2}(?:(?:official|any)\s{1,2})?(?:support\s{1,2}for\s{1,2}(?:the\s{1,2}|your\s{1,2}|my\s{1,2})?)?"
    r"(?P<s4>" + _SUBJECT + r")(?![\w-])"
    # amd33: the gfx target named as "unsupported" before it: "due to unsupported amdgpu version gfx1031"
    # (ROCm/tensorflow-upstream#2629), "unsupported GPU architecture gfx1103"
    r"|(?<![\w-])unsupported\s{1,2}(?:amdgpu\s{1,2}(?:version|target|arch(?:itecture)?)|(?:amd\s{1,2})?gpu\s{1,2}"
    r"(?:version|target|arch(?:itecture)?)|(?:gfx\s{1,2})?(?:target|arch(?:itecture)?|isa))\s{0,2}[:(]?\s{0,2}"
    r"(?P<s3>gfx\d{3,4}[a-z]?)(?![\w-])"
    # amd35: a maintainer's "no plan" for the GPU ("there currently isn't any plan to add support for gfx1100",
    # ROCm/TransformerEngine#106; "we do not have plans to support Strix Halo for RCCL", ROCm/rccl#2026; "there isn't
    # any plan to officially support gfx1036 on ROCm", ROCm/Tensile#1907)
    r"|(?<![\w-])(?:(?:is|are)n['’]?t|(?:is|are)\s{1,2}not|(?:do|does)\s{0,2}n['’]?o?t\s{1,2}have|ha(?:s|ve)\s{1,2}no"
    r"|(?:is|are)\s{1,2}no)\s{1,2}(?:(?:currently|any|yet)\s{1,2}){0,2}plans?\s{1,2}(?:(?:yet|currently)\s{1,2})?"
    r"(?:to\s{1,2}(?:(?:add|enable|officially)\s{1,2}){0,2}support(?:\s{1,2}for)?|for)\s{1,2}(?:the\s{1,2})?"
    r"(?P<s5>" + _SUBJECT + r")(?![\w-])"
    # amd35: support said missing for the GPU ("Missing support for Radeon 8060s (Ryzen AI Max+ 395) gfx1151",
    # ROCm/rocWMMA#600)
    r"|(?<![\w-])(?:missing|no)\s{1,2}support\s{1,2}for\s{1,2}(?:the\s{1,2})?(?P<s6>" + _SUBJECT + r")(?![\w-])"
    # amd35: ROCm said unsupported with the GPU ("ROCm is not supported on Linux with 9070 XT",
    # ROCm/rocm-install-on-linux#434)
    r"|(?<![\w-])rocm(?:\s{1,2}\d{1,2}(?:\.\d{1,2}){0,2})?\s{1,2}(?:is\s{1,2}not|isn['’]?t)\s{1,2}(?:officially\s{1,2})?"
    r"supported\s{1,2}(?:on\s{1,2}[\w.]{1,12}\s{1,2})?(?:with|on|for)\s{1,2}(?:the\s{1,2}|my\s{1,2}|an?\s{1,2})?"
    r"(?P<s7>" + _SUBJECT + r")(?![\w-])"
    # amdigpu40: the program's verdict reported with a pronoun for the GPU ("The GPU is recognized but it says always,
    # that it is not supported", likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU#53), and a program of AMD's stack that
    # does not support "it" ("only fallback to cpu as ollama official doesn't support it", the same repository's #27);
    # kept only where the sentence speaks of the GPU or the CPU it falls back to (:data:`_GPU_OR_CPU`)
    r"|(?<![\w-])(?:says?|said|reports?|reported|shows?|showed|tells?\s{1,2}me|told\s{1,2}me)(?:\s{1,2}(?:always|again"
    r"|still|only))?,?\s{1,2}(?:that\s{1,2})?(?P<s8>it|the\s{1,2}gpu|my\s{1,2}gpu|the\s{1,2}card)\s{1,2}(?:(?:is|was)"
    r"\s{1,2}not|(?:is|was)n['’]t)\s{1,2}(?:officially\s{1,2})?supported(?![\w-])"
    # attack52: ... not where the verdict is of a combination ("speculative decoding, it says always that it is not
    # supported with this model"): "it" is then the feature
    r"(?!\s{1,2}(?:with|for|in)\s{1,2}(?:this|that|these|the)\s{1,2}(?!gpus?\b|cards?\b|graphics\b|apus?\b|igpus?\b))"
    r"|(?<![\w-])(?:rocm|ollama|lm\s{1,2}studio|llama\.cpp|koboldcpp|hip\s{0,2}sdk)(?:\s{1,2}official(?:ly)?)?\s{1,2}"
    r"(?:does|do)\s{0,2}n['’]?o?t\s{1,2}(?:(?:officially|yet|currently)\s{1,2})?support\s{1,2}(?P<s9>it|them)(?![\w-])")
#: amdigpu40: the GPU (or the CPU a program fell back to) named in the sentence of a pronoun's verdict
_GPU_OR_CPU = re.compile(r"(?i)(?<![a-z])(?:gpus?|igpus?|apus?|cards?|graphics|gfx\d{3,4}[a-z]?|radeon|cpu)(?![a-z])")
#: amdigpu40: a clause of cause ("... fallback to cpu as ollama official doesn't support it"): a condition before it
#: ("if you running ollama from official ollama , ...") does not reach into it
_BECAUSE = re.compile(r"(?i)(?<![\w'])(?:because|since|as)\s")
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
#: (edge33) the Python named an Intel / Rosetta one: "I ran an Intel/Rosetta Python the whole time"
#: (macarch40: or an x86 one, "`Torch>2.2.2` is incompatible with the x86-64 version of python on macOS",
#: sensein/b2aiprep#127)
#: (mwidjaja1/DSOnMacARM#3), "I had installed the Intel version of Anaconda"; or the reporter's check answered Intel ("Oh
#: it shows intel.", rasbt/machine-learning-notes#4, after "check for Python" in Activity Monitor). Not one used for a
#: test on purpose ("Tested on my M2 MacBook Pro with an x86_64 version of Python", nomic-ai/gpt4all#2793: a control)
_INTEL_PYTHON = re.compile(
    r"(?i)(?<![\w-])(?:an?|the|my|our)\s{1,2}(?:intel|rosetta|x86(?:[-_]64)?)(?:\s{0,2}/\s{0,2}(?:intel|rosetta|x86(?:_64)?))?"
    r"(?:\s{1,2}(?:version|build|install(?:ation|er)?)\s{1,2}of(?:\s{1,2}the)?)?\s{1,2}(?:python|conda|anaconda|miniconda"
    r"|homebrew)(?![\w-])"
    r"|^(?:oh,?\s{1,2}|ok,?\s{1,2}|yes,?\s{1,2})?(?:it|python)\s{1,2}(?:shows|says|is)\s{1,2}[\x60'\"]?intel[\x60'\"]?(?![\w-])")
#: (macarch40) uv's resolver naming the current platform a macOS x86_64 one: its hint "You're on macOS
#: (`macosx_15_0_x86_64`), but `torch` (v2.7.1) only has wheels for ..." (jianchang512/pyvideotrans#950,
#: zackees/transcribe-anything#77) and its "has no wheels with a matching platform tag (e.g., `macosx_26_0_x86_64`)"
#: (vllm-project/vllm-metal#379): uv reads the tag from the interpreter, so the Python is an x86_64 one (whether the Mac is
#: an Apple-silicon one is the engine's: an Intel Mac's is the same tag, lanbinleo/bili2text#95)
_UV_MAC_X86 = re.compile(r"You're\s{1,2}on\s{1,2}macOS\s{1,2}\(`macosx_\d{1,2}_\d{1,2}_x86_64`\)"
                         r"|matching\s{1,2}platform\s{1,2}tag\s{1,2}\(e\.g\.,\s{1,2}`macosx_\d{1,2}_\d{1,2}_x86_64`\)")
#: a test run on purpose before the words in their sentence ("Tested on ... with an x86_64 version of Python")
_TESTED = re.compile(r"(?i)(?<![\w-])test(?:ed|ing|s)?(?![\w-])")
#: the reporter installed / ran the stack in a Rosetta terminal: "I installed TF with Rosetta terminal"
_ROSETTA_RAN = re.compile(
    r"(?i)(?<![\w'])(?:i|we)\s{1,2}(?:had\s{1,2})?(?:installed|ran|run|launched|opened|started|created|set\s{1,2}up)\b"
    r"[^.?!\n]{0,60}?\b(?:with|through|via|under|in|using|from)\s{1,2}(?:the\s{1,2}|a\s{1,2}|my\s{1,2})?rosetta(?![\w-])")
#: a package or program said to work only with CUDA / NVIDIA GPUs, or to need CUDA (not a CUDA version)
_CUDA_ONLY = re.compile(
    r"(?i)(?<![\w-])only\s{1,2}(?:works?|runs?|supports?|support(?:ed)?)\s{1,2}(?:on\s{1,2}|with\s{1,2}|for\s{1,2})?"
    r"(?:the\s{1,2}|an?\s{1,2})?(?:nvidia\s{1,2}(?:gpus?|cards?|cuda)|cuda(?:[\s-]{1,2}(?:capable|enabled))?"
    r"(?:\s{1,2}(?:gpus?|devices?|cards?))?|gpus?\s{1,2}with\s{1,2}cuda)(?![\w-]|\.\w|\s{1,2}\d)"
    r"|(?<![\w-])only\s{1,2}(?:py)?torch\s{1,2}with\s{1,2}cuda\s{1,2}is\s{1,2}supported"
    r"|(?<![\w-])only\s{1,2}cuda\s{1,2}(?:gpus?\s{1,2})?(?:is|are)\s{1,2}supported"
    r"|(?<![\w-])(?:support\s{1,2}is\s{1,2})?(?:currently\s{1,2})?limited\s{1,2}to\s{1,2}(?:cuda|nvidia)"
    r"|(?<![\w-])(?:requires?|needs?)\s{1,2}(?:an?\s{1,2})?(?:nvidia\s{1,2}gpu|cuda(?:\s{1,2}or\s{1,2}rocm)?)(?![\w.-]|\s{1,2}\d)"
    # r2amd: the program asking, looking for or demanding CUDA or an NVIDIA GPU ("just errors out asking for CUDA",
    # LykosAI/StabilityMatrix#1058 on a 7900 XTX; "ethminer demands a CUDA driver", ethereum-mining/ethminer#1170 on AMD
    # hardware; "webui fails looking for an NVIDIA GPU when I have an AMD GPU", AUTOMATIC1111/stable-diffusion-webui
    # #15137); not a request for CUDA support or a CUDA version ("asking for CUDA 12 support")
    r"|(?<![\w-])(?:asks?\s{1,2}for|asking\s{1,2}for|looks?\s{1,2}for|looking\s{1,2}for|demands?|demanding)\s{1,2}"
    r"(?:an?\s{1,2})?(?:nvidia\s{1,2}(?:gpu|graphics?\s{1,2}card|card)|cuda)(?![\w-]|\.\w|\s{1,2}(?:\d|support|version))"
    # r2amd: the AMD build said to require an NVIDIA card ("The AMD version requires an NVIDIA graphic card.",
    # AUTOMATIC1111/stable-diffusion-webui#15432, the DirectML fork on an AMD GPU)
    r"|(?<![\w-])(?:requires?|needs?)\s{1,2}(?:an?\s{1,2})?nvidia\s{1,2}(?:graphics?\s{1,2}card|card)(?![\w-])"
    r"|(?<![\w-])not\s{1,2}supported\s{1,2}on\s{1,2}(?:mac(?:os)?|apple(?:\s{1,2}silicon)?)(?![\w-])"
    # (edge33) the package said to be FOR NVIDIA's GPUs: "it is not supported as it is for Nvidia GPUs"
    # (mistralai/mistral-inference#7, xformers on an M1 Pro), "xformers is specifically meant to speed up Nvidia GPUS"
    r"|(?<![\w-])(?:is|are)\s{1,2}(?:only\s{1,2}|just\s{1,2}|specifically\s{1,2}|mainly\s{1,2}|made\s{1,2}|built\s{1,2}"
    r"|designed\s{1,2}|meant\s{1,2}|intended\s{1,2}){0,2}for\s{1,2}nvidia\s{1,2}(?:gpus?|cards?|graphics\s{1,2}cards?)(?![\w-])"
    r"|(?<![\w-])(?:is|are)\s{1,2}(?:specifically\s{1,2}|only\s{1,2})?(?:meant|designed|made|intended)\s{1,2}to\s{1,2}"
    r"(?:[\w-]{1,12}\s{1,2}){1,3}?nvidia\s{1,2}(?:gpus?|cards?)(?![\w-])")
#: amd33: the GPU (or a GPU program) works only as root, said in the wordings the knowledge base's "works only as root"
#: line (compat_matrix/errors.toml, gpu-works-only-as-root-said) does not read: "both the square example and
#: vector_copy example work with sudo" (ROCm/hip#337), "not working outside root account" (legacy-rocm-build#786),
#: "ROCm only runs for root" (ROCT-Thunk-Interface#36), "none work without using sudo or being root user", "I can't
#: list devices as user"; not advice ("try it with sudo"), not a sudo that starts a command ("works with sudo pip ...")
_ROOT_ONLY = re.compile(
    r"(?i)(?<![\w-])(?:works?|worked|working|runs?|ran|running|succeeds?)\s{1,2}(?:(?:fine|ok|okay|correctly|well)\s{1,2})?"
    r"(?:with|using|under|via)\s{1,2}sudo(?=\s{0,2}[.,;:!)]|\s{1,2}(?:but|and|only|though|too|as\s{1,2}well)(?![\w-])|\s{0,3}$)"
    r"|(?<![\w-])(?:not|n['’]t)\s{1,2}(?:working|work|run|running)\s{1,2}(?:outside|without)\s{1,2}(?:(?:a|the|my)\s{1,2})?"
    r"(?:root|sudo|superuser)(?:\s{1,2}(?:account|user|privileges?|rights))?(?![\w-])"
    r"|(?<![\w-])(?:none|nothing|neither)\s{1,2}(?:of\s{1,2}(?:them|these|those)\s{1,2})?(?:works?|runs?)\s{1,2}without\s{1,2}"
    r"(?:using\s{1,2}|being\s{1,2}|running\s{1,2}as\s{1,2})?(?:sudo|root|superuser)(?![\w-])"
    r"|(?<![\w-])only\s{1,2}(?:runs?|works?)\s{1,2}(?:for|as)\s{1,2}(?:the\s{1,2})?root(?:\s{1,2}user)?(?![\w-])"
    r"|(?<![\w'-])(?:can['’]?t|cannot|can\s{1,2}not|unable\s{1,2}to)\s{1,2}(?:list|see|use|access|detect|find|open)"
    r"\s{1,2}(?:(?:the|any|my)\s{1,2})?(?:devices?|gpus?|agents?)\s{1,2}as\s{1,2}(?:(?:a|the|my)\s{1,2})?"
    r"(?:(?:normal|regular|non-root|ordinary|unprivileged)\s{1,2})?user(?![\w-])")
#: amd33: Docker Desktop named (on Linux it runs the containers in its own VM, which has no /dev/kfd: "Having Docker
#: Desktop running blocks access to /dev/kfd", ROCm/container-toolkit#86; "I fixed the problem by uninstalling
#: docker-desktop ... and then installing the ordinary docker engine", vllm-project/vllm#7207)
_DOCKER_DESKTOP = re.compile(r"(?i)(?<![\w-])docker[\s-]desktop(?![\w-])")
#: attack46: Docker Desktop denied ("Docker Desktop is not involved, I run natively", "I don't use Docker Desktop",
#: "without Docker Desktop", "no Docker Desktop here"): the containers are not its
_DOCKER_DESKTOP_DENIED = re.compile(
    r"(?i)(?<![\w'])(?:not|never|don'?t|doesn'?t|didn'?t|no\s{1,2}longer)\s{1,2}(?:(?:use|using|used|have|run|running|need"
    r"|needed|involve|involved)\s{1,2})?(?:the\s{1,2}|a\s{1,2}|any\s{1,2})?docker[\s-]desktop(?![\w-])"
    r"|(?<![\w'])(?:without|no)\s{1,2}(?:the\s{1,2}|any\s{1,2})?docker[\s-]desktop(?![\w-])"
    r"|(?<![\w-])docker[\s-]desktop\s{1,2}(?:is|was)(?:\s{1,2}not|n'?t)\s{1,2}(?:\w{1,12}\s{1,2})?(?:involved|installed|used"
    r"|running|in\s{1,2}use|the\s{1,2}(?:problem|issue|cause))(?![\w-])")
_HINTS = ("support", "compatible", "ready", "plan", "build", "pull request", "gfx", "mach-o", "machine", "rosetta", "cuda", "rocm", "radeon", "sudo", "root", "user", "desktop",
          "intel", "x86", "x64", "nvidia", "/s", "s/it", "msec", "test", "| tps", "adrenalin", "zluda", "amd",
          "driver")


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


def _stated_after(s: str, clause: int, at: int) -> bool:
    """amdigpu40: the words at ``s[at:]`` are stated within their clause of cause starting at ``clause``: no hedge
    between the two (a negation is the statement's own), and their sentence asks no question."""
    between = re.sub(r"(?i)(?<![\w'])(?:don['’]?t|do\s{1,2}not|not|never)(?![\w'])", " ", s[clause:at])
    return not _HEDGE.search(between) and not _sentence_asks(s, at)


#: the rest of the sentence says the GPU works all the same ("gfx1031 is not officially supported but works fine with
#: HSA_OVERRIDE_GFX_VERSION"): a hedge of the support list, no failure (attack45)
_WORKS_ANYWAY = re.compile(r"(?i)(?<![\w'])(?:but|though|although|yet|however)(?![\w'])[^.?!\n]{0,80}?(?<![\w'])"
                           r"(?:works?|worked|working|runs?|ran|running)(?![\w'])")
#: ... or says so before it: "Our RX 6700 XT works fine even though gfx1031 is not officially supported"
_WORKS_THOUGH = re.compile(r"(?i)(?<![\w'])(?:works?|worked|working|runs?|ran|running)(?![\w'])[^.?!\n]{0,40}?"
                           r"(?<![\w'])(?:even\s{1,2}though|although|though|despite)(?![\w'])")


#: attack52: another person's GPU ("My friend's RX 5500 XT (gfx1012) is marked as not a compatible GPU by LM studio")
_ANOTHERS = re.compile(r"(?i)(?<![\w'])(?:friend|colleague|co-?worker|brother|sister|someone|somebody|dad|son)['’]s\s")


def _unsupported(s: str) -> Optional[Fact]:
    for m in _UNSUPPORTED.finditer(s):
        if _WORKS_ANYWAY.search(s, m.end(), sentence_stop(s, m.end())) \
                or _WORKS_THOUGH.search(s, sentence_start(s, m.start()), m.end()) \
                or _ANOTHERS.search(s, sentence_start(s, m.start()), m.end()):
            continue
        pronoun = bool(m.group("s8") or m.group("s9"))
        start = sentence_start(s, m.start())
        if pronoun and not _GPU_OR_CPU.search(s, start, sentence_stop(s, m.end())):
            continue
        clause = None
        if pronoun:
            for cause in _BECAUSE.finditer(s, start, m.start()):
                clause = cause.end()
        if _stated(s, m.start(), negation_ok=True) or (clause is not None and _stated_after(s, clause, m.start())):
            got = next((m.group(g) for g in ("s1", "s2", "s3", "s4", "s5", "s6", "s7") if m.group(g)), "")
            subject = re.sub(r"\s{2,}", " ", got.strip(" '\"‘’")) if not pronoun else "the GPU"
            return Fact("seen:gpu-said-unsupported", f"{subject} | {s}", s)
    # amd35: a title that says it without a verb ("[Issue]: 9070 XT not supported", ROCm/rocm-install-on-linux#434)
    t = _TITLE.match(s)
    said = _TITLE_UNSUPPORTED.search(t.group("t")) if t and "?" not in s else None
    if said:
        return Fact("seen:gpu-said-unsupported", f"{_squeeze(said.group('g'))} | {s}", s)
    return None


#: attack46: sudo said of an install, not of the GPU ("amdgpu-install works with sudo only, as any package install does",
#: "it only works with sudo when I install the packages with apt"): root's rights to write the system, not to open
#: /dev/kfd
_INSTALL_SUDO = re.compile(r"(?i)(?<![\w-])(?:amdgpu-install|apt(?:-get)?|dnf|yum|zypper|pacman|pip3?|conda|install(?:s|ing|er"
                           r"|ation)?|package\s{1,2}install)(?![\w-])")


#: amd35: an AMD GPU named (no pointer such as "my GPU"): a gfx target, a Radeon / RX / Radeon PRO / Instinct model, a
#: family or APU name, a card number with XT / XTX / GRE or a mobile part's M / S
_NAMED = (r"(?:gfx\d{3,4}[a-z]?|(?:amd\s{1,2})?radeon(?:\s{1,2}[\w™+-]{1,12}){1,3}|rx\s{0,2}\d{3,4}(?:\s{0,2}(?:xtx?|gre))?"
          r"|(?:radeon\s{1,2}pro\s{1,2})?w[5-9]\d{3}|(?:instinct\s{1,2})?mi\d{2,3}[xa]?|navi\s{0,2}\d{1,2}|rdna\s{0,2}\d?(?:\.\d)?"
          r"|strix\s{1,2}(?:halo|point)|krackan(?:\s{1,2}point)?|ryzen(?:™)?\s{1,2}a[il]\s{1,2}max\+?(?:\s{1,2}pro)?(?:\s{1,2}\d{3})?"
          r"|(?<![\w.])[5-9]\d{3}\s{0,2}(?:xtx?|gre)|(?:[6-8][1-9]0|[5-8]\d[0-9]0)[ms])")
#: amd35: a feature request's title: a request tag, or a title that asks for the GPU's support or builds ("Add gfx1152
#: support", lemonade-sdk/vllm-rocm#8; "Support for gfx1151 (RDNA 3.5) ...", ROCm/gsplat#8; "GFX1100 Support",
#: facebookincubator/AITemplate#908; "Possible Build for GFX1201", guinmoon/rocm7_builds#6; "is strix halo gfx1151
#: support planned?", ROCm/vllm#633; "[Feature]: Add gfx1150 builds?", ROCm/TheRock#844)
_TITLE = re.compile(r"^#\s{1,3}(?P<t>\S.{0,200})$")
_REQUEST_TAG = re.compile(r"(?i)^\[\s{0,2}(?:feature(?:\s{1,2}request)?|enhancement|rfe|request)\s{0,2}\]|^feature\s{1,2}request\s{0,2}:")
_TITLE_ASKS = re.compile(
    r"(?i)^(?:\[[\w\s]{1,20}\]\s{0,2}:?\s{0,2})?(?:(?:rocm|hip|amd|gpu)\s{1,2})?(?:add(?:ing)?|support|request(?:ing)?|please|pls|plz)(?![\w-])"
    r"|(?<![\w-])support\s{0,2}[?!.]{0,3}\s{0,2}$"
    r"|(?<![\w-])(?:any\s{1,2})?plans?\s{1,2}(?:to|for)\s{1,2}(?:add\s{1,2})?support(?![\w-])|(?<![\w-])support\s{1,2}planned(?![\w-])"
    r"|(?<![\w-])builds?\s{1,2}for(?![\w-])|(?<![\w-])(?:does|do|will)\s{1,2}(?:it|this|\w{1,20})\s{1,2}support(?![\w-])"
    r"|(?<![\w-])when\s{1,2}will(?![\w-])[^?]{0,60}(?<![\w-])support(?![\w-])")
#: a title that says the GPU is not supported without a verb: "9070 XT not supported"
_TITLE_UNSUPPORTED = re.compile(r"(?i)(?<![\w-])(?P<g>" + _NAMED + r")(?![\w-])\s{1,2}(?:(?:is|are)\s{1,2})?(?:not|n't|no\s{1,2}longer)"
                                r"\s{1,2}(?:(?:officially|yet)\s{1,2})?supported(?![\w-])")
#: a title written as a commit message ("rocmPackages: add gfx1151 to gpuTargets", NixOS/nixpkgs#440359; "metrix: add
#: gfx1151 (Strix Halo) support", AMDResearch/intellikit#123): a change that adds the support, not a request for it
_COMMIT_TITLE = re.compile(r"^[a-z][\w./-]{0,30}(?:\([\w./-]{1,30}\))?:\s")
#: ... or a title that says the GPU works, was fixed or is supported now
_TITLE_DONE = re.compile(r"(?i)(?<![\w-])(?:works?|working|worked|fixed|added|released|enabled|now\s{1,2}supported)(?![\w-])")
#: amd35: a request in a sentence: the reporter asks the project to add the GPU's support or builds, or whether support
#: is planned ("I would appreciate it if you could add support for `gfx1151` to the project", ROCm/gsplat#8; "It would
#: be great to have builds not only for gfx1151, but also for gfx1150", ROCm/TheRock#844; "It's possible to got support
#: for 9070xt AKA gfx1201 ?", ROCm/aiter#321; "is support for gfx1151 planned or in progress?", ROCm/vllm#633; "Is it
#: possible to get a build for those cards too?", guinmoon/rocm7_builds#6)
_ASKED = re.compile(
    r"(?i)(?<![\w-])(?:please|pls|plz|you\s{1,2}(?:could|can)|(?:could|can|would|will)\s{1,2}you)\s{1,2}(?:please\s{1,2})?add\s{1,2}"
    r"(?:(?:official|native)\s{1,2})?(?:support|builds?|kernels?)\s{1,2}for\s{1,2}[`'\"]?(?P<a1>" + _SUBJECT + r")(?![\w-])"
    r"|(?<![\w-])to\s{1,2}(?:have|get|got)\s{1,2}(?:an?\s{1,2})?(?:builds?|support)(?:\s{1,2}not\s{1,2}only\s{1,2}for\s{1,2}[\w.-]{1,16},?"
    r"\s{1,2}but\s{1,2}also)?\s{1,2}for\s{1,2}(?P<a2>" + _SUBJECT + r")(?![\w-])"
    r"|(?<![\w-])support\s{1,2}for\s{1,2}(?P<a3>" + _SUBJECT + r")(?![\w-])\s{1,2}(?:(?:is|being)\s{1,2})?planned(?![\w-])"
    r"|(?<![\w-])(?:is|are)\s{1,2}there\s{1,2}(?:any\s{1,2})?plans?\s{1,2}to\s{1,2}(?:add\s{1,2}|officially\s{1,2})?support\s{1,2}"
    r"(?:for\s{1,2})?(?:the\s{1,2})?(?P<a4>" + _SUBJECT + r")(?![\w-])")
#: amdkm39: a run on the GPU that completed and was measured: a throughput ("8~9 it/s", "11-13s/it", "42.1 tok/s",
#: "tokens/s"), a benchmark table's header of timings ("fp32 time (msec)", rocblas-benchmark in lamikr/rocm_sdk_builder
#: #111, with and without HSA_OVERRIDE_GFX_VERSION), or a test said to pass on the GPU ("Test past on 7700XT (Navi32)",
#: ROCm/AITemplate#79): the GPU runs, so a request for its support is about speed or official builds, not a failure
_MEASURED = re.compile(
    r"(?i)(?<![\w.])\d{1,5}(?:[.,]\d{1,3})?(?:\s{0,2}[~-]\s{0,2}\d{1,5}(?:[.,]\d{1,3})?)?\s{0,2}"
    r"(?:it/s|s/it|tok/s|tokens?/s(?:ec)?|t/s)(?![\w/])"
    r"|(?<![\w-])time\s{0,2}\((?:msec|ms|us|usec)\)"
    r"|(?<![\w-])tests?\s{1,2}(?:passed|past|pass(?:es)?)\s{1,2}on\s{1,2}(?:an?\s{1,2}|the\s{1,2}|my\s{1,2})?[\w-]{2,30}"
    # r2amd: a Markdown table's header cell for a throughput (llama-bench's "| t/s |" after its ROCm device line,
    # ollama/ollama#2453 on a gfx803; LM Studio users' "| Runtime | Try | TPS | FTT |" comparing its ROCm and Vulkan
    # engines on an RX 9070 XT): the table holds the run's measured speeds
    r"|\|\s{0,24}(?:t/s|tps|tok/s|tokens?/s(?:ec)?|it/s)\s{0,24}\|")
#: a thread's header line for a pull request ("NixOS/nixpkgs · pull request #440359 · merged · Nix"): its title is a
#: change, not a request
_PULL_REQUEST = re.compile(r"^[\w.-]{1,40}/[\w.-]{1,100} · pull request #\d{1,7}(?: · |$)")


def _squeeze(name: str) -> str:
    return re.sub(r"\s{2,}", " ", name.strip(" `'\"‘’"))


def _asked(s: str) -> Optional[Fact]:
    """amd35: ``gpu-support-asked``: a feature request's title or a sentence asks for an AMD GPU's support or builds."""
    t = _TITLE.match(s)
    if t:
        title = t.group("t").strip()
        if _COMMIT_TITLE.match(title) or _TITLE_DONE.search(title):
            return None
        gpu = re.search(r"(?i)(?<![\w-])" + _NAMED + r"(?![\w-])", title)
        if gpu and (_REQUEST_TAG.search(title) or _TITLE_ASKS.search(title)):
            return Fact("seen:gpu-support-asked", f"{_squeeze(gpu.group(0))} | {s}", s)
        return None
    m = _ASKED.search(s)
    if m is None or _TITLE_DONE.search(s, m.end(), sentence_stop(s, m.end())):
        return None
    subject = next(m.group(g) for g in ("a1", "a2", "a3", "a4") if m.group(g))
    return Fact("seen:gpu-support-asked", f"{_squeeze(subject)} | {s}", s)


def _root_only(s: str) -> Optional[Fact]:
    for m in _ROOT_ONLY.finditer(s):
        if _INSTALL_SUDO.search(_sentence_before(s, m.start()) + " " + s[m.end():m.end() + 40]):
            continue
        if not _sentence_asks(s, m.start()) and not re.search(
                r"(?i)(?<![\w'])(?:if|whether|unless|maybe|perhaps|try|trying|should|could|would|might)(?![\w'])",
                _sentence_before(s, m.start())):
            return Fact("seen:root-only-said", s, s)
    return None


def _python_x86(s: str) -> Optional[Fact]:
    if _MACHO_X86.search(s) or "macosx_" in s and _UV_MAC_X86.search(s):
        return Fact("seen:python-x86-said", s, s)
    for p in (_MACHINE_X86, _ROSETTA_RAN, _INTEL_PYTHON):
        m = p.search(s)
        if m and _stated(s, m.start()) and not (p is _INTEL_PYTHON and _TESTED.search(_sentence_before(s, m.start()))):
            return Fact("seen:python-x86-said", s, s)
    return None


def _cuda_only(s: str) -> Optional[Fact]:
    for m in _CUDA_ONLY.finditer(s):
        # "will only work on Nvidia GPUs" (facebookresearch/xformers#731, a maintainer) states it: a "will" right
        # before "only" is the statement's own tense, not a hedge
        at = m.start()
        w = re.search(r"(?i)(?<![\w'])will\s{1,2}$", s[:at])
        if _stated(s[:w.start()] + s[at:] if w else s, w.start() if w else at, negation_ok=True):
            return Fact("seen:cuda-only-said", s, s)
    return None


#: r2amd: a release of AMD's Windows driver (AMD Software: Adrenalin Edition) named: "AMD Adrenalin Driver Version
#: 25.5.1" (CS1o/Stable-Diffusion-Info#35), "AMD driver 25.5.1 breaks zluda" (lshqqytiger/ZLUDA#106), "Windows 10,
#: 7900XTX, Radeon 25.5.1" (patientx/ComfyUI-Zluda#82), "after updating driver 25.5.1": its YY.M.N number (NVIDIA's
#: Windows drivers are NNN.NN, or four-part file versions)
_ADRENALIN = re.compile(
    r"(?i)(?<![\w-])(?:(?:adrenalin(?:\s{1,2}edition)?|radeon(?:\s{1,2}software)?|amd)(?:\s{1,2}(?:software|drivers?|version|edition))"
    r"{0,3}|drivers?(?:\s{1,2}version)?)\s{1,2}v?(?P<v>2\d\.\d{1,2}\.\d{1,2})(?![\w.]|\.\d)")


#: attack56: a ZLUDA release number right after ZLUDA's name ("zluda 3.9.5", "ZLUDA v3.9.5", "ZLUDA-3.8.4")
_ZLUDA_VERSION = re.compile(r"(?i)(?<![a-z])zluda[\s-]{1,2}v?(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)(?![\w.]|\.\d)")


def _adrenalin(s: str) -> List[Fact]:
    """r2amd: ``adrenalin-driver:RELEASE`` (``release | line``; one key a release, so that every release a text names
    is kept, not the first one only) where a line names an Adrenalin release; ``zluda-named`` where it names ZLUDA."""
    out: List[Fact] = [Fact(f"seen:adrenalin-driver:{m.group('v')}", f"{m.group('v')} | {s}", s)
                       for m in _ADRENALIN.finditer(s)]
    if re.search(r"(?i)(?<![a-z])zluda(?![a-z])", s):
        out.append(Fact("seen:zluda-named", s, s))
        # attack56: a ZLUDA release named ("Latest zluda 3.9.5 seems to work with it", patientx/ComfyUI-Zluda#146;
        # "ZLUDA v3.9.5"): ``zluda-version:RELEASE`` (value: the line)
        out += [Fact(f"seen:zluda-version:{m.group('v')}", s, s) for m in _ZLUDA_VERSION.finditer(s)]
    return out


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one line (stripped, and lower-cased) shows: see the module's docstring."""
    if len(s) > 400 or not any(h in low for h in _HINTS):
        return []
    got = [_unsupported(s) if "support" in low or "ready" in low or "plan" in low or "compatible" in low else None,
           _python_x86(s) if ("x86" in low or "rosetta" in low or "intel" in low or "x64" in low) else None,
           _cuda_only(s) if ("cuda" in low or "nvidia" in low or "mac" in low or "apple" in low) else None,
           _root_only(s) if ("sudo" in low or "root" in low or "user" in low) else None,
           Fact("seen:docker-desktop", s, s) if "desktop" in low and _DOCKER_DESKTOP.search(s)
           and not _DOCKER_DESKTOP_DENIED.search(s) else None,
           _asked(s) if "support" in low or "build" in low or "plan" in low or s.startswith("#") else None,
           Fact("seen:pull-request", s, s) if " · pull request #" in s and _PULL_REQUEST.match(s) else None,
           Fact("seen:gpu-run-measured", s, s) if ("/s" in low or "s/it" in low or "msec" in low or "test" in low
                                                   or "| tps" in low)
           and _MEASURED.search(s) else None]
    if "zluda" in low or "adrenalin" in low or "driver" in low or "radeon" in low or "amd" in low:
        got += _adrenalin(s)
    return [f for f in got if f is not None]
