"""The prefix a logger writes before each line: one home for its grammar.

Reports are often printed through a logger, or copied out of a log collector, so that every line of an environment
block or a tool's output carries a prefix: OpenMMLab's ``05/15 01:10:51 - mmengine - INFO - PyTorch: 2.0.0`` (the
check_env / training log's environment block), Python logging's ``2024-10-19 01:10:47,703 - root - INFO -``,
ComfyUI's ``[2024-11-06 23:40:38.512]``, loguru's ``2024-06-01 10:00:00.123 | INFO     | module:fn:12 -``,
vLLM's ``INFO 05-01 10:00:00 [config.py:12]``, a collector's RFC 3339 stamp (``docker logs -t``, ``kubectl logs
--timestamps``, GitHub Actions: ``2024-06-25T18:45:27.0954375Z``). :func:`strip` takes it off so that each reader
reads the line as the tool printed it.

Not a prefix here: TensorFlow's own ``2023-01-01 12:00:00.123456: I tensorflow/...`` (the stamp is followed by
``:``: its severity and source file are part of what the knowledge base reads) and glog's ``I0613 12:00:00.1 1
file.cc:12]`` (a line at a time; :mod:`envcheck.parse.line_prefix` takes a klog head off where most lines of a
text carry one, and uses this module's :data:`PREFIX` for time stamps: one grammar). Every part is bounded, so a
match is linear in the line.
"""

from __future__ import annotations

from envcheck import lazyre

__all__ = ["PREFIX", "STAMP", "TIME", "strip"]

_ISO = r"\d{4}-\d{2}-\d{2}"
#: a date with slashes: OpenMMLab's "05/15", "2024/10/15" - and Go's standard logger's "2021/08/27", whose lines are a Go
#: program's own (the k8s device plugin logging NVML's failure is not nvidia-smi failing: parse.nvidia_smi), so a bare
#: slashed stamp is no prefix here: only with Python logging's "- name - LEVEL -" after it, or in brackets
_SLASH = r"(?:\d{4}/\d{2}/\d{2}|\d{2}/\d{2}(?:/\d{2,4})?)"
TIME = r"\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[ ]?[+-]\d{2}:?\d{2}|[ ]?UTC)?"
_LEVEL = r"(?:DEBUG|INFO|SUCCESS|NOTICE|TRACE|WARNING|WARN|ERROR|CRITICAL)"
#: a date and a time (bracketed, or an ISO date bare): the stamp a logger or a log collector writes first
STAMP = rf"(?:\[(?:{_ISO}|{_SLASH})[ T]{TIME}\]|{_ISO}[ T]{TIME})"
_NAMED = rf"[ \t]{{1,3}}-[ \t]{{1,3}}[\w.<>-]{{1,64}}[ \t]{{1,3}}-[ \t]{{1,3}}{_LEVEL}[ \t]{{1,3}}-"
#: the whole prefix (no leading blanks), and the one blank after it: a stamp with what a logger writes after it -
#: a level ("2024-05-01 10:00:00,123 INFO ", "INFO:"), Python logging's "- name - LEVEL -" or "- LEVEL -", loguru's "| LEVEL |
#: module:function:line -", a dash - or a slashed stamp with Python logging's tail, or vLLM's "LEVEL MM-DD HH:MM:SS
#: [file.py:12]". Only one blank after it is taken, so what follows keeps its own indentation (an ``nvidia-smi -q``
#: line's) and a table's border ("...Z |   0  NVIDIA")
PREFIX = (
    rf"(?:{STAMP}"
    rf"(?:[ \t]{{1,8}}{_LEVEL}\b(?:[ \t]{{0,4}}[:-](?=[ \t]))?"
    rf"|{_NAMED}"
    rf"|[ \t]{{1,3}}\|[ \t]{{1,3}}{_LEVEL}[ \t]{{0,8}}\|[ \t]{{1,3}}[\w.:<>-]{{1,120}}[ \t]{{1,3}}-"
    rf"|[ \t]{{1,3}}-(?:[ \t]{{1,3}}{_LEVEL}[ \t]{{1,3}}-)?(?=[ \t]))?"
    rf"|{_SLASH}[ T]{TIME}{_NAMED}"
    rf"|{_LEVEL}[ \t]{{1,3}}\d{{2}}-\d{{2}}[ \t]{{1,3}}{TIME}(?:[ \t]{{1,3}}\[?[\w./-]{{1,80}}:\d{{1,6}}\]?)?)"
    r"(?:[ \t]|$)"
)
_PREFIX = lazyre.compile(PREFIX)

def strip(line: str) -> str:
    """``line`` without a logger's or log collector's prefix (leading blanks kept out too); any other line as it
    is."""
    s = line.lstrip(" \t")
    if not s or not (s[0].isdigit() or s[0] == "[" or s[0] in "IWDECNTS"):
        return line
    m = _PREFIX.match(s)
    return s[m.end():] if m and m.end() < len(s) else line
