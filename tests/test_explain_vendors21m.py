"""Batch 21m of issue 21's vendor error logs: `envcheck explain` on real ROCm (rocminfo's "ROCk module is NOT loaded",
its HSA init failure, ROCm-on-WSL's "ROCR: unsupported GPU", the SMI tools' module check), Intel (PyTorch's "Torch not
compiled with XPU enabled", SYCL's device-not-found codes) and Apple MPS (the dtype conversion PyTorch refuses) logs
(tests/data/logs/vendors21m; its README lists file, label and source). The rules are keyed on the emitting source's
own text (rocminfo.cc, torch/xpu/__init__.py, ATen's mps/OperationUtils.mm, Unified Runtime / PI enum names). The
held-back part (heldout/vendors21m-logs, split off first by scripts/split_vendor_batch.py logs 21m) is scored with
scripts/score_explain.py only, never asserted here."""

import os
import sys

import pytest

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (  # noqa: E402
    CONTRACT_IDS, NVIDIA_ADVICE, assert_top_is_label, check_no_nvidia_only_advice, explain_file,
    log_readme_rows,
)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "vendors21m")
HELD = os.path.join(ROOT, "heldout", "vendors21m-logs")
DEV_ROWS = log_readme_rows(DEV)


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    files = sorted(f for f in os.listdir(DEV) if f.endswith(".log"))
    assert sorted(r[0] for r in DEV_ROWS) == files and len(files) == 22
    held = sorted(f for f in os.listdir(HELD) if f.endswith(".log"))
    assert len(held) == 11 and not set(held) & set(files)
    for _, label, source in DEV_ROWS:
        assert label == "none" or label in CONTRACT_IDS, label
        assert source.startswith("https://") or "find_string id" in source, source


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS])
def test_dev_log_top1(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV, name)), name, label, {})


@pytest.mark.parametrize("name", [r[0] for r in DEV_ROWS if r[1] != "none"])
def test_no_nvidia_only_advice_on_these_logs(name):
    check_no_nvidia_only_advice(os.path.join(DEV, name))


@pytest.mark.parametrize("dtype", ["Float8_e4m3fn", "Float8_e5m2", "UInt16", "UInt32", "ComplexFloat", "BFloat16"])
def test_every_dtype_pytorch_refuses_on_mps(dtype):
    # the TORCH_CHECK_TYPE of getMPSScalarType / getMPSDataType, whatever dtype it names
    line = f"TypeError: Trying to convert {dtype} to the MPS backend but it does not have support for that dtype."
    ms = explain_text(line)
    assert ms and ms[0].id == "mps-op-unsupported" and ms[0].captures.get("dtype") == dtype, [(m.id, m.captures) for m in ms]
    assert not any("PYTORCH_ENABLE_MPS_FALLBACK=1 in the environment" in f for f in ms[0].fixes[:1])


def test_rock_not_loaded_outranks_rocminfos_hsa_init_failure_and_an_amd_line_above_it():
    text = ("AMD Radeon RX 7900 XTX on ROCm 6.2\n"
            "ROCk module is NOT loaded, possibly no GPU devices\n"
            "Unable to open /dev/kfd read-write: No such file or directory\n"
            "hsa api call failure at: /src/rocminfo/rocminfo.cc:1142\n"
            "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\n")
    ms = explain_text(text)
    assert ms and ms[0].id == "no-gpu-driver", [(m.id, m.score) for m in ms]
    assert "framework-vendor-mismatch" not in [m.id for m in ms]
    assert any("/dev/kfd" in f for f in ms[0].fixes)
    # the same AMD line above NVIDIA's own "no driver" keeps its meaning (a build for another vendor)
    ms = explain_text("AMD Radeon RX 7900 XTX on ROCm 6.2\nRuntimeError: Found no NVIDIA driver on your system.\n")
    assert ms and ms[0].id == "framework-vendor-mismatch", [(m.id, m.score) for m in ms]


@pytest.mark.parametrize("line,want", [
    ("AssertionError: Torch not compiled with XPU enabled", "framework-vendor-mismatch"),
    ("RuntimeError: No device of requested type available. Please check https://software.intel.com/content/www/us/en/"
     "develop/articles/intel-oneapi-dpcpp-system-requirements.html -1 (PI_ERROR_DEVICE_NOT_FOUND)", "no-gpu-visible"),
    ("RuntimeError: level_zero backend failed with error: 19 (UR_RESULT_ERROR_DEVICE_NOT_FOUND)", "no-gpu-visible"),
    ("ROCR: unsupported GPU", "gpu-arch-unsupported"),
])
def test_source_keyed_wordings(line, want):
    ms = explain_text(line)
    assert ms and ms[0].id == want, [(m.id, m.evidence) for m in ms]


@pytest.mark.parametrize("text", [
    # SYCL's bare sentence: vLLM / triton-xpu bugs throw it with the GPUs present (no rule for it)
    "terminate called after throwing an instance of 'sycl::_V1::exception'\n  what():  No device of requested type available.",
    # rocm-smi's / amd-smi's module check: W&B runs it on NVIDIA nodes, WSL and Windows have no amdgpu module
    "ERROR:root:Driver not initialized (amdgpu not found in modules)",
    "ERROR:root:Drivers not loaded (amdgpu, amd_hsmp, ionic, bnxt_en drivers not found in modules)",
    # HIP's illegal address: a kernel's own bug, like CUDA's
    "torch.AcceleratorError: HIP error: an illegal memory access was encountered",
    # not the dtype refusal
    "Trying to convert the model to MPS backend now",
    # Level Zero's own OUT_OF_DEVICE_MEMORY: compute-runtime returns it for any failed submission (a refused
    # peer-to-peer copy in every real log found), so no cause is named for it
    "a Level-Zero direct device-to-device copy between the two cards returns 0x70000003 "
    "(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY) instead of performing the peer copy",
])
def test_no_cause_for_noise_and_bugs(text):
    assert explain_text(text) == []


DEV2 = os.path.join(HERE, "data", "logs", "vendors21m-2")


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in log_readme_rows(DEV2)])
def test_second_batch_hipblas_alloc_failed(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV2, name)), name, label, {})


@pytest.mark.parametrize("line", [
    "RuntimeError: CUDA error: HIPBLAS_STATUS_ALLOC_FAILED when calling `hipblasCreate(handle)`",
    "RuntimeError: miopenStatusAllocFailed",
    "rocblas_status_memory_error",
])
def test_rocm_math_library_allocation_statuses_are_out_of_memory_with_amd_advice(line):
    ms = explain_text(line)
    assert ms and ms[0].id == "gpu-out-of-memory", [(m.id, m.evidence) for m in ms]
    assert "HIPBLAS_WORKSPACE_CONFIG" in ms[0].fixes[0]
    assert not any(NVIDIA_ADVICE.search(t) for t in ms[0].fixes + ms[0].dead_ends)
