"""Batch vlogs21p of issue 21's vendor error logs: `envcheck explain` on five families enumerated from their emitting
sources - amdkfd refusing a GPU (Linux amdkfd/kfd_device.c, each kernel's wording), libdrm_amdgpu's ACCEL_WORKING
answers (amdgpu_device.c), rocBLAS finding no code objects for the gfx (tensile_host.cpp), Metal's out-of-memory
command-buffer status and MLX's Metal allocator (mlx/backend/metal/allocator.cpp), the MPS framework's NDArray size
limits (MPSNDArray.mm, and PyTorch's own check before them) - with controls (kfd adding a device, PyTorch's MPS int64
warnings, llama.cpp's Metal start-up, Metal ignoring work after earlier GPU errors); and the vendor-neutral title of a
cause whose title names NVIDIA on another vendor's log. Real logs: tests/data/logs/vlogs21p (README: file, label,
source); the held-back part heldout/vlogs21p was split off first (scripts/split_vendor_batch.py logs 21p 2026112708
0.35) and is scored with scripts/score_explain.py only, never asserted here."""

import json
import os
import re
import subprocess
import sys

import pytest

from envcheck.explain import explain_text
from envcheck.explain.kb import validate_kb
from envcheck.matrix import load_matrix

sys.path.insert(0, os.path.dirname(__file__))
from helpers import top_id_signature as _top, assert_top_is_label, check_log_batch, explain_file, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "vlogs21p")
HELD = os.path.join(ROOT, "heldout", "vlogs21p")
DEV_ROWS = log_readme_rows(DEV)
NVIDIA_ADVICE = re.compile(r"nvidia|/dev/nvidia|index=cu|download\.pytorch\.org/whl/cu|cu1[1-3]\d\b|"
                           r"CUDA toolkit|libcudnn|nouveau", re.IGNORECASE)


def _cli(text):
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", "-"], input=text,
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["matches"]


def test_listing_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV, HELD, min_dev=26, min_held=15, min_total=41, min_healthy=4, held_listed=True)
    # every family has real logs on both sides of the split, controls on both sides
    for prefix in ("kfd-pci-rejects-atomics-", "kfd-not-supported-", "libdrm-accel-working-", "metal-insufficient-",
                   "mlx-", "mps-ndarray-total-bytes-", "rocblas-no-paths-matched-"):
        assert any(r[0].startswith(prefix) for r in DEV_ROWS), prefix
        assert any(r[0].startswith(prefix) for r in held), prefix
    assert any(r[1] == "none" for r in DEV_ROWS) and any(r[1] == "none" for r in held)


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS], ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top1(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV, name)), name, label, {})


@pytest.mark.parametrize("name", [r[0] for r in DEV_ROWS if r[1] != "none"])
def test_no_nvidia_message_from_the_text_alone(name):
    """Contract §9: these are AMD's and Apple's own lines - no NVIDIA title, fix or dead end beside them."""
    with open(os.path.join(DEV, name), encoding="utf-8") as fh:
        matches = _cli(fh.read())
    assert matches
    for m in matches:
        assert "NVIDIA" not in m["title"], (m["id"], m["title"])
        for text in m["fixes"] + m["dead_ends"]:
            assert not NVIDIA_ADVICE.search(text), (m["id"], text)


# -- each family's forms as its source writes them (not the threads' wording)
@pytest.mark.parametrize("line", [
    # 5.x+: the device's own prefix and the atomic values
    "[    7.026427] kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0",
    "[    2.562957] kfd kfd: skipped device 1002:67c4, PCI rejects atomics",
    # 4.x kgd2kfd_probe, through amdgpu's and kfd2kgd's prefixes
    "[    1.172206] kfd2kgd: kfd not supported on this ASIC",
    "[    3.044705] amdgpu 0000:04:00.0: kfd not supported on this ASIC",
    "[    2.510806] kfd kfd: DID 15d8 is missing in supported_devices",
    # 5.x (the ASIC name, two spaces before the empty VF word) and 6.x (the GC IP version)
    "[    3.548555] kfd kfd: amdgpu: PITCAIRN  not supported in kfd",
    "[    4.110000] kfd kfd: amdgpu: GC IP 0b0500  not supported in kfd",
])
def test_amdkfd_refusal_forms(line):
    assert _top(line) == ("gpu-not-initialized", "amdkfd-device-not-added")


@pytest.mark.parametrize("text", [
    "[    1.670870] kfd kfd: added device 1002:15dd",
    "kfd kfd: amdgpu: Allocated 3969056 bytes on gart\nkfd kfd: amdgpu: Total number of KFD nodes to be created: 1",
    "hsa api call failure at line 900, file: rocminfo.cc. Call returned 4104",
])
def test_kfd_lines_of_a_working_gpu_name_no_cause(text):
    assert _top(text) == (None, None)


def test_libdrm_eacces_is_a_permission_and_other_codes_name_nothing():
    line = "amdgpu_device_initialize: amdgpu_query_info(ACCEL_WORKING) failed (-13)"
    assert _top(line) == ("device-permission", "libdrm-amdgpu-accel-working-eacces")
    assert _top("_" + line + "\nMESA: error: amdgpu: amdgpu_device_initialize failed.")[0] == "device-permission"
    # -19 (ENODEV) and -22 are other failures: no cause is made up for them
    assert _top(line.replace("-13", "-19")) == (None, None)
    assert _top(line.replace("-13", "-22")) == (None, None)
    assert _top("amdgpu_device_initialize: AMDGPU_INFO_ACCEL_WORKING = 0") == (
        "gpu-not-initialized", "libdrm-amdgpu-accel-not-working")


def test_rocblas_no_code_objects_reads_the_gfx_and_stays_generic():
    ms = explain_text("rocBLAS warning: No paths matched /opt/rocm/lib/rocblas/library/*gfx1031*co. Make sure that "
                      "ROCBLAS_TENSILE_LIBPATH is set correctly.")
    assert ms[0].id == "gpu-arch-unsupported" and ms[0].signature == "rocblas-no-code-objects-for-gpu-arch"
    assert ms[0].captures.get("gfx") == "gfx1031"
    # a line of the same log that names the failure outranks the warning: here hipBLASLt's wording of the same target
    ms = explain_text("rocBLAS warning: No paths matched /x/library/*gfx906*co. Make sure that ROCBLAS_TENSILE_LIBPATH "
                      "is set correctly.\nHIP error: invalid device function")
    assert ms[0].signature == "hip-invalid-device-function"


@pytest.mark.parametrize("text", [
    "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
    "ggml_metal_graph_compute: command buffer 0 failed with status 5\n"
    "error: Insufficient Memory (00000008:kIOAccelCommandBufferCallbackErrorOutOfMemory)",
    "libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution "
    "failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
])
def test_metal_out_of_memory_status(text):
    assert _top(text) == ("gpu-out-of-memory", "metal-command-buffer-out-of-memory")


def test_metal_ignoring_work_after_earlier_errors_names_no_cause():
    assert _top("error: Ignored (for causing prior/excessive GPU errors) "
                "(00000004:kIOAccelCommandBufferCallbackErrorSubmissionsIgnored)") == (None, None)


@pytest.mark.parametrize("text", [
    "RuntimeError: [metal::malloc] Attempting to allocate 17179869184 bytes which is greater than the maximum allowed "
    "buffer size of 14302248960 bytes.",
    "RuntimeError: [metal::malloc] Unable to allocate 18874368000 bytes.",
    "libc++abi: terminating due to uncaught exception of type std::runtime_error: [malloc_or_wait] Unable to allocate "
    "134217728 bytes.",
])
def test_mlx_allocator_forms(text):
    assert _top(text) == ("gpu-out-of-memory", "mlx-metal-allocator-refused")


def test_other_programs_unable_to_allocate_is_not_mlx():
    assert _top("Unable to allocate 1.2 GiB for an array with shape (1000, 1000) and data type float64")[1] != (
        "mlx-metal-allocator-refused")


@pytest.mark.parametrize("text", [
    "MPSNDArray.mm:724: failed assertion `[MPSNDArray initWithDevice:descriptor:] Error: total bytes of NDArray > 2**32'",
    "MPSNDArray.mm:850: failed assertion `[MPSNDArray initWithDevice:descriptor:isTextureBacked:] Error: total bytes of "
    "NDArray > 2**32'",
    "MPSNDArray.mm:705: failed assertion `[MPSTemporaryNDArray initWithDevice:descriptor:] Error: product of dimension "
    "sizes > 2**31'",
    "MPSNDArray.mm:829: failed assertion `[MPSNDArray initWithDevice:descriptor:isTextureBacked:] Error: NDArray "
    "dimension length > INT_MAX'",
    "RuntimeError: MPSGaph does not support tensor dims larger than INT_MAX",
])
def test_mps_ndarray_size_limit_forms(text):
    assert _top(text) == ("mps-op-unsupported", "mps-ndarray-size-limit")


def test_mps_int64_cast_warnings_name_no_cause():
    assert _top("UserWarning: MPS: no support for int64 reduction ops, casting it to int32 (Triggered internally at "
                "/Users/runner/work/pytorch/aten/src/ATen/native/mps/operations/ReduceOps.mm:144.)") == (None, None)


# -- a cause whose title names NVIDIA, on another vendor's log
def test_vendor_title_on_an_amd_log_and_the_nvidia_title_on_an_nvidia_log():
    amd = _cli("ROCk module is NOT loaded, possibly no GPU devices\n")
    assert amd[0]["id"] == "no-gpu-driver" and "NVIDIA" not in amd[0]["title"]
    kfd = _cli("[    4.324747] kfd kfd: skipped device 1002:699f, PCI rejects atomics\n")
    assert kfd[0]["id"] == "gpu-not-initialized" and "NVIDIA" not in kfd[0]["title"]
    assert kfd[0]["fixes"] and "atomics" in kfd[0]["fixes"][0]
    nv = _cli("NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:742)\n"
              "NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n")
    assert nv and nv[0]["id"] == "gpu-not-initialized" and "NVIDIA" in nv[0]["title"]


def test_a_vendor_title_that_names_nvidia_is_refused():
    data = json.loads(json.dumps(load_matrix().table("errors")))
    cause = next(c for c in data["cause"] if c["id"] == "gpu-not-initialized")
    cause["vendor_title"] = "The NVIDIA driver did not bring the GPU up"
    assert any("vendor_title" in p for p in validate_kb(data, compile_check=False))
    cause["vendor_title"] = "The GPU's kernel driver did not bring the GPU up"
    assert not any("vendor_title" in p for p in validate_kb(data, compile_check=False))


# -- batch vlogs21p-2: a Jetson's GPU memory manager refused this process (L4T's libnvrm_mem, /dev/nvmap root:video)
DEV2 = os.path.join(HERE, "data", "logs", "vlogs21p-2")
HELD2 = os.path.join(ROOT, "heldout", "vlogs21p-2")
DEV2_ROWS = log_readme_rows(DEV2)


def test_jetson_batch_listing_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV2, HELD2, min_dev=7, min_held=4, min_total=11, min_healthy=2, held_listed=True)
    assert {r[1] for r in held} == {"device-permission", "none"}


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV2_ROWS], ids=[r[0] for r in DEV2_ROWS])
def test_jetson_dev_log_top1(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV2, name)), name, label, {})


def test_jetson_nvmap_permission_and_not_another_errno():
    text = ("NvRmMemInitNvmap failed with Permission denied\n549: Memory Manager Not supported\n"
            "****NvRmMemInit failed**** error type: 196626\n")
    assert _top(text) == ("device-permission", "jetson-nvmap-permission-denied")
    # the node missing (a container started without it) is not a permission: the process sees no GPU (vfam25, from
    # fresh samples: tests/data/logs/vfam25 family 4)
    assert _top(text.replace("Permission denied", "No such file or directory")) == ("no-gpu-visible",
                                                                                      "jetson-nvmap-node-missing")
    # the headless EGL warning of Jetson's multimedia stack is noise
    assert _top("nvbuf_utils: Could not get EGL display connection") == (None, None)
