"""What was changed after heldout/acceptance12's blind score (so not blind): each test uses the real lines of a public
thread (cited; the whole texts are in heldout/acceptance12) and would fail before the change, with a control beside it
that must stay as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.parse.nvidia_smi import parse_list

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "heldout" / "acceptance12"


def _ids(text: str):
    return [m["id"] for m in explain_text_document(text)["matches"]]


def _signatures(text: str):
    return [(m["id"], m.get("signature")) for m in explain_text_document(text)["matches"]]


# ROCm/ROCm#1893: Docker Desktop on Windows asked for /dev/kfd, which its VM does not have
_NO_KFD = ('docker: Error response from daemon: error gathering device information while adding custom device '
           '"/dev/kfd": no such file or directory.\n')


def test_docker_without_dev_kfd_on_the_host_is_no_rocm_driver_and_no_nvidia_advice():
    doc = explain_text_document(_NO_KFD)
    top = doc["matches"][0]
    assert (top["id"], top["signature"]) == ("no-gpu-driver", "docker-no-dev-kfd-on-host")
    assert not any("nvidia-smi" in f or "/dev/nvidia" in f for f in top["fixes"])
    # the NVIDIA device node is not this rule's
    assert ("no-gpu-driver", "docker-no-dev-kfd-on-host") not in _signatures(_NO_KFD.replace("/dev/kfd", "/dev/nvidia0"))


def test_a_docker_run_line_above_it_is_not_nvidias_container_case():
    # the whole log of ROCm/ROCm#1893: its docker run line (no --gpus) is the NVIDIA container context's case only for
    # NVIDIA's own failures; this one is AMD's (errors.toml vendor = "amd")
    text = (SET / "logs" / "rocm-1893-windows-docker-amdih-pytorch-no-dev-kfd.log").read_text(encoding="utf-8")
    doc = explain_text_document(text)
    assert [m["id"] for m in doc["matches"]] == ["no-gpu-driver"]
    assert not any("--gpus" in f for m in doc["matches"] for f in m["fixes"])


@pytest.mark.parametrize("lib", ["libmkl_intel_lp64.so.2", "libmkl_core.so.2"])
def test_onemkl_missing_at_torch_import_is_the_oneapi_runtime(lib):
    # intel/intel-extension-for-pytorch#530, intel/intel-xpu-backend-for-triton#2393 (torch XPU's global deps)
    line = f"OSError: {lib}: cannot open shared object file: No such file or directory\n"
    assert _ids(line)[:1] == ["oneapi-runtime-missing"]


def test_an_older_mkl_soname_is_not_said_to_be_oneapi():
    assert "oneapi-runtime-missing" not in _ids(
        "OSError: libmkl_intel_lp64.so: cannot open shared object file: No such file or directory\n")


def test_libcudss_is_a_cuda_library():
    # NVIDIA/Isaac-GR00T#343: torch 2.8 for JetPack 6.2 on an Orin
    assert _ids("ImportError: libcudss.so.0: cannot open shared object file: No such file or directory\n")[:1] == [
        "cuda-runtime-missing"]


def test_an_nvidia_smi_l_line_may_carry_a_shell_comment():
    text = (SET / "captures" / "L-two-tesla-t4-kaggle-elided-uuids-comments.txt").read_text(encoding="utf-8")
    got = parse_list(text)
    assert [(g.index, g.name) for g in got.gpus] == [(0, "Tesla T4"), (1, "Tesla T4")]


def test_an_xformers_built_for_cuda_beside_an_xpu_torch_is_an_extension_mismatch():
    # facebookresearch/xformers#1324 (an Arc B580)
    text = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.8.0+cu128 with CUDA 1208 (you have 2.8.0+xpu)\n")
    assert _ids(text)[:1] == ["extension-abi-mismatch"]


def test_amd_and_a_radeon_number_without_a_blank_is_an_amd_gpu_but_a_ryzen_is_not():
    # lshqqytiger/stable-diffusion-webui-amdgpu#416: the upstream web UI on an RX 6500 XT
    check = "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS\n"
    assert _ids("Windows10 + AMD6500XT\n" + check)[:1] == ["framework-vendor-mismatch"]
    assert "framework-vendor-mismatch" not in _ids("Windows10 + AMD5800X\n" + check)


def test_a_found_problem_said_in_the_next_sentence_is_the_resolution():
    # googlecolab/colabtools#692: spaCy imported before TensorFlow brought its older cuDNN
    text = (SET / "pastes" / "colabtools-692-spacy-before-tensorflow-cudnn-7.3.1-compiled-7.4.2.txt").read_text(
        encoding="utf-8")
    assert _ids(text)[:1] == ["framework-conflict"]
    # without the reporter's finding, TF's own check is what the text shows
    cut = text.replace("Finally find the problem. Looks Spacy conflicts with tensorflow.", "Still failing.")
    assert _ids(cut)[:1] == ["cudnn-version-mismatch"]


def test_a_found_problem_asked_about_or_left_unsaid_is_no_resolution():
    from envcheck.paste.readers.resolution import line_facts

    for s in ("Did you find the problem? Looks like spacy conflicts with tensorflow.", "Finally find the problem."):
        assert not line_facts(s, s.lower())


# Windows' LoadLibrary error 127 (ERROR_PROC_NOT_FOUND: found, but an entry point another DLL imports is missing, i.e.
# another release) on cuDNN 8's loader line. microsoft/onnxruntime#18973 (ORT 1.16.3, answered: the cuDNN for CUDA 11
# on PATH) and PaddleDetection#8265 (heldout/acceptance12, answered: another cuDNN version)
_ERROR_127 = "Could not load library cudnn_cnn_infer64_8.dll. Error code 127 when using 1.16.3 CUDA\n"


def test_windows_cudnn_dll_error_127_is_a_cudnn_of_another_release():
    doc = explain_text_document(_ERROR_127)
    assert (doc["matches"][0]["id"], doc["matches"][0]["signature"]) == (
        "cudnn-version-mismatch", "windows-cudnn-dll-procedure-not-found")
    text = (SET / "pastes" / "paddledet-8265-zh-inference-cudnn-cnn-infer64-8-dll-error-127.txt").read_text(
        encoding="utf-8")
    assert _ids(text)[:1] == ["cudnn-version-mismatch"]


@pytest.mark.parametrize("code", ["126", "1455", "1270"])
def test_other_windows_load_errors_are_not_a_version_mismatch(code):
    # 126 (ERROR_MOD_NOT_FOUND: a file missing) stays cudnn-missing; 1455 is the paging file; 1270 is not 127
    assert "cudnn-version-mismatch" not in _ids(_ERROR_127.replace("127", code))


# A Windows text (a DLL named) gets Windows' loader advice: PATH, not apt / LD_LIBRARY_PATH / ldconfig; and the
# dead end "the Linux loader never searches PATH" is not said to it (errors.toml fix / dead_end `when = "!windows"`).
# Softcatala/whisper-ctranslate2#41 (cuDNN 8 on Windows 10) and tensorflow#63702's Linux twin (libcudnn_cnn_infer.so.8)
_WIN_126 = ("Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n"
            "Please make sure cudnn_cnn_infer64_8.dll is in your library path!\n")
_LINUX_SO = ("Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared "
             "object file: No such file or directory\n")


def _top(text: str):
    return explain_text_document(text, detect=False)["matches"][0]


def test_windows_dll_text_gets_path_advice_not_linux_loader_advice():
    top = _top(_WIN_126)
    assert top["id"] == "cudnn-missing"
    fixes = " ".join(top["fixes"])
    assert "PATH" in fixes and "zlibwapi.dll" in fixes
    assert "apt" not in fixes and "ldconfig" not in fixes and "LD_LIBRARY_PATH" not in fixes
    assert not any("never PATH" in d for d in top["dead_ends"])


def test_linux_so_text_keeps_linux_loader_advice_and_no_windows_fix():
    top = _top(_LINUX_SO)
    assert top["id"] == "cudnn-missing"
    fixes = " ".join(top["fixes"])
    assert "LD_LIBRARY_PATH" in fixes and "apt" in fixes
    assert not any(f.startswith("Windows:") for f in top["fixes"])


def test_cuda_runtime_dll_gets_the_windows_toolkit_advice():
    # tensorflow#45930's Windows wording (TF 2.x dso_loader on Windows)
    text = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library "
            "'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n")
    top = _top(text)
    assert top["id"] == "cuda-runtime-missing"
    assert any(f.startswith("Windows:") for f in top["fixes"])
    assert not any("LD_LIBRARY_PATH" in f for f in top["fixes"])
    assert not any("never PATH" in d for d in top["dead_ends"])


# 3dem/model-angelo#60 (heldout/acceptance12): inside a Slurm job that was given no GPU, nvidia-smi cannot reach the
# driver; the reporter's "I didn't actually get a gpu allocated" is the cause (resolutions.toml: the row's `explains`
# makes nvidia-smi's failure its symptom). Here the reporter (DerLorenz, the author) writes the description too.
_SMI_FAILED = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
               "NVIDIA driver is installed and running.")
_SLURM = ("DerLorenz · description · 2023-08-01\n"
          "It doesnt show me the gpus.\n```\nnvidia-smi\n" + _SMI_FAILED + "\n```\n\n"
          "jamaliki · comment · 2023-08-02\nAre you able to run `nvidia-smi`?\n\n"
          "DerLorenz · comment · 2023-08-03\nWait, I am an idiot. \n"
          "I found the issue in my slurm-submission script. While asking for resources allocated on the gpu nodes, I "
          "didn't actually get a gpu allocated. I fixed ths now and I get all correct outputs for the checks.\n")


def test_a_job_given_no_gpu_settles_over_nvidia_smis_no_driver_symptom():
    assert _ids(_SLURM)[:1] == ["no-gpu-visible"]


def test_a_fix_whose_row_does_not_explain_the_no_driver_message_stays_beside_it():
    # time-series-library#10's wording (the no-gpu-visible row without `explains`): nvidia-smi's failure stays first
    text = _SLURM.replace("While asking for resources allocated on the gpu nodes, I didn't actually get a gpu "
                          "allocated. I fixed ths now", "I resolved this issue by removing export "
                          "CUDA_VISIBLE_DEVICES=2 from the bash script, fixed now")
    ids = _ids(text)
    assert ids[:1] == ["no-gpu-driver"] and "no-gpu-visible" in ids


def test_a_settling_resolution_the_reports_facts_contradict_is_not_merged_and_nothing_breaks():
    # "Solved by updating the NVIDIA driver" beside collect_env's "Is CUDA available: True": the report shows the driver
    # ran the build (engine.report.cuda_reached_contradicts), so driver-too-old is not merged; explain goes on (this
    # raised StopIteration when a settling resolution was looked up among the matches without its finding)
    text = ("PyTorch version: 2.1.0+cu121\nIs debug build: False\nCUDA used to build PyTorch: 12.1\n"
            "Is CUDA available: True\nNvidia driver version: 470.82.01\n\nSolved by updating the NVIDIA driver.\n")
    assert "driver-too-old" not in _ids(text)
