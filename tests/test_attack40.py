"""attack40: false statements found in session 16's last changes (lead's cut-table listing, emit26a / emit26b rules)."""
from __future__ import annotations

from pathlib import Path

from envcheck.parse.nvidia_smi import parse_smi

ROOT = Path(__file__).resolve().parent.parent


def _read(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


def _quadro_listing() -> str:
    # akash-network/provider-configs#12: `nvidia-smi -L` of a node with two Quadro RTX 4000 (no driver version in -L)
    text = _read("heldout/captures20e-r2/t535.129.03-L-then-table-2x-quadro-rtx4000-cut.txt")
    return text[:text.index("root@node1:~# nvidia-smi\n")]


def _rtx5080_fragment() -> str:
    # a Polish machine-survey note (acceptance16, spent): a hand-cut table, driver 591.86 and GPU 0, an RTX 5080
    text = next((ROOT / "heldout" / "acceptance16" / "captures").glob("csv-591.86*.txt")).read_text(encoding="utf-8")
    return text[text.index("$ nvidia-smi   (nag"):]


def test_another_machines_listing_naming_other_gpus_does_not_replace_a_cut_tables_rows():
    # two machines' outputs in one text (a "works here, fails there" report): the -L of one (two Quadro RTX 4000)
    # above the other's cut table (an RTX 5080 at index 0). Was: two Quadro RTX 4000 under driver 591.86, a whole list
    got = parse_smi(_quadro_listing() + "\n" + _rtx5080_fragment())
    assert got.driver_version == "591.86"
    assert [(g.index, g.name) for g in got.gpus] == [(0, "NVIDIA GeForce RTX 5080")]
    assert got.gpus_complete is not True


def test_the_same_machines_listing_still_completes_its_cut_table():
    # the lead's own case stays: the -L and the cut table of the same node (names agree)
    got = parse_smi(_read("heldout/captures20e-r2/t535.129.03-L-then-table-2x-quadro-rtx4000-cut.txt"))
    assert [g.name for g in got.gpus] == ["Quadro RTX 4000", "Quadro RTX 4000"] and got.gpus_complete is True


def test_an_older_tables_cut_name_agrees_with_the_listings_whole_name():
    # gpustat#16's table names its GPUs "GeForce GTX TIT..." (an older driver cuts long names); gpustat#5's
    # `--query-gpu=index,uuid,name,...` of eight "GeForce GTX TITAN X": a cut name is the same GPU, not another machine
    from envcheck.parse.nvidia_smi import _same_gpu_name

    assert _same_gpu_name("GeForce GTX TITAN X", "GeForce GTX TIT...")
    assert not _same_gpu_name("Quadro RTX 4000", "NVIDIA GeForce RTX 5080")
    assert _same_gpu_name(None, "NVIDIA GeForce RTX 5080")
