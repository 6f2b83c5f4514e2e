"""jetctr41 (issue 20): a Jetson container without the host's CUDA / cuDNN / TensorRT libraries. On JetPack 4 the NVIDIA
container runtime mounts them into an l4t-based container from its CSV files; without the runtime (or without the CSV
files or the host's libraries) the container sees the image's empty placeholders or nothing.

Reader: envcheck/paste/readers/jetson_mounts.py (evidence); rule: envcheck.engine.jetson_prose ``container_mounts``.
Real samples: tests/data/jetctr41/pastes (README.md cites each thread) and the spent sets' misses of the family
(acceptance29's NVIDIA/nvidia-docker#1775 paste, acceptance27's dusty-nv/jetson-inference#1733 log);
heldout/jetctr41-held is the held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import jetson_mounts
from helpers import readme_labels

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "jetctr41" / "pastes"
LABELS = readme_labels(DATA)
SPENT = [ROOT / "heldout" / "acceptance29" / "pastes" /
         "nvidia-docker-1775-jetson-xavier-r32.4.4-runtime-nvidia-container-libcudnn-so-8-zero-bytes-not-mapped.txt",
         ROOT / "heldout" / "acceptance27" / "logs" /
         "jetson-inference-1733-docker-r32.4.4-imagenet-libnvinfer-so-7.1.3-file-too-short-install-jetpack-on-host.log"]
SPENT_LABELS = ["cudnn-missing", "cuda-runtime-missing"]


def _doc(text: str) -> dict:
    return explain_text_document(text)


def _ids(text: str) -> list:
    return [m["id"] for m in _doc(text).get("matches") or []]


def _seen(line: str) -> set:
    return {f.field for f in jetson_mounts.line_facts(line, line.lower())}


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert list(LABELS.values()).count("none") >= 2  # controls


@pytest.mark.parametrize("name", sorted(LABELS))
def test_top_cause_is_the_label(name):
    ids = _ids((DATA / name).read_text(encoding="utf-8"))
    if LABELS[name] == "none":
        assert not {"cudnn-missing", "cuda-runtime-missing"} & set(ids), ids
    else:
        assert ids and ids[0] == LABELS[name], ids


@pytest.mark.parametrize("path,label", list(zip(SPENT, SPENT_LABELS)), ids=["acc29-1775", "acc27-1733"])
def test_spent_misses_are_read(path, label):
    if not path.exists():
        pytest.skip("spent set not in this checkout")
    doc = _doc(path.read_text(encoding="utf-8"))
    top = (doc.get("matches") or [{}])[0]
    assert top.get("id") == label, doc.get("matches")
    assert "--runtime nvidia" in str(top) and "host-files-for-container.d" in str(top)  # the Jetson fix


@pytest.mark.parametrize("line,key", [
    ("/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/libcudnn_ops_infer.so.8 is empty, not checked.",
     "seen:lib-empty:libcudnn_ops_infer.so.8"),
    ("#0 24.86 /sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/libnvinfer_plugin.so.8.2.1 is empty, not checked.",
     "seen:lib-empty:libnvinfer_plugin.so.8.2.1"),
    ("./segnet-console: error while loading shared libraries: /usr/lib/aarch64-linux-gnu/libnvinfer.so.7: file too short",
     "seen:lib-empty:libnvinfer.so.7"),
    ("-rw-r--r-- 1 root root 0 Oct 19  2020 /usr/lib/aarch64-linux-gnu/libcudnn.so.8.0.0",
     "seen:lib-empty:libcudnn.so.8.0.0"),
])
def test_empty_library_forms(line, key):
    assert key in _seen(line)


@pytest.mark.parametrize("line", [
    "OSError: /models/libmyplugins.so: file too short",  # the user's own library
    "ImportError: /usr/lib/x86_64-linux-gnu/libcuda.so.1: file too short",  # the driver's: not this rule's
    "-rw-r--r-- 1 root root 180736 Oct 19  2020 /usr/lib/aarch64-linux-gnu/libcudnn.so.8.0.0",  # not empty
    "lrwxrwxrwx 1 root root 0 Oct 19  2020 /usr/lib/aarch64-linux-gnu/libcudnn.so.8",  # a link, not a file
    "/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/libv4l2.so.0.0.999999 is empty, not checked.",
])
def test_not_an_empty_cuda_library(line):
    assert not any(k.startswith("seen:lib-empty:") for k in _seen(line))


@pytest.mark.parametrize("line,key", [
    ("Moreover, it seems that this image doesn't have cudnn and its header files.", "seen:lib-lacking-said-cudnn"),
    ("Unable to find Cudnn in  _32.2-jax-jetpack-4.2.1-runtime_", "seen:lib-lacking-said-cudnn"),
    ("And many of the CUDA libraries are missing as well (`libcublas.so` in particular).", "seen:lib-lacking-said-cuda"),
])
def test_lacking_said(line, key):
    assert key in _seen(line)


def test_said_lacking_needs_a_jetson_container():
    said = "I run the image but it seems that this image doesn't have cudnn and its header files.\n"
    assert "cudnn-missing" not in _ids("# my desktop container\n\n" + said.replace("image", "program"))
    assert "cudnn-missing" not in _ids("# question\n\n" + said)  # no Jetson named
    jetson = "# l4t-pytorch on a Jetson TX2\n\nsudo docker run -it --rm nvcr.io/nvidia/l4t-pytorch:r32.4.2-pth1.5-py3\n"
    assert _ids(jetson + said)[:1] == ["cudnn-missing"]


def test_empty_library_off_a_jetson_is_a_broken_copy():
    text = ("# /usr/local/cuda/lib64/libcudnn.so.6: file too short\n\nAfter installation of cntk 2.1, when I try to import "
            "cntk, I get the following error: /usr/local/cuda/lib64/libcudnn.so.6: file too short\n")
    top = _doc(text)["matches"][0]
    assert top["id"] == "cudnn-missing"
    assert "--runtime nvidia" not in str(top)  # no Jetson: no container-runtime fix


def test_cudnn_first_among_empty_libraries():
    text = ("inside the docker container on the Jetson AGX:\n"
            "/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/libnvinfer.so.8 is empty, not checked.\n"
            "/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/libcudnn.so.8 is empty, not checked.\n")
    assert _ids(text)[:1] == ["cudnn-missing"]
    assert _ids(text.replace("libcudnn.so.8", "libcublas.so.10"))[:1] == ["cuda-runtime-missing"]


def test_a_library_not_loading_in_a_jetson_container_gets_the_runtime_fix():
    head = "# libcublas.so.10 in my image\n\nFROM dustynv/l4t-ml:r32.6.1-py3\ndocker run --gpus=all --rm -it my-image\n"
    err = "ImportError: libcublas.so.10: cannot open shared object file: No such file or directory\n"
    top = _doc(head + err)["matches"][0]
    assert top["id"] == "cuda-runtime-missing" and "host-files-for-container.d" in str(top)
    # JetPack 6 / 7 images carry their own CUDA user-space libraries: no CSV-mount fix there
    jp7 = "# examples on JetPack 7 (Orin Nano) in a container\n\n" + err.replace("libcublas.so.10", "libcudart.so.12")
    top = _doc(jp7)["matches"][0]
    assert top["id"] == "cuda-runtime-missing" and "host-files-for-container.d" not in str(top)
