"""`envcheck explain` on building CUDA extensions, installing with conda or pip and two frameworks' CPU-only builds
(issue 20, logs20n): each family keyed on the emitting source's own text (tests/data/logs/logs20n to
logs20n-5; their READMEs list file, label and source):

* ``gpu-arch-unsupported``: torch.utils.cpp_extension's ``_get_cuda_arch_flags`` - "Unknown CUDA arch (X) or GPU not
  supported" for an architecture (the GPU's, or one of TORCH_CUDA_ARCH_LIST) that the installed torch cannot target;
  an empty or "0.0" arch is a failed detection and stays unknown;
* ``no-gpu-driver``: conda's ``__cuda`` virtual package absent (conda made it from libcuda; the solvers' "__cuda ...,
  which is missing on the system" and "nothing provides __cuda needed by" a PyTorch / TensorFlow build); conda 4.8's
  "incompatible with your CUDA driver" naming only the feature line is no driver problem and stays silent;
* ``framework-cpu-only``: PaddlePaddle's "Cannot use GPU because you have installed CPU version PaddlePaddle" and its
  model suites' "install paddlepaddle-gpu to run model on GPU"; MXNet's MXNET_GPU_NOT_ENABLED_ERROR from any source file;
* ``python-unsupported``: pip's "X.whl is not a supported wheel on this platform" for a GPU framework's wheel with a
  CPython tag (a wheel pinned for another Python, another build of it, or another platform) (logs20n-3);
* ``no-gpu-visible``: Docker 18.09+'s "unknown or invalid runtime name: nvidia" (the container toolkit not registered with
  the daemon); ``no-gpu-driver``: nvidia-container-cli's "WSL environment detected but no adapters were found" (logs20n-4);
  ``no-gpu-visible``: nvidia-container-cli's "device error: <device>: unknown device" (logs20n-5).

The held-back parts (heldout/logs20n to heldout/logs20n-5, split by scripts/split_log_batch.py before
the rules) are scored by scripts/score_explain.py, never asserted here."""

import os
import re
import sys

import pytest

from envcheck.explain import explain_text
from envcheck.matrix.fixes import render_fix

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (  # noqa: E402
    earlier_log_threads,
    HELDOUT, LOGS, assert_leads_with_own_fix, batch_threads, check_dev_log, check_literals_hold,
    check_log_batch, errors_section_names, log_readme_rows, read_text_file,
)

BATCHES = ("logs20n", "logs20n-2", "logs20n-3", "logs20n-4", "logs20n-5")
DEV = {b: os.path.join(LOGS, b) for b in BATCHES}
HELD = {b: os.path.join(HELDOUT, b) for b in BATCHES}
DEV_ROWS = [(b,) + r for b in BATCHES for r in log_readme_rows(DEV[b])]
#: dev logs the rules do not get right, and what explain says instead (each asserted: a change shows here)
KNOWN_MISSES = {
    # conda's test of its own message: the line that names the package needing a newer driver ("cudatoolkit ->
    # __cuda[version='>=10.0|>=9.0']") holds no prefilter anchor, and the "incompatible with your CUDA driver" lines
    # around it are also what conda 4.8 printed for conflicts that were no driver's (the controls beside it)
    "conda-9758-test-cuda-fail-cudatoolkit-needs-10.log": None,
}
NEW_SIGNATURES = ("torch-extension-unknown-cuda-arch", "conda-no-cuda-virtual-package", "paddle-installed-cpu-version",
                  "mxnet-gpu-not-enabled", "pip-framework-wheel-not-supported-here", "docker-invalid-runtime-name-nvidia",
                  "nvidia-container-cli-wsl-no-adapters", "nvidia-container-cli-unknown-device")
#: the section of errors.toml these rules live in (other helpers append theirs after it)
SECTION = "# 2026-11-27 (logs20n)"


def _read(name, batch):
    return read_text_file(DEV[batch], name)


@pytest.mark.parametrize("batch,min_dev,min_held,min_healthy", [("logs20n", 14, 6, 0), ("logs20n-2", 8, 4, 1),
                                                                  ("logs20n-3", 6, 3, 0), ("logs20n-4", 10, 5, 0),
                                                                  ("logs20n-5", 4, 3, 0)])
def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart(batch, min_dev, min_held, min_healthy):
    check_log_batch(DEV[batch], HELD[batch], min_dev=min_dev, min_held=min_held, min_healthy=min_healthy,
                    held_listed=True)


def test_no_thread_is_in_both_batches_nor_in_an_earlier_set():
    urls = batch_threads(DEV, HELD)
    assert len(urls) == len(set(urls))
    assert not set(urls) & earlier_log_threads(BATCHES)


@pytest.mark.parametrize("batch,name,label,source", DEV_ROWS, ids=[r[1] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(batch, name, label, source):
    check_dev_log(DEV[batch], name, label, KNOWN_MISSES)


@pytest.mark.parametrize("batch,name,signature", [
    ("logs20n", "sigma-40-a6000-cudatoolkit113-traceback.log", "torch-extension-unknown-cuda-arch"),
    ("logs20n", "hrda-35-mmcv-full-rtx4090-unknown-arch-8.9.log", "torch-extension-unknown-cuda-arch"),
    ("logs20n", "apex-615-docker-cuda101-arch-list-3.0.log", "torch-extension-unknown-cuda-arch"),
    ("logs20n", "tf-feedstock-216-docker-nothing-provides-cuda.log", "conda-no-cuda-virtual-package"),
    ("logs20n-2", "parl-pr299-four-gpus-cpu-paddle.log", "paddle-installed-cpu-version"),
    ("logs20n-2", "paddle-50873-place-cc-paddle24-cpu.log", "paddle-installed-cpu-version"),
    ("logs20n-2", "monk-34-windows-cpu-ndarray-gpu-not-enabled.log", "mxnet-gpu-not-enabled"),
    ("logs20n-2", "mxnet-face-8-cpu-only-binaries-gpu-not-enabled.log", "mxnet-gpu-not-enabled"),
    ("logs20n-3", "pytorch-2349-cp27m-vs-cp27mu.log", "pip-framework-wheel-not-supported-here"),
    ("logs20n-3", "cogvideox-294-torchao-cp312-on-py311.log", "pip-framework-wheel-not-supported-here"),
    ("logs20n-4", "airslam-113-ubuntu20-runtime-nvidia.log", "docker-invalid-runtime-name-nvidia"),
    ("logs20n-4", "local-multimodal-31-wsl2-daemon-not-restarted.log", "docker-invalid-runtime-name-nvidia"),
    ("logs20n-4", "duix-470-two-l20-windows-no-adapters.log", "nvidia-container-cli-wsl-no-adapters"),
    ("logs20n-4", "grounded-sam-506-laptop-without-nvidia.log", "nvidia-container-cli-wsl-no-adapters"),
    ("logs20n-5", "adversarial-code-gen-1-makefile-gpu-1.log", "nvidia-container-cli-unknown-device"),
    ("logs20n-5", "enroot-207-allocated-gpu-index-4.log", "nvidia-container-cli-unknown-device"),
])
def test_each_new_wording_leads_with_its_own_fix(batch, name, signature):
    """The top match's evidence is the new wording's line and its own fix comes first."""
    assert_leads_with_own_fix(explain_text(_read(name, batch)), signature)


@pytest.mark.parametrize("text,signature", [
    # torch.utils.cpp_extension, the f-string (torch 1.10+) and .format (older) forms; "+PTX"; several archs
    ("ValueError: Unknown CUDA arch (12.0+PTX) or GPU not supported", "torch-extension-unknown-cuda-arch"),
    ('    raise ValueError(f"Unknown CUDA arch ({arch}) or GPU not supported")\n'
     "ValueError: Unknown CUDA arch (10.0) or GPU not supported", "torch-extension-unknown-cuda-arch"),
    ("ValueError: Unknown CUDA arch (8.6;8.9) or GPU not supported", "torch-extension-unknown-cuda-arch"),
    ("Could not load the custom kernel for multi-scale deformable attention: Unknown CUDA arch (8.7+PTX) or GPU not "
     "supported", "torch-extension-unknown-cuda-arch"),
    # the solvers without a __cuda virtual package: libmamba's problem tree (with and without a version) and libsolv
    ("   └─ pytorch 2.0.1 would require\n      └─ __cuda >=11.8 , which is missing on the system.",
     "conda-no-cuda-virtual-package"),
    ("├─ libxgboost ==1.7.6 cuda120h75debf4_0 is uninstallable because it requires\n"
     "│  └─ __cuda  , which is missing on the system;", "conda-no-cuda-virtual-package"),
    ("> - │     └─ __cuda, which is missing on the system;", "conda-no-cuda-virtual-package"),
    ("  - nothing provides __cuda >=12 needed by pytorch-cuda-12.1-ha16c6d3_5", "conda-no-cuda-virtual-package"),
    # PaddlePaddle's place check and the model suites' check_gpu (PaddleClas, PaddleDetection / PaddleOCR / PaddleSeg)
    ("E0224 15:37:10.817626 18616 place.cc:359] Cannot use GPU because you have installed CPU version PaddlePaddle.",
     "paddle-installed-cpu-version"),
    ("ERROR: You are using paddlepaddle cpu version! Please try to install paddlepaddle-gpu to run model on GPU.",
     "paddle-installed-cpu-version"),
    ("Config use_gpu cannot be set as true while you are using paddlepaddle cpu version ! \nPlease try: \n"
     "\t1. Install paddlepaddle-gpu to run model on GPU \n\t2. Set use_gpu as false in config file to run model on CPU",
     "paddle-installed-cpu-version"),
    # MXNet's MXNET_GPU_NOT_ENABLED_ERROR behind dmlc's file:line prefix, from other source files than resource.cc
    ("mxnet.base.MXNetError: [16:33:57] src/ndarray/ndarray.cc:296: GPU is not enabled", "mxnet-gpu-not-enabled"),
    ("MXNetError: [09:10:11] src/engine/./stream_manager.h:123: GPU is not enabled", "mxnet-gpu-not-enabled"),
    ("mxnet.base.MXNetError: [10:00:00] src/executor/graph_executor.cc:1100: GPU is not enabled",
     "mxnet-gpu-not-enabled"),
    # pip's refusal of a framework wheel of another CPython (a local version label, a URL-quoted one, other frameworks)
    ("ERROR: torch-2.1.0+cu121-cp311-cp311-linux_x86_64.whl is not a supported wheel on this platform.",
     "pip-framework-wheel-not-supported-here"),
    ("ERROR: torch-1.7.0%2Bcu110-cp38-cp38-linux_x86_64.whl is not a supported wheel on this platform.",
     "pip-framework-wheel-not-supported-here"),
    ("ERROR: tensorflow_gpu-2.10.0-cp310-cp310-win_amd64.whl is not a supported wheel on this platform.",
     "pip-framework-wheel-not-supported-here"),
    ("ERROR: flash_attn-2.7.4.post1+cu12torch2.6cxx11abiFALSE-cp312-cp312-linux_x86_64.whl is not a supported wheel "
     "on this platform.", "pip-framework-wheel-not-supported-here"),
    ("ERROR: paddlepaddle_gpu-2.6.1.post120-cp39-cp39-win_amd64.whl is not a supported wheel on this platform.",
     "pip-framework-wheel-not-supported-here"),
    ("ERROR: torch-2.6.0+cu126-cp313-cp313t-linux_x86_64.whl is not a supported wheel on this platform.",
     "pip-framework-wheel-not-supported-here"),
    # Docker 18.09+'s wording of a missing nvidia runtime (docker run, docker compose, the Python SDK's APIError)
    ("docker: Error response from daemon: unknown or invalid runtime name: nvidia.",
     "docker-invalid-runtime-name-nvidia"),
    ("docker.errors.APIError: 400 Client Error for http+docker://localhost/v1.45/containers/create: Bad Request "
     '("unknown or invalid runtime name: nvidia")', "docker-invalid-runtime-name-nvidia"),
    # libnvidia-container under WSL with no adapter, behind the OCI runtime's hook error or alone
    ("Error: crun: error executing hook `/usr/bin/nvidia-container-toolkit` (exit code: 1): OCI runtime error\n"
     "nvidia-container-cli: initialization error: WSL environment detected but no adapters were found",
     "nvidia-container-cli-wsl-no-adapters"),
    # nvidia-container-cli's unknown device: a UUID, a MIG name (nvidia-container-cli.real in LXD's snap), an index
    ("nvidia-container-cli.real: device error: MIG-GPU-932bfb2c-849a-2a22-1e84-9eff6bc02b39/1/0: unknown device",
     "nvidia-container-cli-unknown-device"),
    ("stderr: nvidia-container-cli: device error: GPU-5ab1c3d2-0000-1111-2222-333344445555: unknown device: unknown.",
     "nvidia-container-cli-unknown-device"),
])
def test_source_wordings_lead_with_their_own_fix(text, signature):
    assert_leads_with_own_fix(explain_text(text), signature)


@pytest.mark.parametrize("text", [
    # an arch torch could not detect (no GPU visible to the build, a Jetson's empty capability) is no architecture
    "ValueError: Unknown CUDA arch (0.0) or GPU not supported",
    "ValueError: Unknown CUDA arch () or GPU not supported",
    # torch.utils.cpp_extension's warnings of a build that goes on
    "W1023 08:18:50.032000 91 site-packages/torch/utils/cpp_extension.py:117] No CUDA runtime is found, using "
    "CUDA_HOME='/usr/local/cuda'",
    "W1023 08:18:50.078000 91 site-packages/torch/utils/cpp_extension.py:531] There are no g++ version bounds defined "
    "for CUDA version 12.8",
    "UserWarning: TORCH_CUDA_ARCH_LIST is not set, all archs for visible cards are included for compilation.",
    # other virtual packages and packages that are missing; conda 4.8's feature-only list
    "│  └─ __win, which is missing on the system;",
    "     └─ __glibc >=2.17,<3.0.a0 *, which is missing on the system.",
    "         └─ __archspec ==1 zen2, which is missing on the system.",
    "  - nothing provides requested pytorch ==1.3.1 py3.6_cuda10.0.130_cudnn7.6.3_0",
    "UnsatisfiableError: The following specifications were found to be incompatible with your CUDA driver:\n\n"
    "  - feature:/linux-64::__cuda==10.2=0\n\nYour installed CUDA driver is: 10.2",
    # Paddle's success lines and a GPU build
    "PaddlePaddle works well on 1 GPU.",
    "PaddlePaddle is installed successfully! Let's start deep learning with PaddlePaddle now.",
    "python -m pip install paddlepaddle-gpu==2.3.2.post112 -f "
    "https://www.paddlepaddle.org.cn/whl/windows/mkl/avx/stable.html",
    # pip's refusal of a wheel that is no GPU framework's, or has no CPython tag; pip's resolver warnings
    "ERROR: numpy-1.19.5-cp36-cp36m-manylinux2010_x86_64.whl is not a supported wheel on this platform.",
    "ERROR: sometool-1.0-py3-none-macosx_11_0_arm64.whl is not a supported wheel on this platform.",
    # an ABI tag no CPython has (the "m" flag ended with 3.7): a broken link in a Makefile (nanoporetech/taiyaki#106)
    "ERROR: torch-1.5.1-cp39-cp39m-linux_x86_64.whl is not a supported wheel on this platform.",
    "torchvision 0.23.0.dev20250605+cu128 requires torch==2.8.0.dev20250605, but you have torch 2.7.1 which is "
    "incompatible.",
    # a CMake project's own CUDA_ARCHITECTURES set-up (colmap/colmap#1779, EXP-code/EXP#63), torch's build warnings, WSL's
    # ldconfig note: no GPU-stack cause
    "CMake Error at /opt/cmake-3.25.1-linux-x86_64/share/cmake-3.25/Modules/CMakeDetermineCUDACompiler.cmake:277 "
    "(message):\n  CMAKE_CUDA_ARCHITECTURES must be non-empty if set.",
    "CMake Error in exputil/CMakeLists.txt:\n  CUDA_ARCHITECTURES is empty for target \"exputil\".",
    "  Policy CMP0104 is not set: CMAKE_CUDA_ARCHITECTURES now detected for NVCC,\n  empty CUDA_ARCHITECTURES not allowed.",
    "UserWarning: Attempted to use ninja as the BuildExtension backend but we could not find ninja.. Falling back to "
    "using the slow distutils backend.",
    "UserWarning: Error checking compiler version for cl: [WinError 2] The system cannot find the file specified",
    "/sbin/ldconfig.real: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link",
    # gpushare's placeholder device id (a scheduler extender's set-up)
    "stderr: nvidia-container-cli: device error: unknown device id: no-gpu-has-10MiB-to-run",
    # another runtime Docker does not know (gVisor), not NVIDIA's
    "docker: Error response from daemon: unknown or invalid runtime name: runsc.",
    # MXNet lines that are not the error
    "INFO:root:Start training with [gpu(0)]",
    "GPU is not enabled by default in this notebook",
])
def test_neighbours_say_nothing(text):
    assert explain_text(text) == [], [(m.id, m.evidence) for m in explain_text(text)]


def test_conda_override_fix_variable_renders_only_a_cuda_version():
    assert render_fix("{{env CONDA_OVERRIDE_CUDA=12.4}}") == "`export CONDA_OVERRIDE_CUDA=12.4`"
    assert render_fix("{{env CONDA_OVERRIDE_CUDA=X.Y}}") == "`export CONDA_OVERRIDE_CUDA=X.Y`"
    for bad in ("12", "12.4;reboot", "$(id)", "12.4 x"):
        assert "[fix not shown" in render_fix("{{env CONDA_OVERRIDE_CUDA=%s}}" % bad), bad


def test_every_new_signature_has_a_literal_its_matches_hold():
    """Each new rule sits behind its literal (the prefilter): every literal contains an existing cover anchor (the cover
    list is at its bound of 100), and every dev line a signature matches holds one of its literals (lower-cased)."""
    names = errors_section_names(SECTION, re.compile(r"\n# ={20,}\n# 2026-"))  # stop at the next helper's section
    assert names == set(NEW_SIGNATURES)
    assert check_literals_hold(names, [ln for r in DEV_ROWS for ln in _read(r[1], r[0]).splitlines()]) == names
