"""`envcheck explain` on a JIT compiler older than the GPU (issue 20, nvrtc38): CuPy's NVRTC, Numba's NVVM, and the
LLVM inside Triton and Taichi, each compiling kernels at run time for a GPU whose architecture it predates
(tests/data/nvrtc38/logs; its README lists file, label and the thread of each). What the dev part's misses led to:

* ``gpu-arch-unsupported``: LLVM's NVPTX back end "'sm_120' is not a recognized processor for this target (ignoring
  processor)" (Triton's bundled LLVM before Triton 3.3 on an RTX 50xx, Taichi 0.7's LLVM 10 on an RTX 30xx), with the
  architecture it names as a fact (``sm``). LLVM goes on with a generic target, so the line ranks below any other
  match of the text (``says`` ``jit-notice``): Triton's own ptxas refusing the same sm_XY keeps its reading.

The held-back part (heldout/nvrtc38-held, set aside before the rule) is scored by scripts/score_explain.py and
scripts/score_pastes.py, never asserted here."""

import os
import sys

import pytest

from envcheck.explain import explain_text
from envcheck.explain.kb import load_kb

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (assert_top_is_label, check_batch_threads_new, check_log_batch,  # noqa: E402
                     check_section_signatures, log_readme_rows)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
BATCH = "nvrtc38"
DEV = os.path.join(HERE, "data", BATCH, "logs")
HELD = os.path.join(ROOT, "heldout", BATCH + "-held", "logs")
DEV_ROWS = log_readme_rows(DEV)
SIGNATURE = "llvm-nvptx-processor-not-recognized"
#: the line as Triton prints it on an RTX 5090 (woct0rdho/triton-windows#93, fishaudio/fish-speech#907)
WARNING = "'sm_120' is not a recognized processor for this target (ignoring processor)"


def _read(name: str) -> str:
    with open(os.path.join(DEV, name), encoding="utf-8") as fh:
        return fh.read()


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    check_log_batch(DEV, HELD, min_dev=11, min_held=7, min_total=18, min_healthy=4, min_none=2, labels_txt=False,
                    held_listed=True)


def test_no_thread_is_in_the_batch_nor_in_an_earlier_set():
    check_batch_threads_new(DEV_ROWS, HELD, BATCH)


def test_the_rule_is_in_its_section_and_adds_no_cover_anchor():
    check_section_signatures("# ---- nvrtc38 ----", (SIGNATURE,))


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS])
def test_dev_log_top_match(name, label):
    assert_top_is_label(explain_text(_read(name)), name, label, {})


def test_the_architecture_named_is_a_fact_and_the_fix_is_the_jit_compilers():
    top = explain_text(_read("taichi-1980-rtx3080-llvm10-sm86-not-recognized-invalid-ptx.log"))[0]
    assert top.signature == SIGNATURE and top.captures.get("sm") == "sm_86"
    assert "Triton" in top.fixes[0] and "Taichi" in top.fixes[0]


@pytest.mark.parametrize("cpu", ["cortex-a75", "x86_64", "apple-m4", "znver1", "esp32"])
def test_a_cpu_name_in_the_same_sentence_is_no_gpu_architecture(cpu):
    # LLVM prints the same sentence for any processor name it lacks (rustc's target-cpu, Julia, mold): only sm_XY reads
    text = f"'{cpu}' is not a recognized processor for this target (ignoring processor)\n" * 3
    assert not [m for m in explain_text(text) if m.signature == SIGNATURE]


def test_ptxas_refusing_the_same_architecture_keeps_its_reading():
    # fishaudio/fish-speech#907 prints both: the LLVM warnings, then Triton's bundled ptxas exiting 255 for sm_120
    # (read as cuda-toolkit-mismatch since logs20j); the warning of a compiler that goes on ranks below it
    ptxas = ("E0303 11:40:42.533000 713 site-packages/torch/_inductor/runtime/triton_heuristics.py:533] "
             "subprocess.CalledProcessError: Command '['/home/eason/anaconda3/envs/fish-speech/lib/python3.10/"
             "site-packages/triton/backends/nvidia/bin/ptxas', '-lineinfo', '-v', '--gpu-name=sm_120', "
             "'/tmp/tmpdy7phawp.ptx', '-o', '/tmp/tmpdy7phawp.ptx.o']' returned non-zero exit status 255.")
    matches = explain_text((WARNING + "\n") * 4 + ptxas + "\n")
    assert matches[0].id == "cuda-toolkit-mismatch", [(m.id, m.score) for m in matches]
    assert any(m.signature == SIGNATURE for m in matches[1:])


def test_alone_the_warning_is_the_cause():
    matches = explain_text((WARNING + "\n") * 2)
    assert matches and matches[0].id == "gpu-arch-unsupported" and matches[0].captures.get("sm") == "sm_120"


def test_the_literal_lives_under_an_existing_anchor():
    kb = load_kb()
    sig = next(s for s in kb.signatures if s.name == SIGNATURE)
    assert all(any(c in lit and c != lit for c in kb.cover) for lit in sig.literals)
    assert "is not a recognized processor for this target" not in kb.cover
