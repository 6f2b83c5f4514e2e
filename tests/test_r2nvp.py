"""Session 25, helper r2nvp: round two of acceptance30's NVIDIA paste misses, generalised from other threads.

* An issue title that quotes the loader's undefined torch C++ symbol after a tag ("Bug:"), a step ("(Step 2)") or the
  extension's bare module name, the .so path left out, or with a full-width colon ("ImportError：undefined symbol:
  _ZN3c10..."): errors.toml's ``undefined-torch-cxx-symbol-titled`` (block ``# ---- r2nvp ----``).
* An install step that put PyTorch's CPU build in ("it installs Torch for CPU", "pip then replaced it with the CPU
  build"), the GPU build to be reinstalled or a GPU said present as the GPU wanted ("even when gpu is available"), and
  an instruction's "If you want to use a GPU, ..." as no wish (paste/readers/prose_cause.py).

Samples: tests/data/r2nvp (README cites each source).
"""

from __future__ import annotations

import os

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers.prose_cause import line_facts
from helpers import check_section_signatures, paste_readme_rows, paste_top

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "r2nvp")
ROWS = paste_readme_rows(DATA)
TITLED = "undefined-torch-cxx-symbol-titled"


def _doc(text: str) -> dict:
    return explain_text_document(text)


def _read(name: str) -> str:
    with open(os.path.join(DATA, name), encoding="utf-8") as fh:
        return fh.read()


def _fields(line: str) -> set:
    return {f.field for f in line_facts(line, line.lower())}


def _top_signature(text: str):
    doc = _doc(text)
    return (doc["matches"][0]["id"], doc["matches"][0].get("signature")) if doc.get("matches") else ("none", None)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_each_sample_top_cause_is_its_label(name):
    assert paste_top(_doc(_read(name))) == ROWS[name][0]


def test_the_readme_lists_every_sample_and_controls():
    assert {f for f in os.listdir(DATA) if f.endswith(".txt")} == set(ROWS)
    assert sum(label == "none" for label, _ in ROWS.values()) >= 3


def test_the_signature_is_in_the_block_and_adds_no_anchor():
    check_section_signatures("# ---- r2nvp ----", [TITLED])


# -- the undefined torch C++ symbol in a title ------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "# (Step 2) flash_attn_2_cuda ImportError: undefined symbol _ZN3c105ErrorC2 — Likely C++ ABI Mismatch",
    "# Bug: ImportError - undefined symbol: _ZN3c104cuda9SetDeviceEab",
    "# ImportError：undefined symbol: _ZN3c105ErrorC1ENS_14SourceLocationERKSs",
    "# [Bug] vllm_C OSError: undefined symbol: _ZNK5torch8autograd4Node4nameEv",
])
def test_a_titled_torch_symbol_is_an_extension_built_for_another_torch(line):
    assert _top_signature(line + "\n")[0] == "extension-abi-mismatch"


@pytest.mark.parametrize("line", [
    "# [JIT] undefined symbol: cuCtxGetCurrent",                              # the driver API's symbol
    "# Bug: ImportError - undefined symbol: cudnnGetLibConfig",               # cuDNN's
    "# Python ImportError - undefined symbol - for custom C++ module",       # no symbol, no torch
    "# libtorch.so.1: undefined symbol:",                                     # torch's own library, no symbol
])
def test_a_title_without_a_torch_symbol_is_not_this_signature(line):
    assert _top_signature(line + "\n")[1] != TITLED


# -- the CPU build an install step put in -----------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "When Installing ClearerVoice-Studio it installs Torch for CPU",
    # a setup script's comment (its two "# " lines joined, the wrap undone): pip's resolver swapped torch cu121 out
    "torch 2.5, which pyannote 4 rejects, and pip then replaced it with the CPU build from PyPI: a host on a 4090 "
    "that diarized on its CPU.",
])
def test_an_install_that_put_the_cpu_torch_in_is_said(line):
    assert "seen:cpu-build-said" in _fields(line)


@pytest.mark.parametrize("line", [
    "## installs torch for CPU",                                            # a Makefile's target note: no subject
    "install-cpu: venv dependencies  ## installs torch for CPU",
    "so it no longer pulls an unpinned PyTorch over your GPU build and replaces it with the CPU one.",
    "Does pip replace it with the CPU build?",
    # a changelog's past state ("previously"): the build no longer the one installed
    "The CUDA build previously had to be installed by hand, outside the lockfile, where the next `uv sync` — or the "
    "implicit one a bare `uv run` performs — silently replaced it with the CPU wheel.",
    "Make sure it installs torch for CPU",
])
def test_no_install_statement_is_not_the_new_wording(line):
    assert "seen:cpu-build-said" not in _fields(line)


@pytest.mark.parametrize("line", [
    "I'm afraid you need to reinstall the GPU torch version.",
    "environment.yml: conda installing pytorch-cpu even when gpu is available",
    "install a cpu version of pytorch even on machines with GPU.",
    "although i have a gpu, i get torch.__version__ = \"2.1.0\"",
])
def test_the_gpu_build_or_a_gpu_present_is_the_gpu_wanted(line):
    assert "seen:gpu-wanted" in _fields(line)


@pytest.mark.parametrize("line", [
    "If you want to use a GPU, see the lines for Linux.",
    "If you want to use the GPU, install the CUDA build.",
    "This laptop has no NVIDIA GPU.",
])
def test_an_instruction_s_condition_is_no_wish_for_the_gpu(line):
    assert "seen:gpu-wanted" not in _fields(line)


def test_i_want_to_use_the_gpu_stays_a_wish():
    assert "seen:gpu-wanted" in _fields("I want to use the GPU but torch runs on the CPU")
