"""The one place where envcheck reads untrusted files and writes files.

Reading (:func:`read_bytes`): only regular files are ever read. The path is ``stat``-ed first so that
a device, FIFO or socket is never even opened; the open itself is ``O_NONBLOCK`` (a FIFO swapped in
between cannot block it) and, where the path is untrusted, ``O_NOFOLLOW``; the opened file is
``fstat``-ed again and read in chunks up to a limit. ``/proc`` and ``/sys`` pseudo-files are regular
files of size 0: they are read like any other, up to the limit.

Writing (:func:`write_file`, :func:`write_files`): a missing path or a regular file is written through
a temporary file in the same folder and ``os.replace`` (atomic); a new file gets ``0666 & ~umask``,
a replaced file keeps its mode (and, as root, its owner). A character device or FIFO
(``/dev/null``) is written in place, never replaced; ``/dev/stderr``, ``/dev/fd/N`` and links to them
are written through this process's descriptor N (appending to a log file that stderr was redirected
to, as under Slurm); a folder, block device or socket is refused. An existing regular file is
replaced only with ``force`` or when ``may_replace`` accepts its content (e.g. an earlier envcheck
report).

Streams (:func:`open_stream`, :class:`BoundedReader`): a log read as a stream (``explain``, ``fleet
summarize -``) is standard input or a path; a character device other than a terminal or ``/dev/null``
(``/dev/zero``, ``/dev/urandom``), a named FIFO, a block device, a socket or a folder is refused (a
:class:`~envcheck.errors.UsageError`, exit 2), a shell's own redirection (``<(cmd)``, ``/dev/fd/N``)
is read through its descriptor. What is read stops at a limit; the reader says whether there was more.

Envcheck's own files (:func:`replace_file`, :func:`create_file`): a file of a private cache folder is
replaced atomically with the mode its caller gives (``0600`` by default); a file of a folder built aside
is created ``O_EXCL | O_NOFOLLOW`` and synced. Every file envcheck creates is filled by one function.

Cache folders (:func:`private_dir`): used only when owned by the current user, not writable by group
or others, and not a symbolic link.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import threading
from typing import IO, Any, Callable, Dict, Iterator, List, Optional, Tuple

from envcheck.errors import UsageError, WriteRefused

__all__ = ["read_bytes", "NotRegularFile", "FileTooLarge", "UnsafeDir", "describe_error", "private_dir",
           "write_file", "write_text_atomic", "write_bytes_atomic", "write_files", "is_envcheck_json",
           "umask", "signals_held", "encode_text", "file_kind", "sync_dir", "open_stream", "BoundedReader",
           "create_file", "replace_file",
           "stdin_refusal"]

_CHUNK = 1 << 16


class NotRegularFile(OSError):
    """The path is a FIFO, device, socket, folder or (with ``follow=False``) a symbolic link."""


class FileTooLarge(OSError):
    """The file holds more than the limit (only with ``strict=True``)."""


class UnsafeDir(UsageError, OSError):
    """A cache folder another user could write to, or a link: not used (exit 2 where it must be)."""


def file_kind(mode: int) -> str:
    """"a folder", "a FIFO", ... for an ``st_mode`` that is not a regular file (for messages)."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def _refuse(mode: int) -> NotRegularFile:
    if stat.S_ISDIR(mode):
        return NotRegularFile(errno.EISDIR, "is a folder, not a file")
    return NotRegularFile(errno.EINVAL, f"is {file_kind(mode)}, not a regular file")


def read_bytes(path: str, limit: int, *, follow: bool = True, strict: bool = False,
               dir_fd: Optional[int] = None) -> bytes:
    """At most ``limit`` bytes of the regular file ``path``.

    ``follow=False``: a symbolic link (as the last component) is refused, never followed.
    ``strict=True``: a file longer than ``limit`` raises :class:`FileTooLarge` instead of being cut.
    Raises :class:`OSError` (``FileNotFoundError``, ``PermissionError``, :class:`NotRegularFile`, ...);
    never blocks on a FIFO or device, never reads more than ``limit + 1`` bytes."""
    st = os.stat(path, dir_fd=dir_fd, follow_symlinks=follow)
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(st.st_mode)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise NotRegularFile(errno.ELOOP, "is a symbolic link; not following it") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped between the stat and the open
            raise _refuse(st.st_mode)
        if strict and st.st_size > limit:
            raise FileTooLarge(errno.EFBIG, f"is larger than {limit} bytes")
        chunks: List[bytes] = []
        got = 0
        want = limit + 1 if strict else limit
        # a regular file's size is known: read it in one call (a 250 KB cache file in 64 KB reads costs ~10x
        # more); a file that grew meanwhile, or one that says 0 (/proc), is read on in chunks
        step = max(st.st_size + 1, _CHUNK)
        while got < want:
            try:
                chunk = os.read(fd, min(step, want - got))
            except BlockingIOError:  # pragma: no cover - regular files never say EAGAIN
                break
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
            step = _CHUNK
    finally:
        os.close(fd)
    data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if strict and len(data) > limit:
        raise FileTooLarge(errno.EFBIG, f"is larger than {limit} bytes")
    return data


def describe_error(exc: BaseException) -> str:
    """A short reason for an ``OSError`` of :func:`read_bytes` / :func:`write_file`."""
    if isinstance(exc, (PermissionError,)):
        return "permission denied"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


# -- streams (a log piped in or named) ------------------------------------------------------------

class BoundedReader:
    """``read`` of a binary stream that gives at most ``limit`` bytes in all; once they are given, one
    more byte is asked for, and :attr:`cut` tells whether the stream held more (the rest is not read:
    an endless pipe costs ``limit`` bytes, not for ever)."""

    def __init__(self, stream: IO[bytes], limit: int):
        self._stream = stream
        self.limit = limit
        self.given = 0
        self.cut = False

    def read(self, n: int = -1) -> bytes:
        left = self.limit - self.given
        if left <= 0:
            if not self.cut and self._stream.read(1):
                self.cut = True
            return b""
        data = self._stream.read(left if n is None or n < 0 else min(n, left))
        self.given += len(data)
        return data


def _null_device(st: os.stat_result) -> bool:
    try:
        null = os.stat(os.devnull)
    except OSError:
        return False
    return stat.S_ISCHR(null.st_mode) and st.st_rdev == null.st_rdev


def _stream_refusal(st: os.stat_result, fd_is_tty: bool) -> Optional[str]:
    """Why a stream of this kind is not read (None: it is read)."""
    mode = st.st_mode
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return None
    if stat.S_ISCHR(mode) and (fd_is_tty or _null_device(st)):
        return None
    if stat.S_ISCHR(mode):
        return "is a character device (it may never end), not a file"
    return f"is {file_kind(mode)}, not a file"


def stdin_refusal(fd: int = 0) -> Optional[str]:
    """Why standard input is not read as a stream (``< /dev/zero``, ``< /dev/sda``), or None: a pipe,
    a regular file, a terminal or ``/dev/null`` is read."""
    try:
        st = os.fstat(fd)
    except OSError as exc:
        return f"cannot be read: {describe_error(exc)}"
    return _stream_refusal(st, os.isatty(fd))


def open_stream(path: Optional[str], stdin: IO[bytes]) -> IO[bytes]:
    """A binary stream to read a log from: ``path``, or ``stdin`` itself (not to be closed) when it is
    None or ``-``.

    A regular file is opened without blocking on a FIFO swapped in; a shell's redirection
    (``<(cmd)``, ``/dev/fd/N``, ``/dev/stdin``) is read through a copy of its descriptor (never
    reopened: that would wait for a writer); anything else that :func:`stdin_refusal` refuses, and a
    named FIFO (it may have no writer: pipe it in instead), raises :class:`UsageError`."""
    if path is None or path == "-":
        try:
            fd: Optional[int] = stdin.fileno()
        except (OSError, ValueError, AttributeError):  # not a real descriptor (an in-memory stream)
            fd = None
        why = stdin_refusal(fd) if fd is not None else None
        if why:
            raise UsageError(f"standard input {why}; pipe the input in or name a file")
        return stdin
    own = _own_descriptor(os.path.abspath(path))
    try:
        if own is not None:
            why = stdin_refusal(own)
            if why:
                raise UsageError(f"{path} {why}")
            return os.fdopen(os.dup(own), "rb")
        st = os.stat(path)
        if stat.S_ISFIFO(st.st_mode):
            raise UsageError(f"{path} is a FIFO, not a regular file; pipe it in instead (`envcheck ... - < {path}`)")
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"{path} {_stream_refusal(st, False) or 'is not a regular file'}")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {describe_error(exc)}") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped between the stat and the open
            raise UsageError(f"{path} {_stream_refusal(st, False) or 'is not a regular file'}")
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


# -- cache folders -------------------------------------------------------------------------------

def _check_private(path: str) -> None:
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeDir(f"{path} is a symbolic link; envcheck does not use a linked cache folder")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeDir(f"{path} is not a folder")
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        raise UnsafeDir(f"{path} belongs to uid {st.st_uid}, not to you (uid {os.geteuid()}); "
                        "envcheck does not use a cache folder another user controls")
    if st.st_mode & 0o022:
        raise UnsafeDir(f"{path} is writable by other users (mode {stat.S_IMODE(st.st_mode):o}); "
                        "envcheck does not use it (chmod go-w it, or set ENVCHECK_CACHE_DIR elsewhere)")


def cache_base() -> str:
    """envcheck's folder in the user cache: ``ENVCHECK_CACHE_DIR``, else ``$XDG_CACHE_HOME/envcheck``, else
    ``~/.cache/envcheck`` (the parsed matrix tables, the dataclass code cache, the knowledge base's verdict);
    use it through :func:`private_dir`."""
    return os.environ.get("ENVCHECK_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "envcheck")


def private_dir(path: str, *, create: bool = False) -> str:
    """``path`` if it is a folder safe to cache in (see the module doc); with ``create``, made (0700)
    when missing. Raises :class:`UnsafeDir` (also an ``OSError``) or ``FileNotFoundError``."""
    path = os.path.abspath(path)
    if create:
        parent = os.path.dirname(path)
        if parent != path and not os.path.isdir(parent):
            os.makedirs(parent, mode=0o700, exist_ok=True)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
    _check_private(path)
    return path


# -- writing -------------------------------------------------------------------------------------

def umask() -> int:
    """The process umask (read without changing it where /proc tells it)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM/SIGHUP/SIGQUIT (delivered afterwards) so that a few renames finish together."""
    sigs = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT}
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def is_envcheck_json(data: bytes, schema_prefix: str) -> bool:
    """True when ``data`` is a JSON object whose ``schema`` starts with ``schema_prefix``."""
    import json

    try:
        doc = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return isinstance(doc, dict) and isinstance(doc.get("schema"), str) and doc["schema"].startswith(schema_prefix)


def _fill(fd: int, data: bytes, mode: int, owner: Optional[os.stat_result], sync: bool) -> None:
    """Write ``data`` to the new file ``fd`` (closed after), set ``mode`` (and, as root, ``owner``'s
    ids), and with ``sync`` fsync it: the one way every file envcheck creates is filled."""
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fchmod(fh.fileno(), mode)
        if owner is not None and hasattr(os, "geteuid") and os.geteuid() == 0:
            try:
                os.fchown(fh.fileno(), owner.st_uid, owner.st_gid)
            except OSError:
                pass
        if sync:
            os.fsync(fh.fileno())


def _stage(directory: str, data: bytes, mode: int, owner: Optional[os.stat_result], sync: bool = True) -> str:
    """A (synced) temporary file in ``directory`` holding ``data``, with ``mode`` (and ``owner``'s ids)."""
    import tempfile  # here: importing it costs `envcheck status` (which writes nothing) ~1 ms

    fd, tmp = tempfile.mkstemp(prefix=".envcheck-", dir=directory)  # O_EXCL, 0600: never through a link
    try:
        _fill(fd, data, mode, owner, sync)
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def create_file(path: str, data: bytes, mode: int, owner: Optional[os.stat_result] = None) -> None:
    """Create the new file ``path`` (never through a link, never over an existing file: ``O_EXCL |
    O_NOFOLLOW``) holding ``data``, with ``mode`` (and, as root, ``owner``'s ids), synced: a file of a
    folder being built aside before it is renamed into place."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)
    _fill(fd, data, mode, owner, True)


def replace_file(path: str, data: bytes, mode: int = 0o600, *, sync: bool = True) -> None:
    """Write ``data`` to ``path`` atomically whatever is there (a reader sees the old file or the new one,
    never a part), with ``mode``: envcheck's own files in its own private folders (the matrix cache's
    ``current`` and rollback floor, parsed tables), where there is nobody else's file to ask about.
    The new content is staged in a temporary file of the same folder and renamed over ``path``; on any
    failure the temporary file is removed and the old file stays. ``sync=False``: not fsync-ed (a cache
    that can be rebuilt). Raises ``OSError``."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = _stage(directory, data, mode, None, sync)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise
    if sync:
        sync_dir(directory)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def sync_dir(directory: str) -> None:
    """fsync a folder (a rename in it is then durable); never raises."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_in_place(path: str, data: bytes) -> None:
    """Write to a character device or FIFO (``/dev/null``, ``/dev/stderr``): never replaced."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | os.O_NOCTTY)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise UsageError(f"cannot write {path!r}: it is a FIFO that nobody reads") from exc
        raise UsageError(f"cannot write {path!r}: {describe_error(exc)}") from exc
    try:
        st = os.fstat(fd)
        if not (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            raise UsageError(f"cannot write {path!r}: it changed while being opened")
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    except OSError as exc:
        raise UsageError(f"cannot write {path!r}: {describe_error(exc)}") from exc
    finally:
        os.close(fd)


_FD_PATHS = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_FD_DIRS = ("/dev/fd/", "/proc/self/fd/", f"/proc/{os.getpid()}/fd/")


def _own_descriptor(path: str) -> Optional[int]:
    """N when ``path`` (or the chain of links it starts) names this process's own descriptor N:
    ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N``. Such a path is the shell's redirection
    (``2>>job.log`` under Slurm, a pipe, a terminal): it is written through the descriptor itself,
    at its offset (appending to a log), never opened anew (that would write over a log's first
    bytes) nor replaced (that would turn the log into a report)."""
    for _ in range(8):
        if path in _FD_PATHS:
            return _FD_PATHS[path]
        for d in _FD_DIRS:
            if path.startswith(d) and path[len(d):].isdigit():
                return int(path[len(d):])
        try:
            if not stat.S_ISLNK(os.lstat(path).st_mode):
                return None
            target = os.readlink(path)
        except OSError:
            return None
        path = os.path.normpath(os.path.join(os.path.dirname(path), target))
    return None


def _write_descriptor(fd: int, path: str, data: bytes) -> None:
    import fcntl
    import select
    import sys

    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    except OSError:
        raise UsageError(f"cannot write {path!r}: that descriptor is not open") from None
    if flags & os.O_ACCMODE == os.O_RDONLY:
        raise UsageError(f"cannot write {path!r}: that descriptor is not open for writing")
    for stream in (sys.stdout, sys.stderr):  # what envcheck printed there comes first
        try:
            if stream is not None and stream.fileno() == fd:
                stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    view = memoryview(data)
    try:
        while view:
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:  # a non-blocking pipe that is full: wait until it drains
                select.select([], [fd], [], 1.0)
    except OSError as exc:
        raise UsageError(f"cannot write {path!r}: {describe_error(exc)}") from exc


def _target(path: str) -> Tuple[Any, ...]:
    """(path to write, its stat or None). A link to a regular file is resolved (the link stays);
    anything else is judged by what it is, links to devices included."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return path, None
    if stat.S_ISLNK(st.st_mode):
        try:
            tst = os.stat(path)
        except OSError:
            raise WriteRefused(f"{path!r} is a symbolic link to a missing file; not writing through it") from None
        if stat.S_ISREG(tst.st_mode):
            return os.path.realpath(path), tst
        return path, tst
    return path, st


def write_file(path: str, data: bytes, *, force: bool = False,
               may_replace: Optional[Callable[[bytes], bool]] = None) -> str:
    """Write ``data`` to ``path`` (see the module doc). Returns ``"created"``, ``"replaced"`` or
    ``"written"`` (in place, to a device or FIFO). Raises :class:`WriteRefused` or :class:`UsageError`."""
    path = os.path.abspath(path)
    fd = _own_descriptor(path)
    if fd is not None:
        _write_descriptor(fd, path, data)
        return "written"
    try:
        real, st = _target(path)
    except OSError as exc:
        raise UsageError(f"cannot write {path!r}: {describe_error(exc)}") from exc
    if st is not None and not stat.S_ISREG(st.st_mode):
        if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
            _write_in_place(path, data)
            return "written"
        raise WriteRefused(f"{path!r} is {file_kind(st.st_mode)}; not writing there")
    if st is not None and not force:
        ok = False
        if may_replace is not None:
            try:
                ok = may_replace(read_bytes(real, 64 * 1024 * 1024, follow=False))
            except OSError:
                ok = False
        if not ok:
            raise WriteRefused(f"{path!r} exists" + (" and is not one of envcheck's own files" if may_replace else "")
                               + "; use --force to overwrite it")
    directory = os.path.dirname(real)
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~umask()
    try:
        if st is None:
            os.makedirs(directory, exist_ok=True)
        tmp = _stage(directory, data, mode, st)
    except OSError as exc:
        raise UsageError(f"cannot write {path!r}: {describe_error(exc)}") from exc
    try:
        os.replace(tmp, real)
    except BaseException as exc:
        _unlink(tmp)
        if isinstance(exc, OSError):
            raise UsageError(f"cannot write {path!r}: {describe_error(exc)}") from exc
        raise
    sync_dir(directory)
    return "created" if st is None else "replaced"


def write_files(directory: str, files: Dict[str, bytes], *, force: bool = False) -> List[str]:
    """Write several files into ``directory`` as one change: all or (except on power loss / SIGKILL
    during a few renames) none. A missing folder is built aside and renamed into place whole; in an
    existing one every file is staged first, then all are renamed in one go with signals held.
    Existing files are replaced only with ``force`` (and only regular files)."""
    directory = os.path.abspath(directory)
    paths = {name: os.path.join(directory, name) for name in files}
    if os.path.lexists(directory) and not os.path.isdir(directory):
        raise WriteRefused(f"{directory} exists and is not a folder")
    if not os.path.lexists(directory):
        parent = os.path.dirname(directory)
        try:
            os.makedirs(parent, exist_ok=True)
            import tempfile

            tmpdir = tempfile.mkdtemp(prefix=".envcheck-", dir=parent)
        except OSError as exc:
            raise UsageError(f"cannot write {directory!r}: {describe_error(exc)}") from exc
        try:
            new_mode = 0o666 & ~umask()
            for name, data in files.items():
                create_file(os.path.join(tmpdir, name), data, new_mode)
            os.chmod(tmpdir, 0o777 & ~umask())
            os.rename(tmpdir, directory)
        except BaseException as exc:
            for name in files:
                _unlink(os.path.join(tmpdir, name))
            try:
                os.rmdir(tmpdir)
            except OSError:
                pass
            if isinstance(exc, OSError):
                raise UsageError(f"cannot write {directory!r}: {describe_error(exc)}") from exc
            raise
        sync_dir(parent)
        return list(paths.values())

    stats: Dict[str, Optional[os.stat_result]] = {}
    for name, p in paths.items():
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise WriteRefused(f"{p!r} is {file_kind(st.st_mode)}; nothing was written")
        stats[name] = st
    clash = [paths[n] for n, st in stats.items() if st is not None]
    if clash and not force:
        raise WriteRefused("refusing to overwrite " + ", ".join(clash) + " (use --force); nothing was written")
    staged: Dict[str, str] = {}
    try:
        for name, data in files.items():
            st = stats[name]
            staged[name] = _stage(directory, data, stat.S_IMODE(st.st_mode) if st else 0o666 & ~umask(), st)
        with signals_held():
            for name in list(staged):
                os.replace(staged[name], paths[name])
                del staged[name]
    except OSError as exc:
        raise UsageError(f"cannot write into {directory!r}: {describe_error(exc)}") from exc
    finally:
        for tmp in staged.values():
            _unlink(tmp)
    sync_dir(directory)
    return list(paths.values())


def write_bytes_atomic(path: str, data: bytes, *, force: bool = False,
                       may_replace: Optional[Callable[[bytes], bool]] = None) -> str:
    return write_file(path, data, force=force, may_replace=may_replace)


def write_text_atomic(path: str, text: str, *, force: bool = False,
                      may_replace: Optional[Callable[[bytes], bool]] = None) -> str:
    return write_file(path, encode_text(text), force=force, may_replace=may_replace)


def encode_text(text: str) -> bytes:
    """UTF-8 bytes of ``text``; undecodable bytes kept as they were (surrogateescape), any other lone
    surrogate replaced, so that encoding never fails."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace")



