"""Session 20's lead fixes, made after reading the misses of heldout/acceptance21 (spent from then on): the lines
are the real texts of those threads (heldout/acceptance21's READMEs cite each), with controls written beside them."""

from __future__ import annotations

import os
import sys

import pytest

from envcheck.explain import explain_text
from envcheck.parse.nvidia_smi import parse_smi

sys.path.insert(0, os.path.dirname(__file__))
from helpers import COVER_BOUND  # noqa: E402


def _ids(text):
    return [m.id for m in explain_text(text)]


# -- nvidia-smi forms -------------------------------------------------------------------------------------------------

# a Kubernetes note's table cut by hand to its banner and one boxed line per GPU (find_string id 56174864355)
TWO_LINE = """```
nvidia-smi
| NVIDIA-SMI 580.126.09    CUDA Version: 13.0      |
|   0  NVIDIA L40S    0MiB / 46068MiB    0%        |
```
"""

# a guide's expected output with placeholder versions (find_string id 8865112410)
PLACEHOLDER = """```
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.xx.xx              Driver Version: 580.xx.xx      CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA H100 80GB HBM3          Off |   00000000:00:09.0 Off |                    0 |
| N/A   29C    P0             68W /  700W |       0MiB /  81559MiB |      0%      Default |
|                                         |                        |             Disabled |
+-----------------------------------------+------------------------+----------------------+
```
"""


def test_a_table_cut_to_boxed_one_line_rows_lists_its_gpus():
    t = parse_smi(TWO_LINE)
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "NVIDIA L40S", 46068)]
    assert t.cuda_version == "13.0" and t.driver_version is None and t.state == "ok"
    assert t.gpus_complete is False  # a hand-cut table says nothing of the rows it left out


def test_two_boxed_rows_in_order_and_no_row_without_a_gpu_name():
    text = TWO_LINE.replace("|   0  NVIDIA L40S    0MiB / 46068MiB    0%        |",
                            "|   0  NVIDIA L40S    0MiB / 46068MiB    0%        |\n"
                            "|   1  NVIDIA L40S    12MiB / 46068MiB   3%        |")
    assert [g.index for g in parse_smi(text).gpus] == [0, 1]
    # a row of another tool's box (no GPU model name) is no GPU
    other = "| NVIDIA-SMI 580.126.09    CUDA Version: 13.0      |\n|   0  worker-a    0MiB / 46068MiB    0%   |\n"
    assert parse_smi(other).gpus == []


def test_placeholder_versions_are_a_banner_with_unknown_versions():
    t = parse_smi(PLACEHOLDER)
    assert t.driver_version is None and t.cuda_version == "13.0"
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "NVIDIA H100 80GB HBM3", 81559)]
    assert t.gpus_complete is True and t.state == "ok"
    # without any banner the same rows stay an excerpt (not known complete)
    rows = "\n".join(ln for ln in PLACEHOLDER.splitlines() if "NVIDIA-SMI" not in ln)
    assert parse_smi(rows).gpus_complete is False


# -- explain ----------------------------------------------------------------------------------------------------------

def test_an_import_error_title_with_a_torch_symbol_is_an_extension_built_for_another_torch():
    # xingyizhou/CenterNet#271 (DCNv2's _ext)
    assert _ids("# Import error _ext, undefined symbol: _ZN3c1019UndefinedTensorImpl10_singletonE\n")[:1] == [
        "extension-abi-mismatch"]
    # a symbol of no torch namespace says nothing here
    assert "extension-abi-mismatch" not in _ids("# Import error _ext, undefined symbol: png_create_read_struct\n")


@pytest.mark.parametrize("text", [
    # tensorflow/tfjs-to-tf#33 (zsh's wording)
    "I'm on a Macbook pro M1 and python 3.8.8\n$ tensorflowjs_converter --input_format tf_hub x y\n"
    "zsh: illegal hardware instruction  tensorflowjs_converter --input_format tf_hub x y\n",
    # tensorflow/tensorflow#62860 (a title) and its Python line
    '# tensorflow 2.15 "Illegal instruction: 4" Mac M1 processor\n\n### Python version\n\n3.11.7\n',
    # tensorflow/tensorflow#58339: a package named macOS before the chip
    "# PyPI tensorflow-macos wheels 2.9.[012] and 2.10.0 don't work on Apple silicon + Rosetta\n"
    "2. successfully run `python -c \"import tensorflow as tf\"` without getting SIGKILL (Illegal instruction) error\n",
])
def test_an_illegal_instruction_of_python_on_apple_silicon_is_an_x86_python(text):
    assert _ids(text)[:1] == ["python-arch-mismatch"]


@pytest.mark.parametrize("text", [
    # no Mac: a Linux box or a Jetson (numpy 1.19.5's OpenBLAS), another cause
    "Illegal instruction (core dumped)\n",
    "Jetson Nano, JetPack 4.6, python3 -c 'import numpy'\nIllegal instruction (core dumped)\n",
    # an Intel Mac without AVX (no Apple silicon chip named)
    "On my iMac (2010) with macOS 10.13 and python 3.6: import tensorflow\nIllegal instruction: 4\n",
    # an x86_64 binary of another program on an M1 Max, no Python (m1guelpf/whisper-cli-rs#12)
    "I downloaded the binary on Mac M1 Max, even if says x86_64 seems to be able to be run.\n"
    "[1]    28367 illegal hardware instruction  whisper --model tiny.en sample.wav\n",
    # the words in another sense
    "ValueError: illegal instruction set 'foo' for this target\n",
])
def test_an_illegal_instruction_elsewhere_names_no_python_arch_cause(text):
    assert "python-arch-mismatch" not in _ids(text)


@pytest.mark.parametrize("text,hit", [
    ("# Stable_diffusion_unet out of memory on XPU\n\nTraceback (most recent call last):\n", True),  # torch-xpu-ops#505
    ("# CUDA out of memory when training with batch size 64\n", True),
    ("# [Bug]: OOM on RTX 3090\n", True),
    ("# How to avoid out of memory?\n", False),
    ("# Reduce memory usage to not run out of memory\n", False),
    ("# Feature request: document out-of-memory behaviour of the loader for large files\n", False),
    ("Stable_diffusion_unet out of memory on XPU\n", False),  # not a title: the sentence rules decide, not this one
])
def test_a_title_naming_out_of_memory(text, hit):
    assert ("gpu-out-of-memory" in _ids(text)) is hit


def test_level_zeros_empty_trace_beside_an_nvidia_gpu_names_no_missing_runtime():
    # oneapi-src/level-zero#201: sycl-ls on a GTX 1050 Ti (the CUDA backend), a healthy machine (vend32's rule fired)
    text = ("$ sycl-ls\nZE_LOADER_DEBUG_TRACE:Using Loader Library Path: \nZE_LOADER_DEBUG_TRACE:0 Drivers Discovered\n"
            "[cuda:gpu][cuda:0] NVIDIA CUDA BACKEND, NVIDIA GeForce GTX 1050 Ti 6.1 [CUDA 12.6]\n")
    assert _ids(text) == []
    # without the NVIDIA GPU the trace still says the Intel GPU's Level Zero driver is missing (intel/compute-runtime#806)
    assert _ids("\n".join(text.splitlines()[:3]) + "\n")[:1] == ["xpu-level-zero-missing"]


def test_the_cover_stays_in_its_bound():
    from envcheck.explain.kb import load_kb

    assert len(load_kb().cover) <= COVER_BOUND


# -- after the look at acceptance22 ------------------------------------------------------------------------------------

# a batch system's log (Metaflow) with its prefix on every line (find_string id in heldout/acceptance22/captures/README)
PREFIXED_CSV = """2021-03-12 05:02:21.931 [129/start/1341 (pid 5161)] [931bbcf6-5fa2-4661-83df-1d82d52b6226] __Devices
2021-03-12 05:02:21.931 [129/start/1341 (pid 5161)] [931bbcf6-5fa2-4661-83df-1d82d52b6226] index, name, driver_version, memory.total [MiB], memory.used [MiB], memory.free [MiB]
2021-03-12 05:02:21.932 [129/start/1341 (pid 5161)] [931bbcf6-5fa2-4661-83df-1d82d52b6226] 0, Tesla V100-SXM2-16GB, 450.51.06, 16160 MiB, 2 MiB, 16158 MiB
2021-03-12 05:02:21.932 [129/start/1341 (pid 5161)] [931bbcf6-5fa2-4661-83df-1d82d52b6226] Active CUDA Device: GPU 0
"""

# a guide's expected output, header and row cut with ", ..."
ELIDED_CSV = """GPU Details:
----------------------------------------
index, name, driver_version, memory.total [MiB], memory.used [MiB], ...
0, NVIDIA GeForce RTX 3090 Ti, 535.129.03, 24564, 1024, ...
----------------------------------------
"""


@pytest.mark.parametrize("text,name,driver,mem", [
    (PREFIXED_CSV, "Tesla V100-SXM2-16GB", "450.51.06", 16160),
    (ELIDED_CSV, "NVIDIA GeForce RTX 3090 Ti", "535.129.03", 24564),
])
def test_query_csv_behind_a_prefix_or_cut_with_an_ellipsis(text, name, driver, mem):
    t = parse_smi(text)
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, name, mem)]
    assert t.driver_version == driver and t.state == "ok"


def test_a_prefix_that_changes_shape_ends_the_rows():
    # a line of another writer (no prefix of the header's shape) is not read as a row
    text = PREFIXED_CSV.replace("2021-03-12 05:02:21.932 [129/start/1341 (pid 5161)] [931bbcf6-5fa2-4661-83df-1d82d52b6226] 0,",
                                "WARN other-task: 0,")
    assert parse_smi(text).gpus == []


def test_gpus_all_as_what_fixed_it_explains_found_no_nvidia_driver():
    # kcosta42/VQGAN-CLIP-Docker#1
    text = ("Running `make generate` gives:\n```\nCreating vqgan-clip-docker_generate_run ... done\n"
            "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
            "a driver from http://www.nvidia.com/Download/index.aspx\n```\n"
            "I solved it by manually creating the docker run command based on the compose file, and adding `--gpus all`:\n")
    import tempfile

    from helpers import explain_cli_matches  # the CLI's paste pipeline weighs what the thread says fixed it

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("# RuntimeError: Found no NVIDIA driver on your system.\n\n" + text)
    try:
        ids = [m["id"] for m in explain_cli_matches("--no-detect", fh.name)]
    finally:
        os.unlink(fh.name)
    assert ids[:1] == ["no-gpu-visible"]


@pytest.mark.parametrize("text,cause", [
    ("cublas64_100.dll, cusparse64_100.dll and a few others are missing from torch-1.3.0-cp37-cp37m-win_amd64.whl\n",
     "cuda-runtime-missing"),  # pytorch/pytorch#29356
    ("For some cases like Radeon RX 6700S with gfx1032, PyTorch is apparently not compiled for that GFX version.\n",
     "gpu-arch-unsupported"),  # comfyanonymous/ComfyUI#1142
])
def test_sentences_read_after_acceptance22(text, cause):
    assert _ids(text)[:1] == [cause]


@pytest.mark.parametrize("text", [
    "cublas64_100.dll, cusparse64_100.dll and a few others are present\n",
    "gfx1100 works, PyTorch 2.3 was built for gfx1100 and it runs fine\n",
    "my gfx1030 card: the model is not compiled for that gpu yet? no, it's an ONNX question\n",
])
def test_their_controls(text):
    assert _ids(text) == []
