"""Session 24, helper pastes40: pastes in forms the readers missed.

* Mangled library names (paste/readers/prose_lib.py): the loader's line of a title that lost the dot before ``so``
  ("ImportError: libcudartso.11.0: cannot open shared object file", PaddlePaddle/Paddle#53775), full-width colons of a
  Chinese text, Markdown's escaped underscores; an issue title that is the library alone ("# libcudart.so.11.0",
  PaddlePaddle/PaddleOCR#11688). A name is restored only where the meaning is certain (a known library's stem glued
  to ``so``; the version as written).
* Newer tools' env dumps: ``lmdeploy check_env`` (OpenMMLab's layout, with or without its ``sys.platform`` row, on
  Windows, with several GPU rows) lands torch, its CUDA, nvcc, Python and the GPUs in ``facts``; ``python -m
  bitsandbytes``'s CPU fallback is named.

Samples: tests/data/pastes40 (README cites each thread); heldout/pastes40-held was set aside before the rules.
"""

from __future__ import annotations

import os

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import prose_lib
from helpers import paste_readme_rows, paste_top

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "pastes40")
SPENT = os.path.join(os.path.dirname(HERE), "heldout")
ROWS = paste_readme_rows(DATA)


def _doc(name: str) -> dict:
    with open(os.path.join(DATA, name), encoding="utf-8") as fh:
        return explain_text_document(fh.read())


def _said(line: str) -> list:
    return [f.value.partition(" | ")[0] for f in prose_lib.line_facts(line, line.lower()) if f.field == "seen:lib-said-error"]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_dev_thread_top_cause_is_its_label(name):
    assert paste_top(_doc(name)) == ROWS[name][0]


def test_the_readme_lists_every_sample_and_three_controls():
    assert {f for f in os.listdir(DATA) if f.endswith(".txt")} == set(ROWS)
    assert sum(1 for label, _ in ROWS.values() if label == "none") >= 3


def test_the_spent_paddle_title_without_its_dot_is_read():
    name = "paddle-53775-zh-conda-paddlepaddle-gpu-2.4.2-cudatoolkit-11.6-importerror-libcudart-so-11.0.txt"
    with open(os.path.join(SPENT, "acceptance28", "pastes", name), encoding="utf-8") as fh:
        assert paste_top(explain_text_document(fh.read())) == "cuda-runtime-missing"


@pytest.mark.parametrize("line, lib", [
    # Paddle#53775's title as it was posted
    ("# 安装cuda11.6版本的paddlepaddle 运行报错（ImportError: libcudartso.11.0: cannot open shared object file: No such "
     "file or directory）", "libcudart.so.11.0"),
    # full-width colon after the library (a Chinese text's punctuation)
    ("ImportError: libcudnn.so.8：cannot open shared object file: No such file or directory", "libcudnn.so.8"),
    # Markdown's escaped underscores, as a raw issue body keeps them
    ("Error: libcudnn\\_ops\\_infer.so.8: cannot open shared object file: No such file or directory",
     "libcudnn_ops_infer.so.8"),
    ("# libcudart.so.11.0", "libcudart.so.11.0"),
    ("# `libcublas.so.11`", "libcublas.so.11"),
])
def test_a_mangled_loader_line_or_a_library_title_names_the_library(line, lib):
    assert _said(line) == [lib]


@pytest.mark.parametrize("line", [
    # an intact loader line is the knowledge base's (not said twice here)
    "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
    # a stem that is no known CUDA library is not restored
    "OSError: libfooso.1.2: cannot open shared object file",
    # a glued name without the loader's words, and a title that says more than the library
    "I see libcudartso.11.0 in the folder",
    "# libcudart.so.11.0 is there but torch does not find it",
    # no version in the name: nothing certain
    "# libcudart.so",
])
def test_lines_that_are_not_a_mangled_failure_say_nothing(line):
    assert _said(line) == []


def test_lmdeploy_check_env_without_its_platform_row_lands_its_facts():
    facts = _doc("lmdeploy-2414-check-env-no-platform-grid-v100d.txt")["facts"]
    assert facts["frameworks"]["torch"]["version"] == "2.3.1+cu121"
    assert facts["frameworks"]["torch"]["cuda"] == "12.1"
    assert facts["toolkit"]["nvcc"] == "12.2.140"
    assert facts["python"]["version"] == "3.8.20"
    assert [g["name"] for g in facts["gpus"]] == ["GRID V100D-32C"]


def test_lmdeploy_check_env_on_windows_lands_its_facts():
    facts = _doc("lmdeploy-3825-check-env-windows.txt")["facts"]
    assert facts["frameworks"]["torch"]["version"] == "2.6.0+cu126"
    assert facts["toolkit"]["version"] == "12.8"
    assert facts["python"]["version"] == "3.12.11"
    assert [g["name"] for g in facts["gpus"]] == ["NVIDIA GeForce RTX 4060 Laptop GPU"]


def test_lmdeploy_check_env_gpu_rows_of_several_models_keep_their_indices():
    facts = _doc("lmdeploy-4049-check-env-mixed-gpu-rows.txt")["facts"]
    assert [(g["index"], g["name"]) for g in facts["gpus"]] == [
        (0, "Tesla V100-SXM2-32GB"), (1, "Tesla V100-SXM2-32GB"), (2, "Tesla PG503-216"), (3, "NVIDIA GeForce RTX 2080 Ti")]
    assert facts["frameworks"]["torch"]["cuda"] == "12.8"


# -- Ollama's debug GPU discovery (paste/readers/ollama_debug.py): samples in tests/data/pastes40/facts
FACTS = os.path.join(DATA, "facts")


def _facts(name: str) -> dict:
    with open(os.path.join(FACTS, name), encoding="utf-8") as fh:
        return explain_text_document(fh.read())["facts"]


def test_every_facts_sample_is_cited_in_the_readme():
    with open(os.path.join(DATA, "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    for name in os.listdir(FACTS):
        assert f"| facts/{name} | https://github.com/ollama/ollama/" in readme, name


def test_ollama_debug_cuda_probe_gives_the_drivers_cuda_and_each_gpus_capability():
    facts = _facts("ollama-8963-debug-discovery-8x-v100-cc70.txt")
    assert facts["driver"]["cuda"] == "12.2" and facts["driver"]["version"] is None  # cuDriverGetVersion: a CUDA
    # five UUIDs shown (the paste is cut): one GPU each, in the order of their first row
    assert [(g["index"], g["compute_capability"], g["name"]) for g in facts["gpus"]] == [(i, "7.0", None) for i in range(5)]


def test_ollama_debug_memory_lines_name_the_gpus():
    facts = _facts("ollama-9508-debug-discovery-4x-v100-cuda118.txt")
    assert facts["driver"]["cuda"] == "11.8"
    assert [g["name"] for g in facts["gpus"]] == ["Tesla V100-PCIE-32GB"] * 4


def test_ollama_nvml_era_driver_line_is_the_driver_release_not_a_cuda():
    facts = _facts("ollama-2573-nvml-era-windows-rtx3060.txt")
    assert facts["driver"]["version"] == "546.01" and facts["driver"]["cuda"] is None
    assert [(g["index"], g["name"]) for g in facts["gpus"]] == [(0, "NVIDIA GeForce RTX 3060")]


def test_ollama_debug_block_leaves_the_inference_compute_line_to_its_reader():
    # journald's Chinese prefix; the summary line after the probe still names the GPU
    facts = _facts("ollama-9245-zh-journald-debug-discovery-rtx4080.txt")
    assert facts["driver"]["cuda"] == "12.3"
    assert [(g["index"], g["name"], g["compute_capability"]) for g in facts["gpus"]] == [(0, "NVIDIA GeForce RTX 4080", "8.9")]


@pytest.mark.parametrize("text", [
    # a user's own bullet or sentence is not Ollama's probe
    "- CUDA driver version: 12.2",
    "My CUDA driver version: 12.2",
    # a value that is neither a CUDA nor a driver release
    "CUDA driver version: 1",
])
def test_lines_that_are_not_ollamas_probe_are_not_read_as_its_driver_line(text):
    from envcheck.paste.readers import ollama_debug
    from envcheck.paste.readers.base import view
    c = view([text], 0)
    assert not ollama_debug.detect(c) or not [f for f in ollama_debug.read([text]).facts if f.field in ("smi_cuda", "driver")]


# -- torch's "PyTorch built with" block (paste/readers/detectron2.py built_item, shared by torch_config, mmcv_env, the
# check_env forms): cuDNN 9 as torch packs it, and torch 2.4+'s "(built against CUDA X.Y)" suffix
def test_lmdeploy_check_env_cudnn_9_is_unpacked_and_no_false_arch_finding():
    doc = _doc("lmdeploy-4049-check-env-mixed-gpu-rows.txt")  # "CuDNN 91.0.2  (built against CUDA 12.9)"
    assert doc["facts"]["frameworks"]["torch"]["cudnn"] == "9.10.2"
    assert paste_top(doc) == "none"  # cuDNN 9.10.2 is below the release that drops Volta's kernels
    assert _doc("lmdeploy-3825-check-env-windows.txt")["facts"]["frameworks"]["torch"]["cudnn"] == "9.5.1"  # "CuDNN 90.5.1"


@pytest.mark.parametrize("item, want", [
    ("CuDNN 90.1  (built against CUDA 12.4)", "9.1.0"),  # torch 2.5.1+cu121's block (its CUDNN_VERSION=9.1.0)
    ("CuDNN 91.0.2  (built against CUDA 12.9)", "9.10.2"),
    ("CuDNN 90.5.1", "9.5.1"),
    ("CuDNN 8.9.2", "8.9.2"),  # cuDNN 8's own form, unchanged
    ("CuDNN 8.5", "8.5"),
])
def test_torch_built_with_cudnn_item(item, want):
    from envcheck.paste.readers import detectron2
    assert [f.value for f in detectron2.built_item(item, item) if f.field == "torch.cudnn"] == [want]
