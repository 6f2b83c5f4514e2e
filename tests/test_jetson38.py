"""jetson38 (session 23): a Jetson running software built for another JetPack / L4T line or for a desktop / server.

Real threads in tests/data/jetson38 (README: file, label, source); about a third of the collection was held back in
heldout/jetson38-held/pastes before any rule was written (scored by scripts/score_pastes.py, only listed here). What
the rules read:

* a container image's L4T release from its tag (``dustynv/opencv:4.8.1-r36.2.0``, ``l4t-pytorch:r34.1.0-pth1.12-py3``)
  and the host's release named first outside an image (``L4T_VERSION=32.7.4``, ``Jetpack 4.5.1``): evidence
  (envcheck/paste/readers/jetson_image.py); an image of another JetPack line than the host's, in a text that shows a
  failure, is ``driver-too-old`` (envcheck/engine/jetson_prose.py ``container_l4t``; the lines by the matrix's
  ``[[jetpack]]`` rows);
* a library the program is said to be trying to load ("Tensorflow 2.3.1 is trying to load libcudart.so.10.2") and
  CUDA's NPP libraries named as the error ("the error `libnppc.so.10 not found`"): envcheck/paste/readers/prose_lib.py.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_dev_sample, check_split_listing, explain_cli_matches, sample_rows  # noqa: E402

from envcheck.engine.jetson_prose import container_l4t  # noqa: E402
from envcheck.matrix import load_matrix  # noqa: E402
from envcheck.paste.readers.jetson_image import line_facts  # noqa: E402
from envcheck.paste.readers.prose_lib import line_facts as lib_facts  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "jetson38")
HELD = os.path.join(ROOT, "heldout", "jetson38-held", "pastes")
DEV_ROWS = sample_rows(DEV, ".txt")


def _facts(line):
    return {f.field[len("seen:"):]: f.value for f in line_facts(line.strip(), line.strip().lower())}


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def test_listing():
    check_split_listing(DEV, HELD, ".txt", min_dev=12, min_held=6, min_none=7, min_held_none=2)


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0][:60] for r in DEV_ROWS])
def test_dev_thread(name, label, source):
    check_dev_sample(os.path.join(DEV, name), label)


# -- the reader: image tags (jetson-containers#456, #169, #938, #725, ros_deep_learning#129) ---------------------------
@pytest.mark.parametrize("line,key,value", [
    ("Found compatible container dustynv/opencv:4.8.1-r36.2.0 (2023-12-07, 5.1GB) - would you like to pull it? [Y/n] Y",
     "l4t-image-36", "l4t|36.2.0"),
    ("docker run -it --rm --net=host --runtime nvidia nvcr.io/nvidia/l4t-pytorch:r34.1.0-pth1.12-py3",
     "l4t-image-34", "l4t|34.1.0"),
    ("`docker pull dustynv/l4t-pytorch:2.2-r35.4.1", "l4t-image-35", "l4t|35.4.1"),
    ("host does not support the torch in the dustynv/l4t-ml: r35.4.1 image to use cuda", "l4t-image-35", "l4t|35.4.1"),
    ("CONTAINER_IMAGE:  dustynv/ros:noetic-pytorch-l4t-r35.4.1", "l4t-image-35", "l4t|35.4.1"),
    ("ultralytics/ultralytics:latest-jetson-jetpack5", "l4t-image-jetpack-5", "jetpack|5"),
])
def test_image_tag_read(line, key, value):
    assert _facts(line)[key].split(" | ", 1)[0] == value


@pytest.mark.parametrize("line", [
    # TensorRT's release in an L4T image's tag (jetson-containers#573), a date, a Python: no L4T release
    "I am attempting to build a docker container that uses the image: nvcr.io/nvidia/l4t-tensorrt:r8.6.2-devel",
    "Python 3.8.10 (default, May 26 2023, 14:05:08) ",
    # a space after the colon of a plain word is no image reference
    "version: r35.4.1",
])
def test_no_image_read(line):
    assert not any(k.startswith("l4t-image-") and k != "l4t-image-fails" for k in _facts(line))


@pytest.mark.parametrize("line,value", [
    ("-- L4T_VERSION=32.7.4  JETPACK_VERSION=4.6.4  CUDA_VERSION=10.2.300", "l4t|32.7.4"),
    ("# R32 (release), REVISION: 7.4, GCID: 33514132, BOARD: t210ref, EABI: aarch64, DATE: Fri Jun  9 04:25:08 UTC 2023",
     "l4t|32.7.4"),
    ("L4T BSP Version:  L4T R35.4.1", "l4t|35.4.1"),
    ("Hello. I'm trying to run `nvcr.io/nvidia/l4t-pytorch:r34.1.0-pth1.12-py3` image on my Jetson AGX Xavier with "
     "Jetpack 4.5.1.", "jetpack|4.5.1"),
    ("I tested that the NVIDIA Jetson AGX Orin Developer Kit jetpack 6.4 [L4T 36.4.0] host does not support",
     "jetpack|6.4"),
    ("│ L4T_VERSION   35.6.4  │ JETPACK_VERSION  5.1.6 │", "l4t|35.6.4"),
    # the nvidia-l4t-core package's dpkg -l row (tests/data/captures20m/dpkg-l4t-core-35.4.1-es-prompt.txt)
    ("ii  nvidia-l4t-core                            35.4.1-20230801124926                arm64        NVIDIA Core "
     "Package", "l4t|35.4.1"),
    # the nvidia-jetpack meta package's dpkg -l row (NVIDIA-ISAAC-ROS/isaac_ros_common#163)
    ("- `ii  nvidia-jetpack            6.1+b123                     arm64        NVIDIA Jetpack Meta Package`",
     "jetpack|6.1"),
    # the image's JetPack said before the board's: the one followed by an image's word is not the host's
    ("# Is it possible to run Jetpack 5.* images on Jetpack 4.* host?", "jetpack|4"),
])
def test_host_release_read(line, value):
    assert _facts(line)["l4t-host"].split(" | ", 1)[0] == value


def test_image_release_is_not_the_host():
    # "JetPack 5.1.2 (r35.4.1) image" and an L4T tag name the image, not the board
    assert "l4t-host" not in _facts("I also tried to build my own Docker image based on the Ultralytics-provided "
                                     "JetPack 5.1.2 (r35.4.1) image")
    assert "l4t-host" not in _facts("docker run --rm -it dustynv/ros:foxy-pytorch-l4t-r32.5.0")


# -- the engine ----------------------------------------------------------------------------------------------------
def _lines(host, *images, fails=None):
    out = {"l4t-host": host + " | host line"}
    for img in images:
        kind, ver = img.split("|", 1)
        key = "l4t-image-" + (ver.split(".", 1)[0] if kind == "l4t" else "jetpack-" + ver)
        out[key] = img + " | image line " + ver
    if fails:
        out["l4t-image-fails"] = fails
    return out


def test_newer_image_on_older_host(matrix):
    f = container_l4t(matrix, _lines("l4t|32.7.4", "l4t|36.2.0", fails="ImportError: libnvrm.so"), False)
    assert f is not None and f.id == "driver-too-old"
    assert "JetPack 6" in f.message and "JetPack 4" in f.message and "newer" in f.message
    assert "R32" in f.fix


def test_older_image_on_newer_host(matrix):
    f = container_l4t(matrix, _lines("jetpack|6.2", "l4t|35.4.1"), True)
    assert f is not None and "older" in f.message and "R35.4.1" in f.message


def test_library_the_loader_cannot_open_is_the_cause(matrix):
    # an r32 image on a JetPack 6.1 host, torch's "OSError: libcurand.so.10: cannot open shared object file" (spent
    # acceptance22, yolact_edge#202): the library's cause, the image's release as the explanation
    lines = _lines("jetpack|6.1", "l4t|32.6.1")
    line = "OSError: libcurand.so.10: cannot open shared object file: No such file or directory"
    lines["l4t-image-lib-missing"] = _facts(line)["l4t-image-lib-missing"]
    f = container_l4t(matrix, lines, True)
    assert f is not None and f.id == "cuda-runtime-missing" and f.message.startswith("libcurand.so.10 does not load")
    assert "a tag for JetPack 6" in f.fix
    # a library that is no CUDA / cuDNN library leaves the release mismatch as the cause
    lines["l4t-image-lib-missing"] = "libnvrm.so | ImportError: libnvrm.so: cannot open shared object file"
    assert container_l4t(matrix, lines, True).id == "driver-too-old"


def test_spent_yolact_edge_202_library_message_stays_first():
    path = os.path.join(ROOT, "heldout", "acceptance22", "logs",
                        "yolact-edge-202-xavier-nx-docker-build-l4t-pytorch-r32.6.1-torch2trt-setup-libcurand-so-10-"
                        "cannot-open.log")
    matches = explain_cli_matches("--no-detect", path)
    assert matches and matches[0]["id"] == "cuda-runtime-missing", [(m["id"], m["evidence"]) for m in matches]
    assert "driver-too-old" not in [m["id"] for m in matches]


def test_same_line_or_no_failure_or_unknown_host_says_nothing(matrix):
    # an r32.7.1 image on L4T 32.7.4 (jetson-containers#261): the same JetPack 4 line
    assert container_l4t(matrix, _lines("l4t|32.7.4", "l4t|32.7.1"), True) is None
    # r34 and r35 are both JetPack 5 (the matrix's rows)
    assert container_l4t(matrix, _lines("jetpack|5.1.2", "l4t|34.1.0"), True) is None
    # a question about releases with nothing failed
    assert container_l4t(matrix, _lines("l4t|35.6.1", "l4t|36.2.0"), False) is None
    # a host release the matrix does not know
    assert container_l4t(matrix, _lines("l4t|29.1", "l4t|36.2.0"), True) is None
    assert container_l4t(matrix, {"l4t-image-36": "l4t|36.2.0 | x", "l4t-image-fails": "error"}, True) is None


def test_spent_drvold37_held_725_r35_image_on_r36_host():
    path = os.path.join(ROOT, "heldout", "drvold37-held", "pastes",
                        "jetson-containers-725-agx-orin-l4t-36.4-host-l4t-ml-r35.4.1-image-torch-no-cuda.txt")
    matches = explain_cli_matches("--no-detect", path)
    assert matches and matches[0]["id"] == "driver-too-old", [(m["id"], m["evidence"]) for m in matches]


# -- prose_lib: "is trying to load", NPP ---------------------------------------------------------------------------
def test_trying_to_load_a_library_is_its_error():
    line = ("I am having the same issue on Jetson Nano SD image v42, Cuda 10.0, and Tensorflow 2.3.1 is trying to load "
            "libcudart.so.10.2")
    got = lib_facts(line, line.lower())
    assert got and got[0].value.startswith("libcudart.so.10.2 | ")
    npp = "`import cv2` in python3.6 I get the error `libnppc.so.10 not found`."
    assert lib_facts(npp, npp.lower())[0].value.startswith("libnppc.so.10 | ")


@pytest.mark.parametrize("line", [
    "I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened dynamic library libcudart.so.11.0",
    "if it is trying to load libcudart.so.10.2 then it needs JetPack 4.4",
    "It is trying to load libcudart.so.10.2 and that works fine.",
])
def test_trying_to_load_not_an_error(line):
    assert lib_facts(line, line.lower()) == []


def test_spent_tensorflow_43189_jetson_nano_log():
    path = os.path.join(ROOT, "heldout", "acceptance26", "logs",
                        "tensorflow-43189-comments-jetson-nano-sd-image-cuda-10.0-tf-2.3.1-loads-libcudart-so-10.2-and-"
                        "desktop-cuda-11.2-fix.log")
    matches = explain_cli_matches("--no-detect", path)
    assert matches and matches[0]["id"] == "cuda-runtime-missing", [(m["id"], m["evidence"]) for m in matches]
