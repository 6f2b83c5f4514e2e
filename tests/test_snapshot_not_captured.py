"""A snapshot made by hand (a folder holding only some of contract §1's files, no captures.json) is read for what
it holds: the files it lacks were never looked for, so `status` says "not captured" for them and lists them in
the report's `not_captured`, and never "no nvcc found" / "no kernel module is loaded" (issue 20, item 2). A
snapshot written by `envcheck snapshot` (captures.json records what was looked for and not found) keeps saying
"not found" - this machine's own snapshot is taken for real below, and the real H100 snapshot keeps its report.

Every check runs the real CLI in a subprocess (`python -m envcheck status --snapshot DIR [--json]`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import bundle_clock

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H100 = os.path.join(ROOT, "tests", "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot")
# nvidia-smi's own words when no driver answers (the form users paste; tests/data/README.md cites such threads)
NO_DRIVER = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
             "latest NVIDIA driver is installed and running.\n")


def envcheck(*args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update({"PYTHONPATH": ROOT, "NO_COLOR": "1", "COLUMNS": "200"})
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, timeout=120,
                          env=bundle_clock.child_env(env))


def status(folder):
    """(exit status, JSON report, text report, Markdown report) of `envcheck status --snapshot folder`."""
    j = envcheck("status", "--snapshot", folder, "--json")
    t = envcheck("status", "--snapshot", folder)
    m = envcheck("status", "--snapshot", folder, "--markdown")
    assert j.returncode in (0, 1) and t.returncode == j.returncode == m.returncode, (j.stderr, t.stderr)
    return j.returncode, json.loads(j.stdout), t.stdout, m.stdout


def row(md, name):
    """The details of the Markdown report's first row for component ``name`` (one line each, never wrapped)."""
    for line in md.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] == name:
            return cells[1]
    raise AssertionError(f"no {name} row in:\n{md}")


def by_id(rep, fid):
    return [f for f in rep["findings"] if f["id"] == fid]


def test_nvidia_smi_alone_says_what_it_saw_and_what_was_not_captured(tmp_path):
    d = tmp_path / "hand"
    d.mkdir()
    (d / "nvidia-smi.txt").write_text(NO_DRIVER)
    code, rep, text, md = status(str(d))
    # the id and severity are those of a missing driver seen by nvidia-smi (a warning: nvidia-smi is installed)
    assert code == 0
    [f] = by_id(rep, "no-gpu-driver")
    assert f["severity"] == "warning"
    # ... but nothing is said about the kernel module or libcuda, which this snapshot does not hold
    assert "no kernel module is loaded" not in f["message"] and "No NVIDIA driver is reachable" not in f["message"]
    assert f["message"].startswith("nvidia-smi could not reach the NVIDIA driver")
    assert "whether the kernel module is loaded is not known" in f["message"]
    assert "couldn't communicate" in f["evidence"]
    for k in ("proc-driver-version.txt", "libcuda.json", "nvml.json"):
        assert k in f["evidence"] and k in rep["not_captured"]
    assert "on this machine" not in f["evidence"]
    assert "nvidia-smi.txt" not in rep["not_captured"]
    assert {"nvcc.txt", "ldconfig.txt", "libraries.txt", "torch.json"} <= set(rep["not_captured"])
    # the rows: "not captured", never "no ... found"
    assert row(md, "toolkit").startswith("not captured (supply nvcc.txt")
    assert row(md, "cudnn").startswith("not captured (supply ldconfig.txt")
    assert "not captured: proc-driver-version.txt" in row(md, "driver")
    assert "no nvcc / CUDA toolkit found" not in text and "no libcudnn found" not in text
    assert row(md, "frameworks") == "not captured (supply packages.json or torch.json)"
    assert "| toolkit | not captured (supply nvcc.txt" in md and "no libcudnn found" not in md


def test_a_real_table_alone_reads_the_driver_and_leaves_the_rest_unknown(tmp_path):
    d = tmp_path / "hand"
    d.mkdir()
    shutil.copyfile(os.path.join(H100, "nvidia-smi.txt"), d / "nvidia-smi.txt")
    code, rep, text, md = status(str(d))
    assert rep["driver"]["version"] == "580.159.04" and not by_id(rep, "no-gpu-driver")
    assert row(md, "driver").startswith("580.159.04")
    assert row(md, "toolkit").startswith("not captured") and row(md, "cudnn").startswith("not captured")


def test_no_driver_file_at_all(tmp_path):
    d = tmp_path / "hand"
    d.mkdir()
    (d / "python.json").write_text(json.dumps({"version": "3.11.7", "implementation": "CPython",
                                                "platform": "linux", "machine": "x86_64"}))
    code, rep, text, md = status(str(d))
    # no driver file is not "no driver" (contract §1): a not-checked note naming the files, never no-gpu-driver
    assert not by_id(rep, "no-gpu-driver")
    [f] = [x for x in by_id(rep, "not-checked") if x["component"] == "driver"]
    assert f["severity"] == "info" and "was not checked" in f["message"]
    assert "nvidia-smi.txt" in f["evidence"] and "proc-driver-version.txt" in f["evidence"]
    assert row(md, "driver").startswith("not captured") and row(md, "gpu").startswith("not captured")
    # no GPU listing was captured: the GPUs are unknown (null), not "none" ([])
    assert rep["gpus"] is None and rep["gpus_known"] is False


def test_the_real_h100_snapshot_keeps_its_report():
    code, rep, text, md = status(H100)
    assert code == 0 and rep["not_captured"] == [] and rep["findings"] == []
    assert rep["driver"]["version"] == "580.159.04" and rep["driver"]["cuda"] == "13.0"
    assert [g["name"] for g in rep["gpus"]] == ["NVIDIA H100 80GB HBM3"]
    assert "not captured" not in text and "| frameworks |" not in md
    assert row(md, "toolkit").startswith("CUDA ") and row(md, "cudnn")[0].isdigit()


def test_a_complete_snapshot_minus_captures_json_becomes_hand_made(tmp_path):
    """The same files with captures.json: a file it lists as not-found is "not found"; without captures.json
    the same missing file is "not captured"."""
    with_caps = str(tmp_path / "with")
    shutil.copytree(H100, with_caps)
    os.unlink(os.path.join(with_caps, "nvcc.txt"))
    caps_path = os.path.join(with_caps, "captures.json")
    with open(caps_path, encoding="utf-8") as fh:
        caps = json.load(fh)
    caps["nvcc.txt"] = {"status": "not-found", "detail": "nvcc: command not found", "origin": "nvcc"}
    with open(caps_path, "w", encoding="utf-8") as fh:
        json.dump(caps, fh)
    _, rep, text, md = status(with_caps)
    assert rep["not_captured"] == [] and row(md, "toolkit") == "no nvcc / CUDA toolkit found"

    without = str(tmp_path / "without")
    shutil.copytree(with_caps, without)
    os.unlink(os.path.join(without, "captures.json"))
    _, rep, text, md = status(without)
    assert "nvcc.txt" in rep["not_captured"] and row(md, "toolkit").startswith("not captured")

    # captures.json written by an envcheck that did not know a file: that file was not looked for either
    older = str(tmp_path / "older")
    shutil.copytree(with_caps, older)
    del caps["nvcc.txt"]
    with open(os.path.join(older, "captures.json"), "w", encoding="utf-8") as fh:
        json.dump(caps, fh)
    _, rep, text, md = status(older)
    assert rep["not_captured"] == ["nvcc.txt"]
    assert row(md, "toolkit") == "no CUDA toolkit version file found (nvcc.txt not captured)"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the live probe of a Linux machine")
def test_this_machines_own_snapshot_still_says_not_found(tmp_path):
    """`envcheck snapshot` on this machine, for real: captures.json records what was looked for, so nothing
    is "not captured" and what was not found is said as not found."""
    d = str(tmp_path / "live")
    r = envcheck("snapshot", d)
    assert r.returncode == 0, r.stderr
    _, rep, text, md = status(d)
    assert rep["not_captured"] == [] and "not captured" not in text
    assert rep["gpus_known"] is True and rep["gpus"] is not None  # looked for: a list (empty on a GPU-less box)
    if not rep["frameworks"]:  # looked for (packages.json is there), none installed: no "not captured" row
        assert "| frameworks |" not in md
    if rep["toolkit"]["version"] is None:
        assert row(md, "toolkit") == "no nvcc / CUDA toolkit found"
    if not rep["cudnn"]:
        assert row(md, "cudnn").startswith("no libcudnn found")
    for f in by_id(rep, "no-gpu-driver"):
        assert f["message"].startswith("No NVIDIA driver is reachable") and "not captured" not in f["evidence"]


def test_libraries_not_scanned_are_unknown_not_missing(tmp_path):
    """A real H100 table and a torch build, pasted by hand: no ldconfig.txt / libraries.txt, so whether
    libcudart / libcudnn load is not known - a not-checked note, not cuda-runtime-missing / cudnn-missing errors."""
    d = tmp_path / "hand"
    d.mkdir()
    shutil.copyfile(os.path.join(H100, "nvidia-smi.txt"), d / "nvidia-smi.txt")
    (d / "torch.json").write_text(json.dumps({"version": "2.5.1+cu124", "cuda": "12.4", "cudnn": 90100,
                                              "arch_list": ["sm_80", "sm_90"]}))
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1+cu124"}))
    code, rep, text, md = status(str(d))
    assert code == 0 and not by_id(rep, "cuda-runtime-missing") and not by_id(rep, "cudnn-missing")
    [note] = [f for f in by_id(rep, "not-checked") if "ldconfig.txt" in f["evidence"]]
    assert "libcudart.so.12" in note["message"] and "libcudnn.so.9" in note["message"]
    assert "not known" in note["message"]
    # the same files with an (empty) library scan: looked for and absent, so missing (errors, as before)
    (d / "ldconfig.txt").write_text("0 libs found in cache `/etc/ld.so.cache'\n")
    (d / "libraries.txt").write_text("")
    code, rep, text, md = status(str(d))
    assert code == 1 and by_id(rep, "cuda-runtime-missing") and by_id(rep, "cudnn-missing")
    assert row(md, "cudnn") == "no libcudnn found"


def test_only_another_vendors_file_unread_gets_no_nvidia_rows(tmp_path):
    # a rocm-smi text in a form not read (its usage line: the options were wrong): the machine's vendor is unknown, and the report
    # names the unread file instead of asking for nvidia-smi / nvcc / ldconfig
    d = tmp_path / "hand"
    d.mkdir()
    (d / "rocm-smi.txt").write_text("usage: rocm-smi [-h] [-d DEVICE [DEVICE ...]]\n")
    code, rep, text, md = status(str(d))
    assert code == 0 and rep["vendor"] is None
    assert any("rocm-smi.txt" in n and "not read" in n for n in rep["notes"])
    assert row(md, "accelerator").startswith("unknown: rocm-smi.txt captured but not read")
    for name in ("driver", "gpu", "toolkit", "cudnn"):
        with pytest.raises(AssertionError):
            row(md, name)
    assert "nvidia" not in md.lower() and "nvidia" not in text.lower()
    # an NVIDIA driver file beside it keeps the NVIDIA rows
    (d / "nvidia-smi.txt").write_text(NO_DRIVER)
    code, rep, text, md = status(str(d))
    assert "accelerator" not in [c.split("|")[1].strip() for c in md.splitlines() if c.count("|") == 4]
    assert row(md, "driver")
