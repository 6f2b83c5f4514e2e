"""`envcheck explain` on batch emit27c (issue 20): real posted lines of the system layer's own messages that state an
environment cause, found from an inventory of each emitter's format strings (heldout/rounds/emit27c-inventory.md: the
NVIDIA kernel driver and modprobe, NVML / nvidia-smi and pynvml, Fabric Manager, the container runtime, the k8s device
plugin, the CUDA driver / runtime error tables). tests/data/logs/emit27c is the working part; the held-back part
(heldout/emit27c-held, split by scripts/split_log_batch.py before each wave's rules) is scored by
scripts/score_explain.py, never asserted here.

The strings explain did not read led to signatures written from the format strings (errors.toml, block ``emit27c``):

* nvidia-smi's "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system" is no-gpu-driver (the driver's NVML
  is not loadable: no driver, or a container whose loader cache does not list the mounted driver files);
* NVML's "Failed to initialize NVML: GPU access blocked by the operating system" is device-permission (contract §9);
* Fabric Manager's "fabric manager NVIDIA GPU driver interface version X don't match with driver version Y" is
  driver-library-mismatch, both versions captured;
* modprobe's "Module nvidia not found in directory /lib/modules/<kernel>" is no-gpu-driver (the main module only);
* NVML's NVML_ERROR_LIB_RM_VERSION_MISMATCH in pynvml's / tools' own words ("RM has detected an NVML/RM version
  mismatch.") is driver-library-mismatch (wave 2);
* nvidia-installer's "Unable to load the kernel module 'nvidia.ko'" and "The Nouveau kernel driver is currently in use
  by your system" are no-gpu-driver (wave 3).

pynvml's bare "NVMLError_LibraryNotFound: NVML Shared Library Not Found" got no rule: two of the three working files
carrying it alone are machines where no contract id fits (Windows' nvml.dll lookup, a machine without a GPU).
"""

import os
import sys

import pytest

from envcheck.explain import explain_text

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (  # noqa: E402
    assert_top_is_label, check_batch_threads_new, check_log_batch, log_readme_rows, read_text_file, status_of_files)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
BATCH = "emit27c"
DEV = os.path.join(HERE, "data", "logs", BATCH)
HELD = os.path.join(ROOT, "heldout", BATCH + "-held")
DEV_ROWS = log_readme_rows(DEV)
#: dev logs explain does not get right, and what it says instead (each asserted: a change shows here):
#: * emergingstack/es-dev-stack#13 runs nvidia-installer in a privileged container on CoreOS; its "docker run" line is
#:   read as a container started without GPUs (errors.toml container-run-line explains no-gpu-driver), which outranks
#:   the installer's own "Unable to load the kernel module 'nvidia.ko'" (a module built for another kernel): no
#:   signature can opt out of that context today; left to the lead.
KNOWN_MISSES = {"es-dev-stack-13-coreos-kernel-update-unable-to-load-nvidia-ko.log": "no-gpu-visible"}


def _read(name, folder=DEV):
    return read_text_file(folder, name)


def _ids(text):
    return [m.id for m in explain_text(text)]


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    check_log_batch(DEV, HELD, min_dev=27, min_held=13, min_total=40, min_none=2, held_listed=True)


def test_no_thread_is_in_the_batch_nor_in_an_earlier_set():
    check_batch_threads_new(DEV_ROWS, HELD, BATCH)


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(name, label, source):
    assert_top_is_label(explain_text(_read(name)), name, label, KNOWN_MISSES)


def test_nvidia_smi_without_nvml_is_no_driver_and_says_the_container_loader_cache():
    matches = explain_text(_read("nvidia-docker-1163-cuda9-base-smi-cannot-find-libnvidia-ml-until-ldconfig.log"))
    assert matches[0].id == "no-gpu-driver"
    assert "ldconfig" in matches[0].fixes[0] and "container" in matches[0].fixes[0]


@pytest.mark.parametrize("line,cause", [
    # microsoft/WSL#14339 (dev log): nvidia-smi's line, then the shutdown line after it
    ("Failed to initialize NVML: GPU access blocked by the operating system", "device-permission"),
    # the same log's second line alone states no failure to start: nothing is said of it
    ("Failed to properly shut down NVML: GPU access blocked by the operating system", None),
])
def test_nvml_operating_system_block_is_device_permission_only_at_init(line, cause):
    assert _ids(line) == ([cause] if cause else [])


@pytest.mark.parametrize("line,fm,driver", [
    # siderolabs/pkgs#720 (dev log)
    ("`fabric manager NVIDIA GPU driver interface version 525.85.12 don't match with driver version 530.41.03. "
     "Please update with matching NVIDIA driver package`.", "525.85.12", "530.41.03"),
    # NVIDIA/nvtrust#55 (dev log): a typographic apostrophe
    ("\"fabric manager NVIDIA GPU driver interface version 550.90.07 don\u2019t match with driver version 550.107.02. "
     "Please update with matching NVIDIA driver package\"", "550.90.07", "550.107.02"),
    # akash-network/website#632: the newer wording of the same check, as a provider's systemctl status shows it
    ("Nov 05 13:55:26 node1 nv-fabricmanager[104230]: fabric manager NVIDIA GPU driver interface version 550.127.05 "
     "doesn't match with driver version 550.120. Please update with the matching NVIDIA driver package.",
     "550.127.05", "550.120"),
])
def test_fabric_manager_of_another_release_is_the_library_mismatch_with_both_versions(line, fm, driver):
    matches = explain_text(line)
    assert [m.id for m in matches] == ["driver-library-mismatch"]
    assert (matches[0].captures.get("fabricmanager"), matches[0].captures.get("driver")) == (fm, driver)
    assert "Fabric Manager" in matches[0].fixes[0]


@pytest.mark.parametrize("line,cause", [
    # Witko/nvidia-xrun#135 (dev log): the main module is missing for the running kernel
    ("modprobe: FATAL: Module nvidia not found in directory /lib/modules/5.2.13-200.fc30.x86_64", "no-gpu-driver"),
    # Witko/nvidia-xrun#148 (dev log): Debian's alias of it
    ("modprobe: FATAL: Module nvidia-current not found in directory /lib/modules/4.19.0-9-amd64", "no-gpu-driver"),
    # the same nvidia-xrun#135 log: a secondary module alone is not read
    ("modprobe: FATAL: Module nvidia_uvm not found in directory /lib/modules/5.2.13-200.fc30.x86_64", None),
])
def test_modprobe_without_the_nvidia_module_is_no_driver(line, cause):
    assert _ids(line) == ([cause] if cause else [])


@pytest.mark.parametrize("line", [
    # rapidsai/dask-cuda#949 (dev log, its title)
    "pynvml.nvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.",
    # tensorpack/tensorpack#1244 (dev log): the enum name from its own NVML binding
    "> tensorpack.utils.nvml.NvmlException: NVML_ERROR_LIB_RM_VERSION_MISMATCH",
    # abysssol/ollama-flake#4 (dev log, its title): the nvml.h description of the code
    "GPU not detected -- RM detects a driver/library version mismatch.",
])
def test_nvml_rm_version_mismatch_in_its_callers_words_is_the_library_mismatch(line):
    assert _ids(line) == ["driver-library-mismatch"]


def test_pynvml_library_not_found_alone_gets_no_rule():
    # NVlabs/imaginaire#56 (dev log, label none): Windows with CUDA working, pynvml's own DLL lookup
    assert _ids(_read("imaginaire-56-windows10-pynvml-library-not-found.log")) == []


@pytest.mark.parametrize("text,state,finding", [
    # projectbluefin/dakota#373 (dev log), as a snapshot's nvidia-smi.txt
    ("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display "
     "Driver is properly installed and present in your system.\nPlease also try adding directory that contains "
     "libnvidia-ml.so to your system PATH.\n", "no-driver", "no-gpu-driver"),
    # microsoft/WSL#14339 (dev log)
    ("Failed to initialize NVML: GPU access blocked by the operating system\nFailed to properly shut down NVML: GPU "
     "access blocked by the operating system\n", "nvml-unknown-error", "device-permission"),
])
def test_status_reads_the_same_nvidia_smi_failures_as_explain(tmp_path, text, state, finding):
    rep = status_of_files(tmp_path, {"nvidia-smi.txt": text})
    assert rep["driver"]["nvidia_smi"] == state
    assert finding in [f["id"] for f in rep["findings"]]
    assert explain_text(text)[0].id == finding


@pytest.mark.parametrize("name,first", [
    # NVIDIA/gpu-operator#8 (dev log): the driver container's installer, the sentence wrapped at 72 columns
    ("gpu-operator-8-driver-container-418-dkms-conf-unable-to-load-nvidia-ko.log", "Unable to load the kernel module"),
    # ApolloAuto/apollo#2466 (dev log): the nouveau check, wrapped after "by your"
    ("apollo-2466-dev-docker-nouveau-in-use-installer.log", "Nouveau kernel driver is currently in use"),
])
def test_nvidia_installer_failures_are_no_driver_with_their_own_fix(name, first):
    matches = explain_text(_read(name))
    assert matches[0].id == "no-gpu-driver" and first in matches[0].evidence
    assert "installer" in matches[0].fixes[0]


def test_installer_fix_names_the_load_errors_it_tells_apart():
    fix = explain_text(_read("coreos-gpu-installer-2-390-unknown-symbols-unable-to-load-nvidia-ko.log"))[0].fixes[0]
    assert all(w in fix for w in ("version magic", "Unknown symbol", "Secure Boot", "nouveau"))
