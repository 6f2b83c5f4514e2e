"""What prose, a title or a program's own sentence says about an old GPU (issue 20: GPUs older than every current
build, named only by their model or by a "minimum compute capability" line):

* a GPU **model** named in a sentence ("I have Nvidia K80, ollama works only in CPU", "GTX Titan 6GB is a GTX 700
  series", "Tesla K40m does not meet minimum required compute capability: 3.7", a title "pytorch for NVIDIA GeForce
  GT 740M with the old CUDA"): the model as written (``gpu_prose``, a list: every model the text names, so that a
  text naming two models is seen as naming two); not one a sentence says the reporter does not have, someone else
  has, or is one to buy ("I don't have an RTX 3090", "My friend has an RTX 3090", "Would an RTX 3090 help?",
  "someone with a 1080 should try it", "as in #333, where a Tesla V100 fails");
* a **compute-capability floor** the text states: TensorFlow's "The minimum required Cuda capability is 3.5", torch's
  "The minimum cuda capability supported by this library is 3.7", DeepFaceLab's "does not meet minimum required
  compute capability: 3.7", "requires minimum CUDA compute capability 6.0", "requires CC = 3.5", "minimum requirement
  cc3.5", "3.0 is the minimum requirement", "supports CC 5.0 and above", "We support 5.0 and up", "kernel requires
  5.0 capability", and torch >= 2.7's two-line "Minimum and Maximum cuda capability supported by this version of
  PyTorch is" / "(7.0) - (12.0)" (``cc_floor``, and ``cc_ceiling`` from that last form);
* a GeForce **series** ("a 20 series graphics card", "RTX 30xx", "50系显卡", "RTX cards": :func:`gpu_series`; read by
  :mod:`envcheck.paste.readers.prose_cause`, whose models the engine takes from the matrix's GPU table);
* a **failure** sentence ("works only in CPU", "falling back to CPU", "not supported", "too old", "no kernel image",
  "not compatible", a build that "does not contain sm_61"): evidence that the GPU was not used (``seen:old-gpu-fails``);
* a **torch release** a sentence names without its build's variant tag ("pytorch 2.6", "the pre-compiled PyTorch 2.7.1
  binary", "pytorch (2.1)"; not ``2.1.0+cu121``, whose CUDA the build readers read, nor ``torch==2.1.0``, a pin):
  ``torch_release_prose`` (a list: a text naming two releases decides nothing), for the engine's check of every CUDA
  build of that release against the GPU (arch29);
* a GeForce **series** a line names beside a graphics word ("RTX 10XX ... cards", "GTX 10-series"): ``gpu_series_prose``
  (a list), whose models and compute capability the engine takes from the matrix's GPU table.

This reader only reads: whether the named GPU is below the floor, or below every build of a release the text
states, is decided by :func:`envcheck.engine.oldgpu.old_gpu_finding`, from the compute capability of the model in
compat_matrix/gpus.toml (a model not there, or sold under one name with two compute capabilities, such as the
GT 730, is unknown and decides nothing). It asks about lines no other reader took (it is last in the registry) and
states no ``format``: a text with nothing but prose is still not a report.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Set

from envcheck.paste.readers.base import MAXLINE, Fact, Line, Partial, partial, remember, remembered, text_of
from envcheck.paste.readers.log_facts import LineReader

__all__ = ["NAME", "detect", "read", "bind", "gpu_models", "modern_gpu_models", "gpu_series"]

NAME = "prose gpu"

#: lower-case literals one of which a line must hold before any pattern of this module is tried on it
_HINTS = ("gt", "tesla", "quadro", "geforce", "mx", "grid", "k10", "k20", "k40", "k80", "capabilit", "cpu",
          "not supported", "too old", "kernel image", "not compatible", "minimum", "cc", "rtx", "ti", "gpu",
          # a bare model number ("my 4090") or a data-center name ("NVIDIA A100", "on A100 systems")
          "050", "060", "070", "080", "090", "nvidia", "system", "server", "node", "instance", "machine",
          # a torch release named without its variant tag (arch29)
          "torch")
#: a GPU model in a sentence (each alternative bounded: linear on any line)
_GPU = re.compile(
    r"(?<![\w-])(?:nvidia\s{1,3})?(?P<name>"
    r"(?:geforce\s{1,3})?gtx[\s-]{0,3}titan(?:\s{1,3}(?:black|z))?"
    r"|(?:geforce\s{1,3})?gtx[\s-]{0,3}\d{3,4}(?:\s{0,3}ti)?m?"
    r"|(?:geforce\s{1,3})?gt\s{0,3}\d{3}m?"
    r"|geforce\s{1,3}\d{3}mx?"
    r"|(?:geforce\s{1,3})?mx\s{0,3}\d{3}"
    r"|tesla\s{1,3}[kmpv]\d{1,3}[a-z]{0,2}"
    r"|quadro\s{1,3}(?:fx\s{1,3})?[kmp]?\d{3,4}m?"
    r"|grid\s{1,3}k\d{3}"
    r"|k(?:10|20|40|80)[cmx]?|[pv]100|p40|m(?:10|40|60)"
    r")(?!\w|\.\d|\s{1,3}series)", re.I)
#: a GeForce / RTX model of the Turing and later generations (and GTX 10xx / 16xx) named in a sentence: "RTX 2080Ti",
#: "RTX3060(12G)", "GeForce RTX 4060 Laptop GPU", "RTX A6000"; a bare model number only with its suffix or a GPU word after
#: it ("The 5070Ti cannot", "several 3080 GPUs"): a bare "3060" alone is no GPU name
_MODERN = re.compile(
    r"(?i)(?<![a-z0-9_-])(?:nvidia\s{1,2})?(?:geforce\s{1,2})?(?P<kind>rtx|gtx)[\s-]{0,2}(?P<n>[1-5]\d[5-9]0|a\d{4})"
    r"(?:\s{0,2}(?P<s>ti|super))?(?!\d|\.\d|[a-z])"
    r"|(?<![a-z0-9_.$/-])(?P<bn>[1-5]0[5-9]0)(?:\s{0,2}(?P<bs>ti|super)(?![a-z])|(?=\s(?:gpus?|graphics|cards?)\b))"
    # a bare model number said as the reporter's (or the addressee's) card: "I have a 3060", "my 4090", "on a 3090",
    # "your 4090" - not a resolution or a screen ("a 1080 monitor", "1920 x 1080", "1080p")
    r"|(?<![a-z0-9_.$/-])(?:my|your|our|a|an|the|on|one|two|with)\s{1,2}(?P<pn>[1-5]0[5-9]0)(?:\s{0,2}(?P<ps>ti|super)(?![a-z]))?"
    r"(?![\w.+]|\s{0,2}x\s{0,2}\d|\s{1,2}(?:screen|monitor|display|resolution|pixels?|video)\b)"
    # a data-center GPU named by NVIDIA's letter-and-number scheme, said as a GPU: "NVIDIA A100", "on A100 systems",
    # "8 H100 GPUs" (which ones exist, and their compute capability, is the matrix's GPU table's: an unknown name decides
    # nothing)
    # (attack42) a sentence's full stop after the name is no version's dot: "I am on an NVIDIA A100."
    r"|(?<![\w.-])(?:nvidia\s{1,2})(?P<dn>[abhlt]\d{1,3}[a-z]?)(?!\w|\.\w|-\d)"
    r"|(?<![\w.-])(?P<dc>[abhl]\d{2,3}[a-z]?)(?=\s{1,2}(?:gpus?|systems?|servers?|cards?|nodes?|machines?|instances?)\b)")
#: a GeForce generation named as a series: "a 20 series graphics card", "RTX 30xx", "the 3000 series", "RTX 30-series",
#: "50系显卡", "40系列"; "RTX cards" / "RTX GPUs" (every RTX generation). A bare "20 series" only with a graphics word in the
#: line ("Windows 10 series" is none); which models, and their compute capabilities, belong to the series is the matrix's
_SERIES = re.compile(
    r"(?i)(?<![a-z0-9_.])(?P<pre>(?:geforce\s{1,2})?(?:rtx|gtx)[\s-]{0,2})?(?P<g>[1-5]0|16)(?:00)?(?:[\s-]{0,2}(?:series|xx)(?![a-z])"
    r"|\s{0,2}系)"
    r"|(?<![\w.-])(?P<rtx>rtx)\s{1,2}(?:cards?|gpus?|graphics|series)\b")
_GRAPHICS = re.compile(r"(?i)graphics|\bcards?\b|\bgpus?\b|显卡|\bnvidia\b|geforce|\brtx\b|\bgtx\b")
_BARE_K = re.compile(r"^(?:k(?:10|20|40|80)[cmx]?|[pv]100|p40|m(?:10|40|60))$", re.I)
_CC = r"(?P<cc>\d{1,2}\.\d)(?!\.?\d)"
#: the floor a sentence states in words no log line of the knowledge base has (named group ``cc``); the frameworks'
#: own "minimum ... capability is 3.5" (TensorFlow, torch, DeepFaceLab) is errors.toml's ``[[fact]]`` ``cc_floor``, read
#: through explain's line reader (:func:`bind`) and tried first
_FLOORS = tuple(re.compile(p, re.I) for p in (
    r"requires?\s(?:a\s)?(?:minimum\s)?(?:cuda\s)?(?:compute\scapability|cc)\s{0,3}(?:>=|=|of|≥)?\s{0,3}" + _CC,
    r"minimum\srequirement\s(?:is\s)?(?:cc|compute\scapability)\s?=?\s?" + _CC,
    r"\b" + _CC + r"\sis\sthe\sminimum\srequirement",
    r"supports?\s(?:cc|compute\scapability|cuda\scapability)?\s?" + _CC + r"\s(?:and|or)\s(?:above|up|higher|newer)",
    r"(?:cc|compute\scapability)(?:\sversion)?\s{0,3}(?:>=|≥)\s{0,3}" + _CC,
    r"at\sleast\s(?:cuda\s)?(?:compute\s)?capability\s" + _CC,
    r"(?:cc|compute\scapability)\s" + _CC + r"\s(?:or|and)\s(?:higher|above|newer|later)",
    r"kernel\srequires\s" + _CC + r"\scapability",
))
_MINMAX_HEAD = "minimum and maximum cuda capability supported"
_MINMAX = re.compile(r"^\s*\((?P<lo>\d{1,2}\.\d)\)\s{0,3}-\s{0,3}\((?P<hi>\d{1,2}\.\d)\)\s*$")
_FAILS = re.compile(
    r"only\s(?:in|on|with|uses?)\s(?:the\s)?cpu|(?:cpu[\s-]only|cpu\smode)\b|fall(?:s|ing)?\sback\sto\s(?:the\s)?cpu"
    r"|not\ssupported|no\slonger\ssupport|too\sold|no\skernel\simage|not\scompatible|does\snot\smeet\sminimum"
    r"|ignoring\s(?:visible\s)?gpu\sdevice|can'?t\sfind\smy\sgpu|cannot\sdetect"
    # a build said to lack the GPU's architecture: "does not contain sm_61" (Wan2GP#1933), "doesn't include sm_120"
    r"|(?:does\s?n[o']t|doesn't)\s(?:contain|include|ship)\s(?:any\s)?(?:sm_\d{2,3}|kernels?\sfor)", re.I)
#: a torch release a sentence names without its variant tag ("pytorch 2.6", "PyTorch 2.7.1 binary", "pytorch (2.1)"):
#: not a pin (``torch==2.1.0``), a path or package file (``torch-2.1.0-cp311``), nor a build with its tag (``2.1.0+cu121``)
_RELEASE = re.compile(
    r"(?i)(?<![\w./\\=-])(?:py)?torch\s{0,2}(?:\(\s{0,2})?v?(?P<v>[12]\.\d{1,2}(?:\.\d{1,2})?)(?:\s{0,2}\))?"
    r"(?![\w+]|\.\d|-\w)")


def _hinted(low: str) -> bool:
    return any(h in low for h in _HINTS)


def _clean(raw: str) -> str:
    s = re.sub(r"[\s-]+", " ", raw.strip())
    s = re.sub(r"(?i)^(geforce )?(gtx|gt|mx)(?=\d)", lambda m: (m.group(1) or "") + m.group(2) + " ", s)
    s = re.sub(r"(?i)(\d)(ti)$", r"\1 \2", s)
    return "Tesla " + s.upper() if _BARE_K.match(s) else s


@remembered  # (asked of one line by several readers: the prose readers, the causes' sentences)
def gpu_models(line: str) -> List[str]:
    """The GPU models a line names, as written (spaces and hyphens made single spaces; a bare ``K80``, ``P100`` or
    ``M60`` is a Tesla: ``Tesla K80``)."""
    return [_clean(m.group("name")) for m in _GPU.finditer(line[:MAXLINE])]


@remembered
def modern_gpu_models(line: str) -> List[str]:
    """The GeForce GTX / RTX (and RTX A-series) models a line names, normalised ("RTX 2080 Ti", "RTX 3060", "RTX A6000");
    a bare model number with its suffix gets its family ("5070Ti" -> "RTX 5070 Ti", "1660 super" -> "GTX 1660 Super")."""
    out: List[str] = []
    for m in _MODERN.finditer(line[:MAXLINE]):
        dc = m.group("dn") or m.group("dc")
        if dc:
            if dc.upper() not in out:
                out.append(dc.upper())
            continue
        if m.group("bn") or m.group("pn"):
            n, suffix = m.group("bn") or m.group("pn"), m.group("bs") or m.group("ps")
            kind = "GTX" if n.startswith("1") else "RTX"
        else:
            n, suffix, kind = m.group("n").upper(), m.group("s"), m.group("kind").upper()
            if kind == "GTX" and n[0] in "2345":
                kind = "RTX"  # "gtx 3060": no GTX has a 20xx-50xx number, the RTX of that number is meant
        name = f"{kind} {n}" + (f" {suffix.capitalize() if suffix.lower() == 'super' else 'Ti'}" if suffix else "")
        if name not in out:
            out.append(name)
    return out


@remembered
def gpu_series(line: str) -> List[str]:
    """The GeForce generations a line names as a series: ``RTX 20`` ... ``RTX 50``, ``GTX 10``, ``GTX 16``, or ``RTX``
    (every RTX generation: "RTX cards")."""
    s = line[:MAXLINE]
    out: List[str] = []
    for m in _SERIES.finditer(s):
        if m.group("rtx"):
            name = "RTX"
        else:
            if not m.group("pre") and not _GRAPHICS.search(s):
                continue
            g = m.group("g")
            name = ("GTX " if g in ("10", "16") else "RTX ") + g
        if name not in out:
            out.append(name)
    return out


def _floor(line: str, reader: Optional[LineReader] = None) -> Optional[str]:
    if reader is not None and "minimum" in line.lower():
        got = next((c["value"] for c in reader(line[:MAXLINE]) or [] if c.get("rule") == "cc_floor" and c.get("value")),
                   None)
        if got:
            return got
    for p in _FLOORS:
        m = p.search(line[:MAXLINE])
        if m:
            return m.group("cc")
    return None


#: a sentence that names a GPU the reporter does not have: not had ("I don't have an RTX 3090"), someone else's ("My
#: friend has an RTX 3090"), one to buy ("Would an RTX 3090 help?", "Should I buy an RTX 4090?")
_NOT_THEIRS = re.compile(
    r"(?i)(?<![\w'])(?:do(?:n'?t|\snot)|does(?:n'?t|\snot)|did(?:n'?t|\snot))\s(?:have|own)(?![\w'])"
    r"|(?<![\w'])(?:friend|colleague|co-?worker|team-?mate|brother|sister)(?:s|'s|s')?(?![\w'])"
    r"|(?<![\w'])(?:should\si\s(?:buy|get)|would\san?|thinking\sof\s(?:buying|getting)|plan(?:ning)?\sto\s(?:buy|get)"
    r"|want\sto\s(?:buy|get))(?![\w'])"
    # someone else's, or another thread's (arch29: "someone with a 1080 or 1060 should try it", "the same root cause
    # as #333, where a Tesla V100 fails the same way": WhisperJAV#326)
    r"|(?<![\w'])(?:someone|somebody|anyone|anybody)(?![\w'])|(?<![\w&])#\d{2,6}(?!\w)")
_SENTENCE = re.compile(r"[^.!?。！？]*(?:[.!?。！？]+|$)")


def _theirs(s: str, names: List[str]) -> List[str]:
    """``names`` less the models only a sentence of :data:`_NOT_THEIRS` names."""
    if not names or not _NOT_THEIRS.search(s):
        return names
    kept: Set[str] = set()
    gone: Set[str] = set()
    for m in _SENTENCE.finditer(s[:MAXLINE]):
        part = m.group(0)
        if part.strip():
            (gone if _NOT_THEIRS.search(part) else kept).update(gpu_models(part) + modern_gpu_models(part))
    return [n for n in names if n not in gone or n in kept]


def detect(c: Line, reader: Optional[LineReader] = None) -> int:
    s = c.s
    if not _hinted(c.low):
        return 0
    if _MINMAX_HEAD in c.low and c.i + 1 < len(c.lines) and _MINMAX.match(text_of(c.lines[c.i + 1])):
        return 2
    return 1 if (gpu_models(s) or modern_gpu_models(s) or _floor(s, reader) or _FAILS.search(s[:MAXLINE])
                 or _releases(s) or _series(s)) else 0


def _releases(s: str) -> List[str]:
    """The torch releases a line names without a variant tag (``_RELEASE``)."""
    return [m.group("v") for m in _RELEASE.finditer(s[:MAXLINE])] if "torch" in s.lower() else []


def _series(s: str) -> List[str]:
    """The GeForce series a line names, as ``GTX 10 series`` (:func:`gpu_series`; "RTX cards" - every RTX generation -
    names no one compute capability and is left out)."""
    return [f"{x} series" for x in gpu_series(s) if x != "RTX"]


def read(lines: Sequence[str], reader: Optional[LineReader] = None) -> Partial:
    out: List[Fact] = []
    s = text_of(lines[0]) if lines else ""
    if len(lines) > 1:
        m = _MINMAX.match(text_of(lines[1]))
        if m:
            both = f"{s.strip()} {text_of(lines[1]).strip()}"
            out += [Fact("cc_floor", m.group("lo"), both), Fact("cc_ceiling", m.group("hi"), both),
                    Fact("seen:cc-floor", both, both)]
    for name in _theirs(s, gpu_models(s) + [n for n in modern_gpu_models(s) if n not in gpu_models(s)]):
        out += [Fact("gpu_prose", name, s), Fact("seen:gpu-prose", s, s)]
    floor = _floor(s, reader)
    if floor:
        out += [Fact("cc_floor", floor, s), Fact("seen:cc-floor", s, s)]
    if _FAILS.search(s[:MAXLINE]):
        out.append(Fact("seen:old-gpu-fails", s, s))
    out += [Fact("torch_release_prose", v, s) for v in _releases(s)]
    out += [Fact("gpu_series_prose", x, s) for x in ([] if _NOT_THEIRS.search(s) else _series(s))]
    return partial(NAME, out)


class _Bound:
    """This reader, reading the frameworks' own floor lines with explain's line reader (errors.toml's ``cc_floor``)."""

    NAME = NAME

    def __init__(self, reader: LineReader) -> None:
        self._reader = reader
        #: a line's text -> detect's answer, where the line alone decides it (no "minimum and maximum" head, whose
        #: answer depends on the next line): many readers' lines are hinted (NVIDIA, CUDA...) and name no GPU
        self._said: Dict[str, int] = {}

    def detect(self, c: Line) -> int:
        if _MINMAX_HEAD in c.low:
            return detect(c, self._reader)
        got = self._said.get(c.s)
        if got is None:
            got = remember(self._said, c.s, detect(c, self._reader))
        return got

    def read(self, lines: Sequence[str]) -> Partial:
        return read(lines, self._reader)


def bind(reader: LineReader) -> _Bound:
    """This reader, reading with ``reader`` (:func:`envcheck.explain.logfacts.line_reader`); unbound, a floor in the
    frameworks' own words ("The minimum required Cuda capability is 3.5") is not read."""
    return _Bound(reader)
