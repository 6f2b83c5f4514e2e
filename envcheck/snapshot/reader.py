"""Where raw captures come from: the live machine or a snapshot (contract §1).

A *key* is a snapshot file name; a source maps each key to a :class:`Capture` whose text is
exactly the file's content. Live probing and replay therefore share every parser.
"""

from __future__ import annotations

import json
import os
from typing import Dict, Optional

from envcheck.errors import SnapshotError
from envcheck.proc import NOT_FOUND, OK, Capture

__all__ = ["KEYS", "CONTRACT_KEYS", "Source", "SnapshotSource", "open_snapshot", "SNAPSHOT_SCHEMA"]

SNAPSHOT_SCHEMA = "envcheck/snapshot/1"

#: Files of contract §1, in the order they are described there.
CONTRACT_KEYS = (
    "meta.json", "nvidia-smi.txt", "nvidia-smi-query.csv", "proc-driver-version.txt",
    "sys-module-nvidia-version.txt", "proc-version.txt", "libcuda.json", "nvml.json", "nvcc.txt",
    "cuda-version.json", "cuda-version.txt", "ldconfig.txt", "cudnn_version.h", "libraries.txt",
    "environ.json", "python.json", "packages.json", "torch.json", "tensorflow.json", "os-release.txt",
)
#: envcheck's own additions (optional like all others): Requires-Dist of the framework
#: distributions, container hints, and how each capture went (not found / failed / timed out).
EXTRA_KEYS = ("requires.json", "container.json", "captures.json")
KEYS = CONTRACT_KEYS + EXTRA_KEYS

_MAX_FILE = 16 * 1024 * 1024


class Source:
    """A mapping from snapshot key to :class:`Capture`."""

    live = False
    description = ""

    def get(self, key: str) -> Capture:  # pragma: no cover - interface
        raise NotImplementedError

    def text(self, key: str) -> Optional[str]:
        c = self.get(key)
        return c.text if c.has_text else None

    def all(self) -> Dict[str, Capture]:
        return {k: self.get(k) for k in KEYS}


class SnapshotSource(Source):
    """Replays a snapshot directory or ``.tar.gz``: reads only those files, nothing live."""

    def __init__(self, files: Dict[str, Optional[bytes]], description: str):
        self._files = files
        self.description = description
        self._captures: Dict[str, dict] = {}
        raw = files.get("captures.json")
        if raw:
            try:
                data = json.loads(raw.decode("utf-8", errors="replace"))
                if isinstance(data, dict):
                    self._captures = {k: v for k, v in data.items() if isinstance(v, dict)}
            except ValueError:
                pass

    def get(self, key: str) -> Capture:
        data = self._files.get(key)
        info = self._captures.get(key, {})
        # where the capture came from on the original machine (nvcc's path names the toolkit root)
        origin = info.get("origin") if isinstance(info.get("origin"), str) else f"{self.description}/{key}"
        status = info.get("status") if isinstance(info.get("status"), str) else None
        detail = info.get("detail") if isinstance(info.get("detail"), str) else ""
        if data is None:
            if status in ("timed-out", "unreadable", "not-found", "failed"):
                return Capture(status, detail=detail or f"{key}: {status} when the snapshot was taken",
                               origin=origin)
            return Capture(NOT_FOUND, detail=f"{key}: not in the snapshot", origin=origin)
        text = data.decode("utf-8", errors="replace")
        if status == "failed":
            return Capture("failed", text=text, detail=detail, origin=origin)
        return Capture(OK, text=text, detail=detail, origin=origin)


def _read_dir(path: str) -> Dict[str, Optional[bytes]]:
    files: Dict[str, Optional[bytes]] = {}
    for key in KEYS:
        p = os.path.join(path, key)
        if not os.path.lexists(p):
            continue
        try:
            if os.path.islink(p):
                # never follow links out of a snapshot a stranger gave us
                raise SnapshotError(f"snapshot file {p!r} is a symbolic link; refusing to follow it")
            with open(p, "rb") as fh:
                data = fh.read(_MAX_FILE + 1)
        except OSError as exc:
            raise SnapshotError(f"cannot read snapshot file {p!r}: {exc.strerror or exc}") from exc
        if len(data) > _MAX_FILE:
            raise SnapshotError(f"snapshot file {p!r} is larger than {_MAX_FILE} bytes")
        files[key] = data
    return files


def _read_tar(path: str) -> Dict[str, Optional[bytes]]:
    import tarfile

    files: Dict[str, Optional[bytes]] = {}
    try:
        with tarfile.open(path, "r:*") as tf:
            for member in tf:
                if not member.isfile():
                    continue
                base = os.path.basename(member.name)
                if base not in KEYS or base in files:
                    continue
                if member.size > _MAX_FILE:
                    raise SnapshotError(f"{path!r}: member {member.name!r} is too large")
                fh = tf.extractfile(member)
                if fh is not None:
                    files[base] = fh.read(_MAX_FILE + 1)
    except (tarfile.TarError, OSError, EOFError, ValueError) as exc:
        raise SnapshotError(f"cannot read snapshot archive {path!r}: {exc}") from exc
    return files


def open_snapshot(path: str) -> SnapshotSource:
    """Open a snapshot directory or archive; :class:`SnapshotError` (exit 2) when unusable."""
    if os.path.isdir(path):
        files = _read_dir(path)
    elif os.path.isfile(path):
        files = _read_tar(path)
    elif os.path.lexists(path):
        raise SnapshotError(f"snapshot {path!r} is neither a directory nor a file")
    else:
        raise SnapshotError(f"snapshot {path!r} does not exist")
    if not files:
        raise SnapshotError(f"{path!r} holds none of the snapshot files (meta.json, nvidia-smi.txt, ...)")
    meta = files.get("meta.json")
    if meta is not None:
        try:
            m = json.loads(meta.decode("utf-8", errors="replace"))
        except ValueError as exc:
            raise SnapshotError(f"{path!r}: meta.json is not valid JSON") from exc
        schema = m.get("schema") if isinstance(m, dict) else None
        if isinstance(schema, str) and schema.split("/")[:2] != ["envcheck", "snapshot"]:
            raise SnapshotError(f"{path!r}: meta.json has an unknown schema {schema!r}")
    return SnapshotSource(files, description=path)
