"""``envcheck fix --apply``: build the planned venv beside its final place, install the plan, re-check it
with ``envcheck status``, and only then move it into place.

Guarantees:
* the previous venv at the target path is untouched until the new one has passed the re-check, and
  is restored if the final swap fails;
* any failure or Ctrl-C (SIGINT/SIGTERM) removes the half-made venv and leaves nothing behind;
* every subprocess runs in its own process group with a time limit, its output streamed live.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

from envcheck.errors import ApplyError, UsageError
from envcheck.plan.output import requirement_line
from envcheck.plan.resolve import Plan

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
    report: Dict


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
    is killed on timeout, and on an interrupt (the caller's KeyboardInterrupt)."""
    from envcheck.proc import pump

    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True, env=env)
    partial = {"stdout": b"", "stderr": b""}

    def on_chunk(stream: str, chunk: bytes) -> bool:
        buf = partial[stream] + chunk
        *lines, partial[stream] = buf.split(b"\n")
        for raw in lines:
            log("  | " + raw.decode("utf-8", "replace").rstrip("\r"))
        return True

    try:
        outcome = pump(proc, timeout, on_chunk)
    except BaseException:  # Ctrl-C / SIGTERM while waiting: take the child down with us
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        raise
    for rest in partial.values():
        if rest.strip():
            log("  | " + rest.decode("utf-8", "replace").rstrip())
    if outcome == "timeout":
        raise ApplyError(f"{os.path.basename(argv[0])} ran longer than {int(timeout)} s and was stopped")
    return proc.returncode


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


def _recheck(venv_python: str, log: Callable[[str], None]) -> Dict:
    env = dict(os.environ, ENVCHECK_INTERPRETER=venv_python)
    argv = [sys.executable, "-m", "envcheck", "status", "--json", "--interpreter", venv_python]
    try:
        cp = subprocess.run(argv, capture_output=True, timeout=300, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise ApplyError("the re-check (envcheck status) did not finish in 300 s") from exc
    try:
        rep = json.loads(cp.stdout.decode("utf-8", "replace"))
    except ValueError as exc:
        raise ApplyError("the re-check (envcheck status) printed no report: "
                         + cp.stderr.decode("utf-8", "replace")[-500:]) from exc
    return rep


def _verify(plan: Plan, rep: Dict) -> List[str]:
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


def apply_plan(plan: Plan, venv: str, *, force: bool = False, use_uv: bool = False, find_links: List[str] = (),
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
    work = tempfile.mkdtemp(prefix="." + os.path.basename(final) + ".envcheck-", dir=parent)
    tmp = os.path.join(work, "venv")
    backup = None
    old_handler = None

    def _on_term(signum, frame):  # SIGTERM: the same clean-up path as Ctrl-C
        raise KeyboardInterrupt

    try:
        try:
            old_handler = signal.signal(signal.SIGTERM, _on_term)
        except ValueError:  # not the main thread
            old_handler = None
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
        # swap: old -> backup, new -> final; restore on failure
        _relocate(tmp, final)
        if os.path.lexists(final):
            backup = os.path.join(work, "previous")
            os.rename(final, backup)
        try:
            os.rename(tmp, final)
        except OSError as exc:
            if backup:
                os.rename(backup, final)
                backup = None
            raise ApplyError(f"moving the venv into place failed: {exc}") from exc
        return ApplyResult(venv=final, report=rep)
    except KeyboardInterrupt:
        log("envcheck: interrupted; removing the half-made venv")
        raise
    finally:
        if old_handler is not None:
            try:
                signal.signal(signal.SIGTERM, old_handler)
            except ValueError:
                pass
        shutil.rmtree(work, ignore_errors=True)
