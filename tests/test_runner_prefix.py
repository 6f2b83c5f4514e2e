"""A capture pasted from a cluster / build / container runner: the label every line carries is dropped before the
capture is read (envcheck.parse.captures.strip_runner_prefix, applied to a snapshot's text files)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from envcheck.parse.captures import strip_runner_prefix
from envcheck.parse.nvidia_smi import parse_smi

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "captures-runner")
# a Packer build log of a Kubernetes GPU AMI (2017), every line behind "    amazon-ebs: " (tests/data/README.md)
PACKER = os.path.join(DATA, "packer-amazon-ebs-nvidia-smi-375.66-k80.txt")


def test_packer_labelled_table_reads_its_gpu():
    text = open(PACKER, encoding="utf-8").read()
    # the label taken off by the snapshot reader, or by parse_smi itself (caps33: envcheck.parse.line_prefix, the same
    # readers for a snapshot's file and a paste): the same GPU either way
    for smi in (parse_smi(strip_runner_prefix(text)), parse_smi(text)):
        assert smi.driver_version == "375.66"
        assert [g.name for g in smi.gpus] == ["Tesla K80"] and smi.gpus[0].memory_total_mib == 11439


def test_snapshot_reads_the_labelled_capture(tmp_path):
    d = tmp_path / "snap"
    d.mkdir()
    (d / "nvidia-smi.txt").write_bytes(open(PACKER, "rb").read())
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", str(d)],
                         capture_output=True, text=True, timeout=120, env=env)
    rep = json.loads(out.stdout)
    assert rep["driver"]["version"] == "375.66"
    assert [g["name"] for g in rep["gpus"]] == ["Tesla K80"]


@pytest.mark.parametrize("label", ["nid005113 out: ", "node17: ", "[pod/trainer-0/main] ", "trainer-1  | "])
def test_each_runner_label_is_dropped(label):
    body = ["GPU  Temp   AvgPwr", "0    35.0c  90.0W", "1    36.0c  91.0W", ""]
    text = "\n".join(label + ln if ln else ln for ln in body) + "\n"
    assert strip_runner_prefix(text) == "\n".join(body) + "\n"


@pytest.mark.parametrize("text", [
    # real tool outputs whose own lines start with "Key:" (each key differs): left as they are
    "nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2024 NVIDIA Corporation\n"
    "Built on Thu_Mar_28_02:18:24_PDT_2024\nCuda compilation tools, release 12.4, V12.4.131\n",
    "ProductName:\t\tmacOS\nProductVersion:\t\t14.1.1\nBuildVersion:\t\t23B81\n",
    "HIP version: 6.0.32830-d62f6a171\n\n==hipconfig\nHIP_PATH           :/opt/rocm-6.0.2\n",
    # a label on fewer than 80% of the lines: not a runner's
    "node1: a\nnode1: b\nnode1: c\nx\ny\n",
    # two lines only
    "node1: a\nnode1: b\n",
])
def test_texts_without_one_label_are_unchanged(text):
    assert strip_runner_prefix(text) == text
