"""``envcheck explain``: find the known GPU-stack failures in a log, rank them, say how to fix them.

The knowledge is data (``compat_matrix/errors.toml``, see :mod:`envcheck.explain.kb`). A log is
read line by line (:mod:`envcheck.explain.reader`); each line is checked against every signature's
cheap literal prefilter and, only where one is present, its regex. A bounded window of recent
matches resolves misleading surfaces (an out-of-memory line just before CUDNN_STATUS_NOT_INITIALIZED
makes the out-of-memory the root cause). With an :class:`~envcheck.model.Environment` the generic
fixes become exact ones (:mod:`envcheck.explain.machine`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional

from envcheck.model import Environment

__all__ = ["Match", "explain_lines", "explain_text", "build_explain_report", "SCHEMA", "WINDOW",
           "cudnn_version"]

SCHEMA = "envcheck/explain/1"
WINDOW = 40  # lines: how far back a context/upstream line still explains a later one
EVIDENCE_MAX = 500


@dataclass
class Match:
    id: str
    title: str
    evidence: str
    line_no: int
    fixes: List[str]
    dead_ends: List[str]
    score: float
    captures: Dict[str, str] = field(default_factory=dict)
    source: str = ""
    signature: str = ""
    count: int = 1
    fix_sources: List[str] = field(default_factory=list)
    dead_end_sources: List[str] = field(default_factory=list)
    explained_by: Optional[str] = None  # the upstream cause id that explains this one
    machine: List[str] = field(default_factory=list)  # what the detected machine adds
    generic: bool = False

    def to_dict(self) -> dict:
        d = {"id": self.id, "title": self.title, "evidence": self.evidence, "fixes": list(self.fixes),
             "dead_ends": list(self.dead_ends), "line_no": self.line_no, "captures": dict(self.captures),
             "score": round(self.score, 1), "source": self.source, "signature": self.signature,
             "count": self.count}
        if self.explained_by:
            d["explained_by"] = self.explained_by
        if self.machine:
            d["machine"] = list(self.machine)
        return d


def _evidence(line: str) -> str:
    s = line.strip()
    return s if len(s) <= EVIDENCE_MAX else s[: EVIDENCE_MAX - 1] + "…"


def cudnn_version(text: Optional[str]) -> Optional[str]:
    """A cuDNN version as logs print it -> "major.minor.patch": "(8, 9, 2)", "8.9.4.", "7004"
    (7.0.4), "90100" (9.1.0)."""
    if not text:
        return None
    t = text.strip().rstrip(".")
    m = re.match(r"^\((\d+),\s*(\d+),\s*(\d+)\)$", t)
    if m:
        return ".".join(m.groups())
    if re.match(r"^\d+(\.\d+)+$", t):
        return t
    if re.match(r"^\d{4,6}$", t):
        v = int(t)
        if v >= 10000:
            return f"{v // 10000}.{v % 10000 // 100}.{v % 100}"
        return f"{v // 1000}.{v % 1000 // 100}.{v % 100}"
    return None


def _normalize_captures(sig_name: str, caps: Dict[str, str]) -> Dict[str, str]:
    out = {k: v.strip() for k, v in caps.items() if v}
    for k in ("compiled", "loaded"):
        if k in out:
            v = cudnn_version(out[k])
            if v:
                out[k] = v
    if "driver_cuda_int" in out:
        v = int(out.pop("driver_cuda_int"))
        out["driver_cuda"] = f"{v // 1000}.{v % 1000 // 10}"
    if "arch_list" in out:
        out["arch_list"] = " ".join(out["arch_list"].split())
    if sig_name.startswith("torch-") and "compiled" in out:
        out.setdefault("framework", "torch")
    return out


def explain_lines(lines: Iterable[str], env: Optional[Environment] = None, matrix=None) -> List[Match]:
    """Every known failure in ``lines`` (any iterable; consumed once, in bounded memory), best first."""
    from envcheck.explain.kb import load_kb

    kb = load_kb(matrix)
    sigs = kb.signatures
    gate = kb.gate
    lit_items = list(kb.by_literal.items())
    matches: Dict[str, Match] = {}
    last_seen: Dict[str, int] = {}  # cause -> last line it was seen on (primary or context)
    upstream_hits: Dict[str, int] = {}
    n = 0
    for n, raw in enumerate(lines, 1):
        line = raw if len(raw) <= 20000 else raw[:20000]
        low = line.lower()
        if gate is None or gate.search(low) is None:
            continue
        todo = sorted({i for lit, idx in lit_items if lit in low for i in idx})
        for i in todo:
            sig = sigs[i]
            m = sig.regex.search(line)
            if not m:
                continue
            caps = _normalize_captures(sig.name, {k: v for k, v in m.groupdict().items() if v})
            cause_id = sig.cause
            if sig.route == "lib":
                routed = kb.route_library(caps.get("lib", ""))
                if routed is None:
                    continue  # a library that is not part of the GPU stack (e.g. TensorRT's libnvinfer)
                cause_id = routed
            if sig.role == "context":
                last_seen[cause_id] = n
                continue
            if sig.role == "detail":
                cur = matches.get(cause_id)
                if cur is not None and n - cur.line_no <= WINDOW:
                    for k, v in caps.items():
                        cur.captures.setdefault(k, v)
                continue
            cause = kb.causes[cause_id]
            cur = matches.get(cause_id)
            if cur is None:
                cur = Match(id=cause_id, title=cause.title, evidence=_evidence(line), line_no=n,
                            fixes=[t for t, _ in cause.fixes], dead_ends=[t for t, _ in cause.dead_ends],
                            score=float(cause.weight), captures=caps, source=sig.source, signature=sig.name,
                            fix_sources=[s for _, s in cause.fixes],
                            dead_end_sources=[s for _, s in cause.dead_ends], generic=sig.generic)
                matches[cause_id] = cur
            else:
                if cur.line_no != n:
                    cur.count += 1
                if cur.generic and not sig.generic:  # a specific wording beats a generic one
                    cur.evidence, cur.line_no, cur.signature, cur.source = _evidence(line), n, sig.name, sig.source
                    cur.generic = False
                for k, v in caps.items():
                    cur.captures.setdefault(k, v)
            # is this explained by something just above it (an out-of-memory before NOT_INITIALIZED)?
            if cur.explained_by is None:
                for up, seen in last_seen.items():
                    if up != cause_id and cause_id in kb.causes[up].downstream and n - seen <= WINDOW:
                        cur.explained_by = up
                        upstream_hits[up] = upstream_hits.get(up, 0) + 1
                        break
            last_seen[cause_id] = n
    # a context-only upstream (e.g. TF's allocator warning) becomes a match when it explains something
    for up in upstream_hits:
        if up not in matches:
            cause = kb.causes[up]
            matches[up] = Match(id=up, title=cause.title, evidence="(an out-of-memory warning above the failure)",
                                line_no=last_seen.get(up, 0), fixes=[t for t, _ in cause.fixes],
                                dead_ends=[t for t, _ in cause.dead_ends], score=float(cause.weight),
                                source=cause.source, signature="context",
                                fix_sources=[s for _, s in cause.fixes],
                                dead_end_sources=[s for _, s in cause.dead_ends], generic=True)
    out = list(matches.values())
    for mt in out:
        if mt.generic:
            mt.score -= 8
        if mt.id in upstream_hits:
            mt.score += 10
        if mt.explained_by and mt.explained_by in matches:
            mt.score = min(mt.score, matches[mt.explained_by].score) - 10
    if env is not None or matrix is not None:
        from envcheck.explain.machine import refine

        out = refine(out, env, matrix)
    out.sort(key=lambda m: (-m.score, m.line_no))
    return out


def explain_text(text: str, env: Optional[Environment] = None, matrix=None) -> List[Match]:
    return explain_lines(text.splitlines(), env=env, matrix=matrix)


def build_explain_report(matches: List[Match], detected: Optional[str] = None, **extra) -> dict:
    """The JSON document of contract §4 (``envcheck/explain/1``); ``detected`` says what machine
    facts were used ("live", "snapshot PATH", or None for text only). Extra keys (notes,
    lines_scanned, input) are added as given."""
    rep = {"schema": SCHEMA, "matches": [m.to_dict() for m in matches], "detected": detected}
    rep.update({k: v for k, v in extra.items() if v is not None})
    return rep
