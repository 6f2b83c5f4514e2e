"""Issue 20, tmpl28: the issue templates users fill in by hand (heldout/rounds/tmpl28-inventory.md).

* An issue form's GPU field answered with a vendor choice (Ollama's ``### GPU`` Nvidia / AMD / Intel / Apple,
  InvokeAI's 2023 ``### GPU`` cuda / amd / mps / cpu, its later ``### GPU vendor`` "AMD (ROCm)") names the machine's
  vendor, never a GPU: ``paste/readers/gpu_vendor_form``; a bullet ``GPU: Nvidia`` likewise (``fields``).
* After InvokeAI's "AMD (ROCm)" choice, its ``### GPU model`` answer is an AMD GPU, with a name that has no AMD mark
  ("R9700 AI Pro").
* InvokeAI's start-up log's ``cuDNN version: 90701`` is torch's cuDNN (``paste/readers/invokeai_log``).
* rocm-smi's banner glued to the Markdown fence before it (``` ```=====... ROCm System Management Interface```).

Real samples: tests/data/pastes/tmpl28/ (README.md cites each thread); heldout/tmpl28-held is scored by
scripts/score_pastes.py, not here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Set

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import gpu_vendor_form, invokeai_log, rocm_smi_out
from envcheck.paste.readers.base import view
from tests.helpers import assert_top_is_label, check_hand_written_facts, doc_matches, paste_readme_rows

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "tmpl28"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}

#: the working part's misses, each with the answer it gets today (so that a fix, or a new wrong answer, is seen)
KNOWN_MISSES = {
    # gfx1010 (a 5600 XT) under WSL with a fork of Ollama: no framework build whose gfx list the matrix holds is shown
    "ollama-for-amd-9-form-gpu-amd-5600xt-gfx1010-wsl.txt": None,
}
#: facts the text makes certain that explain does not give yet: torch's cuDNN without torch's version (explain's
#: ``frameworks.torch`` is written only where torch's version or its build's arch list is known)
KNOWN_FACT_MISSES: Dict[str, Set[str]] = {
    "invokeai-8554-form-gtx-1060-max-q-log-cudnn-90701.txt": {"frameworks"},
}


def _doc(name: str) -> dict:
    return explain_text_document((DATA / name).read_text(encoding="utf-8"))


def _read(reader, lines: List[str]):
    """The partial ``reader`` gives for the lines its ``detect`` takes from line 0 (None: it does not take it)."""
    n = reader.detect(view(lines, 0))
    return reader.read(lines[:n]) if n else None


def test_the_set_is_whole():
    assert len(ROWS) == 12
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    held = {p.name for p in (ROOT / "heldout" / "tmpl28-held").glob("*.txt")}
    assert len(held) == 6 and not held & set(ROWS)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_top_cause_is_the_label(name):
    assert_top_is_label(doc_matches(_doc(name)), name, ROWS[name], KNOWN_MISSES)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_hand_written_facts(name):
    want = json.loads((DATA / name).with_suffix(".facts.json").read_text())
    skip = KNOWN_FACT_MISSES.get(name, set())
    got = _doc(name).get("facts") or {}
    check_hand_written_facts({k: v for k, v in want.items() if k not in skip}, got)
    for k in skip:  # still missed: a fix is seen here
        assert (got.get(k) or {}) != want[k]


# --- the vendor choice: what each answer gives -----------------------------------------------------------------------

@pytest.mark.parametrize("answer,vendor", [
    ("AMD", "amd"),  # ollama#6105
    ("Intel", "intel"),  # ollama#5361
    ("Apple", "apple"),
    ("AMD (ROCm)", "amd"),  # InvokeAI#9323
    ("amd", "amd"),  # InvokeAI's 2023 form
])
def test_a_vendor_choice_names_the_vendor_not_a_gpu(answer, vendor):
    p = _read(gpu_vendor_form, ["### GPU", "", answer, "", "### CPU", "", "AMD"])
    assert p is not None and p.get("vendor_form") == vendor
    assert p.all("vgpu") == [] and p.all("gpu") == []


@pytest.mark.parametrize("lines", [
    ["### GPU", "", "Nvidia"],  # ollama#6236: NVIDIA's is the default, no fact
    ["### GPU", "", "cuda"],  # InvokeAI#3605
    ["### GPU vendor", "", "Nvidia (CUDA)"],  # InvokeAI#9593
    ["### GPU", "", "mps"],  # an Intel Mac's AMD GPU is MPS too: the vendor is not certain
    ["### GPU", "", "cpu"],
    ["### GPU", "", "Other"],
    ["### GPU", "", "Nvidia, AMD"],  # Ollama's multiple choice: which one runs is not said
    ["### GPU", "", "GPU0: Intel", "GPU1: Nvidia"],  # ollama#5101, typed by hand
])
def test_nvidia_an_unsure_or_a_mixed_choice_says_no_vendor_and_is_no_gpu(lines):
    p = _read(gpu_vendor_form, lines)
    assert p is not None and p.get("vendor_form") is None and p.all("gpu") == [] and p.all("vgpu") == []


@pytest.mark.parametrize("lines", [
    ["### GPU", "", "RTX 4090"],  # a model typed into the field: issue_form's to read
    ["### GPU model", "", "AMD"],
    ["### GPU", "", "_No response_"],
    ["GPU: AMD"],
])
def test_a_model_another_heading_or_no_answer_is_not_a_vendor_choice(lines):
    assert _read(gpu_vendor_form, lines) is None


def test_the_model_after_an_amd_choice_is_an_amd_gpu():
    lines = ["### GPU vendor", "", "AMD (ROCm)", "", "### GPU model", "", "R9700 AI Pro", "", "### GPU VRAM", "", "32GB"]
    p = _read(gpu_vendor_form, lines)
    assert p is not None and p.all("vgpu") == [(0, "R9700 AI Pro", "amd", None, gpu_vendor_form.NAME)]
    # after an NVIDIA choice the model is issue_form's (an NVIDIA GPU)
    nv = _read(gpu_vendor_form, ["### GPU vendor", "", "Nvidia (CUDA)", "", "### GPU model", "", "RTX 2080 Ti"])
    assert nv is not None and nv.all("vgpu") == []
    # a memory note is no part of the name; an unanswered model names no GPU
    mem = _read(gpu_vendor_form, ["### GPU vendor", "", "AMD (ROCm)", "", "### GPU model", "", "Radeon RX 7900 XTX (24GB)"])
    assert mem is not None and [v[1] for v in mem.all("vgpu")] == ["Radeon RX 7900 XTX"]
    for answer in ("_No response_", "N/A"):
        none = _read(gpu_vendor_form, ["### GPU vendor", "", "AMD (ROCm)", "", "### GPU model", "", answer])
        assert none is not None and none.all("vgpu") == [] and none.get("vendor_form") == "amd"


def test_a_bullet_answered_with_a_vendor_is_no_gpu_name():
    doc = explain_text_document("Environment:\n- OS: Windows 11\n- GPU: AMD\n- Python: 3.11.9\n")
    facts = doc.get("facts") or {}
    assert not [g for g in facts.get("gpus") or [] if g.get("name")]
    assert facts.get("vendor") == "amd"
    nv = explain_text_document("Environment:\n- OS: Windows 11\n- GPU: Nvidia\n- Python: 3.11.9\n").get("facts") or {}
    assert not [g for g in nv.get("gpus") or [] if g.get("name")] and not nv.get("vendor")


def test_a_memory_note_after_a_gpu_name_is_no_part_of_it():
    doc = explain_text_document("Environment:\n- gpu: NVIDIA Quadro P2000 (5GB GPU memory)\n- os: win 11\n")
    assert [g["name"] for g in (doc.get("facts") or {}).get("gpus") or []] == ["NVIDIA Quadro P2000"]


# --- InvokeAI's start-up log, rocm-smi behind a fence --------------------------------------------------------------

@pytest.mark.parametrize("line,cudnn", [
    ("[2025-09-10 11:38:21,004]::[InvokeAI]::INFO --> cuDNN version: 90701", "9.7.1"),  # InvokeAI#8554
    ("[2024-03-01 10:00:00,000]::[InvokeAI]::INFO --> cuDNN version: 8902", "8.9.2"),
])
def test_invokeai_logs_torch_cudnn(line, cudnn):
    p = _read(invokeai_log, [line])
    assert p is not None and p.get("torch.cudnn") == cudnn


@pytest.mark.parametrize("line", [
    "[2025-09-10 11:38:19,917]::[InvokeAI]::INFO --> Using torch device: NVIDIA GeForce GTX 1060 with Max-Q D",
    "[2025-09-10 11:38:25,001]::[InvokeAI]::INFO --> InvokeAI version 6.6.0",
    "cuDNN version: 90701",  # not InvokeAI's line: another program's meaning
])
def test_other_invokeai_lines_and_other_programs_are_not_read(line):
    assert _read(invokeai_log, [line]) is None


def test_rocm_smi_glued_to_its_fence_is_read():
    lines = (DATA / "ollama-6105-form-gpu-amd-rocm-smi-fenced-7900xtx.txt").read_text(encoding="utf-8").splitlines()
    i = next(k for k, x in enumerate(lines) if "ROCm System Management Interface" in x)
    assert lines[i].startswith("```")
    n = rocm_smi_out.detect(view(lines, i))
    assert n > 5
    got = rocm_smi_out.read(lines[i:i + n]).all("vgpu")
    assert [g[5] for g in got] == ["0x744c", "0x164e"]


def test_long_answers_read_in_linear_time():
    import time

    lines = ["### GPU", ""] + ["GPU0: AMD"] * 50000
    t = time.perf_counter()
    for i in range(0, 2000):
        gpu_vendor_form.detect(view(lines, i % 3))
    assert time.perf_counter() - t < 5.0
