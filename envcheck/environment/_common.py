"""Shared helpers of the environment builders: the capture accessor and small value checks."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from envcheck.capture import NOT_FOUND, Capture

__all__ = ["Caps", "s", "short3"]


class Caps:
    """The captures of one source, read by key; collects the notes the builders add."""

    def __init__(self, caps: Dict[str, Capture]):
        self._caps = caps
        self.notes: List[str] = []

    def cap(self, key: str) -> Capture:
        return self._caps.get(key) or Capture(NOT_FOUND, detail=f"{key}: not captured")

    def text(self, key: str) -> Optional[str]:
        c = self.cap(key)
        return c.text if c.has_text else None

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


def s(v: Any) -> Optional[str]:
    """``v`` when it is a string, else ``None`` (JSON values from captures are untrusted)."""
    return v if isinstance(v, str) else None


def short3(v: Optional[str]) -> Optional[str]:
    """"9.1.0.70" -> "9.1.0" (at most three dotted parts, local label dropped)."""
    if not v:
        return None
    parts = v.split("+")[0].split(".")
    return ".".join(parts[:3])
