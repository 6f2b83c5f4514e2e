"""Session 21, helper edge33: Jetson and Apple threads as users write them.

* Jetson: torch without CUDA said on a line of its own in a text that names a Jetson elsewhere (errors.toml
  ``jetson-torch-cuda-unavailable-line``, says ``jetson-only``: dusty-nv/jetson-containers#391, PyTorch's cu121 wheels
  on an Orin Nano); a sentence that says PyPI's / pytorch.org's wheels have no CUDA on the board
  (``jetson-pypi-wheels-said-no-cuda``: NVIDIA-ISAAC-ROS/isaac_ros_common#30); L4T's NvMap allocator named with a
  failure word (``jetson-nvmap-alloc-failure-said``: 0xShug0/audio.cpp#12); the OOM killer said in a sentence
  (``jetson-killed-said``: lewes6369/TensorRT-Yolov3#40).
* Apple: a program's own "CUDA is not available" check in words (``cuda-not-available-said-check``, says
  ``cuda-check-only``: IDEA-Research/DINO#138, modelscope/facechain#488) names ``framework-vendor-mismatch`` only where
  the text shows a Mac (or AMD / Intel) and no NVIDIA GPU; a package said to be FOR NVIDIA's GPUs
  (paste/readers/prose_vendor.py ``cuda-only-said``: mistralai/mistral-inference#7, facebookresearch/xformers#731); an
  Intel / Rosetta Python named, or "it shows intel" (``python-x86-said``: mwidjaja1/DSOnMacARM#3,
  rasbt/machine-learning-notes#4); an arm64 macOS wheel as Apple-silicon evidence (paste/readers/observe.py).

Samples: tests/data/edge33 (README cites each thread); heldout/edge33-held was set aside before the rules.
"""

from __future__ import annotations

import os

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import prose_vendor
from helpers import paste_readme_rows, paste_top

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "edge33")
SPENT = os.path.join(os.path.dirname(HERE), "heldout")
ROWS = paste_readme_rows(DATA)


def _doc_of(text: str) -> dict:
    return explain_text_document(text)


def _top(text: str) -> str:
    return paste_top(_doc_of(text))


def _ids(text: str) -> list:
    return [m["id"] for m in _doc_of(text).get("matches") or []]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_dev_thread_top_cause_is_its_label(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as fh:
        assert paste_top(_doc_of(fh.read())) == ROWS[name][0]


def test_the_readme_lists_every_sample_and_three_controls():
    on_disk = {f for f in os.listdir(DATA) if f.endswith(".txt")}
    assert on_disk == set(ROWS)
    assert sum(1 for label, _ in ROWS.values() if label == "none") >= 3


@pytest.mark.parametrize("folder, name, label", [
    ("acceptance22/pastes", "isaac-ros-common-30-agx-orin-pytorch-website-binaries-no-cuda-use-nvidia-jetson-wheel-"
     "build-torchvision.txt", "framework-cpu-only"),
    ("acceptance21/pastes", "audio-cpp-12-jetson-orin-nano-index-tts2-nvmapmemallocinternaltagged-nvmap-fragmentation-"
     "reboot-supertonic-8gb-exceeds.txt", "gpu-out-of-memory"),
    ("acceptance13/pastes", "machine-learning-notes-4-m1-conda-intel-python-rosetta-mps-device-string.txt",
     "python-arch-mismatch"),
])
def test_spent_misses_of_the_family_now_read(folder, name, label):
    path = os.path.join(SPENT, folder, name)
    if not os.path.exists(path):
        pytest.skip("spent set not in this checkout")
    with open(path, encoding="utf-8") as fh:
        assert paste_top(_doc_of(fh.read())) == label


# -- Jetson: torch without CUDA, the board named on another line ---------------------------------------------------
JETSON_391 = ("I have built a container for Jetson Orin nano running JP60 preview.\n"
              "`pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121` gives "
              "`torch.cuda.is_available()` as False\n")


def test_torch_cuda_false_on_a_named_jetson_is_the_cpu_build():
    assert _top(JETSON_391) == "framework-cpu-only"


@pytest.mark.parametrize("line", [
    "torch.cuda.is_available() returns False",
    ">>> torch.cuda.is_available() -> False",
    "CUDA is not available",
    "CUDA unavailable, running on CPU",
])
def test_the_same_words_without_a_jetson_name_no_cpu_build(line):
    # on a desktop (or a machine the text does not show) the words do not tell a CPU build from a missing driver
    assert "framework-cpu-only" not in _ids("I run it on Ubuntu 22.04 with a GeForce RTX 3090.\n" + line + "\n")


def test_cuda_true_on_a_jetson_says_nothing_of_a_cpu_build():
    text = "Jetson AGX Orin, JetPack 6.1\n>>> torch.cuda.is_available() -> True\n"
    assert "framework-cpu-only" not in _ids(text)


def test_a_jetson_named_beside_a_desktop_gpu_is_undecided():
    text = ("My RTX 4090 desktop and my Jetson Orin Nano.\n"
            "torch.cuda.is_available() returns False\n")
    assert _top(text) != "framework-cpu-only"


# -- Jetson: the PyPI wheels said to have no CUDA there ------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "1. Binaries from the pytorch website don't use cuda on the agx orin.",
    "Running `pip install torch` installs a generic manylinux version that does not support CUDA on Jetson hardware.",
])
def test_pypi_wheels_said_without_cuda_on_a_jetson(line):
    assert _top(line + "\n") == "framework-cpu-only"


def test_pypi_wheels_said_without_cuda_on_a_desktop_are_not_this():
    assert "framework-cpu-only" not in _ids("Binaries from the pytorch website don't use cuda on my laptop.\n")


# -- Jetson memory -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "One more update: dug into index_tts2's `NvMapMemAllocInternalTagged` failure a bit further.",
    "Model load ends in NvMapMemAllocInternalTagged OOM on the Orin Nano.",
])
def test_nvmap_failure_said_is_gpu_memory(line):
    assert _top(line + "\n") == "gpu-out-of-memory"


def test_nvmap_named_without_a_failure_word_says_nothing_of_itself():
    # TensorRT's builder prints the allocator's lines while it retries and succeeds (jetson-nvmap-alloc-error-beside-failure)
    assert "gpu-out-of-memory" not in _ids("The NvMapMemAllocInternalTagged warnings are harmless here.\n")


def test_killed_said_on_a_jetson_is_its_shared_memory():
    text = ("I am trying on Jetson Nano with an official Ubuntu 18.04 OS.\n"
            "The Begin building engine... phase every time is Killed (for all type of inference).\n")
    assert _top(text) == "gpu-out-of-memory"


def test_a_dataloader_worker_killed_by_signal_is_not_this():
    # a DataLoader worker's "is killed by signal" is its shared memory (another matter), not the OOM killer's run
    text = "Jetson TX2: RuntimeError: DataLoader worker (pid 19597) is killed by signal: Killed.\n"
    assert "gpu-out-of-memory" not in _ids(text)


def test_killed_said_on_a_desktop_is_not_gpu_memory():
    text = "On my RTX 3090 box the training process gets killed after an hour.\n"
    assert "gpu-out-of-memory" not in _ids(text)


# -- Apple: a CUDA check on a Mac ---------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "# Cuda is not availabel for macbook m1\n\nraise NotImplementedError('Cuda is not availabel')\n",
    "# Error on my mac, CUDA is not available\n\nmacOS 14.2.1, Apple M2 Ultra\n",
])
def test_cuda_check_on_a_mac_is_the_wrong_vendor(text):
    assert _top(text) == "framework-vendor-mismatch"


def test_cuda_check_on_an_nvidia_machine_names_no_vendor_mismatch():
    text = "Ubuntu 22.04, GeForce RTX 3060, driver 535.104\nRuntimeError: CUDA is not available\n"
    assert "framework-vendor-mismatch" not in _ids(text)


# -- Apple: the reader's new wordings ------------------------------------------------------------------------------
def _kinds(line: str) -> set:
    return {f.field for f in prose_vendor.line_facts(line, line.lower())}


@pytest.mark.parametrize("line", [
    "Some search tells me that it is not supported as it is for Nvidia GPUs however, wanted to leave this here.",
    "At my end xformers is specifically meant to speed up Nvidia GPUS and M1 Macs have an integrated GPU.",
    "Most of XFormers components will only work on Nvidia GPUs.",
])
def test_cuda_only_said(line):
    assert "seen:cuda-only-said" in _kinds(line)


@pytest.mark.parametrize("line", [
    "Does xformers only work on Nvidia GPUs?",
    "If it is for Nvidia GPUs only, I cannot use it.",
    "It seems that xformers is only for Nvidia GPUs?",
])
def test_cuda_only_not_said(line):
    assert "seen:cuda-only-said" not in _kinds(line)


@pytest.mark.parametrize("line", [
    "This type of warning is one I got a lot in the beginning, and it's because I ran an Intel/Rosetta Python the "
    "whole time without realizing it",
    "I had installed the Intel version of Anaconda.",
    "Oh it shows intel. Why is that? How can I change it?",
])
def test_python_x86_said(line):
    assert "seen:python-x86-said" in _kinds(line)


@pytest.mark.parametrize("line", [
    "Did you by accident install the intel version of the conda installation?",
    "Maybe you installed an Intel Python?",
    "My laptop has an Intel CPU and it is fine.",
    # nomic-ai/gpt4all#2793 (a control of prose27): an x86_64 Python used for a test on purpose
    "Tested on my M2 MacBook Pro with an Intel version of Python. It does detect it as expected.",
])
def test_python_x86_not_said(line):
    assert "seen:python-x86-said" not in _kinds(line)


def test_intel_python_on_linux_is_no_arch_mismatch():
    # no Apple-silicon Mac in the text: an Intel Python is simply the machine's
    text = "Ubuntu 22.04 on a Xeon box. I ran an Intel Python the whole time.\n"
    assert "python-arch-mismatch" not in _ids(text)


def test_arm64_mac_wheel_is_apple_silicon_evidence():
    text = ("# ERROR: tensorflow_macos-0.1a0-cp38-cp38-macosx_11_0_arm64.whl is not a supported wheel on this platform.\n"
            "It's because I ran an Intel/Rosetta Python the whole time without realizing it\n")
    assert _top(text) == "python-arch-mismatch"
    # without the wheel (or a chip) no Apple-silicon Mac is named
    assert "python-arch-mismatch" not in _ids("It's because I ran an Intel/Rosetta Python the whole time\n")


# -- a CUDA / cuDNN library named as the error without the loader's line ---------------------------------------------
@pytest.mark.parametrize("text, cause", [
    ("# install-pytorch.sh ImportError: libcudart.so.10.0\n\nHmm it doesnt seem to be detecting your JetPack version.\n",
     "cuda-runtime-missing"),
    ("After installing Jetpack 3.2 on TX2 I installed the tensorflow wheel.\n"
     "How can I get rid of the error  libcusolver.so.8.0 of cuda 8?\n", "cuda-runtime-missing"),
    ("I just installed Jepack 6.2, and sudo pip3 install ultralytics.\n"
     "It seems it uses libcudnn.so.8 not cuDNN: 9.3.0.75.\n", "cudnn-missing"),
])
def test_library_named_as_the_error(text, cause):
    assert _top(text) == cause


@pytest.mark.parametrize("line", [
    "If it needs libcudnn.so.8 then install cuDNN 8 first.",      # a condition
    "ImportError: libgomp.so.1",                                  # not a CUDA / cuDNN library
    "It uses libcudart.so for the runtime.",                       # no version: which major is unknown
])
def test_library_not_said_as_the_error(line):
    from envcheck.paste.readers import prose_lib

    assert prose_lib.line_facts(line, line.lower()) == []
