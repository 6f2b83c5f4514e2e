"""Parse ``ldconfig -p`` (the dynamic linker's cache)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple
from envcheck import lazyre

__all__ = ["LdEntry", "parse_ldconfig"]


@dataclass(frozen=True)
class LdEntry:
    """One library of the ``ldconfig -p`` listing."""

    soname: str  # "libcudnn.so.8"
    flags: str  # "libc6,x86-64"
    path: str  # "/usr/lib/x86_64-linux-gnu/libcudnn.so.8"


# 1234 libs found in cache `/etc/ld.so.cache'
# 	libcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8
# 	libcuda.so.1 (libc6,x86-64, OS ABI: Linux 3.10.0) => /lib/x86_64-linux-gnu/libcuda.so.1
_LINE = lazyre.compile(r"^\s*(\S+)\s+\(([^)]*)\)\s*=>\s*(/\S(?:.*\S)?)\s*$")


#: the last listing read and its entries: a status run reads the same listing three times (the NVML probe, the
#: library folders, the environment), ~1 ms each per 500 entries (one object per entry). One assignment of a
#: pair: the probe's threads may read it at once.
_LAST: Tuple[Optional[str], Tuple[LdEntry, ...]] = (None, ())


def parse_ldconfig(text: Optional[str]) -> List[LdEntry]:
    """Every entry of the cache listing, in its order (the linker's preference), in a new list. Never raises."""
    global _LAST
    if not text:
        return []
    last_text, last = _LAST
    if last_text is not None and (last_text is text or last_text == text):
        return list(last)
    out: List[LdEntry] = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            out.append(LdEntry(soname=m.group(1), flags=m.group(2).strip(), path=m.group(3)))
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
