"""Helper jetson32 of issue 20: Jetson's own failures - the shell's bare "Killed" (the kernel's OOM killer) on a board
whose GPU shares the RAM, L4T's NvMap allocator lines beside a failure, and numpy 1.19.5's illegal instruction (its
OpenBLAS on the Jetson's ARMv8 cores: known-bad-combination) - each read only where the text shows a Jetson (and, for
the illegal instruction, numpy); the same words elsewhere stay silent (a desktop's "Killed" is its host RAM; an
illegal instruction with nothing of numpy names no cause; Apple silicon's stays lead20's python-arch-mismatch).

Real texts: tests/data/jetson32/logs and tests/data/jetson32/pastes (README: file, label, source, note); the held-back
part heldout/jetson32-held (logs/, pastes/) is scored with scripts/score_explain.py / score_pastes.py only, never
asserted here.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (check_dev_log, check_every_file_listed, check_paste_top_is_label,  # noqa: E402
                     check_section_literals, log_readme_rows, paste_readme_rows, top_match)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV_LOGS = os.path.join(HERE, "data", "jetson32", "logs")
DEV_PASTES = os.path.join(HERE, "data", "jetson32", "pastes")
HELD = os.path.join(ROOT, "heldout", "jetson32-held")
LOG_ROWS = log_readme_rows(DEV_LOGS)
PASTE_ROWS = paste_readme_rows(DEV_PASTES)
SECTION = "# ---- jetson32 ----"
SIGNATURES = {"jetson-numpy-openblas-illegal-instruction", "jetson-shell-killed",
              "jetson-nvmap-alloc-error-beside-failure"}
#: the anchors this section adds to the prefilter's cover (the brief's bound: at most 3 new ones)
NEW_ANCHORS = {"numpy", "killed", "nvmapmem"}

#: trt_pose#158's last lines (a Jetson Nano 2GB), and the same run with the board named in one sentence
_KILLED_RUN = (">>> model = trt_pose.models.resnet18_baseline_att(num_parts, 2 * num_links).cuda().eval()\n"
               "Killed\n")
_NUMPY_IMPORT = (">>> import numpy\n"
                 "Illegal instruction (core dumped)\n")


def test_the_batch_is_real_and_apart():
    held_logs = log_readme_rows(os.path.join(HELD, "logs"))
    held_pastes = paste_readme_rows(os.path.join(HELD, "pastes"))
    assert len(LOG_ROWS) >= 8 and len(PASTE_ROWS) >= 3 and len(held_logs) + len(held_pastes) >= 6
    urls = [r[2] for r in LOG_ROWS + held_logs] + [v[1] for v in list(PASTE_ROWS.values()) + list(held_pastes.values())]
    assert len(urls) == len(set(urls))  # each thread once, in one part only
    labels = [r[1] for r in LOG_ROWS + held_logs] + [v[0] for v in list(PASTE_ROWS.values()) + list(held_pastes.values())]
    assert labels.count("gpu-out-of-memory") >= 7 and labels.count("known-bad-combination") >= 7
    assert labels.count("none") >= 4
    for folder, names in ((DEV_LOGS, [r[0] for r in LOG_ROWS]), (DEV_PASTES, list(PASTE_ROWS))):
        check_every_file_listed(folder, names)


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in LOG_ROWS])
def test_dev_log(name, label):
    check_dev_log(DEV_LOGS, name, label, {})


@pytest.mark.parametrize("name,label", [(k, v[0]) for k, v in sorted(PASTE_ROWS.items())])
def test_dev_paste(name, label):
    check_paste_top_is_label(DEV_PASTES, name, label, {})


#: the spent sets' texts of this family that must keep their reading (labels as their READMEs give them)
SPENT_LOGS = {
    "heldout/jetson30-held/deep-daze-105-jetson-nano-4gb-imagine-killed-torch-1.8.log": "gpu-out-of-memory",
    # the control: NvMap's error 12 during a TensorRT build that succeeds stays silent
    "heldout/jetson30-held/healthy-trt-export-doc-orin-nano-nvmap-error-12-not-fatal.log": "none",
    # a Jetson's illegal instruction whose text names nothing of numpy (the thread's cause is not in it): silent
    "tests/data/logs/vlogs26/pytorch-64812-jetson-nano-lstm-seq-14-illegal-instruction-openblas-coretype.log": "none",
    "tests/data/logs/vlogs26/yolov3-1826-jetson-nano-torch-1.9.0-cpu-detect-fusing-layers-illegal-instruction.log":
        "none",
}


@pytest.mark.parametrize("path,label", sorted(SPENT_LOGS.items()))
def test_spent_logs_keep_their_reading(path, label):
    check_dev_log(os.path.join(ROOT, os.path.dirname(path)), os.path.basename(path), label, {})


def _top(text):
    m = top_match(text)
    return (m.id, m.signature) if m else None


def test_a_bare_killed_is_a_jetsons_shared_memory_only():
    assert top_match(_KILLED_RUN) is None  # no machine named: the host's RAM as well as a Jetson's
    assert top_match("My computer: RTX 3090, 64GB Ram\n" + _KILLED_RUN) is None
    on_nano = "Board: Jetson Nano 2GB (JetPack 4.6)\n" + _KILLED_RUN
    assert _top(on_nano) == ("gpu-out-of-memory", "jetson-shell-killed")
    # a Jetson named beside a desktop GPU leaves the failing machine undecided (attack36): silent
    assert top_match("It works on my Jetson Nano but not on my desktop RTX 3090.\n" + _KILLED_RUN) is None


@pytest.mark.parametrize("line", [
    'When I follow the steps I just get "Killed" after I run inference on the Jetson Nano.',
    "The _Killed_ message on a Jetson Nano means you've run out of RAM.",
])
def test_a_quoted_killed_on_a_jetson(line):
    assert _top(line) == ("gpu-out-of-memory", "jetson-shell-killed")


@pytest.mark.parametrize("text", [
    # a word of prose, a title, a DataLoader worker's signal: not the shell's report of the OOM killer
    "Jetson Nano: the process gets killed when I run object_detection_zed.py",
    "# Killed\nOn a brand new jetson while running the test",
    "Jetson TX2: RuntimeError: DataLoader worker (pid 19597) is killed by signal: Killed.",
])
def test_killed_in_other_words_is_not_the_shell_line(text):
    # (edge33) "the process gets killed" said on a Jetson is read since session 21 by jetson-killed-said (the OOM
    # killer in the reporter's words, tests/test_edge33.py); none of these is the shell's own line
    m = top_match(text)
    assert m is None or m.signature != "jetson-shell-killed"


def test_any_gpu_failure_outranks_the_bare_killed():
    text = ("Jetson AGX Orin\n"
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\n" + _KILLED_RUN)
    assert top_match(text).signature == "torch-cuda-oom"


def test_nvmap_lines_speak_only_beside_a_failure():
    nvmap = "NvMapMemAllocInternalTagged: 1075072515 error 12\nNvMapMemHandleAlloc: error 0\n"
    assert top_match(nvmap) is None
    assert top_match(nvmap + "TensorRT: export success\n") is None
    assert _top(nvmap + "TensorRT INT8 export failed\n") == ("gpu-out-of-memory",
                                                            "jetson-nvmap-alloc-error-beside-failure")
    # the NvMap lines name the board a Jetson: the bare Killed after them reads as its shared memory
    assert _top(nvmap + "Killed\n")[0] == "gpu-out-of-memory"


def test_numpys_illegal_instruction_on_a_jetson_is_the_known_bad_combination():
    on_nx = "I'm working on a Jetson Xavier NX (arm64) with numpy 1.19.5 from pip.\n" + _NUMPY_IMPORT
    m = top_match(on_nx)
    assert (m.id, m.signature) == ("known-bad-combination", "jetson-numpy-openblas-illegal-instruction")
    assert "OPENBLAS_CORETYPE=ARMV8" in m.fixes[0] and "numpy==1.19.4" in m.fixes[0]


@pytest.mark.parametrize("text", [
    # nothing of numpy: a Jetson's illegal instruction alone names no cause (dbolya/yolact#842)
    "I am using a jetson nano 4 Gb with Ubuntu 20 and cuda_10.2\nIllegal instruction (core dumped)\n",
    # numpy but no Jetson (an x86 box, a Raspberry Pi): another cause
    "numpy 1.19.5 on my Raspberry Pi 4\n" + _NUMPY_IMPORT,
    # a path's numpy folder is not numpy named
    "Jetson Nano\n  File \"/usr/lib/python3/dist-packages/numpy/__init__.py\", line 140\nIllegal instruction\n",
])
def test_the_illegal_instruction_stays_silent_elsewhere(text):
    m = top_match(text)
    assert m is None or m.id != "known-bad-combination"


def test_apple_silicon_keeps_its_own_reading():
    text = "MacBook Pro M1, python 3.9 from Intel Homebrew\n>>> import numpy\nzsh: illegal hardware instruction  python\n"
    m = top_match(text)
    assert m is not None and m.id == "python-arch-mismatch"


def test_section_literals_and_cover():
    assert check_section_literals(SECTION, SIGNATURES, NEW_ANCHORS, (DEV_LOGS, DEV_PASTES)) == SIGNATURES
