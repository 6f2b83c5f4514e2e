"""The value every probe returns and every snapshot replays: :class:`Capture` and its statuses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

__all__ = ["Capture", "OK", "NOT_FOUND", "FAILED", "TIMED_OUT", "UNREADABLE"]

OK = "ok"
NOT_FOUND = "not-found"
FAILED = "failed"
TIMED_OUT = "timed-out"
UNREADABLE = "unreadable"

@dataclass(frozen=True)
class Capture:
    """What one probe saw.

    ``status`` is one of ``ok``, ``not-found`` (no such command or file), ``failed`` (the command
    ran and exited non-zero, or printed too much; ``text`` holds what it printed), ``timed-out``
    and ``unreadable`` (the file exists but could not be read). ``text`` is the captured content
    (``None`` when there is none); ``detail`` a short human explanation; ``origin`` the path or
    command line the capture came from.
    """

    status: str
    text: Optional[str] = None
    detail: str = ""
    origin: str = ""
    returncode: Optional[int] = None
    argv: Tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def has_text(self) -> bool:
        return self.text is not None and self.status in (OK, FAILED)
