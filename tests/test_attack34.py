"""Attacks of helper attack34 (session 10): each test failed before its fix.

* Sentences (paste reader ``prose_cause``): a driver said to be too old, or a card said to support CUDA X at most, in a
  question ("Is my driver too old?"), under a negation or a doubt ("I don't think my driver is too old", "I doubt my
  driver is outdated") or as someone else's claim ("The message claims the driver is too old") is not the reporter's
  statement: not read. Read, it made ``explain`` put ``driver-too-old`` first, above the log's real cause.
* "It never installed the cpu version" is no statement that torch is the CPU build; Paddle's own "Cannot use GPU
  because you have installed CPU version PaddlePaddle." is no statement about torch (``explain`` said "The text says
  torch is the CPU-only build" and told the reader to reinstall torch).
"""

from __future__ import annotations

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers.prose_cause import line_facts

#: a real failure line (torch's "no kernel image" on a GPU the build lacks) and a real GPU line
_NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def _seen(line: str) -> set:
    return {f.field[5:] for f in line_facts(line, line.lower()) if f.field.startswith("seen:")}


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


# the real sentences of tests/test_paste_pastes20p.py (BayesWatch/nas-without-training#2, pytorch#...), bent
@pytest.mark.parametrize("line,key", [
    ("Is my Nvidia driver not supported for the pytorch-gpu version that was requested?", "driver-said-old"),
    ("I don't think my driver is too old, nvidia-smi shows 550.", "driver-said-old"),
    ("I doubt my driver is outdated.", "driver-said-old"),
    ("The message claims the driver is too old, but my driver is 550.", "driver-said-old"),
    ("It is not that my driver is too old.", "driver-said-old"),
    ("Could it be that my driver is too old?", "driver-said-old"),
    ("是不是驱动版本太低了", "driver-said-old"),
    ("Does my computer graphics card only support cuda9.1?", "driver-cuda-said"),
    ("It's not true that my driver only supports CUDA 10.2.", "driver-cuda-said"),
    ("It never installed the cpu version, I checked.", "cpu-build-said"),
    ("Cannot use GPU because you have installed CPU version PaddlePaddle.", "cpu-build-said"),  # Paddle's own message
])
def test_unstated_prose_is_not_read(line, key):
    assert key not in _seen(line)


@pytest.mark.parametrize("line,key", [
    ("My Nvidia driver is not supported for the pytorch-gpu version that was requested", "driver-said-old"),
    ("The GPU fails. My driver is too old, I think.", "driver-said-old"),  # the earlier sentence does not undo it
    ("驱动版本太低了，换了新驱动就好", "driver-said-old"),
    ("My computer graphics card can only support cuda9.1 and", "driver-cuda-said"),
    ("nvidia-smi shows CUDA Version: 11.4 but torch says", "driver-cuda-said"),
    ("Hi, noticing that trying to `pip install torch` resulted in the CPU version of torch stable.", "cpu-build-said"),
    ("I have no idea why. pip installed the cpu version of torch", "cpu-build-said"),
])
def test_stated_prose_is_still_read(line, key):
    assert key in _seen(line)


@pytest.mark.parametrize("sentence", [
    "I don't think my driver is too old, nvidia-smi shows 550.",
    "Is my driver too old?",
    "Somebody suggested my driver is too old but it's 560.",
])
def test_a_driver_not_said_old_is_no_cause(sentence):
    assert "driver-too-old" not in _ids(f"My GPU is an RTX 3090. {sentence}\n{_NO_KERNEL}")


def test_never_installed_the_cpu_version_is_no_cause():
    text = "My GPU is an RTX 3090. It never installed the cpu version, I checked.\nRuntimeError: CUDA error: out of memory\n"
    assert "framework-cpu-only" not in _ids(text)


def test_paddles_cpu_message_says_nothing_of_torch():
    # tests/data/logs/logs20n-2/senta-69-cpu-paddle-cudaplace.log's line: Paddle's fix, and no torch reinstall
    doc = explain_text_document("Cannot use GPU because you have installed CPU version PaddlePaddle.\n")
    top = doc["matches"][0]
    assert top["id"] == "framework-cpu-only"
    assert not any("torch" in str(f).lower() and "the text says" in str(f).lower() for f in top.get("fixes") or [])


# pip's own lines (Nerogar/OneTrainer#138, harlanhong/ACTalker#10): the
# pinned release is among the versions pip found for this interpreter, only its +cu118 label is not (PyTorch's own
# index has it, PyPI never): no statement that there is no build for this Python
@pytest.mark.parametrize("text", [
    "ERROR: Could not find a version that satisfies the requirement torch==2.1.2+cu118 (from versions: 1.11.0, 1.12.0, "
    "1.12.1, 1.13.0, 1.13.1, 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2)\nERROR: No matching distribution found for "
    "torch==2.1.2+cu118\n",
    "ERROR: Could not find a version that satisfies the requirement torch==2.0.1+cu118 (from versions: 1.11.0, 1.12.0, "
    "1.12.1, 1.13.0, 1.13.1, 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, 2.2.2, 2.3.0, 2.3.1, 2.4.0, 2.4.1, 2.5.0, "
    "2.5.1, 2.6.0, 2.7.0, 2.7.1)\nERROR: No matching distribution found for torch==2.0.1+cu118\n",
    # CVMI-Lab/SC-GS#55: pip's "Ignored ... require a different python version" line is printed with the failure for
    # every package the run looked at (scipy's 1.14.0 here), not for the torch pin, whose 1.12.1 was found
    "ERROR: Ignored the following versions that require a different python version: 1.14.0 Requires-Python >=3.10; "
    "1.14.0rc1 Requires-Python >=3.10; 1.14.0rc2 Requires-Python >=3.10; 1.14.1 Requires-Python >=3.10; 2.1.0 "
    "Requires-Python >=3.10; 2.1.0rc1 Requires-Python >=3.10; 2.1.1 Requires-Python >=3.10\n"
    "ERROR: Could not find a version that satisfies the requirement torch==1.12.1+cu113 (from versions: 1.7.1, 1.8.0, "
    "1.8.1, 1.9.0, 1.9.1, 1.10.0, 1.10.1, 1.10.2, 1.11.0, 1.12.0, 1.12.1, 1.13.0, 1.13.1, 2.0.0, 2.0.1, 2.1.0, 2.1.1, "
    "2.1.2, 2.2.0, 2.2.1, 2.2.2, 2.3.0, 2.3.1, 2.4.0)\nERROR: No matching distribution found for torch==1.12.1+cu113\n",
])
def test_pip_found_the_pinned_release_is_no_python_verdict(text):
    assert "python-unsupported" not in _ids(text)


def test_pip_without_the_pinned_release_is_still_python_unsupported():
    # YassineYousfi/comma10k-baseline#13: torch==1.8.1 is not among the versions pip found for this Python
    text = ("ERROR: Could not find a version that satisfies the requirement torch==1.8.1 (from versions: 1.13.0, 1.13.1, "
            "2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, 2.2.2, 2.3.0, 2.3.1, 2.4.0, 2.4.1, 2.5.0, 2.5.1, 2.6.0, "
            "2.7.0, 2.7.1, 2.8.0)\nERROR: No matching distribution found for torch==1.8.1\n")
    assert _ids(text)[:1] == ["python-unsupported"]
    # a pinned +cu label whose release pip did not find either (the versions listed are cut short: no verdict from it)
    cut = ("ERROR: Could not find a version that satisfies the requirement torch==1.8.2+cu111 (from versions: 2.0.0, "
           "2.0.1, 2.1.0)\n")
    assert _ids(cut)[:1] == ["python-unsupported"]


# a GPU and a CUDA in one line, but of another person or machine, or asked: no pair (it made explain put
# gpu-arch-unsupported first, above the log's own out-of-memory)
@pytest.mark.parametrize("line", [
    "My colleague's RTX 3060 did not work with CUDA 10.2, so he moved to 11.1.",
    "On my other machine, an RTX 3060 with CUDA 10.2 failed.",
    "RTX 3060 with CUDA 10.2? no, I use CUDA 12.1.",
    "The docs say an RTX 3060 needs more than CUDA 10.2.",
])
def test_a_pair_not_of_the_reporter_is_not_read(line):
    assert "gpu-cuda-pair" not in _seen(line)
    assert "gpu-arch-unsupported" not in _ids(f"{line}\nRuntimeError: CUDA error: out of memory\n")


@pytest.mark.parametrize("line", [
    "解决了，我的Cuda版本是10.2，不支持RTX3060，升级到11.1就可以了",  # tests/test_paste_pastes20p.py's
    "I am using Pytorch 1.0.1 and cuda 9.0 with a RTX 2080 Ti GPU.",  # pytorch#18620
    # tests/data/pastes/pastes20m/dinet-100-rtx3090-sm86-torch-1.7.1-cu101-requirements.txt: two sentences, one line
    "I have a RTX 3090 graphics card. The requirement in the txt file, torch==1.7.1+cu101, is too low for this card.",
])
def test_a_pair_of_the_reporter_is_still_read(line):
    assert "gpu-cuda-pair" in _seen(line)


# a torch +cpu build that is no longer, or never was, the reporter's (the real label forms of
# tests/test_paste_pastes20p.py, "Torch 2.0.1+cpu", in sentences that give it away, take it back or name another build)
@pytest.mark.parametrize("line,key", [
    ("My friend's laptop has torch 2.0.1+cpu but mine has 2.0.1+cu118.", "torch-cpu-label"),
    ("I previously had torch 2.0.1+cpu, now I have torch 2.0.1+cu118.", "torch-cpu-label"),
    ("I uninstalled torch 2.0.1+cpu and installed the cuda one.", "torch-cpu-label"),
    ("Is it Torch 2.0.1+cpu?", "torch-cpu-label"),
    ("My colleague installed the cpu version of torch by mistake.", "cpu-build-said"),
    ("Earlier it installed the CPU version but I fixed that.", "cpu-build-said"),
])
def test_a_cpu_build_not_the_reporters_is_not_read(line, key):
    assert key not in _seen(line)
    assert "framework-cpu-only" not in _ids(f"I have an RTX 3090.\n{line}\nRuntimeError: CUDA error: out of memory\n")


@pytest.mark.parametrize("line", [
    "22:47:27-752280 INFO     Torch 2.0.1+cpu",  # vladmandic/sdnext#1424
    # stemdeck#644 (heldout/pastes20p): what was removed is not the build named
    "As a result, the application purges local environments and falls back to `torch-2.6.0+cpu`, preventing native "
    "utilization of discrete GPUs (such as RTX 4060 Laptop GPU) during stem isolation pipelines.",
    "Ultralytics YOLOv8.2.54 🚀 Python-3.9.13 torch-2.2.0+cpu",
])
def test_a_cpu_label_of_the_reporter_is_still_read(line):
    assert "torch-cpu-label" in _seen(line)


def test_a_cpu_build_said_beside_a_cuda_run_is_no_cause():
    # torch's own allocator message (the "CUDA out of memory. Tried to allocate" of tests/data's OOM logs): the torch
    # that printed it ran on the GPU, so the sentence's CPU build is another run's or another environment's
    text = ("I have an RTX 3090. pip installed the cpu version of torch.\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.69 GiB total capacity; "
            "22.1 GiB already allocated)\n")
    assert "framework-cpu-only" not in _ids(text)
    # the same sentence beside a failure a CPU build does give: said
    assert _ids("I have an RTX 3090. pip installed the cpu version of torch.\n"
                "torch.cuda.is_available() returns False\n")[:1] == ["framework-cpu-only"]


# "Solved by updating the NVIDIA driver" (tests/test_paste_pastes20p.py's real line) said of someone else, quoted
# from a page or guessed: not the reporter's resolution
@pytest.mark.parametrize("line", [
    "Someone on the forum said it was solved by updating the NVIDIA driver.",
    "For my colleague it worked after updating the driver.",
    "According to the FAQ, it is fixed by updating the nvidia driver.",
    "The docs say: solved by updating the NVIDIA driver.",
    "Maybe it is solved by updating the NVIDIA driver.",
])
def test_a_driver_fix_not_the_reporters_is_not_read(line):
    assert "driver-said-old" not in _seen(line)
    assert "driver-too-old" not in _ids(f"My GPU is an RTX 3090.\n{line}\n{_NO_KERNEL}")


@pytest.mark.parametrize("line", ["Solved by updating the NVIDIA driver to 535.", "更新显卡驱动后解决了",
                                  "after I updated my driver it works"])
def test_the_reporters_driver_fix_is_still_read(line):
    # the one reader of a thread's resolution (paste/readers/resolution.py) keeps it; the phrase table names the driver
    from envcheck.paste.readers.resolution import line_facts

    assert [f.field for f in line_facts(line, line.lower())] == ["seen:resolution"]
    assert "driver-too-old" in _ids(f"My GPU is an RTX 3090.\n{line}\n{_NO_KERNEL}")


# a text that says no NVIDIA GPU is there or wanted: its "NVIDIA" / "use the GPU" is no sign the GPU was wanted, so a
# +cpu torch there is no cause (explain said "the reporter wants the GPU: This laptop has no NVIDIA GPU ...")
@pytest.mark.parametrize("text", [
    "This laptop has no NVIDIA GPU, I run on the CPU on purpose. Torch 2.0.1+cpu\n"
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied\n",
    "I don't want to use the GPU. Torch 2.0.1+cpu\nRuntimeError: mat1 and mat2 shapes cannot be multiplied\n",
])
def test_no_gpu_wanted_is_not_gpu_wanted(text):
    assert "framework-cpu-only" not in _ids(text)


@pytest.mark.parametrize("line,wanted", [
    # tests/data/logs/logs20n-4/grounded-sam-506-laptop-without-nvidia.log
    ("I also can't enable CUDA on my Laptop since it doesn't have an NVIDIA graphics card", False),
    ("How do i get it back to the gpu?", True),  # vladmandic/sdnext#1424 (tests/test_paste_pastes20p.py)
    ("Cannot use GPU because you have installed CPU version PaddlePaddle.", True),
])
def test_gpu_wanted_reads_the_sentence(line, wanted):
    assert ("gpu-wanted" in _seen(line)) is wanted


def test_two_machines_collect_env_make_no_chimera_torch():
    # two real collect_env reports in one paste (a server's torch 2.6.0+cu126, a laptop's 1.3.0 with its conda row):
    # which torch ran is not certain (the note says so), so no torch is read - not 1.3.0 "built with CUDA 12.6"
    from pathlib import Path

    dev = Path(__file__).parent / "data" / "pastes" / "dev"
    text = ("On my server:\n" + (dev / "torch-150733-collect-env-2.6.0-cu126-rtx5090d-sm120.txt").read_text()
            + "\nOn my laptop, where it works:\n"
            + (dev / "torch-28321-collect-env-1.3.0-conda-cuda10.1-driver-410-t4.txt").read_text())
    doc = explain_text_document(text)
    assert "torch" not in (doc["facts"].get("frameworks") or {})


# uv's own hint says the release has wheels for other platforms only: the platform, not the Python, lacks a wheel
# (astral-sh/uv#1497; pytorch/vision#9249's nightly): no "no build for this Python"
@pytest.mark.parametrize("text", [
    "error: Distribution `torch==2.6.0 @ registry+https://download.pytorch.org/whl/cpu` can't be installed because it "
    "doesn't have a source distribution or wheel for the current platform\n\nhint: You're on Linux "
    "(`manylinux_2_35_x86_64`), but `torch` (v2.6.0) only has wheels for the following platform: `macosx_11_0_arm64`\n",
    "error: Distribution `torchvision==0.25.0.dev20251012 @ registry+https://download.pytorch.org/whl/nightly/cu128` "
    "can't be installed because it doesn't have a source distribution or wheel for the current platform\n\nhint: "
    "You're on Linux (`manylinux_2_35_x86_64`), but `torchvision` (v0.25.0.dev20251012) only has wheels for the "
    "following platform: `manylinux_2_28_aarch64`;\n",
])
def test_uv_platform_hint_is_no_python_verdict(text):
    assert "python-unsupported" not in _ids(text)
    assert explain_text_document(text)["facts"] == {}  # the hint is evidence, not a report of the machine


def test_uv_python_hint_is_still_python_unsupported():
    # astral-sh/uv#10236's form: the hint names the Python's ABI tag
    text = ("error: Distribution `torch==2.5.1 @ registry+https://pypi.org/simple` can't be installed because it doesn't "
            "have a source distribution or wheel for the current platform\n\nhint: You're using CPython 3.13 (`cp313`), "
            "but `torch` (v2.5.1) only has wheels with the following Python ABI tags: `cp39`, `cp310`, `cp311`, `cp312`\n")
    assert _ids(text)[:1] == ["python-unsupported"]


# a GPU named in a sentence that says the reporter has none, someone else has it, or it is one to buy: no sign that
# the reporter's GPU was wanted (a +cpu torch was said to be the cause of a shape error)
@pytest.mark.parametrize("sentence", [
    "I don't have an RTX 3090, only integrated graphics.",
    "Would an RTX 3090 help?",
    "My friend has an RTX 3090.",
])
def test_a_gpu_not_the_reporters_shows_no_gpu_wanted(sentence):
    from envcheck.paste.readers import prose_gpu

    assert prose_gpu.read([sentence]).get("gpu_prose") is None
    assert "framework-cpu-only" not in _ids(f"{sentence} Torch 2.0.1+cpu\n"
                                            "RuntimeError: mat1 and mat2 shapes cannot be multiplied\n")


def test_the_reporters_gpu_in_a_question_is_still_read():
    from envcheck.paste.readers import prose_gpu

    assert prose_gpu.read(["Why is my RTX 3090 not used?"]).get("gpu_prose") == "RTX 3090"
    assert prose_gpu.read(["I have Nvidia K80, ollama works only in CPU"]).get("gpu_prose")  # its module docstring's


# a +cpu build advised in a sentence (a reply's suggestion), not shown installed
@pytest.mark.parametrize("line", [
    "Try pip install torch==2.0.1+cpu to test on CPU.",
    "For a machine without a GPU you can run pip install torch==2.0.1+cpu instead.",
])
def test_an_advised_cpu_build_is_not_read(line):
    assert "torch-cpu-label" not in _seen(line)
    assert "framework-cpu-only" not in _ids(f"I have an RTX 3090.\n{line}\ntorch.cuda.is_available() returns False\n")


def test_a_driver_said_old_beside_a_cuda_run_is_no_cause():
    # the reporter's driver is too old for CUDA 12, and the cu118 build they use ran: torch's allocator message shows
    # CUDA initialised, so the driver runs the build
    text = ("My driver is too old for CUDA 12, so I use cu118.\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.69 GiB total capacity; "
            "22.1 GiB already allocated)\n")
    assert _ids(text) == ["gpu-out-of-memory"]
