"""attack46: session 21's new readers and rules made to say something false (issue 20's "nothing false said").

Each case is a sentence the rule was not written for: a writer's own 64-bit Python read as the advice to use one, a
32-bit word that is not the Python ("32-bit float"), a TensorFlow release said to fail for a Python release (pip has no
wheel: nothing of the GPU), the CPU's RAM blamed beside cuBLAS's init failure. Each is answered in its reader's own
home (envcheck/paste/readers/py_bits.py, tf_gpu.py, cublas_mem.py). Real sentences are quoted as posted (source at
each); constructed lines probe a boundary and say so. The sentences the rules were written for stay read.
"""

from __future__ import annotations

import time
from typing import List

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import cublas_mem, linux_kernel, py_bits, tf_gpu


def _ids(text: str) -> List[str]:
    return [m.get("id") for m in explain_text_document(text).get("matches") or []]


PIP_TORCH = ("ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
             "ERROR: No matching distribution found for torch\n")
PIP_TF = ("ERROR: Could not find a version that satisfies the requirement tensorflow (from versions: none)\n"
          "ERROR: No matching distribution found for tensorflow\n")
CUBLAS = "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n"


# ---- py_bits: the writer's own 64-bit Python, a 32-bit number type ----

@pytest.mark.parametrize("line", [
    # constructed probes: the writer says what the machine has; each said python-arch-mismatch before
    "I use 64-bit Python 3.9 on Windows 10.",
    "I already use python 64 bit, and pip is up to date.",
    "We use 64-bit python everywhere.",
    # constructed probes: a 32-bit number type named beside the Python, not the Python's own width
    "Python 3.9 32-bit float precision is used in my model.",
    "the python 32 bit integer overflows at 2**31",
])
def test_not_a_32_bit_python(line: str) -> None:
    assert py_bits.line_facts(line, line.lower()) == []
    ids = _ids(PIP_TORCH + line + "\n")
    assert "python-arch-mismatch" not in ids
    assert "python-unsupported" in ids  # pip's own line is still read


@pytest.mark.parametrize("line", [
    # the advice the rule was written for stays read
    "Please use 64-bit Python instead.",  # pytorch/pytorch#33654
    "Make sure it is 64-bit python. There is no torch available on 32-bit python",  # pytorch/pytorch#79347
    "On microsoft windows Tensorflow needs 64bit Python",  # NikhilCodes/VirtualBLU#2
    "Install python 64bit not 32bit",  # milksense/venus#8
    "My python is 32 bit",
])
def test_32_bit_python_still_read(line: str) -> None:
    assert [f.field for f in py_bits.line_facts(line, line.lower())] == ["seen:python-32bit"]
    assert _ids(PIP_TORCH + line + "\n")[0] == "python-arch-mismatch"


# ---- tf_gpu: a TensorFlow release said not to support a Python release ----

@pytest.mark.parametrize("line", [
    # tensorflow/tensorflow#37461 (pingsutw)
    "@ali-chaudhry8 As I know, TensorFlow 1.15 doesn't support Python 3.8, you could use Python 3.7 ot work with it",
    # tensorflow/tensorflow#39768 (Saduf2019)
    "TensorFlow 1.x even 2.1 does not support Python 3.8. Instead could you please",
    # constructed probes of the boundary
    "tensorflow 1.15 does not work with python 3.8.",
    "TF 2.3 won't run on Python 3.9",
    # constructed probes: another object than the GPU named after the failure words
    "TF 2.3 won't work with numpy 2.0",
    "TF 1.15 does not support eager mode by default.",
])
def test_tf_release_said_to_fail_for_python(line: str) -> None:
    assert tf_gpu.line_facts(line, line.lower()) == []
    # a GPU newer than every TF 1.x build is named in the same report (constructed: the report form's GPU field)
    text = "- GPU model and memory: RTX 3090 24GB\n" + line + "\n"
    assert "gpu-arch-unsupported" not in _ids(text)


@pytest.mark.parametrize("line,release", [
    # the sentences the rule was written for (tensorflow/tensorflow#42958, ElementAI/generative-compression#47)
    ("TF 1.x does not support RTX 3000, as it only supports older versions of CUDA", "1.x"),
    ("RTX 3080 TI does not work with TF 1.12 CUDA 9.2", "1.12"),
    ("It seems that tensorflow1.8 doesn't work properly on RTX3090", "1.8"),
    ("all Tensorflow 1.14 projects don't run", "1.14"),
    # constructed: the GPU named with a determiner, a bare model number
    ("tensorflow 1.15 doesn't work with the RTX 3090", "1.15"),
    ("tensorflow 2.2 does not work on my 3090", "2.2"),
])
def test_tf_release_said_to_fail_on_gpu_still_read(line: str, release: str) -> None:
    got = tf_gpu.line_facts(line, line.lower())
    assert [f.value.split(" | ")[0] for f in got] == [release]


# ---- cublas_mem: the CPU's RAM blamed ----

@pytest.mark.parametrize("line", [
    # constructed probes: host memory, not the GPU's; each said gpu-out-of-memory before
    "My laptop has not enough RAM, only 8 GB, so I closed chrome.",
    "The dataloader workers crashed earlier because of insufficient RAM on the host.",
    "There is not enough system memory in the container for the dataset.",
    "There is not enough memory on the host for the page cache.",
])
def test_cpu_ram_is_not_gpu_memory(line: str) -> None:
    assert [f.field for f in cublas_mem.line_facts(line, line.lower())] == []
    ids = _ids(CUBLAS + line + "\n")
    assert "gpu-out-of-memory" not in ids
    assert "cublas-error" in ids


@pytest.mark.parametrize("line", [
    # the sentences the rule was written for
    "See this issue, most probably due to not having enough memory. Reduce seq_length or batch_size",  # llama2.c#279
    "I know this is a fairly uninformative error message but it is typical a memory issue.",  # IBM/aihwkit#479
    "loading CUDA libraries with insufficient memory due to JAX, TF, or other libraries pre-allocating",  # jax#7118
    "There is not enough VRAM on the card for this model.",  # constructed: the GPU's RAM named
])
def test_gpu_memory_blamed_still_read(line: str) -> None:
    assert _ids(CUBLAS + line + "\n")[0] == "gpu-out-of-memory"


# ---- hostile input through the new readers: linear, no crash ----

@pytest.mark.parametrize("chunk", [
    "python 32 bit " * 8, "I use 64-bit python. " * 8, "tensorflow 1.15 doesn't support python 3.8 " * 4,
    "not enough RAM on the host " * 6, "\x00\x1b[31m\x07\r" * 20,
])
def test_hostile_lines_linear(chunk: str) -> None:
    readers = (py_bits, tf_gpu, cublas_mem, linux_kernel)
    for reader in readers:
        reader.line_facts(chunk, chunk.lower())

    def best(text: str) -> float:
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            for reader in readers:
                reader.line_facts(text, text.lower())
            times.append(time.perf_counter() - t0)
        return min(times)

    small, big = chunk * 100, chunk * 1000
    assert best(big) < 40 * max(best(small), 0.005)


def test_hostile_text_through_explain() -> None:
    # 2 MB of the new readers' words, control characters and one very long line: read, no crash, in bounded time
    body = ("I use 64-bit python. not enough RAM on the host. tensorflow 1.15 doesn't support python 3.8. "
            "Intel Arc A770 in my other PC \x00\x1b[0m\r\n") * 16000 + "x" * 200000 + "\n"
    t0 = time.perf_counter()
    explain_text_document(body)
    assert time.perf_counter() - t0 < 120


# ---- intel_kernel_too_old: the Intel GPU is not the failing one ----

KERNEL = "Linux 5.15.0-91-generic\n"


@pytest.mark.parametrize("text", [
    # constructed probes: NVIDIA's stack failed (nvidia-smi's own failure, an RTX named beside the Arc); the Arc on an
    # old kernel is no cause of it. Each said driver-too-old (the Intel kernel floor) before
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
    "driver is installed and running.\nMy display runs on an Intel Arc A770.\n" + KERNEL,
    "RuntimeError: Found no NVIDIA driver on your system.\nIntel Arc A770 for the display, RTX 3060 for compute.\n"
    + KERNEL,
    # constructed probe: the Arc is another machine's
    "RuntimeError: Found no NVIDIA driver on your system.\nI have an Intel Arc A770 in my old PC.\n" + KERNEL,
])
def test_intel_kernel_floor_not_for_an_nvidia_failure(text: str) -> None:
    assert "driver-too-old" not in _ids(text)


def test_intel_kernel_floor_still_read() -> None:
    # the rule's own case stays (intel/compute-runtime#610's failure, an Arc on a kernel below 6.2)
    assert "driver-too-old" in _ids("ZE_RESULT_ERROR_UNKNOWN\nI have an Intel Arc A770.\n" + KERNEL)


# ---- jetson-killed-said: "killed" of a process ended on purpose, or on another machine ----

@pytest.mark.parametrize("text", [
    # constructed probes of jetson-killed-said's boundary: each said gpu-out-of-memory before
    "Jetson Xavier NX, JetPack 5.1.\nThe docker build was killed on my laptop, so I built the image on the Jetson "
    "instead, and it works now.\n",
    "Jetson Nano 4GB.\nThe process is killed when I press Ctrl+C, that is expected.\n",
    "Jetson Nano\nI pressed Ctrl+C and the python process was killed.\n",
    "Jetson Orin Nano.\nThe old server is killed with kill -9 before each run.\n",
    "Jetson AGX Orin.\nThe same training got killed in my other PC, which has 8 GB of RAM.\n",
])
def test_killed_on_purpose_or_elsewhere_is_not_the_jetsons_memory(text: str) -> None:
    assert "gpu-out-of-memory" not in _ids(text)


def test_killed_on_the_jetson_still_read() -> None:
    # lewes6369/TensorRT-Yolov3#40, the sentence jetson-killed-said was written for
    text = ("The Begin building engine... phase every time is Killed (for all type of inference, 608-fp32,fp16 and 416 "
            "also). I am trying on Jetson Nano with an official Ubuntu 18.04 OS, this repo build and make was "
            "successful.\n")
    assert _ids(text)[0] == "gpu-out-of-memory"


# ---- amd33: Docker Desktop denied, sudo said of an install ----

@pytest.mark.parametrize("text", [
    # constructed probes of amd_docker_desktop's boundary: each said device-permission before
    "ROCm 6.0 on RX 7900 XTX. Docker Desktop is not involved, I run natively on Ubuntu.\n"
    "RuntimeError: HIP error: invalid device function\n",
    "ROCm 6.0 on RX 7900 XTX, no container: I don't use Docker Desktop.\n"
    "RuntimeError: HIP error: invalid device function\n",
    # constructed probes of the root-only wordings: sudo for an install, not for the GPU
    "ROCm: amdgpu-install works with sudo only, as any package install does.\nRuntimeError: No HIP GPUs are available\n",
])
def test_docker_desktop_denied_or_sudo_for_an_install_is_not_device_permission(text: str) -> None:
    assert "device-permission" not in _ids(text)


@pytest.mark.parametrize("text", [
    # the pair of the probes above with Docker Desktop not denied (constructed), and ROCm/hip#337's sentence
    "ROCm 6.0 on RX 7900 XTX. I run the rocm/pytorch container with Docker Desktop.\n"
    "RuntimeError: HIP error: invalid device function\n",
    "ROCm 5.2 on Radeon RX 6800. Both the square example and vector_copy example work with sudo.\n",
])
def test_docker_desktop_and_root_only_still_read(text: str) -> None:
    assert "device-permission" in _ids(text)


# ---- edge33: "CUDA is not available" quoted from a page ----

@pytest.mark.parametrize("line", [
    # constructed probes of cuda-not-available-said-check's boundary: each said framework-vendor-mismatch before
    'I\'m on a Mac M1. The README says "CUDA is not available on macOS, use MPS". I use MPS and it works.',
    "MacBook Pro M2: according to the docs CUDA is not available on Apple silicon, so I use the CPU.",
])
def test_cuda_unavailable_quoted_from_docs_on_a_mac(line: str) -> None:
    text = line + "\nRuntimeError: shape '[1, 77]' is invalid for input of size 154\n"
    assert "framework-vendor-mismatch" not in _ids(text)


def test_cuda_unavailable_on_a_mac_still_read() -> None:
    # modelscope/facechain#488's title, macOS on an M2 Ultra
    text = "Error on my mac, CUDA is not available\nmacOS 14.2.1, Apple M2 Ultra\n"
    assert _ids(text)[0] == "framework-vendor-mismatch"


# ---- prose_lib: a library said present or working ----

@pytest.mark.parametrize("text", [
    # constructed probes of prose_lib's verb form: each said cudnn-missing / cuda-runtime-missing before
    "Jetson Orin Nano, JetPack 6.0. torch 2.3 from NVIDIA's wheel works, and it uses libcudnn.so.8 fine.\n"
    "Segmentation fault (core dumped)\n",
    "Jetson Xavier. The old wheel needs libcudart.so.10.2, which JetPack 4.6 has, so that part works.\n"
    "Illegal instruction (core dumped)\n",
])
def test_library_said_present_is_no_missing_library(text: str) -> None:
    ids = _ids(text)
    assert "cudnn-missing" not in ids and "cuda-runtime-missing" not in ids


@pytest.mark.parametrize("line,lib", [
    ("It seems it uses libcudnn.so.8 not cuDNN: 9.3.0.75", "libcudnn.so.8"),  # ultralytics/ultralytics#18829
    ("install-pytorch.sh ImportError: libcudart.so.10.0", "libcudart.so.10.0"),  # dusty-nv/jetson-inference#622
    ("torch wants libcudnn.so.8 but JetPack 6 only has cuDNN 9", "libcudnn.so.8"),  # constructed: "has" of another
])
def test_library_said_as_the_error_still_read(line: str, lib: str) -> None:
    from envcheck.paste.readers import prose_lib

    assert [f.value.split(" | ")[0] for f in prose_lib.line_facts(line, line.lower())] == [lib]
