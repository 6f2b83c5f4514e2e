"""amd33 (session 21): AMD ROCm failures as users bring them in threads: a GPU the build does not serve said in prose
(the stack "does not (yet) support" the card, a Radeon named by its number and M / S, "unsupported amdgpu version
gfxN", a maintainer's answer read in a comment taken for another author's versions), ROCm said to work only as root,
and Docker Desktop beside AMD's stack (its VM has no /dev/kfd).

Real threads in tests/data/amd33 (README: file, label, source); a third of the collection was held back in
heldout/amd33-held before envcheck ran on any of them (scored by scripts/score_pastes.py, never asserted here). What
the rules read: envcheck/paste/readers/prose_vendor.py (``gpu-said-unsupported``, ``root-only-said``,
``docker-desktop``), envcheck/paste/sections.py (the first), envcheck/engine/vendors_prose.py (the findings),
compat_matrix/resolutions.toml (a resolution that leaves Docker Desktop).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import explain_cli_matches, sample_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "amd33")
HELD = os.path.join(ROOT, "heldout", "amd33-held")


def _rows(folder):
    return sample_rows(folder, ".log" if folder.endswith("logs") else ".txt")


PASTES = _rows(os.path.join(DEV, "pastes"))
LOGS = _rows(os.path.join(DEV, "logs"))


def test_listing():
    for sub, rows, ext in (("pastes", PASTES, ".txt"), ("logs", LOGS, ".log")):
        files = sorted(f for f in os.listdir(os.path.join(DEV, sub)) if f.endswith(ext))
        assert sorted(r[0] for r in rows) == files
    held = sorted(f for f in os.listdir(os.path.join(HELD, "pastes")) if f.endswith(".txt"))
    held_rows = _rows(os.path.join(HELD, "pastes"))
    assert sorted(r[0] for r in held_rows) == held and len(held) >= 5
    urls = [r[2] for r in PASTES + LOGS + held_rows]
    assert len(urls) == len(set(urls))  # each thread once
    assert sum(1 for r in PASTES if r[1] == "none") >= 2


@pytest.mark.parametrize("sub,name,label,source", [("pastes",) + r for r in PASTES] + [("logs",) + r for r in LOGS],
                         ids=[r[0][:60] for r in PASTES + LOGS])
def test_dev_thread(sub, name, label, source):
    matches = explain_cli_matches("--no-detect", os.path.join(DEV, sub, name))
    if label == "none":
        assert matches == [], [(m["id"], m["evidence"]) for m in matches]
        return
    assert matches and matches[0]["id"] == label, [(m["id"], m["score"], m["evidence"]) for m in matches]
    assert matches[0]["fixes"]


# --- the paste reader's evidence, line by line ----------------------------------------------------------------------

def _fields(text):
    from envcheck.paste.readers import prose_vendor

    return {f.field: f.value for f in prose_vendor.line_facts(text, text.lower())}


@pytest.mark.parametrize("text,subject", [
    # Jeffser/Alpaca#742, ollama/ollama#9937, ROCm/tensorflow-upstream#2629, ollama/ollama#6152, ollama/ollama#12071
    ("That's expected behavior and no bug in Alpaca. Ollama does simply not support the RX 6600 yet.", "RX 6600"),
    ("AMD's official HIP SDK does not support RX 6750 XT and other graphics cards.", "RX 6750 XT"),
    ("TensorFlow is not recognizing the AMD Radeon RX 6700 XT GPU due to unsupported amdgpu version gfx1031, resulting "
     "in the GPU being ignored during computations.", "gfx1031"),
    ("ok, the AMD 6700M GPU is not supported  export HSA_OVERRIDE_GFX_VERSION=10.3.0 doesn't help.", "AMD 6700M GPU"),
    ("780M is not currently supported.  https://github.com/ollama/ollama/issues/7861", "780M"),
    # ROCm/rocBLAS#1536 (a maintainer)
    ("Radeon 780M is not officially supported by AMD. Please refer to the System Requirement link", "Radeon 780M"),
    # the stack lacks it (ROCm/rocBLAS#1536's description)
    ("Currently rocBLAS lacks 780M gpu support. However there already exists a support patch for that in Fedora’s "
     "repo", "780M gpu"),
    ("ROCm lacks support for gfx1103 at the moment.", "gfx1103"),
])
def test_gpu_said_unsupported(text, subject):
    got = _fields(text).get("seen:gpu-said-unsupported")
    assert got is not None and got.split(" | ", 1)[0] == subject


@pytest.mark.parametrize("text", [
    # a Ryzen CPU, a model size, a question, a condition, torch's own old-GPU warning (ROCm/pytorch#627: it runs)
    "The AMD 5800X is not supported by this build",
    "the 500M model is not supported",
    "Is the RX 6600 not supported by Ollama?",
    "If your 780M is not supported, use Vulkan.",
    "PyTorch no longer supports this GPU because it is too old.",
    # 152334H/tortoise-tts-fast#124 (an AMD CPU beside an NVIDIA GPU)
    "AMD INSTALLATION IS NOT SUPPORTED, please don't try it",
    # a lack that names no GPU
    "rocBLAS lacks the kernels for this operation",
])
def test_not_gpu_said_unsupported(text):
    assert "seen:gpu-said-unsupported" not in _fields(text)


@pytest.mark.parametrize("text", [
    # ROCm/hip#337, ROCm/legacy-rocm-build#786, ROCm/ROCT-Thunk-Interface#36
    "@whchung Thanks! I think I found the reason -- both the square example and vector_copy example work with sudo.",
    "I did not change any permission, not working outside root account, that means some permission is wrong *by default*",
    "which means that ROCm only runs for root.",
])
def test_root_only_said(text):
    assert "seen:root-only-said" in _fields(text)


@pytest.mark.parametrize("text", [
    "Try running it with sudo.",
    "it works with sudo pip install torch",
    "Does it work with sudo?",
    "If it works with sudo, add the user to the render group.",
    "I ran it with sudo and it still fails.",
])
def test_not_root_only_said(text):
    assert "seen:root-only-said" not in _fields(text)


# --- the engine's decisions ---------------------------------------------------------------------------------------

def test_root_only_needs_an_amd_text():
    from envcheck.engine.vendors_prose import amd_root_only

    said = "both the square example and vector_copy example work with sudo."
    assert amd_root_only({}, {"root-only-said": said}) is None  # whose GPU is unknown: nothing
    got = amd_root_only({}, {"root-only-said": said, "amd-prose": "GPU: AMD Radeon RX 580"})
    assert got is not None and got.id == "device-permission"
    nvidia = {"gpus": [{"name": "NVIDIA GeForce RTX 3090", "vendor": "nvidia"}]}
    assert amd_root_only(nvidia, {"root-only-said": said, "amd-prose": "ROCm"}) is None


def test_docker_desktop_needs_an_amd_text():
    from envcheck.engine.vendors_prose import amd_docker_desktop

    said = "This however leads to the following specifically when Docker Desktop is running the background."
    assert amd_docker_desktop({}, {"docker-desktop": said}) is None  # NVIDIA's WSL2 threads name it too
    got = amd_docker_desktop({}, {"docker-desktop": said, "other-vendor": "--device=/dev/kfd rocm/pytorch:latest"})
    assert got is not None and got.id == "device-permission"


def test_amd_gpu_name_without_vendor_is_not_nvidia():
    # TensorFlow's issue template ("GPU model and memory: AMD Radeon RX 6700 XT, 12GB VRAM") gives a GPU with no vendor
    from envcheck.engine.vendors_prose import amd_gpu_unsupported

    lines = {"gpu-said-unsupported": "gfx1031 | due to unsupported amdgpu version gfx1031", "amd-prose": "Radeon"}
    assert amd_gpu_unsupported(None, {"gpus": [{"name": "AMD Radeon RX 6700 XT, 12GB VRAM"}]}, lines) is not None
    assert amd_gpu_unsupported(None, {"gpus": [{"name": "Tesla T4"}]}, lines) is None


def test_maintainer_answer_after_a_question_is_read():
    # ROCm/rocBLAS#1536: the reporter asks "Can you add support for that?", the answer comes in AMD's comment (a comment
    # that the thread reader takes for another author's versions): the sentence about the GPU is still read
    text = ("Headcrabed · description · 2025-01-08\nCurrently rocBLAS lacks 780M gpu support.\n\n"
            "Can you add support for that? (Maybe also 890M gpu?)\n\nNaveenElumalaiAMD · comment · 2025-01-09\n"
            "Hi @Headcrabed,\n \nRadeon 780M is not officially supported by AMD. Please refer to the link\n")
    matches = explain_cli_matches("--no-detect", "-", text=text)
    assert matches and matches[0]["id"] == "gpu-arch-unsupported"


def test_docker_desktop_resolution_row():
    from envcheck.engine.resolution import causes_of
    from envcheck.matrix import load_matrix

    m = load_matrix()
    said = ("I fixed the problem by uninstalling docker-desktop and its builtin docker engine, and then installing the "
            "ordinary docker engine.")
    assert ("device-permission", False) in causes_of(m, said)
    assert not [c for c, _ in causes_of(m, "I installed Docker Desktop and it works.") if c == "device-permission"]
