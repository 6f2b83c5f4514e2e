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
* **signals, exactly once**: the job runs in **its own process group**, and every signal in
  :data:`FORWARDED_SIGNALS` that reaches us is sent on to the job (its main process, as ``kill
  PID`` would) — once. A signal sent to our whole process group (``kill -- -PGID``, Slurm's or a
  supervisor's group kill) therefore reaches the job once, through us, and so does one sent to
  our PID alone; the job is never outside the group that is signalled and inside it too. (In
  Python a handler cannot tell ``kill(pid)`` from ``kill(-pgid)``: both are ``SI_USER`` from the
  same sender, so "forward only what the group did not get" cannot be decided reliably; a
  separate group makes the question moot.) The one case left is a sender that signals every
  process on its own, one by one (systemd's ``KillMode=control-group``, the default, sends
  SIGTERM to each process of the unit): the job then gets that signal from it and from us;
  ``KillMode=mixed`` signals only the main process and is the right setting for a unit whose
  main process is ``envcheck run``.
* **job control**: when we are the terminal's foreground process group, the job's group is made
  the foreground group (``tcsetpgrp``, as a shell does), so the job reads the terminal and
  Ctrl-C / Ctrl-\\ / Ctrl-Z go to the job (and its children) alone — once, straight from the
  terminal. When the job stops (Ctrl-Z, SIGTTIN), we take the terminal back and stop ourselves,
  so the shell sees a stopped job; on ``fg`` we give the terminal to the job again and continue
  it, on ``bg`` we only continue it. When the job ends, the terminal is given back to our group.
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
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from envcheck import exit_codes

__all__ = ["RunResult", "run_job", "FORWARDED_SIGNALS", "DEFAULT_TAIL_BYTES"]

DEFAULT_TAIL_BYTES = 64 * 1024
FORWARDED_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1",
                                                       "SIGUSR2") if hasattr(signal, n))
#: after the job exits, how long to wait for its stderr to close (grandchildren may hold it open)
DRAIN_SECONDS = 2.0
_SIGTTOU = getattr(signal, "SIGTTOU", None)


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


def _controlling_tty() -> Optional[int]:
    """One of fds 0, 1, 2 that is our controlling terminal (``tcgetpgrp`` works on it), else None."""
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd):
                os.tcgetpgrp(fd)
                return fd
        except OSError:
            continue
    return None


def _is_foreground(tty: Optional[int]) -> bool:
    if tty is None:
        return False
    try:
        return os.tcgetpgrp(tty) == os.getpgrp()
    except OSError:
        return False


def _block_ttou() -> Optional[Set[int]]:
    """Block SIGTTOU in this thread; the previous mask (None where there is no such thing)."""
    if _SIGTTOU is None or not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, {_SIGTTOU})


def _set_foreground(tty: int, pgrp: int) -> None:
    """``tcsetpgrp`` with SIGTTOU blocked (a background caller would otherwise be stopped)."""
    old = _block_ttou()
    try:
        os.tcsetpgrp(tty, pgrp)
    except OSError:
        pass
    finally:
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _child_setup(tty: Optional[int]) -> Callable[[], None]:
    """The child's own process group (and the terminal's foreground, when we had it), set in the
    child before exec so that no byte of the job runs in our group or behind the terminal."""

    def setup() -> None:
        os.setpgid(0, 0)
        if tty is not None:
            _set_foreground(tty, os.getpid())

    return setup


def _stderr_pair(out_fd: int) -> Tuple[int, int, bool]:
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
            env: Optional[Dict[str, str]] = None) -> RunResult:
    """Run ``argv`` (no shell) to completion as described in the module docstring."""
    argv = [str(a) for a in argv]
    read_fd, write_fd, is_pty = _stderr_pair(err_fd)
    tty = _controlling_tty()
    fg_tty = tty if _is_foreground(tty) else None
    try:
        proc = subprocess.Popen(argv, stderr=write_fd, env=env, close_fds=True, preexec_fn=_child_setup(fg_tty))
    except FileNotFoundError as exc:
        os.close(read_fd)
        os.close(write_fd)
        if os.sep in argv[0] and os.path.isfile(argv[0]):  # there, but its "#!" interpreter (or loader) is not
            return RunResult(exit_codes.NOT_FOUND, None, "", error=f"{argv[0]}: cannot execute: the interpreter its "
                             f"'#!' line names (or the loader it needs) was not found ({exc.strerror})")
        return RunResult(exit_codes.NOT_FOUND, None, "", error=f"{argv[0]}: command not found ({exc.strerror})")
    except (OSError, subprocess.SubprocessError) as exc:
        os.close(read_fd)
        os.close(write_fd)
        why = getattr(exc, "strerror", None) or exc
        return RunResult(exit_codes.CANNOT_EXECUTE, None, "", error=f"{argv[0]}: cannot execute: {why}")
    os.close(write_fd)
    job = _Job(proc.pid, tty)
    # we may write the job's stderr to the terminal while the job's group is in the foreground
    old_mask = _block_ttou()
    old = _handle_signals(job.forward)
    tail = _Tail(tail_bytes)
    try:
        _pump(job, read_fd, err_fd, tail)
    finally:
        if job.status is None:  # we are leaving early (an exception): do not leave the job behind
            try:
                os.killpg(job.pid, signal.SIGKILL)
            except OSError:
                pass
            job.reap(block=True)
        proc.returncode = 0  # reaped here, not by Popen
        if fg_tty is not None and _is_foreground_of(fg_tty, job.pid):
            _set_foreground(fg_tty, os.getpgrp())
        try:
            os.close(read_fd)
        except OSError:
            pass
        _restore_signals(old, old_mask)
    text = tail.text()
    if is_pty:
        text = text.replace("\r\n", "\n")
    st = job.status or 0
    if os.WIFSIGNALED(st):
        sig = os.WTERMSIG(st)
        return RunResult(128 + sig, sig, text)
    return RunResult(os.WEXITSTATUS(st) if os.WIFEXITED(st) else 1, None, text)


class _Job:
    """The running child: signals forwarded to it, its exit status once reaped, job control on a stop."""

    def __init__(self, pid: int, tty: Optional[int]):
        self.pid = pid
        self.tty = tty
        self.status: Optional[int] = None  # the raw wait status once the child is reaped

    def forward(self, signum: int, _frame: Any) -> None:
        if self.status is not None:  # reaped: the pid may belong to someone else now
            return
        try:
            os.kill(self.pid, signum)
        except OSError:
            pass

    def reap(self, block: bool) -> None:
        """Collect the child's exit status; on a stop (Ctrl-Z, SIGTTIN), stop with it (job control)."""
        if self.status is not None:
            return
        try:
            got, st = os.waitpid(self.pid, (0 if block else os.WNOHANG) | os.WUNTRACED)
        except ChildProcessError:
            self.status = 0
            return
        if not got:
            return
        if os.WIFSTOPPED(st):
            self._stopped()
            return
        self.status = st

    def _stopped(self) -> None:
        tty = self.tty
        if tty is None:  # no terminal: someone stopped the job on purpose; it is theirs to continue
            return
        if _is_foreground_of(tty, self.pid):
            _set_foreground(tty, os.getpgrp())
        os.kill(os.getpid(), signal.SIGSTOP)  # the shell sees a stopped job ...
        if _is_foreground(tty):  # ... and on `fg` (not `bg`) the job gets the terminal back
            _set_foreground(tty, self.pid)
        try:
            os.killpg(self.pid, signal.SIGCONT)
        except OSError:
            pass


class _Tail:
    """The last ``limit`` bytes of the job's stderr (whole chunks kept while they are needed)."""

    def __init__(self, limit: int):
        self.limit = limit
        self.ring: List[bytes] = []
        self.kept = 0

    def add(self, chunk: bytes) -> None:
        self.ring.append(chunk)
        self.kept += len(chunk)
        while self.ring and self.kept - len(self.ring[0]) >= self.limit:
            self.kept -= len(self.ring.pop(0))

    def text(self) -> str:
        return b"".join(self.ring)[-self.limit:].decode("utf-8", errors="replace")


def _handle_signals(handler: Callable[[int, Any], None]) -> Dict[int, Any]:
    """Install ``handler`` for :data:`FORWARDED_SIGNALS`; the old handlers, to restore."""
    old = {}
    for s in FORWARDED_SIGNALS:
        try:
            old[s] = signal.signal(s, handler)
        except (ValueError, OSError):  # not the main thread, or not settable
            pass
    return old


def _restore_signals(old: Dict[int, Any], old_mask: Any) -> None:
    for s, h in old.items():
        try:
            signal.signal(s, h)
        except (ValueError, OSError, TypeError):
            pass
    if old_mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)


def _read_chunk(read_fd: int) -> Optional[bytes]:
    """What the job wrote next: bytes, ``b""`` once every writer closed its end, None: nothing yet."""
    try:
        ready, _, _ = select.select([read_fd], [], [], 0.2)
    except InterruptedError:
        return None
    if not ready:
        return None
    try:
        return os.read(read_fd, 65536)
    except InterruptedError:
        return None
    except OSError as exc:
        if exc.errno == errno.EIO:  # pty: every writer closed its end
            return b""
        raise


def _pump(job: _Job, read_fd: int, err_fd: int, tail: _Tail) -> None:
    """Copy the job's stderr to ``err_fd`` (and ``tail``) until it has exited and its output is closed,
    or :data:`DRAIN_SECONDS` after it exited (a grandchild may hold the output open)."""
    output_open = True
    deadline: Optional[float] = None
    while True:
        job.reap(block=False)
        if job.status is not None:
            if not output_open:
                break
            if deadline is None:
                deadline = time.monotonic() + DRAIN_SECONDS
            elif time.monotonic() >= deadline:
                break
        if not output_open:  # short naps, not a blocking wait: signal handlers run in between
            time.sleep(0.05)
            continue
        chunk = _read_chunk(read_fd)
        if chunk is None:
            continue
        if not chunk:
            output_open = False
            continue
        _write_all(err_fd, chunk)
        tail.add(chunk)


def _is_foreground_of(tty: int, pgrp: int) -> bool:
    try:
        return os.tcgetpgrp(tty) == pgrp
    except OSError:
        return False
