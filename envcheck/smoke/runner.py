"""Run the smoke child of one framework and turn its event stream into a result.

The child (``_child.py``) runs as ``sys.executable _child.py FRAMEWORK --device D`` in its own
process group (``start_new_session``) with a deadline; on timeout the whole group is killed. A
segfault, an abort or a hang of the framework ends only the child: the steps it reported before
stay, and the step it was in is reported as failed with the signal's name and the tail of the
child's stderr. Each failed step's error is passed through ``envcheck.explain`` when that module
is importable.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

__all__ = ["FRAMEWORKS", "SCHEMA", "NO_GPU", "DEFAULT_TIMEOUT", "installed_frameworks", "run_framework",
           "run_smoke", "diagnose"]

SCHEMA = "envcheck/smoke/1"
FRAMEWORKS = ("torch", "tensorflow", "jax")
NO_GPU = "no GPU: ran on CPU; this verifies the framework imports and computes, not the CUDA stack"
DEFAULT_TIMEOUT = 180.0
CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_child.py")
STDERR_KEEP = 64 * 1024  # bytes of the child's stderr kept (the tail)
STDOUT_MAX = 4 * 1024 * 1024
TAIL_LINES = 25


def installed_frameworks(python: Optional[str] = None) -> List[str]:
    """The frameworks importable by this interpreter, or by ``python`` (found on its sys.path with
    ``importlib.util.find_spec``; none is imported)."""
    if python:
        from envcheck.proc import run_command

        code = ("import importlib.util as u, json\n"
                f"print(json.dumps([n for n in {list(FRAMEWORKS)!r} if u.find_spec(n) is not None]))")
        cap = run_command([python, "-c", code], timeout=30)
        try:
            names = json.loads((cap.text or "").strip().splitlines()[-1]) if cap.ok else []
        except (ValueError, IndexError):
            names = []
        return [n for n in FRAMEWORKS if n in names]
    out = []
    for name in FRAMEWORKS:
        try:
            if importlib.util.find_spec(name) is not None:
                out.append(name)
        except (ImportError, ValueError):
            continue
    return out


def _signal_name(rc: int) -> str:
    try:
        sig = signal.Signals(-rc)
    except ValueError:
        return f"signal {-rc}"
    desc = signal.strsignal(sig) if hasattr(signal, "strsignal") else None
    return f"{sig.name} ({desc})" if desc else sig.name


def _tail(text: str, lines: int = TAIL_LINES) -> str:
    parts = text.rstrip().splitlines()
    return "\n".join(parts[-lines:])


def _read_child(proc: "subprocess.Popen[bytes]", timeout: float,
                on_event: Callable[[Dict[str, Any]], None]) -> Dict[str, Any]:
    """Stream the child's stdout events to ``on_event`` until it exits or the deadline passes."""
    from envcheck.proc import pump

    state: Dict[str, Any] = {"out": b"", "total": 0}
    err = bytearray()

    def on_chunk(stream: str, chunk: bytes) -> bool:
        if stream == "stderr":
            err.extend(chunk)
            if len(err) > STDERR_KEEP:
                del err[:len(err) - STDERR_KEEP]
            return True
        state["total"] += len(chunk)
        if state["total"] > STDOUT_MAX:  # a babbling child: stop listening, kill it
            return False
        buf = state["out"] + chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            _parse_line(line, on_event)
        state["out"] = buf
        return True

    outcome = pump(proc, timeout, on_chunk)
    if state["out"].strip():
        _parse_line(state["out"], on_event)
    return {"timed_out": outcome != "done", "returncode": proc.returncode,
            "stderr": bytes(err).decode("utf-8", errors="replace")}


def _parse_line(line: bytes, on_event: Callable[[Dict[str, Any]], None]) -> None:
    try:
        ev = json.loads(line.decode("utf-8", errors="replace"))
    except ValueError:
        return
    if isinstance(ev, dict) and isinstance(ev.get("event"), str):
        on_event(ev)


def native_floor_args() -> Tuple[List[str], Optional[str]]:
    """``--native-floor DTYPE=X.Y`` for each 16-bit float type whose native arithmetic floor the matrix records
    (cuda.toml ``[[native_dtype]]``): the child gates its fp16 / bf16 steps on them. Where the matrix cannot be read:
    no arguments (the steps run ungated) and the note that says so."""
    from envcheck.errors import EnvcheckError

    try:
        from envcheck.engine.rules import native_dtype_floors
        from envcheck.matrix import load_matrix

        floors = native_dtype_floors(load_matrix())
    except (EnvcheckError, OSError, ValueError) as exc:
        return [], f"fp16 / bf16 not gated by the GPU: the compatibility matrix could not be read ({exc})"
    return [a for dtype, cc in sorted(floors.items()) for a in ("--native-floor", f"{dtype}={cc}")], None


def run_framework(name: str, *, timeout: float = DEFAULT_TIMEOUT, device: str = "auto",
                  python: Optional[str] = None, env: Optional[Mapping[str, str]] = None,
                  on_step: Optional[Callable[[str, str], None]] = None) -> Dict[str, Any]:
    """Smoke-test one framework in a child process; never raises for what the child does.

    ``on_step(framework, step)`` is called as each step starts (the CLI's progress line)."""
    result: Dict[str, Any] = {"name": name, "version": None, "device": None, "gpus": [], "steps": [],
                              "passed": False, "notes": [], "crashed": None, "timed_out": False,
                              "exit_status": None}
    started: Dict[str, Any] = {}
    done = {"seen": False}

    def on_event(ev: Dict[str, Any]) -> None:
        kind = ev["event"]
        if kind == "start":
            started["name"] = str(ev.get("step"))
            started["t0"] = time.monotonic()
            if on_step is not None:
                on_step(name, started["name"])
        elif kind == "step":
            result["steps"].append({"name": str(ev.get("name")), "passed": bool(ev.get("passed")),
                                    "seconds": ev.get("seconds"), "error": ev.get("error"),
                                    "detail": ev.get("detail")})
            started.clear()
        elif kind == "info":
            for key in ("version", "device", "compute_capability", "backend", "gfx"):
                if key in ev:
                    result[key] = ev[key]
            if isinstance(ev.get("gpus"), list):
                result["gpus"] = [str(g) for g in ev["gpus"]]
            if ev.get("note") and ev["note"] not in result["notes"]:
                result["notes"].append(str(ev["note"]))
        elif kind == "done":
            done["seen"] = True

    if name != "torch" and device in ("xpu", "mps"):  # only torch has those devices (contract §9)
        result["notes"].append(f"--device {device} applies to torch only; {name} ran with --device auto")
        device = "auto"
    child_env = dict(os.environ if env is None else env)
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    floor_args, floor_note = native_floor_args()
    if floor_note:
        result["notes"].append(floor_note)
    argv = [python or sys.executable, CHILD, name, "--device", device] + floor_args
    from envcheck.proc import kill_children_on_signals, popen_group

    kill_children_on_signals()  # a stop signal to envcheck kills the child's whole group too
    try:
        proc = popen_group(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=child_env, close_fds=True)
    except OSError as exc:
        result["steps"].append({"name": "child", "passed": False, "seconds": 0.0, "detail": None,
                                "error": f"cannot start {argv[0]}: {exc.strerror or exc}"})
        return _finish(result, machine_facts)
    t_start = time.monotonic()
    outcome = _read_child(proc, timeout, on_event)
    rc = outcome["returncode"]
    result["exit_status"] = rc
    tail = _tail(outcome["stderr"])
    why: Optional[str] = None
    if outcome["timed_out"]:
        result["timed_out"] = True
        why = f"no answer within {timeout:g} s: the child process was killed (the step hung)"
    elif rc is not None and rc < 0:
        result["crashed"] = _signal_name(rc).split(" ")[0]
        why = f"the child process was killed by signal {_signal_name(rc)}"
    elif not done["seen"]:
        why = f"the child process exited with status {rc} before finishing"
    if why is not None:
        step_name = started.get("name") or "child"
        secs = round(time.monotonic() - started.get("t0", t_start), 4)
        where = f" during step '{step_name}'" if started.get("name") else ""
        error = why + where
        if tail:
            error += "\nstderr (last lines):\n" + tail
        result["steps"].append({"name": step_name, "passed": False, "seconds": secs, "error": error,
                                "detail": None})
    elif rc not in (0, None):
        result["notes"].append(f"the child process exited with status {rc}")
    return _finish(result, machine_facts)


def _finish(result: Dict[str, Any], machine: Optional[Callable[[], Tuple[Any, Any]]] = None) -> Dict[str, Any]:
    result["passed"] = bool(result["steps"]) and all(s["passed"] for s in result["steps"])
    for step in result["steps"]:
        if not step["passed"] and step.get("error"):
            env, matrix = machine() if machine else (None, None)
            if machine and env is None and _MACHINE_ERROR and _MACHINE_ERROR[0] not in result["notes"]:
                result["notes"].append(_MACHINE_ERROR[0])
            step["diagnosis"] = diagnose(step["error"], env, matrix, result["notes"])
        else:
            step["diagnosis"] = []
    if result["device"] == "cpu" and NO_GPU not in result["notes"] and not any(
            n.startswith("--device cpu") for n in result["notes"]):
        result["notes"].insert(0, NO_GPU)
    return result


def machine_facts() -> Tuple[Any, Any]:
    """(Environment, Matrix) of this machine, read once, for diagnoses whose fixes name the build that runs
    here (explain's fixes ask the same engine as ``fix``); (None, None) when detection fails."""
    if not _MACHINE:
        try:
            from envcheck.environment import collect
            from envcheck.matrix import load_matrix
            from envcheck.probe.live import LiveSource

            m = load_matrix()
            _MACHINE.append((collect(LiveSource(), m), m))
        except Exception as exc:  # noqa: BLE001 - without facts the diagnosis is generic, not absent: noted
            _MACHINE.append((None, None))
            _MACHINE_ERROR.append(f"this machine's facts could not be read for the diagnosis: "
                                  f"{type(exc).__name__}: {exc}")
    return _MACHINE[0]


_MACHINE: List[Tuple[Any, Any]] = []
_MACHINE_ERROR: List[str] = []


def diagnose(text: str, env: Any = None, matrix: Any = None,
             notes: Optional[List[str]] = None) -> List[Dict[str, Any]]:
    """``envcheck.explain`` matches of an error text (as dicts), with this machine's facts when given;
    [] when explain is unavailable. A failure of explain itself is said in ``notes``."""
    try:
        from envcheck.explain import explain_text
    except ImportError:  # a trimmed install without explain: no diagnosis then
        return []
    try:
        return [m.to_dict() for m in explain_text(text, env=env, matrix=matrix)]
    except Exception as exc:  # noqa: BLE001 - a bug in explain must not break the smoke report: noted
        if notes is not None:
            notes.append(f"the diagnosis failed: {type(exc).__name__}: {exc}")
        return []


def run_smoke(frameworks: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, device: str = "auto",
              python: Optional[str] = None, env: Optional[Mapping[str, str]] = None,
              on_step: Optional[Callable[[str, str], None]] = None) -> Dict[str, Any]:
    """The ``envcheck/smoke/1`` document for ``frameworks`` (run one after the other)."""
    results = [run_framework(fw, timeout=timeout, device=device, python=python, env=env, on_step=on_step)
               for fw in frameworks]
    return {"schema": SCHEMA, "device_requested": device, "timeout_s": timeout, "frameworks": results,
            "ok": bool(results) and all(r["passed"] for r in results)}
