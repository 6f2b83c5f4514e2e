"""Session 21's lead: what acceptance23's blind misses showed, read after the blind score (tests on its real texts,
and on boundaries made from them, said so).

Captures: a table whose rows cut a long name beside ``nvidia-smi -q`` of the same machine (the name is -q's), ``-q``
sections that name no GPU beside ``nvidia-smi -L`` (the names are -L's), and a row condensed by hand to one line that
keeps its index and cells."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from envcheck.parse.nvidia_smi import parse_smi  # noqa: E402

HERE = os.path.dirname(__file__)
CAPTURES = os.path.join(os.path.dirname(HERE), "heldout", "acceptance23", "captures")


def _read(stem: str) -> str:
    name = next(f for f in os.listdir(CAPTURES) if f.startswith(stem) and f.endswith(".txt"))
    with open(os.path.join(CAPTURES, name), encoding="utf-8") as fh:
        return fh.read()


def test_cut_table_name_completed_by_q():
    t = parse_smi(_read("q-525.147.01-vgpu-unlock"))
    assert [(g.index, g.name) for g in t.gpus] == [(0, "NVIDIA GeForce RTX 4088")]
    assert t.driver_version == "525.147.01" and t.cuda_version is None


def test_cut_name_kept_where_q_is_another_driver():
    # constructed from the same capture: the -q block of another driver is another machine's
    text = _read("q-525.147.01-vgpu-unlock").replace("Driver Version                            : 525.147.01",
                                                      "Driver Version                            : 535.54.03")
    t = parse_smi(text)
    assert [g.name for g in t.gpus] == ["NVIDIA GeForce RTX 408..."]


def test_q_sections_named_by_the_listing():
    t = parse_smi(_read("q-580.126.09-audit-L-a100"))
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "NVIDIA A100-SXM4-40GB", 40960)]
    assert t.driver_version == "580.126.09" and t.cuda_version == "13.0"


def test_q_sections_not_named_by_a_listing_of_another_count():
    # constructed: -L of a two-GPU machine beside -q of one GPU: another run, no name given
    text = _read("q-580.126.09-audit-L-a100").replace(
        "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5428af19-1e82-a38c-ee42-cdd3ad745b7e)",
        "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5428af19-1e82-a38c-ee42-cdd3ad745b7e)\n"
        "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-5428af19-1e82-a38c-ee42-cdd3ad745b7f)")
    t = parse_smi(text)
    assert [g.name for g in t.gpus] == [None]


def test_condensed_row_with_index_and_cells():
    t = parse_smi(_read("table-595.97-windows"))
    assert t.driver_version == "595.97" and t.cuda_version == "13.2"
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "Quadro RTX 4000", 8192)]


@pytest.mark.parametrize("line", [
    # constructed: a sentence naming a GPU and memory, not a row (no index and cells)
    "The Quadro RTX 4000  has 8192MiB / 8192MiB free",
    "GPU 0  Quadro RTX 4000  is the card I use",
])
def test_condensed_row_needs_its_cells(line):
    t = parse_smi("NVIDIA-SMI 595.97   Driver Version: 595.97   CUDA Version: 13.2\n" + line + "\n")
    assert t.gpus == []


# -- logs (acceptance23's three log misses, read after its blind score; real lines of its threads) -------------------

@pytest.mark.parametrize("line,cause,signature", [
    # microsoft/onnxruntime-iot-edge#17: onnxruntime's warning quotes the loader's message
    ("/usr/local/lib/python3.6/dist-packages/onnxruntime/capi/_pybind_state.py:13: UserWarning: Cannot load "
     "onnxruntime.capi. Error: 'libnvinfer.so.5: cannot open shared object file: No such file or directory'",
     "cuda-runtime-missing", "tensorrt-library-not-loadable"),
    # ROCm/hiptensorflow#35's title: TensorFlow 1.0's loader line cut before its LD_LIBRARY_PATH; the library is ROCm's
    ("# Couldn't open CUDA library libMIOpen.so", "rocm-runtime-missing", "tf-old-couldnt-open-cuda-library"),
    # ROCm/MIOpen#3540's title: the runtime's fault retold with its reason only
    ("# Memory access fault - page not present or supervisor privilege, gfx1031 with HSA_OVERRIDE_GFX_VERSION=10.3.0",
     "gpu-memory-fault", "hsa-memory-access-fault-reason-only"),
])
def test_log_wordings(line, cause, signature):
    from helpers import top_id_signature

    assert top_id_signature(line) == (cause, signature)


@pytest.mark.parametrize("line", [
    # constructed boundaries: a library that loaded, a sentence about the fault's reason without the fault
    "I tensorflow/stream_executor/dso_loader.cc:139] successfully opened CUDA library libhipblas.so locally",
    "The page not present or supervisor privilege reason is listed in the HIP docs",
])
def test_log_wordings_silent(line):
    from helpers import top_id_signature

    assert top_id_signature(line) == (None, None)


def test_backend_availability_data_is_no_failed_check():
    # Comfy-Org/ComfyUI#15323 (tests/data/logs/vlogs23): a healthy start-up on an Intel XPU machine prints the CUDA
    # backend's probe result as data
    from envcheck.explain import explain_text

    line = ("[INFO] Found comfy_kitchen backend cuda: {'available': False, 'disabled': True, 'unavailable_reason': "
            "'CUDA not available on this system', 'capabilities': []}")
    assert explain_text("Device: xpu:0 Intel(R) Arc(TM) A770 Graphics : native\n" + line + "\n") == []
    # the check's own words on a Mac are still read (modelscope/facechain#488's title)
    got = explain_text("# Error on my mac, CUDA is not available\nmacOS 14.2.1, Apple M2 Ultra\n")
    assert got and got[0].id == "framework-vendor-mismatch"


def test_memory_blame_refuted_at_batch_size_one():
    # karpathy/llama2.c#279 (heldout/acceptance24, read after its blind score): an answer guesses memory, the reporter
    # answers that batch size 1 fails too, and it runs on Linux: cuBLAS's status error, not the GPU's memory
    from envcheck.explain.document import explain_text_document

    head = ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)``\n"
            "See this issue, most probably due to not having enough memory. Reduce seq_length or batch_size\n")
    top = [m["id"] for m in explain_text_document(head)["matches"]][:1]
    assert top == ["gpu-out-of-memory"]  # nv33's reading, with nothing refuting it
    refuted = head + "Even with batch size 1 and seq length = 256, getting this error......\n"
    assert [m["id"] for m in explain_text_document(refuted)["matches"]][:1] == ["cublas-error"]


@pytest.mark.parametrize("line", ["The batch size of 1 still fails the same way.", "still crashes even at batch_size=1"])
def test_memory_refuted_wordings(line):
    from envcheck.paste.readers.cublas_mem import line_facts

    assert [f.field for f in line_facts(line, line.lower())] == ["seen:memory-refuted"]


# -- captures (acceptance24's, read after its blind score): the same machine's other forms name the GPUs -------------

CAPTURES24 = os.path.join(os.path.dirname(HERE), "heldout", "acceptance24", "captures")


def _read24(stem: str) -> str:
    name = next(f for f in os.listdir(CAPTURES24) if f.startswith(stem) and f.endswith(".txt"))
    with open(os.path.join(CAPTURES24, name), encoding="utf-8") as fh:
        return fh.read()


def test_cut_table_name_completed_by_the_csv():
    t = parse_smi(_read24("table-595.84-zh-assignment-report-rtx-5060"))
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "NVIDIA GeForce RTX 5060 Laptop GPU", 8151)]


def test_q_sections_named_by_a_listing_its_lines_repeated():
    # `nvidia-smi nvlink -s` repeats -L's lines: still the same two GPUs
    t = parse_smi(_read24("q-555.42.02-ja-server-check-notes"))
    assert [(g.index, g.name) for g in t.gpus] == [(0, "NVIDIA A100-PCIE-40GB"), (1, "NVIDIA A100-PCIE-40GB")]


def test_two_names_for_one_index_name_nothing():
    # constructed: the CSV of another machine (another name at index 0) beside the cut table
    text = _read24("table-595.84-zh-assignment-report-rtx-5060").replace(
        "NVIDIA GeForce RTX 5060 Laptop GPU, 595.84, 8151 MiB", "NVIDIA GeForce RTX 5060 Ti, 595.84, 8151 MiB\n"
        "NVIDIA GeForce RTX 5060 Laptop GPU, 595.84, 8151 MiB")
    t = parse_smi(text)
    assert [g.name for g in t.gpus][:1] != ["NVIDIA GeForce RTX 5060 Ti"]
