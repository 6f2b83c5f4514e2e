"""The regex engine of ``explain``: linear time by construction.

Every knowledge-base pattern (``compat_matrix/errors.toml``, bundled or from a signed bundle) is
written in one dialect, the subset of Python's ``re`` syntax that RE2 also runs with the same meaning:
no look-arounds, back-references, atomic groups, possessive or conditional forms, inline flags,
``\\b``/``\\A``/``\\Z`` or ``\\u`` escapes; repeat counts up to 1000. :func:`dialect_problems` checks
it without any engine installed, so whether a bundle is accepted never depends on the machine.

Two engines run that dialect:

* ``re2`` (`google-re2 <https://pypi.org/project/google-re2/>`_, where a wheel installs): each pattern
  is translated (:func:`to_re2`: ``\\d``, ``\\w``, ``\\s`` get Python's Unicode meanings) and run by
  RE2, whose time is linear in the text whatever the pattern. A :class:`LineSet`'s gate (one RE2
  search for the alternation of the literals) finds the lines of a block that hold a literal, a
  :class:`LiteralSet` (an ``RE2::Set`` of the literals) says which a new line holds, and only the
  patterns of those literals run on it (docs/matcher.md). No timing, no heuristic: RE2 has no
  backtracking to exploit.
* ``python-re`` (no wheel for the platform, an old glibc, or ``ENVCHECK_MATCHER=python-re``): Python's
  ``re`` on the lines that hold a signature's literal, each cut to ``LINE_CAP`` characters, and only
  for patterns whose worst case :func:`backtrack_bound` computes within ``BUDGET`` steps per line; the
  others are not run, and ``explain`` says which (``matcher_skipped``).

``envcheck --version`` and ``explain --json`` (key ``matcher``) say which engine is in use.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

__all__ = ["engine", "dialect_problems", "to_re2", "compile_pattern", "LineSet", "LiteralSet", "literal_set",
           "ByteLiteralSet", "byte_literal_set", "backtrack_bound", "LINE_CAP",
           "BUDGET", "MAX_REPEAT", "ENV_VAR", "Pattern"]

#: set to ``python-re`` to force the fallback engine (tests, or to compare the two)
ENV_VAR = "ENVCHECK_MATCHER"
#: the longest line the fallback hands Python's ``re`` (explain's reader already cuts lines to ~16 KB)
LINE_CAP = 4096
#: the fallback's worst case for one pattern on one line of LINE_CAP characters, in backtracking steps
BUDGET = 10 ** 10
#: the largest repeat count the dialect allows (RE2's own limit)
MAX_REPEAT = 1000
#: RE2 memory per compiled Set / pattern (the DFA cache lives in it)
_RE2_MEM = 64 << 20

# the dialect's classes are ASCII (Python's ``re.ASCII``, RE2's own): \s is [\t\n\v\f\r ]
_SPACE = r"\t-\r "
_TRANSLATE_OUT = {"d": r"[0-9]", "D": r"[^0-9]", "w": r"[0-9A-Za-z_]", "W": r"[^0-9A-Za-z_]",
                  "s": "[" + _SPACE + "]", "S": "[^" + _SPACE + "]"}
_TRANSLATE_IN = {"d": "0-9", "w": "0-9A-Za-z_", "s": _SPACE}
_PLAIN_ESCAPES = set("ntrfv")
_HEX = set("0123456789abcdefABCDEF")

_ENGINE: Optional[str] = None
_RE2: Any = None
#: why Python's re runs the patterns when google-re2 could not be imported (kept for callers that report the engine)
ENGINE_NOTE: List[str] = [""]


def engine() -> str:
    """``re2`` when google-re2 imports (and ``ENVCHECK_MATCHER`` does not say ``python-re``), else
    ``python-re``."""
    global _ENGINE, _RE2
    want = os.environ.get(ENV_VAR, "").strip().lower()
    if want in ("python-re", "re", "python"):
        return "python-re"
    if _ENGINE is None:
        try:
            import re2  # type: ignore[import-not-found,import-untyped,unused-ignore]

            _RE2 = re2
            _ENGINE = "re2"
        except Exception as exc:  # noqa: BLE001 - no wheel, an old glibc, a broken install: the fallback, noted
            _ENGINE = "python-re"
            ENGINE_NOTE[0] = f"google-re2 not usable ({type(exc).__name__}: {exc}); Python's re runs the patterns"
    return _ENGINE


# --------------------------------------------------------------------------------------- the dialect
def _fold_char(ch: str) -> str:
    """One character as an RE2 item matching it in both ASCII cases (``a`` -> ``[aA]``)."""
    if ch.isascii() and ch.isalpha():
        return "[" + ch.lower() + ch.upper() + "]"
    return _lit(ch)


def _lit(ch: str) -> str:
    if ch.isascii() and (ch.isalnum() or ch in " _"):
        return ch
    return "\\x{%x}" % ord(ch)


def _class_items(pattern: str, i: int, problems: List[str]) -> Tuple[int, bool, List[Tuple[int, int]], List[str]]:
    """Parse ``[...]`` starting after the ``[``: (index after ``]``, negated, ranges, extra RE2 items)."""
    n = len(pattern)
    neg = False
    if i < n and pattern[i] == "^":
        neg = True
        i += 1
    ranges: List[Tuple[int, int]] = []
    extra: List[str] = []
    first = True
    atoms: List[Any] = []  # code point, or a class item string (\d ...)
    while i < n and (pattern[i] != "]" or first):
        first = False
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                problems.append("ends with a lone backslash")
                return n, neg, ranges, extra
            e = pattern[i + 1]
            if e in _TRANSLATE_OUT:
                if e not in _TRANSLATE_IN:
                    problems.append(f"\\{e} inside [...] (write the class out)")
                atoms.append(_TRANSLATE_IN.get(e, ""))
                i += 2
            elif e == "x":
                if i + 3 < n and pattern[i + 2] in _HEX and pattern[i + 3] in _HEX:
                    atoms.append(int(pattern[i + 2:i + 4], 16))
                else:
                    problems.append("\\x needs two hex digits")
                i += 4
            elif e in _PLAIN_ESCAPES:
                atoms.append(ord({"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}[e]))
                i += 2
            elif e.isascii() and not e.isalnum() and e not in " \t\n":
                atoms.append(ord(e))
                i += 2
            else:
                problems.append(f"the escape \\{e} is not in the dialect")
                i += 2
            continue
        if c == "[":
            problems.append("a '[' inside [...] (write it \\[)")
        elif pattern.startswith(("&&", "--", "||", "~~"), i):
            problems.append(f"{pattern[i:i + 2]!r} inside [...] (set operations differ between engines)")
        atoms.append(ord(c))
        i += 1
    if i >= n:
        problems.append("an unterminated [...]")
        return n, neg, ranges, extra
    k = 0
    while k < len(atoms):
        a = atoms[k]
        if isinstance(a, str):
            extra.append(a)
            k += 1
            continue
        if k + 2 < len(atoms) and atoms[k + 1] == ord("-") and isinstance(atoms[k + 2], int):
            lo, hi = a, atoms[k + 2]
            if lo > hi:
                problems.append("a range out of order in [...]")
            ranges.append((lo, hi))
            k += 3
            continue
        if k + 2 < len(atoms) and atoms[k + 1] == ord("-") and isinstance(atoms[k + 2], str):
            problems.append("a range ending in a class in [...]")
        ranges.append((a, a))
        k += 1
    return i + 1, neg, ranges, extra


def _fold_ranges(ranges: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    out = list(ranges)
    for lo, hi in ranges:
        for a, b, d in ((65, 90, 32), (97, 122, -32)):  # A-Z -> a-z, a-z -> A-Z
            x, y = max(lo, a), min(hi, b)
            if x <= y:
                out.append((x + d, y + d))
    return out


def _class_re2(neg: bool, ranges: List[Tuple[int, int]], extra: List[str], fold: bool) -> str:
    if fold:
        ranges = _fold_ranges(ranges)
    body = "".join(_lit(chr(lo)) if lo == hi else _lit(chr(lo)) + "-" + _lit(chr(hi)) for lo, hi in ranges)
    return "[" + ("^" if neg else "") + body + "".join(extra) + "]"


@functools.lru_cache(maxsize=1024)
def _scan_cached(pattern: str, fold: bool) -> Tuple[Tuple[str, ...], str]:
    problems, out = _scan(pattern, fold)
    return tuple(problems), out


def _scan(pattern: str, fold: bool = False) -> Tuple[List[str], str]:
    """(problems, RE2 translation) of ``pattern``: one pass over its characters. ``fold``: the
    translation matches ASCII letters in both cases (Python's ``re.IGNORECASE | re.ASCII``)."""
    problems: List[str] = []
    out: List[str] = []
    i, n = 0, len(pattern)
    folds: List[bool] = []  # the case folding outside each open group
    while i < n:
        c = pattern[i]
        if c == ")" and folds:
            fold = folds.pop()
            out.append(")")
            i += 1
            continue
        if c == "(" and not pattern.startswith(("(?:", "(?P<", "(?-i:"), i):
            folds.append(fold)
        if c == "\\":
            if i + 1 >= n:
                problems.append("ends with a lone backslash")
                break
            i = _escape(pattern, i, fold, out, problems)
            continue
        if c == "[":
            i, neg, ranges, extra = _class_items(pattern, i + 1, problems)
            out.append(_class_re2(neg, ranges, extra, fold))
            continue
        if c == "(" and pattern.startswith("(?", i):
            if pattern.startswith("(?:", i):
                folds.append(fold)
                out.append("(?:")
                i += 3
                continue
            if pattern.startswith("(?-i:", i):  # a case-sensitive group
                folds.append(fold)
                fold = False
                out.append("(?:")
                i += 5
                continue
            m = re.match(r"\(\?P<([A-Za-z_][A-Za-z0-9_]{0,31})>", pattern[i:])
            if m:
                folds.append(fold)
                out.append(m.group(0))
                i += len(m.group(0))
                continue
            problems.append(f"the group {pattern[i:i + 4]!r}... is not in the dialect (only (...), (?:...), "
                            "(?P<name>...) and (?-i:...): no look-arounds, back-references, atomic groups or other "
                            "inline flags)")
            i += 2
            continue
        if c == "{":
            i = _repeat(pattern, i, out, problems)
            continue
        if c in "*+?" and i + 1 < n and pattern[i + 1] == "+":
            problems.append("a possessive repeat (*+, ++, ?+)")
        if c.isalpha() or not c.isascii():
            out.append(_fold_char(c) if fold else _lit(c))
        else:
            out.append(c)
        i += 1
    return problems, "".join(out)


def _escape(pattern: str, i: int, fold: bool, out: List[str], problems: List[str]) -> int:
    """The escape at ``pattern[i]`` (a backslash with a character after it) into ``out``; the index after it."""
    n = len(pattern)
    e = pattern[i + 1]
    if e in _TRANSLATE_OUT:
        out.append(_TRANSLATE_OUT[e])
        return i + 2
    if e == "x":
        if i + 3 < n and pattern[i + 2] in _HEX and pattern[i + 3] in _HEX:
            ch = chr(int(pattern[i + 2:i + 4], 16))
            out.append(_fold_char(ch) if fold else _lit(ch))
            return i + 4
        problems.append("\\x needs two hex digits")
        return i + 2
    if e in _PLAIN_ESCAPES or (e.isascii() and not e.isalnum() and e not in " \t\n"):
        out.append(pattern[i:i + 2])
        return i + 2
    problems.append(f"the escape \\{e} is not in the dialect (allowed: \\d \\D \\w \\W \\s \\S \\xHH "
                    "\\n \\t \\r \\f \\v and escaped punctuation; no \\b, \\A, \\Z, \\u, back-references)")
    return i + 2


def _repeat(pattern: str, i: int, out: List[str], problems: List[str]) -> int:
    """The ``{`` at ``pattern[i]``: a bounded repeat (checked) or a literal brace, into ``out``; the index after."""
    m = re.match(r"\{(\d*)(,?)(\d*)\}", pattern[i:])
    if not (m and (m.group(1) or m.group(2))):
        out.append("\\{")
        return i + 1
    lo, _, hi = m.groups()
    end = i + len(m.group(0))
    if not lo:
        problems.append(f"{m.group(0)}: write the lower bound ({{0,{hi}}})")
    elif max(int(lo or 0), int(hi or 0)) > MAX_REPEAT:
        problems.append(f"{m.group(0)}: repeat counts above {MAX_REPEAT}")
    if end < len(pattern) and pattern[end] == "+":
        problems.append("a possessive repeat")
    out.append(m.group(0))
    return end


def dialect_problems(pattern: str, flags: int = re.IGNORECASE) -> List[str]:
    """Why ``pattern`` is not in the dialect both engines run alike (empty when it is)."""
    if not isinstance(pattern, str):
        return ["not a string"]
    if len(pattern) > 4000:
        return ["longer than 4000 characters"]
    problems = list(_scan_cached(pattern, False)[0])
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(pattern, flags | re.ASCII)
    except (re.error, RecursionError, OverflowError) as exc:
        problems.append(f"does not compile: {exc}")
    return list(dict.fromkeys(problems))


def to_re2(pattern: str, flags: int = 0) -> str:
    """The RE2 spelling of a dialect pattern: ASCII classes, and with ``re.IGNORECASE`` each ASCII
    letter in both cases (no Unicode case folding: the same as Python's ``re.ASCII | re.IGNORECASE``)."""
    return _scan_cached(pattern, bool(flags & re.IGNORECASE))[1]


# --------------------------------------------------------------------------------------- compiled patterns
class _Re2Pattern:
    """An RE2 pattern with the part of ``re.Pattern``'s interface explain uses (search on a str)."""

    __slots__ = ("pattern", "flags", "_rx", "_names")

    def __init__(self, pattern: str, flags: int, lazy: bool = False) -> None:
        _init_re2_consts()
        self.pattern = pattern
        self.flags = flags
        self._rx: Any = None
        self._names: Dict[str, int] = {}
        if not lazy:
            self._compile()

    def _compile(self) -> Any:
        opts = _RE2.Options()
        opts.log_errors = False
        opts.max_mem = _RE2_MEM
        self._rx = _RE2.compile(to_re2(self.pattern, self.flags), opts)
        self._names = dict(self._rx.groupindex)
        return self._rx

    @property
    def groupindex(self) -> Dict[str, int]:
        if self._rx is None:
            self._compile()
        return self._names

    def _compiled(self) -> Any:
        rx = self._rx
        if rx is None:
            try:
                rx = self._compile()
            except _RE2.error:  # refused at first use (validation refuses it first): never matches
                self._rx = rx = _RE2.compile("\\z.")
        return rx

    def ascii_match(self) -> Tuple[Any, Any, Tuple[Tuple[str, int], ...]]:
        """(RE2's own ``Match`` and its anchor, called as ``match(anchor, raw, 0, len(raw))`` on an ASCII line's
        bytes, whose spans are then str offsets; the named groups as (name, index), in ``groupindex``'s order):
        :meth:`search`'s ASCII case without a match object (explain's matcher, once per new line and signature)."""
        rx = self._compiled()
        return rx._regexp.Match, _UNANCHORED, tuple(self._names.items())

    def search(self, text: str) -> Any:
        rx = self._compiled()
        if text.isascii():  # the common case: byte offsets are str offsets, no wrapper needed
            raw = text.encode("ascii")
            spans = rx._regexp.Match(_UNANCHORED, raw, 0, len(raw))
            return None if spans[0][0] < 0 else _AsciiMatch(text, spans, self._names)
        try:
            return rx.search(text)
        except UnicodeEncodeError:  # a lone surrogate (only from an API caller's str)
            return rx.search(text.encode("utf-8", "replace").decode("utf-8"))


class _AsciiMatch:
    """The part of a match object explain uses (group, groupdict), over an ASCII line."""

    __slots__ = ("_text", "_spans", "_names")

    def __init__(self, text: str, spans: Any, names: Dict[str, int]) -> None:
        self._text, self._spans, self._names = text, spans, names

    def group(self, g: Any = 0) -> Optional[str]:
        a, b = self._spans[g if isinstance(g, int) else self._names[g]]
        return None if a < 0 else self._text[a:b]

    def groupdict(self) -> Dict[str, Optional[str]]:
        return {name: self.group(i) for name, i in self._names.items()}

    def filled(self) -> Dict[str, str]:
        """The named groups that matched a non-empty text (``{k: v for k, v in groupdict().items() if v}``)."""
        text, spans = self._text, self._spans
        return {name: text[spans[i][0]:spans[i][1]] for name, i in self._names.items() if spans[i][1] > spans[i][0]}


Pattern = Any  # re.Pattern[str] or _Re2Pattern: both have .search(str) and .groupindex


_COMPILED: Dict[Tuple[str, int], Any] = {}


def compile_pattern(pattern: str, flags: int = re.IGNORECASE, lazy: bool = False) -> Pattern:
    """The compiled pattern for the engine in use (``re.error`` when it does not compile there);
    RE2 patterns are compiled once per process (``lazy``: on their first search; one RE2 refuses then
    never matches)."""
    if engine() == "re2":
        key = (pattern, flags)
        got = _COMPILED.get(key)
        if got is None:
            try:
                got = _Re2Pattern(pattern, flags, lazy)
            except _RE2.error as exc:
                raise re.error(f"RE2 cannot compile it: {exc}") from None
            if len(_COMPILED) >= 4096:
                _COMPILED.clear()
            _COMPILED[key] = got
        return got
    return re.compile(pattern, flags | re.ASCII)


class _FoldTable(Dict[int, str]):
    """:func:`literal_re2`'s table for ``str.translate``: each character's RE2 item, made on first sight."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        got = self[code] = _fold_char(ch) if ch.isalpha() else _lit(ch)
        return got


_FOLD = _FoldTable()


def literal_re2(text: str) -> str:
    """An RE2 pattern matching ``text`` literally, ASCII letters in either case."""
    return text.translate(_FOLD)


class LineSet:
    """The lines of a block (UTF-8 bytes, whole lines each ending with ``\\n``) worth reading, and which
    patterns match each: one RE2 search for the alternation of the patterns' literals (lower-case
    substrings, matched in either case) runs through the block, resuming after each line it stops at,
    so the lines without a literal (nearly all of a log) cost only that pass (:meth:`gate_match`); an RE2
    Set of the full patterns (``never_nl``, multi-line; compiled on first use) says which of them match on
    a line (:meth:`which`). Time linear in the block (RE2 has no backtracking), and Python's work is per
    line that holds a literal. (explain's scan asks the Set nothing: RE2 builds a Set's DFA as it meets new
    text, and on a log's first thousand distinct lines that cost ~300 ms; the literals a line holds and
    the patterns of those literals on it cost a few microseconds.)"""

    def __init__(self, patterns: Sequence[Tuple[str, int]], literals: Sequence[Sequence[str]],
                 joined: Optional[int] = None) -> None:
        opts = _RE2.Options()
        opts.log_errors = False
        opts.max_mem = _RE2_MEM
        opts.never_nl = True
        self._opts = opts
        self._patterns = list(patterns)
        self._src: List[str] = []
        self._literals = [list(x) for x in literals]
        self._set: Any = None
        self._sentinel = -1
        self._one: Dict[int, Any] = {}
        self._memo: Dict[bytes, List[int]] = {}
        self._gates: Dict[Any, Any] = {}  # (excluded patterns, gate literals) -> the compiled gate
        #: the patterns whose literals a join across a hard wrap can feed (explain's signatures: the first ones)
        self._joined = frozenset(range(len(self._literals) if joined is None else joined))
        self._unjoined = frozenset(range(len(self._literals))) - self._joined
        self._cross_re2 = ""  # (wrap_cross_re2 of their literals, made on first use)
        self._cross_match: Dict[bool, Any] = {}

    def _literal_gate(self, exclude: FrozenSet[Any], gate: Optional[Sequence[str]]) -> Any:
        key = (exclude, tuple(gate) if gate is not None else None)
        got = self._gates.get(key)  # a log's first block has no facts read yet, the next ones have: both kept
        if got is not None:
            return got
        opts = _RE2.Options()
        opts.log_errors = False
        opts.max_mem = _RE2_MEM
        opts.never_nl = True
        opts.never_capture = True
        if gate is not None:
            lits = sorted(set(x for x in gate if x))
        else:
            lits = sorted({lit for i, lits in enumerate(self._literals) if i not in exclude for lit in lits if lit})
        alts = "|".join(literal_re2(x) for x in lits)
        if len(self._gates) >= 16:
            self._gates.clear()
        got = self._gates[key] = _RE2.compile(("(?m)" + (alts or "[^\\s\\S]")).encode("utf-8"), opts)._regexp
        return got

    def _compile_set(self) -> Any:
        self._src = ["(?m)" + to_re2(p, f) for p, f in self._patterns]
        rs = _RE2.Set.SearchSet(self._opts)
        for src in self._src:
            rs.Add(src.encode("utf-8"))
        self._sentinel = rs.Add(b"")  # always matches: its absence means the DFA gave up
        rs.Compile()
        self._set = rs
        return rs

    def _which(self, line: bytes) -> List[int]:
        rs = self._set if self._set is not None else self._compile_set()
        got = rs._set.Match(line)  # RE2's own call (no Python frame of the wrapper between: once per new line)
        if got and self._sentinel in got:
            got = sorted(got)
            got.pop()  # the sentinel: the last pattern added, the highest index
            return got
        # the DFA ran out of memory: each pattern on its own (still linear)
        got = []
        for i, src in enumerate(self._src):
            rx = self._one.get(i)
            if rx is None:
                rx = self._one[i] = _RE2.compile(src.encode("utf-8"), self._opts)
            if rx.search(line) is not None:
                got.append(i)
        return got

    def gate_match(self, exclude: FrozenSet[Any] = frozenset(),
                   gate: Optional[Sequence[str]] = None) -> Tuple[Any, Any]:
        """(``match``, ``anchor``) of the gate (see :meth:`lines`), for a caller that walks the lines itself:
        ``match(anchor, block, pos, end)[0]`` is the (start, end) of the next literal at or after ``pos``,
        ``(-1, -1)`` when there is none (RE2's own call: no Python frame between)."""
        return self._literal_gate(exclude, gate).Match, _UNANCHORED

    def need_or_break_match(self, exclude: FrozenSet[Any] = frozenset(), cross: bool = True) -> Any:
        """RE2's own ``Match`` (called as :meth:`gate_match`'s) of the gate of the patterns not in ``exclude`` OR a line
        break that a literal may cross (:meth:`wrap_break_match`'s ``x\\ny`` pairs; with ``cross`` False, any break
        that may be a hard wrap: :data:`WRAP_BREAK`, a pattern far cheaper to compile), whichever begins first: one
        pass over a block where the two searches read it twice. A match holding ``\\n`` is a break (a literal holds no
        line break); it begins up to three characters before its line break, where a literal may begin too (the
        caller asks the gate there). None when a literal is shorter than two characters or holds a line break (a
        literal could then begin where a break begins: the two searches are used)."""
        key = ("need-or-break", exclude, cross)
        got = self._gates.get(key)
        if got is not None:
            return got or None
        lits = sorted({lit for i, lits in enumerate(self._literals) if i not in exclude for lit in lits if lit})
        if any(len(x) < 2 or "\n" in x or "\r" in x for x in lits):
            got = False
        else:
            opts = _RE2.Options()
            opts.log_errors = False
            opts.max_mem = _RE2_MEM
            opts.never_capture = True
            alts = "|".join(literal_re2(x) for x in lits) or "[^\\s\\S]"
            brk = self._cross() if cross else WRAP_BREAK
            # (the break first: where a literal begins where a break's match does, the break is the match - the caller
            # asks the gate between the two - and a search for a break in a few bytes is not hidden by a literal)
            got = _RE2.compile(("(?:" + brk + ")|(?:" + alts + ")").encode("utf-8"), opts)._regexp.Match
        if len(self._gates) >= 16:
            self._gates.clear()
        self._gates[key] = got
        return got or None

    def _cross(self) -> str:
        if not self._cross_re2:
            self._cross_re2 = wrap_cross_re2(lit for i in sorted(self._joined) for lit in self._literals[i])
        return self._cross_re2

    def joined_gate_match(self) -> Tuple[Any, Any]:
        """:meth:`gate_match` of the literals a join across a hard wrap can feed (of the ``joined`` patterns)."""
        return self.gate_match(self._unjoined)

    def wrap_break_match(self, cross: bool = True) -> Any:
        """RE2's own ``Match`` (called as :meth:`gate_match`'s) of a line break that a literal a join can feed (of the
        ``joined`` patterns) may cross when the two lines are joined across it (:func:`wrap_cross_re2`; with ``cross``
        False, any break that may be a hard wrap: :data:`WRAP_BREAK`); compiled once."""
        got = self._cross_match.get(cross)
        if got is None:
            opts = _RE2.Options()
            opts.log_errors = False
            opts.max_mem = _RE2_MEM
            opts.never_capture = True
            got = self._cross_match[cross] = _RE2.compile((self._cross() if cross else WRAP_BREAK).encode("utf-8"),
                                                          opts)._regexp.Match
        return got

    def which(self, line: bytes) -> List[int]:
        """The patterns that match ``line`` (one line's bytes, no newline), remembered for the lines seen last."""
        got = self._memo.get(line)
        if got is None:
            norm = line
            if not line.isascii():  # as explain reads it: bytes that are not UTF-8 become U+FFFD
                norm = line.decode("utf-8", "replace").encode("utf-8")
            got = self._which(norm)
            if len(self._memo) >= 4096:  # a log repeats its lines; bounded memory
                self._memo.clear()
            self._memo[line] = got
        return got

    @property
    def memo(self) -> Dict[bytes, List[int]]:
        """:meth:`which`'s memory (read it first: a dictionary lookup costs less than the call)."""
        return self._memo


class LiteralSet:
    """Which of ``literals`` (lower-case) a lower-cased text holds: one RE2 pass over it, where testing each
    literal in turn costs a pass per literal (the hard-wrap mending asks this of two joined lines)."""

    def __init__(self, literals: Sequence[str]) -> None:
        opts = _RE2.Options()
        opts.log_errors = False
        opts.max_mem = _RE2_MEM
        opts.never_capture = True
        self.literals = list(literals)
        #: what a caller keeps per literal (its index): the knowledge base's signatures and facts of each
        self.signatures: List[Tuple[int, ...]] = []
        self.facts: List[Tuple[int, ...]] = []
        self._set = _RE2.Set.SearchSet(opts)
        for lit in self.literals:
            self._set.Add(literal_re2(lit).encode("utf-8"))
        self._sentinel = self._set.Add(b"")  # always matches: its absence means the DFA gave up
        self._set.Compile()
        #: RE2's own call (no Python frame of the wrapper between): ``match(data)`` is the indexes (into
        #: ``literals``) of the literals ``data`` holds and :attr:`sentinel`, without it when RE2 could not tell
        self.match = self._set._set.Match
        self.sentinel = self._sentinel

    def present(self, data: bytes) -> Optional[List[str]]:
        """The literals ``data`` holds, in no order; None when RE2 could not tell (then test them one by one)."""
        got = self._set.Match(data) or []
        if self._sentinel not in got:
            return None
        return [self.literals[i] for i in got if i != self._sentinel]


def literal_set(literals: Sequence[str]) -> Optional[LiteralSet]:
    """A LiteralSet when the engine is RE2 and every literal is ASCII (None otherwise: test them one by one)."""
    if engine() != "re2" or not all(lit.isascii() for lit in literals):
        return None
    return LiteralSet(literals)


class ByteLiteralSet:
    """Which of ``literals`` (byte strings, matched exactly: byte for byte) a text holds, in one RE2 pass
    (Latin-1: any bytes), where ``bytes.find`` costs a pass per literal (the paste collector's anchors over each
    block of a log; :func:`byte_literal_set`)."""

    def __init__(self, literals: Sequence[bytes]) -> None:
        opts = _RE2.Options()
        opts.log_errors = False
        opts.max_mem = _RE2_MEM
        opts.never_capture = True
        opts.encoding = _RE2.Options.Encoding.LATIN1
        self.literals = list(literals)
        rs = _RE2.Set.SearchSet(opts)
        for lit in self.literals:
            rs.Add("".join("\\x%02x" % b for b in lit).encode("ascii"))
        self._sentinel = rs.Add(b"")  # always matches: its absence means the DFA gave up
        rs.Compile()
        self._match = rs._set.Match

    def __call__(self, data: bytes) -> Optional[FrozenSet[bytes]]:
        """The literals ``data`` holds; None when RE2 could not tell (then look for each)."""
        got = self._match(data)
        if not got or self._sentinel not in got:
            return None
        return frozenset(self.literals[i] for i in got if i != self._sentinel)


def byte_literal_set(literals: Tuple[bytes, ...]) -> Optional[ByteLiteralSet]:
    """A ByteLiteralSet of ``literals`` when the engine is RE2 (None with the fallback: look for each); compiled
    once per process."""
    if engine() != "re2" or not literals or not all(literals):
        return None
    return _byte_literal_set(tuple(literals))


@functools.lru_cache(maxsize=8)
def _byte_literal_set(literals: Tuple[bytes, ...]) -> ByteLiteralSet:
    return ByteLiteralSet(literals)


_UNANCHORED: Any = None


def _init_re2_consts() -> None:
    global _UNANCHORED
    if _UNANCHORED is None and _RE2 is not None:
        _UNANCHORED = _RE2._Anchor.UNANCHORED


#: how many characters of a literal on either side of a line break :func:`wrap_cross_re2` asks for
WRAP_CROSS = 3
#: a line break that may be a hard wrap (explain's ``_wrap_break``: a letter, digit, "_" or space, the break, an ASCII
#: letter or "_", or one space before it): every break :func:`wrap_cross_re2` finds that a join may be tried at, and more
WRAP_BREAK = "[0-9A-Za-z_ ]\n ?[A-Za-z_]"


def wrap_cross_re2(literals: Iterable[str]) -> str:
    """An RE2 pattern of the line breaks that one of ``literals`` may cross when the two lines are joined across the
    break as the hard-wrap mending joins them (nothing between, or a space in place of the break): for each way of
    cutting a literal in two (``x`` + ``y``, or ``x`` + " " + ``y``), the last :data:`WRAP_CROSS` characters of ``x``, a
    line break, the first :data:`WRAP_CROSS` of ``y`` (either may be empty at a literal's space), ASCII letters in either
    case. A join whose text holds a literal that neither its second line nor the last characters of its first hold
    has such a break (explain's ``_wrap_join``): a break that is none of these needs no join tried where the first
    line holds no literal. A literal holding a line break is left out (no joined text holds it)."""
    pairs: Set[Tuple[str, str]] = set()
    for lit in literals:
        if "\n" in lit or "\r" in lit:
            continue
        for k in range(1, len(lit)):
            pairs.add((lit[:k][-WRAP_CROSS:], lit[k:][:WRAP_CROSS]))
        for k, ch in enumerate(lit):
            if ch == " ":
                pairs.add((lit[:k][-WRAP_CROSS:], lit[k + 1:][:WRAP_CROSS]))
    return "(?:" + ("|".join(literal_re2(x) + "\n" + literal_re2(y) for x, y in sorted(pairs)) or "[^\\s\\S]") + ")"


def line_set(patterns: Sequence[Tuple[str, int]], literals: Sequence[Sequence[str]],
             joined: Optional[int] = None) -> Optional[LineSet]:
    """A LineSet over ``patterns`` (each with its literals; the first ``joined`` of them the ones a join across a hard
    wrap can feed, all when None) when the engine is RE2 (None for the fallback)."""
    if engine() != "re2":
        return None
    _init_re2_consts()
    return LineSet(patterns, literals, joined)


# --------------------------------------------------------------------------------------- the fallback's bound
def backtrack_bound(pattern: str, flags: int = re.IGNORECASE, n: int = LINE_CAP) -> int:
    """An upper bound on the steps Python's backtracking ``re.search`` takes for ``pattern`` on any line
    of ``n`` characters: n start positions x the steps from one (see
    :func:`envcheck.explain.regex_safety.parsed_bound`); ``sys.maxsize`` for what it cannot analyse."""
    from envcheck.explain.regex_safety import parsed_bound

    try:
        per_start = parsed_bound(pattern, flags, n)
    except Exception:  # noqa: BLE001 - whatever it cannot analyse is over budget
        return sys.maxsize
    return min(sys.maxsize, n * max(1, per_start))
