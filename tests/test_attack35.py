"""Attacks of helper attack35 (session 12): each test failed before its fix.

* A requirements file's pins after a blank line (its groups: ``-f ...`` / blank / pins / blank / ``torch==...``, as real
  files are written) were read as the installed torch: the blank line ended the file for the reader.
"""

from __future__ import annotations

import pytest

from envcheck.explain.document import explain_text_document

#: a real failure line (torch's "no kernel image")
_NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def _facts(text: str) -> dict:
    return explain_text_document(text).get("facts") or {}


def _torch(text: str) -> object:
    return ((_facts(text).get("frameworks") or {}).get("torch") or {}).get("version")


# --- (a) a requirements file's groups, separated by blank lines, are one file ----------------------------------------
#: sinahmr/DIaM requirements.txt (commit a7423eb6), as the file is: an option line, blank lines between its groups
_DIAM = ("-f https://download.pytorch.org/whl/cu113/torch_stable.html\n\ntqdm==4.64.1\nnumpy==1.23.4\n"
         "matplotlib==3.6.1\nopencv-python==4.6.0.66\npyyaml==5.4.1\n\ntorch==1.10.2+cu113\ntorchvision==0.11.3+cu113\n")
#: cliffbb/OEM-Fewshot-Challenge requirements.txt (commit 036f655b): two option lines, a bare name, three blank lines
_OEM = ("-f https://download.pytorch.org/whl/cu113/torch_stable.html\n\n-f git+https://github.com/qubvel/"
        "segmentation_models.pytorch\nsegmentation_models.pytorch\n\ntqdm==4.64.1\nnumpy==1.23.4\nmatplotlib==3.6.1\n"
        "opencv-python==4.6.0.66\npyyaml==5.4.1\n\ntorch==1.10.2+cu113\ntorchvision==0.11.3+cu113\n\n")


@pytest.mark.parametrize("text", [
    _NO_KERNEL + "\n" + _DIAM,
    _NO_KERNEL + "\n$ cat requirements.txt\n" + _DIAM,
    _NO_KERNEL + "\n```\n" + _OEM + "```\n",
    _NO_KERNEL + "\nrequirements.txt:\n```\n" + _DIAM.replace("-f https://download.pytorch.org/whl/cu113/torch_stable.html\n\n", "") + "```\n",
])
def test_a_requirements_files_pins_after_a_blank_line_are_no_installed_torch(text):
    assert _torch(text) is None


@pytest.mark.parametrize("text", [
    # the file, then pip freeze's own rows under their command: what is installed
    _NO_KERNEL + "\n$ cat requirements.txt\n" + _DIAM + "\n$ pip freeze\ntorch==1.10.2+cu113\n",
    # a sentence, a blank line, then the rows: their own block (tests/test_prose21.py keeps this one too)
    _NO_KERNEL + "\nI installed everything from requirements.txt.\n\ntorch==1.10.2+cu113\n",
    # the file, a sentence, then the rows: the sentence ended the file
    _NO_KERNEL + "\n$ cat requirements.txt\n" + _DIAM + "\nAnd what is installed:\n\ntorch==1.10.2+cu113\n",
])
def test_installed_pins_after_a_requirements_file_are_still_read(text):
    assert _torch(text) == "1.10.2+cu113"
