"""Attack31: real captures in unusual mixes, and a Python 3.9 reading of times, that made envcheck say something the
captures do not establish.

- An AMD machine's ``rocm-smi`` beside an ``nvidia-smi`` that cannot reach a driver (a package left from an earlier
  install): the NVIDIA finding coloured the ``rocm`` row "warning" and said "this machine is meant to have an NVIDIA
  GPU" although the only GPUs listed are AMD's.
- An Intel Mac whose GPUs are an Intel iGPU and an NVIDIA GeForce (a 2012 MacBook Pro): ``mps-os-too-old`` told the
  user to upgrade macOS for MPS, which needs Apple silicon or an AMD GPU (Apple's "Accelerated PyTorch training on
  Mac" requirements, https://developer.apple.com/metal/pytorch/): no macOS brings MPS to that Mac.
- ``created`` times of fleet reports written by other tools (Go's RFC 3339 nanoseconds, .NET's seven-digit
  fractions): Python 3.9 / 3.10's ``datetime.fromisoformat`` refuses them (3.11 reads them), so on the Pythons the
  project supports the node's time was unknown.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime

import pytest

DATA = os.path.join(os.path.dirname(__file__), "data")


def _run(*args):
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"})


def _snap(tmp_path, files, extra=None):
    """A hand-made snapshot: {snapshot file name: a real capture under tests/data}, plus literal files."""
    d = tmp_path / "snap"
    d.mkdir()
    for name, capture in files.items():
        shutil.copyfile(os.path.join(DATA, capture), d / name)
    for name, text in (extra or {}).items():
        (d / name).write_text(text)
    return d


def _status(snap):
    cp = _run("status", "--snapshot", str(snap), "--json")
    assert cp.returncode in (0, 1), cp.stderr
    text = _run("status", "--snapshot", str(snap)).stdout
    rows = {}
    for line in text.split("\n\n")[1].splitlines():
        if line.strip() and not line.startswith("    "):
            rows.setdefault(line.split()[0], line)
    return json.loads(cp.stdout), text, rows


# rocm-smi of a Radeon RX 9070 XT beside a Granite Ridge iGPU (tests/data/README.md cites it); the nvidia-smi
# error text of tests/data/nvidia-smi/error-no-driver.txt
_AMD = {"rocm-smi.txt": "vendors/rocm-smi/v21j-concise-9070xt-0x7550-granite-ridge-popos.txt",
        "nvidia-smi.txt": "nvidia-smi/error-no-driver.txt"}


def test_a_failing_nvidia_smi_beside_amd_gpus_does_not_colour_the_rocm_row(tmp_path):
    rep, text, rows = _status(_snap(tmp_path, _AMD))
    assert rep["vendor"] == "amd"
    nv = [f for f in rep["findings"] if f["id"] == "no-gpu-driver"]
    assert nv, rep["findings"]
    # the NVIDIA driver's finding is not the ROCm stack's: the rocm row keeps its own verdict
    assert not rows["rocm"].rstrip().endswith(("warning", "ERROR")), text
    assert nv[0]["component"] == "nvidia"
    # only AMD GPUs are listed: an NVIDIA GPU here is not known, never "meant to have"
    assert "meant to have an NVIDIA GPU" not in nv[0]["message"]
    assert "AMD" in nv[0]["message"] and "not known" in nv[0]["message"]
    assert nv[0]["severity"] == "info"


def test_the_same_failing_nvidia_smi_alone_still_says_the_machine_is_meant_for_nvidia(tmp_path):
    rep, text, rows = _status(_snap(tmp_path, {"nvidia-smi.txt": _AMD["nvidia-smi.txt"]}))
    nv = [f for f in rep["findings"] if f["id"] == "no-gpu-driver"]
    assert nv and nv[0]["severity"] == "warning" and nv[0]["component"] == "driver"
    assert "meant to have an NVIDIA GPU" in nv[0]["message"]


def test_a_failing_nvidia_smi_beside_amd_gpus_under_a_cuda_build_is_still_an_error(tmp_path):
    d = _snap(tmp_path, _AMD, {"packages.json": json.dumps({"torch": "2.5.1+cu124"})})
    rep, text, rows = _status(d)
    nv = [f for f in rep["findings"] if f["id"] == "no-gpu-driver"]
    assert nv and nv[0]["severity"] == "error", rep["findings"]


# system_profiler of a 2017-ish Intel Mac whose only GPU is an Intel Iris Plus (tests/data/README.md cites it), and the
# sw_vers of macOS 13.2: every torch release's macOS floor for MPS is met, yet MPS has no GPU to pick
_INTEL_MAC = {"system-profiler-displays.txt": "vendors/system-profiler/v21k-iris-plus-0x8a53-js-comment.txt",
              "sw-vers.txt": "vendors/sw-vers/v21f-13.2-flutter-issue.txt"}
_X86_PY = json.dumps({"version": "3.11.5", "implementation": "CPython", "platform": "darwin", "machine": "x86_64"})


def test_an_intel_mac_with_only_an_intel_gpu_is_not_said_to_run_mps(tmp_path):
    d = _snap(tmp_path, _INTEL_MAC, {"packages.json": json.dumps({"torch": "2.2.2"}), "python.json": _X86_PY})
    rep, text, rows = _status(d)
    assert rep["vendor"] == "apple" and rep["accelerator"]["apple_silicon"] is False
    cpu = [f for f in rep["findings"] if f["id"] == "framework-cpu-only"]
    assert cpu and cpu[0]["severity"] == "warning", rep["findings"]
    assert "Intel Iris Plus Graphics" in cpu[0]["message"]
    assert not rows["torch"].rstrip().endswith(" ok"), text


def test_an_intel_only_mac_on_an_old_macos_is_not_told_that_upgrading_brings_mps(tmp_path):
    d = _snap(tmp_path, {"system-profiler-displays.txt": _INTEL_MAC["system-profiler-displays.txt"],
                         "sw-vers.txt": "vendors/sw-vers/catalina-10.15.5-rubybuild1451.txt"},
              {"packages.json": json.dumps({"torch": "2.2.2"})})
    rep, text, rows = _status(d)
    ids = [f["id"] for f in rep["findings"]]
    assert "framework-cpu-only" in ids and "mps-os-too-old" not in ids, rep["findings"]


def test_a_mac_with_an_amd_gpu_keeps_the_macos_verdict(tmp_path):
    # an Intel Mac with a Radeon Pro 5500M (MPS's AMD path): macOS 10.15.5 is what stands in the way
    d = _snap(tmp_path, {"system-profiler-displays.txt":
                         "vendors/system-profiler/v21l-intel-mac-uhd630-and-5500m-kotlin-raw-string.txt",
                         "sw-vers.txt": "vendors/sw-vers/catalina-10.15.5-rubybuild1451.txt"},
              {"packages.json": json.dumps({"torch": "2.2.2"})})
    rep, text, rows = _status(d)
    old = [f for f in rep["findings"] if f["id"] == "mps-os-too-old"]
    assert old and not any(f["id"] == "framework-cpu-only" for f in rep["findings"]), rep["findings"]
    # no torch release ever had MPS on macOS 10.15: an older torch is no way out
    assert "last torch release whose MPS runs" not in old[0]["fix"]
    assert "12.3" in old[0]["fix"]


@pytest.mark.parametrize("sw_vers", ["vendors/sw-vers/v21f-13.2-flutter-issue.txt",
                                     "vendors/sw-vers/catalina-10.15.5-rubybuild1451.txt"])
def test_fix_on_an_intel_only_mac_plans_a_cpu_run_not_mps(tmp_path, sw_vers):
    d = _snap(tmp_path, {"system-profiler-displays.txt": _INTEL_MAC["system-profiler-displays.txt"],
                         "sw-vers.txt": sw_vers}, {"python.json": _X86_PY})
    cp = _run("fix", "--snapshot", str(d), "--want", "torch", "--json")
    plan = json.loads(cp.stdout)
    # the macOS MPS floor is no constraint where MPS has no GPU: a wheel that installs here is the plan
    assert cp.returncode == 0 and plan["satisfiable"], plan
    assert [p["variant"] for p in plan["packages"]] == ["cpu"]
    assert any("MPS will not be available" in n for n in plan["notes"]), plan["notes"]


# datetime.fromisoformat as Python 3.9 / 3.10 read it: only what isoformat() writes (docs.python.org/3.10/library/
# datetime.html#datetime.datetime.fromisoformat: 'YYYY-MM-DD[*HH[:MM[:SS[.fff[fff]]]][+HH:MM[:SS[.ffffff]]]]')
_PY39_ISO = re.compile(r"\d{4}-\d\d-\d\d(.\d\d(:\d\d(:\d\d(\.\d{3}(\d{3})?)?)?)?([+-]\d\d:\d\d(:\d\d(\.\d{6})?)?)?)?")


class _Py39Datetime(datetime):
    @classmethod
    def fromisoformat(cls, date_string):
        if not _PY39_ISO.fullmatch(date_string):
            raise ValueError(f"Invalid isoformat string: {date_string!r}")
        return super().fromisoformat(date_string)


# (the time as written, its Unix seconds): Go's time.RFC3339Nano (kubectl, Prometheus), .NET's "o" format
# (PowerShell's Get-Date -Format o), the basic form, a comma before the fraction (ISO 8601 allows both)
_TIMES = [("2024-06-01T12:00:00.123456789Z", 1717243200.123456), ("2024-06-01T14:00:00.1234567+02:00", 1717243200.123456),
          ("20240601T120000Z", 1717243200.0), ("2024-06-01T12:00:00,5Z", 1717243200.5),
          ("2024-06-01T12:00:00Z", 1717243200.0), ("2024-06-01 12:00:00", 1717243200.0)]


@pytest.mark.parametrize("text,seconds", _TIMES)
def test_a_reports_created_time_reads_the_same_on_python_3_9(monkeypatch, text, seconds):
    import envcheck.fleet.read as read

    monkeypatch.setattr(read, "datetime", _Py39Datetime)
    assert read.parse_created(text) == pytest.approx(seconds, abs=1e-3)


@pytest.mark.parametrize("text,seconds", _TIMES[:2])
def test_prometheus_created_metric_reads_the_same_on_python_3_9(monkeypatch, text, seconds):
    import envcheck.fleet.read as read
    import envcheck.render.prometheus as prom

    monkeypatch.setattr(read, "datetime", _Py39Datetime)
    monkeypatch.setattr(prom, "datetime", _Py39Datetime, raising=False)
    assert prom._created({"created": text}) == pytest.approx(seconds, abs=1e-3)


@pytest.mark.parametrize("text", ["2024-13-01T00:00:00Z", "2024-06-01T25:00:00Z", "yesterday", "2024-06-01T12:00:00+2",
                                  "2024-06-01T12:00:00Z trailing"])
def test_a_time_that_is_no_time_is_unknown(text):
    from envcheck.fleet.read import parse_created

    assert parse_created(text) is None


# -- a CUDA build of another framework than torch, where no NVIDIA GPU answers ------------------------------------
_JAX_CUDA = {"jax": "0.4.30", "jaxlib": "0.4.30", "jax-cuda12-plugin": "0.4.30", "jax-cuda12-pjrt": "0.4.30"}


def test_a_cuda_jax_on_an_amd_machine_is_not_told_torchs_messages(tmp_path):
    d = _snap(tmp_path, {"rocm-smi.txt": _AMD["rocm-smi.txt"]}, {"packages.json": json.dumps(_JAX_CUDA)})
    rep, text, rows = _status(d)
    mm = [f for f in rep["findings"] if f["id"] == "framework-vendor-mismatch"]
    assert len(mm) == 1 and mm[0]["component"] == "jax", rep["findings"]
    assert "torch" not in mm[0]["message"].lower(), mm[0]["message"]
    # `envcheck fix` plans torch's ROCm builds, not jax's: the fix does not send the user there for jax
    assert "picks the rocmX.Y variant" not in mm[0]["fix"]


def test_a_cuda_cupy_on_an_amd_machine_is_said_not_to_run(tmp_path):
    d = _snap(tmp_path, {"rocm-smi.txt": _AMD["rocm-smi.txt"]}, {"packages.json": json.dumps({"cupy-cuda12x": "13.3.0"})})
    rep, text, rows = _status(d)
    mm = [f for f in rep["findings"] if f["id"] == "framework-vendor-mismatch"]
    assert len(mm) == 1 and mm[0]["component"] == "cupy", rep["findings"]
    assert "runs on the CPU" not in mm[0]["message"] and "no CPU path" in mm[0]["message"]
    assert "cupy on the CPU" not in mm[0]["fix"]


def test_cupy_without_a_driver_is_not_said_to_run_on_the_cpu(tmp_path):
    # the real H100 container's captures with the driver gone (nvidia-smi not found, libcuda / NVML not loadable)
    snap = os.path.join(DATA, "real", "h100-580.159.04-torch2.11-cu130", "snapshot")
    d = tmp_path / "snap"
    shutil.copytree(snap, d)
    captures = json.loads((d / "captures.json").read_text())
    for name in ("nvidia-smi.txt", "nvidia-smi-query.csv", "proc-driver-version.txt", "sys-module-nvidia-version.txt"):
        (d / name).unlink()
        captures[name] = {"detail": "not found", "origin": "", "status": "not-found"}
    (d / "captures.json").write_text(json.dumps(captures))
    (d / "libcuda.json").write_text(json.dumps({"error": "libcuda.so.1: cannot open shared object file"}))
    (d / "nvml.json").write_text(json.dumps({"error": "libnvidia-ml.so.1: cannot open shared object file"}))
    rep, text, rows = _status(d)
    nd = [f for f in rep["findings"] if f["id"] == "no-gpu-driver"]
    assert nd, rep["findings"]
    msg = nd[0]["message"]
    on_cpu = msg[msg.index("Installed CUDA builds"):msg.index("will run on the CPU only")]
    assert "torch 2.11.0+cu130" in on_cpu and "cupy" not in on_cpu, msg
    assert "cupy-cuda13x 14.2.0 cannot run" in msg


# -- a vGPU guest's GPU name ------------------------------------------------------------------------------------
# NVIDIA's vGPU types of the RTX 6000 Ada are named "NVIDIA RTX6000-Ada-<n>Q" (the Linux kernel's NVIDIA vGPU VFIO
# documentation lists creatable_vgpu_types 941-949 as "NVIDIA RTX6000-Ada-1Q" ... ; find_string id 21695765307):
# the name holds the Quadro RTX 6000's alias "RTX6000" (Turing, 7.5), while the GPU is an Ada (8.9)


@pytest.mark.parametrize("name", ["NVIDIA RTX6000-Ada-48Q", "NVIDIA RTX6000-Ada-4Q"])
def test_a_vgpu_name_that_says_ada_is_not_a_turing(name):
    cp = _run("fix", "--want", "torch", "--driver", "550.54.15", "--gpu", name, "--python", "3.11")
    assert "compute capability 7.5" not in cp.stdout + cp.stderr
    assert cp.returncode == 2 and "not in the GPU table" in cp.stderr


def test_every_gpu_table_name_still_finds_its_row():
    from envcheck.matrix import load_matrix

    m = load_matrix()
    for r in m.rows("gpus", "gpu"):
        for n in [r["name"]] + list(r.get("aliases") or []):
            assert m.gpu(n) is not None and m.gpu(n)["compute_capability"] == r["compute_capability"], n


def test_a_vgpu_guests_table_names_no_turing_compute_capability(tmp_path):
    smi = os.path.join(DATA, "real", "h100-580.159.04-torch2.11-cu130", "captures", "nvidia-smi.txt")
    text = open(smi, encoding="utf-8").read()
    name = next(w for w in ("NVIDIA H100 80GB HBM3", "NVIDIA H100") if w in text)
    # the same table as a vGPU guest would print it, with the RTX 6000 Ada's vGPU type in the name column
    d = _snap(tmp_path, {}, {"nvidia-smi.txt": text.replace(name, "NVIDIA RTX6000-Ada-48Q".ljust(len(name)))})
    rep, out, rows = _status(d)
    assert rep["gpus"] and rep["gpus"][0]["name"].startswith("NVIDIA RTX6000-Ada-48Q")
    assert rep["gpus"][0]["compute_capability"] != "7.5", rep["gpus"][0]


def test_an_intel_mac_with_an_nvidia_gpu_is_not_promised_mps_by_a_macos_upgrade(tmp_path):
    # a 2012 MacBook Pro (Intel HD 4000 + GeForce GT 650M; tests/data/README.md cites it) on macOS 10.15.5
    d = _snap(tmp_path, {"system-profiler-displays.txt": "vendors/system-profiler/v21k-hd4000-gt650m-mbp-2012.txt",
                         "sw-vers.txt": "vendors/sw-vers/catalina-10.15.5-rubybuild1451.txt"},
              {"packages.json": json.dumps({"torch": "2.2.2"})})
    rep, text, rows = _status(d)
    old = [f for f in rep["findings"] if f["id"] == "mps-os-too-old"]
    assert old, rep["findings"]
    assert "GeForce GT 650M" in old[0]["fix"] and "not known" in old[0]["fix"]


def test_matrix_why_on_a_snapshot_without_library_captures_says_unknown_not_none(tmp_path):
    # docs/commands' `envcheck matrix why 'tensorflow==2.15.1' --snapshot ...` on a hand-made snapshot that holds no
    # ldconfig.txt / libraries.txt: the system's CUDA runtime and cuDNN were never looked for
    d = _snap(tmp_path, {}, {"python.json": json.dumps({"version": "3.11.7", "implementation": "CPython",
                                                         "platform": "linux", "machine": "x86_64"})})
    cp = _run("matrix", "why", "tensorflow==2.15.1", "--snapshot", str(d), "--driver", "550.54.15", "--cc", "8.0")
    assert "the system has no" not in cp.stdout, cp.stdout
    assert "were not captured (add ldconfig.txt" in cp.stdout


def test_matrix_why_says_what_the_system_lacks_in_plain_words(tmp_path):
    # the same with an ldconfig listing that has no CUDA 12 runtime and no cuDNN: a fact, in plain words
    d = _snap(tmp_path, {}, {"python.json": json.dumps({"version": "3.11.7", "implementation": "CPython",
                                                         "platform": "linux", "machine": "x86_64"}),
                             "ldconfig.txt": "2 libs found in cache `/etc/ld.so.cache'\n"
                                             "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1\n"
                                             "\tlibc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6\n"})
    cp = _run("matrix", "why", "tensorflow==2.15.1", "--snapshot", str(d), "--driver", "550.54.15", "--cc", "8.0")
    line = next(x for x in cp.stdout.splitlines() if "loads the system's CUDA libraries" in x)
    assert "has no a " not in line and "has no CUDA 12.x runtime >= 12.2" in line, line


# -- nvidia-smi's "CUDA Version: ERR!" inside WSL2 (microsoft/WSL#11589; tests/data/nvidia-smi/545.46-wsl2-cuda-err.txt)
_WSL2_KERNEL = ("Linux version 5.15.146.1-microsoft-standard-WSL2 (root@65c757a075e2) (gcc (GCC) 11.2.0, GNU ld (GNU "
                "Binutils) 2.37) #1 SMP Thu Jan 11 04:09:03 UTC 2024\n")


def test_cuda_err_inside_wsl2_is_not_told_to_capture_inside_the_guest(tmp_path):
    d = _snap(tmp_path, {"nvidia-smi.txt": "nvidia-smi/545.46-wsl2-cuda-err.txt"}, {"proc-version.txt": _WSL2_KERNEL})
    rep, text, rows = _status(d)
    assert rep["host"]["wsl"] == "WSL2"
    nc = [f for f in rep["findings"] if f["id"] == "not-checked" and "ERR!" in f["message"]]
    assert nc, rep["findings"]
    assert "Inside the VM / container / guest" not in nc[0]["fix"]
    assert "/usr/lib/wsl/lib" in nc[0]["fix"]


def test_cuda_err_of_a_vgpu_host_keeps_the_inside_the_guest_fix(tmp_path):
    d = _snap(tmp_path, {"nvidia-smi.txt": "nvidia-smi-forms/q-550.127.06-vgpu-h100-nvl-cuda-not-found-partial.txt"})
    rep, text, rows = _status(d)
    nc = [f for f in rep["findings"] if f["id"] == "not-checked" and "Not Found" in f["message"]]
    assert nc and "Inside the VM / container / guest" in nc[0]["fix"], rep["findings"]


# -- the CUDA toolkit's stub libcuda (cuda.h: CUDA_ERROR_STUB_LIBRARY = 34, "CUDA driver is a stub library"); the
# Docker pattern that makes it load: `ln -sf /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/lib64/libcuda.so.1`
# with /usr/local/cuda/lib64 on LD_LIBRARY_PATH "so a leftover stub wins over the real driver" (find_string id
# 53962209974); envcheck/probe/_nvml_child.py writes libcuda.json as below
_STUB = {"path": "/usr/local/cuda/lib64/libcuda.so.1",
         "file": "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so",
         "error": "cuDriverGetVersion failed with CUresult 34", "code": 34}


def _real_h100(tmp_path):
    d = tmp_path / "snap"
    shutil.copytree(os.path.join(DATA, "real", "h100-580.159.04-torch2.11-cu130", "snapshot"), d)
    (d / "libcuda.json").write_text(json.dumps(_STUB))
    env = json.loads((d / "environ.json").read_text())
    env["LD_LIBRARY_PATH"] = "/usr/local/cuda/lib64:" + env.get("LD_LIBRARY_PATH", "")
    (d / "environ.json").write_text(json.dumps(env))
    return d


def test_a_stub_libcuda_beside_a_working_driver_is_an_error(tmp_path):
    rep, text, rows = _status(_real_h100(tmp_path))
    assert rep["driver"]["version"] == "580.159.04" and rep["driver"]["libcuda_stub"] is True
    stub = [f for f in rep["findings"] if f["id"] == "no-gpu-driver"]
    assert stub and stub[0]["severity"] == "error", rep["findings"]
    assert "stub" in stub[0]["message"] and "580.159.04 is installed" in stub[0]["message"]
    assert "LD_LIBRARY_PATH" in stub[0]["fix"]
    assert rep["ok"] is False


def test_a_stub_libcuda_without_a_driver_is_not_said_to_be_no_libcuda(tmp_path):
    d = _real_h100(tmp_path)
    captures = json.loads((d / "captures.json").read_text())
    for name in ("nvidia-smi.txt", "nvidia-smi-query.csv", "proc-driver-version.txt", "sys-module-nvidia-version.txt"):
        (d / name).unlink()
        captures[name] = {"detail": "not found", "origin": "", "status": "not-found"}
    (d / "captures.json").write_text(json.dumps(captures))
    (d / "nvml.json").write_text(json.dumps({"error": "libnvidia-ml.so.1 could not be loaded", "code": "not-found"}))
    rep, text, rows = _status(d)
    nd = [f for f in rep["findings"] if f["id"] == "no-gpu-driver"]
    assert len(nd) == 1 and "stub" in nd[0]["message"], rep["findings"]
    assert "no libcuda.so.1" not in (nd[0]["evidence"] or "")
    assert "stub" in rows["driver"] and "no kernel module, libcuda" not in rows["driver"], text


def test_the_real_h100s_own_libcuda_is_no_stub(tmp_path):
    d = tmp_path / "snap"
    shutil.copytree(os.path.join(DATA, "real", "h100-580.159.04-torch2.11-cu130", "snapshot"), d)
    rep, text, rows = _status(d)
    assert rep["driver"]["libcuda_stub"] is False
    assert not [f for f in rep["findings"] if f["id"] == "no-gpu-driver"]


def test_reports_of_the_mixes_are_valid_against_the_published_schema(tmp_path):
    import jsonschema

    from envcheck import schemas

    with open(schemas.path("report"), encoding="utf-8") as fh:
        schema = json.load(fh)
    for sub in "abc":
        (tmp_path / sub).mkdir()
    for snap in (_real_h100(tmp_path / "a"), _snap(tmp_path / "b", _AMD), _snap(tmp_path / "c", _INTEL_MAC)):
        rep, _, _ = _status(snap)
        jsonschema.validate(rep, schema)


def test_jax_told_not_to_fall_back_is_not_said_to_run_on_the_cpu(tmp_path):
    # jax/_src/xla_bridge.py: platforms listed in JAX_PLATFORMS "always fail loudly" ('Unable to initialize backend
    # ... (set JAX_PLATFORMS='' to automatically choose an available backend)'); without it JAX falls back to the CPU
    d = _snap(tmp_path, {"rocm-smi.txt": _AMD["rocm-smi.txt"]},
              {"packages.json": json.dumps(_JAX_CUDA), "environ.json": json.dumps({"JAX_PLATFORMS": "cuda"})})
    rep, text, rows = _status(d)
    mm = [f for f in rep["findings"] if f["id"] == "framework-vendor-mismatch"]
    assert mm and "runs on the CPU" not in mm[0]["message"] and "JAX_PLATFORMS='cuda'" in mm[0]["message"], mm
    d2 = tmp_path / "cpu-too"
    d2.mkdir()
    for name in ("rocm-smi.txt", "packages.json"):
        shutil.copyfile(d / name, d2 / name)
    (d2 / "environ.json").write_text(json.dumps({"JAX_PLATFORMS": "cuda,cpu"}))
    rep2, _, _ = _status(d2)
    mm2 = [f for f in rep2["findings"] if f["id"] == "framework-vendor-mismatch"]
    assert mm2 and "runs on the CPU only" in mm2[0]["message"], mm2
