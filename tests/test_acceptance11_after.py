"""What was changed after heldout/acceptance11's blind score (so not blind): each test uses the real lines of a
public thread (cited) and would fail before the change."""

from __future__ import annotations

from envcheck.explain.document import explain_text_document


def _doc(text):
    return explain_text_document(text)


_LIGHTNING = ("\t- OS:                Darwin\n\t- architecture:\n\t\t- 64bit\n\t\t- \n\t- processor:         i386\n"
              "\t- python:            3.9.13\n\t- version:           Darwin Kernel Version 22.1.0: Sun Oct  9 20:14:30 PDT "
              "2022; root:xnu-8792.41.9~2/RELEASE_ARM64_T8103\n")


def test_an_arm64_darwin_kernel_beside_processor_i386_is_python_under_rosetta():
    # Lightning-AI/pytorch-lightning#16124: the report of the failing VS Code notebook
    acc = _doc(_LIGHTNING)["facts"].get("accelerator") or {}
    assert acc.get("apple_silicon") is True and acc.get("rosetta") is True


def test_an_arm_python_or_an_intel_mac_is_no_rosetta():
    acc = _doc(_LIGHTNING.replace("i386", "arm"))["facts"].get("accelerator") or {}
    assert acc.get("rosetta") is False
    intel = _LIGHTNING.replace("RELEASE_ARM64_T8103", "RELEASE_X86_64")
    acc = _doc(intel)["facts"].get("accelerator") or {}
    assert acc.get("rosetta") is not True and acc.get("apple_silicon") is not True


# invoke-ai/InvokeAI#3967 (an RX 6600 XT, gfx1032, under torch 2.2.1+rocm5.7): the ROCm check script's last lines
_ROCM_CHECK = ("torch version = 2.2.1+rocm5.7\ncuda available = True\n"
               "Everything fine! You can run PyTorch code inside of: \n"
               "--->  AMD Ryzen 9 3950X 16-Core Processor  \n--->  gfx1032\n")


def test_the_rocm_check_scripts_gfx_agent_is_an_amd_gpu_and_its_cpu_agent_is_not():
    doc = _doc(_ROCM_CHECK)
    gpus = doc["facts"]["gpus"]
    assert [(g.get("vendor"), g.get("gfx")) for g in gpus] == [("amd", "gfx1032")]
    # gfx1032 is not among the targets of torch 2.2.1's ROCm 5.7 build (compat_matrix/rocm.toml)
    assert [m["id"] for m in doc["matches"]][:1] == ["gpu-arch-unsupported"]


def test_the_rocm_check_script_without_its_heading_or_a_gfx_agent_reads_nothing():
    assert not _doc("--->  gfx1032\n")["facts"].get("gpus")
    only_cpu = "Everything fine! You can run PyTorch code inside of: \n--->  AMD Ryzen 9 3950X 16-Core Processor\n"
    assert not _doc(only_cpu)["facts"].get("gpus")


def test_processor_i386_without_darwin_near_is_no_fact():
    # a report that does not show macOS: "i386" says nothing of the Python's architecture there (not read at all)
    from envcheck.paste import read_report

    block = "\t- OS:                {}\n\t- processor:         i386\n\t- python:            3.9.13\n"
    assert "platform.processor()" in read_report(block.format("Darwin")).formats
    assert "platform.processor()" not in read_report(block.format("Linux")).formats
