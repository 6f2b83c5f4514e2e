"""Bug-report pastes collected for issue 20, fifth round (pastes20p): 34 new real reports (2017-2026, many trackers) of
three cause families a report often shows only in prose - a CPU-only framework build, a driver older than the build
needs, a GPU the build's CUDA cannot target - plus healthy / other-cause controls; labelled before envcheck was run on
them; a seeded half is held back (heldout/pastes20p, scored by scripts/score_pastes.py, not here).

What this round reads and decides (reader ``paste/readers/prose_cause.py``, rules ``engine/prose_causes.py``):

* a torch version with PyTorch's CPU-only label ``+cpu`` named on a line (SD.Next's ``Torch 2.0.1+cpu``, a
  ``torch-2.6.0+cpu`` rollback), the text saying torch is the CPU build, openai-whisper's "FP16 is not supported on
  CPU; using FP32 instead" (whisper/transcribe.py) beside an NVIDIA GPU: ``framework-cpu-only`` where the GPU was wanted;
* a sentence saying the driver is too old / not supported, or that updating it fixed the failure; a card said to
  support CUDA X at most below the torch build's CUDA: ``driver-too-old``;
* a GPU model and a CUDA version in one sentence, or the text's GPU and its torch build's CUDA, where no build of that
  CUDA reaches the GPU (the matrix's toolkit targets) or torch's own capability check (``CUDA_VERSION <= 9000`` on a
  compute capability 7.5+ GPU, pytorch#21468) says it needs a newer CUDA: ``gpu-arch-unsupported``.

Real samples: tests/data/pastes/pastes20p/ (README.md cites each thread and gives its label).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers.prose_gpu import modern_gpu_models
from tests.helpers import assert_top_is_label, check_hand_written_facts, doc_matches, paste_readme_rows, seen_evidence

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "pastes20p"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}

#: the working part's misses, each with the answer it gets today (so that a fix, or a new wrong answer, is seen)
KNOWN_MISSES = {
    # "RTX 2080 requires at least CUDA 10", "CUDA 10 instead of 9": versions without a minor are not read
    "deep-person-reid-375-rtx2080-requires-cuda-10-not-9.txt": None,
    # "The 5070Ti cannot work with CUDA 11.8": said, but with no failure in the text and not about the reporter's own
    # machine (a general statement is no evidence of this machine's cause)
    "diff-gaussian-rasterization-97-rtx5070ti-cuda-11.8.txt": None,
    # the K80 (sm_37) and "1.8.1 + cu111": CUDA 11.1 can target 3.7, and the 1.8.1 cu111 arch list is not in the matrix
    "pytorch-61411-k80-torch-1.8.1-cu111-is-available-false.txt": None,
}
#: facts the text makes certain that are not read yet: (field, the value read today)
KNOWN_FACT_MISSES = {
    # (facts20s: read now - the past-tense prose line states nothing; the possessive driver key is read)
}


def _doc(text: str) -> dict:
    return explain_text_document(text)


_matches = doc_matches


def _ids(text: str) -> list:
    return [m["id"] for m in _doc(text).get("matches") or []]


_seen = seen_evidence


def test_the_set_is_whole():
    assert len(ROWS) == 17
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert sum(1 for v in ROWS.values() if v == "none") >= 4
    held = {p.name for p in (ROOT / "heldout" / "pastes20p").glob("*.txt")}
    assert len(held) == 17 and not held & set(ROWS)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_top_cause_is_the_label(name):
    doc = _doc((DATA / name).read_text(encoding="utf-8"))
    assert_top_is_label(_matches(doc), name, ROWS[name], KNOWN_MISSES)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_hand_written_facts(name):
    want = json.loads((DATA / name).with_suffix(".facts.json").read_text())
    got = _doc((DATA / name).read_text(encoding="utf-8")).get("facts") or {}
    if name in KNOWN_FACT_MISSES:
        key, today = KNOWN_FACT_MISSES[name]
        cur = got
        for part in key.split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        assert cur == today
        return
    check_hand_written_facts(want, got)


# --- the reader: GPU models in sentences -------------------------------------------------------------------------------
@pytest.mark.parametrize("line,want", [
    ("My machine is Ubuntu 16.04, RTX2080Ti.", ["RTX 2080 Ti"]),  # katerakelly/oyster#11
    ("我用的是RTX3060(12G),每次运行项目都显示是cpu。", ["RTX 3060"]),  # yatengLG/ISAT_with_segment_anything#12
    ("The 5070Ti cannot work with CUDA 11.8 and the corresponding Torch", ["RTX 5070 Ti"]),  # diff-gaussian#97
    ("Hi! I have got several 3080 GPUs. However, I find some problems.", ["RTX 3080"]),  # pytorch#45021
    ("- **GPU:** NVIDIA GeForce RTX 4060 Laptop GPU", ["RTX 4060"]),  # stemdeck#644
    ("I have 2 GTX 1070 GPUs. Linuxmint 18.3.", ["GTX 1070"]),  # pytorch#16936
    # decipher#8: a bare number said as the reporter's card (pastes20s: "I have a 3060", "my 4090", "your 4090")
    ("So I have a 3060 and a core i9-12900kf", ["RTX 3060"]),
    ("Running 1920 x 1080 on a 1080 monitor", []),  # a resolution and a screen are no GPU
    ("numpy 1.26 and opencv 4.2050 ti", []),
])
def test_modern_gpu_models_in_a_sentence(line, want):
    assert modern_gpu_models(line) == want


# --- the reader: each evidence, and what is not it ---------------------------------------------------------------------
@pytest.mark.parametrize("line,key", [
    ("22:47:27-752280 INFO     Torch 2.0.1+cpu", "torch-cpu-label"),  # vladmandic/sdnext#1424
    ("falls back to `torch-2.6.0+cpu`, preventing native utilization of discrete GPUs", "torch-cpu-label"),
    ("# Torch installed without gpu support - Solved", "cpu-build-said"),  # resemble-ai/chatterbox#95
    ("when debug torch cpu version installed. how to solve this.", "cpu-build-said"),  # tonybaloney/CSnakes#750
    ("Hi, noticing that trying to `pip install torch` resulted in the CPU version of torch stable.", "cpu-build-said"),
    ("Windows下使用\"pip install -r requirements.txt\"默认安装为CPU版本的torch", "cpu-build-said"),  # TaskMatrix#171
    ("UserWarning: FP16 is not supported on CPU; using FP32 instead", "cpu-run"),  # whisper/transcribe.py
    ("My Nvidia driver is not supported for the pytorch-gpu version that was requested", "driver-said-old"),
    ("驱动版本太低了，换了新驱动就好", "driver-said-old"),
    # "Solved by updating the NVIDIA driver to 535." and "更新显卡驱动后解决了" are a thread's resolution: read by
    # paste/readers/resolution.py, mapped to driver-too-old by compat_matrix/resolutions.toml (tests/test_resolve22.py)
    ("it runs on the CPU, torch is not compiled with CUDA it seems", "cpu-build-said"),
    ("My computer graphics card can only support cuda9.1 and", "driver-cuda-said"),
    ("nvidia-smi shows CUDA Version: 11.4 but torch says", "driver-cuda-said"),
    ("解决了，我的Cuda版本是10.2，不支持RTX3060，升级到11.1就可以了", "gpu-cuda-pair"),
    ("I am using Pytorch 1.0.1 and cuda 9.0 with a RTX 2080 Ti GPU.", "gpu-cuda-pair"),  # pytorch#18620
    ("How to switch CPU to GPU ?", "gpu-wanted"),
    ("pip3 install torch --index-url https://download.pytorch.org/whl/cu128", "gpu-wanted"),
])
def test_reader_evidence(line, key):
    assert key in _seen(line)


@pytest.mark.parametrize("line,key", [
    ("torchvision 0.15.2+cpu requires torch==2.0.1", "torch-cpu-label"),  # another package's label
    ("intel_extension_for_pytorch 2.0.100+cpu", "torch-cpu-label"),
    ("Is it the cpu version of torch?", "cpu-build-said"),  # a question
    ("Make sure torch is not the CPU version", "cpu-build-said"),
    ("pip installed the onnxruntime cpu version", "cpu-build-said"),  # no framework
    ("I updated the driver but it still fails", "driver-said-old"),
    ("AssertionError: Torch not compiled with CUDA enabled", "cpu-build-said"),  # the message: the knowledge base's
    ("Did updating the driver fix it?", "driver-said-old"),
    ("The driver is not supported on this old kernel", "driver-said-old"),  # not about the build
    ("I have CUDA 12.1 installed on my machine", "driver-cuda-said"),  # a toolkit, not the driver's CUDA
    ("RTX 3090 and RTX 2080 Ti with CUDA 11.1", "gpu-cuda-pair"),  # two GPUs: which goes with the CUDA is not said
])
def test_reader_does_not_read(line, key):
    assert key not in _seen(line)


def test_pair_with_a_gtx_model_both_gpu_readers_name():
    assert _seen("My GTX 1080Ti with cuda 9.0 fails")["gpu-cuda-pair"].lower().startswith("gtx 1080 ti | 9.0 | 0 |")


def test_pair_takes_the_oldest_cuda_of_an_upgrade_and_a_compact_label():
    assert _seen("解决了，我的Cuda版本是10.2，不支持RTX3060，升级到11.1就可以了")["gpu-cuda-pair"].startswith("RTX 3060 | 10.2 | 1 |")
    assert _seen("torch 2.6.0+cu124 on my RTX 5090 fails")["gpu-cuda-pair"].startswith("RTX 5090 | 12.4 | 0 |")
    assert _seen("conda install pytorch==1.0.0 cuda100 -c pytorch, i use RTX 3060")["gpu-cuda-pair"].startswith(
        "RTX 3060 | 10.0 |")


# --- the engine: what the evidence decides -----------------------------------------------------------------------------
_FAIL = ">>> torch.cuda.is_available()\nFalse\n"


@pytest.mark.parametrize("text", [
    # the toolkit's targets: CUDA 10.2 has no 8.x target (compat_matrix/cuda.toml [[targets]])
    "My RTX 3060 with CUDA 10.2 does not work.\n" + _FAIL,
    "torch 2.6.0+cu124 on my RTX 5090 fails\n" + _FAIL,
    # torch's own capability check: CUDA <= 9.0 on compute capability 7.5 (pytorch#21468)
    "I am using Pytorch 1.0.1 and cuda 9.0 with a RTX 2080 Ti GPU.\n"
    "RuntimeError: cublas runtime error : the GPU program failed to execute at THCBlas.cu:441\n",
])
def test_gpu_the_stated_cuda_cannot_reach_is_arch_unsupported(text):
    assert _ids(text)[:1] == ["gpu-arch-unsupported"]


@pytest.mark.parametrize("text", [
    "My RTX 3060 with CUDA 11.1 does not work.\n" + _FAIL,  # 11.1 targets 8.6: the CUDA is not why
    "I am using cuda 9.0 with a GTX 1080 Ti.\nRuntimeError: cublas runtime error\n",  # 6.1: in reach
    # a true general statement, no failure, not the reporter's machine (pytorch#54408, a benchmark question)
    "Since RTX 3090 cannot use PyTorch with CUDA 10.2, it is a little pity that the latest GPU cannot show itself.\n",
])
def test_no_arch_verdict_where_the_cuda_reaches_or_nothing_failed(text):
    assert "gpu-arch-unsupported" not in _ids(text)


def test_a_collect_env_torch_built_with_cuda_9_on_turing_is_arch_unsupported():
    # pytorch/pytorch#20860's collect_env (torch 1.1.0 built with CUDA 9.0.176, an RTX 2080 Ti) is held back; the same
    # report form, written here: a cublas failure is the symptom, the build's CUDA the cause
    text = ("Collecting environment information...\nPyTorch version: 1.1.0\nIs debug build: No\n"
            "CUDA used to build PyTorch: 9.0.176\n\nOS: Ubuntu 18.04.2 LTS\nPython version: 3.6\n"
            "Is CUDA available: Yes\nCUDA runtime version: 10.0.130\nGPU models and configuration: GPU 0: GeForce RTX 2080 Ti\n"
            "Nvidia driver version: 410.72\ncuDNN version: Could not collect\n"
            "RuntimeError: cublas runtime error : the GPU program failed to execute at /pytorch/aten/src/THC/THCBlas.cu:450\n")
    top = _doc(text)["matches"][0]
    assert top["id"] == "gpu-arch-unsupported"
    assert "needs a build made with CUDA 10.0" in top["machine"][0]
    # the same report with a CUDA 10.0 build: torch's check is met, and 10.0 targets 7.5
    assert "gpu-arch-unsupported" not in _ids(text.replace("9.0.176", "10.0.130"))


@pytest.mark.parametrize("text,top", [
    # a +cpu torch and the GPU wanted (vladmandic/sdnext#1424's log, cut)
    ("22:47:26-482579 INFO     nVidia CUDA toolkit detected\n22:47:27-752280 INFO     Torch 2.0.1+cpu\n"
     "How do i get it back to the gpu?\n", "framework-cpu-only"),
    # whisper's warning beside an NVIDIA GPU the text names (dsymbol/decipher#8)
    ("So I have an RTX 3060 and when im using decipher im getting: UserWarning: FP16 is not supported on CPU; using FP32 "
     "instead\n", "framework-cpu-only"),
    # the reporter's own conclusion beside is_available() False (BayesWatch/nas-without-training#2)
    ("torch.cuda.is_available() returning False.\nMy Nvidia driver is not supported for the pytorch-gpu version.\n",
     "driver-too-old"),
])
def test_prose_causes(text, top):
    assert _ids(text)[:1] == [top]


@pytest.mark.parametrize("text", [
    "Torch 2.0.1+cpu\nRunning the model on my laptop without a graphics card.\n",  # nothing shows a GPU was wanted
    "UserWarning: FP16 is not supported on CPU; using FP32 instead\n",  # whisper on the CPU, no GPU named
    "My RTX 3060 is fast. UserWarning: FP16 is not supported on CPU; using FP32 instead\n"
    "PyTorch version: 2.1.0+cu121\n",  # the torch shown is a CUDA build: the CPU run has another reason
    "My Nvidia driver is not supported for the pytorch-gpu version.\n",  # said, but nothing failed in the text
    "2.0.100+cpu\nIPEX on my Xeon with an NVIDIA GPU idle\n",  # a bare +cpu that is no torch release
    # another vendor's GPU: "use the GPU" is not NVIDIA's, no CUDA advice follows
    "torch 2.11.0+cpu\nMy Intel Arc A770 is not used. How do I use the GPU?\n",
    # an issue template's question, answered "no" (transformers' env block)
    "- PyTorch version (GPU?): 2.3.0+cpu (False)\n- Using GPU in script?: no\n",
])
def test_prose_causes_stay_silent(text):
    ids = _ids(text)
    assert "framework-cpu-only" not in ids and "driver-too-old" not in ids


def test_driver_cuda_said_below_the_build():
    # "my card only supports CUDA X" is the driver's highest CUDA; below the build's (torch 1.3.0+cu101) -> too old
    text = ("My graphics card can only support cuda 9.1.\n>>> import torch\n>>> torch.__version__\n'1.3.0+cu101'\n"
            ">>> torch.cuda.is_available()\nFalse\n")
    assert _ids(text)[:1] == ["driver-too-old"]
    same = text.replace("cuda 9.1", "cuda 10.2")  # a driver for 10.2 runs a 10.1 build
    assert "driver-too-old" not in _ids(same)


def test_driver_cuda_said_below_every_build_of_the_release():
    # torch 2.0.1's CUDA builds are cu117 and cu118 (compat_matrix/torch.toml): a driver for CUDA 10.2 runs neither
    text = ("I am using torch 2.0.1 on Ubuntu.\nMy driver only supports CUDA 10.2, so the GPU is not found.\n"
            ">>> torch.cuda.is_available()\nFalse\n")
    assert _doc(text)["facts"]["frameworks"]["torch"]["version"] == "2.0.1"
    assert _ids(text)[:1] == ["driver-too-old"]
    assert "driver-too-old" not in _ids(text.replace("CUDA 10.2", "CUDA 11.8"))  # 11.8 runs both
