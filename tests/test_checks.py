"""Scenarios: a machine described by snapshot files -> the findings envcheck must give.

Expected values are written by hand from the cited official tables, never read from the matrix:
- driver 470.x supports CUDA 11.4; 525.60.13 is CUDA 12.0 and the 12.x minor-version floor;
  450.80.02 is the 11.x floor (CUDA Toolkit release notes, "CUDA Toolkit and Corresponding
  Driver Versions" / CUDA Compatibility guide).
- torch 2.8.0+cu128 is compiled for sm_70..sm_120 without sm_61 (its wheel's libtorch_cuda.so;
  pytorch/pytorch .ci/manywheel/build_cuda.sh for 12.8).
- GeForce GTX 1080 Ti is compute capability 6.1 (developer.nvidia.com/cuda-legacy-gpus).
"""

import pytest

from helpers import NO_DRIVER_FOUND, gpu_machine, make_snapshot, torch_install


def ids(report, severity=None):
    return sorted(f["id"] for f in report["findings"] if severity is None or f["severity"] == severity)


def snap(tmp_path, *parts, **files):
    merged = {}
    for p in parts:
        for k, v in p.items():
            if k == "packages.json" and k in merged:
                merged[k] = {**merged[k], **v}
            else:
                merged[k] = v
    merged.update(files)
    return make_snapshot(str(tmp_path / "snap"), merged)


A100 = [("NVIDIA A100-SXM4-40GB", 40960)]
TORCH_251_PINS = ["nvidia-cuda-runtime-cu12==12.4.127; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
                  "nvidia-cudnn-cu12==9.1.0.70; platform_system == \"Linux\" and platform_machine == \"x86_64\""]
TORCH_251_PKGS = {"nvidia-cuda-runtime-cu12": "12.4.127", "nvidia-cudnn-cu12": "9.1.0.70"}


def test_old_driver_with_cu124_torch_is_driver_too_old(tmp_path, run_status):
    d = snap(tmp_path, gpu_machine("470.82.01", "11.4", A100, cc=["8.0"]),
             torch_install("2.5.1+cu124", "12.4", TORCH_251_PINS, TORCH_251_PKGS))
    code, rep, _ = run_status(d)
    assert code == 1 and rep["ok"] is False
    f = next(f for f in rep["findings"] if f["id"] == "driver-too-old")
    assert f["severity"] == "error"
    assert "525.60.13" in f["fix"]  # the CUDA 12.x minor-version-compatibility floor
    assert rep["driver"] == {**rep["driver"], "version": "470.82.01", "cuda": "11.4"}


def test_minor_version_compatibility_cu124_on_525_driver(tmp_path, run_status):
    d = snap(tmp_path, gpu_machine("525.60.13", "12.0", A100, cc=["8.0"]),
             torch_install("2.5.1+cu124", "12.4", TORCH_251_PINS, TORCH_251_PKGS))
    code, rep, _ = run_status(d)
    assert "driver-too-old" not in ids(rep)
    assert code == 0, rep["findings"]


def test_cu118_on_450_80_02_runs_but_not_on_450_51(tmp_path, run_status):
    ok = snap(tmp_path, gpu_machine("450.80.02", "11.0", A100, cc=["8.0"]), torch_install("2.0.1+cu118", "11.8"))
    assert "driver-too-old" not in ids(run_status(ok)[1])
    bad = make_snapshot(str(tmp_path / "old"), {**gpu_machine("450.51.06", "11.0", A100, cc=["8.0"]),
                                               **torch_install("2.0.1+cu118", "11.8")})
    assert "driver-too-old" in ids(run_status(bad)[1], "error")


def test_pascal_gpu_with_cu128_build_is_arch_unsupported(tmp_path, run_status):
    d = snap(tmp_path, gpu_machine("570.86.10", "12.8", [("NVIDIA GeForce GTX 1080 Ti", 11264)], cc=["6.1"]),
             torch_install("2.8.0+cu128", "12.8"))
    code, rep, _ = run_status(d)
    f = next(f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported")
    assert f["severity"] == "error" and "sm_61" in f["message"]
    assert "cu126" in (f["fix"] or "")  # 2.8.0's cu126 variant still has sm_60, whose SASS runs on 6.1
    assert code == 1


def test_gpu_compute_capability_from_name_when_query_lacks_it(tmp_path, run_status):
    m = gpu_machine("470.82.01", "11.4", [("Tesla V100-SXM2-16GB", 16160)])
    d = snap(tmp_path, m)
    rep = run_status(d)[1]
    assert rep["gpus"][0]["compute_capability"] == "7.0"
    assert rep["gpus"][0]["compute_capability_source"] == "envcheck GPU table"


def test_cpu_torch_on_gpu_machine(tmp_path, run_status):
    d = snap(tmp_path, gpu_machine("550.54.15", "12.4", [("NVIDIA GeForce RTX 4090", 24564)], cc=["8.9"]),
             torch_install("2.13.0+cpu", None))
    rep = run_status(d)[1]
    assert ids(rep, "warning") == ["framework-cpu-only"]
    assert rep["ok"] is True


def test_driver_library_mismatch_text(tmp_path, run_status):
    d = snap(tmp_path, **{
        "nvidia-smi.txt": "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.144\n",
        "proc-driver-version.txt": "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:01 UTC 2024\n"})
    code, rep, _ = run_status(d)
    assert ids(rep, "error") == ["driver-library-mismatch"]
    assert "reboot" in rep["findings"][0]["fix"]
    assert code == 1


def test_cuda_visible_devices_empty(tmp_path, run_status):
    d = snap(tmp_path, gpu_machine("535.104.05", "12.2", A100, cc=["8.0"]),
             **{"environ.json": {"CUDA_VISIBLE_DEVICES": ""}})
    rep = run_status(d)[1]
    assert "no-gpu-visible" in ids(rep)
    assert rep["gpus"][0]["visible"] is False


def test_tensorflow_cudnn_older_minor_than_built(tmp_path, run_status):
    d = snap(tmp_path, gpu_machine("535.104.05", "12.2", A100, cc=["8.0"]), **{
        "tensorflow.json": {"version": "2.15.1", "cuda_version": "12.2", "cudnn_version": "8", "is_cuda_build": True,
                            "cuda_compute_capabilities": ["sm_50", "sm_60", "sm_70", "sm_80", "compute_90"]},
        "packages.json": {"tensorflow": "2.15.1"},
        "ldconfig.txt": "4 libs found in cache `/etc/ld.so.cache'\n"
                        "\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8\n"
                        "\tlibcudart.so.12 (libc6,x86-64) => /usr/local/cuda-12.2/lib64/libcudart.so.12\n"
                        "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n",
        "libraries.txt": "/usr/lib/x86_64-linux-gnu/libcudnn.so.8\n/usr/lib/x86_64-linux-gnu/libcudnn.so.8.6.0\n"
                         "/usr/local/cuda-12.2/lib64/libcudart.so.12\n/usr/local/cuda-12.2/lib64/libcudart.so.12.2.140\n"})
    rep = run_status(d)[1]
    f = next(f for f in rep["findings"] if f["id"] == "cudnn-version-mismatch")
    assert "8.6.0" in f["message"] and "8.9" in f["message"]
    assert rep["frameworks"]["tensorflow"]["cudnn"] == "8.9"
    assert rep["cudnn"][0]["version"] == "8.6.0"


def test_tensorflow_without_cudnn(tmp_path, run_status):
    d = snap(tmp_path, gpu_machine("535.104.05", "12.2", A100, cc=["8.0"]), **{
        "tensorflow.json": {"version": "2.15.1", "cuda_version": "12.2", "cudnn_version": "8", "is_cuda_build": True},
        "packages.json": {"tensorflow": "2.15.1"},
        # the library scans were made and hold no CUDA library (without them a copy may be there, unseen: not-checked)
        "ldconfig.txt": "0 libs found in cache `/etc/ld.so.cache'\n", "libraries.txt": ""})
    rep = run_status(d)[1]
    assert {"cudnn-missing", "cuda-runtime-missing"} <= set(ids(rep, "error"))


def test_two_cudnn_8_versions_on_the_search_path(tmp_path, run_status):
    d = snap(tmp_path, **{
        "environ.json": {"LD_LIBRARY_PATH": "/opt/cudnn/lib"},
        "ldconfig.txt": "1 libs found in cache `/etc/ld.so.cache'\n"
                        "\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8\n",
        "libraries.txt": "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.2\n/opt/cudnn/lib/libcudnn.so.8\n"
                         "/opt/cudnn/lib/libcudnn.so.8.6.0\n"})
    rep = run_status(d)[1]
    assert ids(rep, "warning") == ["duplicate-libraries"]
    assert {c["source"] for c in rep["cudnn"]} == {"ldconfig", "LD_LIBRARY_PATH"}


def test_torch_and_tensorflow_pin_different_cudnn(tmp_path, run_status):
    d = snap(tmp_path, gpu_machine("550.54.15", "12.4", A100, cc=["8.0"]),
             torch_install("2.5.1+cu124", "12.4", TORCH_251_PINS, TORCH_251_PKGS), **{
                 "tensorflow.json": {"version": "2.15.1", "cuda_version": "12.2", "cudnn_version": "8",
                                     "is_cuda_build": True},
                 "requires.json": {"torch": TORCH_251_PINS,
                                   "tensorflow": ["nvidia-cudnn-cu12==8.9.4.25; extra == \"and-cuda\""]}})
    with open(d + "/packages.json") as fh:
        import json
        pk = json.load(fh)
    pk["tensorflow"] = "2.15.1"
    with open(d + "/packages.json", "w") as fh:
        json.dump(pk, fh)
    rep = run_status(d)[1]
    f = next(f for f in rep["findings"] if f["id"] == "framework-conflict")
    assert "9.1.0.70" in f["message"] and "8.9.4.25" in f["message"]


def test_toolkit_major_differs_from_torch_cuda(tmp_path, run_status):
    d = snap(tmp_path, torch_install("2.1.0+cu121", "12.1"), **{
        "nvcc.txt": "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 11.8, V11.8.89\n"})
    rep = run_status(d)[1]
    f = next(f for f in rep["findings"] if f["id"] == "cuda-toolkit-mismatch")
    assert f["severity"] == "warning"


def test_python_outside_release_range(tmp_path, run_status):
    d = snap(tmp_path, torch_install("2.5.1+cpu", None), **{
        "python.json": {"version": "3.8.18", "implementation": "CPython", "platform": "linux", "machine": "x86_64"}})
    assert "python-unsupported" in ids(run_status(d)[1], "warning")


def test_forward_compat_libcuda_on_geforce(tmp_path, run_status):
    m = gpu_machine("535.104.05", "12.2", [("NVIDIA GeForce RTX 3090", 24576)], cc=["8.6"])
    d = snap(tmp_path, m, **{"libcuda.json": {"path": "/usr/local/cuda-12.4/compat/libcuda.so.1", "driver_cuda": 12040}})
    rep = run_status(d)[1]
    assert "forward-compat-unsupported" in ids(rep, "error")
    # the same on an A100 (a data-center GPU) is supported
    d2 = make_snapshot(str(tmp_path / "dc"), {**gpu_machine("535.104.05", "12.2", A100, cc=["8.0"]),
                                             "libcuda.json": {"path": "/usr/local/cuda-12.4/compat/libcuda.so.1",
                                                              "driver_cuda": 12040}})
    assert "forward-compat-unsupported" not in ids(run_status(d2)[1])


def test_uv_driver_override_is_used_and_said(tmp_path, run_status):
    d = snap(tmp_path, torch_install("2.5.1+cu124", "12.4", TORCH_251_PINS, TORCH_251_PKGS),
             **{"environ.json": {"UV_CUDA_DRIVER_VERSION": "470.82.01"}})
    rep = run_status(d)[1]
    assert rep["driver"]["version"] == "470.82.01" and rep["driver"]["override"] == "UV_CUDA_DRIVER_VERSION"
    assert any("UV_CUDA_DRIVER_VERSION" in n for n in rep["notes"])
    assert "driver-too-old" in ids(rep)


def test_conda_override_cuda(tmp_path, run_status):
    d = snap(tmp_path, torch_install("2.5.1+cu124", "12.4", TORCH_251_PINS, TORCH_251_PKGS),
             **{"environ.json": {"CONDA_OVERRIDE_CUDA": "11.8"}})
    rep = run_status(d)[1]
    assert rep["driver"]["cuda"] == "11.8"
    assert "driver-too-old" in ids(rep)


def test_torch_pinned_cudnn_not_installed(tmp_path, run_status):
    d = snap(tmp_path, gpu_machine("550.54.15", "12.4", A100, cc=["8.0"]),
             torch_install("2.5.1+cu124", "12.4", TORCH_251_PINS, {"nvidia-cuda-runtime-cu12": "12.4.127"}))
    rep = run_status(d)[1]
    f = next(f for f in rep["findings"] if f["id"] == "cudnn-missing")
    assert "nvidia-cudnn-cu12==9.1.0.70" in f["fix"]


def test_cpu_only_machine_with_toolkit_is_ok(tmp_path, run_status):
    """This development machine's shape: CUDA 13.0 toolkit, no driver, no GPU."""
    d = snap(tmp_path, **{"nvcc.txt": "nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA "
                                      "Corporation\nBuilt on Wed_Aug_20_01:58:59_PM_PDT_2025\nCuda compilation tools, "
                                      "release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0\n",
                          "libcuda.json": {"error": "libcuda.so.1 not found", "code": "not-found"},
                          "nvml.json": {"error": "libnvidia-ml.so.1 not found", "code": "not-found"}})
    code, rep, _ = run_status(d)
    assert code == 0 and rep["ok"] is True
    assert ids(rep) == ["no-gpu-driver"] and rep["findings"][0]["severity"] == "info"
    assert "13.0" in rep["findings"][0]["message"]
    assert rep["toolkit"] == {**rep["toolkit"], "version": "13.0", "nvcc": "13.0.88"}
    assert rep["driver"]["version"] is None and rep["gpus"] == []


def test_require_gpu_turns_missing_driver_into_error(tmp_path, run_status):
    d = snap(tmp_path, NO_DRIVER_FOUND)
    code, rep, _ = run_status(d, "--require-gpu")
    assert code == 1 and ids(rep, "error") == ["no-gpu-driver"]


def test_strict_makes_warnings_fail(tmp_path, run_status):
    d = snap(tmp_path, gpu_machine("550.54.15", "12.4", [("NVIDIA GeForce RTX 4090", 24564)], cc=["8.9"]),
             torch_install("2.13.0+cpu", None))
    assert run_status(d)[0] == 0
    assert run_status(d, "--strict")[0] == 1


@pytest.mark.parametrize("driver,expected", [("384.81", "9.0"), ("418.67", "10.1"), ("470.57.02", "11.4"),
                                             ("535.104.05", "12.2"), ("550.54.14", "12.4"), ("580.65.06", "13.0")])
def test_driver_cuda_derived_when_nvidia_smi_is_silent(tmp_path, run_status, driver, expected):
    # only /sys/module/nvidia/version: the highest CUDA comes from the driver table (NVIDIA release notes)
    d = snap(tmp_path, **{"sys-module-nvidia-version.txt": driver + "\n"})
    rep = run_status(d)[1]
    assert rep["driver"]["version"] == driver and rep["driver"]["cuda"] == expected


def test_container_without_utility_capability_is_explained(tmp_path, run_status):
    d = snap(tmp_path, **{"environ.json": {"NVIDIA_DRIVER_CAPABILITIES": "compute"},
                          "container.json": {"dockerenv": True}})
    rep = run_status(d)[1]
    assert any("lacks 'utility'" in n for n in rep["notes"])
    assert rep["host"]["container"] == "docker"


def test_tensorflow_on_a_cpu_box_is_not_an_error(tmp_path, run_status):
    """Linux `pip install tensorflow` is a CUDA build; on a machine without a driver it runs on the CPU."""
    d = snap(tmp_path, NO_DRIVER_FOUND, **{
        "tensorflow.json": {"version": "2.21.0", "cuda_version": "12.5.1", "cudnn_version": "9", "is_cuda_build": True},
        "packages.json": {"tensorflow": "2.21.0"},
        "requires.json": {"tensorflow": ["nvidia-cudnn-cu12<10.0,>=9.3.0.75; extra == \"and-cuda\""]}})
    code, rep, _ = run_status(d)
    assert code == 0 and ids(rep) == ["no-gpu-driver"] and rep["findings"][0]["severity"] == "info"


def test_cuda_image_started_without_gpus_warns(tmp_path, run_status):
    d = snap(tmp_path, torch_install("2.5.1+cu124", "12.4", TORCH_251_PINS, TORCH_251_PKGS), NO_DRIVER_FOUND,
             **{"environ.json": {"NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_REQUIRE_CUDA": "cuda>=12.4"},
                "container.json": {"dockerenv": True}})
    rep = run_status(d)[1]
    f = rep["findings"][0]
    assert f["id"] == "no-gpu-driver" and f["severity"] == "warning" and "--gpus all" in f["fix"]


def test_tensorflow_with_system_libraries_needs_no_and_cuda(tmp_path, run_status):
    d = snap(tmp_path, gpu_machine("535.104.05", "12.2", A100, cc=["8.0"]), **{
        "tensorflow.json": {"version": "2.15.1", "cuda_version": "12.2", "cudnn_version": "8", "is_cuda_build": True,
                            "cuda_compute_capabilities": ["sm_50", "sm_60", "sm_70", "sm_80", "compute_90"]},
        "packages.json": {"tensorflow": "2.15.1"},
        "requires.json": {"tensorflow": ["nvidia-cudnn-cu12==8.9.4.25; extra == \"and-cuda\""]},
        "ldconfig.txt": "3 libs found in cache `/etc/ld.so.cache'\n"
                        "\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8\n"
                        "\tlibcudart.so.12 (libc6,x86-64) => /usr/local/cuda-12.2/lib64/libcudart.so.12\n"
                        "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n",
        "libraries.txt": "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7\n"})
    code, rep, _ = run_status(d)
    assert code == 0 and ids(rep) == [], rep["findings"]


def test_requirement_pins_match_packaging():
    """The fast Requires-Dist reader agrees with packaging on real torch / TensorFlow lines."""
    from packaging.requirements import Requirement

    from envcheck.parse.requirements import requirement_pins

    lines = TORCH_251_PINS + [
        "filelock", "sympy==1.13.1; python_version >= \"3.9\"", "triton==3.1.0; platform_system == \"Linux\" and "
        "platform_machine == \"x86_64\" and python_version < \"3.13\"", "nvidia-cublas-cu12<13.0,>=12.5.3.2; extra == "
        "\"and-cuda\"", "pywin32; sys_platform == \"win32\"", "fsspec>=0.8.5", "nvidia-nccl-cu12 (==2.21.5) ; "
        "platform_system == 'Linux' or platform_machine == 'aarch64'",
        "tensorflow-io-gcs-filesystem>=0.23.1; (sys_platform != \"win32\" and python_version < \"3.13\") and extra "
        "== \"and-cuda\"", "x>=1; (sys_platform == \"win32\" and python_version < \"3.12\") and extra == \"and-cuda\""]
    for extra in ("", "and-cuda"):
        env = {"python_version": "3.11", "python_full_version": "3.11.7", "sys_platform": "linux",
               "platform_system": "Linux", "platform_machine": "x86_64", "implementation_name": "cpython",
               "platform_python_implementation": "CPython", "os_name": "posix", "extra": extra}
        expected = {}
        for line in lines:
            r = Requirement(line)
            if r.marker is None or r.marker.evaluate(env):
                expected[r.name.lower()] = str(r.specifier)
        got = requirement_pins(lines, env)
        assert set(got) == set(expected)
        for k in got:
            assert sorted(got[k].split(",")) == sorted(expected[k].split(",")) if got[k] else expected[k] == ""


def test_cudnn_9_11_on_a_pascal_gpu_is_a_known_bad_combination(tmp_path):
    """cuDNN >= 9.11 has no pre-Turing kernels (compat_matrix/cudnn.toml known_bad cudnn-9.11-pre-turing)."""
    from envcheck.checks import run_checks
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix
    from envcheck.snapshot import open_snapshot
    from helpers import gpu_machine, make_snapshot, torch_install

    m = load_matrix()

    def findings(cudnn_version, gpu, cc):
        files = gpu_machine("550.54.15", "12.4", [(gpu, 11264)], cc=[cc])
        files.update(torch_install("2.8.0+cu128", "12.8", requires=[f"nvidia-cudnn-cu12=={cudnn_version}"],
                                   packages={"nvidia-cudnn-cu12": cudnn_version}))
        files["libraries.txt"] = ("/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9\n")
        env = collect(open_snapshot(make_snapshot(str(tmp_path / f"{cudnn_version}-{cc}"), files)), m)
        return [f for f in run_checks(env, m) if f.id == "known-bad-combination"]

    hit = findings("9.12.0.46", "NVIDIA GeForce GTX 1080 Ti", "6.1")
    assert hit and "Turing" in hit[0].message and "9.10.2.21" in hit[0].fix
    assert not findings("9.10.2.21", "NVIDIA GeForce GTX 1080 Ti", "6.1")
    assert not findings("9.12.0.46", "NVIDIA GeForce RTX 3090", "8.6")
