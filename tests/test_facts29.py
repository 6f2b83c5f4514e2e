"""Issue 20 (facts29): facts from damaged and partial environment blocks, and whose they are.

Real pastes in tests/data/facts29 (README.md cites each thread; a third held back in heldout/facts29-held, scored by
scripts/score_pastes.py, not here). What was found and changed:

* PyTorch's collect_env is read in the damaged forms these threads show (a retyped header line without its colon,
  ``Os:``, full-width ``GPU 0：``, a block indented inside single-backtick lines, quoted): these tests hold it so;
* another author's collect_env pasted from its first field, without the "Collecting environment information..." line
  (a me-too comment's ```PyTorch version: 1.3.1 ...```), is that author's machine, not the reporter's
  (:mod:`envcheck.paste.thread`);
* "When I use torch 1.2, it can detect my gpu, however, torch 1.3 fails" states no installed torch 1.2
  (:mod:`envcheck.paste.readers.prose_facts`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.thread import ThreadWatch
from tests.helpers import check_hand_written_facts, paste_readme_rows, paste_top

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "facts29"
HELD = ROOT / "heldout" / "facts29-held"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}

#: the dev part's top-1 misses, each with the answer it gets today (so that a fix, or a new wrong answer, is seen)
KNOWN_MISSES: dict = {
    # (pytorch-30071, torch "1.3" installed with pip beside driver 410.48, was one until pypi29: engine.pypibuild takes
    # a bare pip-installed release on Linux x86_64 for its PyPI default build, cu101, said as assumed)
}


def _doc(text: str) -> dict:
    return explain_text_document(text)


def _facts(text: str) -> dict:
    return _doc(text).get("facts") or {}


def _read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_the_sets_hold_what_the_readme_says():
    assert len(ROWS) >= 6 and "none" in ROWS.values()
    for name in ROWS:
        assert (DATA / name).exists() and (DATA / name.replace(".txt", ".facts.json")).exists(), name
    held = paste_readme_rows(str(HELD))
    assert len(held) >= 2
    assert not set(held) & set(ROWS)
    for name in held:
        assert (HELD / name).exists(), name


@pytest.mark.parametrize("name", sorted(ROWS))
def test_dev_paste_top_is_its_label(name):
    got = paste_top(_doc(_read(name)))
    if name in KNOWN_MISSES:
        assert got == KNOWN_MISSES[name] and got != ROWS[name]
        return
    assert got == ROWS[name]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_dev_paste_facts_are_the_hand_written_ones(name):
    want = json.loads((DATA / name.replace(".txt", ".facts.json")).read_text(encoding="utf-8"))
    check_hand_written_facts(want, _facts(_read(name)), gpus_by_name=True)


# --------------------------------------------------------------------------- collect_env in damaged forms
def test_collect_env_with_a_retyped_header_and_full_width_colons_is_read():
    """pytorch#37320: ``PyTorch version 1.5.0`` (no colon), ``Os:``, ``GPU 0： Tesla P100-PCIE-16GB``."""
    f = _facts(_read("pytorch-37320-retyped-collect-env-header-fullwidth-gpu-colons-p100-driver-410.104.txt"))
    assert f["frameworks"]["torch"]["version"] == "1.5.0" and f["frameworks"]["torch"]["cuda"] == "10.2"
    assert [g["name"] for g in f["gpus"]] == ["Tesla P100-PCIE-16GB"] * 4
    assert f["driver"]["version"] == "410.104"


def test_collect_env_indented_inside_single_backticks_is_read():
    """pytorch#44303: the block indented four blanks between two lines of one backtick each."""
    f = _facts(_read("pytorch-44303-torch-1.3.1-indented-collect-env-in-backticks-cuda-build-could-not-collect.txt"))
    assert f["frameworks"]["torch"]["version"] == "1.3.1"
    assert f["frameworks"]["torch"]["cuda"] is None  # "Could not collect" beside a torch version: a CPU build
    assert f["driver"]["version"] == "430.64"
    assert [g["name"] for g in f["gpus"]] == ["GeForce RTX 2080 Ti"]


def test_collect_env_quoted_with_a_glued_first_line_is_read():
    """A collect_env quoted line by line (``> ``) whose first line has a stray backtick (pytorch#37212, a comment:
    ``> Collecting`environment information...``): the fields are read all the same."""
    text = "\n".join([
        "outptu of python -m torch.utils.collect_env is",
        "",
        "> Collecting`environment information...",
        "> PyTorch version: 1.5.0+cu101",
        "> Is debug build: No",
        "> CUDA used to build PyTorch: 10.1",
        "> ",
        "> OS: Microsoft Windows Server 2019 Standard",
        "> Python version: 3.7",
        "> Is CUDA available: Yes",
        "> CUDA runtime version: 10.1.243",
        "> GPU models and configuration:",
        "> GPU 0: TITAN RTX",
        "> GPU 1: TITAN RTX",
        "> ",
        "> Nvidia driver version: 442.92",
    ])
    f = _facts(text)
    assert f["frameworks"]["torch"]["version"] == "1.5.0+cu101" and f["frameworks"]["torch"]["cuda"] == "10.1"
    assert [g["name"] for g in f["gpus"]] == ["TITAN RTX", "TITAN RTX"]
    assert f["driver"]["version"] == "442.92" and f["python"]["version"] == "3.7"


# --------------------------------------------------------------------------- whose collect_env it is
_ME_TOO = """# Pytorch 1.3 not available

alice · description · 2019-11-19
I have driver version 410.48 installed.

bob · comment · 2019-11-19
I have the same question, please help, thanks!

```
PyTorch version: 1.3.1
Is debug build: No
CUDA used to build PyTorch: 10.1.243

Python version: 3.6
Is CUDA available: No
CUDA runtime version: 10.0.130
GPU models and configuration:
GPU 0: TITAN Xp
GPU 1: TITAN Xp

Nvidia driver version: 418.87
cuDNN version: Could not collect
```
"""


def test_another_authors_collect_env_from_its_first_field_is_not_the_reporters():
    f = _facts(_ME_TOO)
    assert f["driver"]["version"] == "410.48"  # the reporter's sentence, not bob's 418.87
    assert not f.get("gpus")
    assert "torch" not in (f.get("frameworks") or {})


def test_the_reporters_own_collect_env_from_its_first_field_is_read():
    own = _ME_TOO.replace("bob · comment", "alice · comment").replace("I have driver version 410.48 installed.",
                                                                      "It fails.")
    f = _facts(own)
    assert f["frameworks"]["torch"]["version"] == "1.3.1" and f["driver"]["version"] == "418.87"
    assert [g["name"] for g in f["gpus"]] == ["TITAN Xp", "TITAN Xp"]


def test_thread_watch_marks_the_first_field_line_of_another_authors_comment():
    w = ThreadWatch()
    seen = [w.foreign(ln) for ln in ["alice · description · 2019-11-19", "it fails", "bob · comment · 2019-11-19",
                                     "Same question.", "```", "PyTorch version: 1.3.1", "Is debug build: No",
                                     "alice · comment · 2019-11-20", "PyTorch version: 1.3.0"]]
    assert seen == [False, False, False, False, False, True, True, False, False]
    # a sentence about a version is no collect_env line
    w = ThreadWatch()
    seen = [w.foreign(ln) for ln in ["alice · description · 2019-11-19", "bob · comment · 2019-11-19",
                                     "PyTorch version is not the problem here."]]
    assert seen == [False, False, False]


# --------------------------------------------------------------------------- a condition states no installed version
def test_when_i_use_torch_x_states_no_installed_torch():
    f = _facts("When I use torch 1.2, it can detect my gpu, however, torch 1.3 fails.\n")
    assert "torch" not in (f.get("frameworks") or {})
    # the same version said as the reporter's own is read
    f = _facts("I have torch 1.2.0 installed and CUDA is not available.\n")
    assert f["frameworks"]["torch"]["version"] == "1.2.0"


def test_when_elsewhere_in_the_sentence_keeps_the_version():
    """"when" that does not open a clause about using the version (pastes20f transformerlab-1330, pastes20s
    yolov7-segmentation-74): the version stated stays a fact."""
    f = _facts("On the GPU box, when starting the app the runtime reports **PyTorch `2.9.1+cpu`**, and no CUDA.\n")
    assert f["frameworks"]["torch"]["version"] == "2.9.1+cpu"
