"""Facts read from real paste snippets (issue 13 §2 ``facts``): collect_env's library block and framework
log lines that state a fact. Snippets: tests/data/pastes/facts13 (sources in tests/data/README.md)."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from envcheck.cli import cli
from envcheck.paste import PasteCollector, read_report

HERE = os.path.join(os.path.dirname(__file__), "data", "pastes", "facts13")


def text(name: str) -> str:
    with open(os.path.join(HERE, name), encoding="utf-8") as fh:
        return fh.read()


def kb_lines():
    """explain's reader of framework log lines (the knowledge base's patterns), as explain hands it down."""
    from envcheck.explain.kb import load_kb
    from envcheck.explain.logfacts import line_reader

    return line_reader(load_kb())


def facts(name: str) -> dict:
    res = CliRunner().invoke(cli, ["explain", os.path.join(HERE, name), "--json", "--no-detect"])
    assert res.exit_code in (0, 1), res.output
    return json.loads(res.output)["facts"]


def test_conda_build_string_gives_torch_cudnn_next_to_a_pip_row_of_the_same_version():
    f = facts("collect-env-2.1.0-conda-cuda12.1-cudnn8.9.2-rtx4080.txt")
    assert f["frameworks"] == {"torch": {"version": "2.1.0", "cuda": "12.1", "cudnn": "8.9.2"}}
    assert f["toolkit"] == {"version": "12.3", "nvcc": "12.3.107"}  # collect_env's "CUDA runtime" is nvcc's


def test_cuda_used_to_build_wins_over_a_conda_build_that_contradicts_it():
    t = text("collect-env-2.1.0-conda-cuda12.1-cudnn8.9.2-rtx4080.txt").replace(
        "CUDA used to build PyTorch: 12.1", "CUDA used to build PyTorch: 11.8")
    assert read_report(t).facts["frameworks"]["torch"] == {"version": "2.1.0", "cuda": "11.8", "cudnn": None}
    t = t.replace("CUDA used to build PyTorch: 11.8", "CUDA used to build PyTorch: None")
    assert read_report(t).facts["frameworks"]["torch"] == {"version": "2.1.0", "cuda": None, "cudnn": None}


def test_pytorch_cuda_and_cudatoolkit_rows_alone_say_nothing_of_torch():
    # a conda-forge CPU pytorch next to the pytorch channel's pytorch-cuda metapackage (real rows)
    t = ("[conda] pytorch                   1.13.1          cpu_py310hd11e9c7_1    conda-forge\n"
         "[conda] pytorch-cuda              11.7                 h778d358_5    pytorch\n"
         "[conda] cudatoolkit               11.3.1               h59b6b97_2\n")
    assert read_report(t).facts["frameworks"]["torch"] == {"version": "1.13.1", "cuda": None, "cudnn": None}


def test_a_conda_listed_pip_torch_makes_the_conda_build_uncertain():
    t = ("[conda] pytorch                   2.1.0           py3.9_cuda12.1_cudnn8.9.2_0    pytorch\n"
         "[conda] torch                     2.1.0                    pypi_0    pypi\n")
    assert read_report(t).facts["frameworks"]["torch"]["cudnn"] is None


def test_torch_na_in_collect_env_is_unknown_not_a_cpu_build():
    # collect_env could not import torch ("PyTorch version: N/A"): the pip row and its +cu label still say the build
    t = ("Collecting environment information...\nPyTorch version: N/A\nIs debug build: N/A\n"
         "CUDA used to build PyTorch: N/A\nROCM used to build PyTorch: N/A\n\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
         "Versions of relevant libraries:\n[pip3] nvidia-cudnn-cu12==9.1.0.70\n[pip3] torch==2.5.1+cu124\n")
    assert read_report(t).facts["frameworks"]["torch"] == {"version": "2.5.1+cu124", "cuda": "12.4", "cudnn": "9.1.0"}
    # the same wheel on Windows is not what torch loads (torch/lib carries its own cuDNN there)
    w = t.replace("OS: Ubuntu 22.04.4 LTS (x86_64)", "OS: Microsoft Windows 11 Pro")
    assert read_report(w).facts["frameworks"]["torch"]["cudnn"] is None


@pytest.mark.parametrize("name,gpu", [
    ("torch-sm86-a40-warning-evadb-471.txt", {"index": 0, "name": "NVIDIA A40", "compute_capability": "8.6"}),
    ("torch-sm86-3080-laptop-userwarning-yolov6-350.txt",
     {"index": 0, "name": "NVIDIA GeForce RTX 3080 Laptop GPU", "compute_capability": "8.6"}),
    ("tf-created-device-rtx3080ti-cc8.6.txt",
     {"index": 0, "name": "NVIDIA GeForce RTX 3080 Ti", "compute_capability": "8.6"}),
])
def test_gpu_and_compute_capability_from_a_framework_line(name, gpu):
    f = facts(name)
    assert f["gpus"] == [gpu]
    assert f["driver"] == {"version": None, "cuda": None} and f["frameworks"] == {}


def test_torch_arch_list_of_the_sm_warning_reaches_torch_json_with_a_report():
    t = text("torch-sm86-3080-laptop-userwarning-yolov6-350.txt") + (
        "\nPyTorch version: 1.10.0\nIs debug build: False\nCUDA used to build PyTorch: 10.2\n")
    tj = json.loads(read_report(t, kb_lines()).captures["torch.json"])
    assert tj["arch_list"] == ["sm_37", "sm_50", "sm_60", "sm_70"]
    assert "arch_list" not in json.loads(read_report(t).captures["torch.json"])  # no line reader: no log facts


def test_driver_cuda_stays_nvidia_smis_field():
    # torch's "found version 10010" is read (st.driver_cuda) but the facts keep driver.cuda to nvidia-smi's field,
    # as the hand-written paste facts do (see the lead's note)
    assert facts("torch-driver-too-old-10010-neural-renderer-121.txt")["driver"] == {"version": None, "cuda": None}
    f = facts("fooocus-1313-driver-too-old-11040-nvidia-smi-470.txt")
    assert f["driver"] == {"version": "470.86", "cuda": "11.4"}


@pytest.mark.parametrize("name,fws,loaded", [
    ("tf-37606-titan-rtx-windows-cudnn-7.5.1-compiled-7.6.5.txt",
     {"tensorflow": {"version": None, "cuda": None, "cudnn": "7.6.5"}}, "7.5.1"),
    ("jax-1351-org-tensorflow-cudnn-7.5.1-compiled-7.6.0.txt",
     {"jax": {"version": None, "cuda": None, "cudnn": "7.6.0"}}, "7.5.1"),
    ("jax-15268-xla-loaded-runtime-cudnn-8.5.0-compiled-8.6.0.txt", {}, "8.5.0"),  # external/xla: TF or JAX
])
def test_runtime_cudnn_vs_compiled(name, fws, loaded):
    f = facts(name)
    assert f["frameworks"] == fws
    assert "cudnn" not in f  # the loaded copy is not listed (see the lead's note)


def test_loaded_cudnn_version_and_jax_found_versions():
    t = ("I tensorflow/stream_executor/cuda/cuda_dnn.cc:369] Loaded cuDNN version 8100\n"
         "RuntimeError: Found CUDA version 12010, but JAX was built against version 12020, which is newer.\n")
    f = read_report(t, kb_lines()).facts
    assert f["frameworks"] == {"jax": {"version": None, "cuda": "12.2", "cudnn": None}}


def test_log_only_text_is_not_a_report_and_the_collector_keeps_its_lines():
    t = text("tf-created-device-rtx3080ti-cc8.6.txt")
    assert not read_report(t, kb_lines()).found  # no machine to check: facts only
    c = PasteCollector()
    c.feed_text("x\n" * 50 + t + "y\n" * 50)
    assert c.finish(kb_lines()).facts["gpus"][0]["compute_capability"] == "8.6"


def test_prose_naming_a_gpu_is_not_a_fact():
    assert read_report("my NVIDIA A40 with CUDA 11 is slow\n").facts == {}
