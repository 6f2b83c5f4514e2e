"""`envcheck explain` on whole logs as users paste them (issue 20, logs20o): training runs with ``[rank0]:`` prefixes,
retrying loops interleaved with progress bars, CI collection errors, IPython tracebacks, ``docker build`` / ``docker
compose`` sessions, Ollama server logs pasted as one line, Windows consoles; NVIDIA and AMD, with healthy controls that
mention failures in passing (tests/data/logs/logs20o; its README lists file, label and source). The families keyed on
the emitting source's own text:

* no evidence (``kind = "veto"``): PyTorch's cuDNN v8 API warning "Plan failed with a cudnnException" (Conv_v8.cpp warns
  for each plan cuDNN rejects and goes on; only "... unable to find an engine" is the failure);
* ``gpu-arch-unsupported``: HIP's hipErrorInvalidImage string "device kernel image is invalid" (ROCm CLR hip_error.cpp);
  Ollama 0.1.x-0.3's "amdgpu [N] gfxNNNN is not supported by <libdir> [targets]" (gpu/amd_linux.go, amd_windows.go).

The held-back part (heldout/logs20o, split by scripts/split_log_batch.py before the rules) is scored by
scripts/score_explain.py, never asserted here."""

import os
import sys

import pytest

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (check_section_signatures, earlier_log_threads, assert_leads_with_own_fix, assert_top_is_label, check_log_batch, column_wrap,  # noqa: E402
                     log_readme_rows)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
BATCHES = ("logs20o",)
DEV = {b: os.path.join(HERE, "data", "logs", b) for b in BATCHES}
HELD = {b: os.path.join(ROOT, "heldout", b) for b in BATCHES}
DEV_ROWS = [(b,) + r for b in BATCHES for r in log_readme_rows(DEV[b])]
#: dev logs the rules do not get right, and what explain says instead (each asserted: a change shows here)
KNOWN_MISSES = {
    # bitsandbytes 0.39 on Windows loading its CPU library ("bin ...\\libbitsandbytes_cpu.so"): no line of the excerpt
    # holds a prefilter anchor but the CUDA-setup warnings, which say nothing of a CPU-only build themselves
    "bitsandbytes-512-windows-cpu-library-warnings.log": None,
}
NEW_SIGNATURES = ("torch-cudnn-v8-plan-failed-warning", "hip-invalid-kernel-image",
                  "ollama-amdgpu-gfx-not-supported-by-libdir")
#: the section of errors.toml these rules live in (other helpers append theirs after it)
SECTION = "# 2026-11-27 (logs20o)"


def _read(name, batch="logs20o"):
    with open(os.path.join(DEV[batch], name), encoding="utf-8") as fh:
        return fh.read()


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    check_log_batch(DEV["logs20o"], HELD["logs20o"], min_dev=19, min_held=9, min_healthy=3, held_listed=True)


def test_no_thread_is_in_the_batch_nor_in_an_earlier_set():
    urls = [r[2] for b in BATCHES for r in log_readme_rows(DEV[b]) + log_readme_rows(HELD[b])]
    assert len(urls) == len(set(urls))
    assert not set(urls) & earlier_log_threads(BATCHES)


@pytest.mark.parametrize("batch,name,label,source", DEV_ROWS, ids=[r[1] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(batch, name, label, source):
    assert_top_is_label(explain_text(_read(name, batch)), name, label, KNOWN_MISSES)


@pytest.mark.parametrize("name,signature", [
    ("comfyui-zluda-431-gfx1031-hip-invalid-image.log", "hip-invalid-kernel-image"),
    ("ollama-2503-rx5600-amdgpu-version-warn-then-gfx1010.log", "ollama-amdgpu-gfx-not-supported-by-libdir"),
])
def test_each_new_wording_leads_with_its_own_fix(name, signature):
    """The top match's evidence is the new wording's line and its own fix comes first."""
    assert_leads_with_own_fix(explain_text(_read(name)), signature)


@pytest.mark.parametrize("text,signature", [
    # hipErrorInvalidImage: torch's "HIP error: ...", llama.cpp / Ollama's ggml "ROCm error: ...", the enum name
    ("RuntimeError: HIP error: device kernel image is invalid", "hip-invalid-kernel-image"),
    ("ggml_cuda_compute_forward: ADD failed\nROCm error: device kernel image is invalid", "hip-invalid-kernel-image"),
    (":3:hip_module.cpp :83 : 5212044 us: hipModuleLoadData: Returned hipErrorInvalidImage :",
     "hip-invalid-kernel-image"),
    # Ollama's older AMD discovery: the Linux index form, the later GPU-id-first form, with and without its list
    ('time=2024-04-02T10:00:00.000Z level=WARN source=amd_linux.go:296 msg="amdgpu [0] gfx1032 is not supported by '
     '/tmp/ollama1234/rocm [gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942]"',
     "ollama-amdgpu-gfx-not-supported-by-libdir"),
    ('level=WARN source=amd_linux.go:341 msg="[1] amdgpu gfx1103 is not supported by /usr/lib/ollama [gfx1030 '
     'gfx1100]"', "ollama-amdgpu-gfx-not-supported-by-libdir"),
])
def test_source_wordings_lead_with_their_own_fix(text, signature):
    assert_leads_with_own_fix(explain_text(text), signature)


@pytest.mark.parametrize("text", [
    # the cuDNN v8 plan warning in its forms (torch 2.2 / 2.3, forward and backward), alone and with its source line
    "/usr/lib/python3/site-packages/torch/nn/modules/conv.py:456: UserWarning: Plan failed with a cudnnException: "
    "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED "
    "(Triggered internally at ../aten/src/ATen/native/cudnn/Conv_v8.cpp:919.)\n"
    "  return F.conv2d(input, weight, bias, self.stride,",
    "UserWarning: Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor "
    "Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED",
    # Ollama's lines of a GPU it does use, its override hint and its harmless driver-version notice
    'msg="amdgpu [0] gfx1030 is supported"',
    'level=WARN source=amd_linux.go:58 msg="See https://github.com/ollama/ollama/blob/main/docs/troubleshooting.md '
    'for HSA_OVERRIDE_GFX_VERSION usage"',
    # other things "not supported by" something
    "WARNING: the option --foo is not supported by this version of gcc",
    "This feature is not supported by the current device (gfx1030): falling back",
])
def test_healthy_and_unrelated_lines_stay_silent(text):
    assert explain_text(text) == []


def test_the_plan_warning_does_not_hide_the_failure_after_it():
    """The veto covers the warning's own lines only: a real log's failure after it still leads."""
    warning = _read("healthy-pytorch-121834-plan-failed-cudnn-docker.log")
    oom = _read("sd-scripts-2029-grep-uniq-rank0-oom.log")
    assert explain_text(warning + oom)[0].id == "gpu-out-of-memory"
    no_engine = "RuntimeError: GET was unable to find an engine to execute this computation"
    assert explain_text(warning + no_engine)[0].evidence.endswith(no_engine.split(": ", 1)[1])


def test_new_signatures_live_in_this_section_and_hold_a_prefilter_anchor():
    check_section_signatures(SECTION, NEW_SIGNATURES)


#: real logs whose key line a terminal's column cuts before a capital, an underscore, a single space or after a space
#: (the cases the lower-case-only mending missed), each with its label (its README's)
WRAPPED = [
    ("new", "torch-titan-black-cc35-min-37.log", "gpu-arch-unsupported", 100),
    ("new", "torch-rtx-a6000-sm86-userwarning-compute37.log", "gpu-arch-unsupported", 100),
    ("logs20i", "mt3-145-jax-cuda-backend-failed-unable-to-load-cuda.log", "cuda-runtime-missing", 100),
    ("vlogs21o-2", "rocblaslt-cannot-read-gfx1030-hip6.2-zluda-sdnext4574.log", "gpu-arch-unsupported", 100),
    ("logs20o-2", "tf-models-10440-colab-cudnn-805-vs-810.log", "cudnn-version-mismatch", 100),
    ("logs20d", "comfyui-gguf-282-b580-ur-out-of-device-memory.log", "gpu-out-of-memory", 100),
    ("logs20f", "insightface-rest-84-trt-plan-8.2.3-got-8.2.1.log", "tensorrt-engine-mismatch", 100),
    # the column fell just before the space between two words: the next piece starts with one space
    ("logs20h", "mxnet-260-please-compile-with-cuda-enabled.log", "framework-cpu-only", 80),
    ("new2", "paddleocr-docker-cudnn-7.6-vs-7.5.log", "cudnn-version-mismatch", 80),
    ("logs20e", "torch-40563-apex-nvcc-11.0-vs-torch-1.5.1.log", "cuda-toolkit-mismatch", 80),
    ("logs20j", "gpustack-1540-vllm-error-804.log", "forward-compat-unsupported", 100),
]


@pytest.mark.parametrize("folder,name,label,width", WRAPPED, ids=[w[1] for w in WRAPPED])
def test_a_key_line_cut_at_the_terminal_column_is_still_read(folder, name, label, width):
    with open(os.path.join(HERE, "data", "logs", folder, name), encoding="utf-8") as fh:
        text = fh.read()
    assert explain_text(text)[0].id == label  # the log as posted
    wrapped = column_wrap(text, width)
    assert wrapped != text
    matches = explain_text(wrapped)
    assert matches and matches[0].id == label, [(m.id, m.evidence) for m in matches[:3]]
    # the same through the reader of a file (bytes, the RE2 path where it is installed)
    from envcheck.explain import explain_lines
    from envcheck.explain.reader import iter_lines
    import io
    got = explain_lines(iter_lines(io.BytesIO(wrapped.encode("utf-8"))))
    assert got and got[0].id == label


@pytest.mark.parametrize("width", [80, 100, 120])
def test_controls_cut_at_any_column_stay_silent(width):
    """A join across a column cut is taken only where the joined text holds a wording neither half holds: the healthy
    logs of these batches stay silent however they are cut."""
    names = [(b, r[0]) for b in ("logs20o", "logs20o-2") for r in log_readme_rows(os.path.join(HERE, "data", "logs", b))
             if r[1] == "none"]
    assert len(names) >= 5
    for batch, name in names:
        with open(os.path.join(HERE, "data", "logs", batch, name), encoding="utf-8") as fh:
            text = fh.read()
        got = explain_text(column_wrap(text, width))
        if (name, width) in KNOWN_WRAP_MISSES:  # recorded, so that a fix (or a new wrong answer) is seen
            assert got and got[0].id == KNOWN_WRAP_MISSES[(name, width)]
            continue
        assert got == [], (name, width, [(m.id, m.evidence) for m in got])


#: a control that a column cut still turns into a finding: at 100 columns the cuDNN v8 plan warning is cut after
#: "Plan failed with a" - the rest starts with a space (not tried: indentation would stop the fast path on most lines)
#: and its CUDNN_STATUS_NOT_SUPPORTED lands two lines below, past what the warning's veto covers. (The same before the
#: column-cut mending: not a regression of it.)
KNOWN_WRAP_MISSES = {("healthy-pytorch-121834-plan-failed-cudnn-docker.log", 100): "cudnn-bad-param"}
