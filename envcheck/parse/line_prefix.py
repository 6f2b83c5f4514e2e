"""The label a log or a quote put before every line of a pasted or captured tool output, taken off.

A tool's output read out of a log carries, before each of its lines, what the log writer added: a time stamp
(``docker logs -t``, ``kubectl logs --timestamps``, a CI runner's "2024-05-01T10:00:00.1234567Z "), BuildKit's "#7 0.421 ", a Kubernetes
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

import json
from dataclasses import dataclass
from typing import List, Optional, Tuple

from envcheck import lazyre
from envcheck.parse import log_stamp
from envcheck.parse.captures import strip_runner_prefix

__all__ = ["LinePrefix", "LOG_KINDS", "detect", "strip", "strip_line_prefixes", "strip_log_prefixes", "unwrap_json_log"]

#: each kind of label, as (name, pattern); the pattern matches the label and the blanks after it
_KINDS = (
    # "2024-05-01T10:00:00.123456789Z ", "[2024-05-01 10:00:00] ", "2024-05-01 10:00:00,123 INFO " (a "|" after the
    # stamp is the table's own border: "2024-06-25T18:45:27.095437505Z |   0  NVIDIA A100 ...", kept)
    # Python logging's default "2024-10-19 01:10:47,712 - root - INFO - ", loguru's "2024-05-01 10:00:00.123 | INFO     |
    # app.main:run:42 - "
    # the CRI log format of containerd / CRI-O (``/var/log/pods/.../0.log``, what a log shipper forwards): a stamp, the
    # stream and the full / partial flag, "2023-06-21T05:02:18.59015535Z stdout F "
    ("cri stream", lazyre.compile(r"[ \t]{0,4}" + log_stamp.STAMP + r"[ \t](?:stdout|stderr)[ \t][FP](?:[ \t]|$)")),
    ("time stamp", lazyre.compile(r"[ \t]{0,4}" + log_stamp.PREFIX)),  # one grammar: envcheck.parse.log_stamp
    # klog (Kubernetes components, the device plugin): "I0501 10:00:00.000000       1 main.go:42] "
    ("klog head", lazyre.compile(r"[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{1,9}[ \t]{1,12}\d{1,10} [\w.-]{1,80}:\d{1,6}\]"
                                 r"(?:[ \t]|$)")),
    # BuildKit's plain progress (``docker build --progress=plain``, CI logs of image builds): "#7 0.421 " before each
    # line a RUN step printed (the step's own "#7 [2/3] RUN nvidia-smi" and "#7 DONE 0.5s" lines carry no time)
    ("build step", lazyre.compile(r"#\d{1,5}[ \t]\d{1,6}\.\d{1,4}(?:[ \t]|$)")),
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
LOG_KINDS = ("cri stream", "time stamp", "klog head", "build step")


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


#: a line of Docker's json-file log (``/var/lib/docker/containers/<id>/<id>-json.log``): the line the container printed,
#: as a JSON string, with its stream and time: {"log":"| NVIDIA-SMI 535.54.03 ...|\n","stream":"stdout","time":"..."}
_JSON_LOG = lazyre.compile(r'[ \t]{0,4}\{"log":("(?:[^"\\\n]|\\[^\n]){0,20000}"),"stream":"(?:stdout|stderr)"'
                           r'(?:,"time":"[^"\n]{0,64}")?\}[ \t]*$')


def unwrap_json_log(text: str) -> str:
    """``text`` with each line of Docker's json-file log replaced by the line it holds (its line break taken off), where
    at least half of the non-blank lines are such; ``text`` itself otherwise."""
    if '{"log":"' not in text:
        return text
    lines = text.split("\n", _MAX_LINES)
    found = [_JSON_LOG.match(ln) for ln in lines[:_MAX_LINES]]
    nonblank = sum(1 for ln in lines[:_MAX_LINES] if ln.strip())
    if sum(1 for m in found if m) < _SHARE * nonblank:
        return text
    out: List[str] = []
    for ln, m in zip(lines, found + [None] * (len(lines) - len(found))):
        if m is None:
            out.append(ln)
            continue
        try:
            held = json.loads(m.group(1))
        except ValueError:
            out.append(ln)
            continue
        out.append(str(held).rstrip("\r\n"))
    return "\n".join(out)


def strip_line_prefixes(text: str, kinds: Optional[Tuple[str, ...]] = None, min_lines: int = 1) -> str:
    """``text`` without the labels a log or a quote put before its lines (up to three layers, the outer first; only
    the kinds named in ``kinds`` and runner labels where ``kinds`` is given), each line of Docker's json-file log read
    out of its JSON (:func:`unwrap_json_log`); ``text`` itself where no label qualifies."""
    text = unwrap_json_log(text)
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
