"""Ollama on an AMD GPU left unused (amd42): what a thread about Ollama says of the GPU, the Ollama release, the
platform and the date, for the rule that checks the GPU's gfx target against the targets Ollama's own ROCm build is
compiled for (compat_matrix/rocm.toml ``[[ollama_rocm]]``; :mod:`envcheck.engine.ollama_amd` decides).

Real threads say it in their own words, not in Ollama's log: "it still runs 100% on cpu" (ollama/ollama#7861, a 780M
with Ollama 0.4.7 on Windows 11), "Windows Ollama 0.22.0 uses CPU only on ... Radeon 890M" (#15878), "the Radeon RX
6750 XT isn't supported by Ollama" (#6003), "ROCm 7.0 with gfx1103 not detected" (#12698), "I didn't see gfx803 in
the list" (ByronLeeeee/Ollama-For-AMD-Installer#6). Evidence only, whole text (as :mod:`build_kill`), each line looked
at once with bounded patterns: linear on any text. Nothing is said where the text never names Ollama or never says
the GPU goes unused (``seen:ollama-gpu-unused``, the line). Beside it:

* ``seen:ollama-version``: ``0.4.7 | line``, the Ollama release the text states ("ollama 0.4.7", "ollama version is
  0.5.7", the server log's "(version 0.3.4-0-g26bd110)", the bug form's ``### Ollama version`` answer); two different
  releases stated: the first;
* ``seen:ollama-os``: ``windows`` / ``linux`` | line, from the bug form's ``### OS`` answer, else the words of one
  platform only (Windows, win11, a ``C:\\`` path / Ubuntu, Arch, journalctl, /opt/rocm, docker ...);
* ``seen:ollama-gfx``: the gfx targets the text names for a GPU (``gpu_type=gfx1031``, "gfx1103 not detected"), not
  the lists of supported targets (a line naming three or more is a list; only its ``gpu_type=`` target counts); those
  of the title and the reporter (the thread's first author, a text without author lines) where they name any, else
  those other authors name (a maintainer's example target is not the reporter's GPU);
* ``seen:ollama-amd-model``: AMD models named ("780m", "RX 6600 XT", "Radeon 890M"), resolved to a gfx target only by
  the matrix (exact models, ``Matrix.amd_gfx_of_name``);
* ``seen:ollama-nodes-missing`` (attack54): a line saying /dev/kfd or /dev/dri does not exist (the GPU is not visible
  to Ollama at all, whatever its build lists);
* ``seen:ollama-override-taken`` (attack54): Ollama's Linux discovery line "skipping rocm gfx compatibility check"
  (HSA_OVERRIDE_GFX_VERSION taken: the build's list was not consulted);
* ``seen:ollama-fork`` (attack54): the thread's header names the tracker of a community build of Ollama
  (likelovewant/ollama-for-amd, its installer): that build's targets are not Ollama's own;
* ``seen:text-date``: the date of the thread's first author line (``author · description · 2025-10-19``): a release
  the text does not state is at most the newest one of that date.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence

from envcheck.paste.readers.base import MAXLINE, Fact, Partial, partial

__all__ = ["NAME", "ollama_facts"]

NAME = "ollama amd gpu"

_OLLAMA = re.compile(r"(?i)ollama")
#: the GPU goes unused, said in a sentence or a title
_UNUSED = re.compile(
    r"(?i)100\s{0,2}%\s{0,2}(?:on\s{1,2}(?:the\s{1,2})?)?cpu(?![a-z])"
    r"|(?:only|just)\s{1,2}(?:uses?|using|utili[sz]es?|runs?\s{1,2}on)\s{1,2}(?:the\s{1,2}|my\s{1,2})?cpu(?![a-z])"
    r"|(?<![a-z])(?:uses?|using|utili[sz]es)\s{1,2}(?:only\s{1,2})?(?:the\s{1,2}|my\s{1,2})?cpu(?![a-z])"
    r"|(?<![a-z])cpu\s{1,2}(?:only|is\s{1,2}prioriti[sz]ed)(?![a-z])"
    r"|(?<![a-z])runs?\s{1,2}(?:\w{1,12}\s{1,2})?on\s{1,2}(?:the\s{1,2})?cpu(?![a-z])"
    r"|fall(?:s|ing)?\s{0,2}back\s{1,2}to\s{1,2}(?:the\s{1,2})?cpu"
    r"|(?:(?<![a-z])not|n['’]t)\s{1,2}(?:be\s{1,2}|being\s{1,2}|seem\s{1,2}to\s{1,2}be\s{1,2})?(?:detected|used|utili[sz](?:ed|ing)"
    r"|recogni[sz]ed|picking\s{1,2}up|found|supported|accepted)(?![a-z])"
    r"|(?:doesn['’]?t|does\s{1,2}not|don['’]?t|didn['’]?t|can['’]?t|cannot|could\s{1,2}not|couldn['’]?t|unable\s{1,2}to)"
    r"\s{1,2}(?:\w{1,10}\s{1,2})?(?:use|detect|find|recogni[sz]e|utili[sz]e|see|leverage)(?![a-z])"
    r"|gpu\s{1,2}no\s{1,2}use|no\s{1,2}compatible\s{1,2}(?:amdgpu|gpu)|trouble\s{1,2}using|disabled\s{1,2}on\s{1,2}purpose"
    r"|not\s{1,2}in\s{1,2}the\s{1,2}list")
#: a title asking for the GPU's support ("# Support AMD Firepro w7100 - gfx802 / gfx805", "# Add support for gfx1103")
_TITLE_ASK = re.compile(r"(?i)^#\s{1,3}(?:\[[^\]]{1,30}\]:?\s{0,2})?(?:please\s{1,2})?(?:add\s{1,2})?support(?:\s{1,2}for)?\s")
#: the release the text states
_VERSION = re.compile(
    r"(?i)\(version\s{1,2}(\d{1,2}\.\d{1,3}\.\d{1,3})(?![\d.])"
    r"|(?<![\w/-])ollama(?:\.exe)?(?:\s{1,2}version)?(?:\s{1,2}is)?\s{0,2}[:：]?\s{1,2}v?(\d{1,2}\.\d{1,3}\.\d{1,3})(?![\d.])")
_FORM_VERSION = re.compile(r"(?i)^#{3}\s{1,3}ollama\s{1,2}version\s*$")
_FORM_OS = re.compile(r"(?i)^#{3}\s{1,3}os\s*$")
_ANSWER_VERSION = re.compile(r"^v?(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)(?![\d])")
_WINDOWS = re.compile(r"(?i)(?<![a-z])(?:windows|win\s{0,2}1[01])(?![a-z])|[a-z]:\\\\?(?:users|program)")
_LINUX = re.compile(r"(?i)(?<![a-z])(?:linux|ubuntu|debian|fedora|arch(?:linux)?|nixos|cachyos|pop\s{0,2}os|mint|opensuse"
                    r"|journalctl|systemctl|/opt/rocm|/usr/(?:local/)?(?:bin|lib|share)/ollama|docker)(?![a-z])")
_AUTHOR = re.compile(r"^(?P<who>[\w.\[\]-]{1,60}) · (?:description|comment|review[\w ]{0,20}) · (?P<date>\d{4}-\d\d-\d\d)")
_TURN = re.compile(r"^\[turn \d{1,4} by (?P<who>[\w.\[\]-]{1,60}), continued\]$")
#: an AMD gfx target as written (gfx803, gfx90c, gfx1103; "gfxgfx1035" as typed holds gfx1035)
_GFX = re.compile(r"(?i)gfx(1\d{2}[0-9a-f]|[6-9]\d[0-9a-f])(?![0-9a-f])")
#: the GPU a log line of a list names ("gpu_type=gfx1031", "amdgpu [0] gfx1103 is not supported by")
_GFX_OWN = re.compile(r"(?i)gpu_type=gfx(1\d{2}[0-9a-f]|[6-9]\d[0-9a-f])|\]\s{1,2}gfx(1\d{2}[0-9a-f]|[6-9]\d[0-9a-f])\s{1,2}is\s")
#: an AMD model ("780m", "RX 6600 XT", "Radeon 890M", "RX6800XT", "Radeon 6600 XT", "9070XT", "Ryzen AI 9 HX 375")
_MODEL = re.compile(
    r"(?i)(?<![\w-])(?:(?:radeon(?:\(tm\))?\s{1,2})?rx\s{0,2}\d{3,4}(?:\s{0,2}(?:xtx|xt|gre|m|s)(?![a-z]))?"
    r"|(?:radeon(?:\(tm\))?\s{1,2})?[5-9]\d0m(?![\w-])|radeon\s{1,2}\d{4}(?:\s{0,2}(?:xtx|xt|gre)(?![a-z]))?"
    r"|\d{4}\s{0,2}(?:xtx|xt)(?![a-z])|ryzen\s{1,2}ai\s{1,2}(?:max\+?|9)\s{1,2}(?:hx\s{1,2})?\d{3})(?![\w-])")
#: (attack54) the GPU's device nodes said absent: "/dev/dri does not exist on host", "ls -l /dev/dri fails: No such file
#: or directory" (ollama/ollama#17104), "ERROR:  /dev/kfd no such file or directory" (ROCm/legacy-rocm-build#4062)
_NODES_MISSING = re.compile(
    r"(?i)/dev/(?:kfd|dri)(?![\w/])[^.;]{0,40}?(?:does\s{1,2}not\s{1,2}exist|doesn['’]?t\s{1,2}exist|is\s{1,2}missing"
    r"|no\s{1,2}such\s{1,2}file|not\s{1,2}found)"
    r"|(?:no|missing|without(?:\s{1,2}an?)?)\s{1,2}[`'\"]?/dev/(?:kfd|dri)(?![\w/])(?!\s{1,2}(?:permission|access))")
#: (attack54) Ollama's Linux discovery taking HSA_OVERRIDE_GFX_VERSION: "skipping rocm gfx compatibility check"
#: (amd_linux.go; ollama/ollama#8473): the build's list of targets was not consulted
_OVERRIDE_TAKEN = re.compile(r"(?i)skipping\s{1,2}rocm\s{1,2}gfx\s{1,2}compatibility\s{1,2}check")
#: (attack54) the thread is on the tracker of a community build of Ollama compiled for more gfx targets than Ollama's own
#: (likelovewant/ollama-for-amd, and the installer of its builds, ByronLeeeee/Ollama-For-AMD-Installer): the search
#: index's header line "likelovewant/ollama-for-amd · issue #20 · closed · Go" (a 780M left unused by the fork's v0.3.8,
#: its maintainer: a driver's amdhip64_6.dll bug)
_FORK = re.compile(r"(?i)^(?:likelovewant/ollama-for-amd|ByronLeeeee/Ollama-For-AMD-Installer)\s{1,2}·\s")
#: at most this many targets / models kept
_KEEP = 6


def _answer(lines: Sequence[str], i: int) -> str:
    """The first non-blank line within two after the heading on line ``i`` (an issue form's answer)."""
    for k in (i + 1, i + 2, i + 3):
        if k < len(lines) and lines[k].strip():
            return lines[k][:MAXLINE].strip()
    return ""


def _gfx_of(s: str) -> List[str]:
    got = ["gfx" + g.lower() for g in _GFX.findall(s)]
    if len(set(got)) <= 2:
        return got
    return ["gfx" + (a or b).lower() for a, b in _GFX_OWN.findall(s)]  # a list of targets: only the GPU it names


class _Seen:
    """What the lines show, gathered in one pass."""

    def __init__(self) -> None:
        self.ollama = False
        self.got: Dict[str, str] = {}
        #: the GPUs named by the title, the reporter (the thread's first author) or a text without author lines [0], and
        #: by other authors [1] (a maintainer's example: "search `gfx1102`, add your gpu", ollama/ollama#3781)
        self.gfx: List[List[str]] = [[], []]
        self.models: List[List[str]] = [[], []]
        self.os: Dict[str, str] = {}
        self.reporter: Optional[str] = None
        self.other = 0

    def first(self, key: str, value: str) -> None:
        self.got.setdefault(key, value)

    def line(self, lines: Sequence[str], i: int) -> None:
        s = lines[i][:MAXLINE].strip()
        if not s:
            return
        self.ollama = self.ollama or bool(_OLLAMA.search(s))
        m = _AUTHOR.match(s) or _TURN.match(s)
        if m:
            if m.groupdict().get("date"):
                self.first("text-date", m.group("date"))
            self.reporter = self.reporter or m.group("who")
            self.other = int(m.group("who") != self.reporter)
            return
        if _UNUSED.search(s) or _TITLE_ASK.search(s):
            self.first("ollama-gpu-unused", s)
        v = _VERSION.search(s)
        if v:
            self.first("ollama-version", f"{v.group(1) or v.group(2)} | {s}")
        elif _FORM_VERSION.match(s):
            a = _ANSWER_VERSION.match(_answer(lines, i))
            if a:
                self.first("ollama-version", f"{a.group(1)} | {s}: {a.group(0)}")
        if i < 3 and _FORK.match(s):
            self.first("ollama-fork", s)
        if "/dev/" in s and _NODES_MISSING.search(s):
            self.first("ollama-nodes-missing", s)
        if "amd_windows" not in s and _OVERRIDE_TAKEN.search(s):
            self.first("ollama-override-taken", s)
        if _FORM_OS.match(s):
            said = _answer(lines, i).lower()
            if said in ("windows", "linux"):
                self.os.setdefault("form", f"{said} | {s}: {said}")
        for word, pat in (("windows", _WINDOWS), ("linux", _LINUX)):
            if pat.search(s):
                self.os.setdefault(word, f"{word} | {s}")
        gfx, models = self.gfx[self.other], self.models[self.other]
        for g in _gfx_of(s):
            if g not in gfx and len(gfx) < _KEEP:
                gfx.append(g)
        for mm in _MODEL.finditer(s):
            name = re.sub(r"\s{2,}", " ", mm.group(0).strip())
            if name.lower() not in (x.lower() for x in models) and len(models) < _KEEP:
                models.append(name)

    def platform(self) -> Optional[str]:
        if "form" in self.os:
            return self.os["form"]
        words = [w for w in ("windows", "linux") if w in self.os]
        return self.os[words[0]] if len(words) == 1 else None


def ollama_facts(lines: Sequence[str]) -> Partial:
    """The evidence of a text about Ollama leaving an AMD GPU unused (the module's docstring), or none."""
    if not any(_OLLAMA.search(ln[:MAXLINE]) for ln in lines):
        return partial(NAME, [])  # a text that never names Ollama: nothing to read (one cheap pass)
    seen = _Seen()
    for i in range(len(lines)):
        seen.line(lines, i)
    if not seen.ollama or "ollama-gpu-unused" not in seen.got:
        return partial(NAME, [])
    facts = [Fact("seen:" + k, v, v) for k, v in seen.got.items()]
    plat = seen.platform()
    if plat:
        facts.append(Fact("seen:ollama-os", plat, plat))
    # the reporter's own GPU where the title or the reporter names one; else the one other authors name
    own = bool(seen.gfx[0] or seen.models[0])
    gfx, models = (seen.gfx[0], seen.models[0]) if own else (seen.gfx[1], seen.models[1])
    if gfx:
        facts.append(Fact("seen:ollama-gfx", " ".join(gfx), " ".join(gfx)))
    if models:
        facts.append(Fact("seen:ollama-amd-model", " | ".join(models), " | ".join(models)))
    return partial(NAME, facts)
