"""The error knowledge base: ``compat_matrix/errors.toml`` loaded, validated and compiled.

Every signature is a cheap literal prefilter (lower-case substrings, any of) plus a regex that
only runs on lines containing one of them; see the header of errors.toml for the schema.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from envcheck.explain.regex_safety import static_problems

__all__ = ["Signature", "Cause", "KnowledgeBase", "validate_kb", "compile_kb", "load_kb", "ROLES", "kb_patterns"]

ROLES = ("primary", "detail", "context")
_URL = re.compile(r"^https://\S+$")
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# A quantified group that itself ends in an unbounded quantifier, e.g. (a+)+ or (\w*)*:
# the shape of catastrophic backtracking. Signatures must not contain it.
_NESTED = re.compile(r"[+*}]\)(?:[+*]|\{\d*,\})")


@dataclass(frozen=True)
class Signature:
    cause: str
    name: str
    literals: Tuple[str, ...]
    regex: "re.Pattern[str]"
    source: str
    role: str = "primary"
    route: Optional[str] = None
    generic: bool = False


@dataclass(frozen=True)
class Cause:
    id: str
    title: str
    weight: int
    source: str
    fixes: Tuple[Tuple[str, str], ...]  # (text, source)
    dead_ends: Tuple[Tuple[str, str], ...]
    downstream: Tuple[str, ...] = ()


@dataclass
class KnowledgeBase:
    causes: Dict[str, Cause]
    signatures: List[Signature]
    libraries: List[Tuple["re.Pattern[str]", str]] = field(default_factory=list)
    #: one alternation of every literal: a line it does not hit is skipped at once (most log lines)
    gate: Optional["re.Pattern[str]"] = None
    #: literal -> indexes (into ``signatures``) of the signatures that use it
    by_literal: Dict[str, List[int]] = field(default_factory=dict)

    def route_library(self, lib: str) -> Optional[str]:
        name = lib.strip().lower().rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
        for rx, cause in self.libraries:
            if rx.search(name):
                return cause
        return None


def validate_kb(data: Any) -> List[str]:
    """Every problem of a parsed errors.toml beyond the generic matrix schema."""
    from envcheck.matrix import validate_tables

    problems = list(validate_tables("errors", data))
    if problems or not isinstance(data, dict):
        return problems
    ids = set()
    for i, c in enumerate(data.get("cause", [])):
        where = f"errors.cause[{i}] ({c.get('id')})"
        cid = c.get("id", "")
        if not _ID.match(cid) or cid in ids:
            problems.append(f"{where}: id must be unique kebab-case")
        ids.add(cid)
        if not _URL.match(str(c.get("source", ""))):
            problems.append(f"{where}: source must be an https URL")
        w = c.get("weight", 50)
        if not 0 <= w <= 100:
            problems.append(f"{where}: weight must be 0..100")
        for kind in ("fix", "dead_end"):
            for j, item in enumerate(c.get(kind, [])):
                if set(item) != {"text", "source"} or not item["text"].strip():
                    problems.append(f"{where}.{kind}[{j}]: needs exactly text and source")
                elif not _URL.match(item["source"]):
                    problems.append(f"{where}.{kind}[{j}]: source must be an https URL")
        if not c.get("fix"):
            problems.append(f"{where}: no fix")
        names = set()
        for j, s in enumerate(c.get("signature", [])):
            sw = f"{where}.signature[{j}] ({s.get('name')})"
            extra = set(s) - {"name", "literal", "regex", "source", "role", "route", "kind"}
            if extra:
                problems.append(f"{sw}: unknown keys {sorted(extra)}")
            for k in ("name", "literal", "regex", "source"):
                if not s.get(k):
                    problems.append(f"{sw}: missing {k}")
            if s.get("name") in names:
                problems.append(f"{sw}: duplicate name")
            names.add(s.get("name"))
            if s.get("literal") and s["literal"] != s["literal"].lower():
                problems.append(f"{sw}: literal must be lower case")
            if s.get("source") and not _URL.match(s["source"]):
                problems.append(f"{sw}: source must be an https URL")
            if s.get("role", "primary") not in ROLES:
                problems.append(f"{sw}: role must be one of {ROLES}")
            if s.get("route") not in (None, "lib"):
                problems.append(f"{sw}: route must be 'lib'")
            if s.get("kind") not in (None, "generic"):
                problems.append(f"{sw}: kind must be 'generic'")
            try:
                rx = re.compile(s.get("regex", ""), re.I)
            except re.error as exc:
                problems.append(f"{sw}: bad regex: {exc}")
                continue
            if _NESTED.search(s.get("regex", "")):
                problems.append(f"{sw}: nested quantifier (catastrophic backtracking risk)")
            else:
                problems += [f"{sw}: {p}" for p in static_problems(s["regex"], re.I)]
            if s.get("route") == "lib" and "lib" not in rx.groupindex:
                problems.append(f"{sw}: route = 'lib' needs a named group 'lib'")
    for i, c in enumerate(data.get("cause", [])):
        for d in str(c.get("downstream", "")).split("|"):
            if d and d not in ids:
                problems.append(f"errors.cause[{i}]: downstream {d!r} is not a cause id")
    for i, row in enumerate(data.get("library", [])):
        try:
            re.compile(row.get("pattern", ""))
        except re.error as exc:
            problems.append(f"errors.library[{i}]: bad pattern: {exc}")
        else:
            problems += [f"errors.library[{i}]: {p}" for p in static_problems(row.get("pattern", ""), 0)]
        if row.get("cause") not in ids:
            problems.append(f"errors.library[{i}]: cause {row.get('cause')!r} is not a cause id")
    return problems


def kb_patterns(data: Any) -> List[Tuple[str, int, List[str], str]]:
    """Every regex of a parsed errors.toml as (pattern, flags, prefilter literals, where), for the
    timed safety check (:func:`envcheck.explain.regex_safety.timed_problems`)."""
    out: List[Tuple[str, int, List[str], str]] = []
    if not isinstance(data, dict):
        return out
    for c in data.get("cause", []) or []:
        for s in (c.get("signature", []) if isinstance(c, dict) else []) or []:
            if isinstance(s, dict) and isinstance(s.get("regex"), str):
                lits = [x for x in str(s.get("literal", "")).split("|") if x]
                out.append((s["regex"], int(re.I), lits, f"signature {s.get('name')!r} of {c.get('id')!r}"))
    for i, row in enumerate(data.get("library", []) or []):
        if isinstance(row, dict) and isinstance(row.get("pattern"), str):
            out.append((row["pattern"], 0, [], f"library pattern {i}"))
    return out


def compile_kb(data: Dict[str, Any]) -> KnowledgeBase:
    causes: Dict[str, Cause] = {}
    sigs: List[Signature] = []
    for c in data.get("cause", []):
        cid = c["id"]
        causes[cid] = Cause(
            id=cid, title=c["title"], weight=int(c.get("weight", 50)), source=c.get("source", ""),
            fixes=tuple((f["text"], f["source"]) for f in c.get("fix", [])),
            dead_ends=tuple((f["text"], f["source"]) for f in c.get("dead_end", [])),
            downstream=tuple(d for d in str(c.get("downstream", "")).split("|") if d))
        for s in c.get("signature", []):
            sigs.append(Signature(
                cause=cid, name=s["name"], literals=tuple(x for x in s["literal"].split("|") if x),
                regex=re.compile(s["regex"], re.I), source=s["source"], role=s.get("role", "primary"),
                route=s.get("route"), generic=s.get("kind") == "generic"))
    libs = [(re.compile(r["pattern"]), r["cause"]) for r in data.get("library", [])]
    by_literal: Dict[str, List[int]] = {}
    for i, sg in enumerate(sigs):
        for lit in sg.literals:
            by_literal.setdefault(lit, []).append(i)
    gate = re.compile("|".join(re.escape(x) for x in sorted(by_literal, key=len, reverse=True))) if by_literal else None
    return KnowledgeBase(causes=causes, signatures=sigs, libraries=libs, gate=gate, by_literal=by_literal)


_CACHE: Dict[str, KnowledgeBase] = {}


def load_kb(matrix=None) -> KnowledgeBase:
    """The knowledge base of the active matrix (``load_matrix().table("errors")``); the bundled
    one when the active matrix (e.g. an older updated bundle) has none or an invalid one."""
    from envcheck.errors import MatrixError
    from envcheck.matrix import Matrix, bundled_dir, load_matrix

    candidates = []
    m = matrix if matrix is not None else load_matrix()
    candidates.append((m.directory or "", m))
    if m.directory != bundled_dir():
        candidates.append((bundled_dir(), Matrix(bundled_dir())))
    last = "no errors table"
    for key, mx in candidates:
        if key in _CACHE:
            return _CACHE[key]
        try:
            data = mx.table("errors")
        except MatrixError as exc:
            last = str(exc)
            continue
        if not data:
            continue
        problems = validate_kb(data)
        if problems:
            last = "; ".join(problems[:3])
            continue
        kb = compile_kb(data)
        _CACHE[key] = kb
        return kb
    raise MatrixError(f"the error knowledge base (errors.toml) is missing or broken: {last}")
