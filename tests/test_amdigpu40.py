"""amdigpu40 (session 24): AMD GPUs outside the support list of what the user runs (Ollama, LM Studio, Lemonade,
llama.cpp, a ROCm build) - iGPUs (Radeon 780M gfx1103, 890M gfx1150, 610M gfx1037) and older or other-generation
cards - and AMD's memory wordings.

Real threads in tests/data/amdigpu40 (README: file, label, source); a third of the collection was held back in
heldout/amdigpu40-held before envcheck ran on any of them (scored by scripts/score_pastes.py / score_explain.py, never
asserted here). What the rules read: compat_matrix/errors.toml's amdigpu40 block (MIOpen's "Memory not available to
allocate buffer", LM Studio's "No ROCm GPUs detected of supported targets", "Unsupported GPU: gfxN"),
envcheck/paste/readers/prose_vendor.py (a program's verdict with a pronoun for the GPU, "not a compatible GPU", a
clause of cause past a condition) and envcheck/engine/vendors_prose.py (a program's own target list is not
contradicted by ROCm's).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_split_listing, explain_cli_matches, sample_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "amdigpu40")
HELD = os.path.join(ROOT, "heldout", "amdigpu40-held")
SPENT = os.path.join(ROOT, "heldout", "acceptance28")

PASTES = sample_rows(os.path.join(DEV, "pastes"))
LOGS = sample_rows(os.path.join(DEV, "logs"), ".log")
#: dev threads this round leaves unread (README notes): LM Studio's "Engine Not Compatible" screen for a 780M, and a
#: gfx1031 whose LM Studio ROCm runtime fails with an unknown exit code; they must not be read as another cause
LEFT = {"lmstudio-1003-lm-studio-rocm-engine-not-compatible-radeon-780m-whitelist.txt",
        "rocmlibs-47-gfx1031-lm-studio-rocm-unsupported-failed-to-load-model.txt"}


def test_listing():
    check_split_listing(os.path.join(DEV, "pastes"), os.path.join(HELD, "pastes"), min_dev=9, min_held=6,
                        min_held_none=1)
    check_split_listing(os.path.join(DEV, "logs"), os.path.join(HELD, "logs"), ".log", min_dev=5, min_held=1,
                        min_none=3)


@pytest.mark.parametrize("name,label,source", PASTES + LOGS, ids=[r[0][:60] for r in PASTES + LOGS])
def test_dev_thread(name, label, source):
    folder = "logs" if name.endswith(".log") else "pastes"
    matches = explain_cli_matches("--no-detect", os.path.join(DEV, folder, name))
    if label == "none" or name in LEFT:
        assert matches == [], [(m["id"], m["evidence"]) for m in matches]
        return
    assert matches and matches[0]["id"] == label, [(m["id"], m["score"], m["evidence"]) for m in matches]
    assert matches[0]["fixes"]


@pytest.mark.parametrize("folder,stem,label", [
    ("logs", "rocmlibs-gfx1103-53-", "gpu-arch-unsupported"),
    ("pastes", "rocmlibs-gfx1103-27-", "gpu-arch-unsupported"),
    ("logs", "miopen-47-", "gpu-out-of-memory"),
])
def test_spent_misses(folder, stem, label):
    """The three acceptance28 misses this family was written for."""
    d = os.path.join(SPENT, folder)
    name = next(f for f in os.listdir(d) if f.startswith(stem) and f.endswith((".txt", ".log")))
    matches = explain_cli_matches("--no-detect", os.path.join(d, name))
    assert matches and matches[0]["id"] == label, [(m["id"], m["score"]) for m in matches]


# --- the log wordings (errors.toml) ---------------------------------------------------------------------------------

def _top(text):
    matches = explain_cli_matches("--no-detect", "-", text=text)
    return [(m["id"], m["signature"]) for m in matches]


def test_miopen_buffer_outranks_no_algorithm():
    text = ("MIOpen Error: /data/repo/MIOpen/src/hip/handlehip.cpp:70: Memory not available to allocate buffer: 655360000\n"
            "2018-07-17 09:05:55.622826: F tensorflow/stream_executor/rocm/rocm_dnn.cc:1603] Check failed: status == "
            "miopenStatusSuccess (7 vs. 0)Unable to find a suitable algorithm for doing forward convolution\n")
    got = _top(text)
    assert got[0] == ("gpu-out-of-memory", "miopen-memory-not-available-to-allocate-buffer"), got
    assert ("cudnn-no-algorithm", "miopen-no-suitable-algorithm") in got


def test_miopen_buffer_needs_a_size():
    # another program's "memory not available to allocate buffer for Rx" (a packet driver's malloc) is no GPU's
    assert _top("ERROR: memory not available to allocate buffer for Rx\n") == []


def test_lmstudio_survey_lists_targets():
    text = '        "message": "No ROCm GPUs detected of supported targets: gfx1030, gfx1100, gfx1101"\n'
    assert _top(text) == [("gpu-arch-unsupported", "lmstudio-rocm-no-gpus-of-supported-targets")]


def test_unsupported_gpu_colon_gfx():
    assert _top("llamacpp: Unsupported GPU: gfx950\n")[0] == ("gpu-arch-unsupported", "unsupported-gpu-colon-gfx")
    # a supported verdict is not it
    assert _top('msg="amdgpu is supported" gpu=0 gpu_type=gfx1102\n') == []


# --- the paste reader's evidence, line by line ----------------------------------------------------------------------

def _said(text):
    from envcheck.paste.readers import prose_vendor

    return {f.field: f.value for f in prose_vendor.line_facts(text, text.lower())}.get("seen:gpu-said-unsupported")


@pytest.mark.parametrize("line,subject", [
    ("The GPU is recognized but it says always, that it is not supported.", "the GPU"),
    ("My card shows up in the list but Ollama says it is not supported.", "the GPU"),
    ("only fallback to cpu as ollama official doesn't support it.", "the GPU"),
    ("if you running ollama from official ollama , it's can't support and only fallback to cpu as ollama official "
     "doesn't support it.", "the GPU"),
    ("gfx1150 is marked as not a compatible GPU by LM studio on 0.4.17 build 3", "gfx1150"),
])
def test_said_unsupported(line, subject):
    got = _said(line)
    assert got and got.split(" | ", 1)[0] == subject, got


@pytest.mark.parametrize("line", [
    # no GPU (nor the CPU fallback) in the sentence: "it" may be a feature
    "Flash attention: it says it is not supported.",
    "I tried bf16 and ollama doesn't support it.",
    # a condition or a question over the whole sentence, no clause of cause
    "If it says it is not supported on your GPU, set the override.",
    "Does the GPU work, or does it say it is not supported?",
    # a compatible GPU
    "gfx1100 is a compatible GPU for LM Studio",
])
def test_not_said_unsupported(line):
    assert _said(line) is None


# --- the engine: a program's own target list ------------------------------------------------------------------------

def _finding(line):
    from envcheck.engine.vendors_prose import amd_gpu_unsupported
    from envcheck.matrix import load_matrix

    subject = _said(line)
    assert subject, line
    return amd_gpu_unsupported(load_matrix(), {}, {"gpu-said-unsupported": subject})


def test_program_list_is_not_contradicted_by_rocm():
    # gfx1030 is in ROCm's own list (rocm.toml); LM Studio's Windows engine is another list
    assert _finding("gfx1030 is not supported on the ROCm runtime in LM Studio on this machine.").id == \
        "gpu-arch-unsupported"
    assert _finding("gfx1030 is not supported by ROCm anymore") is None
