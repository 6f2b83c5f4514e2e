"""The value every probe returns and every snapshot replays: :class:`Capture` and its statuses."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Optional, Tuple

__all__ = ["Capture", "CaptureStatus", "OK", "NOT_FOUND", "FAILED", "TIMED_OUT", "UNREADABLE", "CUT_OFF", "LAST_LINE_CUT"]


class CaptureStatus(str, Enum):
    """How one capture went. A ``str`` subclass: members compare equal to their plain strings
    (``CaptureStatus.OK == "ok"``), print as them and serialise to JSON as them."""

    OK = "ok"
    NOT_FOUND = "not-found"  # no such command or file
    FAILED = "failed"  # the command ran and exited non-zero (or was killed, or printed too much)
    TIMED_OUT = "timed-out"  # no answer within the time limit; killed
    UNREADABLE = "unreadable"  # the file exists but could not be read

    __str__ = str.__str__

    @classmethod
    def parse(cls, value: object) -> Optional["CaptureStatus"]:
        """The member for a status string (e.g. from a snapshot's captures.json), else ``None``."""
        for member in cls:
            if value == member.value:
                return member
        return None


#: what a capture's ``detail`` says when the program printed more than the probe keeps and was killed
#: (:func:`envcheck.proc.run_command`); a snapshot's captures.json keeps it
CUT_OFF = "printed more than"
#: what a snapshot file's ``detail`` says when its text ends inside its last line (no line break after it: a paste
#: cut short); that line is not read (:func:`envcheck.parse.captures.cut_last_line`)
LAST_LINE_CUT = "ends inside its last line"

OK = CaptureStatus.OK
NOT_FOUND = CaptureStatus.NOT_FOUND
FAILED = CaptureStatus.FAILED
TIMED_OUT = CaptureStatus.TIMED_OUT
UNREADABLE = CaptureStatus.UNREADABLE

@dataclass(frozen=True)
class Capture:
    """What one probe saw.

    ``status`` is one of ``ok``, ``not-found`` (no such command or file), ``failed`` (the command
    ran and exited non-zero, or printed too much; ``text`` holds what it printed), ``timed-out``
    and ``unreadable`` (the file exists but could not be read). ``text`` is the captured content
    (``None`` when there is none); ``detail`` a short human explanation; ``origin`` the path or
    command line the capture came from. ``captured`` is False where nobody looked: a snapshot made by
    hand (no ``captures.json``) that lacks the file says nothing about it (status ``not-found`` then
    means "unknown", not "looked for and absent").
    """

    status: str  # a CaptureStatus (plain strings of the same values are accepted)
    text: Optional[str] = None
    detail: str = ""
    origin: str = ""
    returncode: Optional[int] = None
    argv: Tuple[str, ...] = field(default_factory=tuple)
    captured: bool = True

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def cut_off(self) -> bool:
        """The program printed more than the probe keeps and was killed (:data:`CUT_OFF` in ``detail``): its text
        is a head, not the output; no fact is read from it."""
        return self.status == FAILED and CUT_OFF in self.detail

    @property
    def has_text(self) -> bool:
        return self.text is not None and self.status in (OK, FAILED)
