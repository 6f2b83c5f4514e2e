"""Session 22's lead: what acceptance24's blind misses showed, read after the blind score (tests on its real texts,
and on boundaries made from them, said so).

Captures: ``nvidia-smi -L`` output behind a tree arrow a README drew ("└> GPU 0: ..."), and a MIG listing that a docs
page's conversion flattened onto one backticked line (the GPU and its seven MIG devices)."""

import os

from envcheck.parse.nvidia_smi import parse_list, parse_smi

HERE = os.path.dirname(__file__)
CAPTURES = os.path.join(os.path.dirname(HERE), "heldout", "acceptance24", "captures")


def _read(stem: str) -> str:
    name = next(f for f in os.listdir(CAPTURES) if f.startswith(stem) and f.endswith(".txt"))
    with open(os.path.join(CAPTURES, name), encoding="utf-8") as fh:
        return fh.read()


def test_listing_behind_a_tree_arrow():
    t = parse_smi(_read("L-colab-readme"))
    assert t.form == "nvidia-smi -L" and t.state == "ok"
    assert [(g.index, g.name) for g in t.gpus] == [(0, "Tesla T4")]
    assert t.gpus[0].uuid == "GPU-ceabb2dd-24b5-a045-1e0d-9d69acd13a7c"


def test_mig_listing_flattened_onto_one_backticked_line():
    t = parse_smi(_read("L-mig-docs-page"))
    assert [(g.index, g.name, g.mig_enabled) for g in t.gpus] == [(0, "NVIDIA A100 40GB PCIe", True)]
    assert t.mig_devices == 7  # the MIG devices are not GPUs
    assert t.driver_version is None and t.cuda_version is None


# boundaries made from the real lines above (constructed, said so)
def test_two_gpus_with_mig_devices_joined_on_one_line():
    line = ("`GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-11111111-2222-3333-4444-555555555555) MIG 3g.20gb Device 0: "
            "(UUID: MIG-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee) GPU 1: NVIDIA A100-SXM4-40GB "
            "(UUID: GPU-66666666-7777-8888-9999-000000000000)`")
    t = parse_list(line)
    assert [(g.index, g.mig_enabled) for g in t.gpus] == [(0, True), (1, None)]
    assert t.mig_devices == 1 and t.gpus_complete is True


def test_bullets_and_unicode_tree_lines():
    t = parse_list("* GPU 0: Tesla V100-SXM2-16GB (UUID: GPU-0a0a0a0a-1b1b-2c2c-3d3d-4e4e4e4e4e4e)\n"
                   "\u251c\u2500 GPU 1: Tesla V100-SXM2-16GB (UUID: GPU-5f5f5f5f-6a6a-7b7b-8c8c-9d9d9d9d9d9d)\n")
    assert [g.name for g in t.gpus] == ["Tesla V100-SXM2-16GB"] * 2


def test_prose_naming_a_gpu_line_is_not_a_listing():
    # words before the GPU line: a sentence quoting it, not the output
    t = parse_list("My machine shows GPU 0: Tesla T4 (UUID: GPU-ceabb2dd-24b5-a045-1e0d-9d69acd13a7c) sometimes")
    assert t.gpus == []
