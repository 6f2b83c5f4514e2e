"""Where framework build versions hide (envcheck.parse.versions) and nvidia-smi run states
(envcheck.parse.nvidia_smi.smi_state). Version strings are real ones: torch / jaxlib wheel labels
from download.pytorch.org and the jax release index, conda build strings from the pytorch and
conda-forge channels, Requires-Dist pins from the torch / tensorflow wheels."""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.parse import nvidia_smi, versions

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("raw, want", [
    ("12.1", "12.1"), ("10.0.130", "10.0"), ("11.8", "11.8"), ("9.2.148", "9.2"), (" 12.4 ", "12.4"),
    ("12", "12.0"), ("N/A", None), ("", None), (None, None), (12.1, None), ("12.1abc", None),
])
def test_cuda_major_minor(raw, want):
    assert versions.cuda_major_minor(raw) == want


@pytest.mark.parametrize("version, kind, cuda, major, cudnn", [
    ("2.7.1+cu128", "cuda", "12.8", 12, None),
    ("2.5.1+cu124", "cuda", "12.4", 12, None),
    ("1.2.0+cu92", "cuda", "9.2", 9, None),
    ("1.7.1+cu110", "cuda", "11.0", 11, None),
    ("2.9.0+cu130", "cuda", "13.0", 13, None),
    ("1.13.0+cu117.with.pypi.cudnn", "cuda", "11.7", 11, None),
    ("2.5.1+cpu", "cpu", None, None, None),
    ("2.4.0+rocm6.1", "rocm", None, None, None),
    ("2.7.0+xpu", "xpu", None, None, None),
    ("0.1.52+cuda110", "cuda", "11.0", 11, None),
    ("0.4.12+cuda12.cudnn89", "cuda", None, 12, "8.9"),
    ("0.3.25+cuda11.cudnn805", "cuda", None, 11, "8.0.5"),
    ("0.4.7+cuda11.cudnn86", "cuda", None, 11, "8.6"),
])
def test_local_labels(version, kind, cuda, major, cudnn):
    lab = versions.cuda_from_local_label(version)
    assert lab is not None
    assert (lab.kind, lab.cuda, lab.cuda_major, lab.cudnn) == (kind, cuda, major, cudnn)


@pytest.mark.parametrize("version", ["2.5.1", "", None, "2.1.0+git1234abc", "1.0+local", 7])
def test_labels_that_say_nothing_about_cuda(version):
    lab = versions.cuda_from_local_label(version)
    assert lab is None or (lab.cuda is None and lab.cuda_major is None)


@pytest.mark.parametrize("build, want", [
    ("py3.10_cuda11.8_cudnn8.7.0_0", ("11.8", "8.7.0")),
    ("py3.7_cuda10.1.243_cudnn7.6.3_0", ("10.1", "7.6.3")),
    ("py3.9_cuda11.3_cudnn8.2.0_0", ("11.3", "8.2.0")),
    ("cuda120_py311h7e4e5b6_300", ("12.0", None)),
    ("cuda118py310h1bc7a3f_0", ("11.8", None)),
    ("cuda112py39h3e3a1a5_1", ("11.2", None)),
    ("py3.10_cpu_0", None),
    ("cpu_py311h6a8e1d4_0", None),
    ("", None), (None, None),
])
def test_conda_build_strings(build, want):
    assert versions.cuda_from_conda_build(build) == want


def test_pins_only_exact_ones_count():
    # torch 2.5.1+cu124 Requires-Dist (platform markers already evaluated)
    pins = {"nvidia-cuda-runtime-cu12": "==12.4.127", "nvidia-cudnn-cu12": "==9.1.0.70", "filelock": ""}
    assert versions.cuda_from_nvidia_pins(pins) == ("12.4", "nvidia-cuda-runtime-cu12==12.4.127")
    assert versions.cudnn_from_nvidia_pins(pins) == ("9.1.0", "nvidia-cudnn-cu12==9.1.0.70")
    # a floor (jax-cuda12-plugin[with-cuda]) says nothing about the build
    assert versions.cuda_from_nvidia_pins({"nvidia-cuda-runtime-cu12": ">=12.1.105"}) is None
    # CUDA 13 wheels carry no -cuNN suffix
    assert versions.cuda_from_nvidia_pins({"nvidia-cuda-runtime": "==13.0.96"}) == (
        "13.0", "nvidia-cuda-runtime==13.0.96")
    # a pin whose version contradicts its -cuNN name is not trusted
    assert versions.cuda_from_nvidia_pins({"nvidia-cuda-runtime-cu11": "==12.4.127"}) is None


@pytest.mark.parametrize("raw, want", [
    (8902, "8.9.2"), (90100, "9.1.0"), (7605, "7.6.5"), (91002, "9.10.2"), ("9.1.0.70", "9.1.0"), ("9", "9"),
    (0, None), (True, None), ("x", None), (None, None),
])
def test_cudnn_versions(raw, want):
    assert versions.cudnn_from_int(raw) == want


# --------------------------------------------------------------------------- nvidia-smi run states

def _table(name: str) -> nvidia_smi.SmiTable:
    return nvidia_smi.parse_table((DATA / "nvidia-smi" / name).read_text(encoding="utf-8"))


def test_state_of_a_hung_nvidia_smi_is_timed_out_not_absent():
    assert nvidia_smi.smi_state(nvidia_smi.parse_table(None), "timed-out", "nvidia-smi: no answer within 10 s") \
        == "timed-out"
    assert nvidia_smi.smi_state(nvidia_smi.parse_table(None), "not-found", "nvidia-smi: command not found") is None


@pytest.mark.parametrize("text, status, detail, rc, want", [
    ("", "failed", "nvidia-smi: killed by signal SIGSEGV", -11, "crashed"),
    ("", "failed", "nvidia-smi: killed by signal SIGSEGV", None, "crashed"),  # replayed from captures.json
    ("Segmentation fault (core dumped)\n", "ok", "", None, "crashed"),  # a pasted shell transcript
    ("", "failed", "nvidia-smi: exit status 255", 255, "failed"),
    # a state of its own since issue 20: in a container it is lost device access, not a missing driver
    ("Failed to initialize NVML: Unknown Error\n", "failed", "nvidia-smi: exit status 255", 255,
     "nvml-unknown-error"),
])
def test_crash_and_failure_states(text, status, detail, rc, want):
    assert nvidia_smi.smi_state(nvidia_smi.parse_table(text), status, detail, rc) == want


def test_a_classified_error_wins_over_the_exit_status():
    t = _table("error-no-driver.txt")
    assert nvidia_smi.smi_state(t, "failed", "nvidia-smi: exit status 9", 9) == "no-driver"
    t = _table("error-device-handle-unknown-error-2015.txt")
    assert nvidia_smi.smi_state(t, "failed", "nvidia-smi: exit status 255", 255) == "faulty-gpu"


def test_r610_header_reads_kmd_and_umd():
    t = _table("610.43.02-r610-kmd-umd-rtx5070.txt")
    assert (t.driver_version, t.cuda_version, t.state, t.gpus_complete) == ("610.43.02", "13.3", "ok", True)


def test_err_row_is_a_faulty_gpu_without_a_name():
    t = _table("525.85.12-8x-a30-gpu3-err.txt")
    bad = [g for g in t.gpus if g.fault]
    assert [(g.index, g.name, g.bus_id) for g in bad] == [(3, None, "00000000:61:00.0")]
    assert "ERR!" in (bad[0].fault or "")
    assert len(t.gpus) == 8 and t.gpus_complete is True and t.state == "faulty-gpu"
    assert all(g.name == "NVIDIA A30" for g in t.gpus if not g.fault)


def test_err_in_a_reading_only_is_not_a_lost_gpu():
    t = _table("excerpt-rtx4000ada-fan-err-no-header.txt")
    assert [g.fault for g in t.gpus] == [None, None]
    # rows without the driver header are an excerpt: the list is not known to be complete
    assert t.gpus_complete is False and t.driver_version is None


def test_device_handle_error_names_the_bus_and_keeps_the_line():
    t = _table("error-device-handle-gpu-is-lost-windows-wrapped.txt")
    assert [f.bus_id for f in t.faults] == ["0000:03:00.0"]
    assert t.faults[0].text.startswith("Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost")
    assert t.gpus == [] and t.gpus_complete is None and t.state == "faulty-gpu"
    t = _table("error-device-handle-unknown-error-docker-a-i-0.txt")
    assert [f.bus_id for f in t.faults] == ["0000:09:00.0"]


def test_device_handle_line_before_a_table_leaves_a_gap_that_is_still_complete():
    # nvidia-smi prints the handle error, then the table of the GPUs it could open: built from two real
    # captures (the 2015 handle line and the 8x A30 table with its ERR! block removed)
    handle = (DATA / "nvidia-smi" / "error-device-handle-unknown-error-2015.txt").read_text(encoding="utf-8")
    table = (DATA / "nvidia-smi" / "525.85.12-8x-a30-gpu3-err.txt").read_text(encoding="utf-8").splitlines(True)
    start = next(i for i, ln in enumerate(table) if "ERR!" in ln)
    del table[start:start + 4]
    t = nvidia_smi.parse_table(handle + "".join(table))
    assert [g.index for g in t.gpus] == [0, 1, 2, 4, 5, 6, 7]
    assert [f.bus_id for f in t.faults] == ["0000:0B:00.0"]
    assert t.gpus_complete is True and t.state == "faulty-gpu" and t.driver_version == "525.85.12"
    # without the handle line the same gap means GPUs are missing from the text
    assert nvidia_smi.parse_table("".join(table)).gpus_complete is False


def test_header_only_fragment_is_not_zero_gpus():
    for name in ("470.86-header-only-no-closing-bar.txt", "515.48.07-header-only-no-gpu-rows.txt"):
        t = _table(name)
        assert t.gpus == [] and t.gpus_complete is False and t.error is None and t.state == "ok"
    t = _table("error-no-devices.txt")
    assert t.gpus == [] and t.gpus_complete is True and t.state == "no-devices"
