"""The one subprocess / file helper of envcheck.

Every probe goes through :func:`run_command` or :func:`read_text`: argv lists (never a shell), an
explicit timeout, ``LC_ALL=C``, bounded output, and a :class:`Capture` that tells "not found",
"failed (with its text)", "timed out" and "unreadable" apart. This is the only module that catches ``OSError`` and timeouts.
"""

from __future__ import annotations

import atexit
import os
import selectors
import signal
import subprocess
import threading
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from envcheck.capture import CUT_OFF, FAILED, NOT_FOUND, OK, TIMED_OUT, UNREADABLE, Capture

__all__ = ["Capture", "OK", "NOT_FOUND", "FAILED", "TIMED_OUT", "UNREADABLE", "run_command", "read_text",
           "which", "MAX_OUTPUT", "popen_group", "kill_children", "kill_children_on_signals", "STOP_SIGNALS",
           "die_with_parent"]

#: Hostile tools can print without end; we keep at most this many bytes of each stream.
MAX_OUTPUT = 4 * 1024 * 1024


def _child_env(extra: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    env["LANG"] = "C"
    env.pop("LANGUAGE", None)
    if extra:
        env.update(extra)
    return env


def _access_check(fn: str) -> bool:
    return os.path.exists(fn) and os.access(fn, os.X_OK) and not os.path.isdir(fn)


def _shutil_which(cmd: str) -> Optional[str]:
    """``shutil.which(cmd)`` (its POSIX branch, written out: importing shutil costs ``envcheck status`` ~2 ms);
    elsewhere shutil's own."""
    if os.name != "posix":
        import shutil

        return shutil.which(cmd)
    if os.path.dirname(cmd):
        return cmd if _access_check(cmd) else None
    path = os.environ.get("PATH", None)
    if path is None:
        try:
            path = os.confstr("CS_PATH")
        except (AttributeError, ValueError):
            path = os.defpath
    if not path:
        return None
    seen = set()
    for d in path.split(os.pathsep):
        if d not in seen:
            seen.add(d)
            name = os.path.join(d, cmd)
            if _access_check(name):
                return name
    return None


def which(name: str, extra_dirs: Sequence[str] = ()) -> Optional[str]:
    """The executable ``name`` on PATH, else in one of ``extra_dirs``; ``None`` when absent."""
    found = _shutil_which(name)
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


# -- children in their own process groups, and their end ------------------------------------------
#
# Every child envcheck starts (probes, the NVML child, --interpreter / --deep / smoke children, pip and
# venv under `fix --apply`) runs in its own session (``start_new_session``) so that a timeout can kill
# it with everything it started. The flip side: a signal that stops envcheck from outside (SIGTERM
# from `docker stop`, SIGHUP from a closed terminal, SIGINT, SIGQUIT) does not reach them. So every
# such child is registered here from its start until it is reaped, and
#
# * :func:`kill_children_on_signals` (called by every command that starts children, in the main
#   thread) installs a handler for :data:`STOP_SIGNALS` that SIGKILLs every registered group at once,
#   then does what the signal did before (SIGINT: KeyboardInterrupt; SIGTERM / SIGHUP / SIGQUIT:
#   ``SystemExit(128 + N)``, so ``finally`` blocks clean up; a handler installed before ours is
#   called; an ignored signal, e.g. SIGHUP under nohup, stays ignored);
# * an ``atexit`` hook does the same on every other way out of the interpreter.
#
# A group is killed only while its leader is not reaped yet: a zombie leader keeps its PID, so the
# process group ID cannot have been reused by someone else.

#: the signals that stop envcheck from outside
STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, n))
_children: Dict[int, subprocess.Popen[Any]] = {}
_children_lock = threading.RLock()  # re-entrant: the signal handler may run while the main thread holds it
_state = {"stopping": False, "atexit": False, "spawning": 0}
_previous: Dict[int, Any] = {}
_deferred: List[int] = []  # a stop signal that came while the main thread was starting a child


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    if proc.returncode is not None:  # reaped: its PID (and group ID) may be someone else's by now
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.kill()
        except OSError:
            pass


def _stop_groups(procs: Sequence[subprocess.Popen[Any]]) -> None:
    """SIGKILL the groups of ``procs``; those started with a ``term_grace`` get SIGTERM first and that
    long (at most) to end on their own (an envcheck child then kills its own probes' groups)."""
    graced = [p for p in procs if getattr(p, "_envcheck_term_grace", 0) and p.returncode is None]
    for p in graced:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except OSError:
            pass
    if graced:
        deadline = time.monotonic() + max(getattr(p, "_envcheck_term_grace", 0) for p in graced)
        while time.monotonic() < deadline and any(p.poll() is None for p in graced):
            time.sleep(0.02)
    for p in procs:
        _kill_group(p)


def _register(proc: subprocess.Popen[Any]) -> None:
    with _children_lock:
        if not _state["atexit"]:
            atexit.register(kill_children)
            _state["atexit"] = True
        _children[proc.pid] = proc
        stopping = _state["stopping"]
    if stopping:  # started while envcheck is being stopped: it must not outlive us
        _kill_group(proc)


def _unregister(proc: subprocess.Popen[Any]) -> None:
    with _children_lock:
        _children.pop(proc.pid, None)


_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGKILL) -> Optional[Callable[[], None]]:
    """A ``preexec_fn`` that makes the child receive ``sig`` when envcheck dies, however it dies
    (``kill -9`` included: no handler of ours runs then). Linux ``prctl(PR_SET_PDEATHSIG)`` through
    ctypes, looked up here, before the fork (the child only calls it); ``None`` elsewhere. The
    signal comes when the *thread* that started the child ends: start such children from the thread
    that waits for them. A parent that died before the child set it is caught by its parent PID."""
    import sys

    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return None
    parent = os.getpid()

    def preexec() -> None:  # pragma: no cover - runs in the child, between fork and exec
        prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), int(sig))

    return preexec


def popen_group(argv: Sequence[str], *, term_grace: float = 0.0, die_with: Optional[int] = None,
                **kwargs: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen`` in a new session (its own process group), registered so that it is killed
    with its group when envcheck is stopped (see above). Reap it with :func:`pump` or :func:`reap`.

    Starting and registering is one step for the stop handler: a worker thread holds the registry's
    lock meanwhile (the handler waits for it, then kills the new child too), and in the main thread
    a stop signal arriving meanwhile is handled right after the registration. Once envcheck is
    being stopped, nothing new is started (``OSError``). ``term_grace``: when envcheck is stopped, the
    group gets SIGTERM and that many seconds before SIGKILL (for a child that has children of its own
    to stop, such as another envcheck); 0 kills at once. ``die_with``: a signal the child gets when
    envcheck dies without running any handler (``kill -9``; :func:`die_with_parent`), for children
    that must never outlive it (pip under `fix --apply`, the regex check of `matrix update`)."""
    main = threading.current_thread() is threading.main_thread()
    if die_with is not None and "preexec_fn" not in kwargs:
        kwargs["preexec_fn"] = die_with_parent(die_with)
    with _children_lock:
        if _state["stopping"]:
            raise OSError("envcheck is stopping; not starting " + str(list(argv)[:1]))
        if main:
            _state["spawning"] += 1
        try:
            proc = subprocess.Popen(list(argv), start_new_session=True, **kwargs)
            proc._envcheck_term_grace = term_grace  # type: ignore[attr-defined]
            _register(proc)
        finally:
            if main:
                _state["spawning"] -= 1
    if main and _deferred:
        _on_stop_signal(_deferred.pop(0), None)
    return proc


def reap(proc: subprocess.Popen[Any], timeout: Optional[float] = None) -> Optional[int]:
    """Wait for ``proc`` (at most ``timeout`` s) and forget it once reaped; its return code or None."""
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    _unregister(proc)
    return rc


def kill_children(stopping: bool = False) -> None:
    """SIGKILL the process group of every registered child that is still running."""
    with _children_lock:
        if stopping:
            _state["stopping"] = True
        procs = list(_children.values())
    _stop_groups(procs)


def _on_stop_signal(signum: int, frame: Any) -> None:
    if _state["spawning"]:  # the main thread is inside Popen: finish starting and registering first
        _deferred.append(signum)
        return
    kill_children(stopping=True)
    prev = _previous.get(signum)
    if callable(prev):
        prev(signum, frame)  # Python's default SIGINT handler raises KeyboardInterrupt here
        return
    raise SystemExit(128 + signum)


def kill_children_on_signals() -> bool:
    """Install the stop-signal handler described above (idempotent). Only the main thread can install
    signal handlers; elsewhere this returns False and changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        return False
    for sig in STOP_SIGNALS:
        try:
            cur = signal.getsignal(sig)
            if cur is _on_stop_signal or cur == signal.SIG_IGN:
                continue
            _previous[sig] = None if cur in (signal.SIG_DFL, None) else cur
            signal.signal(sig, _on_stop_signal)
        except (ValueError, OSError):
            return False
    return True


def pump(proc: subprocess.Popen[Any], timeout: float, on_chunk: Callable[[str, bytes], bool]) -> str:
    """Read ``proc``'s stdout and stderr pipes as they come (``on_chunk("stdout"|"stderr", data)``; it
    returns False to stop listening) until both close, then reap it.

    Returns ``"done"``, ``"timeout"`` (``timeout`` seconds passed) or ``"stopped"``; in the last two
    cases, and when an exception (KeyboardInterrupt, SystemExit from a stop signal) interrupts the
    wait, the whole process group is killed at once (after its ``term_grace``, see :func:`popen_group`,
    when the wait was interrupted). The pipes are closed in every case.
    """
    assert proc.stdout is not None and proc.stderr is not None
    deadline = time.monotonic() + timeout
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "stdout")
    sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
    outcome = "done"
    finished = False  # False when we leave by an exception (an interrupt): the group is killed then too
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
        finished = True
    finally:
        sel.close()
        if not finished:
            _stop_groups([proc])
        elif outcome != "done":
            _kill_group(proc)
        reap(proc, timeout=10)  # after SIGKILL at once, unless the child is stuck in the kernel (D state)
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
        resolved = _shutil_which(exe)
        if resolved is None:
            return Capture(NOT_FOUND, detail=f"{exe}: command not found", origin=origin, argv=argv)
    elif not os.path.exists(exe):
        return Capture(NOT_FOUND, detail=f"{exe}: no such file", origin=origin, argv=argv)
    kill_children_on_signals()  # in the main thread; worker threads rely on their command's call
    try:
        proc = popen_group(
            argv,
            stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_child_env(env),
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
        return Capture(FAILED, text=stdout, detail=f"{origin}: {CUT_OFF} {MAX_OUTPUT} bytes (killed)",
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
