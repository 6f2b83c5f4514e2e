"""A per-user cache of the code Python compiles for the methods ``dataclasses`` generates (issue 24).

``@dataclass`` writes the source of each generated method (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, a frozen class's ``__setattr__`` / ``__delattr__``) and hands it to ``exec``: Python 3.9-3.12
compile one method at a time (3.13 one class at a time), and a status run builds 171 of them: ~10 ms of its
CPU, the largest single item of its start. The compiled code of a source text never changes for one Python
(the text holds every name, default and annotation as a parameter of the factory function it defines), so
the CLI keeps it: :func:`install` gives ``dataclasses`` an ``exec`` of its own that looks the text up here
and runs the code compiled earlier for exactly that text (``marshal``, as Python's own ``.pyc`` files do),
and compiles, runs and remembers the text otherwise. The classes, their methods and their behaviour are
what ``exec`` of the text gives: the same ``compile(text, "<string>", "exec")`` with no inherited
``__future__`` flags (tests/test_codecache.py compares every method of every envcheck dataclass built with
and without the cache). The dataclass definitions stay the one source of truth: a changed class makes a new
text, a new entry.

Only the CLI process uses it (``envcheck.__main__``), never ``import envcheck`` in someone else's program
(the guard, the API): ``dataclasses`` of the caller's process is left alone. The file lives in the user's
cache folder (``ENVCHECK_CACHE_DIR``, else ``$XDG_CACHE_HOME/envcheck``, else ``~/.cache/envcheck``),
``code/dataclasses-<magic>-O<level>.bin``, one per byte-code version and optimisation level, and is used
only where that folder and its parent are the user's own (:func:`envcheck.safe_io.private_dir`: no other
user can plant code there). A missing, foreign, unreadable or damaged file is the same as none: every text
is compiled, as without the cache; it is rewritten (atomically) at the end of a run that compiled anything,
holding at most :data:`MAX_ENTRIES` texts (not under ``PYTHONDONTWRITEBYTECODE`` / ``python -B``).
``ENVCHECK_NO_CODE_CACHE=1`` turns it off.
"""

from __future__ import annotations

import builtins
import marshal
import os
import re
import sys
import types
from typing import Any, Dict, Optional, Set

#: the file's first bytes (then Python's byte-code magic number, then the marshalled table)
HEADER = b"envcheck dataclass code 1\n"
#: texts kept at most (envcheck builds ~500 methods over all its commands; older versions' fall out)
MAX_ENTRIES = 4000
#: the file read at most (bytes)
MAX_BYTES = 16 * 1024 * 1024

_exec = builtins.exec


def _magic() -> bytes:
    from importlib.util import MAGIC_NUMBER

    return bytes(MAGIC_NUMBER)


def cache_file(name: str = "cli") -> str:
    """The cache's path for the runs called ``name`` (whether or not it exists): ``status`` has a file of its
    own, so that a status run reads only the ~170 texts it uses (not every command's: ~0.4 ms less)."""
    from envcheck.safe_io import cache_base

    tail = "" if name == "cli" else f"-{name}"
    return os.path.join(cache_base(), "code", f"dataclasses-{_magic().hex()}-O{sys.flags.optimize}{tail}.bin")


def _read_table(path: str, head: bytes) -> Any:
    """The marshalled table of a cache file that starts with ``head``, read from the user's own private folder
    only (a link, a foreign or damaged file is none); None when there is none."""
    try:
        from envcheck.safe_io import private_dir, read_bytes

        folder = os.path.dirname(path)
        private_dir(os.path.dirname(folder))
        private_dir(folder)
        data = read_bytes(path, MAX_BYTES, follow=False, strict=True)
    except (OSError, ImportError):
        return None
    if not data.startswith(head):
        return None
    try:
        return marshal.loads(data[len(head):])
    except (ValueError, EOFError, TypeError):
        return None


def _write_table(path: str, head: bytes, table: Dict[Any, Any]) -> bool:
    """Write ``head`` + the marshalled ``table`` to ``path`` in a private folder; True when written. A cache that
    can be rebuilt: atomic, never fsync-ed; never raises."""
    try:
        from envcheck.safe_io import private_dir, replace_file

        folder = os.path.dirname(path)
        base = private_dir(os.path.dirname(folder), create=True)
        folder = private_dir(os.path.join(base, os.path.basename(folder)), create=True)
        data = head + marshal.dumps(table)
        if len(data) > MAX_BYTES:
            return False
        replace_file(os.path.join(folder, os.path.basename(path)), data, 0o600, sync=False)
    except (OSError, ImportError, ValueError):
        return False
    return True


class CodeCache:
    """The compiled code of method texts, read from and written to :attr:`path`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.loaded: Dict[str, bytes] = {}
        self.new: Dict[str, bytes] = {}
        self.used: Set[str] = set()
        self.hits = 0
        self.misses = 0
        self._read = False

    def _load(self) -> None:
        self._read = True
        table = _read_table(self.path, HEADER + _magic())
        if isinstance(table, dict):
            self.loaded = {k: v for k, v in table.items() if type(k) is str and type(v) is bytes}

    def code(self, text: str) -> types.CodeType:
        """The code object of ``compile(text, "<string>", "exec")`` as ``exec(text)`` would compile it."""
        if not self._read:
            self._load()
        self.used.add(text)
        blob = self.loaded.get(text)
        if blob is not None:
            try:
                code = marshal.loads(blob)
            except (ValueError, EOFError, TypeError):
                code = None
            if type(code) is types.CodeType:
                self.hits += 1
                return code
        # dont_inherit: exec(text) inside dataclasses compiles with dataclasses' own (no) __future__ flags,
        # not with this module's `annotations`
        code = compile(text, "<string>", "exec", dont_inherit=True)
        self.misses += 1
        self.new[text] = marshal.dumps(code)
        return code

    def exec(self, source: Any, globals: Optional[Dict[str, Any]] = None,  # noqa: A002 - exec's own names
             locals: Optional[Any] = None) -> None:  # noqa: A002
        """``exec`` as ``dataclasses`` calls it; a text is run through the cache, anything else as given."""
        if type(source) is str:
            source = self.code(source)
        _exec(source, globals, locals)

    def save(self) -> bool:
        """Write the table back when this run compiled anything new; True when written. Never raises. Not
        written under ``PYTHONDONTWRITEBYTECODE`` / ``-B`` (it is byte-code too); read all the same."""
        if not self.new or sys.dont_write_bytecode:
            return False
        table = dict(self.loaded)
        table.update(self.new)
        if len(table) > MAX_ENTRIES:  # keep what this run used
            table = {k: v for k, v in table.items() if k in self.used}
        return _write_table(self.path, HEADER + _magic(), table)


_active: Optional[CodeCache] = None


def install(path: Optional[str] = None, name: str = "cli") -> Optional[CodeCache]:
    """Give ``dataclasses`` the cached ``exec`` (the CLI's process only); None when turned off or when this
    Python's ``dataclasses`` does not build its methods with ``exec`` the way 3.9-3.13 do."""
    global _active
    if os.environ.get("ENVCHECK_NO_CODE_CACHE") == "1":
        return None
    import dataclasses

    if _active is not None:
        return _active
    if "exec" in vars(dataclasses) or not (hasattr(dataclasses, "_create_fn") or hasattr(dataclasses, "_FuncBuilder")):
        return None
    cache = CodeCache(path or cache_file(name))
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    _active = cache
    return cache


def uninstall(save: bool = True) -> None:
    """Give ``dataclasses`` back the builtin ``exec`` and, with ``save``, write what was compiled."""
    global _active
    cache, _active = _active, None
    if cache is None:
        return
    import dataclasses

    if vars(dataclasses).get("exec") == cache.exec:
        del dataclasses.exec  # type: ignore[attr-defined]
    if save:
        cache.save()


# -- compiled regular expressions -------------------------------------------------------------------------

#: the pattern cache file's first bytes (then Python's byte-code magic number and ``_sre.MAGIC``)
PATTERN_HEADER = b"envcheck sre code 1\n"
#: patterns kept at most per file
MAX_PATTERNS = 2000


def _sre_parts() -> Optional[Any]:
    """``(re's compiler module, its parser module, _sre)`` where this Python compiles a pattern the way
    3.9-3.13 do (``parse``, then ``_code``, then ``_sre.compile``), else None."""
    try:
        import _sre  # type: ignore[import-not-found]

        if sys.version_info >= (3, 11):
            from re import _compiler as comp, _parser as parser  # type: ignore[attr-defined]
        else:  # pragma: no cover - 3.9 / 3.10
            import sre_compile as comp
            import sre_parse as parser
    except ImportError:  # pragma: no cover - another implementation
        return None
    if not (callable(getattr(comp, "compile", None)) and callable(getattr(comp, "_code", None))
            and callable(getattr(parser, "parse", None)) and callable(getattr(_sre, "compile", None))
            and isinstance(getattr(_sre, "MAGIC", None), int)):
        return None  # pragma: no cover
    return comp, parser, _sre


def pattern_cache_file(name: str) -> str:
    """The pattern cache's path for the runs called ``name`` (``status``, ``cli``), whether or not it exists."""
    import _sre  # type: ignore[import-not-found]

    from envcheck.safe_io import cache_base

    return os.path.join(cache_base(), "code", f"re-{name}-{_magic().hex()}-{_sre.MAGIC}.bin")


class PatternCache:
    """The code ``re`` compiles for each (pattern, flags), read from and written to :attr:`path`.

    ``re.compile`` parses a pattern and turns it into ``_sre``'s code (a list of integers) in Python, ~50-300 us
    a pattern; the code of a pattern never changes for one ``_sre`` (its ``MAGIC`` and Python's byte-code magic
    name the file). :meth:`compile` stands in for re's internal ``compile(pattern, flags)``: a pattern seen
    before is handed to ``_sre.compile`` with the code kept (``_sre`` checks any code it is given, as it
    checks what re hands it), any other is compiled by re itself, and its code is kept only when the pattern
    rebuilt from it equals re's (same flags, code, groups and group names)."""

    def __init__(self, path: str, comp: Any, parser: Any, sre: Any) -> None:
        self.path = path
        self.comp, self.parser, self.sre = comp, parser, sre
        self.original = comp.compile
        self.loaded: Dict[Any, Any] = {}
        self.new: Dict[Any, Any] = {}
        self.hits = 0
        self.misses = 0
        self._read = False

    def _head(self) -> bytes:
        return PATTERN_HEADER + _magic() + str(self.sre.MAGIC).encode() + b"\n"

    def _load(self) -> None:
        self._read = True
        table = _read_table(self.path, self._head())
        if type(table) is dict:
            self.loaded = table

    @staticmethod
    def _entry_ok(entry: Any) -> bool:
        return (type(entry) is tuple and len(entry) == 5 and type(entry[0]) is int and type(entry[1]) is list
                and type(entry[2]) is int and type(entry[3]) is dict and type(entry[4]) is tuple)

    def compile(self, p: Any, flags: int = 0) -> Any:
        """re's internal ``compile(p, flags)``: a ``re.Pattern`` for a str or bytes pattern."""
        if type(p) not in (str, bytes) or type(flags) is not int or flags & re.DEBUG:
            return self.original(p, flags)  # a parsed pattern, flags of another type, or re.DEBUG: re's own road
        if not self._read:
            self._load()
        key = (p, flags)
        entry = self.loaded.get(key)
        if entry is not None and self._entry_ok(entry):
            try:
                rx = self.sre.compile(p, entry[0], entry[1], entry[2], entry[3], entry[4])
            except (RuntimeError, TypeError, ValueError, OverflowError):  # code _sre refuses: re's own road
                rx = None
            if rx is not None:
                self.hits += 1
                return rx
        rx = self.original(p, flags)
        self.misses += 1
        entry = self._entry(p, flags)
        if entry is not None:
            try:
                same = self.sre.compile(p, *entry)
            except (RuntimeError, TypeError, ValueError, OverflowError):
                same = None
            if (same is not None and same == rx and same.groups == rx.groups
                    and same.groupindex == rx.groupindex and same.flags == rx.flags):
                self.new[key] = entry
        return rx

    def _entry(self, p: Any, flags: int) -> Optional[tuple]:
        """What re's compile hands ``_sre.compile`` for ``p`` (after the pattern itself), as plain data."""
        try:
            parsed = self.parser.parse(p, flags)
            code = self.comp._code(parsed, flags)
            state = parsed.state
            groupindex = dict(state.groupdict)
            indexgroup = [None] * state.groups
            for k, i in groupindex.items():
                indexgroup[i] = k
            entry = (int(flags | state.flags), [int(c) for c in code], int(state.groups - 1), groupindex,
                     tuple(indexgroup))
            marshal.dumps(entry)
        except (re.error, RecursionError, AttributeError, TypeError, ValueError, OverflowError):
            return None  # not kept (re compiled it its own way)
        return entry

    def save(self) -> bool:
        """Write the table back when this run compiled a new pattern; True when written. Never raises. Not
        written under ``PYTHONDONTWRITEBYTECODE`` / ``-B``."""
        if not self.new or sys.dont_write_bytecode:
            return False
        table = dict(self.loaded)
        table.update(self.new)
        if len(table) > MAX_PATTERNS:
            table = dict(self.new)
        return _write_table(self.path, self._head(), table)


_patterns: Optional[PatternCache] = None


def install_patterns(name: str, path: Optional[str] = None) -> Optional[PatternCache]:
    """Give ``re`` the cached compile for this process (the CLI's only), the file of the runs called ``name``;
    None when turned off (``ENVCHECK_NO_CODE_CACHE=1``) or where this Python compiles patterns otherwise."""
    global _patterns
    if os.environ.get("ENVCHECK_NO_CODE_CACHE") == "1":
        return None
    if _patterns is not None:
        return _patterns
    parts = _sre_parts()
    if parts is None:
        return None  # pragma: no cover
    comp, parser, sre = parts
    cache = PatternCache(path or pattern_cache_file(name), comp, parser, sre)
    comp.compile = cache.compile
    _patterns = cache
    return cache


def uninstall_patterns(save: bool = True) -> None:
    """Give ``re`` back its own compile and, with ``save``, write what was compiled."""
    global _patterns
    cache, _patterns = _patterns, None
    if cache is None:
        return
    if getattr(cache.comp, "compile", None) == cache.compile:
        cache.comp.compile = cache.original
    if save:
        cache.save()
