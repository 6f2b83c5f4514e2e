"""vendor41 (session 24): a CUDA (or CPU) build of torch on an AMD machine told by what the run shows, Intel's Level
Zero entry points on Windows, and a healthy XPU run that must stay silent.

Real threads in tests/data/vendor41 (README: file, label, source); heldout/vendor41-held was set aside before the
rules were written (scored by scripts/score_pastes.py, never asserted here). What the rules read:
compat_matrix/errors.toml's vendor41 block (the fact ``xpu_ready``; the Level Zero entry-point signature),
envcheck/paste/readers/printed.py (a labelled print "torch.__version__: 2.6.0+cu124"),
envcheck/paste/readers/cuda_unreached.py (a launcher's "falls back to CPU", InvokeAI's "Using torch device: CPU"),
envcheck/engine/vendors_prose.py (amd_windows_cpu_fallback) and envcheck/engine/vendors.py (cuda_check_speaks).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import explain_cli_matches, sample_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "vendor41", "pastes")
HELD = os.path.join(ROOT, "heldout", "vendor41-held", "pastes")

ROWS = sample_rows(DEV)
#: a dev thread this round leaves unread (README note); amd42 reads Ollama's gfx1103 "not detected" (ollama-12698) from
#: the targets of Ollama's ROCm build of the thread's date (engine/ollama_amd.py), so none is left now
LEFT: set = set()


def test_listing():
    files = sorted(f for f in os.listdir(DEV) if f.endswith(".txt"))
    assert sorted(r[0] for r in ROWS) == files and len(files) >= 7
    held = sample_rows(HELD)
    assert sorted(r[0] for r in held) == sorted(f for f in os.listdir(HELD) if f.endswith(".txt"))
    assert not {r[2] for r in ROWS} & {r[2] for r in held}
    assert sum(1 for r in ROWS if r[1] == "none") >= 3


@pytest.mark.parametrize("name,label,source", ROWS, ids=[r[0][:60] for r in ROWS])
def test_dev_thread(name, label, source):
    matches = explain_cli_matches("--no-detect", os.path.join(DEV, name))
    if label == "none" or name in LEFT:
        assert matches == [], [(m["id"], m["evidence"]) for m in matches]
        return
    assert matches and matches[0]["id"] == label, [(m["id"], m["score"], m["evidence"]) for m in matches]
    assert matches[0]["fixes"]


def _top(text):
    return [(m["id"], m["signature"]) for m in explain_cli_matches("--no-detect", "-", text=text)]


# --- Level Zero's entry points (errors.toml) -------------------------------------------------------------------------

def test_windows_entry_point_dialog_is_an_old_level_zero_loader():
    text = ("python.exe - Entry Point Not Found\n"
            "The procedure entry point zesInit could not be located in the dynamic link library "
            "C:\\WINDOWS\\SYSTEM32\\ze_loader.dll.\n")
    assert _top(text)[:1] == [("xpu-level-zero-missing", "level-zero-entry-point-not-located")]


def test_zes_init_in_code_or_other_dll_is_not_read():
    # a developer's own lookup table of Sysman functions (intel/compute-runtime#712) and another DLL's entry point
    assert _top('      {"zesInit", (void *)&resp->oh.zesInit},\n') == []
    assert _top("The procedure entry point GetFinalPathNameByHandleW could not be located in the dynamic link "
                "library KERNEL32.dll\n") != [("xpu-level-zero-missing", "level-zero-entry-point-not-located")]


# --- a healthy XPU run (cuda_check_speaks) ----------------------------------------------------------------------------

_CHECK = "Fallback to CPU if CUDA is not available and we're not on MPS\n"


def test_cuda_check_on_an_xpu_log_still_speaks_without_xpu_ready():
    # the XPU stack shown (the word XPU) and nothing saying it works: CUDA asked of an Intel GPU
    got = _top("Device: xpu:0 Intel(R) Arc(TM) A770 Graphics : XPU\n" + _CHECK)
    assert got and got[0][0] == "framework-vendor-mismatch", got


@pytest.mark.parametrize("ready", [
    "* `torch.xpu.is_available()` → `True`\n",
    ">>> torch.xpu.is_available(): True\n",
    "Is XPU available: True\n",
])
def test_cuda_check_is_silent_where_xpu_works(ready):
    assert _top("Device: xpu:0 Intel(R) Arc(TM) A770 Graphics : XPU\n" + ready + _CHECK) == []


def test_xpu_not_available_keeps_the_check():
    got = _top("Device: xpu:0 Intel(R) Arc(TM) A770 Graphics : XPU\nIs XPU available: False\n" + _CHECK)
    assert got and got[0][0] == "framework-vendor-mismatch", got


def test_cuda_check_speaks_unit():
    from envcheck.engine.vendors import cuda_check_speaks

    says = ("cuda-check-only",)
    assert cuda_check_speaks(says, None, {"xpu": "XPU"}) is True
    assert cuda_check_speaks(says, None, {"xpu": "XPU", "xpu_ready": "True"}) is False
    # an AMD GPU in the log decides as before, whatever a stray XPU line says
    assert cuda_check_speaks(says, None, {"amd_gpu": "Radeon RX 7900 XTX", "xpu_ready": "True"}) is True


# --- a labelled print of torch's build (printed.py) -------------------------------------------------------------------

_AMD_FORM = "### GPU vendor\n\nAMD (ROCm)\n\n### GPU model\n\nRadeon VII\n\n### What happened\n\n"
_NV_FORM = "### GPU vendor\n\nNvidia (CUDA)\n\n### GPU model\n\nRTX 4090\n\n### What happened\n\n"


def test_labelled_torch_print_on_an_amd_form_is_a_cuda_build_there():
    text = _AMD_FORM + "torch.__version__: 2.6.0+cu124\ntorch.version.cuda: 12.4\ntorch.version.hip: None\n"
    got = explain_cli_matches("--no-detect", "-", text=text)
    assert got and got[0]["id"] == "framework-vendor-mismatch", got


def test_labelled_torch_print_on_an_nvidia_form_is_no_vendor_mismatch():
    text = _NV_FORM + "torch.__version__: 2.6.0+cu124\ntorch.version.cuda: 12.4\nCUDA available: True\n"
    assert all(m["id"] != "framework-vendor-mismatch" for m in explain_cli_matches("--no-detect", "-", text=text))


def test_labelled_print_reader():
    from envcheck.paste.readers import printed

    got = printed.read(["torch.__version__: 2.6.0+cu124"])
    assert ("torch.version", "2.6.0+cu124") in [(f.field, f.value) for f in got.facts]
    got = printed.read(["- `torch.version.cuda`: None"])
    assert ("torch._cuda_none", True) in [(f.field, f.value) for f in got.facts]
    # a sentence about the attribute is no print of it
    assert not printed.read(["torch.__version__: the attribute that holds the version"]).facts


# --- a Windows AMD machine running without its GPU (vendors_prose.amd_windows_cpu_fallback) --------------------------

_WIN_AMD = ("### Operating system\n\nWindows\n\n### GPU vendor\n\nAMD (ROCm)\n\n### GPU model\n\nRadeon RX 7900 XTX\n\n"
            "### What happened\n\n")


def _ids(text):
    return [m["id"] for m in explain_cli_matches("--no-detect", "-", text=text)]


def test_windows_amd_cpu_fallback():
    assert _ids(_WIN_AMD + "When loading it still falls back to CPU and does not detect my GPU.\n")[:1] == \
        ["framework-vendor-mismatch"]
    assert _ids(_WIN_AMD + "[2024-12-29 22:55:19,969]::[InvokeAI]::INFO --> Using torch device: CPU\n")[:1] == \
        ["framework-vendor-mismatch"]


def test_linux_amd_cpu_fallback_is_not_this_rule():
    text = _WIN_AMD.replace("Windows", "Linux") + "When loading it still falls back to CPU.\n"
    assert "framework-vendor-mismatch" not in _ids(text)


@pytest.mark.parametrize("extra", [
    "- ZLUDA: 3.9.5 (nightly)\n",
    "torch.__version__: 2.5.1+rocm6.2\n",
    "I also have an RTX 3060 in the machine.\n",
])
def test_windows_amd_cpu_fallback_not_where_another_cause_is_shown(extra):
    text = _WIN_AMD + extra + "When loading it still falls back to CPU.\n"
    assert "framework-vendor-mismatch" not in _ids(text)


def test_windows_amd_without_a_fallback_said_is_silent():
    assert "framework-vendor-mismatch" not in _ids(_WIN_AMD + "The UI looks wrong after the update.\n")
