"""Helper vfam25 of issue 20: fresh real samples of the nine families heldout/acceptance14 missed once each (a container's
forward-compatibility libcuda over an older kernel module, a CUDA build on an Intel-GPU-only machine, rocminfo and the
render group, a Jetson process without /dev/nvmap, TheRock's rocm_sdk library lookup, Level Zero beside OpenCL, ROCm's
"no ROCm-capable device", OpenVINO's clGetPlatformIDs -1001, a SYCL build on another oneAPI major). Real texts:
tests/data/logs/vfam25 and tests/data/pastes/vfam25 (README: file, label, source, note with the family); the held-back
part heldout/vfam25-held (logs/, pastes/) was split off per family first (random.Random(2026112825), 35%) and is scored
with scripts/score_explain.py / score_pastes.py only, never asserted here.

The working part's misses fixed, each from the emitting source's text: L4T's "NvRmMemInitNvmap failed with No such file
or directory" (no-gpu-visible) and its "failed: error Permission denied" form (device-permission), TheRock's rocm_sdk
"Could not find / Unknown rocm library" and a traceback through its find_libraries (rocm-runtime-missing), the Unified
Runtime loader's Level Zero adapter with an undefined ze* symbol (xpu-level-zero-missing; its [INFO] lines about other
vendors' adapters are no evidence), rocminfo's "is not member of ... the default DRM access group" (device-permission),
the reporter's "I am not using NVIDIA GPU" / "I don't have any NVIDIA adapter" beside "Found no NVIDIA driver"
(framework-vendor-mismatch), a text saying the GPU does not support forward compatibility, and a libcuda of a later
driver branch than the kernel module inside a container (engine.rules.compat_libcuda_pair: forward-compat-unsupported).
"""

import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (assert_top_is_label, check_literals_hold, check_log_batch, check_no_nvidia_only_advice,  # noqa: E402
                     check_paste_top_is_label, check_section_signatures, earlier_log_threads, explain_file,
                     log_readme_rows, paste_readme_rows, top_match)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "vfam25")
HELD = os.path.join(ROOT, "heldout", "vfam25-held", "logs")
DEV_PASTES = os.path.join(HERE, "data", "pastes", "vfam25")
HELD_PASTES = os.path.join(ROOT, "heldout", "vfam25-held", "pastes")
DEV_ROWS = log_readme_rows(DEV)
PASTE_ROWS = paste_readme_rows(DEV_PASTES, any_host=True)
SECTION = "# vfam25 (issue 20)"
SIGNATURES = {"jetson-nvmap-node-missing", "jetson-nvmap-init-failed-quoted", "jetson-nvmap-permission-denied-error-form",
              "rocm-sdk-library-not-found", "rocm-sdk-preload-traceback", "ur-level-zero-adapter-undefined-ze-symbol",
              "ur-loader-other-vendor-adapter-info", "rocminfo-not-member-of-kfd-group",
              "gpu-does-not-support-forward-compat-said"}
#: working logs whose label the text alone does not reach (kept, not hidden): the exact answer expected instead
KNOWN_MISSES = {
    # HIP's hipErrorNoDevice names no cause; that the RX 580 (gfx803) is outside the Windows HIP SDK's list is the
    # maintainer's, and the GPU-to-gfx reading for a bare "RX580" is not made from a log
    "hip-3805-win10-rx580-hip-sdk-6.2-hipinfo-no-rocm-capable-device.log": "no-gpu-visible",
    # the same wording; the reporter's fix (repairing the Visual C++ runtime) is no contract id
    "hip-3910-win-rx-7900-xtx-rocm-7.14-hipinfo-no-device-vc-redist-repair.log": "no-gpu-visible",
    # clGetPlatformIDs -1001 (no OpenCL platform) is read since intel33 (errors.toml opencl-no-platform-found:
    # no-gpu-driver, as this batch labels inference-engine-node-36); this thread's cause is not established (the
    # reporter says OpenCL sees the iGPU), so its label stays none and the reading is a known miss
    "compute-runtime-210-pentium-g4560-hd-610-openvino-2019r2-clgetplatformids-1001.log": "no-gpu-driver",
    # rocminfo 3.x's "is member of video group" before HSA_STATUS_ERROR_OUT_OF_RESOURCES is also what a GPU the KFD
    # refuses prints (ENOMEM, ROCm/legacy-rocm-build#1109): the text does not tell the two apart
    "legacy-rocm-1064-rocm-3.3-rocminfo-member-of-video-out-of-resources-works-sudo.log": None,
    "legacy-rocm-928-vega56-rocminfo-member-of-video-out-of-resources-root-works.log": None,
    # "ZE_RESULT_ERROR_UNINITIALIZED" holds no prefilter anchor (the cover list is at its bound)
    "level-zero-7-ze-init-error-uninitialized-gen9-opencl-works.log": None,
}
#: working pastes the text alone does not reach: why
UNREACHED = {
    "fooocus-1466-i7-1165g7-no-graphics-card-found-no-nvidia-driver-always-cpu.txt":
        "only a CPU model is named; the maintainer's 'no graphics card' is the reading",
    "fooocus-2007-intel-iris-xe-laptop-found-no-nvidia-driver-not-supported.txt":
        "an Intel GPU named ('My laptop used Intel Iris Xe Graphics') is not read: no prefilter anchor fits it",
    "gitlab-cuda-images-182-k80-cuda-11.5-images-cuda-compat-no-device.txt":
        "prose: the K80's forward-compatibility range is NVIDIA's FAQ table, the text shows only cudaErrorNoDevice",
}


def _read(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as fh:
        return fh.read()


def test_listing_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV, HELD, min_dev=22, min_held=12, min_total=34, min_healthy=1, min_none=3,
                           labels_txt=False, held_listed=True)
    assert {r[1] for r in held} >= {"no-gpu-visible", "rocm-runtime-missing", "xpu-level-zero-missing",
                                   "device-permission", "oneapi-runtime-missing", "forward-compat-unsupported"}
    held_pastes = paste_readme_rows(HELD_PASTES, any_host=True)
    assert sorted(PASTE_ROWS) == sorted(f for f in os.listdir(DEV_PASTES) if f.endswith(".txt"))
    assert sorted(held_pastes) == sorted(f for f in os.listdir(HELD_PASTES) if f.endswith(".txt"))
    assert not set(PASTE_ROWS) & set(held_pastes)
    # every family (the note's "family N") has a working and a held-back sample where it has three or more
    notes = {}
    for folder, held_part in ((DEV, False), (HELD, True), (DEV_PASTES, False), (HELD_PASTES, True)):
        with open(os.path.join(folder, "README.md"), encoding="utf-8") as fh:
            for line in fh:
                if re.match(r"^\| \S+\.(?:log|txt) \|", line) and "| family " in line:
                    fam = line.split("| family ", 1)[1].split(":", 1)[0]
                    notes.setdefault(fam, set()).add(held_part)
    assert set(notes) == {str(i) for i in range(1, 10)}
    assert all(parts == {False, True} for parts in notes.values()), notes


def test_no_thread_is_twice_nor_in_an_earlier_log_set():
    held_pastes = paste_readme_rows(HELD_PASTES, any_host=True)
    urls = [r[2] for r in DEV_ROWS + log_readme_rows(HELD)] + [v[1] for v in list(PASTE_ROWS.values())
                                                                + list(held_pastes.values())]
    assert len(urls) == len(set(urls))
    assert not set(urls) & earlier_log_threads(("vfam25", "vfam25-held"))


def test_signatures_sit_in_the_section_behind_an_existing_anchor():
    check_section_signatures(SECTION, SIGNATURES)
    lines = [ln for name, _, _ in DEV_ROWS for ln in _read(DEV, name).splitlines()]
    lines += [ln for name in PASTE_ROWS for ln in _read(DEV_PASTES, name).splitlines()]
    seen = check_literals_hold(SIGNATURES, lines)
    # each reads a working sample (the veto the UR loader's [INFO] lines about CUDA's and HIP's adapters) but two
    # written from their emitter's text: rocminfo's group line (ROCm/rocminfo rocminfo.cc) and a traceback through
    # rocm_sdk's find_libraries (TheRock's rocm_sdk/__init__.py; acceptance14's therock-2345, spent)
    assert seen == SIGNATURES - {"rocminfo-not-member-of-kfd-group", "rocm-sdk-preload-traceback"}


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS])
def test_working_logs(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV, name)), name, label, KNOWN_MISSES)


@pytest.mark.parametrize("name", sorted(PASTE_ROWS))
def test_working_pastes(name):
    check_paste_top_is_label(DEV_PASTES, name, PASTE_ROWS[name][0], UNREACHED)


def test_known_misses_are_rows():
    names = {r[0] for r in DEV_ROWS}
    assert set(KNOWN_MISSES) <= names and set(UNREACHED) <= set(PASTE_ROWS)


@pytest.mark.parametrize("name", [
    "therock-1340-windows-rocm-sdk-test-could-not-find-rocm-library-amd-comgr.log",
    "compute-runtime-818-oneapi-2025.0-ur-adapter-level-zero-undefined-symbol-zedevicegetrootdevice.log",
    "legacy-rocm-1758-root-in-video-render-rocminfo-out-of-resources-rocm-smi-unsupported.log",
])
def test_amd_and_intel_logs_get_no_nvidia_only_advice(name):
    check_no_nvidia_only_advice(os.path.join(DEV, name))


# -- the wordings, one line each (real lines of the working samples; the emitter's format for rocminfo's group line)

def test_nvmap_errno_decides_between_a_missing_node_and_a_permission():
    missing = top_match("NvRmMemInitNvmap failed with No such file or directory\n356: Memory Manager Not supported\n")
    assert missing is not None and missing.id == "no-gpu-visible" and missing.signature == "jetson-nvmap-node-missing"
    denied = top_match("NvRmMemInitNvmap failed: error Permission denied\nRuntimeError: No CUDA GPUs are available\n")
    assert denied is not None and denied.id == "device-permission"
    assert top_match("NvRmMemInitNvmap failed with Permission denied\n").id == "device-permission"
    # a quoted bare form is generic: it names the cause where nothing else does
    quoted = top_match("- CUDA is unavailable inside the restricted Codex sandbox with\n  `NvRmMemInitNvmap failed`; "
                       "formal CUDA runs succeeded outside the sandbox.\n")
    assert quoted is not None and quoted.id == "no-gpu-visible"


def test_rocm_sdk_lookup_lines():
    m = top_match("# [Issue] Could not find rocm library 'amd_comgr' in `rocm-sdk test` with 7.0.0rc20250827 on Windows\n")
    assert m is not None and m.id == "rocm-runtime-missing" and m.captures.get("lib") == "amd_comgr"
    m = top_match('  File "/scratch/test-env/lib/python3.12/site-packages/rocm_sdk/__init__.py", line 34, in '
                  "find_libraries\n    lib_entry = _dist_info.ALL_LIBRARIES[shortname]\nKeyError: 'hipsparselt'\n")
    assert m is not None and m.id == "rocm-runtime-missing"
    # rocm_sdk's own version-check warning is no library lookup
    assert top_match('  File "x/rocm_sdk/__init__.py", line 150, in initialize_process\n') is None


def test_unified_runtime_loader_lines():
    line = ("<LOADER>[INFO]: failed to load adapter 'libur_adapter_level_zero.so.0' with error: /opt/intel/oneapi/"
            "compiler/2025.0/lib/libur_adapter_level_zero.so.0: undefined symbol: zeDeviceGetRootDevice\n")
    m = top_match(line)
    assert m is not None and m.id == "xpu-level-zero-missing" and m.captures.get("symbol") == "zeDeviceGetRootDevice"
    # the loader probing CUDA's and HIP's adapters on an Intel machine: no missing NVIDIA or AMD driver
    probe = ("<LOADER>[INFO]: failed to load adapter 'libur_adapter_cuda.so.0' with error: libcuda.so.1: cannot open "
             "shared object file: No such file or directory\n"
             "<LOADER>[INFO]: failed to load adapter 'libur_adapter_hip.so.0' with error: libamd_comgr.so.2: cannot "
             "open shared object file: No such file or directory\n")
    assert top_match(probe) is None
    # a program's own libcuda.so.1 failure is still read
    own = top_match("ImportError: libcuda.so.1: cannot open shared object file: No such file or directory\n")
    assert own is not None


def test_rocminfo_group_line_from_its_format_string():
    text = ("ROCk module is loaded\nUnable to open /dev/kfd read-write: Permission denied\n"
            'alice is not member of "render" group, the default DRM access group. Users must be a member of the '
            '"render" group or another DRM access group in order for ROCm applications to run successfully.\n')
    m = top_match(text)
    assert m is not None and m.id == "device-permission"
    # the old rocminfo's "is member of video group" before OUT_OF_RESOURCES names nothing (ENOMEM prints it too)
    assert top_match("ROCk module is loaded\ncarlos is member of video group\nhsa api call failure at: /data/jenkins-"
                     "workspace/compute-rocm-rel-3.3/rocminfo/rocminfo.cc:1102\nCall returned HSA_STATUS_ERROR_OUT_OF_"
                     "RESOURCES: The runtime failed to allocate the necessary resources.\n") is None


def test_no_nvidia_said_turns_found_no_nvidia_driver_into_a_vendor_mismatch():
    err = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
           "a driver from http://www.nvidia.com/Download/index.aspx\n")
    from envcheck.explain.document import explain_text_document

    said = explain_text_document("i am not filmier with this.. I am not using NVIDIA GPU , but i have Intel HD graphics "
                                 "4000.\n" + err)
    assert said["matches"][0]["id"] == "framework-vendor-mismatch"
    plain = explain_text_document(err)
    assert plain["matches"][0]["id"] != "framework-vendor-mismatch"
    # a sentence about NVIDIA's drivers, not the GPU, says nothing of the machine; nor does one beside an NVIDIA GPU
    drivers = explain_text_document("I am not using NVIDIA GPU drivers from the repo, I used the runfile.\n" + err)
    assert drivers["matches"][0]["id"] != "framework-vendor-mismatch"
    named = explain_text_document("I am not using NVIDIA GPU, my card is not set up yet. GPU: NVIDIA GeForce RTX 3080\n"
                                  + err)
    assert named["matches"][0]["id"] != "framework-vendor-mismatch"


def test_compat_libcuda_pair_rule():
    from envcheck.engine.rules import compat_libcuda_pair

    assert compat_libcuda_pair("460.73.1", "455.32.0", True) is True  # tensorflow/tensorflow#48722
    assert compat_libcuda_pair("520.61.5", "470.182.3", True) is True  # jax-ml/jax#15961 (nvidia/cuda:11.8.0 image)
    assert compat_libcuda_pair("470.57.2", "460.91.3", False) is False  # a host: tensorflow/tensorflow#4349
    assert compat_libcuda_pair("455.32.0", "460.73.1", True) is False  # an older libcuda: not forward compatibility
    assert compat_libcuda_pair("460.73.1", "460.32.3", True) is False  # one branch: a plain mismatch
    assert compat_libcuda_pair(None, "455.32.0", True) is None
    assert compat_libcuda_pair("abc", "455.32.0", True) is None


def test_dso_pair_in_a_container_is_forward_compat_and_on_a_host_a_mismatch():
    pair = ("E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:313] kernel version 455.32.0 does not match DSO "
            "version 460.73.1 -- cannot find working devices in this configuration\n")
    m = top_match("docker run --gpus all --entrypoint python tensorflow/tensorflow:2.5.0-gpu -c \"import tensorflow\"\n"
                  + pair)
    assert m is not None and m.id == "forward-compat-unsupported" and any("later driver branch" in n for n in m.notes)
    image = top_match("docker image nvidia/cuda:11.8.0-cudnn8-devel-ubuntu18.04\n" + pair)
    assert image is not None and image.id == "forward-compat-unsupported"
    host = top_match(pair)
    assert host is not None and host.id == "driver-library-mismatch"


def test_forward_compat_said_in_prose():
    m = top_match("I think what is going on is that you have the forward-compatibility libraries installed on your "
                  "host, which is causing them to be injected into the container, even though the GPU hardware you "
                  "have installed on the machine doesnt support forward-compatibility.\n")
    assert m is not None and m.id == "forward-compat-unsupported"
    assert top_match("The A100 supports forward compatibility, so cuda-compat 12.4 runs on the 535 driver.\n") is None
