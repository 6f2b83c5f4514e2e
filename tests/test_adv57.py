"""adv57 (issue 20): the thread's answer that the NVIDIA driver is too old ("you need to update your (Nvidia) driver to
at least version 580 to have Cuda 13", ComfyUI#11771), read as ``driver-too-old`` where the text shows no error of it.

Reader: envcheck/paste/readers/prose_cause.py ``driver-update-advised`` (a target: a driver, a CUDA, the reader's
driver read as too low; or the untargeted "not keeping their drivers up to date"); rule:
envcheck.engine.prose_causes.driver_advised. Real samples: tests/data/adv57 (README.md cites each thread);
heldout/adv57-held is the held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import prose_cause

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "adv57"
SPENT = ROOT / "heldout" / "acceptance30" / "pastes"


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def _advised(line: str):
    got = [f.value for f in prose_cause.line_facts(line, line.lower()) if f.field == "seen:driver-update-advised"]
    return got[0].split(" | ")[0] if got else None


@pytest.mark.parametrize("line,target", [
    # ComfyUI#11771's answer
    ("Cuda is bundled with your GPU driver(Nvidia), so you need to update your (Nvidia) driver to at least version 580 "
     "to have Cuda 13.", "driver 580"),
    # ComfyUI-Mie-Package-Launcher#100's answer
    ("看日志是驱动版本（572.83）太低呢，CU130 需要比较新的显卡驱动哈。", "low 572.83"),
    # StabilityMatrix#1507's answer
    ("Figured out the crux of the issue, people are just not keeping their Nvidia drivers relatively up to date.", "none"),
])
def test_answers_read(line: str, target: str) -> None:
    assert _advised(line) == target


@pytest.mark.parametrize("line", [
    "- Update Nvidia drivers to at least 580",  # ComfyUI PR 11718: the writer's own step list, no "your"
    "If you see this and ComfyUI did not start try updating your Nvidia Drivers to the latest.",  # the portable's echo
    "I updated your suggested driver to 580 and it still fails.",
    "Should I update your driver to 580?",
    "You might update your driver to 580 if the build is cu130.",
    "I'm using the latest nvidia driver on an Ubuntu server which is available: 535.104.12.",
])
def test_not_advice(line: str) -> None:
    assert _advised(line) is None


@pytest.mark.parametrize("name", ["mie-launcher-100-comfyui-failed-to-start-driver-572.83-too-low-cu130.txt"])
def test_answer_is_the_cause(name: str) -> None:
    assert _ids((DATA / name).read_text(encoding="utf-8"))[:1] == ["driver-too-old"]


def test_spent_comfyui_11771() -> None:
    path = next(SPENT.glob("comfyui-11771-*.txt"))
    assert _ids(path.read_text(encoding="utf-8"))[:1] == ["driver-too-old"]


@pytest.mark.parametrize("name", [
    "comfyui-pr-11718-writer-own-steps-drivers-580-then-cuda-unknown-error.txt",
    "comfyui-1637-newest-nvidia-driver-question-no-failure.txt",
    "comfyui-13798-updated-driver-596-portable-echo-try-updating-drivers.txt",
])
def test_controls_not_driver(name: str) -> None:
    assert "driver-too-old" not in _ids((DATA / name).read_text(encoding="utf-8"))


def test_driver_already_new_enough_is_silent() -> None:
    text = ("| NVIDIA-SMI 581.15                 Driver Version: 581.15         CUDA Version: 13.0     |\n\nhelper · comment\n"
            "You need to update your NVIDIA driver to at least 580 to run cu130.\n")
    assert "driver-too-old" not in _ids(text)


def test_untargeted_needs_a_failure() -> None:
    text = "# Which driver?\n\nhelper · comment\nPeople are just not keeping their Nvidia drivers up to date.\n"
    assert "driver-too-old" not in _ids(text)


def test_resolution_naming_another_cause_wins() -> None:
    text = ("# ComfyUI stopped\n\nhelper · comment\nYou need to update your Nvidia driver to at least 580 for CUDA 13.\n\n"
            "reporter · comment\nSolved: it was out of memory, I lowered the batch size and it works now.\n")
    ids = _ids(text)
    assert ids[:1] != ["driver-too-old"] or "gpu-out-of-memory" not in ids
