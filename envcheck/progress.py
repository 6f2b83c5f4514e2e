"""A one-line progress note on stderr for the slow commands (``status --deep``, ``smoke``).

Shown only when both stdout and stderr are terminals (never in a pipe, a file or a CI log) and
only once the work has taken longer than a second; erased before the result is printed. The JSON
outputs never get one. ``ENVCHECK_PROGRESS_DELAY=SECONDS`` changes the one-second delay."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import IO, Any, Optional

__all__ = ["Progress", "progress_wanted"]

_CLEAR = "\r\x1b[2K"


def progress_wanted(as_json: bool = False) -> bool:
    if as_json or os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stdout.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _delay() -> float:
    try:
        return max(float(os.environ.get("ENVCHECK_PROGRESS_DELAY", "1")), 0.0)
    except ValueError:
        return 1.0


class Progress:
    """``with Progress("status", enabled=...) as p: p.update("importing torch") ...``"""

    def __init__(self, label: str, enabled: bool, text: str = "", stream: Optional[IO[str]] = None) -> None:
        self.label = label
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self._text = ""
        self.update(text)
        self._shown = False
        self._last = ""
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._t0 = time.monotonic()

    def update(self, text: str) -> None:
        self._text = "".join(c if c.isprintable() else "?" for c in text)

    def _width(self) -> int:
        try:
            cols = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            cols = 0
        return cols if cols > 0 else 80

    def _draw(self) -> None:
        secs = time.monotonic() - self._t0
        line = f"{self.label}: {self._text} ({secs:.0f} s)" if self._text else f"{self.label} ({secs:.0f} s)"
        line = line[: max(self._width() - 1, 10)]
        if line == self._last:
            return
        self._last = line
        try:
            self.stream.write(_CLEAR + line)
            self.stream.flush()
            self._shown = True
        except (OSError, ValueError):
            self._stop.set()

    def _loop(self) -> None:
        if self._stop.wait(_delay()):
            return
        while not self._stop.is_set():
            self._draw()
            self._stop.wait(0.25)

    def __enter__(self) -> "Progress":
        if self.enabled:
            self._thread = threading.Thread(target=self._loop, name="envcheck-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._shown:
            try:
                self.stream.write(_CLEAR)
                self.stream.flush()
            except (OSError, ValueError):
                pass
