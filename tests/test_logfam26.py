"""Helper logfam26 of issue 20: fresh real samples of the log families the spent blind sets (heldout/acceptance10..15)
kept missing. Real texts: tests/data/logs/logfam26 (README: file, label, source, note with the family); the held-back
part heldout/logfam26-held was split off first (scripts/split_log_batch.py, random.Random(2026112826), 35%, healthy
controls apart) and is scored with scripts/score_explain.py only, never asserted here.

The rules, each in the layer docs/architecture.md gives it:

* family 1 (a CUDA build on a machine whose GPU is AMD's or Intel's): two readers of the machine's vendor in
  errors.toml (scope "vendor" facts) - a DirectML build at work (``directml``: the web UI's DirectML fork in a path,
  torch-directml, the fork's use-directml option) and the web UI wiki's AMD install page the reporter followed
  (``amd_gpu``) - and the engine's rule on them (engine.vendors.recast_cause / log_directml: torch's "Found no NVIDIA
  driver" beside a DirectML build and no NVIDIA fact is framework-vendor-mismatch); torch's sentence as reporters retype
  it ("found no NVIDIA driver on your computer") is torch's own wording;
* family 2 (Jetson CUDA that works as root only): the reporter's sentence that CUDA / the GPU fails for a non-root or
  new user, or needs root (device-permission), which outranks the failure line's own no-gpu-visible reading.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (assert_top_is_label, check_literals_hold, check_log_batch, check_no_nvidia_only_advice,  # noqa: E402
                     check_section_signatures, earlier_log_threads, explain_file, log_readme_rows, top_match)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "logfam26")
HELD = os.path.join(ROOT, "heldout", "logfam26-held")
DEV_ROWS = log_readme_rows(DEV)
SECTION = "# logfam26 (issue 20)"
SIGNATURES = {"cuda-fails-for-non-root-user-said", "torch-found-no-driver-retyped"}
#: working logs whose label the text alone does not reach: the exact answer expected instead
KNOWN_MISSES = {}

FOUND_NO_DRIVER = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
                   "installed a driver from http://www.nvidia.com/Download/index.aspx\n")


def _read(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as fh:
        return fh.read()


def test_listing_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV, HELD, min_dev=5, min_held=3, min_total=8, min_healthy=2, min_none=1,
                           held_listed=True)
    # both families with three fresh samples have one held back; one healthy control each side
    assert {r[1] for r in held} == {"framework-vendor-mismatch", "device-permission", "none"}


def test_no_thread_is_in_an_earlier_log_set():
    urls = {r[2] for r in DEV_ROWS + log_readme_rows(HELD)}
    assert not urls & earlier_log_threads(("logfam26", "logfam26-held"))


def test_signatures_sit_in_the_section_behind_an_existing_anchor():
    check_section_signatures(SECTION, SIGNATURES)
    lines = [ln for name, _, _ in DEV_ROWS for ln in _read(DEV, name).splitlines()]
    assert check_literals_hold(SIGNATURES, lines) == SIGNATURES


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS])
def test_working_logs(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV, name)), name, label, KNOWN_MISSES)


@pytest.mark.parametrize("name", ["a1111-15137-amd-wiki-install-found-no-nvidia-driver-model-failed-to-load.log",
                                  "forge-436-rx580-torch-not-able-to-use-gpu-then-found-no-nvidia-driver.log"])
def test_amd_logs_get_no_nvidia_only_advice(name):
    check_no_nvidia_only_advice(os.path.join(DEV, name))


# -- family 1: the DirectML build as a fact of the machine's vendor (real paths of the DirectML fork's tracebacks)

DIRECTML_PATH = ('  File "C:\\Users\\Usuario\\stable-diffusion-webui-directml\\venv\\lib\\site-packages\\torch\\cuda\\'
                 '__init__.py", line 302, in _lazy_init\n    torch._C._cuda_init()\n')


def test_found_no_driver_beside_a_directml_build_is_a_build_for_another_vendor():
    m = top_match(DIRECTML_PATH + FOUND_NO_DRIVER)
    assert m is not None and m.id == "framework-vendor-mismatch"
    advice = m.fixes[0]
    assert "DirectML" in advice and "nvidia-smi" not in advice and "nvidia.com/Download" not in advice
    # Aloereed's Intel Arc fork, and torch-directml named in an install line, are the same fact
    arc = ('venv "M:\\Code\\stable-diffusion-webui-arc-directml\\venv\\Scripts\\Python.exe"\n' + FOUND_NO_DRIVER)
    assert top_match(arc).id == "framework-vendor-mismatch"


def test_directml_alone_or_beside_an_nvidia_gpu_keeps_the_driver_reading():
    # the line alone: a missing NVIDIA driver
    assert top_match(FOUND_NO_DRIVER).id == "no-gpu-driver"
    # a DirectML fork that names an NVIDIA GPU: the NVIDIA reading stands (the fork runs on NVIDIA GPUs too)
    m = top_match(DIRECTML_PATH + "Device: NVIDIA GeForce RTX 3060\n" + FOUND_NO_DRIVER)
    assert m is not None and m.id == "no-gpu-driver"
    # a DirectML build with no CUDA failure says nothing
    assert top_match(DIRECTML_PATH) is None


def test_the_amd_wiki_page_followed_names_an_amd_machine():
    text = ("I followed the instructions on https://github.com/AUTOMATIC1111/stable-diffusion-webui/wiki/"
            "Install-and-Run-on-AMD-GPUs and performed a clean installation.\n" + FOUND_NO_DRIVER)
    assert top_match(text).id == "framework-vendor-mismatch"
    # the page merely linked (a maintainer's pointer) is no statement about the machine
    assert top_match("see https://github.com/AUTOMATIC1111/stable-diffusion-webui/wiki/Install-and-Run-on-AMD-GPUs\n"
                     + FOUND_NO_DRIVER).id == "no-gpu-driver"


def test_torch_sentence_retyped():
    m = top_match('it showed another error "found no NVIDIA driver on your computer"\n')
    assert m is not None and m.id == "no-gpu-driver" and m.signature == "torch-found-no-driver-retyped"
    assert top_match("I am using AMD radio RX580. It says found no NVIDIA driver on your computer\n").id == \
        "framework-vendor-mismatch"


# -- family 2: CUDA for root only (the reporters' sentences of the working samples, and the spent set's wording)

@pytest.mark.parametrize("line", [
    "I can't seem to get GPU access in a container on Jetson as a non-root user. Is this expected?",
    "# cannot use GPU in docker without root",
    # heldout/acceptance15's jetson-containers-1136 (spent): read as framework-cpu-only before
    "Hello. I have a jetson orin nx 16BG with jetpack 6. I installed docker and I took the pytorch 2.1.0 r36 container "
    "to run my application. My actual problem is that torch finds GPU ony if I use the root user. For any non root "
    "user, I have torch.cuda.is_available() returning false, with an error saying that:",
])
def test_cuda_for_root_only_is_a_device_permission(line):
    m = top_match(line + "\n")
    assert m is not None and m.id == "device-permission", m and (m.id, m.evidence)


def test_root_only_sentence_outranks_the_failure_line():
    text = ("I can't seem to get GPU access in a container on Jetson as a non-root user.\n"
            "cudaGetDeviceCount returned 100\n-> no CUDA-capable device is detected\nResult = FAIL\n")
    assert top_match(text).id == "device-permission"


@pytest.mark.parametrize("line", [
    # a wish to run as non-root with GPU access: nothing failed (NVIDIA/Isaac-GR00T#653)
    "Container process should run as a non-root user (e.g., `appuser`) while retaining full GPU / CUDA access.",
    "A `USER appuser` directive after all installs might work, but we haven't confirmed that NVIDIA driver "
    "initialization succeeds for non-root inside these base images.",
    # docker's own socket permission as a non-root user is no GPU device node
    "Got permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock",
])
def test_non_root_words_without_a_gpu_failure_say_nothing(line):
    m = top_match(line + "\n")
    assert m is None or m.id != "device-permission", (m.id, m.evidence)
