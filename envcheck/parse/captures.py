"""Parse the JSON and small text captures of a snapshot (contract §1)."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Tuple

from envcheck import lazyre
from envcheck.parse.limits import gpu_list

__all__ = ["load_json", "load_json_object", "json_problem", "parse_os_release", "is_wsl", "parse_requires", "MAX_JSON_DEPTH",
           "strip_runner_prefix", "cut_last_line", "strip_controls"]

#: Real captures nest a few levels; a document nested deeper is refused (it would make every later
#: recursive step, down to ``json.dumps`` of the report, a RecursionError waiting to happen).
MAX_JSON_DEPTH = 64


def _too_deep(data: Any, limit: int) -> bool:
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def load_json(text: Optional[str], max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON value of ``text``, or ``None`` for missing, malformed or too deeply nested content.
    Never raises (no RecursionError on ``'[' * 100000``, no ValueError on 5000-digit numbers)."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError, TypeError):
        return None
    return None if _too_deep(data, max_depth) else data


def json_problem(text: Optional[str]) -> Optional[str]:
    """Why ``text`` is no JSON document :func:`load_json` reads ("empty", "not valid JSON (...)", "nested too
    deeply"), else ``None`` (also for no text at all)."""
    if text is None:
        return None
    if not text.strip():
        return "empty"
    if load_json(text) is not None:
        return None
    try:
        json.loads(text)
    except RecursionError:
        return "nested too deeply"
    except ValueError as exc:
        return f"not valid JSON ({str(exc)[:120]})"
    return "nested too deeply" if text.lstrip()[:1] in "[{" else None


@gpu_list
def load_json_object(text: Optional[str]) -> Optional[Dict[str, Any]]:
    """A JSON object, or ``None`` for missing, malformed, too deep or non-object content; a ``gpus`` list in it
    (nvml.json) holds at most :data:`envcheck.parse.limits.MAX_GPUS` GPUs."""
    data = load_json(text)
    return data if isinstance(data, dict) else None


def parse_os_release(text: Optional[str]) -> Dict[str, str]:
    """``/etc/os-release`` as a dict (quotes removed)."""
    out: Dict[str, str] = {}
    for line in (text or "").splitlines():
        if "=" not in line:  # cheap skip (a megabyte of blank lines must stay fast)
            continue
        m = re.match(r"^\s*([A-Z0-9_]+)=(.*)$", line)
        if m:
            v = m.group(2).strip()
            if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
                v = v[1:-1]
            out[m.group(1)] = v
    return out


# Linux version 5.15.146.1-microsoft-standard-WSL2 (root@65c757a075e2) (gcc (GCC) 11.2.0, ...) #1 SMP ...
def is_wsl(proc_version: Optional[str]) -> Optional[str]:
    """"WSL2" / "WSL1" when ``/proc/version`` names a Microsoft kernel, else ``None``."""
    if not proc_version:
        return None
    low = proc_version.lower()
    if "microsoft" not in low:
        return None
    if "wsl2" in low or "microsoft-standard" in low:
        return "WSL2"
    return "WSL1"


def parse_requires(lines: Any) -> List[str]:
    """A list of Requires-Dist strings from a JSON value (tolerant of junk)."""
    if not isinstance(lines, list):
        return []
    return [x for x in lines if isinstance(x, str) and len(x) < 2000]


# A tool's output run through a cluster, build or container runner carries one label before every line: pdsh /
# clush ("node17: "), Packer ("    amazon-ebs: "), a job launcher's "nid005113 out: ", kubectl's ``--prefix``
# ("[pod/trainer-0/main] "), docker compose ("trainer-1  | "). One anchored, bounded pattern per line (linear).
_RUNNER_PREFIX = lazyre.compile(r"[ \t]{0,8}(?:[A-Za-z0-9_.-]{1,64}(?: out| err)?:(?= |$)|\[[A-Za-z0-9_./:-]{1,128}\](?= )|"
                            r"[A-Za-z0-9_.-]{1,64} {1,24}\|(?= |$))")
#: the share of non-blank lines that must carry the same label (a real output's own "Key: value" lines differ)
_PREFIX_SHARE = 0.8


def strip_runner_prefix(text: str) -> str:
    """``text`` without the runner label every line carries (the same label on at least 80% of its non-blank
    lines, and at least three of them); otherwise ``text`` unchanged. Each labelled line loses only its label
    and the one blank after it."""
    lines = text.splitlines()
    counts: Dict[str, int] = {}
    nonblank = 0
    for ln in lines:
        if not ln.strip():
            continue
        nonblank += 1
        m = _RUNNER_PREFIX.match(ln)
        if m:
            counts[m.group(0)] = counts.get(m.group(0), 0) + 1
    if not counts:
        return text
    label, n = max(counts.items(), key=lambda kv: kv[1])
    if n < 3 or n < _PREFIX_SHARE * nonblank:
        return text
    out = []
    for ln in lines:
        if ln.startswith(label):
            ln = ln[len(label):]
            ln = ln[1:] if ln.startswith(" ") else ln
        out.append(ln)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


# A whole line of a tool's output ends with a line break; a text cut inside its last line (a paste cut at a size limit,
# a selection that stopped short) ends with that line's head: "| NVIDIA-SMI 550.90.07   Driver Version: 550.9",
# "Driver Version  : 440.8", "GPU 1: Tesla T4 (UUID: GPU-ab". Such a line ends in a value, a field name or blanks;
# a whole line that merely lacks the line break ends with a closing mark (a table's "|" or "+", XML's ">", "***").
_CUT_TAIL = lazyre.compile(r"[\w.,:;/(\[{\\-][ \t]*$|[ \t]$")
#: the line put where the cut line was: the mark of rows left out, which the listing readers take as a partial list
CUT_MARK = "..."


def cut_last_line(text: str) -> "Tuple[str, Optional[str]]":
    """``text`` with its last line replaced by :data:`CUT_MARK` where the text ends inside that line (no line break
    after it, and it ends in a value, a field name or blanks: :data:`_CUT_TAIL`), and that line (``None`` when the
    text is kept). A text of one line is kept (a version file written by hand without its line break): only a
    multi-line output's cut last line is dropped, so that no value cut short ("550.9" of "550.90.07") is read and a
    list cut there is not taken as whole."""
    if not text or text.endswith(("\n", "\r")):
        return text, None
    at = text.rfind("\n")
    if at == -1 or not text[:at].strip():
        return text, None
    last = text[at + 1:]
    if not last.strip() or not (_CUT_TAIL.search(last[-200:]) or last.strip() in ("|", "+")):
        return text, None
    return text[:at + 1] + CUT_MARK + "\n", last


# A terminal's colour and cursor sequences (CSI "ESC [ ... letter", OSC "ESC ] ... BEL / ESC \\", a lone ESC and the next
# character) and the other C0 control characters (a NUL of a binary write, a form feed), which no tool prints inside a
# value: a capture's text is read without them, so that no name or version carries one ("Intel(R) Arc(TM) A770\x00")
_CONTROLS = lazyre.compile(r"\x1b\[[0-9;?<=>!]{0,40}[ -/]{0,4}[@-~]|\x1b\][^\x07\x1b]{0,400}(?:\x07|\x1b\\\\)?|\x1b[@-_]?|"
                           r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def strip_controls(text: str) -> str:
    """``text`` without terminal escape sequences and control characters other than tab, line feed and carriage
    return (:data:`_CONTROLS`); one linear pass."""
    return str(_CONTROLS.sub("", text))
