"""Bug-report pastes of issue 20, round 26: 49 real threads (2017-2026) sampled as a population from the places earlier
rounds sampled least (CatBoost, XGBoost, MindSpore, Jittor, cupy, Open3D, mmdetection3d, torchaudio, apex, TGI,
TensorRT-LLM, CTranslate2 users, ONNX Runtime users, unsloth, LLaVA, Fooocus, ROCm builds, cluster and container
trackers, Chinese posts), labelled before envcheck was run on them; a seeded 41% (random.Random(2626)) is held back in
heldout/pastes26-held (scored by scripts/score_pastes.py, not here).

What this round reads and decides, each from a miss of the working part, each read from the emitting source's own
format string:

* explain (role "tail", envcheck/explain/kb.py ROLES): the later line of a message whose first line is its cause's
  wording stands for the cause where a paste kept only that line. torch prints "The current PyTorch install supports
  CUDA capabilities ..." only inside its incompatible-GPU warning, so that line alone is gpu-arch-unsupported
  (fedbiomed#464); beside the warning's first line it stays a detail (no second count, the same evidence);
* compat_matrix/errors.toml: XGBoost's AssertGPUSupport ("XGBoost version not compiled with GPU support") is a build
  without CUDA (framework-cpu-only); its later context.cc warning "XGBoost is not compiled with CUDA support" is not read:
  XGBoost prints it also for a CUDA build that sees no GPU;
* compat_matrix/errors.toml: Open3D-ML's own check ("Open3D was built with CUDA X but PyTorch|Paddle was built with CUDA
  Y. Falling back to CPU") is its ops built for another CUDA variant of the framework (extension-abi-mismatch, like
  PyG's same check);
* compat_matrix/errors.toml: MindSpore GPU's own environment check: the import's OSError "MindSpore version X and cuda
  version Y does not match" and "Cuda [...] version(need by mindspore-gpu) is not found" (cuda-runtime-missing; its
  later WARNING form is not read), and its CMake's "Failed to find cudnn library file" (cudnn-missing).

Real samples: tests/data/pastes/pastes26/ (README.md cites each thread and gives its label).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from tests.helpers import assert_top_is_label, check_hand_written_facts, doc_matches, paste_readme_rows

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "pastes26"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}

#: the working part's misses, each with the answer it gets today (so that a fix, or a new wrong answer, is seen)
KNOWN_MISSES = {
    # the toolkit / torch mismatch is said only in Chinese prose ("/usr/local/cuda is a symlink to cuda10.2 ... torch
    # 1.12+cu113", fixed by CUDA_HOME=/usr/local/cuda-11.3): no report line states either CUDA (class c)
    "apex-1323-zh-cuda-home-10.2-symlink-torch-1.12-cu113.txt": None,
    # pip under the image's Python 3.8 finds no tensorrt-cu12_bindings==10.0.1: no matrix row gives the Pythons the
    # TensorRT 10.0 binding wheels exist for, and the same pip line also follows a missing --extra-index-url (class c)
    "tensorrt-llm-1563-p40-driver-450.80.02-cuda-11.6-image-py3.8-no-tensorrt-cu12-bindings.txt": None,
    # an RTX 5090 and "unsloth_zoo requires torch < 2.7.0", in prose: no torch installed is named, so no build's arch
    # list can be checked (class c)
    "unsloth-zoo-166-rtx5090-unsloth-zoo-pins-torch-below-2.7-cuda-12.8.txt": None,
}


def _doc(text: str) -> dict:
    return explain_text_document(text)


def _matches(text: str) -> list:
    return _doc(text).get("matches") or []


def _ids(text: str) -> list:
    return [m["id"] for m in _matches(text)]


def _facts(text: str) -> dict:
    return _doc(text).get("facts") or {}


def test_the_set_is_whole():
    assert len(ROWS) == 29
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert sum(1 for v in ROWS.values() if v == "none") >= 4
    held = {p.name for p in (ROOT / "heldout" / "pastes26-held").glob("*.txt")}
    assert len(held) == 20 and not held & set(ROWS)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_top_cause_is_the_label(name):
    doc = _doc((DATA / name).read_text(encoding="utf-8"))
    assert_top_is_label(doc_matches(doc), name, ROWS[name], KNOWN_MISSES)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_hand_written_facts(name):
    want = json.loads((DATA / name).with_suffix(".facts.json").read_text())
    check_hand_written_facts(want, _facts((DATA / name).read_text(encoding="utf-8")))


# --- torch's arch-list line: a tail of the incompatible-GPU warning ----------------------------------------------------
_ARCH_ONLY = (DATA / "fedbiomed-464-rtx-a6000-torch-supports-sm37-sm70.txt").read_text(encoding="utf-8")
#: the whole warning as torch prints it (johnolafenwa/DeepStack#129, tests/data/pastes/pastes20h: a GT 710, sm_35)
_WHOLE = "".join((ROOT / "tests" / "data" / "pastes" / "pastes20h" / "deepstack-129-gt710-sm35-build-sm37-docker-python-3.7.txt")
                 .read_text(encoding="utf-8").splitlines(True)[6:9])


def test_the_arch_list_line_alone_is_the_cause():
    top = _matches(_ARCH_ONLY)[0]
    assert top["id"] == "gpu-arch-unsupported"
    assert top["signature"] == "torch-supported-capabilities"
    assert top["captures"].get("arch_list") == "sm_37 sm_50 sm_60 sm_70"


def test_beside_the_first_line_the_arch_list_stays_a_detail():
    matches = [m for m in _matches(_WHOLE) if m["id"] == "gpu-arch-unsupported"]
    assert len(matches) == 1
    m = matches[0]
    # the first line stays the evidence; the tail adds its arch list and no count of its own (the same match as the
    # warning without that line)
    without = [x for x in _matches("".join(ln for ln in _WHOLE.splitlines(True) if "install supports" not in ln))
               if x["id"] == "gpu-arch-unsupported"][0]
    assert m["signature"] == without["signature"] == "torch-capability-not-compatible"
    assert m["count"] == without["count"] and m["evidence"] == without["evidence"]
    assert "is not compatible" in m["evidence"]
    assert m["captures"].get("sm") == "35" and m["captures"].get("arch_list") == "sm_37 sm_50 sm_60 sm_70 sm_75"


def test_a_detail_line_alone_is_still_no_match():
    # jax-feedstock's "Minimum supported" / "Installed version" lines are details (role = "detail"), not tails: alone
    # they name no cause (conda-forge/jax-feedstock#149's lines without its "Outdated cuDNN installation found")
    assert _ids("    Minimum supported: 8907\n    Installed version: 8600\n") == []


# --- XGBoost's own build check -----------------------------------------------------------------------------------------
def test_xgboost_without_gpu_support_is_a_cpu_build():
    # dmlc/xgboost#4355 (a Jetson Nano, xgboost 0.83.dev0)
    line = ("XGBoostError: [12:54:26] /home/lly2014/xgboost/src/learner.cc:180: XGBoost version not compiled with GPU "
            "support.\n")
    top = _matches(line)[0]
    assert top["id"] == "framework-cpu-only" and top["signature"] == "xgboost-version-not-compiled-with-gpu"
    assert "XGBoost" in top["fixes"][0] and "PyPI" in top["fixes"][0]


def test_xgboost_no_visible_gpu_warning_is_no_cpu_build():
    # dmlc/xgboost#11482: context.cc prints "is not compiled with CUDA support" right after "No visible GPU is found"
    # (a CUDA build seeing no GPU prints both): not read as a CPU-only build
    text = ("UserWarning: [09:06:37] WARNING: /workspace/src/context.cc:49: No visible GPU is found, setting device to "
            "CPU.\n"
            "UserWarning: [09:06:37] WARNING: /workspace/src/context.cc:203: XGBoost is not compiled with CUDA "
            "support.\n")
    assert "framework-cpu-only" not in _ids(text)


# --- Open3D-ML's check of its ops against the framework's CUDA ---------------------------------------------------------
@pytest.mark.parametrize("line, ops, framework", [
    # syguan96/NeuroFluid#15 (print() of open3d/ml/torch/__init__.py: no space between "but" and "PyTorch")
    ("Warning: Open3D was built with CUDA 11.0 butPyTorch was built with CUDA 11.1. Falling back to CPU for now."
     "Otherwise, install PyTorch with CUDA 11.0.", "11.0", "11.1"),
    # open3d/ml/paddle/__init__.py's same format string
    ("Warning: Open3D was built with CUDA 11.4 butPaddle was built with CUDA 10.2. Falling back to CPU for now."
     "Otherwise, install Paddle with CUDA 11.4.", "11.4", "10.2"),
])
def test_open3d_ops_for_another_cuda(line, ops, framework):
    top = _matches(line + "\n")[0]
    assert top["id"] == "extension-abi-mismatch" and top["signature"] == "open3d-ml-ops-cuda-differs"
    assert top["captures"].get("package_cuda") == ops and top["captures"].get("torch_cuda") == framework


def test_open3d_with_matching_cuda_says_nothing():
    # Open3D's other warning, printed where its CPU bindings are missing: no CUDA pair, no cause
    text = ("ImportWarning: Open3D was built with CUDA support, but Open3D CPU Python bindings were not found. Open3D "
            "will not work on systems without CUDA devices.\n")
    assert "extension-abi-mismatch" not in _ids(text)


# --- MindSpore GPU's environment check ---------------------------------------------------------------------------------
def test_mindspore_import_error_names_the_cuda():
    # mindspore-ai/mindspore#89 (MindSpore 1.0.0's CUDA 10.1 wheel on CUDA 10.0)
    top = _matches("OSError: MindSpore version 1.0.0 and cuda version 10.0 does not match,\n")[0]
    assert top["id"] == "cuda-runtime-missing"
    assert top["captures"] == {"mindspore_version": "1.0.0", "cuda_version": "10.0"}


def test_mindspore_warning_form_is_not_read():
    # mindspore-ai/mindspore#105: the same sentence as a WARNING while the user's own CUDA 10.1 is the one on
    # LD_LIBRARY_PATH: MindSpore's check read another CUDA's version.txt, so it names no certain cause
    line = ("[WARNING] ME(39922:140551200737088,MainProcess):2021-01-23-15:05:55.109.91 [mindspore/_check_version.py:96] "
            "MindSpore version 1.1.0 and cuda version 9.0 does not match, reference to the match info on: "
            "https://www.mindspore.cn/install\n")
    assert "cuda-runtime-missing" not in _ids(line)


def test_mindspore_nvcc_sentence_is_no_runtime_cause():
    # _check_version.py's sentence for nvcc (the toolkit's compiler, not the libraries the wheel loads)
    line = ("MindSpore version 1.8.1 and nvcc(cuda bin) version 10.1 does not match, please refer to the installation "
            "guide for version matching information: https://www.mindspore.cn/install\n")
    assert "cuda-runtime-missing" not in _ids(line)


def test_mindspore_build_without_cudnn():
    # mindspore-ai/mindspore#91: CMake's message, wrapped by CMake across two lines
    text = ("CMake Error at mindspore/ccsrc/CMakeLists.txt:40 (message):\n"
            "  Failed to find cudnn library file, please set environment variable\n"
            "  CUDNN_HOME to cudnn installation position.\n")
    assert _ids(text)[:1] == ["cudnn-missing"]
