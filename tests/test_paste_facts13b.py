"""Issue 13 paste gaps: Chinese issue templates' environment bullets, a driver named in the TensorFlow form's
"CUDA/cuDNN version" field, and ``docker run`` without GPUs. Snippets: tests/data/pastes/zh-env,
tests/data/pastes/tf-form, tests/data/pastes/dev2 (sources in tests/data/README.md)."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from envcheck.cli import cli
from envcheck.paste import read_report

DATA = os.path.join(os.path.dirname(__file__), "data", "pastes")
DOCKER = os.path.join(DATA, "dev2", "docker-pytorch-27-container-without-gpus-host-nvidia-smi-435-2x-v100.txt")


def text(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def explain(path: str) -> dict:
    res = CliRunner().invoke(cli, ["explain", path, "--json", "--no-detect"])
    assert res.exit_code in (0, 1), res.output
    return json.loads(res.output)


def explain_text(tmp_path, body: str) -> dict:
    p = tmp_path / "paste.txt"
    p.write_text(body, encoding="utf-8")
    return explain(str(p))


def top(doc: dict) -> str:
    return doc["matches"][0]["id"] if doc["matches"] else "none"


NO_DRIVER = {"version": None, "cuda": None}
NO_TOOLKIT = {"version": None, "nvcc": None}


@pytest.mark.parametrize("name,label,gpus,python,fws", [
    ("chatchat-2420-zh-bullets-driver-too-old-11060-centos-py3.10.txt", "driver-too-old", [], "3.10.12", {}),
    ("paddle-28360-zh-template-gtx1060-windows10-py3.8.6-cuda-error-35.txt", "driver-too-old",
     [{"index": 0, "name": "geforce gtx 1060", "compute_capability": None}], "3.8.6", {}),
    # Paddle's own device lines ("device: 0, CUDA Capability: 75, ... Runtime API Version: 8.0", "cuDNN Version: 7.0.")
    # state the compute capability and the runtime / cuDNN Paddle loaded (forms20b)
    ("paddle-17863-zh-template-rtx2060-windows10-py3.7.3-invalid-device-function.txt", "gpu-arch-unsupported",
     [{"index": 0, "name": "Geforce RTX2060", "compute_capability": "7.5"}], "3.7.3",
     {"paddle": {"version": None, "cuda": "8.0", "cudnn": "7.0"}}),
])
def test_chinese_template_bullets_give_the_facts(name, label, gpus, python, fws):
    doc = explain(os.path.join(DATA, "zh-env", name))
    assert top(doc) == label
    # the user-typed CUDA/cuDNN values ("CUDA:8.0 和CUDNN:V7.1", "CUDA Version 10.1.120") are not the toolkit
    assert doc["facts"] == {"driver": NO_DRIVER, "gpus": gpus, "python": {"version": python},
                            "toolkit": NO_TOOLKIT, "frameworks": fws}


def test_chinese_bullets_fill_platform_and_the_named_paddle_package():
    rep = read_report(text(os.path.join(DATA, "zh-env", "paddleocr-5788-zh-bullets-windows-paddlepaddle-gpu-2.2.2.txt")))
    assert json.loads(rep.captures["python.json"])["platform"] == "win32"
    assert json.loads(rep.captures["packages.json"]) == {"paddlepaddle-gpu": "2.2.2"}
    rep = read_report("- 操作系统及版本 / Operating system and version: centos\n")
    assert json.loads(rep.captures["python.json"])["platform"] == "linux"


def test_chinese_driver_gpu_torch_labels_map_to_the_english_fields():
    rep = read_report("- 操作系统：Ubuntu 22.04\n- 显卡型号：NVIDIA GeForce RTX 4090\n- 驱动版本：535.104.05\n"
                      "- CUDA版本：12.2\n- cuDNN版本：8.9.2\n- Python版本：3.10.13\n- PyTorch版本：2.1.0\n")
    f = rep.facts
    assert f["driver"] == {"version": "535.104.05", "cuda": None}
    assert f["gpus"] == [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": None}]
    assert f["python"] == {"version": "3.10.13"} and f["toolkit"] == NO_TOOLKIT
    assert f["frameworks"]["torch"]["version"] == "2.1.0"
    # the same with full-width colons and "2 x" counts
    f = read_report("1）显卡：2 x Tesla V100\n2）显卡驱动版本：470.82.01\n").facts
    assert [g["name"] for g in f["gpus"]] == ["Tesla V100", "Tesla V100"] and f["driver"]["version"] == "470.82.01"


@pytest.mark.parametrize("body", [
    "- 使用的模型（ChatGLM2-6B / Qwen-7B 等）：ChatGLM3-6B\n",  # not an environment label
    "- 显卡：有\n- 驱动版本：最新\n- 是否使用 Docker 部署（是/否）：否\n",  # values that are not what the label names
    "我的显卡：不知道是什么型号\n",
    "Note: the GPU works fine on the other machine.\n",  # English prose stays unread
])
def test_unrecognised_chinese_or_prose_lines_say_nothing(body):
    rep = read_report(body)
    assert not rep.found and rep.facts == {}


def test_tf_form_cuda_cudnn_field_names_the_driver(tmp_path):
    doc = explain(os.path.join(DATA, "tf-form", "tf-85006-form-2.18-windows11-cuda-cudnn-field-driver-561.17.txt"))
    assert top(doc) == "framework-cpu-only"  # TF 2.18 on native Windows
    assert doc["facts"]["driver"] == {"version": "561.17", "cuda": None}
    assert doc["facts"]["toolkit"] == {"version": "12.6", "nvcc": "12.6.85"}  # nvcc's own words, pasted
    doc = explain(os.path.join(DATA, "tf-form", "tf-58729-form-2.11-windows11-cuda-driver-api-not-a-driver.txt"))
    assert doc["facts"]["driver"] == NO_DRIVER  # "CUDA Driver API v12.0" is no driver version
    assert doc["facts"]["toolkit"] == NO_TOOLKIT
    f = explain_text(tmp_path, "- TensorFlow version: 2.4.1\n- OS Platform and Distribution: Ubuntu 20.04\n"
                               "- CUDA/cuDNN version: 11.0 / 8.0, driver 535.104\n")["facts"]
    assert f["driver"]["version"] == "535.104" and f["toolkit"] == NO_TOOLKIT  # the typed 11.0 is not trusted
    f = explain_text(tmp_path, "- TensorFlow version: 2.4.1\n- CUDA/cuDNN version: 11.0 / 8.0, NVIDIA driver 470\n")["facts"]
    assert f["driver"]["version"] == "470"


def test_docker_run_without_gpus_and_no_gpu_inside_is_no_gpu_visible():
    doc = explain(DOCKER)
    m = doc["matches"][0]
    assert m["id"] == "no-gpu-visible"
    assert "docker run --gpus all" in " ".join(m["fixes"][:1])
    assert doc["facts"]["driver"] == {"version": "435.21", "cuda": "10.1"} and len(doc["facts"]["gpus"]) == 2


@pytest.mark.parametrize("old,new", [
    ("docker run -it anibali", "docker run --gpus all -it anibali"),  # started with GPUs
    ("docker run -it anibali", "docker run --runtime=nvidia -it anibali"),
    ("both nvcc and nvidia-smi not found.", "it works."),  # no failure shown: the daemon may default to nvidia
    ("docker run -it anibali", "nvidia-docker run -it anibali"),  # nvidia-docker adds the GPUs
])
def test_docker_without_the_failure_evidence_or_with_gpus_says_nothing(tmp_path, old, new):
    body = text(DOCKER)
    assert old in body
    assert top(explain_text(tmp_path, body.replace(old, new))) == "none"


def test_docker_needs_the_host_gpus_and_no_gpu_working_inside(tmp_path):
    body = "docker run -it pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime bash\nCUDA available: False\n"
    assert top(explain_text(tmp_path, body)) == "none"  # no host nvidia-smi: nothing shows the GPUs exist
    host = text(DOCKER).split("Output from my vm's nvidia-smi.", 1)[1]
    assert top(explain_text(tmp_path, body + host)) == "no-gpu-visible"
    working = body + host + "Is CUDA available: True\n"
    assert "no-gpu-visible" not in [m["id"] for m in explain_text(tmp_path, working)["matches"]]
