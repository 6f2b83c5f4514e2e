"""Is a regex safe to run on long, hostile log lines with Python's backtracking ``re``?

``explain`` runs every signature of ``errors.toml`` (bundled, or from a downloaded matrix
bundle) with ``re.search`` on lines of up to 20,000 characters. A pattern that backtracks
catastrophically (``(a|a)*$``) or quadratically (``batch ?norm\\w*[^\\n]{0,200}?X`` over a line
made of ``batchnorm`` repeated: 70 s for 16 KB) turns one log line into minutes.

* :func:`static_problems` walks the parsed pattern (``re``'s own parser) for the shapes that
  backtrack: an unbounded quantifier over something that itself repeats (``(a+)+``), an
  alternation under an unbounded quantifier whose branches can start with the same character
  (``(a|ab)*``), and two adjacent repeats over overlapping character sets of which one is
  unbounded, or both large (``.*\\s*.*``, ``\\w*[^\\n]{0,200}?``). It is cheap: ``validate_kb``
  runs it whenever a knowledge base is loaded.
* :func:`parsed_bound` bounds the work of one search: the number of ways the pattern can split a
  text (a repeat over characters that what follows it cannot start with counts once: backing off
  fails at once) and the longest stretch it can read. The fallback engine of
  :mod:`envcheck.explain.matcher` runs a pattern with ``re`` only when that bound, on a line of its
  cap, is within budget. There is no timed check: a verdict on a pattern never depends on how busy
  the machine is. (With google-re2 installed none of this is needed: RE2 does not backtrack.)
"""

from __future__ import annotations

import re
import sys
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

if sys.version_info >= (3, 11):
    import re._constants as _C  # type: ignore[import-not-found]
    import re._parser as _P  # type: ignore[import-not-found]
else:  # pragma: no cover - 3.9/3.10
    import sre_constants as _C
    import sre_parse as _P

__all__ = ["static_problems", "parsed_bound", "LINE_LIMIT"]

#: the longest line the matcher hands a regex (explain cuts longer ones)
LINE_LIMIT = 20000
_UNBOUNDED = _C.MAXREPEAT
#: a repeat with a larger bound counts as unbounded in the nesting check
_BIG = 100

# the alphabet the character-set reasoning works over: ASCII, and a stand-in for everything else
_ALPHABET = [chr(c) for c in range(1, 128)] + ["\u00e9", "\u4e00", "\u00a0"]
_REPEATS = {_C.MAX_REPEAT, _C.MIN_REPEAT}
_POSSESSIVE = getattr(_C, "POSSESSIVE_REPEAT", None)
_ATOMIC = getattr(_C, "ATOMIC_GROUP", None)


_CATEGORY_SETS: Dict[str, FrozenSet[str]] = {}


def _category(cat: Any) -> FrozenSet[str]:
    name = str(cat).upper()
    got = _CATEGORY_SETS.get(name)
    if got is not None:
        return got
    if "DIGIT" in name:
        pos = {ch for ch in _ALPHABET if ch.isdigit()}
    elif "SPACE" in name:
        pos = {ch for ch in _ALPHABET if ch.isspace()}
    elif "WORD" in name:
        pos = {ch for ch in _ALPHABET if ch.isalnum() or ch == "_"}
    elif "LINEBREAK" in name:
        pos = {"\n"}
    else:  # pragma: no cover - unknown category: assume it matches anything
        pos = set(_ALPHABET)
    got = frozenset(set(_ALPHABET) - pos) if "NOT_" in name else frozenset(pos)
    _CATEGORY_SETS[name] = got
    return got


def _cased(c: int, ignorecase: bool) -> Set[str]:
    ch = chr(c)
    return {ch, ch.lower(), ch.upper()} if ignorecase else {ch}


def _charset(op: Any, av: Any, flags: int) -> Optional[Set[str]]:
    """The characters (of the alphabet) a one-character item matches, or None if it is not one."""
    ic = bool(flags & re.IGNORECASE)
    if op is _C.LITERAL:
        return _cased(av, ic)
    if op is _C.NOT_LITERAL:
        return set(_ALPHABET) - _cased(av, ic)
    if op is _C.ANY:
        return set(_ALPHABET) if flags & re.DOTALL else set(_ALPHABET) - {"\n"}
    if op is _C.IN:
        neg = False
        out: Set[str] = set()
        for iop, iav in av:
            if iop is _C.NEGATE:
                neg = True
            elif iop is _C.LITERAL:
                out |= _cased(iav, ic)
            elif iop is _C.RANGE:
                lo, hi = iav
                out |= {ch for ch in _ALPHABET if lo <= ord(ch) <= hi}
                if ic:
                    out |= {ch.swapcase() for ch in list(out)}
            elif iop is _C.CATEGORY:
                out |= _category(iav)
            else:  # RANGE_UNI_IGNORE etc.: be generous
                out |= set(_ALPHABET)
        return set(_ALPHABET) - out if neg else out
    return None


def _first(items: Sequence[Tuple[Any, Any]], flags: int) -> Set[str]:
    """Characters a sequence can start with (an over-approximation)."""
    out: Set[str] = set()
    for op, av in items:
        cs = _charset(op, av, flags)
        if cs is not None:
            return out | cs
        if op is _C.SUBPATTERN:
            sub = av[-1]
            out |= _first(list(sub), flags)
            if not _nullable(list(sub)):
                return out
        elif op is _C.BRANCH:
            nullable = False
            for b in av[1]:
                out |= _first(list(b), flags)
                nullable = nullable or _nullable(list(b))
            if not nullable:
                return out
        elif op in _REPEATS or op is _POSSESSIVE:
            out |= _first(list(av[2]), flags)
            if av[0] > 0 and not _nullable(list(av[2])):
                return out
        elif op is _ATOMIC:
            out |= _first(list(av), flags)
            if not _nullable(list(av)):
                return out
        elif op in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
            continue
        else:  # a group reference or something unknown: anything may follow
            return set(_ALPHABET)
    return out


def _nullable(items: Sequence[Tuple[Any, Any]]) -> bool:
    for op, av in items:
        if op in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
            continue
        if op is _C.SUBPATTERN:
            if not _nullable(list(av[-1])):
                return False
        elif op is _C.BRANCH:
            if not any(_nullable(list(b)) for b in av[1]):
                return False
        elif op in _REPEATS or op is _POSSESSIVE:
            if av[0] > 0 and not _nullable(list(av[2])):
                return False
        else:
            return False
    return True


def _repeat_set(op: Any, av: Any, flags: int) -> Optional[Tuple[int, Set[str]]]:
    """(max count, character set) of a repeat of one character, e.g. ``\\w*`` or ``[^\\n]{0,200}?``."""
    if op not in _REPEATS or av[1] < 2:
        return None
    body = list(av[2])
    while len(body) == 1 and body[0][0] is _C.SUBPATTERN:
        body = list(body[0][1][-1])
    if len(body) != 1:
        return None
    cs = _charset(body[0][0], body[0][1], flags)
    return (av[1], cs) if cs is not None else None


def _flatten(items: Sequence[Tuple[Any, Any]]) -> List[Tuple[Any, Any]]:
    """A sequence with plain groups opened (``(?:ab)c`` -> ``a b c``), for the adjacency check."""
    out: List[Tuple[Any, Any]] = []
    for op, av in items:
        if op is _C.SUBPATTERN:
            out.extend(_flatten(list(av[-1])))
        else:
            out.append((op, av))
    return out


def _ends(items: Sequence[Tuple[Any, Any]], flags: int, last: bool = False) -> List[Tuple[int, Set[str]]]:
    """The one-character repeats a sequence can begin with (``last``: end with), through groups, branches and
    nullable items."""
    out: List[Tuple[int, Set[str]]] = []
    for op, av in (reversed(list(items)) if last else items):
        if op in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
            continue
        rs = _repeat_set(op, av, flags)
        if rs is not None:
            out.append(rs)
        elif op is _C.SUBPATTERN:
            out += _ends(list(av[-1]), flags, last)
        elif op is _C.BRANCH:
            for b in av[1]:
                out += _ends(list(b), flags, last)
        if not _nullable([(op, av)]):
            break
    return out


def _heads(items: Sequence[Tuple[Any, Any]], flags: int) -> List[Tuple[int, Set[str]]]:
    return _ends(items, flags)


def _tails(items: Sequence[Tuple[Any, Any]], flags: int) -> List[Tuple[int, Set[str]]]:
    return _ends(items, flags, last=True)


def _follow(body: Sequence[Tuple[Any, Any]], i: int, flags: int) -> Set[str]:
    """What can follow item ``i`` of a repeated ``body``: the rest of the body, then the body again."""
    rest = list(body[i + 1:])
    out = _first(rest, flags)
    if _nullable(rest):
        out |= _first(list(body), flags)
    return out


def _ambiguous(body: Sequence[Tuple[Any, Any]], flags: int) -> Optional[str]:
    """Whether an unboundedly repeated ``body`` can match one string in several ways."""
    for i, (op, av) in enumerate(body):
        if op in _REPEATS and av[1] > 1 and av[0] != av[1]:
            rs = _repeat_set(op, av, flags)
            if rs is None or rs[1] & _follow(body, i, flags):
                return "a repeated group that itself repeats (like (a+)+): catastrophic backtracking"
        elif op is _C.BRANCH:
            follow = _follow(body, i, flags)
            seen: Set[str] = set()
            for alt in av[1]:
                f = _first(list(alt), flags)
                if _nullable(list(alt)):
                    f = f | follow
                if f & seen:
                    return ("a repeated alternation whose branches can match alike (like (a|a)* or (a|aa)*): "
                            "catastrophic backtracking")
                seen |= f
            for alt in av[1]:
                sub = _ambiguous(_flatten(list(alt)), flags)
                if sub:
                    return sub
        elif op is _C.SUBPATTERN:  # pragma: no cover - _flatten opened it
            continue
    return None


def _walk(items: Sequence[Tuple[Any, Any]], flags: int, problems: List[str]) -> None:
    flat = [x for x in _flatten(items) if x[0] is not _C.AT]
    tails: List[Tuple[int, Set[str]]] = []
    for op, av in flat:
        for hmax, hset in _heads([(op, av)], flags):
            for tmax, tset in tails:
                if hset & tset and (_UNBOUNDED in (hmax, tmax) or hmax * tmax > 4096):
                    problems.append("two adjacent repeats over overlapping characters (like .*\\s*.* or "
                                    "\\w*[^\\n]{0,200}): quadratic backtracking on a long line")
        own = _tails([(op, av)], flags)
        tails = own + tails if _nullable([(op, av)]) else own
        if op in _REPEATS or op is _POSSESSIVE:
            body = _flatten(list(av[2]))
            if op in _REPEATS and (av[1] == _UNBOUNDED or av[1] > _BIG):
                why = _ambiguous(body, flags)
                if why:
                    problems.append(why)
            _walk(body, flags, problems)
        elif op is _C.BRANCH:
            for b in av[1]:
                _walk(list(b), flags, problems)
        elif op in (_C.ASSERT, _C.ASSERT_NOT):
            _walk(list(av[1]), flags, problems)
        elif op is _ATOMIC:
            _walk(list(av), flags, problems)


def static_problems(pattern: str, flags: int = re.IGNORECASE) -> List[str]:
    """The backtracking shapes found in ``pattern`` (empty when none); a pattern that does not
    compile is reported as such."""
    try:
        parsed = _P.parse(pattern, flags)
    except (re.error, RecursionError, OverflowError) as exc:
        return [f"does not compile: {exc}"]
    problems: List[str] = []
    state = getattr(parsed, "state", None) or getattr(parsed, "pattern", None)
    all_flags = getattr(state, "flags", flags) | flags
    _walk(list(parsed.data), all_flags, problems)
    return list(dict.fromkeys(problems))




# ---------------------------------------------------------------------------------------------
# the fallback's bound
# ---------------------------------------------------------------------------------------------
_HUGE = 1 << 62


def _mul(a: int, b: int) -> int:
    return min(_HUGE, a * b)


def _bound_seq(items: Sequence[Tuple[Any, Any]], flags: int, follow: Set[str], n: int) -> Tuple[int, int, Set[str]]:
    """(ways, cost, first set incl. ``follow`` when nullable) of a sequence followed by ``follow``: ``ways``
    the number of ways a backtracking search can pass it, ``cost`` the steps of all of them together."""
    parts = []
    rest_first = set(follow)
    for op, av in reversed(list(items)):
        w, c, first = _bound_item(op, av, flags, rest_first, n)
        parts.append((w, c))
        rest_first = first
    ways, cost = 1, 0
    for w, c in reversed(parts):  # left to right: each item runs once per way of passing the ones before it
        cost = min(_HUGE, cost + _mul(ways, c))
        ways = _mul(ways, w)
    return ways, cost, rest_first


def _bound_item(op: Any, av: Any, flags: int, rest_first: Set[str], n: int) -> Tuple[int, int, Set[str]]:
    cs = _charset(op, av, flags)
    if cs is not None:
        return 1, 1, set(cs)
    if op is _C.AT:
        return 1, 1, set(rest_first)
    if op is _C.SUBPATTERN:
        return _bound_seq(list(av[-1]), flags, rest_first, n)
    if op is _C.BRANCH:
        ways, cost, first = 0, 0, set()
        for b in av[1]:
            w, c, f = _bound_seq(list(b), flags, rest_first, n)
            ways = min(_HUGE, ways + w)
            cost = min(_HUGE, cost + c)
            first |= f
        return ways, cost, first
    if op in _REPEATS:
        lo, hi = av[0], (n if av[1] == _UNBOUNDED else min(av[1], n))
        body = list(av[2])
        own_first = _first(body, flags)
        bw, bc, _ = _bound_seq(body, flags, own_first | rest_first, n)
        first = own_first | (rest_first if lo == 0 or _nullable(body) else set())
        choices = max(1, hi - lo + 1)
        if bw == 1:
            # backing off leaves a character the rest cannot start with: it fails at once (one way)
            ways = 1 if not (own_first & rest_first) else choices
            cost = _mul(hi + 1, bc)
        else:  # a body that can match in several ways, repeated: every combination
            ways = _HUGE if hi > 62 else min(_HUGE, bw ** hi)
            cost = _mul(ways, _mul(hi + 1, bc))
        return ways, cost, first
    raise ValueError(f"not bounded: {op}")  # look-arounds, references, atomic/possessive: not analysed


def parsed_bound(pattern: str, flags: int = re.IGNORECASE, n: int = LINE_LIMIT) -> int:
    """An upper bound on the steps of a backtracking search for ``pattern`` from one start position
    of a line of ``n`` characters."""
    parsed = _P.parse(pattern, flags)
    state = getattr(parsed, "state", None) or getattr(parsed, "pattern", None)
    all_flags = getattr(state, "flags", flags) | flags
    return _bound_seq(list(parsed.data), all_flags, set(), n)[1]
