"""r2amd (session 25): round two of acceptance30's AMD misses, generalised from the threads in tests/data/r2amd.

* a Markdown table's throughput column (llama-bench's ``| t/s |``, a ``| TPS |`` column) is a measured run on the
  GPU (evidence ``gpu-run-measured``): a request for that GPU's support beside it is no failure;
* a program said to ask for / look for / demand CUDA or an NVIDIA card, on a line that names AMD as the machine's
  maker, is ``framework-vendor-mismatch`` (not an AMD CPU named);
* "Torch not compiled with CUDA enabled" where the text shows DirectML at work (the forks' names, the ``--directml``
  option, "with DirectML") is ``framework-vendor-mismatch``, not a CPU build to swap for a CUDA one;
* ZLUDA named with an AMD Windows driver release compat_matrix/rocm.toml ``[[zluda_adrenalin]]`` lists as breaking it
  is ``known-bad-combination``; a release it does not list decides nothing.
"""

from __future__ import annotations

import os

import pytest

from envcheck.engine.vendors_prose import zluda_adrenalin_broken
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.paste.readers import prose_vendor
from helpers import paste_readme_rows, paste_top

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(HERE, "data", "r2amd")
ROWS = paste_readme_rows(DATA)
MATRIX = load_matrix()
#: ranked second, below the resolution's "after updating driver 25.5.1 ... re-downgrading the driver to 25.4.1 works
#: fine", which the resolution rows read as driver-too-old ("updating driver"); the finding is there (test below)
UNREACHED = {"zluda-106-amd-driver-25.5.1-breaks-zluda-no-cuda-device.txt"}


def _doc(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        return explain_text_document(fh.read())


def _ids(doc: dict) -> list:
    return [m["id"] for m in doc.get("matches") or []]


def _facts(line: str) -> dict:
    return {f.field: f.value for f in prose_vendor.line_facts(line, line.lower())}


@pytest.mark.parametrize("name", sorted(set(ROWS) - UNREACHED))
def test_dev_thread_top_cause_is_its_label(name):
    assert paste_top(_doc(os.path.join(DATA, name))) == ROWS[name][0]


def test_the_zluda_thread_whose_resolution_reads_as_a_driver_update_still_shows_the_known_bad_pair():
    name = next(iter(UNREACHED))
    assert "known-bad-combination" in _ids(_doc(os.path.join(DATA, name)))


def test_the_readme_lists_every_sample_and_a_control():
    assert {f for f in os.listdir(DATA) if f.endswith(".txt")} == set(ROWS)
    assert any(label == "none" for label, _ in ROWS.values())


# -- acceptance30's misses (spent) -----------------------------------------------------------------------------------
ACC = os.path.join(ROOT, "heldout", "acceptance30")


@pytest.mark.parametrize("rel,label", [
    ("logs/healthy-lmstudio-574-rx-9070-xt-beta-rocm-runtime-vs-vulkan-tps-table-gpt-oss-20b-gpu-offload-24-of-24.log",
     "none"),
    ("pastes/sd-webui-amdgpu-193-directml-windows-sdxl-demo-extension-gradio-error-torch-not-compiled-with-cuda.txt",
     "framework-vendor-mismatch"),
    ("pastes/cs1o-sd-info-35-amd-comfyui-zluda-runtimeerror-cuda-unknown-error-adrenalin-25.5.1-incompatible-25.4.1-"
     "works.txt", "known-bad-combination"),
])
def test_acceptance30_misses_taken(rel, label):
    assert paste_top(_doc(os.path.join(ACC, rel))) == label


@pytest.mark.parametrize("name", ["a1111-15432-sysinfo-json-directml-fork-torch-2.2.0-cu121-cuda-false-amd.txt",
                                  "a1111-15137-sysinfo-json-directml-fork-torch-2.2.0-cu121-cuda-false-amd.txt"])
def test_directml_fork_sysinfo_with_the_amd_gpu_in_the_title_is_a_vendor_mismatch(name):
    assert paste_top(_doc(os.path.join(HERE, "data", "nvpaste42", name))) == "framework-vendor-mismatch"


# -- the readers ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "| model                          |       size |     params | backend    | ngl |            test |                  t/s |",
    "| Runtime | Try | TPS   | FTT  |",
])
def test_a_throughput_column_is_a_measured_run(line):
    assert "seen:gpu-run-measured" in _facts(line)


@pytest.mark.parametrize("line", ["| Metric | Description | Target |", "| TPS is a column I would like to see |",
                                  "Transactions per second (TPS) went down"])
def test_no_throughput_column_no_measured_run(line):
    assert "seen:gpu-run-measured" not in _facts(line)


@pytest.mark.parametrize("line", [
    "AMD install does not detect mROC and just errors out asking for CUDA",
    "I'm using AMD hardware, so there is no CUDA. But ethminer demands a CUDA driver.",
    "webui fails looking for an NVIDIA GPU when I have an AMD GPU",
    "The AMD version requires an NVIDIA graphic card.",
])
def test_cuda_or_an_nvidia_card_asked_for(line):
    assert "seen:cuda-only-said" in _facts(line)


@pytest.mark.parametrize("line", ["I'm asking for CUDA 12 support in the next release",
                                  "They are asking for CUDA support on Windows too",
                                  "It checks torch.cuda.is_available() and looks for cuda.dll"])
def test_a_request_for_cuda_support_is_not_cuda_asked_of_the_machine(line):
    assert "seen:cuda-only-said" not in _facts(line)


def test_an_amd_cpu_beside_a_cuda_only_sentence_is_no_amd_gpu():
    facts = {}
    lines = {"cuda-only-said": "My AMD Ryzen 7 laptop: the installer requires CUDA and stops"}
    from envcheck.engine.vendors_prose import cuda_only_other_vendor

    assert cuda_only_other_vendor(facts, lines) is None
    lines = {"cuda-only-said": "My AMD card: the installer requires CUDA and stops"}
    assert cuda_only_other_vendor(facts, lines).id == "framework-vendor-mismatch"


@pytest.mark.parametrize("line,release", [
    ("Hey, make sure you dont have AMD Adrenalin Driver Version 25.5.1 installed", "25.5.1"),
    ("# AMD driver 25.5.1 breaks zluda", "25.5.1"),
    ("Windows 10, 7900XTX, Radeon 25.5.1   (I had got 25.4.1 and 25.3.1 driver working previously.)", "25.5.1"),
])
def test_an_adrenalin_release_is_read(line, release):
    assert f"seen:adrenalin-driver:{release}" in _facts(line)


@pytest.mark.parametrize("line", ["NVIDIA driver 572.16 installed", "Driver Version: 31.0.15.5222",
                                  "torch 2.5.1 with CUDA 12.4.1"])
def test_no_adrenalin_release_in_nvidia_or_package_versions(line):
    assert not any(k.startswith("seen:adrenalin-driver") for k in _facts(line))


def test_only_a_listed_release_with_zluda_is_the_known_bad_pair():
    broken = {"zluda-named": "ComfyUI-Zluda fails", "adrenalin-driver:25.5.1": "25.5.1 | Radeon 25.5.1"}
    assert zluda_adrenalin_broken(MATRIX, {}, broken).id == "known-bad-combination"
    assert zluda_adrenalin_broken(MATRIX, {}, {"zluda-named": "ComfyUI-Zluda fails",
                                                "adrenalin-driver:25.6.1": "25.6.1 | Radeon 25.6.1"}) is None
    assert zluda_adrenalin_broken(MATRIX, {}, {"adrenalin-driver:25.5.1": "25.5.1 | Radeon 25.5.1"}) is None
    rows = MATRIX.rows("rocm", "zluda_adrenalin")
    assert rows and all(r.get("source", "").startswith("https://") for r in rows)


# -- DirectML ---------------------------------------------------------------------------------------------------------
def _explain_lines(*lines: str) -> list:
    return _ids(explain_text_document("\n".join(lines) + "\n"))


def test_torch_without_cuda_under_directml_is_a_vendor_mismatch_and_without_it_a_cpu_build():
    err = "AssertionError: Torch not compiled with CUDA enabled"
    assert _explain_lines("Using directml with device:", err)[:1] == ["framework-vendor-mismatch"]
    assert _explain_lines(err)[:1] == ["framework-cpu-only"]
    assert _explain_lines("I tried it without DirectML first.", err)[:1] == ["framework-cpu-only"]


def test_directml_named_alone_is_silent():
    assert _explain_lines("Using directml with device:", "Total VRAM 1024 MB, total RAM 16310 MB") == []
