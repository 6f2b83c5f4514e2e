"""Readers on the seventh batch of real captures (issue 21): tests/data/vendors/*/v7-* with the expectations written
by hand from each capture (tests/data/vendors/v7-expected.json); the held-back part is heldout/vendors7."""

from __future__ import annotations

import json
import os

import pytest

from envcheck.parse.amd_smi import parse_amd_smi_static
from envcheck.parse.intel import parse_sycl_ls
from envcheck.parse.rocm_smi import parse_rocm_smi

DATA = os.path.join(os.path.dirname(__file__), "data", "vendors")
with open(os.path.join(DATA, "v7-expected.json"), encoding="utf-8") as fh:
    EXPECTED = json.load(fh)


def _read(path: str) -> str:
    with open(os.path.join(DATA, path), encoding="utf-8") as fh:
        return fh.read()


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_v7_capture(path):
    text, exp = _read(path), EXPECTED[path]
    if path.startswith("sycl-ls/"):
        r = parse_sycl_ls(text)
        assert {"level_zero_gpus": r.gpus("level_zero"), "level_zero": r.level_zero} == exp
    elif path.startswith("amd-smi-static/"):
        assert [{"name": g.name, "gfx": g.gfx, "device_id": g.device_id} for g in parse_amd_smi_static(text)] == exp
    else:
        got = [{"index": g.index, "name": g.name, "gfx": g.gfx, "device_id": g.device_id}
               for g in parse_rocm_smi(text).gpus]
        assert got == exp


def test_amd_smi_static_indented_paste_keeps_numeric_fields_inside_the_block():
    # a Markdown-indented paste: the header is indented, and "NUM_COMPUTE_UNITS: 28" (a KEY: number line, like
    # a header) stays a field of GPU 2 instead of starting a block
    text = _read("amd-smi-static/v7-9070xt-annotated.txt")
    indented = "\n".join("    " + line for line in text.splitlines())
    (g,) = parse_amd_smi_static(indented)
    assert (g.index, g.gfx, g.device_id) == (0, "gfx1201", "0x7550")
    two = indented + "\n    GPU: 1\n        ASIC:\n            TARGET_GRAPHICS_VERSION: gfx1100\n"
    assert [g.gfx for g in parse_amd_smi_static(two)] == ["gfx1201", "gfx1100"]
    # text after the block at the header's column ends it
    assert parse_amd_smi_static("  GPU: 0\n  done\n      TARGET_GRAPHICS_VERSION: gfx90a\n") == []


def test_amd_smi_pci_ids_market_name():
    one = "GPU: 0\n    ASIC:\n        MARKET_NAME: Navi 33 [Radeon Pro W7500]\n        TARGET_GRAPHICS_VERSION: gfx1102\n"
    assert parse_amd_smi_static(one)[0].name == "Radeon Pro W7500"
    many = one.replace("Navi 33 [Radeon Pro W7500]", "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900M]")
    assert parse_amd_smi_static(many)[0].name == "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900M]"


def test_sycl_ls_quoted_as_shell_comments():
    r = parse_sycl_ls("# [level_zero:gpu][level_zero:0] Intel(R) Level-Zero, Intel(R) Arc(TM) A770 Graphics 1.3 [1.3.26241]\n"
                      "# [opencl:gpu][opencl:1] Intel(R) OpenCL Graphics, Intel(R) Arc(TM) A770 Graphics OpenCL 3.0 NEO  "
                      "[23.17.26241.33]\n")
    assert r.gpus("level_zero") == ["Intel(R) Arc(TM) A770 Graphics"] and r.level_zero == "1.3.26241"


def test_rocm_smi_hex_card_model_is_the_device_id_only_in_the_6x_form():
    six = "GPU[0]  : Card Series:    AMD Radeon RX 9070 XT\nGPU[0]  : Card Model:     0x7550\nGPU[0]  : GFX Version:    gfx1201\n"
    assert parse_rocm_smi(six).gpus[0].device_id == "0x7550"
    # ROCm 5.x (no GFX Version, no Subsystem ID line): the hex model is the subsystem id, not read as a device id
    five = _read("rocm-smi-product/csv-2x-mi100-easybuild3978.txt")
    assert all(g.device_id is None for g in parse_rocm_smi(five).gpus)
