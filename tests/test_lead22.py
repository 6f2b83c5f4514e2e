"""Session 22's lead: what acceptance24's blind misses showed, read after the blind score (tests on its real texts,
and on boundaries made from them, said so).

Captures: ``nvidia-smi -L`` output behind a tree arrow a README drew ("└> GPU 0: ..."), and a MIG listing that a docs
page's conversion flattened onto one backticked line (the GPU and its seven MIG devices)."""

import os

from envcheck.parse.nvidia_smi import parse_list, parse_smi

HERE = os.path.dirname(__file__)
CAPTURES = os.path.join(os.path.dirname(HERE), "heldout", "acceptance24", "captures")


def _read(stem: str) -> str:
    name = next(f for f in os.listdir(CAPTURES) if f.startswith(stem) and f.endswith(".txt"))
    with open(os.path.join(CAPTURES, name), encoding="utf-8") as fh:
        return fh.read()


def test_listing_behind_a_tree_arrow():
    t = parse_smi(_read("L-colab-readme"))
    assert t.form == "nvidia-smi -L" and t.state == "ok"
    assert [(g.index, g.name) for g in t.gpus] == [(0, "Tesla T4")]
    assert t.gpus[0].uuid == "GPU-ceabb2dd-24b5-a045-1e0d-9d69acd13a7c"


def test_mig_listing_flattened_onto_one_backticked_line():
    t = parse_smi(_read("L-mig-docs-page"))
    assert [(g.index, g.name, g.mig_enabled) for g in t.gpus] == [(0, "NVIDIA A100 40GB PCIe", True)]
    assert t.mig_devices == 7  # the MIG devices are not GPUs
    assert t.driver_version is None and t.cuda_version is None


# boundaries made from the real lines above (constructed, said so)
def test_two_gpus_with_mig_devices_joined_on_one_line():
    line = ("`GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-11111111-2222-3333-4444-555555555555) MIG 3g.20gb Device 0: "
            "(UUID: MIG-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee) GPU 1: NVIDIA A100-SXM4-40GB "
            "(UUID: GPU-66666666-7777-8888-9999-000000000000)`")
    t = parse_list(line)
    assert [(g.index, g.mig_enabled) for g in t.gpus] == [(0, True), (1, None)]
    assert t.mig_devices == 1 and t.gpus_complete is True


def test_bullets_and_unicode_tree_lines():
    t = parse_list("* GPU 0: Tesla V100-SXM2-16GB (UUID: GPU-0a0a0a0a-1b1b-2c2c-3d3d-4e4e4e4e4e4e)\n"
                   "\u251c\u2500 GPU 1: Tesla V100-SXM2-16GB (UUID: GPU-5f5f5f5f-6a6a-7b7b-8c8c-9d9d9d9d9d9d)\n")
    assert [g.name for g in t.gpus] == ["Tesla V100-SXM2-16GB"] * 2


def test_prose_naming_a_gpu_line_is_not_a_listing():
    # words before the GPU line: a sentence quoting it, not the output
    t = parse_list("My machine shows GPU 0: Tesla T4 (UUID: GPU-ceabb2dd-24b5-a045-1e0d-9d69acd13a7c) sometimes")
    assert t.gpus == []


# ---- read after acceptance25's blind score (its texts are spent now) ----
SET25 = os.path.join(os.path.dirname(HERE), "heldout", "acceptance25")


def _read25(part: str, stem: str) -> str:
    folder = os.path.join(SET25, part)
    name = next(f for f in os.listdir(folder) if f.startswith(stem) and f.endswith((".txt", ".log"))
                and not f.endswith(".facts.json"))
    with open(os.path.join(folder, name), encoding="utf-8") as fh:
        return fh.read()


def test_query_output_retold_as_a_markdown_table_under_its_command():
    t = parse_smi(_read25("captures", "csv-591.86-windows"))
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "NVIDIA GeForce RTX 5090", 32607),
                                                                       (1, "NVIDIA GeForce RTX 5090", 32607)]
    assert t.driver_version == "591.86"


def test_a_markdown_table_of_another_width_is_not_the_query():
    text = ("nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader\n\n"
            "| GPU | Name |\n| --- | --- |\n| 0 | NVIDIA GeForce RTX 5090 |\n")
    assert parse_smi(text).gpus == []


def test_hand_summary_gpu_line_and_its_memory():
    t = parse_smi(_read25("captures", "summary-535.183.01"))
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "NVIDIA GeForce RTX 4090", 24564)]
    assert (t.driver_version, t.cuda_version) == ("535.183.01", "12.2")


def _top(text: str, tmp_path, name: str = "x.log") -> "tuple[str, str]":
    import json
    import subprocess
    import sys

    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "envcheck", "explain", str(p), "--json", "--no-detect"],
                         capture_output=True, text=True, timeout=120)
    ms = json.loads(out.stdout)["matches"]
    return (ms[0]["id"], ms[0].get("signature") or "") if ms else ("none", "")


def test_cublas_arch_mismatch_is_the_gpu_architecture(tmp_path):
    assert _top(_read25("logs", "deeplearningexamples-147"), tmp_path)[0] == "gpu-arch-unsupported"
    assert _top(_read25("pastes", "fastertransformer-25"), tmp_path, "p.txt")[0] == "gpu-arch-unsupported"
    # the other cuBLAS statuses stay a failed call
    assert _top("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle)`\n",
                tmp_path)[0] == "cublas-error"


def test_undefined_symbol_with_markdown_bold_around_the_symbol(tmp_path):
    assert _top(_read25("pastes", "pytorch-sparse-188"), tmp_path, "p.txt")[0] == "extension-abi-mismatch"


def test_undefined_symbol_said_to_come_from_another_torch(tmp_path):
    top = _top(_read25("pastes", "torch-discounted-cumsum-9"), tmp_path, "p.txt")
    assert top == ("extension-abi-mismatch", "undefined-symbol-said-torch-mismatch")
    # doubted, not stated: pytorch_sparse#188's title alone
    doubt = "# undefined symbol -- does *Not* seem to be because of mismatched Pytorch & CUDA\n"
    assert _top(doubt, tmp_path)[1] != "undefined-symbol-said-torch-mismatch"


def test_a_python_with_the_framework_installed_under_it_is_no_python_without_builds(tmp_path):
    # cudnn36's held-back control (dusty-nv/jetson-containers#1549): JetPack 5 (wheels for Python 3.8) with torch 2.3.1
    # compiled from source and imported from .../python3.10/site-packages/torch: a build for 3.10 exists there
    held = os.path.join(os.path.dirname(HERE), "heldout", "cudnn36-held", "pastes")
    name = next(f for f in os.listdir(held) if f.startswith("healthy-jetson-containers-1549") and f.endswith(".txt"))
    with open(os.path.join(held, name), encoding="utf-8") as fh:
        assert _top(fh.read(), tmp_path, "p.txt")[0] == "none"
    # the Python named as the reporter's, with no framework under it, is still read (jetson35's rule)
    said = "JetPack : 4.4\nI need to use Python 3.8 for my project but the torch wheels are for python 3.6\n"
    assert _top(said, tmp_path, "q.txt")[0] == "python-unsupported"


# ---- read after acceptance26's blind score (spent now): FFmpeg's NVENC API newer than the driver's ----
def test_ffmpeg_nvenc_api_newer_than_the_driver(tmp_path):
    for stem in ("go-livepeer-pr-1106", "lada-130", "vapoursynthcolab-4"):
        folder = os.path.join(os.path.dirname(HERE), "heldout", "acceptance26", "logs")
        name = next(f for f in os.listdir(folder) if f.startswith(stem))
        with open(os.path.join(folder, name), encoding="utf-8") as fh:
            assert _top(fh.read(), tmp_path) == ("driver-too-old", "ffmpeg-nvenc-api-newer-than-driver"), stem
    # a working encode names its encoder and says nothing of the driver
    ok = ("[h264_nvenc @ 0x55d5c8a0] Using input frames context (format cuda) with h264_nvenc encoder.\n"
          "frame= 1200 fps=410 q=23.0 Lsize=   10240kB time=00:00:40.00 bitrate=2097.2kbits/s speed=13.7x\n")
    assert _top(ok, tmp_path)[0] == "none"
