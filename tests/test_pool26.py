"""Paste families every spent blind set keeps missing (issue 20, round pool26): fresh real threads of three families in
tests/data/pastes/pool26 (README.md cites each; a seeded part, random.Random(26), is held back in heldout/pool26-held,
scored by scripts/score_pastes.py, not here).

What this round reads and decides, each from a miss of the working part and of the spent acceptance sets:

* paste/readers/printed.py: ``platform.machine()`` as a REPL or ``python -c`` prints it (``'x86_64'``): the Python's
  architecture; paste/readers/observe.py: an Apple silicon Mac named in a sentence ("M1 Macs", "under Rosetta on M1
  macOS"): with an x86_64 Python and no other platform named, the Python runs under Rosetta 2
  (paste/report_vendors.py), and engine/report.py takes python-arch-mismatch as a cause of a report even where no
  framework is shown (a warning for ``status``);
* paste/readers/observe.py + engine/cpubuild.py: ONNX Runtime's available providers printed with no GPU provider in
  them, where the text wants onnxruntime-gpu or its CUDA provider: the CPU package's files serve ``import
  onnxruntime`` (framework-cpu-only), with or without a report in the text;
* paste/readers/resolution.py: "fixes" / "resolves" state an outcome ("An additional ``usermod -a -G render`` fixes
  the issue"), and explain/vendors.py leaves a device-permission cause's NVIDIA-only advice out where its evidence
  names AMD's / Intel's nodes or the render group; the cause has a fix of their own (errors.toml);
* compat_matrix/errors.toml: ``HSA_STATUS_ERROR_OUT_OF_RESOURCES`` is read as the runtime reports it, not where a
  sentence names the status (ROCm/rocminfo#34 was read as gpu-out-of-memory: a false statement).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import observe, printed
from envcheck.paste.readers.base import view
from envcheck.paste.readers.resolution import line_facts as resolution_facts
from tests.helpers import (NVIDIA_ADVICE, assert_top_is_label, check_hand_written_facts, doc_matches,
                           paste_readme_rows)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "pool26"
HELD = ROOT / "heldout" / "pool26-held"
SPENT = ROOT / "heldout"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}

#: the working part's misses, each with the answer it gets today
KNOWN_MISSES = {
    # (compute-runtime-478, "clinfo only finds GPU when running as root", is read since perm37: session 22)
    # only "the M chip" names the Mac (no M-number, no "Apple silicon"): not read as Apple silicon
    "instructlab-2296-apple-m-python-x86-64-arch-i386-x86-64-wheels.txt": None,
}


def _doc(text: str) -> dict:
    return explain_text_document(text)


def _ids(text: str) -> list:
    return [m["id"] for m in _doc(text).get("matches") or []]


def test_the_set_is_whole():
    assert len(ROWS) == 6
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    held = {p.name for p in HELD.glob("*.txt")}
    assert len(held) == 2 and not held & set(ROWS)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_top_cause_is_the_label(name):
    doc = _doc((DATA / name).read_text(encoding="utf-8"))
    assert_top_is_label(doc_matches(doc), name, ROWS[name], KNOWN_MISSES)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_hand_written_facts(name):
    want = json.loads((DATA / name.replace(".txt", ".facts.json")).read_text(encoding="utf-8"))
    check_hand_written_facts(want, _doc((DATA / name).read_text(encoding="utf-8"))["facts"])


# -- python-arch-mismatch ---------------------------------------------------------------------------------------------

def test_platform_machine_printed_is_the_pythons_architecture():
    lines = [">>> platform.machine()", "'x86_64'"]
    assert printed.detect(view(lines, 0)) == 2
    got = printed.read(lines)
    assert ("machine", "x86_64") in [(f.field, f.value) for f in got.facts]
    cmd = ["$ python3 -c 'import platform; print(platform.machine())'", "arm64"]
    assert ("machine", "arm64") in [(f.field, f.value) for f in printed.read(cmd).facts]
    # a value that is no architecture says nothing
    assert not [f for f in printed.read([">>> platform.machine()", "'foo bar'"]).facts if f.field == "machine"]


def test_apple_silicon_named_in_prose():
    for s in ("Support M1 Macs for `@conda`", "On an M1 Macbook Pro (`arm64` architecture)", "I have a Mac M1 chip.",
              "under Rosetta on M1 macOS", "Building Backend with Apple Silicon Powered Devices"):
        assert [f for f in observe.line_facts(s, s.lower()) if f.field == "apple_prose"], s
    for s in ("the M1 Garand rifle", "model m1 of the series", "we ran it on an A100 and an H100"):
        assert not [f for f in observe.line_facts(s, s.lower()) if f.field == "apple_prose"], s


def test_x86_64_python_on_a_named_apple_silicon_mac_is_rosetta():
    text = ("# Support M1 Macs\n\n```\n> python -c \"import platform; print(platform.machine())\"\nx86_64\n```\n")
    assert _ids(text)[:1] == ["python-arch-mismatch"]
    # an arm64 Python there is native: nothing to say
    assert "python-arch-mismatch" not in _ids(text.replace("x86_64", "arm64"))
    # a Linux Python (its banner says so) on that Mac is a container's or a VM's: no Rosetta said
    linux = ("# Support M1 Macs\n\nPython 3.10.5 (main, Jun  1 2022, 10:00:00) [GCC 9.4.0] on linux\n"
             "Type \"help\", \"copyright\", \"credits\" or \"license\" for more information.\n>>> import platform\n"
             ">>> platform.machine()\n'x86_64'\n")
    assert "python-arch-mismatch" not in _ids(linux)
    # an x86_64 Python with no Apple silicon named anywhere: an Intel machine, nothing said
    assert "python-arch-mismatch" not in _ids(text.replace("M1 Macs", "Linux servers"))


def test_rosetta_report_without_a_framework_is_a_cause():
    # Lightning's environment report on an M1 (Darwin's ARM64 kernel, processor i386): no torch in it, still the cause
    text = (SPENT / "acceptance11" / "pastes" / "lightning-16124-m1-vscode-jupyter-processor-i386-rosetta.txt"
            ).read_text(encoding="utf-8")
    doc = _doc(text)
    assert doc["matches"][0]["id"] == "python-arch-mismatch"
    for m in doc["matches"]:
        for t in m["fixes"] + m["dead_ends"]:
            assert not NVIDIA_ADVICE.search(t), t


# -- framework-cpu-only: ONNX Runtime's CPU package -------------------------------------------------------------------

def test_ort_cpu_providers_line():
    yes = ("Available providers: ['AzureExecutionProvider', 'CPUExecutionProvider']",
           "ValueError: ['CUDAExecutionProvider'] does not contain a subset of available providers ['CPUExecutionProvider']",
           "And from `ort.get_available_providers()` only `['CPUExecutionProvider']`.")
    no = ("onnxruntime.get_available_providers() output is ['CPUExecutionProvider', 'CUDAExecutionProvider']",
          "model.get_providers() is ['CPUExecutionProvider']",  # a session's providers: a GPU build's CUDA may have failed
          "print(ort.get_available_providers())")
    for s in yes:
        assert [f for f in observe.line_facts(s, s.lower()) if f.field == "seen:ort-cpu-providers"], s
    for s in no:
        assert not [f for f in observe.line_facts(s, s.lower()) if f.field == "seen:ort-cpu-providers"], s


def test_ort_cpu_providers_need_the_gpu_build_wanted():
    text = ("I installed onnxruntime-gpu but\n```\n>>> import onnxruntime as ort\n>>> print('Available providers:', "
            "ort.get_available_providers())\nAvailable providers: ['AzureExecutionProvider', 'CPUExecutionProvider']\n```\n")
    assert _ids(text)[:1] == ["framework-cpu-only"]
    # the same list from a CPU-only user who wants nothing more: no cause
    healthy = ("Running on my laptop:\n```\n>>> import onnxruntime as ort\n>>> print('Available providers:', "
               "ort.get_available_providers())\nAvailable providers: ['AzureExecutionProvider', 'CPUExecutionProvider']\n```\n")
    assert "framework-cpu-only" not in _ids(healthy)


def test_ort_fix_removes_both_packages():
    text = (DATA / "ort-4809-kaggle-colab-pip-onnxruntime-gpu-and-onnxruntime-cpu-provider-only.txt").read_text(
        encoding="utf-8")
    top = _doc(text)["matches"][0]
    assert top["id"] == "framework-cpu-only"
    assert "pip uninstall -y onnxruntime onnxruntime-gpu" in top["fixes"][0]


# -- device-permission ------------------------------------------------------------------------------------------------

def test_fixes_and_resolves_state_an_outcome():
    for s in ("An additional `sudo usermod -a -G render $(whoami)` fixes the issue.",
              "Adding the user to the render group resolves it."):
        got = [f for f in resolution_facts(s, s.lower()) if f.field == "seen:resolution"]
        assert got, s
    for s in ("Does adding the user to the render group fix the issue?", "This PR fixes nothing for me.",
              "usermod -a -G render did not fix the issue."):
        assert not [f for f in resolution_facts(s, s.lower()) if f.field == "seen:resolution"], s


def test_render_group_resolution_gives_no_nvidia_advice():
    for name in ("compute-runtime-350-uhd-630-clinfo-zero-platforms-render-group-solves.txt",):
        doc = _doc((DATA / name).read_text(encoding="utf-8"))
        top = doc["matches"][0]
        assert top["id"] == "device-permission"
        assert any("render" in t and "/dev/dri/renderD" in t for t in top["fixes"])
        for t in top["fixes"] + top["dead_ends"]:
            assert not NVIDIA_ADVICE.search(t), t
    # an NVIDIA container's NVML failure keeps its own advice
    nv = "root@abc:/# nvidia-smi\nFailed to initialize NVML: Unknown Error\n"
    m = [x for x in _doc(nv)["matches"] if x["id"] == "device-permission"]
    assert m and any("/dev/nvidia" in t for t in m[0]["fixes"])
    assert not any("/dev/dri/renderD" in t for t in m[0]["fixes"])  # AMD's / Intel's nodes: not this machine's


def test_hsa_out_of_resources_named_in_a_sentence_is_no_failure():
    said = ("Also, it would be preferable to catch EACCESS errors and return them as permission denied operations, "
            "rather than `HSA_STATUS_ERROR_OUT_OF_RESOURCES`\n")
    assert "gpu-out-of-memory" not in _ids(said)
    for line in ("Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary "
                 "resources.",
                 "RuntimeError: HSA Error 4104: HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate",
                 "STATUS_CHECK Error: HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008) at file:mcwamp_hsa.cpp line:1000"):
        assert "gpu-out-of-memory" in _ids(line + "\n"), line
