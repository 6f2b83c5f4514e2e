"""The one subprocess / file helper of envcheck.

Every probe goes through :func:`run_command` or :func:`read_text`: argv lists (never a shell), an
explicit timeout, ``LC_ALL=C``, bounded output, and a :class:`Capture` that tells "not found",
"failed (with its text)", "timed out" and "unreadable" apart. This is the only module that catches ``OSError`` and timeouts.
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import time
from typing import Callable, Mapping, Optional, Sequence

from envcheck.capture import FAILED, NOT_FOUND, OK, TIMED_OUT, UNREADABLE, Capture

__all__ = ["Capture", "OK", "NOT_FOUND", "FAILED", "TIMED_OUT", "UNREADABLE", "run_command", "read_text",
           "which", "MAX_OUTPUT"]

#: Hostile tools can print without end; we keep at most this many bytes of each stream.
MAX_OUTPUT = 4 * 1024 * 1024


def _child_env(extra: Optional[Mapping[str, str]] = None) -> dict:
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    env["LANG"] = "C"
    env.pop("LANGUAGE", None)
    if extra:
        env.update(extra)
    return env


def which(name: str, extra_dirs: Sequence[str] = ()) -> Optional[str]:
    """The executable ``name`` on PATH, else in one of ``extra_dirs``; ``None`` when absent."""
    found = shutil.which(name)
    if found:
        return found
    for d in extra_dirs:
        if not d:
            continue
        cand = os.path.join(d, name)
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.kill()
        except OSError:
            pass


def pump(proc: subprocess.Popen, timeout: float, on_chunk: Callable[[str, bytes], bool]) -> str:
    """Read ``proc``'s stdout and stderr pipes as they come (``on_chunk("stdout"|"stderr", data)``; it
    returns False to stop listening) until both close, then reap it.

    Returns ``"done"``, ``"timeout"`` (``timeout`` seconds passed) or ``"stopped"``; in the last two
    cases the whole process group is killed. The pipes are closed in every case.
    """
    assert proc.stdout is not None and proc.stderr is not None
    deadline = time.monotonic() + timeout
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "stdout")
    sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
    outcome = "done"
    try:
        while sel.get_map() and outcome == "done":
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                outcome = "timeout"
                break
            for key, _ in sel.select(timeout=min(remaining, 0.5)):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                elif not on_chunk(key.data, chunk):
                    outcome = "stopped"
                    break
        if outcome == "done":
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                outcome = "timeout"
    finally:
        sel.close()
        if outcome != "done":
            _kill_group(proc)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - unkillable (D state)
            pass
        for stream in (proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
    return outcome


def run_command(argv: Sequence[str], timeout: float, *, env: Optional[Mapping[str, str]] = None,
                stdin_text: Optional[str] = None) -> Capture:
    """Run ``argv`` (a list; ``argv[0]`` resolved on PATH unless it contains a slash).

    Never raises for a missing, failing, crashing, hanging or babbling program: the returned
    :class:`Capture` says which. The child gets its own process group so that a timeout kills
    its children too, and ``LC_ALL=C`` so it prints parseable English.
    """
    argv = tuple(str(a) for a in argv)
    origin = " ".join(argv)
    exe = argv[0]
    if os.sep not in exe:
        resolved = shutil.which(exe)
        if resolved is None:
            return Capture(NOT_FOUND, detail=f"{exe}: command not found", origin=origin, argv=argv)
    elif not os.path.exists(exe):
        return Capture(NOT_FOUND, detail=f"{exe}: no such file", origin=origin, argv=argv)
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_child_env(env),
            start_new_session=True,
            close_fds=True,
        )
    except FileNotFoundError:
        return Capture(NOT_FOUND, detail=f"{exe}: not found", origin=origin, argv=argv)
    except OSError as exc:  # permission denied, exec format error, ...
        return Capture(FAILED, text="", detail=f"{exe}: cannot run: {exc.strerror or exc}", origin=origin,
                       argv=argv)

    if stdin_text is not None and proc.stdin is not None:
        try:
            proc.stdin.write(stdin_text.encode())
            proc.stdin.close()
        except OSError:
            pass
    out = bytearray()
    err = bytearray()

    def keep(stream: str, chunk: bytes) -> bool:
        buf = out if stream == "stdout" else err
        if len(buf) >= MAX_OUTPUT:
            return False  # a babbling program: stop listening, kill it
        buf.extend(chunk[: MAX_OUTPUT - len(buf)])
        return True

    outcome = pump(proc, timeout, keep)
    timed_out, too_much = outcome == "timeout", outcome == "stopped"

    stdout, stderr = _decode(bytes(out)), _decode(bytes(err))
    if timed_out:
        return Capture(TIMED_OUT, text=None, detail=f"{origin}: no answer within {timeout:g} s (killed)",
                       origin=origin, argv=argv)
    if too_much:
        return Capture(FAILED, text=stdout, detail=f"{origin}: printed more than {MAX_OUTPUT} bytes (killed)",
                       origin=origin, argv=argv)
    rc = proc.returncode
    if rc == 0:
        return Capture(OK, text=stdout, origin=origin, returncode=0, argv=argv)
    if rc < 0:
        try:
            why = f"killed by signal {signal.Signals(-rc).name}"
        except ValueError:
            why = f"killed by signal {-rc}"
    else:
        why = f"exit status {rc}"
    text = stdout
    if stderr.strip():
        text = (stdout + ("\n" if stdout and not stdout.endswith("\n") else "") + stderr) if stdout else stderr
    return Capture(FAILED, text=text, detail=f"{origin}: {why}", origin=origin, returncode=rc, argv=argv)


def read_text(path: str, max_bytes: int = MAX_OUTPUT, *, follow: bool = True) -> Capture:
    """Read a (small) text file through :func:`envcheck.safe_io.read_bytes`: only a regular file is
    read (a FIFO, device or a link to ``/proc/self/fd/0`` is ``unreadable``, never waited on), at most
    ``max_bytes``. Missing file or broken symlink: ``not-found``; permission or other I/O problem:
    ``unreadable``. ``follow=False`` refuses a symbolic link. Never raises."""
    from envcheck.safe_io import describe_error, read_bytes

    try:
        data = read_bytes(path, max_bytes, follow=follow)
    except (FileNotFoundError, NotADirectoryError):
        if os.path.islink(path):
            return Capture(NOT_FOUND, detail=f"{path}: broken symbolic link", origin=path)
        return Capture(NOT_FOUND, detail=f"{path}: no such file", origin=path)
    except OSError as exc:
        return Capture(UNREADABLE, detail=f"{path}: {describe_error(exc)}", origin=path)
    return Capture(OK, text=_decode(data), origin=path)
