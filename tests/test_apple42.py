"""apple42 (session 25): Apple wordings the blind sets kept missing (issue 20).

Real texts in tests/data/apple42 (README: file, label, source); a third of the collection was held back in
heldout/apple42-held before any rule was written (scored by scripts/score_explain.py, never asserted here). What the
rules read: compat_matrix/errors.toml's ``# ---- apple42 ----`` block - torch's MPS unary kernels of 2022-2023 refusing
an int64 input ("Operation 'abs_out_mps()' does not support input type 'int64' in MPS backend", with the release's own
"doesn not" typo and the backticked form), and the ``apple_mac`` fact read off a macOS home folder (/Users/NAME/) in a
Python path (a site-packages path, a traceback's frame line), so that "Torch not compiled with CUDA enabled" there is
CUDA asked of a Mac, not a CPU-only build to swap. Windows' C:\\Users\\ and an Ubuntu home stay the CPU-only build.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (check_dev_sample, check_section_literals, check_split_listing, explain_cli_matches,  # noqa: E402
                     sample_rows)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "apple42")
HELD = os.path.join(ROOT, "heldout", "apple42-held", "logs")
ROWS = sample_rows(DEV, ".log")
#: a dev control the rules do not quiet, and why: the web UI's memory monitor prints "Warning: caught exception 'Torch
#: not compiled with CUDA enabled', memory monitor disabled" at every start of a CPU / MPS torch and goes on; on a
#: Windows or Linux machine the same line is the CPU-only build's evidence (heldout/logs21e's ZLUDA sample,
#: tests/data/pastes/pastes25's DirectML one), and this Mac's text shows no Mac fact (only /Users/NAME/ paths of
#: shell scripts and checkpoints, no Python path): it is still read as the CPU-only build
GAPS = {"control-stable-diffusion-webui-3427-m1-slow-caught-exception-torch-not-compiled-memory-monitor-disabled.log"}
SIGNATURES = {"mps-unary-op-input-type-refused"}
#: the one new cover entry of the block (127 -> 128): a macOS home folder's path
NEW_ANCHORS = ["/users/"]


def test_listing():
    check_split_listing(DEV, HELD, ".log", min_dev=10, min_held=5, min_none=6, min_held_none=2)
    labels = [r[1] for r in ROWS] + [r[1] for r in sample_rows(HELD, ".log")]
    assert labels.count("mps-op-unsupported") >= 6
    assert labels.count("framework-cpu-only") >= 2  # the /Users rule's controls: Windows' and Ubuntu's homes


def test_section_literals_and_one_new_anchor():
    matched = check_section_literals("# ---- apple42 ----", SIGNATURES, NEW_ANCHORS, [DEV])
    assert matched == SIGNATURES


@pytest.mark.parametrize("name,label,source", [r for r in ROWS if r[0] not in GAPS],
                         ids=[r[0][:60] for r in ROWS if r[0] not in GAPS])
def test_dev_sample(name, label, source):
    check_dev_sample(os.path.join(DEV, name), label)


@pytest.mark.parametrize("name", sorted(GAPS))
def test_gap_is_still_a_gap(name):
    # if this fails the gap closed: take it out of GAPS
    matches = explain_cli_matches("--no-detect", os.path.join(DEV, name))
    assert [m["id"] for m in matches][:1] == ["framework-cpu-only"]


def test_mps_int64_wording_names_operator_and_dtype():
    matches = explain_cli_matches("--no-detect", os.path.join(
        DEV, "pytorch-79200-macos-12.4-torch-1.13-nightly-abs-out-mps-doesn-not-support-int64.log"))
    top = matches[0]
    assert top["id"] == "mps-op-unsupported"
    assert "doesn not support input type 'int64'" in top["evidence"]
    # the fix says what helps (a newer torch, a cast) and that the CPU fallback variable does not
    text = " ".join(f if isinstance(f, str) else str(f) for f in top["fixes"])
    assert "int32" in text and "does not help" in text


@pytest.mark.parametrize("rel,label", [
    # spent sets (development data): the Mac is told by its /Users/NAME home alone
    ("heldout/acceptance24/logs/cogstudio-37-macos-pinokio-install-generate-torch-cuda-lazy-init-torch-not-compiled"
     "-with-cuda-enabled.log", "framework-vendor-mismatch"),
    ("heldout/pastes20m/comfyui-5242-macos-xlabs-sampler-not-compiled.txt", "framework-vendor-mismatch"),
    ("heldout/apple35-held/logs/taskmatrix-341-in-mac-users-anaconda-visgpt-rich-traceback-torch-not-compiled-with"
     "-cuda.log", "framework-vendor-mismatch"),
])
def test_spent_mac_home_path(rel, label):
    matches = explain_cli_matches("--no-detect", os.path.join(ROOT, rel))
    assert matches and matches[0]["id"] == label, [(m["id"], m["score"]) for m in matches]


def test_windows_and_wsl_user_folders_are_no_mac():
    # the Windows control's own lines, and the same frame moved under WSL's /mnt/c/Users and MSYS's /c/Users: the
    # home folder starts the path only on macOS, so none of these is read as a Mac
    with open(os.path.join(DEV, "control-describing-a-knowledge-base-8-windows-c-users-anaconda3-torch-not-compiled"
                                ".log"), encoding="utf-8") as fh:
        text = fh.read()
    for variant in (text,
                    text.replace("C:\\Users\\Anaconda3\\lib\\site-packages\\torch\\cuda\\__init__.py",
                                 "/mnt/c/Users/me/anaconda3/lib/python3.9/site-packages/torch/cuda/__init__.py"),
                    text.replace("C:\\Users\\Anaconda3\\lib\\site-packages\\torch\\cuda\\__init__.py",
                                 "/c/Users/me/anaconda3/lib/python3.9/site-packages/torch/cuda/__init__.py")):
        ids = [m["id"] for m in explain_cli_matches("--no-detect", "-", text=variant)]
        assert ids[:1] == ["framework-cpu-only"], ids
