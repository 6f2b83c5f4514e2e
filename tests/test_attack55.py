"""attack55 (session 25): where session 25's merges made envcheck say something false, each mended in the rule's home.

apple42's ``apple_mac`` fact (compat_matrix/errors.toml ``# ---- apple42 ----``) read two things as a Mac that are not:

- the MPS device asked in code that is one branch of the program's own cross-platform choice ("if
  torch.cuda.is_available(): device = "cuda" / elif torch.backends.mps.is_available(): device = "mps""; the form public
  code repeats: ludwig-ai/ludwig#3072, hexgrad/kokoro#164, AILab-CVC/VideoCrafter#92, and 10 of 10 public files
  ``find_string`` returns for "elif torch.backends.mps.is_available():" assign "mps" in that branch). Pasted beside
  "Torch not compiled with CUDA enabled" on an unnamed machine it made the failure "CUDA asked of a Mac"
  (framework-vendor-mismatch); such code runs anywhere, so the machine is unknown and the line keeps its own reading
  (the CPU-only build). Mended by errors.toml ``# ---- attack55 ----`` (fact ``mps_checked``) and
  engine.vendors.text_machine_facts.
- a Windows home written with forward slashes ("C:/Users/NAME/.../lib/python3.10/site-packages/"): the drive letter's
  colon was one of the characters allowed before /Users/. Mended in the apple42 fact's own pattern.

The texts below are constructed probes at these boundaries (code lines in the public form cited; the torch lines are
torch's own), not pasted samples: the real Mac texts apple42 was written from stay Macs (tests/test_apple42.py).
"""

from __future__ import annotations

import pytest

from envcheck.explain.document import explain_text_document

_TORCH_CPU = ('  File "/home/u/proj/env/lib/python3.10/site-packages/torch/cuda/__init__.py", line 239, in _lazy_init\n'
              '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
              'AssertionError: Torch not compiled with CUDA enabled\n')
_TORCH_CPU_BARE = ('    raise AssertionError("Torch not compiled with CUDA enabled")\n'
                   'AssertionError: Torch not compiled with CUDA enabled\n')


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


_CHOICE_BLOCK = ('if torch.cuda.is_available():\n'
                 '    device = "cuda"\n'
                 'elif torch.backends.mps.is_available():\n'
                 '    device = "mps"\n'
                 'else:\n'
                 '    device = "cpu"\n')


@pytest.mark.parametrize("code", [
    _CHOICE_BLOCK,
    # the same choice on one line, and a model moved to MPS only inside the MPS branch
    'device = torch.device("mps") if torch.backends.mps.is_available() else torch.device("cuda")\n',
    'elif torch.backends.mps.is_available():\n    model = model.to("mps")\n',
    'if torch.mps.is_available():\n    self.device = torch.device("mps")\n',
], ids=["if-elif-block", "one-line-choice", "to-mps-in-branch", "torch-mps-module"])
def test_a_cross_platform_device_choice_is_no_mac(code):
    ids = _ids(code + _TORCH_CPU_BARE)
    assert ids[:1] == ["framework-cpu-only"], ids


def test_the_mps_device_asked_alone_is_still_a_mac():
    # karpathy/llama2.c#84's edit ("only change line 67 to device = "mps"", an M1 Mac): no choice, so a Mac
    ids = _ids('device = "mps"\n' + _TORCH_CPU_BARE)
    assert ids[:1] == ["framework-vendor-mismatch"], ids


def test_a_mac_home_beside_the_choice_is_still_a_mac():
    # the choice says nothing of the machine; the macOS home folder of the Python still does
    text = _CHOICE_BLOCK + _TORCH_CPU.replace("/home/u/proj/env/", "/Users/u/proj/env/")
    assert _ids(text)[:1] == ["framework-vendor-mismatch"]


@pytest.mark.parametrize("path", [
    "C:/Users/bob/anaconda3/lib/python3.10/site-packages/torch/cuda/__init__.py",
    "c:/Users/bob/venv/lib/python3.11/site-packages/torch/cuda/__init__.py",
])
def test_a_windows_drive_home_with_forward_slashes_is_no_mac(path):
    text = _TORCH_CPU.replace("/home/u/proj/env/lib/python3.10/site-packages/torch/cuda/__init__.py", path)
    assert path in text
    assert _ids(text)[:1] == ["framework-cpu-only"]


def test_a_path_list_before_a_mac_home_is_still_a_mac():
    # a PYTHONPATH-like list's ":" before /Users/ still starts the macOS home's path
    text = "PYTHONPATH=/opt/lib:/Users/ann/venv/lib/python3.10/site-packages/\n" + _TORCH_CPU_BARE
    assert _ids(text)[:1] == ["framework-vendor-mismatch"]
