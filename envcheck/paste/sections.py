"""Read the environment reports in a pasted text and turn them into raw captures (contract §1) and facts (§4).

A bug report often carries the facts of the machine the error came from: PyTorch's ``collect_env`` (every
layout), ``pip list`` / ``pip freeze`` / ``conda list`` rows, nvidia-smi (table, ``-q``, ``-L``, ``--query-gpu``
CSV, errors), ``nvcc -V``, ``ldconfig -p | grep``, TensorFlow's issue-template fields,
``jax.print_environment_info()``, ``transformers-cli env`` / ``diffusers-cli env`` / ``accelerate env``,
Ultralytics banners, Chinese issue templates, Paddle's reports.

:func:`read_lines` walks the lines once: on each line the readers of :data:`envcheck.paste.readers.READERS` are asked
in their order, and the first whose ``detect`` answers reads its lines into an immutable
:class:`~envcheck.paste.readers.base.Partial`; :func:`envcheck.paste.merge.merge` folds the partials in the order of
the text; :mod:`envcheck.paste.report` turns the merged facts into the :class:`Report`: the *captures* (snapshot key
-> text, so that :class:`~envcheck.paste.source.PasteSource` feeds the same parsers as ``status``) and the *facts*
(contract §4: only what the text makes certain, unknown = ``None``).

Nothing here raises on odd input; every line is read at most a bounded number of characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from envcheck.parse import log_stamp
from envcheck.paste.readers.base import KV as _KV
from envcheck.paste.readers.base import MAXLINE, UNKNOWN_VALUES, Fact, Partial, partial, remembered, view
from envcheck.paste.thread import ThreadWatch
from envcheck.paste.unread import SectionWatch

__all__ = ["Report", "read_report", "read_lines", "partials", "UNKNOWN_VALUES"]
_ = _KV  # the key: value pattern, kept importable from here
#: one log line -> the named captures of each knowledge-base pattern it matched, or None
LineReader = Callable[[str], Optional[List[Dict[str, str]]]]


@dataclass
class Report:
    """What one pasted text says about the machine it came from."""

    captures: Dict[str, str] = field(default_factory=dict)  # snapshot key -> text
    statuses: Dict[str, str] = field(default_factory=dict)  # snapshot key -> capture status ("failed")
    facts: Dict[str, Any] = field(default_factory=dict)  # contract §4 facts
    formats: List[str] = field(default_factory=list)  # the report formats seen, in order
    lines: Dict[str, str] = field(default_factory=dict)  # "torch" / "gpu" / "driver" / "nvidia-smi" -> a line read
    notes: List[str] = field(default_factory=list)  # "not-checked: ..." what the text shows but could not be read

    @property
    def found(self) -> bool:
        return bool(self.formats)


def partials(lines: Sequence[str], log_reader: Optional[LineReader] = None) -> List[Partial]:
    """The partials of ``lines``, in the order of the text: at each line a reader's span starts at (or a line no
    reader takes), the facts it shows outside a report (:mod:`~envcheck.paste.readers.observe`), then the reader's.
    ``log_reader``: explain's reader of log lines by the knowledge base's patterns
    (:func:`envcheck.explain.logfacts.line_reader`); without it framework log lines state no facts."""
    from envcheck.paste.readers import READERS, build_kill, key_value, log_facts, observe, ollama_amd, prose_gpu, prose_vendor
    from envcheck.paste.readers.detectron2 import looks_detectron2
    from envcheck.paste.readers.prose_join import Joiner

    readers: Sequence[Any] = READERS
    bound = None
    if log_reader is not None:
        bound = log_facts.bind(log_reader)
        old_gpu = prose_gpu.bind(log_reader)
        readers = tuple(bound if r is log_facts else old_gpu if r is prose_gpu else r for r in READERS)
    detects = tuple((r.detect, r) for r in readers)  # (each reader's detect looked up once, not on every line)
    out: List[Partial] = []
    watch = SectionWatch()
    # what a line (or a sentence joined over lines) shows outside a report is a pure function of its text: a log
    # repeats its lines (the kept windows of a long training log: a third of them met before), each read once
    line_facts = remembered(lambda s: observe.line_facts(s, s.lower(), log_reader))
    joiner = Joiner(remembered(lambda text: observe.prose_facts_of(text, log_reader)))
    thread = ThreadWatch()
    # another author's environment in the thread ("my env:" in a maintainer's comment, a quoted one): not read
    foreign: List[bool] = []
    asked: List[Optional[str]] = []  # the kind a question asked for, where the line may be its bare answer
    # who wrote each line (the thread's author lines, read in the same pass): a resolution weighs by it
    speakers: List[Tuple[str, Optional[str]]] = []
    for ln in lines:
        foreign.append(thread.foreign(ln[:MAXLINE]))
        asked.append(thread.answer())
        # a quoted line (``> ...``) is someone else's words, whoever quotes them: "> Updating the driver fixed it." above
        # "Tried that, still crashes." is no resolution of the quoting author (attack36)
        speakers.append(("other", None) if ln.lstrip().startswith(">") else (thread.speaker(), thread.answered()))
    i, n = 0, len(lines)
    while i < n:
        c = view(lines, i)
        if foreign[i]:
            joiner.feed(None, [])
            # amd33: that a GPU is not supported is a statement about the GPU, not the writer's own environment: a
            # maintainer's answer to "Can you add support for that?" (ROCm/rocBLAS#1536: "Radeon 780M is not
            # officially supported by AMD") is read even where the answer is taken for another author's versions
            said = [f for f in prose_vendor.line_facts(c.s, c.s.lower()) if f.field == "seen:gpu-said-unsupported"]
            if said:
                out.append(partial(observe.NAME, said))
            i += 1
            continue
        if not c.s:
            joiner.feed("", [])
            i += 1
            continue
        prose = not looks_detectron2(c.s)
        seen = _said_by(line_facts(c.s), speakers[i]) if prose else []
        seen = _fix_after(seen, lines, speakers, i) if seen else seen
        if prose and speakers[i][1]:
            seen += _rejected(c.s, speakers[i])
        if seen:
            out.append(partial(observe.NAME, seen))
        step, got = _read_at(detects, c, lines, i)
        if got is None and asked[i]:
            pair = key_value.answer(asked[i] or "", lines[i])
            got = pair if pair else None
        if got is not None:
            out.append(got)
        # a sentence split over lines: what the lines no report reader takes show together
        joined = _said_by(joiner.feed(c.s if prose and got is None else None, seen), speakers[i])
        if joined:
            out.append(partial(observe.NAME, joined))
        note = watch.line(c.s, got is not None and _has_facts(got))
        if note is not None:
            out.append(note)
        if step > 1 and bound is not None:
            out += _inline_log_lines(bound, lines, i + 1, i + step)
        i += step
    last = watch.close()
    out += [last] if last is not None else []
    out.append(observe.docker(lines, log_reader))
    out.append(build_kill.killed_in_build(lines))  # a build's compiler killed (attack47)
    out.append(ollama_amd.ollama_facts(lines))  # Ollama leaving an AMD GPU unused: its GPU, release, platform (amd42)
    return out


def _fix_after(facts: List[Fact], lines: Sequence[str], speakers: Sequence[Tuple[str, Optional[str]]],
               i: int) -> List[Fact]:
    """``facts`` of line ``i`` with each resolution that ends in a colon ("This worked:", a bare "solution:") given the
    words of the lines after it by the same author (the fix it introduces: a conda spec, a pip line; res34)."""
    from envcheck.paste.readers.resolution import FOLLOW_LINES, followed, introduces

    out: List[Fact] = []
    for f in facts:
        if f.field == "seen:resolution" and introduces(str(f.value)):
            end = i + 1
            while end < len(lines) and end <= i + 2 * FOLLOW_LINES and speakers[end] == speakers[i]:
                end += 1
            f = Fact(f.field, followed(str(f.value), lines[i + 1:end]), f.line)
        out.append(f)
    return out


def _rejected(s: str, who: Tuple[str, Optional[str]]) -> List[Fact]:
    """A bare rejection of the post before ("Tried that, still crashes."): ``WHO | rejected | POST`` (the post it
    answers, :meth:`ThreadWatch.answered`), so that the fix that post gave counts for nothing (attack36)."""
    from envcheck.paste.readers.resolution import rejects

    speaker, answered = who
    return [Fact("seen:resolution", f"{speaker} | rejected | {answered}", s)] if answered and rejects(s) else []


def _said_by(facts: List[Fact], who: Tuple[str, Optional[str]]) -> List[Fact]:
    """``facts`` with each thread resolution (``seen:resolution``) prefixed by who said it (``reporter``, ``other``,
    ``unknown`` or ``text``: :meth:`ThreadWatch.speaker`); a fact already prefixed is left as it is. A bare
    confirmation ("That fixed it, thanks!") also yields the post it answers, another author's
    (:meth:`ThreadWatch.answered`), as that speaker's resolution: the fix it confirms."""
    from envcheck.paste.readers.resolution import confirms

    speaker, answered = who
    out: List[Fact] = []
    for f in facts:
        if f.field == "seen:resolution" and str(f.value).split(" | ", 1)[0] in ("cause", "fix"):
            if answered and confirms(str(f.value)):
                out.append(Fact(f.field, f"{speaker} | fix | {answered}", f.line))
            f = Fact(f.field, f"{speaker} | {f.value}", f.line)
        out.append(f)
    return out


def _read_at(detects: Sequence[Tuple[Callable[[Any], int], Any]], c: Any, lines: Sequence[str],
             i: int) -> "tuple[int, Optional[Partial]]":
    """The first reader that answers at line ``i`` (``detects``: each reader's detect and the reader, in their order):
    how many lines it took (1 when none) and its partial."""
    for detect, reader in detects:
        k = detect(c)
        if k > 0:
            return k, reader.read(lines[i:i + k])
    return 1, None


#: what a sentence names for the engine's rules (a GPU model, a compute-capability floor), not a version of the machine
#: read from a report: a section holding only that is still a section nothing was read from
_EVIDENCE_ONLY = ("format", "note", "gpu_prose", "cc_floor", "cc_ceiling", "torch_release_prose", "gpu_series_prose")


def _has_facts(p: Partial) -> bool:
    """Whether a partial read something of the machine (not only its format, evidence or a note)."""
    return any(f.field not in _EVIDENCE_ONLY and not f.field.startswith("seen:") for f in p.facts)


def _inline_log_lines(bound: Any, lines: Sequence[str], start: int, end: int) -> List[Partial]:
    """Framework log lines printed inside another report's block (torch's sm_ warning between collect_env's
    "Collecting environment information..." and its fields): their facts, after the block's (merge order)."""
    out: List[Partial] = []
    for j in range(start, min(end, len(lines))):
        c = view(lines, j)
        k = bound.detect(c) if c.s else 0
        if k > 0:
            out.append(bound.read(lines[j:j + k]))
    return out


#: a terminal's escape sequences, as a coloured terminal copy keeps them (CSI ``ESC [ 31m``, its 8-bit form, OSC
#: ``ESC ] 0;title BEL``, two-character escapes): bounded, so linear
_ESCAPES = re.compile(r"(?:\x1b\[|\x9b)[0-?]{0,32}[ -/]{0,8}[@-~]|\x1b\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)?|\x1b[@-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


#: an HTML line break ending a line, as a report pasted into Markdown / HTML keeps it ("PyTorch version: 1.2.0<br>",
#: "GPU 0: TITAN V<br>"): no value ends with one (bounded: linear)
_BR = re.compile(r"(?:\s{0,8}<br\s{0,3}/?>){1,8}\s{0,8}$", re.I)


def _plain(line: str) -> str:
    """A line without terminal escape sequences, its other control characters as blanks: no fact carries one
    (``2.1.0+cu121`` coloured is still torch 2.1.0 for CUDA 12.1); without the HTML line breaks that end it and
    without a logger's prefix (:func:`envcheck.parse.log_stamp.strip`: an environment block printed through a logger
    reads as the block)."""
    if "<" in line[-60:]:
        line = _BR.sub("", line)
    line = _CONTROL.sub(" ", _ESCAPES.sub("", line)) if _CONTROL.search(line) else line
    return log_stamp.strip(line)


def read_lines(lines: Sequence[str], log_reader: Optional[LineReader] = None) -> Report:
    """Read every report in ``lines`` (the kept lines of a pasted text); ``log_reader``: see :func:`partials`."""
    from envcheck.paste.merge import merge
    from envcheck.paste.report import build

    # a log's time stamp, klog head or runner label before (at least half of) the lines: the report under it is read
    from envcheck.parse.line_prefix import strip_log_prefixes

    joined = "\n".join(lines)
    unlabelled = strip_log_prefixes(joined)
    if unlabelled != joined:
        lines = unlabelled.split("\n")
    return build(merge(partials([_plain(s) for s in lines], log_reader)))


def read_report(text: str, log_reader: Optional[LineReader] = None) -> Report:
    """Read every environment report in ``text``; ``Report.found`` is false when there is none."""
    return read_lines(text.splitlines(), log_reader)
