"""The label a log or a quote put before every line of a pasted or captured tool output, taken off.

A tool's output read out of a log carries, before each of its lines, what the log writer added: a time stamp
(``docker logs -t``, ``kubectl logs --timestamps``, a CI runner's "2024-05-01T10:00:00.1234567Z "), a Kubernetes
component's klog head ("I0501 10:00:00.000000       1 main.go:42] "), a Python logger's "2024-05-01 10:00:00,123 INFO ",
a runner's label ("[stdout] ", "[pod/trainer-0/main] ", "node17: ", "trainer-1  | ": :func:`strip_runner_prefix`),
or a Markdown quote's "> ". The readers of each form (the nvidia-smi table, ``-q``, ``-L``, the ``--query-gpu`` CSV,
an error text) read the output as the tool printed it; this module gives it back to them, for snapshots and pastes
alike (:func:`envcheck.parse.nvidia_smi.clean_capture`).

One reader, two steps: :func:`detect` names the label kind most lines carry (a kind only: time stamps differ from
line to line), :func:`strip` takes it off the lines that carry it; other lines are left as they are. A label is taken
off only where at least half of the non-blank lines carry it (a real output's own lines never
start with a time stamp, a klog head or a quote mark), a runner label only where three lines and 80% of them carry
the same one (its shape is a real output's own "Key: value" too). Up to three layers ("[pod/x] 2024-...Z | 0 ...") come off, the outer
first. Each pattern is anchored, with bounded repeats and no nested quantifier (linear in the line's length).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

from envcheck import lazyre
from envcheck.parse import log_stamp
from envcheck.parse.captures import strip_runner_prefix

__all__ = ["LinePrefix", "LOG_KINDS", "detect", "strip", "strip_line_prefixes", "strip_log_prefixes"]

#: each kind of label, as (name, pattern); the pattern matches the label and the blanks after it
_KINDS = (
    # "2024-05-01T10:00:00.123456789Z ", "[2024-05-01 10:00:00] ", "2024-05-01 10:00:00,123 INFO " (a "|" after the
    # stamp is the table's own border: "2024-06-25T18:45:27.095437505Z |   0  NVIDIA A100 ...", kept)
    # Python logging's default "2024-10-19 01:10:47,712 - root - INFO - ", loguru's "2024-05-01 10:00:00.123 | INFO     |
    # app.main:run:42 - "
    ("time stamp", lazyre.compile(r"[ \t]{0,4}" + log_stamp.PREFIX)),  # one grammar: envcheck.parse.log_stamp
    # klog (Kubernetes components, the device plugin): "I0501 10:00:00.000000       1 main.go:42] "
    ("klog head", lazyre.compile(r"[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{1,9}[ \t]{1,12}\d{1,10} [\w.-]{1,80}:\d{1,6}\]"
                                 r"(?:[ \t]|$)")),
    # a Markdown quote, nested or not: "> ", ">> ", "> > "
    ("quote mark", lazyre.compile(r"[ \t]{0,3}>(?:[ \t]{0,2}>){0,5}(?:[ \t]|$)")),
)
#: the share of non-blank lines that must carry a label of the kind (a single line's label counts: a time stamp, a
#: klog head or a quote mark never starts a line nvidia-smi prints)
_SHARE = 0.5
#: the lines looked at (a label is the log's, on its first lines as on its last)
_MAX_LINES = 200000


@dataclass(frozen=True)
class LinePrefix:
    """The label kind most lines of a text carry, and on how many of its non-blank lines."""

    kind: str
    lines: int
    nonblank: int


#: the kinds a log writer adds (a paste's own quote marks are the thread's, not the log's: :func:`strip_log_prefixes`)
LOG_KINDS = ("time stamp", "klog head")


def detect(text: str, kinds: Optional[Tuple[str, ...]] = None, min_lines: int = 1) -> Optional[LinePrefix]:
    """The label kind (:data:`_KINDS`, or those of them named in ``kinds``) that at least half of the non-blank lines
    start with, the most common one; ``None`` where there is none."""
    counts = [0] * len(_KINDS)
    nonblank = 0
    for line in text.split("\n", _MAX_LINES)[:_MAX_LINES]:
        if not line.strip():
            continue
        nonblank += 1
        for i, (name, rx) in enumerate(_KINDS):
            if (kinds is None or name in kinds) and rx.match(line):
                counts[i] += 1
                break
    best = max(range(len(_KINDS)), key=lambda i: counts[i])
    n = counts[best]
    if n < max(min_lines, 1) or n < _SHARE * nonblank:
        return None
    return LinePrefix(kind=_KINDS[best][0], lines=n, nonblank=nonblank)


def strip(text: str, prefix: LinePrefix) -> str:
    """``text`` with the label of ``prefix``'s kind taken off each line that starts with one."""
    rx = next(p for name, p in _KINDS if name == prefix.kind)
    out: List[str] = []
    for line in text.split("\n"):
        m = rx.match(line)
        out.append(line[m.end():] if m else line)
    return "\n".join(out)


def strip_line_prefixes(text: str, kinds: Optional[Tuple[str, ...]] = None, min_lines: int = 1) -> str:
    """``text`` without the labels a log or a quote put before its lines (up to three layers, the outer first; only
    the kinds named in ``kinds`` and runner labels where ``kinds`` is given); ``text`` itself where no label qualifies."""
    for _ in range(3):
        prefix = detect(text, kinds, min_lines)
        if prefix is not None:
            text = strip(text, prefix)
            continue
        unlabelled = strip_runner_prefix(text)
        if unlabelled == text:
            break
        text = unlabelled
    return text


def strip_log_prefixes(text: str) -> str:
    """``text`` without what a log writer put before its lines (time stamps, klog heads, runner labels; three lines or
    more: a report reader reads a line or two behind a stamp itself); its quote marks kept (a pasted thread's "> " is
    who said what)."""
    return strip_line_prefixes(text, LOG_KINDS, min_lines=3)
