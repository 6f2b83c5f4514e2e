"""Attack28: statements made more certain than the input allows, found by feeding envcheck real-looking inputs.

- A snapshot with no driver capture at all (a hand-made one: only a package list) does not tell whether there is
  a driver: `status` must not say the installed CUDA build "will run on the CPU only", and `fix` must not swap it
  for a CPU build because "this machine has no NVIDIA GPU".
- An installed release that the matrix does not list because it is a nightly / source / NGC build (real version
  strings: ``2.1.0.dev20230905`` from https://github.com/pytorch/pytorch/issues/108607, ``2.3.0a0+ebedce2`` with
  CUDA 12.3 on A100s and driver 535.54.03 from https://github.com/vllm-project/vllm/issues/6776) or because it is
  newer than the matrix: `fix` said "the installed versions cannot work here" and planned a downgrade, while
  `status` said OK. It is kept and said to be unknown.
- `matrix why` without --driver / --gpu said "DOES NOT RUN - no NVIDIA driver found": nothing was said about the
  driver, so it is unknown.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from helpers import NO_DRIVER_LOOKED_FOR, gpu_machine, make_snapshot, torch_install

H100 = os.path.join(os.path.dirname(__file__), "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot")
A100 = [("NVIDIA A100-SXM4-80GB", 81920)] * 4


def _run(*args):
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})


def _json(*args):
    cp = _run(*args, "--json")
    assert cp.returncode in (0, 1), cp.stderr
    return cp.returncode, json.loads(cp.stdout)


def _packages_only(tmp_path, packages):
    d = tmp_path / "hand"
    d.mkdir()
    (d / "packages.json").write_text(json.dumps(packages))
    return str(d)


def test_status_with_no_driver_capture_says_nothing_certain_about_the_driver(tmp_path):
    # the real H100 machine's package list alone (torch 2.11.0+cu130 and its nvidia-* wheels): "Installed CUDA
    # builds will run on the CPU only" was said although no driver capture was there
    d = tmp_path / "hand"
    d.mkdir()
    shutil.copyfile(os.path.join(H100, "packages.json"), d / "packages.json")
    code, rep = _json("status", "--snapshot", str(d))
    assert not [f for f in rep["findings"] if f["id"] == "no-gpu-driver"]
    [f] = [f for f in rep["findings"] if f["id"] == "not-checked" and f["component"] == "driver"]
    assert "will run on the CPU only" not in f["message"] and "unknown" in f["message"]
    text = _run("status", "--snapshot", str(d)).stdout
    assert "will run on the CPU only" not in text


def test_status_with_nvidia_smi_failing_still_says_cpu_only(tmp_path):
    # nvidia-smi could not reach the driver: with a CUDA build installed that is a fact, said as one
    d = make_snapshot(str(tmp_path / "s"), {
        "nvidia-smi.txt": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
                          "that the latest NVIDIA driver is installed and running.\n",
        **torch_install("2.5.1+cu124", "12.4")})
    _code, rep = _json("status", "--snapshot", d)
    [f] = [f for f in rep["findings"] if f["id"] == "no-gpu-driver"]
    assert "will run on the CPU only" in f["message"] and "If none is" not in f["message"]


def test_fix_keeps_the_cuda_build_of_a_snapshot_with_no_driver_capture(tmp_path):
    d = _packages_only(tmp_path, {"torch": "2.5.1+cu124"})
    code, plan = _json("fix", "--snapshot", d)
    torch = [p for p in plan["packages"] if p["name"] == "torch"]
    assert code == 0 and torch and torch[0]["variant"] == "cu124", plan
    notes = " | ".join(plan["notes"])
    assert "no NVIDIA GPU" not in notes.replace("whether this machine has an NVIDIA GPU", "")
    assert "whether this machine has an NVIDIA GPU is not known" in notes
    assert "the driver is" not in notes or "not known" in notes


def test_fix_on_a_cpu_build_with_no_driver_capture_says_the_gpu_is_unknown(tmp_path):
    d = _packages_only(tmp_path, {"torch": "2.5.1+cpu"})
    _code, plan = _json("fix", "--snapshot", d)
    assert plan["packages"][0]["variant"] == "cpu"
    assert any("whether this machine has an NVIDIA GPU is not known" in n for n in plan["notes"]), plan["notes"]


def test_a_machine_looked_at_without_a_driver_still_plans_the_cpu_build_and_says_why(tmp_path):
    d = make_snapshot(str(tmp_path / "s"), {**NO_DRIVER_LOOKED_FOR, **torch_install("2.5.1+cu124", "12.4")})
    _code, plan = _json("fix", "--snapshot", d)
    assert plan["packages"][0]["variant"] == "cpu"
    assert any(n.startswith("no NVIDIA driver and no sign of an NVIDIA GPU on this machine") for n in plan["notes"])


def test_fix_keeps_an_ngc_source_build_that_status_finds_running(tmp_path):
    # vllm-project/vllm#6776: PyTorch 2.3.0a0+ebedce2 (NGC), CUDA 12.3, four A100-SXM4-80GB, driver 535.54.03
    files = gpu_machine("535.54.03", "12.2", A100, cc=["8.0"] * 4)
    files["torch.json"] = {"version": "2.3.0a0+ebedce2", "cuda": "12.3", "cudnn": 90000, "arch_list": ["sm_80"]}
    files["packages.json"] = {"torch": "2.3.0a0+ebedce2"}
    d = make_snapshot(str(tmp_path / "s"), files)
    code, rep = _json("status", "--snapshot", d)
    assert rep["ok"] is True
    code, plan = _json("fix", "--snapshot", d)
    assert code == 0 and plan["satisfiable"] is True and plan["packages"] == [], plan
    notes = " | ".join(plan["notes"])
    assert "cannot work here" not in notes and "replaces" not in notes
    assert "keeps the installed torch 2.3.0a0+ebedce2 as it is" in notes and "pre-release or development" in notes
    text = _run("fix", "--snapshot", d).stdout
    assert "plan: nothing to install" in text and "cannot work here" not in text
    out = tmp_path / "envdir"
    cp = _run("fix", "--snapshot", d, "--write-env", str(out))
    assert cp.returncode == 0 and not out.exists() and "installs nothing" in cp.stderr
    venv = tmp_path / "venv"
    cp = _run("fix", "--snapshot", d, "--apply", "--venv", str(venv))
    assert cp.returncode == 0 and not venv.exists() and "nothing was installed" in cp.stderr


def test_fix_keeps_a_nightly_and_plans_the_rest(tmp_path):
    # pytorch/pytorch#108607's conda nightly 2.1.0.dev20230905 (CUDA 11.8) beside a listed TensorFlow, on the real H100
    d = tmp_path / "s"
    shutil.copytree(H100, d)
    pk = json.loads((d / "packages.json").read_text())
    for k in [k for k in pk if k.startswith(("jax", "cupy", "torchvision", "torchaudio"))]:
        del pk[k]
    pk["torch"] = "2.1.0.dev20230905+cu118"
    (d / "packages.json").write_text(json.dumps(pk))
    tj = json.loads((d / "torch.json").read_text())
    tj.update(version="2.1.0.dev20230905+cu118", cuda="11.8", cudnn=8700)
    (d / "torch.json").write_text(json.dumps(tj))
    (d / "requires.json").unlink()
    code, plan = _json("fix", "--snapshot", str(d))
    assert code == 0 and not [p for p in plan["packages"] if p["name"] == "torch"], plan["packages"]
    assert any("keeps the installed torch 2.1.0.dev20230905+cu118" in n for n in plan["notes"])
    assert not any("cannot work here" in n or "replaces the installed torch" in n for n in plan["notes"])


def test_fix_replaces_a_release_newer_than_the_matrix_no_more(tmp_path):
    d = tmp_path / "s"
    shutil.copytree(H100, d)
    pk = json.loads((d / "packages.json").read_text())
    for k in [k for k in pk if k.startswith(("jax", "cupy", "torchvision", "torchaudio"))]:
        del pk[k]
    pk["torch"] = "9.0.0+cu130"
    (d / "packages.json").write_text(json.dumps(pk))
    tj = json.loads((d / "torch.json").read_text())
    tj["version"] = "9.0.0+cu130"
    (d / "torch.json").write_text(json.dumps(tj))
    (d / "requires.json").unlink()
    _code, rep = _json("status", "--snapshot", str(d))
    assert any(f["id"] == "matrix-stale" for f in rep["findings"])
    _code, plan = _json("fix", "--snapshot", str(d))
    assert plan["packages"] == [] and any("newer than every torch release the matrix knows" in n
                                          for n in plan["notes"]), plan


def test_an_old_release_the_matrix_does_not_list_is_replaced_without_saying_it_cannot_work(tmp_path):
    d = make_snapshot(str(tmp_path / "s"), {**gpu_machine("535.54.03", "12.2", A100, cc=["8.0"] * 4),
                                            "packages.json": {"torch": "0.4.1"}})
    _code, plan = _json("fix", "--snapshot", d)
    # (0.4.1: the matrix lists torch from 1.0.0 since matrix25; 1.4.0, used before, now has a row)
    [note] = [n for n in plan["notes"] if n.startswith("replaces the installed torch 0.4.1")]
    assert "cannot work here" not in note and "is not known" in note and "has no row for" in note


def test_matrix_why_without_a_driver_is_unknown_not_does_not_run():
    cp = _run("matrix", "why", "torch==2.5.1", "--python", "3.11", "--json")
    doc = json.loads(cp.stdout)
    gpu = [r for r in doc["results"] if r["build"]["variant"] != "cpu"]
    assert gpu and all(r["verdict"] == "unknown" for r in gpu), [r["verdict"] for r in gpu]
    assert all("no NVIDIA driver found" not in " ".join(r["reasons"]) for r in gpu)
    assert all(any("--driver" in m for m in r["missing"]) and any("--gpu" in m for m in r["missing"]) for r in gpu)
    text = _run("matrix", "why", "torch==2.5.1", "--python", "3.11").stdout
    assert "DOES NOT RUN" not in text and "UNKNOWN" in text
    # a driver that is given and too old is still a failure
    doc = json.loads(_run("matrix", "why", "torch==2.5.1", "--python", "3.11", "--driver", "470.57.02",
                          "--json").stdout)
    cu124 = next(r for r in doc["results"] if r["build"]["variant"] == "cu124")
    assert cu124["verdict"] == "does-not-run"


def test_matrix_why_and_query_say_why_a_pinned_release_is_not_there():
    # pytorch/pytorch#108607's nightly: not "no build runs", but "not listed: unknown"
    for cmd in ("why", "query"):
        cp = _run("matrix", cmd, "torch==2.1.0.dev20230905")
        assert cp.returncode == 1
        assert "pre-release or development build of torch 2.1.0" in cp.stdout and "is not known" in cp.stdout
        doc = json.loads(_run("matrix", cmd, "torch==2.1.0.dev20230905", "--json").stdout)
        assert "is not known" in doc["note"]
    doc = json.loads(_run("matrix", "why", "tensorflow==9.0.0", "--json").stdout)
    assert "newer than every tensorflow release the matrix knows" in doc["note"]
    # a companion's own version numbers are not torch releases: no note rather than a wrong one
    assert "note" not in json.loads(_run("matrix", "query", "torchvision==0.99.0", "--json").stdout)


LOGS = os.path.join(os.path.dirname(__file__), "data", "logs")


def _dead_ends(path, *extra):
    doc = json.loads(_run("explain", path, "--json", *extra).stdout)
    return {m["id"]: m["dead_ends"] for m in doc["matches"]}


def test_no_rocm_dead_end_beside_a_cuda_no_kernel_image_line():
    # real NVIDIA logs (sources in tests/data/logs/README.md): ROCm's harmless amdgpu.ids line was listed as a
    # dead end of their gpu-arch-unsupported although nothing of AMD's is in them
    for name in ("logs20d/torch-31314-gt740m-cc30-no-kernel-image.log",
                 "logs20d/bevfusion-283-rtx3090-torch-cu101-no-kernel-image.log"):
        ends = _dead_ends(os.path.join(LOGS, name), "--no-detect")["gpu-arch-unsupported"]
        assert ends and not any("amdgpu" in e or "ROCm" in e for e in ends), ends
    ends = _dead_ends(os.path.join(LOGS, "logs20d/torch-31314-gt740m-cc30-no-kernel-image.log"),
                      "--snapshot", H100)["gpu-arch-unsupported"]
    assert not any("amdgpu" in e for e in ends), ends
    # ... and kept on a real ROCm log ("HIP error: invalid device function")
    ends = _dead_ends(os.path.join(LOGS, "vendors/rocm-hip-invalid-device-function-rx6600-oasis.log"),
                      "--no-detect")["gpu-arch-unsupported"]
    assert any("amdgpu.ids" in e for e in ends), ends


SMI = os.path.join(os.path.dirname(__file__), "data", "nvidia-smi")


def test_a_version_only_framework_is_not_checked_not_ok(tmp_path):
    # the real 384.111 table of tests/data/nvidia-smi (no CUDA field) and a package list naming versions only:
    # torch 1.0.1 could be a CUDA or a CPU build; tensorflow-gpu 1.12.0's CUDA is not known (no row for it)
    d = tmp_path / "s"
    d.mkdir()
    shutil.copyfile(os.path.join(SMI, "384.111-gtx1050-no-cuda-field.txt"), d / "nvidia-smi.txt")
    (d / "packages.json").write_text(json.dumps({"torch": "1.0.1", "tensorflow-gpu": "1.12.0"}))
    (d / "python.json").write_text(json.dumps({"version": "3.6.9", "implementation": "CPython", "platform": "linux",
                                               "machine": "x86_64"}))
    _code, rep = _json("status", "--snapshot", str(d))
    notes = {f["component"]: f for f in rep["findings"] if f["id"] == "not-checked"}
    assert "whether this is a CUDA or a CPU build is not known" in notes["torch"]["message"]
    tf = notes["tensorflow"]
    assert "torch.version.cuda" not in tf["message"] and "tf.sysconfig.get_build_info()" in tf["message"]
    assert "driver: minor-version compatibility" not in tf["evidence"] and "driver: unknown" in tf["evidence"]
    text = _run("status", "--snapshot", str(d)).stdout
    table = text.split("\n\n")[1]  # the component rows, before the findings
    rows = {line.split()[0]: line for line in table.splitlines() if line.startswith("  ") and line.split()}
    assert rows["torch"].rstrip().endswith("not checked") and rows["tensorflow"].rstrip().endswith("not checked")
    md = _run("status", "--snapshot", str(d), "--markdown").stdout
    assert "| torch | 1.0.1 (build unknown: supply torch.json or requires.json) | not checked |" in md


PINS = os.path.join(os.path.dirname(__file__), "data", "pins-attack28")


def _pins(name, *extra):
    cp = _run("fix", "--check-pins", os.path.join(PINS, name), "--python", "3.11", *extra)
    return cp.returncode, cp.stdout


def test_check_pins_reads_platform_markers_instead_of_merging_every_platform():
    # linux, darwin and win32 pins in one file were merged into torch==2.6.0,==2.7.0.dev...: "CANNOT WORK"
    code, out = _pins("requirements-platform-markers-nightly-win.txt")
    assert code == 0 and "CANNOT WORK" not in out, out
    assert 'torch==2.6.0+cu124; sys_platform == "linux": its marker holds here' in out
    assert 'sys_platform == "win32": its marker does not hold on linux-x86_64' in out
    # on Windows the nightly is the pin: not listed in the matrix, so not checked (never "cannot work")
    code, out = _pins("requirements-platform-markers-nightly-win.txt", "--platform", "windows-x86_64")
    assert code == 0 and "CANNOT WORK" not in out and "problem:" not in out, out
    assert "pre-release or development build of torch 2.7.0" in out and "not checked" in out
    assert "no checkable torch / tensorflow / jax pin" in out


def test_check_pins_names_the_lines_it_cannot_read():
    code, out = _pins("requirements-torch-cuda-tag-envvar.txt")
    assert code == 0
    assert "torch==2.1.0+${CUDA_TAG}" in out and "environment variable that pip expands" in out
    code, out = _pins("requirements-direct-url-and-typos.txt")
    assert "torch @ https://download.pytorch.org/whl/cu111/" in out and "a URL or a path" in out


def test_check_pins_an_unreadable_framework_line_is_a_problem(tmp_path):
    f = tmp_path / "requirements.txt"
    f.write_bytes(b"torch=2.5.1\ntensorflow==2.15.0\x00\x1b[31m\n")
    cp = _run("fix", "--check-pins", str(f))
    assert cp.returncode == 1, cp.stdout
    assert "problem:" in cp.stdout and "'torch=2.5.1' is not a PEP 508 requirement" in cp.stdout
    assert "\x1b" not in cp.stdout and "\x00" not in cp.stdout
    cp = _run("fix", "--check-pins", str(f), "--json")
    assert cp.returncode == 1 and cp.stdout == "" and "torch=2.5.1" in cp.stderr


def test_native_windows_libraries_are_not_checked_not_missing(tmp_path):
    # the real Windows (WDDM) table of tests/data/nvidia-smi and pytorch/pytorch#51858's Windows build (torch
    # 2.0.1+cu117, Python 3.9 on Windows-10): Windows loads cudart64_*.dll / cudnn DLLs that the Linux scans cannot
    # see, so an envcheck snapshot that found no ldconfig there says nothing about them
    d = tmp_path / "s"
    d.mkdir()
    shutil.copyfile(os.path.join(SMI, "531.14-windows-wddm-gtx1080ti.txt"), d / "nvidia-smi.txt")
    (d / "python.json").write_text(json.dumps({"version": "3.9.16", "implementation": "CPython", "platform": "win32",
                                               "machine": "AMD64"}))
    (d / "packages.json").write_text(json.dumps({"torch": "2.0.1+cu117"}))
    (d / "captures.json").write_text(json.dumps({
        "ldconfig.txt": {"status": "not-found", "origin": "ldconfig", "detail": "ldconfig: not found"},
        "libraries.txt": {"status": "not-found", "origin": "", "detail": "no library found"}}))
    code, rep = _json("status", "--snapshot", str(d))
    ids = [f["id"] for f in rep["findings"]]
    assert code == 0 and "cuda-runtime-missing" not in ids and "cudnn-missing" not in ids, rep["findings"]
    [note] = [f for f in rep["findings"] if f["id"] == "not-checked" and "native Windows" in f["message"]]
    assert "ldconfig" not in note["fix"]


def test_a_newline_in_a_capture_does_not_start_a_line_of_its_own(tmp_path):
    # a snapshot's meta.json hostname and nvml.json GPU name are untrusted text: a newline in them printed as is
    # forged a summary line ("OK, 0 warning(s)") and split the header
    d = tmp_path / "s"
    d.mkdir()
    (d / "meta.json").write_text(json.dumps({"schema": "envcheck/snapshot/1", "created": "2026-01-01T00:00:00Z",
                                             "hostname": "node1\nFORGED: OK, 0 warning(s)"}))
    (d / "nvml.json").write_text(json.dumps({"driver_version": "535.104.05", "cuda_driver_version": 12020,
                                             "gpus": [{"name": "NVIDIA A100\nFORGED NOT OK: 9 error(s)",
                                                       "compute_capability": [8, 0], "memory_total_mib": 40960}]}))
    text = _run("status", "--snapshot", str(d)).stdout
    lines = text.splitlines()
    assert not any(line.startswith("FORGED") for line in lines), text
    assert "node1?FORGED: OK, 0 warning(s)" in lines[0]
    assert any("NVIDIA A100?FORGED NOT OK: 9 error(s)" in line for line in lines)


def test_fix_on_a_snapshot_without_a_package_list_does_not_say_nothing_is_installed():
    # tests/data/snapshots/gh200-570.124.06-warpik: a real GH200 nvidia-smi table and python.json, no package list
    d = os.path.join(os.path.dirname(__file__), "data", "snapshots", "gh200-570.124.06-warpik")
    cp = _run("fix", "--snapshot", d)
    assert cp.returncode == 2
    assert "no framework is installed" not in cp.stderr and "is not known" in cp.stderr and "--want" in cp.stderr


def _first_fix(log, *extra):
    doc = json.loads(_run("explain", log, "--json", *extra).stdout)
    return doc["matches"][0]["id"], doc["matches"][0]["fixes"]


def test_explain_does_not_ask_to_upgrade_a_driver_that_already_runs_the_build(tmp_path):
    # the real H100 (driver 580.159.04, torch 2.11.0+cu130): "upgrade from 580.159.04 to >= 580" was false
    log = tmp_path / "x.log"
    log.write_text("RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n")
    cause, fixes = _first_fix(str(log), "--snapshot", H100)
    assert cause == "driver-too-old"
    assert not any("Upgrade the NVIDIA driver from 580.159.04" in f for f in fixes), fixes
    assert "already runs torch 2.11.0+cu130" in fixes[0]
    # a driver that is below the build's floor is still told to upgrade (the real 470 table of tests/data)
    d = tmp_path / "old"
    d.mkdir()
    shutil.copyfile(os.path.join(SMI, "450.57-titan-xp.txt"), d / "nvidia-smi.txt")
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1+cu124"}))
    _cause, fixes = _first_fix(str(log), "--snapshot", str(d))
    assert fixes[0].startswith("Upgrade the NVIDIA driver from 450.57 to >= 525.60.13"), fixes


def test_explain_no_kernel_image_when_the_installed_torch_covers_the_gpu(tmp_path):
    # the real H100: torch.json's arch list has sm_90, so "install torch 2.14.1 cu126" is no fix
    log = tmp_path / "x.log"
    log.write_text("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    cause, fixes = _first_fix(str(log), "--snapshot", H100)
    assert cause == "gpu-arch-unsupported"
    assert "covers this GPU's compute capability 9.0" in fixes[0] and "TORCH_CUDA_ARCH_LIST='9.0'" in fixes[0]
    assert not any(f.startswith("pip install torch==") for f in fixes), fixes
    # the log's own arch list (torch's warning for an RTX 5090) is the log's machine, not this one
    log.write_text("UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the "
                   "current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 "
                   "sm_70 sm_75 sm_80 sm_86 sm_90.\nRuntimeError: CUDA error: no kernel image is available for "
                   "execution on the device\n")
    _cause, fixes = _first_fix(str(log), "--snapshot", H100)
    assert not any("covers this GPU" in f for f in fixes), fixes
    # a log that names another torch (torch==1.8.1+cu101 on an RTX 3090, a real comment) came from another machine
    _cause, fixes = _first_fix(os.path.join(LOGS, "logs20d/bevfusion-283-rtx3090-torch-cu101-no-kernel-image.log"),
                               "--snapshot", H100)
    assert not any("covers this GPU" in f for f in fixes), fixes


def test_a_container_snapshot_without_driver_captures_gives_no_container_verdict(tmp_path):
    # the real H100 container snapshot (container.json: docker, NVIDIA_VISIBLE_DEVICES set) with its driver captures
    # and captures.json taken out: whether a driver answers is not known - no "container started without GPU access"
    d = tmp_path / "s"
    shutil.copytree(H100, d)
    for k in ("nvidia-smi.txt", "nvidia-smi-query.csv", "nvml.json", "libcuda.json", "proc-driver-version.txt",
              "sys-module-nvidia-version.txt", "captures.json"):
        (d / k).unlink()
    _code, rep = _json("status", "--snapshot", str(d))
    assert not [f for f in rep["findings"] if f["id"] == "no-gpu-driver"]
    assert not any("started without GPU access" in (f.get("fix") or "") for f in rep["findings"]), rep["findings"]
    assert any(f["id"] == "not-checked" and f["component"] == "driver" for f in rep["findings"])


def test_fleet_does_not_say_none_for_a_node_whose_gpus_were_not_captured(tmp_path):
    # two reports of the real H100 snapshot and one of a hand-made snapshot without GPU listing (gpus: null)
    d = tmp_path / "reports"
    d.mkdir()
    for host in ("n1", "n2"):
        (d / f"{host}.json").write_text(_run("status", "--snapshot", H100, "--json", "--hostname", host).stdout)
    hand = tmp_path / "hand"
    hand.mkdir()
    shutil.copyfile(os.path.join(H100, "packages.json"), hand / "packages.json")
    (d / "n3.json").write_text(_run("status", "--snapshot", str(hand), "--json", "--hostname", "n3").stdout)
    doc = json.loads(_run("fleet", "summarize", str(d), "--json").stdout)
    gpus = next(x for x in doc["differences"] if x["field"] == "gpus")["values"]
    assert "none" not in gpus and gpus["null"] == ["n3"], gpus
    cudnn = next(x for x in doc["differences"] if x["field"] == "cudnn")["values"]
    assert "none" not in cudnn and cudnn["null"] == ["n3"], cudnn


def test_prometheus_has_no_gpu_count_when_the_gpus_are_not_known(tmp_path):
    d = _packages_only(tmp_path, {"torch": "2.5.1+cu124"})
    out = _run("status", "--snapshot", d, "--prometheus").stdout
    assert not any(line.startswith("envcheck_gpus ") for line in out.splitlines()), out
    out = _run("status", "--snapshot", H100, "--prometheus").stdout
    assert "envcheck_gpus 1" in out.splitlines()


def test_windows_dll_numbers_and_cuda_wheels_that_exist():
    # real Windows logs (tests/data/logs/README.md): cudart64_110.dll is CUDA 11.0 - "pip install
    # nvidia-cuda-runtime-cu110 (CUDA 110)" named a wheel that does not exist; cudart64_90.dll (CUDA 9.0) has no pip
    # wheel at all
    _cause, fixes = _first_fix(os.path.join(LOGS, "logs20e/tf-57103-cudart64-110-tf2.9-windows.log"), "--no-detect")
    assert fixes[0].startswith("pip install nvidia-cuda-runtime-cu11 ") and "CUDA 110" not in fixes[0], fixes
    _cause, fixes = _first_fix(os.path.join(LOGS, "logs20d/tf-13442-cudart64-90-with-cuda-9.1.log"), "--no-detect")
    assert fixes[0].startswith("No pip wheel carries CUDA 9's libraries"), fixes
    assert not any("nvidia-cuda-runtime-cu9" in f or "-cu90" in f for f in fixes)


def test_cuda13_libraries_come_from_the_cuda_toolkit_metapackage(tmp_path):
    # from CUDA 13 the -cu13 library wheels are empty 0.0.1 placeholders; torch 2.11.0+cu130 (the real H100
    # snapshot's requires.json) pins cuda-toolkit[...]==13.0.2
    log = tmp_path / "x.log"
    log.write_text("ImportError: libcudart.so.13: cannot open shared object file: No such file or directory\n")
    _cause, fixes = _first_fix(str(log), "--no-detect")
    assert fixes[0].startswith("pip install 'cuda-toolkit[cudart]==13.*'"), fixes
    assert not any("nvidia-cuda-runtime-cu13" in f for f in fixes)
    _cause, fixes = _first_fix(str(log), "--snapshot", H100)
    assert fixes[0].startswith("pip install 'cuda-toolkit[cudart]==13.0.2'  (pinned by torch 2.11.0+cu130"), fixes


def test_cudnn_missing_for_a_cuda10_build_names_no_pip_wheel(tmp_path):
    # TensorFlow 1.15 (CUDA 10.0, cuDNN 7: its tf.sysconfig build info) with libcudart.so.10.0 but no cuDNN on the
    # real 418.67 Colab table of tests/data/nvidia-smi: nvidia-cudnn-cu10 does not exist
    files = {"nvidia-smi.txt": open(os.path.join(SMI, "418.67-colab-v100-smi-450.66-err.txt")).read(),
             "tensorflow.json": {"version": "1.15.5", "cuda_version": "10.0", "cudnn_version": "7",
                                 "is_cuda_build": True},
             "packages.json": {"tensorflow-gpu": "1.15.5"},
             "ldconfig.txt": "1 libs found in cache `/etc/ld.so.cache'\n\tlibcudart.so.10.0 (libc6,x86-64) => "
                             "/usr/local/cuda-10.0/lib64/libcudart.so.10.0\n",
             "libraries.txt": ""}
    d = make_snapshot(str(tmp_path / "s"), files)
    _code, rep = _json("status", "--snapshot", d)
    miss = [f for f in rep["findings"] if f["id"] == "cudnn-missing"]
    assert miss, rep["findings"]
    assert "nvidia-cudnn-cu10" not in miss[0]["fix"] and "no pip wheel carries a cuDNN for CUDA 10" in miss[0]["fix"]


def test_flash_attention_needs_ampere_gets_no_torch_reinstall():
    # a real FlashAttention "only supports Ampere GPUs or newer" log (Quadro RTX 5000): no torch build lifts a
    # limit of FlashAttention's kernels, so "pip install torch==..." is no fix for it
    for extra in (("--no-detect",), ("--snapshot", H100)):
        _cause, fixes = _first_fix(os.path.join(LOGS, "logs20e/flashattn-762-title-quadro-rtx5000-turing.log"), *extra)
        assert not any(f.startswith("pip install torch==") for f in fixes), fixes
        assert fixes[0].startswith("FlashAttention 2 has kernels only for Ampere"), fixes


def test_no_cudnn_wheel_is_named_where_none_can_exist():
    # real logs (tests/data/logs): TensorFlow built with cuDNN 5.1.10 / 7.0.3 - "pip install
    # 'nvidia-cudnn-cu13>=5.1.10,<6'" named a wheel version that does not exist (the wheels start with cuDNN 8 and
    # CUDA 11; nvidia-cudnn-cu13 holds cuDNN 9 only)
    for name, maj in (("tf-cudnn-5005-vs-5110-dcgan.log", 5), ("logs20d/ssd-tf-340-cudnn-7301-vs-7003.log", 7)):
        for extra in (("--no-detect",), ("--snapshot", H100)):
            _cause, fixes = _first_fix(os.path.join(LOGS, name), *extra)
            assert not fixes[0].startswith("pip install"), fixes
            assert f"no nvidia-cudnn pip wheel carries cuDNN {maj}.x" in fixes[0], fixes
    _cause, fixes = _first_fix(os.path.join(LOGS, "tf-cudnn-9.0-vs-9.3-kaggle.log"), "--snapshot", H100)
    assert fixes[0].startswith("pip install 'nvidia-cudnn-cu13>=9.3.0,<10'"), fixes


def test_explain_header_keeps_a_file_name_on_its_line(tmp_path):
    log = tmp_path / "evil\x1b[31m\nFORGED.log"
    log.write_text("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    out = _run("explain", "--no-detect", str(log)).stdout
    assert "\x1b" not in out and not any(line.startswith("FORGED") for line in out.splitlines()), out
    assert "evil?[31m?FORGED.log" in " ".join(out.split())


def test_status_markdown_cannot_be_injected_by_a_captured_value(tmp_path):
    # a snapshot is shared (a bug report, a fleet node): a GPU name in its nvml.json must not become an image, a link,
    # HTML or a mention in the Markdown a maintainer pastes; envcheck's own code spans stay code spans
    d = tmp_path / "s"
    d.mkdir()
    (d / "nvml.json").write_text(json.dumps({"driver_version": "535.104.05", "cuda_driver_version": 12020, "gpus": [
        {"name": "A100 ![x](http://evil/t.png) <img src=x> @maintainer [l](http://e)", "compute_capability": [8, 0],
         "memory_total_mib": 40960}]}))
    md = _run("status", "--snapshot", str(d), "--markdown").stdout
    import re

    assert "![x](" not in md and not re.search(r"(?<!\\)<img", md) and "[l](" not in md, md
    assert "@maintainer" not in md
    assert "\\!\\[x\\](http://evil/t.png)" in md and "@&#8203;maintainer" in md
    assert "`nvcc --version`" in md  # a code span of envcheck's own text is kept as it is


def test_torch_not_compiled_with_cuda_beside_an_installed_cuda_build(tmp_path):
    # the real H100 (torch 2.11.0+cu130, torch.version.cuda 13.0): "install the CUDA build" is no fix there - another
    # Python / venv ran the program (multiple interpreters), or the log came from elsewhere
    log = tmp_path / "x.log"
    log.write_text("AssertionError: Torch not compiled with CUDA enabled\n")
    cause, fixes = _first_fix(str(log), "--snapshot", H100)
    assert cause == "framework-cpu-only" and fixes[0].startswith("This machine's torch 2.11.0+cu130 is a CUDA build")
    # a CPU torch here keeps the usual fix first
    d = _packages_only(tmp_path, {"torch": "2.5.1+cpu"})
    _cause, fixes = _first_fix(str(log), "--snapshot", d)
    assert not fixes[0].startswith("This machine's torch"), fixes
