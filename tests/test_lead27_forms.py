"""Wordings and forms of contract causes and captures read on 2026-11-27, each on a line quoted from its cited source (the
lines are the libraries' own messages; the thread or source file is named beside each)."""

import pytest

from envcheck.explain import explain_text

CASES = [
    # the NVIDIA kernel module's own message (NVIDIA/open-gpu-kernel-modules kernel-open/nvidia/nv.c), as dmesg
    # prints it with its continuation lines
    ("[  530.504692] NVRM: The NVIDIA probe routine was not called for 1 device(s).\n"
     "[  530.504693] NVRM: This can occur when a driver such as: \n"
     "NVRM: nouveau, rivafb, nvidiafb or rivatv \n"
     "NVRM: was loaded and obtained ownership of the NVIDIA device(s).\n", "no-gpu-driver"),
    # NVIDIA/nvidia-container-toolkit#394 (title), and labdao/plex#18 inside docker's hook error
    ("nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown.\n",
     "driver-library-mismatch"),
    ("docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create failed: "
     "unable to start container process: error during container init: error running hook #0: error running hook: "
     "exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\n"
     "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown.\n",
     "driver-library-mismatch"),
    # saharmor/dalle-playground#104: docker compose hard-wrapped the hook's message before "nvml error"
    ("hook #0: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: \n"
     "nvml error: driver/library version mismatch: unknown\n", "driver-library-mismatch"),
    # ROCm's HCC runtime (ROCm 3.x; https://github.com/ROCm/hcc) and rocprofiler-sdk (ROCm 6.x-7.x) missing at import
    ('Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
     'ImportError: libhc_am.so.3: cannot open shared object file: No such file or directory\n', "rocm-runtime-missing"),
    ('Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
     'ImportError: librocprofiler-sdk.so.1: cannot open shared object file: No such file or directory\n',
     "rocm-runtime-missing"),
    # CUDA's crt/host_config.h check, hard-wrapped by a mail client after "later than 12 are" (the header's own
    # text: "gcc versions later than 12 are not supported!")
    ("/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/host_config.h:132:2:\n"
     " error: #error -- unsupported GNU version! gcc versions later than 12 are\n"
     " not supported! The nvcc flag '-allow-unsupported-compiler' can be used to\n", "host-compiler-unsupported"),
]


@pytest.mark.parametrize("text,want", CASES, ids=[c[1] + "-" + str(i) for i, c in enumerate(CASES)])
def test_the_cause_is_read(text, want):
    matches = explain_text(text)
    assert matches and matches[0].id == want, [(m.id, m.evidence) for m in matches]


def test_the_host_compiler_limit_is_read_from_a_wrapped_line():
    m = explain_text(CASES[-1][0])[0]
    assert m.captures.get("gcc_max") == "12"


@pytest.mark.parametrize("text", [
    # a ROCm library that loads is no failure; a driver module that probes its devices is healthy
    "[    2.123456] [drm] Initialized amdgpu 3.57.0 20150101 for 0000:03:00.0 on minor 1\n"
    "loaded librocprofiler-sdk.so.1 from /opt/rocm/lib\n",
    "[    3.000000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.54.03  Tue Jun  6 22:20:39 UTC 2023\n",
])
def test_controls_stay_silent(text):
    assert explain_text(text) == []


# -- jetson_release's plain layout (jetson-stats before 4.x, and jetsonhacks' jetsonInfo.py): no bullets
def test_plain_jetson_release_inside_a_container_knows_neither_release():
    # the layout jetson_release prints inside a container (its own words for what it cannot read), on the lines of
    # tests/data/vendors/jetson-release/lead27-plain-1.x-3.x-nano-jp4.4-l4t32.4.3.txt
    from envcheck.parse.tegra import parse_jetson_release

    text = ("NVIDIA Jetson Nano (Developer Kit Version)\n L4T N.N.N [ JetPack UNKNOWN ]\n   Ubuntu 18.04.5 LTS\n"
            " CUDA 10.2.300\n   CUDA Architecture: 5.3\n CUDNN: NOT_INSTALLED\n TensorRT: NOT_INSTALLED\n")
    r = parse_jetson_release(text)
    assert r is not None and (r.l4t, r.jetpack, r.cuda, r.cudnn, r.tensorrt) == (None, None, "10.2.300", None, None)


def test_plain_library_lines_are_read_only_under_the_plain_l4t_line():
    from envcheck.parse.tegra import parse_jetson_release

    assert parse_jetson_release(" CUDA 10.2.89\n CUDNN: 8.0.0.180\n") is None


def test_a_jetson_release_snapshot_without_l4t_is_an_nvidia_machine(tmp_path):
    import json
    import os
    import subprocess
    import sys

    snap = tmp_path / "s"
    snap.mkdir()
    (snap / "jetson-release.txt").write_text("NVIDIA Jetson Nano (Developer Kit Version)\n L4T N.N.N [ JetPack UNKNOWN ]\n"
                                             " CUDA 10.2.300\n")
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", str(snap)],
                       capture_output=True, text=True, timeout=120, cwd=os.path.dirname(os.path.dirname(__file__)))
    doc = json.loads(r.stdout)
    assert doc["vendor"] == "nvidia" and doc["toolkit"]["version"] == "10.2"


# -- conda's download table ("The following packages will be downloaded"): its rows name the build conda chose
# the table of PyTorch's own install guide (pytorch/pytorch.github.io _get_started/installation/linux.md), where a CPU
# build was asked for with `cpuonly`
_CONDA_CPU_GUIDE = """$ conda install pytorch torchvision cpuonly -c pytorch
The following packages will be downloaded:

    package                    |            build
    ---------------------------|-----------------
    cpuonly-1.0                |                0           2 KB  pytorch
    ninja-1.9.0                |   py38hfd86e86_0         1.2 MB
    pytorch-1.5.0              |      py3.8_cpu_0        90.5 MB  pytorch
    torchvision-0.6.0          |         py38_cpu        11.0 MB  pytorch
"""


def test_conda_download_rows_are_read_as_the_builds_conda_chose():
    from envcheck.explain.document import explain_text_document as explain_document_text

    doc = explain_document_text(_CONDA_CPU_GUIDE)
    assert doc["facts"]["frameworks"]["torch"]["version"] == "1.5.0"
    assert not any(m["id"] == "framework-cpu-only" for m in doc["matches"])  # a CPU build was asked for


def test_a_cpu_build_conda_chose_beside_cudatoolkit_is_the_cpu_only_build():
    # the same table where the command asked for CUDA (cudatoolkit=10.2, PyTorch's "previous versions" command for
    # 1.12.1) and conda solved to the CPU build, as in pytorch/pytorch#92273 (constructed: the guide's rows with that
    # command and release)
    from envcheck.explain.document import explain_text_document as explain_document_text

    text = _CONDA_CPU_GUIDE.replace("conda install pytorch torchvision cpuonly -c pytorch",
                                    "conda install pytorch==1.12.1 torchvision==0.13.1 cudatoolkit=10.2 -c pytorch")
    text = text.replace("    cpuonly-1.0                |                0           2 KB  pytorch\n",
                        "    cudatoolkit-10.2.89        |       h74a9793_1       317.2 MB  defaults\n")
    text = text.replace("pytorch-1.5.0              |      py3.8_cpu_0        90.5 MB",
                        "pytorch-1.12.1             |      py3.8_cpu_0       133.8 MB")
    doc = explain_document_text(text)
    assert doc["matches"] and doc["matches"][0]["id"] == "framework-cpu-only", doc["matches"]


# -- xpu-smi's CSV dump under the command that printed it (intel/xpumanager doc/smi_user_guide.md, find_string id
# 25323507720: "Dump the specified GPU device info to csv format.")
_XPU_DUMP = ('xpu-smi discovery --dump 1,2,3,6\nDevice ID,Device Name,Vendor Name,Core Clock Rate\n'
             '0,"Intel(R) Graphics [0x56c0]","Intel(R) Corporation","2050 MHz"\n'
             '1,"Intel(R) Graphics [0x56c0]","Intel(R) Corporation","2050 MHz"\n')


def test_xpu_smi_csv_dump_under_its_command_line():
    from envcheck.parse.intel import parse_xpu_smi

    gpus = parse_xpu_smi(_XPU_DUMP)
    assert [(g.index, g.name, g.device_id) for g in gpus] == [(0, "Intel(R) Graphics", "0x56c0"),
                                                             (1, "Intel(R) Graphics", "0x56c0")]
    assert parse_xpu_smi("some prose\nmore prose\nstill prose\nfourth line\n" + _XPU_DUMP.split("\n", 1)[1]) == []
