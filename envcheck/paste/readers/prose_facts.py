"""Versions and GPUs that a *sentence* of a bug report states about the reporter's own machine (issue 20 item 4: every
fact the text makes certain is in ``facts``): "I have CUDA 10.0 and torch 1.5.0", "my torch version is 2.6.0", "I'm
using cuDNN 8.1", "on Ubuntu 20.04 with Python 3.8", "installed: python3.6.13 cuda10.2 pytorch1.8.0", "my GPU is a
GTX 1080", "I am using NVIDIA GeForce RTX 3080 Ti Laptop GPU", "the driver version is 470.82.01", and a line that is
nothing but a CUDA / cuDNN version ("cuda v10.0").

A version is read only where the sentence makes it certain: a subject noun (``torch``, ``pytorch``, ``python``,
``cuda``, ``cudnn``, ``driver``) with its version token right after it, in a clause that says it is the reporter's
(``I have``, ``I'm using``, ``my``, ``installed``, ``X version is``; for Python also ``with`` / ``on``) and says nothing that makes it
another version: asked for, advised, tried, past, compared or one of a list ("requires torch 2.1", "try CUDA 11.8",
"I tried torch 2.0", "torch 1.4 works", "torch 2.1 or 2.2", "upgraded from 1.0 to 1.2", "compiled with CUDA 11.8",
"I have played around with CUDA 11.0", a question). A driver is read only with its dots ("470.82.01"; a bare "470" is a branch, not a version: compared
with a floor such as 470.57.02 it would say too old wrongly). A GPU is read only right after such a subject ("my GPU
is a", "I'm using", "I have a") and only one model per clause.

What the user typed about CUDA and cuDNN is their claim, not a detected fact (contract §4): ``claim.cuda`` /
``claim.cudnn``. Python goes to ``python_prose`` (merged with the Python other sentences state), torch to
``torch.version`` (unknown once another release is shown), the driver to ``driver_prose`` and the GPU to
``gpu_prose_named``: both used only where no report of the text names a driver / a GPU (:mod:`envcheck.paste.report`).
This module states no ``format``: a text with nothing but prose is still not a report. Every pattern is bounded
(linear on any line); lines with table rules (``|``) are not prose; a line longer than 400 characters is read in
pieces of whole sentences and a sentence split over lines joined (:mod:`envcheck.paste.readers.prose_join`).
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from envcheck.paste.readers.base import Fact
from envcheck.paste.readers.log_facts import NO_DEVICE_RULES, LineReader, no_gpu_line

__all__ = ["NAME", "line_facts", "visible_devices_hide"]

NAME = "prose facts"

_HINTS = ("torch", "tensorflow", "onnxruntime-gpu", "python", "cuda", "cudnn", "driver", "windows", "gpu", "card", "rtx", "gtx", "geforce", "tesla", "quadro",
          "titan", "nvidia", "a100", "h100", "h200", "v100", "l40", "a10",
          "只能", "无法", "不能", "没法", "不了", "不到")  # (drvold37) the Chinese no-GPU sentences (``_NO_GPU_ZH``)
#: a name and its version token: ``torch 1.5.0``, ``pytorch1.8.0``, ``CUDA v10.0``, ``cuda10.2``, ``cuda=9.0``, ``driver
#: version is 470.82.01``, ``Python 3.8``, ``pytorch version is 2.6.0+cu124``
_ITEM = re.compile(
    r"(?<![\w./\\-])(?P<name>python|pytorch|torch|tensorflow(?:-gpu)?|onnxruntime-gpu|cuda(?:\s{1,2}toolkit)?|cudnn"
    r"|(?:nvidia\s{1,2})?(?:gpu\s{1,2})?driver)"
    r"(?:\s{1,2}version)?(?:\s{1,2}is\s{1,2}|(?<=cuda)\s{0,2}=\s{0,2}|\s{0,2})v?"
    r"(?P<v>\d{1,3}(?:\.\d{1,5}){1,3})(?:[+-](?P<local>cu\d{2,3}|cpu))?(?![\w+]|\.\d)", re.I)
#: the clause says the version is the reporter's own
_MINE = re.compile(
    r"(?i)(?:^|\W)(?:i(?:'m|\s{1,2}am)?\s{1,2}(?:have|using|use|run|running|got|installed|on)|i've|i\s{1,2}have|my"
    r"|we(?:'re|\s{1,2}are)?\s{1,2}(?:have|use|using|running)|installed|currently|using|running)(?:\W|$)")
#: weaker: "on Ubuntu 20.04 with Python 3.8" says the reporter's Python, not a torch or a CUDA ("tensorflow 2.8.0 with
#: cuda 11.2" lists what goes together)
_MINE_PYTHON = re.compile(r"(?i)(?:^|\W)(?:with|on)(?:\W|$)")
#: "X version is V": certain without another subject
_IS = re.compile(r"(?i)\sversion\s{1,2}is\s")
#: "the version of X is V" / "my version of X is V" (pytorch/pytorch#45021: "the version of PyTorch is 1.1.0"), as
#: certain as "X version is V"; an adjective before "version" ("the latest version of", "the required version of") makes
#: it another version, so only these two openings count
_VERSION_OF = re.compile(r"(?i)(?:^|[\s,;:(])(?:the|my|our)\s{1,2}version\s{1,2}of\s{1,2}$")
#: the word right before the name makes it a target, not the reporter's: "the package for CUDA 12.4", "moved to torch 2.1"
_TARGET = re.compile(r"(?i)\b(?:for|to|of|against|than|into)\s{1,2}(?:the\s{1,2})?$")
#: the clause says the version is another one: asked for, advised, tried, past, compared, one of a list, a question, a
#: condition ("When I use torch 1.2, it can detect my gpu, however, torch 1.3 fails": pytorch#30071, facts29)
_NOT_MINE = re.compile(
    r"(?i)requir|\brequest|\basked\b|\bneed|support|\binstall(?!ed)|upgrad|downgrad|\bswitch|\btr(?:y|ied|ying)\b|instead|recommend"
    r"|\bplay(?:ed|ing)\s{1,2}(?:around|with)\b"
    r"|suggest|should|\bmust\b|[<>]=?|~=|\bthan\b|\bor\b|\bmin(?:imum)?\b|\bmax|\bbefore\b|\bused\s{1,2}to\b|previous"
    r"|earlier|\bhad\b|\bwas\b|\bwere\b|\bformer|\bold(?:er)?\b|\bnewer\b|\blatest\b|\bif\b|\bwhether\b|\bwant"
    # "When I use torch 1.2, it can detect my gpu" (a condition right before the name; "I always have a CPU version when
    # I launch the training" and "when starting the app the runtime reports PyTorch 2.9.1+cpu" state one)
    r"|\bwhen(?:ever)?\s{1,2}(?:i|we)\s{1,2}(?:use|install|run|choose|select|switch\s{1,2}to)\s{1,2}(?:the\s{1,2})?$"
    r"|\bexpect|compatib|\bworks?\b|\bworked\b|\bfrom\b|\bbuilt\b|\bcompiled\b|\bbuild\b|\bdefault\b|\bsame\b"
    r"|\bexample\b|\balso\b|\be\.g\.|\bsuch\s{1,2}as\b|\blike\b|\?")
#: the clause denies the version: "I'm not using torch 2.1.0", "no longer", "without CUDA 12.1", "I removed CUDA 12.1",
#: "I'm going to move off CUDA 12.1" (in the part of the clause after its last comma: "I can't run it, I'm using torch
#: 2.1.0" states it; after the name: "... is not installed")
_DENIED = re.compile(
    r"(?i)\bnot\b|n't\b|\bno\s{1,2}longer\b|\bwithout\b|\bnever\b|\bremov|\buninstall|\bdelet|\bpurg|\breinstall"
    r"|\bgoing\s{1,2}to\b|\bwill\b|\bplan|\bmov(?:e|ed|ing)\s{1,2}(?:off|away)")
#: the clause gives the version to someone or something else: "my friend has driver 450.80.02", "@bob said: I have
#: CUDA 11.8", "my other machine has CUDA 11.8" (anywhere before the name in the clause)
_SOMEONE = re.compile(
    r"(?i)\bfriend|\bcolleague|\bco-?worker|\bteam-?mate|\bboss\b|\bbrother|\bsister|\bpartner"
    r"|\b(?:he|she|they|his|her|their|someone|somebody|people)\b"
    r"|\bsaid\b|\bsays\b|\bwrote\b|\breported\b|\bquot|@\w|\bother\b|\banother\b|\bsecond\b")
_DENIED_AFTER = re.compile(r"(?i)^\s{0,3}(?:is|was|are|were)\s{1,2}(?:not|no\s{1,2}longer)\b|^\s{0,3}(?:isn't|wasn't|aren't)\b"
                           r"|^\s{0,3}(?:got\s{1,2})?(?:removed|uninstalled|deleted|purged)\b|\breinstall")
#: after the version: another version of a list ("torch 2.1 and 2.2", "2.1/2.2"), "or later", a range
_LIST_AFTER = re.compile(r"(?i)^\s{0,2}(?:,|/|&|\band\b|\bor\b|-|~|\bto\b)\s{0,2}v?\d|^\s{0,2}(?:or|and)\s{1,2}(?:later|newer|above|higher)"
                         r"|^\s{0,2}\+(?!\w)|^\s{0,2}(?:is|are)\s{1,2}(?:required|needed|recommended|supported)")
#: where one clause ends and the next begins (a sentence's end: ". " / "; " / " but ")
_CLAUSES = re.compile(r"(?<!\d)[.!;](?!\d)|\bbut\b|\bhowever\b|，|。|；", re.I)
#: a GPU right after its subject: "my GPU is a GTX 1080", "I am using NVIDIA GeForce RTX 3080 Ti Laptop GPU"
_GPU_SUBJECT = re.compile(
    r"(?i)(?:\bmy\s{1,2}(?:gpu|graphics\s{1,2}card|video\s{1,2}card|card)\s{1,2}is|\bi\s{0,2}(?:'m|\s{1,2}am)\s{1,2}using"
    r"|\bi\s{1,2}(?:have|use|got)|\bi've\s{1,2}got|\bgpu\s{1,2}is"
    r"|(?:^|\W)(?:using|running|run)\s{1,2}(?:[\w-]{1,20}\s{1,2}){0,3}?on)(?:\s{1,2}(?:a|an|the|my))?(?:\s{1,2}single)?\s{1,2}$")
_GPU_NAME = re.compile(
    r"(?i)^(?:nvidia\s{1,2})?(?:(?:geforce\s{1,2})?(?:rtx|gtx|gt|mx)\s{0,2}\d{3,4}(?:\s{0,2}(?:ti|super))?"
    r"|(?:geforce\s{1,2})?(?:gtx\s{1,2})?titan\s{1,2}(?:xp|x|v|rtx|black|z)"
    r"|quadro\s{1,2}(?:rtx\s{1,2})?[kmp]?\d{3,4}|rtx\s{1,2}a\d{4}|tesla\s{1,2}[vpkmt]\d{1,3}[a-z]?|[ahl]\d{2,3}s?"
    r"|geforce\s{1,2}\d{3}m?)(?:\s{1,2}(?:laptop|mobile|max-q)(?:\s{1,2}gpu)?)?(?:\s{1,2}gpu)?(?![\w-])")
_DRIVER = re.compile(r"^\d{3}\.\d{2,3}(?:\.\d{2,3})?$")
_BARE = re.compile(r"(?i)^[-*\s]{0,4}(?P<name>cuda|cudnn)\s{0,2}v?(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\s{0,2}$")
#: what a condition, a question or an advice makes uncertain across the whole clause, whatever comma comes between
#: ("if I install torch 2.1, the python version is 3.8"); past or tried words count only in the comma-part of the
#: version's own "X version is V" ("torch was installed with pip, python version is 3.12": pytorch#126020)
_COND = re.compile(r"(?i)\bif\b|\bwhether\b|\?|\bshould\b|\bmust\b|\bneed|requir|recommend|suggest|\bwant|\bexpect"
                   r"|\bexample\b|\be\.g\.|\bsuch\s{1,2}as\b")
#: a program's own report of the version right before the name ("the runtime reports PyTorch 2.9.1+cpu")
_REPORTS = re.compile(r"(?i)\b(?:reports|shows|prints)\s{1,2}$")
#: Markdown emphasis and code marks around a version ("**PyTorch `2.9.1+cpu`**"): not part of the sentence
_MARKS = re.compile(r"\*\*|`")


def _value(name: str, v: str) -> Optional[Tuple[str, str]]:
    """The fact field of a name's version, or None where the token is no version of it."""
    n = name.lower().split()[-1] if "driver" not in name.lower() else "driver"
    major = int(v.split(".")[0])
    if n == "python":
        return ("python_prose", v) if major in (2, 3) and "+" not in v else None
    if n in ("torch", "pytorch"):
        return ("torch.version", v) if major <= 2 else None
    if n in ("tensorflow", "tensorflow-gpu"):
        return ("tf.version", v) if major in (1, 2) and "+" not in v else None
    if n == "onnxruntime-gpu":  # ONNX Runtime's GPU package by its own name ("i am using ... onnxruntime-gpu 1.16.3")
        return ("ort.version", v) if major == 1 and "+" not in v else None
    if n in ("cuda", "toolkit"):
        return ("claim.cuda", v) if 7 <= major <= 13 and "+" not in v else None
    if n == "cudnn":
        return ("claim.cudnn", v) if 5 <= major <= 9 and "+" not in v else None
    return ("driver_prose", v) if _DRIVER.match(v) else None


#: the facts a sentence states that are also evidence lines for the engine's rules
_SEEN = {"driver_prose": "seen:driver-prose", "claim.cuda": "seen:cuda-claim", "claim.cudnn": "seen:cudnn-claim",
         "tf.version": "seen:tensorflow-prose"}


#: the clause says in the first person what is there now ("my tensorflow version is", "I have tensorflow 2.12", "I'm
#: using tensorflow-gpu 2.4.1"): what a TensorFlow version needs (a bare "using TensorFlow 2.4" is as often the release a
#: sentence is about as the reporter's; "I installed tensorflow 2.8.0 yesterday" tells an act, as tests/test_paste_
#: pastes20e.py keeps it)
_FIRST = re.compile(r"(?i)(?:^|\W)(?:my|our|i(?:'m|\s{1,2}am)\s{1,2}(?:using|running|on)|i\s{1,2}(?:have|use|run)"
                    r"|i've\s{1,2}got|we(?:'re|\s{1,2}are)?\s{1,2}(?:have|use|using|running))(?:\W|$)")
#: another version of the same thing right after, behind a slash: "tensorflow-gpu 2.10.1/tensorflow 2.11.0"
_SAME_AFTER = re.compile(r"(?i)^\s{0,2}/\s{0,2}(tensorflow|pytorch|torch|python|cudnn|cuda)")


def _root(name: str) -> str:
    n = name.lower()
    return "tensorflow" if n.startswith("tensorflow") else "torch" if "torch" in n else n.split()[0]


def _items(clause: str) -> List[Fact]:
    found: Dict[str, List[str]] = {}
    for m in _ITEM.finditer(clause):
        before, after = clause[:m.start()], clause[m.end():m.end() + 40]
        said_of = bool(_VERSION_OF.search(before)) and bool(re.search(r"(?i)\sis\s", m.group(0)))
        said_is = said_of or bool(_IS.search(m.group(0)))
        scope = before.rsplit(",", 1)[-1] if said_is else before
        if (_NOT_MINE.search(scope) or (said_is and _COND.search(before)) or _NOT_MINE.search(after[:24])
                or _LIST_AFTER.search(after) or (_TARGET.search(before) and not said_of)):
            continue
        if _DENIED.search(before.rsplit(",", 1)[-1]) or _SOMEONE.search(before) or _DENIED_AFTER.search(after):
            continue
        python = m.group("name").lower() == "python"
        if not (_MINE.search(before) or said_is or _REPORTS.search(before) or (python and _MINE_PYTHON.search(before))):
            continue
        same = _SAME_AFTER.match(after)
        if m.group("name").lower().startswith("tensorflow") and not (said_is or _FIRST.search(before)) \
                or (same is not None and _root(same.group(1)) == _root(m.group("name"))):
            continue  # TensorFlow only in the first person; "tensorflow-gpu 2.10.1/tensorflow 2.11.0": a list
        local = m.group("local")
        got = _value(m.group("name"), m.group("v") + (f"+{local.lower()}" if local else ""))
        if got:
            found.setdefault(got[0], []).append(got[1])
    # two versions of one thing in a clause ("torch 2.1.0 and torch 2.2.0"): neither is certain
    out = [Fact(k, vs[0], clause.strip()) for k, vs in found.items() if len(set(vs)) == 1]
    # the driver a sentence states, as evidence too: engine.prose judges only a driver the text's sentences state; the
    # CUDA / cuDNN a sentence says is the reporter's, for the engine's claim rules (engine.claims: still a claim)
    out += [Fact("ort.package", "onnxruntime-gpu", f.line) for f in out if f.field == "ort.version"]
    return out + [Fact(_SEEN[f.field], f.value, f.line) for f in out if f.field in _SEEN] \
        + [Fact("seen:tensorflow", f.line, f.line) for f in out if f.field == "tf.version"]


#: the reporter's own machine runs native Windows: "My system is Windows 11", "my OS is Windows 10", "I'm on Windows 10",
#: "I am using Windows 11" (tensorflow#60269): the platform of the Python that runs there, taken as a Windows install
#: path is (beside a report only), and the evidence ``os-prose`` the engine's Windows rule reads
_OS = re.compile(r"(?i)(?:^|\W)(?:my\s{1,2}(?:system|os|operating\s{1,2}system|computer|pc|machine|laptop|platform)"
                 r"\s{1,2}is|i(?:'m|\s{1,2}am)\s{1,2}(?:on|using|running)|i\s{1,2}(?:use|run))\s{1,2}(?:a\s{1,2})?"
                 r"(?P<os>windows\s{0,2}(?:1[01]|7|8(?:\.1)?)?)(?![\w.-])")
#: what makes the Windows not the one the Python runs on: WSL, a Linux inside it, a container or a virtual machine
_NOT_NATIVE = re.compile(r"(?i)wsl|linux|ubuntu|debian|docker|container|\bvm\b|virtual|dual[- ]boot|colab|server")


def _os(clause: str) -> List[Fact]:
    m = _OS.search(clause)
    if m is None or _NOT_NATIVE.search(clause) or _DENIED.search(clause) or _SOMEONE.search(clause[:m.start("os")]) \
            or _COND.search(clause):
        return []
    # as weak as a Windows install path (``platform_path``): the platform beside a report, never a report of its own
    return [Fact("platform_path", "win32", clause.strip()), Fact("seen:os-prose", m.group("os").strip(), clause.strip())]


def _gpu(clause: str) -> List[Fact]:
    """The GPU a clause names right after its subject; what makes it not the reporter's own (asked for, tried,
    denied, someone else's) is looked for in the comma-part that holds the subject and the name ("I have a RTX4060
    and CUDA 11.7.0 installed, tried to create a separate environment": the trying is another part's)."""
    low = clause.lower()
    if not any(h in low for h in ("gpu", "card", "using", "have", "got", "run")):
        return []
    for m in re.finditer(r"\s", clause):
        if not _GPU_SUBJECT.search(clause[max(0, m.end() - 40):m.end()]):
            continue
        g = _GPU_NAME.match(clause[m.end():])
        if g:
            start = clause.rfind(",", 0, max(0, m.end() - 40)) + 1
            end = clause.find(",", m.end() + g.end())
            part = clause[start:end if end >= 0 else len(clause)]
            if _NOT_MINE.search(part) or _DENIED.search(part) or _SOMEONE.search(clause[:m.end()]) \
                    or _SOMEONE.search(part):  # "I have a GTX 1080 in my other machine": after the name too
                return []
            name = re.sub(r"\s{2,}", " ", g.group(0).strip())
            return [Fact("gpu_prose_named", name, clause.strip())]
    return []


#: ``CUDA_VISIBLE_DEVICES`` set: ``export CUDA_VISIBLE_DEVICES=1``, ``CUDA_VISIBLE_DEVICES="" python ...``,
#: ``os.environ["CUDA_VISIBLE_DEVICES"] = "7"``, ``os.environ.setdefault("CUDA_VISIBLE_DEVICES", "1")``,
#: ``set CUDA_VISIBLE_DEVICES=1``, ``$env:CUDA_VISIBLE_DEVICES="1"``, ``%env CUDA_VISIBLE_DEVICES=1``
_CVD = re.compile(r"""CUDA_VISIBLE_DEVICES['"]?\s{0,3}\]?\s{0,3}[=,]\s{0,3}(?P<v>"[^"\n]{0,40}"|'[^'\n]{0,40}'"""
                  r"""|[^\s"';,)`]{0,40}(?:,[^\s"';,)`]{1,10}){0,7})""")
#: no GPU visible to the program: ``torch.cuda.is_available()`` said False on the line itself ("returning False",
#: "is_ available() returns false"): a state line, no signature. The framework's own lines (torch's "No CUDA GPUs are
#: available", the CUDA runtime's cudaErrorNoDevice / "no CUDA-capable device is detected", the driver API's
#: CUDA_ERROR_NO_DEVICE) are errors.toml's signatures (:data:`log_facts.NO_DEVICE_RULES`), read through explain's line
#: reader
_NO_GPU = re.compile(r"(?i)is_\s?available\(\)`?\s{0,3}(?:returns?|returning|returned|is|=|==|->|gives?|prints?"
                     r"|shows?|:)"
                     r"\s{0,3}`?false\b")
#: (drvold37) the same said in Chinese: "import paddle之后提示只能使用cpu" (after importing it says only the CPU can be used,
#: PaddleOCR#2289), "用不了GPU", "无法使用GPU", "检测不到显卡": the program does not reach the GPU. Not a question ("吗",
#: "？") and not a wish or a plan ("想", "要", "能不能")
_NO_GPU_ZH = re.compile(r"(?i)只能(?:使用|用|跑|调用)\s?cpu|(?:无法|不能|没法|没办法)(?:使用|调用|识别|检测到|读取到?)\s?(?:gpu|显卡|独显|cuda)"
                        r"|(?:用|调用|识别|检测)不(?:了|到)\s?(?:gpu|显卡|独显|cuda)")
_NO_GPU_ZH_NOT = re.compile(r"吗|？|\?|想|能不能|可不可以|是否")
#: the CUDA forward-compatibility package or its libcuda folder
_COMPAT = re.compile(r"(?i)(?<![\w-])cuda-compat(?:-\d{1,2}-\d{1,2})?(?![\w-])|/usr/local/cuda(?:-\d{1,2}\.\d{1,2})?/compat\b"
                     r"|forward[- ]compat(?:ibility)?\s{1,2}(?:package|libs?\b|librar)")


def visible_devices_hide(value: Optional[str]) -> bool:
    """Whether a ``CUDA_VISIBLE_DEVICES`` value lists no GPU 0: empty, ``-1`` / ``none``, or only indices >= 1 (a
    UUID or MIG id lists a GPU that may exist: not decided)."""
    if value is None:
        return False
    v = value.strip().strip("\"'").strip()
    if v in ("", "-1", "none", "NoDevFiles"):
        return True
    items = [x.strip() for x in v.split(",") if x.strip()]
    if not items or not all(re.match(r"^-?\d{1,3}$", x) for x in items):
        return False
    return all(int(x) != 0 for x in items)


def _no_gpu_zh(s: str) -> bool:
    """Whether a clause of ``s`` says in Chinese that the program does not reach the GPU (``_NO_GPU_ZH``) and that
    clause asks or wishes nothing (``_NO_GPU_ZH_NOT``): "import paddle之后提示只能使用cpu,有遇到这个问题的吗" states it in its
    first clause and asks in its second."""
    for m in _NO_GPU_ZH.finditer(s):
        begin = max(s.rfind(c, 0, m.start()) for c in ",，。;；!！") + 1
        ends = [i for i in (s.find(c, m.end()) for c in ",，。;；!！") if i >= 0]
        if not _NO_GPU_ZH_NOT.search(s[begin:min(ends) if ends else len(s)]):
            return True
    return False


def _evidence(s: str, low: str, reader: Optional[LineReader]) -> List[Fact]:
    out: List[Fact] = []
    if "cuda_visible_devices" in low:
        for m in _CVD.finditer(s):
            if visible_devices_hide(m.group("v")):
                out.append(Fact("seen:cvd-hides", f"{m.group('v')} | {s}", s))
                break
    if ("cuda" in low or "available" in low) and (_NO_GPU.search(s) or no_gpu_line(reader, s, NO_DEVICE_RULES)):
        out.append(Fact("seen:no-gpu-seen", s, s))
    if ("cpu" in low or "gpu" in low or "显卡" in s or "cuda" in low) and _no_gpu_zh(s):
        out.append(Fact("seen:no-gpu-seen", s, s))
    if "compat" in low and _COMPAT.search(s):
        out.append(Fact("seen:cuda-compat", s, s))
    return out


#: (tfgpu39) a TensorFlow release and the CUDA beside it in the sentence that says TensorFlow sees no GPU, as thread
#: titles write it: "TensorFlow 2.2.0 doesn't detect GPU with CUDA version 10.2" (tensorflow#41374), "Tensorflow 2.3.1
#: training does not use GPU but CPU with CUDA 11.2" (tensorflow#47669): the release is the reporter's, the CUDA their
#: claim (still a claim: engine.claims)
_NEG = r"(?:doesn[\x27’`]?t|does\s{1,2}not|do\s{1,2}not|don[\x27’`]?t|can[\x27’`]?t|cannot|won[\x27’`]?t|is\s{1,2}not|not|unable\s{1,2}to|fails?\s{1,2}to)"
_TF_NO_GPU_CUDA = re.compile(
    r"(?i)(?<![\w./-])(?:tensorflow(?:-gpu)?|tf)\s{0,2}v?(?P<tf>[12]\.\d{1,2}(?:\.\d{1,2})?)(?![\w.])[^.?!。]{0,30}?\b"
    + _NEG + r"\s{1,2}(?:\w{1,12}\s{1,2})?(?:detect|recogni[sz]e|see|find|use|list|identify)\w{0,3}\s{1,2}"
    r"(?:the\s{1,2}|my\s{1,2}|any\s{1,2})?gpus?\b[^.?!。]{0,30}?\b(?:with|on|using)\s{1,2}cuda\s{0,2}(?:version\s{1,2})?v?"
    r"(?P<cuda>\d{1,2}\.\d{1,2})(?![\d])")


def _tf_no_gpu_cuda(s: str) -> List[Fact]:
    m = _TF_NO_GPU_CUDA.search(s)
    if m is None or _COND.search(s[:m.start()]):
        return []
    tf, cuda = _value("tensorflow", m.group("tf")), _value("cuda", m.group("cuda"))
    if tf is None or cuda is None:
        return []
    return [Fact(tf[0], tf[1], s), Fact(cuda[0], cuda[1], s), Fact(_SEEN[tf[0]], tf[1], s),
            Fact(_SEEN[cuda[0]], cuda[1], s), Fact("seen:tensorflow", s, s), Fact("seen:no-gpu-seen", s, s)]


def line_facts(s: str, low: str, reader: Optional[LineReader] = None) -> List[Fact]:
    """The facts sentences of one line state (stripped, and lower-cased): see the module's docstring. ``reader``:
    explain's line reader (the framework's no-GPU lines, by the knowledge base's signatures)."""
    if len(s) > 400 or not any(h in low for h in _HINTS):
        return []
    seen = _evidence(s, low, reader)
    if "|" in s:
        return seen
    bare = _BARE.match(s)
    if bare:
        got = _value(bare.group("name"), bare.group("v"))
        return seen + ([Fact(got[0], got[1], s), Fact("prose", s, s)] if got else [])
    out: List[Fact] = []
    native = None if "windows" not in low else not _NOT_NATIVE.search(s)  # WSL, a container, a VM: in the whole line
    for clause in _CLAUSES.split(_MARKS.sub("", s) if "`" in s or "**" in s else s):
        if clause.strip():
            out += _items(clause) + _gpu(clause) + ([] if native is False else _os(clause))
    if not any(f.field in ("tf.version", "claim.cuda") for f in out):
        out += _tf_no_gpu_cuda(s)
    stated = any(f.field not in ("platform_path", "seen:os-prose") for f in out)  # the OS alone makes no report
    return seen + out + ([Fact("prose", s, s)] if stated else [])
