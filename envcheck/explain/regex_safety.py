"""Is a regex safe to run on long, hostile log lines? A static check and a timed one.

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
* :func:`timed_problems` runs each pattern on adversarial lines built from its own literals
  (each fragment repeated up to the matcher's line limit, fragments joined, the prefilter word
  in front of them) in a child process, under a time limit per pattern; a pattern that does
  not finish in time is reported (the child is killed, so a pattern that never returns costs
  only the limit). Bundle validation and the test of the bundled knowledge base use both.

Run as ``python -m envcheck.explain.regex_safety`` it is that child: it reads a JSON list of
``[pattern, flags, [extra literal, ...]]`` on stdin and prints one line per pattern as it ends.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

if sys.version_info >= (3, 11):
    import re._constants as _C  # type: ignore[import-not-found]
    import re._parser as _P  # type: ignore[import-not-found]
else:  # pragma: no cover - 3.9/3.10
    import sre_constants as _C
    import sre_parse as _P

__all__ = ["static_problems", "timed_problems", "adversarial_lines", "LINE_LIMIT", "TIME_LIMIT"]

#: the longest line the matcher hands a regex (explain cuts longer ones)
LINE_LIMIT = 20000
#: seconds one pattern may take over all its adversarial lines
TIME_LIMIT = 2.0
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
# timed check
# ---------------------------------------------------------------------------------------------
def _fragments(items: Sequence[Tuple[Any, Any]], flags: int, out: List[str]) -> None:
    run: List[str] = []

    def close() -> None:
        if run:
            out.append("".join(run))
            run.clear()

    for op, av in items:
        if op is _C.LITERAL:
            run.append(chr(av))
            continue
        cs = _charset(op, av, flags)
        if cs is not None:
            close()
            sample = sorted(c for c in cs if c.isprintable())[:3]
            out.extend(sample)
            continue
        close()
        if op is _C.SUBPATTERN:
            _fragments(list(av[-1]), flags, out)
        elif op is _C.BRANCH:
            for b in av[1]:
                _fragments(list(b), flags, out)
        elif op in _REPEATS or op is _POSSESSIVE:
            _fragments(list(av[2]), flags, out)
        elif op is _ATOMIC:
            _fragments(list(av), flags, out)
        elif op in (_C.ASSERT, _C.ASSERT_NOT):
            _fragments(list(av[1]), flags, out)
    close()


def adversarial_lines(pattern: str, flags: int = re.IGNORECASE, extra: Sequence[str] = (),
                      length: int = LINE_LIMIT) -> List[str]:
    """Long lines built from the pattern's own literals that make backtracking patterns slow."""
    frags: List[str] = []
    try:
        _fragments(list(_P.parse(pattern, flags).data), flags, frags)
    except (re.error, RecursionError, OverflowError):
        return []
    own = [f for f in frags if len(f) > 1][:1]
    frags = [f for f in dict.fromkeys(list(extra) + frags) if f][:40]
    words = [f for f in frags if len(f) > 1] or frags or ["a"]
    lines = []

    def fill(unit: str, head: str = "") -> str:
        n = max(1, (length - len(head)) // max(1, len(unit)))
        return (head + unit * n)[:length]

    head = " ".join(extra[:1]) + " " if extra else ""
    for f in frags:
        lines.append(fill(f))
        lines.append(fill(f + " ", head))
    lines.append(fill("".join(words)))
    lines.append(fill(" ".join(words) + " "))
    lines.append(fill("".join(words[:1]) + "".join(frags), head))
    for w in list(dict.fromkeys(own + list(extra[:1]))):  # a word, then one fragment over and over
        for f in frags[:20]:
            lines.append(fill(f, w)[:-1] + "\x01")
    for a, b in zip(words, words[1:]):  # neighbours joined, e.g. "batch ?norm" -> "batchnorm"
        lines.append(fill(a + b, head))
        lines.append(fill(a + " " + b + " ", head))
    for w in words[:8]:  # a word and the fragments of every other one
        lines.append(fill(w.lower() + w.upper(), head))
    return list(dict.fromkeys(lines))


def _child() -> int:  # pragma: no cover - run in a subprocess by timed_problems
    import time

    todo = json.load(sys.stdin)
    for i, (pattern, flags, extra) in enumerate(todo):
        rx = re.compile(pattern, flags)
        start = time.perf_counter()
        for line in adversarial_lines(pattern, flags, extra):
            rx.search(line)
        print(json.dumps([i, round(time.perf_counter() - start, 4)]), flush=True)
    return 0


def timed_problems(patterns: Sequence[Tuple[str, int, Sequence[str]]], limit: float = TIME_LIMIT,
                   total: Optional[float] = None) -> List[Tuple[int, str]]:
    """(index, problem) for each of ``patterns`` ((regex, flags, extra literals)) that takes over
    ``limit`` seconds on its adversarial lines. Runs in a child process that is killed at the
    first pattern over its limit (the later ones are then checked in a new child)."""
    import select
    import subprocess
    import time

    items = [(p, int(f), list(e)) for p, f, e in patterns]
    problems: List[Tuple[int, str]] = []
    start_at = 0
    deadline = time.monotonic() + (total if total is not None else limit * len(items) + 30)
    while start_at < len(items):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        pkg_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
        proc = subprocess.Popen([sys.executable, "-m", "envcheck.explain.regex_safety"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(items[start_at:]).encode())
        proc.stdin.close()
        current = start_at
        # the child's start-up (interpreter, imports) gets its own allowance
        pattern_deadline = time.monotonic() + limit + 5.0
        buf = b""
        try:
            while current < len(items):
                now = time.monotonic()
                wait = min(pattern_deadline, deadline) - now
                if wait <= 0:
                    problems.append((current, f"takes over {limit:g} s on long lines built from its own words "
                                              "(catastrophic backtracking)"))
                    break
                ready, _, _ = select.select([proc.stdout], [], [], wait)
                if not ready:
                    continue
                chunk = os.read(proc.stdout.fileno(), 4096)
                if not chunk:  # the child died (a pattern that does not compile, memory)
                    problems.append((current, "the timed check could not run it"))
                    break
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    i, secs = json.loads(line)
                    if secs > limit:
                        problems.append((start_at + i, f"takes {secs:.1f} s on long lines built from its own words "
                                                       "(catastrophic backtracking)"))
                    current = start_at + i + 1
                    pattern_deadline = time.monotonic() + limit
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
        if time.monotonic() >= deadline and current < len(items):
            problems.extend((j, "not checked: the time for the whole check ran out")
                            for j in range(current + 1, len(items)))
            break
        start_at = current + 1
    return problems


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_child())
