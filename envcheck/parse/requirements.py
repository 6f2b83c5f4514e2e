"""Requires-Dist lines -> ``{distribution: specifier}`` for one platform.

Markers are evaluated by :mod:`packaging.markers` (PEP 508, with PEP 685's normalised extras: ``extra ==
"and_cuda"`` is the ``and-cuda`` extra). A marker that needs a fact the caller does not know (the Python version,
the machine) is not evaluated with a default: its line is skipped and reported in ``skipped``, so that the
caller can say so. Packaging's own ``Marker.evaluate`` fills a missing variable from the running interpreter,
which is the wrong machine for a snapshot; the variables a marker uses are read first for that reason.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

from envcheck import lazyre

__all__ = ["requirement_pins", "MARKER_VARIABLES"]

#: the PEP 508 environment markers
MARKER_VARIABLES = ("python_version", "python_full_version", "os_name", "sys_platform", "platform_release",
                    "platform_system", "platform_version", "platform_machine", "platform_python_implementation",
                    "implementation_name", "implementation_version", "extra")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_SPLIT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _variables(marker: str) -> List[str]:
    """The marker variables a marker text uses (names outside its quoted strings)."""
    bare = _QUOTED.sub(" ", marker)
    return [n for n in dict.fromkeys(_NAME.findall(bare)) if n in MARKER_VARIABLES]


# -- the fast path: the plain lines of real Requires-Dist, read without importing packaging's parser -------------
# (importing packaging.requirements/markers and building its tokenizer costs ~10-40 ms, more than the rest of
# `envcheck status` put together on a machine with torch; nearly every real line is of the simple forms below).
# A line outside them, or one whose meaning could depend on packaging's version, goes to packaging.
_REL = r"[0-9]+(?:\.[0-9]+)*"
_PRE = r"(?:(?:a|b|rc)[0-9]+)?(?:\.post[0-9]+)?(?:\.dev[0-9]+)?"
_FAST_SPEC = lazyre.compile(r"\s*(?:(?P<eq>==|!=)\s*(?P<v1>" + _REL + r"(?:\.\*|" + _PRE + r"))"
                        r"|(?P<cmp><=|>=|<|>)\s*(?P<v2>" + _REL + _PRE + r")"
                        r"|~=\s*(?P<v3>[0-9]+(?:\.[0-9]+)+" + _PRE + r"))\s*$")
#: a name ends where no name character follows (the lookahead: a shorter name is never tried), no two blanks
#: quantifiers touch, and the specifier is greedy and cannot start with a blank (its blanks are stripped by
#: _fast_specs): each character is tried a bounded number of times. Before review25, blanks around the optional
#: extras and a lazy specifier before \s* made "a" + 990 blanks + "@" run for more than 5 minutes.
_NAME_RX = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?![A-Za-z0-9._-])"
_FAST_LINE = lazyre.compile(r"\s*(?P<name>" + _NAME_RX + r")\s*"
                        r"(?:\[\s*(?:" + _NAME_RX + r"(?:\s*,\s*" + _NAME_RX + r")*\s*)?\]\s*)?"
                        r"(?P<spec>\([^();]*\)\s*|(?:[^();\[\]@\s][^();\[\]@]*)?)(?:;(?P<marker>.*))?\Z")
_MARKER_TOKEN = lazyre.compile(r"\s*(?:(?P<q>'[^']*'|\"[^\"]*\")|(?P<op>==|!=|<=|>=|<|>)|(?P<p>[()])"
                           r"|(?P<w>[A-Za-z_][A-Za-z0-9_]*))")
_PLAIN_RELEASE = lazyre.compile(_REL + "$")
_VERSION_LIKE = lazyre.compile(r"\s*[vV]?[0-9]")
#: the variables compared as versions (packaging.markers.MARKERS_REQUIRING_VERSION)
_VERSION_VARS = frozenset(("python_version", "python_full_version", "implementation_version", "platform_release"))
_FALLBACK = object()


def _fast_specs(text: str) -> Optional[str]:
    """str(SpecifierSet(text)) for a plain specifier list (each part checked strictly); None for another form."""
    text = text.strip()
    if text.startswith("("):
        text = text[1:-1]
    if not text.strip():
        return ""
    out = []
    ops: Set[Any] = set()
    for part in text.split(","):
        m = _FAST_SPEC.match(part)
        if m is None:
            return None
        op = m.group("eq") or m.group("cmp") or "~="
        v = m.group("v1") or m.group("v2") or m.group("v3")
        # "==1.0,==1.0.0": SpecifierSet keeps equal ones once, by packaging's own equality; only plain releases of
        # an op seen before are told apart here ("!=0.5.0,!=0.5.1,!=0.5.2", TensorFlow's gast pin), by their release
        # with trailing zeros dropped; anything else goes to packaging
        key = (op, _release(v)) if _PLAIN_RELEASE.match(v) else None
        if op in ops and (key is None or key in ops):
            return None
        ops.update((op, key) if key is not None else (op,))
        out.append(op + v)
    return ",".join(sorted(out))  # SpecifierSet prints its specifiers sorted


def _release(v: str) -> Tuple[int, ...]:
    t = [int(x) for x in v.split(".")]
    while t and t[-1] == 0:  # 3.10 == 3.10.0: trailing zeros do not count
        t.pop()
    return tuple(t)


def _fast_compare(var: str, op: str, value: str, env: Mapping[str, str]) -> Any:
    """One ``var op "value"`` as packaging evaluates it, or _FALLBACK where that could differ."""
    lhs = env[var]
    if var in _VERSION_VARS:
        if not (_PLAIN_RELEASE.match(lhs) and _PLAIN_RELEASE.match(value)):
            return _FALLBACK
        a, b = _release(lhs), _release(value)
        return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    if op not in ("==", "!=") or _VERSION_LIKE.match(value):  # a version-like value: packaging's version decides
        return _FALLBACK
    if var == "extra":  # PEP 685: extras compare by their normalized names
        lhs, value = re.sub(r"[-_.]+", "-", lhs).lower(), re.sub(r"[-_.]+", "-", value).lower()
    return (lhs == value) if op == "==" else (lhs != value)


def _parse_marker(text: str) -> Any:
    """A marker of ``var op "value"`` terms, ``and``, ``or`` and parentheses as nested lists of groups (``or`` of
    ``and``s) of (var, op, value) terms; _FALLBACK for anything else."""
    toks: List[Tuple[str, str]] = []
    pos, end = 0, len(text)
    while pos < end:
        m = _MARKER_TOKEN.match(text, pos)
        if m is None:
            if text[pos:].strip():
                return _FALLBACK
            break
        kind = m.lastgroup or ""
        toks.append((kind, m.group(kind)))
        pos = m.end()
    i = 0
    n = len(toks)

    def expr(depth: int) -> Any:
        nonlocal i
        groups: List[List[Any]] = [[term(depth)]]
        while i < n and toks[i] in (("w", "and"), ("w", "or")):
            if toks[i][1] == "or":
                groups.append([])
            i += 1
            groups[-1].append(term(depth))
        return groups

    def term(depth: int) -> Any:
        nonlocal i
        if depth > 32:
            raise ValueError("nested too deep")
        if i < n and toks[i] == ("p", "("):
            i += 1
            got = expr(depth + 1)
            if i >= n or toks[i] != ("p", ")"):
                raise ValueError("unbalanced")
            i += 1
            return got
        if i + 2 < n and toks[i][0] == "w" and toks[i][1] in MARKER_VARIABLES and toks[i + 1][0] == "op" \
                and toks[i + 2][0] == "q":
            i += 3
            return (toks[i - 3][1], toks[i - 2][1], toks[i - 1][1][1:-1])
        raise ValueError("not a term read here")

    try:
        tree = expr(0)
    except ValueError:
        return _FALLBACK
    return tree if i == n else _FALLBACK


def _terms(tree: Any) -> List[Tuple[str, str, str]]:
    out: List[Tuple[str, str, str]] = []
    for group in tree:
        for t in group:
            out += [t] if isinstance(t, tuple) else _terms(t)
    return out


def _eval_marker(tree: Any, env: Mapping[str, str]) -> Any:
    """True/False, or _FALLBACK when one term's meaning is packaging's to decide (every term is evaluated, as
    packaging does)."""
    groups = [[(_fast_compare(t[0], t[1], t[2], env) if isinstance(t, tuple) else _eval_marker(t, env)) for t in g] for g in tree]
    if any(x is _FALLBACK for g in groups for x in g):
        return _FALLBACK
    return any(all(g) for g in groups)


def _fast_marker(text: str, env: Mapping[str, str]) -> Any:
    """(holds, the unknown variables) of a marker of the plain forms; _FALLBACK for anything else."""
    tree = _parse_marker(text)
    if tree is _FALLBACK:
        return _FALLBACK
    missing = [v for v in dict.fromkeys(var for var, _, _ in _terms(tree)) if v not in env]
    if missing:
        return None, missing
    got = _eval_marker(tree, env)
    return _FALLBACK if got is _FALLBACK else (bool(got), [])


def _one_fast(line: str, env: Mapping[str, str]) -> Any:
    """:func:`_one` for the plain forms, without packaging; _FALLBACK for any other line."""
    if len(line) > 1000 or not line.isascii() or any(c in line for c in "\n\r\x0b\x0c"):
        return _FALLBACK  # the forms read here are short ASCII lines (and the patterns' work stays bounded)
    m = _FAST_LINE.match(line)
    if m is None:
        return _FALLBACK
    spec = _fast_specs(m.group("spec"))
    if spec is None:
        return _FALLBACK
    name = re.sub(r"[-_.]+", "-", m.group("name")).lower()
    marker = m.group("marker")
    if marker is None:
        return True, name, spec, []
    got = _fast_marker(marker, env)
    if got is _FALLBACK:
        return _FALLBACK
    holds, missing = got
    return (None if missing else holds), name, spec, missing


def _one(line: str, env: Mapping[str, str]) -> Tuple[Optional[bool], Optional[str], str, List[str]]:
    """(holds? None = not evaluated, normalized name, specifier, the unknown variables that stopped it)."""
    got = _one_fast(line, env)
    if got is not _FALLBACK:
        return got  # type: ignore[no-any-return]
    return _one_packaging(line, env)


def _one_packaging(line: str, env: Mapping[str, str]) -> Tuple[Optional[bool], Optional[str], str, List[str]]:
    """:func:`_one` by packaging (the reference the fast path is tested against)."""
    from packaging.markers import InvalidMarker, UndefinedComparison, UndefinedEnvironmentName
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        r = Requirement(line)
    except InvalidRequirement:
        return False, None, "", []  # not a requirement: nothing to pin
    name = re.sub(r"[-_.]+", "-", r.name).lower()
    if r.marker is None:
        return True, name, str(r.specifier), []
    missing = [v for v in _variables(str(r.marker)) if v not in env]
    if missing:
        return None, name, str(r.specifier), missing
    try:
        holds = r.marker.evaluate(dict(env))
    except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName, ValueError, TypeError):
        return None, name, str(r.specifier), []
    return holds, name, str(r.specifier), []


def requirement_pins(lines: List[str], env: Mapping[str, str],
                     skipped: Optional[List[str]] = None) -> Dict[str, str]:
    """``{normalized name: specifier}`` of the lines whose markers hold in ``env`` (marker variables; a variable
    left out is unknown). A line whose marker could not be evaluated is left out and, with ``skipped``, added
    there as ``"<line>: <why>"``."""
    out: Dict[str, str] = {}
    for line in lines:
        holds, name, spec, missing = _one(line, env)
        if holds and name:
            out[name] = ",".join(p.strip() for p in spec.split(",") if p.strip())
        elif holds is None and skipped is not None:
            why = (f"{', '.join(missing)} unknown" if missing else "the marker could not be evaluated")
            skipped.append(f"{line.strip()}: {why}")
    return out
