"""Bug-report pastes collected for issue 20, second round (pastes20l): a ``+cpu`` torch beside an Ultralytics / YOLOv5
device index (``device=0``, ``--device 0``: select_device reads a bare index as a CUDA device), and XLA's cuDNN check in a
program that imports a second framework (framework-conflict, contract §3), never outranked by XLA's ptxas notice.

Real samples: tests/data/pastes/pastes20l/ (README.md cites each thread and gives its label). heldout/pastes20l/ is
scored by scripts/score_pastes.py, not here. The other lines below are real (each cited); expectations are written
from the threads and the emitting programs' sources, not from this code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from helpers import readme_rows

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "pastes20l"
ROWS = {r[0]: (r[1], r[3]) for r in readme_rows(DATA, source=r"https://github\.com/\S+")}
#: the README marks what the rules do not read yet (prose-only intent): asserted as "nothing false", not as the label
KNOWN_MISS = {name for name, (_, note) in ROWS.items() if note.startswith("KNOWN MISS")}


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def test_the_set_is_whole():
    assert len(ROWS) == 10
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))


@pytest.mark.parametrize("name", sorted(set(ROWS) - KNOWN_MISS))
def test_top_cause_is_the_label(name):
    ids = _ids((DATA / name).read_text(encoding="utf-8"))
    assert (ids[0] if ids else "none") == ROWS[name][0]


@pytest.mark.parametrize("name", sorted(KNOWN_MISS))
def test_a_known_miss_says_nothing_false(name):
    ids = _ids((DATA / name).read_text(encoding="utf-8"))
    assert ids in ([], [ROWS[name][0]]) or ids[0] == ROWS[name][0]


# jax-ml/jax#19004 (OmerRochman): the same two frameworks, the failure and XLA's ptxas notice
_JAX_TORCH = ["    import jax.numpy as jnp", "    import torch",
              "will fail with `CUDA backend failed to initialize: Found cuDNN version 8500, but JAX was built against "
              "version 8600, which is newer. The copy of cuDNN that is installed must be at least as new as the version "
              "against which JAX was built. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)`"]
_PTXAS = ("will work with only a mildly annoying warning `The NVIDIA driver's CUDA version is 11.7 which is older than "
          "the ptxas CUDA version (11.8.89). Because the driver is older than the ptxas version, XLA is disabling parallel "
          "compilation, which may slow down compilation.`")
# XLA's own wording (xla/stream_executor/cuda/cuda_dnn.cc), as conda-forge/jaxlib-feedstock#329 printed it
_XLA = ("E1027 15:11:27.184481 3266602 cuda_dnn.cc:456] Loaded runtime CuDNN library: 9.10.1 but source was compiled "
        "with: 9.13.1.  CuDNN library needs to have matching major version and equal or higher minor version.")


def test_two_frameworks_imported_make_the_cudnn_check_a_framework_conflict():
    assert _ids("\n".join(_JAX_TORCH))[0] == "framework-conflict"


def test_the_ptxas_notice_does_not_outrank_the_conflict():
    ids = _ids("\n".join(_JAX_TORCH + [_PTXAS]))
    assert ids[0] == "framework-conflict"
    assert "cudnn-version-mismatch" not in ids  # the same line, not a second cause


def test_xlas_loaded_runtime_wording_with_torch_imported_too():
    assert _ids('python -c "import torch; import jax; jax.numpy.sin(3)"\n' + _XLA)[0] == "framework-conflict"


def test_one_framework_stays_a_cudnn_version_mismatch():
    # conda-forge/jaxlib-feedstock#329: only jax in the process (its conda cuDNN older than the build's)
    assert _ids('% JAX_TRACEBACK_FILTERING=off python -c "import jax; jax.numpy.sin(3)"\n' + _XLA)[0] == \
        "cudnn-version-mismatch"
    assert _ids(_JAX_TORCH[0] + "\n" + _JAX_TORCH[2])[0] == "cudnn-version-mismatch"


def test_prose_naming_a_framework_is_no_import():
    # jax-ml/jax#18032's own prose: "Import torch before checking jax.devices:" is a sentence, not a statement
    text = "Import torch before checking jax.devices:\nwhen torch is loaded first, import torch is slow\n" + _JAX_TORCH[2]
    assert _ids(text)[0] == "cudnn-version-mismatch"


def test_a_second_framework_does_not_relabel_other_cudnn_causes():
    # a torch cuDNN mismatch (pytorch's own check) in a program that also imports jax is not XLA's check
    text = ("import torch\nimport jax\nRuntimeError: cuDNN version incompatibility: PyTorch was compiled  against "
            "(8, 9, 2) but found runtime version (8, 5, 0).")
    ids = _ids(text)
    assert ids and ids[0] == "cudnn-version-mismatch"


# ultralytics/ultralytics#227 and mikel-brostrom/boxmot#836: the device index asks for CUDA device 0
_BOXMOT = ["This is my CLI command: python track.py --yolo-weights yolov8x.pt --source 0 --device 0",
           "Ultralytics YOLOv8.0.88  Python-3.9.16 torch-2.0.0+cpu"]


def test_a_device_index_beside_a_cpu_build_is_framework_cpu_only():
    assert _ids("\n".join(_BOXMOT))[0] == "framework-cpu-only"


@pytest.mark.parametrize("device", ["device=None", "device=cpu", "--device cpu", "device='mps'"])
def test_no_index_is_no_intent(device):
    # the Ultralytics line is an openvinotoolkit notebook's (a CPU machine exporting with a +cpu torch: healthy); the
    # command line before it is written for this test, with each device value Ultralytics accepts that is not a CUDA index
    text = f"yolo export model=yolo11n-pose.pt format=openvino {device}\n" \
           "Ultralytics 8.3.0 🚀 Python-3.8.10 torch-2.4.1+cpu CPU (Intel Core(TM) i9-10920X 3.50GHz)"
    assert _ids(text) == []


def test_a_device_index_beside_a_cuda_build_says_nothing():
    # SunOner/sunone_aimbot#36's yolo checks line (a cu121 build on the GPU); the command line is written for this test
    text = "yolo predict device=0\nUltralytics YOLOv8.0.221 🚀 Python-3.11.6 torch-2.1.1+cu121 CUDA:0 " \
           "(NVIDIA GeForce GTX 1650 SUPER, 4096MiB)"
    assert _ids(text) == []


# the free-form version list on one line (ultralytics/ultralytics#227's items, as its title-less comment types them)
@pytest.mark.parametrize("line,python,torch", [
    ("CUDA 11.6, Python 3.8.15, pytorch 1.13.1+cpu", "3.8.15", "1.13.1+cpu"),
    ("Python 3.8; torch 2.1.0+cu121", "3.8", "2.1.0+cu121"),
    ("Ubuntu 20.04, CUDA 11.3, PyTorch 1.10", None, "1.10"),
])
def test_a_version_list_on_one_line_is_read(line, python, torch):
    facts = explain_text_document(line)["facts"]
    assert (facts.get("python") or {}).get("version") == python
    assert ((facts.get("frameworks") or {}).get("torch") or {}).get("version") == torch


@pytest.mark.parametrize("line", ["I tried torch 2.1, 2.3", "torch 2.1, and it fails", "with CUDA 11.6, Python 3.8 works"])
def test_a_list_with_prose_in_it_is_not_read(line):
    facts = explain_text_document(line)["facts"]
    assert not ((facts.get("frameworks") or {}).get("torch") or {}).get("version")
    assert not (facts.get("python") or {}).get("version")


def test_the_cpu_build_in_a_version_list_with_the_gpu_asked_for():
    # ultralytics/ultralytics#227: the items on one line, beside the device index the reporter passed
    assert _ids("error: unrecognized arguments: --device 0\nCUDA 11.6, Python 3.8.15, pytorch 1.13.1+cpu")[0] == \
        "framework-cpu-only"
    # without the +cpu label the build is not established: nothing is said about it
    assert "framework-cpu-only" not in _ids("error: unrecognized arguments: --device 0\nCUDA 11.6, Python 3.8.15, pytorch 1.13.1")


# A "GPU Preflight Report" in a public repository (code index id 67610509833): `yolo checks` on Windows and nvidia-smi's
# query CSV, as it printed them (the checks block trimmed to its system part and torch's lines)
_YOLO_CHECKS = """### yolo_checks

- Command: `yolo checks`

```text
Ultralytics 8.4.48  Python-3.12.4 torch-2.4.1+cpu CPU (AMD Ryzen 7 5800H with Radeon Graphics)
Setup complete  (16 CPUs, 15.9 GB RAM, 312.5/476.9 GB disk)

OS                     Windows-11-10.0.26200-SP0
Environment            Windows
Python                 3.12.4
Install                pip
CPU                    AMD Ryzen 7 5800H with Radeon Graphics
CPU count              16
GPU                    None
GPU count              None
CUDA                   None

torch                   2.4.1>=1.8.0
torchvision             0.19.1>=0.9.0
```
"""
_SMI_CSV = """### nvidia_smi

- Command: `nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader`

```text
NVIDIA GeForce RTX 3060 Laptop GPU, 560.81, 6144 MiB
```
"""


def test_yolo_checks_cpu_build_beside_the_machines_nvidia_gpu():
    doc = explain_text_document(_YOLO_CHECKS + _SMI_CSV)
    assert [m["id"] for m in doc["matches"]][:1] == ["framework-cpu-only"]
    assert doc["facts"]["python"]["version"] == "3.12.4"
    assert doc["facts"]["frameworks"]["torch"]["version"] == "2.4.1+cpu"


def test_yolo_checks_cuda_none_alone_is_no_cpu_build():
    # Ultralytics' collect_system_info prints "CUDA  None" when torch.cuda.is_available() is False (the value is
    # `torch.version.cuda if cuda else None`), so with a torch version that carries no build label the build stays
    # unknown, even with a GPU asked for: nothing is said about it
    text = "yolo predict device=0\n" + _YOLO_CHECKS.replace("torch-2.4.1+cpu", "torch-2.4.1")
    assert "framework-cpu-only" not in _ids(text)


def test_yolo_checks_cpu_build_with_no_gpu_wanted_is_silent():
    assert _ids(_YOLO_CHECKS) == []
