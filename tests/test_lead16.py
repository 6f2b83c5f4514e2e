"""The lead's changes of session 16, after acceptance16 was scored blind (its files are spent: they are read here)."""
from __future__ import annotations

from pathlib import Path

from envcheck.parse.nvidia_smi import parse_smi

ROOT = Path(__file__).resolve().parent.parent
CAPS = ROOT / "heldout" / "acceptance16" / "captures"


def _caps(stem: str) -> str:
    return next(CAPS.glob(stem + "*.txt")).read_text(encoding="utf-8")


def test_a_query_csv_above_a_cut_table_gives_the_whole_gpu_list():
    # a benchmark snapshot: `--query-gpu=index,name,...` of two RTX 3090s, then nvidia-smi's table cut after its header
    got = parse_smi(_caps("csv-index-580.126.09"))
    assert got.driver_version == "580.126.09" and got.cuda_version == "13.0"
    assert [(g.index, g.name, g.memory_total_mib) for g in got.gpus] == [
        (0, "NVIDIA GeForce RTX 3090", 24576), (1, "NVIDIA GeForce RTX 3090", 24576)]
    assert got.gpus_complete is True and got.state == "ok"


def test_a_query_csv_above_a_table_fragment_is_whole():
    # one RTX 5080 in the CSV (no index column), then the table's header line and the GPU's first row only
    got = parse_smi(_caps("csv-591.86"))
    assert (got.driver_version, got.cuda_version) == ("591.86", "13.1")
    assert [(g.index, g.name, g.memory_total_mib) for g in got.gpus] == [(0, "NVIDIA GeForce RTX 5080", 16303)]
    assert got.gpus_complete is True


def test_a_cut_table_alone_stays_a_fragment_and_another_machines_listing_is_not_used():
    text = _caps("csv-index-580.126.09")
    table_only = text[text.index("Tue Apr 21"):]
    got = parse_smi(table_only)
    assert got.driver_version == "580.126.09" and got.gpus == [] and got.gpus_complete is False
    # a CSV naming another driver is another machine's: the table's (cut) list is kept
    other = text.replace("24576 MiB, 580.126.09", "24576 MiB, 570.86.10")
    assert parse_smi(other).gpus_complete is False


def test_listing_lines_above_a_cut_table_complete_it():
    # akash-network/provider-configs#12: `nvidia-smi -L` of two Quadro RTX 4000, then the table cut in GPU 1's block
    text = (ROOT / "heldout" / "captures20e-r2" / "t535.129.03-L-then-table-2x-quadro-rtx4000-cut.txt").read_text()
    got = parse_smi(text)
    assert [(g.index, g.memory_total_mib) for g in got.gpus] == [(0, 8192), (1, None)]
    assert got.gpus_complete is True


LOGS = ROOT / "heldout" / "acceptance16" / "logs"


def _doc(path: Path) -> dict:
    from envcheck.explain.document import explain_text_document

    return explain_text_document(path.read_text(encoding="utf-8"))


def _log(stem: str) -> Path:
    return next(LOGS.glob(stem + "*.log"))


def test_the_library_that_did_not_load_outranks_a_generic_provider_warning():
    # HeyGem-Linux-Python-Hack#54: ORT's "Failed to create CUDAExecutionProvider" (generic: it names no library) in the
    # title, and below it the provider library failing on libcudnn.so.9
    doc = _doc(_log("heygem-54"))
    assert [m["id"] for m in doc["matches"]][:2] == ["cudnn-missing", "cuda-runtime-missing"]


def test_a_cuda_library_missing_on_an_amd_machine_is_a_build_for_another_vendor():
    # ROCm/ROCm#442: tensorflow-gpu installed beside ROCm on a Radeon; libcublas.so.9.0 does not load
    top = _doc(_log("rocm-442"))["matches"][0]
    assert top["id"] == "framework-vendor-mismatch"
    advice = " ".join(top["fixes"])
    assert "CUDA library" in advice and "ROCm build" in advice and "nvidia-smi" not in advice.lower()


def test_a_cuda_library_missing_where_the_text_only_names_macos_stays_what_it_is():
    # VOICEVOX/voicevox_engine#408: the issue form's unticked "- [ ] macOS" beside cudnn_adv_infer64_8.dll not found
    path = next((ROOT / "tests" / "data" / "pastes" / "pastes21d").glob("voicevox-engine-408*.txt"))
    assert _doc(path)["matches"][0]["id"] == "cudnn-missing"


def test_bitsandbytes_without_gpu_support_on_a_mac_is_a_build_for_another_vendor():
    # bitsandbytes-foundation/bitsandbytes#485: an M2 Max ("MacOS"), bitsandbytes' CPU library
    assert _doc(_log("bitsandbytes-485"))["matches"][0]["id"] == "framework-vendor-mismatch"
