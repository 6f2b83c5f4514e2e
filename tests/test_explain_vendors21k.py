"""Batch 21k of issue 21's vendor error logs: `envcheck explain` on real Intel oneAPI / XPU, rocBLAS and Apple MPS
logs (tests/data/logs/vendors21k; its README lists file, label and source). The held-back part
(heldout/vendors21k-logs, split off first by scripts/split_vendor_batch.py logs 21k) is scored with scripts/score_explain.py
only, never asserted here."""

import os
import sys

import pytest

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_log_batch, check_no_nvidia_only_advice, explain_file, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "vendors21k")
HELD = os.path.join(ROOT, "heldout", "vendors21k-logs")
DEV_ROWS = log_readme_rows(DEV)


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    check_log_batch(DEV, HELD, min_dev=15, min_held=7, labels_txt=False, one_log_per_thread=False)
    assert len(DEV_ROWS) == 15 and len([f for f in os.listdir(HELD) if f.endswith(".log")]) == 7


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS])
def test_dev_log_top1(name, label):
    matches = explain_file(os.path.join(DEV, name))
    if label == "none":
        assert matches == [], [(m.id, m.evidence) for m in matches]
        return
    assert matches and matches[0].id == label, [(m.id, m.score, m.evidence) for m in matches]


@pytest.mark.parametrize("name", [r[0] for r in DEV_ROWS])
def test_no_nvidia_only_advice_on_these_logs(name):
    check_no_nvidia_only_advice(os.path.join(DEV, name))


@pytest.mark.parametrize("line", [
    "ImportError: libsycl.so.8: cannot open shared object file: No such file or directory",
    "./a.out: error while loading shared libraries: libsycl.so.7: cannot open shared object file: No such file or directory",
    "OSError: libmkl_sycl_blas.so.5: cannot open shared object file: No such file or directory",
    "ImportError: libimf.so: cannot open shared object file: No such file or directory",
])
def test_oneapi_runtime_libraries(line):
    ms = explain_text(line)
    assert ms and ms[0].id == "oneapi-runtime-missing", [(m.id, m.evidence) for m in ms]
    assert any("setvars" in f for f in ms[0].fixes)


@pytest.mark.parametrize("line", [
    # names that only look like oneAPI's: another library, the Level Zero loader (its own cause)
    "ImportError: libsyclone.so.1: cannot open shared object file: No such file or directory",
    "ImportError: libze_loader.so.1: cannot open shared object file: No such file or directory",
])
def test_not_oneapi_runtime(line):
    assert not any(m.id == "oneapi-runtime-missing" for m in explain_text(line))


def test_rocblas_library_folder_missing_is_not_a_target_without_kernels():
    log = os.path.join(HERE, "data", "logs", "vendors21j", "rocblas-tensile-cwd-relative-no-such-file-prebuilt.log")
    ms = explain_file(log)
    assert ms[0].id == "rocm-runtime-missing" and ms[0].captures.get("path") == "./rocblas/library"
    # the form that names the target and lists the files rocBLAS has stays a target without kernels
    ms = explain_text("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or "
                      "directory for GPU arch : gfx1036\n List of available TensileLibrary Files : ")
    assert ms[0].id == "gpu-arch-unsupported"
