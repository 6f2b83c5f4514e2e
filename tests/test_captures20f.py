"""Batch 20f of real captures (issues 20 and 21): nvidia-smi tables of driver branches 331-617 (Linux, Windows
WDDM/TCC, WSL2, R610+ KMD/UMD, MIG, Jetson), ``-q`` / ``-q -x`` / ``-L`` / ``--query-gpu`` CSV, failure texts,
``/etc/nv_tegra_release``, rocm-smi, rocminfo, hipconfig, amd-smi, xpu-smi and system_profiler, as users posted
them (prompts, fences, quotes, comments, indentation, truncation). Each is put alone into a snapshot under its
contract file (docs/contract.md §1 / §9) and read by ``envcheck status --json --snapshot DIR``; the labels
(``X.expect.json``) were written by hand from the text before envcheck was run on it. Sources: tests/data/README.md
("captures20f/"); 24 more of the same collection are held back in heldout/captures20f
(``scripts/score_captures20f.py``).

Also: what a terminal, log viewer or Markdown renderer does to such a capture (CRLF, colour escapes, box-drawing
borders, escaped pipes, no-break spaces, collapsed blanks) changes nothing read from it; a listing the poster
elided or piped through ``head`` is not the whole list; a snapshot made by hand without a driver capture says
``not-checked``, never ``no-gpu-driver`` (contract §1)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

from envcheck.parse.nvidia_smi import clean_capture, parse_smi, partial_listing
from envcheck.parse.tegra import parse_tegra_release

DATA = Path(__file__).parent / "data" / "captures20f"
NVIDIA_ONLY = re.compile(r"nvidia|nvml|libcuda|cuda driver|compute capability", re.IGNORECASE)


def _status(folder: Path, *extra: str) -> Dict[str, Any]:
    from click.testing import CliRunner

    from envcheck.cli import cli

    res = CliRunner().invoke(cli, ["status", "--snapshot", str(folder), *extra], standalone_mode=False,
                             catch_exceptions=False)
    if "--json" in extra:
        return dict(json.loads(res.output))
    return {"_text": res.output}


def _one(tmp_path: Path, name: str, text: str) -> Dict[str, Any]:
    (tmp_path / name).write_text(text, encoding="utf-8")
    r = _status(tmp_path, "--json")
    r["_text"] = _status(tmp_path)["_text"]
    return r


def _cases() -> List[Any]:
    return [pytest.param(p, id=p.name[: -len(".expect.json")]) for p in sorted(DATA.glob("*.expect.json"))]


def _get(report: Dict[str, Any], path: str) -> Any:
    cur: Any = report
    for part in path.split("."):
        cur = cur.get(part) if isinstance(cur, dict) else None
    return cur


def _check_nvidia(r: Dict[str, Any], exp: Dict[str, Any]) -> None:
    d = r["driver"]
    if "driver_version" in exp:
        assert d["version"] == exp["driver_version"]
        if exp["cuda_version"] is not None or d["cuda_source"] is None or \
                not str(d["cuda_source"]).startswith("envcheck matrix"):
            assert d["cuda"] == exp["cuda_version"]  # a branch-derived CUDA (no field printed) says where from
        assert d["nvidia_smi"] == exp["state"]
        if "form" in exp:
            assert d["nvidia_smi_form"] == exp["form"]
        assert [{"index": g["index"], "name": g["name"], "memory_total_mib": g["memory_mib"]}
                for g in (r["gpus"] or [])] == exp["gpus"]
        assert any(g.get("mig") for g in (r["gpus"] or [])) is exp["mig"]
    if "gpus_complete" in exp:
        assert r["gpus_known"] is bool(exp["gpus_complete"])
    if "l4t" in exp:
        assert r["accelerator"]["l4t"] == exp["l4t"]
    said = sorted(f["id"] for f in r["findings"] if f["severity"] in ("error", "warning"))
    assert said == sorted(exp["findings"])


def _check_vendor(r: Dict[str, Any], facts: Dict[str, Any]) -> None:
    for key, want in facts.items():
        if key == "gpus":
            got = r.get("gpus") or []
            assert len(got) == len(want), got
            for g, w in zip(got, want):
                assert {k: g.get(k) for k in w} == w
        else:
            assert _get(r, key) == want, key
    # an AMD / Intel / Apple machine: nothing NVIDIA-only is said, in the findings or the text report
    said = [f"{f['id']}: {f['message']}" for f in r["findings"]] + r["_text"].splitlines()
    assert not [s for s in said if NVIDIA_ONLY.search(s)]


@pytest.mark.parametrize("exp_path", _cases())
def test_capture_read_right_in_a_snapshot(exp_path: Path, tmp_path: Path) -> None:
    exp = json.loads(exp_path.read_text(encoding="utf-8"))
    text = exp_path.with_name(exp_path.name[: -len(".expect.json")] + ".txt").read_text(encoding="utf-8")
    r = _one(tmp_path, exp["_file"], text)
    if "facts" in exp:
        _check_vendor(r, exp["facts"])
    else:
        _check_nvidia(r, exp)


def test_the_real_subprocess_reads_a_commented_windows_table(tmp_path: Path) -> None:
    # the CLI as a user runs it: a Windows table copied into a script's comments ("# |   0  NVIDIA ...")
    (tmp_path / "nvidia-smi.txt").write_text((DATA / "t551.61-windows-hash-commented-set-lines.txt").read_text())
    p = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    r = json.loads(p.stdout)
    assert r["driver"]["version"] == "551.61" and r["driver"]["cuda"] == "12.4"
    assert [(g["name"], g["memory_mib"]) for g in r["gpus"]] == [("NVIDIA GeForce RTX 4090", 24564)]
    assert r["gpus_known"] is True and not [f for f in r["findings"] if f["severity"] in ("error", "warning")]


# --------------------------------------------------------------------------- what happens to a capture on its way
def _facts(text: str) -> tuple:
    t = parse_smi(text)
    return (t.form, t.driver_version, t.cuda_version, [(g.index, g.name, g.memory_total_mib) for g in t.gpus],
            t.gpus_complete, t.state, t.mig_devices)


_DAMAGE = {
    "crlf": lambda s: s.replace("\n", "\r\n"),
    "ansi colours": lambda s: "\n".join("\x1b[0;32m" + ln + "\x1b[0m" if ln.strip() else ln for ln in s.split("\n")),
    "collapsed blanks": lambda s: "\n".join(re.sub(r"[ \t]+", " ", ln) for ln in s.split("\n")),
    "box drawing": lambda s: s.replace("|", "\u2502").replace("+", "\u253c").replace("=", "\u2550"),
    "markdown escaped pipes": lambda s: s.replace("|", "\\|"),
    "no-break spaces": lambda s: s.replace("  ", "\u00a0 "),
}
_SMI = [p for p in sorted(DATA.glob("*.txt")) if "facts" not in json.loads(
    p.with_name(p.name[:-4] + ".expect.json").read_text()) and json.loads(
    p.with_name(p.name[:-4] + ".expect.json").read_text())["_file"] == "nvidia-smi.txt"]


@pytest.mark.parametrize("damage", sorted(_DAMAGE))
def test_damage_on_the_way_changes_nothing_read(damage: str) -> None:
    assert len(_SMI) >= 25
    for path in _SMI:
        text = path.read_text(encoding="utf-8")
        assert _facts(_DAMAGE[damage](text)) == _facts(text), path.name


def test_the_damaged_texts_are_read_at_all() -> None:
    # the comparison above is not an empty one: the clean texts do yield drivers and GPUs
    read = [_facts(p.read_text(encoding="utf-8")) for p in _SMI]
    assert sum(1 for f in read if f[1]) >= 15 and sum(len(f[3]) for f in read) >= 30


def test_clean_capture_leaves_an_ascii_capture_alone() -> None:
    text = (DATA / "t572.70-windows-2x-4090-console-fence.txt").read_text(encoding="utf-8")
    assert clean_capture(text) == text
    assert clean_capture("\x1b[1m| NVIDIA-SMI 1\u2502\x1b[0m") == "| NVIDIA-SMI 1|"


# --------------------------------------------------------------------------- listings that are not whole
def test_an_elided_or_filtered_listing_is_not_whole() -> None:
    l_text = (DATA / "L-elided-uuids-inline-comments-ellipsis.txt").read_text()
    t = parse_smi(l_text)
    assert [g.index for g in t.gpus] == [0, 1, 2] and t.mig_devices == 2 and t.gpus_complete is False
    # the same three lines without the "..." line: whole
    whole = "\n".join(ln for ln in l_text.splitlines() if ln.strip() != "...")
    assert parse_smi(whole).gpus_complete is True
    head = (DATA / "L-head-n10-dgx-a100-mig-cut.txt").read_text()
    assert partial_listing(head) and parse_smi(head).gpus_complete is False
    assert parse_smi(head.replace(" | head -n10", "")).gpus_complete is True
    csv = "index, name, memory.total [MiB]\n0, NVIDIA H200, 143771 MiB\n1, NVIDIA H200, 143771 MiB\n"
    assert parse_smi(csv).gpus_complete is True
    assert parse_smi(csv + "... (GPUs 2-7 identical)\n").gpus_complete is False
    assert parse_smi("$ nvidia-smi --query-gpu=index,name --format=csv | grep H200\n" + csv).gpus_complete is False
    # a CSV sampled every second (``-l 1``) repeats its one GPU's index: one GPU, the whole list
    sampled = parse_smi("index, temperature.gpu\n0, 56\n0, 55\n0, 56\n")
    assert sampled.gpus_complete is True


def test_l_lines_and_the_csv_together_read_by_the_whole_listing() -> None:
    t = parse_smi((DATA / "L-cut-then-csv-8x-a100-570.133.20-zh.txt").read_text())
    assert t.driver_version == "570.133.20" and len(t.gpus) == 8 and t.gpus_complete is True
    assert {g.memory_total_mib for g in t.gpus} == {81920}


def test_commented_mig_lines_are_mig_devices_not_gpus() -> None:
    t = parse_smi((DATA / "L-commented-5gpu-dgx-display-mig-stray-backticks.txt").read_text())
    assert [g.name for g in t.gpus][3] == "NVIDIA DGX Display" and len(t.gpus) == 5
    assert t.mig_devices == 4 and [g.index for g in t.gpus if g.mig_enabled] == [2, 4]


def test_an_nvidia_smi_error_lists_no_gpus_it_says_nothing_of_them(tmp_path: Path) -> None:
    r = _one(tmp_path, "nvidia-smi.txt", (DATA / "err-mismatch-nvml-560.31-powerline-prompt-glued.txt").read_text())
    assert r["driver"]["nvidia_smi"] == "driver-library-mismatch" and r["gpus_known"] is False
    assert "none found" not in r["_text"]


# --------------------------------------------------------------------------- Jetson's release file
def test_the_release_token_is_found_behind_a_quote_or_a_key() -> None:
    assert parse_tegra_release((DATA / "tegra-release__r36.3.0-blockquote-arrow-ko.txt").read_text()) == "36.3.0"
    assert parse_tegra_release("l4t: # R36 (release), REVISION: 5.0, GCID: 1, BOARD: generic") == "36.5.0"
    assert parse_tegra_release("# R32 (release), REVISION: 7.1, GCID: 2") == "32.7.1"
    assert parse_tegra_release("MR36 (release), REVISION: 5.0") is None  # a token inside a word is not it
    assert parse_tegra_release("R36 release 5.0") is None


# --------------------------------------------------------------------------- a snapshot made by hand
def test_no_driver_file_is_not_no_driver(tmp_path: Path) -> None:
    (tmp_path / "torch.json").write_text(json.dumps({"version": "2.1.0+cu118", "cuda": "11.8", "cudnn": 8700,
                                                     "arch_list": ["sm_80"]}))
    r = _status(tmp_path, "--json")
    assert not [f for f in r["findings"] if f["id"] == "no-gpu-driver"]
    [note] = [f for f in r["findings"] if f["id"] == "not-checked" and f["component"] == "driver"]
    assert "torch 2.1.0+cu118" in note["message"] and "nvidia-smi.txt" in note["evidence"]
    assert r["gpus"] is None and r["gpus_known"] is False and "nvidia-smi.txt" in r["not_captured"]
    strict = _status(tmp_path, "--json", "--require-gpu")
    assert [f["severity"] for f in strict["findings"] if f["id"] == "not-checked" and f["component"] == "driver"] \
        == ["warning"]


def test_a_hand_made_snapshot_of_another_vendor_says_nothing_nvidia(tmp_path: Path) -> None:
    # a rocm-smi table envcheck cannot read (every line behind a job runner's prefix): no NVIDIA driver note
    text = "".join(f"node out: {ln}\n" for ln in ("GPU  Temp   AvgPwr", "0    47.0c  91.0W"))
    r = _one(tmp_path, "rocm-smi.txt", text)
    assert not [f for f in r["findings"] if f["component"] == "driver"]
    assert not [ln for ln in r["_text"].splitlines() if "no-gpu-driver" in ln]


def test_an_nvidia_smi_failure_in_a_hand_made_snapshot_is_still_no_driver(tmp_path: Path) -> None:
    r = _one(tmp_path, "nvidia-smi.txt", (DATA / "err-no-driver-one-line-aws-prose.txt").read_text())
    assert [f["id"] for f in r["findings"] if f["severity"] in ("error", "warning")] == ["no-gpu-driver"]


# --------------------------------------------------------------------------- bounded on hostile input
def test_hostile_lines_are_read_in_one_pass() -> None:
    # long runs of the characters the new patterns look at: each must be read (the suite's time limit bounds it)
    for text in ("#" * 200000 + "|", "... (" + "(" * 200000, "nvidia-smi " + "| " * 100000,
                 "\x1b[" + "1;" * 100000, "R36 (release), REVISION: " + "1." * 100000, "\u2502" * 200000):
        parse_smi(text)
        partial_listing(text)
        parse_tegra_release(text)


# --------------------------------------------------------------------------- names nvidia-smi cut with "..."
def test_a_cut_name_gets_a_compute_capability_only_when_every_gpu_it_may_be_has_it(tmp_path: Path) -> None:
    from envcheck.matrix import load_matrix

    m = load_matrix()

    def cc(name: str) -> Any:
        row = m.gpu(name)
        return row.get("compute_capability") if row else None

    # real cut names of these captures: every GPU the shown words allow has one compute capability
    r = _one(tmp_path, "nvidia-smi.txt", (DATA / "t590.48.01-rtx6000ada-truncated-name-k8s-prompt.txt").read_text())
    assert [(g["name"], g["compute_capability"]) for g in r["gpus"]] == [("NVIDIA RTX 6000 Ada Gene...", "8.9")]
    assert cc("NVIDIA GeForce RTX 4060 ...") == "8.9" and cc("NVIDIA A100 80G...") == "8.0"
    assert cc("Tesla V100-SXM2...") == "7.0" and cc("NVIDIA L4...") == "8.9"
    # cut where two generations share the shown words: unknown, never the first row found
    assert cc("NVIDIA RTX 6000 ...") is None  # Quadro RTX 6000 (7.5) or RTX 6000 Ada (8.9)
    assert cc("NVIDIA RTX 5000 ...") is None
    assert cc("NVIDIA A10...") is None  # an A10 (8.6) or an A100 (8.0): the word itself is cut
    assert cc("NVIDIA GeForce ...") is None
    # a whole name is looked up as before
    assert cc("Quadro RTX 6000") == "7.5" and cc("NVIDIA A10") == "8.6" and cc("NVIDIA RTX 6000 Ada Generation") == "8.9"


# --------------------------------------------------------------------------- found in the second held-back round
def test_a_grepped_q_lists_each_product_name_as_a_gpu() -> None:
    # `nvidia-smi -q | grep -E "Product Name|..."` on an 8x H100 node (find_string id 5065453337): the "GPU 0000:..."
    # lines are filtered out, each GPU's "Product Name" is left; the filter makes the list a part
    text = ('$ nvidia-smi -q | grep -E "Product Name|Product Architecture|GPU Part Number|Form Factor"\n'
            "    Product Name                          : NVIDIA H100 80GB HBM3\n"
            "    Product Architecture                  : Hopper\n"
            "    GPU Part Number                       : 2330-885-A1\n"
            "    Product Name                          : NVIDIA H100 80GB HBM3\n")
    t = parse_smi(text)
    assert t.form == "nvidia-smi -q" and [g.name for g in t.gpus] == ["NVIDIA H100 80GB HBM3"] * 2
    assert t.gpus_complete is False
    # a licence's "Product Name" under its own title is not a GPU (a vGPU guest's -q)
    vgpu = ("GPU 00000000:00:05.0\n    Product Name                          : NVIDIA A10-24Q\n"
            "    vGPU Software Licensed Product\n        Product Name                      : NVIDIA RTX Virtual Workstation\n"
            "        License Status                    : Licensed\n")
    assert [g.name for g in parse_smi(vgpu).gpus] == ["NVIDIA A10-24Q"]


def test_sw_vers_joined_on_one_line() -> None:
    from envcheck.parse.macos import parse_sw_vers

    # a CI note (find_string id 70881723410): sw_vers's three lines joined with "; "
    line = "Toolchain: ProductName:\t\tmacOS; ProductVersion:\t\t15.7.9; BuildVersion:\t\t24G830; Xcode 26.3"
    assert parse_sw_vers(line) == "15.7.9"
    assert parse_sw_vers("ProductVersion: 15.7.9 without the tool's other key") is None
    assert parse_sw_vers("ProductName: macOS\nProductVersion: 14.4.1\n") == "14.4.1"


@pytest.mark.parametrize("damage", ["box drawing", "markdown escaped pipes", "crlf"])
def test_the_paste_path_reads_the_same_damaged_table(damage: str, tmp_path: Path) -> None:
    # explain reads a bug report with the same nvidia-smi readers: a table copied into a comment or through a
    # renderer gives the paste's facts the same driver and GPUs as the clean table
    from click.testing import CliRunner

    from envcheck.cli import cli

    src = (DATA / "t572.70-windows-2x-4090-console-fence.txt").read_text(encoding="utf-8")
    got = []
    for text in (src, _DAMAGE[damage](src), "".join("# " + ln + "\n" for ln in src.splitlines())):
        path = tmp_path / "paste.txt"
        path.write_text(text, encoding="utf-8", newline="")
        res = CliRunner().invoke(cli, ["explain", "--json", "--no-detect", str(path)], standalone_mode=False,
                                 catch_exceptions=False)
        facts = json.loads(res.output)["facts"]
        got.append(((facts.get("driver") or {}).get("version"), [g.get("name") for g in facts.get("gpus") or []]))
    assert got[0] == ("572.70", ["NVIDIA GeForce RTX 4090"] * 2)
    assert got[1] == got[0] and got[2] == got[0]
