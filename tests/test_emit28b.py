"""`envcheck explain` on batch emit28b (issue 20): real posted lines carrying the format strings of AMD / Intel / Apple
emitters that state an environment cause, part 3 of the emitter inventory (heldout/rounds/emit28b-inventory.md lists
every emitter string read, with what explain said of it). The working part is tests/data/logs/emit28b; the held-back
part (heldout/emit28b-held, split by scripts/split_log_batch.py before any rule) is scored by scripts/score_explain.py,
never asserted here.

What the working part's misses led to (errors.toml, block '# ---- emit28b ----'), each a rule on the emitter's format
string:

* the Linux i915 driver's "Failed to initialize GPU, declaring it wedged!" (i915_gem.c) and the step that leads to it,
  "GuC initialization failed %pe" (intel_uc.c, printed only on the path that returns -EIO): the driver found the Intel
  GPU and runs nothing on it (gpu-not-initialized); "GuC is uninitialized" (the path that runs on without GuC) stays
  unsaid;
* ggml-alloc's "failed to allocate <buffer type> buffer of size N" and llama.cpp's "unable to allocate <buffer type>
  buffer" for a device buffer type (Metal, ROCm0, SYCL0, Vulkan0, CUDA0 ...): gpu-out-of-memory; a CPU buffer (host
  memory) stays unsaid.
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
BATCH = "emit28b"
DEV = os.path.join(HERE, "data", "logs", BATCH)
HELD = os.path.join(ROOT, "heldout", BATCH + "-held")
DEV_ROWS = log_readme_rows(DEV)
#: dev logs explain does not get right, and what it says instead (none left after the batch's rules)
KNOWN_MISSES: dict = {}


def _read(name, folder=DEV):
    return read_text_file(folder, name)


def _line(name, needle):
    return next(ln for ln in _read(name).splitlines() if needle in ln and not ln.startswith("# "))


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    check_log_batch(DEV, HELD, min_dev=8, min_held=5, min_total=13, min_none=2, held_listed=True)


def test_no_thread_is_in_the_batch_nor_in_an_earlier_set():
    check_batch_threads_new(DEV_ROWS, HELD, BATCH)


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(name, label, source):
    assert_top_is_label(explain_text(_read(name)), name, label, KNOWN_MISSES)


@pytest.mark.parametrize("name,needle", [
    # an older kernel's wording (i915_probe_error, no GT prefix)
    ("sof-test-767-adl-guc-init-failed-enabling-uc-wedged.log", "Failed to initialize GPU, declaring it wedged!"),
    # 6.x: gt_probe_error's "[drm] *ERROR* GT0: " prefix
    ("sof-linux-4530-adl-suspend-resume-guc-load-failed-wedged.log", "GT0: Failed to initialize GPU"),
    # a Coffee Lake whose engines did not idle: no GuC line before it
    ("media-driver-1165-coffee-lake-idle-engines-wedged.log", "Failed to initialize GPU, declaring it wedged!"),
    # the GuC step alone, both forms of its error: "%d" (older) and "%pe" (6.x)
    ("sof-test-767-adl-guc-init-failed-enabling-uc-wedged.log", "GuC initialization failed -2"),
    ("sof-linux-4530-adl-suspend-resume-guc-load-failed-wedged.log", "GuC initialization failed -ENXIO"),
])
def test_each_i915_init_failure_line_alone_is_gpu_not_initialized(name, needle):
    assert top_id_signature(_line(name, needle)) == ("gpu-not-initialized", "i915-failed-to-initialize-gpu-wedged")


@pytest.mark.parametrize("needle", [
    # the path of __uc_init_hw that runs on without the GuC: no failure of the GPU
    "GuC is uninitialized",
    # the firmware fetch falling back to sysfs and timing out, by itself
    "fetch failed with error -11",
])
def test_a_guc_firmware_fetch_that_the_driver_runs_on_without_says_nothing(needle):
    line = _line("acrn-5752-apollo-lake-guc-fetch-failed-guc-uninitialized-boots.log", needle)
    assert top_id_signature(line) == (None, None)


def test_i915_failure_gets_no_nvidia_or_amd_advice():
    ms = explain_text(_read("sof-linux-4530-adl-suspend-resume-guc-load-failed-wedged.log"))
    assert ms and ms[0].id == "gpu-not-initialized" and "NVIDIA" not in ms[0].title
    for text in ms[0].fixes + ms[0].dead_ends:
        assert "nvrm" not in text.lower() and "RmInitAdapter" not in text and "/dev/kfd" not in text, text
    assert "GuC" in ms[0].fixes[0]


@pytest.mark.parametrize("name,needle,signature,size", [
    ("bodhiapp-4-m1-gallocr-metal-buffer-8891928576.log", "Metal buffer", "ggml-metal-buffer-allocation-failed",
     "8891928576"),
    # the SYCL backend's own line runs into ggml-alloc's on the same line (no newline after "on device")
    ("llama-cpp-10421-arc-a770-gallocr-sycl0-buffer.log", "SYCL0 buffer of size", "ggml-sycl-buffer-allocation-failed",
     "7573604352"),
    # llama.cpp's model loader: no size in its words
    ("lemonade-324-gfx1151-pinned-vram-unable-to-allocate-rocm0.log", "unable to allocate ROCm0",
     "ggml-rocm-buffer-allocation-failed", None),
])
def test_ggml_device_buffer_allocation_failure_is_out_of_memory(name, needle, signature, size):
    ms = explain_text(_line(name, needle))
    assert ms and (ms[0].id, ms[0].signature) == ("gpu-out-of-memory", signature)
    assert ms[0].captures.get("requested_bytes") == size


@pytest.mark.parametrize("line", [
    # ggml-alloc's line names the buffer type of any backend: the other device types are read by one signature
    # (llama.cpp#11476's line, CUDA1, and the error quoted in llama.cpp#13250's title, Vulkan0 on a Ryzen APU)
    "deep-seek-1  | ggml_gallocr_reserve_n: failed to allocate CUDA1 buffer of size 10345253120",
    'the error "failed to allocate Vulkan0 buffer of size 4342230552" may appear.',
    # llama.cpp#20431: the model loader's own words after ggml-alloc's (the line only, copied)
    "llama_model_load: error loading model: unable to allocate CUDA0 buffer",
])
def test_other_device_buffer_types_are_out_of_memory_too(line):
    assert top_id_signature(line) == ("gpu-out-of-memory", "ggml-backend-device-buffer-allocation-failed")


@pytest.mark.parametrize("name,needle", [
    ("llama-cpp-10251-avx2-ub-6500-gallocr-cpu-buffer.log", "failed to allocate CPU buffer"),
    ("llama-cpp-10251-avx2-ub-6500-gallocr-cpu-buffer.log", "ggml_backend_cpu_buffer_type_alloc_buffer"),
])
def test_a_cpu_buffer_is_host_memory_and_says_nothing(name, needle):
    assert top_id_signature(_line(name, needle)) == (None, None)


@pytest.mark.parametrize("name", [
    "bodhiapp-4-m1-gallocr-metal-buffer-8891928576.log",  # Apple: no nvidia-smi advice
    "llama-cpp-10421-arc-a770-gallocr-sycl0-buffer.log",  # Intel
    "lemonade-324-gfx1151-pinned-vram-unable-to-allocate-rocm0.log",  # AMD
    "sof-test-767-adl-guc-init-failed-enabling-uc-wedged.log",  # Intel kernel log
])
def test_other_vendors_logs_get_no_nvidia_only_advice(name):
    check_no_nvidia_only_advice(os.path.join(DEV, name))
