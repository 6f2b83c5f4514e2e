"""attack39 (issue 20, "nothing false said"): session 16's new rules, facts and readers tried on real texts where they
could say something false or hide a true cause; each defect found is asserted here on its real sample
(tests/data/attack39, README.md there cites every source).

* vlogs26's fact ``amd_gpu`` from HSA_OVERRIDE_GFX_VERSION (errors.toml) read Ollama's "server config" line, which
  lists every variable Ollama reads - HSA_OVERRIDE_GFX_VERSION among them, empty - on every machine, NVIDIA's too:
  an NVIDIA Docker host's "ggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient" (driver 515,
  ollama/ollama#7666) was said to be "The log shows an AMD GPU (HSA_OVERRIDE_GFX_VERSION) and no NVIDIA GPU: this
  torch is a CUDA build ... Install a ROCm build of torch" (framework-vendor-mismatch). The variable left empty
  (followed by a space or "]") names no AMD GPU; a value set, or the name in prose, still does.
"""

import os
import sys

from envcheck.explain import explain_text, scan_lines
from envcheck.explain.document import explain_text_document

sys.path.insert(0, os.path.dirname(__file__))

HERE = os.path.dirname(__file__)
DATA = os.path.join(HERE, "data", "attack39")


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _vendor_facts(text: str):
    return scan_lines(text.splitlines()).vendor_facts


def test_ollama_server_config_empty_hsa_override_is_no_amd_gpu():
    for name in ("ollama-7666-nvidia-docker-server-config-hsa-empty-driver-515.txt",
                 "healthy-ollama-6338-server-config-windows-cuda-v11.log"):
        assert "amd_gpu" not in _vendor_facts(_read(os.path.join(DATA, name))), name


def test_hsa_override_with_a_value_or_in_prose_still_shows_amd():
    # the vlogs26 sample the fact was written from (a title naming the variable) and Ollama's line with a value set
    log = os.path.join(HERE, "data", "logs", "vlogs26",
                       "ollama-3107-windows-rocm-hsa-override-ignored-cuda-error-invalid-device-function.log")
    assert _vendor_facts(_read(log)).get("amd_gpu") == "HSA_OVERRIDE_GFX_VERSION"
    set_line = _read(os.path.join(HERE, "data", "logs", "vlogs25",
                                  "healthy-ollama-linux-amd-apu-pr27-rocm7-gfx1151-override-server-config.log"))
    line = next(ln for ln in set_line.splitlines() if "HSA_OVERRIDE_GFX_VERSION:11" in ln)  # a value after the colon
    assert _vendor_facts(line).get("amd_gpu") == "HSA_OVERRIDE_GFX_VERSION"


def test_nvidia_ollama_driver_too_old_is_not_called_an_amd_host():
    text = _read(os.path.join(DATA, "ollama-7666-nvidia-docker-server-config-hsa-empty-driver-515.txt"))
    ids = [m.id for m in explain_text(text)]
    assert ids and ids[0] == "driver-too-old", ids
    doc = explain_text_document(text)
    said = " ".join(" ".join(m["fixes"] + m["dead_ends"]) for m in doc["matches"])
    assert "AMD GPU" not in said and "ROCm build" not in said, said


# -- nvlogs26's Go-logged NVML failure, as a snapshot's nvidia-smi.txt ----------------------------------------------
#: the k8s device plugin's own log (its pod's NVML call, NVIDIA/gpu-operator#250, AliyunContainerService/
#: gpushare-device-plugin#36): nvlogs26 stopped the paste readers taking it for nvidia-smi's output, but the snapshot's
#: nvidia-smi.txt reader still said "nvidia-smi failed (2021/08/27 23:03:50 Failed to initialize NVML: ...)" and
#: no-gpu-driver, "nvidia-smi is installed ... install the NVIDIA driver" - of a host whose driver the log says nothing of
NVLOGS = os.path.join(HERE, "data", "logs", "nvlogs26")
GO_LOGS = ("gpu-operator-250-device-plugin-could-not-load-nvml.log",
           "gpushare-device-plugin-36-nvml-could-not-load-driver-450.log")


def test_go_logged_nvml_failure_in_nvidia_smi_txt_is_not_nvidia_smi_failing(tmp_path):
    from helpers import status_of_files

    for name in GO_LOGS:
        rep = status_of_files(tmp_path / name, {"nvidia-smi.txt": _read(os.path.join(NVLOGS, name))})
        ids = [f["id"] for f in rep["findings"]]
        assert "no-gpu-driver" not in ids, (name, ids)
        assert "not-checked" in ids, (name, ids)  # unknown, and said so


def test_classify_error_skips_go_logged_lines_not_nvidia_smi_own():
    from envcheck.parse.nvidia_smi import NO_DRIVER, OTHER, classify_error

    plugin = _read(os.path.join(NVLOGS, GO_LOGS[0]))
    assert classify_error(plugin) == (None, None)
    # the same log followed by nvidia-smi's own failure (copied from the repo's samples): that line is the one read
    smi = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest " \
          "NVIDIA driver is installed and running."
    assert classify_error(plugin + "\n" + smi)[0] == NO_DRIVER
    assert classify_error("Failed to initialize NVML: could not load NVML library.")[0] == OTHER


# -- nvlogs26's NVRM probe-failure lines hid the line that says why ------------------------------------------------------
#: open-gpu-kernel-modules#393's dmesg prints "NVRM: The NVIDIA probe routine failed for 1 device(s)." before "The NVIDIA
#: GPU 0000:01:00.0 (PCI ID: 10de:25a0) installed in this system is not supported by the NVIDIA 520.56.06 driver
#: release": the new outcome line took the match on the earlier line, and the refusal's own fix (this release does not
#: support the GPU: a newer release or a legacy branch) was no longer said; the outcome lines are generic now


def test_probe_failed_line_leaves_the_refusal_its_own_fix():
    text = _read(os.path.join(DATA, "open-gpu-393-xps9520-3050ti-laptop-10de-25a0-not-supported-by-520.56.06.log"))
    ms = explain_text(text)
    assert [m.id for m in ms] == ["gpu-not-initialized"]
    assert "not supported by" in ms[0].evidence
    assert "this release does not support the GPU" in ms[0].fixes[0]


def test_probe_failed_line_alone_still_says_gpu_not_initialized():
    # the outcome lines alone (the sample's first lines, up to the refusal) still name the cause
    text = _read(os.path.join(DATA, "open-gpu-393-xps9520-3050ti-laptop-10de-25a0-not-supported-by-520.56.06.log"))
    head = "\n".join(text.splitlines()[:4])
    assert [m.id for m in explain_text(head)] == ["gpu-not-initialized"]


# -- pastes26's XGBoost fix said every Linux aarch64 wheel lacks CUDA ------------------------------------------------
#: dmlc/xgboost ships CUDA in its Linux aarch64 PyPI wheels from the 3.1.3 patch release on (doc/changes/v3.1.0.rst "Add
#: ARM CUDA wheels for PyPI (#11827)"; doc/install.rst: "Linux aarch64 wheels now ship with CUDA support"): the fix for
#: "XGBoost version not compiled with GPU support" said "the Linux aarch64 ... wheels ... do not" carry the GPU algorithm


def test_xgboost_fix_dates_the_aarch64_cpu_only_wheels():
    text = _read(os.path.join(HERE, "data", "pastes", "pastes26",
                              "xgboost-4355-jetson-nano-xgboost-0.83.dev0-py3.6-not-compiled-with-gpu.txt"))
    ms = explain_text(text)
    assert ms and ms[0].id == "framework-cpu-only"
    fix = next(t for t in ms[0].fixes if "XGBoost" in t)
    assert "Linux aarch64 and macOS wheels" not in fix
    assert "aarch64 ones from XGBoost 3.1.3" in fix and "older aarch64 wheels" in fix


# -- pool26's device-permission advice by the nodes the evidence names ---------------------------------------------
#: netdata's NVIDIA plugin: "nv pynvml could not be initialized Insufficient Permissions" (coraxx/netdata_nv_plugin#1)
#: names NVIDIA's library inside a word ("pynvml"), which the NVIDIA-node test read as a whole word only: the AMD / Intel
#: render-group fix was given for an NVML failure


def test_pynvml_evidence_gets_no_amd_render_group_fix():
    text = _read(os.path.join(DATA, "netdata-nv-plugin-1-2016-pynvml-insufficient-permissions-netdata-user.log"))
    doc = explain_text_document(text)
    ms = [m for m in doc["matches"] if m["id"] == "device-permission"]
    assert ms and "pynvml" in ms[0]["evidence"]
    assert not any("/dev/kfd" in t for t in ms[0]["fixes"]), ms[0]["fixes"]
    assert any("/dev/nvidia" in t for t in ms[0]["fixes"])


# -- pool26's platform.machine(): "AMD64" is Windows' answer ---------------------------------------------------------
#: pool26 reads a printed platform.machine() as the Python's architecture and, beside an Apple silicon Mac named in
#: prose with no platform read, as an x86_64 Python under Rosetta 2 on that Mac. "AMD64" is what Windows alone
#: returns (m-bain/whisperX#1357: ">>> platform.machine()" then "'AMD64'" under "... on win32"), so it now also says
#: the Python is a Windows one: never read as a Mac's Rosetta Python


def test_printed_platform_machine_amd64_is_a_windows_python():
    from envcheck.paste.readers import printed

    got = [(f.field, f.value) for f in printed.read([">>> platform.machine()", "'AMD64'"]).facts]
    assert ("machine", "x86_64") in got and ("platform", "win32") in got
    # Linux's and macOS's answer says nothing of the OS
    got = [(f.field, f.value) for f in printed.read([">>> platform.machine()", "'x86_64'"]).facts]
    assert ("machine", "x86_64") in got and not [f for f, _ in got if f == "platform"]


def test_hsa_override_in_a_compose_environment_map_still_shows_amd():
    # blakeblackshear/frigate docs/docs/configuration/object_detectors.md ("When using Docker Compose:"): the map form
    # "NAME: value" with a quoted value is set, not Ollama's empty entry
    compose = 'services:\n  frigate:\n    ...\n    environment:\n      HSA_OVERRIDE_GFX_VERSION: "10.0.0"\n'
    assert _vendor_facts(compose).get("amd_gpu") == "HSA_OVERRIDE_GFX_VERSION"
