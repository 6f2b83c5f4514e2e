"""Lead, session 9: the kernel module's refusal of a GPU at probe, and ORT's wording of TensorRT's device check.

The NVRM texts are nv_printf's own, as open-gpu-kernel-modules' src/nvidia/arch/nvalloc/unix/src/osapi.c
(rm_is_supported_device) writes them over several "NVRM:" lines, and as pasted re-wrapped or cut; the TensorRT line is
onnxruntime's C# wording (a period where TensorRT's C++ message has a comma)."""

from __future__ import annotations

import pytest

from envcheck.explain.document import explain_text_document

GSP = ("[ 1157.046099] NVRM: The NVIDIA GPU 0000:af:00.0 (PCI ID: 10de:1db5)\n"
       "               NVRM: installed in this system is not supported by open\n"
       "               NVRM: nvidia.ko because it does not include the required GPU\n"
       "               NVRM: System Processor (GSP).\n"
       "               NVRM: Please see the 'Open Linux Kernel Modules' and 'GSP\n")


def _top(text: str):
    ms = explain_text_document(text)["matches"]
    return (ms[0]["id"], ms[0]["fixes"][0]) if ms else (None, "")


@pytest.mark.parametrize("text", [
    GSP,
    # re-wrapped: the first line ends before "is not"
    "NVRM: The NVIDIA GPU 0000:17:00.0 (PCI ID: 10de:1bb3) installed in this system\n"
    "NVRM: is not supported by open nvidia.ko because it does not include the\nNVRM: required GPU System Processor (GSP).\n",
    # cut: only the module line kept
    "NVRM: The NVIDIA GPU 0000:03:00.0 (PCI ID: 10de:1c82)\nNVRM: nvidia.ko because it does not include the required GPU\n"
    "nvidia probe with driver nvidia failed with error -1\n",
    # one line
    "The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1bb1) installed in this system is not supported by open nvidia.ko "
    "because it does not include the required GPU System Processor (GSP).",
    # the release does not know the GPU
    "NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2b85)\nNVRM: installed in this system is not supported by the\n"
    "NVRM: NVIDIA 535.104.05 driver release.\n",
    # a vGPU host
    "NVRM: The NVIDIA GPU 0000:3b:00.0 (PCI ID: 10de:20b5)\nNVRM: installed in this vGPU host system is not supported by\n"
    "NVRM: open nvidia.ko.\n",
])
def test_the_kernel_modules_refusal_is_the_gpu_not_brought_up(text):
    top, fix = _top(text)
    assert top == "gpu-not-initialized", (top, text)
    assert "kernel module" in fix or "driver" in fix


def test_the_gsp_refusal_says_which_flavour_to_install():
    _, fix = _top(GSP)
    assert "Turing" in fix and "proprietary" in fix and "legacy branch" in fix


@pytest.mark.parametrize("text", [
    "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build",
    "nvidia-modeset: Loading NVIDIA UNIX Open Kernel Mode Setting Driver for x86_64  580.95.05",
    "This feature is not supported by OpenCL on this device.",
])
def test_healthy_module_lines_stay_silent(text):
    assert _top(text)[0] is None


@pytest.mark.parametrize("sep", [", ", ". "])
def test_tensorrts_device_check_in_either_wording(sep):
    text = (f"The engine plan file is generated on an incompatible device{sep}expecting compute 7.5 got compute 6.1"
            f"{'. please rebuild.' if sep == '. ' else ', please rebuild.'}")
    ms = explain_text_document(text)["matches"]
    assert ms and ms[0]["id"] == "tensorrt-engine-mismatch"


# -- uv's "no wheel for the current platform" (crates/uv-resolver/src/lock/mod.rs), as pip's no-distribution line ----
UV = ("uv add torch\nUsing CPython {py}\nCreating virtual environment at: .venv\nResolved 23 packages in 7ms\n"
      "error: Distribution `torch==2.5.1 @ registry+https://pypi.org/simple` can't be installed because it doesn't "
      "have a source distribution or wheel for the current platform\n")


def test_uvs_no_wheel_line_is_no_build_for_this_python_when_the_release_has_none():
    doc = explain_text_document(UV.format(py="3.13.1") + "macOS 15.0\n")
    assert doc["facts"]["python"]["version"] == "3.13.1"
    assert doc["matches"] and doc["matches"][0]["id"] == "python-unsupported"


def test_uvs_no_wheel_line_is_dropped_where_the_release_has_wheels_for_the_python():
    # torch 2.5.1 has cp312 wheels on every platform: the Python is not the cause (the platform may be)
    doc = explain_text_document(UV.format(py="3.12.3"))
    assert not [m for m in doc["matches"] if m["id"] == "python-unsupported"], doc["matches"]


def test_uvs_abi_hint_names_the_python():
    text = ("error: Distribution `torch==2.5.1 @ registry+https://pypi.org/simple` can't be installed because it "
            "doesn't have a source distribution or wheel for the current platform\n\nhint: You're using CPython 3.13 "
            "(`cp313`), but `torch` (v2.5.1) only has wheels with the following Python ABI tags: `cp39`, `cp310`, "
            "`cp311`, `cp312`, `none`\n")
    ms = explain_text_document(text)["matches"]
    assert ms and ms[0]["id"] == "python-unsupported"


def test_uvs_line_for_another_package_is_not_a_framework_cause():
    text = ("error: Distribution `pyobjc-core==10.3 @ registry+https://pypi.org/simple` can't be installed because it "
            "doesn't have a source distribution or wheel for the current platform\n")
    assert not explain_text_document(text)["matches"]
