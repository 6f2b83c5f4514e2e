"""A logger's prefix before each line of a report (envcheck.parse.log_stamp): the paste readers read the line as the
tool printed it, behind OpenMMLab's ``MM/DD HH:MM:SS - mmengine - INFO -``, Python logging's, ComfyUI's bracketed
stamp, loguru's, vLLM's, or a log collector's RFC 3339 stamp; TensorFlow's and glog's own line heads are not a prefix
(the knowledge base reads them).

Real texts: tests/data/log_stamp (README: file, source, note; each ``.facts.json`` hand-written from the text) and the
spent acceptance22's open-mmlab/mmdeploy#2077, whose torch was not read before."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_paste_facts, sample_rows  # noqa: E402

from envcheck.parse import log_stamp  # noqa: E402

HERE = os.path.dirname(__file__)
DATA = os.path.join(HERE, "data", "log_stamp")
ROWS = sample_rows(DATA, ".txt", r"https://\S+|find_string id \d+")


def test_listing():
    files = sorted(f for f in os.listdir(DATA) if f.endswith(".txt"))
    assert sorted(r[0] for r in ROWS) == files and len(files) >= 4
    assert all(os.path.exists(os.path.join(DATA, f[:-4] + ".facts.json")) for f in files)


@pytest.mark.parametrize("name", [r[0][:-4] + ".facts.json" for r in ROWS])
def test_facts_behind_the_prefix(name):
    check_paste_facts(DATA, name)


def test_the_thread_that_showed_the_gap():
    from envcheck.explain.document import explain_text_document

    path = os.path.join(os.path.dirname(HERE), "heldout", "acceptance22", "pastes",
                        "mmdeploy-2077-control-mmpretrain-not-in-codebases-registry-check-env-centos-cpu-torch-2.0.0.txt")
    with open(path, encoding="utf-8") as fh:
        doc = explain_text_document(fh.read())
    assert doc["facts"]["frameworks"]["torch"]["version"] == "2.0.0"
    assert doc["matches"] == []  # a control: the registry KeyError is no environment failure


@pytest.mark.parametrize("line,rest", [
    ("05/15 01:10:51 - mmengine - INFO - PyTorch: 2.0.0", "PyTorch: 2.0.0"),
    ("2024/10/15 13:48:48 - mmengine - INFO - Python: 3.8.18", "Python: 3.8.18"),
    ("2020-10-21 13:58:12,888 - mmdet - INFO - Environment info:", "Environment info:"),
    ("[2024-11-06 23:40:38.512] Total VRAM 24576 MB, total RAM 65349 MB", "Total VRAM 24576 MB, total RAM 65349 MB"),
    ("2024-06-25T18:45:27.095437505Z |   0  NVIDIA A100 80GB PCIe", "|   0  NVIDIA A100 80GB PCIe"),
    ("2024-06-01 10:00:00.123 | INFO     | __main__:main:12 - torch 2.1.0+cu121", "torch 2.1.0+cu121"),
    ("INFO 05-01 10:00:00 [config.py:12] Using device cuda", "Using device cuda"),
])
def test_prefixes_taken_off(line, rest):
    assert log_stamp.strip(line) == rest


@pytest.mark.parametrize("line", [
    # TensorFlow's own head (its severity and source file are read by the knowledge base)
    "2023-01-01 12:00:00.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1510] Created device",
    # glog's
    "I0613 12:00:00.123456 140 gpu_device.cc:1510] Created TensorFlow device",
    # Go's standard logger (the k8s device plugin logging NVML's failure: a Go program's line, not nvidia-smi's own;
    # tests/data/logs/nvlogs26's NVIDIA/gpu-operator#250)
    "2021/08/27 23:03:50 Failed to initialize NVML: could not load NVML library.",
    # a stamp alone, a date inside a sentence, a version that looks like a date
    "2024-01-01 10:00:00",
    "Driver Version: 535.104.05   CUDA Version: 12.2",
    "Installed on 2024-01-01 10:00:00 by the admin",
    "INFO: the log level word alone is no prefix",
])
def test_other_lines_kept(line):
    assert log_stamp.strip(line) == line


def test_hostile_lines_are_linear():
    # each part of the grammar is bounded: a long run of what almost matches costs one pass
    assert log_stamp.strip("2024-05-15 01:10:51 - " + "m" * 200_000) == "m" * 200_000
    for bad in ("[" + "2024-01-01 10:00:00" * 20_000, "INFO " + "0" * 200_000, "05/15 01:10:51 - x" * 20_000):
        assert bad.endswith(log_stamp.strip(bad))
