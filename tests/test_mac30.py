"""Session 18, helper mac30: Apple-silicon architecture mismatches and CUDA-only packages asked of a Mac.

* macOS dyld refusing an x86_64 Python extension module or libtorch dylib in an arm64 process ("(mach-o file, but is
  an incompatible architecture (have 'x86_64', need 'arm64'))", errors.toml
  ``dyld-incompatible-architecture-have-x86_64-need-arm64-python-module``) and the linker ignoring an x86_64 libtorch
  in an arm64 link (ld64's "building for macOS-arm64 but attempting to link with file built for macOS-x86_64", ld-prime's
  "found architecture 'x86_64', required architecture 'arm64'": ``ld-ignoring-x86_64-libtorch-for-arm64``) are
  ``python-arch-mismatch``; another program's file (a Ruby gem, an iOS-simulator archive) is not read.
* A conda / pixi solver finding no CUDA-only package (pytorch-cuda, pytorch-gpu) names ``framework-vendor-mismatch``,
  and TensorFlow's "compiled to use AVX instructions, but these aren't available on your machine" (an x86_64 TensorFlow
  emulated on Apple silicon) ``python-arch-mismatch``, only where the text shows a Mac (says ``mac-only``,
  engine.vendors.cuda_check_speaks); elsewhere the first is a channel problem and the second an old CPU.

Samples: tests/data/pastes/mac30 (README cites each thread); heldout/mac30-held was set aside before the rules.
"""

from __future__ import annotations

import os

import pytest

from envcheck.engine.vendors import cuda_check_speaks
from envcheck.explain.document import explain_text_document
from helpers import check_paste_top_is_label, paste_readme_rows, paste_top

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "pastes", "mac30")
ROWS = paste_readme_rows(DATA)
#: samples the rules do not reach, and why (kept, not hidden)
UNREACHED = {
    "controlnet-150-cudatoolkit-11.3-mac-mini-m2.txt":
        "conda's list item '- cudatoolkit=11.3' holds no prefilter anchor (the cover is at its 100-anchor limit)",
}


def _top(text: str) -> str:
    return paste_top(explain_text_document(text))


@pytest.mark.parametrize("name", sorted(ROWS))
def test_dev_thread_top_cause_is_its_label(name):
    check_paste_top_is_label(DATA, name, ROWS[name][0], UNREACHED)


def test_the_readme_lists_every_sample_and_the_controls():
    on_disk = {f for f in os.listdir(DATA) if f.endswith(".txt")}
    assert on_disk == set(ROWS)
    assert sum(1 for label, _ in ROWS.values() if label == "none") >= 4


# -- dyld: an x86_64 module in an arm64 process ---------------------------------------------------------------------
_DYLD = ("ImportError: dlopen({p}, 0x0002): tried: '{p}' (mach-o file, but is an incompatible architecture "
         "(have 'x86_64', need '{need}'))")


@pytest.mark.parametrize("path, need, want", [
    # smart-test-ti/SoloX#275: psutil's abi3 module in python.org's 3.12
    ("/Library/Frameworks/Python.framework/Versions/3.12/lib/python3.12/site-packages/psutil/_psutil_osx.abi3.so",
     "arm64", "python-arch-mismatch"),
    # malcolmw/pykonal#24: Apple's /usr/bin Python asks for arm64e
    ("/Users/u/pykonal/pykonal/solver.cpython-310-darwin.so", "arm64e", "python-arch-mismatch"),
    # invoke-ai/InvokeAI#2152: torch's own dylib
    ("/Users/u/invokeai/.venv/lib/python3.10/site-packages/torch/lib/libtorch_global_deps.dylib", "arm64",
     "python-arch-mismatch"),
    # MeilCli/danger-action#819: a Ruby gem's bundle is no Python environment
    ("/Users/u/vendor/bundle/ruby/3.2.0/gems/ffi-1.15.5/lib/ffi_c.bundle", "arm64", "none"),
])
def test_dyld_x86_64_module_in_an_arm64_python(path, need, want):
    assert _top(_DYLD.format(p=path, need=need)) == want


def test_the_bare_dyld_sentence_without_a_file_names_nothing():
    # donn/nudelta#27: an app's error with no file named - no Python environment shown
    assert _top("(mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64'))") == "none"


# -- ld: an x86_64 libtorch linked for arm64 --------------------------------------------------------------------------
@pytest.mark.parametrize("line, want", [
    # LaurentMazare/tch-rs#881 (ld-prime's wording)
    ("ld: warning: ignoring file '/Users/u/micromamba/envs/demo/lib/python3.10/site-packages/torch/lib/libc10.dylib': "
     "found architecture 'x86_64', required architecture 'arm64'", "python-arch-mismatch"),
    # pytorch/pytorch#63558 (ld64's wording)
    ("ld: warning: ignoring file ../libtorch/lib/libtorch_cpu.dylib, building for macOS-arm64 but attempting to link "
     "with file built for macOS-x86_64", "python-arch-mismatch"),
    # heapwolf/socket#718: an iOS-simulator archive of another project
    ("ld: warning: ignoring file '/Users/u/socket/build/ios-simulator/lib/libsocket-runtime.a[15](platform.o)': "
     "found architecture 'x86_64', required architecture 'arm64'", "none"),
    # heapwolf/socket#718's ld-prime wording with LibTorch-Lite's static libtorch.a (the iOS-simulator link of
    # abdelaziz-mahdy/pytorch_lite#74, constructed for this test): an iOS app's library, no Mac torch environment
    ("ld: warning: ignoring file '/Users/u/app/ios/Pods/LibTorch-Lite/install/lib/libtorch.a[2](empty.cpp.o)': found "
     "architecture 'x86_64', required architecture 'arm64'", "none"),
    # the other direction (an arm64 libtorch in an x86_64 link) is not this wording
    ("ld: warning: ignoring file '/Users/u/libtorch/lib/libtorch.dylib': found architecture 'arm64', required "
     "architecture 'x86_64'", "none"),
])
def test_ld_x86_64_libtorch_for_arm64(line, want):
    assert _top(line) == want


# -- a solver finding no CUDA-only package ----------------------------------------------------------------------------
_LIBMAMBA = ("Platform: {platform}\nCollecting package metadata (repodata.json): done\nSolving environment: failed\n\n"
             "LibMambaUnsatisfiableError: Encountered problems while solving:\n"
             "  - nothing provides cuda 11.7.* needed by pytorch-cuda-11.7-h67b0de4_0\n")


def test_no_cuda_package_on_a_mac_is_cuda_asked_of_a_mac():
    # guoyww/AnimateDiff#293, myshell-ai/OpenVoice#38
    assert _top(_LIBMAMBA.format(platform="osx-arm64")) == "framework-vendor-mismatch"


def test_no_cuda_package_on_linux_is_not_a_vendor_mismatch():
    # the same solver failure on linux-64 is a channel / pin problem, not CUDA asked of a Mac
    assert _top(_LIBMAMBA.format(platform="linux-64")) != "framework-vendor-mismatch"


def test_pixi_no_candidates_for_pytorch_gpu_on_osx_arm64():
    text = ("  × failed to solve the conda requirements of 'default' 'osx-arm64'\n"
            "  ╰─▶ Cannot solve the request because of: No candidates were found for pytorch-gpu >=2.4.0,<3.\n")
    assert _top(text) == "framework-vendor-mismatch"
    doc = explain_text_document(text)
    fixes = " ".join(doc["matches"][0]["fixes"])
    assert "osx-arm64" in fixes and "MPS" in fixes


@pytest.mark.parametrize("facts, speaks", [
    ({"apple_mac": "osx"}, True),
    ({}, False),                                           # nothing shows a Mac: no cause from the line
    ({"apple_mac": "osx", "nvidia_gpu": "RTX 4090"}, False),  # an NVIDIA GPU named: not the Mac's
    ({"amd_gpu": "RX 7900 XTX"}, False),                   # an AMD Linux box has pytorch-cuda builds: no vendor reading
    ({"apple_mac": "mac address"}, False),                 # a network MAC address is no Mac
])
def test_cuda_package_unsolvable_speaks_only_for_a_mac(facts, speaks):
    assert cuda_check_speaks(("mac-only",), None, facts) is speaks


# -- TensorFlow's AVX check -------------------------------------------------------------------------------------------
_AVX = ("2023-10-04 18:53:33.551479: F tensorflow/core/platform/cpu_feature_guard.cc:37] The TensorFlow library was "
        "compiled to use {isa} instructions, but these aren't available on your machine.\n"
        "qemu: uncaught target signal 6 (Aborted) - core dumped\n")


@pytest.mark.parametrize("where, isa, want", [
    ("Running the docker image on my Mac M2:\n", "AVX", "python-arch-mismatch"),      # google-research/kubric#288
    ("Support for M1 mac\n", "AVX", "python-arch-mismatch"),                           # acil-bwh/ChestImagingPlatform#51
    ("Is there a list to match Kubuntu 17.10.1 and a HP Probook 4330S?\n", "AVX2", "none"),  # tensorflow#6896: old CPU
    ("", "AVX", "none"),                                                                  # no machine shown: no cause
])
def test_tf_avx_check_is_an_emulated_x86_64_tensorflow_only_on_a_mac(where, isa, want):
    assert _top(where + _AVX.format(isa=isa)) == want


def test_tf_avx_notice_that_the_build_could_use_more_is_not_the_check():
    # lablup/backend.ai-kernels#51: the "wasn't compiled to use ... but these are available" notice, on a Mac too
    text = ("My MacBook Pro M1:\nW tensorflow/core/platform/cpu_feature_guard.cc:45] The TensorFlow library wasn't "
            "compiled to use AVX instructions, but these are available on your machine and could speed up CPU "
            "computations.\n")
    assert _top(text) == "none"
