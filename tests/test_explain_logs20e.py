"""`envcheck explain` on real logs of the families users post every day (tests/data/logs/logs20e; its README lists
file, label and source): CUDA extension builds (torch's cpp_extension check, NVIDIA Apex's and op builders' own
checks), "no kernel image" / "invalid device function" from builds for another architecture, logs in Chinese and
Korean, TensorFlow's missing-runtime DLL lines and its duplicate-factory noise, and:

* NVIDIA Apex's wording of the toolkit check ("Cuda extensions are being compiled with a version of Cuda that does
  not match ...") is the toolkit / torch CUDA mismatch, with torch's CUDA read from it when it is there;
* the op-builder wording without DeepSpeed's prefix (LightSeq's copy) is the same cause, while DeepSpeed's accepting
  form ("... but since the APIs are compatible, accepting this combination") says nothing.

The held-back part (heldout/logs20e) is scored by heldout/logs20d/score.py, never asserted here."""

import json
import os
import subprocess
import sys

import pytest

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_log_batch, label_pairs, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "logs20e")
HELD = os.path.join(ROOT, "heldout", "logs20e")


_readme_rows, _pairs = log_readme_rows, label_pairs  # tests/helpers.py


DEV_ROWS = _readme_rows(DEV)


def _read(name):
    with open(os.path.join(DEV, name), encoding="utf-8") as fh:
        return fh.read()


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    check_log_batch(DEV, HELD, min_dev=15, min_none=2, min_held=10, one_log_per_thread=False)


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(name, label, source):
    matches = explain_text(_read(name))
    if label == "none":
        assert matches == [], [(m.id, m.evidence) for m in matches]
        return
    assert matches and matches[0].id == label, [(m.id, m.score, m.evidence) for m in matches]
    assert matches[0].fixes and matches[0].title


def test_apex_wording_reads_torchs_cuda_and_gives_apexs_fix_first():
    ms = explain_text(_read("apex-1171-nvcc-9.0-vs-torch-cu102.log"))
    assert ms[0].id == "cuda-toolkit-mismatch" and ms[0].signature == "apex-cuda-extensions-version-mismatch"
    assert ms[0].captures.get("torch_cuda") == "10.2"
    assert "Apex" in ms[0].fixes[0] and "CUDA_HOME" in ms[0].fixes[0]


def test_apex_wording_cut_before_the_version_still_names_the_cause_without_a_version():
    ms = explain_text("RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match "
                      "the version used")
    assert ms and ms[0].id == "cuda-toolkit-mismatch" and "torch_cuda" not in ms[0].captures


@pytest.mark.parametrize("line,toolkit,torch_cuda", [
    # LightSeq's copy of the op builder (no prefix)
    ("Exception: Installed CUDA version 12.3 does not match the version torch was compiled with 12.1, unable to "
     "compile cuda/cpp extensions without a matching cuda version.", "12.3", "12.1"),
    # DeepSpeed's, hard-wrapped after the version as a user pasted it (a tutorial of DeepSpeed's GRPO example)
    ("deepspeed.ops.op_builder.builder.CUDAMismatchException:\nInstalled CUDA version 11.8 does not match the version "
     "torch was compiled with 12.8,\nunable to compile cuda/cpp extensions without a matching cuda version.",
     "11.8", "12.8"),
    # cut at the version, at the end of its line
    ("DeepSpeed Op Builder: Installed CUDA version 11.8 does not match the version torch was compiled with 12.4\n",
     "11.8", "12.4"),
])
def test_op_builder_refusal_in_its_forms(line, toolkit, torch_cuda):
    ms = explain_text(line)
    assert ms and ms[0].id == "cuda-toolkit-mismatch", [(m.id, m.evidence) for m in ms]
    assert ms[0].captures.get("toolkit") == toolkit and ms[0].captures.get("torch_cuda") == torch_cuda


@pytest.mark.parametrize("line", [
    "Installed CUDA version 12.6 does not match the version torch was compiled with 12.4 but since the APIs are "
    "compatible, accepting this combination",
    # DeepSpeed with DS_SKIP_CUDA_CHECK=1 (deepspeedai/DeepSpeed#3436): a warning, the build goes on
    "[WARNING] DeepSpeed Op Builder: Installed CUDA version 11.8 does not match the version torch was compiled with "
    "12.1.Detected `DS_SKIP_CUDA_CHECK=1`: Allowing this combination of CUDA, but it may result in unexpected behavior.",
])
def test_deepspeeds_accepting_forms_say_nothing(line):
    assert explain_text(line) == []


def test_the_cli_gives_the_same_top_cause_with_its_facts():
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect",
                        os.path.join(DEV, "lightseq-526-installed-cuda-12.3-vs-torch-12.1.log")],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode in (0, 1), r.stderr
    top = json.loads(r.stdout)["matches"][0]
    assert top["id"] == "cuda-toolkit-mismatch"
    assert top["captures"] == {"toolkit": "12.3", "torch_cuda": "12.1"}


# -- FlashAttention 2's architecture check ----------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
    "1 runtimeerror flashattention only supports ampere gpus or newer",  # a lower-cased PR title
    "RuntimeError: Error in model execution (input dumped to /tmp/x.pkl): FlashAttention only supports Ampere GPUs "
    "or newer.",
])
def test_flash_attention_on_an_older_gpu_is_the_arch_with_the_way_to_turn_it_off(text):
    ms = explain_text(text)
    assert ms and ms[0].id == "gpu-arch-unsupported" and ms[0].signature == "flash-attention-needs-ampere"
    first = ms[0].fixes[0]
    assert "sdpa" in first and "8.0" in first and "Turing" in first


def test_flash_attentions_readme_wording_of_its_gpus_is_no_failure():
    # the project's own prose (README) and a transformers-style note name the same GPUs without the check failing
    assert explain_text("FlashAttention-2 currently supports: Ampere, Ada, or Hopper GPUs (e.g., A100, RTX 3090, "
                        "RTX 4090, H100).") == []
