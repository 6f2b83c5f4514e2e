"""Live probing: the only package that touches the running machine.

Everything here returns raw captures (:class:`~envcheck.proc.Capture`) whose text is exactly
what a snapshot file holds; parsing happens in :mod:`envcheck.parse`.
"""

import os as _os
from typing import List as _List


def glob_prefix(parent: str, prefix: str, leaf: str = "") -> _List[str]:
    """``glob.glob(os.path.join(parent, prefix + "*", leaf))`` (``leaf`` empty: ``parent/prefix*``), in the same
    order, without the glob module (its import and a compiled pattern per call cost a status run ~0.5 ms):
    the names of ``parent`` that start with ``prefix`` and not with a dot (with a ``leaf``: folders, and only
    where ``name/leaf`` exists, a broken link included, as glob's ``lexists``). A ``parent``, ``prefix`` or
    ``leaf`` holding a glob character (``*?[``) is left to glob itself."""
    if any(c in parent + prefix + leaf for c in "*?["):
        import glob

        return glob.glob(_os.path.join(parent, prefix + "*", leaf) if leaf else _os.path.join(parent, prefix + "*"))
    names = []
    try:
        with _os.scandir(parent or _os.curdir) as it:
            for entry in it:
                try:
                    if leaf and not entry.is_dir():
                        continue
                except OSError:
                    continue
                names.append(entry.name)
    except OSError:
        return []
    out = []
    for name in names:
        if name[0] == "." or not name.startswith(prefix):
            continue
        path = _os.path.join(parent, name)
        if leaf:
            path = _os.path.join(path, leaf)
            if not _os.path.lexists(path):
                continue
        out.append(path)
    return out
