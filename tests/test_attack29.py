"""Attack29: inputs users bring that made envcheck silent, over-certain or wrong.

Each test feeds a real capture (tests/data, cited in tests/data/README.md) in the form a user hands it over, or a
hostile construction, and checks the verdict is right or said to be unknown.

- A snapshot file written by Windows PowerShell (`nvidia-smi > nvidia-smi.txt` writes UTF-16LE with a BOM and CRLF;
  `Out-File -Encoding utf8` writes a UTF-8 BOM): nvidia-smi.txt was "a form envcheck does not read", and a
  packages.json / python.json with a BOM vanished without a word - the frameworks row disappeared and the report
  said OK.
- A hand-made JSON file that is not JSON (a trailing comma, a cut file): same silence. It is now an unreadable
  capture, named in the report.
"""

from __future__ import annotations

import codecs
import json
import os
import shutil
import subprocess
import sys

import pytest

H100 = os.path.join(os.path.dirname(__file__), "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot")


def _run(*args):
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"})


def _status(snap):
    cp = _run("status", "--snapshot", str(snap), "--json")
    assert cp.returncode in (0, 1), cp.stderr
    return json.loads(cp.stdout)


def _h100_copy(tmp_path, *names):
    d = tmp_path / "snap"
    d.mkdir()
    for n in names:
        shutil.copyfile(os.path.join(H100, n), d / n)
    return d


def _powershell_utf16(path):
    """What Windows PowerShell 5.1's `>` writes: UTF-16LE with a BOM, CRLF line ends."""
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n").replace("\n", "\r\n")
    path.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))


def _utf8_bom(path):
    path.write_bytes(codecs.BOM_UTF8 + path.read_bytes())


def test_nvidia_smi_txt_written_by_powershell_is_read(tmp_path):
    d = _h100_copy(tmp_path, "nvidia-smi.txt")
    _powershell_utf16(d / "nvidia-smi.txt")
    rep = _status(d)
    assert rep["driver"]["nvidia_smi_form"] == "table"
    assert rep["driver"]["version"] == "580.159.04" and rep["driver"]["cuda"] == "13.0"
    assert [g["name"] for g in rep["gpus"]] == ["NVIDIA H100 80GB HBM3"]


def test_json_captures_with_a_byte_order_mark_are_read(tmp_path):
    d = _h100_copy(tmp_path, "nvidia-smi.txt", "packages.json", "python.json", "torch.json")
    _utf8_bom(d / "packages.json")
    _utf8_bom(d / "python.json")
    _powershell_utf16(d / "torch.json")
    rep = _status(d)
    assert rep["python"]["version"] == "3.12.3"
    assert rep["frameworks"]["torch"]["version"].startswith("2.11") and rep["frameworks"]["torch"]["cuda"] == "13.0"
    assert not rep.get("problems")


def test_a_package_list_that_is_not_json_is_said_not_read(tmp_path):
    # a hand-made package list with a trailing comma (JSON has none): which frameworks are installed is unknown
    d = _h100_copy(tmp_path, "nvidia-smi.txt")
    (d / "packages.json").write_text('{"torch": "2.11.0+cu130", "numpy": "2.3.5",}\n')
    (d / "python.json").write_text('{"version": "3.12.3", "platform": "linux"')  # cut
    rep = _status(d)
    problems = {p["capture"]: p for p in rep["problems"]}
    assert problems["packages.json"]["status"] == "unreadable" and "not valid JSON" in problems["packages.json"]["detail"]
    assert problems["python.json"]["status"] == "unreadable"
    text = _run("status", "--snapshot", str(d)).stdout
    rows = {line.split()[0]: line for line in text.split("\n\n")[1].splitlines() if line.strip()}
    assert "packages.json" in rows["frameworks"] and "not read" in rows["frameworks"], text
    assert "python.json" in rows["python"], text


DATA = os.path.join(os.path.dirname(__file__), "data", "attack29")


def test_nvml_insufficient_permissions_is_device_access_not_a_missing_driver(tmp_path):
    # https://github.com/NVIDIA/nvidia-container-toolkit/issues/210: rootless podman, the driver works on the host;
    # NVML loaded and answered, it could not open the devices. "no NVIDIA driver / no kernel module" is false.
    d = tmp_path / "snap"
    d.mkdir()
    shutil.copyfile(os.path.join(DATA, "nvml-insufficient-permissions-podman-ctk210.txt"), d / "nvidia-smi.txt")
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1+cu124"}))
    rep = _status(d)
    ids = [f["id"] for f in rep["findings"]]
    assert "no-gpu-driver" not in ids, rep["findings"]
    perm = [f for f in rep["findings"] if f["id"] == "device-permission"]
    assert perm and "Insufficient Permissions" in perm[0]["evidence"], rep["findings"]
    assert "Unknown Error" not in perm[0]["message"]
    assert rep["gpus_known"] is False
    text = _run("status", "--snapshot", str(d)).stdout
    assert "Insufficient Permissions" in text and "no-gpu-driver" not in text


def test_explain_nvml_insufficient_permissions_says_no_missing_driver():
    cp = _run("explain", os.path.join(DATA, "nvml-insufficient-permissions-podman-ctk210.log"), "--no-detect",
              "--json")
    ids = [m["id"] for m in json.loads(cp.stdout)["matches"]]
    assert "no-gpu-driver" not in ids, ids


def test_nvml_json_with_nvmlinit_no_permission_is_device_permission(tmp_path):
    # what envcheck's own NVML probe writes when nvmlInit returns NVML_ERROR_NO_PERMISSION (4)
    d = tmp_path / "snap"
    d.mkdir()
    (d / "nvml.json").write_text(json.dumps({"error": "Insufficient Permissions", "code": 4}))
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1+cu124"}))
    rep = _status(d)
    ids = [f["id"] for f in rep["findings"]]
    assert "device-permission" in ids and "no-gpu-driver" not in ids, rep["findings"]


LOGS = os.path.join(os.path.dirname(__file__), "data", "logs")
SNAPS = os.path.join(os.path.dirname(__file__), "data", "snapshots")


def _explain(log, *args):
    cp = _run("explain", log, "--json", *args)
    assert cp.returncode in (0, 1), cp.stderr
    return json.loads(cp.stdout)["matches"]


def test_bad_param_on_a_snapshot_without_frameworks_or_cudnn_is_not_called_a_healthy_stack():
    # the real GH200 snapshot holds nvidia-smi and python.json only: the frameworks and cuDNN were never captured,
    # so "this machine's GPU stack looks healthy (envcheck finds no driver/CUDA/cuDNN problem)" is more than is known
    ms = _explain(os.path.join(LOGS, "torch-batchnorm1d-bad-param-3d-input.log"),
                  "--snapshot", os.path.join(SNAPS, "gh200-570.124.06-warpik"))
    first = ms[0]
    assert first["id"] == "cudnn-bad-param"
    assert not any("looks healthy" in t for t in first["fixes"]), first["fixes"]
    said = next(t for t in first["fixes"] if "program's own call" in t)
    assert "not captured" in said and "frameworks" in said and "cuDNN" in said, said


def test_miopen_bad_param_on_an_amd_machine_quotes_no_cudnn_header():
    # a real MIOpen "incorrect params" log, explained on the real RX 7600 XT snapshot: no cuDNN constant, no claim
    # that "no driver/CUDA/cuDNN problem" was found on a machine that has none of them
    ms = _explain(os.path.join(LOGS, "vendors", "miopen-forward-convolution-incorrect-params-dcu.log"),
                  "--snapshot", os.path.join(SNAPS, "amd-rx7600xt-raphael-legacy4380"))
    text = " ".join(t for m in ms for t in m["fixes"])
    assert ms[0]["id"] == "cudnn-bad-param"
    assert "CUDNN_BN_MIN_EPSILON" not in text and "driver/CUDA/cuDNN" not in text, text


def test_a_jetson_torch_build_is_not_judged_by_pypi_python_wheels(tmp_path):
    # the real jetson-fpv snapshot (JetPack 5.1.4): its own page shows "Python 3.8.10" and "Torch version:
    # 2.5.1+l4t35.6", a torch built for L4T. PyPI's 2.5.1 wheels start at Python 3.9, which says nothing about it:
    # "torch 2.5.1+l4t35.6 publishes wheels for Python 3.9 ..., not Python 3.8" was false
    d = tmp_path / "snap"
    shutil.copytree(os.path.join(SNAPS, "jetson-orin-nano-jp5.1.4-cuda12.3-jetson-fpv"), d)
    (d / "python.json").write_text(json.dumps({"version": "3.8.10", "implementation": "CPython", "platform": "linux",
                                               "machine": "aarch64"}))
    rep = _status(d)
    assert "python-unsupported" not in [f["id"] for f in rep["findings"]], rep["findings"]
    # a PyPI build on the same Python is still judged by PyPI's wheels
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1"}))
    rep = _status(d)
    assert "python-unsupported" in [f["id"] for f in rep["findings"]]


def test_a_version_only_torch_on_an_amd_machine_is_not_checked_not_ok(tmp_path):
    # the real RX 7600 XT snapshot with a package list naming torch's version only: a PyPI torch on Linux is a CUDA
    # build, a ROCm one carries +rocmX.Y - which one this is was not read, so the row was "ok" with no word said
    d = tmp_path / "snap"
    shutil.copytree(os.path.join(SNAPS, "amd-rx7600xt-raphael-legacy4380"), d)
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1"}))
    rep = _status(d)
    notes = [f for f in rep["findings"] if f["id"] == "not-checked" and f["component"] == "torch"]
    assert notes and "ROCm" in notes[0]["message"] and "not known" in notes[0]["message"], rep["findings"]
    text = _run("status", "--snapshot", str(d)).stdout
    row = next(line for line in text.splitlines() if line.startswith("  torch "))
    assert row.rstrip().endswith("not checked"), row
    # a ROCm build is judged as before (no such note)
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1+rocm6.2"}))
    assert not [f for f in _status(d)["findings"] if f["id"] == "not-checked" and f["component"] == "torch"
                and "not known" in f["message"] and "ROCm build" in f["message"]]


def test_an_archive_of_two_snapshots_is_refused_not_merged_into_one_machine(tmp_path):
    # `tar czf all.tar.gz node1/ node2/` of two real snapshots: the files were read by their base name, first
    # wins, so one machine was made of another's nvidia-smi and this one's ROCm tools. Refused (exit 2), named.
    import tarfile

    arc = tmp_path / "both.tar.gz"
    with tarfile.open(arc, "w:gz") as tf:
        tf.add(os.path.join(SNAPS, "gh200-570.124.06-warpik"), arcname="node1")
        tf.add(os.path.join(SNAPS, "amd-rx7600xt-raphael-legacy4380"), arcname="node2")
    cp = _run("status", "--snapshot", str(arc))
    assert cp.returncode == 2 and "node1" in cp.stderr and "node2" in cp.stderr, (cp.returncode, cp.stderr)
    # one snapshot in a folder, as `envcheck snapshot --archive` writes it, is read as before
    one = tmp_path / "one.tar.gz"
    with tarfile.open(one, "w:gz") as tf:
        tf.add(os.path.join(SNAPS, "gh200-570.124.06-warpik"), arcname="./gh200")
    rep = _status(one)
    assert rep["driver"]["version"] == "570.124.06"


def test_a_quoted_macos_collect_env_still_shows_rosetta():
    # the real collect_env of pytorch/pytorch#146236 (x86_64 Python on an M2 Pro) pasted as a Markdown quote: the
    # "CPU:" field's value on the next line ("> Apple M2 Pro") was not read, so the Rosetta Python went unseen
    with open(os.path.join(os.path.dirname(__file__), "data", "vendors", "collect-env",
                           "macos-x86_64-python-on-m2-pro-pytorch146236.txt"), encoding="utf-8") as fh:
        quoted = "".join("> " + ln for ln in fh.read().splitlines(True))
    cp = subprocess.run([sys.executable, "-m", "envcheck", "explain", "-", "--no-detect", "--json"], input=quoted,
                        capture_output=True, text=True, timeout=120)
    doc = json.loads(cp.stdout)
    assert doc["facts"]["accelerator"]["rosetta"] is True, doc["facts"]
    assert [m["id"] for m in doc["matches"]][:1] == ["python-arch-mismatch"]


H100_CAPTURES = os.path.join(os.path.dirname(__file__), "data", "real", "h100-580.159.04-torch2.11-cu130", "captures")


def test_nvidia_output_saved_under_an_amd_tool_name_makes_no_amd_facts(tmp_path):
    # the real H100's nvidia-smi table / -q / collect_env put in rocm-smi.txt, rocm-smi-product.txt or rocminfo.txt
    # (a wrong file name): "Driver Version: 580.159.04" was read as the amdgpu kernel driver, and any text in
    # rocminfo.txt made the machine AMD ("AMD's ROCm stack answered (rocminfo)")
    for cap in ("nvidia-smi.txt", "nvidia-smi-q.txt", "collect-env.txt"):
        for key in ("rocm-smi.txt", "rocm-smi-product.txt", "rocminfo.txt", "amd-smi-static.txt"):
            d = tmp_path / f"{cap}-{key}"
            d.mkdir()
            shutil.copyfile(os.path.join(H100_CAPTURES, cap), d / key)
            rep = _status(d)
            assert rep["vendor"] != "amd" and rep["rocm"]["amdgpu"] is None, (cap, key, rep["vendor"], rep["rocm"])
            assert not any("ROCm stack answered" in f["message"] for f in rep["findings"]), (cap, key)


def test_a_python_version_without_its_minor_is_unknown_not_3_0(tmp_path):
    # a hand-made python.json saying "3": torch was said to have "wheels for Python 3.9 ... not Python 3.0"
    d = _h100_copy(tmp_path, "nvidia-smi.txt")
    (d / "python.json").write_text(json.dumps({"version": "3", "platform": "linux", "machine": "x86_64"}))
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1+cu124"}))
    rep = _status(d)
    assert "python-unsupported" not in [f["id"] for f in rep["findings"]], rep["findings"]
    assert not any("3.0" in f["message"] for f in rep["findings"])


#: advice for server / desktop NVIDIA machines that does not apply on a Jetson (L4T): PyPI's CUDA wheels, the
#: CUDA-variant torch index, NVIDIA's desktop driver downloads
_SERVER_ONLY = ("nvidia-cudnn-cu", "nvidia-cublas-cu", "nvidia-cuda-runtime-cu", "download.pytorch.org/whl/cu",
                "nvidia.com/Download", "ubuntu-drivers", "tensorflow[and-cuda]")


@pytest.mark.parametrize("log", ["ct2-cudnn9-cnn-unable-to-load.log", "onnxruntime-libcudnn9-missing.log",
                                 "darknet-cudnn-ops-infer8-libcublas11-missing.log",
                                 "caffe-cudacheckerror-no-kernel-image-k80.log",
                                 "nvidia-smi-no-driver-secure-boot-fedora.log"])
def test_explain_on_a_jetson_names_no_pypi_cuda_wheel_nor_desktop_driver(log):
    # real logs explained with the real jetson-fpv snapshot (JetPack 5.1.4): "pip install nvidia-cudnn-cu13",
    # a cu128 torch index and nvidia.com's driver download were offered to a Jetson, where none of them runs
    ms = _explain(os.path.join(LOGS, log), "--snapshot", os.path.join(SNAPS, "jetson-orin-nano-jp5.1.4-cuda12.3-jetson-fpv"))
    assert ms
    said = [t for m in ms for t in m["fixes"] + m.get("dead_ends", [])]
    bad = [t for t in said if any(x in t for x in _SERVER_ONLY)]
    assert not bad, bad
    assert any("Jetson" in t for m in ms for t in m["fixes"]), [m["fixes"] for m in ms]


def test_a_community_jetson_torch_with_its_cuda_is_not_called_a_server_wheel(tmp_path):
    # jetson-fpv's torch 2.5.1+l4t35.6 is built for the Jetson; with its torch.json (CUDA 11.4 of L4T 35) it was
    # "a CUDA wheel for server aarch64 (SBSA)" - false. A PyPI +cu124 wheel there still is one.
    d = tmp_path / "snap"
    shutil.copytree(os.path.join(SNAPS, "jetson-orin-nano-jp5.1.4-cuda12.3-jetson-fpv"), d)
    (d / "torch.json").write_text(json.dumps({"version": "2.5.1+l4t35.6", "cuda": "11.4", "cudnn": 8600,
                                              "arch_list": None}))
    rep = _status(d)
    assert not any("SBSA" in f["message"] for f in rep["findings"]), rep["findings"]
    (d / "torch.json").unlink()
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1+cu124"}))
    sbsa = [f for f in _status(d)["findings"] if "SBSA" in f["message"]]
    assert sbsa and sbsa[0]["evidence"].startswith("jetson_release"), sbsa


def _fix(snap, *args):
    cp = _run("fix", "--snapshot", str(snap), "--json", *args)
    assert cp.returncode in (0, 1), cp.stderr
    return cp.returncode, json.loads(cp.stdout)


def test_fix_with_nvml_refusing_the_devices_does_not_say_there_is_no_driver(tmp_path):
    # NVML answered "Insufficient Permissions" (nvidia-container-toolkit#210): the driver is there, its version is
    # not known. fix said "no NVIDIA driver was found on this machine" and asked for a driver upgrade (exit 1)
    d = tmp_path / "snap"
    d.mkdir()
    shutil.copyfile(os.path.join(DATA, "nvml-insufficient-permissions-podman-ctk210.txt"), d / "nvidia-smi.txt")
    shutil.copyfile(os.path.join(H100, "python.json"), d / "python.json")
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1+cu124"}))
    code, plan = _fix(d)
    text = json.dumps(plan)
    assert "no NVIDIA driver was found" not in text and "upgrade the NVIDIA driver" not in text, plan
    assert code == 0 and plan["packages"][0]["variant"] != "cpu", plan


def test_fix_with_an_unrecognised_nvidia_smi_txt_keeps_the_cuda_build(tmp_path):
    # nvidia-smi.txt holding `nvidia-smi topo -m` (the real H100's): its form is not read, so nothing is known of
    # the driver - fix said "no NVIDIA driver and no sign of an NVIDIA GPU" and swapped torch+cu124 for the CPU build
    d = tmp_path / "snap"
    d.mkdir()
    shutil.copyfile(os.path.join(H100_CAPTURES, "nvidia-smi-topo.txt"), d / "nvidia-smi.txt")
    shutil.copyfile(os.path.join(H100, "python.json"), d / "python.json")
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1+cu124"}))
    code, plan = _fix(d)
    text = json.dumps(plan)
    assert "no sign of an NVIDIA GPU" not in text and "no NVIDIA driver was found" not in text, plan
    assert plan["packages"][0]["variant"] != "cpu", plan


def test_nvidia_smi_xml_copied_html_escaped_from_a_page_is_read(tmp_path):
    # the real `nvidia-smi -q -x` of tests/data/nvidia-smi-forms (535.86.05, RTX 4090) as a scraped page holds it:
    # "&lt;driver_version&gt;535.86.05&lt;/driver_version&gt;"
    import html

    with open(os.path.join(os.path.dirname(__file__), "data", "nvidia-smi-forms", "x-535.86.05-rtx4090-cut-in-gpu.txt"),
              encoding="utf-8") as fh:
        escaped = html.escape(fh.read())
    d = tmp_path / "snap"
    d.mkdir()
    (d / "nvidia-smi.txt").write_text(escaped)
    rep = _status(d)
    assert rep["driver"]["nvidia_smi_form"] == "nvidia-smi -q -x" and rep["driver"]["version"] == "535.86.05", rep["driver"]


@pytest.mark.parametrize("capture", ["nvidia-smi.txt", "nvidia-smi-L.txt"])
@pytest.mark.parametrize("value", ["GPU-00000000-0000-0000-0000-000000000001", "GPU-00000000",
                                   "MIG-GPU-00000000-0000-0000-0000-000000000001/1/0",
                                   "MIG-1b2c3d4e-0000-5f6a-7b8c-9d0e1f2a3b4c"])
def test_cuda_visible_devices_naming_the_gpu_by_uuid_is_not_no_gpu_visible(tmp_path, capture, value):
    # the real H100 (its -L names GPU-00000000-0000-0000-0000-000000000001 in the redacted capture) with
    # CUDA_VISIBLE_DEVICES set to its UUID, a unique prefix of it (CUDA accepts one), a MIG instance of it, or a MIG
    # UUID: "names no GPU of this machine" was an error - the table shows no UUID, and -L's was not kept
    d = tmp_path / "snap"
    d.mkdir()
    shutil.copyfile(os.path.join(H100_CAPTURES, capture), d / "nvidia-smi.txt")
    (d / "packages.json").write_text(json.dumps({"torch": "2.11.0+cu130"}))
    (d / "environ.json").write_text(json.dumps({"CUDA_VISIBLE_DEVICES": value}))
    rep = _status(d)
    assert "no-gpu-visible" not in [f["id"] for f in rep["findings"]], rep["findings"]
    if capture == "nvidia-smi-L.txt":
        assert rep["gpus"][0]["uuid"] == "GPU-00000000-0000-0000-0000-000000000001"


def test_cuda_visible_devices_naming_another_uuid_is_still_no_gpu_visible(tmp_path):
    d = tmp_path / "snap"
    d.mkdir()
    shutil.copyfile(os.path.join(H100_CAPTURES, "nvidia-smi-L.txt"), d / "nvidia-smi.txt")
    (d / "environ.json").write_text(json.dumps({"CUDA_VISIBLE_DEVICES": "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"}))
    assert "no-gpu-visible" in [f["id"] for f in _status(d)["findings"]]


def test_two_machines_tables_in_one_nvidia_smi_txt_are_not_merged_into_one_machine(tmp_path):
    # the real H100 table (580.159.04, one GPU) followed by another machine's real table (550.90.07, 8x H100, from
    # tests/data/nvidia-smi): one driver, 8 GPUs - GPU 0 of one machine and GPUs 1-7 of the other - "known" complete
    d = tmp_path / "snap"
    d.mkdir()
    with open(d / "nvidia-smi.txt", "w", encoding="utf-8") as out:
        for p in (os.path.join(H100_CAPTURES, "nvidia-smi.txt"),
                  os.path.join(os.path.dirname(__file__), "data", "nvidia-smi", "550.90.07-8x-h100.txt")):
            with open(p, encoding="utf-8") as fh:
                out.write(fh.read())
    rep = _status(d)
    assert rep["driver"]["version"] == "580.159.04"
    assert len(rep["gpus"]) == 1 and rep["gpus"][0]["memory_mib"] == 81559, rep["gpus"]
