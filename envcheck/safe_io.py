"""Atomic, non-clobbering file writes."""

from __future__ import annotations

import os
import stat
import tempfile

from envcheck.errors import UsageError, WriteRefused

__all__ = ["write_text_atomic", "write_bytes_atomic"]


def write_bytes_atomic(path: str, data: bytes, *, force: bool = False) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and ``os.replace``.

    Refuses (:class:`WriteRefused`) to replace an existing file unless ``force``."""
    path = os.path.abspath(path)
    if os.path.lexists(path) and not force:
        raise WriteRefused(f"{path!r} exists; use --force to overwrite it")
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".envcheck-", dir=directory)
    except OSError as exc:
        raise UsageError(f"cannot write {path!r}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            # mkstemp makes 0600: a new file gets the caller's umask (0666 & ~umask), a replaced one
            # keeps its mode, so that a collector running as another user can read reports
            os.fchmod(fh.fileno(), _mode_for(path))
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise UsageError(f"cannot write {path!r}: {exc.strerror or exc}") from exc
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _mode_for(path: str) -> int:
    try:
        st = os.stat(path)
        if stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def write_text_atomic(path: str, text: str, *, force: bool = False) -> None:
    write_bytes_atomic(path, text.encode("utf-8"), force=force)
