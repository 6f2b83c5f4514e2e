"""Attacks of helper attack35 (session 12): each test failed before its fix.

* A requirements file's pins after a blank line (its groups: ``-f ...`` / blank / pins / blank / ``torch==...``, as real
  files are written) were read as the installed torch: the blank line ended the file for the reader.
* A Mac named in a sentence of a text whose failure came from a Windows or Linux Python ("It works fine on my
  MacBook, but on this PC I always have this error:" above a ``C:\\...\\site-packages`` or ``/home/NAME/...``
  traceback) made ``explain`` say "The log shows a Mac" and advise device='mps': the text's own platform speaks for the
  machine that failed (engine/vendors.py ``text_machine_facts``).
* Another author's environment in a pasted thread introduced without "my" ("I can't reproduce it. Environment:",
  "Tested on:") was read as the reporter's: their driver and GPUs replaced the reporter's (paste/thread.py).
* A torch build string or an environment bullet under an introduction that says it is advice ("The README
  recommends:", "Your version should be:", or a hard-wrapped "... recommends using") was read as the installed torch:
  those readers did not look at the introduction the bare-version reader looks at.
* ``status`` with an nvcc on PATH that floods its output (cut off by the probe, so its head gives no fact) said
  "toolkit  no nvcc / CUDA toolkit found" above its own "probe failed: nvcc --version: printed more than ..." note:
  the row says unknown, and why.
* A torch wheel pip downloaded and then did not install (pip crashed: "ERROR: Exception:" after a download that timed
  out; "ERROR: Operation cancelled by user"; its hash check) was read as the installed torch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document

ROOT = Path(__file__).resolve().parent.parent

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


# --- (b) a Mac a sentence names is not the Windows machine whose traceback the text shows -----------------------------
#: NVlabs/edm#25 (tests/data/pastes/pastes20m): a Windows 10 conda env's traceback, "Torch not compiled with CUDA enabled"
_EDM = (ROOT / "tests" / "data" / "pastes" / "pastes20m" / "edm-25-windows-conda-env-not-compiled-traceback.txt").read_text(
    encoding="utf-8")
#: the same text with a sentence about the reporter's other machine, a Mac, in front of its error
_EDM_MAC = _EDM.replace("I always have this error: ", "It works fine on my MacBook, but on this PC I always have this error: ")


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def test_a_mac_named_beside_a_windows_traceback_is_not_the_machine():
    assert _EDM_MAC != _EDM
    assert _ids(_EDM) == ["framework-cpu-only"]
    doc = explain_text_document(_EDM_MAC)
    assert [m["id"] for m in doc["matches"]] == ["framework-cpu-only"]
    assert "mps" not in json.dumps(doc["matches"][0].get("fixes"))


#: AUTOMATIC1111/stable-diffusion-webui's start-up lines on Windows (the venv's python.exe, the Python version line) and
#: its check's message (modules/launch_utils.py prepare_environment), with the same sentence about a Mac
_WEBUI = ('venv "C:\\stable-diffusion-webui\\venv\\Scripts\\Python.exe"\n'
          "Python 3.10.6 (tags/v3.10.6:9c7b4bd, Aug  1 2022, 21:53:49) [MSC v.1932 64 bit (AMD64)]\n"
          "It works fine on my MacBook, but not on this PC.\n"
          "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to "
          "disable this check\n")


def test_the_webui_check_beside_a_windows_python_and_a_mac_sentence_names_no_vendor_mismatch():
    assert "framework-vendor-mismatch" not in _ids(_WEBUI)


def test_a_mac_named_beside_a_linux_traceback_is_not_the_machine():
    # the same traceback from a Linux home folder (a Mac's homes are /Users/NAME), and from Debian's dist-packages
    lin = ("It works fine on my MacBook, but on our lab server I get this:\n"
           '  File "/home/me/.local/lib/python3.10/site-packages/torch/cuda/__init__.py", line 289, in _lazy_init\n'
           '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
           "AssertionError: Torch not compiled with CUDA enabled\n")
    assert _ids(lin) == ["framework-cpu-only"]
    assert _ids(lin.replace("/home/me/.local/lib/python3.10/site-packages", "/usr/lib/python3/dist-packages")) == [
        "framework-cpu-only"]
    assert _ids(lin.replace("/home/me/", "/Users/me/"))[:1] == ["framework-vendor-mismatch"]  # a Mac's own path


def test_a_mac_log_is_still_read_as_a_mac():
    # the same traceback's message on a Mac (its Python's /Users path): CUDA asked of a Mac's build
    mac = ("I'm running this on my MacBook Pro M1.\n"
           '  File "/Users/me/miniconda3/lib/python3.10/site-packages/torch/cuda/__init__.py", line 239, in _lazy_init\n'
           '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
           "AssertionError: Torch not compiled with CUDA enabled\n")
    assert _ids(mac)[:1] == ["framework-vendor-mismatch"]


# --- (c) another author's environment in a thread, however introduced --------------------------------------------------
@pytest.mark.parametrize("intro", [
    "I can't reproduce it. Environment:",
    "Tested on:",
    "Cannot reproduce with:",
    "",  # a bare collect_env in the maintainer's comment
])
def test_another_authors_environment_without_my_is_not_the_reporters(intro):
    # tests/test_prose21.py's thread (pytorch/pytorch: the reporter's nvidia-smi and torch, a maintainer's collect_env)
    from tests.test_prose21 import _REPORTER, _THEIR_ENV

    reply = "awreed · comment · 2022-09-21\n" + (intro + "\n" if intro else "") + _THEIR_ENV
    facts = _facts(_REPORTER + reply)
    assert (facts.get("driver") or {}).get("version") == "450.51.05"
    assert ((facts.get("frameworks") or {}).get("torch") or {}).get("version") == "1.8.1+cu102"
    assert not facts.get("gpus")


def test_the_reporters_own_environment_in_a_later_comment_is_still_read():
    from tests.test_prose21 import _THEIR_ENV

    text = ("# torch.cuda.is_available()=false\n\nbanbsyip · description · 2022-09-20\nimport torch\n"
            "print(torch.cuda.is_available())\n\nawreed · comment · 2022-09-21\nPlease post collect_env.\n\n"
            "banbsyip · comment · 2022-09-21\n" + _THEIR_ENV)
    assert (_facts(text).get("driver") or {}).get("version") == "410.129"


def test_the_reporters_quoted_collect_env_is_still_read():
    # the reporter pasting their own collect_env as a quote block (GitHub's "> " for output), a maintainer's reply after
    from tests.test_prose21 import _THEIR_ENV

    text = ("banbsyip · description · 2022-09-20\nEnvironment:\n" + "".join("> " + ln + "\n" for ln in _THEIR_ENV.splitlines())
            + "\nawreed · comment · 2022-09-21\nTested on: a different machine, it works.\n")
    assert (_facts(text).get("driver") or {}).get("version") == "410.129"


# --- (d) a torch build string introduced as another machine's or a recommendation -------------------------------------
@pytest.mark.parametrize("text", [
    "The README recommends:\n- torch 1.9.0+cu111\n",
    "The README recommends:\n- python 3.8\n- torch 1.9.0+cu111\n",
    "The README recommends:\ntorch 1.9.0+cu111\n",
    "The README recommends using\ntorch 1.9.0+cu111\n",  # a sentence hard-wrapped before its version
    "Your version should be:\n- PyTorch: 1.9.0+cu111\n",
])
def test_a_torch_build_introduced_as_not_this_machines_is_not_read(text):
    assert _torch(_NO_KERNEL + "\n" + text) is None


@pytest.mark.parametrize("text", [
    "- torch 1.9.0+cu111\n",
    "My environment:\n- torch 1.9.0+cu111\n",
    "Environment used:\n- PyTorch: 1.9.0+cu111\n",  # the reporter's own, in the past tense
    "Any idea what is wrong? My environment:\n- PyTorch: 1.9.0+cu111\n",  # a question before the reporter's own
    "Here is the output of your script:\n- torch 1.9.0+cu111\n",
    "I am using\ntorch 1.9.0+cu111\n",
])
def test_the_reporters_torch_build_is_still_read(text):
    assert _torch(_NO_KERNEL + "\n" + text) == "1.9.0+cu111"


# --- (e) a cut-off capture is unknown in the status rows, not "not found" -------------------------------------------
def test_a_cut_off_nvcc_is_an_unknown_toolkit_not_a_missing_one(tmp_path):
    import subprocess
    import sys

    from tests.helpers import write_snapshot_files

    head = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.4, V12.4.131\n" + "y\n" * 1000
    captures = {"nvcc.txt": {"status": "failed", "origin": "/opt/bin/nvcc --version",
                             "detail": "/opt/bin/nvcc --version: printed more than 4194304 bytes (killed)"}}
    snap = write_snapshot_files(tmp_path, {"nvcc.txt": head, "captures.json": json.dumps(captures)})
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--snapshot", str(snap)], capture_output=True,
                       text=True, timeout=120, cwd=str(ROOT))
    assert r.returncode in (0, 1), r.stderr
    row = next(ln for ln in r.stdout.splitlines() if ln.strip().startswith("toolkit"))
    assert "no nvcc" not in row and "unknown" in row and "printed more than" in row


# --- (f) a sentence over 400 characters cut inside keeps the words before its version -------------------------------
#: a run-on sentence (no full stop in 400 characters), its denial right before the version's subject
_RUN_ON = ("I have been trying for days to get this project running with all kinds of combinations of drivers toolkits and "
           "wheels from the official index and from mirrors and from conda forge and from the nightly channel and even "
           "from source builds on two different machines with different operating systems and different shells and "
           "different virtual environment managers and I am honestly not")
_TAIL = " using torch 2.1.0+cu118 at all because it keeps failing with the same error about the kernel image"


@pytest.mark.parametrize("pad", range(0, 40))
def test_a_denial_cut_from_its_version_by_a_long_lines_pieces_still_denies(pad):
    from envcheck.paste.readers.observe import prose_facts_of

    pre = _RUN_ON.replace("I have been", "I have " + "x" * pad + " been")  # moves the cut over the words
    assert not [f for f in prose_facts_of(pre + _TAIL) if f.field == "torch.version"]
    said = pre.replace("I am honestly not", "I am honestly") + _TAIL  # the same sentence without the denial: read
    assert [f.value for f in prose_facts_of(said) if f.field == "torch.version"] == ["2.1.0+cu118"]


# --- (g) a wheel pip fetched in a run that failed is not installed --------------------------------------------------
#: AUTOMATIC1111/stable-diffusion-webui#8810: the web UI installing torch, pip's download timing out
_A1111_8810 = ('venv "C:\\Users\\Afraa\\stable-diffusion-webui\\venv\\Scripts\\Python.exe"\n'
               "Python 3.10.6 (tags/v3.10.6:9c7b4bd, Aug  1 2022, 21:53:49) [MSC v.1932 64 bit (AMD64)]\n"
               "Installing torch and torchvision\n"
               "Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/cu118\n"
               "Collecting torch==2.0.0\n"
               "  Downloading https://download.pytorch.org/whl/cu118/torch-2.0.0%2Bcu118-cp310-cp310-win_amd64.whl "
               "(2611.3 MB)\n"
               "ERROR: Exception:\n"
               "Traceback (most recent call last):\n")
#: bmaltais/kohya_ss#249's last line (the user pressed Ctrl-C), after the same kind of download
_CANCELLED = ("Collecting torch==1.12.1+cu116\n"
              "  Downloading https://download.pytorch.org/whl/cu116/torch-1.12.1%2Bcu116-cp310-cp310-win_amd64.whl "
              "(2388.0 MB)\n"
              "ERROR: Operation cancelled by user\n")


@pytest.mark.parametrize("text", [_A1111_8810, _CANCELLED])
def test_a_wheel_fetched_by_a_pip_run_that_failed_is_not_installed(text):
    assert _torch(text) is None


def test_a_wheel_fetched_by_a_pip_run_that_ended_is_still_read():
    assert _torch(_CANCELLED.replace("ERROR: Operation cancelled by user\n", "")) == "1.12.1+cu116"
    assert _torch(_CANCELLED + "Successfully installed torch-1.12.1+cu116\n") == "1.12.1+cu116"
