"""attack38 (issue 20, "nothing false said"): statements this session's merges made that real texts contradict.

* torch's capability check (``CUDA_VERSION <= 9000 and major >= 7 and minor >= 5``) came with pytorch/pytorch#21468,
  opened 2019-06-06; torch 1.0.0 / 1.1.0 (released before it) do not carry it, so a verdict on them must not say that
  "torch's own capability check says" anything. The verdict stays (the PR's reason: CUDA 9 builds' cuBLAS / cuDNN fail
  on those GPUs); it now names the check by its PR.
* TensorFlow's pip builds before 2.3 carry PTX ("Earlier releases included PTX for a variety of older compute
  capabilities", TF 2.3.0's release notes, quoted in tensorflow/tensorflow#42467 and confirmed there by a maintainer);
  TF 1.14 from pip started on an RTX 3090 (8.6, no SASS for it) after a 30-minute JIT (tensorflow/tensorflow#44200).
  The rows 1.5-2.2 (matrix25 added 1.5-1.12) listed their SASS targets only, so the engine said such a build "is
  compiled for sm_35 ... sm_70; not for compute capability 8.0": DOES NOT RUN on every Ampere / Hopper / Blackwell GPU.
Samples: tests/data/attack38 (README cites each)."""

import os
import subprocess
import sys

from envcheck.engine import prose_causes
from envcheck.matrix import load_matrix
from envcheck.versions import version_tuple

from tests.helpers import matrix_why

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "attack38")
M = load_matrix()


def _read(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as fh:
        return fh.read()


def _why(*args):
    return matrix_why(*args)[1]


def _arch_lines(out):
    return [ln.strip() for ln in out.splitlines() if ln.strip().startswith("arch:")]


def test_torch_110_predates_the_capability_check_and_the_verdict_does_not_say_it_has_one():
    pr = _read("torch-pr-21468-capability-warning-2019-06-06.txt")
    assert "ptrblck · description · 2019-06-06" in pr and "CUDA9 or older" in pr
    assert M.torch_release("1.1.0")["date"] < "2019-06-06"  # released before the PR was opened
    out = _why("torch==1.1.0", "--gpu", "RTX 3080", "--python", "3.7", "--driver", "470.57")
    cu90 = out.split("torch 1.1.0 cu100")[0]
    assert "torch 1.1.0 cu90: DOES NOT RUN" in cu90  # the verdict stays
    assert "own capability check" not in out
    assert "pytorch/pytorch#21468" in cu90 and "needs a build made with CUDA 10.0 or newer" in cu90


def test_the_prose_verdict_names_the_check_by_its_pr():
    why = prose_causes._one_verdict(M, "9.0", "7.5", False)
    assert why and "own capability check" not in why and "pytorch/pytorch#21468" in why
    assert "does not work properly" in why


def test_tf_pip_builds_before_23_carry_ptx_of_unlisted_targets():
    note = _read("tf-42467-tf2.3-release-note-ptx-earlier-releases.txt")
    assert "Earlier releases included PTX for a variety of older compute capabilities" in note
    for rel in M.rows("tensorflow", "release"):
        if not rel.get("compute_capabilities"):
            continue
        before_23 = version_tuple(rel["version"]) < (2, 3)
        assert bool(rel.get("ptx_unlisted")) == (before_23 and not rel.get("ptx")), rel["version"]


def test_tf_114_on_an_rtx_3090_is_not_said_to_lack_kernels():
    text = _read("tf-44200-tf1.14-4x-rtx3090-slow-start-trains.txt")
    assert "TensorFlow 1.14" in text and "30-35 minutes in 1x RTX 3090" in text  # it started, after a JIT
    out = _why("tensorflow-gpu==1.14.0", "--gpu", "RTX 3090", "--python", "3.6", "--driver", "455.23")
    assert not any("NO" in ln for ln in _arch_lines(out)), out
    for req in ("tensorflow-gpu==1.12.0", "tensorflow-gpu==2.2.0"):
        out = _why(req, "--cc", "8.0", "--python", "3.6", "--driver", "470.57")
        assert not any("NO" in ln for ln in _arch_lines(out)), out


def test_ptx_only_reaches_newer_gpus_an_older_one_still_fails():
    """PTX is JIT-compiled for a GPU at or above its target: compute capability 3.0 is below every target of TF 1.12
    (3.5 and up), so the arch verdict stays NO there."""
    out = _why("tensorflow-gpu==1.12.0", "--cc", "3.0", "--python", "3.6", "--driver", "470.57")
    assert any("NO" in ln and "3.0" in ln for ln in _arch_lines(out)), out


def test_forward_compat_note_does_not_blame_the_gpu_alone():
    """The recast of a later-branch libcuda in a container (vfam25) said the GPU "does not take" it; on a data-center
    GPU forward compatibility is supported and what fails is the kernel module's branch. The note names both."""
    from click.testing import CliRunner

    from envcheck.cli import cli
    import json

    log = os.path.join(ROOT, "tests", "data", "logs", "vfam25",
                       "tf-48722-tf-2.5.0-gpu-image-libcuda-460.73-on-host-455.32-no-device.log")
    out = json.loads(CliRunner().invoke(cli, ["explain", log, "--json", "--no-detect"]).output)
    text = json.dumps(out)
    assert "forward-compat-unsupported" in text
    assert "this GPU or this kernel module's branch does not take" in text


def test_ort_ep_not_enabled_is_not_said_to_be_the_cpu_package():
    """yalue/onnxruntime_go#30: a DirectML build of ONNX Runtime's library answers the CUDA provider with "CUDA
    execution provider is not enabled in this build" (and runs the DirectML benchmark): the library is a build without
    CUDA, not necessarily the CPU package the fix used to name."""
    import json

    from click.testing import CliRunner

    from envcheck.cli import cli

    log = os.path.join(DATA, "onnxruntime-go-30-directml-build-cuda-ep-not-enabled.log")
    assert "BenchmarkDirectMLSession-6" in _read("onnxruntime-go-30-directml-build-cuda-ep-not-enabled.log")
    out = json.loads(CliRunner().invoke(cli, ["explain", log, "--json", "--no-detect"]).output)
    text = json.dumps(out)
    assert "framework-cpu-only" in text
    assert "it is the CPU package" not in text and "DirectML" in text


def _fix(*args):
    cp = subprocess.run([sys.executable, "-m", "envcheck", "fix", *args, "--json"], capture_output=True, text=True,
                        timeout=180, env={**os.environ, "NO_COLOR": "1"})
    assert cp.returncode in (0, 1), cp.stderr
    import json

    return json.loads(cp.stdout)


def test_fix_names_no_conda_forge_cuda_build_that_never_existed():
    """conda-forge built pytorch with CUDA only after conda-forge/pytorch-cpu-feedstock#22 (merged 2020-12-11); torch
    1.1.0 (2019) has no `pytorch=1.1.0=cuda*` there, so the plan gives pip / uv commands and no conda one. A release
    after it keeps its conda command (not claimed either way, the rule does not touch it)."""
    old = _fix("--want", "torch==1.1.0", "--driver", "410.48", "--gpu", "GTX 1080 Ti", "--python", "3.6",
               "--platform", "linux-x86_64")
    assert old["satisfiable"] and old["commands"]["pip"] and old["commands"]["conda"] == []
    new = _fix("--want", "torch==1.8.0", "--driver", "460.32", "--gpu", "GTX 1080 Ti", "--python", "3.8",
               "--platform", "linux-x86_64")
    assert any("pytorch=1.8.0=cuda*" in c for c in new["commands"]["conda"])
    assert M.torch_release("1.1.0")["date"] < "2020-12-11" < M.torch_release("1.8.0")["date"]
