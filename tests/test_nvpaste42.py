"""Session 25, helper nvpaste42: NVIDIA bug-report pastes of tool output whose facts the readers missed.

* llama.cpp / ggml's ``Device N: NAME, compute capability X.Y[, VMM: yes][, VRAM: N MiB]`` lines
  (paste/readers/llm_runtimes.py) behind journald's ``Sep 04 14:24:56 host ollama[pid]:`` prefix (ollama#6637), with
  the next log line glued after them when a terminal's wrapped lines were pasted as one (audio.cpp#227), and without
  their ``ggml_cuda_init: found N CUDA devices`` header (LLamaSharp#162's setup list).
* A GPU field whose name carries its architecture and compute capability in parentheses ("**GPU:** NVIDIA GeForce
  GTX 970 (Maxwell Architecture, Compute Capability 5.2)", foundry-local#96; paste/readers/fields.py): the name
  without the note, the compute capability from it.
* Paddle's run_check output (regression samples, read right before this branch).

Samples: tests/data/nvpaste42 (README cites each thread); heldout/nvpaste42-held was set aside before the rules.
"""

from __future__ import annotations

import json
import os

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import llm_runtimes
from helpers import paste_readme_rows, paste_top

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "nvpaste42")
ROWS = paste_readme_rows(DATA)
FACTS_ONLY = "ollama-6637-journald-ggml-cuda-init-rtx-4090-device-line.txt"
SYSINFO = ("a1111-17038-sysinfo-json-torch-2.1.2-cu121-no-nvidia-gpu.txt",
           "a1111-15432-sysinfo-json-directml-fork-torch-2.2.0-cu121-cuda-false-amd.txt",
           "a1111-15137-sysinfo-json-directml-fork-torch-2.2.0-cu121-cuda-false-amd.txt")


def _doc_of(text: str) -> dict:
    return explain_text_document(text)


def _doc(name: str) -> dict:
    with open(os.path.join(DATA, name), encoding="utf-8") as fh:
        return _doc_of(fh.read())


def _gpus(doc: dict) -> list:
    return [(g.get("index"), g.get("name"), g.get("compute_capability")) for g in (doc.get("facts") or {}).get("gpus") or []]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_dev_thread_top_cause_is_its_label(name):
    assert paste_top(_doc(name)) == ROWS[name][0]


def test_the_readme_lists_every_labelled_sample_and_a_control():
    assert {f for f in os.listdir(DATA) if f.endswith(".txt")} == set(ROWS) | {FACTS_ONLY, *SYSINFO}
    assert any(label == "none" for label, _ in ROWS.values())


@pytest.mark.parametrize("name", sorted(set(ROWS) | {FACTS_ONLY, *SYSINFO}))
def test_every_gpu_of_the_facts_file_is_read(name):
    with open(os.path.join(DATA, name[:-4] + ".facts.json"), encoding="utf-8") as fh:
        want = json.load(fh).get("gpus") or []
    got = {g[0]: g for g in _gpus(_doc(name))}
    for g in want:
        assert g["index"] in got, g
        _, gname, cc = got[g["index"]]
        assert cc == g["compute_capability"]
        if "name" in g:
            assert gname == g["name"]


def test_the_journald_device_line_of_ollama_6637_gives_the_gpu():
    assert _gpus(_doc(FACTS_ONLY)) == [(0, "NVIDIA GeForce RTX 4090", "8.9")]


def test_the_glued_device_line_of_audio_cpp_227_gives_the_gpu_not_the_glued_text():
    name = "audiocpp-227-ggml-cuda-init-glued-device-line-gtx-1080-ti-ptx-unsupported-toolchain.txt"
    assert _gpus(_doc(name)) == [(0, "NVIDIA GeForce GTX 1080 Ti", "6.1")]


def test_headerless_device_lines_are_two_gpus_in_order():
    name = "llamasharp-162-headerless-device-lines-quadro-p400-k620-cuda11-backend-no-kernel-image.txt"
    assert _gpus(_doc(name)) == [(0, "Quadro P400", "6.1"), (1, "Quadro K620", "5.0")]


@pytest.mark.parametrize("line, want", [
    # journald's prefix with a lower-case month (a localized journalctl, as ollama#8532 pasted its lines)
    ("jan 27 17:06:44 desktop ollama[1646734]:   Device 0: NVIDIA GeForce RTX 3080, compute capability 8.6, VMM: yes",
     (0, "NVIDIA GeForce RTX 3080", "8.6", None)),
    # the 2025 form with its VRAM, then the next line glued on after a run of spaces
    ("  Device 1: NVIDIA GeForce GTX 1080 Ti, compute capability 6.1, VMM: yes, VRAM: 11172 MiB      "
     "ggml_cuda_graph_set_enabled: disabling CUDA graphs due to GPU architecture",
     (1, "NVIDIA GeForce GTX 1080 Ti", "6.1", 11172)),
])
def test_a_device_line_in_a_log_form_is_read(line, want):
    part = llm_runtimes.read([line])
    assert [f.value for f in part.facts if f.field == "gpu"] == [want]


@pytest.mark.parametrize("line", [
    # prose after the device (a sentence, not a log line glued on): not the printed line
    "Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6, but it is never used",
    # deviceQuery's quoted name has no ", compute capability" after it
    'Device 0: "GeForce GTX 770"',
    # a sentence naming the capability
    "My device is a GTX 1050 with compute capability 6.1, is it supported?",
])
def test_a_line_that_is_not_the_printed_device_line_is_not_read(line):
    assert not [f for f in llm_runtimes.read([line]).facts if f.field == "gpu"]


def test_device_lines_behind_localai_s_stderr_prefix_are_read_under_their_header():
    name = "localai-944-control-stderr-prefixed-ggml-init-cublas-4x-tesla-t4-llama-max-devices.txt"
    assert _gpus(_doc(name)) == [(i, "Tesla T4", "7.5") for i in range(4)]


def test_a_prefixed_device_line_without_its_header_is_not_read():
    # "stderr" is no prefix the Device line has by itself: without the header above it, nothing vouches for the form
    assert _gpus(_doc_of("stderr   Device 0: Tesla T4, compute capability 7.5\n")) == []


def test_a_device_line_under_its_header_is_read_once():
    text = ("ggml_cuda_init: found 2 CUDA devices:\n"
            "  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes\n"
            "  Device 1: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n")
    assert _gpus(_doc_of(text)) == [(0, "NVIDIA GeForce RTX 4090", "8.9"), (1, "NVIDIA GeForce RTX 3090", "8.6")]


@pytest.mark.parametrize("value, name, cc", [
    ("NVIDIA GeForce GTX 970 (Maxwell Architecture, Compute Capability 5.2)", "NVIDIA GeForce GTX 970", "5.2"),
    ("NVIDIA GeForce GTX 1080 (Pascal, sm_61)", "NVIDIA GeForce GTX 1080", "6.1"),
    ("NVIDIA A100 (Ampere architecture, compute capability 8.0)", "NVIDIA A100", "8.0"),
    # the plain note (read before this branch) stays read
    ("NVIDIA GeForce GTX 1050 (compute capability 6.1)", "NVIDIA GeForce GTX 1050", "6.1"),
])
def test_a_gpu_field_with_its_architecture_and_cc_note(value, name, cc):
    doc = _doc_of(f"### Environment\n\n- **GPU:** {value}\n- **OS:** Ubuntu 22.04\n")
    assert _gpus(doc) == [(0, name, cc)]


def test_an_architecture_note_without_a_cc_is_no_cc():
    # "(Ampere)" alone says no compute capability (an A100 is 8.0, an RTX 3090 8.6): none is made up
    doc = _doc_of("### Environment\n\n- **GPU:** NVIDIA GeForce RTX 3090 (Ampere, 24GB)\n")
    assert all(g[2] is None for g in _gpus(doc))


# ------------------------------------------------------------------ the web UI's Sysinfo JSON (webui_sysinfo)
def _torch(doc: dict) -> dict:
    return ((doc.get("facts") or {}).get("frameworks") or {}).get("torch") or {}


@pytest.mark.parametrize("name", SYSINFO)
def test_the_sysinfo_json_gives_torch_its_cuda_and_python(name):
    with open(os.path.join(DATA, name[:-4] + ".facts.json"), encoding="utf-8") as fh:
        want = json.load(fh)
    doc = _doc(name)
    assert _torch(doc).get("version") == want["frameworks"]["torch"]["version"]
    assert _torch(doc).get("cuda") == want["frameworks"]["torch"]["cuda"]
    assert doc["facts"]["python"]["version"] == want["python"]["version"]


def _sysinfo(*rows: str) -> str:
    return "{\n    \"Python\": \"3.10.6\",\n    \"Torch env info\": {\n" + ",\n".join(
        "        " + r for r in rows) + "\n    },\n    \"Exceptions\": []\n}\n"


def test_a_sysinfo_of_an_nvidia_machine_gives_the_driver_and_every_gpu():
    doc = _doc_of(_sysinfo('"torch_version": "2.1.2+cu121"', '"cuda_compiled_version": "12.1"',
                           '"is_cuda_available": "True"', '"nvidia_driver_version": "546.33"',
                           '"nvidia_gpu_models": "GPU 0: NVIDIA GeForce RTX 3090\\nGPU 1: NVIDIA GeForce RTX 3060"'))
    assert doc["facts"]["driver"]["version"] == "546.33"
    assert [(g[0], g[1]) for g in _gpus(doc)] == [(0, "NVIDIA GeForce RTX 3090"), (1, "NVIDIA GeForce RTX 3060")]
    assert doc["matches"] == []


@pytest.mark.parametrize("cuda_json, cuda_text", [("null", "None"), ('"12.1"', "12.1")])
def test_the_sysinfo_reads_as_the_collect_env_it_is(cuda_json, cuda_text):
    # the object is collect_env's SystemEnv as JSON: read, it says what the same collect_env printed says (a null
    # cuda_compiled_version beside a torch version is torch.version.cuda's None, printed "None")
    torch_v = "2.1.2" if cuda_json == "null" else "2.1.2+cu121"
    doc = _doc_of(_sysinfo(f'"torch_version": "{torch_v}"', f'"cuda_compiled_version": {cuda_json}',
                           '"python_version": "3.10.6 (main) [GCC] (64-bit runtime)"', '"is_cuda_available": "False"'))
    text = ("Collecting environment information...\n"
            f"PyTorch version: {torch_v}\nIs debug build: False\nCUDA used to build PyTorch: {cuda_text}\n"
            "ROCM used to build PyTorch: N/A\n\nPython version: 3.10.6 (main) [GCC] (64-bit runtime)\n"
            "Is CUDA available: False\n")
    ref = _doc_of(text)
    assert _torch(doc) and doc["facts"] == ref["facts"]
    assert [m["id"] for m in doc["matches"]] == [m["id"] for m in ref["matches"]]


def test_null_fields_are_unknown_not_values():
    doc = _doc_of(_sysinfo('"torch_version": "2.2.0+cu121"', '"cuda_compiled_version": "12.1"',
                           '"nvidia_driver_version": null', '"nvidia_gpu_models": null', '"cudnn_version": null'))
    assert doc["facts"]["driver"]["version"] is None
    assert _gpus(doc) == []


def test_the_sysinfo_fields_outside_the_torch_object_are_not_read_as_its_fields():
    # a "torch_version" key elsewhere (another JSON a user pastes) is no Sysinfo object
    doc = _doc_of('{\n    "torch_version": "2.1.2+cu121",\n    "nvidia_driver_version": "546.33"\n}\n')
    assert doc["facts"].get("driver", {}).get("version") is None
