"""What a thread's resolution makes of the cause (issue 20, round resolve22): the fix a pasted thread says solved the
failure, mapped to the cause it removes, and how much that weighs beside the text's own error messages.

The paste reader :mod:`envcheck.paste.readers.resolution` keeps every resolution a thread states (``lines
["resolution"]``, one ``WHO | KIND | TEXT`` a line: who said it, whether it names the fix or the cause, the sentence;
``rejected`` with the post a bare "Tried that, still crashes." answered: a resolution in it counts for nothing).
Here each sentence is matched against the phrase table ``compat_matrix/resolutions.toml`` (``[[resolution]]``: the
cause a fix removes, the pattern of its wording, the thread it came from). A sentence two causes' rows match names no
single cause and says nothing (unknown decides nothing).

Which resolution counts, best first: the reporter's (or a text without author lines: one author's) over an author
whose role the text does not show over another author's; a sentence naming the cause ("the problem was ...") over one
naming the fix. Where the best resolutions name one cause, it is the finding; where they name several, none.

Its weight (:class:`Weighed`, ``strength``):

* ``corroborates``: the text's error messages already show that cause (explain adds to it);
* ``settles``: the reporter's own resolution, a fix that only this cause has, and no conclusive message of another
  cause in the text (a log line whose cause's root-cause weight is at least :data:`CONCLUSIVE`): the thread's
  resolution is the best evidence of the cause, first;
* ``beside``: the same, but a conclusive message of another cause is there: both are said, the message first (a
  resolution never overrides a conclusive error message);
* ``likely``: another author's fix the reporter did not confirm, or one by an author whose role the text does not
  show: said, below every error message.

A fix that also cures other causes (a row's ``certainty = "likely"``: a reboot cures a driver library mismatch, a
freshly installed driver not yet loaded, a GPU lost after suspend) only corroborates: where the text's messages do
not already show its cause it says nothing (with nothing else in the text it would be a guess).

A maintainer's suggestion, a question, a negation or someone else's claim is no resolution at all: the reader keeps
none (see its docstring).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from envcheck.model import Finding, Severity

__all__ = ["CONCLUSIVE", "Weighed", "resolution_finding", "causes_of", "resolved_cause"]

#: a log line whose cause has at least this root-cause weight (compat_matrix/errors.toml ``weight``: a driver failure 96,
#: a missing library 90, a cuDNN status 50-60) is a conclusive message: a resolution naming another cause is said beside
#: it, never over it
CONCLUSIVE = 70
#: rank of who said a resolution (higher first)
_WHO = {"reporter": 3, "text": 3, "unknown": 2, "other": 1}
_PATTERNS: Dict[str, "re.Pattern[str]"] = {}


@dataclass
class Weighed:
    """The cause a thread's resolution names, as a finding, and its ``strength`` (see the module's docstring)."""

    finding: Finding
    strength: str


def _pattern(text: str) -> Optional["re.Pattern[str]"]:
    got = _PATTERNS.get(text)
    if got is None:
        try:
            got = re.compile(text)
        except re.error:
            return None
        _PATTERNS[text] = got
    return got


def _shown(row: Dict[str, Any], lines: Optional[Dict[str, str]]) -> bool:
    """Whether the thread shows what the row's ``when`` asks for (``|``-separated evidence keys of the paste's lines,
    one enough: a fix that installs a CUDA build names a CPU-only build only where the text shows CUDA was wanted and
    not reached, res34); a row without ``when`` asks for nothing. Without the thread's lines nothing is shown."""
    when = [k for k in str(row.get("when") or "").split("|") if k]
    return not when or any((lines or {}).get(k) for k in when)


def _rows_matching(matrix: Any, text: str, lines: Optional[Dict[str, str]] = None) -> List[Dict[str, Any]]:
    return [row for row in (matrix.rows("resolutions", "resolution") if matrix is not None else [])
            if (rx := _pattern(str(row.get("pattern") or ""))) is not None and rx.search(text) and _shown(row, lines)]


def causes_of(matrix: Any, text: str, lines: Optional[Dict[str, str]] = None) -> List[Tuple[str, bool]]:
    """The causes whose resolution rows match ``text`` (each once, in the table's order), with whether the row says the
    fix cures other causes too (``certainty = "likely"``); a row with ``when`` counts only where ``lines`` (the
    thread's evidence) shows it."""
    out: Dict[str, bool] = {}
    for row in _rows_matching(matrix, text, lines):
        cause = str(row.get("cause"))
        out[cause] = out.get(cause, False) or row.get("certainty") == "likely"
    return list(out.items())


def _row_explains(matrix: Any, text: str, cause: str, lines: Optional[Dict[str, str]] = None) -> Tuple[str, ...]:
    """The causes whose messages the fix of the rows of ``cause`` matching ``text`` also removes (a row's ``explains``:
    a Slurm job given no GPU, whose nvidia-smi then cannot reach the driver)."""
    return tuple(c for row in _rows_matching(matrix, text, lines) if str(row.get("cause")) == cause
                 for c in str(row.get("explains") or "").split("|") if c)


def _parse(value: str) -> Optional[Tuple[str, str, str]]:
    parts = value.split(" | ", 2)
    if len(parts) != 3 or parts[0] not in _WHO or parts[1] not in ("cause", "fix", "rejected"):
        return None
    return parts[0], parts[1], parts[2]


def resolved_cause(matrix: Any, lines: Dict[str, str]) -> Optional[str]:
    """The one cause the thread's resolution names (``lines["resolution"]``), or None (no resolution, or several)."""
    got = _best(matrix, lines) if lines.get("resolution") else None
    return got[0] if got else None


def _best(matrix: Any, lines: Dict[str, str]) -> Optional[Tuple[str, str, str, bool]]:
    """(cause, who, sentence, likely) of the resolution that counts, or None (none, or the best name several causes)."""
    ranked: List[Tuple[Tuple[int, int], str, str, str, bool]] = []
    values = [got for got in map(_parse, (lines.get("resolution") or "").split("\n")) if got is not None]
    # a post the next author answered with a bare rejection ("Tried that, still crashes."): its fix counts for nothing
    rejected = [text for _, kind, text in values if kind == "rejected"]
    for who, kind, text in values:
        if kind == "rejected" or any(text[-120:] in r for r in rejected):
            continue
        causes = causes_of(matrix, text, lines)
        if len(causes) > 1:  # (tfgpu39) one cause's rows say its fix also removes every other's messages: that one
            whole = [c for c in causes if {o for o, _ in causes if o != c[0]} <= set(_row_explains(matrix, text, c[0], lines))]
            causes = whole if len(whole) == 1 else causes
        if len(causes) != 1:
            continue  # no row, or rows of several causes: the sentence names no single cause
        cause, likely = causes[0]
        ranked.append(((_WHO[who], 1 if kind == "cause" else 0), cause, who, text, likely))
    if not ranked:
        return None
    top = max(r[0] for r in ranked)
    best = [r for r in ranked if r[0] == top]
    if len({r[1] for r in best}) != 1:
        return None  # the best resolutions disagree
    _, cause, who, text, likely = best[0]
    return cause, who, text, likely or any(r[4] for r in best)


def _strength(cause: str, who: str, likely: bool, text_causes: Sequence[Tuple[str, int]],
              explains: Sequence[str] = ()) -> str:
    if any(c == cause for c, _ in text_causes):
        return "corroborates"
    if likely or _WHO[who] < _WHO["reporter"]:
        return "likely"
    # a conclusive message of a cause this one explains (its knowledge-base downstream: TF's cuDNN check under another
    # package's cuDNN) is its symptom, not another cause
    if any(c != cause and c not in explains and w >= CONCLUSIVE for c, w in text_causes):
        return "beside"
    return "settles"


def resolution_finding(matrix: Any, lines: Dict[str, str], text_causes: Sequence[Tuple[str, int]] = (),
                       downstream: Optional[Dict[str, Sequence[str]]] = None) -> Optional[Weighed]:
    """The cause the thread's resolution names (``lines["resolution"]``) as a finding, weighed beside ``text_causes``
    (the causes the text's error messages show, each with its root-cause weight), or None. ``downstream``: for each
    cause, the causes it explains (the knowledge base's ``downstream``): their messages are its symptoms."""
    best = _best(matrix, lines)
    if best is None:
        return None
    cause, who, text, likely = best
    explains = tuple((downstream or {}).get(cause, ())) + _row_explains(matrix, text, cause, lines)
    strength = _strength(cause, who, likely, text_causes, explains)
    if likely and strength != "corroborates":
        return None  # a fix of several causes names none of them alone
    whose = {"reporter": "the reporter says", "text": "the text says", "unknown": "the thread says",
             "other": "another author (not the reporter) says"}[who]
    hedge = "" if strength in ("settles", "corroborates", "beside") else "Likely, not verified: "
    return Weighed(Finding(
        cause, Severity.ERROR,
        f"{hedge}{whose} what fixed it: \"{text[:160]}\"; that fix removes this cause"
        + (" (it also cures other causes)" if likely else "") + ".",
        "Apply the fix the thread names (quoted above) on this machine, or the cause's own fix below.",
        text[:200], "thread"), strength)
