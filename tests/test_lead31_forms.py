"""The lead's session-7 forms: a container started without GPUs, seen from inside it with no ``docker run --gpus``
line in the text: a GPU image named by its tag (or a container's own shell prompt) and nvidia-smi missing there, which
the NVIDIA Container Toolkit mounts into every container it gives GPUs. Real texts: tests/data/pastes/lead31
(README.md cites each thread); the variants below each change one thing those texts show."""

from pathlib import Path

import pytest
from helpers import readme_labels, status_of_files

from envcheck.explain.document import explain_text_document

DATA = Path(__file__).resolve().parent / "data" / "pastes" / "lead31"
LABELS = readme_labels(DATA, source=r"https://github\.com/\S+")


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text)["matches"]]


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert set(LABELS.values()) == {"no-gpu-visible", "none"}


#: labelled by the thread, not reached from the text alone (README.md says why): nothing else may be said instead
UNREACHED = {"nvidia-docker-341-from-nvidia-cuda-devel-nvidia-smi-not-found.txt",
             "code-server-922-container-prompt-nvidia-smi-not-found.txt"}


@pytest.mark.parametrize("name", sorted(LABELS))
def test_real_texts(name):
    ids = _ids((DATA / name).read_text())
    if LABELS[name] == "none":
        assert "no-gpu-visible" not in ids  # started with GPUs: the image lacks nvidia-smi, not the container GPUs
    elif name in UNREACHED:
        assert ids == []
    else:
        assert ids[:1] == [LABELS[name]]


IMAGE = "pytorch/pytorch:1.13.1-cuda11.6-cudnn8-devel"
SMI_MISSING = "bash: nvidia-smi: command not found"


def test_image_and_missing_nvidia_smi_is_a_container_without_gpus():
    doc = explain_text_document(f"I pulled {IMAGE} and started it.\n$ nvidia-smi\n{SMI_MISSING}\n")
    top = doc["matches"][0]
    assert top["id"] == "no-gpu-visible"
    assert "--gpus all" in top["fixes"][0] and IMAGE.split(":")[0] in top["fixes"][0]


@pytest.mark.parametrize("text", [
    f"$ nvidia-smi\n{SMI_MISSING}\n",  # a host: nothing shows a container (no driver installed is as likely)
    f"I pulled {IMAGE}.\n$ nvidia-smi\n{SMI_MISSING}\n>>> torch.cuda.is_available()\nTrue\n",  # a GPU reached there
    f"docker run --gpus all -it {IMAGE} bash\n{SMI_MISSING}\n",  # given GPUs: the image's own lack
    f"x = y.to('device:cuda0')\n{SMI_MISSING}\n",  # a device string, not an image tag
    f"I pulled {IMAGE}.\nCUDA available: False\n",  # no docker run line, and nvidia-smi not shown missing
    f"root@00921839c781:/app# nvidia-smi\n{SMI_MISSING}\n",  # a container, but nothing shows a GPU was meant in it
    f"user@box:~$ nvidia-smi\n{SMI_MISSING}\nthen: docker run -it {IMAGE} bash\n",  # the host's own, above the run
])
def test_what_does_not_show_it(text):
    assert "no-gpu-visible" not in _ids(text)


# ---------------------------------------------------------------- knowledge base: wordings of the libraries' own texts
def _top(text: str) -> tuple:
    doc = explain_text_document(text)
    m = doc["matches"][0] if doc["matches"] else {}
    return m.get("id"), m.get("captures", {}), (m.get("fixes") or [""])[0]


def test_glibc_241_refusing_an_executable_stack_library_routes_by_the_library():
    # easydiffusion/easydiffusion#1921 (torch 1.13.1+rocm5.2 on openSUSE Tumbleweed), lamikr/rocm_sdk_builder#241
    cid, caps, fix = _top("ImportError: libamdhip64.so: cannot enable executable stack as shared object requires: "
                          "Invalid argument\n")
    assert (cid, caps.get("lib")) == ("rocm-runtime-missing", "libamdhip64.so")
    assert "glibc 2.41" in fix and "executable stack" in fix
    assert _top("librccl.so.1: cannot enable executable stack as shared object requires: Invalid argument\n")[0] == \
        "rocm-runtime-missing"
    # OpenNMT/CTranslate2#1849: a library outside the GPU stack is no cause of envcheck's
    assert _top("ImportError: libctranslate2-bc15bf3f.so.4.5.0: cannot enable executable stack as shared object "
                "requires: Invalid argument\n")[0] is None


def test_rocblas_could_not_load_its_lazy_tensile_library_names_the_target():
    # rocBLAS tensile_host.cpp: rocblas_cerr << "\nrocBLAS error: Could not load " << tensileLibraryPath
    for path in (r"C:\Program Files\AMD\ROCm\6.1\bin\/rocblas/library/TensileLibrary_lazy_gfx1103.dat",
                 "/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1036.dat"):
        cid, caps, _ = _top(f"\nrocBLAS error: Could not load {path}\n")
        assert cid == "gpu-arch-unsupported" and caps.get("gfx") == path.rsplit("_", 1)[1][:-4]
    assert _top("rocBLAS error: Could not load /opt/rocm/lib/rocblas/library/TensileLibrary.dat\n")[0] == \
        "gpu-arch-unsupported"


def test_tensorflow_cudnn_7_sentence_alone_and_a_reworded_first_line():
    # TensorFlow 1.x stream_executor/cuda/cuda_dnn.cc prints both sentences; users quote either
    sentence = ("CuDNN library major and minor version needs to match or have higher minor version in case of CuDNN "
                "7.0 or later version. If using a binary install, upgrade your CuDNN library.")
    assert _top(sentence + "\n")[0] == "cudnn-version-mismatch"
    cid, caps, _ = _top("Loaded runtime CuDNN library: 7.0.5 but the source was compiled with: 7.1.4.\n")
    assert (cid, caps.get("loaded"), caps.get("compiled")) == ("cudnn-version-mismatch", "7.0.5", "7.1.4")


# ------------------------------------------------------------------------------------------------------ captures
CAPS = Path(__file__).resolve().parent / "data" / "captures-lead31"


def _status(tmp_path: Path, files: dict) -> dict:
    return status_of_files(tmp_path, files)


def test_clinfo_of_apples_opencl_platform_makes_a_mac_with_its_gpu(tmp_path):
    doc = _status(tmp_path, {"clinfo.txt": (CAPS / "clinfo-macos-apple-m1-hashcat-2976.txt").read_text()})
    assert doc["vendor"] == "apple"
    assert [(g["name"], g["vendor"]) for g in doc["gpus"]] == [("Apple M1", "apple")]
    assert doc["accelerator"]["apple_silicon"] is True


def test_clinfo_of_apples_platform_listing_only_a_cpu_names_no_gpu(tmp_path):
    doc = _status(tmp_path, {"clinfo.txt": (CAPS / "clinfo-macos-intel-cpu-only-ocl-icd-31.txt").read_text()})
    assert not doc["gpus"] and doc["vendor"] != "nvidia"  # null: not known, never an empty list made up


def test_query_csv_without_header_under_its_command_line(tmp_path):
    text = "$ nvidia-smi --query-gpu=compute_cap --format=csv,noheader\n8.6\n8.6\n8.6\n"
    doc = _status(tmp_path, {"nvidia-smi.txt": text})
    assert doc["vendor"] == "nvidia"
    assert [g["compute_capability"] for g in doc["gpus"]] == ["8.6", "8.6", "8.6"]
    assert all(g["name"] is None for g in doc["gpus"])  # never guessed


def test_query_csv_command_rows_stop_at_the_first_line_that_is_not_one(tmp_path):
    text = ("$ nvidia-smi --query-gpu=index,memory.total --format=csv,noheader\n0, 24564 MiB\n1, 24564 MiB\n"
            "$ python train.py\n")
    doc = _status(tmp_path, {"nvidia-smi.txt": text})
    assert [(g["index"], g["memory_mib"]) for g in doc["gpus"]] == [(0, 24564), (1, 24564)]


@pytest.mark.parametrize("rows", ["warm, 40\n", "8.6 (Ampere)\n", ""])
def test_query_csv_command_with_rows_of_other_shapes_reads_no_gpu(tmp_path, rows):
    doc = _status(tmp_path, {"nvidia-smi.txt": "$ nvidia-smi --query-gpu=compute_cap --format=csv,noheader\n" + rows})
    assert not doc["gpus"]


# ---------------------------------------------------------------------------------------------- facts from prose
_FAIL = "\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n"


@pytest.mark.parametrize("line,want", [
    ("Using python 3.12.1 on Windows 11 Vscode", "3.12.1"),  # protectai/llm-guard#114's wording
    ("I have python 3.10.6 installed.", "3.10.6"),
    ("Python version: 3.11.4", "3.11.4"),
    ("This requires Python 3.8.1 or later", None),  # a requirement, not the machine's
    ("please install python 3.10.6", None),  # an advice
    ("python >= 3.9.0 needed", None),
    ("Using python 3.12.1, and later python 3.11.9 in another venv", "3.12.1"),  # the first sentence's only
])
def test_a_python_a_sentence_states(line, want):
    facts = explain_text_document(line + _FAIL).get("facts") or {}
    assert (facts.get("python") or {}).get("version") == want


def test_two_sentences_naming_two_pythons_leave_it_unknown():
    doc = explain_text_document("Using python 3.12.1 here." + _FAIL + "Now using python 3.10.6 too.\n")
    assert ((doc.get("facts") or {}).get("python") or {}).get("version") is None


def test_tensorflow_template_version_written_with_the_package_words():
    # tensorflow/tensorflow#42811's "- TensorFlow version: tensorflow gpu 2.3.0"
    doc = explain_text_document("- TensorFlow version: tensorflow gpu 2.3.0\n- Python version: 3.6\n" + _FAIL)
    assert doc["facts"]["frameworks"]["tensorflow"]["version"] == "2.3.0"


# pip's "no matching distribution" judged by the Python a sentence states, as by a report's (compat_matrix python lists)
_PIP = ("ERROR: Could not find a version that satisfies the requirement {req} (from versions: {found})\n"
        "ERROR: No matching distribution found for {req}\n")


def test_pip_finding_no_release_the_stated_python_has_wheels_for_is_not_the_python():
    # TensorFlow 2.11 has wheels for Python 3.7-3.10 (tensorflow.toml): a 3.10.6 is not why pip found none
    text = "I have python 3.10.6 installed.\n" + _PIP.format(req="tensorflow-gpu==2.11", found="2.9.3, 2.10.0, 2.10.1")
    assert "python-unsupported" not in _ids(text)


def test_pip_finding_no_release_for_a_stated_python_it_lacks_stays_the_python():
    # TensorFlow 2.10 has no wheel for Python 3.11
    text = "Using python 3.11.4 here.\n" + _PIP.format(req="tensorflow==2.10.0", found="2.12.0, 2.13.0")
    assert _ids(text)[:1] == ["python-unsupported"]
