"""Readers on the seventh and eighth batches of real captures (issue 21): tests/data/vendors/*/v7-* with the expectations written
by hand from each capture (tests/data/vendors/v7-expected.json; v8-* files too); the held-back parts are heldout/vendors7 and
heldout/vendors8."""

from __future__ import annotations

import json
import os

import pytest

from envcheck.parse.amd_smi import parse_amd_smi_list, parse_amd_smi_static
from envcheck.parse.gfx import pci_product_name
from envcheck.parse.hipconfig import parse_hipconfig
from envcheck.parse.intel import clinfo_amd_gpus, parse_clinfo, parse_sycl_ls, parse_xpu_smi
from envcheck.parse.macos import parse_sw_vers, parse_system_profiler
from envcheck.parse.rocm_smi import parse_rocm_smi
from envcheck.parse.rocminfo import parse_rocminfo
from envcheck.parse.tegra import parse_jetson_release

DATA = os.path.join(os.path.dirname(__file__), "data", "vendors")
with open(os.path.join(DATA, "v7-expected.json"), encoding="utf-8") as fh:
    EXPECTED = json.load(fh)


def _read(path: str) -> str:
    with open(os.path.join(DATA, path), encoding="utf-8") as fh:
        return fh.read()


def _got(path: str, text: str) -> object:
    tool = path.split("/")[0]
    if tool == "sycl-ls":
        r = parse_sycl_ls(text)
        return {"level_zero_gpus": r.gpus("level_zero"), "level_zero": r.level_zero}
    if tool == "amd-smi-static":
        return [{"name": g.name, "gfx": g.gfx, "device_id": g.device_id} for g in parse_amd_smi_static(text)]
    if tool == "clinfo-amd":
        return [{"name": g.name, "gfx": g.gfx, "device_id": g.device_id} for g in clinfo_amd_gpus(text)]
    if tool == "clinfo":
        return [{"name": d["name"], "driver": d["driver"]} for d in parse_clinfo(text)]
    if tool == "jetson-release":
        j = parse_jetson_release(text)
        return {k: getattr(j, k) for k in ("cuda", "cudnn", "jetpack", "l4t", "model", "tensorrt")} if j else None
    if tool == "amd-smi-list":
        return [{k: g[k] for k in ("index", "bdf", "partition_id")} for g in parse_amd_smi_list(text)]
    if tool == "sw-vers":
        return parse_sw_vers(text)
    if tool == "rocminfo":
        return [{"name": g.name, "gfx": g.gfx, "device_id": g.device_id} for g in parse_rocminfo(text).gpus]
    if tool == "hipconfig":
        h = parse_hipconfig(text)
        return {"hip": h.hip, "platform": h.platform, "rocm_path": h.rocm_path}
    if tool == "xpu-smi":
        return [{"index": g.index, "name": g.name, "device_id": g.device_id} for g in parse_xpu_smi(text)]
    if tool == "system-profiler":
        return [{"name": g.name, "vendor": g.vendor} for g in parse_system_profiler(text)]
    return [{"index": g.index, "name": g.name, "gfx": g.gfx, "device_id": g.device_id} for g in parse_rocm_smi(text).gpus]


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_v7_v8_capture(path):
    assert _got(path, _read(path)) == EXPECTED[path]


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


def test_pci_ids_product_names():
    assert pci_product_name("Vega 10 XTX [Radeon Vega Frontier Edition]") == "Radeon Vega Frontier Edition"
    assert pci_product_name("AMD Radeon RX 6900 XT") == "AMD Radeon RX 6900 XT"
    assert pci_product_name("Ellesmere [Radeon RX 470/480/570/570X/580/580X/590]").startswith("Ellesmere [")
    assert pci_product_name(None) is None


def test_rocminfo_quoted_as_comments_only_when_the_whole_paste_is():
    text = _read("rocminfo/v8-radeon-vii-commented.txt")
    assert [g.gfx for g in parse_rocminfo(text).gpus] == ["gfx906"]
    plain = "\n".join(ln[2:] for ln in text.splitlines())  # the same agent without the "# "
    assert [g.gfx for g in parse_rocminfo(plain).gpus] == ["gfx906"]


def test_xpu_smi_bracketed_device_id_and_system_profiler_flattened():
    g = parse_xpu_smi("| 0 | Device Name: Intel(R) Graphics [0x56a0] |\n|   | PCI Device ID: 0x56a1 |\n")[0]
    assert (g.name, g.device_id) == ("Intel(R) Graphics", "0x56a1")  # its own PCI Device ID line wins
    flat = "Chipset Model: Apple M2\n\nVendor: Apple (0x106b)\n\nChipset Model: AMD Radeon Pro 5500M\nVendor: AMD (0x1002)\n"
    assert [(g.name, g.vendor) for g in parse_system_profiler(flat)] == [("Apple M2", "apple"), ("AMD Radeon Pro 5500M", "amd")]
    assert parse_system_profiler("no gpu here\nType: GPU\n") == []


def test_rocm_smi_json_fragments():
    # several documents for one card merge; an elided "..." does not stop the read
    two = ('{"card1": {"GPU use (%)": "3", ...}}\n{"card1": {"Card Series": "AMD Instinct MI100", '
           '"Card Model": "0x738c", "GFX Version": "gfx908"}}\n')
    (g,) = parse_rocm_smi(two).gpus
    assert (g.index, g.name, g.gfx, g.device_id) == (1, "AMD Instinct MI100", "gfx908", "0x738c")
    # a fragment holding only the "system" object's pairs is no GPU
    assert parse_rocm_smi('"Driver version": "6.8.5"\n  }\n}\n').gpus == []
    # not JSON at all: not read as JSON
    assert parse_rocm_smi('"hello": "world"').gpus == []


def test_sw_vers_quoted_as_comments():
    assert parse_sw_vers("# ProductName:\tmacOS\n# ProductVersion:\t14.6.1\n") == "14.6.1"
    assert parse_sw_vers("ProductVersionExtra: 1\n") is None
