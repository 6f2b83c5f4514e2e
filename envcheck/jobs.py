"""Run a job with live output, forwarded signals and a bounded tail of its error stream.

Design (``envcheck run -- CMD``):

* **stdout is inherited** by the child: the job writes straight to our fd 1 — no pipe, no copy,
  no change of buffering (a terminal stays a terminal, ``isatty()`` stays true), no reordering.
* **stderr is teed**: the child's fd 2 is a pipe (or, when our own stderr is a terminal, a
  pseudo-terminal in raw mode so that ``isatty()``, colours and progress bars behave the same).
  We read it with ``os.read`` in chunks as soon as bytes arrive and write each chunk to our fd 2
  at once, before reading the next one, keeping the last ``tail_bytes`` in a ring. Nothing is
  held back, and C's ``stderr`` / Python's ``sys.stderr`` are unbuffered/line-buffered whatever
  they point at, so the child's buffering does not change either.
  Tracebacks, CUDA/cuDNN errors and framework logs go to stderr: that tail is what ``explain``
  reads. (Interleaving of stdout and stderr lines is as close as with ``2>&1 | tee``: one read and
  one write of latency on the stderr side.)
* **signals**: SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 are forwarded to the child. SIGINT and SIGQUIT
  are forwarded unless our process group is the terminal's foreground group — then the terminal
  already sent them to the child (same process group), and forwarding would deliver them twice.
* **exit status**: the child's; ``128 + N`` when it was killed by signal N (as a shell reports it);
  127 when the command is not found, 126 when it cannot be executed.

No printing happens here (only :mod:`envcheck.cli` prints); the caller gets a :class:`RunResult`.
"""

from __future__ import annotations

import errno
import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import List, Optional, Sequence

from envcheck import exit_codes

__all__ = ["RunResult", "run_job", "FORWARDED_SIGNALS", "DEFAULT_TAIL_BYTES"]

DEFAULT_TAIL_BYTES = 64 * 1024
FORWARDED_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1",
                                                       "SIGUSR2") if hasattr(signal, n))
_TERMINAL_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGQUIT") if hasattr(signal, n))
#: after the job exits, how long to wait for its stderr to close (grandchildren may hold it open)
DRAIN_SECONDS = 2.0


@dataclass
class RunResult:
    returncode: int  # as a shell reports it: 128+N for signal N
    signal: Optional[int]  # the signal that killed the job, if any
    tail: str  # the last bytes the job wrote to stderr, decoded
    error: Optional[str] = None  # why the job could not be started


def _write_all(fd: int, data: bytes) -> bool:
    """Write all of ``data`` to ``fd``; False once ``fd`` is gone (the reader went away)."""
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except InterruptedError:
            continue
        except BlockingIOError:
            select.select([], [fd], [], 1.0)
            continue
        except OSError:
            return False
        view = view[n:]
    return True


def _foreground(sig: int) -> bool:
    """True when the terminal itself sent ``sig`` to our whole process group (Ctrl-C, Ctrl-\\)."""
    if sig not in _TERMINAL_SIGNALS:
        return False
    for fd in (0, 1, 2):
        try:
            return os.tcgetpgrp(fd) == os.getpgrp()
        except OSError:
            continue
    return False


def _stderr_pair(out_fd: int):
    """(read end, write end) for the child's stderr: a raw pty when ``out_fd`` is a terminal."""
    try:
        is_tty = os.isatty(out_fd)
    except OSError:
        is_tty = False
    if is_tty:
        try:
            import termios
            import tty

            master, slave = os.openpty()
            tty.setraw(slave)  # no \n -> \r\n translation, no echo: the bytes pass unchanged
            attrs = termios.tcgetattr(slave)
            attrs[1] &= ~termios.OPOST
            termios.tcsetattr(slave, termios.TCSANOW, attrs)
            try:
                import fcntl

                size = fcntl.ioctl(out_fd, termios.TIOCGWINSZ, b"\0" * 8)
                fcntl.ioctl(slave, termios.TIOCSWINSZ, size)
            except OSError:
                pass
            return master, slave, True
        except (OSError, ImportError):
            pass
    r, w = os.pipe()
    return r, w, False


def run_job(argv: Sequence[str], *, tail_bytes: int = DEFAULT_TAIL_BYTES, err_fd: int = 2,
            env: Optional[dict] = None) -> RunResult:
    """Run ``argv`` (no shell) to completion as described in the module docstring."""
    argv = [str(a) for a in argv]
    read_fd, write_fd, is_pty = _stderr_pair(err_fd)
    try:
        proc = subprocess.Popen(argv, stderr=write_fd, env=env, close_fds=True)
    except FileNotFoundError as exc:
        os.close(read_fd)
        os.close(write_fd)
        return RunResult(exit_codes.NOT_FOUND, None, "", error=f"{argv[0]}: command not found ({exc.strerror})")
    except OSError as exc:
        os.close(read_fd)
        os.close(write_fd)
        return RunResult(exit_codes.CANNOT_EXECUTE, None, "", error=f"{argv[0]}: cannot execute: {exc.strerror or exc}")
    os.close(write_fd)

    def forward(signum, _frame):
        if _foreground(signum):
            return
        try:
            proc.send_signal(signum)
        except (ProcessLookupError, OSError):
            pass

    old = {}
    for s in FORWARDED_SIGNALS:
        try:
            old[s] = signal.signal(s, forward)
        except (ValueError, OSError):  # not the main thread, or not settable
            pass
    ring: List[bytes] = []
    kept = 0
    output_open = True
    deadline: Optional[float] = None
    try:
        while True:
            if proc.poll() is not None:
                if not output_open:
                    break
                if deadline is None:
                    deadline = time.monotonic() + DRAIN_SECONDS
                elif time.monotonic() >= deadline:
                    break
            if not output_open:
                try:
                    proc.wait(timeout=0.5)
                except subprocess.TimeoutExpired:
                    pass
                continue
            try:
                ready, _, _ = select.select([read_fd], [], [], 0.2)
            except InterruptedError:
                continue
            if not ready:
                continue
            try:
                chunk = os.read(read_fd, 65536)
            except InterruptedError:
                continue
            except OSError as exc:
                if exc.errno == errno.EIO:  # pty: every writer closed its end
                    chunk = b""
                else:
                    raise
            if not chunk:
                output_open = False
                continue
            _write_all(err_fd, chunk)
            ring.append(chunk)
            kept += len(chunk)
            while ring and kept - len(ring[0]) >= tail_bytes:
                kept -= len(ring.pop(0))
        rc = proc.wait()
    finally:
        try:
            os.close(read_fd)
        except OSError:
            pass
        for s, h in old.items():
            try:
                signal.signal(s, h)
            except (ValueError, OSError, TypeError):
                pass
    tail = b"".join(ring)[-tail_bytes:].decode("utf-8", errors="replace")
    if is_pty:
        tail = tail.replace("\r\n", "\n")
    if rc < 0:
        return RunResult(128 - rc, -rc, tail)
    return RunResult(rc, None, tail)
