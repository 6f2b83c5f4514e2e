"""Bug-report pastes collected for issue 20, third round (pastes20m): what a report's framework line proves and what it
does not, and the report forms that carried facts nobody read.

* Ultralytics' banner (``torch-2.0.1+cu118 CPU``) and Ultralytics' ``select_device`` error say which device was *used*;
  the build is what the version's label says. A generic "no GPU" line is no CPU-only build where the report shows a
  CUDA build (``Invalid CUDA 'device=0' requested`` is raised whenever ``torch.cuda.is_available()`` is False).
* PyPI's Windows torch wheel is the CPU-only build: pip fetching ``torch-X-cp3y-cp3y-win_amd64.whl`` (no ``%2Bcu``
  label) shows it; where the text does not show how torch was installed it is said as likely, never as certain.
* transformers / diffusers / accelerate env blocks: "Using GPU in script?" filled with a yes is the GPU wanted;
  transformers >= 4.48's "PyTorch version (accelerator?)".
* OpenMMLab's collect_env printed as the dict it returns; a driver given as a distribution's package version; the
  TensorFlow template's CUDA/cuDNN field written as a pair or with NVIDIA's four-part cuDNN version.

Real samples: tests/data/pastes/pastes20m/ (README.md cites each thread and gives its label). heldout/pastes20m/ is
scored by scripts/score_pastes.py, not here. The other lines below are real (each cited) or the emitting program's own
wording (its source cited); expectations are written from the threads and the sources, not from this code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from tests.helpers import check_hand_written_facts, paste_readme_rows

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "pastes20m"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}


def _doc(text: str) -> dict:
    return explain_text_document(text)


def _ids(text: str) -> list:
    return [m["id"] for m in _doc(text).get("matches") or []]


def test_the_set_is_whole():
    assert len(ROWS) == 18
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert sum(1 for v in ROWS.values() if v == "none") >= 1


@pytest.mark.parametrize("name", sorted(ROWS))
def test_top_cause_is_the_label(name):
    ids = _ids((DATA / name).read_text(encoding="utf-8"))
    assert (ids[0] if ids else "none") == ROWS[name]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_hand_written_facts(name):
    want = json.loads((DATA / name).with_suffix(".facts.json").read_text())
    check_hand_written_facts(want, _doc((DATA / name).read_text(encoding="utf-8")).get("facts") or {})


# --- Ultralytics: the device used is not the build installed --------------------------------------------------------
# ultralytics/utils/torch_utils.py select_device: the banner "Ultralytics {__version__} 🚀 Python-... torch-{version} "
# then "CPU (...)" where no CUDA device is used, and the ValueError it raises when torch.cuda.is_available() is False
_BANNER = "Ultralytics 8.1.2 🚀 Python-3.11.5 torch-{torch} CPU (13th Gen Intel Core(TM) i7-13700K)"
_INVALID = ("ValueError: Invalid CUDA 'device=0' requested. Use 'device=cpu' or pass valid CUDA device(s) if available, "
            "i.e. 'device=0' or 'device=0,1,2,3' for Multi-GPU.\n\ntorch.cuda.is_available(): False\n"
            "torch.cuda.device_count(): 0")


def test_a_cuda_build_used_on_the_cpu_is_no_cpu_only_build():
    doc = _doc(_BANNER.format(torch="2.0.1+cu118") + "\n" + _INVALID)
    assert "framework-cpu-only" not in [m["id"] for m in doc["matches"]]
    assert doc["facts"]["frameworks"]["torch"] == {"version": "2.0.1+cu118", "cuda": "11.8", "cudnn": None}


def test_a_cpu_build_asked_for_a_cuda_device_still_is():
    # SunOner/sunone_aimbot#212's banner form: torch-2.2.2+cpu
    assert _ids(_BANNER.format(torch="2.2.2+cpu") + "\n" + _INVALID)[0] == "framework-cpu-only"


def test_an_unlabelled_torch_used_on_the_cpu_is_not_judged_a_cpu_build():
    doc = _doc(_BANNER.format(torch="2.1.2"))
    assert doc["matches"] == []
    assert doc["facts"]["frameworks"]["torch"]["cuda"] is None


# --- transformers / diffusers / accelerate env ----------------------------------------------------------------------
# transformers/commands/env.py: "Using GPU in script?": "<fill in>" for the reporter to answer; transformers >= 4.48
# prints "PyTorch version (accelerator?)": f"{pt_version} ({pt_accelerator})", pt_accelerator "CUDA" ... or "NA"
_HF = ["- `transformers` version: 4.40.0", "- Platform: Windows-10-10.0.22631-SP0", "- Python version: 3.11.9",
       "- PyTorch version (GPU?): 2.3.0+cpu (False)", "- Using distributed or parallel set-up in script?: no"]


@pytest.mark.parametrize("answer", ["yes", "Yes", "yes, RTX 3090", "cuda:0"])
def test_a_cpu_torch_with_the_gpu_wanted_in_the_env_block(answer):
    assert _ids("\n".join(_HF + [f"- Using GPU in script?: {answer}"]))[0] == "framework-cpu-only"


@pytest.mark.parametrize("answer", ["<fill in>", "no", "No, CPU only", "N/A"])
def test_the_env_block_left_unfilled_or_no_wants_no_gpu(answer):
    assert _ids("\n".join(_HF + [f"- Using GPU in script?: {answer}"])) == []


def test_the_accelerator_form_of_the_torch_line():
    lines = ["- `transformers` version: 4.48.0", "- Platform: Linux-5.15.0-1057-aws-x86_64-with-glibc2.35",
             "- Python version: 3.10.12", "- PyTorch version (accelerator?): 2.5.1+cu124 (CUDA)", "- GPU type: NVIDIA A10G"]
    doc = _doc("\n".join(lines))
    assert doc["matches"] == []
    assert doc["facts"]["frameworks"]["torch"]["version"] == "2.5.1+cu124"
    assert doc["facts"]["frameworks"]["torch"]["cuda"] == "12.4"
    assert [g["name"] for g in doc["facts"]["gpus"]] == ["NVIDIA A10G"]


# --- PyPI's Windows wheel is the CPU build --------------------------------------------------------------------------
# opendatalab/MinerU#240 (tuhang): pip fetching PyPI's win_amd64 wheel through a PyPI mirror. That wheel's own
# torch/version.py reads "__version__ = '2.3.1+cpu'", "cuda: Optional[str] = None" (checked in the file of
# https://pypi.org/project/torch/2.3.1/#files, torch-2.3.1-cp310-cp310-win_amd64.whl; 1.13.1 and 2.6.0 alike)
_PIP_WIN = ["(MinerU_GPU) C:\\Users\\tu_ha>pip install torch==2.3.1 torchvision==0.18.1",
            "Collecting torch==2.3.1",
            "  Using cached https://mirrors.aliyun.com/pypi/packages/85/fc/ee5bb50eff313149657f173b003649677e27fa3aaae1e"
            "cc806add37f017c/torch-2.3.1-cp310-cp310-win_amd64.whl (159.8 MB)",
            "Successfully installed torch-2.3.1 torchvision-0.18.1"]
_NOT_COMPILED = "AssertionError: Torch not compiled with CUDA enabled"


def test_pypi_windows_wheel_fetched_then_cuda_wanted_is_the_cpu_build():
    doc = _doc("\n".join(_PIP_WIN + ["torch.cuda.is_available() returns False on my RTX 4060"]))
    assert doc["matches"][0]["id"] == "framework-cpu-only"
    assert "win_amd64" in doc["matches"][0]["evidence"] and "CPU-only" in doc["matches"][0]["evidence"]


def test_the_pytorch_index_wheel_is_no_cpu_build():
    # the CUDA wheel's file name on download.pytorch.org carries its label (torch-2.0.1%2Bcu118-...)
    lines = ["Downloading https://download.pytorch.org/whl/cu118/torch-2.0.1%2Bcu118-cp310-cp310-win_amd64.whl (2619.1 MB)",
             "Successfully installed torch-2.0.1+cu118", "torch.cuda.is_available() returns False"]
    assert "framework-cpu-only" not in _ids("\n".join(lines))


def test_a_wheel_named_without_its_url_after_a_find_links_page_is_not_judged():
    # pytorch/pytorch#52662 (Windows): pip names the wheel without a URL, but it was pointed at the find-links page,
    # whose old CUDA wheels (cu102/torch-1.7.1-cp38-cp38-win_amd64.whl) carried no label
    lines = ["> python -m pip install torch===1.7.1 -f https://download.pytorch.org/whl/torch_stable.html --no-cache",
             "Looking in links: https://download.pytorch.org/whl/torch_stable.html", "Collecting torch===1.7.1",
             "  Downloading torch-1.7.1-cp38-cp38-win_amd64.whl (184.0 MB)", "Successfully installed torch-1.7.1",
             "torch.cuda.is_available() False"]
    assert "framework-cpu-only" not in _ids("\n".join(lines))
    # the same download with PyPI's own naming and no find-links page is PyPI's wheel
    assert _ids("\n".join(lines[2:]))[0] == "framework-cpu-only"


def test_pypi_linux_wheel_is_a_cuda_build():
    lines = ["Collecting torch==2.3.1",
             "  Downloading torch-2.3.1-cp310-cp310-manylinux1_x86_64.whl (779.1 MB)",
             "Successfully installed torch-2.3.1", "torch.cuda.is_available() returns False"]
    assert "framework-cpu-only" not in _ids("\n".join(lines))


def test_the_engine_rule():
    from envcheck.engine.builds import pypi_torch_is_cpu

    assert pypi_torch_is_cpu("windows-x86_64") and pypi_torch_is_cpu("macos-arm64")
    assert pypi_torch_is_cpu("linux-aarch64") and not pypi_torch_is_cpu("linux-x86_64")


def test_an_unlabelled_windows_torch_from_a_package_list_is_said_as_likely():
    # the interpreter's Windows banner (as in pytorch/pytorch#94291's collect_env) and pip list's bare dist version
    lines = ["Python 3.10.11 (tags/v3.10.11:7d4cc5a, Apr  5 2023, 00:38:17) [MSC v.1929 64 bit (AMD64)] on win32",
             "Package     Version", "----------- -------", "torch       2.0.0", "torchvision 0.15.1", "", "model.to('cuda')"]
    ms = _doc("\n".join(lines))["matches"]
    assert ms and ms[0]["id"] == "framework-cpu-only"
    assert ms[0]["evidence"].startswith("(pasted environment report) Likely, not verified")
    # said as likely: ranked below a failure the text itself shows (torch's own "not compiled" line)
    top = _doc("\n".join(lines + [_NOT_COMPILED]))["matches"][0]
    assert top["id"] == "framework-cpu-only" and top["evidence"] == _NOT_COMPILED


def test_a_windows_pythons_own_path_names_the_platform():
    # the traceback path of SunOner/sunone_aimbot#164 (native Windows Python) beside a package list's bare torch
    lines = ["Package     Version", "----------- -------", "torch       2.1.0", "ultralytics 8.0.227", "",
             '  File "C:\\Users\\Professional\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages\\'
             'torch\\utils\\_contextlib.py", line 115, in decorate_context',
             "torch.cuda.is_available(): False"]
    doc = _doc("\n".join(lines))
    assert doc["matches"] and doc["matches"][0]["evidence"].startswith("(pasted environment report) Likely, not verified")
    # WSL's view of the same drive is a Linux Python: PyPI's Linux x86_64 torch is a CUDA build, nothing said
    wsl = [ln.replace("C:\\", "/mnt/c/").replace("\\", "/") for ln in lines]
    assert "framework-cpu-only" not in _ids("\n".join(wsl))


def test_the_same_on_linux_says_nothing():
    lines = ["Python 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] on linux",
             "Package     Version", "----------- -------", "torch       2.0.0", "", "model.to('cuda')"]
    assert "framework-cpu-only" not in _ids("\n".join(lines))


def test_a_printed_unlabelled_version_on_windows_is_no_pypi_wheel():
    # PyPI's Windows wheel prints "2.3.1+cpu" as torch.__version__: a bare "2.3.1" printed is another build (conda)
    lines = ["Windows 11, RTX 3060", "Python 3.10.11 (tags/v3.10.11:7d4cc5a, Apr  5 2023, 00:38:17) [MSC v.1929 64 bit "
             "(AMD64)] on win32", ">>> import torch", ">>> torch.cuda.is_available()", "False", ">>> torch.__version__",
             "'2.3.1'"]
    assert "framework-cpu-only" not in _ids("\n".join(lines))


# --- facts of forms nobody read -------------------------------------------------------------------------------------
def test_mmcv_collect_env_printed_as_a_dict_cut_short():
    # open-mmlab/mmcv#2514 (the line as the index cut it)
    doc = _doc((DATA / "mmcv-2514-collect-env-titan-xp-torch-1.12.1-cu116-tensorimpl-symbol.txt").read_text())
    f = doc["facts"]
    assert f["python"]["version"] == "3.8.12" and f["toolkit"] == {"version": "11.6", "nvcc": "11.6.124"}
    assert len(f["gpus"]) == 8 and {g["name"] for g in f["gpus"]} == {"NVIDIA TITAN Xp"}


def test_mmcv_dict_with_build_details_and_escapes():
    # mmcv's collect_env() dict: 'PyTorch compiling details' holds torch's build block with \n between its lines
    line = ("{'sys.platform': 'linux', 'Python': '3.7.10 (default, Feb 26 2021, 18:47:35) [GCC 7.3.0]', 'CUDA available': "
            "False, 'GCC': 'gcc (GCC) 5.4.0', 'PyTorch': '1.8.1', 'PyTorch compiling details': 'PyTorch built with:\\n  - "
            "GCC 7.3\\n  - CUDA Runtime 10.2\\n  - NVCC architecture flags: -gencode;arch=compute_37,code=sm_37\\n', "
            "'TorchVision': '0.9.1', 'OpenCV': '4.5.2', 'MMCV': '1.3.8'}")
    f = _doc(line)["facts"]
    assert f["python"]["version"] == "3.7.10"
    assert f["frameworks"]["torch"]["version"] == "1.8.1" and f["frameworks"]["torch"]["cuda"] == "10.2"


@pytest.mark.parametrize("value, driver", [("550.144.03-0ubuntu0.24.04.1", "550.144.03"), ("535.183.01-1", "535.183.01"),
                                           ("570.124.06-1.fc41", "570.124.06"), ("535.104.05", "535.104.05"),
                                           ("535.104-555", None)])
def test_a_driver_written_as_its_package_version(value, driver):
    # Acly/krita-ai-diffusion#1863: "Nvidia Driver: 550.144.03-0ubuntu.24.04.1" (Ubuntu's package version)
    f = _doc(f"- NVIDIA driver version: {value}\n- PyTorch version: 2.1.0")["facts"]
    assert (f.get("driver") or {}).get("version") == driver


@pytest.mark.parametrize("field, cuda, cudnn", [
    ("10.1/8.0.2.39", "10.1", "8.0.2.39"),  # tensorflow/tensorflow#42199
    ("10.2, 8.0.2", "10.2", "8.0.2"), ("CUDA 11.2, cuDNN 8.1", "11.2", "8.1"), ("11.2 and 8.1", "11.2", "8.1"),
    ("11.0 + 8.0.4", "11.0", "8.0.4"), ("11.2, 11.4", "11.2", None), ("11.0 / v8.0.1", "11.0", "8.0.1")])
def test_the_tf_templates_cuda_cudnn_pair(field, cuda, cudnn):
    text = f"- TensorFlow version: 2.3.0\n- CUDA/cuDNN version: {field}\n- OS Platform and Distribution: Ubuntu 20.04"
    claims = _doc(text)["facts"].get("claims") or {}
    assert claims.get("cuda") == cuda and claims.get("cudnn") == cudnn


# --- an extension asking for torch's split CUDA library -------------------------------------------------------------
def test_an_extension_wanting_libtorch_cuda_cu_leads_with_its_own_fix():
    from envcheck.explain import explain_text
    from tests.helpers import assert_leads_with_own_fix

    # OpenGVLab/InternVL#174: the message, then the torch in use (2.1.2+cu121 has no libtorch_cuda_cu.so)
    text = (DATA / "internvl-174-torch-2.1.2-cu121-libtorch-cuda-cu.txt").read_text()
    assert_leads_with_own_fix(explain_text(text), "extension-wants-split-libtorch-cuda")


def test_torchs_own_unsplit_library_is_not_this_cause():
    # pytorch/extension-cpp#127: libtorch_cuda.so not found when an extension is imported before torch (load order)
    ids = _ids("ImportError: libtorch_cuda.so: cannot open shared object file: No such file or directory")
    assert "extension-abi-mismatch" not in ids


@pytest.mark.parametrize("value, name, cc", [
    ("NVIDIA GeForce GTX 1050 (compute capability 6.1)", "NVIDIA GeForce GTX 1050", "6.1"),  # digitalsreeni-image-annotator#57
    ("NVIDIA GeForce RTX 3090 (CC 8.6)", "NVIDIA GeForce RTX 3090", "8.6"),
    ("NVIDIA GeForce RTX 5090 (SM_120)", "NVIDIA GeForce RTX 5090", "12.0")])
def test_a_compute_capability_written_after_the_gpus_name(value, name, cc):
    gpus = _doc(f"- GPU: {value}\n- PyTorch version: 2.8.0+cu128")["facts"]["gpus"]
    assert [(g["name"], g["compute_capability"]) for g in gpus] == [(name, cc)]


@pytest.mark.parametrize("line, version", [
    ("- torch                     2.1.2", "2.1.2"),  # Dao-AILab/flash-attention#950: pip list's row as a bullet
    ('- `torch 2.10.0+cu128`, `torch.version.cuda == "12.8"`', "2.10.0+cu128"),  # Kaggle/kaggle-cli#1151
    ("- torch 2.1.2 or newer is required", None)])
def test_a_torch_row_in_a_bullet(line, version):
    fws = _doc(line + "\n- Python: 3.10.12")["facts"].get("frameworks") or {}
    assert (fws.get("torch") or {}).get("version") == version
