"""What a signature's line means to a rule is its own data (errors.toml ``says``, ``reports``, ``framework``), and which
number a CUDA library's soname carries is the matrix's (cuda.toml ``[[runtime_file]]``, ``[[cuda_library]]``): the
values are checked, used, and give what the packages and logs they come from show (session 14, issues 20 / 24)."""

import copy

import pytest

from envcheck.engine.rules import library_soname, library_wheel, runtime_file, runtime_names_minor
from envcheck.engine.vendors import SAYS
from envcheck.explain import library_major
from envcheck.explain.kb import FRAMEWORKS, RANK_SAYS, REPORTS, load_kb, validate_kb
from envcheck.matrix import load_matrix
from envcheck.matrix.schema import validate_tables


def _data():
    return copy.deepcopy(load_matrix().table("errors"))


def _first_signature(data):
    return data["cause"][0]["signature"][0]


@pytest.mark.parametrize("key,value", [("says", "gpu-build-ran|no-such-meaning"), ("reports", "torch-version"),
                                       ("framework", "jax"), ("says", "")])
def test_the_loader_refuses_a_value_no_rule_reads(key, value):
    data = _data()
    _first_signature(data)[key] = value
    assert any(key in p for p in validate_kb(data, compile_check=False))


def test_the_shipped_values_pass():
    assert validate_kb(_data(), compile_check=False) == []


def test_every_value_is_on_some_signature():
    """A value no signature carries is a rule that reads nothing (a renamed signature would leave it so)."""
    kb = load_kb()
    said = {x for s in kb.signatures for x in s.says}
    assert set(RANK_SAYS) <= said
    assert set(REPORTS) == {s.reports for s in kb.signatures if s.reports}
    assert set(FRAMEWORKS) == {s.framework for s in kb.signatures if s.framework}
    assert not set(RANK_SAYS) & set(SAYS)


def test_the_machine_fact_lines_are_read_by_what_they_report():
    # one real line each (tests/data logs): the line reader names what the line states, not which signature read it
    from envcheck.explain.logfacts import line_reader

    read = line_reader(load_kb())
    got = read("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
               "installed a driver from http://www.nvidia.com/Download/index.aspx") or []
    assert [c.get("reports") for c in got] == ["no-driver"]
    got = read("E tensorflow/stream_executor/cuda/cuda_dnn.cc:378] Loaded runtime CuDNN library: 8.0.5 but source "
               "was compiled with: 8.1.0.") or []
    assert [c.get("reports") for c in got] == ["cudnn"]


def test_the_cuda_runtime_file_per_major():
    # Debian's libcudart11.0 (CUDA 11.2 and 11.8) holds libcudart.so.11.0, libcudart12 libcudart.so.12; TF 2.3 (CUDA
    # 10.1) looks for libcudart.so.10.1 and TF 2.1 for cudart64_101.dll; CUDA 11.x's DLL is cudart64_110.dll, 13's
    # cudart64_13.dll (the sources of compat_matrix/cuda.toml [[runtime_file]])
    m = load_matrix()
    assert [runtime_file(m, c) for c in ("10.1", "11.2", "11.8", "12", "12.4", "13")] == [
        "libcudart.so.10.1", "libcudart.so.11.0", "libcudart.so.11.0", "libcudart.so.12", "libcudart.so.12",
        "libcudart.so.13"]
    assert [runtime_file(m, c, windows=True) for c in ("10.0", "10.1", "11.8", "12.1", "13")] == [
        "cudart64_100.dll", "cudart64_101.dll", "cudart64_110.dll", "cudart64_12.dll", "cudart64_13.dll"]
    assert [runtime_names_minor(m, n) for n in (10, 11, 12)] == [True, False, False]
    # unknown, never a guess: a major without a row, a CUDA 10 build whose minor is not stated
    assert runtime_file(m, "7.5") is None and runtime_names_minor(m, 7) is None
    # CUDA 8 and 9 name the minor as CUDA 10 does (rows added with TensorFlow 1.0-1.12's, session 15)
    assert runtime_file(m, "9.0") == "libcudart.so.9.0" and runtime_file(m, "8.0", windows=True) == "cudart64_80.dll"
    assert runtime_file(m, "10") is None


def test_every_release_the_matrix_knows_has_its_runtime_file():
    m = load_matrix()
    cudas = {str(r.get("cuda")) for r in m.rows("tensorflow", "release") if r.get("cuda")}
    cudas |= {str(r.get("windows_cuda")) for r in m.rows("tensorflow", "release") if r.get("windows_cuda")}
    cudas |= {str(r.get("cuda")) for r in m.rows("onnxruntime", "release") if r.get("cuda")}
    assert cudas and all(runtime_file(m, c) and runtime_file(m, c, windows=True) for c in cudas), sorted(cudas)


def test_which_library_names_carry_the_cuda_major():
    m = load_matrix()
    # libcublas.so.12 / libnvJitLink.so.12 / libcupti.so.12 ship with CUDA 12; libcufft.so.11 and libcurand.so.10 too
    assert [library_soname(m, f) for f in ("cudart", "cublaslt", "nvjitlink", "cupti", "cufft", "curand", "cudnn")] \
        == ["cuda", "cuda", "cuda", "cuda", None, None, "cudnn"]
    assert library_major("libnvJitLink.so.12", "nvjitlink") == ("cuda", 12)
    assert library_major("libcufft.so.11", "cufft") is None
    assert library_major("libcudnn_ops_infer.so.8", "cudnn") == ("cudnn", 8)
    assert library_wheel(m, "cublaslt") == "nvidia-cublas" and library_wheel(m, "nosuchlib") is None


def test_the_schema_refuses_a_bad_row():
    m = load_matrix()
    cuda = copy.deepcopy(m.table("cuda"))
    cuda["runtime_file"].append({"major": 14, "linux": "rm -rf /", "source": "https://example.org/"})
    cuda["cuda_library"].append({"family": "cudart", "soname": "release", "source": "https://example.org/"})
    assert validate_tables("cuda", m.table("cuda")) == []
    problems = validate_tables("cuda", cuda)
    assert any("runtime_file" in p for p in problems) and any("cuda_library" in p for p in problems)
