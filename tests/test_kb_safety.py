"""Regex safety of the error knowledge base: the static check (kept for the fallback engine; RE2 needs
none, see test_matcher.py), the bundled errors.toml under it, and the time budget of `envcheck run`'s
diagnosis. No timing assertions: a hang is caught by the subprocess timeouts."""

import os
import subprocess
import sys

import pytest

from envcheck.explain.kb import kb_patterns, validate_kb
from envcheck.explain.regex_safety import static_problems
from envcheck.matrix import bundled_dir

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the signature shipped before the fix: 70-93 s on one 16 KB line (issue 10 item 3)
OLD_BATCHNORM = (r"(?:batch ?norm\w*|BatchNormalization\w*)[^\n]{0,200}?CUDNN_STATUS_BAD_PARAM"
                 r"|CUDNN_STATUS_BAD_PARAM[^\n]{0,200}?(?:cudnnBatchNorm\w*|batch ?norm)")
# the regex of the tampered bundle of issue 10 item 2
TAMPERED = r"CUDNN_STATUS_BAD_PARAM(?:a|a)*$"

BAD = [OLD_BATCHNORM, TAMPERED, r"(a|a)*$", r"(?:a|aa)*c", r"(a+)+b", r"(\w+\s?)+$", r".*\s*.*x",
       r"x\w*[^\n]{0,200}?y", r"(.*?,)*x", r"error:\s*\s*$"]
GOOD = [r"(\d+\.)+x", r"(?:a|ab)*c", r"([^,]*,)*x", r"foo[^\n]{0,200}?bar", r"\w+\s+\w+",
        r"lib[\w+-]{1,80}\.so(?:\.\w{1,10}){0,4}", r"a{1,3}b{2,5}", r"CUDNN_STATUS_BAD_PARAM\w*"]


def bundled_kb():
    with open(os.path.join(bundled_dir(), "errors.toml"), "rb") as fh:
        return tomllib.load(fh)


@pytest.mark.parametrize("pattern", BAD)
def test_static_check_flags_backtracking_shapes(pattern):
    assert static_problems(pattern), pattern


@pytest.mark.parametrize("pattern", GOOD)
def test_static_check_passes_linear_shapes(pattern):
    assert static_problems(pattern) == [], pattern


def test_bundled_knowledge_base_passes_static_check():
    data = bundled_kb()
    assert validate_kb(data) == []
    pats = kb_patterns(data)
    assert len(pats) > 50
    for p, flags, _, where in pats:
        assert static_problems(p, flags) == [], where


def test_validate_kb_refuses_a_catastrophic_signature():
    data = bundled_kb()
    data["cause"][0]["signature"][0]["regex"] = TAMPERED
    problems = validate_kb(data)
    assert any("catastrophic backtracking" in p for p in problems)


def test_validate_kb_refuses_a_look_around_signature():
    data = bundled_kb()
    data["cause"][0]["signature"][0]["regex"] = r"(?<!create )CUDNN_STATUS_BAD_PARAM"
    problems = validate_kb(data)
    assert any("look-arounds" in p for p in problems), problems


def test_explain_on_the_reported_16kb_line_is_fast(tmp_path):
    log = tmp_path / "l.log"
    log.write_text("bad_param " + "batchnorm" * 1777 + "\n")
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", str(log), "--no-detect"], cwd=ROOT,
                       capture_output=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr


def test_batchnorm_signature_still_recognises_real_errors():
    from envcheck.explain import explain_text

    # verbatim from https://github.com/Theano/Theano/issues/4784 (the signature's source)
    line = "RuntimeError: GpuDnnBatchNorm: CUDNN_STATUS_BAD_PARAM"
    got = explain_text(line)
    assert got and got[0].id == "cudnn-bad-param"


def test_run_diagnosis_has_a_time_budget(monkeypatch):
    import itertools
    import time

    from envcheck.cli.run import _diagnose

    # a clock that moves 1 ms at each reading, so the budget runs out after a few hundred lines whatever the
    # machine's load (a wall clock made this test depend on the scheduler)
    ticks = itertools.count()
    monkeypatch.setattr(time, "monotonic", lambda: next(ticks) / 1000.0)
    tail = "\n".join(f"RuntimeError: CUDNN_STATUS_BAD_PARAM at step {i}" for i in range(300000))
    matches, why = _diagnose(tail, budget=0.2)
    assert why and "diagnosis stopped after 0.2 s" in why and "of 300000 lines" in why
    # what was read before the budget ran out is still reported
    assert [m.id for m in matches] == ["cudnn-bad-param"]


def test_run_with_adversarial_lines_exits_promptly(tmp_path):
    code = ("import sys\nfor _ in range(4):\n    sys.stderr.write('bad_param ' + 'batchnorm' * 1777 + '\\n')\n"
            "sys.exit(3)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update(PYTHONPATH=ROOT, NO_COLOR="1", ENVCHECK_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-m", "envcheck", "run", "--mode", "off", "--", sys.executable, "-c", code],
                       env=env, capture_output=True, timeout=120)
    assert r.returncode == 3, r.stderr[-2000:]
