"""The few exceptions of envcheck. A leaf module: it imports nothing from envcheck."""

from __future__ import annotations

__all__ = ["ApplyError", "EnvcheckError", "ParseError", "SnapshotError", "MatrixError", "WriteRefused", "UsageError"]


class EnvcheckError(Exception):
    """Base class of envcheck's own errors."""


class UsageError(EnvcheckError):
    """The user's input (an argument, a file) cannot be used: exit status 2."""


class ParseError(EnvcheckError, ValueError):
    """A text could not be parsed. Inside ``status`` this is recorded, never raised."""


class SnapshotError(UsageError):
    """A snapshot directory or archive that cannot be read (user input: exit 2)."""


class MatrixError(EnvcheckError):
    """A compatibility-matrix file that breaks the schema (a bug in the bundled data, or a bad update)."""


class WriteRefused(UsageError):
    """A file exists and ``--force`` was not given."""


class ApplyError(EnvcheckError):
    """Building the venv (``fix --apply``) failed; the previous one (if any) is untouched."""
