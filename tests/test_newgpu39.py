"""newgpu39: a GPU newer than the CUDA it is given, told in prose, templates or a container tag (session 23).

The reader envcheck/paste/readers/cuda_used.py keeps the CUDA a build / image / environment is made with and what a
sentence says of it against the GPU; the engine (envcheck/engine/prose_causes.py ``arch_stated``) says
``gpu-arch-unsupported`` only where the matrix's toolkit targets (compat_matrix/cuda.toml ``[[targets]]``) say no build
of that CUDA has code for the GPU (a GPU reached through PTX of its major is not out of reach).

Real samples: tests/data/newgpu39 (README.md cites each thread); heldout/newgpu39-held is the held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import cuda_used
from envcheck.paste.sections import read_report
from helpers import readme_labels

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "newgpu39"
LABELS = readme_labels(DATA)


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def _top(text: str) -> str:
    ids = _ids(text)
    return ids[0] if ids else "none"


def _evidence(line: str) -> dict:
    return {f.field[5:]: f.value for f in cuda_used.line_facts(line, line.lower())}


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert sum(v == "none" for v in LABELS.values()) >= 2


@pytest.mark.parametrize("name", sorted(LABELS))
def test_each_sample(name):
    assert _top((DATA / name).read_text(encoding="utf-8")) == LABELS[name]


# ------------------------------------------------------------------ the reader, on lines of the threads cited

def test_built_with_and_required_in_one_sentence():
    got = _evidence("The docker image provided is built with `cuda 10.1`. However, 3090 GPU requires `cuda 11`.")
    assert got["cuda-used-said"].startswith("10.1 | ")
    assert got["arch-cuda-said"].startswith("RTX 3090 | - | ")


def test_template_field_and_image_tag():
    assert _evidence("cuda ver: 10.2")["cuda-used-said"].startswith("10.2 | ")
    assert _evidence("- CUDA/cuDNN version: 10.0/7.6.0.64")["cuda-used-said"].startswith("10.0 | ")
    assert _evidence("base image nvidia/cuda:12.2.2-devel-ubuntu22.04 is old")["cuda-used-said"].startswith("12.2 | ")
    assert _evidence("from Docker image tensorflow/tensorflow:1.14.0-gpu-py3")["tf-image-said"].startswith("1.14 | ")


def test_a_change_names_the_old_one_used_and_the_new_one_the_fix():
    line = ("Just update base image from `nvidia/cuda:10.0-cudnn7-devel-ubuntu18.04` to "
            "`nvidia/cuda:11.1-cudnn8-devel-ubuntu18.04` and update ArrayFire to v3.7.3 will resolve this issue.")
    got = _evidence(line)
    assert got["cuda-used-said"].startswith("10.0 | ")
    assert got["cuda-fix-said"].startswith("11.1 | ")


def test_not_read_as_in_use():
    assert "cuda-used-said" not in _evidence("Fix: change the base image to nvidia/cuda:12.8.1-devel-ubuntu22.04")
    assert "cuda-used-said" not in _evidence("conda install paddlepaddle-gpu==2.4.1 cudatoolkit=11.2 -c conda-forge")
    assert "cuda-used-said" not in _evidence("Previously I used CUDA 10.2 on it, now 11.3.")
    assert "cuda-used-said" not in _evidence("Is it built with CUDA 10.1?")


def test_hedged_or_questions_are_not_said():
    hedged = ("I'm not sure about this, but I think Ampere GPUs usually require at least CUDA 11, which Tensorflow 2.4.0 "
              "requires.")
    assert "arch-cuda-said" not in _evidence(hedged)
    asked = _evidence("是因为30系列显卡和cuda版本不兼容导致的吗？")
    assert "arch-cuda-said" not in asked and "arch-cuda-asked" in asked


# ------------------------------------------------------------------ the engine, on texts built from those lines

_SAID = "The docker image provided is built with `cuda 10.1`. However, 3090 GPU requires `cuda 11`."


def test_the_matrix_decides_not_the_sentence():
    # the same sentence with a CUDA that reaches the GPU (11.1 targets sm_86) says nothing
    assert _top("The docker image provided is built with `cuda 11.1`. However, 3090 GPU requires `cuda 11`.") == "none"
    assert _top(_SAID) == "gpu-arch-unsupported"


def test_ptx_of_the_same_major_is_not_out_of_reach():
    # CUDA 11.0's newest target is sm_80: an RTX 3090 (8.6) runs its code; CUDA 11.7 reaches an RTX 4090 (8.9)
    assert _top("The image is built with CUDA 11.0. The RTX 3090 requires CUDA 11.1, it does not work.") == "none"
    assert _top("The image is built with CUDA 11.7. The RTX 4090 requires CUDA 11.8, it does not work.") == "none"
    # CUDA 12.4's newest target is 9.0: an RTX 5090 (12.0) is of a newer major
    assert _top("The image is built with CUDA 12.4. The RTX 5090 requires CUDA 12.8.") == "gpu-arch-unsupported"


def test_a_cuda_and_a_gpu_without_anything_said_decide_nothing():
    assert _top("I have an RTX 3090. The docker image provided is built with cuda 10.1.") == "none"


def test_fix_alone_needs_the_new_cuda_to_reach_the_gpu():
    base = "Training on my RTX3090 in the docker image. Just update base image from `nvidia/cuda:10.0-devel` to "
    assert _top(base + "`nvidia/cuda:11.1-devel` will resolve this issue.") == "gpu-arch-unsupported"
    assert _top(base + "`nvidia/cuda:10.2-devel` will resolve this issue.") == "none"


def test_evidence_names_both_facts():
    doc = explain_text_document(_SAID)
    m = doc["matches"][0]
    text = str(m)
    assert "3090" in text and "10.1" in text


def test_report_lines_keep_the_first():
    rep = read_report((DATA / "flashlight-357-rtx3090-docker-nvidia-cuda-10.0-base-image-fixed-by-11.1.txt")
                      .read_text(encoding="utf-8"))
    assert rep.lines["cuda-used-said"].startswith("10.0 | ")
    assert rep.lines["cuda-fix-said"].startswith("11.1 | ")


def test_a_build_target_named_is_not_the_gpu():
    # bevfusion#127's maintainer, of a GTX TITAN X (5.2, which CUDA 10.2 targets): sm_80 is the build's flag
    text = ("I have installed Cuda-10.2 on my GTX TITAN X.\nThe reason why you meet with this error is that `compute_80` "
            "and `sm_80` is too new for your nvcc compiler.")
    assert "gpu-arch-unsupported" not in _ids(text)


def test_a_toolkit_pin_in_a_sentence_is_read_not_in_a_command():
    assert _evidence("cudatoolkit=11.8.0 is not supported for NVIDIA RTX5080")["cuda-used-said"].startswith("11.8 | ")
    assert "cuda-used-said" not in _evidence("conda install pytorch cudatoolkit=10.2 -c pytorch")
