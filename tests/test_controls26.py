"""Issue 20, round 26 (helper controls26): "healthy controls silent, and nothing false said about a form that was not
recognised".

Controls: 55 real texts that must not yield an environment cause (healthy logs of training / inference runs, server
start-ups and benchmarks; bug-report pastes with an environment block whose problem is a shape error, a registry or
data error, a performance or accuracy question, an API change), labelled ``none`` before envcheck was run on them; a
seeded 40% (random.Random(2026)) is held back in heldout/controls26-held (scored by scripts/score_explain.py and
scripts/score_pastes.py, not here).

What this round decides, each from a false alarm of the working part:

* TensorFlow's own "Could not load dynamic library 'cudart64_101.dll'" warning (it goes on without the library and
  says "Ignore above cudart dlerror if you do not have a GPU set up on your machine") is no cause where the reporter
  says the machine has no (NVIDIA) GPU: a sentence ("I don't have gpu", "my system is not gpu enabled") or the
  TensorFlow template's "GPU model and memory: No" (tensorflow#43361). The tf-dso-loader wording says
  ``tf-loader-warning``; explain/rank.py drops it on the evidence ``no-gpu-said``. Without that statement the same
  lines stay cuda-runtime-missing: a user who wants the GPU and pastes them is the common case.

Unrecognised forms: 52 real outputs of tools pasted instead of nvidia-smi (tests/data/forms26/README.md cites each),
each put into a snapshot's capture file; what envcheck says must be what the text makes certain, or unknown with a
``not-checked`` finding naming the file. One was said falsely and is fixed: dcgmi's ``Name: <<<NULL>>>`` (DCGM's
DCGM_STR_BLANK, a value it could not read) was read as a GPU named "<<<NULL>>>"; it is now a GPU whose name is unknown.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from tests.helpers import (assert_top_is_label, check_hand_written_facts, doc_matches, log_readme_rows,
                           paste_readme_rows, status_of_files)

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "data" / "logs" / "controls26"
PASTES = ROOT / "tests" / "data" / "pastes" / "controls26"
FORMS = ROOT / "tests" / "data" / "forms26"
HELD = ROOT / "heldout" / "controls26-held"
LOG_ROWS = {r[0]: r[1] for r in log_readme_rows(str(LOGS))}
PASTE_ROWS = {name: row[0] for name, row in paste_readme_rows(str(PASTES)).items()}

#: the working part's alarms left, each with the answer it gets today (so that a fix, or a new wrong answer, is seen)
KNOWN_MISSES: dict = {
    # (transformers-13270, `transformers-cli env` on a machine with neither libcudart nor libcuda, was a miss here until
    # quiet38: TensorFlow's probe that finds no driver names no cause where nothing shows a GPU wanted or present, and
    # TF's own deprecation advice "Use `tf.config.list_physical_devices('GPU')` instead." is no program asking for it)
}
#: hand-written facts explain does not read (unknown, not false): each with why
FACTS_UNREAD = {
    "llms-from-scratch-791-mps-m4-losses-differ-setup-check.txt": "the book's own setup check ('[OK] torch 2.8.0') "
                                                                  "is a form no reader knows",
    "mtpsl-3-mat1-mat2-shapes-torch-1.12-cu116-code-fixed.txt": "'torch 1.12.0 + cu116' in a sentence: the label "
                                                                "written apart from its version",
    "pyro-vision-98-collect-env-windows-cuda-could-not-collect.txt": "a project's own copy of collect_env ('Pyrovision "
                                                                     "version:' first) is not read as collect_env",
}


def _doc(text: str) -> dict:
    return explain_text_document(text)


def _read(folder: Path, name: str) -> str:
    return (folder / name).read_text(encoding="utf-8")


# --- the sets ----------------------------------------------------------------------------------------------------------
def test_the_sets_are_whole():
    assert len(LOG_ROWS) == 16 and sorted(LOG_ROWS) == sorted(p.name for p in LOGS.glob("*.log"))
    assert len(PASTE_ROWS) == 17 and sorted(PASTE_ROWS) == sorted(p.name for p in PASTES.glob("*.txt"))
    assert set(LOG_ROWS.values()) == {"none"} and set(PASTE_ROWS.values()) == {"none"}
    held_logs = {p.name for p in (HELD / "logs").glob("*.log")}
    held_pastes = {p.name for p in (HELD / "pastes").glob("*.txt")}
    assert len(held_logs) == 11 and len(held_pastes) == 11
    assert not held_logs & set(LOG_ROWS) and not held_pastes & set(PASTE_ROWS)
    # every paste has its hand-written facts beside it
    assert all((PASTES / n).with_suffix(".facts.json").is_file() for n in PASTE_ROWS)
    assert all((HELD / "pastes" / n).with_suffix(".facts.json").is_file() for n in held_pastes)


@pytest.mark.parametrize("name", sorted(LOG_ROWS))
def test_healthy_log_is_silent(name):
    assert_top_is_label(doc_matches(_doc(_read(LOGS, name))), name, "none", {})


@pytest.mark.parametrize("name", sorted(PASTE_ROWS))
def test_control_paste_names_no_cause(name):
    assert_top_is_label(doc_matches(_doc(_read(PASTES, name))), name, "none", KNOWN_MISSES)


@pytest.mark.parametrize("name", sorted(PASTE_ROWS))
def test_hand_written_facts(name):
    if name in FACTS_UNREAD:
        pytest.xfail(FACTS_UNREAD[name])
    want = json.loads((PASTES / name).with_suffix(".facts.json").read_text())
    check_hand_written_facts(want, _doc(_read(PASTES, name)).get("facts") or {})


# --- "I don't have a GPU": TensorFlow's loader warning is no cause --------------------------------------------------------
_TF43361 = "tf-43361-windows-no-gpu-cudart64-101-dlerror-import.txt"


def _said(text: str) -> bool:
    from envcheck.paste import read_report

    return "no-gpu-said" in read_report(text).lines


@pytest.mark.parametrize("line", [
    "I am getting this error when importing tensorflow. I don't have gpu. And my system is not gpu enabled. But still "
    "I am getting this error.",  # tensorflow#43361
    "I don't have a GPU in my Laptop. I installed tensorflow using Pip inside a Conda Environment.",  # tensorflow#42992
    "It gives me an error saying that it cant find NVIDIA driver. This is correct since I don't have NVIDIA GPU.",  # Fooocus
    "- GPU model and memory: No",  # tensorflow#43361's template field
])
def test_the_reporter_saying_no_gpu_is_read(line):
    assert _said(f"# a report\n\n{line}\n")


@pytest.mark.parametrize("line", [
    # TensorFlow's own stub line: a condition, nobody's statement about the machine
    "2020-09-19 12:27:43.413500: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if "
    "you do not have a GPU set up on your machine.",
    # a build, not the machine (pytorch#32369)
    "I checked my conda installation, and obtained Pytorch with cpuonly (which is not GPU enabled).",
    # the template's field not filled in
    "- GPU model and memory: N/A",
])
def test_other_lines_say_nothing_of_the_machine(line):
    assert not _said(f"# a report\n\n{line}\n")


def test_without_the_statement_the_same_lines_stay_cuda_runtime_missing():
    text = _read(PASTES, _TF43361)
    assert _doc(text)["matches"] == []
    # the thread's own lines with the reporter's two statements taken out: TensorFlow's warning is the cause again
    bare = "\n".join(ln for ln in text.splitlines() if "have gpu" not in ln and "GPU model and memory" not in ln)
    assert not _said(bare)
    assert [m["id"] for m in _doc(bare)["matches"]][:1] == ["cuda-runtime-missing"]


@pytest.mark.parametrize("folder, name, label", [
    # a user who wants the GPU pastes the same two TensorFlow lines (tensorflow#57103): still the cause
    ("tests/data/logs/logs20e", "tf-57103-cudart64-110-tf2.9-windows.log", "cuda-runtime-missing"),
    # "I don't have NVIDIA GPU" beside a CUDA build's own failure: the statement drops no other wording
    ("tests/data/pastes/pastes21c", "fooocus-3737-no-nvidia-gpu-found-no-nvidia-driver.txt", "framework-vendor-mismatch"),
])
def test_true_causes_elsewhere_stay(folder, name, label):
    ids = [m["id"] for m in _doc(_read(ROOT / folder, name))["matches"]]
    assert ids[:1] == [label], ids


# --- unrecognised forms: read right, or unknown with a note naming the file -----------------------------------------------
#: (sample, snapshot file, expectations): ``form`` driver.nvidia_smi_form; ``driver`` / ``cuda`` driver.version /
#: driver.cuda; ``gpus`` the (vendor, name) of each GPU read; ``gfx`` the AMD targets; ``unknown`` a not-checked finding
#: whose message starts with the snapshot file's name; ``ids`` the findings of severity warning or error (none unless
#: named). Written from what each text shows (tests/data/forms26/README.md cites them).
FORM_CASES = [
    ("gpustat-line-97.txt", "nvidia-smi.txt", {"form": "gpustat", "gpus": [("nvidia", "GeForce GTX Titan X")]}),
    ("gpustat-header-driver-53.txt", "nvidia-smi.txt",
     {"form": "gpustat", "driver": "396.54", "gpus": [("nvidia", "TITAN Xp"), ("nvidia", "TITAN Xp")]}),
    ("topo-m-club3090-1229.txt", "nvidia-smi.txt", {"driver": None, "gpus": [], "unknown": True}),
    ("dmon-deepspeech-178.txt", "nvidia-smi.txt", {"driver": None, "gpus": [], "unknown": True}),
    ("dmon-s-u-telegraf-5532.txt", "nvidia-smi.txt", {"driver": None, "gpus": [], "unknown": True}),
    ("q-d-subset-gnome-356.txt", "nvidia-smi.txt", {"form": "nvidia-smi -q", "driver": "375.66",
                                                    "gpus": [("nvidia", None)]}),
    ("q-d-performance-mangohud-636.txt", "nvidia-smi.txt", {"driver": "495.44", "cuda": "11.5",
                                                            "gpus": [("nvidia", None)]}),
    ("q-d-temperature-304-monitorix-28.txt", "nvidia-smi.txt", {"driver": "304.108", "gpus": [("nvidia", None)]}),
    ("wddm-localgpt-14.txt", "nvidia-smi.txt", {"form": "table", "driver": "531.14", "cuda": "12.1",
                                                "gpus": [("nvidia", "NVIDIA GeForce GTX 1080 Ti")]}),
    ("smi-windows-tcc-p4-easygpupv-358.txt", "nvidia-smi.txt", {"driver": "538.15", "cuda": "12.2",
                                                                "gpus": [("nvidia", "Tesla P4")]}),
    ("smi-jetson-orin-nvgpu-ultralytics-20680.txt", "nvidia-smi.txt",
     {"driver": "540.4.0", "cuda": "12.6", "gpus": [("nvidia", "Orin (nvgpu)")]}),
    ("smi-L-mig-telegraf-5812.txt", "nvidia-smi.txt",
     {"form": "nvidia-smi -L", "driver": None, "gpus": [("nvidia", "NVIDIA A100-SXM4-80GB")] * 4}),
    ("query-csv-noheader-devid-akash-90.txt", "nvidia-smi.txt", {"gpus": [("nvidia", "Tesla PG500-216")]}),
    ("query-csv-name-bus-driver-smc-57.txt", "nvidia-smi.txt", {"driver": "460.91.03",
                                                                "gpus": [("nvidia", "GeForce RTX 2060")]}),
    # five samples of one GPU (index 0) in a loop: one GPU, its name not asked for
    ("query-csv-index-repeated-ksysguard-27.txt", "nvidia-smi.txt", {"driver": None, "gpus": [("nvidia", None)]}),
    ("query-csv-index-repeated-ksysguard-27.txt", "nvidia-smi-query.csv", {"gpus": [("nvidia", None)]}),
    # DCGM's "<<<NULL>>>" is its mark for a value it could not read: three GPUs shown, their names unknown
    ("dcgmi-discovery-null-names-229.txt", "nvidia-smi.txt",
     {"form": "dcgmi discovery", "driver": None, "gpus": [("nvidia", None)] * 3}),
    ("dcgmi-diag-282.txt", "nvidia-smi.txt", {"driver": None, "gpus": [], "unknown": True}),
    ("nvtop-tty-two-vendors-243.txt", "nvidia-smi.txt", {"driver": None, "gpus": [], "unknown": True}),
    ("nvtop-gen-6.txt", "nvidia-smi.txt", {"driver": None, "gpus": [], "unknown": True}),
    ("vulkaninfo-summary-instance-1195.txt", "nvidia-smi.txt", {"driver": None, "gpus": [], "unknown": True}),
    ("intel-gpu-top-l-ksysguard-28.txt", "nvidia-smi.txt", {"driver": None, "gpus": [], "unknown": True}),
    ("intel-gpu-top-l-ksysguard-28.txt", "xpu-smi-discovery.txt", {"gpus": [], "unknown": True}),
    ("intel-gpu-top-json-lsgpu-plasma-4.txt", "nvidia-smi.txt", {"driver": None, "gpus": [], "unknown": True}),
    ("intel-gpu-top-json-lsgpu-plasma-4.txt", "xpu-smi-discovery.txt", {"gpus": [], "unknown": True}),
    ("intel-gpu-top-json-lsgpu-plasma-4.txt", "clinfo.txt", {"gpus": [], "unknown": True}),
    ("proc-version-open-565-nixgl-186.txt", "proc-driver-version.txt", {"driver": "565.57.01", "gpus": []}),
    ("proc-version-555-ru-date-hyprland-6715.txt", "nvidia-smi.txt", {"driver": "555.58", "gpus": []}),
    ("smi-mismatch-plus-proc-truenas-19.txt", "nvidia-smi.txt",
     {"driver": "580.173.02", "gpus": [], "ids": ["driver-library-mismatch"]}),
    ("nvcc-7.5-bold-prompt-nvbio-18.txt", "nvcc.txt", {"toolkit": "7.5"}),
    ("nvcc-9.2-windows-xmrstak-1690.txt", "nvcc.txt", {"toolkit": "9.2"}),
    ("nvcc-11.0-build-line-blade-931.txt", "nvcc.txt", {"toolkit": "11.0"}),
    ("rocm-smi-productname-hex-1351.txt", "rocm-smi-product.txt", {"gpus": [("amd", None)], "gfx": ["gfx908"]}),
    ("rocm-smi-productname-json-gfx9010-159.txt", "rocm-smi.json",
     {"gpus": [("amd", "AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2")], "gfx": ["gfx90a"]}),
    ("rocm-smi-lowpower-warning-5849.txt", "rocm-smi.txt", {"gpus": [("amd", None)] * 2, "gfx": ["gfx1201"] * 2}),
    ("amd-smi-partition-4477.txt", "amd-smi.txt", {"gpus": [], "unknown": True}),
    ("xpu-smi-discovery-flex170-69.txt", "xpu-smi-discovery.txt",
     {"gpus": [("intel", "Intel(R) Data Center GPU Flex 170")], "gpus_known": False}),
    ("xpu-smi-discovery-uhd770-flex140-167.txt", "xpu-smi-discovery.txt",
     {"gpus": [("intel", "Intel(R) UHD Graphics 770"), ("intel", "Intel(R) Data Center GPU Flex 140")],
      "gpus_known": False}),
    ("xpu-smi-discovery-dump-csv-755.txt", "xpu-smi-discovery.txt",
     {"gpus": [("intel", "Intel(R) Arc(TM) A310 LP Graphics")]}),
    ("xpu-smi-dump-metrics-69.txt", "xpu-smi-discovery.txt", {"gpus": [], "unknown": True}),
    ("sp-displays-imacpro-vega64-17.txt", "system-profiler-displays.txt",
     {"gpus": [("amd", "Radeon Pro Vega 64")], "gfx": ["gfx900"]}),
    ("sp-displays-m3-26.txt", "system-profiler-displays.txt", {"gpus": [("apple", "Apple M3")]}),
    ("applegpuinfo-m1max-2.txt", "system-profiler-displays.txt", {"gpus": [], "unknown": True}),
    ("clinfo-gtx1070-ethminer-2003.txt", "clinfo.txt", {"gpus": [("nvidia", "GeForce GTX 1070")]}),
    ("clinfo-l-nvidia-intel-832.txt", "clinfo.txt",
     {"gpus": [("nvidia", "NVIDIA GeForce RTX 3090"), ("intel", "Intel(R) UHD Graphics 750")]}),
    ("opencl-enum-gpgpucourse-29.txt", "clinfo.txt", {"gpus": [], "unknown": True}),
    ("sycl-ls-cpu-only-sdcpp-330.txt", "sycl-ls.txt", {"gpus": []}),
    # the Arc on OpenCL only: the contract's xpu-level-zero-missing, which the thread is about
    ("sycl-ls-opencl-gpu-only-a770-764.txt", "sycl-ls.txt",
     {"gpus": [("intel", "Intel(R) Arc(TM) A770 Graphics")], "ids": ["xpu-level-zero-missing"]}),
    ("sycl-ls-2021-old-form-477.txt", "sycl-ls.txt", {"gpus": [], "unknown": True}),
    ("jtop-libraries-oe4t-94.txt", "jetson-release.txt", {"gpus": [], "unknown": True}),
]


def _case_id(case) -> str:
    return f"{case[0]}->{case[1]}"


@pytest.mark.parametrize("sample, where, want", FORM_CASES, ids=[_case_id(c) for c in FORM_CASES])
def test_a_pasted_form_is_read_right_or_said_unknown(tmp_path, sample, where, want):
    rep = status_of_files(tmp_path, {where: _read(FORMS, sample)})
    drv = rep.get("driver") or {}
    gpus = rep.get("gpus") or []
    if "form" in want:
        assert drv.get("nvidia_smi_form") == want["form"]
    if "driver" in want:
        assert drv.get("version") == want["driver"]
    if "cuda" in want:
        assert drv.get("cuda") == want["cuda"]
    if "gpus" in want:
        assert [(g.get("vendor"), g.get("name")) for g in gpus] == want["gpus"]
    if "gfx" in want:
        assert [g.get("gfx") for g in gpus] == want["gfx"]
    if "gpus_known" in want:
        assert rep.get("gpus_known") is want["gpus_known"]
    if "toolkit" in want:
        assert (rep.get("toolkit") or {}).get("version") == want["toolkit"]
    findings = rep.get("findings") or []
    if want.get("unknown"):
        assert any(f["id"] == "not-checked" and f["message"].startswith(where) for f in findings), findings
    # nothing failed that the text does not show failing
    assert sorted(f["id"] for f in findings if f["severity"] in ("warning", "error")) == sorted(want.get("ids", []))
    # no GPU is named by a tool's placeholder
    assert not any("<<<" in str(g.get("name")) for g in gpus)


def test_every_sample_is_cited_and_tried():
    cited = {ln.split("|")[1].strip() for ln in (FORMS / "README.md").read_text().splitlines()
             if ln.startswith("| ") and ".txt |" in ln}
    assert cited == {p.name for p in FORMS.glob("*.txt")}
    assert {c[0] for c in FORM_CASES} <= cited


def test_dcgmi_placeholder_names_no_gpu_in_a_paste():
    text = "# dcgmi discovery\n\n" + _read(FORMS, "dcgmi-discovery-null-names-229.txt")
    doc = _doc(text)
    assert doc["matches"] == []
    assert not any("<<<" in str(g.get("name")) for g in (doc.get("facts") or {}).get("gpus") or [])


@pytest.mark.parametrize("sample, ids", [
    ("smi-mismatch-plus-proc-truenas-19.txt", ["driver-library-mismatch"]),
    ("gpustat-header-driver-53.txt", []),
    ("topo-m-club3090-1229.txt", []),
    ("dmon-deepspeech-178.txt", []),
    ("q-d-subset-gnome-356.txt", []),
    ("rocm-smi-lowpower-warning-5849.txt", []),
    ("sp-displays-imacpro-vega64-17.txt", []),
    ("jetson-release-missing-jetpack-635.txt", []),
])
def test_a_pasted_form_names_no_cause_it_does_not_show(sample, ids):
    doc = _doc("# my gpu setup\n\n" + _read(FORMS, sample))
    assert [m["id"] for m in doc["matches"]][:len(ids) or None] == ids
