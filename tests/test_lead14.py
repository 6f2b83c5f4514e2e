"""Session 14's own changes outside the helpers' rounds: each test uses real lines of a public thread (cited) and
would fail before the change, with a control beside it that must stay as it was."""

from __future__ import annotations

from pathlib import Path

from envcheck.explain.document import explain_text_document

ROOT = Path(__file__).resolve().parent.parent


def _top(text: str):
    matches = explain_text_document(text)["matches"]
    return matches[0]["id"] if matches else None


def test_tensorrt_plan_with_version_0_0_0_is_no_version_mismatch():
    # NVIDIA/TensorRT#574: "got 0.0.0" is a header that is not a plan's (written in text mode; std::ios::binary fixed
    # it), heldout/pastes20h's control
    text = (ROOT / "heldout" / "pastes20h" / "tensorrt-574-expecting-5.1.5-got-0.0.0-text-mode-file.txt").read_text(
        encoding="utf-8")
    assert "got 0.0.0" in text
    assert _top(text) is None
    # wang-xinyu/tensorrtx#664 and SthPhoenix/InsightFace-REST#84: two real releases stay a mismatch
    assert _top("ERROR: 6: The engine plan file is not compatible with this version of TensorRT, expecting library "
                "version 8.0.0 got 8.0.1, please rebuild.\n") == "tensorrt-engine-mismatch"
    assert _top("[05/02/2022-15:17:45] [TRT] [E] 6: The engine plan file is not compatible with this version of "
                "TensorRT, expecting library version 8.2.3 got 8.2.1, please rebuild.\n") == "tensorrt-engine-mismatch"


def test_tensorrt_template_gpu_type_is_not_called_a_transformers_env_block():
    # NVIDIA/TensorRT's issue template asks "**GPU Type**:" as transformers' env block does; the form named must not
    # be transformers'
    text = (ROOT / "heldout" / "pastes20h" / "tensorrt-574-expecting-5.1.5-got-0.0.0-text-mode-file.txt").read_text(
        encoding="utf-8")
    doc = explain_text_document(text)
    assert doc["detected"].startswith("pasted report") and "transformers" not in doc["detected"]
    assert doc["facts"]["gpus"][0]["name"] == "GTX1080Ti"
    assert doc["facts"]["driver"]["version"] == "445.75"
    # a real transformers env block still names its form (huggingface/transformers issue template output)
    hf = ("- `transformers` version: 4.41.2\n- Platform: Linux-5.15.0-105-generic-x86_64-with-glibc2.35\n"
          "- Python version: 3.10.12\n- PyTorch version (GPU?): 2.3.0+cu121 (True)\n- GPU type: NVIDIA A100-SXM4-80GB\n")
    assert "transformers/accelerate env" in explain_text_document(hf)["detected"]


def test_ngc_container_built_for_a_newer_driver_release_is_the_driver():
    # NVIDIA/nvidia-docker#1479 (wrapped before "version", as the image prints it), hiyouga/LlamaFactory#5962 (one line,
    # "butversion"), eugr/spark-vllm-docker#266 (a DGX Spark's 580 driver under an image for 590.48)
    wrapped = ("ERROR: This container was built for NVIDIA Driver Release 450.51 or later, but\n"
               "       version 440.33.01 was detected and compatibility mode is UNAVAILABLE.\n\n"
               "       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]\n")
    doc = explain_text_document(wrapped)
    assert doc["matches"][0]["id"] == "driver-too-old"
    assert doc["matches"][0]["signature"] == "ngc-container-driver-release-unavailable"
    assert "440.33.01" in str(doc["matches"][0])
    assert _top("This container was built for NVIDIA Driver Release 545.23 or later, butversion 535.104.05 was "
                "detected and compatibility mode is UNAVAILABLE\n") == "driver-too-old"
    assert _top("ERROR: This container was built for NVIDIA Driver Release 590.48 or later, but\n       version "
                "580.159.03 was detected and compatibility mode is UNAVAILABLE.\n") == "driver-too-old"
    # a maintainer's sentence about forward compatibility names no failure (NVIDIA/nvidia-docker#1588)
    assert _top("The answer is most likely CUDA forward compatibility, as described here:\n"
                "https://docs.nvidia.com/pdf/CUDA_Compatibility.pdf\n") is None


def test_a_caught_cuda_probe_on_a_mac_is_not_the_failure_where_mps_ran():
    # AUTOMATIC1111/stable-diffusion-webui#1212 (heldout/vlogs24-held, seen after its blind score): the web UI's memory
    # monitor warning at start, then MPSGraph's f32/f16 failure: the program ran on MPS, the CUDA line was a caught probe
    from envcheck.explain import explain_lines

    mac = (ROOT / "heldout" / "vlogs24-held" / "a1111-mac-m1-max-mps-llvm-error-failed-to-infer-result-types-1212.log")
    text = mac.read_text(encoding="utf-8")
    assert "Torch not compiled with CUDA enabled" in text
    ids = [m.id for m in explain_lines(text.splitlines(keepends=True))]
    assert ids[0] == "mps-op-unsupported" and "framework-vendor-mismatch" not in ids
    # the same warning where nothing ran on MPS (the AMD fork with ZLUDA on a 7900 XT, CS1o/Stable-Diffusion-Info#46)
    # and a Mac asked for CUDA with no MPS failure (vlogs22) stay CUDA asked of another vendor's build
    for path in (ROOT / "heldout" / "logs21e" / "torch-not-compiled-cuda-7900xt-zluda-a1111-cs1o46.log",
                 ROOT / "tests" / "data" / "logs" / "vlogs22" / "mac-bertwsi-not-compiled-cuda-mac-laptop-1.log"):
        got = [m.id for m in explain_lines(path.read_text(encoding="utf-8").splitlines(keepends=True))]
        assert got[:1] == ["framework-vendor-mismatch"], (path.name, got)


def test_mps_unsupported_padding_mode_is_an_mps_op():
    # pytorch/pytorch#125098 and nagadomi/nunif#112 (torch's GridSampler.mm: TORCH_CHECK "MPS: Unsupported Border
    # padding mode"), dajes/frame-interpolation-pytorch#4's title without the colon
    for line in ("RuntimeError: MPS: Unsupported Border padding mode\n", "MPS: Unsupported Border padding mode\n",
                 "# Runtime error: MPS Unsupported Border padding mode\n"):
        doc = explain_text_document(line)
        assert doc["matches"][0]["id"] == "mps-op-unsupported", line
        assert "padding_mode='zeros'" in doc["matches"][0]["fixes"][0]
        assert not any("nvidia-smi" in f or "NVIDIA driver" in f for f in doc["matches"][0]["fixes"])
    # the PR that implements it names no failure (pytorch/pytorch#173151's title)
    assert _top("[MPS] Implement grid_sample 2D with Border padding mode\n") is None


def test_nvidia_smi_q_with_markdown_hard_line_breaks():
    # heldout/acceptance14's capture (an AWS K80 guide's `nvidia-smi -q | head` in Markdown, each line ending " \\"),
    # seen after its blind score: the GPU's name, its bus line and the attached count keep no trailing backslash
    from envcheck.parse.nvidia_smi import parse_q

    path = ROOT / "heldout" / "acceptance14" / "captures" / \
        "q-head-367.106-aws-k80-markdown-backslash-line-breaks-no-cuda-field.txt"
    table = parse_q(path.read_text(encoding="utf-8"))
    assert table.driver_version == "367.106"
    assert [g.name for g in table.gpus] == ["Tesla K80"]
    assert table.gpus[0].bus_id == "0000:00:1E.0"
    assert table.gpus_complete is True
    # a value that ends in a backslash with no space before it is left as it is (no Markdown break)
    assert parse_q("Driver Version : 535.54.03\nAttached GPUs : 1\nGPU 00000000:01:00.0\n"
                   "    Product Name : Tesla T4\\\n").gpus[0].name == "Tesla T4\\"


def test_an_unread_section_note_asks_for_every_vendor_s_tool_not_nvidia_smi_alone():
    # the layout of pytorch/pytorch#99137's "### Versions" (an image): the note said "paste collect_env and
    # nvidia-smi output" on every machine, an AMD, Intel or Apple one too (vsrc24); it now names envcheck snapshot and
    # each vendor's tool
    from envcheck.paste import read_report

    rep = read_report("### Versions\n\n![image](https://user-images.githubusercontent.com/61486634/232001061-e239cfa8"
                      "-3794-4c03-b8de-e1b9cde02fcb.png)\n")
    note = next(n for n in rep.notes if "section 'Versions'" in n)
    assert note.startswith("not-checked:") and "envcheck snapshot" in note
    assert all(tool in note for tool in ("nvidia-smi", "rocm-smi", "xpu-smi", "system_profiler"))
