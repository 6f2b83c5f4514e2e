"""dml38 (session 23): DirectML's out-of-memory wordings - torch-directml, ONNX Runtime's DirectML execution provider,
TensorFlow-DirectML and the web UIs on them (lshqqytiger's AMD fork, SD.Next, ComfyUI, Fooocus) on Windows GPUs of any
vendor.

Real threads in tests/data/dml38/logs and tests/data/dml38/pastes (README: file, label, source); a third of the
collection was held back in heldout/dml38-held before any rule was written (scored by scripts/score_explain.py and
scripts/score_pastes.py, never asserted here). What the rules read (compat_matrix/errors.toml):

* torch-directml-not-enough-video-memory (vlogs21s' signature, widened): "Could not allocate tensor with XXXXXXXX
  bytes" - the size redacted as users title their issues - and "There is not enough GPU video memory available" alone;
* directml-e-outofmemory-not-enough-memory-resources (block ``# ---- dml38 ----``): E_OUTOFMEMORY (8007000E) "Not
  enough memory resources are available to complete this operation" from the DirectML EP's allocator;
* gpu-out-of-vram-said (the same block, generic): the video memory said to run out ("it runs out of VRAM"), an error
  shown / caused / claiming it ("the console shows Out Of Memory (OOM) errors"), the reporter's yes to "Out of memory?";
* gpu-out-of-memory-denied-or-supposed (the veto) no longer reads the web UI's "Hires. fix" as a fix of OOM.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (COVER_BOUND, check_dev_sample, check_literals_hold, check_no_nvidia_only_advice,  # noqa: E402
                     check_paste_top_is_label, check_split_listing, errors_section_names, explain_cli_matches,
                     sample_rows, top_id_signature)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV_LOGS = os.path.join(HERE, "data", "dml38", "logs")
DEV_PASTES = os.path.join(HERE, "data", "dml38", "pastes")
HELD_LOGS = os.path.join(ROOT, "heldout", "dml38-held", "logs")
HELD_PASTES = os.path.join(ROOT, "heldout", "dml38-held", "pastes")
SPENT = os.path.join(ROOT, "heldout")

LOG_ROWS = sample_rows(DEV_LOGS, ".log")
PASTE_ROWS = sample_rows(DEV_PASTES, ".txt")


def test_listing():
    check_split_listing(DEV_LOGS, HELD_LOGS, ".log", min_dev=9, min_held=4, min_none=3)
    check_split_listing(DEV_PASTES, HELD_PASTES, ".txt", min_dev=4, min_held=4, min_none=3, min_held_none=2)


@pytest.mark.parametrize("name,label,source", LOG_ROWS, ids=[r[0][:60] for r in LOG_ROWS])
def test_dev_log(name, label, source):
    check_dev_sample(os.path.join(DEV_LOGS, name), label)


@pytest.mark.parametrize("name,label,source", PASTE_ROWS, ids=[r[0][:60] for r in PASTE_ROWS])
def test_dev_paste(name, label, source):
    check_paste_top_is_label(DEV_PASTES, name, label, {})


# real lines (each from a thread named in tests/data/dml38, heldout/acceptance26 or errors.toml's comments)
@pytest.mark.parametrize("text,signature", [
    # vladmandic/sdnext#2916, #3025, Comfy-Org/ComfyUI#6168, #2075: the size redacted in an issue's title
    ('# [Issue]: "RuntimeError: Could not allocate tensor with XXXXXXXX bytes"', "torch-directml-not-enough-video-memory"),
    ('# [Issue]: "Could not allocate tensor with XXXXXXXXX bytes."', "torch-directml-not-enough-video-memory"),
    ("# DirectML - Could not allocate tensor with xxx bytes. There is not enough GPU video memory available!",
     "torch-directml-not-enough-video-memory"),
    # lshqqytiger/stable-diffusion-webui-amdgpu#27: the full message, as before
    ("RuntimeError: Could not allocate tensor with 4719616 bytes. There is not enough GPU video memory available!",
     "torch-directml-not-enough-video-memory"),
    # huggingface/diffusers#552 (a comment), #791 (title), microsoft/Olive#1079 (title)
    ("2022-10-18 13:56:21.2822368 [E:onnxruntime:, sequential_executor.cc:369 onnxruntime::SequentialExecutor::Execute] "
     "Non-zero status code returned while running MemcpyToHost node. Name:'Memcpy_token_29' Status Message: "
     "D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\dml\\DmlExecutionProvider\\src\\MLOperatorAuthorImpl.cpp(1978)"
     "\\onnxruntime_pybind11_state.pyd!00007FFBDC8EBB9F: (caller: 00007FFBDCFFDEFF) Exception(3) tid(4304) 8007000E Not "
     "enough memory resources are available to complete this operation.",
     "directml-e-outofmemory-not-enough-memory-resources"),
    ("# 8007000E Not enough memory resources are available to complete this operation.",
     "directml-e-outofmemory-not-enough-memory-resources"),
    ("# Exception while running SD XL: Not enough memory resources are available to complete this operation",
     "directml-e-outofmemory-not-enough-memory-resources"),
    # lshqqytiger/stable-diffusion-webui-amdgpu#267, #354; brianfitzgerald/style_aligned_comfy#2;
    # AUTOMATIC1111/stable-diffusion-webui#17060; intel/intel-extension-for-pytorch#360
    ("So when i try to generate a image it runs out of VRAM in the middle and the generation is stopped.",
     "gpu-out-of-vram-said"),
    ("I have an RX 7800 XT, which has 16GB of VRAM. Anything above 640x360 spits out an error claiming to be out of "
     "VRAM.", "gpu-out-of-vram-said"),
    ("Hi sir, i just tried your extension today and it works. But it causes frequent out of memory errors, at least on "
     "DirectML, as that's what i use.", "gpu-out-of-vram-said"),
    ("the console shows Out Of Memory (OOM) errors (e.g., \"Could not allocate tensor...\") or sometimes a NaN error",
     "gpu-out-of-vram-said"),
    ("yes, out of memory issue and crash after switching model ", "gpu-out-of-vram-said"),
])
def test_line_reads(text, signature):
    assert top_id_signature(text) == ("gpu-out-of-memory", signature)


def test_hires_fix_is_no_fix_of_oom():
    # AUTOMATIC1111/stable-diffusion-webui#17060's title: "Hires. fix" is the web UI's upscaling pass, not a fix
    assert top_id_signature("# [Bug]: SDXL Hires. fix Fails with OOM (Out Of Memory) on Intel Arc (DirectML)")[0] == \
        "gpu-out-of-memory"
    assert top_id_signature("SDXL Hires fix fails with OOM on the GPU")[0] == "gpu-out-of-memory"
    # a fix of OOM stays no failure (the veto's own examples, in its new branch)
    for text in ("Fix OOM when loading the model on the GPU", "fixed the CUDA OOM in the sampler",
                 "This PR fixes potential OOM in the VAE decoder"):
        assert top_id_signature(text)[0] is None, text


@pytest.mark.parametrize("text", [
    # torch-directml's CPU fallback of an operator it lacks (microsoft/DirectML#724, #372, #665): a warning
    "UserWarning: The operator 'aten::multinomial' is not currently supported on the DML backend and will fall back to "
    "run on the CPU. This may have performance implications.",
    # ONNX Runtime's DML EP disables the memory pattern (onnxruntime#6970, pythoninoffice/amd_webui#14): informational
    "Having memory pattern enabled is not supported while using the DML Execution Provider. So disabling it for this "
    "session since it uses the DML Execution Provider.",
    # Windows' host-memory sentence (ERROR_NOT_ENOUGH_MEMORY) is not DirectML's E_OUTOFMEMORY
    "OSError: [WinError 8] Not enough memory resources are available to process this command",
    # advice and hypotheticals about running out of VRAM
    "If it runs out of VRAM, lower the resolution.",
    "I should have enough VRAM to generate a 512x512 image without running out of VRAM.",
    "May I know the error details on your platform? Out of memory?",
    # code that tests for DirectML's message (a program's own OOM handling)
    '        if "not enough GPU video memory" in repr(e) and MODEL_NAME != "x":',
])
def test_not_out_of_memory(text):
    assert top_id_signature(text)[0] != "gpu-out-of-memory", text


def test_device_suspended_alone_names_no_cause():
    # DXGI's 887A0005 under the DML EP (onnxruntime#22700): no cause established in the thread
    text = ("[ONNXRuntimeError] : 1 : FAIL : D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\dml\\DmlExecutionProvider"
            "\\src\\ExecutionProvider.cpp(962)\\onnxruntime_pybind11_state.pyd!00007FFABA30B0B1: (caller: "
            "00007FFABA30B740) Exception(3) tid(5a68) 887A0005 The GPU device instance has been suspended. Use "
            "GetDeviceRemovedReason to determine the appropriate action.")
    assert top_id_signature(text)[0] is None


def test_literals_hold_and_cover():
    from envcheck.explain.kb import load_kb

    names = errors_section_names("# ---- dml38 ----", "# ---- ") | {"torch-directml-not-enough-video-memory"}
    lines = [
        "RuntimeError: Could not allocate tensor with 530841600 bytes. There is not enough GPU video memory available!",
        "Could not allocate tensor with XXXXXXXX bytes",
        "There is not enough GPU video memory available!",
        "Exception(1) tid(4790) 8007000E Not enough memory resources are available to complete this operation.",
        "it runs out of VRAM in the middle",
        "the console shows Out Of Memory (OOM) errors",
        "yes, out of memory issue and crash",
    ]
    seen = check_literals_hold(names, lines, cover=False)
    assert seen == names
    # every literal holds an anchor of the cover, and the cover stays at its size of main (127): "out of " replaced
    # "out of memory" as the anchor ("out-of-memory" and " oom" are anchors of their own since before dml38)
    kb = load_kb()
    for sig in (s for s in kb.signatures if s.name in names):
        for lit in sig.literals:
            assert any(a in lit for a in kb.cover), (sig.name, lit)
    assert "out of " in kb.cover and "out of memory" not in kb.cover
    assert len(kb.cover) <= COVER_BOUND


@pytest.mark.parametrize("path,label", [
    ("acceptance26/logs/stable-diffusion-webui-17060-intel-arc-a770-16gb-directml-windows-11-sdxl-hires-fix-out-of-"
     "memory-could-not-allocate-tensor.log", "gpu-out-of-memory"),
    ("acceptance26/pastes/ipex-360-windows-10-acer-swift-3x-i5-1135g7-iris-xe-80eu-plus-xe-max-4gb-directml-out-of-"
     "memory-crash.txt", "gpu-out-of-memory"),
])
def test_spent_set_misses_now_read(path, label):
    matches = explain_cli_matches("--no-detect", os.path.join(SPENT, path))
    assert matches and matches[0]["id"] == label, [(m["id"], m["score"]) for m in matches]


def test_intel_arc_named_gets_no_nvidia_only_advice(tmp_path):
    # AUTOMATIC1111/stable-diffusion-webui#17060: an Intel Arc A770 under DirectML - its out-of-memory fixes speak of
    # no nvidia-smi (the Arc the text names, readers/linux_kernel.py, makes the log Intel's as a report's would)
    log = os.path.join(SPENT, "acceptance26", "logs", "stable-diffusion-webui-17060-intel-arc-a770-16gb-directml-"
                       "windows-11-sdxl-hires-fix-out-of-memory-could-not-allocate-tensor.log")
    check_no_nvidia_only_advice(log, exit_codes=(0, 1, 2, 3, 4, 5))
    # the same failure said beside an NVIDIA GPU keeps its nvidia-smi advice
    text = tmp_path / "nv.log"
    text.write_text("Windows 11, GeForce RTX 3060 12GB\nthe console shows Out Of Memory (OOM) errors\n", encoding="utf-8")
    matches = explain_cli_matches("--no-detect", str(text))
    assert matches and matches[0]["id"] == "gpu-out-of-memory"
    assert any("nvidia-smi" in f for f in matches[0]["fixes"]), matches[0]["fixes"]
