"""attack40: false statements found in session 16's last changes (lead's cut-table listing, emit26a / emit26b rules)."""
from __future__ import annotations

from pathlib import Path

from envcheck.parse.nvidia_smi import parse_smi

ROOT = Path(__file__).resolve().parent.parent


def _read(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


def _quadro_listing() -> str:
    # akash-network/provider-configs#12: `nvidia-smi -L` of a node with two Quadro RTX 4000 (no driver version in -L)
    text = _read("heldout/captures20e-r2/t535.129.03-L-then-table-2x-quadro-rtx4000-cut.txt")
    return text[:text.index("root@node1:~# nvidia-smi\n")]


def _rtx5080_fragment() -> str:
    # a Polish machine-survey note (acceptance16, spent): a hand-cut table, driver 591.86 and GPU 0, an RTX 5080
    text = next((ROOT / "heldout" / "acceptance16" / "captures").glob("csv-591.86*.txt")).read_text(encoding="utf-8")
    return text[text.index("$ nvidia-smi   (nag"):]


def test_another_machines_listing_naming_other_gpus_does_not_replace_a_cut_tables_rows():
    # two machines' outputs in one text (a "works here, fails there" report): the -L of one (two Quadro RTX 4000)
    # above the other's cut table (an RTX 5080 at index 0). Was: two Quadro RTX 4000 under driver 591.86, a whole list
    got = parse_smi(_quadro_listing() + "\n" + _rtx5080_fragment())
    assert got.driver_version == "591.86"
    assert [(g.index, g.name) for g in got.gpus] == [(0, "NVIDIA GeForce RTX 5080")]
    assert got.gpus_complete is not True


def test_the_same_machines_listing_still_completes_its_cut_table():
    # the lead's own case stays: the -L and the cut table of the same node (names agree)
    got = parse_smi(_read("heldout/captures20e-r2/t535.129.03-L-then-table-2x-quadro-rtx4000-cut.txt"))
    assert [g.name for g in got.gpus] == ["Quadro RTX 4000", "Quadro RTX 4000"] and got.gpus_complete is True


def test_an_older_tables_cut_name_agrees_with_the_listings_whole_name():
    # gpustat#16's table names its GPUs "GeForce GTX TIT..." (an older driver cuts long names); gpustat#5's
    # `--query-gpu=index,uuid,name,...` of eight "GeForce GTX TITAN X": a cut name is the same GPU, not another machine
    from envcheck.parse.nvidia_smi import _same_gpu_name

    assert _same_gpu_name("GeForce GTX TITAN X", "GeForce GTX TIT...")
    assert not _same_gpu_name("Quadro RTX 4000", "NVIDIA GeForce RTX 5080")
    assert _same_gpu_name(None, "NVIDIA GeForce RTX 5080")


# -- a CUDA library that did not load from a ZLUDA install (engine.vendors.zluda_library_advice) ---------------------

DATA = ROOT / "tests" / "data" / "attack40"


def _top(name: str) -> dict:
    from envcheck.explain.document import explain_text_document

    return explain_text_document((DATA / name).read_text(encoding="utf-8"))["matches"][0]


def test_zluda_cublas_stand_in_on_an_amd_gpu_is_no_cuda_build_on_the_wrong_vendor():
    # patientx/ComfyUI-Zluda#147: was framework-vendor-mismatch, "no CUDA or cuDNN install makes it use the AMD GPU.
    # Install the framework's ROCm build" - ZLUDA runs that CUDA build on the AMD GPU on purpose
    top = _top("comfyui-zluda-147-amd-7800xt-cublas64-11-dll-winerror-126.log")
    assert top["id"] == "cuda-runtime-missing"
    fixes = " ".join(top["fixes"])
    assert "ZLUDA" in fixes and "HIP SDK" in fixes and "PATH" in fixes
    assert "nvidia-cublas" not in fixes and "ROCm build" not in fixes


def test_zluda_cudnn_stand_in_gets_no_nvidia_cudnn_wheel():
    # githubcto/FramePack-ZLUDA#5: no GPU named; was "pip install 'nvidia-cudnn-cu13>=9,<10'" and NVIDIA's cuDNN for
    # Windows install steps
    top = _top("framepack-zluda-5-cudnn64-9-dll-winerror-126.log")
    assert top["id"] == "cudnn-missing"
    fixes = " ".join(top["fixes"])
    assert "FramePack-ZLUDA" in fixes and "nvidia-cudnn" not in fixes


def test_the_zluda_fact_reads_only_a_dll_path_through_a_zluda_folder():
    from envcheck.engine.vendors import zluda_library_advice

    assert zluda_library_advice("cudnn-missing", {"zluda": "ComfyUI-Zluda"}) is not None
    assert zluda_library_advice("cudnn-missing", {"zluda": "ComfyUI-Zluda", "nvidia_gpu": "RTX 4090"}) is None
    assert zluda_library_advice("gpu-out-of-memory", {"zluda": "ComfyUI-Zluda"}) is None
    # an NVIDIA machine's plain cuDNN DLL path (Comfy-Org/ComfyUI#1373's portable build) names no ZLUDA folder
    from envcheck.explain.document import explain_text_document

    text = ('OSError: [WinError 126] The specified module could not be found. Error loading "D:\\ComfyUI_windows_'
            'portable\\python_embeded\\lib\\site-packages\\torch\\lib\\caffe2_nvrtc.dll" or one of its dependencies.')
    doc = explain_text_document(text)
    assert all("ZLUDA" not in " ".join(m["fixes"]) for m in doc["matches"])
