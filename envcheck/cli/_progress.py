"""The progress note of the slow commands: :mod:`envcheck.progress` (outside this package, so that a status run
that does not import click can show it)."""

from envcheck.progress import Progress, progress_wanted

__all__ = ["Progress", "progress_wanted"]
