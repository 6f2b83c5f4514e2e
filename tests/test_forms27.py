"""The forms nvidia-smi prints, across driver eras (issue 20, forms27; contract §1): every capture of
tests/data/captures27 (real, cited in tests/data/README.md; labels written by hand from the text before the readers
were changed, heldout/captures27-held holds the part held back) is read as its label says; the forms that print no
GPU list (``dmon``, ``pmon``, ``topo -m``, ``mig -lgi``, ``--query-compute-apps``) stay unknown, never an empty list
nor a failure; ``nvlink``'s GPU lines are GPUs but never the whole list. The inventory of forms and eras is
heldout/rounds/forms27-inventory.md."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from helpers import expect_text, status_of_files

from envcheck.parse import nvidia_smi

DATA = Path(__file__).parent / "data" / "captures27"
KEYS = ("form", "driver_version", "cuda_version", "gpus", "gpus_complete", "state")
#: the one capture read short of its label (its name: what is missed), said rather than hidden
KNOWN_MISSES = {
    # a header-less query row "NAME, DRIVER, 8151 MiB, 0 MiB" above a table whose name cell is cut: two "MiB" cells
    # make the row's columns uncertain, so the table's cut name is what is read (never a wrong name)
    "csv-row-then-table-592.15-5070-laptop-windows": "gpus",
}


def _cases():
    return [pytest.param(p, id=p.name[: -len(".expect.json")]) for p in sorted(DATA.glob("*.expect.json"))]


def _read(name: str) -> str:
    return (DATA / f"{name}.txt").read_text(encoding="utf-8")


def _got(t: nvidia_smi.SmiTable) -> dict:
    return {"form": t.form, "driver_version": t.driver_version, "cuda_version": t.cuda_version,
            "gpus": [{"index": g.index, "name": g.name, "memory_total_mib": g.memory_total_mib} for g in t.gpus],
            "gpus_complete": t.gpus_complete, "state": t.state,
            "mig": t.mig_devices > 0 or any(g.mig_enabled for g in t.gpus)}


@pytest.mark.parametrize("exp_path", _cases())
def test_capture_read_as_labelled(exp_path):
    exp = json.loads(exp_path.read_text(encoding="utf-8"))
    got = _got(nvidia_smi.parse_smi(expect_text(exp_path)))
    name = exp_path.name[: -len(".expect.json")]
    bad = [k for k in (*KEYS, "mig") if k in exp and exp[k] != got[k]]
    assert bad == ([KNOWN_MISSES[name]] if name in KNOWN_MISSES else []), (bad, got)


def test_every_capture_is_cited():
    readme = (Path(__file__).parent / "data" / "README.md").read_text(encoding="utf-8")
    section = readme.split("## captures27/", 1)[1].split("\n## ", 1)[0]
    files = sorted(DATA.glob("*.txt"))
    assert len(files) >= 30
    for p in files:
        assert f"`{p.name}`" in section, p.name


NO_GPU_LIST = ["dmon-8x-v100-zh-doc", "pmon-8x-zh-doc-dashes", "pmon-c1-xorg-blender-blog-indented",
               "topo-m-2x-a100-pcie-node-md-report", "topo-m-2x-sys-legend-kinghorn", "mig-lgi-a100-7x1g-rst-indented",
               "mig-cgi-then-lgi-esxi-root-prompt", "mig-lgipp-then-lgi-a30-1g6gb", "compute-apps-2x-vllm-console-zh",
               "compute-apps-gpu-name-noheader-nounits-c-comment", "compute-apps-ollama-windows-ja-then-dmon",
               "nvlink-s-2x-a100-pcie-all-links-inactive"]


@pytest.mark.parametrize("name", NO_GPU_LIST)
def test_a_form_without_a_gpu_list_is_unknown_at_every_cut(name):
    """Every line-cut of the capture (a paste cut anywhere) is unknown: no GPU, no list, no state, no error."""
    lines = _read(name).splitlines(keepends=True)
    for n in range(1, len(lines) + 1):
        t = nvidia_smi.parse_smi("".join(lines[:n]))
        assert (t.gpus, t.gpus_complete, t.state, t.error, t.driver_version) == ([], None, None, None, None), n


def test_a_form_without_a_gpu_list_is_not_checked_in_a_snapshot(tmp_path):
    doc = status_of_files(tmp_path, {"nvidia-smi.txt": _read("topo-m-2x-sys-legend-kinghorn")})
    assert doc["driver"]["nvidia_smi_form"] == "unrecognised"
    assert doc["driver"]["nvidia_smi"] is None  # unknown: not "failed", not "no-driver"
    assert doc["gpus"] is None  # unknown, never an empty list
    assert not [f["id"] for f in doc["findings"] if "gpu" in f["id"] and f.get("severity") in ("error", "warning")]


@pytest.mark.parametrize("name", ["nvlink-s-i0-a100-sxm4-40gb-brev", "nvlink-e-i0-a100-brev-for-loop"])
def test_nvlink_gpu_lines_are_gpus_never_the_whole_list(name):
    text = _read(name)
    t = nvidia_smi.parse_smi(text)
    assert [g.index for g in t.gpus] == [0] and t.gpus_complete is False
    # the same GPU line without nvlink's link lines under it is `nvidia-smi -L`: a whole list of one
    alone = "".join(ln for ln in text.splitlines(keepends=True) if not nvidia_smi.nvlink_line(ln))
    assert nvidia_smi.parse_smi(alone).gpus_complete is True


def test_nvlink_lines_in_a_paste_are_read_with_their_gpu_line():
    from envcheck.paste.readers import smi_list
    from envcheck.paste.readers.base import view

    lines = _read("nvlink-s-i0-a100-sxm4-40gb-brev").splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("GPU 0:"))
    span = smi_list.detect(view(lines, at))
    assert span == 13  # the GPU line and its twelve link lines
    smi = smi_list.read(lines[at:at + span]).get("smi")
    assert nvidia_smi.parse_smi(smi).gpus_complete is False


def test_q_of_one_gpu_chosen_by_index_is_that_index():
    text = _read("q-i1-470.129.06-v100-of-8-zh-doc")
    assert [g.index for g in nvidia_smi.parse_smi(text).gpus] == [1]
    # without its command line (`nvidia-smi -q -i 1`) nothing says which of the 8 it is: the first shown
    without = text.split("\n", 1)[1]
    assert [g.index for g in nvidia_smi.parse_smi(without).gpus] == [0]


def test_version_block_keeps_the_gpus_of_the_listing_above_it():
    t = nvidia_smi.parse_smi(_read("version-wsl-581.42-after-L-env-script"))
    assert (t.driver_version, t.cuda_version) == ("581.42", "13.0")  # DRIVER version (Windows'), not NVIDIA-SMI's
    assert [g.name for g in t.gpus] == ["NVIDIA GeForce RTX 3090"] and t.gpus_complete is True


def test_a_hand_narrowed_header_is_read_on_its_line_only():
    text = _read("L-mig-above-condensed-table-580.105.08-a100-ko")
    t = nvidia_smi.parse_smi(text)
    assert (t.driver_version, t.cuda_version) == ("580.105.08", "13.0")
    cut = "".join(ln for ln in text.splitlines(keepends=True) if "NVIDIA-SMI" not in ln)
    assert nvidia_smi.parse_smi(cut).driver_version is None  # "Driver Ver:" read nowhere else


def test_a_table_joined_into_one_line_is_read_as_its_lines():
    t = nvidia_smi.parse_smi(_read("t535.104.05-a800-one-line-collapsed-vllm-issue-digest"))
    assert [(g.name, g.memory_total_mib, g.bus_id, g.mig_enabled) for g in t.gpus] == [
        ("NVIDIA A800 80GB PCIe", 81920, "00000000:6B:00.0", False)]


def test_a_joined_table_is_read_in_linear_time():
    line = _read("t535.104.05-a800-one-line-collapsed-vllm-issue-digest").strip()
    text = "\n".join([line] * 200)  # 200 joined tables of the same machine, about 300 KB
    start = time.perf_counter()
    t = nvidia_smi.parse_smi(text)
    assert time.perf_counter() - start < 5.0
    assert [g.index for g in t.gpus] == [0]


def test_timestamp_lines_between_table_lines_do_not_part_a_gpu_from_its_border():
    text = _read("t535.104.05-t4-gcp-batch-timestamp-lines-collapsed")
    assert nvidia_smi.parse_smi(text).gpus_complete is True
    # cut before the GPU block's closing border: a fragment
    cut = text[: text.index("| | | N/A |")]
    assert nvidia_smi.parse_smi(cut).gpus_complete is False


def test_xml_of_2013_reads_its_memory_in_mb():
    t = nvidia_smi.parse_smi(_read("x-285.05.32-2x-m2090-2013-mb-units-python-string"))
    assert [g.memory_total_mib for g in t.gpus] == [5375, 5375]
    assert [g.bus_id for g in t.gpus] == ["0000:14:00.0", "0000:15:00.0"]
