"""The knowledge base's verdict cache (issue 24): a knowledge base found valid once is not validated again by the
same code, any change of it is, a broken one is never remembered as valid, and a folder another user could write
to is not believed."""

from __future__ import annotations

import copy
import os

import pytest

from envcheck.explain import kb as K
from envcheck.matrix import load_matrix


@pytest.fixture()
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    return load_matrix().table("errors")


def _counting(monkeypatch):
    calls = []
    real = K.validate_kb

    def counted(d, compile_check=True):
        calls.append(compile_check)
        return real(d, compile_check)

    monkeypatch.setattr(K, "validate_kb", counted)
    return calls


def test_a_valid_kb_is_validated_once(data, monkeypatch, tmp_path):
    calls = _counting(monkeypatch)
    assert K.checked_kb_problems(data) == []
    assert calls == [False]
    assert len(os.listdir(tmp_path / "cache" / "kb")) == 1
    assert K.checked_kb_problems(copy.deepcopy(data)) == []  # an equal copy: the same key
    assert calls == [False]


def test_load_kb_uses_the_verdict(data, monkeypatch):
    K._CACHE.clear()
    first = K.load_kb()
    K._CACHE.clear()
    monkeypatch.setattr(K, "validate_kb", lambda *a, **k: pytest.fail("validated again"))
    again = K.load_kb()
    assert [s.name for s in again.signatures] == [s.name for s in first.signatures]
    assert again.cover == first.cover and again.set_patterns == first.set_patterns
    K._CACHE.clear()


def test_any_change_is_validated_again(data, monkeypatch):
    calls = _counting(monkeypatch)
    assert K.checked_kb_problems(data) == []
    changed = copy.deepcopy(data)
    sig = changed["cause"][0]["signature"][0]
    sig["regex"] = sig["regex"] + "x"
    assert K._verdict_path(changed) != K._verdict_path(data)
    assert K.checked_kb_problems(changed) == []
    assert len(calls) == 2


def test_a_broken_kb_is_never_remembered(data, monkeypatch, tmp_path):
    broken = copy.deepcopy(data)
    broken["cause"][0]["signature"][0]["regex"] = "(a+)+$"  # nested quantifier: refused
    for _ in range(2):
        problems = K.checked_kb_problems(broken)
        assert problems and any("nested quantifier" in p or "regex" in p for p in problems)
    assert not (tmp_path / "cache" / "kb").exists() or not any(
        n.startswith(os.path.basename(K._verdict_path(broken) or "")) for n in os.listdir(tmp_path / "cache" / "kb"))


def test_a_verdict_in_a_folder_others_may_write_is_not_believed(data, monkeypatch, tmp_path):
    assert K.checked_kb_problems(data) == []
    folder = tmp_path / "cache" / "kb"
    calls = _counting(monkeypatch)
    os.chmod(folder, 0o777)
    try:
        assert K.checked_kb_problems(data) == []
        assert calls == [False]
    finally:
        os.chmod(folder, 0o700)
    # a planted verdict for a broken knowledge base is a file like any other: it is only believed in the user's
    # own folder, where nobody else can write
    assert K.checked_kb_problems(data) == [] and calls == [False]


def test_old_verdicts_are_dropped(data, tmp_path):
    folder = tmp_path / "cache" / "kb"
    assert K.checked_kb_problems(data) == []
    for i in range(K._VERDICTS_KEPT + 3):
        (folder / f"{i:064x}.ok").write_bytes(b"")
    os.unlink(K._verdict_path(data))
    assert K.checked_kb_problems(data) == []
    assert len(os.listdir(folder)) == 1
