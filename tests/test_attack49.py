"""attack49: real outputs of the tools next to the ones envcheck reads (issue 20: "nothing false said about a form
that was not recognised").

Each sample of tests/data/attack49 (README: source URLs) is fed as a snapshot's ``nvidia-smi.txt`` (and, where it
has one, its own capture file) to ``status``, and as a paste to ``explain``. The false statements found:

* ``man nvidia-smi``'s head: its "NAME" section heading was taken for a one-column ``--query-gpu`` header and every
  line under it for a GPU ("SYNOPSIS", "DESCRIPTION", ...), with nvidia-smi "ok". A header of one field alone is now
  taken only as nvidia-smi prints it, in lower case (envcheck/parse/nvidia_smi.py ``_is_header``).
* clinfo's "Number of devices  2" over one device shown (a paste cut after the first): the list was said whole
  (``gpus_known`` true). clinfo counting more devices than the text names is now a partial listing
  (envcheck/environment/vendors.py ``vendor_list_partial``), also where the GPUs it lists are NVIDIA's.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

from envcheck.api import status
from envcheck.explain.document import explain_text_document
from envcheck.parse.nvidia_smi import parse_query_csv

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_every_file_listed, paste_readme_rows, readme_rows  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "tests" / "data" / "attack49"
HELD = ROOT / "heldout" / "attack49-held"


def _rows(folder: Path):
    return {r[0]: r[1:3] for r in readme_rows(folder, source=r"https://\S+", label="read|unknown|false")}


ROWS = _rows(DEV)


def _text(name: str) -> str:
    return (DEV / name).read_text(encoding="utf-8")


def _snap(tmp_path: Path, files: dict) -> dict:
    d = tmp_path / "snap"
    d.mkdir()
    for fname, text in files.items():
        (d / fname).write_text(text, encoding="utf-8")
    return status(str(d))


def test_the_batch_is_real():
    check_every_file_listed(DEV, ROWS)
    held = _rows(HELD)
    check_every_file_listed(HELD, held)
    assert len(held) >= 4
    assert all(u.startswith("https://github.com/") for _, u in list(ROWS.values()) + list(held.values()))
    assert paste_readme_rows is not None


# ------------------------------------------------------------------------------------------- the false statements


def test_man_page_is_no_query_csv_and_its_lines_no_gpus(tmp_path):
    doc = _snap(tmp_path, {"nvidia-smi.txt": _text("nvidia-smi-man-gpuutils88.txt")})
    names = [g.get("name") for g in doc.get("gpus") or []]
    assert "SYNOPSIS" not in names and "DESCRIPTION" not in names
    assert doc["driver"].get("nvidia_smi") != "ok"
    assert doc["driver"].get("nvidia_smi_form") == "unrecognised"
    assert doc["gpus_known"] is False
    notes = [f for f in doc["findings"] if f["id"] == "not-checked" and f["message"].startswith("nvidia-smi.txt")]
    assert notes, doc["findings"]


def test_man_page_heading_is_no_csv_header_but_nvidia_smis_own_one_field_csv_still_is():
    assert parse_query_csv(_text("nvidia-smi-man-gpuutils88.txt")).gpus == []
    # `nvidia-smi --query-gpu=name --format=csv` prints its one field in lower case (control: still read)
    q = parse_query_csv("name\nNVIDIA GeForce RTX 3090\nNVIDIA GeForce RTX 3090\n")
    assert [g.name for g in q.gpus] == ["NVIDIA GeForce RTX 3090"] * 2


def test_clinfo_counting_more_devices_than_it_shows_is_a_partial_list(tmp_path):
    doc = _snap(tmp_path, {"clinfo.txt": _text("clinfo-ethminer2003-gtx1070-440.100.txt")})
    assert [g.get("name") for g in doc.get("gpus") or []] == ["GeForce GTX 1070"]
    assert doc["gpus_known"] is False


def test_clinfo_l_listing_every_device_stays_whole(tmp_path):
    doc = _snap(tmp_path, {"clinfo.txt": _text("clinfo-l-standev2501-k620.txt")})
    assert [g.get("name") for g in doc.get("gpus") or []] == ["Quadro K620"]
    assert doc["gpus_known"] is True


# ------------------------------------------------------------------------------------------- honest for every form

#: driver versions each text holds (what envcheck may say); any other is false
_DRIVER = re.compile(r"(?<![\d.])\d{3}\.\d{1,3}(?:\.\d{1,3})?(?![\d.])")


#: the samples that are a real failure (nvidia-smi's own "Driver/library version mismatch" beside the NVRM line)
FAILING = {"nvml-mismatch-with-proc-version-truenas19.txt": "driver-library-mismatch"}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_as_nvidia_smi_txt_nothing_false(tmp_path, name):
    text = _text(name)
    doc = _snap(tmp_path, {"nvidia-smi.txt": text})
    drv = doc["driver"]
    assert drv.get("version") in (None, *_DRIVER.findall(text)), drv
    loud = [f["id"] for f in doc["findings"] if f["severity"] in ("warning", "error")]
    if name in FAILING:
        assert drv.get("nvidia_smi") == FAILING[name] and loud == [FAILING[name]], (drv, loud)
    else:
        assert drv.get("nvidia_smi") in (None, "ok"), drv  # no other form here is nvidia-smi failing
        assert not loud, doc["findings"]
    for g in doc.get("gpus") or []:
        assert g.get("name") is None or g["name"] in text
    if drv.get("nvidia_smi_form") == "unrecognised":
        assert doc["gpus_known"] is False
        assert any(f["id"] == "not-checked" and "nvidia-smi.txt" in f["message"] for f in doc["findings"])


@pytest.mark.parametrize("name", sorted(ROWS))
def test_as_a_paste_no_fact_the_text_does_not_hold(name):
    text = _text(name)
    facts = explain_text_document(text).get("facts") or {}
    drv = (facts.get("driver") or {}).get("version")
    assert drv is None or drv in text
    for g in facts.get("gpus") or []:
        assert g.get("name") is None or g["name"] in text
    tk = (facts.get("toolkit") or {}).get("version")
    assert tk is None or tk in text


# ------------------------------------------------------------------------------------------- hostile variants


def _variants(text: str):
    lines = text.splitlines()
    yield "crlf", "\r\n".join(lines) + "\r\n"
    yield "cut", text[: max(1, len(text) * 2 // 3)]
    yield "ctrl", "".join(c + ("\x00\x1b[31m" if k % 7 == 3 else "") for k, c in enumerate(text))
    yield "big", (text + "\n") * max(1, (2 * 1024 * 1024) // max(1, len(text)))


@pytest.mark.parametrize("name", ["nvidia-smi-man-gpuutils88.txt", "clinfo-ethminer2003-gtx1070-440.100.txt",
                                  "topo-m-nccl1617-4xh100-nv6-nic.txt", "q-d-temperature-two-machines-monitorix28.txt"])
def test_hostile_variants_no_crash_nothing_false(tmp_path, name):
    base = _text(name)
    for kind, text in _variants(base):
        t0 = time.monotonic()
        d = tmp_path / kind
        d.mkdir()
        (d / "nvidia-smi.txt").write_text(text, encoding="utf-8", newline="")
        doc = status(str(d))
        names = [g.get("name") for g in doc.get("gpus") or []]
        assert "SYNOPSIS" not in names and "DESCRIPTION" not in names, kind
        assert doc["driver"].get("nvidia_smi") in (None, "ok"), kind
        explain_text_document(text[:4 * 1024 * 1024])
        assert time.monotonic() - t0 < 60, kind
        shutil.rmtree(d)


# ------------------------------------------------------------------------------------------- second round: runs twice


def test_two_machines_q_runs_are_not_one_machine_with_both_gpus(tmp_path):
    # mikaku/Monitorix#28: `-q -d TEMPERATURE` of a GeForce 6200 (304.108), then of a 9400M (325.15), one paste
    text = _text("q-d-temperature-two-machines-monitorix28.txt")
    doc = _snap(tmp_path, {"nvidia-smi.txt": text})
    assert doc["driver"]["version"] == "304.108"
    assert len(doc.get("gpus") or []) == 1  # "Attached GPUs : 1": not the other machine's GPU too
    assert doc["gpus"][0].get("bus_id") in (None, "0000:01:05.0")
    assert doc["gpus_known"] is True


@pytest.mark.parametrize("path", ["tests/data/nvidia-smi-forms/L-4x-a100-80gb-mig-on-gpu0.txt",
                                  "tests/data/nvidia-smi-forms/x-535.86.05-rtx4090-cut-in-gpu.txt",
                                  "tests/data/nvidia-smi-forms/x-531.41-windows-rtx3080ti-tabs-cut-in-gpu.txt",
                                  "tests/data/attack49/q-d-memory-util-gnome356-375.66.txt"])
def test_a_run_pasted_twice_lists_its_gpus_once(path):
    from envcheck.parse.nvidia_smi import parse_smi

    text = (ROOT / path).read_text(encoding="utf-8")
    once = parse_smi(text)
    for twice in (text + "\n" + text, text * 50):
        got = parse_smi(twice)
        assert len(got.gpus) == len(once.gpus), path
        assert got.gpus_complete == once.gpus_complete
        assert got.mig_devices == once.mig_devices


def test_rocm_smi_csv_under_its_command_line_is_read(tmp_path):
    doc = _snap(tmp_path, {"rocm-smi-product.txt": _text("rocm-smi-product-csv-easybuild3978-mi100.txt")})
    assert [g.get("name") for g in doc.get("gpus") or []] == ["Arcturus GL-XL [AMD Instinct MI100]"] * 2
    assert not any("not a form of rocm-smi" in n for n in doc.get("notes") or [])


# ------------------------------------------------------------------------------------------- third round: other "Driver Version" lines


@pytest.mark.parametrize("name", ["system-profiler-imacpro-vega64-cpuinfo17.txt",
                                  "dxdiag-display-win7-g210-avpro1062.txt"])
def test_another_tools_driver_version_line_is_no_nvidia_smi_table(tmp_path, name):
    # system_profiler's "EFI Driver Version: 01.01.114" of a Radeon, dxdiag's Windows file version "9.18.13.1422":
    # were read as nvidia-smi's table, nvidia-smi "ok", driver "01.01.114" / "9.18.13.1422"
    doc = _snap(tmp_path, {"nvidia-smi.txt": _text(name)})
    assert doc["driver"].get("version") is None
    assert doc["driver"].get("nvidia_smi") != "ok"
    assert doc["driver"].get("nvidia_smi_form") == "unrecognised"


def test_nvidia_smi_own_header_still_read_after_the_tighter_driver_pattern():
    from envcheck.parse.nvidia_smi import parse_table

    t = parse_table("| NVIDIA-SMI 510.60.02    Driver Version: 512.15       CUDA Version: 11.6     |\n")
    assert (t.driver_version, t.cuda_version) == ("512.15", "11.6")
    t = parse_table("| NVIDIA-SMI 610.43.02   KMD Version: 610.43.02   CUDA UMD Version: 13.3   |\n")
    assert t.driver_version == "610.43.02"


def test_a_jetsons_open_module_line_is_its_l4t_release_not_a_driver(tmp_path):
    # nixGL#139: JetPack 5.1.1's "NVIDIA UNIX Open Kernel Module for aarch64  35.3.1": was driver 35.3.1
    text = _text("proc-version-jetson-orin-nx-35.3.1-nixgl139.txt")
    for fname in ("proc-driver-version.txt", "nvidia-smi.txt"):
        d = tmp_path / fname
        d.mkdir()
        (d / fname).write_text(text, encoding="utf-8")
        doc = status(str(d))
        assert doc["driver"].get("version") is None, fname
        assert any(f["id"] == "not-checked" and "L4T release" in f["message"] for f in doc["findings"]), fname
    assert ((explain_text_document(text).get("facts") or {}).get("driver") or {}).get("version") is None
    # the desktop's open module is still its driver (nixGL#186)
    doc = _snap(tmp_path, {"proc-driver-version.txt": _text("proc-version-open-565-nixgl186.txt")})
    assert doc["driver"]["version"] == "565.57.01"
