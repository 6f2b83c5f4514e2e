"""Open what the inspecting commands read: a snapshot (a folder or a ``.tar.gz``) or the live machine.

One home for the choice, used by the CLI and by the Python API (:mod:`envcheck.api`)."""

from __future__ import annotations

import os
from typing import Optional

from envcheck.snapshot import Source


def open_source(snapshot_path: Optional[str], deep: bool = False, interpreter: Optional[str] = None) -> Source:
    """The snapshot at ``snapshot_path``, else the live machine.

    ``interpreter`` (``--interpreter``; default: ``ENVCHECK_INTERPRETER``) names another Python whose
    ``sys.path`` and version the live probe reads, so that an envcheck installed in its own venv
    inspects the training environment's frameworks."""
    if snapshot_path:
        from envcheck.snapshot import open_snapshot

        return open_snapshot(snapshot_path)
    from envcheck.probe.live import LiveSource

    resolved = checked_interpreter(interpreter)
    # ENVCHECK_FS_ROOT prefixes every absolute file path the probe reads (/proc, /sys, /usr/local/cuda):
    # a testing aid that points the live probe at a fake machine tree.
    return LiveSource(deep=deep, root=os.environ.get("ENVCHECK_FS_ROOT", ""), interpreter=resolved)


def checked_interpreter(interpreter: Optional[str]) -> Optional[str]:
    """``--interpreter`` (default: ``ENVCHECK_INTERPRETER``) as an absolute path, None for envcheck's own
    Python; a usage error that names the real cause: no such file, not on PATH, or not executable."""
    from envcheck.errors import UsageError
    from envcheck.probe.live import resolve_interpreter

    if interpreter is None:
        interpreter = os.environ.get("ENVCHECK_INTERPRETER") or None
    resolved = resolve_interpreter(interpreter)
    if resolved is None:
        return None
    where = "--interpreter / ENVCHECK_INTERPRETER"
    if not os.path.exists(resolved):
        if os.sep not in (interpreter or ""):
            raise UsageError(f"{where}: the interpreter {interpreter!r} is not on PATH (give its path)")
        raise UsageError(f"{where}: the interpreter {interpreter!r} does not exist")
    if not (os.path.isfile(resolved) and os.access(resolved, os.X_OK)):
        raise UsageError(f"{where}: {interpreter!r} is not an executable file (give a Python interpreter)")
    return resolved
