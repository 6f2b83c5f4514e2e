"""The engine's three answers (a leaf of :mod:`envcheck.engine`, so that every rule module can use it)."""

from __future__ import annotations

from enum import Enum

__all__ = ["Status"]


class Status(str, Enum):
    RUNS = "runs"
    NO = "does-not-run"
    UNKNOWN = "unknown"

    __str__ = str.__str__

    @property
    def word(self) -> str:
        return {"runs": "RUNS", "does-not-run": "DOES NOT RUN", "unknown": "UNKNOWN"}[self.value]
