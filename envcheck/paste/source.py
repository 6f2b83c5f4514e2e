"""The paste source: a :class:`~envcheck.snapshot.Source` over the captures read from a pasted report.

It answers like :class:`~envcheck.snapshot.SnapshotSource` (same keys, same :class:`~envcheck.capture.Capture`
values), so ``envcheck.environment.collect(PasteSource(report), matrix)`` builds the Environment with the
same parsers and ``envcheck.checks.run_checks`` gives the same findings as ``status`` would on that machine
(as far as the paste tells). It never reads anything live.
"""

from __future__ import annotations

from envcheck.capture import FAILED, NOT_FOUND, OK, Capture
from envcheck.paste.sections import Report
from envcheck.snapshot import Source

__all__ = ["PasteSource"]


class PasteSource(Source):
    """Replays the captures of a :class:`~envcheck.paste.sections.Report`; a key the paste lacks is "not found"."""

    def __init__(self, report: Report, description: str = "paste"):
        self.report = report
        self.description = description

    def get(self, key: str) -> Capture:
        text = self.report.captures.get(key)
        origin = f"{self.description}/{key}"
        if text is None:
            return Capture(NOT_FOUND, detail=f"{key}: not in the pasted report", origin=origin)
        if self.report.statuses.get(key) == "failed":
            return Capture(FAILED, text=text, detail=f"{key}: the pasted output of a failed command", origin=origin,
                           returncode=9)
        return Capture(OK, text=text, origin=origin)
