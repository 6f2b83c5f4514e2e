"""newnv40 (session 24): NVIDIA stacks' compiled extensions failing on the environment.

Real threads in tests/data/newnv40 (README: file, label, source); about a third of the collection was held back in
heldout/newnv40-held/logs before any rule was written (scored by scripts/score_explain.py, never asserted here beyond
its listing). What the rules read (errors.toml's newnv40 block):

* ``extension-undefined-green-context-driver-api``: an extension (sgl_kernel's common_ops) linked against the CUDA
  green-context driver API (CUDA 12.4/12.5) that the installed driver's libcuda lacks: "undefined symbol:
  cuGreenCtxStreamCreate" / "cuGreenCtxDestroy" -> driver-too-old. Older-looking driver symbols missing from an
  extension (cuTensorMapEncodeTiled, cuEventDestroy_v2, cuModuleGetFunction) are as often an extension that does not
  link libcuda, and stay silent;
* ``bitsandbytes-ops-named-symbol-not-found``: bitsandbytes' CUDA check "Error named symbol not found at line N in
  file .../csrc/ops.cu" (its library holds no kernels for the GPU) -> gpu-arch-unsupported; a program's own "named
  symbol not found" (a wrong kernel name for cuModuleGetFunction) stays silent;
* ``unsloth-no-gpu-found``: Unsloth's import-time device check ("Unsloth: No NVIDIA GPU found? ...", "Unsloth currently
  only works on NVIDIA GPUs and Intel GPUs.") -> framework-cpu-only (a generic "torch saw no GPU" line); the vendors its
  message and its source listing name (Intel, "hip", torch.xpu) are not read as the machine's (paste/readers/
  prose_cause.py's source-listing lines; errors.toml's xpu veto fact).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_section_literals, check_split_listing, explain_cli_matches, sample_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "newnv40")
HELD = os.path.join(ROOT, "heldout", "newnv40-held", "logs")
GREEN = "extension-undefined-green-context-driver-api"
BNB = "bitsandbytes-ops-named-symbol-not-found"
UNSLOTH = "unsloth-no-gpu-found"
SIGNATURES = (GREEN, BNB, UNSLOTH)

DEV_ROWS = sample_rows(DEV, ".log")


def test_listing():
    check_split_listing(DEV, HELD, ".log", min_dev=10, min_held=6, min_none=5, min_held_none=2)


def test_block_literals_hold_and_no_new_anchor():
    matched = check_section_literals("# ---- newnv40 ----", SIGNATURES, [], [DEV])
    assert set(SIGNATURES) <= matched


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0][:60] for r in DEV_ROWS])
def test_dev_thread(name, label, source):
    matches = explain_cli_matches("--no-detect", os.path.join(DEV, name))
    if label == "none":
        assert matches == [], [(m["id"], m["evidence"]) for m in matches]
        return
    assert matches and matches[0]["id"] == label, [(m["id"], m["score"], m["evidence"]) for m in matches]
    assert matches[0]["fixes"]


def test_green_context_symbol_is_the_evidence_and_the_fix_names_the_driver():
    m = explain_cli_matches("--no-detect", os.path.join(
        DEV, "sglang-8131-cuda-12.4-sgl-kernel-common-ops-undefined-symbol-cugreenctxstreamcreate.log"))[0]
    assert m["id"] == "driver-too-old" and m["signature"] == GREEN
    assert "undefined symbol: cuGreenCtxStreamCreate" in m["evidence"]
    fix = m["fixes"][0]
    assert "driver" in fix and "12.4" in fix and "12.5" in fix


def test_title_alone_is_read():
    # sgl-project/sglang#8432's title, as a user pastes it into a question
    matches = explain_cli_matches("--no-detect", "-", text="[Bug] undefined symbol: cuGreenCtxDestroy\n")
    assert matches and matches[0]["id"] == "driver-too-old" and matches[0]["signature"] == GREEN


@pytest.mark.parametrize("text", [
    # NVIDIA/cutlass#1624: an own extension not linked to libcuda (LD_PRELOAD / libraries=["cuda"] fixed it)
    "I still get `undefined symbol: cuTensorMapEncodeTiled` when trying to import my PyTorch extension.\n",
    # heterodb/pg-strom#758: built on a Mac without a driver, rebuilt on the GPU machine
    '2024-04-18 21:14:26.278 CST [14533] FATAL:  could not load library "/opt/pgsql/lib/pg_strom.so": '
    "/opt/pgsql/lib/pg_strom.so: undefined symbol: cuEventDestroy_v2\n",
])
def test_older_driver_symbols_missing_from_an_extension_stay_silent(text):
    assert [m for m in explain_cli_matches("--no-detect", "-", text=text) if m["signature"] == GREEN] == []
    assert [m["id"] for m in explain_cli_matches("--no-detect", "-", text=text)] == []


def test_bnb_error_glued_to_a_progress_bar_is_read():
    m = explain_cli_matches("--no-detect", os.path.join(
        DEV, "bnb-371-textgen-gtx1650-and-p40-named-symbol-not-found-line-528.log"))[0]
    assert m["id"] == "gpu-arch-unsupported" and m["signature"] == BNB
    assert "Error named symbol not found at line 528 in file" in m["evidence"]
    assert "CUDA_VISIBLE_DEVICES" in m["fixes"][0]


def test_bnb_bracketed_line_numbers_of_a_title():
    m = explain_cli_matches("--no-detect", os.path.join(
        DEV, "bnb-374-built-from-source-cuda121-nocublaslt-cc-6.1-named-symbol-not-found-title.log"))[0]
    assert m["signature"] == BNB and "[116 528]" in m["evidence"]


def test_nccl_named_symbol_keeps_its_own_rule():
    m = explain_cli_matches("--no-detect", os.path.join(
        HERE, "data", "logs", "logs20j", "nccl-1372-built-sm80-on-h100-named-symbol.log"))[0]
    assert m["id"] == "gpu-arch-unsupported" and m["signature"] != BNB


def test_program_named_symbol_not_found_stays_silent():
    # triton-lang/triton#4365: cuModuleGetFunction with the kernel's name lacking Triton's hash suffix
    text = ("It report an error when running the last line of code\uff0cit said that CUDA Error: CUDA_ERROR_NOT_FOUND: "
            "named symbol not found\n")
    assert explain_cli_matches("--no-detect", "-", text=text) == []


def test_compile_time_undefined_identifier_is_not_the_driver():
    # sgl-project/sglang#9512: building sgl-kernel with CUDA 12.0's headers, which predate green contexts (the toolkit
    # at build time, not the driver at run time): the green-context rule does not read it
    text = 'sgl-kernel/csrc/spatial/greenctx_stream.cu(23): error: identifier "cuCtxFromGreenCtx" is undefined\n'
    assert [m for m in explain_cli_matches("--no-detect", "-", text=text) if m["signature"] == GREEN] == []


def test_unsloth_dgx_spark_listing_is_not_an_intel_or_amd_host():
    m = explain_cli_matches("--no-detect", os.path.join(
        DEV, "unsloth-3553-dgx-spark-gb10-only-works-on-nvidia-gpus-and-intel-gpus.log"))
    assert [x["id"] for x in m] == ["framework-cpu-only"] and m[0]["signature"] == UNSLOTH
    # its own fix, not the notice that an Intel (XPU) machine's NVIDIA fixes do not apply
    assert "CPU-only build" in m[0]["fixes"][0] and "Intel (XPU)" not in m[0]["fixes"][0]

