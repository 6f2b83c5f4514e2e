"""`envcheck explain` on the CUDA runtime's unknown error at initialisation (issue 20, misc20r): PyTorch's "CUDA unknown
error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after
program start. Setting the available devices to be zero." (c10/cuda/CUDAFunctions.cpp, device_count_impl:
cudaGetDeviceCount returned cudaErrorUnknown; caffe2's common_gpu.cc said "Found an unknown error - ..." before) and
XLA's "failed call to cuInit: CUDA_ERROR_UNKNOWN". The id stays ``no-gpu-visible`` (no contract id is certain for the
message alone: nvidia_uvm after a suspend, a driver updated without a reboot, a container's lost device access) and
the wording's own fix says what is known and what to check (tests/data/logs/misc20r; its README lists the sources).

The held-back part (heldout/misc20r) is scored in its README, never asserted here."""

import os
import sys

import pytest

from envcheck.explain import explain_text
from envcheck.explain.kb import load_kb
from envcheck.matrix.fixes import COMMANDS

sys.path.insert(0, os.path.dirname(__file__))
from helpers import assert_leads_with_own_fix, assert_top_is_label, check_log_batch, earlier_log_threads, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "misc20r")
HELD = os.path.join(ROOT, "heldout", "misc20r")
DEV_ROWS = log_readme_rows(DEV)
SIGS = ("torch-cuda-unknown-error-device-count", "cuinit-cuda-error-unknown")
#: the message as c10/cuda/CUDAFunctions.cpp writes it (its string literals joined)
C10 = ("CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable "
       "CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.")


def _read(name):
    with open(os.path.join(DEV, name), encoding="utf-8") as fh:
        return fh.read()


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    check_log_batch(DEV, HELD, min_dev=6, min_held=4, min_healthy=1, held_listed=True)


def test_no_thread_is_in_the_batch_nor_in_an_earlier_set():
    urls = [r[2] for r in log_readme_rows(DEV) + log_readme_rows(HELD)]
    assert not set(urls) & earlier_log_threads(("misc20r",))


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_label(name, label, source):
    assert_top_is_label(explain_text(_read(name)), name, label, {})


@pytest.mark.parametrize("text,signature", [
    # the warning torch.cuda.is_available() prints (torch 1.8+: "Triggered internally at"), alone
    ("/usr/lib/python3.10/site-packages/torch/cuda/__init__.py:174: UserWarning: CUDA initialization: " + C10 +
     " (Triggered internally at /pytorch/c10/cuda/CUDAFunctions.cpp:109.)\n"
     "  return torch._C._cuda_getDeviceCount() > 0", "torch-cuda-unknown-error-device-count"),
    # the RuntimeError of _lazy_init, then torch's "No CUDA GPUs are available" of a later call: the first line leads
    ("RuntimeError: " + C10 + "\nRuntimeError: No CUDA GPUs are available", "torch-cuda-unknown-error-device-count"),
    # the warning, then the program asks for the GPU anyway
    ("UserWarning: CUDA initialization: " + C10 + "\nTraceback (most recent call last):\n"
     "  File \"a.py\", line 3, in <module>\n    x = torch.zeros(1).cuda()\nRuntimeError: No CUDA GPUs are available",
     "torch-cuda-unknown-error-device-count"),
    # hard-wrapped as users paste it (the middle line is whole)
    ("UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment,\n"
     "e.g. changing env variable CUDA_VISIBLE_DEVICES after program start.\n"
     "Setting the available devices to be zero.", "torch-cuda-unknown-error-device-count"),
    # caffe2's wording of the same check (common_gpu.cc)
    ("common_gpu.cc:42 Found an unknown error - this may be due to an incorrectly set up environment, e.g. changing "
     "env variable CUDA_VISIBLE_DEVICES after program start. I will set the available devices to be zero.",
     "torch-cuda-unknown-error-device-count"),
    # XLA / TensorFlow: cuInit's CUresult by name, then JAX's CPU fallback (explained by it, not a CPU-only build)
    ("E external/xla/xla/stream_executor/cuda/cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_UNKNOWN: "
     "unknown error\nNo GPU/TPU found, falling back to CPU.", "cuinit-cuda-error-unknown"),
    ("E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error",
     "cuinit-cuda-error-unknown"),
])
def test_the_family_leads_with_the_unknown_error_fix(text, signature):
    matches = explain_text(text)
    assert_leads_with_own_fix(matches, signature)
    assert all(m.id == "no-gpu-visible" or m.explained_by == "no-gpu-visible" for m in matches), \
        [(m.id, m.explained_by) for m in matches]


def test_the_fix_says_what_is_known_and_what_to_check():
    fix = explain_text("RuntimeError: " + C10)[0].fixes[0]
    for said in ("cudaErrorUnknown", COMMANDS["nvidia-smi"], COMMANDS["reload-nvidia-uvm"], "suspend", "reboot",
                 "container", COMMANDS["dmesg-nvrm-xid"]):
        assert said in fix, said
    # the CUDA_VISIBLE_DEVICES fixes of the cause come after it, not before
    assert "CUDA_VISIBLE_DEVICES" in " ".join(explain_text("RuntimeError: " + C10)[0].fixes[1:])


@pytest.mark.parametrize("text", [
    # CUDA_VISIBLE_DEVICES named in healthy output and prose
    "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]",
    "export CUDA_VISIBLE_DEVICES=0,1 && python train.py",
    "I0000 gpu_device.cc:1700] Adding visible gpu devices: 0",
    "Note: changing CUDA_VISIBLE_DEVICES after program start has no effect on torch once CUDA is initialised.",
    # other cuInit results are other causes' (or none): not this wording
    "failed call to cuInit: CUDA_SUCCESS",
])
def test_healthy_and_unrelated_lines_do_not_say_the_unknown_error(text):
    assert not any(m.signature in SIGS for m in explain_text(text))


def test_the_new_wordings_live_in_their_own_section_and_anchor():
    kb = load_kb()
    names = {s.name for s in kb.signatures}
    assert set(SIGS) <= names
    with open(os.path.join(ROOT, "compat_matrix", "errors.toml"), encoding="utf-8") as fh:
        toml = fh.read()
    section = toml.split("# 2026-11-27 (misc20r)", 1)[1]
    for sig in SIGS:
        assert f'name = "{sig}"' in section
    # "visible" is an anchor of the prefilter: both literals under it need no anchor of their own
    assert "visible" in kb.cover and "no visible gpu devices" not in kb.cover
