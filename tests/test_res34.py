"""framework-cpu-only where the thread's fix installs a CUDA build (issue 20, round res34).

A CPU-only torch / jaxlib / Paddle where the program wanted CUDA, and the thread's fix is a package spec of a CUDA build:
a conda build string (``pytorch==2.0.0=py3.10_cuda11.8_cudnn8.7.0_0``), ``pytorch-cuda=11.8``, a wheel of PyTorch's CUDA
index (``--index-url https://download.pytorch.org/whl/cu118``, ``torch==2.0.1+cu118``), jaxlib's ``+cuda111``.

What this round reads and decides:

* paste/readers/cuda_unreached.py: a line that says the framework did not reach CUDA (autocast's "User provided
  device_type of 'cuda', but CUDA is not available", "Torch not compiled with CUDA enabled", "doesn't see my GPU",
  a title's "cuda not recognized" / "missing cuda torch") -> ``seen:cuda-unreached``;
* paste/readers/resolution.py + paste/sections.py: a resolution that ends in a colon ("This worked:", "I was able to
  solve this simply by replacing this:") or a bare heading "solution:" takes the words of its author's lines after
  it, the command it introduces;
* compat_matrix/resolutions.toml (its res34 row) + engine/resolution.py: a row's ``when`` (evidence keys of the
  thread) - the CUDA-build fix names framework-cpu-only only where CUDA was unreached, and never a fix that also
  changes the driver.

Real samples: tests/data/res34/pastes (README.md cites each thread); a third held back in heldout/res34-held.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.engine.resolution import causes_of
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.paste.readers import cuda_unreached
from envcheck.paste.readers.resolution import followed, introduces, line_facts
from tests.helpers import assert_top_is_label, doc_matches, paste_readme_rows

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "res34" / "pastes"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}
M = load_matrix()

#: the working part's misses, each with the answer it gets today (so that a fix, or a new wrong answer, is seen):
#: anomalib#2068 says what was done ("I've uninstalled the cpu version of torch and replaced it with the GPU v...") with
#: no outcome, and its `whl/cpu` quote is a maintainer's; spaCy#9570's autocast warning on an x86 Mac is read by the
#: vendor rule (edge33: CUDA asked of a Mac) - not this round's
KNOWN_MISSES = {"anomalib-2068.txt": None, "spacy-9570-control.txt": "framework-vendor-mismatch"}


def _doc(name: str) -> dict:
    return explain_text_document((DATA / name).read_text(encoding="utf-8"), name=name)


def test_the_readme_lists_every_sample():
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert len(ROWS) >= 10 and sum(1 for v in ROWS.values() if v != "framework-cpu-only") >= 3


@pytest.mark.parametrize("name", sorted(ROWS))
def test_each_sample_gets_its_label(name):
    assert_top_is_label(doc_matches(_doc(name)), name, ROWS[name], KNOWN_MISSES)


# --- the spent misses of the family (heldout/acceptance23, acceptance14: spent sets, development data) --------------
@pytest.mark.parametrize("path", [
    "heldout/acceptance23/pastes/model-angelo-78-v100-node-autocast-cuda-not-available-disabling-fixed-conda-pytorch-2.0.0"
    "-cuda11.8-build.txt",
    "heldout/acceptance14/pastes/seine-9-missing-cuda-torch-reinstall-cu118.txt",
])
def test_the_spent_misses_now_name_the_cpu_only_build(path):
    doc = explain_text_document((ROOT / path).read_text(encoding="utf-8"), name=path)
    assert doc["matches"] and doc["matches"][0]["id"] == "framework-cpu-only"
    assert "the reporter says what fixed it" in doc["matches"][0]["evidence"]


# --- the reader of "CUDA was not reached" ----------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "`/opt/mamba/envs/model_angelo/lib/python3.10/site-packages/torch/amp/autocast_mode.py:204: UserWarning: User "
    "provided device_type of 'cuda', but CUDA is not available. Disabling`",
    "# cuda not recognized",
    "missing cuda torch",
    "# Jax doesn't see my GPU, even though Pytorch does",
    "AssertionError: Torch not compiled with CUDA enabled",
    "I find that my tocrh couldn't compiled with cuda, can you tell me about your torch version. Thanks!",
    "Why is my Pytorch's CUDA false after installing, how can I install it to use the GPU version",
])
def test_cuda_unreached_is_read_from_real_lines(line):
    assert [f.field for f in cuda_unreached.line_facts(line, line.lower())] == ["seen:cuda-unreached"]


@pytest.mark.parametrize("line", [
    # CPU on purpose: no NVIDIA GPU on the machine (spaCy#9570)
    "Hi. I installed spaCy on an x86 Apple laptop **without a CUDA-capable GPU** as indicated in the documentation:",
    # the GPU reached: a healthy line of the same words
    "Is CUDA available: True",
    "I am running this on an Nvidia v100 node, capable of handling recent CUDA libraries and drivers.",
])
def test_cuda_unreached_stays_silent_on_other_lines(line):
    assert cuda_unreached.line_facts(line, line.lower()) == []


# --- a fix introduced by a colon -------------------------------------------------------------------------------------
def test_a_bare_solution_heading_is_a_fix_and_questions_about_one_are_not():
    assert [f.value for f in line_facts("solution:", "solution:")] == ["fix | solution:"]
    assert line_facts("Is there a solution?", "is there a solution?") == []
    assert line_facts("solution: reinstall everything and pray", "solution: reinstall everything and pray") == []


def test_a_colon_takes_the_authors_next_lines_code_fences_left_out():
    value = "reporter | fix | Can you be more specific in your installation statement?  This worked:"
    assert introduces(value) and not introduces("reporter | fix | That worked.")
    after = ["", "```", "pytorch==2.0.0=py3.10_cuda11.8_cudnn8.7.0_0 pytorch-cuda=11.8 -c pytorch", "```", "",
             "jamaliki · comment · 2023-10-13", "conda install pytorch-cuda=12.1"]
    got = followed(value, after)
    assert got.endswith("This worked: pytorch==2.0.0=py3.10_cuda11.8_cudnn8.7.0_0 pytorch-cuda=11.8 -c pytorch")
    assert "12.1" not in got  # the next author's line is not this resolution's


# --- the row and its ``when`` ----------------------------------------------------------------------------------------
SEINE = "reporter | fix | solution: python -m pip install torch==2.0.1+cu118 torchvision torchaudio --index-url " \
        "https://download.pytorch.org/whl/cu118"


def test_the_cuda_build_fix_counts_only_where_cuda_was_unreached():
    assert [c for c, _ in causes_of(M, SEINE, {"cuda-unreached": "missing cuda torch"})] == ["framework-cpu-only"]
    assert [c for c, _ in causes_of(M, SEINE, {"no-gpu-seen": "torch.cuda.is_available() returns False"})] == [
        "framework-cpu-only"]
    # the same spec in a thread that shows no CUDA unreached (pytorch#50032: which build fits CUDA 11.2)
    assert causes_of(M, SEINE, {"gpu-wanted": "Nvidia-driver: 460.91.03"}) == []
    assert causes_of(M, SEINE) == []


def test_a_fix_that_also_changes_the_driver_is_not_the_cuda_build():
    text = ("reporter | fix | pip3 install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu124"
            " But torch.cuda.is_available returns false. I upgraded the nvidia driver to version 560 cuda 12.6, and "
            "then it works.")
    assert "framework-cpu-only" not in [c for c, _ in causes_of(M, text, {"no-gpu-seen": "x"})]


@pytest.mark.parametrize("spec", [
    "This worked: pytorch==2.0.0=py3.10_cuda11.8_cudnn8.7.0_0 torchvision torchaudio cudatoolkit pytorch-cuda=11.8",
    "i fixed the issue with a: pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu117",
    "I was able to solve this simply by replacing this: pip install --upgrade jax jaxlib==0.1.69+cuda111 -f x",
    "uninstall torch and then reinstall it with: pip install --pre torch --index-url "
    "https://download.pytorch.org/whl/nightly/cu124 then could solve the issues",
])
def test_the_spec_forms_of_a_cuda_build(spec):
    assert [c for c, _ in causes_of(M, spec, {"cuda-unreached": "x"})] == ["framework-cpu-only"]


def test_a_cpu_wheel_index_is_no_cuda_build():
    # anomalib#2068's quoted `anomalib install` choice: PyTorch's CPU index is the cause itself, not a CUDA build
    assert causes_of(M, "pip install torch --index-url https://download.pytorch.org/whl/cpu worked",
                     {"cuda-unreached": "x"}) == []
