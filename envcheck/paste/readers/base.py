"""What every paste reader shares: the :class:`Partial` it returns, the :class:`Line` it is shown, and the small
value helpers (unknown values, versions, ``key: value`` lines).

A reader is a module with ``NAME``, ``detect(line) -> int`` and ``read(lines) -> Partial``:

* ``detect`` is shown one :class:`Line` (a line of the text and the lines around it) and answers how many lines,
  from that one, are its form (0: not its form). It changes nothing.
* ``read`` is handed exactly those lines and returns a :class:`Partial`: an immutable tuple of :class:`Fact`, each
  with the line it was read from. It sees no other reader's result; :mod:`envcheck.paste.merge` folds the
  partials in one documented order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

__all__ = ["Fact", "Partial", "Line", "remembered", "remember", "next_value", "in_requirements_file", "UNKNOWN_VALUES", "MAXLINE", "KV", "SECTIONED", "clean", "first_version", "mm", "PRE",
           "norm", "gpu_name", "partial", "listed", "VER", "NVCC_RELEASE", "NVCC_BUILD", "MEM", "GPU_COUNT", "RELEVANT",
           "view", "text_of"]

#: values that mean "unknown" in the reports; ``_No response_`` is what GitHub writes for an issue form's field left
#: empty (TensorFlow's, vLLM's, ComfyUI's forms: "### GPU model and memory" then "_No response_")
UNKNOWN_VALUES = {"", "n/a", "na", "none", "could not collect", "no cuda", "not available", "unknown",
                  "<fill in>", "-", "not found", "<not set>", "_no response_", "no response"}
MAXLINE = 2000  # characters of a line that are read

VER = r"\d+(?:\.\d+)*"
#: a PEP 440 pre-, post- or dev-release part after a release ("a0", "rc1", ".dev20250310", ".post1"): nightly and
#: pre-release wheels print it ("2.7.0.dev20250310+cu124", "2.1.0a0+cxx11.abi")
PRE = r"(?:\.?(?:dev|post|rc|a|b)\d{0,12}|[a-z]{1,5}\d{0,3})?"
# no two adjacent repeats that can share characters (``\s*\**\s*`` split a run of blanks every way:
# cubic, 50 s for one line of 2,000 blanks), and the value ends at its last non-blank in one step
KV = re.compile(r"^\s*(?:[-*]\s*)?(?:\*+\s*)?`?(?P<key>[A-Za-z][A-Za-z0-9 _/().?,`-]{1,60}?)`?\s*(?:\*+\s*)?[:：]"
                r"\s*(?:\*+\s*)?(?P<val>(?:.*\S)?)\s*$")
SECTIONED = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9 _/().?-]{1,40}?)\s{2,}:\s(?P<val>.*)$")
NVCC_RELEASE = re.compile(r"Cuda compilation tools,\s*release\s*(\d+\.\d+),\s*V(\d+(?:\.\d+)+)")
NVCC_BUILD = re.compile(r"\bBuild\s+cuda_(\d+)\.(\d+)")
#: a memory size at the end of a GPU's name (" 24GB", ", 40 GiB", " (16GB)", French " (12Go)"). It starts only where a leftmost match can
#: start: at the first of a run of blanks / commas / parentheses, or at the first digit of a number right after
#: another character (the lookbehinds): ``[\s,(]*\d+`` tried from every character of a long run of digits or
#: blanks took time quadratic in the line (0.3 s per 2,000-character line; review25). A size joined to the model by a
#: hyphen is the model's own name ("NVIDIA A100-SXM4-80GB", as nvidia-smi prints it: facts22's offline-glucose-2)
MEM = re.compile(r"(?:(?<![\s,(])[\s,(]+|(?<![\s,(\d-]))\d+(?:\.\d+)?\s*(?:GB|GiB|Go|G|MB|MiB|Mo)\)?\s*$", re.I)
#: "3x NVIDIA RTX A6000", "2 x RTX 3090": a count of one GPU model
GPU_COUNT = re.compile(r"^(?P<n>[1-9]\d?)\s*[x×]\s*(?P<name>\S.*)$", re.I)
#: the packages a report's package list is read for
RELEVANT = re.compile(r"^(torch|torchvision|torchaudio|pytorch|pytorch-cuda|tensorflow(-gpu|-cpu|-intel)?|tf-nightly"
                      r"|jax|jaxlib|jax-cuda\d+-(plugin|pjrt)|cupy(-cuda\w+)?|nvidia-[a-z0-9-]+|cudatoolkit|cudnn"
                      r"|cuda-version|cuda-runtime|cuda-cudart|paddlepaddle(-gpu)?|onnxruntime(-gpu)?|xformers"
                      r"|vllm|triton|keras)$")
_UUID = re.compile(r"\s*\(UUID:[^)]*\)\s*$")


@dataclass(frozen=True)
class Fact:
    """One thing a reader read: ``field`` (see :mod:`envcheck.paste.merge` for the fields and how each merges),
    ``value`` (a string, number, bool or tuple) and ``line``, the line of the text it was read from."""

    field: str
    value: Any
    line: str = ""


@dataclass(frozen=True)
class Partial:
    """What one reader read from one span of lines: immutable, merged by :func:`envcheck.paste.merge.merge`."""

    reader: str
    facts: Tuple[Fact, ...] = ()

    def get(self, name: str) -> Any:
        """The first value of field ``name`` (None when absent)."""
        return next((f.value for f in self.facts if f.field == name), None)

    def all(self, name: str) -> List[Any]:
        return [f.value for f in self.facts if f.field == name]

    def __bool__(self) -> bool:
        return bool(self.facts)


_T = TypeVar("_T")
#: the lines met last whose answers :func:`remembered` keeps, per function (then forgotten all at once), each at most
#: :data:`MAXLINE` characters (a longer one is not kept): bounded memory
REMEMBERED = 2048


def remember(seen: Dict[str, Any], line: str, got: Any) -> Any:
    """Keep ``got``, the answer for ``line``, in ``seen`` (a reader's memory of the lines met last: at most
    :data:`REMEMBERED` lines of at most :data:`MAXLINE` characters; when full it forgets them all at once, and what it
    held is worked out again the same way when met again); returns ``got``."""
    if len(line) <= MAXLINE:
        if len(seen) >= REMEMBERED:
            seen.clear()
        seen[line] = got
    return got


def remembered(read: Callable[[str], List[_T]]) -> Callable[[str], List[_T]]:
    """``read``, a pure function of one line's text (no other state, the same list of immutable values each time),
    remembering its answers for the lines met last (:func:`remember`): a long log's kept windows repeat their lines,
    and several readers ask the same question of one line. Each call gets a list of its own."""
    seen: Dict[str, Tuple[_T, ...]] = {}

    def again(line: str) -> List[_T]:
        got = seen.get(line)
        if got is None:
            got = remember(seen, line, tuple(read(line)))
        return list(got)

    again.__doc__ = read.__doc__
    again.__wrapped__ = read  # type: ignore[attr-defined]
    again.forget = seen.clear  # type: ignore[attr-defined]
    return again


def partial(reader: str, facts: Sequence[Fact]) -> Partial:
    return Partial(reader, tuple(facts))


def text_of(line: str) -> str:
    """A line as the readers see it: cut to :data:`MAXLINE`, stripped, without a Markdown quote's ``>``."""
    line = line[:MAXLINE]
    return line.strip().lstrip("> ").strip() if line.lstrip().startswith(">") else line.strip()


@dataclass(frozen=True)
class Line:
    """One line shown to the readers' ``detect``: all the lines, its index, the line cut to :data:`MAXLINE`,
    stripped of a Markdown quote (``s``), lower-cased (``low``), and its ``key: value`` match (``km``)."""

    lines: Sequence[str]
    i: int
    line: str
    s: str
    low: str
    km: Optional["re.Match[str]"]


def next_value(lines: Sequence[str], i: int) -> int:
    """The index of the first non-empty line within three after ``i`` (or where the search stopped): where an issue
    template's answer to the heading on line ``i`` stands."""
    j = i + 1
    while j < len(lines) and j - i < 4 and not lines[j].strip():
        j += 1
    return j


def view(lines: Sequence[str], i: int) -> Line:
    line = lines[i][:MAXLINE]
    s = text_of(line)
    return Line(lines, i, line, s, s.lower(), KV.match(s))


def clean(v: Optional[str]) -> Optional[str]:
    if v is None:
        return None
    s = v.strip().strip("`*").strip()
    return None if s.lower() in UNKNOWN_VALUES else s


#: a value that is a list of versions: ``3.8, 3.9, 3.10``, ``3.8 / 3.9``, ``2.1 or 2.3``, ``3.8 and 3.9`` (a version
#: followed by a list separator and another version: not "3.10.12 (main, ...) [GCC 11.4.0]", not "2.1.0+cu121 (True)")
_LISTED = re.compile(r"^\s{0,3}[`'\"]?\s{0,2}(?:python\s{0,2}|v)?\d{1,4}(?:\.\d{1,5}){1,3}(?:[a-z]{1,5}\d{0,3})?(?:\+[\w.]{1,30})?"
                     r"[`'\"]?\s{0,3}(?:,|/|;|、|，|&|\bor\b|\band\b|或|和|->|→|=>|⇒|⟶)\s{0,3}[`'\"]?\s{0,2}(?:python\s{0,2}|v)?\d{1,4}\.\d", re.I)


def listed(v: Optional[str]) -> bool:
    """Whether ``v`` is a list of versions (of those supported, or tried), none of which is *the* installed one, or a
    change from one to another ("1.13.1 -> 2.0.0": which one is installed is not said)."""
    return bool(v) and bool(_LISTED.match(v or ""))


def first_version(v: Optional[str]) -> Optional[str]:
    """"3.9.16 (main, May 17 2023 ...)" -> "3.9.16"; "tf2.9.1" / "tf-gpu 2.4.0" -> the version; "v2.13.0-rc1" keeps "2.13.0"
    (a git describe's tag); a TensorFlow nightly keeps its date, as its ``__version__`` and its wheel name print it
    ("2.4.0-dev20201012", "tf_nightly-2.1.0.dev20191114", "tf-nightly-gpu 2.5.0.dev20201125");
    "tensorflow-gpu 1.15.4" / "tensorflow gpu 2.3.0" -> the version; "PyTorch 2.0.1+cu121" -> "2.0.1+cu121"; a value in backticks or quotes (`` `2.2.0` ``, as templates are often
    filled in) is read the same."""
    if not v or listed(v):
        return None
    m = re.match(r"^\s*(?:[`'\"]\s*)?(?:tf[-_]nightly(?:[-_]gpu|[-_]cpu)?[- =]{0,2}|tf(?:[-_ ]gpu|-cpu)?[- =]{0,2}|v"
                 r"|tensorflow(?:[-_ ]gpu|[-_ ]cpu)?[- =]{0,2}|python\s*|(?:py)?torch[- =]{0,2})?(\d+\.\d+(?:\.\d+)*"
                 r"(?:-dev\d{8}|" + PRE + r")(?:\+[\w.]+)?)",
                 v, re.I)
    return m.group(1) if m else None


def mm(v: Optional[str]) -> Optional[str]:
    """"10.1.243" -> "10.1"."""
    if not v:
        return None
    m = re.match(r"^(\d+)\.(\d+)", v)
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def gpu_name(raw: str) -> Optional[str]:
    return clean(_UUID.sub("", raw).strip())


#: an option line of a requirements file (pip's own ``--index-url`` / ``--extra-index-url`` / ``--find-links`` /
#: ``-r``): ``pip freeze`` never prints one, so the ``name==version`` rows under it are what someone asks pip to
#: install (a reply's example, a project's pins), not what is installed
_REQ_OPTION = re.compile(r"^(?:--(?:extra-)?index-url|--find-links|--requirement|-[ifr]\s)")
#: a requirements file printed (``$ cat requirements.txt``, ``(venv) PS C:\x> type requirements.txt``) or named as
#: what follows ("requirements.txt:", "My requirements.txt"): its rows are what someone asks pip to install, not what
#: is installed (attack34)
_REQ_SHOWN = re.compile(r"(?i)^(?:(?:\([\w.-]{1,40}\)\s{0,2})?(?:[\w.@:~/\\-]{0,80}\s{0,2})?[$#>%]\s{0,3}|PS\s[^>]{1,80}>\s{0,3})?"
                        r"(?:(?:cat|type|more|less|head|tail|bat|gc|get-content)\s{1,3}(?:[^\s|;&]{0,120}[/\\])?"
                        r"requirements[\w.-]{0,40}\.(?:txt|in)\s{0,3}$"
                        r"|(?:(?:my|the|our|here(?:'s|\s{1,2}is)(?:\s{1,2}(?:my|the))?)\s{1,2})?`?requirements[\w.-]{0,40}\.(?:txt|in)`?"
                        r"\s{0,3}(?:file\s{0,3})?[:：]?\s{0,3}$)"
                        # a sentence that names the file and introduces what follows ("had to change the
                        # requirements.txt from", "my requirements.txt looks like this:")
                        r"|^.{0,120}(?<![\w-])requirements[\w.-]{0,40}\.(?:txt|in)\b.{0,80}?(?:[:：]|\bfrom|\bto)\s{0,3}$")
_REQ_LOOKBACK = 30
#: a line a requirements file holds (a pin or a bare name with its markers and comment, a comment, an option, a URL or
#: a direct reference): blank lines between such lines separate the file's groups, they do not end it (sinahmr/DIaM's
#: ``-f ...`` / blank / pins / blank / ``torch==1.10.2+cu113``; attack35). Bounded: linear.
_REQ_ROW = re.compile(r"^(?:#|-[efrci]\s|--[a-z]|(?:git\+)?https?://\S{1,300}$|[\w.\-]{1,80}\s{0,2}@\s{0,2}\S{1,300}$"
                      r"|[A-Za-z0-9][\w.\-]{0,80}(?:\[[\w,.\s-]{0,80}\])?\s{0,3}"
                      r"(?:(?:===?|~=|!=|[<>]=?)\s{0,3}[\w.*+!-]{1,40}(?:\s{0,3},\s{0,3}(?:===?|~=|!=|[<>]=?)\s{0,3}[\w.*+!-]{1,40}){0,4})?"
                      r"\s{0,3}(?:;[^#]{0,120})?(?:\s#.{0,200})?$)")
#: another listing's command or label (``$ pip freeze``, "pip list output:"): what follows is no longer the file
_REQ_OTHER = re.compile(r"(?i)(?<![\w-])(?:pip3?|conda|mamba|uv\s{1,2}pip)\s{1,2}(?:freeze|list)(?![\w-])")


def _names_requirements(t: str) -> bool:
    return ("requirements" in t.lower() and len(t) <= 200 and _REQ_SHOWN.match(t) is not None)


def in_requirements_file(c: Line) -> bool:
    """Whether the ``==`` row at ``c`` sits in a requirements file: under its option line, or under a line printing
    or naming it (:data:`_REQ_SHOWN`), in the same block (at most :data:`_REQ_LOOKBACK` lines up; no code fence, no
    other listing's command, and no blank line unless the line above it is one of a requirements file (its groups,
    :data:`_REQ_ROW`) between them; a fence right under the naming line is no gap)."""
    gap = False
    for j in range(c.i - 1, max(-1, c.i - 1 - _REQ_LOOKBACK), -1):
        t = text_of(c.lines[j][:200]).strip()
        if t.startswith(("```", "~~~")):
            return j > 0 and _names_requirements(text_of(c.lines[j - 1][:200]).strip())
        if not t:
            gap = True
            continue
        if _REQ_OPTION.match(t) or _names_requirements(t):
            return True
        if _REQ_OTHER.search(t) or (gap and not _REQ_ROW.match(t)):
            return False
        gap = False
    return False
