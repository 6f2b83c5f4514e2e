"""nvidia-smi captures in the forms users paste them (issue 20, caps42; contract §1): every capture of tests/data/caps42
(real, cited in its README.md; labels written by hand from the text before the readers were changed, heldout/caps42-held
holds the part held back) is read as its label says, also inside a log, a quote or a JSON string; the paste side reads
the same listings (a script's ``#`` comments, a docs page's masked UUID). What changed for them: a ``-q`` log whose
prose line above the banner looked like a section title ("Run"), a ``--query-gpu ... -l 1`` CSV whose samples repeat a
GPU, and a ``--query-compute-apps`` CSV whose rows are processes, not GPUs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_caps33 import WRAPS

from envcheck.parse import nvidia_smi
from envcheck.paste import read_report

DATA = Path(__file__).parent / "data" / "caps42"
KEYS = ("form", "driver_version", "cuda_version", "gpus", "gpus_complete", "state", "mig")


def _names():
    return sorted(p.name[: -len(".expect.json")] for p in DATA.glob("*.expect.json"))


def _read(name: str) -> str:
    return (DATA / f"{name}.txt").read_text(encoding="utf-8")


def _exp(name: str) -> dict:
    return json.loads((DATA / f"{name}.expect.json").read_text(encoding="utf-8"))


def _got(t: nvidia_smi.SmiTable) -> dict:
    return {"form": t.form, "driver_version": t.driver_version, "cuda_version": t.cuda_version,
            "gpus": [{"index": g.index, "name": g.name, "memory_total_mib": g.memory_total_mib} for g in t.gpus],
            "gpus_complete": t.gpus_complete, "state": t.state,
            "mig": t.mig_devices > 0 or any(g.mig_enabled for g in t.gpus)}


def _bad(exp: dict, text: str) -> list:
    got = _got(nvidia_smi.parse_smi(text))
    if isinstance(exp.get("gpus"), list):  # a GPU's keys the label leaves out are not compared (as the scorer does)
        got["gpus"] = [{k: g[k] for k in e} for g, e in zip(got["gpus"], exp["gpus"])] + got["gpus"][len(exp["gpus"]):]
    return [(k, exp[k], got[k]) for k in KEYS if k in exp and exp[k] != got[k]]


def test_every_capture_is_cited_and_labelled():
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    files = sorted(DATA.glob("*.txt"))
    assert len(files) == 30
    for p in files:
        row = next((ln for ln in readme.splitlines() if f"`{p.name}`" in ln), "")
        assert "find_string id " in row or "https://github.com/" in row, p.name
        assert (DATA / (p.name[:-4] + ".expect.json")).is_file()


@pytest.mark.parametrize("name", _names())
def test_capture_read_as_labelled(name):
    assert _bad(_exp(name), _read(name)) == []


@pytest.mark.parametrize("wrap", sorted(WRAPS))
@pytest.mark.parametrize("name", _names())
def test_capture_read_the_same_inside_a_log_a_quote_or_a_string(name, wrap):
    if len(_read(name).strip().split("\n")) < 3 and wrap == "kubectl-prefix":
        pytest.skip("a runner label is taken off three lines or more only")
    assert _bad(_exp(name), WRAPS[wrap](_read(name))) == []


@pytest.mark.parametrize("name", _names())
def test_capture_read_the_same_with_markdown_hard_line_breaks(name):
    """A README outside a fence keeps an output's lines with a " \\" at the end of each (a Markdown hard line break,
    as the docker compose log of heldout/caps42-held has them): the same reading."""
    assert _bad(_exp(name), "\n".join(ln + " \\" if ln.strip() else ln for ln in _read(name).split("\n"))) == []


def test_a_shell_continuation_is_no_hard_line_break():
    """Two command lines continued with " \\" in a text of many lines are the command's: the text is left as it is."""
    text = "docker run --gpus all \\\n  nvidia/cuda nvidia-smi -L\n" + "line\n" * 8
    assert nvidia_smi.clean_capture(text) == text


def test_a_prose_line_above_the_q_banner_is_no_section_title():
    """"Run" alone on a line above "==============NVSMI LOG==============" (a cluster guide) is prose: the driver
    version under the banner is the log's, not a key of a section called "Run"."""
    t = nvidia_smi.parse_smi(_read("q-331.67-tacc-srun-verifying-banner-k20m-cut"))
    assert (t.form, t.driver_version, [g.name for g in t.gpus]) == ("nvidia-smi -q", "331.67", ["Tesla K20m"])
    # the same log without the prose line above it reads the same (the fix does not depend on the word)
    text = _read("q-331.67-tacc-srun-verifying-banner-k20m-cut").replace("Run\n", "Results\n", 1)
    assert nvidia_smi.parse_smi(text).driver_version == "331.67"


def test_a_looped_query_is_one_gpu_per_index():
    """``--query-gpu=index,... -l 1`` prints GPU 0 once a sample: one GPU, the first sample's values."""
    t = nvidia_smi.parse_smi(_read("csv-index-mem-loop-l1-annotated-arrows-one-gpu-79559"))
    assert [(g.index, g.memory_total_mib) for g in t.gpus] == [(0, 79559)]
    two = "index, name, memory.total [MiB]\n0, Tesla T4, 15360 MiB\n1, Tesla T4, 15360 MiB\n" \
          "0, Tesla T4, 15360 MiB\n1, Tesla T4, 15360 MiB\n"
    assert [g.index for g in nvidia_smi.parse_smi(two).gpus] == [0, 1]


def test_a_compute_apps_csv_lists_no_gpu():
    """A ``--query-compute-apps`` header (a process field: pid, process_name, used_memory, used_gpu_memory) is no
    ``--query-gpu`` header: its rows are processes ("0, python, 79456" is no GPU called "python")."""
    text = "index, name [MiB], used_memory [MiB]\n0, python, 79456\n"
    assert nvidia_smi.parse_query_csv(text).gpus == []
    assert nvidia_smi.parse_smi(text).gpus == []
    assert not nvidia_smi.is_query_header("pid, process_name, used_gpu_memory [MiB]")
    assert nvidia_smi.is_query_header("index, name, memory.total [MiB]")


@pytest.mark.parametrize("name, gpus", [
    ("L-hash-commented-in-script-trailing-blanks-two-a100-mig", [(0, "A100-PCIE-40GB"), (1, "A100-PCIE-40GB")]),
    ("L-zh-kubectl-logs-expected-output-masked-uuid-2g.10gb", [(0, "A100-SXM4-40GB")]),
    ("L-vi-six-a100-pcie-two-with-mig-user-prompt", [(i, "A100-PCIE-40GB") for i in range(6)]),
])
def test_a_pasted_listing_is_read_by_the_paste_side_too(name, gpus):
    """The paste (``envcheck explain``) finds the listing and hands it to the snapshot's reader: a script's "# GPU 0:"
    comment lines and a masked "GPU-...****" UUID are the listing as the snapshot side reads it."""
    r = read_report(_read(name))
    assert "nvidia-smi -L" in r.formats
    t = nvidia_smi.parse_smi(r.captures["nvidia-smi.txt"])
    assert [(g.index, g.name) for g in t.gpus] == gpus
    assert t.mig_devices > 0


def test_a_comment_that_is_no_listing_stays_unread():
    """Only a listing's own lines lose their "#": a comment that mentions a GPU is not a GPU."""
    r = read_report("# GPU 0 is the one we use for training\n# see the wiki\n")
    assert "nvidia-smi -L" not in r.formats
    assert "nvidia-smi.txt" not in r.captures


@pytest.mark.parametrize("name", [n for n in _names() if n.startswith(("topo-", "dmon-"))])
def test_a_text_without_a_gpu_list_is_unknown_at_every_cut(name):
    """``topo -m`` and ``dmon`` (its header and samples as ``#`` comments too) are no GPU list at any line-cut."""
    lines = _read(name).splitlines(keepends=True)
    for n in range(1, len(lines) + 1):
        t = nvidia_smi.parse_smi("".join(lines[:n]))
        assert (t.gpus, t.gpus_complete, t.state, t.error, t.driver_version) == ([], None, None, None, None), n


def _scorer():
    import importlib.util

    path = Path(__file__).parent.parent / "scripts" / "score_captures.py"
    spec = importlib.util.spec_from_file_location("score_captures", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_scorer_compares_gpus_complete_as_the_contract_uses_it():
    """A label's "gpus_complete": false (not whole) is met by a reader's None (no list at all): both are
    ``gpus_known: false``; only True (known whole) against not True is a difference. Every other key is compared as
    it is."""
    same = _scorer().same
    assert same("gpus_complete", False, None) and same("gpus_complete", None, False)
    assert same("gpus_complete", True, True)
    assert not same("gpus_complete", True, None) and not same("gpus_complete", False, True)
    assert not same("driver_version", None, "") and not same("state", "ok", None)
    assert same("gpus", [{"index": 0}], [{"index": 0}])


# two real texts of heldout/captures27-held (spent): a `--version` block then a header-less query row (a DGX Spark
# probe log, find_string id 59671637454), and R616's device-handle error then the other GPU's row with power cells
# (a WSL llama.cpp notes file, find_string id 69386387984)
VERSION_THEN_ROW = ("== gpu (non-secret) ==\nNVIDIA-SMI version  : 580.142\nNVML version        : 580.142\n"
                    "DRIVER version      : 580.142\nCUDA Version        : 13.0\n"
                    "0, NVIDIA GB10, 12.1, 0000000F:01:00.0, 580.142\n")
ERROR_THEN_ROW = ("```\nUnable to determine the device handle for GPU0: 0000:24:00.0: GPU is lost.  Reboot the system to "
                  "recover this GPU\n1, NVIDIA GeForce RTX 5070 Ti, 300.00 W, 300.00 W, 300.00 W, 34.61 W, 616.92\n```\n")


def test_a_version_block_then_its_query_row():
    t = nvidia_smi.parse_smi(VERSION_THEN_ROW)
    assert (t.driver_version, t.cuda_version, [(g.index, g.name) for g in t.gpus], t.gpus_complete) == \
        ("580.142", "13.0", [(0, "NVIDIA GB10")], True)


def test_a_lost_gpu_then_the_other_gpus_row_with_power_cells():
    t = nvidia_smi.parse_smi(ERROR_THEN_ROW)
    assert (t.state, [(g.index, g.name) for g in t.gpus], t.gpus_complete) == \
        ("faulty-gpu", [(1, "NVIDIA GeForce RTX 5070 Ti")], False)


def test_rows_among_other_lines_must_be_one_block():
    """Two rows apart (prose between them) are not one printed block: none is read; a unit cell ("300.00 W") is passed
    over only after the first cell (a row never starts with one)."""
    apart = "0, NVIDIA GB10, 12.1\nsome prose line\n1, NVIDIA GB10, 12.1\n"
    assert nvidia_smi.shaped_rows_among(apart).gpus == []
    assert nvidia_smi.parse_query_rows("300.00 W, NVIDIA GB10\n").gpus == []
    assert [g.name for g in nvidia_smi.parse_query_rows("0, NVIDIA GB10, 34 %, 1755 MHz\n").gpus] == ["NVIDIA GB10"]
