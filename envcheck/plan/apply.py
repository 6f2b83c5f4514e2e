"""``envcheck fix --apply``: build the planned venv beside its final place, install the plan, re-check it
with ``envcheck status``, and only then move it into place.

Guarantees:
* the previous venv at the target path is untouched until the new one has passed the re-check;
* the swap is atomic: ``renameat2(RENAME_EXCHANGE)`` (Linux >= 3.15, on file systems that support it)
  exchanges the two folders in one step. Elsewhere the swap is two renames, with a journal
  (``swap.json`` in the work folder) written first: a run killed between them (``kill -9``) leaves
  the previous venv in the work folder, and the next ``fix --apply`` for that path puts it back
  before anything else. At no moment after a successful swap can a crash leave no venv there;
* any failure or stop signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) kills the running step's whole
  process group at once (pip, ``python -m venv``, uv, the re-check) and removes the half-made venv;
  SIGINT exits with status 130, the others with 128 + N;
* every work folder holds a marker file, locked (``flock``) while its run lives. A run that was
  killed (``kill -9``, power loss) leaves an unlocked marker: the next ``fix --apply`` for the same
  path recovers its journal and removes the folder. Folders without that marker (but an empty one:
  a run killed between making it and locking its marker), or not named ``.<venv>.envcheck-*``, or not
  ours, are never touched;
* every subprocess runs in its own process group with a time limit, its output streamed live, and
  dies with envcheck (``PR_SET_PDEATHSIG`` on Linux: pip, venv and uv get SIGKILL, the re-check
  SIGTERM) even when envcheck itself is killed with SIGKILL and no handler of ours runs.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from envcheck.errors import ApplyError, UsageError
from envcheck.plan.output import requirement_line
from envcheck.plan.resolve import Plan
from envcheck.safe_io import sync_dir

__all__ = ["ApplyError", "ApplyResult", "apply_plan"]

def _install_timeout() -> float:
    """Seconds creating the venv and each pip install may take: ENVCHECK_INSTALL_TIMEOUT, default 3600."""
    try:
        v = float(os.environ.get("ENVCHECK_INSTALL_TIMEOUT", "3600"))
    except ValueError:
        raise UsageError("ENVCHECK_INSTALL_TIMEOUT must be a number of seconds") from None
    if not v > 0:
        raise UsageError("ENVCHECK_INSTALL_TIMEOUT must be a positive number of seconds")
    return v


@dataclass
class ApplyResult:
    venv: str
    report: Dict[str, Any]


def _python_for(version: Optional[str]) -> str:
    if not version:
        return sys.executable
    if "%d.%d" % sys.version_info[:2] == version:
        return sys.executable
    exe = shutil.which(f"python{version}")
    if not exe:
        raise ApplyError(f"no python{version} on PATH to build the venv with (the plan is for Python {version})")
    return exe


def _find_uv() -> Optional[str]:
    """uv on PATH, else the binary of the `uv` package installed beside envcheck."""
    found = shutil.which("uv")
    if found:
        return found
    try:
        import uv  # the PyPI package ships the binary and says where it is

        return uv.find_uv_bin()
    except (ImportError, FileNotFoundError, AttributeError):
        return None


def _stream(argv: List[str], log: Callable[[str], None], timeout: float, env: Optional[Dict[str, str]] = None) -> int:
    """Run ``argv`` with its output passed to ``log`` line by line as it comes; its whole process group
    is killed on timeout, and at once when we are interrupted (an exception while waiting)."""
    from envcheck.proc import popen_group, pump

    # pip, uv and venv die with envcheck even when it is SIGKILLed (no handler runs then): pdeathsig
    proc = popen_group(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env,
                       die_with=signal.SIGKILL)
    partial = {"stdout": b"", "stderr": b""}

    def on_chunk(stream: str, chunk: bytes) -> bool:
        buf = partial[stream] + chunk
        *lines, partial[stream] = buf.split(b"\n")
        for raw in lines:
            log("  | " + raw.decode("utf-8", "replace").rstrip("\r"))
        return True

    outcome = pump(proc, timeout, on_chunk)
    for rest in partial.values():
        if rest.strip():
            log("  | " + rest.decode("utf-8", "replace").rstrip())
    if outcome == "timeout":
        raise ApplyError(f"{os.path.basename(argv[0])} ran longer than {int(timeout)} s and was stopped")
    return proc.returncode


# -- the work folder: marker, lock, journal, recovery ----------------------------------------------

MARKER = ".envcheck-apply"  # in every work folder we create; flock-ed while its run lives
JOURNAL = "swap.json"  # written before a two-rename swap


def _work_prefix(final: str) -> str:
    return "." + os.path.basename(final) + ".envcheck-"


def _lock_marker(work: str, final: str) -> int:
    """Create the marker of ``work`` and hold an exclusive lock on it; the open fd (keep it open)."""
    import fcntl

    fd = os.open(os.path.join(work, MARKER), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, json.dumps({"final": final, "pid": os.getpid()}).encode())
    return fd


def _is_stale(work: str) -> bool:
    """True when ``work`` is a work folder of ours whose run is gone (its marker is not locked)."""
    import fcntl

    try:
        st = os.lstat(work)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            return False
        fd = os.open(os.path.join(work, MARKER), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False  # no marker (not ours, or made by an envcheck that wrote none): leave it alone
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True  # we got the lock: nobody holds it, the run that made this folder is gone
    except OSError:
        return False  # locked: a live run
    finally:
        os.close(fd)


def _recover(final: str, log: Callable[[str], None]) -> None:
    """Finish what killed runs for ``final`` left: put a previous venv back when a two-rename swap was
    cut between its renames, then remove their work folders."""
    parent, prefix = os.path.dirname(final), _work_prefix(final)
    try:
        names = sorted(n for n in os.listdir(parent) if n.startswith(prefix))
    except OSError:
        return
    for name in names:
        work = os.path.join(parent, name)
        if not _is_stale(work):
            try:  # a run killed between making its work folder and locking its marker left it empty
                if stat.S_ISDIR(os.lstat(work).st_mode) and not os.listdir(work):
                    os.rmdir(work)
            except OSError:
                pass
            continue
        try:
            with open(os.path.join(work, JOURNAL), encoding="utf-8") as fh:
                journal = json.load(fh)
        except (OSError, ValueError):
            journal = None
        if isinstance(journal, dict) and journal.get("final") == final:
            backup = os.path.join(work, "previous")
            if not os.path.lexists(final) and os.path.isfile(os.path.join(backup, "pyvenv.cfg")):
                os.rename(backup, final)
                log(f"envcheck: an earlier --apply was stopped in the middle of its swap; restored the previous "
                    f"venv at {final}")
        log(f"envcheck: removing {work} (left by an earlier --apply that was stopped)")
        shutil.rmtree(work, ignore_errors=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: str, b: str) -> bool:
    """Swap the paths ``a`` and ``b`` atomically (``renameat2(RENAME_EXCHANGE)``). False when this
    system or file system cannot (then nothing changed); OSError for any other failure."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):  # glibc < 2.28, musl without it
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)):
        return False
    raise OSError(err, os.strerror(err), b)


def _swap(tmp: str, final: str, work: str) -> Tuple[str, Optional[str]]:
    """Put the venv at ``tmp`` at ``final``; (how, where the previous venv went or None)."""
    if not os.path.lexists(final):
        os.rename(tmp, final)  # nothing to replace: one atomic rename
        return "rename", None
    if _exchange(tmp, final):
        return "exchange", tmp  # the previous venv now sits at tmp, inside the work folder
    backup = os.path.join(work, "previous")
    journal = os.path.join(work, JOURNAL)
    with open(journal + ".tmp", "w", encoding="utf-8") as fh:
        json.dump({"final": final, "backup": backup, "new": tmp}, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(journal + ".tmp", journal)
    sync_dir(work)
    os.rename(final, backup)
    try:
        os.rename(tmp, final)
    except OSError:
        os.rename(backup, final)
        raise
    sync_dir(os.path.dirname(final))
    return "renames", backup


def _install_args(plan: Plan, find_links: List[str], index_url: Optional[str], offline: bool) -> List[List[str]]:
    """One argument list per index group (torch from its index, then tensorflow/jax from PyPI)."""
    from envcheck.plan.output import plan_groups

    out = []
    for g in plan_groups(plan):
        args = [requirement_line(p) for p in g["packages"]]
        if offline:
            args.append("--no-index")
        elif index_url:
            args += ["--index-url", index_url]
        else:
            if g["index_url"]:
                args += ["--index-url", g["index_url"]]
            if g["find_links"]:
                args += ["--find-links", g["find_links"]]
        for fl in find_links:
            args += ["--find-links", fl]
        out.append(args)
    return out


def _relocate(venv_tmp: str, final: str) -> None:
    """Point the scripts of a venv built at ``venv_tmp`` at ``final`` (shebangs, activate scripts)."""
    old, new = venv_tmp.encode(), final.encode()
    for sub in ("bin", "Scripts"):
        d = os.path.join(venv_tmp, sub)
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            p = os.path.join(d, name)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            try:
                with open(p, "rb") as fh:
                    data = fh.read(4 * 1024 * 1024)
                if old not in data or b"\0" in data[:1024]:
                    continue
                mode = os.stat(p).st_mode
                tmp = p + ".envcheck-tmp"
                with open(tmp, "wb") as fh:
                    fh.write(data.replace(old, new))
                os.chmod(tmp, mode)
                os.replace(tmp, p)
            except OSError:
                continue


def _recheck(venv_python: str, log: Callable[[str], None]) -> Dict[str, Any]:
    from envcheck.proc import popen_group, pump

    env = dict(os.environ, ENVCHECK_INTERPRETER=venv_python)
    argv = [sys.executable, "-m", "envcheck", "status", "--json", "--interpreter", venv_python]
    # on a stop, SIGTERM first: that envcheck then kills its own probe children (they have sessions of
    # their own, out of reach of a kill of its group)
    proc = popen_group(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env,
                       term_grace=1.0, die_with=signal.SIGTERM)
    out, err = bytearray(), bytearray()

    def keep(stream: str, chunk: bytes) -> bool:
        (out if stream == "stdout" else err).extend(chunk)
        return len(out) + len(err) < 64 * 1024 * 1024

    if pump(proc, 300, keep) == "timeout":
        raise ApplyError("the re-check (envcheck status) did not finish in 300 s")
    try:
        rep = json.loads(bytes(out).decode("utf-8", "replace"))
    except ValueError as exc:
        raise ApplyError("the re-check (envcheck status) printed no report: "
                         + bytes(err).decode("utf-8", "replace")[-500:]) from exc
    if not isinstance(rep, dict):
        raise ApplyError("the re-check (envcheck status) printed no report object")
    return rep


def _verify(plan: Plan, rep: Dict[str, Any]) -> List[str]:
    problems = []
    for f in rep.get("findings") or []:
        if f.get("severity") == "error":
            problems.append(f"{f.get('id')}: {f.get('message')}")
    fws = rep.get("frameworks") or {}
    for b in plan.builds:
        key = "tensorflow" if b.framework == "tensorflow" else b.framework
        got = (fws.get(key) or {}).get("version")
        if not got:
            problems.append(f"{b.framework} is not installed in the new venv")
        elif got.split("+", 1)[0] != b.version:
            problems.append(f"{b.framework} {got} was installed, the plan says {b.version}")
        elif b.framework == "torch" and b.variant and b.variant.startswith("cu") and "+" in got \
                and got.split("+", 1)[1] != b.variant:
            problems.append(f"torch {got} was installed, the plan says the {b.variant} build")
    return problems


def apply_plan(plan: Plan, venv: str, *, force: bool = False, use_uv: bool = False, find_links: Sequence[str] = (),
               index_url: Optional[str] = None, offline: bool = False, python: Optional[str] = None,
               log: Callable[[str], None] = lambda s: None, timeout: Optional[float] = None) -> ApplyResult:
    timeout = _install_timeout() if timeout is None else timeout
    final = os.path.abspath(os.path.expanduser(venv))
    if os.path.lexists(final):
        if not os.path.isfile(os.path.join(final, "pyvenv.cfg")):
            raise UsageError(f"{final} exists and is not a venv (no pyvenv.cfg); envcheck will not replace it")
        if not force:
            raise UsageError(f"{final} exists; use --force to replace it (it stays as it is if the build fails)")
    parent = os.path.dirname(final)
    os.makedirs(parent, exist_ok=True)
    uv = _find_uv() if use_uv else None
    if use_uv and not uv:
        raise UsageError("--uv: uv is not on PATH (nor installed as the `uv` Python package)")
    base_python = _python_for((plan.target.python if plan.target else None) if not python else python)
    from envcheck.proc import kill_children_on_signals

    kill_children_on_signals()  # SIGINT -> KeyboardInterrupt, SIGTERM/HUP/QUIT -> SystemExit: finally runs
    _recover(final, log)
    work = tempfile.mkdtemp(prefix=_work_prefix(final), dir=parent)
    lock_fd: Optional[int] = None
    tmp = os.path.join(work, "venv")
    try:
        lock_fd = _lock_marker(work, final)
        log(f"envcheck: building the venv in {tmp}")
        if uv:
            rc = _stream([uv, "venv", "--python", base_python, tmp], log, timeout)
        else:
            rc = _stream([base_python, "-m", "venv", tmp], log, timeout)
        if rc != 0:
            raise ApplyError(f"creating the venv failed (exit status {rc})")
        vpy = os.path.join(tmp, "bin", "python")
        if not os.path.exists(vpy):
            vpy = os.path.join(tmp, "Scripts", "python.exe")
        for args in _install_args(plan, list(find_links), index_url, offline):
            if uv:
                argv = [uv, "pip", "install", "--python", vpy] + args
            else:
                argv = [vpy, "-m", "pip", "install", "--disable-pip-version-check", "--no-input"] + args
            log("envcheck: " + " ".join(argv[:2] + ["..."] + args))
            rc = _stream(argv, log, timeout)
            if rc != 0:
                reqs = [a for i, a in enumerate(args) if not a.startswith("-")
                        and not (i and args[i - 1] in ("--find-links", "--index-url"))]
                raise ApplyError(f"installing {' '.join(reqs)} failed (pip exit status {rc}; its output is above)")
        log("envcheck: re-checking the new venv with envcheck status")
        rep = _recheck(vpy, log)
        problems = _verify(plan, rep)
        if problems:
            raise ApplyError("the re-check of the new venv failed: " + "; ".join(problems))
        _relocate(tmp, final)
        try:
            _swap(tmp, final, work)
        except OSError as exc:
            raise ApplyError(f"moving the venv into place failed: {exc}") from exc
        return ApplyResult(venv=final, report=rep)
    except (KeyboardInterrupt, SystemExit):
        log("envcheck: interrupted; removing the half-made venv")
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if lock_fd is not None:
            os.close(lock_fd)
