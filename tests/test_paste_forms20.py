"""Paste forms of issue 20, read by explain --json --no-detect (the CLI, in a subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _facts(tmp_path: Path, text: str) -> dict:
    f = tmp_path / "paste.txt"
    f.write_text(text)
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", str(f)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout).get("facts") or {}


# the bold-Markdown TensorFlow template (tensorflow/tensorflow issue template before 2020, as filled in)
BOLD_TF = """**System information**
- **OS Platform and Distribution (e.g., Linux Ubuntu 16.04)**: Ubuntu 20.04
- **TensorFlow installed from (source or binary)**: binary
- **TensorFlow version (use command below)**: 2.4.1
- **Python version**: 3.8.5
- **CUDA/cuDNN version**: 11.0 / 8.0.4
- **GPU model and memory**: GeForce RTX 3090 24GB
"""


def test_bold_tf_template_and_its_claim(tmp_path):
    f = _facts(tmp_path, BOLD_TF)
    assert f["frameworks"]["tensorflow"]["version"] == "2.4.1"
    assert f["python"]["version"] == "3.8.5"
    # the user's CUDA/cuDNN field is a claim, labelled as such, never the detected toolkit
    assert f["claims"]["cuda"] == "11.0" and f["claims"]["cudnn"] == "8.0.4"
    assert f["toolkit"]["version"] is None


def test_plain_tf_template_claim_with_words(tmp_path):
    text = ("- TensorFlow version (use command below): 2.10.0\n- Python version: 3.9\n"
            "- CUDA/cuDNN version: CUDA 11.2, cuDNN 8.1\n")
    f = _facts(tmp_path, text)
    assert (f["claims"]["cuda"], f["claims"]["cudnn"]) == ("11.2", "8.1")


def test_transformers_env_without_header(tmp_path):
    text = ("- `transformers` version: 4.30.2\n- Platform: Linux-5.15.0-1041-azure-x86_64-with-glibc2.31\n"
            "- Python version: 3.10.12\n- PyTorch version (GPU?): 2.0.1+cu117 (True)\n")
    f = _facts(tmp_path, text)
    assert f["frameworks"]["torch"]["version"] == "2.0.1+cu117" and f["python"]["version"] == "3.10.12"


def test_bare_torch_build_in_bullets_and_python_from_path(tmp_path):
    text = ("Environment:\n- torch 2.1.0+cu121\n- Ubuntu 22.04\n\nTraceback (most recent call last):\n"
            '  File "/home/u/miniconda3/envs/py39/lib/python3.9/site-packages/torch/nn/modules/module.py", '
            "line 1501, in _call_impl\n")
    f = _facts(tmp_path, text)
    assert f["frameworks"]["torch"]["version"] == "2.1.0+cu121" and f["frameworks"]["torch"]["cuda"] == "12.1"
    assert f["python"]["version"] == "3.9"


def test_bare_version_that_is_not_torch_is_not_read(tmp_path):
    # torchvision's 0.x with a +cu label is not torch
    f = _facts(tmp_path, "- 0.15.2+cu118\n- Ubuntu 22.04\n")
    assert "torch" not in (f.get("frameworks") or {})


# collect_env of a ROCm build (layout of torch/utils/collect_env.py, ROCm fields)
ROCM = """PyTorch version: 2.4.0+rocm6.1
Is debug build: False
CUDA used to build PyTorch: N/A
ROCM used to build PyTorch: 6.1.40091-a8dbc0c19

OS: Ubuntu 22.04.4 LTS (x86_64)
Python version: 3.10.14 (main, Mar 21 2024, 16:24:04) [GCC 11.2.0] (64-bit runtime)
Is CUDA available: True
GPU models and configuration: AMD Radeon RX 7900 XTX (gfx1100)
HIP runtime version: 6.1.40091
MIOpen runtime version: 3.1.0
"""


def test_rocm_collect_env_major_minor(tmp_path):
    f = _facts(tmp_path, ROCM)
    t = f["frameworks"]["torch"]
    assert t["rocm"] == "6.1" and t["cuda"] is None
    # the old HIP string form ("3.0.19493-36529b1") is never the value
    f = _facts(tmp_path, ROCM.replace("2.4.0+rocm6.1", "1.5.0a0+d2d3d1b").replace("6.1.40091-a8dbc0c19",
                                                                                "3.0.19493-36529b1"))
    assert f["frameworks"]["torch"]["rocm"] == "3.0"


def test_xpu_collect_env(tmp_path):
    text = ("PyTorch version: 2.7.0+xpu\nIs debug build: False\nCUDA used to build PyTorch: None\n"
            "ROCM used to build PyTorch: N/A\n\nOS: Ubuntu 24.04 LTS (x86_64)\nPython version: 3.12.3\n"
            "Is XPU available: True\nXPU used to build PyTorch: 20250004\n")
    t = _facts(tmp_path, text)["frameworks"]["torch"]
    assert t["xpu"] is True and t["cuda"] is None


def test_q_block_in_a_paste(tmp_path):
    text = (Path(__file__).parent / "data" / "nvidia-smi-forms" / "q-440.82-gtx1650-cuda-10.2-partial.txt").read_text()
    f = _facts(tmp_path, "I get an error.\n\n" + text)
    assert f["driver"] == {"version": "440.82", "cuda": "10.2"}
    assert [g["name"] for g in f["gpus"]] == ["GeForce GTX 1650"]
