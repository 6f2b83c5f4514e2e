"""Requires-Dist markers: evaluated by packaging.markers (PEP 685 extras), and a fact that is not known is not
filled with a default: the line is skipped and the Environment's notes say so."""

from __future__ import annotations

from envcheck.environment import collect
from envcheck.matrix import load_matrix
from envcheck.parse.requirements import requirement_pins
from envcheck.snapshot import open_snapshot
from helpers import make_snapshot

# real lines: tensorflow 2.18.0's METADATA spells its extra "and-cuda"; PEP 685 normalises "and_cuda" to it
TF_LINES = ['nvidia-cudnn-cu12==9.3.0.75; extra == "and-cuda"',
            'nvidia-cublas-cu12==12.5.3.2; extra == "and_cuda"',
            'tensorflow-io-gcs-filesystem>=0.23.1; python_version < "3.12"',
            'numpy<2.1.0,>=1.26.0']
FULL = {"python_version": "3.11", "python_full_version": "3.11.7", "sys_platform": "linux",
        "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix"}


def test_pep685_extra_names_are_normalised():
    pins = requirement_pins(TF_LINES, {**FULL, "extra": "and-cuda"})
    assert pins["nvidia-cudnn-cu12"] == "==9.3.0.75"
    assert pins["nvidia-cublas-cu12"] == "==12.5.3.2"  # extra == "and_cuda" is the and-cuda extra
    assert "nvidia-cublas-cu12" not in requirement_pins(TF_LINES, {**FULL, "extra": ""})


def test_an_unknown_python_version_skips_the_marker_and_says_so():
    skipped: list = []
    env = {k: v for k, v in FULL.items() if not k.startswith("python")}
    pins = requirement_pins(TF_LINES, {**env, "extra": ""}, skipped)
    assert "tensorflow-io-gcs-filesystem" not in pins  # not decided with a guessed 3.11
    assert "numpy" in pins
    assert skipped == ['tensorflow-io-gcs-filesystem>=0.23.1; python_version < "3.12": python_version unknown']


def test_the_running_interpreter_never_fills_a_missing_fact():
    # packaging's Marker.evaluate would take platform_machine from this interpreter; a snapshot of an aarch64
    # machine whose machine fact is missing must not be read as this one
    skipped: list = []
    assert requirement_pins(['x==1; platform_machine == "x86_64"'], {"extra": ""}, skipped) == {}
    assert skipped and "platform_machine unknown" in skipped[0]


def test_environment_notes_name_the_skipped_lines(tmp_path):
    pins = ['nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux" and platform_machine == "x86_64"']
    d = make_snapshot(str(tmp_path / "s"), {
        "python.json": {"version": "3.11.7", "platform": "linux"},  # no machine
        "packages.json": {"torch": "2.5.1"}, "requires.json": {"torch": pins},
        "torch.json": {"version": "2.5.1", "cuda": "12.4"}})
    env = collect(open_snapshot(d), load_matrix())
    assert any("platform_machine unknown" in n and "not evaluated" in n for n in env.notes), env.notes
