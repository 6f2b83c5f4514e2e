"""Session 15's own changes outside the helpers' rounds: each test uses real lines of a public thread (cited) and
would fail before the change, with a control beside it that must stay as it was."""

from __future__ import annotations

from envcheck.explain.document import explain_text_document


def _top(text: str):
    matches = explain_text_document(text)["matches"]
    return matches[0]["id"] if matches else None


def test_rminitadapter_failed_line_alone_is_gpu_not_initialized():
    # the kernel module's banner (open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osinit.c:
    # "RmInitAdapter failed! (0x%x:0x%x:%d)"), pasted without the "rm_init_adapter failed, device minor number" line
    # that follows it in dmesg: Bumblebee-Project/Bumblebee#722 and NVIDIA/gpu-operator#1146
    assert _top("[87669.726564] NVRM: RmInitAdapter failed! (0x26:0xffff:1375)\n") == "gpu-not-initialized"
    assert _top("[  903.610907] NVRM: GPU 0000:98:00.0: RmInitAdapter failed! (0x62:0x65:1792)\n") == (
        "gpu-not-initialized")
    # NVIDIA/open-gpu-kernel-modules#326: the title alone names it, above the issue template
    assert _top("# RmInitAdapter failed!\n### NVIDIA Open GPU Kernel Modules Version\n515.57\n") == "gpu-not-initialized"
    # the other line alone still reads as before (NVIDIA/gpu-operator#649)
    assert _top("NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n") == "gpu-not-initialized"
