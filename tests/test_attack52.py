"""attack52 (session 24): false statements found in session 24's first merges, each with the smallest fix.

Real texts were tried first (search corpus ``issues``; cited below); constructed probes at the rules' boundaries are said
so at each.

* lead, ``frameworks.cupy`` (cupy_config): CuPy's ``show_config()`` of a ROCm build (CuPy prints its HIP facts under
  the CUDA row names: "CUDA Root : /opt/rocm", "NVRTC Version : (9, 0)" - hipRTC's, "Device 0 Compute Capability : 96"
  - a Vega 20's gcnArch) gave ``facts.frameworks.cupy.nvrtc`` "9.0" and the AMD GPU a CUDA compute capability "9.6".
  REAL: cupy/cupy#4108 (CuPy 8.0.0rc1 on ROCm 3.x, a Vega 20) and cupy/cupy#5961 (CuPy 10.0.0rc1, ROCm 4.5).
* macarch40, ``prose_causes.apple_x86_wheels``: pip's torch list ending at 2.2.2 beside an Apple chip named was "an
  x86_64 Python under Rosetta 2 on an Apple-silicon Mac" also where the text names an Intel Mac as well - the list is
  an Intel Mac's end of wheels there ("It installs fine on my M1 MacBook. Are you on an Intel Mac?", the reporter's
  "mine is a 2019 MacBook Pro with an Intel i7"). Constructed probes (the replies' wording of mindverse/Second-Me#32
  and pytorch/pytorch#161614, which ask "Are you on Intel Mac?"); which Mac failed is unknown, so no cause. The same
  for uv's macOS x86_64 tag (``vendors_prose.apple_python_x86``).
* pastes40, ``prose_lib``'s title that is the library alone ("# libcudnn.so.8"): the library's missing-cause also
  where the body says the library loads fine / is there and asks about something else. Constructed probes (the real
  title, PaddlePaddle/PaddleOCR#11688, has "Can not import paddle core" in its body and still reads
  cuda-runtime-missing: tests/test_pastes40.py); the reader now says ``lib-said-present`` of a line saying a library
  loaded or is there, and engine.prose_causes.lib_said gives a title of that library no cause.
* amdigpu40, prose_vendor's verdicts: a pronoun's verdict of a combination ("speculative decoding, it says always that
  it is not supported with this model" beside a supported RX 6800 XT) and another person's GPU ("My friend's RX 5500
  XT (gfx1012) is marked as not a compatible GPU by LM studio" beside the reporter's working gfx1100) were "the AMD GPU
  is not supported" (gpu-arch-unsupported). Constructed probes at the boundary of the real verdicts
  (likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU#53, lmstudio-ai/lmstudio-bug-tracker#1394), which still read.
"""

from __future__ import annotations

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste import read_report


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


# ------------------------------------------------------------------ lead: CuPy's show_config of a ROCm build (REAL)

# cupy/cupy#4108 (https://github.com/cupy/cupy/pull/4108), leofang's output
CUPY_ROCM_4108 = """\
$ python -c "import cupy; cupy.show_config()"
OS                           : Linux-5.4.0-42-generic-x86_64-with-debian-buster-sid
CuPy Version                 : 8.0.0rc1
NumPy Version                : 1.19.1
SciPy Version                : 1.5.2
CUDA Root                    : /opt/rocm
CUDA Build Version           : 0
CUDA Driver Version          : 313700
CUDA Runtime Version         : 3137
cuBLAS Version               : 22200
cuFFT Version                : 10003839
cuRAND Version               : 201001
cuSOLVER Version             : (3, 5, 0)
cuSPARSE Version             : 0
NVRTC Version                : (9, 0)
Thrust Version               : 100902
CUB Build Version            : 201001
cuDNN Build Version          : None
cuDNN Version                : None
NCCL Build Version           : None
NCCL Runtime Version         : None
cuTENSOR Version             : None
Device 0 Name                : Vega 20
Device 0 Compute Capability  : 96
"""

# cupy/cupy#5961 (https://github.com/cupy/cupy/issues/5961), IvanYashchuk's comment (cut at the device rows)
CUPY_ROCM_5961 = """\
In [2]: cp.show_config()
OS                        : Linux-5.4.0-65-generic-x86_64-with-glibc2.10
Python Version            : 3.8.12
CuPy Version              : 10.0.0rc1
CuPy Platform             : AMD ROCm
NumPy Version             : 1.22.1
SciPy Version             : 1.9.0.dev0+1334.0b4785e
Cython Build Version      : 0.29.27
Cython Runtime Version    : 0.29.27
CUDA Root                 : /opt/rocm-4.5.0/
hipcc PATH                : /opt/rocm-4.5.0/bin/hipcc
CUDA Build Version        : 40421401
CUDA Driver Version       : 40421401
CUDA Runtime Version      : 40421401
cuBLAS Version            : (available)
cuFFT Version             : 100
cuRAND Version            : 201009
cuSOLVER Version          : (3, 15, 0)
cuSPARSE Version          : (available)
NVRTC Version             : (9, 0)
Thrust Version            : 101100
CUB Build Version         : 201012
Jitify Build Version      : None
cuDNN Build Version       : None
cuDNN Version             : None
NCCL Build Version        : 2909
NCCL Runtime Version      : 2909
cuTENSOR Version          : None
cuSPARSELt Build Version  : None
Device 0 Name             :
Device 0 Arch             : gfx906:sramecc+:xnack-
Device 0 PCI Bus ID       : 0000:43:00.0
"""


@pytest.mark.parametrize("text, version, python", [(CUPY_ROCM_4108, "8.0.0rc1", None),
                                                    (CUPY_ROCM_5961, "10.0.0rc1", "3.8.12")],
                         ids=["cupy-4108", "cupy-5961"])
def test_a_rocm_cupys_hip_rows_are_no_cuda_facts(text, version, python):
    facts = read_report(text).facts
    # hipRTC's "(9, 0)" is no NVRTC 9.0, and no CUDA built with, nor loaded
    assert facts["frameworks"] == {"cupy": {"version": version, "cuda": None, "nvrtc": None, "cudnn": None}}
    assert facts["python"]["version"] == python
    assert facts["driver"]["cuda"] is None
    # a Vega 20's gcnArch "96" is no CUDA compute capability 9.6 (the GPU's name stays)
    assert all(g.get("compute_capability") is None for g in facts["gpus"])


def test_a_rocm_cupy_names_its_gpu_without_a_compute_capability():
    assert read_report(CUPY_ROCM_4108).facts["gpus"] == [{"index": 0, "name": "Vega 20", "compute_capability": None}]


# ------------------------------------------------------------------ macarch40: an Intel Mac named too (constructed)

PIP_222 = ("ERROR: Could not find a version that satisfies the requirement torch==2.5.1 (from versions: 1.11.0, 1.12.0, "
           "1.12.1, 1.13.0, 1.13.1, 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, 2.2.2)\n")

MAINTAINER_M1 = PIP_222 + "\nIt installs fine on my M1 MacBook. Are you on an Intel Mac?\n"
REPORTER_INTEL = PIP_222 + "\nWorks on my MacBook Pro M2.\n\nYes, mine is a 2019 MacBook Pro with an Intel i7.\n"
INTEL_IMAC = ("On my M1 MacBook everything works. On the Intel iMac:\n" + PIP_222)
# the Apple-silicon Mac alone (as macarch40's samples): still the x86_64 Python under Rosetta 2
M1_ALONE = "MacBook Air M1, macOS 14.\n" + PIP_222
# an Intel Mac said NOT to be the machine, or said beside Rosetta (jev-chat-jarvis-mac#19's "Intel Mac / Rosetta"):
# still the Rosetta Python
NOT_INTEL = "This is not an Intel Mac, it is a Mac mini M2.\n" + PIP_222
ROSETTA_INTEL = "Mac mini M4. The terminal ran under Rosetta (Intel mode) without me knowing.\n" + PIP_222


# uv's macOS x86_64 tag (vendors_prose.apple_python_x86) with the same replies
UV_X86 = ("hint: You're on macOS (`macosx_15_0_x86_64`), but `torch` (v2.5.1) only has wheels for the following platforms: "
          "`manylinux1_x86_64`, `manylinux_2_17_aarch64`, `macosx_11_0_arm64`, `win_amd64`\n")
UV_ASKED = UV_X86 + "\nIt installs fine on my M1 MacBook. Are you on an Intel Mac?\n"
UV_ANSWERED = UV_X86 + "\nWorks on my MacBook Pro M2.\n\nYes, mine is a 2019 MacBook Pro with an Intel i7.\n"
UV_M1 = "MacBook Air M1.\n" + UV_X86


@pytest.mark.parametrize("text", [MAINTAINER_M1, REPORTER_INTEL, INTEL_IMAC, UV_ASKED, UV_ANSWERED],
                         ids=["asked", "answered", "imac", "uv-asked", "uv-answered"])
def test_an_intel_mac_named_too_is_no_rosetta_python(text):
    assert "python-arch-mismatch" not in _ids(text)


@pytest.mark.parametrize("text", [M1_ALONE, NOT_INTEL, ROSETTA_INTEL, UV_M1], ids=["m1", "not-intel", "rosetta", "uv-m1"])
def test_the_apple_silicon_mac_alone_is_still_the_rosetta_python(text):
    assert _ids(text) == ["python-arch-mismatch"]


# ------------------------------------------------------------------ pastes40: a title of a library that loaded (constructed)

TITLE_LOADS = """\
# libcudnn.so.8
After upgrading to torch 2.0.1 the library loads fine (ldconfig -p | grep cudnn shows libcudnn.so.8 found), but training is 2x slower than before. Is this expected?
"""
TITLE_QUESTION = """\
# `libcudart.so.11.0`
Where does TensorFlow look for libcudart.so.11.0? I have it in /usr/local/cuda-11.0/lib64 and everything works, I just want to understand the search order.
"""
# the same title whose body says the library is missing, or says another library loaded: still the missing library
TITLE_MISSING = """\
# libcudnn.so.8
After upgrading to torch 2.0.1, libcudnn.so.8 not found when I import it.
"""
TITLE_OTHER_LOADS = """\
# libcudnn.so.8
Successfully opened dynamic library libcudart.so.11.0, then it stops.
"""


@pytest.mark.parametrize("text", [TITLE_LOADS, TITLE_QUESTION], ids=["loads-fine", "question"])
def test_a_title_of_a_library_said_loaded_is_no_cause(text):
    assert _ids(text) == []


@pytest.mark.parametrize("text", [TITLE_MISSING, TITLE_OTHER_LOADS], ids=["not-found", "another-loaded"])
def test_a_title_of_a_library_not_said_loaded_is_still_its_cause(text):
    assert _ids(text) == ["cudnn-missing"]


# ------------------------------------------------------------------ amdigpu40: a feature's verdict, another's GPU (constructed)

FEATURE_IT = ("LM Studio 0.3.5 with my Radeon RX 6800 XT: speculative decoding, it says always that it is not supported "
              "with this model.\n")
FRIENDS_GPU = ("Ollama 0.6 on Ubuntu, RX 7900 XTX gfx1100: works, 80 tok/s. My friend's RX 5500 XT (gfx1012) is marked as "
               "not a compatible GPU by LM studio though.\n")
# the real verdicts these border (amdigpu40's samples): still the GPU's
GPU_IT = "My Radeon 780M: the GPU is recognized but it says always, that it is not supported.\n"
MY_GPU = "My RX 5500 XT (gfx1012) is marked as not a compatible GPU by LM studio.\n"
GPU_IT_ON = "My Radeon 780M: it says always that it is not supported on this GPU.\n"


@pytest.mark.parametrize("text", [FEATURE_IT, FRIENDS_GPU], ids=["feature", "friends"])
def test_a_verdict_of_a_feature_or_of_anothers_gpu_is_no_cause(text):
    assert _ids(text) == []


@pytest.mark.parametrize("text", [GPU_IT, MY_GPU, GPU_IT_ON], ids=["it", "mine", "it-on-this-gpu"])
def test_the_gpus_own_verdict_still_reads(text):
    assert _ids(text) == ["gpu-arch-unsupported"]
