"""Bug-report pastes of AMD, Intel and Apple machines, Paddle's reports and CPU torch builds on Windows (issues 20,
21; pastes20c): the readers hand the machine's facts to the one engine, which names the cause.

Real samples: tests/data/pastes/pastes20c/ (README.md cites each); heldout/pastes20c/ is scored by its score.py, not
here. The expected facts and labels are hand-written from the texts, not from this code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste import read_report
from envcheck.paste.readers import READERS, vendor_fields
from envcheck.paste.readers.base import view
from envcheck.paste.sections import partials

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "pastes20c"
LABELS = dict(ln.split() for ln in (DATA / "labels.txt").read_text().splitlines() if ln.strip() and not ln.startswith("#"))


def _doc(text: str) -> dict:
    return explain_text_document(text)


def _top(doc: dict) -> str:
    return doc["matches"][0]["id"] if doc.get("matches") else "none"


def _leaves(d, prefix=""):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _leaves(v, f"{prefix}.{k}" if prefix else k)
    else:
        yield prefix, d


@pytest.mark.parametrize("name", sorted(LABELS))
def test_top_cause_is_the_label(name):
    assert _top(_doc((DATA / name).read_text())) == LABELS[name]


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.facts.json")))
def test_facts_are_the_hand_written_ones(name):
    want = json.loads((DATA / name).read_text())
    got = _doc((DATA / name.replace(".facts.json", ".txt")).read_text())["facts"]
    assert got.get("gpus") == want.get("gpus", got.get("gpus"))  # every GPU read exactly, none made up
    for key, val in _leaves({k: v for k, v in want.items() if k != "gpus"}):
        cur = got
        for part in key.split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        assert cur == val, key


# ------------------------------------------------------------------------------------------------- AMD
def test_a_gfx_cut_inside_its_parenthesis_is_read_only_when_complete():
    g = vendor_fields.amd_gpu(0, "AMD Instinct MI300X (gfx942:sramecc+:xnack", "l")
    assert g.value[:4] == (0, "AMD Instinct MI300X", "amd", "gfx942")
    # "(gfx110" may be gfx1100 or gfx1101 cut short: no target is read
    assert vendor_fields.amd_gpu(0, "AMD Radeon RX 7900 XTX (gfx110", "l").value[3] is None
    g = vendor_fields.amd_gpu(1, "AMD Radeon PRO W7900NoGCNArchNameOnOldPyTorch", "l")
    assert g.value[:4] == (1, "AMD Radeon PRO W7900", "amd", None)


def test_rocm_gpus_are_replayed_as_amd_never_as_nvidia():
    rep = read_report((DATA / "rocm-xformers12-collect-env-2.3.0-rocm6.0-rx6950xt-gfx1030.txt").read_text())
    assert "nvidia-smi-query.csv" not in rep.captures
    assert json.loads(rep.captures["rocm-smi.json"]) == {"card0": {"Card series": "AMD Radeon RX 6950 XT",
                                                                    "GFX Version": "gfx1030"}}
    # HIP runtime and MIOpen are torch's own (collect_env reads them from torch's build config), without the git hash
    t = rep.facts["frameworks"]["torch"]
    assert (t["rocm"], t["hip"], t["miopen"], t["cuda"]) == ("6.0", "6.0.32830", "3.0.0", None)


# ------------------------------------------------------------------------------------------------- Intel
def test_xpu_gpus_seen_through_level_zero_become_sycl_ls_lines():
    rep = read_report((DATA / "xpu-2024-collect-env-8x-max1100-not-compiled-with-cuda.txt").read_text())
    assert rep.captures["sycl-ls.txt"].count("[level_zero:gpu]") == 8
    assert [g["name"] for g in rep.facts["gpus"]] == ["Intel(R) Data Center GPU Max 1100"] * 8
    assert rep.facts["vendor"] == "intel" and rep.facts["frameworks"]["torch"]["xpu"] is True


def test_onboard_intel_gpus_alone_do_not_claim_level_zero():
    t = ("Is XPU available: False\nXPU used to build PyTorch: 20250201\nIs CUDA available: False\n"
         "Intel GPU models onboard:\n* Intel(R) Arc(TM) A770 Graphics\nIntel GPU models detected:\nN/A\n")
    rep = read_report(t)
    assert rep.facts["gpus"] == [{"index": 0, "name": "Intel(R) Arc(TM) A770 Graphics", "compute_capability": None,
                                  "vendor": "intel"}]
    assert "sycl-ls.txt" not in rep.captures  # nothing shows the GPU through Level Zero


def test_xpu_build_is_never_cpu_only_and_its_cuda_request_is_a_vendor_mismatch():
    doc = _doc((DATA / "xpu-3089-max1100-cuda-device-in-ut-not-compiled-with-cuda.txt").read_text())
    assert _top(doc) == "framework-vendor-mismatch"
    assert "framework-cpu-only" not in [m["id"] for m in doc["matches"]]


# ------------------------------------------------------------------------------------------------- Apple
def test_rosetta_is_an_x86_64_python_on_an_apple_cpu():
    rep = read_report((DATA / "mac-146236-collect-env-x86_64-python-on-m2-pro-rosetta.txt").read_text())
    py = json.loads(rep.captures["python.json"])
    # the OS line's 15.3 (sw_vers), not the platform string's 10.16 compatibility version
    assert (py["mac_ver"], py["machine"], py["proc_translated"]) == ("15.3", "x86_64", True)


def test_an_intel_mac_is_not_called_apple_silicon():
    # pytorch/pytorch#48145 (2020): collect_env of an x86_64 Python with no CPU line: the CPU is not known
    t = ("PyTorch version: 1.8.0.dev20201117\nIs debug build: False\nCUDA used to build PyTorch: None\n"
         "ROCM used to build PyTorch: N/A\n\nOS: Mac OSX 11.0 (x86_64)\nGCC version: Could not collect\n"
         "Clang version: 11.0.0 (clang-1100.0.33.8)\nCMake version: Could not collect\n\n"
         "Python version: 3.8 (64-bit runtime)\nIs CUDA available: False\nCUDA runtime version: No CUDA\n")
    doc = _doc(t)
    assert doc["facts"]["accelerator"] == {"macos": "11.0", "apple_silicon": None, "rosetta": None}
    assert "proc_translated" not in json.loads(read_report(t).captures["python.json"])
    assert _top(doc) == "none"


def test_the_10_16_compatibility_version_is_not_a_macos_version():
    got = vendor_fields.mac_platform("Python platform: macOS-10.16-x86_64-i386-64bit", "l")
    assert [(f.field, f.value) for f in got] == [("platform", "darwin"), ("machine", "x86_64")]


def test_macos_new_enough_says_nothing():
    t = "OS: macOS 14.5 (arm64)\n" + (DATA / "mac-78343-collect-env-12.2.1-arm64-mps-built-not-available.txt").read_text()
    t = t.replace("OS: macOS 12.2.1 (arm64)", "OS: macOS 14.5 (arm64)").replace("macOS-12.2.1-arm64", "macOS-14.5-arm64")
    assert _top(_doc(t)) == "none"


def test_sw_vers_block():
    rep = read_report("ProductName:\tmacOS\nProductVersion:\t12.7.6\nBuildVersion:\t21H1320\n")
    assert rep.formats == ["sw_vers"] and json.loads(rep.captures["python.json"])["mac_ver"] == "12.7.6"


# ------------------------------------------------------------------------------------------------- Paddle
def test_paddle_post_label_against_the_driver():
    t = (DATA / "paddle-52100-summary-env-2.4.2-cuda-11.2-driver-440-8x-p40.txt").read_text()
    doc = _doc(t)
    assert _top(doc) == "driver-too-old" and "paddlepaddle-gpu 2.4.2.post112" in doc["matches"][0]["fixes"][0]
    # the same report with a driver that runs CUDA 11.2: nothing
    assert _top(_doc(t.replace("Nvidia driver version: 440.33.01", "Nvidia driver version: 470.82.01"))) == "none"


def test_an_install_line_completes_only_the_same_version():
    t = (DATA / "paddle-52100-summary-env-2.4.2-cuda-11.2-driver-440-8x-p40.txt").read_text()
    f = _doc(t.replace("Paddle version: 2.4.2", "Paddle version: 2.5.0"))["facts"]
    assert f["frameworks"]["paddle"]["version"] == "2.5.0" and f["frameworks"]["paddle"]["cuda"] is None


def test_paddle_without_cuda_is_the_cpu_wheel():
    t = ("****************************************\nPaddle version: 2.5.1\nPaddle With CUDA: False\n\nOS: ubuntu 20.04\n"
         "Python version: 3.10.12\n\nCUDA version: N/A\ncuDNN version: None.None.None\nNvidia driver version: None\n"
         "****************************************\n")
    f = read_report(t).facts
    assert f["frameworks"]["paddle"] == {"version": "2.5.1", "cuda": None, "cudnn": None}
    assert f["toolkit"] == {"version": None, "nvcc": None} and f["driver"]["version"] is None


def test_paddle_version_show():
    ps = partials(["commit: 4596b9a22540fb0ea5d369c3c804544de61d03d0", "cuda: 11.2", "cudnn: 8.1.1"])
    got = {(f.field, f.value) for p in ps for f in p.facts}
    assert {("paddle.cuda", "11.2"), ("paddle.cudnn", "8.1.1")} <= got
    # "cuda: False" (a CPU wheel) is no version
    ps = partials(["full_version: 2.5.1", "major: 2", "cuda: False", "cudnn: False"])
    assert not {f.field for p in ps for f in p.facts} & {"paddle.cuda", "paddle.cudnn"}


# ------------------------------------------------------------------------------------------------- controls
def test_an_nvidia_collect_env_gains_no_vendor_keys():
    t = (ROOT / "tests/data/real/h100-580.159.04-torch2.11-cu130/captures/collect-env.txt").read_text()
    doc = _doc(t)
    assert doc["matches"] == [] and "vendor" not in doc["facts"] and "accelerator" not in doc["facts"]
    assert all("vendor" not in g for g in doc["facts"]["gpus"])


def test_new_forms_survive_the_collector_windows_of_a_long_text():
    pad = "".join(f"step {i}: loss 0.{i % 97:02d} lr 1e-4\n" for i in range(4000))  # > 64 KiB: read by windows
    for name in ("xpu-2024-collect-env-8x-max1100-not-compiled-with-cuda.txt",
                 "paddle-52100-summary-env-2.4.2-cuda-11.2-driver-440-8x-p40.txt",
                 "mac-146236-collect-env-x86_64-python-on-m2-pro-rosetta.txt"):
        t = (DATA / name).read_text()
        small, big = _doc(t), _doc(pad + t + pad)
        assert big["facts"] == small["facts"] and _top(big) == _top(small) == LABELS[name]


def test_detect_is_bounded_on_the_new_forms():
    lines = (DATA / "xpu-3089-max1100-cuda-device-in-ut-not-compiled-with-cuda.txt").read_text().splitlines()
    for r in READERS:
        for i in range(len(lines)):
            assert 0 <= r.detect(view(lines, i)) <= len(lines) - i


def test_printed_mps_state_and_sysctl_cpu():
    # pytorch/pytorch#78343's REPL lines, then a collect_env
    t = (DATA / "mac-78343-collect-env-12.2.1-arm64-mps-built-not-available.txt").read_text()
    assert json.loads(read_report(t).captures["torch.json"])["mps"] == {"built": True, "available": False}
    # the f-string that prints it is no state
    assert "mps" not in json.loads(read_report(t.replace("Is MPS (Metal Performance Shader) built? True\n", "")
                                               .replace("Is MPS available? False\n", "")).captures["torch.json"])
    f = read_report("machdep.cpu.brand_string: Apple M1 Max\n").facts
    assert f["accelerator"] == {"macos": None, "apple_silicon": True, "rosetta": None}  # the Python's arch unknown
    rep = read_report("machdep.cpu.brand_string: Apple M1 Max\nPython platform: macOS-10.16-x86_64-i386-64bit\n")
    assert rep.facts["accelerator"] == {"macos": None, "apple_silicon": True, "rosetta": True}
    assert json.loads(rep.captures["python.json"])["proc_translated"] is True


def test_an_intel_igpu_beside_nvidia_is_not_the_machines_vendor():
    t = (ROOT / "tests/data/real/h100-580.159.04-torch2.11-cu130/captures/collect-env.txt").read_text()
    t = t.replace("Is XNNPACK available", "Intel GPU models onboard:\n* Intel(R) UHD Graphics 770\nIs XNNPACK available", 1)
    doc = _doc(t)
    assert "vendor" not in doc["facts"] and doc["matches"] == []
