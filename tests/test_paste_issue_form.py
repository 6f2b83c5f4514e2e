"""A GitHub issue form's fields (``### Heading`` then the answer) and a pasted JSON of versions, read by
envcheck/paste/readers/issue_form.py with the keys and checks of hand-written bullets.

Excerpts of real InvokeAI reports (its bug-report form: "Operating system", "GPU vendor", "GPU model", "GPU VRAM",
"Version number"; its app prints the "Python dependencies" JSON with aligned colons)."""

from __future__ import annotations

from helpers import paste_top

from envcheck.explain.document import explain_text_document

# https://github.com/invoke-ai/InvokeAI/issues/8260 (2025-07-11), the form's first fields
FORM_8260 = """### Is there an existing issue for this problem?

- [x] I have searched the existing issues

### Operating system

Windows

### GPU vendor

Nvidia (CUDA)

### GPU model

RTX 3060

### GPU VRAM

12GB

### Version number

6.0.0

### Browser

Firefox 141.0b8
"""

# https://github.com/invoke-ai/InvokeAI/issues/8987 (2026-03-23)
FORM_8987 = """### Install method

Invoke's Launcher

### Operating system

Windows

### GPU vendor

Nvidia (CUDA)

### GPU model

RTX 2060 SUPER

### GPU VRAM

8GB
"""

# https://github.com/invoke-ai/InvokeAI/issues/1763 (2022-12-03): the older form's "### GPU" holds the backend
FORM_1763 = """### OS

Windows

### GPU

cuda

### VRAM

24GB
"""

# https://github.com/invoke-ai/InvokeAI/issues/9323: the "Python dependencies" JSON (its first members)
DEPS_9323 = """{
    "version": "6.13.5.rc1",
    "dependencies": {
        "absl-py"                  : "2.4.0",
        "accelerate"               : "1.14.0",
        "bitsandbytes"             : "0.49.2",
        "click"                    : "8.4.2",
"""


def _facts(text: str) -> dict:
    return explain_text_document(text)["facts"]


def test_form_headings_give_the_gpu():
    assert [g["name"] for g in _facts(FORM_8260)["gpus"]] == ["RTX 3060"]
    assert [g["name"] for g in _facts(FORM_8987)["gpus"]] == ["RTX 2060 SUPER"]


def test_a_heading_whose_answer_is_not_a_gpu_reads_nothing():
    f = _facts(FORM_1763)
    assert f.get("gpus") in (None, [])  # "cuda" is a backend, "24GB" a size: no GPU is made of them
    assert (f.get("python") or {}).get("version") is None


def test_headings_not_among_the_keys_are_not_read():
    f = _facts(FORM_8260)
    assert f.get("frameworks") in (None, {})  # "### Version number / 6.0.0" is InvokeAI's, not a framework's
    assert (f.get("driver") or {}).get("version") is None


def test_the_json_of_versions_reads_only_what_its_keys_name():
    f = _facts(DEPS_9323)
    assert f.get("frameworks") in (None, {}) and (f.get("python") or {}).get("version") is None
    # the members the app prints for the stack, in the same aligned form
    more = DEPS_9323 + ('        "python"                   : "3.11.10"     ,\n'
                        '        "torch"                    : "2.6.0+cu124" ,\n')
    g = _facts(more)
    assert g["frameworks"]["torch"]["version"] == "2.6.0+cu124" and g["frameworks"]["torch"]["cuda"] == "12.4"
    assert g["python"]["version"] == "3.11.10"


def test_form_gpu_and_json_torch_together_decide_the_arch():
    """A Blackwell GeForce (compute capability 12.0) named in the form beside a cu124 torch (compiled up to sm_90):
    the build lacks the GPU's architecture."""
    text = FORM_8987.replace("RTX 2060 SUPER", "RTX 5060 Ti") + "\n### Python dependencies\n\n" + DEPS_9323 + (
        '        "torch"                    : "2.6.0+cu124" ,\n')
    assert paste_top(explain_text_document(text)) == "gpu-arch-unsupported"
    assert paste_top(explain_text_document(text.replace("RTX 5060 Ti", "RTX 3060"))) != "gpu-arch-unsupported"
