"""oldnv42 (issue 20): NVIDIA logs of the 2016-2022 era that envcheck did not read: cuDNN's header not found by a
build or by Theano's cuDNN test compile (darknet's make, Theano's "Can not use cuDNN on context None: cannot compile
with cuDNN"), and libgpuarray (Theano's GPU back end) failing to load a CUDA library by name.

Rules: compat_matrix/errors.toml block ``# ---- oldnv42 ----`` (signatures ``build-cannot-find-cudnn-header`` and
``libgpuarray-could-not-load-library``; the latter routes through the ``[[library]]`` table). Real samples:
tests/data/oldnv42 (README.md cites each thread); heldout/oldnv42-held is the held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from tests.helpers import readme_labels

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "oldnv42"
LABELS = readme_labels(DATA, ".log")  # the README rows (tests/helpers, one reading of them)


def _matches(text: str) -> list:
    return explain_text_document(text).get("matches") or []


def _ids(text: str) -> list:
    return [m["id"] for m in _matches(text)]


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.glob("*.log"))
    assert list(LABELS.values()).count("none") >= 2  # controls


@pytest.mark.parametrize("name", sorted(LABELS))
def test_top_cause_is_the_label(name):
    ids = _ids((DATA / name).read_text(encoding="utf-8"))
    if LABELS[name] == "none":
        assert ids == [], ids
    else:
        assert ids and ids[0] == LABELS[name], ids


def test_the_library_named_decides_the_cause():
    # the same libgpuarray line naming the driver's library is the driver's absence, not the CUDA runtime's
    line = 'GpuArrayException: Could not load "libcuda.so": libcuda.so: cannot open shared object file: No such file or directory: 0'
    assert _ids(line)[:1] == ["no-gpu-driver"]
    nvrtc = _matches('pygpu.gpuarray.GpuArrayException: b\'Could not load "nvrtc64_90.dll": The specified module could not be found.\\r\\n\'')
    assert nvrtc and nvrtc[0]["id"] == "cuda-runtime-missing"
    assert nvrtc[0]["captures"]["lib"] == "nvrtc64_90.dll"
    # a library of no GPU stack says nothing
    assert _ids('GpuArrayException: Could not load "gpuarray.dll": The specified module could not be found.') == []


@pytest.mark.parametrize("line", [
    "./src/cuda.h:15:19: fatal error: cudnn.h: No such file or directory",
    "/usr/local/cuda/include/cudnn.h:60:10: fatal error: cudnn_version.h: No such file or directory",
    "d:\\repo\\darknet\\src\\cuda.h(19): fatal error C1083: Cannot open include file: 'cudnn.h': No such file or directory",
    "include/darknet.h:16:14: fatal error: cudnn.h: 没有那个文件或目录",
    "src/x.cu:3:10: fatal error: 'cudnn.h' file not found",
])
def test_cudnn_header_wordings(line):
    assert _ids(line)[:1] == ["cudnn-missing"]


@pytest.mark.parametrize("line", [
    # cudnn.h found, CUDA's own header missing: not cuDNN's absence
    "/usr/include/cudnn.h:63:26: fatal error: driver_types.h: No such file or directory",
    # cudnn.h there but unreadable: another state (permissions), not said missing
    "/tmp/try_flags_Zk7PdX.c:5:19: fatal error: /usr/local/cuda/include/cudnn.h: Permission denied",
    # a header of the program that only resembles cuDNN's name
    "src/mycudnn.h:3:10: fatal error: mycudnn_helpers.h: No such file or directory",
    # Theano's line alone, cuDNN disabled on purpose
    "Can not use cuDNN on context None: Disabled by dnn.enabled flag",
])
def test_not_a_missing_cudnn_header(line):
    assert "cudnn-missing" not in _ids(line)


def test_theano_device_count_reason_decides():
    # the reason in Theano's parentheses decides: an old driver stays driver-too-old, not a GPU hidden from the process
    line = ("WARNING (theano.sandbox.cuda): CUDA is installed, but device gpu is not available  (error: Unable to get "
            "the number of gpus available: CUDA driver version is insufficient for CUDA runtime version)")
    assert _ids(line)[:1] == ["driver-too-old"]
    unknown = ("WARNING (theano.sandbox.cuda): CUDA is installed, but device gpu0 is not available  (error: Unable to "
               "get the number of gpus available: unknown error)")
    assert _ids(unknown)[:1] == ["no-gpu-visible"]


def test_theano_cudnn_too_new_warning_is_silent():
    line = ("UserWarning: Your cuDNN version is more recent than Theano. If you encounter problems, try updating Theano "
            "or downgrading cuDNN to a version >= v5 and <= v7.")
    assert _ids(line) == []
    assert _ids("Using gpu device 1: Tesla K20Xm (CNMeM is disabled, cuDNN Version is too old. Update to v5, was 3007.)"
                )[:1] == ["cudnn-version-mismatch"]
