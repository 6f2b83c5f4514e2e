"""amdkm39 (session 23): AMD's amdgpu kernel driver not built or not loaded, and healthy HSA override runs.

Real threads in tests/data/amdkm39 (README: file, label, source); about a third of the collection was held back in
heldout/amdkm39-held/logs before any rule was written (scored by scripts/score_explain.py, never asserted here beyond
its listing). What the rules read:

* errors.toml's amdkm39 block: DKMS failing to build AMD's amdgpu module (DKMS's "Consult /var/lib/dkms/amdgpu/...",
  amdgpu-install's "amdgpu dkms failed for running kernel", dpkg's "error processing package amdgpu-dkms", "dkms
  autoinstall on ... failed for amdgpu", the make.log's header) and the module refusing to load ("could not insert
  'amdgpu': Unknown symbol in module", "amdgpu: Unknown symbol amd_iommu_... (err -2)"): no-gpu-driver in the AMD
  vendor's wording; NVIDIA's DKMS failure keeps its own rule;
* envcheck/paste/readers/prose_vendor.py ``gpu-run-measured``: a measured run on the GPU (a throughput, a benchmark's
  timings, a test passed on it), with which envcheck/engine/vendors_prose.py ``amd_gpu_asked`` reads a title or
  sentence about a gfx target's support as no failure.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (check_section_literals, check_split_listing, explain_cli_matches, sample_rows,  # noqa: E402
                     top_id_signature)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "amdkm39")
HELD = os.path.join(ROOT, "heldout", "amdkm39-held", "logs")
SPENT = os.path.join(ROOT, "heldout", "acceptance27")
SIGNATURES = ("amdgpu-dkms-module-build-failed", "amdgpu-module-unknown-symbol")

DEV_ROWS = sample_rows(DEV, ".log")


def test_listing():
    check_split_listing(DEV, HELD, ".log", min_dev=10, min_held=4, min_none=5, min_held_none=1)


def test_block_literals_hold_and_no_new_anchor():
    matched = check_section_literals("# ---- amdkm39 ----", SIGNATURES, [], [DEV])
    assert set(SIGNATURES) <= matched


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0][:60] for r in DEV_ROWS])
def test_dev_thread(name, label, source):
    matches = explain_cli_matches("--no-detect", os.path.join(DEV, name))
    if label == "none":
        assert matches == [], [(m["id"], m["evidence"]) for m in matches]
        return
    assert matches and matches[0]["id"] == label, [(m["id"], m["score"], m["evidence"]) for m in matches]
    assert matches[0]["fixes"]


@pytest.mark.parametrize("name", [
    "legacy-rocm-build-2155-centos-8-stream-amdgpu-install-dkms-build-error-dma-resv-seq-missing-ja-make-log.log",
    "legacy-rocm-build-738-rocm-2.2-ubuntu-18.04-rocminfo-4104-no-dev-kfd-amdgpu-unknown-symbol-amd-iommu-dkms-failed.log",
])
def test_spent_logs_are_amd_driver_not_built_or_loaded(name):
    m = explain_cli_matches("--no-detect", os.path.join(SPENT, "logs", name))[0]
    assert m["id"] == "no-gpu-driver" and m["signature"] in SIGNATURES
    # the AMD vendor's wording: no NVIDIA part named in the title or the fix (contract §4, §9)
    assert "NVIDIA" not in m["title"] and "nvidia" not in m["fixes"][0].lower()
    assert "amdgpu" in m["fixes"][0]


def test_spent_paste_dkms_bad_return_status_is_no_gpu_driver():
    m = explain_cli_matches("--no-detect", os.path.join(
        SPENT, "pastes", "rocm-install-on-linux-293-template-ubuntu-24.04-radeon-pro-w7900-rocm-6.2-amdgpu-dkms-bad-"
        "return-status-6.8.0-45.txt"))[0]
    assert m["id"] == "no-gpu-driver" and m["signature"] == "amdgpu-dkms-module-build-failed"
    assert "/var/lib/dkms/amdgpu/6.8.5-2009582.24.04" in m["evidence"]


def test_spent_healthy_hsa_override_benchmark_stays_silent():
    # lamikr/rocm_sdk_builder#111: gfx1103 (780M) rocBLAS runs with and without HSA_OVERRIDE_GFX_VERSION=11.0.2, both
    # completing with timings, under the title "initial gfx1036 and gfx1103 support": nothing failed
    assert explain_cli_matches("--no-detect", os.path.join(
        SPENT, "logs", "healthy-rocm-sdk-builder-pr-111-gfx1103-780m-rocblas-benchmark-with-and-without-hsa-override-"
        "timings.log")) == []


def test_nvidia_dkms_failure_keeps_nvidia_rule():
    m = explain_cli_matches("--no-detect", os.path.join(
        DEV, "open-gpu-kernel-modules-526-nvidia-390-dkms-bad-return-status-zen-kernel-control.log"))[0]
    assert m["signature"] == "dkms-nvidia-module-build-failed"


@pytest.mark.parametrize("line,sig", [
    ("Consult /var/lib/dkms/amdgpu/6.12.12-2164967.24.04/build/make.log for more information.\n",
     "amdgpu-dkms-module-build-failed"),
    ("WARNING: amdgpu dkms failed for running kernel\n", "amdgpu-dkms-module-build-failed"),
    ("dpkg: error processing package amdgpu-dkms (--configure):\n", "amdgpu-dkms-module-build-failed"),
    ("dkms autoinstall on 6.8.0-44-generic/x86_64 failed for amdgpu(10)\n", "amdgpu-dkms-module-build-failed"),
    ("modprobe: ERROR: could not insert 'amdgpu': Unknown symbol in module, or unknown parameter (see dmesg)\n",
     "amdgpu-module-unknown-symbol"),
    ("[    2.700394] amdgpu: Unknown symbol amd_iommu_bind_pasid (err 0)\n", "amdgpu-module-unknown-symbol"),
])
def test_amd_driver_wordings(line, sig):
    assert top_id_signature(line) == ("no-gpu-driver", sig)


@pytest.mark.parametrize("line", [
    # DKMS building another module, the amdgpu module built and installed, the make command of a build in progress
    "Consult /var/lib/dkms/v4l2loopback/0.12.7/build/make.log for more information.\n",
    "amdgpu/6.16.6-2255209.24.04, 6.17.0-8-generic, x86_64: installed (Original modules exist)\n",
    "Building initial module amdgpu/5.18.13-1538762.20.04 for 6.5.0-41-generic\n",
    # another module's unknown symbols; amdgpu's own healthy start-up
    "[Fri Sep 19 11:05:26 2025] apml_sbrmi: Unknown symbol __devm_regmap_init_i3c (err -2)\n",
    "[ 1418.773215] [drm] amdgpu version: 6.16.6\n",
])
def test_near_misses_stay_silent(line):
    assert top_id_signature(line)[1] not in SIGNATURES


@pytest.mark.parametrize("line,measured", [
    ("Test past on 7700XT (Navi32) with 8~9 it/s. (PwrCap=130W)", True),
    ("m,n,k,a_t,b_t,enable_tune,fp32 time (msec),fp16-f32 time (msec)", True),
    ("You can expect around 11-13s/it.", True),
    ("eval rate:            42.17 tokens/s", True),
    # no measurement: a request, a version, a path
    ("Please add support for gfx1103", False),
    ("ROCm 6.2 test suite fails on gfx1103", False),
    ("see https://example.org/docs/s/it", False),
])
def test_gpu_run_measured_evidence(line, measured):
    from envcheck.paste.readers.prose_vendor import line_facts

    got = any(f.field == "seen:gpu-run-measured" for f in line_facts(line, line.lower()))
    assert got is measured


def test_support_request_without_a_measured_run_still_fires():
    from envcheck.engine.vendors_prose import amd_gpu_asked
    from envcheck.matrix import load_matrix

    said = "gfx1151 | # [Feature]: Add gfx1151 builds?"
    m = load_matrix()
    assert amd_gpu_asked(m, {}, {"gpu-support-asked": said}).id == "gpu-arch-unsupported"
    assert amd_gpu_asked(m, {}, {"gpu-support-asked": said, "gpu-run-measured": "8~9 it/s"}) is None
