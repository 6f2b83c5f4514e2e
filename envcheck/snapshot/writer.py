"""Write a snapshot directory or archive from any source (contract §1), atomically."""

from __future__ import annotations

import errno
import io
import os
import stat
import tarfile
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from envcheck.errors import UsageError, WriteRefused
from envcheck.snapshot import KEYS, KFD_KEYS, Source
from envcheck.safe_io import create_file, describe_error, encode_text, signals_held, umask, write_file

__all__ = ["write_snapshot", "Written"]


@dataclass(frozen=True)
class Written:
    path: str
    files: List[str]
    redacted: Optional[Dict[str, int]] = None  # with redact: how many distinct values of each kind


def _contents(source: Source) -> List[Tuple[Any, ...]]:
    caps = source.all()
    out = []
    for key in KEYS:
        c = caps.get(key)
        if c is not None and c.has_text:
            # undecodable bytes (a non-UTF-8 library path) go back out as the bytes they were
            out.append((key, encode_text(c.text or "")))
    return out


def _renameat2_exchange(a: str, b: str) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False where unsupported."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    rc = fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err))


def _snapshot_files(dest: str) -> List[str]:
    """The files of an existing snapshot folder, which ``--force`` may remove: refuses (WriteRefused)
    a folder holding anything else, a sub-folder named like a capture included."""
    if not os.path.isdir(dest) or os.path.islink(dest):
        raise WriteRefused(f"{dest!r} exists and is not a snapshot folder; not replacing it")
    names = os.listdir(dest)
    if "kfd-topology" in names and os.path.isdir(os.path.join(dest, "kfd-topology")) and not os.path.islink(
            os.path.join(dest, "kfd-topology")):
        names.remove("kfd-topology")
        nested = _kfd_files(dest)
        if nested is None:
            raise WriteRefused(f"{dest!r}: kfd-topology/ holds files that are not snapshot files; not replacing it")
        names.extend(nested)
    foreign = [n for n in names if n not in KEYS]
    if foreign:
        raise WriteRefused(f"{dest!r} holds files that are not snapshot files ({', '.join(sorted(foreign)[:5])}); "
                           "not replacing it")
    for n in names:
        if not stat.S_ISREG(os.lstat(os.path.join(dest, n)).st_mode):
            raise WriteRefused(f"{os.path.join(dest, n)!r} is not a snapshot file (not a regular file); "
                               "not replacing the folder")
    return names


def _kfd_files(dest: str) -> Optional[List[str]]:
    """The ``kfd-topology/N/{name,properties}`` files of a snapshot folder; ``None`` when it holds anything else."""
    out: List[str] = []
    top = os.path.join(dest, "kfd-topology")
    for node in os.listdir(top):
        p = os.path.join(top, node)
        if os.path.islink(p) or not os.path.isdir(p):
            return None
        for f in os.listdir(p):
            key = f"kfd-topology/{node}/{f}"
            if key not in KFD_KEYS:
                return None
            out.append(key)
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
        write_file(dest, buf.getvalue(), force=force)
        return Written(dest, [k for k, _ in files], redacted)

    old_names: List[str] = []
    old_mode = None
    old_stats: Dict[str, os.stat_result] = {}  # a replaced file keeps its mode (and, as root, its owner)
    dir_stat = None
    if os.path.lexists(dest):
        if not force:
            raise WriteRefused(f"{dest!r} exists; use --force to replace it")
        try:
            old_names = _snapshot_files(dest)
            dir_stat = os.stat(dest)
            old_mode = stat.S_IMODE(dir_stat.st_mode)
            old_stats = {n: os.lstat(os.path.join(dest, n)) for n in old_names}
        except OSError as exc:
            raise UsageError(f"cannot replace {dest!r}: {describe_error(exc)}") from exc
    parent = os.path.dirname(dest)
    try:
        os.makedirs(parent, exist_ok=True)
        tmpdir = tempfile.mkdtemp(prefix=".envcheck-snapshot-", dir=parent)
    except OSError as exc:
        raise UsageError(f"cannot write {dest!r}: {describe_error(exc)}") from exc
    mask = umask()
    committed = False
    try:
        for key, data in files:
            if "/" in key:  # kfd-topology/N/properties
                os.makedirs(os.path.join(tmpdir, os.path.dirname(key)), exist_ok=True)
            old_st = old_stats.get(key)  # a replaced file keeps its mode (and, as root, its owner)
            create_file(os.path.join(tmpdir, key), data,
                        stat.S_IMODE(old_st.st_mode) if old_st is not None else 0o666 & ~mask, old_st)
        os.chmod(tmpdir, old_mode if old_mode is not None else 0o777 & ~mask)
        if dir_stat is not None and _is_root():
            os.chown(tmpdir, dir_stat.st_uid, dir_stat.st_gid)
        if old_mode is None:
            os.rename(tmpdir, dest)
            committed = True
        elif _renameat2_exchange(tmpdir, dest):
            committed = True
            _remove_snapshot(tmpdir, old_names)  # tmpdir now holds the old snapshot
        else:  # no RENAME_EXCHANGE: two renames, with signals held so that no Ctrl-C falls between
            old = tmpdir + ".old"
            with signals_held():
                os.rename(dest, old)
                try:
                    os.rename(tmpdir, dest)
                except OSError:
                    os.rename(old, dest)
                    raise
            committed = True
            _remove_snapshot(old, old_names)
    except BaseException as exc:
        if not committed:
            _remove_snapshot(tmpdir, [k for k, _ in files])
        if isinstance(exc, OSError):
            raise UsageError(f"cannot write {dest!r}: {describe_error(exc)}") from exc
        raise
    return Written(dest, [k for k, _ in files], redacted)


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _remove_snapshot(directory: str, names: List[str]) -> None:
    """Remove only the snapshot files envcheck wrote (``names``), then the folder if it is empty."""
    for n in names:
        try:
            os.unlink(os.path.join(directory, n))
        except OSError:
            pass
    for sub in sorted({os.path.dirname(n) for n in names if "/" in n}, reverse=True) + (
            ["kfd-topology"] if any(n.startswith("kfd-topology/") for n in names) else []):
        try:
            os.rmdir(os.path.join(directory, sub))
        except OSError:
            pass
    try:
        os.rmdir(directory)
    except OSError:
        pass
