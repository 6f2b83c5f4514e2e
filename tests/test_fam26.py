"""Helper fam26 of issue 20: fresh real samples of the families heldout/acceptance16 (spent) missed. Real texts:
tests/data/logs/fam26 (README: file, label, source, note); the held-back part heldout/fam26-held was split off first
(scripts/split_log_batch.py, random.Random(2026112827), 35%) and is scored with scripts/score_explain.py only, never
asserted here.

The rule, in the layer docs/architecture.md gives a wording of a library: one errors.toml signature (section
"# fam26 (issue 20)"), the NVIDIA X driver's "Failed to initialize the NVIDIA GPU at PCI:B:D:F" (gpu-not-initialized).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (assert_top_is_label, check_literals_hold, check_log_batch,  # noqa: E402
                     check_section_signatures, earlier_log_threads, explain_file, log_readme_rows, top_match)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "fam26")
HELD = os.path.join(ROOT, "heldout", "fam26-held")
DEV_ROWS = log_readme_rows(DEV)
SECTION = "# fam26 (issue 20)"
SIGNATURES = {"xorg-nvidia-failed-to-initialize-gpu-at-pci"}
KNOWN_MISSES = {}


def _read(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as fh:
        return fh.read()


def test_listing_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV, HELD, min_dev=3, min_held=2, min_total=5, held_listed=True)
    assert {r[1] for r in held} == {"gpu-not-initialized"}


def test_no_thread_is_in_an_earlier_log_set():
    urls = {r[2] for r in DEV_ROWS + log_readme_rows(HELD)}
    assert not urls & earlier_log_threads(("fam26", "fam26-held"))


def test_signature_sits_in_the_section_behind_an_existing_anchor():
    check_section_signatures(SECTION, SIGNATURES)
    lines = [ln for name, _, _ in DEV_ROWS for ln in _read(DEV, name).splitlines()]
    assert check_literals_hold(SIGNATURES, lines) == SIGNATURES


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS])
def test_working_logs(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV, name)), name, label, KNOWN_MISSES)


@pytest.mark.parametrize("line", [
    # the X server's own log (all-ways-egpu#58's form, gdm's session log prefix; a GPU at a three-digit bus)
    "/usr/libexec/gdm-x-session[1605]: (EE) NVIDIA(GPU-0): Failed to initialize the NVIDIA GPU at PCI:82:0:0.  Please",
    # older drivers' screen-numbered form, as optirun repeats it
    "[ERROR]Cannot access secondary GPU - error: [XORG] (EE) NVIDIA(0): Failed to initialize the NVIDIA GPU at PCI:1:0:0.",
])
def test_xorg_failed_to_initialize_is_gpu_not_initialized(line):
    m = top_match(line + "\n")
    assert m is not None and m.id == "gpu-not-initialized" and m.signature == "xorg-nvidia-failed-to-initialize-gpu-at-pci"
    advice = " ".join(m.fixes)
    assert "kernel log" in advice


@pytest.mark.parametrize("line", [
    # the X driver's healthy lines (all-ways-egpu#58's session log), and a question about the message without it
    "(II) NVIDIA(G0): NVIDIA GPU NVIDIA T550 Laptop GPU (TU117GL-A) at PCI:3:0:0",
    "/usr/libexec/gdm-x-session[1605]: (II) NVIDIA Unified Driver for all Supported NVIDIA GPUs",
    "how do I fix the failed to initialize error on my nvidia card",
])
def test_healthy_xorg_lines_say_nothing(line):
    m = top_match(line + "\n")
    assert m is None or m.id != "gpu-not-initialized", (m.id, m.evidence)
