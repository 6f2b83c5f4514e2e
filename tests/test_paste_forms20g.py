"""OpenMMLab's environment block (mmcv / mmengine ``collect_env`` as printed by mmdet, mmseg, mmdet3d, ...) and
TensorFlow's issue template as a dash list (issue 20, forms20g).

Real samples: tests/data/pastes/forms20g/ (tests/data/README.md cites each thread). heldout/forms20g/ is scored by
``python3 heldout/pastes20f/score.py heldout/forms20g``, not here. Expected facts are hand-written from the texts.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import READERS, mmcv_env
from envcheck.paste.readers.base import view

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_hand_written_facts  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "forms20g"


def _facts(text: str) -> dict:
    return explain_text_document(text)["facts"]


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.facts.json")))
def test_facts_are_the_hand_written_ones(name):
    want = json.loads((DATA / name).read_text())
    check_hand_written_facts(want, _facts((DATA / name.replace(".facts.json", ".txt")).read_text()))


def test_the_reader_is_registered_before_the_key_value_readers():
    names = [r.NAME for r in READERS]
    assert names.index(mmcv_env.NAME) < names.index("environment bullets")


def test_the_block_is_taken_from_sys_platform_to_its_last_row():
    # mmdetection#6757: a sentence, a blank line, then the block to the end of torch's build block
    lines = (DATA / "mmlab-mmdet-6757-3060-laptop-nvcc-build.txt").read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("sys.platform:"))
    assert mmcv_env.detect(view(lines, start)) == len(lines) - start
    assert mmcv_env.detect(view(lines, 0)) == 0


def test_the_rows_after_the_build_block_are_in_the_block_and_prose_after_is_not():
    lines = (DATA / "mmlab-miaod-38-p40-cuda-runtime-10.2.txt").read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("sys.platform:"))
    tail = ["", "When I train SSD the loss is nan: what is wrong?"]
    n = mmcv_env.detect(view(lines + tail, start))
    assert (lines + tail)[start + n - 1] == "MMDetection: 2.3.0+e343491"


def test_one_row_for_several_identical_gpus_lists_each():
    # the row of open-mmlab/mmcv#1470 ('GPU 0,1': 'NVIDIA TITAN RTX'), as mmdet's collect_env.py prints it ("k: v")
    text = ("sys.platform: linux\nCUDA available: True\nGPU 0,1: NVIDIA TITAN RTX\nCUDA_HOME: /usr/local/cuda-10.2\n"
            "NVCC: Cuda compilation tools, release 10.2, V10.2.89\nPyTorch: 1.9.1\n")
    gpus = _facts(text)["gpus"]
    assert [(g["index"], g["name"]) for g in gpus] == [(0, "NVIDIA TITAN RTX"), (1, "NVIDIA TITAN RTX")]


def test_mmcv_cuda_compiler_is_not_the_installed_toolkit():
    # "MMCV CUDA Compiler" is the CUDA mmcv was built with; with "NVCC: Not Available" no toolkit is known
    text = ("sys.platform: linux\nPython: 3.7.0 (default, Jun 28 2018, 13:15:42) [GCC 7.2.0]\nCUDA available: True\n"
            "NVCC: Not Available\nPyTorch: 1.9.1\nMMCV: 1.3.16\nMMCV Compiler: GCC 7.3\nMMCV CUDA Compiler: 10.2\n")
    f = _facts(text)
    assert f["toolkit"]["version"] is None and f["toolkit"]["nvcc"] is None
    assert f["frameworks"]["torch"]["cuda"] is None


def test_a_block_cut_inside_torchs_build_block_keeps_what_it_read():
    text = (DATA / "mmlab-td3d-12-a40-cu111.txt").read_text()
    cut = text[: text.index("  - CuDNN")]
    f = _facts(cut)
    assert f["frameworks"]["torch"]["cuda"] == "11.1" and f["frameworks"]["torch"]["cudnn"] is None
    assert [g["name"] for g in f["gpus"]] == ["NVIDIA A40"]


def test_a_cudnn_list_the_user_tried_is_no_claim():
    f = _facts((DATA / "tf-22900-bold-dash-list-cudnn-tried-two.txt").read_text())
    assert (f.get("claims") or {}).get("cudnn") is None


def test_a_single_cudnn_after_its_label_is_still_the_claim():
    f = _facts("- CUDA/cuDNN version: CUDA 10.0, cuDNN 7.4.1\n- TensorFlow version: 1.13.1\n")
    assert f["claims"]["cuda"] == "10.0" and f["claims"]["cudnn"] == "7.4.1"


# --- the same TensorFlow said twice: the more precise certain value wins (never a guess)
def _tf(text: str):
    return (_facts(text).get("frameworks") or {}).get("tensorflow", {}).get("version")


def test_a_later_full_version_makes_the_templates_short_one_precise():
    # the template's field ("TensorFlow version: 2.18") then the REPL's answer to tf.__version__
    assert _tf("- TensorFlow version: 2.18\n\n>>> tf.__version__\n'2.18.0'\n") == "2.18.0"


def test_an_earlier_full_version_is_not_made_less_precise():
    assert _tf("- TensorFlow version: 2.18.0\n\n>>> tf.__version__\n'2.18'\n") == "2.18.0"


def test_a_version_that_only_shares_a_prefix_is_no_refinement():
    # 2.1 and 2.10.0 are different releases: the first read stays, nothing is merged into a guess
    assert _tf("- TensorFlow version: 2.1\n\n>>> tf.__version__\n'2.10.0'\n") == "2.1"


def test_a_package_row_makes_the_templates_short_version_precise():
    text = ("- TensorFlow version: 2.15\n\n```\nPackage                      Version\n---------------------------- -------\n"
            "tensorflow                   2.15.1\nnumpy                        1.26.4\n```\n")
    assert _tf(text) == "2.15.1"


@pytest.mark.parametrize("old,new,want", [("2.18", "2.18.0", True), ("2.18", "2.18.0rc1", True), ("2.1", "2.10.0", False),
                                          ("2.18.0", "2.18", False), ("2.18", "2.17.1", False), (None, "2.18.0", False)])
def test_refines(old, new, want):
    from envcheck.paste.merge import refines
    assert refines(old, new) is want
