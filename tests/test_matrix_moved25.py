"""Issue 20 (cleanup25): the last compatibility values that lived in code now live in the matrix, and cuDNN's version
integer has one decoding (envcheck.parse.versions). heldout/rounds/cleanup25-inventory.md lists what moved and why.

* ONNX Runtime's "the CUDA libraries come from NVIDIA's pip wheels" (the fix names them): onnxruntime.toml
  ``[[pip_libraries]]`` (microsoft/onnxruntime#23659: extras for CUDA 12 only; 1.30.0's METADATA: CUDA 13);
* the jax extra that installs a CUDA plugin (none installs jax-cuda11-plugin): jax.toml ``[[cuda_extra]]``
  (jax-ml/jax setup.py at jax-v0.4.22 / jax-v0.7.2);
* the CUDA majors a Jetson has only as its JetPack's own toolkit (XLA's ptxas notice there is no mismatch):
  jetson.toml ``[[fixed_cuda]]`` (NVIDIA's "Simplifying CUDA Upgrades for NVIDIA Jetson Users").

Each rule is checked twice: on the shipped matrix (the behaviour) and on a matrix without the rows (the value is read
from the table, not from code: without it the answer changes)."""

from __future__ import annotations

import copy

import pytest

from envcheck.engine.builds import jax_builds
from envcheck.engine.onnxruntime import ort_needs
from envcheck.engine.vendors import jetpack_ptxas_notice
from envcheck.matrix import Matrix, load_matrix, validate_tables
from envcheck.parse.versions import cuda_from_int, cudnn_digits, cudnn_from_int, cudnn_to_int

M = load_matrix()


def _without(name: str, table: str) -> Matrix:
    data = copy.deepcopy(M.table(name))
    data.pop(table, None)
    return Matrix(directory=M.directory, tables={name: data})


def test_the_moved_tables_are_valid_and_sourced():
    for name, table in (("onnxruntime", "pip_libraries"), ("jax", "cuda_extra"), ("jetson", "fixed_cuda")):
        rows = M.rows(name, table)
        assert rows, (name, table)
        assert validate_tables(name, M.table(name)) == []
        assert all(str(r.get("source", "")).strip() and str(r.get("derived", "")).strip() for r in rows)
    bad = copy.deepcopy(M.table("jax"))
    bad["cuda_extra"][0]["extra"] = "cuda 12"
    assert validate_tables("jax", bad)
    bad = copy.deepcopy(M.table("jetson"))
    bad["fixed_cuda"][0]["cuda_major"] = "10"
    assert validate_tables("jetson", bad)


# -- ONNX Runtime: pip wheels for the CUDA majors its extras pin ------------------------------------------------------
def test_ort_pip_libraries_come_from_the_table():
    by_cuda = {n.cuda_major: n.pip_libraries for v in ("1.19.2", "1.18.1", "1.16.3", "1.30.0") for n in ort_needs(M, v)}
    assert by_cuda == {12: True, 11: False, 13: True}
    # the table, not a threshold in code: without its rows no build names pip wheels
    assert not any(n.pip_libraries for n in ort_needs(_without("onnxruntime", "pip_libraries"), "1.19.2"))


def test_ort_library_fix_names_the_wheels_the_matrix_names():
    """The missing-library fix of checks/libraries.py names its wheels from the matrix (cuda.toml [[cuda_library]],
    [[pip_wheels]]): CUDA 12's -cu12 wheels; for CUDA 13, whose -cu13 library names are empty placeholders on PyPI,
    NVIDIA's cuda-toolkit metapackage by extra (it said nvidia-cuda-runtime-cu13 before); CUDA 11: the archives."""
    from envcheck.checks.libraries import _ort_fix

    fix = {(n.cuda_major, n.cudnn_major): _ort_fix(M, [n]) for v in ("1.19.2", "1.17.1", "1.30.0") for n in ort_needs(M, v)}
    assert fix[(12, 9)].startswith("pip install 'nvidia-cuda-runtime-cu12' 'nvidia-cublas-cu12' 'nvidia-cudnn-cu12==9.*'")
    assert fix[(12, 8)].startswith("pip install 'nvidia-cuda-runtime-cu12' 'nvidia-cublas-cu12' 'nvidia-cudnn-cu12==8.*'")
    assert fix[(13, 9)].startswith("pip install 'cuda-toolkit[cudart,cublas]==13.*' 'nvidia-cudnn-cu13==9.*'")
    assert "-cu13'" not in fix[(13, 9)].split("'nvidia-cudnn-cu13")[0]
    assert fix[(11, 8)].startswith("Install the CUDA 11.8 runtime libraries and cuDNN 8.x (NVIDIA's archives)")


# -- JAX: a plugin is planned through the extra that installs it ------------------------------------------------------
def test_jax_plugins_are_planned_through_their_extra_only():
    builds = jax_builds(M)
    plugins = {b.companions["plugin"]: b.variant for b in builds}
    assert plugins == {"jax-cuda12-plugin": "cuda12", "jax-cuda13-plugin": "cuda13"}
    # jax 0.4.22-0.4.25 list jax-cuda11-plugin among their plugins, yet no extra installs it: no build of it
    assert any("jax-cuda11-plugin" in (r.get("cuda_plugins") or []) for r in M.rows("jax", "release"))
    assert all(b.extras == (b.variant,) for b in builds)
    assert jax_builds(_without("jax", "cuda_extra")) == []


# -- Jetson: XLA's ptxas notice about the board's only toolkit --------------------------------------------------------
@pytest.mark.parametrize("ptxas,expected", [("10.2.300", True), ("10.0.326", True), ("9.0.252", True),
                                            ("11.4.315", False), ("12.2.140", False), ("", False)])
def test_jetpack_ptxas_notice_reads_the_fixed_cuda_table(ptxas, expected):
    caps = {"ptxas": ptxas, "min_toolkit": "11.1"}
    assert jetpack_ptxas_notice(["ptxas-floor-notice"], caps, {"jetson": "Jetson Nano"}, M) is expected
    assert jetpack_ptxas_notice(["ptxas-floor-notice"], caps, {}, M) is False  # no Jetson shown
    assert jetpack_ptxas_notice(["ptxas-floor-notice"], caps, {"jetson": "Jetson Nano"},
                                _without("jetson", "fixed_cuda")) is False


# -- cuDNN's version integer: one decoding, checked against cuDNN's own headers ---------------------------------------
# cudnn_version.h of cuDNN 8.2.1 (Minerallka/cudnn-missed-files-for-cuda-11.4@55a96dcb:include/cudnn_version.h):
#   #define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)
# cudnn_version.h of cuDNN 9.6.0 (zspace/system.cuda-12.6@b3d92c83:include/cudnn_version.h):
#   #define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)
# (cudnn.h of 7.5.0 and cudnn_version.h of 9.2.0 quoted in tests/data/captures20k/cudnn-h-7.5.0-bare-command-fenced.txt,
# cudnn-h-9.2.0-cudnn-v-star-sample-output.txt)
@pytest.mark.parametrize("major,minor,patch", [(8, 2, 1), (9, 6, 0), (7, 5, 0), (9, 2, 0), (8, 9, 7), (7, 5, 1),
                                               (9, 1, 0), (9, 19, 0), (8, 0, 5)])
def test_cudnn_integer_round_trips_the_header_formula(major, minor, patch):
    n = major * (10000 if major >= 9 else 1000) + minor * 100 + patch  # the headers' CUDNN_VERSION, per major
    assert cudnn_from_int(n) == f"{major}.{minor}.{patch}"
    assert cudnn_digits(str(n)) == f"{major}.{minor}.{patch}"
    assert cudnn_to_int(f"{major}.{minor}.{patch}") == n


def test_cudnn_integer_examples_and_bad_input():
    assert cudnn_from_int(8907) == "8.9.7" and cudnn_from_int(7501) == "7.5.1" and cudnn_from_int(90100) == "9.1.0"
    assert cudnn_to_int("9.1.0.70") == 90100 and cudnn_to_int("8.9") == 8900 and cudnn_to_int("9") == 90000
    assert cudnn_to_int("v8.9") is None and cudnn_to_int("") is None
    assert cudnn_digits("123", min_digits=4) is None and cudnn_digits("8907 ") == "8.9.7"
    assert cudnn_digits("1234567") is None and cudnn_digits("٨٩٠٧") is None  # no non-ASCII digits
    assert cuda_from_int(12010) == "12.1" and cuda_from_int(9020) == "9.2" and cuda_from_int(120100) is None


def test_the_readers_use_the_one_decoding():
    """The callers that had their own copy (paste/readers/printed.py, sd_console.py, cupy_config.py, paste/report.py,
    explain's cudnn_version and its *_cuda_int captures) give the decoding's answers."""
    from envcheck.explain import cudnn_version
    from envcheck.paste import read_report

    assert cudnn_version("90100") == "9.1.0" and cudnn_version("7004") == "7.0.4" and cudnn_version("765") is None
    # printed.py (a REPL's value), sd_console.py (kohya_ss's start-up line): the integer read, then kept as
    # torch.backends.cudnn.version() prints it (paste/report.py) and read back by the environment
    repl = (">>> import torch\n>>> torch.__version__\n'2.3.1+cu121'\n>>> torch.backends.cudnn.version()\n{}\n")
    kohya = ("18:57:10-093130 INFO     Torch 2.7.0+cu128\n"
             "18:57:10-093130 INFO     Torch backend: nVidia CUDA 12.8 cuDNN {}\n")
    for text in (repl, kohya):
        for n, v in (("8907", "8.9.7"), ("90701", "9.7.1"), ("7501", "7.5.1")):
            assert read_report(text.format(n)).facts["frameworks"]["torch"]["cudnn"] == v, (text, n)
    cupy = ("OS                           : Linux-5.15.0-x86_64-with-glibc2.35\n"
            "Python Version               : 3.10.12\nCuPy Version                 : 13.0.0\n"
            "CUDA Driver Version          : 12020\n")
    assert read_report(cupy).facts["driver"]["cuda"] == "12.2"
