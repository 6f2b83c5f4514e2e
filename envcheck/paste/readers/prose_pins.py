"""What a thread's sentences (and pip's conflict lines) say each framework needs of CUDA or cuDNN (issue 20, round
prose27, heldout/rounds/prose27-classes.md class G). This module only reads: each need is evidence
``seen:fw-needs-<framework>-<cuda|cudnn>`` with value ``OP | V1,V2,... | line`` (``OP`` ``=`` for a version or a list of
them, ``==`` for a package's exact pin - NVIDIA's CUDA runtime / cuDNN wheel pinned, or a framework with a pip extra that
pins them, "tensorflow[and-cuda]" -, ``>=`` for a floor); whether two frameworks' needs leave no common version is decided in
:func:`envcheck.engine.prose_causes.frameworks_said`.

The forms: a framework (torch / PyTorch, TensorFlow / tf, JAX / jaxlib, Theano, Paddle, MXNet; a version or a pip extra
may follow it) and, in its clause, a verb of need ("requires", "depends on", "needs", "is using", "is built against",
"can only support") with a CUDA or cuDNN version or list ("tensorflow[and-cuda]==2.15.1, which requires CUDA 12.2",
"torch2.5.1 require CUDA 11.8,12.1,12.4", "torch is built against cudnn version 8.7"), or NVIDIA's CUDA runtime / cuDNN
wheel pinned ("torch 2.5.1 depends on nvidia-cuda-runtime-cu12==12.4.127", pip's own conflict report; ">=11.8" a floor).
A version after the verb with no CUDA / cuDNN word takes the kind an earlier need of the same line named ("torch is using
cudnn 5110 while theano 0.9.0b1 can only support 5005"). Not in a question, nor after a hedge or a condition in its
sentence ("if", "maybe", "should"). A cuDNN version integer ("5110") is decoded by :func:`envcheck.parse.versions.
cudnn_digits`.

Every pattern is bounded (linear on any line); lines longer than 400 characters are read in pieces by the caller.
"""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

from envcheck.parse.versions import cudnn_digits
from envcheck.paste.readers.base import Fact
from envcheck.paste.readers.prose_join import sentence_start, sentence_stop

__all__ = ["line_facts"]

_FW_WORD = r"(?:py)?torch|tensorflow|tf|jax(?:lib)?|theano|paddle(?:paddle)?(?:-gpu)?|mxnet"
_V = r"\d{1,2}\.\d{1,2}(?:\.\d{1,4}){0,2}|\d{4,5}"
#: a framework, its version or extra, and in its clause a verb of need with a CUDA / cuDNN version (list) or a wheel pin
_NEED = re.compile(
    r"(?i)(?<![\w.-])(?P<fw>" + _FW_WORD + r")(?![a-z_-])(?P<extra>\[[\w,-]{1,24}\])?"
    r"(?:\s{0,2}(?:==|=|-|\s)?\s{0,2}v?\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:\.?post\d{1,3}|[a-z]{1,3}\d{0,3})?)?"
    r"(?:(?!(?<![\w.-])(?:" + _FW_WORD + r")(?![\w-]))[^.;\n]|\.\d){0,40}?"
    r"(?<![\w-])(?P<verb>requires?|required|depends\s{1,2}on|needs?|is\s{1,2}using|uses|(?:is|was)\s{1,2}built\s{1,2}"
    r"(?:against|with)|built\s{1,2}(?:against|with)|(?:is\s{1,2}|was\s{1,2})?compiled\s{1,2}(?:against|with)"
    r"|can\s{1,2}only\s{1,2}support|only\s{1,2}supports?)\s{1,2}"
    r"(?:(?P<kind>cuda|cudnn)\s{0,2}(?:version\s{1,2})?(?P<vers>(?:" + _V + r")(?:\s{0,3}(?:,|and|or|/)\s{0,3}"
    r"(?:cuda\s{0,2})?(?:" + _V + r")){0,8})"
    r"|(?P<wheel>nvidia[-_](?:cuda[-_]runtime|cudnn)[-_]cu1\d)(?:\{[^}\n]{0,80}\})?\s{0,2}(?P<op>==|>=|-|\s)\s{0,2}"
    r"(?P<wv>\d{1,2}\.\d{1,3}(?:\.\d{1,4}){0,2})"
    r"|(?P<bare>(?:" + _V + r")))(?!\d)")
_HEDGE = re.compile(r"(?i)(?<![\w'])(?:if|whether|unless|maybe|perhaps|might|may|could|would|should|will|probably"
                    r"|possibly|i\s{1,2}(?:think|guess|wonder|suspect|believe))(?![\w'])")
_NAMES = {"pytorch": "torch", "torch": "torch", "tensorflow": "tensorflow", "tf": "tensorflow", "jax": "jax",
          "jaxlib": "jax", "theano": "theano", "mxnet": "mxnet"}


def _fw(word: str) -> str:
    w = word.lower()
    return "paddle" if w.startswith("paddle") else _NAMES.get(w, w)


def _version(kind: str, v: str) -> Optional[str]:
    v = v.strip()
    if "." not in v:
        # "5110": cuDNN's integer; a bare CUDA integer is no version
        v = (cudnn_digits(v, 4) or "") if kind == "cudnn" else ""
    return ".".join(v.split(".")[:2]) or None


def _stated(s: str, start: int) -> bool:
    begin = sentence_start(s, start)
    return not _HEDGE.search(s[begin:start]) and "?" not in s[begin:sentence_stop(s, start)]


def _need(m: "re.Match[str]", last_kind: Optional[str]) -> Optional[Tuple[str, str, List[str]]]:
    """(kind, op, versions) of one match, or None."""
    if m.group("wheel"):
        kind = "cudnn" if "cudnn" in m.group("wheel").lower() else "cuda"
        got = _version(kind, m.group("wv"))
        return (kind, ">=" if m.group("op") == ">=" else "==", [got]) if got else None
    kind = (m.group("kind") or last_kind or "").lower()
    if not kind:
        return None
    raw = m.group("vers") or m.group("bare") or ""
    found = [_version(kind, v) for v in re.findall(_V, raw)]
    versions = list(dict.fromkeys(v for v in found if v))
    # a pip extra ("tensorflow[and-cuda]") installs NVIDIA's CUDA wheels pinned to that CUDA release: an exact pin
    return (kind, "==" if m.group("extra") else "=", versions) if versions else None


def line_facts(s: str, low: str) -> List[Fact]:
    """``seen:fw-needs-<framework>-<kind>`` for each need one line states: see the module's docstring."""
    if len(s) > 400 or not ("cuda" in low or "cudnn" in low) or not any(
            w in low for w in ("torch", "tensorflow", "tf", "jax", "theano", "paddle", "mxnet")):
        return []
    out: List[Fact] = []
    last_kind: Optional[str] = None
    for m in _NEED.finditer(s):
        need = _need(m, last_kind)
        if need is None or not _stated(s, m.start()):
            continue
        kind, op, versions = need
        last_kind = kind
        out.append(Fact(f"seen:fw-needs-{_fw(m.group('fw'))}-{kind}", f"{op} | {','.join(versions)} | {s}", s))
    return out
