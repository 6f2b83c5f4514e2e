"""The timed regex check of a bundle's ``errors.toml`` (``matrix update``), in a child that dies with envcheck.

:func:`envcheck.explain.regex_safety.timed_problems` runs the patterns in a child process of its own.
Killed in the middle (``kill`` or ``kill -9`` of ``envcheck matrix update``), envcheck would leave that
child running at 100% CPU on a catastrophic pattern. So ``matrix update`` runs the check here, one level
down, in a supervisor of its own process group (``python -m envcheck.explain.kbcheck``):

* the supervisor gets SIGTERM when envcheck dies, whatever killed it (``PR_SET_PDEATHSIG``, Linux), and
  envcheck's own stop handler kills its group on SIGINT / SIGTERM / SIGHUP / SIGQUIT;
* on SIGTERM, SIGHUP or SIGINT the supervisor kills its whole process group, which holds the checking
  child (it is started in the supervisor's group), then itself.

The check itself is unchanged: the same function, the same verdicts.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import List, Sequence, Tuple

__all__ = ["timed_in_child"]


def timed_in_child(patterns: Sequence[Tuple[str, int, Sequence[str]]], total: float) -> List[Tuple[int, str]]:
    """``timed_problems(patterns, total=total)`` run by a supervisor child that never outlives envcheck."""
    from envcheck.proc import kill_children_on_signals, popen_group, reap

    kill_children_on_signals()  # main thread only; elsewhere the supervisor still dies with us (pdeathsig)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    pkg_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
    proc = popen_group([sys.executable, "-m", "envcheck.explain.kbcheck"], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, die_with=signal.SIGTERM)
    payload = json.dumps({"patterns": [[p, int(f), list(e)] for p, f, e in patterns], "total": total}).encode()
    try:
        out, _ = proc.communicate(payload, timeout=total + 60)
    except subprocess.TimeoutExpired:
        out = b""
    finally:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
        reap(proc, timeout=10)
    try:
        got = json.loads(out.decode("utf-8") or "null")
    except ValueError:
        got = None
    if not isinstance(got, list):
        return [(i, "the timed check could not run it") for i in range(len(patterns))]
    return [(int(i), str(why)) for i, why in got]


def _stop(signum: int, frame: object) -> None:  # pragma: no cover - runs in the supervisor
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.killpg(0, signal.SIGKILL)  # the checking child and this supervisor: one group


def _main() -> int:  # pragma: no cover - run as a child by timed_in_child
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, _stop)
    from envcheck.explain.regex_safety import timed_problems

    todo = json.load(sys.stdin)
    problems = timed_problems([(p, f, e) for p, f, e in todo["patterns"]], total=float(todo["total"]))
    print(json.dumps(problems), flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_main())
