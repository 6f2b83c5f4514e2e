"""What was changed after heldout/acceptance13's blind score (so not blind): each test uses the real lines of a public
thread (cited; the whole texts are in heldout/acceptance13) and would fail before the change, with a control beside it
that must stay as it was."""

from __future__ import annotations

from pathlib import Path

from envcheck.explain.document import explain_text_document

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "heldout" / "acceptance13"


def _top(text: str):
    matches = explain_text_document(text)["matches"]
    return (matches[0]["id"], matches[0].get("signature")) if matches else (None, None)


def _ids(text: str):
    return [m["id"] for m in explain_text_document(text)["matches"]]


def test_ort_provider_refused_with_typographic_quotes_is_the_cpu_package():
    # microsoft/onnxruntime#26996: onnxruntime and onnxruntime-gpu installed together, the message as a rich-text copy
    line = ("Specified provider \u2018CUDAExecutionProvider\u2019 is not in available provider names. Available "
            "providers: \u2018AzureExecutionProvider, CPUExecutionProvider\u2019\n")
    assert _top(line) == ("framework-cpu-only", "ort-cuda-provider-not-available")
    assert _top(line.replace("\u2018", "'").replace("\u2019", "'"))[0] == "framework-cpu-only"
    # another provider refused is not the CUDA one
    assert _top(line.replace("CUDAExecutionProvider\u2019 is", "TensorrtExecutionProvider\u2019 is"))[0] is None


def test_ptx_toolchain_sentence_retyped_with_another_verb():
    # wilicc/gpu-burn#112's title: "the provided PTX was complied with an unsupported toolchain"
    assert _top("gpu_burn-drv.cpp 239 the provided PTX was complied with an unsupported toolchain\n")[0] == \
        "driver-too-old"
    assert _top("the toolchain is not supported here\n")[0] is None


def test_mps_op_support_added_in_a_later_macos_is_the_os():
    # pytorch/pytorch#96610 (torch 2.0's wording; macOS 13.3 cured it) against the bare op message (torch before it)
    with_floor = ("RuntimeError: MPS does not support cumsum op with int64 input. Support has been added in macOS "
                  "13.3\n")
    assert _top(with_floor) == ("mps-os-too-old", "mps-op-support-added-in-macos")
    assert _ids("RuntimeError: MPS does not support cumsum op with int64 input\n")[:1] == ["mps-op-unsupported"]


def test_xid_79_in_the_kernel_log_is_a_gpu_the_driver_lost():
    # wilicc/gpu-burn#1 (heldout/acceptance13): a PCIe Surprise Down, then Xid 79
    text = (SET / "logs" / "gpu-burn-1-tesla-pcie-surprise-down-xid-79-fallen-off-bus.log").read_text(encoding="utf-8")
    assert _top(text) == ("gpu-not-initialized", "nvrm-xid-79-fallen-off-the-bus")
    # another Xid (13: a graphics engine exception, a program's fault) is not this
    assert _top("NVRM: Xid (PCI:0000:02:00): 13, Graphics Exception\n")[0] is None
    # the anchor now shared with the kernel module's version line: that line still reads
    assert _top("NVRM: API mismatch: the client has the version 535.54.03, but\nNVRM: this kernel module has the "
                "version 530.30.02.  Please make sure that this kernel module and all NVIDIA driver components\n")[0] \
        == "driver-library-mismatch"


def test_an_older_oneapi_loader_without_the_symbol_version_torch_xpu_needs():
    # PufferAI/PufferLib#213: /opt/intel/compiler/2025.1's libur_loader.so.0 ahead of torch XPU's own
    line = ("ImportError: /opt/intel/compiler/2025.1/lib/libur_loader.so.0: version `LIBUR_LOADER_0.10' not found "
            "(required by /usr/local/lib/python3.12/dist-packages/torch/lib/../../../../libsycl.so.8)\n")
    assert _top(line) == ("oneapi-runtime-missing", "symbol-version-not-found-in-lib")
    # glibc's C++ runtime of another release is no GPU-stack cause
    assert _top("ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by "
                "/opt/conda/lib/libfoo.so)\n")[0] is None
