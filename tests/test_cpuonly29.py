"""Session 18, helper cpuonly29: CUDA asked of a machine whose only GPU is Intel's or AMD's, read from pasted threads.

* The reporter's own Intel GPU in a sentence ("What should i fo if I have Intel iRIS Graphics GPU", lm-sys/FastChat#2105;
  "I'm using a integrated Intel GPU(iris xe graphics)", Akegarasu/lora-scripts#101) is evidence
  (paste/readers/prose_intel.py, ``seen:intel-gpu-said``); where the text shows no NVIDIA or AMD GPU, the engine
  (``engine.vendors.log_intel_gpu``) reads "Torch not compiled with CUDA enabled", a CUDA build's "Found no NVIDIA
  driver" and CUDA's "driver version is insufficient" (35) there as ``framework-vendor-mismatch``, not a CPU build to
  swap for a CUDA one nor a driver to upgrade.
* EasyOCR's own fallback notice "Neither CUDA nor MPS are available - defaulting to CPU" (errors.toml
  ``easyocr-neither-cuda-nor-mps-defaulting-to-cpu``, says ``cuda-check-only``) names a cause only where the text shows
  another vendor's GPU (mxc2/immich-tiktok-remover#11: an RX 7900 XTX), and nothing on an NVIDIA machine or one the text
  does not show.

Samples: tests/data/cpuonly29 (README cites each thread); heldout/cpuonly29-held was set aside before the rules.
"""

from __future__ import annotations

import os

import pytest

from envcheck.engine.vendors import log_intel_gpu, recast_cause
from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import READERS, prose_intel
from helpers import check_section_signatures, paste_readme_rows, paste_top

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "cpuonly29")
SPENT = os.path.join(os.path.dirname(HERE), "heldout")
ROWS = paste_readme_rows(DATA)


def _doc(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        return explain_text_document(fh.read())


@pytest.mark.parametrize("name", sorted(ROWS))
def test_dev_thread_top_cause_is_its_label(name):
    assert paste_top(_doc(os.path.join(DATA, name))) == ROWS[name][0]


def test_the_readme_lists_every_sample_and_both_controls():
    on_disk = {f for f in os.listdir(DATA) if f.endswith(".txt")}
    assert on_disk == set(ROWS)
    assert sum(1 for label, _ in ROWS.values() if label == "none") >= 2


# -- the reader ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("line, gpu", [
    # lm-sys/FastChat#2105 (a help-seeker's own case: "what should I do if I have ...")
    ("What should i fo if I have Intel iRIS Graphics GPU and I get this AssertionError: Torch not compiled with CUDA "
     "enabled after entering  python -m fastchat.serve.cli", "Intel iRIS Graphics"),
    # Akegarasu/lora-scripts#101
    ("I'm using a integrated Intel GPU(iris xe graphics). os is win 11, torch==2.0.0+cu118 torchvision==0.15.1+cu118.",
     "Intel GPU iris"),
    # Acly/krita-ai-diffusion#2572
    ("When installing, I get the error “Torch not compiled with CUDA enabled” even if I am using XPU, being on an Intel "
     "GPU (in my case the model is Intel(R) Arc(TM) Graphics (128 MB)).", "Intel GPU"),
])
def test_reader_takes_the_reporters_own_intel_gpu(line, gpu):
    assert prose_intel._said(line) == gpu
    part = prose_intel.read([line])
    assert [(f.field, f.value) for f in part.facts] == [("seen:intel-gpu-said", gpu)]


@pytest.mark.parametrize("line", [
    # an Intel CPU is no GPU
    "I have an Intel i7-12700 and 32 GB of RAM",
    # a condition, a question, a negation, someone else's machine
    "If you have an Intel GPU, install the XPU build.",
    "Does this work if I have an Intel Arc A770?",
    "I don't have an Intel GPU, only the RTX.",
    # a laptop's iGPU beside its GeForce on the same line: which one ran is not said
    "I have Intel UHD Graphics 630 and NVIDIA GeForce GTX 1650",
    # lora-scripts#101's maintainer line and FastChat's answer say nothing of the reporter's GPU
    "Iris graphics are intel gpus, and do not run CUDA.",
])
def test_reader_leaves_other_sentences(line):
    assert prose_intel._said(line) == ""
    assert prose_intel.detect(type("L", (), {"s": line})()) == 0


def test_reader_is_registered_after_the_report_readers():
    names = [r.NAME for r in READERS]
    assert prose_intel.NAME in names
    assert names.index(prose_intel.NAME) > names.index("packages")


# -- the engine rule -----------------------------------------------------------------------------------------------
def test_log_intel_gpu_needs_no_nvidia_or_amd_fact():
    said = {"intel_gpu_said": "Intel Iris Xe Graphics"}
    assert log_intel_gpu(said)
    assert not log_intel_gpu({**said, "nvidia_gpu": "GeForce RTX 3060"})  # a laptop's dGPU named elsewhere
    assert not log_intel_gpu({**said, "driver_cuda": "12.2"})  # nvidia-smi's CUDA: an NVIDIA driver answered
    assert not log_intel_gpu({**said, "amd_gpu": "RX 6600"})  # two vendors named: not decided here
    assert not log_intel_gpu({})


def test_recast_of_cuda_lines_on_the_reporters_intel_gpu():
    said = {"intel_gpu_said": "Intel Iris Xe Graphics"}
    assert recast_cause("framework-cpu-only", ("no-cuda-in-build",), None, said) == "framework-vendor-mismatch"
    assert recast_cause("driver-too-old", ("no-nvidia-driver",), None, said) == "framework-vendor-mismatch"
    assert recast_cause("no-gpu-driver", ("cuda-build-no-nvidia",), None, said) == "framework-vendor-mismatch"
    # without the sentence, or beside an NVIDIA GPU, each line keeps its own cause
    assert recast_cause("driver-too-old", ("no-nvidia-driver",), None, {}) is None
    assert recast_cause("framework-cpu-only", ("no-cuda-in-build",), None,
                        {**said, "nvidia_gpu": "GeForce MX450"}) is None


# -- the spent-set threads the family came from --------------------------------------------------------------------
def test_lora_scripts_101_iris_xe_cuda_35_is_a_vendor_mismatch_with_intel_advice():
    doc = _doc(os.path.join(SPENT, "acceptance14", "pastes",
                            "lora-scripts-101-iris-xe-win11-torch-cu118-bitsandbytes-driver-insufficient.txt"))
    top = doc["matches"][0]
    assert top["id"] == "framework-vendor-mismatch"
    assert "Intel" in top["fixes"][0] and "xpu" in top["fixes"][0]
    assert not any(m["id"] == "driver-too-old" for m in doc["matches"])  # no driver upgrade for a GPU with no NVIDIA driver
    assert not any("nvidia-smi" in f for f in top["fixes"])


def test_immich_11_easyocr_fallback_on_an_rx_7900_xtx_is_a_vendor_mismatch():
    doc = _doc(os.path.join(SPENT, "acceptance17", "pastes",
                            "immich-tiktok-remover-11-arch-rx-7900-xtx-easyocr-neither-cuda-nor-mps-defaulting-to-cpu.txt"))
    assert paste_top(doc) == "framework-vendor-mismatch"
    assert "Neither CUDA nor MPS" in doc["matches"][0]["evidence"]


def test_easyocr_fallback_alone_names_no_cause():
    line = "Neither CUDA nor MPS are available - defaulting to CPU. Note: This module is much faster with a GPU."
    assert explain_text_document(line)["matches"] == []
    # beside an NVIDIA GPU the line still does not say why CUDA was unavailable
    assert explain_text_document("My graphics card is GTX 1080 ti.\n" + line)["matches"] == []


def test_easyocr_signature_is_in_this_helpers_block_without_a_new_anchor():
    check_section_signatures("# ---- cpuonly29 ----", ["easyocr-neither-cuda-nor-mps-defaulting-to-cpu"])


# -- torch's "Torch not compiled with CUDA enabled" retold in Chinese ------------------------------------------------
def test_chinese_retelling_of_torch_not_compiled_with_cuda_is_cpu_build_evidence():
    from helpers import seen_evidence

    # chatchat-space/Langchain-Chatchat#1453: "... starting it always says torch did not enable CUDA when compiled"
    line = ("所有的库全部安装完成了，cuda是12.2，python是3.8.6，显卡是RTX 2080 22G显存版，配置应该够，跑6b 32k用CPU都能跑起来，"
            "配置文件里面改成cuda每次启动一半就说torch编译时未激活cuda，求大神帮帮忙啊！！")
    assert "cpu-build-said" in seen_evidence(line)
    assert "cpu-build-said" in seen_evidence("每次启动一半就说torch编译时未激活cuda")
    # a question is not a statement
    assert "cpu-build-said" not in seen_evidence("是不是torch编译时未激活cuda？")


def test_langchain_chatchat_1453_rtx_2080_is_framework_cpu_only():
    doc = _doc(os.path.join(SPENT, "acceptance17", "pastes",
                            "langchain-chatchat-1453-zh-rtx-2080-22g-cuda-12.2-torch-not-compiled-with-cuda.txt"))
    assert paste_top(doc) == "framework-cpu-only"
    assert "download.pytorch.org/whl/cu" in doc["matches"][0]["fixes"][0]


# -- healthy controls (real reports of earlier sets, cited in their folders' READMEs) stay silent ----------------------
PASTES = os.path.join(HERE, "data", "pastes")


@pytest.mark.parametrize("rel", [
    # a +cpu torch on a machine with no GPU that only wanted the CPU
    "dev/torch-137846-collect-env-2.8-cpu-windows-xpu-lines.txt",
    "dev2/ultralytics-24356-banner-8.4.1-torch-2.5.1-cpu-xeon-yoloe-export.txt",
    "holdback/detectron2-2519-collect-env-arch-linux-torch-1.7.1-no-cuda.txt",
    # a CUDA torch on an NVIDIA host
    "dev/torch-51858-collect-env-2.0.1-cu117-gtx1050ti-windows.txt",
    "dev/ultralytics-5359-yolo-checks-rtx3090-cu121-segfault.txt",
    # an XPU torch on Intel GPUs (the Intel rule must not speak where nothing asked for CUDA)
    "controls26/intel-triton-7308-collect-env-2.13-xpu-b580-llama-perf-regression.txt",
    "pastes20c/xpu-137846-collect-env-2.8-xpu-4x-max1550-healthy.txt",
    "pastes20d/xpu-pr194487-collect-env-2.13-xpu-wsl2-igpu-0xb080-control.txt",
])
def test_healthy_controls_stay_silent(rel):
    assert paste_top(_doc(os.path.join(PASTES, rel))) == "none"
