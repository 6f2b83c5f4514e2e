"""The CLI's fixed costs (issue 24): the paste readers' answers that depend on one line alone are remembered per line
(``readers/base.remembered`` and ``remember``: bounded), and ``engine.best_build`` evaluates its builds best first and
once per machine. Both must say exactly what the work they spare said."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any, Dict, List, Optional, Sequence

import pytest

from envcheck.paste.readers import base, bullets, key_value, log_facts, prose_gpu, smi_csv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join(ROOT, "tests", "data", "logs")
PASTES = os.path.join(ROOT, "tests", "data", "pastes", "dev")  # (real bug reports: collect_env, nvidia-smi, pip lists)


def _texts(folder: str, n: int) -> List[str]:
    names = sorted(f for f in os.listdir(folder) if f.endswith((".log", ".txt")))[:n]
    out = []
    for f in names:
        with open(os.path.join(folder, f), encoding="utf-8", errors="replace") as fh:
            out.append(fh.read())
    return out


def test_remembered_answers_as_the_function_does_and_each_call_gets_its_own_list(monkeypatch) -> None:
    calls: List[str] = []

    def names(line: str) -> List[str]:
        calls.append(line)
        return line.split()

    again = base.remembered(names)
    assert again("a b") == ["a", "b"] and again("a b") == ["a", "b"]
    assert calls == ["a b"]  # the second answer was remembered
    got = again("a b")
    got.append("changed")  # a caller changing its list changes no later answer
    assert again("a b") == ["a", "b"]
    # bounded: full, it forgets what it held, and answers the same when asked again
    monkeypatch.setattr(base, "REMEMBERED", 3)
    for line in ("c", "d", "e", "f", "a b"):
        assert again(line) == line.split()
    assert calls.count("a b") == 2
    # a line longer than MAXLINE is answered, never kept (a huge line costs no memory)
    huge = "x " * base.MAXLINE
    assert again(huge) == huge.split() and again(huge) == huge.split()
    assert calls.count(huge) == 2


def test_remember_keeps_at_most_its_bound_of_lines_of_at_most_maxline(monkeypatch) -> None:
    monkeypatch.setattr(base, "REMEMBERED", 4)
    seen: Dict[str, Any] = {}
    for i in range(50):
        assert base.remember(seen, f"line {i}", i) == i
        assert len(seen) <= 4
    assert base.remember(seen, "y" * (base.MAXLINE + 1), 1) == 1
    assert "y" * (base.MAXLINE + 1) not in seen


#: the readers' memories kept for the whole process (the others live for one text)
_MODULE_MEMORIES = (prose_gpu.gpu_models, prose_gpu.modern_gpu_models, prose_gpu.gpu_series, key_value._facts,
                    smi_csv._starts, bullets._facts)


def _forgetful(monkeypatch) -> None:
    """Every memory of the readers keeps nothing: each answer worked out anew (the path before they remembered)."""
    def keep_nothing(seen: Dict[str, Any], line: str, got: Any) -> Any:
        return got

    for mod in (base, log_facts, prose_gpu):
        monkeypatch.setattr(mod, "remember", keep_nothing)
    for memory in _MODULE_MEMORIES:
        memory.forget()  # type: ignore[attr-defined]


def _reports(texts: Sequence[str], reader: Optional[Any]) -> List[Any]:
    from envcheck.paste.sections import read_report

    out = []
    for t in texts:
        r = read_report(t, reader)
        out.append((r.captures, r.statuses, r.facts, r.formats, r.lines, r.notes))
    return out


def test_the_readers_say_the_same_remembering_or_not(monkeypatch) -> None:
    """Real logs and pastes (each, and a log of them back to back three times: lines met again), read with explain's
    reader of log lines: the same report with the memories as with none."""
    from envcheck.explain.kb import load_kb
    from envcheck.explain.logfacts import line_reader

    texts = _texts(LOGS, 30) + _texts(PASTES, 30)
    texts.append("\n".join(texts[:20]) * 3)
    kb = load_kb()
    remembering = _reports(texts, line_reader(kb))
    again = _reports(texts, line_reader(kb))  # (the module-level memories now hold these lines)
    _forgetful(monkeypatch)
    fresh = _reports(texts, line_reader(kb))
    assert remembering == again == fresh
    assert any(r[3] for r in fresh) and any(r[2] for r in fresh)  # (texts that hold reports and facts)


def test_a_bound_of_one_line_says_the_same(monkeypatch) -> None:
    """Memories that forget at each new line (their bound at its least): the same reports."""
    from envcheck.explain.kb import load_kb
    from envcheck.explain.logfacts import line_reader

    texts = _texts(PASTES, 15)
    texts.append("\n".join(texts) * 2)
    kb = load_kb()
    default = _reports(texts, line_reader(kb))
    monkeypatch.setattr(base, "REMEMBERED", 1)
    assert _reports(texts, line_reader(kb)) == default


def _best_by_every_build(matrix: Any, builds: Sequence[Any], m: Any, ignore: Sequence[str]) -> Optional[Any]:
    """best_build as it was: every build evaluated, the greatest key among those that pass (the first of equals)."""
    from envcheck.engine import evaluate
    from envcheck.engine.builds import version_key
    from envcheck.versions import cuda_tuple

    best = None
    for b in builds:
        if set(evaluate(matrix, b, m).failed) - set(ignore):
            continue
        key = (bool(b.index_url), version_key(b.version), tuple(-x for x in (cuda_tuple(b.cuda) or (0, 0))))
        if best is None or key > best[0]:
            best = (key, b)
    return best[1] if best else None


@pytest.mark.parametrize("facts", [
    {"cc": "8.0"}, {"cc": "8.0", "driver": "470.57.02"}, {"cc": "3.5", "driver": "535.54.03"},
    {"cc": "12.0", "driver": "570.124.06"}, {"cc": "6.1", "driver": "384.130"}, {"cc": "9.0", "driver": "525.60.13"},
])
def test_best_build_names_the_build_every_build_evaluated_named(facts, monkeypatch) -> None:
    import envcheck.engine as engine
    from envcheck.engine import best_build, machine_from_facts
    from envcheck.engine.builds import tensorflow_builds, torch_builds
    from envcheck.matrix import load_matrix

    matrix = load_matrix()
    m = machine_from_facts(facts, matrix)
    named = []
    for builds in (torch_builds(matrix), tensorflow_builds(matrix)):
        gpu = [b for b in builds if b.gpu and b.arch]
        for ignore in (("python",), ("python", "driver"), ("python", "driver", "cudnn", "platform", "libraries")):
            want = _best_by_every_build(matrix, gpu, m, ignore)
            assert best_build(matrix, gpu, m, ignore) is want
            named.append(want)
        # asked twice with the same memory of verdicts: no build is evaluated twice
        counted: List[Any] = []
        real = engine.evaluate

        def counting(matrix: Any, b: Any, mach: Any, *a: Any, counted: List[Any] = counted, real: Any = real) -> Any:
            counted.append(b)
            return real(matrix, b, mach, *a)

        monkeypatch.setattr(engine, "evaluate", counting)
        verdicts: Dict[int, Any] = {}
        first = best_build(matrix, gpu, m, ("python",), verdicts)
        second = best_build(matrix, gpu, m, ("python", "driver", "cudnn", "platform", "libraries"), verdicts)
        monkeypatch.setattr(engine, "evaluate", real)
        assert len(counted) == len({id(b) for b in counted}) <= len(gpu)
        assert first is _best_by_every_build(matrix, gpu, m, ("python",))
        assert second is _best_by_every_build(matrix, gpu, m, ("python", "driver", "cudnn", "platform", "libraries"))
    assert any(b is not None for b in named)


def test_explain_instructions_child_runs_the_document_path(tmp_path) -> None:
    """benchmarks/explain_instructions.py's child (without valgrind): explain_stream's calls, and with ``document`` the
    CLI's path (explain_document), on a small real log."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("explain_instructions_under_test",
                                                  os.path.join(ROOT, "benchmarks", "explain_instructions.py"))
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    child = tmp_path / "child.py"
    child.write_text(mod.CHILD + "\nprint('calls done')\n", encoding="utf-8")
    log = os.path.join(LOGS, sorted(f for f in os.listdir(LOGS) if f.endswith(".log"))[0])
    for extra in ([], ["document"], ["no-gc", "document"]):
        r = subprocess.run([sys.executable, str(child), ROOT, log, "1", *extra], capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        assert "calls done" in r.stdout
    bad = subprocess.run([sys.executable, str(child), ROOT, str(tmp_path / "missing.log"), "1", "document"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0  # (the child does fail where it cannot read: the counts above are of real calls)
