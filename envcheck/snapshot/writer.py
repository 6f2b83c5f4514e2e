"""Write a snapshot directory or archive from any source (contract §1), atomically."""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
import time
from dataclasses import dataclass
from typing import Dict, List, Optional

from envcheck.errors import UsageError, WriteRefused
from envcheck.snapshot import KEYS, Source
from envcheck.safe_io import write_bytes_atomic

__all__ = ["write_snapshot", "Written"]


@dataclass(frozen=True)
class Written:
    path: str
    files: List[str]
    redacted: Optional[Dict[str, int]] = None  # with redact: how many distinct values of each kind


def _contents(source: Source) -> List[tuple]:
    caps = source.all()
    out = []
    for key in KEYS:
        c = caps.get(key)
        if c is not None and c.has_text:
            out.append((key, (c.text or "").encode("utf-8")))
    return out


def write_snapshot(source: Source, destination: str, *, archive: bool = False, force: bool = False,
                   redact: bool = False) -> Written:
    files = _contents(source)
    redacted = None
    if redact:  # host name, user names, GPU UUIDs and serials replaced in every file (snapshot.redact)
        from envcheck.snapshot.redact import redact_files

        files, redacted = redact_files(files, live=bool(getattr(source, "live", False)))
    dest = os.path.abspath(destination)
    if archive:
        if not dest.endswith((".tar.gz", ".tgz")):
            dest += ".tar.gz"
        base = os.path.basename(dest)
        name = base[: -len(".tar.gz")] if base.endswith(".tar.gz") else base[: -len(".tgz")]
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tf:
            for key, data in files:
                info = tarfile.TarInfo(f"{name}/{key}")
                info.size = len(data)
                info.mtime = int(time.time())
                info.mode = 0o644
                tf.addfile(info, io.BytesIO(data))
        write_bytes_atomic(dest, buf.getvalue(), force=force)
        return Written(dest, [k for k, _ in files], redacted)

    if os.path.lexists(dest):
        if not force:
            raise WriteRefused(f"{dest!r} exists; use --force to replace it")
        if not os.path.isdir(dest) or os.path.islink(dest):
            raise WriteRefused(f"{dest!r} exists and is not a snapshot folder; not replacing it")
        existing = set(os.listdir(dest))
        if existing - set(KEYS):
            raise WriteRefused(f"{dest!r} holds files that are not snapshot files; not replacing it")
    parent = os.path.dirname(dest)
    try:
        os.makedirs(parent, exist_ok=True)
        tmpdir = tempfile.mkdtemp(prefix=".envcheck-snapshot-", dir=parent)
    except OSError as exc:
        raise UsageError(f"cannot write {dest!r}: {exc.strerror or exc}") from exc
    try:
        for key, data in files:
            with open(os.path.join(tmpdir, key), "wb") as fh:
                fh.write(data)
        if os.path.lexists(dest):
            old = dest + ".old-" + str(os.getpid())
            os.rename(dest, old)
            os.rename(tmpdir, dest)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmpdir, dest)
    except OSError as exc:
        shutil.rmtree(tmpdir, ignore_errors=True)
        raise UsageError(f"cannot write {dest!r}: {exc.strerror or exc}") from exc
    except BaseException:
        shutil.rmtree(tmpdir, ignore_errors=True)
        raise
    return Written(dest, [k for k, _ in files], redacted)
