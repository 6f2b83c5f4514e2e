"""attack44: session 20's new knowledge-base rules, paste readers and engine rules attacked with healthy texts that use
their words (a warning of what may happen, an out-of-memory error said to be gone, a torch build the text names beside
a library error), and hostile input through the new wordings (time grows linearly, nothing crashes).

Real texts are quoted as they were printed or posted (URL at each); constructed lines probe a boundary and say so.
Time is checked by growth (a 10x longer input may not cost much more than 10x), never by an absolute budget.
"""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

from envcheck.explain.document import explain_text_document


def _doc(text: str) -> Dict[str, Any]:
    return explain_text_document(text)


def _ids(text: str) -> List[str]:
    return [m.get("id") for m in _doc(text).get("matches", [])]


# ---- out of GPU memory said (mem31's gpu-out-of-memory-said) ----

# real: maskrcnn_benchmark's warning, printed by every healthy multi-image training run
# (mlcommons/training_results_v1.0, NVIDIA/results/dgxa100_ngc21.05_pytorch/maskrcnn/result_0.txt line 6211;
# benchmarks/data/real-long/10-...): a warning of what may happen, not a failure
MASKRCNN_WARNING = (
    "2021-05-16 19:25:23,002 maskrcnn_benchmark.data.build WARNING: When using more than one image per GPU you may "
    "encounter an out-of-memory (OOM) error if your GPU does not have sufficient memory. If this happens, you can reduce "
    "SOLVER.IMS_PER_BATCH (for training) or TEST.IMS_PER_BATCH (for inference). For training, you must also adjust the "
    "learning rate and schedule length according to the linear scaling rule. See for example: "
    "https://github.com/facebookresearch/Detectron/blob/master/configs/getting_started/tutorial_1gpu_e2e_faster_rcnn_"
    "R-50-FPN.yaml#L14\n"
    "WARNING:maskrcnn_benchmark.data.build:When using more than one image per GPU you may encounter an out-of-memory "
    "(OOM) error if your GPU does not have sufficient memory. If this happens, you can reduce SOLVER.IMS_PER_BATCH (for "
    "training) or TEST.IMS_PER_BATCH (for inference).\n"
)


def test_maskrcnn_may_encounter_oom_warning_is_silent() -> None:
    assert "gpu-out-of-memory" not in _ids(MASKRCNN_WARNING)


@pytest.mark.parametrize("line", [
    # constructed: the reporter says the out-of-memory error is gone (a resolution, no failure of now)
    "I no longer get OOM after lowering the batch size to 8.",
    "After upgrading to 2.1 I stopped getting OOM errors.",
    "With gradient checkpointing it no longer runs out of memory on the GPU.",
    # constructed: a hypothetical, like the warning above
    "Larger batches might hit an out of memory error on 8 GB cards.",
    "You could run into an OOM error with the 70B model.",
])
def test_oom_said_gone_or_hypothetical_is_silent(line: str) -> None:
    assert "gpu-out-of-memory" not in _ids(line + "\n")


@pytest.mark.parametrize("line", [
    # the sentences the rule was written for stay read (qizhou000/VisEdit#5, PozzettiAndrea/ComfyUI-Sharp#2)
    "During execution, I received an out of memory error",
    "I am getting Out of Memory with 16GB of VRAM (RX 9070XT)",
])
def test_oom_said_still_read(line: str) -> None:
    assert "gpu-out-of-memory" in _ids(line + "\n")


# ---- cuFFT's internal error against the torch build the text names (arch31) ----

# real: myshell-ai/MeloTTS#80 (title, then a comment): torch 2.0.1+cu118 on an RTX 4090 is a build new enough for the
# GPU (CUDA 11.8 builds sm_89), said working; explain said "likely, not verified: ... the CUDA of the build in use is
# not in the text"
MELOTTS_80 = (
    "# cuFFT error: CUFFT_INTERNAL_ERROR from training script\n"
    "\n"
    "In my case, the training script is working with torch 2.0.1+cu118, nvidia drivers 530 and rtx 4090.\n"
    "Have you tried changing torch version?\n"
)


def test_cufft_with_named_new_enough_torch_build_is_dropped() -> None:
    assert "gpu-arch-unsupported" not in _ids(MELOTTS_80)


def test_cufft_with_named_old_torch_build_still_said() -> None:
    # constructed after pytorch/pytorch#89556 (1.13.0+cu116 on an RTX 4090), said in a sentence instead of the report
    doc = _doc("I have an RTX 4090 and torch 1.13.0+cu116.\nRuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR\n")
    m = [x for x in doc["matches"] if x["id"] == "gpu-arch-unsupported"]
    assert m and any("11.6" in n for n in m[0].get("notes", []))


def test_cufft_with_sentence_build_cu121_dropped() -> None:
    # constructed: the pytorch/pytorch#120902 build (2.2.0+cu121) said in a sentence beside an RTX 4090
    assert "gpu-arch-unsupported" not in _ids(
        "I have an RTX 4090 and torch 2.2.0+cu121. RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR\n")


# ---- hostile input through the new wordings (constructed near misses: each line is a candidate of a session 20
# signature's literal and fails its regex late) ----

NEAR_MISSES = {
    "frameworks-conflict": "torch and tensorflow and jax with torch vs tf & torch " * 30 + " conflicting versions of numpy",
    "uv-pins": "Because torch==2.1 depends on nvidia-cudnn-cu12==8.9 and " * 15 + " you require something",
    "oom-title": "# " + "CUDA " * 40 + "out of memory " + "on the GPU " * 20 + "?",
    "oom-said": " ".join(["I got the CUDA", "received an", "the OOM"] * 60) + " fine",
    "root-said": "because " * 50 + "not running it as " * 30 + "rooted",
    "arch-said": "wheels " * 40 + "does not support " * 20 + "sm_ " * 30,
    "vendor-lib": "libamdhip64.so.6 " * 60 + " is present",
    "tf-symbol": "/a/" + "b" * 500 + ".so: undefined symbol: _ZN10tensorflow" + "A" * 5000,
    "unicode": "ＣＵＤＡ ｏｕｔ ｏｆ ｍｅｍｏｒｙ AMD显卡 \x00\x1b[31m\u202e out of memory on jetson " * 20,
}


@pytest.mark.parametrize("name", sorted(NEAR_MISSES))
def test_near_misses_are_read_whole(name: str) -> None:
    """1 MB of near-misses of the new wordings is read to its end and gives a document (no timing is asserted here:
    the project keeps timings in benchmarks/; attack44 measured these inputs linear, 0.1 MB to 1 MB to 4 MB, and every
    new wording faster than the old "no kernel image" one)."""
    line = NEAR_MISSES[name]
    n = max(1, 1_000_000 // (len(line) + 8))
    doc = explain_text_document("".join(f"{i} {line}\n" for i in range(n)).encode("utf-8"))
    assert doc["schema"] == "envcheck/explain/1"
    assert doc["lines_scanned"] == n


def test_control_characters_and_huge_lines_do_not_crash() -> None:
    text = ("\x00\x07\x1b[0m\r" + "I got an OOM " * 20000 + "\u202e\ufeff\n") * 3 + "gfx1100 is not supported\n"
    doc = explain_text_document(text)
    assert doc["schema"] == "envcheck/explain/1"


# ---- the kernel's OOM killer (mem31's linux-oom-killer-killed-process) ----

# real: ymoslem/OpenNMT-Tutorial#6 (Google Colab; "As verified by running `dmesg -T` this is a RAM out of memory error"):
# a memory cgroup's limit is the host's RAM given to a container or a job, never the GPU's memory
OPENNMT_6 = (
    "# RuntimeError: DataLoader worker (pid n) is killed by signal: Killed\n"
    "\n"
    "On Google Colab (free version), the training stops after some time with an error like:\n"
    "```\n"
    "RuntimeError: DataLoader worker (pid 629) is killed by signal: Killed.\n"
    "```\n"
    "\n"
    "As verified by running `dmesg -T` this is a RAM out of memory error.\n"
    "```\n"
    "Memory cgroup out of memory: Killed process 629 (onmt_train) total-vm:14119556kB, anon-rss:6538204kB, "
    "file-rss:80652kB, shmem-rss:16kB, UID:0 pgtables:13432kB oom_score_adj:0\n"
    "```\n"
)


def test_memory_cgroup_oom_is_not_the_gpu() -> None:
    assert "gpu-out-of-memory" not in _ids(OPENNMT_6)


@pytest.mark.parametrize("line", [
    # the kernel's own forms stay read (vetter/shoc#38's and pcyin/tranX#41's wordings, a syslog prefix)
    "[12345.678] Out of memory: Killed process 4242 (python3) total-vm:64000000kB",
    "Out of memory: Kill process 7248 (python3) score 266 or sacrifice child",
    "Jul  1 10:00:00 nano kernel: Out of memory: Killed process 25315 (python3) total-vm:1kB",
])
def test_kernel_oom_killer_still_read(line: str) -> None:
    # attack47: read where the text names a Jetson (tkDNN#194's own line), the host's RAM elsewhere
    assert "gpu-out-of-memory" in _ids("I am using jetson nano (4GB)\n" + line + "\n")
    assert "gpu-out-of-memory" not in _ids(line + "\n")


# ---- the repository's own controls that session 20's rules read ----

def test_when_an_oom_error_occurs_is_no_failure() -> None:
    # real: pytorch/pytorch#173049 (tests/data/pastes/res32, a control): a request about the message's tip text
    text = (
        "# OOM error suggests expandable_segments even when enabled\n"
        "\n"
        "When a CUDA OOM error occurs, PyTorch suggests trying `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` to "
        "avoid fragmentation.\n"
    )
    assert "gpu-out-of-memory" not in _ids(text)
