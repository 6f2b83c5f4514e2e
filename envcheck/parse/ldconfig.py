"""Parse ``ldconfig -p`` (the dynamic linker's cache)."""

from __future__ import annotations

from dataclasses import dataclass
import re
import threading
from typing import List, Optional, Tuple
from envcheck import lazyre

__all__ = ["LdEntry", "parse_ldconfig", "is_listing"]


@dataclass(frozen=True)
class LdEntry:
    """One library of the ``ldconfig -p`` listing."""

    soname: str  # "libcudnn.so.8"
    flags: str  # "libc6,x86-64"
    path: str  # "/usr/lib/x86_64-linux-gnu/libcudnn.so.8"


# 1234 libs found in cache `/etc/ld.so.cache'
# 	libcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8
# 	libcuda.so.1 (libc6,x86-64, OS ABI: Linux 3.10.0) => /lib/x86_64-linux-gnu/libcuda.so.1
# As users paste `ldconfig -p | grep cudnn`: behind a comment or quote mark ("# libcudnn.so.8 (...) => ..."), or
# two entries joined on one line by a lost line break (each entry's path ends where the next entry begins).
_LINE = lazyre.compile(r"^\s*(?:[#>][ \t]*)?(\S+)\s+\(([^)]*)\)\s*=>\s*(/\S(?:.*\S)?)\s*$")
#: (a joined entry starts after the path's last character: the lookbehind keeps a search through a long run of
#: blanks linear, a start inside the run failing at once)
_NEXT = lazyre.compile(r"(?<=\S)\s+(\S+)\s+\(([^)]*)\)\s*=>\s*(?=/)")
#: the header line of ``ldconfig -p`` ("1234 libs found in cache `/etc/ld.so.cache'")
_HEADER = lazyre.compile(r"^[ \t]*\d{1,9} libs found in cache\b", re.M)


def _entries(soname: str, flags: str, rest: str) -> List[LdEntry]:
    """One matched line's entries: the first, and any joined after it (``rest`` is its path and what follows)."""
    out: List[LdEntry] = []
    if len(rest.split(None, 1)) < 2:  # no blank in the path (nearly every line): nothing joined after it (_NEXT's \s+)
        return [LdEntry(soname=soname, flags=flags.strip(), path=rest.strip())]
    for _ in range(64):
        m = _NEXT.search(rest)
        if m is None:
            out.append(LdEntry(soname=soname, flags=flags.strip(), path=rest.strip()))
            break
        out.append(LdEntry(soname=soname, flags=flags.strip(), path=rest[: m.start()].strip()))
        soname, flags, rest = m.group(1), m.group(2), rest[m.end():]
    return out


def _plain(line: str) -> Optional[LdEntry]:
    """The entry of a line as ``ldconfig -p`` writes it (``\tSONAME (FLAGS) => /PATH``, no blank in the name or the
    path, no comment mark), read without a pattern call (~500 such lines a run); None for any other form (then
    _LINE reads it). The same entry as _LINE and _entries give that line."""
    s = line.strip()
    i = s.find(" (")
    name = s[:i]
    if i <= 0 or s[0] in "#>" or name.split(None, 1) != [name]:  # (no blank in it, none at its ends)
        return None
    j = s.find(")", i + 2)
    if j < 0 or not s.startswith(") => /", j):
        return None
    path = s[j + 5:]
    if len(path) < 2 or path.split(None, 1) != [path]:
        return None
    return _entry(name, s[i + 2:j].strip(), path)


_NEW = object.__new__


def _entry(soname: str, flags: str, path: str) -> LdEntry:
    """``LdEntry(soname=soname, flags=flags, path=path)``: the same object (its fields, in their order, and nothing
    else: the class has no ``__post_init__`` nor defaults), made without the frozen class's generated ``__init__``,
    which sets each field through ``object.__setattr__`` (~500 entries a status run: ~2 M instructions)."""
    e = _NEW(LdEntry)
    e.__dict__.update(soname=soname, flags=flags, path=path)
    return e


def is_listing(text: Optional[str]) -> bool:
    """Whether ``text`` is an ``ldconfig -p`` listing (its header, or at least one entry), empty or not."""
    return bool(text) and (_HEADER.search(text or "") is not None or bool(parse_ldconfig(text)))


#: the last listing read and its entries: a status run reads the same listing three times (the NVML probe, the
#: library folders, the environment), ~1 ms each per 500 entries (one object per entry). One assignment of a
#: pair, under :data:`_READING`: the probe's threads ask for it at once (the NVML probe's thread and the main
#: thread's library folders, both right after ldconfig answers), and the later one waits for the first one's
#: entries instead of reading the listing a second time beside it.
_LAST: Tuple[Optional[str], Tuple[LdEntry, ...]] = (None, ())
_READING = threading.Lock()


def parse_ldconfig(text: Optional[str]) -> List[LdEntry]:
    """Every entry of the cache listing, in its order (the linker's preference), in a new list. Never raises."""
    if not text:
        return []
    with _READING:
        return _parse_once(text)


def _parse_once(text: str) -> List[LdEntry]:
    global _LAST
    last_text, last = _LAST
    if last_text is not None and (last_text is text or last_text == text):
        return list(last)
    out: List[LdEntry] = []
    for line in text.splitlines():
        if "=>" not in line:
            continue
        got = _plain(line)
        if got is not None:
            out.append(got)
            continue
        m = _LINE.match(line)
        if m:
            out.extend(_entries(m.group(1), m.group(2), m.group(3)))
    _LAST = (text, tuple(out))
    return out


def is_native(entry: LdEntry, machine: Optional[str]) -> bool:
    """Whether an entry is for the running machine's ABI (skip i386 / x32 copies on x86-64)."""
    flags = entry.flags.lower()
    if machine in ("x86_64", "amd64"):
        return "x86-64" in flags
    if machine in ("aarch64", "arm64"):
        return "aarch64" in flags or "arm64" in flags or "64bit" in flags
    return True
