"""`envcheck explain` on batch intel29 (session 18): Intel GPU (XPU / Arc / iGPU) logs - the states users hit. The
working part is tests/data/logs/intel29; the held-back part (heldout/intel29-held, split by scripts/split_log_batch.py
before any rule) is scored by scripts/score_explain.py, never asserted here.

What the working part's misses led to (errors.toml, block '# ---- intel29 ----'):

* the Level Zero loader's zeInit finding no driver that initialises, ZE_RESULT_ERROR_UNINITIALIZED (code 2013265921),
  in oneAPI.jl's and zello_world's words: no-gpu-driver; Sysman's zesInit with the same code (a management-API
  warning while the GPU runs) and hwloc's probe stay unsaid;
* the Linux i915 driver declining a GPU this kernel does not enable ("Your graphics device XXXX is not properly
  supported by i915 in this kernel version. To force driver probe anyway"): driver-too-old (the kernel is too old for
  the GPU); the xe driver's "not officially supported by xe driver" line, printed for GPUs that i915 drives, stays
  unsaid;
* stock TensorFlow's CUDA probe lines (``says`` ``tf-loader-warning``: "Could not find cuda drivers on your machine")
  in a log that shows Intel's XPU stack and nothing of NVIDIA's (engine.vendors.log_intel_stack) are dropped, as they
  were beside a failure of that stack: TensorFlow's default wheel probes CUDA on every machine.
"""

import os
import sys

import pytest

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (assert_top_is_label, check_batch_threads_new, check_log_batch,  # noqa: E402
                     check_no_nvidia_only_advice, log_readme_rows, read_text_file,
                     top_id_signature)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
BATCH = "intel29"
DEV = os.path.join(HERE, "data", "logs", BATCH)
HELD = os.path.join(ROOT, "heldout", BATCH + "-held")
DEV_ROWS = log_readme_rows(DEV)
#: dev logs explain does not get right, and what it says instead: an A770 on a kernel before 6.2, told in prose only
#: (ZE_RESULT_ERROR_UNKNOWN named in a sentence; the kernel version is not in the text as a fact)
#: and TensorFlow's CUDA probe on an ITEX host whose log shows nothing of Intel's stack the scan knows (only oneAPI's
#: vars.sh sourced and a host name): still read as a missing CUDA runtime
KNOWN_MISSES = {"compute-runtime-610-a770-ze-result-error-unknown-execbuffer2-einval-needs-linux-6.2.log": None,
                "healthy-itex-71-arc-a770-oneapi-vars-sourced-tf-cuda-stub-warnings-runs-on-gpu.log":
                "cuda-runtime-missing"}

ZEINIT = "level-zero-zeinit-driver-not-initialized"
I915 = "i915-device-not-supported-in-this-kernel"


def _read(name, folder=DEV):
    return read_text_file(folder, name)


def _line(name, needle):
    return next(ln for ln in _read(name).splitlines() if needle in ln and not ln.startswith("# "))


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    check_log_batch(DEV, HELD, min_dev=9, min_held=4, min_total=13, min_none=5, held_listed=True)


def test_no_thread_is_in_the_batch_nor_in_an_earlier_set():
    check_batch_threads_new(DEV_ROWS, HELD, BATCH)


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(name, label, source):
    assert_top_is_label(explain_text(_read(name)), name, label, KNOWN_MISSES)


@pytest.mark.parametrize("line", [
    # oneAPI.jl's ZeError (the dev log's line)
    "│    ZeError: driver is not initialized (code 2013265921, ZE_RESULT_ERROR_UNINITIALIZED)",
    # the loader's zello_world sample (oneapi-src/level-zero#196's line, copied)
    "Driver not initialized: ZE_RESULT_ERROR_UNINITIALIZED",
])
def test_zeinit_finding_no_driver_is_no_gpu_driver(line):
    assert top_id_signature(line) == ("no-gpu-driver", ZEINIT)


def test_the_dev_zeinit_log_leads_with_the_level_zero_fix():
    ms = explain_text(_read("oneapi-jl-375-zeerror-driver-is-not-initialized-code-2013265921-at-zeinit.log"))
    assert ms and (ms[0].id, ms[0].signature) == ("no-gpu-driver", ZEINIT)
    assert "Level Zero" in ms[0].fixes[0] and "[level_zero:gpu]" in ms[0].fixes[0]


@pytest.mark.parametrize("line", [
    # Sysman (the management API) not enabled: the same code from zesInit, a warning while the GPU works
    # (ggml-org/llama.cpp#28314's line, copied; that thread is tests/data/logs/vlogs23's)
    "Warning: zesInit failed [ggml_check_sycl] with code 2013265921. Sysman free-memory query may be unavailable.",
    # hwloc probing Level Zero on a machine that needs none (open-mpi/hwloc#741's line, copied)
    "hwloc/levelzero: Failed to initialize in zeInit(): 0x78000001",
    # ollama's management-library probe (ollama/ollama#3278's line, copied): zesInit again
    "zesInit err: 2013265921",
])
def test_sysman_and_probe_lines_with_the_same_code_say_nothing(line):
    assert top_id_signature(line) == (None, None)


@pytest.mark.parametrize("name,needle,device", [
    ("i915-sriov-dkms-293-flex-170-56c0-not-properly-supported-by-i915-force-probe.log", "56c0 is not", "56c0"),
    # the kernel log's wrap: the rest of the sentence is on the next, timestamped line
    ("lede-11456-zh-dg1-4908-not-properly-supported-by-i915-check-for-kernel-updates.log", "4908 is not", "4908"),
])
def test_i915_declining_the_gpu_is_driver_too_old(name, needle, device):
    ms = explain_text(_line(name, needle))
    assert ms and (ms[0].id, ms[0].signature) == ("driver-too-old", I915)
    assert ms[0].captures.get("device_id") == device


@pytest.mark.parametrize("needle", ["is not officially supported", "by xe driver in this kernel version"])
def test_the_xe_drivers_line_for_a_gpu_i915_drives_says_nothing(needle):
    line = _line("healthy-i915-sriov-dkms-235-xe-4680-not-officially-supported-i915-sriov-pf-runs.log", needle)
    assert top_id_signature(line) == (None, None)


@pytest.mark.parametrize("name", [
    "oneapi-jl-375-zeerror-driver-is-not-initialized-code-2013265921-at-zeinit.log",
    "i915-sriov-dkms-293-flex-170-56c0-not-properly-supported-by-i915-force-probe.log",
    "lede-11456-zh-dg1-4908-not-properly-supported-by-i915-check-for-kernel-updates.log",
])
def test_intel_logs_get_no_nvidia_only_advice(name):
    check_no_nvidia_only_advice(os.path.join(DEV, name))


ITEX59 = "itex-59-max-1550-pip-itex-xpu-2.14-import-tf-cuda-stub-warnings.log"


def test_tf_cuda_probe_on_an_intel_xpu_host_says_nothing():
    # the log names ITEX's XPU build (intel-extension-for-tensorflow[xpu]) and no NVIDIA GPU
    assert explain_text(_read(ITEX59)) == []


def test_the_same_tf_line_without_intel_stack_still_reads_as_a_missing_cuda_runtime():
    line = _line(ITEX59, "Could not find cuda drivers")
    assert top_id_signature(line) == ("cuda-runtime-missing", "tf-could-not-find-cuda-drivers")
