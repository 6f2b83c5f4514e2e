"""jetson42 (issue 20): driver-side libraries empty in a container, and DeepStream's own lines.

* A driver-side library shown empty - the driver's libcuda.so.1 (an x86 image's placeholder), a library of L4T's driver
  under /tegra/, L4T's NVIDIA GStreamer plugins - is the placeholder NVIDIA's container runtime mounts the host's
  library over: ``no-gpu-driver`` (reader envcheck/paste/readers/jetson_mounts.py ``driver-lib-empty``; rule
  envcheck.engine.jetson_prose ``driver_placeholders``).
* GStreamer's "Failed to load plugin '<plugin>': libnvparsers.so.5: cannot open shared object file" (a TensorRT library)
  and DeepStream's "nvbufsurftransform:cuInit failed : 804" (compat_matrix/errors.toml, block jetson42).

Real samples: tests/data/jetson42/logs (README.md cites each thread); heldout/jetson42-held is the held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import jetson_mounts
from tests.helpers import readme_labels

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "jetson42" / "logs"
LABELS = readme_labels(DATA, ".log")  # the README rows (tests/helpers, one reading of them)


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def _seen(line: str) -> dict:
    return {f.field: f.value for f in jetson_mounts.line_facts(line, line.lower())}


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.glob("*.log"))
    assert list(LABELS.values()).count("none") >= 4  # controls


@pytest.mark.parametrize("name", sorted(LABELS))
def test_top_cause_is_the_label(name):
    ids = _ids((DATA / name).read_text(encoding="utf-8"))
    if LABELS[name] == "none":
        assert ids == [], ids
    else:
        assert ids and ids[0] == LABELS[name], ids


@pytest.mark.parametrize("line,lib", [
    ("ImportError: /usr/lib/x86_64-linux-gnu/libcuda.so.1: file too short", "libcuda.so.1"),
    ("-r-xr-xr-x 1 root root 0 Jul 17 08:41 /usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.1"),
    ("libnvvpi.so.2: error while loading shared libraries: /usr/lib/aarch64-linux-gnu/tegra/libnvsocsys.so: file too "
     "short", "tegra/libnvsocsys.so"),
    ("eamer-1.0/libgstnveglstreamsrc.so: file too short", "libgstnveglstreamsrc.so"),  # a wrapped paste's cut path
])
def test_driver_side_library_shown_empty(line, lib):
    assert "seen:driver-lib-empty:" + lib in _seen(line)


@pytest.mark.parametrize("line", [
    "运行时显示/usr/local/tbb-2019_U8/lib/libtbb.so: file too short",
    "/app/llama-server: error while loading shared libraries: /lib/x86_64-linux-gnu/libcurl.so.4: file too short",
    "OSError: /models/libmyplugins.so: file too short",
    "-rwxr-xr-x 1 root root 27653440 Jul 17 08:41 /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14",  # not empty
    "lrwxrwxrwx 1 root root  12 Jul 17 08:41 /usr/lib/x86_64-linux-gnu/libcuda.so -> libcuda.so.1",  # a link
    "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",  # missing, not empty
    # (attack54) ldconfig's listing of the image's placeholders: nothing loaded them (dusty-nv/jetson-containers#36)
    "/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1 is empty, not checked.",
])
def test_other_lines_are_not_driver_placeholders(line):
    assert not any(k.startswith("seen:driver-lib-empty:") for k in _seen(line))


def test_a_cuda_stack_library_empty_keeps_its_own_cause():
    # jetctr41's rule reads the CUDA-stack library first: an empty libcublas beside an empty libcuda is that library's
    text = ("nvidia@nano:~$ docker run -it dustynv/ros:foxy-ros-base-l4t-r32.5.0\n"
            "/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/libcublas.so.10 is empty, not checked.\n"
            "/sbin/ldconfig.real: File /usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1 is empty, not checked.\n")
    assert _ids(text)[:1] == ["cuda-runtime-missing"]


def test_libcuda_empty_names_the_driver_and_the_runtime():
    doc = explain_text_document("ImportError: /usr/lib/x86_64-linux-gnu/libcuda.so.1: file too short\n")
    m = (doc.get("matches") or [{}])[0]
    assert m.get("id") == "no-gpu-driver"
    text = str(m)
    assert "libcuda.so.1" in text and "container runtime" in text


@pytest.mark.parametrize("line,expect", [
    ("(gst-plugin-scanner:6): GStreamer-WARNING **: 18:47:09.647: Failed to load plugin "
     "'/usr/lib/aarch64-linux-gnu/gstreamer-1.0/deepstream/libnvdsgst_infer.so': libnvinfer.so.8: cannot open shared "
     "object file: No such file or directory", "cuda-runtime-missing"),
    ("(gst-plugin-scanner:6): GStreamer-WARNING **: 18:47:09.647: Failed to load plugin "
     "'/usr/lib/aarch64-linux-gnu/gstreamer-1.0/deepstream/libnvdsgst_inferserver.so': libtritonserver.so: cannot open "
     "shared object file: No such file or directory", None),
    ("(gst-plugin-scanner:6): GStreamer-WARNING **: 18:47:09.647: Failed to load plugin "
     "'/usr/lib/aarch64-linux-gnu/gstreamer-1.0/deepstream/libnvdsgst_udp.so': librivermax.so.0: cannot open shared "
     "object file: No such file or directory", None),
    ("nvbufsurftransform:cuInit failed : 804 ", "forward-compat-unsupported"),
    ("nvbufsurftransform:cuInit failed : 8040", None),
    ("nvbufsurftransform:cuInit failed : 3", None),  # CUDA_ERROR_NOT_INITIALIZED names no environment cause
])
def test_deepstream_lines(line, expect):
    ids = _ids(line + "\n")
    assert (ids[:1] == [expect]) if expect else ids == [], ids


def test_a_cuda_library_failing_to_load_beside_empty_driver_files_is_that_librarys():
    # dusty-nv/jetson-containers#235: "ImportError: libcublas.so.10: cannot open shared object file" above a docker
    # build's ldconfig list of empty tegra/ files (libcuda.so.1 among them): libcublas is what failed
    path = ROOT / "tests" / "data" / "logs" / "vlogs21q" / "jetson-containers-build-libcublas-so-10-ldconfig-empty-tegra-235.log"
    text = path.read_text(encoding="utf-8")
    # (attack54) the ldconfig listing of the placeholders is no longer read as a driver library shown empty
    assert not any(k.startswith("seen:driver-lib-empty:libcuda") for line in text.splitlines() for k in _seen(line))
    assert _ids(text)[:1] == ["cuda-runtime-missing"]
