"""CuPy (issue 23): the table's facts (typed by hand from PyPI METADATA and CuPy's installation guide), and
status / fix judging CuPy's CUDA major against the driver and its CUDA libraries, through the engine and the CLI.

Sources: `pip install --dry-run --report` of cupy_cuda12x-14.2.0 / cupy_cuda13x-14.2.0 / cupy_cuda11x-13.6.0
(cp312 manylinux2014_x86_64): Requires-Python >=3.10 / >=3.10 / >=3.9; the 14.2.0 wheels have
'cuda-toolkit[cublas,cudart,cufft,curand,cusolver,cusparse,nvrtc]==12.* (resp. 13.*); extra == "ctk"', the
cupy-cuda11x 13.6.0 wheel has no ctk extra. docs.cupy.dev/en/stable/install.html: CUDA v12.0 ... v13.1, Python
v3.10 - v3.14.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from envcheck.errors import UsageError
from envcheck.matrix import load_matrix
from envcheck.matrix.verify import sanity_problems
from helpers import gpu_machine, make_snapshot

M = load_matrix()
CTK = ["cublas", "cudart", "cufft", "curand", "cusolver", "cusparse", "nvrtc"]


def _row(dist, version):
    rows = [r for r in M.rows("cupy", "package") if r["distribution"] == dist and r["version"] == version]
    assert len(rows) == 1
    return rows[0]


# the 13.6.0 libraries: DT_NEEDED of the wheel's extension modules (readelf -d): libcublas.so.11/12, libcufft,
# libcurand, libcusolver, libcusparse, libnvrtc (cuDNN / cuTENSOR only for their optional modules)
NEEDED = ["cublas", "cufft", "curand", "cusolver", "cusparse", "nvrtc"]


@pytest.mark.parametrize("dist, version, major, python, libs, ctk", [
    ("cupy-cuda12x", "14.2.0", 12, ["3.10", "3.11", "3.12", "3.13", "3.14"], CTK, True),
    ("cupy-cuda13x", "14.2.0", 13, ["3.10", "3.11", "3.12", "3.13", "3.14"], CTK, True),
    ("cupy-cuda11x", "13.6.0", 11, ["3.9", "3.10", "3.11", "3.12", "3.13"], NEEDED, False),
    ("cupy-cuda12x", "13.6.0", 12, ["3.9", "3.10", "3.11", "3.12", "3.13"], NEEDED, False),
])
def test_cupy_facts(dist, version, major, python, libs, ctk):
    r = _row(dist, version)
    assert r["cuda_major"] == major and r["python"] == python
    assert r.get("cuda_libraries") == libs
    assert ("ctk_extra" in r) == ctk
    assert r["source"] == f"https://pypi.org/project/{dist}/{version}/"


def _run(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, NO_COLOR="1"))


def _snap(tmp_path, driver, cuda, packages):
    files = gpu_machine(driver, cuda, [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"])
    files["packages.json"] = packages
    # the library scans were made and found no CUDA library (a hand-made snapshot without them: not-checked)
    files["ldconfig.txt"] = "0 libs found in cache `/etc/ld.so.cache'\n"
    files["libraries.txt"] = ""
    return make_snapshot(str(tmp_path / "snap"), files)


def _findings(snap):
    out = _run("status", "--snapshot", snap, "--json")
    return {f["id"]: f for f in json.loads(out.stdout)["findings"] if f.get("component") == "cupy"
            or "cupy" in f.get("message", "")}


def test_status_cupy_cuda12x_on_a_cuda_11_driver(tmp_path):
    got = _findings(_snap(tmp_path, "470.82.01", "11.4", {"cupy-cuda12x": "14.2.0", "numpy": "2.1.0"}))
    assert "driver-too-old" in got and "525.60.13" in got["driver-too-old"]["fix"]
    assert "CUDA 12.x" in got["driver-too-old"]["message"]
    assert "cuda-runtime-missing" in got
    assert "cupy-cuda12x[ctk]==14.2.0" in got["cuda-runtime-missing"]["fix"]


def test_status_cupy_fine_with_driver_and_pip_runtime(tmp_path):
    got = _findings(_snap(tmp_path, "580.95.05", "13.0", {"cupy-cuda12x": "14.2.0",
                                                         "nvidia-cublas-cu12": "12.9.1.4"}))
    assert "driver-too-old" not in got and "cuda-runtime-missing" not in got


def test_status_cupy_cuda11x_without_toolkit_names_the_toolkit(tmp_path):
    got = _findings(_snap(tmp_path, "580.95.05", "13.0", {"cupy-cuda11x": "13.6.0"}))
    assert "cuda-runtime-missing" in got and "CUDA 11.x toolkit" in got["cuda-runtime-missing"]["fix"]
    assert "driver-too-old" not in got  # R580 runs CUDA 11 builds


def test_fix_cupy_on_an_old_driver_says_what_lifts_it(tmp_path):
    out = _run("fix", "--snapshot", _snap(tmp_path, "470.82.01", "11.4", {"cupy-cuda12x": "14.2.0"}), "--json")
    assert out.returncode == 1
    plan = json.loads(out.stdout)
    text = json.dumps(plan)
    assert "525.60.13" in text  # the driver that lifts cupy-cuda12x
    assert "CUDA 11.2+ toolkit" in text  # cupy-cuda11x would run on R470 with a local CUDA 11 toolkit


def test_fix_cupy_with_torch_shares_the_cuda_major(tmp_path):
    out = _run("fix", "--snapshot", _snap(tmp_path, "580.95.05", "13.0", {}), "--want", "torch", "--want", "cupy")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "cupy-cuda13x[ctk]==14.2.0" in out.stdout and "torch==2.15.0" in out.stdout


def test_fix_cupy_major_asked_by_name(tmp_path):
    out = _run("fix", "--snapshot", _snap(tmp_path, "580.95.05", "13.0", {}), "--want", "cupy-cuda12x")
    assert out.returncode == 0
    assert "cupy-cuda12x[ctk]==14.2.0" in out.stdout and "cupy-cuda13x" not in out.stdout


def test_per_minor_cupy_name_is_a_usage_error():
    from envcheck.plan.resolve import parse_wants

    with pytest.raises(UsageError):
        parse_wants(["cupy-cuda117"])
    out = _run("fix", "--want", "cupy-cuda117", "--driver", "580.95.05", "--cc", "8.0", "--python", "3.11")
    assert out.returncode == 2


@pytest.mark.parametrize("dist", ["cupy-cuda12x; rm -rf ~", "evil-package", "cupy-cuda12x --index-url http://x"])
def test_a_bundle_cannot_smuggle_a_package_through_cupy(dist):
    rows = [dict(r) for r in M.rows("cupy", "package")]
    good = {"meta": {"schema": 1, "updated": "2026-11-26"}, "package": rows}
    assert sanity_problems({"cupy": good}) == []
    bad = {"meta": good["meta"], "package": [dict(rows[0], distribution=dist)] + rows[1:]}
    assert any("refused" in p for p in sanity_problems({"cupy": bad})), dist


# -- the GPUs CuPy reaches are those of the NVRTC it loads at run time (cupy/cupy#9121: CuPy 13.4.1 with pip's NVRTC
# 12.6 fails on a Blackwell GPU, CUDA 12.8 is the first 12.x toolkit that targets compute capability 10.0 / 12.0);
# which NVRTC is loaded is not captured, so the major's first toolkit's targets are a floor -----------------------
def _gpu_snap(tmp_path, name, cc, packages):
    files = gpu_machine("570.124.06", "12.8", [(name, 32607)], cc=[cc])
    files["packages.json"] = packages
    return make_snapshot(str(tmp_path / "snap"), files)


def _all(snap):
    out = _run("status", "--snapshot", snap, "--json")
    return [f for f in json.loads(out.stdout)["findings"] if f.get("component") == "cupy"]


def test_cupy_cuda12x_with_pip_nvrtc_12_8_runs_on_a_blackwell_gpu(tmp_path):
    got = _all(_gpu_snap(tmp_path, "NVIDIA GeForce RTX 5090", "12.0", {
        "cupy-cuda12x": "14.2.0", "nvidia-cuda-nvrtc-cu12": "12.8.93", "nvidia-cublas-cu12": "12.8.4.1"}))
    assert not [f for f in got if f["id"] == "gpu-arch-unsupported"]
    assert not [f for f in got if "compute capability 12.0" in f["message"]]


@pytest.mark.parametrize("packages", [{"cupy-cuda12x": "14.2.0"},
                                      {"cupy-cuda12x": "14.2.0", "nvidia-cuda-nvrtc-cu12": "12.6.77"}])
def test_cupy_cuda12x_on_a_blackwell_gpu_without_a_known_new_nvrtc_is_unknown_not_a_failure(tmp_path, packages):
    got = _all(_gpu_snap(tmp_path, "NVIDIA GeForce RTX 5090", "12.0", packages))
    assert not [f for f in got if f["id"] == "gpu-arch-unsupported"]
    said = [f for f in got if f["id"] == "not-checked" and "compute capability 12.0" in f["message"]]
    assert said and "NVRTC" in said[0]["message"] and "show_config" in said[0]["message"]


def test_cupy_cuda12x_on_a_kepler_gpu_still_fails(tmp_path):
    # CUDA 12 targets start at compute capability 5.0: no newer 12.x NVRTC adds Kepler back
    got = _all(_gpu_snap(tmp_path, "Tesla K80", "3.7", {"cupy-cuda12x": "14.2.0",
                                                        "nvidia-cuda-nvrtc-cu12": "12.8.93"}))
    assert [f for f in got if f["id"] == "gpu-arch-unsupported"]


def test_cupy_release_the_matrix_lacks_on_a_blackwell_gpu_is_unknown(tmp_path):
    # cupy-cuda12x 13.4.1 (cupy/cupy#9121's) has no row: its CUDA is the major alone, and some CUDA 12.x toolkit
    # (12.8+) targets compute capability 12.0, so the major alone rules nothing out (it did: CUDA "12" read as 12.0)
    got = _all(_gpu_snap(tmp_path, "NVIDIA GeForce RTX 5090", "12.0", {"cupy-cuda12x": "13.4.1"}))
    assert not [f for f in got if f["id"] == "gpu-arch-unsupported"]
    assert [f for f in got if f["id"] == "not-checked" and "compute capability 12.0" in f["message"]]
