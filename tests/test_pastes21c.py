"""Bug-report pastes collected for issue 20, round 21c (pastes21c): 45 real reports (2021-2026) from the applications
people run on their own GPUs (ComfyUI, Fooocus, InvokeAI, the A1111 webui, text-generation-webui, ollama, LocalAI,
faster-whisper / CTranslate2 / WhisperX, insightface, PaddleOCR, MinerU, unsloth, axolotl, Real-ESRGAN / GFPGAN,
deepface, roop / facefusion), sampled as a blind collector would and labelled before envcheck was run on them; a seeded
40% is held back (heldout/pastes21c, scored by scripts/score_pastes.py, not here).

What this round reads and decides (each from the emitting program's own format strings):

* ``paste/readers/unsloth.py``: Unsloth's banner ("<GPU>. Num GPUs = 1. Max memory: ... GB. Platform: Linux." then
  "Torch: 2.5.1+cu124. CUDA: 6.1. CUDA Toolkit: 12.4."): the GPU, its compute capability, torch and torch's CUDA;
* compat_matrix/errors.toml ``unsloth-gpu-too-old``: unsloth_zoo's "Unsloth: Your GPU is too old!" (capability < 7);
  ``triton-gpu-too-old`` now also reads the GPU and its capability torch's GPUTooOldForTriton names;
* ``ort-execution-provider-choices-cpu-only``: roop / facefusion refusing ``--execution-providers cuda`` among only
  'cpu' / 'azure' (their choices are onnxruntime.get_available_providers()): the CPU onnxruntime package;
* ``amd-gpu-wants-nvidia-driver``: one sentence naming an AMD GPU that says the program wants an NVIDIA driver;
* the ``no_nvidia_said`` fact ("I don't have NVIDIA GPU") recasts torch's "Found no NVIDIA driver" from no-gpu-driver
  (install a driver: false there) to framework-vendor-mismatch (engine/vendors.py ``log_says_no_nvidia``).

Real samples: tests/data/pastes/pastes21c/ (README.md cites each thread and gives its label).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import unsloth
from envcheck.paste.readers.base import view
from tests.helpers import assert_top_is_label, check_hand_written_facts, doc_matches, paste_readme_rows

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "pastes21c"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}

#: the working part's misses, each with the answer it gets today (so that a fix, or a new wrong answer, is seen)
KNOWN_MISSES = {
    # CUBLAS_STATUS_ALLOC_FAILED is cuBLAS failing to allocate (the knowledge base reads it as out of memory); the
    # reporter's fix was another CUDA / cuDNN install, which the text alone does not make certain
    "roop-unleashed-1065-windows-cublas-status-alloc-failed-after-cuda-install.txt": "gpu-out-of-memory",
}
#: facts files a reader does not meet yet: ollama's "amdgpu is not supported ... gpu_type=gfx906" line gives no AMD GPU
FACTS_MISSES = {"ollama-11569-mi50-gfx906-amdgpu-is-not-supported.txt"}


def _doc(text: str) -> dict:
    return explain_text_document(text)


def _ids(text: str) -> list:
    return [m["id"] for m in _doc(text).get("matches") or []]


def test_the_set_is_whole():
    assert len(ROWS) == 27
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert sum(1 for v in ROWS.values() if v == "none") == 3
    held = {p.name for p in (ROOT / "heldout" / "pastes21c").glob("*.txt")}
    assert len(held) == 18 and not held & set(ROWS)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_top_cause_is_the_label(name):
    doc = _doc((DATA / name).read_text(encoding="utf-8"))
    assert_top_is_label(doc_matches(doc), name, ROWS[name], KNOWN_MISSES)


@pytest.mark.parametrize("name", sorted(set(ROWS) - FACTS_MISSES))
def test_hand_written_facts(name):
    want = json.loads((DATA / name).with_suffix(".facts.json").read_text())
    check_hand_written_facts(want, _doc((DATA / name).read_text(encoding="utf-8")).get("facts") or {})


# --- the reader: Unsloth's banner ---------------------------------------------------------------------------------------
_NEW = ["==((====))==  Unsloth 2025.3.9: Fast Qwen2 patching. Transformers: 4.49.0. vLLM: 0.7.3.",
        "   \\\\   /|    NVIDIA GeForce GTX 1070. Num GPUs = 1. Max memory: 7.909 GB. Platform: Linux.",
        "O^O/ \\_/ \\    Torch: 2.5.1+cu124. CUDA: 6.1. CUDA Toolkit: 12.4. Triton: 3.1.0"]
# the 2024 wording (unsloth/models/llama.py before 2025): "GPU: ... Platform = Linux." / "Pytorch: ... CUDA = 7.5."
_OLD = ["   \\\\   /|    GPU: Tesla T4. Max memory: 14.748 GB. Platform = Linux.",
        "O^O/ \\_/ \\    Pytorch: 2.2.1+cu121. CUDA = 7.5. CUDA Toolkit = 12.1."]
# a ROCm machine (unsloth's gpu_stats_snippet "ROCm Toolkit: {torch.version.hip}.")
_ROCM = ["   \\\\   /|    AMD Instinct MI300X. Num GPUs = 8. Max memory: 191.984 GB. Platform: Linux.",
         "O^O/ \\_/ \\    Torch: 2.7.0+rocm6.3. ROCm Toolkit: 6.3.42131. Triton: 3.3.0"]


def _read(lines):
    n = unsloth.detect(view(lines, 0))
    p = unsloth.read(lines[:n])
    return n, {f.field: f.value for f in p.facts}


@pytest.mark.parametrize("lines,gpu,torch,cuda", [
    (_NEW[1:], (0, "NVIDIA GeForce GTX 1070", "6.1", None), "2.5.1+cu124", "12.4"),
    (_OLD, (0, "Tesla T4", "7.5", None), "2.2.1+cu121", "12.1"),
])
def test_the_banner_gives_gpu_capability_torch_and_its_cuda(lines, gpu, torch, cuda):
    n, got = _read(lines)
    assert n == 2 and got["gpu"] == gpu and got["torch.version"] == torch and got["torch.cuda"] == cuda


def test_a_rocm_banner_gives_no_nvidia_gpu():
    n, got = _read(_ROCM)
    assert n == 2 and got["torch.version"] == "2.7.0+rocm6.3"
    assert "gpu" not in got and "torch.cuda" not in got


def test_the_gpu_line_alone_gives_no_gpu():
    # without the Torch line the capability is unknown and the name may be another vendor's: not read as a GPU
    n, got = _read(_NEW[1:2])
    assert n == 1 and "gpu" not in got


@pytest.mark.parametrize("line", ["Max memory: 7.9 GB", "GPU memory: 7.909 GB. Platform: Linux.", "Platform: Linux."])
def test_other_lines_are_not_the_banner(line):
    assert unsloth.detect(view([line], 0)) == 0


def test_the_banner_in_a_paste_gives_the_facts():
    facts = _doc("\n".join(_NEW) + "\n")["facts"]
    assert facts["gpus"][0]["name"] == "NVIDIA GeForce GTX 1070"
    assert facts["gpus"][0]["compute_capability"] == "6.1"
    assert facts["frameworks"]["torch"]["cuda"] == "12.4"


# --- the knowledge base -------------------------------------------------------------------------------------------------
def test_unsloths_own_floor_is_gpu_arch_unsupported():
    assert _ids("NotImplementedError: Unsloth: Your GPU is too old!")[:1] == ["gpu-arch-unsupported"]
    # the float8 KV cache floor is a feature's, not the GPU's
    assert "gpu-arch-unsupported" not in _ids(
        "NotImplementedError: Unsloth: Your GPU is too old for float8 KV cache! Set it to False.")


def test_torchs_triton_message_names_the_gpu_and_its_capability():
    text = ("GPUTooOldForTriton: Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU "
            "compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your "
            "device is of CUDA capability 6.0\n")
    doc = _doc(text)
    assert [m["id"] for m in doc["matches"]][:1] == ["gpu-arch-unsupported"]
    assert (doc["facts"]["gpus"][0]["name"], doc["facts"]["gpus"][0]["compute_capability"]) == (
        "Tesla P100-PCIE-16GB", "6.0")


@pytest.mark.parametrize("line", [
    "run.py: error: argument --execution-providers: invalid choice: 'cuda' (choose from 'cpu')",
    "run.py: error: argument --execution-provider: invalid choice: 'cuda' (choose from 'azure', 'cpu')",
    "run.py: error: argument --execution-providers: invalid choice: 'cuda' (choose from azure, cpu)",  # Python 3.12.7+
])
def test_execution_provider_choices_without_cuda_are_the_cpu_onnxruntime(line):
    assert _ids(line)[:1] == ["framework-cpu-only"]


@pytest.mark.parametrize("line", [
    # a CUDA provider is there: 'cuda' was not refused for its absence (and argparse would not refuse it)
    "run.py: error: argument --execution-providers: invalid choice: 'cude' (choose from 'cpu', 'cuda')",
    # DirectML's package: no CUDA either, but not a CPU-only build
    "run.py: error: argument --execution-providers: invalid choice: 'cuda' (choose from 'cpu', 'dml')",
])
def test_other_execution_provider_refusals_are_not_cpu_only(line):
    assert "framework-cpu-only" not in _ids(line)


@pytest.mark.parametrize("title", [
    "USING AMD rx 5500m and it requires NVIDIA driver any fix",  # lllyasviel/Fooocus#285
    "Looking for NVIDIA drivers on an AMD GPU",  # Comfy-Org/ComfyUI#2058's title
])
def test_an_amd_gpu_said_to_want_an_nvidia_driver(title):
    assert _ids(title)[:1] == ["framework-vendor-mismatch"]


@pytest.mark.parametrize("text", [
    "I moved from AMD to this box; it requires NVIDIA driver 525 or newer",  # a driver floor
    "It requires NVIDIA driver any fix",  # no AMD GPU named
])
def test_no_vendor_mismatch_without_an_amd_gpu_or_with_a_driver_floor(text):
    assert "framework-vendor-mismatch" not in _ids(text)


_NO_DRIVER = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA driver.\n"


def test_found_no_driver_where_the_reporter_has_no_nvidia_gpu_is_another_vendors_machine():
    doc = _doc("This is correct since I don't have NVIDIA GPU.\n" + _NO_DRIVER)
    top = doc["matches"][0]
    assert top["id"] == "framework-vendor-mismatch"
    assert "no NVIDIA GPU" in " ".join(top.get("fixes") or [])


@pytest.mark.parametrize("said", [
    "",  # nothing said: the driver is what is missing
    "No NVIDIA GPU detected.\n",  # a program's own words: a missing driver says it too
    "I don't have NVIDIA GPU drivers updated, my NVIDIA GeForce RTX 3060 is fine.\n",  # an NVIDIA GPU named
])
def test_found_no_driver_stays_no_gpu_driver_otherwise(said):
    assert _ids(said + _NO_DRIVER)[:1] == ["no-gpu-driver"]


@pytest.mark.parametrize("text", [
    "\n".join(_NEW) + "\nNotImplementedError: Unsloth: Your GPU is too old!\n",
    ("GPUTooOldForTriton: Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU compiler, "
     "which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA "
     "capability 6.0\n"),
])
def test_a_generation_floor_gets_no_torch_wheel_advice(text):
    # Triton's and unsloth's floor is capability 7.0: a torch wheel that holds sm_61 / sm_60 changes nothing
    top = _doc(text)["matches"][0]
    assert top["id"] == "gpu-arch-unsupported"
    assert not any("includes compute capability" in f for f in top.get("fixes") or []), top.get("fixes")


def test_a_traceback_source_line_names_no_gpu():
    # torch/_dynamo's source line in a traceback, then the message itself (logs20p/ml-cross-entropy-41)
    text = ("    f\"Found {device_props.name} which is too old to be supported by the triton GPU compiler, \"\n"
            "GPUTooOldForTriton: Found NVIDIA GeForce GTX 1070 which is too old to be supported by the triton GPU "
            "compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your "
            "device is of CUDA capability 6.1\n")
    names = [g["name"] for g in _doc(text)["facts"].get("gpus") or []]
    assert names == ["NVIDIA GeForce GTX 1070"]


def test_the_cpu_onnxruntime_gets_its_own_fix():
    fixes = _doc("run.py: error: argument --execution-providers: invalid choice: 'cuda' (choose from 'cpu')\n")[
        "matches"][0].get("fixes") or []
    assert any("onnxruntime-gpu" in f for f in fixes)
