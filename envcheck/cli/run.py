"""``envcheck run -- CMD...``: check, run the job with live output, explain its failure."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

import click

from envcheck import exit_codes
from envcheck.cli._common import color_enabled, interpreter_option, open_source, styler

MODES = ("warn", "block", "off")


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _timeout() -> float:
    try:
        v = float(os.environ.get("ENVCHECK_TIMEOUT", "60"))
        return v if v > 0 else 60.0
    except ValueError:
        return 60.0


def _check(snapshot: Optional[str], require_gpu: bool, interpreter: Optional[str]) -> Dict[str, Any]:
    """The status report (contract §2) of this machine or ``snapshot``, plus the environment and
    matrix under the private keys ``_env`` / ``_matrix`` (for the diagnosis; never written out)."""
    from envcheck.checks.pipeline import build_status

    result = build_status(open_source(snapshot, interpreter=interpreter), require_gpu=require_gpu)
    rep = dict(result.document)
    rep["_env"], rep["_matrix"] = result.env, result.matrix
    return rep


def _check_with_timeout(snapshot: Optional[str], require_gpu: bool, interpreter: Optional[str],
                        timeout: float) -> Tuple[Optional[Dict[str, Any]], Optional[str]]:
    """(report, None) or (None, why envcheck could not answer). Never raises."""
    box: Dict[str, Any] = {}

    def work() -> None:
        try:
            box["report"] = _check(snapshot, require_gpu, interpreter)
        except Exception as exc:  # noqa: BLE001 - envcheck's own failure must not stop the job
            box["error"] = f"{type(exc).__name__}: {exc}"

    t = threading.Thread(target=work, name="envcheck-check", daemon=True)
    t.start()
    deadline = time.monotonic() + timeout
    while t.is_alive() and time.monotonic() < deadline:
        # in slices: Python runs signal handlers in the main thread only, and a signal the kernel
        # delivered to a worker thread would wait for the end of one long join
        t.join(min(0.1, max(0.0, deadline - time.monotonic())))
    if t.is_alive():
        return None, f"the check gave no answer within {timeout:g} s (ENVCHECK_TIMEOUT)"
    if "error" in box:
        return None, f"the check failed: {box['error']}"
    return box.get("report"), None


#: seconds explain may spend on a failed job's output before the job's exit status is returned
DIAGNOSE_BUDGET = 10.0


def _diagnose(tail: str, env: Any = None, matrix: Any = None,
              budget: float = DIAGNOSE_BUDGET) -> Tuple[List[Any], Optional[str]]:
    """explain's matches for ``tail`` (using the checked machine's facts when there are some);
    ([], why) when explain is unavailable or fails. Lines are handed over only while ``budget``
    seconds have not passed, so a pathological log delays the job's exit by that much at most."""
    if not tail.strip():
        return [], None
    try:
        from envcheck.explain import explain_lines
    except ImportError:
        return [], "envcheck explain is not available in this version"
    import time

    try:  # the knowledge base loads before the clock starts: the budget is for the lines
        from envcheck.explain.kb import load_kb

        load_kb(matrix)
    except Exception:  # noqa: BLE001 - explain_lines reports a broken knowledge base itself
        pass
    deadline = time.monotonic() + budget
    lines = tail.splitlines()
    state = {"read": 0}

    def feed() -> Any:
        for line in lines:
            if time.monotonic() > deadline:
                return
            state["read"] += 1
            yield line

    try:
        matches = list(explain_lines(feed(), env=env, matrix=matrix))
    except Exception as exc:  # noqa: BLE001 - a diagnosis bug must not hide the job's own failure
        return [], f"explain failed: {type(exc).__name__}: {exc}"
    if state["read"] < len(lines):
        return matches, (f"diagnosis stopped after {budget:g} s: {state['read']} of {len(lines)} lines of the "
                         "output were read")
    return matches, None


def _render_diagnosis(rc: int, sig: Optional[int], matches: List[Any], why: Optional[str], st,
                      silent: bool = False) -> str:
    from envcheck.render import clean_text as c  # log lines are untrusted: no control sequences

    head = f"exit status {rc}" + (f" (killed by signal {sig})" if sig else "")
    lines = ["", st(f"envcheck run: the command failed ({head}).", "bold")]
    if why:
        lines.append(f"  (no diagnosis: {c(why)})")
    elif silent:  # nothing was read: "not recognised in its error output" would suggest there was some
        lines.append("  It wrote nothing to its error output (stderr): there was no error text to diagnose")
        lines.append("  (`envcheck status` checks the installation).")
    elif not matches:  # unknown is a verdict: say what was read and found nothing, never stay silent
        lines.append("  No known CUDA / cuDNN / driver failure was recognised in the end of its error output;")
        lines.append("  the cause is outside what envcheck knows, or on its standard output, which is not read")
        lines.append("  (`envcheck status` checks the installation).")
    for m in matches:
        lines.append(st(f"  [{getattr(m, 'id', '?')}] {getattr(m, 'title', '')}", "error"))
        evidence = getattr(m, "evidence", None)
        if evidence:
            lines.append(f"      evidence: {c(str(evidence).strip()[:300])}")
        for fix in list(getattr(m, "fixes", None) or []):
            lines.append(f"      fix: {c(fix)}")
        for dead in list(getattr(m, "dead_ends", None) or []):
            lines.append(st(f"      does not help: {c(dead)}", "dim"))
    return "\n".join(lines) + "\n"


#: the signals a user or a scheduler ends a job with (Ctrl-C, SIGTERM, a closed terminal's SIGHUP)
_STOPS = tuple(int(getattr(signal, n)) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


def _say(msg: str) -> None:
    from envcheck.render import clean_text

    click.echo(f"envcheck run: {clean_text(msg)}", err=True)


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--mode", type=click.Choice(MODES), default=None,
              help="warn: report problems and run anyway (default); block: an error finding stops before the "
                   "command with exit status 3; off: no check [env: ENVCHECK_MODE].")
@click.option("--strict", is_flag=True, default=None, help="Warnings count as problems too [env: ENVCHECK_STRICT=1].")
@click.option("--require-gpu", is_flag=True, default=None,
              help="A missing driver or GPU is an error [env: ENVCHECK_REQUIRE_GPU=1].")
@click.option("--report", "report_path", metavar="PATH", default=None,
              help="Write the JSON status report to PATH [env: ENVCHECK_REPORT].")
@click.option("--snapshot", "snapshot_path", metavar="DIR|FILE.tar.gz", default=None,
              help="Check a snapshot instead of this machine [env: ENVCHECK_SNAPSHOT].")
@click.option("--fail-closed", is_flag=True, default=None,
              help="In block mode, also stop when envcheck itself cannot answer [env: ENVCHECK_FAIL_CLOSED=1].")
@click.option("--no-explain", is_flag=True, help="Do not diagnose the command's failure.")
@click.option("--json-diagnosis", "diag_path", metavar="PATH", default=None,
              help="Also write the diagnosis of a failure as JSON (envcheck/explain/1) to PATH.")
@interpreter_option
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run(mode: Optional[str], strict: Optional[bool], require_gpu: Optional[bool], report_path: Optional[str],
        snapshot_path: Optional[str], fail_closed: Optional[bool], no_explain: bool, diag_path: Optional[str],
        interpreter: Optional[str], command: Tuple[str, ...]) -> int:
    """Check the environment, run COMMAND with its output passed through live, and explain its failure.

    The check works like the container entrypoint (same ENVCHECK_* variables). COMMAND's stdout is
    its own; its stderr is passed through as it comes while envcheck keeps the last 64 KiB, and
    when COMMAND fails, `envcheck explain` reads that tail and the diagnosis follows on stderr.
    COMMAND runs in its own process group (in the terminal's foreground when envcheck was), and
    SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to envcheck are forwarded to it once,
    whether they were sent to envcheck alone or to its whole process group. The exit status is
    COMMAND's (128+N when signal N killed it), 3 when block mode stopped it, 127 when it is not
    found, 2 for a usage error (an unknown ENVCHECK_MODE included).

    Example:

        envcheck run -- python train.py --epochs 10
        envcheck run --mode block --report /tmp/envcheck.json -- torchrun train.py
    """
    from envcheck.jobs import run_job
    from envcheck.proc import kill_children_on_signals

    # SIGTERM/SIGINT/SIGHUP/SIGQUIT during the check kill its probe children's groups (they run in
    # worker threads, in their own sessions); during the job, run_job forwards signals instead
    kill_children_on_signals()
    argv = list(command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise click.UsageError("no command given: envcheck run [OPTIONS] -- CMD [ARGS...]")
    mode = mode or os.environ.get("ENVCHECK_MODE", "warn") or "warn"
    if mode not in MODES:  # fail closed: a typo of "block" must not run the job unchecked
        raise click.UsageError(f"unknown ENVCHECK_MODE={mode!r} (warn|block|off); not starting the command")
    strict = bool(strict) or _env_flag("ENVCHECK_STRICT")
    require_gpu = bool(require_gpu) or _env_flag("ENVCHECK_REQUIRE_GPU")
    fail_closed = bool(fail_closed) or _env_flag("ENVCHECK_FAIL_CLOSED")
    report_path = report_path or os.environ.get("ENVCHECK_REPORT") or None
    snapshot_path = snapshot_path or os.environ.get("ENVCHECK_SNAPSHOT") or None

    env = matrix = None
    if mode != "off":
        rep, why = _check_with_timeout(snapshot_path, require_gpu, interpreter, _timeout())
        if rep is not None:
            env, matrix = rep.pop("_env", None), rep.pop("_matrix", None)
        if rep is None:
            if mode == "block" and fail_closed:
                _say(f"{why}; not starting the command (block mode, fail-closed)")
                return exit_codes.BLOCKED
            _say(f"{why}; running the command unchecked")
        else:
            if report_path:
                from envcheck.cli._common import write_json_doc
                from envcheck.errors import EnvcheckError

                try:
                    write_json_doc(report_path, rep, "envcheck/report/")
                except EnvcheckError as exc:
                    _say(f"warning: {exc}")
            warnings = [f for f in rep["findings"] if f["severity"] == "warning"]
            failed = (not rep["ok"]) or (strict and bool(warnings))
            if failed:
                from envcheck.cli._common import emit

                # on stderr: the job's stdout stays the job's
                emit(rep, False, False, "envcheck.render.text", "render_text", err=True)
                if mode == "block":
                    _say("the environment check failed (report above); not starting the command (block mode)")
                    return exit_codes.BLOCKED
                _say("the environment check found problems (report above); running the command anyway")

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # an output that cannot be written is no reason not to run the job
            pass
    result = run_job(argv)
    if result.error:
        _say(result.error)
        return result.returncode
    if result.returncode != 0 and not no_explain:
        matches, why = _diagnose(result.tail, env, matrix)
        # a job stopped by the user (Ctrl-C, a scheduler's SIGTERM / SIGHUP) with nothing known in its output ended
        # as asked: no "failed" verdict under it
        stopped = result.signal in _STOPS and not matches and not why
        if not stopped:
            click.echo(_render_diagnosis(result.returncode, result.signal, matches, why,
                                        styler(color_enabled(sys.stderr)), silent=not result.tail.strip()),
                       nl=False, err=True)
        if diag_path and not why:  # an empty list is the diagnosis "nothing known recognised"
            from envcheck.cli._common import write_json_doc

            doc = {"schema": "envcheck/explain/1", "matches": [m.to_dict() for m in matches]}
            try:
                write_json_doc(diag_path, doc, "envcheck/explain/")
            except Exception as exc:  # noqa: BLE001
                _say(f"warning: cannot write {diag_path}: {exc}")
    return result.returncode
