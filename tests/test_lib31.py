"""lib31 (session 20): library-load and build-mismatch causes.

Real threads in tests/data/lib31 (README: file, label, source); about a third of the collection was held back in
heldout/lib31-held/logs before any rule was written (scored by scripts/score_explain.py, never asserted here). What the
rules read (compat_matrix/errors.toml, block ``# ---- lib31 ----``; engine.onnxruntime.line_verdict):

* TensorRT 8's plan-header check ("magicTagRead == kMAGIC_TAG failed.Magic tag does not match", from 8.6 "plan->
  header.magicTag == rt::kPLAN_MAGIC_TAG failed."): tensorrt-engine-mismatch; TensorRT 7's "verifyHeader: 0 (Magic
  tag does not match)" is not read (NVIDIA/TensorRT#1384, a file that was no engine, stays silent);
* a TensorFlow custom-op library missing a symbol of TensorFlow's C++ API ("NotFoundError: ./custom.so: undefined
  symbol: _ZN10tensorflow..."): extension-abi-mismatch; TensorFlow's own libraries saying the same are not read;
* the linker not finding a GPU library ("/usr/bin/ld: cannot find -lcudart", lld's "unable to find library
  -lamdhip64"): the [[library]] table's cause (cuda-runtime-missing, cudnn-missing, rocm-runtime-missing,
  oneapi-runtime-missing); a library of no GPU stack says nothing;
* ONNX Runtime's lines that name no library (error 126 on its CUDA provider's DLL, "CUDA_PATH is set but CUDA wasn't
  able to be loaded", "Failed to create CUDAExecutionProvider"): the majors the line names ("Require cuDNN 8.* and
  CUDA 12.*") or the release's builds, against the CUDA / cuDNN the text shows, decide cuda-runtime-missing vs
  cudnn-missing; where the text shows no CUDA, the line keeps its own cause.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (COVER_BOUND, check_dev_sample, check_split_listing, explain_cli_matches,  # noqa: E402
                     sample_rows, top_id_signature)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "lib31")
HELD = os.path.join(ROOT, "heldout", "lib31-held", "logs")
SPENT = os.path.join(ROOT, "heldout")


DEV_ROWS = sample_rows(DEV, ".log")


def test_listing():
    check_split_listing(DEV, HELD, ".log", min_dev=25, min_held=12, min_none=4)


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0][:60] for r in DEV_ROWS])
def test_dev_thread(name, label, source):
    check_dev_sample(os.path.join(DEV, name), label)


# real lines (each from a thread named in the knowledge base's comments or tests/data/lib31)
@pytest.mark.parametrize("text,cause,signature", [
    # TensorRT 8.0 - 8.5 (open-mmlab/mmdeploy#2639: mmdeploy's own wording "magicTag")
    ("[TRT] [E] 1: [stdArchiveReader.cpp::nvinfer1::rt::StdArchiveReader::StdArchiveReader::30] Error Code 1: "
     "Serialization (Serialization assertion magicTagRead == kMAGIC_TAG failed.Magic tag does not match)",
     "tensorrt-engine-mismatch", "trt-plan-header-magic-tag"),
    ("TRTNet: 1: [stdArchiveReader.cpp::StdArchiveReader::30] Error Code 1: Serialization (Serialization assertion "
     "magicTagRead == magicTag failed.Magic tag does not match)", "tensorrt-engine-mismatch", "trt-plan-header-magic-tag"),
    # TensorRT 8.6+ (NVIDIA/TensorRT#2915 writes it without the blank after ==)
    ("ERROR: 1: [runtime.cpp::parsePlan::314] Error Code 1: Serialization (Serialization assertion "
     "plan->header.magicTag ==rt::kPLAN_MAGIC_TAG failed.)", "tensorrt-engine-mismatch", "trt-plan-header-magic-tag"),
    # NVIDIA/TensorRT#1596's title
    ("# MagicTag assertion Failed! Deserialization of engine failed!!", "tensorrt-engine-mismatch",
     "trt-plan-header-magic-tag"),
    # TensorFlow custom ops (NVIDIA/DALI#52's plugin, TF 1.x's stream executor namespace; tensorflow-io's library)
    ("tensorflow.python.framework.errors_impl.NotFoundError: /usr/lib64/python2.7/site-packages/nvidia/dali/plugin/"
     "libdali_tf.so: undefined symbol: _ZN9perftools8gputools6Stream18BlockHostUntilDoneEv", "extension-abi-mismatch",
     "undefined-tensorflow-cxx-symbol"),
    ("RuntimeError: zero_out.so: undefined symbol: _ZN10tensorflow10DEVICE_CPUE", "extension-abi-mismatch",
     "undefined-tensorflow-cxx-symbol"),
    ("NotFoundError: build/libadd2.so: undefined symbol: _ZTIN10tensorflow8OpKernelE", "extension-abi-mismatch",
     "undefined-tensorflow-cxx-symbol"),
    # the symbol without the module (mbaradad/munkres-tensorflow#7, tensorflow/custom-op#72's title)
    ("the error  **tensorflow.python.framework.errors_impl.NotFoundError:undefined symbol: "
     "_ZN10tensorflow8internal21CheckOpMessageBuilder9NewStringEv**  happens", "extension-abi-mismatch",
     "undefined-tensorflow-cxx-symbol-alone"),
    ('# I am getting "undefined symbol: _ZN10tensorflow8OpKernel11TraceStringEPNS_15OpKernelContextEb" error when '
     "trying to build the pip package", "extension-abi-mismatch", "undefined-tensorflow-cxx-symbol-alone"),
])
def test_line_reads(text, cause, signature):
    assert top_id_signature(text) == (cause, signature)


@pytest.mark.parametrize("text", [
    # TensorRT 7's header check: a file that was no engine (NVIDIA/TensorRT#1384), the same TensorRT
    "coreReadArchive.cpp (31) - Serialization Error in verifyHeader: 0 (Magic tag does not match)",
    # a broken engine file (NVIDIA/TensorRT#3848): no version said
    "Error Code 1: Serialization (Serialization assertion sizeRead == static_cast<uint64_t>(mEnd - mCurrent) failed."
    "Size specified in header does not match archive size)",
    # TensorFlow's own libraries missing their own symbols: TensorFlow's pieces mixed, not an extension
    "ImportError: /usr/local/lib/python3.6/dist-packages/tensorflow/python/_pywrap_tensorflow_internal.so: undefined "
    "symbol: _ZN10tensorflow8internal21CheckOpMessageBuilder9NewStringEv",
    "OSError: /usr/lib/python3/site-packages/tensorflow/libtensorflow_framework.so: undefined symbol: "
    "_ZN10tensorflow6StatusC1Ev",
    # a CUDA symbol of a TensorFlow op (pmh47/dirt#48): another CUDA, not TensorFlow's API
    "tensorflow.python.framework.errors_impl.NotFoundError : ~/dirt/dirt/librasterise.so : undefined symbol : "
    "__cudaRegisterFatBinaryEnd",
])
def test_not_this_family(text):
    assert top_id_signature(text)[0] not in ("tensorrt-engine-mismatch", "extension-abi-mismatch")


# the linker's line (each from a thread in tests/data/lib31 or the knowledge base's comment)
@pytest.mark.parametrize("text,cause", [
    ("> /usr/bin/ld: cannot find -lcudart", "cuda-runtime-missing"),
    ("`../../x86_64-conda-linux-gnu/bin/ld: cannot find -lcudart: No such file or directory`", "cuda-runtime-missing"),
    ("# compiler_compat/ld: cannot find -lcudart", "cuda-runtime-missing"),
    ("/usr/bin/ld: cannot find -lnvrtc", "cuda-runtime-missing"),
    ("/usr/bin/ld: cannot find -lcudnn", "cudnn-missing"),
    ("# usr/bin/ld: cannot find -lcudnn", "cudnn-missing"),
    ("    ld.lld: error: unable to find library -lamdhip64", "rocm-runtime-missing"),
    ("/usr/bin/ld: cannot find -lsycl", "oneapi-runtime-missing"),
])
def test_linker_line(text, cause):
    assert top_id_signature(text) == (cause, "linker-cannot-find-gpu-library")


@pytest.mark.parametrize("text", [
    "# ld: cannot find -lintl when compiling with cmake and python package",
    "/usr/bin/ld: cannot find -lmpi_mpifh: No such file or directory",
    # the driver's libcuda keeps Triton's own reading (no-gpu-driver), not this one
    "/usr/bin/ld: cannot find -lcuda: No such file or directory",
    # a linker that did find the library and misses a symbol in it is another failure
    "/usr/bin/ld: /opt/rocm/lib/libhipblas.so: undefined reference to `rocsolver_dgetrs'",
])
def test_linker_line_not_gpu_library(text):
    assert top_id_signature(text)[1] != "linker-cannot-find-gpu-library"


def test_torch_symbol_keeps_torch_signature():
    # the torch rule's own line is not the TensorFlow one (vllm-project/vllm#5501's form)
    text = "ImportError: /x/vllm/_C.abi3.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSs"
    assert top_id_signature(text) == ("extension-abi-mismatch", "undefined-torch-cxx-symbol")


# -- ONNX Runtime: which of the CUDA runtime and cuDNN is missing -------------------------------------------------

def _top(text, tmp_path):
    p = tmp_path / "paste.txt"
    p.write_text(text, encoding="utf-8")
    ms = explain_cli_matches("--no-detect", str(p))
    return ms[0] if ms else None


REQUIRE = ("2024-11-12 10:07:56.895559377 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 "
           "CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Require cuDNN 8.* and CUDA 12.*. "
           "Please install all dependencies as mentioned in the GPU requirements page (https://onnxruntime.ai/docs/"
           "execution-providers/CUDA-ExecutionProvider.html#requirements), make sure they're in the PATH, and that your "
           "GPU is supported.\n")


def test_ort_required_majors_against_form_claim(tmp_path):
    # microsoft/onnxruntime#22809: the Jetson build requires cuDNN 8, the form's Execution Provider Library Version
    # says CUDA 12.6 with cuDNN 9.3
    text = REQUIRE + "\n### Execution Provider Library Version\n\ncuda 12.6, cudnn 9.3, jetpack 6.1\n"
    m = _top(text, tmp_path)
    assert m["id"] == "cudnn-missing" and any("cuDNN 9.x" in n for n in m["notes"])


def test_ort_required_cuda_major_differs(tmp_path):
    # the same line with a CUDA 11 toolkit claimed: no build of the provider for CUDA 11
    text = REQUIRE + "\n### Execution Provider Library Version\n\nCUDA 11.8\n"
    assert _top(text, tmp_path)["id"] == "cuda-runtime-missing"


def test_ort_line_alone_keeps_its_cause(tmp_path):
    # nothing in the text shows the machine's CUDA: which of the two is missing is not known, the line's own cause stays
    assert _top(REQUIRE, tmp_path)["id"] == "cuda-runtime-missing"


def test_ort_release_builds_and_claimed_cuda(tmp_path):
    # hacksider/Deep-Live-Cam#948: onnxruntime-gpu 1.16.3 (built for CUDA 11.8 with cuDNN 8) and CUDA 11.8 said, no
    # cuDNN said: cuDNN is the piece left (the thread's fix: cuDNN 8.9.7 for CUDA 11)
    text = ("i am using cuda 11.8, onnxruntime-gpu 1.16.3 and python 3.10.0.\n\n"
            "CUDA_PATH is set but CUDA wasn't able to be loaded. Please install the correct version of CUDA and cuDNN as "
            "mentioned in the GPU requirements page (https://onnxruntime.ai/docs/execution-providers/"
            "CUDA-ExecutionProvider.html#requirements), make sure they're in the PATH, and that your GPU is supported.\n")
    assert _top(text, tmp_path)["id"] == "cudnn-missing"


def test_ort_release_archive_named_as_version(tmp_path):
    # microsoft/onnxruntime#20223: the release archive's name as the form's version, CUDA 12.4 in the library field
    text = ("### Describe the issue\n\n  Loadlibrary failed with error 126 when trying to load "
            "onnxruntime_providers_cuda.dll\n\n### ONNX Runtime Version or Commit ID\n\n"
            "onnxruntime-win-x64-cuda12-1.17.1\n\n### Execution Provider Library Version\n\nCUDA12.4\n")
    assert _top(text, tmp_path)["id"] == "cudnn-missing"


def test_line_verdict():
    from envcheck.engine.onnxruntime import line_verdict

    assert line_verdict([(12, 9)], 11, None)[0] == "cuda-runtime-missing"
    assert line_verdict([(12, 9)], 12, 8)[0] == "cudnn-missing"
    assert line_verdict([(12, 9)], 12, None)[0] == "cudnn-missing"
    assert line_verdict([(12, 9)], 12, 9) is None  # both fit: something else (PATH, the MSVC runtime)
    assert line_verdict([(12, 9)], None, 8) is None  # no CUDA shown: not decided
    assert line_verdict([], 12, None) is None
    assert line_verdict([(11, 8), (12, 8)], 12, None)[0] == "cudnn-missing"


def test_form_field_without_cuda_is_no_claim(tmp_path):
    from envcheck.paste.readers.ort_template import read

    got = read(["### Execution Provider Library Version", "", "TensorRT 8.6"]).facts
    assert not [f for f in got if f.field.startswith("claim.")]


def test_spent_misses_now_read():
    # the spent sets' misses of this family that the rules read now (acceptance16-20)
    cases = {
        "acceptance20/logs/yolov8-tensorrt-142-yolov8-pose-magic-tag-does-not-match-trtexec-engine-vs-pip-nvidia-"
        "tensorrt-8.4.3.1.log": "tensorrt-engine-mismatch",
        "acceptance16/pastes/dali-52-2018-plugin-tf-built-for-tensorflow-gpu-1.8-with-1.9-undefined-symbol.txt":
            "extension-abi-mismatch",
        "acceptance18/pastes/onnxruntime-22809-jetson-agx-orin-jetpack-6.1-ort-1.19.0-jetson-zoo-requires-cudnn-8-has-"
        "9.3.txt": "cudnn-missing",
        "acceptance20/pastes/hipfort-13-hipfc-mi25-ubuntu-18.04-ld-cannot-find-lamdhip64-no-libamdhip64-in-opt-rocm-lib"
        ".txt": "rocm-runtime-missing",
    }
    for rel, label in cases.items():
        ms = explain_cli_matches("--no-detect", os.path.join(SPENT, rel))
        assert ms and ms[0]["id"] == label, (rel, [(m["id"], m["score"]) for m in ms])


def test_cover_bound():
    from envcheck.explain.kb import load_kb

    assert len(load_kb().cover) <= COVER_BOUND
