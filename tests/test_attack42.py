"""attack42: session 18's paste readers, engine rules, nvidia-smi parsing and knowledge-base signatures attacked as a
hostile user would (time on long and many near-miss lines, false statements on texts that should stay silent,
crashes on garbage and huge version numbers).

The negative texts here are constructed (said so at each): plausible sentences of a thread or a README that the new
wordings must not read as the reporter's failure. Time is checked by growth (a 10x longer input may not cost much more
than 10x), never by an absolute budget.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, List

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.parse.nvidia_smi import parse_smi
from envcheck.paste.readers import prose_cause

NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
OOM = "RuntimeError: CUDA error: out of memory\n"


def _doc(text: str) -> Dict[str, Any]:
    return explain_text_document(text)


def _sigs(doc: Dict[str, Any]) -> List[str]:
    return [m.get("signature") for m in doc.get("matches", [])]


def _all_text(doc: Dict[str, Any]) -> str:
    return repr(doc.get("matches", []))


def _floor(line: str) -> Any:
    return prose_cause._arch_floor(line)


# ---- false statements ----

@pytest.mark.parametrize("line", [
    # constructed: a GTX 1080 owner who turned off another library's kernels
    "Note that flash-attention only supports sm_80 and above, so I disabled it.",
    "xformers only supports sm_75 and newer in this release.",
    "FlashAttention-2 dropped Turing. It only supports sm_80 and above.",
    "The Triton kernels only support sm_70+ here.",
    # constructed after Comfy-Org/ComfyUI#7770 (SageAttention's SM80 kernels on an older card)
    "SageAttention only supports sm_80 and above, so the fp8 path is off.",
])
def test_arch_floor_of_another_library_is_not_the_builds(line: str) -> None:
    assert _floor(line) is None


@pytest.mark.parametrize("line, floor", [
    # the real wording (tests/data/pastes/advice29, digitalsreeni#57): the subject is PyTorch, in the sentence before
    ("- PyTorch 2.8 (CUDA 12.8 wheels) has dropped support for Pascal/Maxwell. It only supports sm_70 and above.", "7.0"),
    ("PyTorch only supports sm_70 and above.", "7.0"),
    ("The torch build only supports sm_75 and newer, even though flash-attn would run.", "7.5"),
])
def test_arch_floor_of_torch_still_read(line: str, floor: str) -> None:
    got = _floor(line)
    assert got is not None and got.value.split(" | ")[0] == floor


def test_arch_floor_of_another_library_gives_no_finding() -> None:
    # constructed: the GPU is sm_61 and the torch build is fine; flash-attention's own floor is no build's floor
    doc = _doc(NO_KERNEL + "My GPU is a GeForce GTX 1080 (sm_61). torch 2.1.0+cu121\n"
               "Note that flash-attention only supports sm_80 and above, so I disabled it.\n")
    assert "only for compute capability 8.0" not in _all_text(doc)


@pytest.mark.parametrize("v", ["999", "00", "99999", "16"])
def test_arch_floor_no_cuda_architecture(v: str) -> None:
    # garbage floors: "sm_999" became "compute capability 99.9 and newer" in the fix text
    assert _floor(f"PyTorch only supports sm_{v} and above.") is None


def test_arch_floor_finding_shows_one_gpus_capability_once() -> None:
    doc = _doc(NO_KERNEL + "PyTorch only supports sm_70 and above.\nGPU: Tesla K80\n")
    text = _all_text(doc)
    assert "only for compute capability 7.0" in text
    assert "(compute capability 3.7)" in text and "compute capability Tesla K80" not in text


@pytest.mark.parametrize("text", [
    # constructed README / advice lines: the device flag said NOT to be needed
    "With the NVIDIA Container Toolkit you do not need --device /dev/nvidia0 any more, just use --gpus all.\n"
    "torch.cuda.is_available() returns True\n",
    "Note: you do not have to pass --device /dev/nvidia-uvm, the toolkit mounts it.\n",
    "There is no need to add --device=/dev/nvidia-uvm when you run with --gpus all.\n",
])
def test_device_flag_not_needed_is_no_missing_uvm(text: str) -> None:
    assert "container-nvidia-uvm-not-passed-said" not in _sigs(_doc(text))


@pytest.mark.parametrize("text", [
    # the real wordings of perm29's dev set (NVIDIA/nvidia-docker#997, #1085) still read
    "But if i use images without cuda,i have to use --device /dev/nvidia-uvm in docker run command to mount the "
    "nvidia-uvm in container.If i dont use the args,i cannot use cuda in the container.\n",
    "I forgot to add --device /dev/nvidia-uvm:/dev/nvidia-uvm and torch.cuda.is_available() was False\n",
])
def test_missing_uvm_still_read(text: str) -> None:
    assert "container-nvidia-uvm-not-passed-said" in _sigs(_doc(text))


def test_oom_after_not_needed_advice_kept() -> None:
    # the veto takes its line and the next; an OOM above it is still the failure
    doc = _doc(OOM + "Note: you do not have to pass --device /dev/nvidia-uvm, the toolkit mounts it.\n")
    assert "cuda-error-out-of-memory-text" in _sigs(doc)


# ---- time: growth of the cost with the input's length ----

def _cost(f: Callable[[str], Any], text: str) -> float:
    best = 1e9
    for _ in range(2):
        t0 = time.perf_counter()
        f(text)
        best = min(best, time.perf_counter() - t0)
    return best


def _linear(f: Callable[[str], Any], make: Callable[[int], str], n: int) -> None:
    small, big = _cost(f, make(n)), _cost(f, make(10 * n))
    assert big < 40 * max(small, 0.002), (small, big)


@pytest.mark.parametrize("seed", [
    "only supports sm_70 sm_ sm_7 and ", "It only supports flash flash-attn . It only supports sm_",
    "you need to update the driver at least 999.99.999 or ", "I have an intel ( gpu ( xe (",
])
def test_prose_cause_lines_linear(seed: str) -> None:
    def make(n: int) -> str:
        return (seed * (n // len(seed) + 1))[:n]
    _linear(lambda s: prose_cause._arch_floor(s), make, 2000)


@pytest.mark.parametrize("make", [
    lambda n: "NVIDIA-SMI 580.65.06   Driver Version: 580.65.06   CUDA Version: 13.0\nNVIDIA" + " " * n + "x\n",
    lambda n: "NVIDIA-SMI 580.65.06   Driver Version: 580.65.06   CUDA Version: 13.0\n"
              + ("NVIDIA " + "a" * 59 + "  1MiB /  \n") * (n // 80),
    lambda n: "Unable to determine the device handle for gpu 0000:3B:00.0: Unknown Error\n" * (n // 75)
              + "GPU 1: NVIDIA GeForce RTX 4090 (UUID: GPU-1)\n",
    lambda n: "Unable to determine the device handle for" + " \t" * n + "\nGPU 1: NVIDIA X (UUID: GPU-1)\n",
    lambda n: "nvidia-smi: No devices were found\n" * (n // 34),
    lambda n: ("nvidia-smi`)" + " \t" * 2) * (n // 16),
])
def test_nvidia_smi_hostile_captures_linear(make: Callable[[int], str]) -> None:
    _linear(parse_smi, make, 20000)


# ---- crashes ----

@pytest.mark.parametrize("text", [
    NO_KERNEL + "It only supports sm_99999 and above.\nMy GPU is a GeForce GTX 1080.\n",
    "RuntimeError: The NVIDIA driver on your system is too old (found version 999999999).\n"
    "You need to update the driver to at least 999.99.999 please.\nPyTorch Version: 99999.3\n"
    "How you installed PyTorch (conda, pip, source): pip\nNVIDIA driver 999999999.1\n",
    NO_KERNEL + "PyTorch Version (e.g., 1.0): 9.99999999999999999\nHow you installed PyTorch (conda, pip, source): pip\n"
    "Nvidia driver version: 410.48\nOS: Linux\n",
    NO_KERNEL + "torch 1.\nHow you installed PyTorch (conda, pip, source): pip\ndriver version: 410.\n",
    "onnxruntime-gpu 99999.99999.1\n[E:onnxruntime:Default, provider_bridge_ort.cc:1744 TryGetProviderInfo_CUDA] "
    "Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.99999: cannot open shared "
    "object file: No such file or directory\n",
    "AssertionError: Torch not compiled with CUDA enabled\nI have an Intel \x00\x01 Arc\x1b[31m A770 GPU\x7f\n"
    " torch 2.99999999999.0+xpu\n",
    "NVIDIA-SMI 99999999999.65.06   Driver Version: 99999999999.65.06   CUDA Version: 99999.0\n"
    "NVIDIA L4    9999999MiB / 9999999MiB\n",
    "Unable to determine the device handle for gpu 0000:3B:00.0: Unknown Error\n"
    "GPU 99999999999999999999: NVIDIA GeForce RTX 4090 (UUID: GPU-x)\n",
    "RuntimeError: Caffe2: cuDNN compiled (99999) and runtime (9 9 9 9 9) versions mismatch\n",
    "".join(chr(i) for i in range(0, 0x3000) if not 0xD800 <= i < 0xE000),
])
def test_garbage_and_huge_numbers_do_not_crash(text: str) -> None:
    doc = _doc(text)
    assert isinstance(doc.get("matches"), list)
    parse_smi(text)


@pytest.mark.parametrize("facts", [{}, {"driver": None}, {"driver": "535.54"}, {"driver": {"version": None}},
                                   {"driver": {"version": "999999999.1"}}])
@pytest.mark.parametrize("need", ["999.99.999 | you need to update the driver to at least 999.99.999",
                                  "| ", "x | y", "450 | 驱动需要升级到450以上"])
def test_driver_said_facts_of_any_shape(facts: Dict[str, Any], need: str) -> None:
    from envcheck.engine.prose_causes import driver_said
    from envcheck.matrix import load_matrix
    got = driver_said(load_matrix(), facts, {"driver-need-said": need}, True)
    if got is not None:  # only a driver the facts give, below the one said, is a finding
        assert got.id == "driver-too-old" and isinstance(facts.get("driver"), dict)


def test_driver_said_still_compares_a_driver_fact() -> None:
    from envcheck.engine.prose_causes import driver_said
    from envcheck.matrix import load_matrix
    got = driver_said(load_matrix(), {"driver": {"version": "410.48"}},
                      {"driver-need-said": "450 | 驱动需要升级到450以上"}, True)
    assert got is not None and got.id == "driver-too-old"


_THREAD = ("reporter1 · description · 2019-11-18\n" + NO_KERNEL +
           " - PyTorch Version (e.g., 1.0): 1.3\n - OS (e.g., Linux): Ubuntu 16.04\n"
           " - GPU models and configuration: GTX 1080\n - How you installed PyTorch (conda, pip, source): pip\n\n"
           "otheruser · comment · 2019-11-19\n")


@pytest.mark.parametrize("comment", [
    # constructed, in the form of a thread copied with its author lines: another author's own driver
    "Same error here, my driver version is 410.48, on a Tesla T4 in our cluster.\n",
    "Same problem. My NVIDIA driver: 410.48\n",
])
def test_pypi_assumption_not_met_with_another_authors_driver(comment: str) -> None:
    doc = _doc(_THREAD + comment)
    assert "410.48" not in _all_text(doc)
    assert all(m.get("id") != "driver-too-old" for m in doc.get("matches", []))


def test_pypi_assumption_with_the_reporters_driver_still_made() -> None:
    # the same thread with the driver in the reporter's own description (pypi29's rule, pytorch#30071's form)
    text = _THREAD.replace(" - How you installed", " - Nvidia driver version: 410.48\n - How you installed")
    doc = _doc(text)
    assert any(m.get("id") == "driver-too-old" for m in doc.get("matches", []))


def test_data_center_gpu_at_a_sentence_end_is_named() -> None:
    from envcheck.paste.readers.prose_gpu import modern_gpu_models
    assert modern_gpu_models("I am on an NVIDIA A100.") == ["A100"]
    assert modern_gpu_models("NVIDIA A100.5") == [] and modern_gpu_models("nvidia a100.so") == []


def test_old_gpu_said_beside_the_reporters_modern_one_decides_nothing() -> None:
    # constructed: the K80 is the README's, the machine's is the A100 (torch 2.1 runs it)
    doc = _doc(NO_KERNEL + "The README says torch 2.1 does not support the Tesla K80 any more, but I am on an "
               "NVIDIA A100.\n")
    assert "Tesla K80" not in _all_text(doc)
