"""attack45: sentences that deny, suppose or hedge what a cause's wording says, or say it of another machine, read as
the failure of this one (issue 20's "nothing false said"): the boundaries attack44 left (a negated conflict, root said
of an install, a path or Docker's socket, Level Zero advice, a gfx target "not officially supported but works", another
machine's GPU, an AMD CPU read as the machine's GPU), and hostile input through the new vetoes.

Each is answered in its rule's own home: errors.toml's kind = "aside" (a veto of its own line only) and [[fact]]
kind = "veto" (a line not read for that fact), the amd_gpu fact's own pattern, and paste/readers/prose_vendor.py.
Real texts are quoted as they were posted (source at each); constructed lines probe a boundary and say so.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

from envcheck.explain import explain_stream
from envcheck.explain.document import explain_text_document
from envcheck.explain.kb import load_kb


def _doc(text: str) -> Dict[str, Any]:
    return explain_text_document(text)


def _vendor(text: str) -> Dict[str, str]:
    return explain_stream(io.BytesIO(text.encode("utf-8"))).vendor_facts


def _ids(text: str) -> List[str]:
    return [m.get("id") for m in _doc(text).get("matches", [])]


NO_DRIVER = "RuntimeError: Found no NVIDIA driver on your system.\n"
NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


# ---- a conflict of two frameworks' CUDA pins denied or supposed (frameworks-cuda-pins-conflict-said) ----

@pytest.mark.parametrize("line", [
    # constructed probes of the rule's boundary: each said "framework-conflict" before
    "torch and tensorflow do not have conflicting requirements for CUDA here.",
    "I checked that torch and jax don't have conflicting requirements for nvidia wheels.",
    "Unlike before, torch 2.1 and tensorflow 2.15 no longer have conflicting requirements for nvidia-cudnn.",
    "No different CUDA versions between torch and tensorflow, both use 12.1.",
    "There is no conflict: torch and TensorFlow have no conflicting versions of cuDNN.",
    "torch and TF may have conflicting requirements for CUDA, so keep them in separate environments.",
])
def test_conflict_denied_or_supposed_is_silent(line: str) -> None:
    assert "framework-conflict" not in _ids(line + "\n")


@pytest.mark.parametrize("line", [
    # the sentences the rule was written for stay read (pytorch/pytorch#97990, rocker-org/ml#34)
    "A JAX user noted that `torch` and `jax` have conflicting requirements for NVIDIA's CUDA pip wheels.",
    "Different CUDA version in python dependency resolution between `TensorFlow` (2.19) and `PyTorch`",
])
def test_conflict_said_still_read(line: str) -> None:
    assert _ids(line + "\n")[:1] == ["framework-conflict"]


def test_an_aside_vetoes_its_own_line_only() -> None:
    # constructed: the failure on the next line is read as it stands (a kind = "veto" line would hide it)
    assert _ids("There is no conflict between torch and TensorFlow here.\n" + NO_KERNEL)[:1] == ["gpu-arch-unsupported"]


# ---- root / sudo said of something else than the GPU's device nodes (device-permission's sentences) ----

@pytest.mark.parametrize("line", [
    # constructed probes: an install made with sudo, a path only root may read, Docker's own socket and group
    "torch can't use the GPU unless I run sudo pip install, because the user site has an old torch.",
    "torch finds the GPU only when run as root, because the conda env lives in /root/miniconda3.",
    "The GPU works only when running as root since the weights are in /root.",
    "A normal user can't run the GPU container because docker needs sudo.",
    "The new user cannot access the GPU through Docker since they are not in the docker group.",
])
def test_root_said_of_install_path_or_docker_is_silent(line: str) -> None:
    assert "device-permission" not in _ids(line + "\n")


@pytest.mark.parametrize("line", [
    # real: dusty-nv/jetson-containers#1136, dusty-nv/jetson-inference#1788 (the rules' own samples)
    "My actual problem is that torch finds GPU ony if I use the root user.",
    "The problem occurs when I execute the code as a non-root user, when I execute it as a root user there is no "
    "problem",
])
def test_root_said_still_read(line: str) -> None:
    assert "device-permission" in _ids(line + "\n")


# ---- Level Zero in advice or a prerequisite (level-zero-said-not-installed) ----

@pytest.mark.parametrize("line", [
    # constructed probes: advice with a condition, an install guide's prerequisite
    "You should install Level Zero if it is not installed already.",
    "You must install the Level Zero loader to use the GPU.",
    "Please install level zero in case the loader is not installed.",
])
def test_level_zero_advice_is_silent(line: str) -> None:
    assert "xpu-level-zero-missing" not in _ids(line + "\n")


def test_level_zero_said_missing_still_read() -> None:
    # real: ggml-org/llama.cpp#6382 (a maintainer's diagnosis of an Intel GPU seen only through OpenCL)
    assert "xpu-level-zero-missing" in _ids("You should install level-zero.\nCurrent error is running on opencl.\n")


# ---- a gfx target said unsupported in a sentence that says it works ----

def test_gfx_unsupported_but_works_is_silent() -> None:
    # constructed after ROCm/legacy-rocm-build#1797's title ("It is a gfx1032 GPU, not officially supported. But you can
    # override it to gfx1030 ... That actually works."): said "gpu-arch-unsupported" twice before (the knowledge base's
    # amd-gfx-target-said-not-supported and paste/readers/prose_vendor's gpu-said-unsupported)
    assert "gpu-arch-unsupported" not in _ids(
        "gfx1031 is not officially supported but works fine with HSA_OVERRIDE_GFX_VERSION=10.3.0\n")
    assert "gpu-arch-unsupported" not in _ids(
        "Our RX 6700 XT works fine even though gfx1031 is not officially supported.\n")


def test_gfx_unsupported_still_read() -> None:
    # real: lshqqytiger/ZLUDA#55 (tests/test_arch31.py's sample)
    assert "gpu-arch-unsupported" in _ids(
        "It is required because your card, RX 6600 (gfx1032), is not officially supported by HIP SDK.\n")


# ---- out of memory in a FAQ's condition (mem31's gpu-out-of-memory-said) ----

@pytest.mark.parametrize("line", [
    # real: nunchaku-tech/nunchaku docs/source/faq/usage.rst (said "The GPU ran out of memory" before)
    "If you encounter out-of-memory errors or notice that model loading is unusually slow, please try the following "
    "steps:",
    # real: sgl-project/sglang docs/references/troubleshooting.md, the sentence under its "CUDA Out of Memory" heading
    "If you encounter out-of-memory (OOM) errors, you can adjust the following parameters:",
])
def test_oom_in_a_faq_condition_is_silent(line: str) -> None:
    assert "gpu-out-of-memory" not in _ids(line + "\n")


# ---- another machine's GPU ----

def test_amd_card_in_another_pc_is_not_this_machines() -> None:
    # constructed probe of vend32's "I have an AMD card" sentence: said framework-vendor-mismatch before
    assert _ids("I have an AMD card in my other PC.\n" + NO_DRIVER)[:1] == ["no-gpu-driver"]
    assert _ids("It works on my friend's laptop with an AMD GPU, but on mine:\n" + NO_DRIVER) == ["no-gpu-driver"]


def test_a_friends_amd_gpu_is_not_this_machines() -> None:
    # constructed probe of amd-host-mentioned and paste/readers/prose_amd (an AMD model beside ROCm on one line)
    assert _ids("My friend has an RX 7900 XTX with ROCm 6.0 and it works for him.\n" + NO_DRIVER) == ["no-gpu-driver"]
    # ROCm/ROCm#2354's title, the reader's own sample, is still this machine's
    assert _ids("torch.cuda.is_available() return false with ROCm5.4.3 and RX6800\n" + NO_DRIVER)[:1] == \
        ["framework-vendor-mismatch"]


def test_amd_card_of_this_machine_still_read() -> None:
    # JoshuaKimsey/Linux-StableDiffusion-Script#17's wording (tests/test_vend32.py)
    assert _ids("I have an AMD card.\n" + NO_DRIVER)[:1] == ["framework-vendor-mismatch"]


def test_another_machines_gpu_is_not_the_failing_one() -> None:
    # constructed: cuFFT's internal error is said to be the architecture only against a GPU the text names; the RTX
    # 5090 here is another PC's (said "likely ... compute capability 12.0" before)
    assert "gpu-arch-unsupported" not in _ids(
        "My other PC has an RTX 5090 that works.\nRuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR\n")
    # ... and this machine's GPU still is (tests/test_attack44.py's reading)
    assert "gpu-arch-unsupported" in _ids("I have an RTX 4090.\nRuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR\n")


def test_architecture_said_of_another_machine_is_silent() -> None:
    # constructed probe of build-said-not-made-for-gpu-architecture
    text = ("The cu118 wheels do not support sm_120 for the RTX 5090 in my other PC; here I have an RTX 3090 and get\n"
            "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert "gpu-arch-unsupported" not in _ids(text)


# ---- an AMD CPU read as the machine's GPU ----

def test_ryzen_xt_cpu_is_no_radeon() -> None:
    # real: "In my AMD 3900XT machine here are the results:" (a README of Dave's Garage's prime sieve fork, find_string
    # id 36051104292; the Speech2Vec Reality Check README: "takes 8.4 days on an AMD 3900XT + RTX3090 machine"), joined
    # here with torch's no-driver line: a Ryzen 9 3900XT is a CPU, there is no Radeon RX 3900 XT
    assert _ids("In my AMD 3900XT machine here are the results:\n" + NO_DRIVER)[:1] == ["no-gpu-driver"]
    assert _vendor("CPU: AMD 5800XT\n").get("amd_gpu") is None
    # the Radeon XT models stay AMD GPUs
    assert _vendor("GPU: AMD 6800XT\n").get("amd_gpu") == "AMD 6800XT"
    assert _vendor("AMD 5700XT\n").get("amd_gpu") == "AMD 5700XT"


def test_im_on_amd_beside_a_cpu_is_the_cpu() -> None:
    # constructed probe of pastes21a's "I'm on AMD" fact
    assert _ids("CPU: AMD Ryzen 7 5800X, I'm on AMD.\n" + NO_DRIVER)[:1] == ["no-gpu-driver"]
    # the sentence the fact was written for (lllyasviel/stable-diffusion-webui-forge#369)
    assert _vendor("I'm on AMD windows so I tried --directml\n").get("amd_gpu") == "AMD"


# ---- the knowledge base's shape ----

def test_no_new_cover_anchor_and_nothing_skipped() -> None:
    from tests.helpers import COVER_BOUND

    kb = load_kb()
    assert len(kb.cover) <= COVER_BOUND
    names = {"frameworks-conflict-denied-or-supposed", "root-said-of-install-path-or-docker-socket",
             "level-zero-install-advice-conditional", "amd-gfx-target-unsupported-but-works",
             "gpu-said-of-another-machine"}
    got = {sg.name for sg in kb.signatures if sg.aside}
    assert names <= got
    assert not [w for w, _ in kb.skipped if any(n in w for n in names)]
    assert sum(1 for fc in kb.facts if fc.veto) >= 2


# ---- hostile input through the new vetoes (constructed near misses: each line holds their literals) ----

NEAR_MISSES = {
    "conflict": "There is no conflict between torch and TensorFlow, torch and jax don't have conflicting " * 3,
    "root": "torch can't use the GPU unless I run sudo pip install as root, /root/ owned by root docker group " * 3,
    "level-zero": "You should install Level Zero if it is not installed already; install the level zero " * 3,
    "gfx": "gfx1031 is not officially supported but " + "works " * 40,
    "another": "I have an AMD card in my other PC with RX 6700 XT gfx1031 rocm sm_86 my friend's laptop " * 2,
    "prose": "The gfx1031 is not supported " + "but it " * 40 + " works",
    "amd-cpu": "CPU: AMD Ryzen 7 5800X " + "x" * 50 + ", I'm on AMD.",
    "unicode": "ｇｆｘ１０３１ is not supported but works \u202e\ufeff\x00\x1b[31m my other ＰＣ has an AMD card " * 4,
}


@pytest.mark.parametrize("name", sorted(NEAR_MISSES))
def test_near_misses_are_read_whole(name: str) -> None:
    """1 MB of one wording is read to its end (attack45 measured 0.5 MB against 2 MB: 3.5x - 4.4x the CPU time for 4x
    the text; timings live in benchmarks/)."""
    line = NEAR_MISSES[name]
    n = max(1, 1_000_000 // (len(line) + 8))
    doc = explain_text_document("".join(f"{i} {line}\n" for i in range(n)).encode("utf-8"))
    assert doc["schema"] == "envcheck/explain/1"
    assert doc["lines_scanned"] == n


def test_one_huge_line_does_not_crash() -> None:
    doc = explain_text_document(("I have an AMD card in my other PC. " * 60000).encode("utf-8"))
    assert doc["schema"] == "envcheck/explain/1"


def test_terminal_gets_no_control_characters(tmp_path: Path) -> None:
    # an evidence line that carries terminal escapes, a C1 CSI, a right-to-left override and NULs
    log = tmp_path / "hostile.log"
    log.write_bytes(b"RuntimeError: CUDA error: no kernel image is available \x1b[31mfor\x1b]0;title\x07 execution on "
                    b"the device\x00\x08\x7f\xc2\x9b31m\n\xe2\x80\xaeI have an AMD card in my \x1b[2Jother PC\n")
    out = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--no-detect", str(log)], capture_output=True,
                         timeout=120).stdout
    text = out.decode("utf-8")
    assert "gpu-arch-unsupported" in text
    assert not [c for c in text if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) <= 0x9f or c in "\u202e\u202d\u2066"]
