"""Regular expressions compiled on first use, so that importing a module costs nothing for the
patterns a run never needs (``envcheck status`` imports the parsers of every tool it may meet).

``lazyre.compile(pattern, flags)`` has the methods of ``re.Pattern`` that envcheck uses; the real
pattern is compiled (once) by the first call.
"""

from __future__ import annotations

import re
from typing import Any, Optional

__all__ = ["compile", "LazyPattern"]


class LazyPattern:
    __slots__ = ("_pattern", "_flags", "_rx")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._rx: Optional["re.Pattern[str]"] = None

    def compiled(self) -> "re.Pattern[str]":
        rx = self._rx
        if rx is None:
            rx = self._rx = re.compile(self._pattern, self._flags)
        return rx

    def search(self, *args: Any, **kw: Any) -> Any:
        return self.compiled().search(*args, **kw)

    def match(self, *args: Any, **kw: Any) -> Any:
        return self.compiled().match(*args, **kw)

    def fullmatch(self, *args: Any, **kw: Any) -> Any:
        return self.compiled().fullmatch(*args, **kw)

    def finditer(self, *args: Any, **kw: Any) -> Any:
        return self.compiled().finditer(*args, **kw)

    def findall(self, *args: Any, **kw: Any) -> Any:
        return self.compiled().findall(*args, **kw)

    def sub(self, *args: Any, **kw: Any) -> Any:
        return self.compiled().sub(*args, **kw)

    def subn(self, *args: Any, **kw: Any) -> Any:
        return self.compiled().subn(*args, **kw)

    def split(self, *args: Any, **kw: Any) -> Any:
        return self.compiled().split(*args, **kw)

    def __getattr__(self, name: str) -> Any:  # pattern, flags, groups, groupindex
        return getattr(self.compiled(), name)


def compile(pattern: str, flags: int = 0) -> Any:  # noqa: A001 - the name of re.compile, on purpose
    """A pattern compiled on its first use (typed Any: it stands for an ``re.Pattern[str]``)."""
    return LazyPattern(pattern, flags)
