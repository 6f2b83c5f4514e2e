"""Batch 20h of real NVIDIA captures (issue 20, item 2): nvidia-smi tables of drivers 290-610 (the 2012 ``Nb.  Name``
layout, 3xx without a CUDA field, 4xx/5xx, the 580+ layout, Windows WDDM/TCC, a Windows host printing
``CUDA Version: N/A``), MIG tables, Jetson tables (``Driver Version: N/A`` on JetPack 6 DP, a two-row excerpt),
``nvidia-smi -q`` / ``-a`` (whole, cut, ``-d POWER``, ``-d TEMPERATURE``, Windows WDDM, a forum's HTML export),
``-L`` (R450's ``MIG Device 0:`` lines, MIG profiles), query CSVs, ``nvidia-smi topo -m`` and error texts, as users
posted them. Each is put alone into a snapshot as ``nvidia-smi.txt`` (docs/contract.md §1) and read by
``envcheck status --json --snapshot DIR``; the labels (``X.expect.json``) were written by hand from the text before
envcheck was run on it. Sources: tests/data/README.md ("captures20h/"); 20 more of the same collection are held back
in heldout/captures20h (``scripts/score_captures20f.py heldout/captures20h``).

Then one test per rule these captures needed, each on a real sample: what would be misread without the rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

from envcheck.parse.nvidia_smi import (FORM_L, FORM_TABLE, FORM_UNKNOWN, clean_capture, parse_list,
                                       parse_query_csv, parse_smi, parse_table, parse_xml)

DATA = Path(__file__).parent / "data" / "captures20h"


def _text(name: str) -> str:
    return (DATA / f"{name}.txt").read_text(encoding="utf-8")


def _status(folder: Path) -> Dict[str, Any]:
    from click.testing import CliRunner

    from envcheck.cli import cli

    res = CliRunner().invoke(cli, ["status", "--snapshot", str(folder), "--json"], standalone_mode=False,
                             catch_exceptions=False)
    return dict(json.loads(res.output))


def _cases() -> List[Any]:
    return [pytest.param(p, id=p.name[: -len(".expect.json")]) for p in sorted(DATA.glob("*.expect.json"))]


@pytest.mark.parametrize("exp_path", _cases())
def test_capture_read_right_in_a_snapshot(exp_path: Path, tmp_path: Path) -> None:
    exp = json.loads(exp_path.read_text(encoding="utf-8"))
    text = exp_path.with_name(exp_path.name[: -len(".expect.json")] + ".txt").read_text(encoding="utf-8")
    (tmp_path / exp["_file"]).write_text(text, encoding="utf-8")
    r = _status(tmp_path)
    d = r["driver"]
    assert d["version"] == exp["driver_version"]
    if exp["cuda_version"] is not None or not str(d["cuda_source"] or "").startswith("envcheck matrix"):
        assert d["cuda"] == exp["cuda_version"]  # a branch-derived CUDA (no field printed) says where it came from
    assert d["nvidia_smi"] == exp["state"]
    if "form" in exp:
        assert d["nvidia_smi_form"] == exp["form"]
    if "gpus" in exp:
        assert [{"index": g["index"], "name": g["name"], "memory_total_mib": g["memory_mib"]}
                for g in (r["gpus"] or [])] == exp["gpus"]
    if "mig" in exp:
        assert any(g.get("mig") for g in (r["gpus"] or [])) is exp["mig"]
    assert r["gpus_known"] is bool(exp["gpus_complete"])
    assert sorted(f["id"] for f in r["findings"] if f["severity"] in ("error", "warning")) == sorted(exp["findings"])


def test_r450_mig_device_lines_without_a_profile_are_mig_devices_not_gpus() -> None:
    # "  MIG Device 0: (UUID: MIG-GPU-.../1/0)": R450 printed no profile name before "Device"
    t = parse_list(_text("L-graphics-device-mig-device-lines-no-profile"))
    assert [g.name for g in t.gpus] == ["Graphics Device"]
    assert t.mig_devices == 3
    assert t.gpus[0].mig_enabled is True


def test_csv_rows_end_at_the_first_line_that_is_not_a_row() -> None:
    # the CSV's row, a fence, then prose with commas ("Driver 610.88, CUDA UMD 13.3, `nvcc` 13.3.73, ..."): one GPU
    text = _text("L-then-csv-610.88-4080super-windows-fr")
    q = parse_query_csv(text)
    assert [g.name for g in q.gpus] == ["NVIDIA GeForce RTX 4080 SUPER"]
    assert q.gpus[0].compute_capability == "8.9"
    # the same line read alone after the header would have been taken for a GPU: the row check is what refuses it
    prose = "name, driver_version, memory.total [MiB], compute_cap\nDriver 610.88, CUDA UMD 13.3, nvcc, CPU\n"
    assert parse_query_csv(prose).gpus == []


def test_a_line_of_dots_between_csv_rows_is_passed_over() -> None:
    text = ("index, name, memory.total [MiB]\n0, NVIDIA A100-SXM4-40GB, 40960 MiB\n...\n"
            "7, NVIDIA A100-SXM4-40GB, 40960 MiB\n```\nThe last line of prose, with, commas, here\n")
    assert [g.index for g in parse_query_csv(text).gpus] == [0, 7]


def test_the_csv_mig_mode_column_marks_mig_gpus() -> None:
    t = parse_smi(_text("csv-index-name-uuid-driver-mig-mode-8x-rtx-pro-6000-610"))
    assert len(t.gpus) == 8
    assert all(g.mig_enabled is True for g in t.gpus)
    assert t.driver_version == "610.43.02"


def test_l_lines_take_the_memory_and_compute_capability_of_the_csv_row_of_the_same_gpu() -> None:
    t = parse_smi(_text("L-then-csv-610.88-4080super-windows-fr"))
    assert [(g.index, g.name, g.memory_total_mib, g.compute_capability) for g in t.gpus] == \
        [(0, "NVIDIA GeForce RTX 4080 SUPER", 16376, "8.9")]
    assert t.gpus[0].uuid == "GPU-d9116be8-13c2-ea3b-b790-e27e8c7fe969"


def test_the_next_frame_after_a_process_table_is_read_once() -> None:
    # a watch loop's previous frame ended in its process table; the next frame's GPU rows are the GPUs
    t = parse_table(_text("t390.30-k80-after-previous-processes-section"))
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "Tesla K80", 11441)]
    twice = _text("t550.90.07-t4-homework-results").split("```")[1]
    t2 = parse_table(twice + "\n" + twice)
    assert [g.index for g in t2.gpus] == [0]  # the same rows in a second frame are not a second GPU


def test_jetson_rows_without_the_header_are_one_gpu_not_a_whole_list() -> None:
    t = parse_smi(_text("jetson-two-row-fragment-no-header-text-fence"))
    assert t.form == FORM_TABLE and t.state == "ok"
    assert [(g.name, g.memory_total_mib) for g in t.gpus] == [("Orin (nvgpu)", None)]
    assert t.gpus_complete is False
    # the same "N/A  N/A" bus cell under a name that is not a Jetson's, without a header, is not read as a GPU
    assert parse_smi("|   0  Something else   N/A  | N/A              N/A |\n").gpus == []


def test_the_2012_nb_name_layout() -> None:
    t = parse_table(_text("t2.290.10-8500gt-nb-layout-md-escaped-index-ru"))
    assert t.driver_version == "290.10"
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "GeForce 8500 GT", 255)]
    assert t.gpus_complete is True


def test_a_forum_html_export_of_q_is_read() -> None:
    t = parse_smi(_text("q-windows-510.06-gtx1650-html-br-p-forum-export"))
    assert (t.driver_version, t.cuda_version) == ("510.06", "11.6")
    assert [(g.name, g.uuid) for g in t.gpus] == [("NVIDIA GeForce GTX 1650", "GPU-7592dcbd-7989-64a5-f5e8-05730e7d713b")]
    assert t.gpus_complete is True


def test_html_cleaning_leaves_nvidia_smi_xml_alone() -> None:
    xml = ("<nvidia_smi_log>\n<driver_version>535.86.05</driver_version>\n<cuda_version>12.2</cuda_version>\n"
           "<attached_gpus>1</attached_gpus>\n<gpu id=\"00000000:01:00.0\">\n"
           "<product_name>NVIDIA GeForce RTX 4090</product_name>\n<br>\n</gpu>\n</nvidia_smi_log>\n")
    cleaned = clean_capture(xml)
    assert "<product_name>NVIDIA GeForce RTX 4090</product_name>" in cleaned and "<br>" not in cleaned
    t = parse_xml(cleaned)
    assert (t.driver_version, [g.name for g in t.gpus]) == ("535.86.05", ["NVIDIA GeForce RTX 4090"])


def test_topo_m_alone_is_an_unknown_form_never_a_failure() -> None:
    t = parse_smi(_text("topo-m-4x-h100-nv18-8-nics-alone"))
    assert t.form == FORM_UNKNOWN and t.state is None and t.gpus == []


@pytest.mark.parametrize("said", ["Failed to initialize NVML: Insufficient Permissions",
                                  "Failed to initialize NVML: GPU access blocked by the operating system"])
def test_nvml_refusing_the_devices_is_device_permission_never_no_driver(said: str, tmp_path: Path) -> None:
    (tmp_path / "nvidia-smi.txt").write_text(f"$ nvidia-smi\n{said}\n", encoding="utf-8")
    r = _status(tmp_path)
    found = {f["id"]: f for f in r["findings"] if f["severity"] in ("error", "warning")}
    assert list(found) == ["device-permission"]
    assert said in found["device-permission"]["message"]
    assert "SELinux" in found["device-permission"]["message"]
    assert r["driver"]["nvidia_smi"] == "nvml-unknown-error"


def test_the_l_form_is_named_for_the_mig_listing() -> None:
    assert parse_smi(_text("L-a100-sxm4-80gb-7-mig-1g.10gb-ko-cut-at-6")).form == FORM_L


def test_a_pasted_csv_with_uuid_and_mig_mode_columns_is_read_as_a_paste() -> None:
    # the paste path reads the same CSV: its rows fit the header's columns (a UUID, a MIG mode: cells of no shape)
    from click.testing import CliRunner

    from envcheck.cli import cli

    res = CliRunner().invoke(cli, ["explain", "--json", "--no-detect",
                                   str(DATA / "csv-index-name-uuid-driver-mig-mode-8x-rtx-pro-6000-610.txt")],
                             standalone_mode=False, catch_exceptions=False)
    facts = json.loads(res.output)["facts"]
    assert facts["driver"]["version"] == "610.43.02"
    assert [(g["index"], g["name"]) for g in facts["gpus"]] == \
        [(i, "NVIDIA RTX PRO 6000 Blackwell Server Edition") for i in range(8)]


def test_prose_with_commas_under_a_csv_header_is_no_row() -> None:
    from envcheck.parse.nvidia_smi import is_query_row

    assert is_query_row("name, memory.total [MiB]", "NVIDIA A10, 23028")  # nounits
    assert not is_query_row("name, driver_version", "Driver 610.88, CUDA UMD 13.3")


def test_a_notebook_output_kept_as_json_strings_is_read() -> None:
    t = parse_smi(_text("t460.32.03-t4-ipynb-output-strings"))
    assert (t.driver_version, t.cuda_version) == ("460.32.03", "11.2")
    assert [(g.name, g.memory_total_mib) for g in t.gpus] == [("Tesla T4", 15109)]
    assert t.gpus_complete is True


def test_an_output_kept_in_one_json_string_is_read() -> None:
    t = parse_smi(_text("t525.85.12-3x-a100-80g-json-api-stdout-one-line"))
    assert t.driver_version == "525.85.12"
    assert [g.index for g in t.gpus] == [0, 1, 2]


def test_lines_that_are_no_such_string_are_left_alone() -> None:
    quoted_csv = '"0","NVIDIA A100","40960 MiB"\n' * 3  # quoted cells, no escaped newline: not a notebook's strings
    assert clean_capture(quoted_csv) == quoted_csv
    prose = 'a path C:\\new\\data and "one \\n quoted",\n'
    assert clean_capture(prose) == prose
