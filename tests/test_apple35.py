"""apple35 (session 22): Apple's TensorFlow-Metal and Macs named only by their paths (issue 20).

Real texts in tests/data/apple35 (README: file, label, source); a third of the collection was held back in
heldout/apple35-held before any rule was written (scored by scripts/score_explain.py, never asserted here). What the
rules read: compat_matrix/errors.toml's ``# ---- apple35 ----`` block - an op with no GPU kernel on the Metal plugin's
device (``mps-op-unsupported``, only where the text shows a Mac: ``says = "mac-only"``), tensorflow-metal built for
another TensorFlow in the wordings the emit27b rule does not read (``extension-abi-mismatch``), and the ``apple_mac``
fact read off Mac-only paths and the Metal plugin's own lines (engine/vendors.py ``log_vendor``: "Torch not compiled
with CUDA enabled" there is ``framework-vendor-mismatch``). A bare ``/Users/NAME`` is no Mac by itself (a Linux home may
be /Users on some NFS setups).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_dev_sample, check_split_listing, explain_cli_matches, sample_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "apple35")
HELD = os.path.join(ROOT, "heldout", "apple35-held", "logs")
SPENT = os.path.join(ROOT, "heldout", "acceptance24")
#: a thread's URL, or the find_string id of a repository file (with a remark in brackets)
SOURCE = r"(?:https://\S+|find_string id \d+[^|]*?)"
ROWS = sample_rows(DEV, ".log", SOURCE)
#: a dev sample the rules do not read, and why: its only second Mac sign (/Volumes/<disk>/) is on lines that hold no
#: prefilter anchor (a JSON traceback's file paths), and the branch's one new anchor went to "metal"
#: (the one gap, stable-diffusion-webui-15192's sysinfo, closed in session 25: apple42 reads its /Users/NAME/.pyenv
#: Python path as a Mac home; attack55 took it out of the gaps)
GAPS: set = set()


def _ids(text):
    return [m["id"] for m in explain_cli_matches("--no-detect", "-", text=text)]


def test_listing():
    check_split_listing(DEV, HELD, ".log", min_dev=12, min_held=6, min_none=5, min_held_none=2, source=SOURCE)
    labels = [r[1] for r in ROWS] + [r[1] for r in sample_rows(HELD, ".log", SOURCE)]
    for cause in ("mps-op-unsupported", "extension-abi-mismatch", "framework-vendor-mismatch"):
        assert labels.count(cause) >= 4, cause


@pytest.mark.parametrize("name,label,source", [r for r in ROWS if r[0] not in GAPS], ids=[r[0][:60] for r in ROWS
                                                                                          if r[0] not in GAPS])
def test_dev_sample(name, label, source):
    check_dev_sample(os.path.join(DEV, name), label)


@pytest.mark.parametrize("name", sorted(GAPS))
def test_gap_is_still_a_gap(name):
    # a known gap stays what it is (a CPU build's reading): if this fails, the gap closed - take it out of GAPS
    matches = explain_cli_matches("--no-detect", os.path.join(DEV, name))
    assert matches and matches[0]["id"] == "framework-cpu-only"


# --- the spent acceptance24 misses this family was written for ------------------------------------------------------

@pytest.mark.parametrize("part,stem,label", [
    ("logs", "tensorflow-53026-", "mps-op-unsupported"),
    ("logs", "tensorflow-deep-learning-298-", "mps-op-unsupported"),
    ("pastes", "tensorflow-50541-", "extension-abi-mismatch"),
])
def test_spent_acceptance24(part, stem, label):
    (name,) = [f for f in os.listdir(os.path.join(SPENT, part)) if f.startswith(stem) and not f.endswith(".json")]
    matches = explain_cli_matches("--no-detect", os.path.join(SPENT, part, name))
    assert matches and matches[0]["id"] == label, [(m["id"], m["score"]) for m in matches]


# --- TensorFlow-Metal's missing kernels: only on a Mac ---------------------------------------------------------------

# the kernel line of tensorflow/tensorflow#56356 and the placer's line of #53026, as posted
_EXPM1 = ("No registered 'Expm1' OpKernel for 'GPU' devices compatible with node {{node sub}}\n"
          "\t.  Registered:  device='XLA_CPU_JIT'; T in [DT_FLOAT, DT_DOUBLE, DT_COMPLEX64, DT_BFLOAT16, DT_COMPLEX128, "
          "DT_HALF]\n")
_PLACER = ("tensorflow.python.framework.errors_impl.InvalidArgumentError: Cannot assign a device for operation "
           "loader/GeneratorDataset: Could not satisfy explicit device specification '/device:GPU:0' because no "
           "supported kernel for GPU devices is available.\n")
# the Metal plugin at work (tensorflow/tensorflow#51986's run) and an NVIDIA GPU (an nvidia-smi row of vend32's texts)
_METAL = "Metal device set to: Apple M1\n\nsystemMemory: 8.00 GB\nmaxCacheSize: 2.67 GB\n\n"
_PLUGGABLE = ("2021-09-17 10:31:05.072453: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc"
              ":271] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 0 MB memory) -> "
              "physical PluggableDevice (device: 0, name: METAL, pci bus id: <undefined>)\n")


@pytest.mark.parametrize("before", [_METAL, _PLUGGABLE, "I'm currently running everything in tensorflow metal out of "
                                                        "my M1 laptop\n"])
@pytest.mark.parametrize("line", [_EXPM1, _PLACER])
def test_missing_kernel_beside_the_metal_plugin(before, line):
    assert _ids(before + line)[:1] == ["mps-op-unsupported"]


@pytest.mark.parametrize("line", [_EXPM1, _PLACER])
def test_missing_kernel_without_a_mac_names_no_apple_cause(line):
    # the words alone (a CUDA build lacking an op or a dtype, tensorflow/tensorflow#38841) are no Mac's
    assert "mps-op-unsupported" not in _ids(line)
    linux = ('  File "/home/dentrax/Projects/emotion/lib/python3.6/site-packages/tensorflow/python/framework/ops.py", '
             'line 3155, in create_op\n')
    assert "mps-op-unsupported" not in _ids(linux + line)


def test_colocation_form_reads_only_a_gpu_device():
    # scope-ml/scope-ml#125's colocation line names the GPU it could not place the group on
    line = ("tensorflow.python.framework.errors_impl.InvalidArgumentError: Cannot assign a device for operation "
            "model/conv/ReadVariableOp: Could not satisfy explicit device specification '' because the node "
            "{{colocation_node model/conv/ReadVariableOp}} was colocated with a group of nodes that required "
            "incompatible device '/job:localhost/replica:0/task:0/device:GPU:0'. All available devices "
            "[/job:localhost/replica:0/task:0/device:CPU:0, /job:localhost/replica:0/task:0/device:GPU:0].\n")
    assert _ids(_METAL + line)[:1] == ["mps-op-unsupported"]
    assert "mps-op-unsupported" not in _ids(_METAL + line.replace("device:GPU:0'", "device:TPU:0'"))


def test_healthy_metal_run_is_silent():
    assert _ids(_METAL + _PLUGGABLE) == []


# --- tensorflow-metal built for another TensorFlow -------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    # tensorflow/tensorflow#50541's title (no dlopen flags)
    "# /libmetal_plugin.dylib: Symbol not found: _TF_AssignUpdateVariable\n",
    # tensorflow/tensorflow#126360: dyld's Library not loaded on the same line
    "NotFoundError: dlopen(/Users/josh/miniconda3/envs/x/lib/python3.11/site-packages/tensorflow-plugins/"
    "libmetal_plugin.dylib, 0x0006): Library not loaded: @rpath/_pywrap_tensorflow_internal.so\n",
    # the message split over two lines (find_string id 56168233613)
    "dlopen(/opt/homebrew/lib/python3.11/site-packages/tensorflow-plugins/libmetal_plugin.dylib, 0x0006): \n"
    "Symbol not found: __ZN3tsl8internal10LogMessageC1EPKcii\n",
])
def test_metal_plugin_for_another_tensorflow(text):
    assert _ids(text)[:1] == ["extension-abi-mismatch"]


def test_tensorflow_own_symbol_alone_is_not_an_extension():
    # TensorFlow's own C++ symbol missing from its own library (a broken source build, tensorflow/tensorflow#41682)
    assert "extension-abi-mismatch" not in _ids(
        "ImportError: dlopen(.../_pywrap_tensorflow_internal.so, 6): Symbol not found: "
        "__ZN10tensorflow4data12experimental13LoadDatasetOp11kReaderFuncE\n")


# --- a Mac named by its paths -----------------------------------------------------------------------------------------

_NOT_COMPILED = "AssertionError: Torch not compiled with CUDA enabled\n"


@pytest.mark.parametrize("path", [
    # pytorch/pytorch#3717 (python.org's framework build)
    '  File "/Library/Frameworks/Python.framework/Versions/3.6/lib/python3.6/site-packages/torch/cuda/__init__.py", '
    'line 192, in _lazy_init\n',
    # Homebrew's Apple-silicon prefix (tensorflow/tensorflow#81987's venv)
    '  File "/opt/homebrew/lib/python3.11/site-packages/torch/cuda/__init__.py", line 284, in _lazy_init\n',
    # the Anaconda macOS installer's ~/opt/anaconda3
    '  File "/Users/me/opt/anaconda3/lib/python3.9/site-packages/torch/cuda/__init__.py", line 239, in _lazy_init\n',
])
def test_mac_only_path_makes_it_a_mac(path):
    assert _ids(path + _NOT_COMPILED)[:1] == ["framework-vendor-mismatch"]


def test_users_home_of_a_python_is_a_mac():
    # acceptance24's cogstudio-37 frame: a Python's site-packages under /Users/NAME/ (session 25, apple42, changed
    # this test's earlier "not enough": a Linux NFS home at /Users is rare beside a Python's own packages, and a text
    # whose Python says Linux or Windows is still no Mac)
    frame = ('  File "/Users/doms/pinokio/api/cogstudio.git/app/env/lib/python3.10/site-packages/torch/cuda/__init__.py",'
             ' line 284, in _lazy_init\n    raise AssertionError("Torch not compiled with CUDA enabled")\n')
    assert _ids(frame + _NOT_COMPILED)[:1] == ["framework-vendor-mismatch"]


def test_using_mac_said():
    # kijai/ComfyUI-BrushNet-Wrapper#18: "I'm using mac"; a network MAC address is no Mac
    assert _ids("I'm using mac, with torch installed from the nightly cpu index\n" + _NOT_COMPILED)[:1] == [
        "framework-vendor-mismatch"]
    assert _ids("when using mac address filtering on the host\n" + _NOT_COMPILED)[:1] == ["framework-cpu-only"]
