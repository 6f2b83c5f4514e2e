"""cpu41 (issue 20): a CPU-only torch told by its symptoms and by the thread's answer, not by a build string ("It works
for CPU, but not for GPU" and an answer to install PyTorch with GPU support; "only 2 fps" on a GTX 1080 cured by another
torch), and Apple's "Torch not compiled with CUDA enabled" on an Apple-silicon Mac named in Chinese ("苹果M1芯片",
"M1上", "mac M2报错"): framework-vendor-mismatch by the sets' convention, not framework-cpu-only.

Readers: envcheck/paste/readers/gpu_unused.py (``gpu-unused-said``, ``cuda-build-advised``), envcheck/paste/readers/
observe.py (``apple-silicon``, ASCII word bounds and the Chinese forms); rules: envcheck.engine.prose_causes
``cuda_build_advised``, compat_matrix/resolutions.toml ``# ---- cpu41`` (when gpu-unused-said), and explain/document.py
passing the paste's ``apple-silicon`` to the log's ``apple_mac`` fact (engine.vendors.recast_cause reads it). Real
samples: tests/data/cpu41 (README.md cites each thread); heldout/cpu41-held is the held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import gpu_unused, observe
from helpers import readme_labels

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "cpu41" / "pastes"
SPENT = ROOT / "heldout" / "acceptance29" / "pastes"
LABELS = readme_labels(DATA)
#: the thread's reporter moved the code to MPS and then hit an MPS graph error (mps-op-unsupported), which explain
#: ranks over the CUDA assertion of the title where MPS ran (explain.rank's _drop_cuda_probe_where_mps_ran): the title's
#: question is the label; a known disagreement, not tuned away
KNOWN = {"chatglm-6b-549-zh-m1-cannot-run-torch-not-compiled-with-cuda-cuda-to-mps.txt": "mps-op-unsupported"}


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def _keys(line: str) -> set:
    return {f.field for f in observe.line_facts(line, line.lower())}


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.iterdir() if p.suffix == ".txt")
    assert list(LABELS.values()).count("none") >= 3  # controls


@pytest.mark.parametrize("name", sorted(LABELS))
def test_paste_top_cause_is_the_label(name):
    ids = _ids((DATA / name).read_text(encoding="utf-8"))
    assert (ids[0] if ids else "none") == KNOWN.get(name, LABELS[name]), ids


@pytest.mark.parametrize("stem,label", [
    ("avatarify-15-", "framework-cpu-only"),
    ("ultralytics-290-", "framework-cpu-only"),
    ("glm-tts-31-", "framework-vendor-mismatch"),
])
def test_the_spent_misses_are_read(stem, label):
    path = next(SPENT.glob(stem + "*.txt"))
    ids = _ids(path.read_text(encoding="utf-8"))
    assert ids and ids[0] == label, ids


@pytest.mark.parametrize("line", [
    "我用的是苹果M1芯片，已经将前面问题都跑通了。",  # zai-org/GLM-TTS#31
    "# [BUG/Help] M1上无法运行，报错“AssertionError: Torch not compiled with CUDA enabled”",  # zai-org/ChatGLM-6B#549
    "# mac M2报错： Torch not compiled with CUDA enabled",  # zai-org/CodeGeeX2#183
    "# Mac M3，运行报错：AssertionError: Torch not compiled with CUDA enabled",  # chatchat-space/Langchain-Chatchat#2990
])
def test_an_apple_chip_named_in_chinese_is_apple_silicon(line):
    assert "seen:apple-silicon" in _keys(line)


@pytest.mark.parametrize("line", [
    "我用的是苹果电脑",  # a Mac, but no chip named: an Intel Mac is one too
    "- OS: mac 13.0",  # ChatGLM-6B#549's field: a macOS version, no chip
    "see the CPU部署 of readme",
])
def test_no_chip_named_is_no_apple_silicon(line):
    assert "seen:apple-silicon" not in _keys(line)


@pytest.mark.parametrize("line,key", [
    ("It works for CPU, but not for GPU...", "seen:gpu-unused-said"),  # ultralytics#290
    ("Hello, I tried the code on my laptop using nvidia 1080 gpu with cuda installed, however the fps is only 2 fps, do "
     "you know why?", "seen:gpu-unused-said"),  # avatarify-python#15
    ("When trying to run a script, I get: `No GPU being used. Careful, inference might be very slow!`",
     "seen:gpu-unused-said"),  # suno-ai/bark#437
    ("It supports GPU on windows. You need to verify if you Pytorch is installed correctly with GPU support.",
     "seen:cuda-build-advised"),  # ultralytics#290
    ("install torch with cuda", "seen:cuda-build-advised"),  # KyanChen/TTP#6
    ("You may need to check the CUDA driver and download the corresponding version of PyTorch on the official website.",
     "seen:cuda-build-advised"),  # innnky/so-vits-svc#50
])
def test_the_symptom_and_the_answer_are_read(line, key):
    assert key in {f.field for f in gpu_unused.line_facts(line, line.lower())}


@pytest.mark.parametrize("line", [
    # a CPU run wanted (HarryVolek/PyTorch_Speaker_Verification#61)
    "I'm training with the CPU backend for Torch with Python3.7 on anaconda with a quad-core CPU, and it seems very slow.",
    "And the frame rate only 4 fps",  # no GPU on the line (pkhungurn/talking-head-anime-demo#10)
    "Yes, that is normal with big models. You need a GPU.",
])
def test_a_cpu_run_or_a_bare_frame_rate_is_no_symptom(line):
    assert not gpu_unused.line_facts(line, line.lower())


def test_the_changed_torch_needs_the_symptom():
    """The resolution row (compat_matrix/resolutions.toml, cpu41) reads "I changed my torch version" as a CPU-only torch
    only where the text says the GPU went unused or ran slow: avatarify-python#15 without its first post (the 2 fps on
    the GTX 1080) says no cause from it."""
    text = next(SPENT.glob("avatarify-15-*.txt")).read_text(encoding="utf-8")
    assert _ids(text)[:1] == ["framework-cpu-only"]
    cut = "\n".join(line for line in text.splitlines() if "only 2 fps" not in line)
    assert "framework-cpu-only" not in _ids(cut)


def test_the_answer_alone_on_a_mac_is_no_cpu_build():
    """The answer's rule needs an NVIDIA GPU wanted: the same answer where the text names an Apple-silicon Mac says no
    CPU-only build (HAT#120's title beside TTP#6's answer)."""
    text = ("# How to use the package in Mac with M1/M2 chip\n\nGade-Z · description · 2023-12-09\nhow to use GPU for "
            "traning?\n\nKyanChen · comment · 2025-07-25\ninstall torch with cuda\n")
    assert "framework-cpu-only" not in _ids(text)
