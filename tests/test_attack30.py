"""Attack30: inputs users bring that made envcheck say something the text does not establish.

Each test feeds real captures (the H100 machine of tests/data/real, captured this project; other sources cited at
the test) in the form a user hands them over, or a hostile construction, and checks that the verdict is right or
said to be unknown.

- A hand-made snapshot whose ``nvcc.txt`` / ``proc-driver-version.txt`` / ``ldconfig.txt`` holds another command's
  output (the user saved the wrong paste under that name): envcheck read "nothing" from it and said "no nvcc / CUDA
  toolkit found", "No NVIDIA driver answered ... no kernel module", "no libcudnn found". The file is there; its
  form is not recognised: unknown, named in ``problems``.
- ``nvidia-smi-query.csv`` holding the plain table (or an error): "gpu: none found".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

REAL = os.path.join(os.path.dirname(__file__), "data", "real", "h100-580.159.04-torch2.11-cu130")
CAPTURES = os.path.join(REAL, "captures")


def _run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, timeout=120,
                          input=stdin, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"})


def _status(snap):
    cp = _run("status", "--snapshot", str(snap), "--json")
    assert cp.returncode in (0, 1), cp.stderr
    return json.loads(cp.stdout)


def _rows(snap):
    text = _run("status", "--snapshot", str(snap)).stdout
    rows = {}
    for line in text.split("\n\n")[1].splitlines():
        if line.strip() and not line.startswith("    "):
            rows.setdefault(line.split()[0], line)
    return text, rows


def _snap(tmp_path, files):
    """A hand-made snapshot: {snapshot file name: the real capture copied into it}."""
    d = tmp_path / "snap"
    d.mkdir()
    for name, capture in files.items():
        shutil.copyfile(os.path.join(CAPTURES, capture), d / name)
    return d


def test_another_commands_output_saved_as_nvcc_txt_is_not_no_toolkit(tmp_path):
    d = _snap(tmp_path, {"nvcc.txt": "nvidia-smi.txt"})
    rep = _status(d)
    problems = {p["capture"]: p for p in rep["problems"]}
    assert problems["nvcc.txt"]["status"] == "unreadable", rep["problems"]
    assert "nvcc --version" in problems["nvcc.txt"]["detail"]
    assert "nvcc.txt" in rep["not_captured"]
    text, rows = _rows(d)
    assert "no nvcc" not in text and "unknown" in rows["toolkit"], text


def test_nvcc_txt_with_the_shells_not_found_answer_is_still_no_nvcc(tmp_path):
    d = tmp_path / "snap"
    d.mkdir()
    (d / "nvcc.txt").write_text("bash: nvcc: command not found\n")
    rep = _status(d)
    assert "nvcc.txt" not in rep["not_captured"]
    assert not any(p["capture"] == "nvcc.txt" for p in rep["problems"])
    assert "no nvcc" in _rows(d)[1]["toolkit"]


def test_a_real_nvcc_txt_behind_a_prompt_is_read(tmp_path):
    d = tmp_path / "snap"
    d.mkdir()
    with open(os.path.join(CAPTURES, "nvcc.txt")) as f:
        (d / "nvcc.txt").write_text("$ nvcc --version\n" + f.read())
    rep = _status(d)
    assert rep["toolkit"]["version"] == "13.0" and not rep["problems"]


def test_another_text_as_proc_driver_version_gives_no_missing_driver_verdict(tmp_path):
    d = _snap(tmp_path, {"proc-driver-version.txt": "nvcc.txt"})
    rep = _status(d)
    ids = [f["id"] for f in rep["findings"]]
    assert "no-gpu-driver" not in ids, rep["findings"]
    assert any(p["capture"] == "proc-driver-version.txt" and p["status"] == "unreadable" for p in rep["problems"])
    text, rows = _rows(d)
    assert "no kernel module" not in text and "No NVIDIA driver" not in text, text
    assert "proc-driver-version.txt" in rows["driver"] and "unknown" in rows["driver"]


def test_a_real_proc_driver_version_is_still_read(tmp_path):
    d = _snap(tmp_path, {"proc-driver-version.txt": "proc-driver-version.txt"})
    rep = _status(d)
    assert rep["driver"]["version"] == "580.159.04" and not rep["problems"]


def test_a_pip_list_saved_as_ldconfig_txt_is_not_no_libcudnn(tmp_path):
    d = _snap(tmp_path, {"ldconfig.txt": "pip-list.txt"})
    (d / "packages.json").write_text(json.dumps({"torch": "2.11.0+cu130", "nvidia-cudnn-cu13": "9.19.0.56"}))
    rep = _status(d)
    ids = [f["id"] for f in rep["findings"]]
    assert "cudnn-missing" not in ids and "cuda-runtime-missing" not in ids, rep["findings"]
    assert any(p["capture"] == "ldconfig.txt" and p["status"] == "unreadable" for p in rep["problems"])
    text, rows = _rows(d)
    assert "no libcudnn" not in text and "ldconfig.txt" in rows["cudnn"], text


def test_a_real_ldconfig_listing_cut_to_its_cuda_lines_is_read(tmp_path):
    d = _snap(tmp_path, {"ldconfig.txt": "ldconfig-cuda.txt"})
    rep = _status(d)
    assert "ldconfig.txt" not in rep["not_captured"] and not rep["problems"]


def test_the_plain_table_saved_as_the_query_csv_is_not_none_found(tmp_path):
    d = _snap(tmp_path, {"nvidia-smi-query.csv": "nvidia-smi.txt"})
    rep = _status(d)
    assert rep["gpus_known"] is False, rep["gpus"]
    text, rows = _rows(d)
    assert "none found" not in rows["gpu"] and "unknown" in rows["gpu"], text


@pytest.mark.parametrize("text", ['Field "compute_cap" is not a valid field to query.\n',
                                  "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
                                  "Make sure that the latest NVIDIA driver is installed and running.\n"])
def test_a_query_csv_with_an_nvidia_smi_error_says_nothing_of_the_gpus(tmp_path, text):
    d = tmp_path / "snap"
    d.mkdir()
    (d / "nvidia-smi-query.csv").write_text(text)
    rep = _status(d)
    assert rep["gpus_known"] is False
    assert "none found" not in _rows(d)[1]["gpu"]


def test_a_query_csv_saying_no_devices_is_a_known_zero(tmp_path):
    d = tmp_path / "snap"
    d.mkdir()
    (d / "nvidia-smi-query.csv").write_text("No devices were found\n")
    rep = _status(d)
    assert rep["gpus_known"] is True and rep["gpus"] == []


def test_an_unread_capture_puts_no_escape_on_the_terminal(tmp_path):
    d = tmp_path / "snap"
    d.mkdir()
    (d / "nvcc.txt").write_text("\x1b]0;owned\x07\x1b[31mred\x1b[0m text\n")
    text = _run("status", "--snapshot", str(d)).stdout
    assert "\x1b" not in text and "\x07" not in text
    assert "red text" in text


def test_a_hanging_nvidia_smi_is_not_evidence_of_no_nvidia_smi(tmp_path):
    # an nvidia-smi that never answers (a wedged driver's classic symptom): the finding says it hung, and its
    # evidence must not say there is no nvidia-smi on the machine
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\nexec sleep 600\n")
    smi.chmod(0o755)
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "ENVCHECK_PROBE_TIMEOUT": "2",
           "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    cp = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json"], capture_output=True, text=True,
                        timeout=120, env=env)
    rep = json.loads(cp.stdout)
    assert rep["driver"]["nvidia_smi"] == "timed-out", rep["driver"]
    for f in rep["findings"]:
        if f["id"] == "no-gpu-driver":
            assert "no nvidia-smi" not in f["evidence"] and "hung" in f["evidence"], f


# ------------------------------------------------------------------------------ rocm-smi's output in a paste
VENDORS = os.path.join(os.path.dirname(__file__), "data", "vendors")
#: real rocm-smi outputs of tests/data/vendors (cited in tests/data/README.md), and what each lists (read from the
#: texts by hand: the GPU count, and the device id / name where the output prints one)
ROCM_SMI = [("rocm-smi/concise-model-revision-2x-mi200-name-cut-rocm3364.txt", 2, None, "AMD INSTINCT MI200"),
            ("rocm-smi/concise-model-revision-name-hex-0x744c.txt", 1, "0x744c", None),
            ("rocm-smi/v21j-old-concise-4x-mi210-rocm5.7.1.txt", 4, None, None),
            ("rocm-smi/v21j-concise-low-power-r9700-x2-0x7551.txt", 2, "0x7551", None),
            ("rocm-smi-product/plain-fiji-r9-fury-easybuild3978.txt", 1, None, "Radeon R9 FURY X")]
#: PyTorch's own message when a CUDA build finds no NVIDIA driver (c10/cuda, torch/cuda/__init__.py's _lazy_init)
NO_NVIDIA = ("Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n"
             "    x = torch.zeros(1).cuda()\n"
             "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
             "installed a driver from http://www.nvidia.com/Download/index.aspx\n")


@pytest.mark.parametrize("name,count,device_id,gpu", ROCM_SMI)
def test_rocm_smi_pasted_in_a_report_is_the_machines_amd_gpus(name, count, device_id, gpu):
    from envcheck.explain.document import explain_text_document

    with open(os.path.join(VENDORS, name), encoding="utf-8", errors="replace") as f:
        text = "My GPU:\n\n```\n" + f.read() + "\n```\n\n" + NO_NVIDIA
    doc = explain_text_document(text)
    assert "rocm-smi" in (doc["detected"] or ""), doc["detected"]
    facts = doc["facts"]
    assert facts["vendor"] == "amd"
    gpus = facts["gpus"]
    assert len(gpus) == count and all(g["vendor"] == "amd" for g in gpus), gpus
    if device_id:
        assert gpus[0]["device_id"] == device_id
    if gpu:
        assert gpus[0]["name"] == gpu
    # the machine is AMD's: no NVIDIA driver fix for it
    for m in doc["matches"]:
        assert "install the NVIDIA driver" not in json.dumps(m), m


def test_an_amd_paste_gets_no_nvidia_only_advice_from_the_machine_explain_runs_on():
    with open(os.path.join(VENDORS, "rocm-smi", "v21j-concise-low-power-r9700-x2-0x7551.txt"), encoding="utf-8") as f:
        text = f.read() + "\n" + NO_NVIDIA
    cp = _run("explain", "-", stdin=text)
    assert "machine facts from pasted report (rocm-smi)" in " ".join(cp.stdout.split()), cp.stdout
    assert "container started without GPU access" not in cp.stdout and "This machine: No NVIDIA driver" not in cp.stdout


def test_a_rocm_smi_banner_alone_reads_no_gpu():
    from envcheck.explain.document import explain_text_document

    doc = explain_text_document("========= ROCm System Management Interface =========\nERROR: no GPU found\n")
    assert not (doc["facts"] or {}).get("gpus")


def test_a_python_json_without_a_version_is_not_asked_for_again():
    # the Apple snapshot's python.json holds the platform and architecture only: the user did supply python.json
    snap = os.path.join(os.path.dirname(__file__), "data", "snapshots", "apple-m1-macos12.7.6-torch2.5.1-pytorch139425")
    text, rows = _rows(snap)
    assert "supply python.json" not in rows["python"] and "python.json names none" in rows["python"], text


def test_a_snapshot_without_python_json_still_asks_for_it(tmp_path):
    d = _snap(tmp_path, {"nvcc.txt": "nvcc.txt"})
    assert "unknown (supply python.json)" in _rows(d)[1]["python"]


# ------------------------------------------------------------------ the shell's "command not found" as nvidia-smi.txt
@pytest.mark.parametrize("said", ["bash: nvidia-smi: command not found",  # bash
                                  "/bin/sh: 1: nvidia-smi: not found",  # dash (a Dockerfile RUN line)
                                  "zsh: command not found: nvidia-smi",  # zsh
                                  "'nvidia-smi' is not recognized as an internal or external command,\n"
                                  "operable program or batch file.",  # cmd.exe
                                  "PS C:\\Users\\me> nvidia-smi\nnvidia-smi : The term 'nvidia-smi' is not recognized as "
                                  "the name of a cmdlet, function, script file, or operable program."])  # PowerShell
def test_the_shells_not_found_in_nvidia_smi_txt_is_no_nvidia_smi(tmp_path, said):
    d = tmp_path / "snap"
    d.mkdir()
    (d / "nvidia-smi.txt").write_text("$ nvidia-smi\n" + said + "\n")
    rep = _status(d)
    assert rep["driver"].get("nvidia_smi_form") != "unrecognised", rep["driver"]
    assert not any(f["id"] == "not-checked" and "nvidia-smi.txt" in f["evidence"] for f in rep["findings"])
    assert "nvidia-smi.txt" not in rep["not_captured"]


def test_a_cuda_build_beside_a_missing_nvidia_smi_alone_is_not_said_to_run_on_the_cpu(tmp_path):
    # nvidia-smi absent says nothing of libcuda (a container whose NVIDIA_DRIVER_CAPABILITIES lack "utility" has
    # libcuda and no nvidia-smi): with libcuda / NVML not captured, whether torch reaches a GPU is not known
    d = tmp_path / "snap"
    d.mkdir()
    (d / "nvidia-smi.txt").write_text("bash: nvidia-smi: command not found\n")
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1+cu124"}))
    rep = _status(d)
    for f in rep["findings"]:
        assert "will run on the CPU only" not in f["message"], f


def test_a_cuda_build_where_nvidia_smi_cannot_reach_the_driver_still_runs_on_the_cpu(tmp_path):
    d = tmp_path / "snap"
    d.mkdir()
    (d / "nvidia-smi.txt").write_text("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
                                      "Make sure that the latest NVIDIA driver is installed and running.\n")
    (d / "packages.json").write_text(json.dumps({"torch": "2.5.1+cu124"}))
    rep = _status(d)
    assert any("will run on the CPU only" in f["message"] for f in rep["findings"] if f["id"] == "no-gpu-driver")


# ----------------------------------------------------------------------- fix --python on AMD / Intel / Apple machines
SNAPS = os.path.join(os.path.dirname(__file__), "data", "snapshots")


def _plan(snap, *extra):
    cp = _run("fix", "--snapshot", os.path.join(SNAPS, snap), "--want", "torch", "--json", *extra)
    assert cp.returncode in (0, 1), cp.stderr
    return json.loads(cp.stdout)


def test_fix_on_a_mac_honours_python():
    # torch 2.4.1 (the last whose MPS runs on macOS 12) has no wheels for Python 3.13 (pypi.org/project/torch/2.4.1:
    # cp38-cp312): --python 3.13 must not get it, and the plan is for Python 3.13
    doc = _plan("apple-m1-macos12.7.6-torch2.5.1-pytorch139425", "--python", "3.13")
    assert doc["target"]["python"] == "3.13", doc["target"]
    assert not any(p["version"] == "2.4.1" for p in doc["packages"]), doc["packages"]


def test_fix_on_an_intel_machine_honours_python():
    doc = _plan("intel-a750-opencl-only-llvm17535", "--python", "3.9")
    assert doc["target"]["python"] == "3.9"
    if doc["satisfiable"]:
        from envcheck.matrix import load_matrix

        rel = doc["packages"][0]["version"]
        assert "3.9" in (load_matrix().torch_release(rel) or {}).get("python", ["3.9"])


def test_fix_on_an_amd_machine_says_the_python_is_what_does_not_fit():
    doc = _plan("amd-rx7600xt-raphael-legacy4380", "--python", "3.8")
    assert doc["satisfiable"] is False
    assert "Python 3.8" in doc["reason"], doc["reason"]
    assert any(lift["constraint"] == "python" for lift in doc["lifts"]), doc["lifts"]


def test_a_vendor_plan_made_without_the_python_says_it_is_unverified():
    doc = _plan("apple-m1-macos12.7.6-torch2.5.1-pytorch139425")
    assert doc["satisfiable"] and doc["target"]["python"] is None
    assert any("Python version is unknown" in n for n in doc["notes"]), doc["notes"]


def test_fix_rejects_a_python_that_is_no_version_on_a_vendor_machine():
    cp = _run("fix", "--snapshot", os.path.join(SNAPS, "apple-m1-macos12.7.6-torch2.5.1-pytorch139425"), "--want",
              "torch", "--python", "three")
    assert cp.returncode == 2 and "not a Python version" in cp.stderr


# ------------------------------------------------------------------------------ rocminfo's output in a paste
ROCMINFO = [("gfx1032-w6600-agent2-legacy1756.txt", "AMD Radeon PRO W6600", "gfx1032"),
            ("v8-rx6900xt-mid.txt", "AMD Radeon RX 6900 XT", "gfx1030"),
            ("v21k-grep-name-lines-7840hs-cpu-agent-radeon-780m.txt", "AMD Radeon 780M", "gfx1103"),
            ("v21l-runtime-1.18-strix-halo-gfx1151-and-aie2-dsp-agent.txt", "AMD Radeon Graphics", "gfx1151")]


@pytest.mark.parametrize("name,gpu,gfx", ROCMINFO)
def test_rocminfo_pasted_in_a_report_names_the_amd_gpu(name, gpu, gfx):
    # real rocminfo outputs of tests/data/vendors/rocminfo (cited in tests/data/README.md), pasted as ROCm's issue
    # template asks, with the report's next section after it
    from envcheck.explain.document import explain_text_document

    with open(os.path.join(VENDORS, "rocminfo", name), encoding="utf-8", errors="replace") as f:
        text = ("### (Optional for Linux users) Output of /opt/rocm/bin/rocminfo --support\n\n" + f.read()
                + "\n\n### Additional Information\n\nPython version: 3.12.3\n\n" + NO_NVIDIA)
    doc = explain_text_document(text)
    facts = doc["facts"]
    assert facts["vendor"] == "amd", doc["detected"]
    assert [(g["name"], g["gfx"]) for g in facts["gpus"]] == [(gpu, gfx)]
    assert facts["python"]["version"] == "3.12.3"  # the report after the output is still read


@pytest.mark.parametrize("name", ["rocminfo-mi300a-cpu-agent-cut-apptainer3261.txt",
                                  "rocminfo-fx9590-cpu-agent-cut-pytorch103973.txt"])
def test_a_rocminfo_cut_inside_its_cpu_agent_names_no_gpu(name):
    # the CPU agent of an MI300A is named like the GPU: an agent that is not Device Type GPU is no GPU
    from envcheck.explain.document import explain_text_document

    with open(os.path.join(os.path.dirname(__file__), "data", "attack30", name), encoding="utf-8") as f:
        doc = explain_text_document(f.read())
    assert not (doc["facts"] or {}).get("gpus"), doc["facts"]


def test_a_pip_list_saved_as_libraries_txt_is_not_no_libcudnn(tmp_path):
    d = _snap(tmp_path, {"libraries.txt": "pip-list.txt"})
    rep = _status(d)
    assert any(p["capture"] == "libraries.txt" and p["status"] == "unreadable" for p in rep["problems"])
    text, rows = _rows(d)
    assert "no libcudnn" not in rows["cudnn"] and "libraries.txt holds" in rows["cudnn"], text


# --------------------------------------------------------------- sycl-ls and system_profiler in a paste
@pytest.mark.parametrize("name,gpu", [("sycl-ls/opencl-gpu-no-level-zero-a750-llvm17535.txt", "Intel(R) Arc(TM) A750 Graphics"),
                                      ("sycl-ls/v21j-2023.16-two-a770-uhd770-ipex.txt", "Intel(R) Arc(TM) A770 Graphics"),
                                      ("system-profiler/m3-text-smctemp26.txt", "Apple M3"),
                                      ("system-profiler/v21k-m2-pro-16-core-two-displays-raw.txt", "Apple M2 Pro")])
def test_an_intel_or_apple_tool_output_in_a_paste_gets_no_nvidia_driver_fix(name, gpu):
    # real sycl-ls / system_profiler outputs of tests/data/vendors (cited in tests/data/README.md) pasted above
    # PyTorch's "Found no NVIDIA driver": the machine is Intel's / Apple's, so no "install the NVIDIA driver"
    from envcheck.explain.document import explain_text_document

    with open(os.path.join(VENDORS, name), encoding="utf-8", errors="replace") as f:
        doc = explain_text_document(f.read() + "\n" + NO_NVIDIA)
    assert doc["facts"]["vendor"] in ("intel", "apple"), doc["detected"]
    assert gpu in [g["name"] for g in doc["facts"]["gpus"]]
    for m in doc["matches"]:
        for fix in m.get("fixes") or []:
            assert "NVIDIA driver" not in str(fix) and "nvidia-smi" not in str(fix), m


def test_an_opencl_only_intel_gpu_in_a_pasted_sycl_ls_is_said_to_lack_level_zero():
    # the A750 that only OpenCL lists (intel/llvm#17535): the snapshot's own sycl-ls reader sees no Level Zero GPU
    from envcheck.paste import read_report

    with open(os.path.join(VENDORS, "sycl-ls", "opencl-gpu-no-level-zero-a750-llvm17535.txt"), encoding="utf-8") as f:
        text = f.read()
    rep = read_report("Here is my sycl-ls:\n\n" + text + "\nThanks")
    assert "opencl:gpu" in rep.captures["sycl-ls.txt"] and "level_zero:gpu" not in rep.captures["sycl-ls.txt"]


def test_a_sycl_ls_listing_an_nvidia_gpu_through_cuda_names_no_intel_gpu():
    # sycl-ls lists NVIDIA GPUs through its CUDA backend ("[ext_oneapi_cuda:gpu:0] NVIDIA CUDA BACKEND, ..."): not Intel's
    from envcheck.explain.document import explain_text_document

    doc = explain_text_document("[opencl:cpu:0] Intel(R) OpenCL, 13th Gen Intel(R) Core(TM) i9-13900K OpenCL 3.0 "
                                "(Build 0) [2023.16.10.0.17_160000]\n[ext_oneapi_cuda:gpu:0] NVIDIA CUDA BACKEND, "
                                "NVIDIA GeForce RTX 4090 8.9 [CUDA 12.2]\n")
    assert all(g.get("vendor") != "intel" for g in (doc["facts"] or {}).get("gpus") or [])
    assert (doc["facts"] or {}).get("vendor") != "intel"


def test_a_rocm_smi_cut_before_its_footer_leaves_the_report_after_it_to_its_reader():
    # rocm-smi prints no blank line between its banner and its footer: a paste cut before the footer ends at the
    # blank line, and the collect_env pasted after it is still read
    from envcheck.explain.document import explain_text_document

    with open(os.path.join(VENDORS, "rocm-smi", "showall-5.6.19-gpuid-0x731f-rsmilib77.txt"), encoding="utf-8") as f:
        smi = f.read()
    with open(os.path.join(REAL, "captures", "collect-env.txt"), encoding="utf-8") as f:
        env = f.read()
    doc = explain_text_document(smi.rstrip() + "\n\n" + env)
    assert "collect_env" in doc["detected"], doc["detected"]
    assert doc["facts"]["frameworks"]["torch"]["version"] == "2.11.0+cu130"


def test_a_native_windows_library_list_is_no_unrecognised_form(tmp_path):
    # the probe on native Windows lists the DLLs it found by their Windows paths: a list of library paths, not
    # another command's output
    d = tmp_path / "snap"
    d.mkdir()
    (d / "libraries.txt").write_text("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.1\\bin\\cudart64_12.dll\n")
    rep = _status(d)
    assert not any(p["capture"] == "libraries.txt" for p in rep["problems"]), rep["problems"]
