"""drv32 (session 20): a driver too old for what the program was built with, said by the text's facts and wordings.

Real threads in tests/data/drv32 (README: file, label, source); about a third of the collection was held back in
heldout/drv32-held/pastes before any rule was written (scored by scripts/score_pastes.py, never asserted here). What
the rules read:

* OptiX's refusal of a driver older than the OptiX SDK (OPTIX_ERROR_UNSUPPORTED_ABI_VERSION, "failed with code 7801",
  optixGetErrorString's "Unsupported ABI version"): driver-too-old, with no CUDA-floor advice (``says``
  not-cuda-floor); OptiX's other codes (7804 library not found, 7001 invalid value) are not read;
* the driver's PTX JIT refusing newer PTX ("ptxas application ptx input, line 9; fatal : Unsupported .version 7.0;
  current version is '6.4'"): driver-too-old (a standalone ptxas, which names its input file, stays the toolkit's);
* CUDA error 804's sentence retyped without "was attempted": forward-compat-unsupported;
* OWL's "#owl: no CUDA capable devices found!": a generic no-gpu-visible line (a GPU failure the prose rules see);
* the paste readers' sentences: a driver "a little too old" said to the reporter ("your driver version ..."), the
  lowest driver a project supports or a build needs ("The earliest driver we support is R435", "Requires NVIDIA
  R495.89 driver or newer", "Optix 9 will need 590 driver").
"""

import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (COVER_BOUND, check_dev_sample, check_split_listing, explain_cli_matches,  # noqa: E402
                     sample_rows, top_id_signature)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "drv32")
HELD = os.path.join(ROOT, "heldout", "drv32-held", "pastes")


DEV_ROWS = sample_rows(DEV, ".txt")


def test_listing():
    check_split_listing(DEV, HELD, ".txt", min_dev=14, min_held=7, min_none=4)


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0][:60] for r in DEV_ROWS])
def test_dev_thread(name, label, source):
    check_dev_sample(os.path.join(DEV, name), label)


# real lines (each from a thread in tests/data/drv32, heldout/drv32-held or the knowledge base's comments)
@pytest.mark.parametrize("text,cause,signature", [
    ("Optix call (optixInit()) failed with code 7801 (line 150)", "driver-too-old", "optix-unsupported-abi-version"),
    ("OPTIX_ERROR_UNSUPPORTED_ABI_VERSION (7801)", "driver-too-old", "optix-unsupported-abi-version"),
    ("/root/code/EnvGS/submodule/diff-surfel-tracing/optix_tracer/optix_wrapper.cpp:175 Optix Error: 'Unsupported ABI "
     "version'", "driver-too-old", "optix-unsupported-abi-version"),
    ("# Optix error unsupported ABI version", "driver-too-old", "optix-unsupported-abi-version"),
    ("NvidiaKernel.cpp:82 Check failed: cuLinkAddFile_v2( link_state, CU_JIT_INPUT_FATBINARY, gpu_rt_path.c_str(), 0, "
     "nullptr, nullptr) == CUDA_SUCCESS (218 == 0) ptxas application ptx input, line 9; fatal   : Unsupported "
     ".version 7.0; current version is '6.4'.", "driver-too-old", "driver-jit-unsupported-ptx-version"),
    # hashcat/hashcat#2694
    ("ptxas application ptx input, line 9; fatal: Unsupported .version 7.2; current version is '7.1'",
     "driver-too-old", "driver-jit-unsupported-ptx-version"),
    ("# CUDA Forward Compatibility on non supported HW", "forward-compat-unsupported",
     "forward-compat-non-supported-hw-retyped"),
    ("terminate called after throwing an instance of 'std::runtime_error'", None, None),
    ("what():  #owl: no CUDA capable devices found!", "no-gpu-visible", "owl-no-cuda-capable-devices"),
])
def test_line_reads(text, cause, signature):
    assert top_id_signature(text) == (cause, signature)


def test_driver_jit_line_carries_the_isas():
    from helpers import top_match

    m = top_match("ptxas application ptx input, line 9; fatal   : Unsupported .version 7.7; current version is '7.4'")
    assert m is not None and m.captures.get("ptx_isa") == "7.7" and m.captures.get("driver_ptx_isa") == "7.4"


@pytest.mark.parametrize("text", [
    # OptiX's other codes: a driver install without libnvoptix (owl-project/NVISII#107), an invalid argument (#74)
    "Optix call (optixInit()) failed with code 7804 (line 152)",
    "> Optix call (optixDenoiserCreate(optixContext, &options, &OD.denoiser)) failed with code 7001 (line 711)",
    # a code 7801 that is no OptiX's, and an X server's input driver ABI (X11Libre/xserver#310)
    "cudaMemcpy failed with code 78010",
    "(WW) NVIDIA: This server has an unsupported input driver ABI version (have 26.0, need < 25.0).",
    # the toolkit's own ptxas names its input file: the toolkit's (tinygrad/tinygrad#7729)
    "ptxas /tmp/tinycuda_03fe6308def2ec1dd6c3b1a96681a0fc.ptx, line 9; fatal   : Unsupported .version 8.5; current "
    "version is '7.5'",
])
def test_not_driver_too_old(text):
    assert top_id_signature(text)[0] != "driver-too-old"


def test_optix_fix_has_no_cuda_floor():
    """The driver is too old for OptiX, not for a CUDA release: the fixes name no CUDA major's driver floor."""
    matches = explain_cli_matches("--no-detect", os.path.join(DEV, "envgs-4-optix-sdk-7.7-unsupported-abi-version-"
                                                                   "driver-470.161.03.txt"))
    assert matches[0]["id"] == "driver-too-old"
    assert "OptiX" in matches[0]["fixes"][0]
    assert not any(re.search(r"CUDA \d+\.x builds need a driver", f) for f in matches[0]["fixes"])
    # a CUDA failure keeps them (the driver JIT's line: its PTX is a CUDA release's)
    jit = explain_cli_matches("--no-detect", os.path.join(DEV, "heavydb-617-ptxas-unsupported-version-7.0-current-6.4-"
                                                                "needs-450.txt"))
    assert jit[0]["id"] == "driver-too-old"
    assert any(re.search(r"CUDA \d+\.x builds need a driver", f) for f in jit[0]["fixes"])


# the paste readers (envcheck/paste/readers/prose_cause.py): the sentences as the threads wrote them
def _lines(text):
    from envcheck.paste import read_report

    return read_report(text).lines


@pytest.mark.parametrize("sentence,version", [
    # owl-project/NVISII#91 (the maintainer)
    ("looks like your driver version is a little too old. The earliest driver we support is R435 (using pip install "
     "nvisii==1.0.70).", "435"),
    # NVlabs/instant-ngp#35, zju3dv/EnvGS#4 (quoting the OptiX download page)
    ("From the download page it is stated: 'Requires NVIDIA R495.89 driver or newer'.", "495.89"),
    ("NVIDIA-OptiX-SDK-7.7.0 Requires NVIDIA 530.41 driver or newer, I have subsequently used version 535.161.08",
     "530.41"),
    # NVIDIA/OWL#12
    ("(I just realized Optix 9 will need 590 driver, so that explains why I'm getting error with optix 9)", "590"),
    ("the minimum driver version is 450.80.02 for CUDA 11", "450.80.02"),
])
def test_driver_need_said(sentence, version):
    got = _lines(sentence).get("driver-need-said")
    assert got is not None and got.split(" | ")[0] == version


@pytest.mark.parametrize("sentence", [
    "Is the earliest driver we support R435?",
    "Maybe the earliest driver we support is R435, could you check?",
    "We need 590 drivers installed across the fleet before the upgrade, if the budget allows it",
    "I need 8 GB of memory for this model",
])
def test_driver_need_not_said(sentence):
    assert _lines(sentence).get("driver-need-said") is None


def test_driver_said_old_to_the_reporter():
    assert _lines("looks like your driver version is a little too old.").get("driver-said-old")
    assert _lines("Is your driver version too old?").get("driver-said-old") is None
    assert _lines("your driver version is not too old, it is the container").get("driver-said-old") is None


def test_the_spent_thread_reads_driver_below_the_floor():
    """owl-project/NVISII#91 (acceptance18): driver 418.56 in the text, the maintainer's R435 floor, OWL's device check
    failing: driver-too-old first, the generic device line below it."""
    path = os.path.join(ROOT, "heldout", "acceptance18", "pastes",
                        "nvisii-91-ubuntu-16.04-driver-418.56-cuda-10.1-owl-no-cuda-capable-devices-found-needs-r435.txt")
    if not os.path.exists(path):
        pytest.skip("spent set not in this checkout")
    ids = [m["id"] for m in explain_cli_matches("--no-detect", path)]
    assert ids[:2] == ["driver-too-old", "no-gpu-visible"]


def test_driver_floor_needs_a_failure_and_a_lower_driver():
    """The floor a thread gives decides only against the text's driver, and only beside a GPU failure."""
    floor = "NVIDIA-SMI 418.56       Driver Version: 418.56      CUDA Version: 10.1\nThe earliest driver we support is R435.\n"
    fails = "terminate called after throwing an instance of 'std::runtime_error'\nwhat():  #owl: no CUDA capable devices found!\n"

    def ids(text):
        return [m["id"] for m in explain_cli_matches("--no-detect", "-", text=text)]

    assert ids(floor + fails)[:1] == ["driver-too-old"]
    assert "driver-too-old" not in ids(floor.replace("418.56", "440.33.01") + fails)
    assert "driver-too-old" not in ids(floor)


def test_cover_bound():
    from envcheck.explain.kb import load_kb

    assert len(load_kb().cover) <= COVER_BOUND
