"""Issue 20, prose28: a helper's advice that the next post confirms fixed it is the thread's resolution.

A maintainer or helper names an environment fix ("export LD_LIBRARY_PATH=...:/usr/local/cuda/lib64", "run these in
CMD ... oneapi-vars.bat ... env\\vars.bat", "Can you try updating your graphics card?") and the next author answers with a
bare confirmation ("That did it.. Thank you. :)", "That did the trick, awesome! Thanks!", "版本问题已解决"): the paste
layer keeps the advice post's tail as that author's fix (``paste/thread.ThreadWatch.answered`` +
``paste/readers/resolution.confirms``), and the engine maps it to a cause with ``compat_matrix/resolutions.toml``.
This round: more confirmation forms ("That did it", "That was it!", "it's working now", "Solved, thanks!", Chinese
"问题解决了"), the reporter's "... fix the issue", code fences no longer crowd the advice out of the kept tail, and
oneAPI's component environment scripts (``oneapi-vars.bat``, ``env\\vars.bat``) in the oneAPI row.

Real samples: tests/data/pastes/prose28/ (README.md cites each thread); heldout/prose28-held is scored by
scripts/score_pastes.py, not here.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import resolution
from envcheck.paste.thread import ThreadWatch
from tests.helpers import assert_top_is_label, check_hand_written_facts, doc_matches, paste_readme_rows

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "prose28"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}


def _text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def _confirmation(line: str) -> bool:
    """Whether ``line`` (a whole post) is a bare confirmation, the way the paste layer reads it."""
    facts = resolution.line_facts(line, line.lower())
    return any(resolution.confirms(str(f.value)) for f in facts)


def test_the_set_is_whole():
    assert len(ROWS) == 8
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    held = {p.name for p in (ROOT / "heldout" / "prose28-held").glob("*.txt")}
    assert len(held) == 5 and not held & set(ROWS)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_top_cause_is_the_label(name):
    doc = explain_text_document(_text(name))
    assert_top_is_label(doc_matches(doc), name, ROWS[name], {})


@pytest.mark.parametrize("name", sorted(ROWS))
def test_hand_written_facts(name):
    want = json.loads((DATA / name).with_suffix(".facts.json").read_text())
    doc = explain_text_document(_text(name))
    check_hand_written_facts(want, doc.get("facts") or {})


# --- the confirmation: real posts that confirm, real posts that do not ----------------------------------------------

@pytest.mark.parametrize("line", [
    "That did it.. Thank you. :)",            # nagadomi/waifu2x#7, the reporter after the maintainer's LD_LIBRARY_PATH
    "That did the trick, awesome! Thanks!",   # vladmandic/sdnext#3548, after oneAPI's vars.bat
    "This worked, thank you.",                # pytorch/pytorch#90137, after "pip uninstall torch twice"
    "版本问题已解决",                          # IEIT-Yuan/Yuan-2.0#65 (tests/data/logs), after "建议gpu驱动更新到535"
    "That fixed it thanks",                   # karpathy/nanoGPT#281 (a code change: confirmed, but no row names a cause)
])
def test_real_confirmations(line):
    assert _confirmation(line)


@pytest.mark.parametrize("line", [
    "I did install the latest drivers and it didn't change anything.",   # upscayl/upscayl#234
    "thank you. I try to update my docker.",                              # pytorch/serve#627: an intent, no outcome
    # jcjohnson/neural-style#154: fixed, but the post's last word is a new error
    "That seems to have fixed the issue. Though now I am receiving another error.",
    "Is there nothing more in the log, just these lines?",               # upscayl/upscayl#234: a question
])
def test_real_posts_that_confirm_nothing(line):
    assert not _confirmation(line)


def test_a_negated_that_did_it_is_no_outcome():
    for line in ("That didn't do it", "That did it not", "If that was it, it should work"):
        assert resolution.line_facts(line, line.lower()) == [], line


def test_the_reporters_fix_the_issue_is_an_outcome_and_a_question_is_not():
    # dotnet/machinelearning-modelbuilder#2357, the reporter's own words after the maintainer's advice
    line = "Updating driver from version 461.40 to 526.47 fix the issue"
    assert [str(f.value) for f in resolution.line_facts(line, line.lower())] == [f"fix | {line}"]
    for ask in ("How to fix the issue?", "Can you fix the issue", "this will fix the issue"):
        assert not [f for f in resolution.line_facts(ask, ask.lower()) if "fix the issue" in str(f.value)], ask


# --- the advice the confirmation answers ----------------------------------------------------------------------------

def test_code_fences_do_not_crowd_the_advice_out_of_the_kept_tail():
    watch = ThreadWatch()
    lines = _text("sdnext-3548-windows-ipex-c10-xpu-dll-oneapi-vars-bat-did-the-trick.txt").splitlines()
    answered = None
    for raw in lines:
        watch.foreign(raw)
        if raw.strip() == "That did the trick, awesome! Thanks!":
            answered = watch.answered()
            break
    assert answered is not None
    assert "oneapi-vars.bat" in answered and "env\\vars.bat" in answered
    assert "```" not in answered


def test_the_sdnext_thread_names_oneapi_from_the_confirmed_advice_only():
    text = _text("sdnext-3548-windows-ipex-c10-xpu-dll-oneapi-vars-bat-did-the-trick.txt")
    assert doc_matches(explain_text_document(text))[0].id == "oneapi-runtime-missing"
    # the same thread with the confirmation taken away says nothing: the advice alone is no resolution
    unconfirmed = text.replace("That did the trick, awesome! Thanks!", "I will try that tomorrow.")
    assert [m.id for m in doc_matches(explain_text_document(unconfirmed))] == []


def test_the_driver_thread_is_settled_by_the_reporter():
    doc = explain_text_document(_text(
        "modelbuilder-2357-windows-text-classification-cuda-not-available-update-driver-461-to-526.txt"))
    top = doc["matches"][0]
    assert top["id"] == "driver-too-old"
    assert "the reporter says" in json.dumps(top)


def test_a_confirmed_fix_that_names_no_environment_cause_says_nothing():
    # bmaltais/kohya_ss#1071-like shape with the real control of this set: pip's upgrade strategy, confirmed
    doc = explain_text_document(_text("torchpack-33-control-pip-upgrade-strategy-only-if-needed-fixed-it.txt"))
    assert doc_matches(doc) == []
    # nanoGPT#281: the code change confirmed leaves the message's own cause first
    doc = explain_text_document(_text(
        "nanogpt-281-control-torch-not-compiled-with-cuda-device-cpu-code-change-fixed-it.txt"))
    assert doc_matches(doc)[0].id == "framework-cpu-only"


# --- the phrase table -----------------------------------------------------------------------------------------------

def _oneapi_rows():
    with open(ROOT / "compat_matrix" / "resolutions.toml", "rb") as fh:
        rows = tomllib.load(fh)["resolution"]
    return [re.compile(r["pattern"]) for r in rows if r["cause"] == "oneapi-runtime-missing"]


@pytest.mark.parametrize("text, named", [
    ('"C:\\Program Files (x86)\\Intel\\oneAPI\\ocloc\\2024.2\\env\\vars.bat"', True),   # sdnext#3548
    ('"C:\\Program Files (x86)\\Intel\\oneAPI\\pytorch-gpu-dev-0.5\\oneapi-vars.bat"', True),
    ("call {DPCPPROOT}\\env\\vars.bat", True),            # intel-extension-for-pytorch#560's advice
    ("source /opt/intel/oneapi/compiler/latest/env/vars.sh", True),
    ('cmd.exe "/K" "C:\\Program Files\\Microsoft Visual Studio\\2022\\Community\\VC\\Auxiliary\\Build\\vcvars64.bat"',
     False),                                              # Visual Studio's environment, not oneAPI's
    (".\\webui.bat --use-ipex", False),
])
def test_oneapi_environment_scripts_in_the_table(text, named):
    assert any(rx.search(text) for rx in _oneapi_rows()) is named


def test_confirmations_are_linear():
    for line in ("that did it " * 5000, "谢谢" * 20000, "it works now " * 5000, "Thanks, " * 20000):
        t0 = time.perf_counter()
        _confirmation(line)
        resolution.confirms("fix | " + line)
        assert time.perf_counter() - t0 < 1.0
