"""attack54 (session 25): envcheck saying something false after session 25's round-one merges.

* amd42 (Ollama on an AMD GPU left unused -> gpu-arch-unsupported by the build's target list): a 780M thread whose GPU
  is invisible because /dev/dri does not exist (ollama/ollama#17104, the search index's copy, cut at line boundaries),
  and a healthy Vega 56 log where Ollama's Linux discovery says it skips its gfx check for HSA_OVERRIDE_GFX_VERSION
  (ollama/ollama#6336, tests/data/logs/vlogs22, label none): the build's list does not decide either; a 780M thread on
  the tracker of a community build compiled for gfx1103 (likelovewant/ollama-for-amd#20: the fork's v0.3.8 leaves it
  unused, its maintainer blames a driver DLL): Ollama's own Windows 0.3.8 list is not that build's.
* jetson42 (driver-side placeholders empty -> no-gpu-driver): ldconfig's "File .../tegra/libcuda.so is empty, not
  checked." listing of an L4T image while a Jetson user asks how to run a GUI from the container
  (dusty-nv/jetson-containers#36): apt's / a build's ldconfig lists the image's placeholders wherever the GPU is not
  mounted, and nothing tried to load them; a loader's "file too short" still decides.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from helpers import explain_cli_matches  # noqa: E402

from envcheck.engine.ollama_amd import ollama_target_missing  # noqa: E402
from envcheck.matrix import load_matrix  # noqa: E402
from envcheck.paste.readers.ollama_amd import ollama_facts  # noqa: E402

HERE = os.path.dirname(__file__)
MATRIX = load_matrix()

#: https://github.com/ollama/ollama/issues/17104 (the description, as the search index stores it)
OLLAMA_17104 = 'ollama/ollama · issue #17104 · closed · Go\nlabels: bug\n# AMD Radeon 780M (gfx1103) not detected on Unraid despite amdgpu driver loaded\n\nJoshC1994 · description · 2026-07-09\n### What is the issue?\n\nWhat is the issue?\nAMD GPU (Radeon 780M) is not detected by Ollama on an Unraid system. The kernel’s amdgpu driver is loaded and /dev/kfd exists, but /dev/dri is missing, so the ROCm Ollama image cannot detect the GPU and always falls back to CPU.\n\nWhat happened? What did you expect to happen?\n\nSetup:\n\nHardware: Aoostar WTR Max with AMD Ryzen 7 PRO 8845HS (Radeon 780M, gfx1103)\n\nOS: Unraid (community builds)\n\nRuntime: ollama/ollama:rocm Docker image via Unraid’s Community Apps plugin\n\nContainer config:\n\nEnv vars:\n\nHSA_OVERRIDE_GFX_VERSION=11.0.0\n\nOLLAMA_VULKAN=false\n\nExtra parameters:\n\n--device=/dev/kfd (Works: /dev/kfd exists)\n\n--device=/dev/dri (Fails: /dev/dri does not exist on host)\n\nWhat happened:\n\ndocker exec -it ollama ollama ps shows:\n\ntext\nNAME          SIZE    PROCESSOR\nllama3.1:8b   5.8GB   100% CPU\nls -l /dev/kfd succeeds.\n\nls -l /dev/dri fails: No such file or directory.\n\n/sys/class/drm only contains version, no card0 or renderD*.\n\ndmesg shows:\n\ntext\n[drm] Cannot find any crtc or sizes\nand the rest of amdgpu initialization logs.\n\nWhat I expected:\n\nOllama to detect the Radeon 780M GPU and report 100% GPU in ollama ps, as it does on standard Linux distros with HSA_OVERRIDE_GFX_VERSION=11.0.0.\n\n'


def _lines(text):
    return {f.field[len("seen:"):]: f.value for f in ollama_facts(text.splitlines()).facts if f.field.startswith("seen:")}


def _ids(matches):
    return [m.get("id") for m in matches]


def test_dev_dri_missing_is_not_the_target_list():
    lines = _lines(OLLAMA_17104)
    assert "ollama-nodes-missing" in lines and "/dev/dri" in lines["ollama-nodes-missing"]
    assert ollama_target_missing(MATRIX, {}, lines) is None
    assert "gpu-arch-unsupported" not in _ids(explain_cli_matches("--no-detect", text=OLLAMA_17104))


def test_dev_dri_said_present_is_not_missing():
    # constructed boundary: the nodes named as passed / existing say nothing of their absence
    text = OLLAMA_17104.replace("/dev/dri does not exist on host", "/dev/dri exists").replace(
        "ls -l /dev/dri fails: No such file or directory.", "ls -l /dev/dri succeeds.").replace(
        "but /dev/dri is missing, so", "and so")
    lines = _lines(text)
    assert "ollama-nodes-missing" not in lines
    assert ollama_target_missing(MATRIX, {}, lines) is not None  # the target list decides again (780M, gfx1103)


def test_override_taken_on_linux_decides_nothing():
    path = os.path.join(HERE, "data", "logs", "vlogs22", "ollama-vega56-amdgpu-version-file-missing-override-9.0.0-works-6336.log")
    assert "gpu-arch-unsupported" not in _ids(explain_cli_matches("--no-detect", path))
    with open(path, encoding="utf-8") as fh:
        lines = _lines(fh.read())
    assert "ollama-override-taken" in lines


def test_override_taken_on_windows_still_decides():
    # Windows' discovery also skips the check for the override, yet its bundled rocBLAS refuses the GPU
    # (ByronLeeeee/Ollama-For-AMD-Installer#12, heldout/acceptance14): the Windows line is not read as taken
    lines = _lines('time=2025-07-29T13:31:46.647+02:00 level=INFO source=amd_windows.go:70 msg="skipping rocm gfx '
                   'compatibility check" HSA_OVERRIDE_GFX_VERSION=11.0.0\nOllama runs 100% on CPU')
    assert "ollama-override-taken" not in lines


#: https://github.com/likelovewant/ollama-for-amd/issues/20 (as the search index stores it)
OLLAMA_FOR_AMD_20 = "likelovewant/ollama-for-amd · issue #20 · closed · Go\nlabels: bug\n# v0.3.8 and v0.3.10 don't detect gfx1103 (AMD RadeonT 780M)\n\norajson · description · 2024-09-21\n### What is the issue?\n\nv0.3.8 and v0.3.10 don't detect gfx1103 (AMD RadeonT 780M) but still using CPU\n![image](https://github.com/user-attachments/assets/436c5978-0c2e-4c4c-9dd4-b45fc45dd1bf)\nHowever v0.3.6 detects gfx1103 and uses GPU well\n![image](https://github.com/user-attachments/assets/77661407-39c7-47b6-aefc-3b3f65cdee9d)\n\n### OS\n\nWindows\n\n### GPU\n\nAMD\n\n### CPU\n\nAMD\n\n### Ollama version\n\n0.3.8, 0.3.10\n\nlikelovewant · comment · 2024-09-21\nThat's a bug relate to drivers /amdhip64_6.dll which support rocm6.1.2 some drivers can not pick it up . and there are several version of it . make sure get the latest drivers . and try the solution https://github.com/likelovewant/ollama-for-amd/issues/18\n"


def test_community_build_tracker_is_not_ollamas_list():
    lines = _lines(OLLAMA_FOR_AMD_20)
    assert "ollama-fork" in lines
    assert ollama_target_missing(MATRIX, {}, lines) is None
    assert "gpu-arch-unsupported" not in _ids(explain_cli_matches("--no-detect", text=OLLAMA_FOR_AMD_20))


def test_fork_named_only_in_a_reply_is_not_the_header():
    # constructed boundary: the fork's name further down (a maintainer's link) is not the thread's tracker
    body = OLLAMA_FOR_AMD_20.split("\n", 1)[1] + "\nsee https://github.com/likelovewant/ollama-for-amd/releases\n"
    lines = _lines(body)
    assert "ollama-fork" not in lines
    assert ollama_target_missing(MATRIX, {}, lines) is not None


#: https://github.com/dusty-nv/jetson-containers/issues/36 (as the search index stores it; cut at a line boundary)
JETSON_CONTAINERS_36 = 'dusty-nv/jetson-containers · issue #36 · closed · Jupyter Notebook\n# How to run GUI from docker file\n\n[turn 3 by kvnptl, continued]\n```\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libnvscf.so is empty, not checked.\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libnvcolorutil.so is empty, not checked.\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libnvgov_force.so is empty, not checked.\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libnvid_mapper.so is empty, not checked.\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libnvdecode2eglimage.so is empty, not checked.\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libnvisp_utils.so is empty, not checked.\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libnvmm_parser.so is empty, not checked.\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libGLX_indirect.so.0 is empty, not checked.\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libsensors.l4t.no_fusion.nvs.so is empty, not checked.\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libnvll.so is empty, not checked.\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libnvmm.so is empty, not checked.\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libcuda.so is empty, not checked.\n/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libgbm.so.1 is empty, not checked.\n'


def test_ldconfig_listing_of_placeholders_alone_is_no_cause():
    assert _ids(explain_cli_matches("--no-detect", text=JETSON_CONTAINERS_36)) == []


def test_loader_failing_on_an_empty_libcuda_still_decides():
    # constructed boundary: the same listing with the loader's own failure on the empty library below it
    text = JETSON_CONTAINERS_36 + "ImportError: /usr/lib/aarch64-linux-gnu/tegra/libcuda.so: file too short\n"
    assert _ids(explain_cli_matches("--no-detect", text=text))[:1] == ["no-gpu-driver"]
