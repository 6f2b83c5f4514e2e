"""`envcheck explain` on NVIDIA error logs sampled as users bring them (issue 20, logs21t): one generic query per app
(vLLM, SGLang, ollama, llama.cpp, ComfyUI, diffusers, TensorRT / TensorRT-LLM, onnxruntime-gpu, PaddlePaddle, DeepSpeed,
bitsandbytes, xformers, flash-attention, Triton, CuPy, Numba, JAX, TensorFlow, PyTorch), the first threads it returned,
plus healthy controls (tests/data/logs/logs21t; its README lists file, label, source and the queries). Most failures of
such a sample have no contract id (a launch-parameter bug, CUDA error 999 / 30 / -1, "operation not supported"): their
label is ``none`` and explain must say nothing of them. The rules written from the working part, each read from the
emitting source's own format string:

* ``no-gpu-visible``: Ollama's CUDA runtime probe "Unable to load cudart ... library <path>: cudart init failure: 100"
  (gpu_info_cudart.c: cudaSetDevice(0) returned 100, cudaErrorNoDevice; 38 before CUDA 10.1);
* ``cudnn-bad-param``: glog's CHECK around a cuDNN call with the bare status number, TensorFlow's cuda_dnn.cc and Caffe's
  CUDNN_CHECK ("... == CUDNN_STATUS_SUCCESS (3 vs. 0)"; 3 is CUDNN_STATUS_BAD_PARAM, 9 CUDNN_STATUS_NOT_SUPPORTED).

The held-back part (heldout/logs21t, split by scripts/split_log_batch.py before any rule) is scored by
scripts/score_explain.py, never asserted here."""

import os
import sys

import pytest

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import assert_leads_with_own_fix, assert_top_is_label, check_log_batch, check_section_signatures, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
BATCH = "logs21t"
DEV = os.path.join(HERE, "data", "logs", BATCH)
HELD = os.path.join(ROOT, "heldout", BATCH)
DEV_ROWS = log_readme_rows(DEV)
#: working-part logs the rules do not get right, and what explain says instead (each asserted: a change shows here).
#: bitsandbytes#420: its only bitsandbytes line names libbitsandbytes_cudaNone.so (cuda_setup/main.py of 0.3x: libcudart
#: found but not loadable), which holds no prefilter anchor (the cover list is at its bound of 100);
#: jax#11828: the TSL stub's "cudaGetErrorString symbol not found" (libcudart not loaded) - the thread's cause, a CUDA
#: version mismatch fixed through PATH, is not what the line says, so no rule;
#: Linly#45: bitsandbytes' "CUDA Setup failed despite GPU being available" alone, read by the older generic rule as a
#: CPU-only bitsandbytes (its usual cause) where the text states none
KNOWN_MISSES = {"bitsandbytes-420-libbitsandbytes-cudanone-torch20-cu117.log": None,
                "jax-11828-source-build-cudageterrorstring-symbol-not-found.log": None,
                "linly-45-bitsandbytes-cuda-setup-failed-despite-gpu.log": "framework-cpu-only"}
NEW_SIGNATURES = ("ollama-cudart-init-failure-no-device", "glog-check-cudnn-status-bad-param-number")
SECTION = "# logs21t (issue 20): NVIDIA error logs sampled as users bring them"


def _read(name, folder=DEV):
    with open(os.path.join(folder, name), encoding="utf-8") as fh:
        return fh.read()


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV, HELD, min_dev=31, min_held=17, min_total=48, min_healthy=8, min_none=20,
                           held_listed=True)
    # the sample's shape: 40 failures, 8 controls, at most 4 threads of one repository, every log begins with its title
    rows = DEV_ROWS + held
    assert sum(1 for r in rows if r[0].startswith("healthy-")) == 8 and len(rows) == 48
    repos = [r[2].split("/")[3] + "/" + r[2].split("/")[4] for r in rows]
    assert max(repos.count(x) for x in repos) <= 4
    for folder, part in ((DEV, DEV_ROWS), (HELD, held)):
        for r in part:
            assert _read(r[0], folder).startswith("# "), r[0]


def test_no_thread_is_in_the_batch_nor_in_an_earlier_set():
    urls = [r[2] for r in DEV_ROWS + log_readme_rows(HELD)]
    assert len(urls) == len(set(urls))
    earlier = set()
    for base in (os.path.join(HERE, "data", "logs"), os.path.join(ROOT, "heldout")):
        for folder in os.listdir(base):
            path = os.path.join(base, folder)
            if folder != BATCH and os.path.exists(os.path.join(path, "README.md")):
                earlier |= {r[2] for r in log_readme_rows(path)}
    assert not set(urls) & earlier


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(name, label, source):
    assert_top_is_label(explain_text(_read(name)), name, label, KNOWN_MISSES)


@pytest.mark.parametrize("name,signature", [
    ("ollama-3904-cudart-init-failure-100-latitude.log", "ollama-cudart-init-failure-no-device"),
    ("tf-61649-cudnn-set-tensor-nd-descriptor-spatial-zero-tf21.log", "glog-check-cudnn-status-bad-param-number"),
])
def test_dev_logs_lead_with_their_own_fix(name, signature):
    assert_leads_with_own_fix(explain_text(_read(name)), signature)


@pytest.mark.parametrize("text,signature", [
    # Ollama's later wording of the probe (0.1.3x+: "Unable to load cudart library"), and 38 (cudaErrorNoDevice before
    # CUDA 10.1 renumbered it) in the older one
    ('time=2024-06-01T10:00:00.000Z level=INFO source=gpu.go:517 msg="Unable to load cudart library '
     '/usr/lib/ollama/libcudart.so.12.4.99: cudart init failure: 100"', "ollama-cudart-init-failure-no-device"),
    ('level=INFO source=gpu.go:343 msg="Unable to load cudart CUDA management library '
     '/usr/local/cuda/lib64/libcudart.so.10.0.130: cudart init failure: 38"', "ollama-cudart-init-failure-no-device"),
    # TensorFlow's pooling descriptor (find_string id 33717483018) and Caffe's CUDNN_CHECK with the name after it
    # (find_string id 21821253787); 9 is CUDNN_STATUS_NOT_SUPPORTED
    ("Check failed: cudnnSetPoolingNdDescriptor( handle_.get(), (pooling_descriptor.mode() == "
     "dnn::PoolingMode::kMaximum ? cudnn_max_pooling_mode : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING), "
     "propagate_nans ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN, nd, shape.data(), padding.data(), strides.data()) "
     "== CUDNN_STATUS_SUCCESS (3 vs. 0)", "glog-check-cudnn-status-bad-param-number"),
    ("F0829 09:36:36.046618 26766 cudnn.hpp:128] Check failed: status == CUDNN_STATUS_SUCCESS (9 vs. 0)",
     "glog-check-cudnn-status-bad-param-number"),
])
def test_source_wordings_lead_with_their_own_fix(text, signature):
    assert_leads_with_own_fix(explain_text(text), signature)


@pytest.mark.parametrize("text", [
    # Ollama's probe with numbers that are no missing device (3: initialization error, 999: unknown), and its
    # successful probe
    'msg="Unable to load cudart CUDA management library /tmp/ollama1/runners/cuda_v11/libcudart.so.11.0: cudart init '
    'failure: 3"',
    'msg="Unable to load cudart library /usr/lib/ollama/libcudart.so.12.4.99: cudart init failure: 999"',
    'msg="Unable to load cudart library /usr/lib/ollama/libcudart.so.12.4.99: cudart init failure: 1000"',
    'level=INFO source=gpu.go:101 msg="detected GPUs" library=C:\\Ollama\\cudart64_110.dll count=1',
    # a cuDNN check that passed, another glog check with (3 vs. 0), and cuDNN 9's four-digit statuses
    "Check failed: mem_size > 0 (3 vs. 0)",
    "Check failed: error == cudaSuccess (3 vs. 0)  initialization error",
    "Check failed: status == CUDNN_STATUS_SUCCESS (3000 vs. 0)",
])
def test_healthy_and_unrelated_lines_stay_silent(text):
    assert all(m.id not in ("no-gpu-visible", "cudnn-bad-param") for m in explain_text(text))


def test_new_signatures_live_in_this_section_and_hold_a_prefilter_anchor():
    check_section_signatures(SECTION, NEW_SIGNATURES)


def test_caffes_form_with_the_status_name_stays_with_the_names_rule():
    """Caffe's CUDNN_CHECK prints the status's name after the numbers: the rule of that name reads the line (the numeric
    rule only where no name follows), so its evidence stays what it was."""
    for text, signature in (("Check failed: status == CUDNN_STATUS_SUCCESS (3 vs. 0)  CUDNN_STATUS_BAD_PARAM",
                             "bad-param"),
                            ("Check failed: status == CUDNN_STATUS_SUCCESS (9 vs. 0) CUDNN_STATUS_NOT_SUPPORTED",
                             "cudnn-not-supported")):
        m = explain_text(text)
        assert m and m[0].id == "cudnn-bad-param" and m[0].signature == signature, [(x.id, x.signature) for x in m]
