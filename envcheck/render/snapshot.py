"""Render what ``envcheck snapshot`` wrote, and what to review before posting it, as text."""

from __future__ import annotations

from typing import Any, Callable, Dict

__all__ = ["render_snapshot_text"]

Style = Callable[[str, str], str]


def _plain(text: str, _kind: str) -> str:
    return text


def render_snapshot_text(doc: Dict[str, Any], st: Style = _plain) -> str:
    from envcheck.snapshot.redact import review_line

    files = doc["files"]
    return (f"wrote {doc['path']} ({len(files)} files: {', '.join(files)})\n"
            + st(review_line(doc["redacted"]), "info") + "\n")
