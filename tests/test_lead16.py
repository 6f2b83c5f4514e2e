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
