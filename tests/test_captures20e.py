"""Real NVIDIA captures, each put alone into a snapshot (contract §1 / §9) and read with a real
``envcheck status --json --snapshot DIR`` subprocess: the facts the capture states, and no warning or error it
does not support. The captures are from public GitHub issues (tests/data/README.md, "nvidia-smi-captures20e/",
cites each); the ``.expect.json`` labels were written by hand from the text before envcheck was run on it.
A further 11 of the same collection are held back in heldout/captures20e (scripts/score_captures_status.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import status_json

DATA = Path(__file__).parent / "data" / "nvidia-smi-captures20e"


def _cases():
    return [pytest.param(p, id=p.name[: -len(".expect.json")]) for p in sorted(DATA.glob("*.expect.json"))]


def _status(tmp_path: Path, name: str, text: str) -> dict:
    (tmp_path / name).write_text(text, encoding="utf-8")  # tmp_path is the snapshot: tests add files to it between runs
    return status_json(tmp_path)


@pytest.mark.parametrize("exp_path", _cases())
def test_capture_read_right_in_a_snapshot(exp_path, tmp_path):
    exp = json.loads(exp_path.read_text())
    text = exp_path.with_name(exp_path.name[: -len(".expect.json")] + ".txt").read_text()
    r = _status(tmp_path, exp.get("_file", "nvidia-smi.txt"), text)
    d = r["driver"]
    if "driver_version" in exp:
        assert d["version"] == exp["driver_version"]
        # status derives the driver's CUDA from the matrix where the capture prints none (its "_status_cuda")
        assert d["cuda"] == exp.get("_status_cuda", exp["cuda_version"])
        assert d["nvidia_smi"] == exp["state"]
        assert d["nvidia_smi_form"] == exp["form"]
        assert [{"index": g["index"], "name": g["name"], "memory_total_mib": g["memory_mib"]}
                for g in (r["gpus"] or [])] == exp["gpus"]
        assert any(g.get("mig") for g in (r["gpus"] or [])) is exp["mig"]
    if "gpus_complete" in exp:
        assert r["gpus_known"] is exp["gpus_complete"]
    if "l4t" in exp:
        assert r["accelerator"]["l4t"] == exp["l4t"]
    said = sorted(f["id"] for f in r["findings"] if f["severity"] in ("error", "warning"))
    assert said == sorted(exp["findings"])


def test_cuda_na_on_a_vgpu_host_is_unknown_not_derived(tmp_path):
    # the vGPU host driver prints "CUDA Version: N/A": 460.32.04's branch table value (11.2) must not be said
    text = (DATA / "t460.32.04-vgpu-host-cuda-na-prompt-glued.txt")
    if not text.exists():  # held back in this collection: use an equivalent header built from the same layout
        body = ("| NVIDIA-SMI 460.32.04    Driver Version: 460.32.04    CUDA Version: N/A      |\n"
                "|===============================+======================+======================|\n"
                "|   0  Quadro P400         On   | 00000000:01:00.0 Off |                  N/A |\n"
                "| 47%   60C    P0    N/A /  N/A |   1011MiB /  2047MiB |    100%      Default |\n"
                "+-------------------------------+----------------------+----------------------+\n")
    else:
        body = text.read_text()
    r = _status(tmp_path, "nvidia-smi.txt", body)
    assert r["driver"]["version"] == "460.32.04" and r["driver"]["cuda"] is None
    notes = [f for f in r["findings"] if f["id"] == "not-checked"]
    assert notes and "nvidia-smi.txt" in notes[0]["evidence"] and "N/A" in notes[0]["evidence"]


def test_old_driver_without_cuda_field_still_derives_it(tmp_path):
    # before driver 410 the table printed no CUDA field: the driver-branch table still names it (and says so)
    body = (DATA.parent / "nvidia-smi" / "384.111-gtx1050-no-cuda-field.txt").read_text()
    r = _status(tmp_path, "nvidia-smi.txt", body)
    assert r["driver"]["cuda"] is not None and r["driver"]["cuda_source"].startswith("envcheck matrix")
    assert not [f for f in r["findings"] if f["id"] == "not-checked" and "CUDA" in f["message"]]


def _paste_facts(path: Path) -> dict:
    p = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)["facts"]


@pytest.mark.parametrize("rel, driver, cuda, gpus", [
    # R610's header says "KMD Version" where older drivers say "Driver Version"
    ("nvidia-smi/610.43.02-r610-kmd-umd-rtx5070.txt", "610.43.02", "13.3", [(0, "NVIDIA GeForce RTX 5070 ...")]),
    # GPU rows pasted without the header: GPUs known, no driver
    ("nvidia-smi/excerpt-rtx4000ada-fan-err-no-header.txt", None, None,
     [(13, "NVIDIA RTX 4000 Ada Gene..."), (14, "NVIDIA RTX 4000 Ada Gene...")]),
    # a -q part pasted from the middle: the GPU section's product name
    ("nvidia-smi-forms/q-fragment-processes-no-header.txt", None, None, [(0, "GeForce GTX 1080 Ti")]),
    # -L on a Windows driver that printed "(UUID: GPU-)"
    ("nvidia-smi-captures20e/L-windows-5gpu-empty-uuid-dollar-glued.txt", None, None,
     [(0, "Tesla K80"), (1, "Tesla K80"), (2, "GeForce RTX 2080 Ti"), (3, "Tesla K80"), (4, "Tesla K80")]),
])
def test_same_capture_read_as_a_paste(rel, driver, cuda, gpus):
    f = _paste_facts(DATA.parent / rel)
    assert (f["driver"]["version"], f["driver"]["cuda"]) == (driver, cuda)
    assert [(g["index"], g["name"]) for g in f["gpus"]] == gpus


def test_q_fragment_start_needs_its_keys_under_it(tmp_path):
    # a bare "GPU 00000000:82:00.0" line in prose is not a -q section: nothing is read from it
    p = tmp_path / "prose.txt"
    p.write_text("the card at\nGPU 00000000:82:00.0\nis the one that fails\n", encoding="utf-8")
    assert not _paste_facts(p).get("gpus")


def test_driver_below_the_majors_lowest_driver_is_too_old_though_its_cuda_is_unknown(tmp_path):
    # 375.26 prints no CUDA field; its CUDA is derived from the toolkit driver table (CUDA 8.0 GA2 needs 375.26, a row
    # added in session 15): a CUDA 12 build cannot run there, said with that CUDA and never as "CUDA ?". A driver below
    # every CUDA the matrix knows (331.62) keeps its CUDA unknown: test_driver_floor_decides_without_the_drivers_cuda
    (tmp_path / "torch.json").write_text(json.dumps({"version": "2.1.0+cu121", "cuda": "12.1", "cudnn": 8902,
                                                     "arch_list": ["sm_50", "sm_60", "sm_70", "sm_80"]}))
    r = _status(tmp_path, "nvidia-smi.txt", (DATA / "t375.26-header-only-backtick-command.txt").read_text())
    assert r["driver"]["version"] == "375.26" and r["driver"]["cuda"] == "8.0"
    assert r["driver"]["cuda_source"].startswith("envcheck matrix")
    too_old = [f for f in r["findings"] if f["id"] == "driver-too-old"]
    assert too_old and "8.0" in too_old[0]["message"] and "CUDA ?" not in too_old[0]["message"]


def test_driver_floor_decides_without_the_drivers_cuda():
    from envcheck.engine import rules
    from envcheck.matrix import load_matrix
    from envcheck.versions import DriverVersion

    m = load_matrix()
    # neither the driver's CUDA nor its version known: unknown, not a claim either way
    ok, how = rules.driver_runs(m, None, None, "12.1")
    assert ok is None
    ok, how = rules.driver_runs(m, None, DriverVersion.parse("331.62"), "12.1")
    assert ok is False and "331.62" in how
    # a driver of a branch the matrix knows answers by its CUDA (375.26: CUDA 8.0's floor)
    ok, how = rules.driver_runs(m, None, DriverVersion.parse("375.26"), "12.1")
    assert ok is False and "8.0" in how


def test_list_only_driver_is_not_said_to_run_a_build(tmp_path):
    # `nvidia-smi -L` names GPUs but neither the driver nor its CUDA: the build's driver check is unknown, and
    # no line calls it "minor-version compatibility"
    (tmp_path / "torch.json").write_text(json.dumps({"version": "2.1.0+cu121", "cuda": "12.1", "cudnn": 8902,
                                                     "arch_list": ["sm_75", "sm_80", "sm_86", "sm_90"]}))
    r = _status(tmp_path, "nvidia-smi.txt", (DATA / "L-host-2x-a10-2x-t4-paren-prompt.txt").read_text())
    said = " ".join(f["message"] + f["evidence"] for f in r["findings"])
    assert "driver: minor-version compatibility" not in said and "driver: full support" not in said
    assert "driver: unknown" in said


@pytest.mark.parametrize("name, driver, cuda, gpu", [
    ("x-535.86.05-rtx4090-cut-in-gpu", "535.86.05", "12.2", "NVIDIA GeForce RTX 4090"),
    ("x-531.41-windows-rtx3080ti-tabs-cut-in-gpu", "531.41", "12.1", "NVIDIA GeForce RTX 3080 Ti"),
])
def test_xml_capture_read_in_a_snapshot_and_as_a_paste(name, driver, cuda, gpu, tmp_path):
    path = DATA.parent / "nvidia-smi-forms" / (name + ".txt")
    r = _status(tmp_path, "nvidia-smi.txt", path.read_text())
    assert (r["driver"]["version"], r["driver"]["cuda"], r["driver"]["nvidia_smi_form"]) == (driver, cuda,
                                                                                             "nvidia-smi -q -x")
    assert [g["name"] for g in r["gpus"]] == [gpu] and r["gpus_known"] is True
    assert not [f for f in r["findings"] if f["severity"] in ("error", "warning")]
    f = _paste_facts(path)
    assert (f["driver"]["version"], f["driver"]["cuda"], [g["name"] for g in f["gpus"]]) == (driver, cuda, [gpu])


def test_xml_memory_mig_and_a_missing_cuda():
    from envcheck.parse.nvidia_smi import parse_smi

    # the element layout of the two captures above, with the parts they were cut before: memory, MIG, and
    # a driver whose CUDA nvidia-smi could not name
    text = ("<nvidia_smi_log>\n\t<driver_version>535.129.03</driver_version>\n\t<cuda_version>Not Found</cuda_version>\n"
            "\t<attached_gpus>2</attached_gpus>\n\t<gpu id=\"00000000:01:00.0\">\n\t\t<product_name>NVIDIA A100-SXM4-80GB"
            "</product_name>\n\t\t<mig_mode>\n\t\t\t<current_mig>Enabled</current_mig>\n\t\t</mig_mode>\n"
            "\t\t<fb_memory_usage>\n\t\t\t<total>81920 MiB</total>\n\t\t</fb_memory_usage>\n"
            "\t\t<bar1_memory_usage>\n\t\t\t<total>131072 MiB</total>\n\t\t</bar1_memory_usage>\n\t</gpu>\n")
    t = parse_smi(text)
    assert (t.form, t.driver_version, t.cuda_version, t.cuda_unavailable) == ("nvidia-smi -q -x", "535.129.03", None,
                                                                              "Not Found")
    assert [(g.name, g.memory_total_mib, g.mig_enabled) for g in t.gpus] == [("NVIDIA A100-SXM4-80GB", 81920, True)]
    assert t.gpus_complete is False  # 2 attached, 1 listed


def test_hand_made_snapshot_without_library_captures_says_not_checked(tmp_path):
    # a capture and a torch.json, nothing else: whether libcudart / libcudnn load is unknown, not "missing"
    (tmp_path / "torch.json").write_text(json.dumps({"version": "2.1.0+cu121", "cuda": "12.1", "cudnn": 8902,
                                                     "arch_list": ["sm_75", "sm_80", "sm_86", "sm_90"]}))
    r = _status(tmp_path, "nvidia-smi.txt", (DATA / "t595.84-details-block-2-of-4-shown.txt").read_text())
    ids = [f["id"] for f in r["findings"]]
    assert "cuda-runtime-missing" not in ids and "cudnn-missing" not in ids
    assert any(f["id"] == "not-checked" and "packages.json" in f["evidence"] for f in r["findings"])
    # a package list alone still holds no library scan: a runtime may sit in the ldconfig cache, unseen (issue 20)
    (tmp_path / "packages.json").write_text(json.dumps({"torch": "2.1.0+cu121"}))
    r = _status(tmp_path, "nvidia-smi.txt", (DATA / "t595.84-details-block-2-of-4-shown.txt").read_text())
    assert "cuda-runtime-missing" not in [f["id"] for f in r["findings"]]
    assert any(f["id"] == "not-checked" and "ldconfig.txt" in f["evidence"] for f in r["findings"])
    # with the scans there and no CUDA runtime in them, the runtime is missing (said as before)
    (tmp_path / "ldconfig.txt").write_text("0 libs found in cache `/etc/ld.so.cache'\n")
    (tmp_path / "libraries.txt").write_text("")
    r = _status(tmp_path, "nvidia-smi.txt", (DATA / "t595.84-details-block-2-of-4-shown.txt").read_text())
    assert "cuda-runtime-missing" in [f["id"] for f in r["findings"]]
