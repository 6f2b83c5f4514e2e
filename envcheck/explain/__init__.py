"""``envcheck explain``: find the known GPU-stack failures in a log, rank them, say how to fix them.

The knowledge is data (``compat_matrix/errors.toml``, see :mod:`envcheck.explain.kb`): causes with
signatures (families of wordings with variables: the library that failed to load and its major,
the versions printed) and facts (driver version, compute capability, framework versions printed in
the text). A log is scanned in blocks of lines: the prefilter looks for the few *cover* literals
(literals that contain no other) over a whole block with ``bytes.find``, and only the lines that hold
one are decoded and given to the signatures' regexes, which are linear (bounded repeats, no nested
quantifiers). A bounded window of recent matches resolves misleading surfaces (an out-of-memory line
just before CUDNN_STATUS_NOT_INITIALIZED makes the out-of-memory the root cause; a "could not destroy
cudnn handle" teardown line never outranks the failure before it). The fixes then follow the facts
at hand: those of the log itself, of a pasted environment report, or of the detected machine
(:mod:`envcheck.explain.machine`).
"""

from __future__ import annotations

import re
import sys as _sys
import types as _types
from dataclasses import dataclass, field
from typing import (Any, BinaryIO, Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple,
                    Union)

from envcheck.model import Environment
from envcheck.parse.versions import cuda_from_int, cudnn_digits, small_int

__all__ = ["Match", "ExplainResult", "explain_lines", "explain_text", "explain_stream", "scan_lines",
           "build_explain_report", "SCHEMA", "WINDOW", "cudnn_version", "library_major"]

from envcheck.explain.reader import HEAD, MAX_LINE, TAIL, unfold

SCHEMA = "envcheck/explain/1"
WINDOW = 40  # lines: how far back a context/upstream line still explains a later one
EVIDENCE_MAX = 500
_BLOCK = 1 << 20  # bytes read (and lines batched) at a time
_MEMO = 4096  # (signature, line) outcomes remembered (then forgotten all at once): bounded memory
#: the RE2 path's memories of lines (what a line feeds, or that it holds no literal): at most this many lines each,
#: and at most _KEPT bytes of lines each (then forgotten all at once): bounded memory that still holds the
#: distinct lines of a long real log (a few thousand; a log of 700 real failure logs repeated has 4,460)
_LINES = 1 << 13
_KEPT = 8 << 20
_DENSE = 8  # a searched block whose lines stopped at are 1/8 of its lines or more, and 7/8 of those known: walk next
_GAP = 64  # lines of a gap between two literal lines remembered as holding none (RE2 path)
_WRAP_KEPT = 2048  # the longest pair of lines (bytes) whose hard-wrap join is remembered (RE2 path)


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
    cleanup: bool = False
    fix_whens: List[str] = field(default_factory=list)  # per fix: the condition on the facts ("" = always)
    notes: List[str] = field(default_factory=list)  # what envcheck could not work out for this match, and why
    floor: str = ""  # the evidence signature's ``floor`` (errors.toml): "gpu-generation" = a limit no build lifts
    vendor: str = ""  # the evidence signature's ``vendor`` (errors.toml): a failure of that vendor's own stack
    ptxas_cuda_major: int = 0  # the evidence signature's ``ptxas_cuda_major`` (errors.toml): 0 = none stated
    says: Tuple[str, ...] = ()  # the evidence signature's ``says`` (errors.toml): what the vendor rules read
    framework: str = ""  # the evidence signature's ``framework`` (errors.toml): whose own wording it is

    def to_dict(self) -> Dict[str, Any]:
        d = {"id": self.id, "title": self.title, "evidence": self.evidence, "fixes": list(self.fixes),
             "dead_ends": list(self.dead_ends), "line_no": self.line_no, "captures": dict(self.captures),
             "score": round(self.score, 1), "source": self.source, "signature": self.signature,
             "count": self.count}
        if self.explained_by:
            d["explained_by"] = self.explained_by
        if self.machine:
            d["machine"] = list(self.machine)
        if self.notes:
            d["notes"] = list(self.notes)
        return d



# The one rule that picks a cause's evidence among its candidate matches (docs/matcher.md, "Which line is the
# evidence"). Both paths (RE2's line set and the literal prefilter with either engine) feed the lines in file order and
# a line's signatures in :meth:`_Scan.order` (errors.toml order, contexts first; a veto or a teardown line alone), and
# both decide through these two functions only, so the same candidates give the same evidence on either path:
# the first candidate is kept; a later one replaces it only where :func:`_replaces` says it is stronger.
def _only_counted(cur: Optional[Match], n: int, cause_id: str, has_upstream: FrozenSet[str]) -> bool:
    """A match of cause ``cause_id`` on line ``n`` only counts (and adds captures) when the cause was seen on another
    line before with a specific, non-teardown wording, and nothing above can still explain it: no later match then
    replaces its evidence."""
    return cur is not None and cur.line_no != n and not (cur.cleanup or cur.generic) and (
        cur.explained_by is not None or cause_id not in has_upstream)


def _replaces(cur: Match, sig: Any, n: int, cause: Any) -> bool:
    """Whether signature ``sig``, matched on line ``n``, takes over ``cur``'s evidence: a failure beats a teardown
    line, a specific wording a generic one (on any later line), and on the line first matched a wording with its own
    fix one without it (:func:`_own_fix_wins`). Otherwise the first candidate stays, the earlier line or, on one line,
    the earlier signature of errors.toml."""
    return (cur.cleanup and not sig.cleanup) or (cur.generic and not sig.generic and not sig.cleanup) or \
        _own_fix_wins(cur, sig, n, cause)


def _own_fix_wins(cur: Match, sig: Any, n: int, cause: Any) -> bool:
    """On the line a cause was first matched on, a wording with its own fix beats one without it, whatever their order
    in errors.toml: "HIP error: no kernel image is available" is both CUDA's sentence (no fix of its own) and
    hipErrorNoBinaryForGpu's text (the ROCm fix) - vlogs21o."""
    if cur.line_no != n or not sig.fix or sig.generic or sig.cleanup or cur.signature == sig.name:
        return False
    return cur.fixes[:1] == [t for t, _, _ in cause.fixes[:1]]


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
    return cudnn_digits(t, min_digits=4)


def library_major(lib: str, family: str, sonames: Optional[Dict[str, str]] = None) -> Optional[Tuple[str, int]]:
    """("cuda", N) or ("cudnn", N) for a library file name, when its name carries the major:
    libcudart.so.11.0 -> cuda 11, cudart64_110.dll -> cuda 11, nvrtc64_112_0.dll -> cuda 11,
    libcudnn_ops_infer.so.8 / cudnn_ops64_9.dll -> cudnn 8 / 9. None for other families (libcufft.so.10
    is cuFFT's own version, not CUDA's). Which number a family's name carries is the matrix's (cuda.toml
    ``[[cuda_library]]`` ``soname``): ``sonames`` (family -> "cuda" / "cudnn", the knowledge base's), else the active
    matrix's."""
    name = lib.strip().lower().rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    if sonames is None:
        from envcheck.engine.rules import library_soname

        kind = library_soname(None, family)
    else:
        kind = sonames.get(family)
    if kind == "cudnn":
        m = re.search(r"\.so\.(\d{1,2})\b", name) or re.search(r"64_(\d{1,2})\.dll$", name)
        return ("cudnn", int(m.group(1))) if m else None
    if kind != "cuda":
        return None
    m = re.search(r"\.so\.(\d{1,2})\b", name)
    if m:
        return "cuda", int(m.group(1))
    m = re.search(r"_(\d{2,3})(?:_\d{1,2})?\.dll$", name)
    if not m:
        return None
    from envcheck.engine.rules import windows_dll_major  # the one reading of a Windows CUDA library's number

    return "cuda", windows_dll_major(int(m.group(1)))


def _same_framework(context: str, line: str) -> bool:
    """A context line of one framework's own wording (errors.toml ``framework``) explains a line of no framework or of
    the same one, never another framework's (attack43)."""
    return not context or not line or context == line


def normalize_captures(framework: str, caps: Dict[str, str]) -> Dict[str, str]:
    out = {k: v.strip() for k, v in caps.items() if v}
    for k in ("compiled", "loaded"):
        if k in out:
            v = cudnn_version(out[k])
            if v:
                out[k] = v
    for k in ("driver_cuda_int", "found_cuda_int", "built_cuda_int"):  # 12010 -> "12.1"
        if k in out:
            cuda = cuda_from_int(small_int(out.pop(k)))
            if cuda:
                out[k[:-4]] = cuda
    if "built_cuda_mmnn" in out:  # xformers' "with CUDA 1201": major * 100 + minor -> "12.1"
        n = int(out.pop("built_cuda_mmnn"))
        out["built_cuda"] = f"{n // 100}.{n % 100}"
    if "arch_list" in out:
        out["arch_list"] = " ".join(out["arch_list"].split())
    if "versions_found" in out:  # pip's "(from versions: ...)": only whether it lists the pinned release is kept
        listed = {v.strip() for v in out.pop("versions_found").split(",")}
        public = out.get("wanted", "").split("+", 1)[0]
        if public and public in listed:
            out["release_found"] = public
    if framework == "torch" and "compiled" in out:  # (the signature's ``framework``, errors.toml)
        out.setdefault("framework", "torch")
    return out



#: the capture names :func:`normalize_captures` rewrites (a signature with none of them, not torch's own, only has
#: its values stripped)
_NORMALIZED = frozenset({"compiled", "loaded", "driver_cuda_int", "found_cuda_int", "built_cuda_int",
                         "built_cuda_mmnn", "arch_list", "versions_found"})


def _fast_search(sig: Any) -> Optional[Tuple[Any, Any, Tuple[Tuple[str, int], ...], bool]]:
    """(RE2's own match, its anchor, the named groups as (name, index), whether :func:`normalize_captures` has more
    to do than strip) for signature ``sig`` on an ASCII line's bytes; None with the fallback engine."""
    am = getattr(sig.regex, "ascii_match", None)
    if am is None:
        return None
    match, anchor, names = am()
    special = sig.framework == "torch" or any(name in _NORMALIZED for name, _ in names)
    return match, anchor, names, special


# --------------------------------------------------------------------------- the matcher
class _ScanBase:
    """What a scan reads of a knowledge base and never changes: worked out once per knowledge base (kept on it, as its
    compiled sets are), where each scan - each ``explain`` call - worked it out again (~3 M instructions, the fixed
    cost of a call on a short log). Pure functions of the knowledge base; a scan only reads them (its own
    ``fact_only`` is a copy)."""

    def __init__(self, kb: Any) -> None:
        # cover index -> [(literal, signature indexes, fact indexes)] of the literals that contain it
        self.groups: List[List[Tuple[str, List[int], List[int]]]] = [
            [(lit, kb.by_literal.get(lit, []), kb.fact_literal.get(lit, [])) for lit in lits]
            for lits in kb.under_cover]
        #: the literals under a cover (:meth:`_Scan.feed_sets` finds only these)
        self.grouped = frozenset(lit for lits in kb.under_cover for lit in lits)
        self.cleanup_first = [i for i, sg in enumerate(kb.signatures) if sg.cleanup]
        #: the vetoes (kind = "veto": a line that is no evidence of any cause, nor is the one after it), tried first
        self.veto_first = [i for i, sg in enumerate(kb.signatures) if sg.veto]
        #: a context signature runs before the others of its line: a line such as "docker compose up ... Found no
        #: NVIDIA driver" is its own context
        self.context_sigs = frozenset(i for i, sg in enumerate(kb.signatures) if sg.role == "context")
        #: the signatures that make :meth:`_Scan.order` more than ``sorted(todo)``
        self.ordered = frozenset([*self.veto_first, *self.cleanup_first, *self.context_sigs])
        #: signature index -> it is neither a veto nor a context nor a detail (a match of it is a failure seen)
        self.plain = tuple(not sg.veto and sg.role not in ("context", "detail", "tail") for sg in kb.signatures)
        #: signature index -> (its fix, the causes it explains, its framework) for a context signature that is not a
        #: veto, else None
        self.ctx = tuple((sg.fix, sg.explains, sg.framework) if sg.role == "context" and not sg.veto else None
                         for sg in kb.signatures)
        #: signature index -> its pattern has no named group (a match of it captures nothing: normalize_captures
        #: of no captures is none)
        self.groupless = tuple("(?P<" not in p and "(?<" not in p for p, _ in kb.set_patterns[:len(kb.signatures)])
        # cover index -> the fact names it serves, when it serves no signature (each scan deletes from its copy)
        self.fact_only: Dict[int, Set[str]] = {}
        for ci, group in enumerate(self.groups):
            if not any(sidx for _, sidx, _ in group):
                self.fact_only[ci] = {kb.facts[fi].name for _, _, fidx in group for fi in fidx}
        #: signature index -> :func:`_fast_search`'s answer (_UNSET until its first ASCII line; a pure function of
        #: the compiled pattern, filled in by the scans)
        self.fast: List[Any] = [_UNSET] * len(kb.signatures)
        #: the causes that some cause names as downstream (the only ones another can explain)
        self.has_upstream = frozenset({d for c in kb.causes.values() for d in c.downstream} | {
            d for sg in kb.signatures for d in sg.explains})
        self.cover_bytes = [c.encode() for c in kb.cover]
        #: which cover literals a line's lower-cased bytes hold, in one RE2 pass (:func:`_covers_in`); None until a scan
        #: first asks, False with the fallback engine
        self.cover_set: Any = None
        #: (the literal set, :func:`_block_gates`'s ``dead`` of it while no fact is read); None until a scan works it out
        self.dead: Optional[Tuple[Any, FrozenSet[int]]] = None


class _Scan:
    """The matcher's state over one log: fed the lines that hold a cover literal, in order."""

    def __init__(self, kb: Any) -> None:
        self.kb = kb
        self.matches: Dict[str, Match] = {}
        self.last_seen: Dict[str, int] = {}  # cause -> last line it was seen on (primary or context)
        self.upstream_hits: Dict[str, int] = {}
        self.context_evidence: Dict[str, str] = {}  # cause -> the last context line seen for it
        self.facts: Dict[str, str] = {}
        #: what the facts show in place of a match dropped by explain/machine.py (the document's top-level notes)
        self.notes: List[str] = []
        # what depends on the knowledge base alone (worked out once per knowledge base: _ScanBase)
        base = kb._scan_base
        if base is None:
            base = kb._scan_base = _ScanBase(kb)
        self.base = base
        self.groups = base.groups
        self.grouped = base.grouped
        self.cleanup_first = base.cleanup_first
        self.veto_first = base.veto_first
        self.context_sigs = base.context_sigs
        self.ordered = base.ordered
        self.plain = base.plain
        self.ctx = base.ctx
        self.veto_line = -2  # the last line a veto matched on
        self.context_fix: Dict[str, Any] = {}  # cause -> the (text, source, when) of the last context line's own fix
        self.groupless = base.groupless
        # cover index -> the fact names it serves, when it serves no signature: once those facts are read,
        # the prefilter stops looking for it (the first value of a fact is the one kept; this scan's copy)
        self.fact_only: Dict[int, Set[str]] = dict(base.fact_only)
        self.active = list(range(len(kb.cover)))
        # the fallback engine (Python's re) reads at most LINE_CAP characters of a line: its bound
        from envcheck.explain.matcher import LINE_CAP

        self.cap = 20000 if kb.matcher == "re2" else LINE_CAP
        self._memo: Dict[Tuple[int, str], Tuple[bool, Optional[Tuple[str, Dict[str, str]]]]] = {}
        #: (library name, route) -> (kb.library's answer, kb.route_library's)
        self._libs: Dict[Tuple[str, str], Tuple[Any, Optional[str]]] = {}
        self.fast = base.fast
        self.has_upstream = base.has_upstream
        #: cause -> (the last line a context signature with ``explains`` matched on, the causes it explains)
        self.context_seen: Dict[str, Tuple[int, Tuple[str, ...], str]] = {}
        #: a line's bytes -> what it feeds on the RE2 path (:func:`_line_got`; bounded)
        self.line_memo: Dict[bytes, Any] = {}
        self.matched = 0  # signature regexes that matched so far (a line that matched needs no wrap mending)
        #: the RE2 path's gate (its literals) and the lines seen to hold one of them (-> what each feeds) or none (False)
        #: (bounded: cleared when full)
        self.hit_gate: Tuple[str, ...] = ()
        self.hit_lines: Dict[bytes, Any] = {}
        #: the RE2 path's lines that hold no literal of a signature or of a fact not yet read (bounded)
        self.no_need: Set[bytes] = set()
        #: the literal set's answer for a line (the literals it holds) -> (the signatures, the facts) of those (bounded)
        self.held_sets: Dict[Tuple[int, ...], Tuple[Set[int], Set[int], Optional[List[int]]]] = {}
        #: bytes of lines held by hit_lines, line_memo and no_need, each (:func:`_keep`)
        self.kept = [0, 0, 0]
        self.cover_bytes = base.cover_bytes
        #: the RE2 path's blocks so far, and whether the last one walked paid (see _scan_block_set)
        self.blocks = 0
        self.probe_at = self.probe_every = _PROBE  # (the RE2 path's next searched block walked to see whether walking
        # pays again, and the blocks between two such: _scan_block_set)
        self.stops = self.fresh = 0  # (a searched block's lines stopped at, and those not known then)
        self.walk = True
        #: the RE2 path's search for the need gate's literals or a hard-wrap break, whichever comes first (None where
        #: the knowledge base's literals do not allow it: the two searches of :func:`_gate_block`)
        self.both: Any = None
        self.cross = False  # (see _CROSS_MIN: set at the first long block, kept)
        #: the RE2 path's hard-wrap joins of two lines: what each feeds (:func:`_join_set`; bounded)
        self.wrap_memo: Dict[bytes, Optional[Tuple[str, List[Tuple[int, Any]], List[int], bool]]] = {}
        #: the same, keyed by the two lines (bytes, bytes) (:func:`_map_block`; bounded as wrap_memo)
        self.wrap_pairs: Dict[Tuple[bytes, bytes], Any] = {}

    def active_cover(self) -> List[int]:
        """The cover indexes still worth looking for."""
        if self.fact_only:
            done = [ci for ci, names in self.fact_only.items() if names <= self.facts.keys()]
            if done:
                for ci in done:
                    del self.fact_only[ci]
                gone = set(done)
                self.active = [ci for ci in self.active if ci not in gone]
        return self.active

    def feed(self, n: int, line: str, hits: Optional[Iterable[int]] = None,
             only: Optional[Set[str]] = None) -> None:
        """Match one line; ``only``: just the literals named (a line joined across a hard wrap)."""
        self.run(n, *self.feed_sets(line, hits, only))

    def feed_sets(self, line: str, hits: Optional[Iterable[int]] = None,
                  only: Optional[Set[str]] = None) -> Tuple[str, Set[int], Set[int]]:
        """(the line as matched, the signatures, the facts) that :meth:`feed` runs on it (a pure function)."""
        kb = self.kb
        if len(line) > self.cap:
            line = line[:self.cap]
        low = line.lower()
        todo: Set[int] = set()
        facts: Set[int] = set()
        if hits is None and only is not None:
            # a join's few literals (``only``): each one in ``low`` and under a cover is found by the loop below (its
            # cover is in it too), and only those: the same sets without a search per cover over the joined text
            grouped = self.grouped
            for lit in only:
                if lit in grouped and lit in low:
                    todo.update(kb.by_literal.get(lit, ()))
                    facts.update(kb.fact_literal.get(lit, ()))
            return line, todo, facts
        if hits is None:
            hits = [ci for ci, c in enumerate(kb.cover) if c in low]
        for ci in hits:
            for lit, sidx, fidx in self.groups[ci]:
                if lit in low and (only is None or lit in only):
                    todo.update(sidx)
                    facts.update(fidx)
        return line, todo, facts

    def run(self, n: int, line: str, todo: Set[int], facts: Set[int]) -> None:
        """The facts (indexes) and signatures (indexes) whose literals ``line`` holds, matched on it."""
        self.read_facts(line, sorted(facts))
        if todo:
            for i in self.order(line, todo):
                self._signature(n, line, i)

    def read_facts(self, line: str, facts: Sequence[int]) -> None:
        kb = self.kb
        rows = kb.facts
        # a fact's vetoes (errors.toml [[fact]] kind = "veto": the line says it of another machine) first
        barred = {rows[fi].name for fi in facts if rows[fi].veto and rows[fi].name not in self.facts
                  and rows[fi].regex.search(line)}
        for fi in facts:
            fc = rows[fi]
            if fc.name in self.facts or fc.veto or fc.name in barred:
                continue
            m = fc.regex.search(line)
            if m and m.group("value"):
                self.facts[fc.name] = m.group("value").strip()

    def order(self, line: str, todo: Set[int]) -> List[int]:
        """The signatures of ``todo`` to match on ``line``, in order (a pure function of the two)."""
        # a veto line (a GPU library named in a failure that is not the GPU stack's) is nothing at all
        for i in self.veto_first:
            if i in todo and self._outcome(line, i)[0]:
                return [i]
        # a teardown line ("could not destroy cudnn handle: ...") is nothing but that
        for i in self.cleanup_first:
            if i in todo and self._outcome(line, i)[0]:
                return [i]
        if self.context_sigs.isdisjoint(todo):
            return sorted(todo)
        return sorted(todo, key=lambda i: (i not in self.context_sigs, i))

    def _outcome(self, line: str, i: int, matches: bool = False) -> Tuple[bool, Optional[Tuple[str, Dict[str, str]]]]:
        """(the regex matched, (cause, captures) or None when routed out) of signature ``i`` on ``line``:
        a pure function of the two, remembered for the lines seen last (a log repeats its lines). ``matches``:
        the caller knows that the pattern matches ``line`` (the RE2 line set said so of these very bytes); a
        pattern without a named group then has nothing to capture, and is not run again."""
        key = (i, line)
        got = self._memo.get(key)
        if got is not None:
            return got
        kb = self.kb
        sig = kb.signatures[i]
        if matches and not sig.route and self.groupless[i]:
            got = (True, (sig.cause, {}))
            if len(self._memo) >= _MEMO:
                self._memo.clear()
            self._memo[key] = got
            return got
        fast = self.fast[i] if line.isascii() else None
        if fast is _UNSET:  # (the signature's first ASCII line)
            fast = self.fast[i] = _fast_search(sig)
        caps: Optional[Dict[str, str]] = None
        if fast is not None:  # RE2 on an ASCII line's bytes: its spans are str offsets, no match object
            raw = line.encode("ascii")
            spans = fast[0](fast[1], raw, 0, len(raw))
            if spans[0][0] >= 0:
                caps = {name: line[spans[g][0]:spans[g][1]] for name, g in fast[2] if spans[g][1] > spans[g][0]}
        else:
            m = sig.regex.search(line)
            if m:
                filled = getattr(m, "filled", None)  # (RE2 on an ASCII line: its non-empty groups at once)
                caps = filled() if filled is not None else {k: v for k, v in m.groupdict().items() if v}
        # (normalize_captures of groups none of its rules reads: each value stripped)
        got = _MISS if caps is None else self._resolve(sig, caps, fast is not None and not fast[3])
        if len(self._memo) >= _MEMO:
            self._memo.clear()
        self._memo[key] = got
        return got

    def _resolve(self, sig: Any, caps: Dict[str, str], strip_only: bool) -> Tuple[bool, Optional[Tuple[str, Dict[str, str]]]]:
        """:meth:`_outcome` of signature ``sig`` on a line it matched, its named groups' non-empty values ``caps`` (a
        new dictionary, kept): (True, (cause, captures)), or (True, None) when its route sends the library out of the
        GPU stack. ``strip_only``: :func:`normalize_captures` has nothing to do but strip the values."""
        caps = {k: v.strip() for k, v in caps.items()} if strip_only else normalize_captures(sig.framework, caps)
        if not sig.route:
            return True, (sig.cause, caps)
        kb = self.kb
        lib = caps.get("lib", "")
        known = self._libs.get((lib, sig.route))
        if known is None:  # pure functions of the name and route, and a log names few libraries
            known = (kb.library(lib), kb.route_library(lib, sig.route))
            if len(self._libs) >= _MEMO:
                self._libs.clear()
            self._libs[(lib, sig.route)] = known
        row, routed = known
        if routed is None or row is None:
            return True, None  # a library that is not part of the GPU stack (e.g. TensorRT's libnvinfer)
        caps["lib_family"] = row[1] or caps.get("lib_family", "")
        lm = library_major(caps.get("lib", ""), row[1], kb.sonames or None)
        if lm:
            caps[f"{lm[0]}_major"] = str(lm[1])
        return True, (routed, {k: v for k, v in caps.items() if v})

    def _signature(self, n: int, line: str, i: int,
                   outcome: Optional[Tuple[bool, Optional[Tuple[str, Dict[str, str]]]]] = None) -> None:
        """Signature ``i`` on line ``n``; ``outcome``: its :meth:`_outcome` on ``line``, when the caller has it."""
        kb = self.kb
        sig = kb.signatures[i]
        if outcome is None:
            outcome = self._memo.get((i, line))  # _outcome's memory, read here first: this runs once per match
        matched, res = outcome if outcome is not None else self._outcome(line, i)
        if matched:
            self.matched += 1
        if res is None:
            return
        cause_id, caps = res  # shared with the memo: copied where it is kept (a new Match)
        if self._marker(n, line, sig, cause_id):
            return
        if sig.role in ("detail", "tail"):
            cur = self.matches.get(cause_id)
            if cur is not None and n - cur.line_no <= WINDOW:
                for k, v in caps.items():
                    cur.captures.setdefault(k, v)
                return
            if sig.role == "detail" or cur is not None:
                return
            # a tail line whose message's first line is not in the text: it stands for its cause (below)
        cur = self.matches.get(cause_id)
        if _only_counted(cur, n, cause_id, self.has_upstream):
            assert cur is not None
            # the common case, a cause seen before on another line (a log repeats its failure): its count, its
            # captures and when it was last seen (the general path below, where nothing else can change)
            cur.count += 1
            if caps:
                setdefault = cur.captures.setdefault
                for k, v in caps.items():
                    setdefault(k, v)
            self.last_seen[cause_id] = n
            return
        cause = kb.causes[cause_id]
        if cur is None:
            fixes = list(cause.fixes)
            if sig.fix:
                fixes.insert(0, sig.fix)
            cur = Match(id=cause_id, title=cause.title, evidence=_evidence(line), line_no=n,
                        fixes=[t for t, _, _ in fixes], dead_ends=[t for t, _ in cause.dead_ends],
                        score=float(cause.weight), captures=dict(caps), source=sig.source, signature=sig.name,
                        fix_sources=[s for _, s, _ in fixes], fix_whens=[w for _, _, w in fixes],
                        dead_end_sources=[s for _, s in cause.dead_ends], generic=sig.generic,
                        cleanup=sig.cleanup, floor=sig.floor, vendor=sig.vendor,
                        ptxas_cuda_major=sig.ptxas_cuda_major, says=sig.says, framework=sig.framework)
            self.matches[cause_id] = cur
        else:
            if cur.line_no != n:
                cur.count += 1
            if _replaces(cur, sig, n, cause):  # a specific wording beats a generic one, a failure beats a teardown line
                cur.evidence, cur.line_no, cur.signature, cur.source = _evidence(line), n, sig.name, sig.source
                cur.generic, cur.cleanup, cur.floor, cur.vendor = sig.generic, sig.cleanup, sig.floor, sig.vendor
                cur.ptxas_cuda_major, cur.says, cur.framework = sig.ptxas_cuda_major, sig.says, sig.framework
                if sig.fix and sig.fix[0] not in cur.fixes:
                    cur.fixes.insert(0, sig.fix[0])
                    cur.fix_sources.insert(0, sig.fix[1])
                    cur.fix_whens.insert(0, sig.fix[2])
            for k, v in caps.items():
                cur.captures.setdefault(k, v)
        # is this explained by something just above it (an out-of-memory before NOT_INITIALIZED)?
        if cur.explained_by is None and cause_id in self.has_upstream:
            self._explain_by_upstream(cur, n)
        self.last_seen[cause_id] = n

    def _marker(self, n: int, line: str, sig: Any, cause_id: str) -> bool:
        """Whether signature ``sig`` (matched on line ``n``) only marks lines rather than being a failure seen: a veto
        (this line and the next are no evidence), a context (the lines near it), or a line just after a veto."""
        if sig.veto:
            if not sig.aside:  # (an aside vetoes its own line only: :meth:`order` gave it alone)
                self.veto_line = n
            return True
        if sig.role == "context":
            self.last_seen[cause_id] = n
            self.context_evidence[cause_id] = _evidence(line)
            if sig.fix:
                self.context_fix[cause_id] = sig.fix
            if sig.explains:
                self.context_seen[cause_id] = (n, sig.explains, sig.framework)
            return True
        return n - self.veto_line <= 1  # the line after a veto (a wrapped "Error loading ...dll" of the same failure)

    def _explain_by_upstream(self, cur: Match, n: int) -> None:
        """The cause seen within WINDOW lines above ``cur`` (line ``n``) that explains it: one whose downstream names
        it, else a context line whose own ``explains`` does."""
        causes = self.kb.causes
        for up, seen in self.last_seen.items():
            if up == "framework-vendor-mismatch" and cur.vendor == "amd":
                continue  # AMD's own stack failing: the AMD host a "ROCm" line suggests is no other vendor's build
            if up != cur.id and cur.id in causes[up].downstream and n - seen <= WINDOW:
                cur.explained_by = up
                self.upstream_hits[up] = self.upstream_hits.get(up, 0) + 1
                return
        for up, (seen, explains, fw) in self.context_seen.items():
            # a context line's own case (a container started without NVIDIA's GPUs) is NVIDIA's: another vendor's own
            # failure (errors.toml ``vendor``: Docker finding no /dev/kfd) is not it; nor is another framework's own
            # line (torch's "Could not load this library" does not explain TensorFlow's dso_loader warning)
            if up != cur.id and cur.id in explains and n - seen <= WINDOW and not cur.vendor \
                    and _same_framework(fw, cur.framework):
                cur.explained_by = up
                self.upstream_hits[up] = self.upstream_hits.get(up, 0) + 1
                return

    def _driver_pair(self, matches: Dict[str, Match]) -> None:
        """TensorFlow's two cuda_diagnostics lines (facts libcuda_driver, kernel_driver) that name different driver
        versions are the driver/library mismatch, when no line said it already (engine.rules.driver_pair_differs)."""
        from envcheck.engine.rules import driver_pair_differs

        cid = "driver-library-mismatch"
        dso, kernel = self.facts.get("libcuda_driver"), self.facts.get("kernel_driver")
        if cid in matches or cid not in self.kb.causes or not driver_pair_differs(dso, kernel):
            return
        cause = self.kb.causes[cid]
        fixes = list(cause.fixes)
        matches[cid] = Match(id=cid, title=cause.title,
                             evidence=f"libcuda reported version is: {dso} / kernel reported version is: {kernel}",
                             line_no=0, fixes=[t for t, _, _ in fixes], dead_ends=[t for t, _ in cause.dead_ends],
                             score=float(cause.weight), captures={"dso_version": str(dso), "kernel_version": str(kernel)},
                             source=cause.source, signature="tf-cuda-diagnostics-pair", framework="tensorflow",
                             fix_sources=[s for _, s, _ in fixes], fix_whens=[w for _, _, w in fixes],
                             dead_end_sources=[s for _, s in cause.dead_ends])

    def finish(self, env: Optional[Environment], matrix: Any, facts: Optional[Dict[str, str]]) -> List[Match]:
        kb = self.kb
        matches = self.matches
        # a context-only upstream (e.g. TF's allocator warning) becomes a match when it explains something, unless
        # the log's facts contradict it (engine.vendors.context_holds: "ROCm" above a CUDA failure in a log that
        # names an NVIDIA GPU)
        from envcheck.engine.vendors import context_holds

        # one line read as two causes, one the other's downstream (cuDNN's Windows loader line with error 127: a file
        # found but of another release, so not the missing file that line's wording also says): the upstream explains it
        for mt in matches.values():
            if mt.explained_by is None and mt.line_no:
                for other in matches.values():
                    if other.id != mt.id and other.line_no == mt.line_no and mt.id in kb.causes[other.id].downstream:
                        mt.explained_by = other.id
                        self.upstream_hits[other.id] = self.upstream_hits.get(other.id, 0) + 1
                        break
        # a context with its own ``explains`` also explains the failure a few lines above it (a paste's title and
        # its body: "Found no NVIDIA driver" first, "I run it with docker run ..." after)
        for mt in matches.values():
            if mt.explained_by is None and not mt.vendor:  # (another vendor's own failure: not a context's NVIDIA case)
                for up, (seen, explains, fw) in self.context_seen.items():
                    if up != mt.id and mt.id in explains and 0 < seen - mt.line_no <= WINDOW \
                            and _same_framework(fw, mt.framework):
                        mt.explained_by = up
                        self.upstream_hits[up] = self.upstream_hits.get(up, 0) + 1
                        break
        for up in list(self.upstream_hits):
            if up not in matches and not context_holds(up, self.facts):
                del self.upstream_hits[up]
                for mt in matches.values():
                    if mt.explained_by == up:
                        mt.explained_by = None
                continue
            if up not in matches:
                cause = kb.causes[up]
                fixes = list(cause.fixes)
                own = self.context_fix.get(up)
                if own is not None:  # the context line's own fix first (a container started without GPUs)
                    fixes.insert(0, own)
                matches[up] = Match(id=up, title=cause.title, evidence=self.context_evidence.get(up, "(a line above the failure)"),
                                    line_no=self.last_seen.get(up, 0), fixes=[t for t, _, _ in fixes],
                                    dead_ends=[t for t, _ in cause.dead_ends], score=float(cause.weight),
                                    source=cause.source, signature="context",
                                    fix_sources=[s for _, s, _ in fixes], fix_whens=[w for _, _, w in fixes],
                                    dead_end_sources=[s for _, s in cause.dead_ends], generic=True)
        self._driver_pair(matches)
        _one_finding_per_library_list(matches)
        _drop_pip_release_found(matches)
        _library_of_other_build(matches, {**self.facts, **{k: v for k, v in (facts or {}).items() if v}})
        out = list(matches.values())
        for mt in out:
            if mt.generic:
                mt.score -= 8
            if mt.cleanup and len(out) > 1:
                mt.score -= 60
            if mt.id in self.upstream_hits:
                mt.score += 10
            if mt.explained_by and mt.explained_by in matches:
                mt.score = min(mt.score, matches[mt.explained_by].score) - 10
        all_facts = dict(self.facts)
        all_facts.update({k: v for k, v in (facts or {}).items() if v})
        from envcheck.explain.machine import refine

        out = refine(out, env, matrix, all_facts, self.notes)
        _drop_cuda_probe_where_mps_ran(out)
        _drop_tf_cuda_warning_beside_xpu(out, all_facts)
        _drop_dri_denied_on_nvidia(out, all_facts)
        _drop_gpu_ollama_skipped(out, all_facts)
        _jit_notice_below_others(out)
        _hang_below_cause(out)
        _generic_below_specific(out)
        out.sort(key=lambda m: (-m.score, m.line_no))
        return out


def _generic_below_specific(out: List[Match]) -> None:
    """A generic wording (errors.toml ``kind = "generic"``: ONNX Runtime's "Failed to create CUDAExecutionProvider",
    which names no library) ranks below the match of another cause that names the library which did not load
    (HeyGem-Linux-Python-Hack#54: libcudnn.so.9 under that warning), as a specific wording already replaces a generic
    one within a cause (:func:`_replaces`). A context's match (``signature`` "context") is not a wording of a line."""
    named = [m.score for m in out if not m.generic and not m.cleanup and m.line_no and m.captures.get("lib")]
    if not named:
        return
    top = max(named)
    for m in out:
        if m.generic and m.signature != "context" and m.line_no and m.score >= top and not m.captures.get("lib"):
            m.score = top - 1


#: the causes a GPU hang report of the same text is the consequence of (:func:`_hang_below_cause`)
_HANG_CAUSES = ("gpu-memory-fault", "gpu-arch-unsupported")


def _hang_below_cause(out: List[Match]) -> None:
    """The amdgpu kernel driver's report that the GPU stopped answering (``says`` ``gpu-hang-report``, errors.toml: a
    ring timeout, MES not responding) is what a fault of the running code makes happen: beside a GPU memory fault
    (``gpu-memory-fault``: amdgpu's page fault, the IOMMU's IO_PAGE_FAULT for the GPU, ROCm's "Memory access fault by
    GPU node"; ROCm/legacy-rocm-build#1724: an out-of-range embedding index, a ring timeout, then the IOMMU's page
    fault) or code that has no object for the GPU's target (``gpu-arch-unsupported``: the wrong target, an override
    across ISA families) in the same text, that cause leads and the hang ranks below it. Other matches beside a hang
    (a program's own error after the reset) do not outrank it; a generic wording or a context is no such cause."""
    causes = [m.score for m in out if m.id in _HANG_CAUSES and not m.generic and m.signature != "context"]
    if not causes:
        return
    for m in out:
        if "gpu-hang-report" in m.says:
            m.score = min(m.score, max(causes) - 1.0)


def _jit_notice_below_others(out: List[Match]) -> None:
    """A framework's "no kernels for this GPU, JIT from PTX" notice (``says`` ``jit-notice``, errors.toml: TensorFlow's
    gpu_device.cc warning) is printed by a run that goes on: beside another match of the text (an out-of-memory
    error after it, tensorflow/tensorflow#62320's H100 notice before a failure of its own) it ranks below that one."""
    others = [m.score for m in out if "jit-notice" not in m.says]
    if not others:
        return
    for m in out:
        if "jit-notice" in m.says:
            m.score = min(m.score, min(others) - 1.0)


def _drop_cuda_probe_where_mps_ran(out: List[Match]) -> None:
    """A "this torch has no CUDA" line read on a Mac as CUDA asked of a macOS build, in a log where the MPS backend
    itself failed on an operator: the CUDA line was a probe the program caught, not the failure; the match is dropped
    where the engine says so (:func:`envcheck.engine.verdicts.cuda_probe_where_mps_ran`)."""
    from envcheck.engine.verdicts import cuda_probe_where_mps_ran

    causes = {m.id for m in out}
    out[:] = [m for m in out if not cuda_probe_where_mps_ran(m.id, m.says, causes)]


def _drop_tf_cuda_warning_beside_xpu(out: List[Match], facts: Dict[str, str]) -> None:
    """TensorFlow's own CUDA loader warnings (``says`` ``tf-loader-warning``: it goes on without CUDA, as TF's default
    wheel probes CUDA on every machine) in a log where Intel's XPU stack itself failed (an ``xpu-*`` match: the Intel
    Extension for TensorFlow's libze_loader.so.1 not loaded, intel/intel-extension-for-tensorflow#73), or where the log
    shows Intel's XPU stack at work and nothing of NVIDIA's (engine.vendors.log_intel_stack: ITEX's XPU device on
    Level Zero, intel/intel-extension-for-tensorflow#63): the CUDA lines are not the failure of a run meant for the
    Intel GPU; the matches are dropped."""
    from envcheck.engine.vendors import log_intel_stack

    if any(m.id.startswith("xpu-") for m in out) or log_intel_stack(facts):
        out[:] = [m for m in out if "tf-loader-warning" not in m.says]


def _drop_dri_denied_on_nvidia(out: List[Match], facts: Dict[str, str]) -> None:
    """A /dev/dri node the process may not open (``says`` ``dri-node-denied``) in a log that shows an NVIDIA GPU and
    nothing of AMD's, Intel's or Apple's (engine.vendors.log_shows_nvidia, log_vendor): CUDA never opens a DRI node
    (Mesa's libEGL does, for rendering beside a CUDA run: google-deepmind/dm_control#214), so the line names no cause
    of a GPU compute failure there; the match is dropped (the cause is left unknown, not stated falsely)."""
    from envcheck.engine.vendors import log_shows_nvidia, log_vendor

    if log_shows_nvidia(facts) and log_vendor(facts) is None:
        out[:] = [m for m in out if "dri-node-denied" not in m.says]


def _drop_gpu_ollama_skipped(out: List[Match], facts: Dict[str, str]) -> None:
    """Ollama's "amdgpu is not supported" for one GPU (``says`` ``ollama-gpu-skipped``: it skips that GPU) in a log
    where Ollama took an AMD GPU of another gfx target for inference (fact ``ollama_rocm_gfx``, its "inference
    compute ... library=rocm compute=gfxNNNN" line): the skipped GPU (an APU's iGPU beside the card) is not the one
    the run used, so the line names no cause of what failed there: the match is dropped (the cause is left unknown,
    not stated falsely)."""
    taken = (facts.get("ollama_rocm_gfx") or "").lower()
    if taken:
        out[:] = [m for m in out if not ("ollama-gpu-skipped" in m.says
                                         and (m.captures.get("gfx") or "").lower() not in ("", taken))]


#: what the wordings say (errors.toml ``says``): a line naming several libraries the loader could not open
#: (``library-list-line``, batch vlogs21q), and the generic one-library wording that also matches the last name of such a
#: line ("libA.so.1, libB.so.2: cannot open ...": ``one-library-line``)
_SEVERAL_LIBRARIES = "library-list-line"
_ONE_LIBRARY = "one-library-line"


def _one_finding_per_library_list(matches: Dict[str, Match]) -> None:
    """A line that names several libraries the loader could not open is one failure, routed by the first library it
    names: the generic one-library wording's match of the same line, for the last name, is dropped (not where that
    cause was also seen on another line)."""
    listed = {mt.evidence for mt in matches.values() if _SEVERAL_LIBRARIES in mt.says}
    if not listed:
        return
    for key in [k for k, mt in matches.items()
                if _ONE_LIBRARY in mt.says and mt.count == 1 and mt.evidence in listed]:
        del matches[key]


def _drop_pip_release_found(matches: Dict[str, Match]) -> None:
    """pip's "Could not find a version that satisfies the requirement torch==2.1.2+cu118 (from versions: ..., 2.1.2)"
    read as "no build for this Python" (python-unsupported), where the versions pip found for this interpreter list the
    pinned release itself (capture ``release_found``, :func:`normalize_captures`): the match is dropped where the engine
    says so (:func:`envcheck.engine.verdicts.pip_release_found`; the cause is left unknown, not stated falsely)."""
    from envcheck.engine.verdicts import pip_release_found

    for key, mt in list(matches.items()):
        if pip_release_found(mt.id, mt.says, mt.captures):
            del matches[key]


#: a torch build label that is not Intel's XPU build (a CUDA, ROCm or CPU wheel: "2.7.0+cu128", "2.4.0+rocm6.1")
_NOT_XPU_TORCH = re.compile(r"\+(?:cu\d|rocm\d|cpu)")


#: IPEX's XPU DLLs named beside such a torch (errors.toml ``says``): framework-vendor-mismatch only there
_IPEX_BESIDE_OTHER_TORCH = "ipex-beside-other-torch"


def _library_of_other_build(matches: Dict[str, Match], facts: Dict[str, str]) -> None:
    """The Windows DLLs whose failure reads as the oneAPI runtime missing only in an XPU stack (errors.toml, batch
    vlogs24): torch's first DLL (family ``torch-xpu-core``, backend_with_compiler.dll) is kept only where the text shows
    Intel's XPU stack and no other vendor's (engine.vendors.log_stack_vendor of its facts); IPEX's own DLLs (family
    ``ipex-xpu``) are dropped beside a torch that is not an XPU build (a +cuXXX / +rocm / +cpu label: the dependency
    missing is torch's own XPU libraries, not oneAPI), where the same line reads as the xpu stack asked of a non-XPU
    build (``says`` ``ipex-beside-other-torch``, kept there only). Else the cause is left unknown."""
    from envcheck.engine.vendors import log_stack_vendor

    other_torch = bool(_NOT_XPU_TORCH.search(facts.get("torch") or ""))
    for key, mt in list(matches.items()):
        family = mt.captures.get("lib_family")
        if family == "torch-xpu-core" and log_stack_vendor(facts) != "intel":
            del matches[key]
        elif family == "ipex-xpu" and other_torch:
            del matches[key]
        elif _IPEX_BESIDE_OTHER_TORCH in mt.says and not other_torch:
            del matches[key]


@dataclass
class ExplainResult:
    matches: List[Match]
    lines: int
    facts: Dict[str, str]  # what the text itself says (driver, cc, gpu, tensorflow, torch, ...)
    #: the facts of scope "vendor" (errors.toml): which GPU vendor's hardware the text names (amd_gpu,
    #: nvidia_gpu); read for the vendor rules, not among ``facts``
    vendor_facts: Dict[str, str] = field(default_factory=dict)
    #: "not-checked: ..." lines: what the facts show where a match's line alone would say a cause they contradict
    notes: List[str] = field(default_factory=list)
    #: the facts of scope "fix" (errors.toml: read for the fixes' conditions only, e.g. onnxruntime), not among ``facts``
    fix_facts: Dict[str, str] = field(default_factory=dict)


def _result(scan: "_Scan", matches: List[Match], n: int) -> ExplainResult:
    vendor = set(scan.kb.vendor_facts)
    hidden = vendor.union(scan.kb.fix_facts)  # (scope "fix": read for the fixes' conditions only)
    return ExplainResult(matches, n, {k: v for k, v in scan.facts.items() if k not in hidden},
                         {k: v for k, v in scan.facts.items() if k in vendor}, list(scan.notes),
                         {k: v for k, v in scan.facts.items() if k in scan.kb.fix_facts})


#: a line hard-wrapped by a terminal or a pasted fixed-width view: a long line ending in a letter or digit, the next
#: starting with a lower-case letter: a word cut in two ("... if you passed in a n" / "on-contiguous input.") or the
#: space between two words taken by the wrap ("... the installed CUDA" / "driver"). A terminal cuts at its column
#: whatever the characters (a Windows console at 80, a pasted fixed-width view at 100 or 120): also a name cut before a
#: capital or an underscore ("... device kernel image is invalid. GP" / "U", "CUDA_L" / "IBRARY_PATH"), and a line
#: ending in the space the column fell after ("... Tried to allocate " / "20.00 MiB" is not tried: see below) - these
#: are joined as they stand, nothing put between (logs20o). (A next line starting with a digit or a space is not tried:
#: timestamps and indentation would stop the fast path on most lines of a long log; a single space before a letter is
#: tried: the column fell just before the space between two words.)
_WRAP_MIN = 60
#: how far past a line break a break's match of the block searches may reach (:data:`envcheck.explain.matcher.WRAP_CROSS`
#: characters of a literal, each up to 4 UTF-8 bytes, and the line break)
_CROSS = 16
#: a block at least this long is searched for the breaks a literal may cross (a pattern of the knowledge base's literals
#: cut in two, ~10 ms to compile), and a join is tried only where the cheap test says it may feed (:func:`_may_join`);
#: a shorter log's blocks for each break that may be a hard wrap (the same lines fed: more stops, no compile)
_CROSS_MIN = 1 << 19
#: a searched block longer than twice this, begun with facts not yet read, asks for its gates again (once) after this
#: many bytes when it read facts in them: a long log prints its versions in its first lines, and each line that names
#: one again (a training log's "Loaded cuDNN version", "NCCL version" lines) would stop the block's search until its end
_REFRESH = 1 << 16
_PROBE = 8  # the first searched block walked to see whether walking pays (the eighth), and the first interval
_PROBE_MAX = 64  # the longest interval between two such, doubled from _PROBE while walking does not pay


def _wrap_chars(low: Any, block: Any, j: int) -> bool:
    """The line break at ``j`` may be a hard wrap (cheap first test: :func:`_wrap_seps`'s characters)."""
    return bool(_wrap_seps(low[j - 1:j], block[j + 1:j + 3]))


def _wrap_seps(last: Any, first: Any) -> Tuple[Any, ...]:
    """What a hard wrap between the character ``last`` and the one or two ``first`` (both str or both bytes) took
    out: nothing (a word or a name cut in two, a break after a space, or before one: a single space then a letter) or
    the space between two words, tried in that order; () for no wrap."""
    sp = b" " if isinstance(last, bytes) else " "
    head = first[:1]
    if last.isalnum() and head.isalpha() and head.islower():
        return (sp[:0], sp)
    if isinstance(last, bytes):
        ok = bool(last) and last[0] in _ALNUM and _wrap_first(first, 0)
    else:
        ok = bool(last) and last in _ALNUM_S and (head in _LOWER_S or (head == " " and first[1:2] in _LOWER_S))
    return (sp[:0],) if ok and head else ()


def _wrap_first(text: bytes, i: int) -> bool:
    """The line starting at ``i`` of ``text`` may continue a hard-wrapped one: it starts with a letter or "_", or with
    a single space before one (the column fell before the space between two words; indentation has two or more)."""
    if i >= len(text):
        return False
    c = text[i]
    return c in _LOWER or (c == 32 and i + 1 < len(text) and text[i + 1] in _LOWER)


def _row_first(raw: bytes) -> bool:
    """:func:`_wrap_first` of a line given alone (its first bytes)."""
    return raw[:1] in _LOWER1 or (raw[:1] == b" " and raw[1:2] in _LOWER1)


def _wrap_join(scan: _Scan, block: Any, low: Any, nl: Any, s: int,
               decode: Callable[[Any], str]) -> "Optional[Tuple[str, Set[str]]]":
    """The line starting at ``s`` joined with the next one when the break looks like a hard wrap (mid-word, or in
    place of the space between two words), and the knowledge-base literals of the joined text that the next line
    does not hold alone (a wording the wrap cut in two); None otherwise. Only lines next to a prefilter hit are
    tried: bounded work."""
    j = low.find(nl, s)
    if j < 0 or j - s < _WRAP_MIN or j + 1 >= len(low):
        return None
    seps = _wrap_seps(low[j - 1:j], block[j + 1:j + 3])
    if not seps:
        return None
    e = low.find(nl, j + 1)
    e = len(low) if e < 0 else e
    head, tail = low[max(s, j - 200):j], low[j + 1:min(e, j + 201)]
    enc = isinstance(low, bytes)
    lset = scan.kb.literal_set() if enc else None
    joins: List[Tuple[str, Set[str]]] = []
    # the wrap cut a word ("n" / "on-contiguous") or replaced the space between two words ("the installed CUDA" /
    # "driver"): both joins are tried, the first whose wording one of its signatures matches is fed (else the first)
    for sep in seps:
        joined = head + sep + tail
        present = lset.present(joined) if lset is not None else None
        if present is not None:  # one RE2 pass for all the literals
            span = {lit for lit in present if lit.encode() not in tail}
        else:
            span = {lit for lit in scan.kb.by_literal
                    if (lit.encode() if enc else lit) in joined and (lit.encode() if enc else lit) not in tail}
        if span:
            joins.append((decode(block[s:j] + sep + block[j + 1:e]), span))
    if not joins:
        return None
    halves = (decode(block[s:j])[:MAX_LINE], decode(block[j + 1:e])[:MAX_LINE])
    for text, span in joins:
        line, todo, _ = scan.feed_sets(text[:MAX_LINE], None, span)
        for i in todo:
            # a wording across the break: the joined text matches, neither line does on its own
            if scan._outcome(line, i)[0] and not any(scan._outcome(h, i)[0] for h in halves):
                return text, span
    return None


def _mend_wraps(scan: _Scan, block: Any, low: Any, nl: Any, s: int, e: int, base: int, count: int,
                decode: Callable[[Any], str],
                joined_at: int) -> int:
    """After the line at ``s`` (ending at ``e``) held a literal but matched nothing: feed it joined with the
    line before or after it across a mid-word hard wrap. Returns the new ``joined_at``."""
    if s > 1 and _wrap_chars(low, block, s - 1):  # the line before, hard-wrapped into this one
        p = low.rfind(nl, 0, s - 1) + 1
        w = _wrap_join(scan, block, low, nl, p, decode) if p != joined_at else None
        if w:
            scan.feed(base + count, w[0][:MAX_LINE], None, w[1])
    if e > 0 and _wrap_chars(low, block, e):  # this line, hard-wrapped into the next
        w = _wrap_join(scan, block, low, nl, s, decode)
        if w:
            scan.feed(base + count + 1, w[0][:MAX_LINE], None, w[1])
            joined_at = s
    return joined_at


def _scan_block(scan: _Scan, block: Any, low: Any, base: int, nl: Any, cover: Any,
                decode: Callable[[Any], str]) -> None:
    """Feed the lines of ``block`` (complete lines, each ending with ``nl``; ``low`` is the lower-cased
    block, same length) that hold a cover literal. ``base`` = number of lines before the block."""
    hits: Dict[int, List[int]] = {}
    for ci in scan.active_cover():
        lit = cover[ci]
        i = low.find(lit)
        while i >= 0:
            s = low.rfind(nl, 0, i) + 1
            lst = hits.get(s)
            if lst is None:
                hits[s] = [ci]
            else:
                lst.append(ci)
            e = low.find(nl, i)
            if e < 0:
                break
            i = low.find(lit, e)
    if not hits:
        return
    count = 0
    pos = 0
    joined_at = -1
    for s in sorted(hits):
        count += low.count(nl, pos, s)
        pos = s
        e = low.find(nl, s)
        line = decode(block[s:] if e < 0 else block[s:e])
        if len(line) > MAX_LINE + 16:
            line = line[:HEAD] + " … " + line[-TAIL:]
        matched = scan.matched
        scan.feed(base + count + 1, line, hits[s])
        if scan.matched == matched:  # the line matched on its own: no wrap to mend
            joined_at = _mend_wraps(scan, block, low, nl, s, e, base, count, decode, joined_at)


#: what a line feeds (see :func:`_line_got`): (its text, the signatures to run on it in order with their outcomes,
#: the facts to read from it, whether one of those signatures matches it); this one feeds nothing
_Got = Tuple[str, List[Tuple[int, Any]], List[int], bool]
_NOTHING: _Got = ("", [], [], False)
#: :meth:`_Scan._outcome` of a signature that does not match the line
_MISS: Tuple[bool, None] = (False, None)
_UNSET: Any = object()


def _got(scan: _Scan, line: str, todo: Set[int], facts: Set[int], plain: Optional[List[int]] = None) -> _Got:
    """What ``line`` feeds: the signatures of ``todo`` that match it, in :meth:`_Scan.order`, with their outcomes,
    and the facts of ``facts`` not yet read, sorted, as :meth:`_Scan.run` feeds them (the signatures that do not
    match it do nothing there; a fact read is not read again): a pure function of its arguments while no more
    facts are read (remembered per line: facts are only ever added). ``plain``: ``sorted(todo)`` when ``todo``
    holds no veto, teardown or context signature (then that is :meth:`_Scan.order`'s answer, whatever the line)."""
    outcome = scan._outcome
    sigs = []
    for i in (plain if plain is not None else scan.order(line, todo) if todo else ()):
        o = outcome(line, i)
        if o[0]:
            sigs.append((i, o))
    if facts:
        known, rows = scan.facts, scan.kb.facts
        facts = {f for f in facts if rows[f].name not in known}
    return line, sigs, sorted(facts), bool(sigs)


def _ascii_got(scan: _Scan, raw: bytes, todo: Set[int], facts: Set[int], plain: Optional[List[int]]) -> _Got:
    """:func:`_got` of an ASCII line of at most MAX_LINE + 16 bytes (``raw``, as the literal path decodes it: the same
    characters), its first visit on the RE2 path: each signature of ``plain`` searched by RE2 on the bytes themselves
    (:func:`_fast_search`), a miss left there, a match's named groups read from its spans (:meth:`_Scan._resolve`).
    The same answer as :func:`_got` without its memory (a pure function: what is not remembered is worked out again
    the same way)."""
    line = raw.decode("ascii")
    if plain is None:
        return _got(scan, line, todo, facts)
    fast = scan.fast
    sigs = []
    size = len(raw)
    for i in plain:
        f = fast[i]
        if f is _UNSET:  # (the signature's first ASCII line)
            f = fast[i] = _fast_search(scan.kb.signatures[i])
        if f is None:  # (not RE2's: the general path)
            o = scan._outcome(line, i)
            if o[0]:
                sigs.append((i, o))
            continue
        spans = f[0](f[1], raw, 0, size)
        if spans[0][0] >= 0:
            sigs.append((i, scan._resolve(scan.kb.signatures[i], {
                name: line[spans[g][0]:spans[g][1]] for name, g in f[2] if spans[g][1] > spans[g][0]}, not f[3])))
    if facts:
        known, rows = scan.facts, scan.kb.facts
        facts = {f for f in facts if rows[f].name not in known}
    return line, sigs, sorted(facts), bool(sigs)


def _line_got(scan: _Scan, raw: bytes, gates: Tuple[Any, Any, Any, FrozenSet[int], bool],
              line: Optional[str] = None) -> _Got:
    """What the line ``raw`` (its bytes; ``line``: its str, given by the str API) feeds on the RE2 path: the
    signatures and facts whose literal it holds (the literal prefilter's rule), each matched on it (:func:`_got`).
    An ASCII line is put to the knowledge base's literal set (``gates[2]``: one RE2 pass says which literals it holds;
    ``gates[3]``: those that no longer matter, the literals of facts already read); with ``gates[4]`` (a block of
    mostly new lines: a long log's noise) the gate of the literals of the signatures and of the facts not yet read
    (``gates[:2]``, one cheaper RE2 search) is asked first whether it holds any. A line that is not ASCII is asked
    that gate, then read as :meth:`_Scan.feed` reads it. A line holding none feeds nothing: it is remembered in
    ``scan.no_need``, the others in ``scan.line_memo`` with what they feed."""
    if line is not None:
        return _got(scan, *scan.feed_sets(line))
    need_match, anchor, lset, dead, need_first = gates
    got = _NOTHING
    usable = lset is not None and raw.isascii() and len(raw) <= scan.cap
    if usable and not need_first:
        held = lset.match(raw)
    elif need_match(anchor, raw, 0, len(raw))[0][0] < 0:  # the cheaper question: in a long log most new lines stop here
        held = None
    else:
        held = lset.match(raw) if usable else []  # [] : the literal path's way
    if held and lset.sentinel in held:  # an ASCII line: each literal is in it as in its lower case
        key = tuple(held)
        sets = scan.held_sets.get(key)
        if sets is None:  # (the literals of facts read, ``dead``, add only facts read: _unread and _got drop them)
            todo: Set[int] = set()
            facts: Set[int] = set()
            sigs_of, facts_of = lset.signatures, lset.facts
            for x in held:
                if x not in dead:
                    todo.update(sigs_of[x])
                    facts.update(facts_of[x])
            sets = (todo, facts, sorted(todo) if todo.isdisjoint(scan.ordered) else None)
            if len(scan.held_sets) >= _MEMO:
                scan.held_sets.clear()
            scan.held_sets[key] = sets
        if sets[0] or _unread(scan, sets[1]):
            got = _ascii_got(scan, raw, *sets) if len(raw) <= MAX_LINE + 16 else _got(scan, _line_text(raw), *sets)
    elif held is not None:  # as the literal path: the covers in the lower-cased bytes
        low = raw.lower()
        text, todo, facts = scan.feed_sets(_line_text(raw), _covers_in(scan, low))
        if todo or _unread(scan, facts):
            got = _got(scan, text, todo, facts)
    if got is _NOTHING:  # no literal of a signature or of a fact not yet read (still none as more facts are read)
        no_need, kept = scan.no_need, scan.kept
        if kept[2] > _KEPT or len(no_need) >= _LINES:  # (_keep inline: once per new line)
            no_need.clear()
            kept[2] = 0
        kept[2] += len(raw)
        no_need.add(raw)
        return got
    memo, kept = scan.line_memo, scan.kept
    if kept[1] > _KEPT or len(memo) >= _LINES:
        memo.clear()
        kept[1] = 0
    kept[1] += len(raw)
    memo[raw] = got
    return got


def _covers_in(scan: _Scan, low: bytes) -> List[int]:
    """The indexes of the cover literals ``low`` (a line's lower-cased bytes) holds, in order: one RE2 set pass over it
    (:class:`envcheck.explain.matcher.ByteLiteralSet`, byte for byte) where ``c in low`` for each of the ~100 cover
    literals cost a search each (a failure log's lines that are not ASCII: ~3% of the stress log's call); each looked
    for where the set cannot tell."""
    base = scan.base
    covers = scan.cover_bytes
    if base.cover_set is None:
        from envcheck.explain.matcher import byte_literal_set

        base.cover_set = byte_literal_set(tuple(covers)) or False
    present = base.cover_set(low) if base.cover_set else None
    if present is None:
        return [ci for ci, c in enumerate(covers) if c in low]
    return [ci for ci, c in enumerate(covers) if c in present] if present else []


def _keep_pair(pairs: Dict[Tuple[bytes, bytes], Any], pair: Tuple[bytes, bytes], got: Any) -> None:
    """Remember what a pair of lines joined across a hard wrap feeds (a pair longer than _WRAP_KEPT bytes is not
    kept: bounded memory)."""
    if len(pair[0]) + len(pair[1]) < _WRAP_KEPT:
        if len(pairs) >= _MEMO:
            pairs.clear()
        pairs[pair] = got


def _pass_rows(scan: _Scan, holds: Dict[bytes, Any], passed: List[bytes]) -> None:
    """Remember lines a gate search passed (they hold no literal: ``False``), in the hit-line memory's bound."""
    _keep(scan, holds, 0, sum(map(len, passed)), len(passed))
    holds.update(dict.fromkeys(passed, False))


def _keep(scan: _Scan, memo: Any, which: int, size: int, lines: int = 1) -> None:
    """Make room for ``lines`` more lines of ``size`` bytes in one of the scan's line memories (``which``: 0
    hit_lines, 1 line_memo, 2 no_need; each holds at most :data:`_LINES` lines and :data:`_KEPT` bytes of them): when
    full it forgets them all at once (what it held is recomputed when met again: the result is the same). Each has
    its own bound: a long log's noise filling one does not flush what the lines that feed something feed."""
    kept = scan.kept
    if kept[which] + size > _KEPT or len(memo) + lines > _LINES:
        memo.clear()
        kept[which] = 0
    kept[which] += size


def _unread(scan: _Scan, facts: Iterable[int]) -> bool:
    """Whether one of ``facts`` is not read yet. A line holding only literals of facts read already (the block's
    ``dead`` literals are those of the facts read before it began: the ones read in it are found here) and of no
    signature feeds nothing, now and after (a fact read is not read again): :data:`_NOTHING`, as _got would say."""
    if facts:
        known, rows = scan.facts, scan.kb.facts
        for f in facts:
            if rows[f].name not in known:
                return True
    return False


def _line_text(raw: bytes) -> str:
    """A line's text as the literal path decodes it."""
    line = raw.decode("utf-8", "replace")
    return line[:HEAD] + " … " + line[-TAIL:] if len(line) > MAX_LINE + 16 else line


def _join_set(scan: _Scan, text: bytes, p: int, j: int) -> Optional[_Got]:
    """What the line at ``p`` joined with the next one across the hard wrap at ``j`` feeds (:func:`_wrap_join` and
    :meth:`_Scan.feed`), None when the join holds no wording the wrap cut; remembered per pair of lines."""
    if j - p < _WRAP_MIN:
        return None
    e = text.find(b"\n", j + 1)
    key = text[p:] if e < 0 else text[p:e + 1]  # the two lines (a pure function of their bytes)
    memo = scan.wrap_memo
    if key in memo:
        return memo[key]
    w = _wrap_join(scan, key, key.lower(), b"\n", 0, _decode) if not scan.cross or _may_join(scan, text, p, j, e) \
        else None
    got = _got(scan, *scan.feed_sets(w[0][:MAX_LINE], None, w[1])) if w else None
    if len(key) <= _WRAP_KEPT:  # (a pair of long lines is not kept: the memory stays small)
        if len(memo) >= _MEMO:
            memo.clear()
        memo[key] = got
    return got


def _may_join(scan: _Scan, text: bytes, p: int, j: int, e: int) -> bool:
    """A cheap necessary condition of :func:`_wrap_join` feeding the line at ``p`` joined with the next one (ending at
    ``e``, -1 for the text's end) across the break at ``j``: the joined text must hold a literal of a signature that
    the next line does not (``span``), so one of the first line's last 200 bytes (``_wrap_join``'s ``head``) or one
    across the break (:meth:`envcheck.explain.matcher.LineSet.wrap_break_match`). Two RE2 searches of a few bytes,
    where the join costs a literal set's pass over both lines and Python's work on what it holds."""
    lineset = scan.kb.line_set()
    held, anchor = lineset.joined_gate_match()
    end = len(text) if e < 0 else e
    q, stop = max(p, j - _CROSS), min(end, j + _CROSS)  # (the window's only line break is ``j``)
    both = scan.both
    if both is None:
        if lineset.wrap_break_match()(anchor, text, q, stop)[0][0] >= 0:
            return True
    else:  # the block search's own pattern (compiled already): a match holding the break is one a literal may cross
        at, to = both(anchor, text, q, stop)[0]
        while 0 <= at <= j:  # (a break's match begins at ``j`` at the latest; a literal's holds no line break)
            if to > j:
                return True
            at, to = both(anchor, text, at + 1, stop)[0]
    return bool(held(anchor, text, max(p, j - 200), j)[0][0] >= 0)


def _mend_set(scan: _Scan, text: bytes, s: int, e: int, n: int, joined_at: int) -> int:
    """:func:`_mend_wraps` on the RE2 path (line ``n`` at ``s``..``e``, which held a literal and matched nothing), the
    joins remembered per pair of lines. Returns the new ``joined_at``."""
    if s > 1 and _wrap_first(text, s) and text[s - 2] in _ALNUM:  # the line before, hard-wrapped into this one
        p = text.rfind(b"\n", 0, s - 1) + 1
        _feed_got(scan, n - 1, _join_set(scan, text, p, s - 1) if p != joined_at else None)
    if 0 < e < len(text) - 1 and text[e - 1] in _ALNUM and _wrap_first(text, e + 1):  # this line, into the next
        if _feed_got(scan, n, _join_set(scan, text, s, e)):
            joined_at = s
    return joined_at


def _feed_got(scan: _Scan, n: int, got: Optional[_Got]) -> bool:
    """Feed ``got`` (see :func:`_line_got`) as line ``n``; False when there is nothing."""
    if got is None:
        return False
    if got[2]:
        scan.read_facts(got[0], got[2])
    for i, outcome in got[1]:
        scan._signature(n, got[0], i, outcome)
    return True


def _block_gates(scan: _Scan, lineset: Any) -> Tuple[Any, Any, Tuple[Any, Any, Any, FrozenSet[int], bool]]:
    """For a block: the gate's (match, anchor) (the cover literals still worth looking for), and the ``gates`` of
    :func:`_line_got`. A new gate forgets the lines known to hold one of its literals or none."""
    kb = scan.kb
    known = scan.facts
    nsig = len(kb.signatures)
    exclude = frozenset(nsig + fi for fi, fc in enumerate(kb.facts) if fc.name in known) if known else frozenset()
    cover = tuple(kb.cover[ci] for ci in scan.active_cover())
    match, anchor = lineset.gate_match(exclude, cover)
    lset = kb.line_literal_set()
    dead: FrozenSet[int] = frozenset()
    if lset is not None:  # the literal set's literals that no longer matter: a fact's, once it is read
        base = scan.base
        if known or base.dead is None or base.dead[0] is not lset:  # (no fact read yet, a log's first blocks: the
            # same set each call, kept with the literal set it is of)
            dead = frozenset([lset.sentinel, *(x for x, fc in enumerate(lset.facts) if not lset.signatures[x]
                                                 and all(kb.facts[f].name in known for f in fc))])
            if not known:
                base.dead = (lset, dead)
        else:
            dead = base.dead[1]
    if scan.hit_gate != cover:
        # the cover only loses the literals of facts now read (active_cover): a line that held none of the old still
        # holds none, and one whose signatures' literals it holds still holds one (a signature's literal contains a
        # cover that serves a signature: never dropped); the others (their literals may all be dropped) are forgotten
        keep = set(cover) <= set(scan.hit_gate)
        scan.hit_gate = cover
        # (True, the str API's "holds a literal", is forgotten: what it feeds is read from its str each time)
        holds = scan.hit_lines
        if keep:  # (most are kept: the others deleted, where a new dictionary would insert the kept ones again)
            for k in [k for k, v in holds.items() if v is not False and (v is True or not v[1])]:
                v = holds[k]
                # a line that feeds no signature, whose facts are all read now and that can be no half of a hard wrap
                # (_known_got's inert line) feeds nothing and mends nothing whether it still holds a literal or not:
                # kept as such (False), where deleting it would have it searched and read again
                if v is not True and not v[3] and not _unread(scan, v[2]) and not _row_first(k) \
                        and k[-1:] not in _ALNUM1:
                    holds[k] = False
                else:
                    del holds[k]
        else:
            holds.clear()
        scan.kept[0] = sum(map(len, holds))
    scan.both = getattr(lineset, "need_or_break_match", _no_both)(exclude, scan.cross)
    return match, anchor, (lineset.gate_match(exclude, None)[0], anchor, lset, dead, not scan.walk)


def _scan_block_set(scan: _Scan, lineset: Any, text: bytes, base: int, lines: Optional[List[str]] = None) -> int:
    """The RE2 path of :func:`_scan_block`: the lines of ``text`` (bytes of whole lines, each ending with b"\\n")
    that hold a prefilter literal (the cover, as the literal path reads: a line with one that matches nothing may be
    half of a wording a hard wrap cut in two) are each fed what :func:`_line_got` says (remembered per line: a log
    repeats its lines), in order. Where the lines of the last block were mostly known (a log of repeated lines), the
    block is walked (the stream's: :func:`_map_block`), else each literal line is found by the gate's search
    (:func:`_gate_block`); either is exact, and the eighth searched block is walked line by line (:func:`_walk_block`:
    the cheaper walk of a block of new lines) to see whether walking pays again, then the 16th after it, the 32nd, up
    to every 64th while it does not (a searched block that finds its lines dense and known has the next one walked
    itself: the probe is the second way back, and cost a long log's noise ~15% at 10x when it came every eighth block).
    ``lines``: the str lines of ``text`` (the str API: always walked), else they are decoded from it. Returns the
    number of line ends in ``text``."""
    if not scan.cross and len(text) >= _CROSS_MIN:  # (from here on: the compiles pay for themselves)
        scan.cross = True
    if not scan.blocks and lines is None and len(text) > 2 * _REFRESH:  # a long log's first block: walked only where
        scan.walk = _dense(lineset, text)  # its lines name signatures densely (a walk pays on repeated lines alone)
    match, anchor, gates = _block_gates(scan, lineset)
    scan.blocks += 1
    if lines is None and not scan.walk and scan.blocks < scan.probe_at:
        scan.fresh = scan.stops = 0
        if scan.both is not None:
            n = _gate_block_one_pass(scan, text, base, match, anchor, gates)
        else:
            n = _gate_block(scan, text, base, match, anchor, gates)
        # a log that repeats its lines densely (an eighth of them or more stopped at, nearly all known: each costs an
        # RE2 call and a look-up where the walk looks them all up at once): the next block is walked (which decides
        # again for the one after it); a long log's noise (few lines stopped at) stays searched
        scan.walk = scan.stops * _DENSE >= n and scan.fresh * _DENSE <= scan.stops
        return n
    if lines is None and scan.walk:
        n, searched, passed = _map_block(scan, text, base, match, anchor, gates)
        # (a long log's noise: its lines holding a cover literal of a fact read (the gate passes them) are as many
        # as those a walk knows (the memories hold 8,192 lines each): searching pays unless the known lines are many)
        scan.walk = passed >= 4 * searched
        if not scan.walk and scan.probe_at <= scan.blocks:
            scan.probe_at = scan.blocks + _PROBE
        return n
    n, searched, passed = _walk_block(scan, text, base, match, anchor, gates, lines)
    scan.walk = passed >= searched  # the lines known let the walk pass more lines than the searches it needed
    if lines is None:  # (a probe: the next one sooner where walking paid, later where it did not)
        scan.probe_every = _PROBE if scan.walk else min(2 * scan.probe_every, _PROBE_MAX)
        scan.probe_at = scan.blocks + scan.probe_every
    return n


def _dense(lineset: Any, text: bytes) -> bool:
    """Whether an eighth or more of the lines of ``text``'s first :data:`_REFRESH` bytes hold a signature's literal (the
    rule by which a searched block has the next one walked, :data:`_DENSE`, where no line is known yet): a failure
    log's lines, or a log that repeats them, where a long log's noise names few (a training log's: one in fifty)."""
    held, anchor = lineset.joined_gate_match()
    end = text.rfind(b"\n", 0, _REFRESH) + 1
    need = (text.count(b"\n", 0, end) + _DENSE - 1) // _DENSE
    pos = 0
    while need > 0:
        at = held(anchor, text, pos, end)[0][0]
        if at < 0:
            return False
        need -= 1
        pos = text.find(b"\n", at) + 1
    return True


def _wrap_beside(text: bytes, s: int, e: int) -> bool:
    """Whether the line at ``s``..``e`` may be a piece of a hard-wrapped line: the line before is a wrap's first piece
    (at least :data:`_WRAP_MIN` long, :func:`_join_set`'s own bound, ending in a letter or digit) and this one begins
    as a wrap's second piece does, or this one is such a first piece and the next so begins."""
    return ((s > 1 and _wrap_first(text, s) and text[s - 2] in _ALNUM
             and s - 1 - text.rfind(b"\n", 0, s - 1) > _WRAP_MIN)
            or (0 < e < len(text) - 1 and e - s >= _WRAP_MIN and text[e - 1] in _ALNUM and _wrap_first(text, e + 1)))


def _hit_line(scan: _Scan, text: bytes, s: int, e: int, gates: Any, base: int, count: int, counted: int,
              joined_at: int) -> Tuple[int, int, int, bool]:
    """A line a block search stopped at (``s``..``e``, holding a literal): fed what it feeds, or mended when it may
    be a hard wrap's piece (:func:`_fed`); returns the new (line count, counted-up-to offset, ``joined_at``) and
    whether a signature matched it (then it was not mended)."""
    raw = text[s:e]
    got = scan.hit_lines.get(raw)
    scan.stops += 1
    if got is None:
        scan.fresh += 1
        got = _known_got(scan, raw, gates)
    elif got is False:  # (a line the gate stops at holds a literal: False is a line that feeds nothing, inert)
        got = _NOTHING
    if got[1] or got[2] or not got[3] and _wrap_beside(text, s, e):
        count += text.count(b"\n", counted, s)
        counted = s
        joined_at = _fed(scan, got, text, s, e, base + count + 1, joined_at)
    return count, counted, joined_at, got[3]


def _fed(scan: _Scan, got: _Got, text: bytes, s: int, e: int, n: int, joined_at: int) -> int:
    """Feed line ``n`` (at ``s``..``e`` in ``text``) what it feeds (``got``, see :func:`_line_got`), and mend a hard
    wrap around it when it matched nothing (_mend_wraps's first tests inline). Returns the new ``joined_at``."""
    if got[2]:
        scan.read_facts(got[0], got[2])
    if got[1]:
        signature = scan._signature
        for i, outcome in got[1]:
            signature(n, got[0], i, outcome)
    if not got[3] and _wrap_beside(text, s, e):
        joined_at = _mend_set(scan, text, s, e, n, joined_at)
    return joined_at


def _known_got(scan: _Scan, raw: bytes, gates: Any) -> _Got:
    """What the line ``raw`` feeds, from the scan's memories, else :func:`_line_got`; kept in ``scan.hit_lines``."""
    got = scan.line_memo.get(raw)
    if got is None:
        got = _NOTHING if raw in scan.no_need else _line_got(scan, raw, gates)
    holds, kept = scan.hit_lines, scan.kept
    if kept[0] > _KEPT or len(holds) >= _LINES:  # (_keep inline: once per line the gate stops at)
        holds.clear()
        kept[0] = 0
    kept[0] += len(raw)
    # a line that feeds nothing and can be no half of a hard wrap (its first byte no lower-case letter, its last no
    # letter or digit: _fed's test) is passed as a line holding no literal is: nothing to feed, nothing to mend
    inert = not got[1] and not got[3] and not (got[2] and _unread(scan, got[2])) and not _row_first(raw) \
        and raw[-1:] not in _ALNUM1
    holds[raw] = False if inert else got
    return got


def _wrap_break(text: bytes, j: int) -> bool:
    """The line break at ``j`` of ``text`` may be a hard wrap: a letter, digit, "_" or space before it, and the next line
    begins as a wrap's second piece does (:func:`_wrap_first`; the first tests of :func:`_mend_set`)."""
    return 0 < j < len(text) - 1 and text[j - 1] in _ALNUM and _wrap_first(text, j + 1)


def _gate_block(scan: _Scan, text: bytes, base: int, match: Any, anchor: Any, gates: Any) -> int:
    """The lines of ``text`` that can feed something or have a hard wrap to mend, found by RE2's searches (lines
    seldom repeat here: no split into lines, a line's number counted only where it feeds something): each line
    holding a literal of a signature or of a fact not yet read (the need gate, ``gates[0]``), and between two of
    them, each line beside a break that may be a hard wrap (:func:`_wrap_break`) that holds a literal of the gate
    (``match``: the cover) where a wording may be cut there: the break after such a line (its wrap tried from both
    sides), or a break that a literal may cross (:meth:`envcheck.explain.matcher.LineSet.wrap_break_match`). The same
    lines fed the same in the same order as when each line holding a literal of the gate is stopped at: such a line
    that holds no literal of a signature or of a fact not yet read feeds nothing (:func:`_line_got`), and is mended
    only beside such a break (:func:`_fed`), where a join feeds only a wording its first line's literal or a literal
    across the break begins (:func:`_wrap_join`): the joins at the other breaks feed nothing. On a long log's noise
    this is ~10x fewer stops (a training log names NVIDIA, CUDA and torch on most lines, and a column cut makes a
    break of nearly every line end)."""
    need = gates[0]
    brk = scan.kb.line_set().wrap_break_match(scan.cross)
    size = len(text)
    find, rfind = text.find, text.rfind
    pos = count = counted = 0
    joined_at = -1
    while pos < size:
        hit = need(anchor, text, pos, size)[0][0]
        s = size if hit < 0 else rfind(b"\n", 0, hit) + 1
        # the lines from ``pos`` to the next one that can feed: only those beside a break may have a wrap to mend
        last = pos - 1  # the start of the last line looked at here
        b = pos
        j = pos - 1 if pos and _wrap_break(text, pos - 1) else -1  # the break after the line fed last
        while True:
            if j < 0:
                if b >= s:
                    break
                m = brk(anchor, text, b, min(s + _CROSS, size))[0]  # (a break before line ``s``: its literal's y)
                j = find(b"\n", m[0]) if m[0] >= 0 else -1
                if j < 0 or j >= s:
                    break
                if not _wrap_break(text, j):
                    b, j = j + 1, -1
                    continue
            for ls in (rfind(b"\n", 0, j) + 1, j + 1):  # the line before the break, the line after it
                if ls <= last or ls >= s:
                    continue
                last = ls
                le = find(b"\n", ls)
                if le < 0:
                    le = size
                if match(anchor, text, ls, le)[0][0] >= 0:  # a line the gate stops at: nothing to feed, a wrap
                    count += text.count(b"\n", counted, ls)
                    counted = ls
                    joined_at = _fed(scan, _NOTHING, text, ls, le, base + count + 1, joined_at)
            b, j = j + 1, -1
        if hit < 0:
            break
        e = find(b"\n", hit)
        if e < 0:
            e = size
        count, counted, joined_at = _hit_line(scan, text, s, e, gates, base, count, counted, joined_at)[:3]
        pos = e + 1
    return count + text.count(b"\n", counted)


def _no_both(exclude: Any, cross: bool = True) -> None:
    return None


def _break_lines(scan: _Scan, text: bytes, j: int, last: int, base: int, count: int, counted: int, joined_at: int,
                 match: Any, need: Any, anchor: Any) -> Tuple[int, int, int, int]:
    """:func:`_gate_block_one_pass`'s step at the break at ``j``: the line before it and the line after it (those after
    ``last``), each holding a literal of the gate fed as a line that feeds nothing and may be a wrap's piece (a line
    after the break holding a literal of the need gate is left: it is fed as such, next). Returns the new (``last``,
    line count, counted-up-to offset, ``joined_at``)."""
    size = len(text)
    for ls in (text.rfind(b"\n", 0, j) + 1, j + 1):
        if ls <= last:
            continue
        le = text.find(b"\n", ls)
        if le < 0:
            le = size
        if match(anchor, text, ls, le)[0][0] >= 0:  # a line the gate stops at
            if ls > j and need(anchor, text, ls, le)[0][0] >= 0:
                break  # the line after the break holds the next literal: it is fed as such, next
            last = ls
            # nothing to feed, a wrap to mend
            count += text.count(b"\n", counted, ls)
            counted = ls
            joined_at = _fed(scan, _NOTHING, text, ls, le, base + count + 1, joined_at)
        else:
            last = ls
    return last, count, counted, joined_at


def _gate_block_one_pass(scan: _Scan, text: bytes, base: int, match: Any, anchor: Any, gates: Any) -> int:
    """:func:`_gate_block` with its two searches made one (``scan.both``: a literal of the need gate or a break that a
    literal may cross, whichever begins first; a match holding a line break is the break): the same lines, fed the
    same in the same order. A break's match begins up to :data:`_CROSS` bytes before it, where a literal of the need
    gate may begin too: the need gate is asked there, and a literal found is the next one (it begins before the
    break). A literal found is the next one the need search finds, and each break before that literal's line was found
    first, in order. After a line fed, the break after it is tested here (its match would begin before the search),
    and the search goes on at the next line. (The break search of :func:`_gate_block` stops at each break that may be
    a hard wrap after a line fed; here only after one a signature matched: the joins a stop after the others tries
    were tried by the line fed, or are tried at the next line's own break, which a literal must cross to feed.)"""
    both = scan.both
    need = gates[0]
    size = len(text)
    find, rfind = text.find, text.rfind
    pos = count = counted = 0
    joined_at = -1
    last = -1  # the start of the last line looked at beside a break
    q = 0  # where the next search begins
    facts = len(scan.facts)
    refresh = _REFRESH if size > 2 * _REFRESH and facts < len(scan.kb.facts) else size
    while q < size:
        if q >= refresh:  # (once: the facts read in the block's first lines leave the gate for the rest of it)
            refresh = size
            if len(scan.facts) != facts:
                match, anchor, gates = _block_gates(scan, scan.kb.line_set())
                both = scan.both
                need = gates[0]
        at, end = both(anchor, text, q, size)[0]
        if at < 0:
            break
        j = find(b"\n", at, end)
        if j >= 0:  # a break a literal may cross, unless a literal begins before it
            lit = need(anchor, text, at, j)[0][0] if j - at > 1 else -1  # (a literal has two characters or more)
            if lit < 0:
                if _wrap_break(text, j):  # (the break's own first test)
                    last, count, counted, joined_at = _break_lines(scan, text, j, last, base, count, counted,
                                                                   joined_at, match, need, anchor)
                q = j + 1
                continue
            at = lit
        if at < pos:  # a literal in the line fed last: the need search begins after it
            q = pos
            continue
        s = rfind(b"\n", 0, at) + 1
        e = find(b"\n", at)
        if e < 0:
            e = size
        count, counted, joined_at, matched = _hit_line(scan, text, s, e, gates, base, count, counted, joined_at)
        pos = q = e + 1
        last = e
        # the break after the line fed: where a signature matched that line (it was not mended), its wrap may be
        # tried from the next line's side (:func:`_mend_set`); else the line tried it, and the next line's wrap with
        # the line after it is tried at the break after it, where a literal may cross (found by the search)
        if matched and _wrap_break(text, e):
            last, count, counted, joined_at = _break_lines(scan, text, e, last, base, count, counted, joined_at,
                                                           match, need, anchor)
    return count + text.count(b"\n", counted)


def _walk_block(scan: _Scan, text: bytes, base: int, match: Any, anchor: Any, gates: Any,
                lines: Optional[List[str]]) -> Tuple[int, int, int]:
    """Walk the lines of ``text`` (split once) from one holding a literal of the gate to the next: the lines after
    one are passed without a search while each is known (to hold a literal: it is fed at once; to hold none: it is
    passed), else the gate's search finds the next. Returns (line ends, searches, lines passed without one)."""
    # the lines known to hold a literal of the gate (-> what each feeds; True with the str API, where it is read
    # from the str line each time) or to hold none (False); bounded
    holds: Dict[bytes, Any] = scan.hit_lines
    size = len(text)
    rows = text.split(b"\n")  # the block's lines (and an empty one after the last newline)
    last = len(rows) - 1 if text.endswith(b"\n") else len(rows)
    k = s = searched = passed = 0  # the line ``k`` starts at ``s``
    gap = _GAP if scan.walk else 1  # a block walked only to see whether walking pays learns less
    joined_at = -1
    got: Any = None  # what line ``k`` feeds, when the walk knows it holds a literal of the gate
    while k < last:
        if got is None:  # the gate: the next line holding a literal (lines without one cost only RE2's scan)
            searched += 1
            hit = match(anchor, text, s, size)[0][0]
            if hit < 0:
                break
            b = text.rfind(b"\n", 0, hit) + 1
            if b > s:  # the lines passed hold none (the first ``gap`` of them remembered)
                n = text.count(b"\n", s, b)
                _pass_rows(scan, holds, rows[k:k + min(n, gap)])
                k += n
                s = b
            got = holds.get(rows[k])
            if got is False and lines is None:  # (the gate stops at lines holding a literal: an inert one)
                got = _NOTHING
            elif not got:  # not known
                if lines is None:
                    got = _known_got(scan, rows[k], gates)
                else:
                    _keep(scan, holds, 0, len(rows[k]))
                    got = holds[rows[k]] = True
        else:
            passed += 1
        raw = rows[k]
        e = s + len(raw)
        if got is True:
            got = _line_got(scan, raw, gates, lines[k])  # type: ignore[index]
        if got[1] or got[2] or ((s > 1 and _wrap_first(text, s) and text[s - 2] in _ALNUM)
                                or (0 < e < size - 1 and text[e - 1] in _ALNUM and _wrap_first(text, e + 1))):
            joined_at = _fed(scan, got, text, s, e, base + k + 1, joined_at)  # (else: nothing to feed or mend)
        # the walk: the lines after this one, while each is known to hold a literal of the gate or none
        k += 1
        s = e + 1
        got = None
        while k < last:
            raw = rows[k]
            got = holds.get(raw)
            if got is not False:  # a line holding a literal, or one not known (None: the gate's to say)
                break
            s += len(raw) + 1
            k += 1
            passed += 1
    return len(rows) - 1, searched, passed


def _feed_outcomes(scan: _Scan, got: Any, n: int) -> None:
    """:func:`_map_block`'s step for a line known to hold a literal: its outcomes fed, a context mark and a cause
    seen before on another line counted inline (:meth:`_Scan._marker`'s context case and :meth:`_Scan._signature`'s
    common case), the rest through :meth:`_Scan._signature`."""
    plain, ctx = scan.plain, scan.ctx
    matches, last_seen, has_upstream = scan.matches, scan.last_seen, scan.has_upstream
    for i, outcome in got[1]:  # (a line fed only as half of a wrap has none)
        res = outcome[1]
        mark = ctx[i]
        if res is not None and mark is not None:  # _marker's context case inline (a veto comes first there)
            scan.matched += 1
            cause_id = res[0]
            last_seen[cause_id] = n
            scan.context_evidence[cause_id] = _evidence(got[0])
            fix, explains, fw = mark
            if fix:
                scan.context_fix[cause_id] = fix
            if explains:
                scan.context_seen[cause_id] = (n, explains, fw)
            continue
        if res is not None and plain[i] and n - scan.veto_line > 1:
            cause_id, caps = res
            cur = matches.get(cause_id)
            if _only_counted(cur, n, cause_id, has_upstream):
                assert cur is not None
                # _signature's common case inline: a cause seen before on another line
                scan.matched += 1
                cur.count += 1
                if caps:
                    setdefault = cur.captures.setdefault
                    for key, v in caps.items():
                        setdefault(key, v)
                last_seen[cause_id] = n
                continue
        scan._signature(n, got[0], i, outcome)


def _line_start(rows: List[bytes], ends: List[int], k: int) -> int:
    """Where line ``k`` of ``rows`` (a block split at each b"\\n") starts in the block; ``ends``: the running sums of
    the lines' lengths, made here on first use (then kept in it)."""
    if not ends:
        from itertools import accumulate

        ends.extend(accumulate(map(len, rows)))
    return ends[k] - len(rows[k]) + k


def _feed_wraps(scan: _Scan, text: bytes, rows: List[bytes], ends: List[int], k: int, n: int, last: int,
                joined: int) -> int:
    """:func:`_map_block`'s :func:`_mend_set` steps for line ``k`` of the block (line ``n`` of the log): its joins
    with the line before and after it, remembered per pair of lines (a tuple of the two: no slice). Returns the new
    ``joined`` (the last line fed joined with the next one: that join is not fed again as the next one's)."""
    pairs = scan.wrap_pairs
    raw = rows[k]
    if k and len(rows[k - 1]) >= _WRAP_MIN and _row_first(raw) and rows[k - 1][-1:] in _ALNUM1 and joined != k - 1:
        pair = (rows[k - 1], raw)
        w = pairs.get(pair, _UNSET)
        if w is _UNSET:
            s = _line_start(rows, ends, k)
            w = _join_set(scan, text, s - len(rows[k - 1]) - 1, s - 1)
            _keep_pair(pairs, pair, w)
        _feed_got(scan, n - 1, w)
    if k + 1 < last and len(raw) >= _WRAP_MIN and raw[-1:] in _ALNUM1 and _row_first(rows[k + 1]):
        pair = (raw, rows[k + 1])
        w = pairs.get(pair, _UNSET)
        if w is _UNSET:
            s = _line_start(rows, ends, k)
            w = _join_set(scan, text, s, s + len(raw))
            _keep_pair(pairs, pair, w)
        if _feed_got(scan, n, w):
            joined = k
    return joined


def _map_block(scan: _Scan, text: bytes, base: int, match: Any, anchor: Any, gates: Any) -> Tuple[int, int, int]:
    """:func:`_walk_block` for bytes (the stream's path), the known lines found without a Python step per line: the
    block is split once, each line looked up in ``scan.hit_lines`` by ``map`` (C), and only the lines not known to
    hold no literal are visited. A line not known is given to the gate's search (which passes, in C, the lines
    holding no literal up to the next line holding one: those are the same lines the walk would find); a line known
    to hold a literal is fed what it feeds. A repeated line whose signatures only count a cause already seen is fed
    inline (:meth:`_Scan._signature`'s first case), the rest through :func:`_fed`'s steps. The same lines fed the
    same in the same order as :func:`_walk_block`. Returns (line ends, searches, lines passed without one).
    (Each line is looked up when the loop comes to it (a lazy ``compress``), not when the block begins: a block
    that holds a log's first lines and then their repetition - a log of repeated runs - passes the repeated ones
    as a later block would, where a look-up made up front would have found none of them known.)"""
    from itertools import compress, repeat
    from operator import is_not

    holds: Dict[bytes, Any] = scan.hit_lines
    size = len(text)
    rows = text.split(b"\n")
    last = len(rows) - 1 if text.endswith(b"\n") else len(rows)
    get = holds.get
    # line k starts at ends[k] - len(rows[k]) + k (:func:`_line_start`: made on first use, a block of known lines
    # has no use for it)
    ends: List[int] = []
    gap = _GAP if scan.walk else 1
    searched = known = visited = 0
    half = last - last // 4  # (the block's last quarter: what the next block will look like)
    joined = -1  # the last line fed joined with the next one (that join is not fed again as the next one's)
    done = -1  # the lines up to this one are passed (a search showed they hold no literal) or fed
    for k in compress(range(last), map(is_not, map(get, rows[:last]), repeat(False))):
        visited += k >= half
        if k <= done:
            continue
        got = get(rows[k])
        if got is None:  # not known: the gate's search, from this line to the next one holding a literal
            s = _line_start(rows, ends, k)
            searched += k >= half
            hit = match(anchor, text, s, size)[0][0]
            if hit < 0:
                _pass_rows(scan, holds, rows[k:min(last, k + gap)])
                break  # (a line known to hold a literal would have stopped it: there is none after)
            b = text.rfind(b"\n", 0, hit) + 1
            if b > s:  # the lines passed hold none (the first ``gap`` of them remembered)
                n = text.count(b"\n", s, b)
                _pass_rows(scan, holds, rows[k:k + min(n, gap)])
                k += n
                got = get(rows[k])
            if got is None:
                got = _known_got(scan, rows[k], gates)
            elif got is False:  # (a line the gate stops at holds a literal: False is one that feeds nothing, inert)
                got = _NOTHING
        else:
            known += k >= half
        done = k
        n = base + k + 1
        if got[2]:
            scan.read_facts(got[0], got[2])
        if got[1]:
            _feed_outcomes(scan, got, n)
        # _mend_set's steps, the joins remembered per pair of lines, where a break beside the line may be a hard wrap
        # (_feed_wraps's first tests: most lines that matched nothing have none)
        # (a wrap's first piece is _WRAP_MIN long at least: _join_set's own bound)
        if not got[3] and ((k and len(rows[k - 1]) >= _WRAP_MIN and _row_first(rows[k]) and rows[k - 1][-1:] in _ALNUM1)
                           or (k + 1 < last and len(rows[k]) >= _WRAP_MIN and rows[k][-1:] in _ALNUM1
                               and _row_first(rows[k + 1]))):
            joined = _feed_wraps(scan, text, rows, ends, k, n, last, joined)
    # (the last quarter's lines known when met and searches: what the next block will look like, the first visit of
    # a log's lines done)
    return len(rows) - 1, searched, known + (last - half) - visited


#: byte values of _wrap_chars's test: the last character of the line before the break (a letter or digit, either
#: case: the block is lower-cased there) and the first of the line after it (a lower-case letter)
#: (logs20o: also "_" and a space before the break, a capital or "_" after it: a terminal's column cut, see _WRAP_MIN)
_ALNUM = frozenset(b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_ ")
_LOWER = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
#: the same as str characters (the str path's _wrap_chars / _wrap_seps)
_ALNUM_S = frozenset(chr(c) for c in _ALNUM)
_LOWER_S = frozenset(chr(c) for c in _LOWER)
#: the same as one-byte strings (a line's first or last byte, ``row[:1]``: an empty line's is b"", in neither)
_ALNUM1 = frozenset(bytes((c,)) for c in _ALNUM)
_LOWER1 = frozenset(bytes((c,)) for c in _LOWER)


def _decode(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def _same(s: str) -> str:
    return s


def scan_lines(lines: Iterable[str], env: Optional[Environment] = None, matrix: Any = None,
               facts: Optional[Dict[str, str]] = None) -> ExplainResult:
    """Explain an iterable of lines (consumed once, in bounded memory)."""
    from envcheck.explain.kb import load_kb

    kb = load_kb(matrix)
    scan = _Scan(kb)
    cover = kb.cover
    lineset = kb.line_set()
    n = 0
    batch: List[str] = []
    size = 0

    def flush() -> None:
        nonlocal batch, size
        block = "\n".join(batch) + "\n"
        base = n - len(batch)
        if lineset is not None:
            _scan_block_set(scan, lineset, block.encode("utf-8", "replace"), base, batch)
            batch = []
            size = 0
            return
        low = block.lower()
        if len(low) == len(block):
            _scan_block(scan, block, low, base, "\n", cover, _same)
        else:  # a character whose lower case is longer (rare): line by line
            for k, ln in enumerate(batch, base + 1):
                scan.feed(k, ln)
        batch = []
        size = 0

    for raw in lines:
        line = _plain_line(raw if len(raw) <= 20000 else raw[:20000])
        if "\n" in line or "\r" in line:
            line = line.rstrip("\r\n").replace("\n", " ").replace("\r", " ")
        folded = unfold(line) if "#01" in line or line.lstrip()[:2] == '{"' else None
        for ln in (line,) if folded is None else folded:
            n += 1
            batch.append(ln)
            size += len(ln) + 1
            if size >= _BLOCK or len(batch) >= 8192:
                flush()
    if batch:
        flush()
    return _result(scan, scan.finish(env, matrix, facts), n)


def _chunks(stream: BinaryIO) -> Iterator[bytes]:
    """The stream's bytes as UTF-8 (a UTF-16 log, with its byte-order mark, is re-encoded; a UTF-8
    byte-order mark dropped), without NUL bytes, _BLOCK at a time."""
    import codecs

    first = stream.read(_BLOCK)
    if not first:
        return
    if first.startswith(codecs.BOM_UTF16_LE) or first.startswith(codecs.BOM_UTF16_BE):
        dec = codecs.getincrementaldecoder("utf-16")(errors="replace")
        data = first
        while data:
            yield dec.decode(data).replace("\x00", "").encode("utf-8", "replace")
            data = stream.read(_BLOCK)
        yield dec.decode(b"", final=True).encode("utf-8", "replace")
        return
    if first.startswith(codecs.BOM_UTF8):
        first = first[3:]
    data = first
    while data:
        yield data.replace(b"\x00", b"")
        data = stream.read(_BLOCK)


_LONE_CR = re.compile(rb"\r(?!\n)")  # a CR that does not begin a CRLF (one byte of look-ahead: linear)


def _lf(data: bytes) -> bytes:
    """``data`` with each CRLF and each lone CR as LF. No CRLF among its first 4,096 CRs (a progress bar's lone CRs,
    each found by a one-byte search) and none after them: one replacement. CRLFs and no lone CR (a console captured
    through a terminal: ``docker exec -it``, ``script``, Windows; 4 of the 11 real long logs of
    benchmarks/data/real-long): each CR dropped, the same bytes as each CRLF replaced by LF (every CR is one's) at a
    third of the cost (the two-byte replacement searches and copies line by line: ~1.8 ms a MB, a third of such a
    log's whole time; the look-ahead search and a one-byte deletion ~0.6). Else CRLF replaced first."""
    find = data.find
    i = find(b"\r")
    for _ in range(4096):
        if i < 0:
            return data.replace(b"\r", b"\n")
        if data[i + 1:i + 2] == b"\n":
            break
        i = find(b"\r", i + 1)
    if _LONE_CR.search(data) is None:
        return data.replace(b"\r", b"")
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _blocks(stream: BinaryIO) -> Iterator[bytes]:
    """The stream as blocks of whole lines, each line ending with b"\\n" (``\\r\\n`` and ``\\r`` end lines
    too), and a line longer than MAX_LINE bytes kept as its first HEAD and last TAIL bytes joined by
    " … ": bounded memory whatever the input."""
    carry = b""  # the current line while short
    head: Optional[bytes] = None  # the current line's first HEAD bytes once it is long
    tail = b""
    pending_cr = False
    ell = " … ".encode("utf-8")
    for data in _chunks(stream):
        if pending_cr and data.startswith(b"\n"):  # the LF of a CRLF split between two reads
            data = data[1:]
            pending_cr = False
        if not data:
            continue
        pending_cr = data.endswith(b"\r")
        if b"\r" in data:
            data = _lf(data)
        k = data.rfind(b"\n")
        if k < 0:
            if head is not None:
                tail = (tail + data)[-TAIL:]
            else:
                carry += data
        else:
            if head is not None:
                j = data.find(b"\n")
                yield head + ell + (tail + data[:j])[-TAIL:] + b"\n"
                head, tail = None, b""
                block = data[j + 1:k + 1]
            else:
                block = b"".join((carry, memoryview(data)[:k + 1])) if carry else data[:k + 1]
            if block:
                yield block
            carry = data[k + 1:]
        if head is None and len(carry) > MAX_LINE:
            head, tail, carry = carry[:HEAD], carry[-TAIL:], b""
    if head is not None:
        yield head + ell + tail + b"\n"
    elif carry:
        yield carry + b"\n"


def _syslog_at(block: bytes, start: int) -> int:
    """The first rsyslog escape of a line break (``#012``) from ``start``, or -1 (the line's other escapes, ``#011`` a
    tab and ``#015`` a CR, are undone with it; a line without a break is one line however it is escaped)."""
    return block.find(b"#012", start)


def _record_at(block: bytes, start: int) -> int:
    """The first ``{"`` from ``start`` that begins a line (a JSON record, as every log collector writes them), or -1."""
    if start == 0 and block.startswith(b'{"'):
        return 0
    b = block.find(b'\n{"', max(0, start - 1))
    return b + 1 if b >= 0 else -1


#: a block longer than this (a big log file, read _BLOCK at a time) is searched for folded lines only when its first
#: _SNIFF bytes show a collector's form: a mark itself, or a syslog line ("Jun 30 11:07:05 host ...", rsyslog's
#: RFC 3339 "2024-06-30T11:07:05.123+00:00 host ..."), whose "#012" lines may be sparse. A file is written by one
#: collector, so its first part shows it; a shorter text (a paste) is always searched.
_SNIFF = 16384
_SYSLOG_LINE = re.compile(rb"(?m)^[ \t]{0,8}(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d"
                          rb"|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) \S")
#: the same, matched at the start of one line (nothing in it matches a line break): a block's head split into its lines,
#: each tried where it begins, costs a few steps per line where a search of the head tries every byte
_SYSLOG_AT = re.compile(_SYSLOG_LINE.pattern[len(b"(?m)^"):])


def _collected(head: bytes) -> bool:
    return (b"#012" in head or b'\n{"' in head or head.startswith(b'{"')
            or any(map(_SYSLOG_AT.match, head.split(b"\n"))))


#: a terminal's escape sequences, as a coloured terminal copy keeps them (CSI ``ESC [ 31m`` and its 8-bit form, OSC
#: ``ESC ] 0;title BEL``, two-character escapes): no message carries one, and one inside a message ("CUDA error: no
#: kernel \x1b[33mimage\x1b[0m is available") split its literal (attack34). Bounded (linear), never across a line end
_ESCAPES = re.compile(r"(?:\x1b\[|\x9b)[0-?]{0,32}[ -/]{0,8}[@-~]|\x1b\][^\x07\x1b\n]{0,512}(?:\x07|\x1b\\)?|\x1b[@-_]")
_ESCAPES_B = re.compile(rb"\x1b\[[0-?]{0,32}[ -/]{0,8}[@-~]|\x1b\][^\x07\x1b\n]{0,512}(?:\x07|\x1b\\)?|\x1b[@-_]")


def _plain_block(block: bytes) -> bytes:
    """``block`` without terminal escape sequences (``_ESCAPES_B``; one byte search when it holds none). UTF-8 text's
    8-bit CSI is a continuation byte and is not looked for here (:func:`_plain_line` takes it in decoded text)."""
    return _ESCAPES_B.sub(b"", block) if b"\x1b" in block else block


def _plain_line(line: str) -> str:
    """``line`` without terminal escape sequences (``_ESCAPES``)."""
    return _ESCAPES.sub("", line) if "\x1b" in line or "\x9b" in line else line


def _unfold_block(block: bytes) -> bytes:
    """``block`` (whole lines) with each line a log collector folded several into (syslog's ``#012``, a JSON-lines
    record's escaped ``\\n``: reader.unfold) as the lines it holds; the block itself when there is none. Only the
    lines holding such a mark are looked at; each kind of mark is searched for once over the block."""
    if len(block) > _SNIFF and not _collected(block[:_SNIFF]):
        return block
    a = _syslog_at(block, 0)
    b = _record_at(block, 0)
    out: List[bytes] = []
    pos = 0
    while a >= 0 or b >= 0:
        at = b if a < 0 or (0 <= b < a) else a
        s = block.rfind(b"\n", 0, at) + 1
        e = block.find(b"\n", at)
        if e < 0:
            e = len(block)
        got = unfold(block[s:e].decode("utf-8", "replace"))
        if got is not None:
            out.append(block[pos:s])
            out.append("\n".join(got).encode("utf-8", "replace"))
            pos = e
        if 0 <= a < e:
            a = _syslog_at(block, e)
        if 0 <= b < e:
            b = _record_at(block, e)
    if not out:
        return block
    out.append(block[pos:])
    return b"".join(out)


def explain_stream(stream: BinaryIO, env: Union[Environment, Callable[[], Optional[Environment]], None] = None,
                   matrix: Any = None, facts: Optional[Dict[str, str]] = None,
                   tap: Optional[Callable[[bytes, bytes, int], None]] = None) -> ExplainResult:
    """Explain a binary stream of any size (a file, standard input): the fast path of the CLI.

    ``tap(block, lowered, lines_before)`` sees every block of whole lines in the same pass (the paste
    collector keeps report sections with it); ``env`` may be a callable, called once after the text is
    read (so a report found in the text can stand in for detecting this machine)."""
    from envcheck.explain.kb import load_kb

    kb = load_kb(matrix)
    scan = _Scan(kb)
    cover: Optional[List[bytes]] = None  # (the literal path's: made at its first block, the RE2 path reads none)
    lineset = kb.line_set()
    n = 0
    for block in _blocks(stream):
        block = _unfold_block(_plain_block(block))
        if lineset is not None:
            k = _scan_block_set(scan, lineset, block, n)
            if tap is not None:
                tap(block, block.lower(), n)
            n += k
            continue
        low = block.lower()
        if cover is None:
            cover = [c.encode("ascii") for c in kb.cover]
        _scan_block(scan, block, low, n, b"\n", cover, _decode)
        if tap is not None:
            tap(block, low, n)
        n += block.count(b"\n")
    if callable(env):
        env = env()
    return _result(scan, scan.finish(env, matrix, facts), n)


def explain_lines(lines: Iterable[str], env: Optional[Environment] = None, matrix: Any = None,
                  facts: Optional[Dict[str, str]] = None) -> List[Match]:
    """Every known failure in ``lines`` (any iterable; consumed once, in bounded memory), best first."""
    return scan_lines(lines, env=env, matrix=matrix, facts=facts).matches


def explain_text(text: str, env: Optional[Environment] = None, matrix: Any = None,
                 facts: Optional[Dict[str, str]] = None) -> List[Match]:
    return explain_lines(text.splitlines(), env=env, matrix=matrix, facts=facts)


def build_explain_report(matches: List[Match], detected: Optional[str] = None, **extra: Any) -> Dict[str, Any]:
    """The JSON document of contract §4 (``envcheck/explain/1``); ``detected`` says what machine
    facts were used ("live", "snapshot PATH", or None for text only). Extra keys (notes,
    lines_scanned, input) are added as given."""
    from envcheck.explain.kb import load_kb

    rep: Dict[str, Any] = {"schema": SCHEMA, "matches": [m.to_dict() for m in matches], "detected": detected}
    rep.update({k: v for k, v in extra.items() if v is not None})
    try:
        kb = load_kb()
        rep["matcher"] = kb.matcher
        if kb.skipped:
            rep["matcher_skipped"] = [f"{where}: {why}" for where, why in kb.skipped]
    except Exception:  # noqa: BLE001 - the report is still written without it
        from envcheck.explain.matcher import engine

        rep["matcher"] = engine()
    return rep



class _CallableModule(_types.ModuleType):
    """``envcheck.explain(...)`` is the Python API's ``envcheck.api.explain`` (docs/api.md); the package's
    names stay where they are."""

    def __call__(self, text: Any, **kw: Any) -> Any:
        from envcheck.explain.document import explain_text_document

        return explain_text_document(text, **kw)


_sys.modules[__name__].__class__ = _CallableModule
