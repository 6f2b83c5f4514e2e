"""Batch 20k of real captures (issue 20): the small NVIDIA/CUDA captures users put in a snapshot by hand beside
nvidia-smi - ``grep CUDNN_MAJOR -A 2`` blocks of the cuDNN header, the toolkit's ``version.txt`` / ``version.json``
(whole, one line, ``head``, ``grep -B 2``, elided), ``nvcc --version`` (5.0 to 11.5, "Command 'nvcc' not found"),
``/proc/driver/nvidia/version``, ``modinfo nvidia``, ``ldconfig -p | grep cudnn`` - and a vGPU guest's
``nvidia-smi -q``. Each is put alone into a snapshot under the file its label names (``_file``, docs/contract.md §1)
and read by ``envcheck status --json --snapshot DIR``; the labels were written by hand from the text before envcheck
was run on it. Sources: tests/data/README.md ("captures20k/"); 13 more are held back in heldout/captures20k
(``scripts/score_captures20k.py heldout/captures20k``).

Then one test per rule, each on a real sample where one exists: what would be misread (or silently dropped) without
the rule, and the healthy control (a real machine's snapshot: no such note)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Dict, List

import pytest

from envcheck.parse.cuda_version import parse_version_json
from envcheck.parse.cudnn_header import parse_cudnn_header
from envcheck.parse.ldconfig import is_listing, parse_ldconfig
from envcheck.parse.nvidia_smi import parse_q
from envcheck.parse.small_forms import describe_unread

DATA = Path(__file__).parent / "data" / "captures20k"
REAL = Path(__file__).parent / "data" / "real" / "h100-580.159.04-torch2.11-cu130" / "snapshot"
SMALL = ("nvcc.txt", "cuda-version.json", "cuda-version.txt", "cudnn_version.h", "proc-driver-version.txt",
         "sys-module-nvidia-version.txt", "ldconfig.txt")


def _text(name: str) -> str:
    return (DATA / f"{name}.txt").read_text(encoding="utf-8")


def _status(folder: Path) -> Dict[str, Any]:
    from click.testing import CliRunner

    from envcheck.cli import cli

    res = CliRunner().invoke(cli, ["status", "--snapshot", str(folder), "--json"], standalone_mode=False,
                             catch_exceptions=False)
    return dict(json.loads(res.output))


def _snapshot(tmp_path: Path, file: str, text: str) -> Dict[str, Any]:
    (tmp_path / file).write_text(text, encoding="utf-8")
    return _status(tmp_path)


def _notes_naming(r: Dict[str, Any], file: str) -> List[Dict[str, Any]]:
    """The not-checked notes about ``file``'s own content (the note on a form not read names it first)."""
    return [f for f in r["findings"] if f["id"] == "not-checked" and str(f["evidence"]).startswith(file + ",")]


def _cases() -> List[Any]:
    return [pytest.param(p, id=p.name[: -len(".expect.json")]) for p in sorted(DATA.glob("*.expect.json"))]


@pytest.mark.parametrize("exp_path", _cases())
def test_capture_read_right_in_a_snapshot(exp_path: Path, tmp_path: Path) -> None:
    exp = json.loads(exp_path.read_text(encoding="utf-8"))
    r = _snapshot(tmp_path, exp["_file"], exp_path.with_name(exp_path.name[: -len(".expect.json")] + ".txt")
                  .read_text(encoding="utf-8"))
    d, tk = r["driver"], r["toolkit"]
    got = {"driver_version": d["version"], "cuda_version": d["cuda"], "state": d["nvidia_smi"],
           "form": d["nvidia_smi_form"], "kernel_module": d["kernel_module"], "toolkit_version": tk["version"],
           "toolkit_full": tk["full_version"], "nvcc": tk["nvcc"], "gpus_complete": r["gpus_known"],
           "cudnn": sorted(str(c["version"]) for c in r["cudnn"]),
           "gpus": [{"index": g["index"], "name": g["name"], "memory_total_mib": g["memory_mib"]}
                    for g in (r["gpus"] or [])],
           "mig": any(g.get("mig") for g in (r["gpus"] or [])),
           "findings": sorted(f["id"] for f in r["findings"] if f["severity"] in ("error", "warning"))}
    if exp.get("cuda_version") is None and str(d["cuda_source"] or "").startswith("envcheck matrix") \
            and "CUDA" not in exp_path.with_name(exp_path.name[: -len(".expect.json")] + ".txt").read_text(encoding="utf-8"):
        got["cuda_version"] = None  # no CUDA field printed (a CSV): derived from the driver's branch, and said so
    for key, want in exp.items():
        if key in got:
            assert got[key] == (sorted(want) if key in ("cudnn", "findings") else want), key
    for file in SMALL:  # the file the label names as not read gets its note; a file read right gets none
        assert bool(_notes_naming(r, file)) is (file in exp["not_checked"]), file


# ------------------------------------------------------------------------------------------------ version.json


def test_version_json_part_is_read_from_its_cuda_entry_not_a_component() -> None:
    # `head version.json`: no closing brace, so no JSON document; the "cuda" entry names the SDK
    assert parse_version_json(_text("cuda-version-json-11.6.1-head-4space-no-braces")) == "11.6.1"
    # elided with "......" after the entries
    assert parse_version_json(_text("cuda-version-json-11.8-dots-elided-zh")) == "11.8.20220929"
    # a part holding only a component's entry ("cuda_cudart") names no toolkit version
    part = _text("cuda-version-json-11.8-dots-elided-zh").replace('"cuda" :', '"cuda_cccl" :')
    assert parse_version_json(part) is None


def test_version_json_part_is_no_unreadable_problem_and_its_date_version_gives_major_minor(tmp_path: Path) -> None:
    r = _snapshot(tmp_path, "cuda-version.json", _text("cuda-version-json-11.8-dots-elided-zh"))
    assert r["toolkit"]["version"] == "11.8"  # "11.8.20220929": the SDK entry's third part is a date
    assert not [p for p in r["problems"] if p["capture"] == "cuda-version.json"]


def test_version_json_cut_before_its_version_is_unreadable_and_said_so(tmp_path: Path) -> None:
    text = _text("cuda-version-json-12.1-grep-b2-fragment").split('"version"')[0]
    r = _snapshot(tmp_path, "cuda-version.json", text)
    assert r["toolkit"]["version"] is None
    assert [p for p in r["problems"] if p["capture"] == "cuda-version.json"]
    assert _notes_naming(r, "cuda-version.json")


# ------------------------------------------------------------------------------------------------- cuDNN header


def test_cudnn_defines_behind_grep_file_names_are_read() -> None:
    # `grep CUDNN_MAJOR -A 2 /usr/include/cudnn*.h` (several files): grep puts "FILE:" before a match and "FILE-"
    # before a context line; the define blocks are the real ones of a dev sample
    lines = [ln for ln in _text("cudnn-h-9.1.1-c-fence-zh").splitlines() if ln.startswith("#define CUDNN_")][:3]
    assert len(lines) == 3
    text = "\n".join(f"/usr/include/cudnn_version.h{':' if i == 0 else '-'}{ln}" for i, ln in enumerate(lines))
    assert parse_cudnn_header(text) == "9.1.1"


def test_cudnn_defines_behind_markdown_line_breaks_and_a_docstring_are_read() -> None:
    assert parse_cudnn_header(_text("cudnn-h-7.3.1-md-trailing-two-spaces-zh")) == "7.3.1"
    assert parse_cudnn_header(_text("cudnn-h-7.6.5-windows-python-docstring")) == "7.6.5"


# ---------------------------------------------------------------------------------------------------- ldconfig


def test_ldconfig_entries_behind_comment_marks_are_read() -> None:
    entries = parse_ldconfig(_text("ldconfig-grep-cudnn8-hash-comment-es"))
    assert [e.soname for e in entries] == ["libcudnn.so.8", "libcudnn_adv_infer.so.8", "libcudnn_adv_train.so.8"]
    assert entries[0].path == "/usr/lib/x86_64-linux-gnu/libcudnn.so.8"


def test_two_ldconfig_entries_joined_on_one_line_are_two_entries() -> None:
    # a lost line break joins two rows: each path ends where the next entry begins
    rows = [ln.strip() for ln in _text("ldconfig-grep-cudnn8-targets-tab-fenced").splitlines() if "=>" in ln]
    entries = parse_ldconfig(rows[4] + "         " + rows[5])
    assert [(e.soname, e.path) for e in entries] == [
        ("libcudnn.so.8", "/usr/local/cuda/targets/x86_64-linux/lib/libcudnn.so.8"),
        ("libcudnn.so", "/usr/local/cuda/targets/x86_64-linux/lib/libcudnn.so")]


def test_an_empty_ldconfig_listing_is_a_listing_not_an_unread_form() -> None:
    assert is_listing("0 libs found in cache `/etc/ld.so.cache'\n")
    assert not is_listing("ldconfig: command not found\n")


# ------------------------------------------------------------------------------------------- nvidia-smi -q vGPU


def test_vgpu_guest_q_attached_vgpus_line_makes_the_list_whole() -> None:
    # a vGPU guest prints "Attached vGPUs : 1" where others print "Attached GPUs"
    q = parse_q(_text("q-535.216.01-vgpu-guest-grid-v100d-8c-attached-vgpus-kubectl"))
    assert [g.name for g in q.gpus] == ["GRID V100D-8C"]
    assert q.gpus_complete is True


# --------------------------------------------------------------------- forms recognised but not taken as the fact


def test_modinfo_is_not_taken_as_the_loaded_module(tmp_path: Path) -> None:
    # modinfo reads the module FILE: after an upgrade without a reboot it differs from the loaded module
    r = _snapshot(tmp_path, "sys-module-nvidia-version.txt", _text("modinfo-nvidia-352.39-centos6-elided-zh"))
    assert r["driver"]["version"] is None
    notes = _notes_naming(r, "sys-module-nvidia-version.txt")
    assert len(notes) == 1 and "modinfo" in notes[0]["message"] and "352.39" in notes[0]["message"]
    assert notes[0]["severity"] == "info"
    assert not [f for f in r["findings"] if f["severity"] in ("error", "warning")]


def test_jetson_kernel_module_line_is_an_l4t_release_not_a_driver_version(tmp_path: Path) -> None:
    # the Jetson form of /proc/driver/nvidia/version (a test line of nanoporetech/dorado's gpu_monitor tests,
    # find_string id 6288662414): "34.1.1" is L4T R34.1.1, read as a driver it would be "older than every floor"
    line = ("NVRM version: NVIDIA UNIX Kernel Module for aarch64  34.1.1  Release Build  "
            "(buildbrain@mobile-u64-5414-d7000)  Mon May 16 21:12:24 PDT 2022\n")
    r = _snapshot(tmp_path, "proc-driver-version.txt", line)
    assert r["driver"]["version"] is None
    notes = _notes_naming(r, "proc-driver-version.txt")
    assert len(notes) == 1 and "L4T" in notes[0]["message"]
    assert not [f for f in r["findings"] if f["severity"] in ("error", "warning")]


def test_nvcc_not_found_is_said_as_unknown_not_as_no_toolkit(tmp_path: Path) -> None:
    r = _snapshot(tmp_path, "nvcc.txt", _text("nvcc-not-found-then-version-json-ko"))
    assert r["toolkit"]["version"] is None
    notes = _notes_naming(r, "nvcc.txt")
    assert len(notes) == 1 and "Command 'nvcc' not found" in notes[0]["message"]
    assert notes[0]["component"] == "toolkit"


def test_a_form_not_recognised_names_its_file_and_first_line(tmp_path: Path) -> None:
    # an nvidia-smi table put in cudnn_version.h by mistake: no cuDNN version, said so, no default
    smi = (Path(__file__).parent / "data" / "captures20h").glob("t*.txt")
    text = next(iter(sorted(smi))).read_text(encoding="utf-8")
    r = _snapshot(tmp_path, "cudnn_version.h", text)
    assert r["cudnn"] == []
    notes = _notes_naming(r, "cudnn_version.h")
    assert len(notes) == 1 and "none of the forms" in notes[0]["message"]
    assert describe_unread(text) is None


def test_healthy_real_snapshot_has_no_unread_note(tmp_path: Path) -> None:
    # the real H100 snapshot (taken with `envcheck snapshot`): every small capture is read, none gets a note
    snap = tmp_path / "snap"
    shutil.copytree(REAL, snap)
    r = _status(snap)
    for file in SMALL:
        assert not _notes_naming(r, file), file


# ----------------------------------------------------------------------------- R610: "KMD Version", "CUDA UMD Version"


def test_r610_q_reads_the_driver_behind_its_deprecation_note() -> None:
    # R610's -q: "Driver Version : 610.57.04 [Deprecated; ... Use KMD Version instead]", then "KMD Version" and
    # "CUDA UMD Version" (nvidia_gpu_exporter's real capture of an RTX 2080 SUPER)
    q = parse_q(_text("exporter-q-linux-x86_64-nvidia-geforce-rtx-2080-super-610.57.04"))
    assert (q.driver_version, q.cuda_version, q.cuda_unavailable) == ("610.57.04", "13.3", None)


def test_nvidia_smi_version_block_is_its_own_form_with_no_gpu_list() -> None:
    from envcheck.parse.nvidia_smi import FORM_VERSION, parse_smi

    for name, drv, cuda in (("exporter-version-linux-x86_64-nvidia-geforce-rtx-2080-super-610.57.04", "610.57.04", "13.3"),
                            ("exporter-version-linux-x86_64-nvidia-h100-mig-590.48.01", "590.48.01", "13.1")):
        t = parse_smi(_text(name))
        assert (t.form, t.driver_version, t.cuda_version, t.gpus, t.cuda_unavailable) == (FORM_VERSION, drv, cuda, [], None)
        assert not t.gpus_complete  # it lists no GPU: unknown, not "none"


def test_r610_version_block_as_a_paste() -> None:
    from envcheck.paste import read_report

    rep = read_report(_text("exporter-version-linux-x86_64-nvidia-geforce-rtx-2080-super-610.57.04"))
    assert rep.facts["driver"] == {"version": "610.57.04", "cuda": "13.3"}


# ------------------------------------------------------------------------------------------- the same, as pastes


def _explain_facts(path: Path) -> Dict[str, Any]:
    from click.testing import CliRunner

    from envcheck.cli import cli

    res = CliRunner().invoke(cli, ["explain", "--json", "--no-detect", str(path)], standalone_mode=False,
                             catch_exceptions=False)
    return dict(json.loads(res.output)["facts"])


def test_wide_query_csv_paste_keeps_its_columns() -> None:
    # an exporter's ~250-field --query-gpu (header ~7,600 characters): a header cut at the readers' line bound
    # glued every cell after the cut into the GPU's name; read whole, the name is the name
    f = _explain_facts(DATA / "exporter-csv-windows-x86_64-nvidia-geforce-rtx-2080-super-610.62.txt")
    assert [(g["index"], g["name"]) for g in f["gpus"]] == [(0, "NVIDIA GeForce RTX 2080 SUPER")]
    assert f["driver"]["version"] == "610.62"


def test_q_x_paste_longer_than_the_whole_read_bound_is_found_by_its_root_element() -> None:
    # telegraf's RTX 4000 SFF Ada fixture (DTD v13, 66 KB: over the 64 KB read whole, so read by its windows)
    path = DATA / "qx-telegraf-rtx-4000-sff-ada-v13.txt"
    assert path.stat().st_size > 64 * 1024
    f = _explain_facts(path)
    assert f["driver"] == {"version": "595.84", "cuda": "13.2"}
    assert [g["name"] for g in f["gpus"]] == ["NVIDIA RTX 4000 SFF Ada Generation"]
