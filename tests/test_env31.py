"""The install itself (session 20, helper env31): a resolver refusing two pins of one CUDA library in the forms pip's
ResolutionImpossible does not cover (conda's "Package cudatoolkit conflicts for:", conda 4.5's "in conflict" list,
libmamba's problem tree, uv's derivation), the same conflict said in a sentence, and nvcc's host-compiler window said in
a sentence. Samples: tests/data/env31 (README: file, label, thread); held back before the rules were written:
heldout/env31-held (scored by scripts/score_pastes.py, never asserted here).
"""

from __future__ import annotations

import os
import re

import pytest

from envcheck.explain import explain_text
from envcheck.explain.document import explain_text_document
from envcheck.explain.kb import load_kb
from helpers import COVER_BOUND, paste_readme_rows, paste_top

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "env31")
HELD = os.path.join(os.path.dirname(HERE), "heldout", "env31-held")
ROWS = paste_readme_rows(DATA)
NAMES = ["conda-package-cuda-library-conflicts-for", "conda-in-conflict-framework-cuda-chain",
         "libmamba-cuda-package-conflicts-with-installable", "uv-cuda-library-pins-incompatible",
         "gcc-versions-later-than-not-supported-said", "frameworks-cuda-pins-conflict-said"]


def _doc(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        return explain_text_document(fh.read())


def _ids(text: str) -> list:
    return [m.id for m in explain_text(text)]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_dev_thread_top_cause_is_its_label(name):
    assert paste_top(_doc(os.path.join(DATA, name))) == ROWS[name][0]


def test_readmes_list_every_sample_with_its_thread_and_the_held_back_part_is_apart():
    on_disk = {f for f in os.listdir(DATA) if f.endswith(".txt")}
    assert on_disk == set(ROWS)
    assert sum(1 for label, _ in ROWS.values() if label == "none") >= 4
    held = paste_readme_rows(HELD)
    assert {f for f in os.listdir(HELD) if f.endswith(".txt")} == set(held)
    assert not set(held) & set(ROWS)
    threads = [src for _, src in list(ROWS.values()) + list(held.values())]
    assert len(threads) == len(set(threads))  # one sample a thread


def test_the_signatures_are_in_this_helpers_block_and_the_cover_stays_bounded():
    kb = load_kb()
    with open(os.path.join(os.path.dirname(HERE), "compat_matrix", "errors.toml"), encoding="utf-8") as fh:
        text = fh.read()
    block = text[text.index("# ---- env31 ----"):]
    for name in NAMES:
        assert f'name = "{name}"' in block, name
        assert any(s.name == name for s in kb.signatures), name
    assert len(kb.cover) <= COVER_BOUND


# -- resolver forms --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    # facebookresearch/demucs#21 (conda 4.7's grouped UnsatisfiableError)
    "Package cudatoolkit conflicts for:\npytorch=1.3.1 -> cudatoolkit[version='>=10.1,<10.2']\ncudatoolkit=10.0",
    # OpenSciML/CvStudio#10's form, in Markdown bold
    "**Package cudatoolkit conflicts for:\ncudatoolkit=10.0",
    # araffin/robotics-rl-srl#26 (conda 4.5's list, quoted)
    ">   - cudatoolkit==8.0=3\n>   - pytorch==0.4.0=py35_cuda9.0.176_cudnn7.1.2_1 -> cudatoolkit=9",
    # mamba-org/mamba#3294 (libmamba's tree)
    "   │  └─ pytorch-cuda >=11.8,<11.9 , which conflicts with any installable versions previously reported;",
    # VisoMasterFusion/VisoMaster-Fusion#261 (uv)
    "  ╰─▶ Because torch==2.11.0+cu130 depends on cuda-toolkit[cublas]==13.0.2 and you require cuda-toolkit==13.2.1, "
    "we can conclude",
    # xming521/WeClone#197 (uv, system:cuda)
    "      And because triton==3.3.1 depends on system:cuda==12.9, we can conclude that torch{sys_platform == 'linux'}"
    "==2.7.1 and triton{sys_platform == 'linux'}==3.3.1 are incompatible.",
])
def test_a_resolver_refusing_two_cuda_pins_is_a_framework_conflict(text):
    assert _ids(text)[:1] == ["framework-conflict"]


@pytest.mark.parametrize("text", [
    # pytorch/pytorch#35270: another package's conflict, then conda 4.8's driver feature list
    "Package toolchain_cxx_linux-64 conflicts for:\nkeras -> theano -> toolchain_cxx_linux-64",
    # pytorch/vision#5024: libgcc-ng / glibc, cudatoolkit only on the left of a chain
    "Package libgcc-ng conflicts for:\ncudatoolkit=11.5 -> libgcc-ng[version='>=9.4.0']",
    # a chain that ends at the driver's virtual package is the driver's floor, not a pin
    "  - pytorch=1.7 -> cudatoolkit[version='>=11.0'] -> __cuda[version='>=11.0']",
    # pinokiofactory/invoke#3: libmamba's __cuda line
    "   │     └─ __cuda >=10.0 , which conflicts with any installable versions previously reported;",
    # astral-sh/uv#10604: no such wheel on the index, no second pin
    "  ╰─▶ Because there is no version of nvidia-cudnn-cu12{platform_machine == 'x86_64' and sys_platform == 'linux'}"
    "==9.1.0.70 and torch==2.4.1 depends on nvidia-cudnn-cu12{platform_machine == 'x86_64' and sys_platform == "
    "'linux'}==9.1.0.70, we can conclude that torch==2.4.1 cannot be used.",
    # a uv test's comment (no wheel for the platform)
    "Because nvidia-cudnn-cu12==8.9.2.26 has no wheels with a matching platform tag and you require "
    "nvidia-cudnn-cu12==8.9.2.26, we can conclude that your requirements are unsatisfiable.",
    # astral-sh/uv#1497
    "Because there is no version of torch==2.1.0+cpu and you require torch==2.1.0+cpu, we can conclude that the "
    "requirements are unsatisfiable.",
])
def test_other_resolver_refusals_are_no_framework_conflict(text):
    assert "framework-conflict" not in _ids(text)


# -- said in a sentence ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "A JAX user noted that `torch` and `jax` have conflicting requirements for NVIDIA's CUDA pip wheels.",  # #97990
    "Different CUDA version in python dependency resolution between `TensorFlow` (2.19) and `PyTorch`",  # rocker ml#34
])
def test_two_frameworks_cuda_conflict_said_is_a_framework_conflict(text):
    assert _ids(text)[:1] == ["framework-conflict"]


def test_conflicting_versions_said_of_two_builds_is_not_read():
    # SpatialVLA#19's title: its torch cu121 and TensorFlow 2.15's CUDA 12.2 share one environment (the maintainer's
    # answer; tests/test_attack41.py): a user calling two framework versions conflicting is no CUDA pin conflict
    assert "framework-conflict" not in _ids(
        "# Hello, you have requested conflicting versions of PyTorch【 torch==2.5.1+cu121】 and TensorFlow")


@pytest.mark.parametrize("text", [
    "torch and tensorflow have conflicting requirements on protobuf",
    "pytorch 2.1 requires cuda 11.8 while pytorch 2.2 requires cuda 12.1",
    "I installed torch and torchvision with conflicting versions of cuda",
    "    torch 2.5.1+cu121 depends on typing-extensions>=4.8.0",  # hacksider/Deep-Live-Cam#920
])
def test_other_sentences_are_no_framework_conflict(text):
    assert "framework-conflict" not in _ids(text)


def test_versions_each_framework_needs_are_left_to_the_engines_comparison():
    # AspirinCode/GENiPPI#1: two CUDA 11 minors; the prose_pins reader and engine.prose_causes.frameworks_said decide
    # (one runtime of the newer minor serves both), no signature of this block says more
    line = "torch==1.7.1 requires cuda version 11.0 and cudnn 0.8.2 where tensorflow=2.5.0 requires cuda 11.2 and cudnn 8.1."
    kb = load_kb()
    assert not any(s.regex.search(line) for s in kb.signatures if s.name in NAMES)


@pytest.mark.parametrize("text, limit", [
    ("When I try to install the pytorch bindings I get the message that gcc versions later than 12 are not "
     "supported. My gcc version is `gcc (GCC) 13.2.1 20231011 (Red Hat 13.2.1-4)`.", "12"),  # tiny-cuda-nn#386
    ("Currently CUDA doesn't support gcc versions later than 8. I've tried to switch to clang", None),  # waifu2x#203
])
def test_nvccs_gcc_window_said_is_host_compiler_unsupported(text, limit):
    ms = explain_text(text)
    assert ms and ms[0].id == "host-compiler-unsupported"
    assert ms[0].generic  # a sentence: a weak wording
    assert ms[0].captures.get("gcc_max") == limit


def test_the_error_line_itself_is_read_once_by_nvccs_own_signature():
    line = ("/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions "
            "later than 12 are not supported!")
    kb = load_kb()
    said = next(s for s in kb.signatures if s.name == "gcc-versions-later-than-not-supported-said")
    assert said.regex.search(line) is None
    assert _ids(line)[:1] == ["host-compiler-unsupported"]


@pytest.mark.parametrize("text", [
    "gcc 13 is already supported by the master of this repo.",  # egor-tensin/setup-gcc#12
    "Limitations: Does not support gcc over version 9.3",  # I2PC/xmipp3#512 (a project's own limit)
])
def test_other_gcc_support_sentences_are_silent(text):
    assert "host-compiler-unsupported" not in _ids(text)


def test_no_signature_regex_of_this_block_uses_a_look_around():
    kb = load_kb()
    patterns = [s.regex.pattern for s in kb.signatures if s.name in NAMES]
    assert len(patterns) == len(NAMES)
    for pattern in patterns:
        assert not re.search(r"\(\?[=!]|\(\?<[=!]|\\b|\\[1-9]", pattern)
