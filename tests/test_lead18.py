"""The lead's session-18 checks (issue 20): a /dev/dri node that Mesa's libEGL may not open is no cause of a CUDA
failure on an NVIDIA machine, and still device-permission where nothing shows NVIDIA's GPU."""
from pathlib import Path

import pytest

from envcheck.explain import explain_text

DATA = Path(__file__).parent / "data" / "lead18"


def _ids(text: str):
    return [m.id for m in explain_text(text)]


def test_dri_denied_alone_is_device_permission():
    # dm_control#214: the warnings alone (no vendor in the text): the node's access is what the thread fixed
    text = (DATA / "dm-control-214-libegl-renderd-permission-mujoco-egl.log").read_text()
    assert _ids(text)[:1] == ["device-permission"]


def test_dri_denied_beside_nvidia_gpu_is_dropped():
    # the same warnings in a text that shows NVIDIA's driver and GPUs (dm_control#415's server lines): CUDA never opens
    # a DRI node, so the warning names no cause there
    text = (DATA / "dm-control-214-libegl-renderd-permission-mujoco-egl.log").read_text() \
        + (DATA / "dm-control-415-server-smi-versions.txt").read_text()
    assert "device-permission" not in _ids(text)


def test_dri_denied_beside_amd_gpu_stays():
    # an AMD GPU named beside the same line keeps it (ROCm opens the render node)
    text = "rocminfo\nROCk module is loaded\nName: gfx1100\nMarketing Name: AMD Radeon RX 7900 XTX\n" \
        + (DATA / "dm-control-214-libegl-renderd-permission-mujoco-egl.log").read_text()
    assert "device-permission" in _ids(text)


def test_smi_banner_with_hand_shortened_gpu_row():
    # acceptance18's capture (after its blind score): the banner without its box, then "NVIDIA L4    0MiB / 23034MiB"
    from envcheck.parse.nvidia_smi import parse_smi

    t = parse_smi((DATA / "smi-banner-two-line-hand-summary-l4.txt").read_text())
    assert t.driver_version == "580.65.06" and t.cuda_version == "13.0"
    assert [(g.index, g.name, g.memory_total_mib) for g in t.gpus] == [(0, "NVIDIA L4", 23034)]
    assert t.gpus_complete is not True  # a hand-shortened table does not say it lists every GPU


def test_smi_boxed_table_rows_still_need_their_box():
    # the summary row is read only without a table: a boxed table's own rows decide (nothing added from a stray line)
    from envcheck.parse.nvidia_smi import parse_smi

    text = (DATA / "smi-banner-two-line-hand-summary-l4.txt").read_text().replace(
        "NVIDIA-SMI 580.65.06   Driver Version: 580.65.06   CUDA Version: 13.0",
        "| NVIDIA-SMI 580.65.06   Driver Version: 580.65.06   CUDA Version: 13.0 |")
    assert parse_smi(text).gpus == []


def test_smi_no_devices_quoted_in_a_sentence():
    from envcheck.parse.nvidia_smi import NO_DEVICES, parse_smi

    t = parse_smi((DATA / "smi-no-devices-quoted-in-prose.txt").read_text())
    assert t.error == NO_DEVICES and t.gpus == []
    # another tool's "No devices were found" in a sentence is not nvidia-smi's answer
    other = "The USB scanner said: No devices were found, so we moved on.\n"
    assert parse_smi(other).error != NO_DEVICES


def test_ort_126_line_without_its_quotes():
    # microsoft/onnxruntime#20223's template retyped the loader line without the quotes around the names
    ids = _ids("Loadlibrary failed with error 126 when trying to load onnxruntime_providers_cuda.dll\n")
    assert ids[:1] == ["cuda-runtime-missing"]


def test_amd_graphics_card_named_beside_torch_cuda_assert():
    # cog-face-to-many#42 (acceptance18, after its blind score): the reporter's AMD card and torch's CPU-build assert
    line = 'The amd graphics card I use displays "Torch not compiled with CUDA enabled" when running the ' \
           '"python main.py --listen 0.0.0.0" command.\n'
    assert _ids(line)[:1] == ["framework-vendor-mismatch"]
    # an AMD CPU is no AMD GPU: the assert stays torch's CPU build
    assert _ids('I have an AMD Ryzen CPU and it says "Torch not compiled with CUDA enabled".\n')[:1] == \
        ["framework-cpu-only"]


@pytest.mark.parametrize("line", [
    # facebookresearch/Detectron#139, ContinuumIO/anaconda-issues#9174, onnx/onnx-caffe2#288 (real lines)
    "RuntimeError: [enforce fail at common_cudnn.h:118] version_match. cuDNN compiled (7005) and runtime (7003) "
    "versions mismatch",
    "[enforce fail at common_cudnn.h:102] version_match. cuDNN compiled (7102) and runtime (7004) versions mismatch",
    "RuntimeError: [enforce fail at common_cudnn.h:118] version_match. cuDNN compiled (6021) and runtime (7003) "
    "versions mismatch",
])
def test_caffe2_cudnn_compiled_runtime_mismatch(line):
    ms = explain_text(line + "\n")
    assert ms and ms[0].id == "cudnn-version-mismatch"
    assert ms[0].captures.get("compiled") and ms[0].captures.get("runtime")


def test_caffe2_other_versions_mismatch_lines_stay_silent():
    # another program's "versions mismatch" is no cuDNN check
    assert _ids("warning: protobuf compiled (3.6) and runtime (3.5) versions mismatch\n") == []


def test_level_zero_out_of_device_memory_names_no_cause():
    # compute-runtime returns ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY for failed submissions too (a refused peer copy:
    # tests/test_explain_vendors21m.py; CHIP-SPV/chipStar#612's barriers): without an allocation call no cause is named.
    # intel/compute-runtime#984's zeMemAllocDevice refusing one 20 GiB allocation with 31 GiB free is the allocation
    # refused (acceptance19 labels it gpu-out-of-memory; one allocation past the single-allocation limit: helper mem31,
    # tests/test_mem31.py); UR's own spelling stays out of memory
    line = "zeMemAllocDevice returns ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY for 20 GiB allocation despite 31 GiB free VRAM\n"
    assert _ids(line)[:1] == ["gpu-out-of-memory"]
    barrier = ("CHIP error [TID 152291] [1693481190.609691528] : hipErrorTbd (ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY ) in "
               "/home/pjaaskel/src/chip-spv/src/backend/Level0/CHIPBackendLevel0.cc:1374:enqueueBarrierImpl\n")
    assert _ids(barrier) == []
    assert _ids("RuntimeError: UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY\n")[:1] == ["gpu-out-of-memory"]


def test_smi_list_after_a_faulty_gpu_line():
    from envcheck.parse.nvidia_smi import FAULTY_GPU, parse_smi

    t = parse_smi((DATA / "smi-L-device-handle-unknown-error-then-gpu1.txt").read_text())
    assert [(g.index, g.name) for g in t.gpus] == [(1, "NVIDIA GeForce RTX 4090")]
    assert t.state == FAULTY_GPU and t.gpus_complete is False and t.faults[0].bus_id == "0000:3B:00.0"
    # the fault line alone stays the error form with no GPU
    alone = parse_smi("Unable to determine the device handle for gpu 0000:3B:00.0: Unknown Error\n")
    assert alone.state == FAULTY_GPU and alone.gpus == []



def _signature_literals():
    """(signature name, literal alternative) of every signature of compat_matrix/errors.toml."""
    from envcheck.matrix import tomllib

    root = Path(__file__).resolve().parent.parent
    with open(root / "compat_matrix" / "errors.toml", "rb") as fh:
        data = tomllib.load(fh)
    sigs = [s for c in data.get("cause", []) for s in c.get("signature", [])] + list(data.get("signature", []))
    return [(str(s.get("name")), a) for s in sigs for a in str(s.get("literal") or "").split("|") if a]


def test_no_signature_literal_is_a_common_word_of_healthy_logs():
    """A signature whose literal is a word of ordinary training-log lines ("nvidia": jetson30's first L4T-image
    literal; "torch==": session 17's uv wordings) makes its regex (and the hard-wrap joins) run on most lines: explain
    fell to a third of its speed on the benchmark's training log. Checked by content, not by time: no literal is in the
    healthy line templates of benchmarks/explain_throughput.py, nor in 0.5% or more of the lines of the real long
    training logs of benchmarks/data/real-long (74,000 lines; "nvidia" is on 1% of them)."""
    import gzip
    import sys

    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "benchmarks"))
    try:
        import explain_throughput
    finally:
        sys.path.pop(0)
    noise = [t.lower() for t in explain_throughput.NOISE]
    lines = []
    for p in sorted((root / "benchmarks" / "data" / "real-long").glob("*.gz")):
        with gzip.open(p, "rt", encoding="utf-8", errors="replace") as fh:
            lines += [ln.lower() for ln in fh.read().splitlines()]
    assert len(lines) > 50_000
    lits = _signature_literals()
    assert len(lits) > 500
    in_noise = [(n, a) for n, a in lits if any(a in t for t in noise)]
    assert in_noise == []
    common = [(n, a) for n, a in lits if sum(1 for ln in lines if a in ln) >= 0.005 * len(lines)]
    assert common == []
