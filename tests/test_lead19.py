"""Session 19's lead changes, each from a real H200 run (heldout/realgpu20, tests/data/real/h200-580.159.04-broken-states).

- nvcc 13.0's own words for an architecture it dropped, ``nvcc fatal : Unsupported gpu architecture 'sm_35'`` (the
  ``sm_`` spelling; the rule read only ``compute_XX``), made for real on the H200 by ``nvcc -arch=sm_35``: now
  ``cuda-toolkit-mismatch``, and the fix says from the matrix's toolkit targets which toolkits build it (Kepler sm_35
  was last built by CUDA 11.8: CUDA 12.0's release notes drop it), or that a newer one is needed (compute_120 first in
  CUDA 12.8, Blackwell's first toolkit)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REAL = Path(__file__).parent.parent / "heldout" / "realgpu20" / "logs"


def _explain(text: str, *args: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", *args, "-"], input=text,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def test_the_real_nvcc_13_refusal_of_sm_35_is_read():
    text = (REAL / "nvcc-13.0-arch-sm35-unsupported-gpu-architecture.log").read_text()
    doc = _explain(text, "--no-detect")
    assert [m["id"] for m in doc["matches"]][:1] == ["cuda-toolkit-mismatch"]


@pytest.mark.parametrize("arch,says", [
    ("sm_35", "CUDA 11.8 or older"),       # Kepler: dropped by CUDA 12.0
    ("compute_30", "CUDA 10.2 or older"),  # dropped by CUDA 11.0
    ("compute_120", "CUDA 12.8+"),         # Blackwell consumer: first in CUDA 12.8
    ("sm_90", "CUDA 11.8+"),               # Hopper: first in CUDA 11.8
])
def test_the_fix_says_which_toolkits_build_the_architecture(arch, says):
    doc = _explain(f"nvcc fatal   : Unsupported gpu architecture '{arch}'\n")
    m = doc["matches"][0]
    assert m["id"] == "cuda-toolkit-mismatch"
    assert says in m["fixes"][0], m["fixes"][0]


def test_an_architecture_no_toolkit_builds_is_said_so():
    doc = _explain("nvcc fatal   : Unsupported gpu architecture 'sm_99'\n")
    m = doc["matches"][0]
    assert m["id"] == "cuda-toolkit-mismatch" and "No CUDA toolkit envcheck's matrix lists builds sm_99" in m["fixes"][0]


def _fix_texts(doc: dict) -> str:
    return "\n".join(doc["matches"][0]["fixes"])


def test_a_torch_out_of_memory_gets_torch_fixes_not_tensorflow_or_jax_ones():
    """`envcheck run` on the real H200's torch OOM listed TensorFlow's memory growth and JAX's preallocation first."""
    text = (REAL / "torch-2.11-cu130-h200-empty-300gib-out-of-memory.log").read_text()
    doc = _explain(text, "--no-detect")
    assert doc["matches"][0]["id"] == "gpu-out-of-memory"
    fixes = _fix_texts(doc)
    assert "expandable_segments:True" in fixes
    assert "set_memory_growth" not in fixes and "XLA_PYTHON_CLIENT_PREALLOCATE" not in fixes
    assert not any("XLA_PYTHON_CLIENT_PREALLOCATE" in d for d in doc["matches"][0]["dead_ends"])


def test_a_tensorflow_out_of_memory_keeps_its_own_fix_and_gets_no_torch_one():
    text = ("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with "
            "shape[256,256,3,3] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n")
    doc = _explain(text, "--no-detect")
    assert doc["matches"][0]["id"] == "gpu-out-of-memory"
    fixes = _fix_texts(doc)
    assert "set_memory_growth" in fixes and "expandable_segments" not in fixes


def test_smoke_names_cuda_visible_devices_when_no_gpu_is_seen():
    """On the H200 with CUDA_VISIBLE_DEVICES='' smoke said only "torch.cuda.is_available() is False"."""
    pytest.importorskip("torch")
    import os

    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    r = subprocess.run([sys.executable, "-m", "envcheck", "smoke", "--framework", "torch", "--device", "cuda",
                        "--color", "never"], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 1
    assert "CUDA_VISIBLE_DEVICES='' is set for this process" in r.stdout


def test_a_cuda_runtime_missing_inside_a_torch_extension_is_the_extension_built_for_another_torch():
    text = (REAL / "torchaudio-2.5.1-cu124-on-torch-2.11-cu130-libcudart-so-12-could-not-load-library.log").read_text()
    doc = _explain(text, "--no-detect")
    assert doc["matches"][0]["id"] == "extension-abi-mismatch"


def test_the_extension_line_alone_or_the_runtime_alone_keep_their_readings():
    alone = "OSError: Could not load this library: /opt/venv/lib/python3.10/site-packages/torch/build/lib/libtorchbind_test.so\n"
    assert _explain(alone, "--no-detect")["matches"] == []
    runtime = ("Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n    import torch\n"
               "OSError: libcudart.so.12: cannot open shared object file: No such file or directory\n")
    assert _explain(runtime, "--no-detect")["matches"][0]["id"] == "cuda-runtime-missing"


def test_a_table_behind_a_log_collectors_timestamps_is_read():
    """`az containerapp exec ... nvidia-smi` (heldout/acceptance20): every line behind an ISO timestamp, the first one's
    digits cut off where the copy began."""
    from envcheck.parse.nvidia_smi import parse_smi

    stamp = "2024-06-25T18:45:27.09544{}Z "
    rows = [
        "+-----------------------------------------------------------------------------------------+",
        "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.5     |",
        "|-----------------------------------------+------------------------+----------------------+",
        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
        "|                                         |                        |               MIG M. |",
        "|=========================================+========================+======================|",
        "|   0  NVIDIA A100 80GB PCIe          On  |   00000001:00:00.0 Off |                    0 |",
        "| N/A   29C    P0             40W /  300W |       0MiB /  81920MiB |      0%      Default |",
        "|                                         |                        |             Disabled |",
        "+-----------------------------------------+------------------------+----------------------+",
    ]
    text = "\n".join(stamp.format(i) + r for i, r in enumerate(rows))[1:]  # the first digit cut off
    t = parse_smi(text)
    assert t.driver_version == "550.54.15" and t.cuda_version == "12.5"
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "NVIDIA A100 80GB PCIe", 81920)]
    # a timestamp before a line that is no table line is left alone
    assert parse_smi("2024-06-25T18:45:27Z starting job 17\n").gpus == []


def test_no_devices_quoted_after_a_sentence_naming_nvidia_smi():
    from envcheck.parse.nvidia_smi import parse_smi

    t = parse_smi("- CPU-only jobs (`srun` without GRES) run, but `nvidia-smi` in those jobs is `No devices were found`\n")
    assert t.state == "no-devices" and t.gpus == []
    # the words without nvidia-smi named before them, or not quoted, are no nvidia-smi answer
    assert parse_smi("the scanner said `No devices were found` again\n").state != "no-devices"
    assert parse_smi("nvidia-smi works, but lsusb: No devices were found earlier\n").state != "no-devices"


@pytest.mark.parametrize("line,cause", [
    ("# 安装好llama之后包错，由于找不到amdhip64.dll", "rocm-runtime-missing"),      # Sakura_Launcher_GUI#51's title
    ("由于找不到 cudart64_110.dll，无法继续执行代码。重新安装程序可能会解决此问题。", "cuda-runtime-missing"),
    ("由于找不到 VCRUNTIME140_1.dll，无法继续执行代码。", None),  # not the GPU stack's: routed by the DLL, says nothing
])
def test_windows_chinese_dialog_of_a_missing_dll_is_routed_by_the_dll(line, cause):
    got = [m["id"] for m in _explain(line + "\n", "--no-detect")["matches"]]
    assert (got[:1] == [cause]) if cause else got == []


@pytest.mark.parametrize("line", [
    "ERROR: Package 'torch' requires a different Python: 3.6.9 not in '>=3.8.0'",  # pip 10+ (the literal missed it)
    "Pillow requires Python '>=3.7' but the running Python is 3.6.9",             # pip 9 (jetson-containers#245)
    "Requires Python '>=3.8' but the running Python is 3.7.5",
])
def test_pips_requires_python_refusals_are_python_unsupported(line):
    assert [m["id"] for m in _explain(line + "\n", "--no-detect")["matches"]][:1] == ["python-unsupported"]


@pytest.mark.parametrize("text", [
    "The conflict is caused by:\n    The user requested nvidia-cudnn-cu12==9.1.0.70\n    The user requested nvidia-cudnn-cu12==8.9.2.26\n",
    ("The conflict is caused by:\n    jax[cuda11-pip] 0.4.14 depends on nvidia-cuda-runtime-cu11>=11.8; extra == \"cuda11_pip\"\n"
     "    torch 2.0.1 depends on nvidia-cuda-runtime-cu11==11.7.99; platform_system == \"Linux\"\n"),  # EasyLM#92
])
def test_pips_resolver_conflict_over_an_nvidia_wheel_is_framework_conflict(text):
    assert [m["id"] for m in _explain(text, "--no-detect")["matches"]][:1] == ["framework-conflict"]


def test_a_resolver_conflict_without_an_nvidia_wheel_says_nothing_of_one():
    text = ("The conflict is caused by:\n    The user requested torch==2.5.1\n"
            "    chatterbox-tts 0.1.2 depends on torch==2.6.0\n")
    assert not any(m["id"] == "framework-conflict" for m in _explain(text, "--no-detect")["matches"])


@pytest.mark.parametrize("line", [
    "[   10.539353] xe 0000:03:00.0: [drm] *ERROR* GT1: load failed: status = 0x80007134, time = 8ms, freq = 1500MHz "
    "(req 1500MHz), done = -1",                                           # xe (a B580: acceptance20's look)
    "i915 0000:00:02.0: [drm] GT0: GUC: load failed: status = 0x400000A0, time = 110ms, freq = 1300MHz, ret = -110",
])
def test_intel_guc_firmware_load_failed_is_gpu_not_initialized(line):
    assert [m["id"] for m in _explain(line + "\n", "--no-detect")["matches"]][:1] == ["gpu-not-initialized"]
