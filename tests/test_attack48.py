"""attack48: session 22's out-of-memory wordings on texts whose "OOM" is the host's RAM (issue 20: "nothing false said").

The false statements found (real texts, tests/data/attack48/README.md):

* resolutions.toml's outcome row for ``gpu-out-of-memory`` read "This fixed the OOM issue." (a storage benchmark's
  pull request, argonne-lcf/dlio_benchmark#217) as "the text says what fixed it" of "The GPU ran out of memory": a bare
  "OOM" names no GPU. The row now needs the GPU word (GPU / CUDA / VRAM) in the outcome itself, as its own source
  ("I managed to solve the GPU out of memory issue", facebookresearch/muss#37) has.
* gpu-out-of-memory-title read a pull request's title "fix excessive memory usage that causes OOM" (datasets held in
  host RAM, mindspore-lab/mindocr#112) as the GPU's out-of-memory: the veto gpu-out-of-memory-denied-or-supposed now
  also takes a fix of something "that causes / leads to OOM" (a change that removes it, not a failure seen).
* the lead's cublas-arch-mismatch read CUBLAS_STATUS_ARCH_MISMATCH as "The GPU's architecture ... is not compiled into
  this build" with "Run on a GPU of compute capability 5.0 or newer" on a Tesla V100 (NVIDIA/FasterTransformer#286)
  and an RTX 3090 whose cuBLAS 11.4.1 had a bug (JuliaGPU/CUDA.jl#609): cuBLAS documents the status as "usually
  caused by compute capability lower than 5.0". It now says ``cublas-arch-check``: dropped where every GPU the text
  names is known and of 5.0 or more (explain/machine.py); cuBLAS's own status match stays.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_every_file_listed, paste_readme_rows, readme_rows  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "tests" / "data" / "attack48"
#: a bare "# Out of memory" title whose body says CPU RAM: mem36 keeps a bare title as the GPU's (left as a known miss)
KNOWN_MISSES = {"parseq36-out-of-memory-cpu-ram-dataloader.txt": "gpu-out-of-memory"}


ROWS = {r[0]: r[1:3] for r in readme_rows(DEV, source=r"https://\S+")}


def _ids(text: str):
    return [m.get("id") for m in explain_text_document(text).get("matches") or []]


def test_the_batch_is_real():
    check_every_file_listed(DEV, ROWS)
    held = paste_readme_rows(ROOT / "heldout" / "attack48-held")  # scored only (scripts/score_pastes.py)
    assert len(held) >= 4
    urls = [v[1] for v in ROWS.values()] + [v[1] for v in held.values()]
    assert len(urls) == len(set(urls))


@pytest.mark.parametrize("name", sorted(n for n, (label, _) in ROWS.items() if label == "none"))
def test_control_is_silent(name: str) -> None:
    ids = _ids((DEV / name).read_text(encoding="utf-8"))
    if name in KNOWN_MISSES:
        assert KNOWN_MISSES[name] in ids  # still said: a known miss, kept visible
        return
    assert ids == [], ids


def test_outcome_with_the_gpu_word_still_settles():
    # the row's own source's wording (facebookresearch/muss#37): the GPU named in the outcome
    text = ("# Training crashes\n\nI'm returning to comment that I managed to solve the GPU out of memory issue. "
            "I had to reduce the batch size.\n")
    assert "gpu-out-of-memory" in _ids(text)


def test_title_with_a_gpu_oom_still_read():
    # constructed boundary: a title that names the GPU's out-of-memory as what happened is still read
    assert "gpu-out-of-memory" in _ids("# CUDA out of memory when training\n\nsee the log\n")


def test_fix_of_what_causes_oom_is_a_change_not_a_failure():
    # constructed boundary of the veto: the title's own words and "leads to"
    assert _ids("# fix excessive memory usage that causes OOM\n") == []
    assert _ids("# Fix a leak in the data loader which leads to OOM\n") == []


def test_hostile_lines_are_linear():
    import time

    line = "fix " + "word " * 2000 + "that causes OOM\n"
    text = "# " + line * 2000 + "\x00\x1b[31m" * 1000
    t = time.perf_counter()
    explain_text_document(text)
    assert time.perf_counter() - t < 30


@pytest.mark.parametrize("name", sorted(n for n, (label, _) in ROWS.items() if label == "cublas-error"))
def test_cublas_arch_mismatch_on_a_new_gpu_is_not_its_architecture(name: str) -> None:
    ids = _ids((DEV / name).read_text(encoding="utf-8"))
    assert "gpu-arch-unsupported" not in ids
    assert ids[:1] == ["cublas-error"]


@pytest.mark.parametrize("gpu", ["Tesla K80", "Tesla K40m", "GeForce GTX 760"])
def test_cublas_arch_mismatch_on_an_old_gpu_still_is(gpu: str) -> None:
    # constructed from the lead's sources (FasterTransformer on a K80 / K40m, lc0#1820's GTX 760): below 5.0 it stays
    text = f"# CUBLAS_STATUS_ARCH_MISMATCH\n\nDevice: {gpu}\nCUDA runtime error: CUBLAS_STATUS_ARCH_MISMATCH\n"
    assert _ids(text)[:1] == ["gpu-arch-unsupported"]


def test_cublas_arch_mismatch_with_no_gpu_named_keeps_its_reading():
    # constructed: no GPU known - the documented usual cause stands
    assert "gpu-arch-unsupported" in _ids("CUDA runtime error: CUBLAS_STATUS_ARCH_MISMATCH\n")


@pytest.mark.parametrize("line", [
    "compiled with " * 28, "需要cudnn" * 50, "cudnn too " * 39, "cudnn is not " * 30,  # prose_cudnn
    "please add support for " * 17, "# [Feature] add support " + "gfx1100 " * 45, "is not ready for " * 23,
    "there isn't any plan to support " * 12,  # prose_vendor (amd35)
    "jetpack " * 49, "jetpack " + "x" * 390, "l4t-" + "a" * 390,  # jetson_prose
])
def test_session22_readers_bounded_on_hostile_lines(line: str) -> None:
    # constructed: repeated openings of each new pattern, just under the readers' 400-character cut, and control bytes
    import time

    from envcheck.paste.readers import jetson_prose, prose_cudnn, prose_vendor

    s = (line + "\x00\x1b[0m\x7f")[:399]
    t = time.perf_counter()
    for mod in (prose_cudnn, prose_vendor, jetson_prose):
        for _ in range(20):
            mod.line_facts(s, s.lower())
    assert (time.perf_counter() - t) / 60 < 0.02  # measured well under 1 ms a line
