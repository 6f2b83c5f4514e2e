"""Issue 20, prose27: causes of a non-NVIDIA machine that a thread says only in prose.

* An AMD GPU said unsupported ("We are not supporting Navi14 with ROCm now", "the gfx90c is not officially
  supported"): ``paste/readers/prose_vendor`` keeps ``gpu-said-unsupported``, ``engine.vendors_prose`` says
  ``gpu-arch-unsupported`` where the text is about AMD's stack and the matrix does not contradict it.
* An x86_64 Python on an Apple-silicon Mac (``file``'s "Mach-O 64-bit executable x86_64", a Rosetta terminal):
  ``python-x86-said`` + ``apple-silicon`` -> ``python-arch-mismatch``.
* A CUDA-only package on a Mac ("currently only pytorch with cuda is supported"): ``cuda-only-said`` ->
  ``framework-vendor-mismatch``.
* Two frameworks' CUDA / cuDNN needs said (a sentence, pip's conflict lines): ``paste/readers/prose_pins`` keeps
  ``fw-needs-<framework>-<kind>``, ``engine.prose_causes.frameworks_said`` says ``framework-conflict`` where no version
  serves both.

Real samples: tests/data/pastes/prose27/ (README.md cites each thread); heldout/prose27-held is scored by
scripts/score_pastes.py, not here. The classes: heldout/rounds/prose27-classes.md.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Dict, List

import pytest

from envcheck.engine import prose_causes, vendors_prose
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.paste.readers import prose_pins, prose_vendor
from tests.helpers import assert_top_is_label, check_hand_written_facts, doc_matches, paste_readme_rows

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "prose27"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}

#: the working part's misses, each with the answer it gets today (so that a fix, or a new wrong answer, is seen)
KNOWN_MISSES = {
    # (invokeai-2152's dlopen "incompatible architecture (have 'x86_64', need 'arm64')" of torch's dylib is read since
    # session 18's mac30: errors.toml dyld-incompatible-architecture-have-x86_64-need-arm64-python-module)
    # "the rosetta one yields x86_64": a comparison of two terminals, not the reporter's own Python said
    "tensorflow-macos-65-sigill-wrong-architecture-rosetta-terminal-uname-x86-64.txt": None,
    # control: the maintainer's "gfx900 is unsupported" beside a ROCm 6.0 regression fixed in 6.1 (the answer was
    # already gpu-arch-unsupported before this round, from the GPU named beside a crash)
    "pytorch-128302-control-rocm-6.0-breaks-gfx900-mi25-fixed-in-6.1.txt": "gpu-arch-unsupported",
    # "From JAX 0.6, its requires 9.8.x" names no cuDNN, and uv's pin of torch's cuDNN is split over two lines
    "torch2jax-29-jax-0.6.0-requires-cudnn-9.8-uv-no-solution-with-torch.txt": None,
}


def _seen(line: str) -> Dict[str, str]:
    return {f.field[5:]: str(f.value) for f in prose_vendor.line_facts(line, line.lower())}


def _lines_of(name: str) -> List[str]:
    return (DATA / name).read_text(encoding="utf-8").splitlines()


def test_the_set_is_whole():
    assert len(ROWS) == 21
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    held = {p.name for p in (ROOT / "heldout" / "prose27-held").glob("*.txt")}
    assert len(held) == 14 and not held & set(ROWS)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_top_cause_is_the_label(name):
    doc = explain_text_document((DATA / name).read_text(encoding="utf-8"))
    assert_top_is_label(doc_matches(doc), name, ROWS[name], KNOWN_MISSES)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_hand_written_facts(name):
    want = json.loads((DATA / name).with_suffix(".facts.json").read_text())
    doc = explain_text_document((DATA / name).read_text(encoding="utf-8"))
    check_hand_written_facts(want, doc.get("facts") or {})


# --- the reader: what each sentence form gives, and the real controls' sentences that give nothing ------------------

@pytest.mark.parametrize("line,subject", [
    ("close this as the gfx90c is not officially supported", "gfx90c"),  # pytorch#91699
    ("And yes, you're right, 'intergrated' GPUs are not supported, as I had to", "intergrated' GPUs"),  # ROCm#1548
])
def test_an_amd_gpu_said_unsupported_is_read_with_its_subject(line, subject):
    got = _seen(line)
    assert got["gpu-said-unsupported"].split(" | ", 1)[0] == subject


@pytest.mark.parametrize("line", [
    "MPS is already supported. ROCm is already supported on Linux or WSL.",  # control nunif#346
    "Is pytorch compatible only with 5.2 rocm?",
    "I really doubt if AMD GPU Radeon PRO V520 supported by ROCm.",  # a doubt (ROCmValidationSuite#556's first answer)
    "If your GPU is not supported, use the CPU.",
    "Do you know if that version supports the 6700 xt?",
])
def test_questions_doubts_and_supported_gpus_give_no_unsupported_gpu(line):
    assert "gpu-said-unsupported" not in _seen(line)


def test_an_x86_python_is_read_from_file_output_and_a_rosetta_install():
    for name, needle in (("tensorflow-macos-143-m1-anaconda-python-mach-o-x86-64-illegal-hardware-instruction.txt",
                          "/Users/user/opt/anaconda3/bin/python: Mach-O 64-bit executable x86_64"),
                         ("tensorflow-macos-81-m1-import-tensorflow-illegal-instruction-installed-with-rosetta-terminal.txt",
                          "I installed TF with Rosetta terminal")):
        line = next(x.strip() for x in _lines_of(name) if needle in x)
        assert "python-x86-said" in _seen(line), line


@pytest.mark.parametrize("line", [
    # a universal binary's per-slice line (tensorflow_macos#65): the interpreter has both slices
    "/Users/.../tensorflow_macos_venv/bin/python (for architecture x86_64):\tMach-O 64-bit executable x86_64",
    "I'm running my terminal not rosetta:",  # tensorflow_macos#143: a negation
    # the real controls' sentences: a condition, a pull request's description
    "- To fail fast when the installer is run with Rosetta/x86_64 Python on Apple Silicon.",
    "I noticed it is easy to get a broken experience installing `tbp.monty` on Apple Silicon if I don't have "
    "Rosetta installed.",
    "can PyTorch run smoothly via Rosetta 2?",
])
def test_conditions_negations_and_universal_binaries_give_no_x86_python(line):
    assert "python-x86-said" not in _seen(line)


@pytest.mark.parametrize("line", [
    "@armychoir currently only pytorch with cuda is supported",  # ComfyUI-NuA-FlashFace#7
    "No, the bitsandbytes library only works on CUDA GPU.",  # transformers#23970 (spent acceptance16)
])
def test_a_cuda_only_package_is_read(line):
    assert "cuda-only-said" in _seen(line)


@pytest.mark.parametrize("line", [
    "- Running LLM models efficientnly on any GPU requires FlashAttention",  # control coremltools#2543
    "No Flashattention, or Linux/Windows PC with Nvidia.",
    "This build requires CUDA 11.8 or newer.",  # a CUDA version needed is another matter
    "It seems that only CUDA is supported at the moment. Are there any plans to support MPS?",
])
def test_a_cuda_version_a_feature_request_or_a_hedge_is_no_cuda_only_package(line):
    assert "cuda-only-said" not in _seen(line)


# --- the engine: decided with the text's other evidence and the matrix -------------------------------------------

def test_an_unsupported_gpu_needs_amds_stack_in_the_text():
    lines = {"gpu-said-unsupported": "your gpu type | Looks like your gpu type is not in the official supported list:"}
    assert vendors_prose.amd_gpu_unsupported(None, {}, lines) is None  # nothing about AMD: whose GPU is unknown
    lines["other-vendor"] = "I have used ROCm 5.2 in a docker image"
    got = vendors_prose.amd_gpu_unsupported(None, {}, lines)
    assert got is not None and got.id == "gpu-arch-unsupported"
    lines["gpu-prose"] = "RTX 3090"  # an NVIDIA GPU named: not said
    assert vendors_prose.amd_gpu_unsupported(None, {}, lines) is None


def test_a_gfx_target_the_matrix_supports_contradicts_the_sentence():
    matrix = load_matrix()
    rows = [r for r in matrix.rows("rocm", "rocm_release") if isinstance(r.get("gfx"), list) and r["gfx"]]
    newest = max(rows, key=lambda r: tuple(int(x) for x in str(r["version"]).split(".")))
    supported = str(newest["gfx"][0])
    said = {"gpu-said-unsupported": f"{supported} | the {supported} is not officially supported"}
    assert vendors_prose.amd_gpu_unsupported(matrix, {}, said) is None
    said = {"gpu-said-unsupported": "gfx90c | close this as the gfx90c is not officially supported"}
    assert "gfx90c" not in [str(g) for g in newest["gfx"]]
    got = vendors_prose.amd_gpu_unsupported(matrix, {}, said)
    assert got is not None and got.id == "gpu-arch-unsupported"


def test_an_x86_python_needs_an_apple_silicon_mac():
    said = {"python-x86-said": "/Users/zzz/anaconda/envs/mini_py38/bin/python: Mach-O 64-bit executable x86_64"}
    assert vendors_prose.apple_python_x86(None, {}, said) is None  # an Intel Mac's Python is x86_64 too
    said["apple-silicon"] = "I recently got the MacBook Pro with M1 Chip(macOS BigSur version 11.1)"
    got = vendors_prose.apple_python_x86(None, {}, said)
    assert got is not None and got.id == "python-arch-mismatch"


def test_a_cuda_only_package_needs_another_vendors_machine():
    said = {"cuda-only-said": "No we only support GPUs with CUDA capability."}
    assert vendors_prose.cuda_only_other_vendor({}, said) is None  # the machine is not known to be another vendor's
    assert vendors_prose.cuda_only_other_vendor({}, {**said, "apple-silicon": "Mac M1 chip"}).id == \
        "framework-vendor-mismatch"
    amd = {**said, "amd-prose": "RX 6800 with ROCm 5.4"}
    assert vendors_prose.cuda_only_other_vendor({}, amd).id == "framework-vendor-mismatch"
    # "requires CUDA or ROCm" on an AMD machine: ROCm is allowed, nothing is said
    assert vendors_prose.cuda_only_other_vendor({}, {**amd, "cuda-only-said": "Flash attention requires CUDA or ROCm."}) \
        is None


def test_the_working_controls_stay_silent():
    for name, label in ROWS.items():
        if label != "none" or name in KNOWN_MISSES:
            continue
        doc = explain_text_document((DATA / name).read_text(encoding="utf-8"))
        assert not doc.get("matches"), (name, [m["id"] for m in doc["matches"]])


@pytest.mark.parametrize("line", [
    "the said card " * 40 + "x",
    "gfx1030 " * 60 + "is not supported",
    "/python" * 70 + ": Mach-O 64-bit executable x86_64",
    "only works on " * 40 + "CUDA",
    "I installed " + "a " * 200 + "with rosetta",
])
def test_long_and_odd_lines_are_read_in_bounded_time(line):
    start = time.perf_counter()
    for piece in (line[:400], line[:399] + "\x00", "\ufffd" * 400):
        prose_vendor.line_facts(piece, piece.lower())
    assert time.perf_counter() - start < 0.5


# --- two frameworks' needs (class G) --------------------------------------------------------------------------------

def _needs(line: str) -> Dict[str, str]:
    return {f.field[5:]: str(f.value).split(" | ")[0] + " " + str(f.value).split(" | ")[1]
            for f in prose_pins.line_facts(line, line.lower())}


def test_pips_conflict_lines_give_each_frameworks_runtime_pin():
    name = "paddle-74894-zh-pip-conflict-torch-2.5.1-runtime-12.4-vs-paddle-3.1.0-12.3.txt"
    got: Dict[str, str] = {}
    for line in _lines_of(name):
        got.update(_needs(line.strip()))
    assert got == {"fw-needs-torch-cuda": "== 12.4", "fw-needs-paddle-cuda": "== 12.3"}  # pip's exact pins


@pytest.mark.parametrize("line,want", [
    # the spent acceptance pastes' sentences (genippi#1, theano#5581): read, not held back
    ("torch==1.7.1 requires cuda version 11.0 and cudnn 0.8.2 where tensorflow=2.5.0 requires cuda 11.2 and cudnn 8.1.",
     {"fw-needs-torch-cuda": "= 11.0", "fw-needs-tensorflow-cuda": "= 11.2"}),
    ("Currently, torch is using cudnn 5110 while theano 0.9.0b1 can only support 5005.",
     {"fw-needs-torch-cudnn": "= 5.1", "fw-needs-theano-cudnn": "= 5.0"}),
    ("**torch2.5.1 require CUDA 11.8,12.1,12.4**", {"fw-needs-torch-cuda": "= 11.8,12.1,12.4"}),
    ('jax[cuda11-pip] 0.4.14 depends on nvidia-cuda-runtime-cu11>=11.8; extra == "cuda11_pip"',
     {"fw-needs-jax-cuda": ">= 11.8"}),
])
def test_a_frameworks_need_is_read_from_its_sentence(line, want):
    assert _needs(line) == want


@pytest.mark.parametrize("line", [
    # the real controls' sentences: a library file, not a version; a general statement; an install comment
    "It has not been possible to update CUDA for tensorflow to 11.7 because it requires libcudnn8, which only supp",
    "The issue is deep learning frameworks have different Cuda requirements and can conflict with each other when "
    "installed in same env.",
    "pip install -U torch  # Installs Cuda 12",
    "If torch requires CUDA 12.1, should tensorflow use 12.2?",  # a condition and a question
    "torch requires 3.9 or newer",  # no CUDA / cuDNN word: no need read
])
def test_controls_and_hedges_give_no_frameworks_need(line):
    assert _needs(line) == {}


def test_needs_that_share_a_version_decide_nothing():
    line = "x"
    lines = {"fw-needs-torch-cuda": f"= | 10.2,11.0,11.1 | {line}", "fw-needs-tensorflow-cuda": f"= | 10.1,11.0 | {line}"}
    assert prose_causes.frameworks_said(lines) is None
    lines["fw-needs-tensorflow-cuda"] = f"== | 11.2 | {line}"  # an exact pin (attack41: two builds' 11.x alone meet)
    assert prose_causes.frameworks_said(lines).id == "framework-conflict"
    lines["fw-needs-tensorflow-cuda"] = f"= | 9.2 | {line}"  # another CUDA major
    assert prose_causes.frameworks_said(lines).id == "framework-conflict"
    # a floor: jax needs >= 11.8, torch pins 11.7 -> conflict; a torch list that reaches 11.8 -> none
    floor = {"fw-needs-jax-cuda": f">= | 11.8 | {line}", "fw-needs-torch-cuda": f"= | 11.7 | {line}"}
    assert prose_causes.frameworks_said(floor).id == "framework-conflict"
    floor["fw-needs-torch-cuda"] = f"= | 11.7,11.8 | {line}"
    assert prose_causes.frameworks_said(floor) is None
    # one framework's two needs, or a CUDA against a cuDNN need, are no conflict
    assert prose_causes.frameworks_said({"fw-needs-torch-cuda": f"= | 11.7 | {line}",
                                         "fw-needs-torch-cudnn": f"= | 8.5 | {line}"}) is None


@pytest.mark.parametrize("line", [
    "torch " + "requires " * 50 + "cuda 11.8",
    "torch requires cuda " + "11.8, " * 70,
    "tensorflow" + "[x]" * 100 + " requires cuda 11.2",
    "torch depends on nvidia-cudnn-cu12{" + "a" * 300 + " ==8.9.2.26",
])
def test_long_need_lines_are_read_in_bounded_time(line):
    start = time.perf_counter()
    prose_pins.line_facts(line[:400], line[:400].lower())
    assert time.perf_counter() - start < 0.5
