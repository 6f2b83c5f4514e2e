"""Bug-report pastes collected for issue 20 (pastes20k): causes established by combining facts a paste states (a GPU
named in a form or bullet list beside a torch build that lacks its architecture), and forms earlier sets held few of
(Markdown "System Info" bullets with a GPU's ``(SM_120)`` note, a driver inside another bullet's value, nightly torch
versions, conda's package plan, ``pip uninstall``'s "Found existing installation", ipex-llm's env-check.sh).

Real samples: tests/data/pastes/pastes20k/ (README.md cites each thread and gives its label). heldout/pastes20k/
(split off at random before any change) is scored by scripts/score_pastes.py, not here. The other lines quoted below
are real (each cited); expectations are hand-written from the texts and from the emitting programs' sources, not from
this code.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste import read_report
from envcheck.paste.readers.base import first_version

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_paste_facts, check_paste_top_is_label, paste_readme_rows, paste_top  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "pastes20k"
LABELS = {name: label for name, (label, _url) in paste_readme_rows(DATA).items()}


_doc = explain_text_document
_top = paste_top


def test_the_set_is_whole():
    assert len(LABELS) == 9
    assert sorted(LABELS) == sorted(p.name for p in DATA.glob("*.txt"))


@pytest.mark.parametrize("name", sorted(LABELS))
def test_top_cause_is_the_label(name):
    check_paste_top_is_label(DATA, name, LABELS[name], {})


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.facts.json")))
def test_facts_are_the_hand_written_ones(name):
    check_paste_facts(DATA, name)


# HybridRobotics/berkeley-humanoid-lite#49's Environment bullets (a GPU with its sm_ target, the driver)
BULLETS = ["  ## Environment", "  - GPU: NVIDIA GeForce RTX 5090 (SM_120)", "  - Driver: 590.48.01",
           "  - OS: Ubuntu 24.04.4 LTS"]


def _facts(lines) -> dict:
    return read_report("\n".join(lines) if isinstance(lines, list) else lines).facts


def _torch(facts: dict):
    return (facts.get("frameworks") or {}).get("torch") or {}


def test_a_gpu_bullets_sm_note_is_its_compute_capability_not_part_of_its_name():
    f = _facts(BULLETS)
    assert [(g["name"], g["compute_capability"]) for g in f["gpus"]] == [("NVIDIA GeForce RTX 5090", "12.0")]
    assert f["driver"]["version"] == "590.48.01"


def test_an_sm_note_inside_the_name_is_left_alone():
    # only a note at the end is the compute capability: "(sm_86) laptop" is not cut into a name
    assert [g["compute_capability"] for g in _facts("- GPU: RTX 3080 (sm_86) laptop")["gpus"]] == [None]


def test_a_driver_named_inside_another_bullets_value_is_read():
    # the form of pytorch/pytorch#167244's Environment bullets ("CUDA toolkit: 12.4 (driver 570.124.06 from NVIDIA)")
    f = _facts("## Environment\n- CUDA toolkit: 12.4 (driver 570.124.06 from NVIDIA)\n- Python: 3.11.9")
    assert f["driver"]["version"] == "570.124.06"
    # a bare number after "driver" is no driver version ("driver 2" of a sentence)
    assert ((_facts("- Notes: driver 2 was loaded").get("driver") or {}).get("version")) is None


@pytest.mark.parametrize("value,want", [
    ("2.7.0.dev20250310+cu124", "2.7.0.dev20250310+cu124"),  # a nightly wheel (PEP 440 dev release)
    ("`2.7.0.dev20250310+cu124` (nightly wheel)", "2.7.0.dev20250310+cu124"),
    ("2.1.0a0+cxx11.abi", "2.1.0a0+cxx11.abi"),  # Intel's XPU torch (ipex-llm#10570's env-check)
    ("2.3.0.post1", "2.3.0.post1"),
    ("2.0.1+cu118", "2.0.1+cu118"),
    ("3.9.16 (main, May 17 2023)", "3.9.16"),
])
def test_first_version_keeps_pre_and_dev_releases(value, want):
    assert first_version(value) == want


def test_a_nightly_torch_bullet_in_backticks_is_read():
    t = _torch(_facts("- PyTorch: `2.7.0.dev20250310+cu124` (nightly wheel)\n- GPU: 2x RTX 5090"))
    assert (t.get("version"), t.get("cuda")) == ("2.7.0.dev20250310+cu124", "12.4")


# pip's uninstall (pip/_internal/req/req_install.py: logger.info("Found existing installation: %s", dist), the
# distribution printed as "<name> <version>"): in `pip uninstall` the version found is the one that was installed
UNINSTALL = ["Found existing installation: torch 2.5.1+cu121", "Uninstalling torch-2.5.1+cu121:",
             "  Successfully uninstalled torch-2.5.1+cu121"]
# in an install (pip/_internal/req/__init__.py logs "Attempting uninstall: %s" first) the version found is being
# replaced: a public paste of an install of NVIDIA's Jetson torch over a cu126 one, cut before pip's last line
REPLACE = ["Installing collected packages: torch", "  Attempting uninstall: torch",
           "    Found existing installation: torch 2.6.0+cu126", "    Uninstalling torch-2.6.0+cu126:",
           "      Successfully uninstalled torch-2.6.0+cu126"]


def test_pip_uninstall_shows_the_installed_version():
    assert _torch(_facts(UNINSTALL)).get("version") == "2.5.1+cu121"


def test_a_version_an_install_replaces_is_not_taken_for_the_installed_one():
    assert _torch(_facts(REPLACE)).get("version") is None


# ipex-llm's env-check.sh (intel-analytics/ipex-llm python/llm/scripts/env-check.sh: each check echoes a line of 65
# dashes, then "PYTHON_VERSION=$PY_VERSION", "torch=$VERSION" or "PyTorch is not installed. ", "ipex=$VERSION")
SEP = "-" * 65
ENV_CHECK = [  # intel/ipex-llm#10570
    "(ipex-llm-langchain-chatchat) barry@barry-System:~/ipex-llm/python/llm/scripts$ bash env-check.sh", SEP,
    "PYTHON_VERSION=3.11.8", SEP, "transformers=4.31.0", SEP, "torch=2.1.0a0+cxx11.abi", SEP,
    "ipex-llm Version: 2.1.0b20240326", SEP, "ipex=2.1.10+xpu", SEP, "CPU Information: "]
NO_TORCH = [SEP, "PYTHON_VERSION=3.10.13", SEP, "transformers=4.31.0", SEP, "PyTorch is not installed. ", SEP,
            "ipex-llm Version: 2.1.0b20240326", SEP, "IPEX is not installed. ", SEP]  # intel/ipex-llm#10515


def test_ipex_llm_env_check_is_read():
    rep = read_report("\n".join(ENV_CHECK))
    assert rep.facts["python"]["version"] == "3.11.8"
    assert _torch(rep.facts).get("version") == "2.1.0a0+cxx11.abi"
    assert "ipex-llm env-check" in rep.formats


def test_ipex_llm_env_check_without_torch_has_no_torch_version():
    f = _facts(NO_TORCH)
    assert f["python"]["version"] == "3.10.13"
    assert _torch(f).get("version") is None


def test_env_check_lines_need_the_scripts_separator():
    # lines of its form outside the script (no separator above them) are not taken for the script's output
    rep = read_report("torch=2.1.0\nPYTHON_VERSION=3.11.8")
    assert "ipex-llm env-check" not in rep.formats
    assert (rep.facts.get("python") or {}).get("version") is None


# torch.utils.collect_env as torch 1.2 printed it, pasted into a README with an HTML line break ending every line (a
# public README, the code index's file 19066915879: "## pytorch env" then these lines): the breaks are no part of any
# value (before: the GPU names "<br>" / "TITAN V<br>" and the torch version "1.2.0<br>" were read, all false)
COLLECT_ENV_BR = ["PyTorch version: 1.2.0<br>", "CUDA used to build PyTorch: 10.0.130<br>", "<br>",
                  "OS: Ubuntu 16.04.4 LTS<br>", "Python version: 3.6<br>", "Is CUDA available: Yes<br>",
                  "CUDA runtime version: 10.0.130<br>", "GPU models and configuration:<br>", "GPU 0: TITAN V<br>",
                  "GPU 1: TITAN V<br>", "<br>", "Nvidia driver version: 410.79<br>", "cuDNN version: Could not collect<br>"]


def test_collect_env_with_html_line_breaks():
    f = _facts(COLLECT_ENV_BR)
    assert [g["name"] for g in f["gpus"]] == ["TITAN V", "TITAN V"]
    assert (_torch(f).get("version"), _torch(f).get("cuda")) == ("1.2.0", "10.0")
    assert f["driver"]["version"] == "410.79"
    assert f["python"]["version"] == "3.6"


# torch 1.5's collect_env ("Is debug build: No", "Is CUDA available: Yes", cuDNN as a library path; a public README,
# the code index's file 10098581621) and torch 0.4's (its "CUDA used to build PyTorch: 8.0.61", three parts; a
# docstring quoting it, file 1230928698): the same fields under the older words
COLLECT_ENV_15 = ["Collecting environment information...", "PyTorch version: 1.5.1", "Is debug build: No",
                  "CUDA used to build PyTorch: 10.2", "", "OS: Manjaro Linux", "Python version: 3.7",
                  "Is CUDA available: Yes", "CUDA runtime version: 10.2.89",
                  "GPU models and configuration: GPU 0: GeForce GTX 1070", "Nvidia driver version: 440.82",
                  "cuDNN version: /usr/lib/libcudnn.so.7.6.5"]
COLLECT_ENV_04 = ["PyTorch version: 0.4.0", "Is debug build: No", "CUDA used to build PyTorch: 8.0.61",
                  "Python version: 3.6", "Is CUDA available: Yes", "CUDA runtime version: 8.0.44",
                  "GPU models and configuration:", "GPU 0: GeForce GTX 980 Ti", "GPU 1: GeForce GTX 980 Ti"]


def test_old_collect_env_layouts():
    f = _facts(COLLECT_ENV_15)
    assert (_torch(f).get("version"), _torch(f).get("cuda"), f["driver"]["version"]) == ("1.5.1", "10.2", "440.82")
    assert [g["name"] for g in f["gpus"]] == ["GeForce GTX 1070"]
    f = _facts(COLLECT_ENV_04)
    assert (_torch(f).get("version"), _torch(f).get("cuda")) == ("0.4.0", "8.0")
    assert [g["name"] for g in f["gpus"]] == ["GeForce GTX 980 Ti"] * 2


# conda's download table (conda/plan.py print_dists: fmt = "    %-27s|%17s", then the size where known): a build of
# 17 characters or more leaves no blank after the bar. A public guide (the code index's file 38049775125) pasting
# `conda install pytorch==2.0.1 ... cudatoolkit=11.8` that pulled pkgs/main's CPU build:
CONDA_DOWNLOAD = ["The following packages will be downloaded:", "",
                  "    package                    |            build",
                  "    ---------------------------|-----------------",
                  "    blas-1.0                   |         openblas          46 KB",
                  "    pytorch-2.0.1              |cpu_py38hab5cca8_0        56.9 MB",
                  "    ------------------------------------------------------------"]


def test_conda_download_table_row_with_a_long_build_string():
    f = _facts(CONDA_DOWNLOAD)
    assert _torch(f).get("version") == "2.0.1"
    assert _torch(f).get("cuda") is None  # a cpu_ build
    # conda before 4.4 printed no size: "    pytorch-0.4.1              |py36_cuda9.0.176_cudnn7.1.2_1"
    assert _torch(_facts("    pytorch-0.4.1              |py36_cuda9.0.176_cudnn7.1.2_1")).get("version") == "0.4.1"


@pytest.mark.parametrize("line,want", [
    ("- `torch==2.5.1`", "2.5.1"),  # HybridRobotics/berkeley-humanoid-lite#49's "Default stack" bullet, in backticks
    ("- torch==2.1.2+cu121 (from pip)", "2.1.2+cu121"),  # a note after it is no part of it
    ("- torch 2.5.1 (cu121)", "2.5.1+cu121"),  # a note that is the build's local label completes it
    ("- PyTorch: 2.5.1 (cu121)", "2.5.1+cu121"),
    ("- torch 2.1.0 (tried 2.0.1 too)", None),  # a note naming another version: which one is installed is not known
    ("- PyTorch: 2.5.1 (GPU)", "2.5.1"),
])
def test_torch_bullets_with_backticks_and_notes(line, want):
    assert _torch(_facts(line)).get("version") == want


# comfyanonymous/ComfyUI#9650's "Other" section: a keyless GPU bullet among other bullets
COMFY_OTHER = ["### Other", "", "- NVIDIA GeForce GTX 1080 Ti", "- Windows 10", "- 2.8.0+cu128"]


def test_a_keyless_gpu_bullet_in_a_list_is_the_gpu():
    f = _facts(COMFY_OTHER)
    assert [g["name"] for g in f["gpus"]] == ["NVIDIA GeForce GTX 1080 Ti"]
    assert _torch(f).get("version") == "2.8.0+cu128"
    # alone (no list around it) it is not read as the machine's GPU
    assert not (_facts("- NVIDIA GeForce GTX 1080 Ti").get("gpus") or [])


def test_the_engine_names_the_gpu_and_the_build_from_the_keyless_bullets():
    # GTX 1080 Ti = compute capability 6.1 (compat_matrix/gpus.toml); torch 2.8.0+cu128 is built for 7.0 and up
    # (compat_matrix/torch.toml, its cu128 variant): the same cause as the thread's "no kernel image"
    doc = _doc("\n".join(["CUDA error: no kernel image is available for execution on the device"] + COMFY_OTHER))
    assert _top(doc) == "gpu-arch-unsupported"
    text = json.dumps(doc["matches"][0])
    assert "6.1" in text and "2.8.0+cu128" in text


def _tf(facts: dict):
    return (facts.get("frameworks") or {}).get("tensorflow") or {}


def test_tf_template_version_written_into_the_fields_hint():
    # tensorflow/tensorflow#30223: the template's "(use command below)" replaced by the version, the value left empty
    f = _facts(["**System information**", "- TensorFlow installed from (source):", "- TensorFlow version (1.13.1):",
                "- Python version: 2.7", "- CUDA/cuDNN version:10", "- GPU model and memory:Nvidia RTx 2080"])
    assert _tf(f).get("version") == "1.13.1"
    assert f["python"]["version"] == "2.7"
    assert [g["name"] for g in f["gpus"]] == ["Nvidia RTx 2080"]


def test_tf_issue_form_with_a_tf_gpu_version_and_a_sentence_for_the_gpu():
    # tensorflow/tensorflow#62170's form: "tf-gpu 2.4.0" is TensorFlow 2.4.0 (and so its Python heading counts)
    f = _facts(["### TensorFlow version", "", "tf-gpu 2.4.0", "", "### Python version", "", "3.8", "",
                "### GPU model and memory", "", "T4 15G"])
    assert (_tf(f).get("version"), f["python"]["version"]) == ("2.4.0", "3.8")
    # tensorflow/tensorflow#61649: a sentence in the GPU field names no GPU for certain: not read (before: the whole
    # sentence was taken for the GPU's name)
    f = _facts(["### TensorFlow version", "", "2.1", "", "### GPU model and memory", "",
                "Nvidia A100 partitioned virtually in two 40GB GPUs, I am using one of them", "", "### Current behavior?"])
    assert f.get("gpus") in ([], None)
    assert _tf(f).get("version") == "2.1"


def test_github_issue_forms_no_response_is_unknown():
    # GitHub writes "_No response_" for an issue form's field left empty (docs: "Syntax for issue forms"): it is no
    # GPU's name and no version (before: a GPU named "_No response_")
    f = _facts(["### Tensorflow Version", "", "2.12.0", "", "### Python version", "", "3.10", "",
                "### CUDA/cuDNN version", "", "_No response_", "", "### GPU model and memory", "", "_No response_"])
    assert f.get("gpus") in ([], None)
    assert "claims" not in f
    assert _tf(f).get("version") == "2.12.0"


@pytest.mark.parametrize("line", [
    "- GPU: Not applicable", "- GPU: integrated", "- GPU: see above", "- GPU: TBD",
    "- GPU model and memory: Not using GPU", "- GPU model and memory: _No response_",
])
def test_a_gpu_field_that_names_no_gpu_is_not_read(line):
    # the words people put in a template's GPU field when it does not apply: none is a GPU's name
    assert not (_facts(line).get("gpus") or [])


@pytest.mark.parametrize("line,want", [
    ("- GPU: TITAN V", ["TITAN V"]), ("- GPU: K80", ["K80"]), ("- GPU: 3x RTX A6000", ["RTX A6000"] * 3),
    ("- GPU: Radeon VII", ["Radeon VII"]),
])
def test_gpu_names_without_a_digit_or_with_a_count_still_read(line, want):
    assert [g["name"] for g in _facts(line)["gpus"]] == want
