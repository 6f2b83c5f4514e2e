"""torch 1.0.0-1.7.1 and TensorFlow 1.0-1.12 rows (matrix25, issue 20: the releases users still paste).

compat_matrix/torch.toml, tensorflow.toml, cuda.toml (CUDA 8.0) and cudnn.toml (5.1, 6.0, 7.2.1) gained rows, and the
engine applies torch's own capability check (``engine.rules.capability_check``) to every build it judges, so that a
CUDA 9.0 build is no longer said to RUN on a Turing or Ampere GPU. The oracles here are not the tables: what torch and
TensorFlow printed in real reports (tests' spent paste sets), what a maintainer answered there, and torch's own
condition as its source writes it (``CUDA_VERSION <= 9000 and major >= 7 and minor >= 5``)."""

import json
import os
import re

import pytest
from click.testing import CliRunner

from envcheck.cli import cli
from envcheck.engine import rules
from envcheck.engine.builds import release_supports_python
from envcheck.matrix import load_matrix

from tests.helpers import matrix_why

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
M = load_matrix()


def _paste(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as fh:
        return fh.read()


def _why(*args):
    return matrix_why(*args)


def _explain(rel):
    out = CliRunner().invoke(cli, ["explain", os.path.join(ROOT, rel), "--json", "--no-detect"]).output
    return json.loads(out)


def test_the_171_cu102_arch_list_is_what_torch_itself_printed():
    """pytorch/pytorch#52736: "PyTorch 1.7.1 installed with CUDA 10.2 ... The current PyTorch install supports CUDA
    capabilities sm_37 sm_50 sm_60 sm_70 sm_75" - torch's own warning, not the table."""
    text = _paste("heldout/pastes3/torch-52736-1.7.1-rtx3070-sm86-warning-no-kernel-image.txt")
    m = re.search(r"PyTorch (\d+\.\d+\.\d+) installed with CUDA (\d+)\.(\d+)", text)
    printed = re.search(r"supports CUDA capabilities ((?:sm_\d+ ?)+)", text).group(1).split()
    row = M.torch_variant(m.group(1), f"cu{m.group(2)}{m.group(3)}")
    assert [f"sm_{c.replace('.', '')}" for c in row["compute_capabilities"]] == printed
    assert row["ptx"] == []  # the warning lists no compute_XY entry
    # and it is the build PyPI gives on Linux x86_64: a plain `pip install torch==1.7.1`
    assert M.torch_release(m.group(1))["pypi_default_variant"] == row["variant"]


def test_tf_13_paste_says_which_cudnn_library_tf_looks_for():
    """tensorflow/tensorflow#13365: TF 1.3.0 with cuDNN 5.1 installed "looks for `libcudnn.so.6`"; before these rows
    explain said nothing (no TF 1.3 row)."""
    rel = "heldout/pastes20t/tf-13365-bold-template-tf-1.3.0-cudnn-5.1-looks-for-libcudnn-6.txt"
    wanted = re.search(r"looks for `libcudnn\.so\.(\d+)`", _paste(rel)).group(1)
    rep = _explain(rel)
    top = rep["matches"][0]
    assert top["id"] == "cudnn-missing"
    assert f"libcudnn.so.{wanted}" in top["evidence"] and f"cuDNN {wanted} " in top["evidence"]


def test_torch_130_on_driver_41048_needs_the_driver_the_maintainer_named():
    """pytorch/pytorch#31243: `pip install torch===1.3.0 ... -f torch_stable.html` on driver 410.48; the maintainer:
    "you'll need to update it to at least 418.39"."""
    text = _paste("heldout/acceptance11/pastes/pytorch-31243-pip-torch-1.3.0-driver-410.48-needs-418.39.txt")
    driver = re.search(r"^(\d{3}\.\d{2,3}),", text, re.M).group(1)
    floor = re.search(r"update it to at least (\d{3}\.\d{2,3})", text).group(1)
    rc, out = _why("torch==1.3.0", "--driver", driver, "--gpu", "Tesla T4", "--python", "3.7")
    assert rc == 1 and "DOES NOT RUN" in out
    assert f"needs driver >= {floor}" in out


def _torch_literal(cc):
    """torch/cuda/__init__.py _check_capability (pytorch/pytorch#21468), for a build with CUDA_VERSION <= 9000."""
    major, minor = (int(x) for x in cc.split("."))
    return major >= 7 and minor >= 5


def test_the_capability_check_table_is_torchs_own_condition_for_every_known_gpu():
    ccs = {str(g["compute_capability"]) for g in M.rows("gpus", "gpu") if g.get("compute_capability")}
    assert {"7.5", "8.6", "8.0", "6.1"} <= ccs
    for cc in sorted(ccs):
        assert (rules.capability_check(M, "9.0", cc) is not None) is _torch_literal(cc), cc
        assert rules.capability_check(M, "10.0", cc) is None, cc  # CUDA_VERSION 10000 is above the bound


@pytest.mark.parametrize("gpu,cc", [("GeForce RTX 3080", "8.6"), ("GeForce RTX 2080 Ti", "7.5"),
                                    ("GeForce GTX 1080", "6.1"), ("Tesla V100-SXM2-16GB", "7.0")])
def test_matrix_why_judges_torch_110_cu90_by_torchs_own_check(gpu, cc):
    """pytorch/pytorch#45021 (RTX 3080, torch 1.1.0: ten minutes for the first .cuda()) and #20860 (RTX 2080 Ti, torch
    1.1.0 built with CUDA 9.0, cuBLAS failures): the cu90 build's arch list (sm_70 SASS, compute_50 PTX) reaches
    both GPUs, yet torch says they need CUDA 10; a Pascal or Volta GPU runs it."""
    rc, out = _why("torch==1.1.0", "--driver", "455.23.05", "--gpu", gpu, "--python", "3.7")
    block = out.split("torch 1.1.0 cu90:", 1)[1].split("\ntorch ", 1)[0]
    if _torch_literal(cc):
        assert block.startswith(" DOES NOT RUN") and "capability check" in block, out
    else:
        assert block.startswith(" RUNS"), out
        assert rc == 0


def test_the_capability_check_failure_names_its_own_symptom():
    """The finding made from the installed build (#20860's collect_env: torch 1.1.0, CUDA 9.0, RTX 2080 Ti) says what
    fails there - the CUDA 9 libraries, not a missing kernel image - and offers the CUDA 10.0 build of the same
    release from the folder whose wheels carry no local label (cu100/torch-1.1.0-cp37-cp37m-linux_x86_64.whl)."""
    rep = _explain("heldout/pastes20p/pytorch-20860-rtx2080ti-torch-1.1.0-built-cuda-9.0-bmm-cublas.txt")
    top = rep["matches"][0]
    assert top["id"] == "gpu-arch-unsupported"
    text = " ".join(top["fixes"])
    assert "cuBLAS, cuDNN" in text and "capability check" in text
    made = [f for f in top["fixes"] if "cannot run its CUDA kernels" in f]
    assert made and "no kernel image" not in made[0]
    assert "pip install torch==1.1.0 --index-url https://download.pytorch.org/whl/cu100" in text
    assert "torch==1.1.0+cu100" not in text


def test_python_lists_follow_pypis_files():
    """PyPI's file list: torch-1.5.0-cp27-none-macosx_10_7_x86_64.whl exists, no cp27 manylinux1 wheel of 1.5.0;
    tensorflow-gpu 1.12 has no cp37 wheel (heldout/pastes24-held vtuber-unity-18: Python 3.8 gets 'No matching
    distribution found for tensorflow-gpu==1.12')."""
    assert release_supports_python(M, "torch", "1.5.0", "2.7", "darwin", "x86_64") is True
    assert release_supports_python(M, "torch", "1.5.0", "2.7", "linux", "x86_64") is False
    assert release_supports_python(M, "torch", "1.4.0", "2.7", "linux", "x86_64") is True
    assert release_supports_python(M, "tensorflow-gpu", "1.12.0", "3.8", "linux", "x86_64") is False
    assert release_supports_python(M, "tensorflow-gpu", "1.12.0", "3.6", "linux", "x86_64") is True


def test_a_cuda_92_build_keeps_a_410_driver_working():
    """torch 1.3.1 cu101 on driver 410.48 (pytorch/pytorch#30071's collect_env): the fix offered to keep the driver is a
    build whose CUDA that driver runs (nvidia-smi of a 410 driver says CUDA 10.0), not 'no build runs here'."""
    rep = _explain("tests/data/pastes/dev/torch-30071-collect-env-1.3.1-cu101-driver-410-8x-titanxp.txt")
    text = " ".join(rep["matches"][0]["fixes"])
    m = re.search(r"keep this driver and install a build that runs on it: `pip install torch==[\d.]+\+cu(\d+)(\d)", text)
    assert m, text
    assert (int(m.group(1)), int(m.group(2))) <= (10, 0)
    assert "No torch build for Python 3.6 runs on this driver" not in text
