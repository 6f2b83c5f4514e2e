"""The error knowledge base: ``compat_matrix/errors.toml`` loaded, validated and compiled.

Every signature is a cheap literal prefilter (lower-case substrings, any of) plus a regex that
only runs on lines containing one of them; see the header of errors.toml for the schema.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

from envcheck.explain.regex_safety import static_problems
from envcheck.matrix.fixes import render_fix

__all__ = ["Signature", "Cause", "Fact", "KnowledgeBase", "validate_kb", "compile_kb", "load_kb", "ROLES", "KINDS",
           "cover_literals", "check_when", "kb_patterns", "bundle_kb_problems"]

ROLES = ("primary", "detail", "context")
#: generic = a weak wording (scores lower); cleanup = a teardown line after a failure ("could not destroy
#: cudnn handle"): a match only when nothing else is, never above the failure it follows
KINDS = ("generic", "cleanup")
ROUTES = ("lib", "symbol")
_WHEN = re.compile(r"^(?P<neg>!)?(?P<fact>[a-z_]+)(?:(?P<op>>=|<=|==|!=|<|>)(?P<value>[\w.]+))?$")
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
    cleanup: bool = False
    fix: Optional[Tuple[str, str, str]] = None  # (text, source, when): this wording's own first fix


@dataclass(frozen=True)
class Fact:
    """A fact printed in a log (a driver version, a GPU's compute capability, a framework version)."""
    name: str
    literals: Tuple[str, ...]
    regex: "re.Pattern[str]"
    source: str


@dataclass(frozen=True)
class Cause:
    id: str
    title: str
    weight: int
    source: str
    fixes: Tuple[Tuple[str, str, str], ...]  # (text, source, when)
    dead_ends: Tuple[Tuple[str, str], ...]
    downstream: Tuple[str, ...] = ()


@dataclass
class KnowledgeBase:
    causes: Dict[str, Cause]
    signatures: List[Signature]
    libraries: List[Tuple["re.Pattern[str]", str, str, str]] = field(default_factory=list)  # rx, cause, family,
    # symbol_cause ("" = an undefined symbol in it is no GPU-stack cause)
    facts: List[Fact] = field(default_factory=list)
    #: one alternation of every literal: a line it does not hit is skipped at once (most log lines)
    gate: Optional["re.Pattern[str]"] = None
    #: literal -> indexes (into ``signatures``) of the signatures that use it
    by_literal: Dict[str, List[int]] = field(default_factory=dict)
    #: the prefilter: the literals (of signatures and facts) that contain no other literal; a line
    #: holding none of them holds no literal at all. cover[i] -> the literals that contain cover[i]
    cover: List[str] = field(default_factory=list)
    under_cover: List[List[str]] = field(default_factory=list)
    #: literal -> indexes into ``facts``
    fact_literal: Dict[str, List[int]] = field(default_factory=dict)

    def library(self, lib: str) -> Optional[Tuple[str, str, str]]:
        """(cause when it cannot be loaded, family, cause of an undefined symbol in it) of a library name."""
        name = lib.strip().lower().rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
        for rx, cause, family, symbol_cause in self.libraries:
            if rx.search(name):
                if not family:  # the family is the name's stem: libcudart.so.11.0, cudart64_110.dll -> cudart
                    m = re.match(r"^(?:lib)?([a-z]+)", name)
                    family = m.group(1) if m else ""
                return cause, family, symbol_cause
        return None

    def route_library(self, lib: str, route: str = "lib") -> Optional[str]:
        row = self.library(lib)
        if row is None:
            return None
        return (row[2] or None) if route == "symbol" else row[0]


def cover_literals(literals: List[str], anchors: Optional[List[str]] = None) -> Tuple[List[str], List[List[str]]]:
    """The prefilter: the anchors that some literal contains, plus every literal that contains no anchor
    and no other such literal; and for each of them the literals that contain it. A line that holds a
    literal holds one of these."""
    lits = sorted(set(literals), key=lambda x: (len(x), x))
    cover: List[str] = [a for a in (anchors or []) if a and any(a in x for x in lits)]
    for lit in lits:
        if not any(c in lit for c in cover):
            cover.append(lit)
    return cover, [[x for x in lits if c in x] for c in cover]


def _when_ok(expr: str) -> bool:
    return all(_WHEN.match(t.strip()) for t in expr.split("&"))


def check_when(expr: str, facts: Dict[str, str]) -> Optional[bool]:
    """Evaluate a fix's ``when`` ("cc>=12.0 & !docker_gpus", "tensorflow<2.14"): True/False, or None
    when a fact it needs is unknown. A bare ``name`` is true when the fact is present."""
    from envcheck.engine.rules import compare_versions

    result: Optional[bool] = True
    for term in expr.split("&"):
        m = _WHEN.match(term.strip())
        if m is None:
            return None
        have = facts.get(m.group("fact"))
        if m.group("op") is None:
            ok: Optional[bool] = bool(have)
        elif have is None:
            ok = None
        else:
            ok = compare_versions(have, m.group("op"), m.group("value"))
        if ok is not None and m.group("neg"):
            ok = not ok
        if ok is False:
            return False
        if ok is None:
            result = None
    return result


_SIG_KEYS = {"name", "literal", "regex", "source", "role", "route", "kind", "fix", "fix_source", "fix_when"}


def _signature_problems(s: Any, sw: str, names: Set[str]) -> List[str]:
    """The problems of one signature table (of a ``[[cause]]``, or a top-level ``[[signature]]`` without
    its ``cause`` key); ``names`` = the signature names of the same cause seen so far (updated)."""
    problems: List[str] = []
    if not isinstance(s, dict):
        return [f"{sw}: not a table"]
    extra = set(s) - _SIG_KEYS
    if extra:
        problems.append(f"{sw}: unknown keys {sorted(extra)}")
    for k in ("name", "literal", "regex", "source"):
        if not s.get(k) or not isinstance(s.get(k), str):
            problems.append(f"{sw}: missing {k}")
    if problems:
        return problems
    if str(s.get("name")) in names:
        problems.append(f"{sw}: duplicate name")
    names.add(str(s.get("name")))
    if s["literal"] != s["literal"].lower() or not s["literal"].isascii():
        problems.append(f"{sw}: literal must be lower case (ASCII)")
    if ("fix" in s) != ("fix_source" in s) or ("fix_when" in s and "fix" not in s):
        problems.append(f"{sw}: fix needs fix_source (and fix_when only with a fix)")
    elif s.get("fix_source") and not _URL.match(s["fix_source"]):
        problems.append(f"{sw}: fix_source must be an https URL")
    elif s.get("fix_when") and not _when_ok(s["fix_when"]):
        problems.append(f"{sw}: bad fix_when")
    if not _URL.match(s["source"]):
        problems.append(f"{sw}: source must be an https URL")
    if s.get("role", "primary") not in ROLES:
        problems.append(f"{sw}: role must be one of {ROLES}")
    if s.get("route") not in (None,) + ROUTES:
        problems.append(f"{sw}: route must be one of {ROUTES}")
    if s.get("kind") not in (None,) + KINDS:
        problems.append(f"{sw}: kind must be one of {KINDS}")
    try:
        rx = re.compile(s["regex"], re.I)
    except re.error as exc:
        problems.append(f"{sw}: bad regex: {exc}")
        return problems
    if _NESTED.search(s["regex"]):
        problems.append(f"{sw}: nested quantifier (catastrophic backtracking risk)")
    else:
        problems += [f"{sw}: {p}" for p in static_problems(s["regex"], re.I)]
    if s.get("route") and "lib" not in rx.groupindex:
        problems.append(f"{sw}: route needs a named group 'lib'")
    return problems


def validate_kb(data: Any) -> List[str]:
    """Every problem of a parsed errors.toml beyond the generic matrix schema."""
    from envcheck.matrix import validate_tables

    problems = list(validate_tables("errors", data))
    if problems or not isinstance(data, dict):
        return problems
    ids = {c.get("id") for c in data.get("cause", []) if isinstance(c, dict)}
    family_names: Dict[str, Set[str]] = {}
    problems += _cause_problems(data.get("cause", []), family_names)
    problems += _extra_signature_problems(data.get("signature", []), ids, family_names)
    for i, c in enumerate(data.get("cause", [])):
        for d in str(c.get("downstream", "")).split("|"):
            if d and d not in ids:
                problems.append(f"errors.cause[{i}]: downstream {d!r} is not a cause id")
    for i, row in enumerate(data.get("library", [])):
        problems += _library_problems(i, row, ids)
    for i, row in enumerate(data.get("fact", [])):
        problems += _fact_problems(i, row)
    return problems


def _cause_problems(causes: List[Any], family_names: Dict[str, Set[str]]) -> List[str]:
    problems: List[str] = []
    seen: Set[str] = set()
    for i, c in enumerate(causes):
        where = f"errors.cause[{i}] ({c.get('id')})"
        cid = c.get("id", "")
        if not _ID.match(cid) or cid in seen:
            problems.append(f"{where}: id must be unique kebab-case")
        seen.add(cid)
        if not _URL.match(str(c.get("source", ""))):
            problems.append(f"{where}: source must be an https URL")
        w = c.get("weight", 50)
        if not 0 <= w <= 100:
            problems.append(f"{where}: weight must be 0..100")
        for kind in ("fix", "dead_end"):
            for j, item in enumerate(c.get(kind, [])):
                problems += _item_problems(f"{where}.{kind}[{j}]", kind, item)
        if not c.get("fix"):
            problems.append(f"{where}: no fix")
        names: Set[str] = set()
        for j, s in enumerate(c.get("signature", [])):
            problems += _signature_problems(s, f"{where}.signature[{j}] ({s.get('name') if isinstance(s, dict) else s})",
                                            names)
        family_names[cid] = names
    return problems


def _item_problems(where: str, kind: str, item: Any) -> List[str]:
    """A fix or dead end: text and source (and, for a fix, optionally when)."""
    allowed = {"text", "source", "when"} if kind == "fix" else {"text", "source"}
    if not {"text", "source"} <= set(item) <= allowed or not item["text"].strip():
        return [f"{where}: needs text and source (and optionally when)"]
    if not _URL.match(item["source"]):
        return [f"{where}: source must be an https URL"]
    if "when" in item and not _when_ok(item["when"]):
        return [f"{where}: bad when {item['when']!r}"]
    return []


def _extra_signature_problems(rows: Any, ids: Set[Any], family_names: Dict[str, Set[str]]) -> List[str]:
    """The top-level [[signature]] rows (wordings added to a cause)."""
    if not isinstance(rows, list):
        return ["errors: [[signature]] must be an array of tables"]
    problems: List[str] = []
    for j, s in enumerate(rows):
        sw = f"errors.signature[{j}] ({s.get('name') if isinstance(s, dict) else s})"
        if not isinstance(s, dict):
            problems.append(f"{sw}: not a table")
            continue
        if s.get("cause") not in ids:
            problems.append(f"{sw}: cause {s.get('cause')!r} is not a cause id")
            continue
        problems += _signature_problems({k: v for k, v in s.items() if k != "cause"}, sw,
                                        family_names.setdefault(s["cause"], set()))
    return problems


def _library_problems(i: int, row: Dict[str, Any], ids: Set[Any]) -> List[str]:
    problems: List[str] = []
    try:
        re.compile(row.get("pattern", ""))
    except re.error as exc:
        problems.append(f"errors.library[{i}]: bad pattern: {exc}")
    else:
        problems += [f"errors.library[{i}]: {p}" for p in static_problems(row.get("pattern", ""), 0)]
    if row.get("cause") not in ids:
        problems.append(f"errors.library[{i}]: cause {row.get('cause')!r} is not a cause id")
    for key in ("cause", "symbol_cause"):
        if key in row and row.get(key) not in ids:
            problems.append(f"errors.library[{i}]: {key} {row.get(key)!r} is not a cause id")
    return problems


def _fact_problems(i: int, row: Dict[str, Any]) -> List[str]:
    where = f"errors.fact[{i}] ({row.get('name')})"
    problems: List[str] = []
    if not re.match(r"^[a-z_]+$", str(row.get("name", ""))):
        problems.append(f"{where}: name must be snake_case")
    lit = str(row.get("literal", ""))
    if not lit or lit != lit.lower() or not lit.isascii():
        problems.append(f"{where}: literal must be lower case (ASCII)")
    try:
        rx = re.compile(row.get("regex", ""), re.I)
    except re.error as exc:
        return problems + [f"{where}: bad regex: {exc}"]
    if _NESTED.search(row.get("regex", "")):
        problems.append(f"{where}: nested quantifier (catastrophic backtracking risk)")
    else:
        problems += [f"{where}: {p}" for p in static_problems(row.get("regex", ""), re.I)]
    if "value" not in rx.groupindex:
        problems.append(f"{where}: needs a named group 'value'")
    return problems


def bundle_kb_problems(data: Any) -> List[str]:
    """Every problem of a matrix bundle's errors.toml: the schema (:func:`validate_kb`) and, when that passes, the
    timed regex-safety check. Passed to :func:`envcheck.matrix.bundle.update` by ``envcheck matrix update``."""
    from envcheck.explain.kbcheck import timed_in_child  # timed_problems, in a child that dies with us

    problems = validate_kb(data)
    if not problems:
        pats = kb_patterns(data)
        for i, why in timed_in_child([(p, f, lits) for p, f, lits, _ in pats], total=120.0):
            problems.append(f"errors.toml {pats[i][3]}: {why}")
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
    for s in data.get("signature", []) or []:
        if isinstance(s, dict) and isinstance(s.get("regex"), str):
            lits = [x for x in str(s.get("literal", "")).split("|") if x]
            out.append((s["regex"], int(re.I), lits, f"signature {s.get('name')!r} of {s.get('cause')!r}"))
    for i, row in enumerate(data.get("library", []) or []):
        if isinstance(row, dict) and isinstance(row.get("pattern"), str):
            out.append((row["pattern"], 0, [], f"library pattern {i}"))
    for row in data.get("fact", []) or []:
        if isinstance(row, dict) and isinstance(row.get("regex"), str):
            out.append((row["regex"], int(re.I), [str(row.get("literal", ""))], f"fact {row.get('name')!r}"))
    return out


def _signature(cid: str, s: Dict[str, Any]) -> Signature:
    return Signature(
        cause=cid, name=s["name"], literals=tuple(x for x in s["literal"].split("|") if x),
        regex=re.compile(s["regex"], re.I), source=s["source"], role=s.get("role", "primary"),
        route=s.get("route"), generic=s.get("kind") == "generic", cleanup=s.get("kind") == "cleanup",
        fix=(render_fix(s["fix"]), s["fix_source"], s.get("fix_when", "")) if s.get("fix") else None)


def compile_kb(data: Dict[str, Any]) -> KnowledgeBase:
    causes: Dict[str, Cause] = {}
    sigs: List[Signature] = []
    for c in data.get("cause", []):
        cid = c["id"]
        causes[cid] = Cause(
            id=cid, title=c["title"], weight=int(c.get("weight", 50)), source=c.get("source", ""),
            fixes=tuple((render_fix(f["text"]), f["source"], f.get("when", "")) for f in c.get("fix", [])),
            dead_ends=tuple((render_fix(f["text"]), f["source"]) for f in c.get("dead_end", [])),
            downstream=tuple(d for d in str(c.get("downstream", "")).split("|") if d))
        for s in c.get("signature", []):
            sigs.append(_signature(cid, s))
    for s in data.get("signature", []):  # signatures appended in their own section ([[signature]], cause = ...)
        sigs.append(_signature(s["cause"], s))
    libs = [(re.compile(r["pattern"]), r["cause"], r.get("family", ""), r.get("symbol_cause", ""))
            for r in data.get("library", [])]
    facts = [Fact(name=r["name"], literals=tuple(x for x in r["literal"].split("|") if x),
                  regex=re.compile(r["regex"], re.I), source=r.get("source", "")) for r in data.get("fact", [])]
    fact_literal: Dict[str, List[int]] = {}
    for i, fc in enumerate(facts):
        for lit in fc.literals:
            fact_literal.setdefault(lit, []).append(i)
    by_literal: Dict[str, List[int]] = {}
    for i, sg in enumerate(sigs):
        for lit in sg.literals:
            by_literal.setdefault(lit, []).append(i)
    gate = re.compile("|".join(re.escape(x) for x in sorted(by_literal, key=len, reverse=True))) if by_literal else None
    anchors = [str(a) for a in (data.get("meta") or {}).get("prefilter", []) if str(a) == str(a).lower()]
    cover, under = cover_literals(list(by_literal) + list(fact_literal), anchors)
    return KnowledgeBase(causes=causes, signatures=sigs, libraries=libs, gate=gate, by_literal=by_literal,
                         cover=cover, under_cover=under, facts=facts, fact_literal=fact_literal)


_CACHE: Dict[str, KnowledgeBase] = {}


def load_kb(matrix: Any = None) -> KnowledgeBase:
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
