"""`envcheck explain` on real logs of three families no §3 id answered before (tests/data/logs/logs20f; its README
lists file, label and source), and on their neighbours that must keep their own ids or say nothing:

* ``host-compiler-unsupported``: nvcc's host-compiler check (crt/host_config.h's "unsupported GNU version! gcc
  versions later than N", the clang and Visual Studio sentences, nvcc's own "The version ('40000') of the host
  compiler ('clang') is not supported") and torch's cpp_extension check ("The current installed version of g++ (X)
  is greater than the maximum required version by CUDA Y"), with the limit the message names in ``captures``;
* ``extension-abi-mismatch``: a compiled torch extension built for another torch (an undefined symbol of torch's
  C++ API in flash-attn / vLLM / mmcv / torchvision / a project's ``_C``, xformers' "built for: PyTorch X ... (you
  have Y)", "operator torchvision::nms does not exist", torchvision's "compiled with different CUDA versions");
  xformers' report of the same build is no mismatch, and of a ``+cpu`` torch is ``framework-cpu-only``;
* ``tensorrt-engine-mismatch``: a serialized TensorRT engine from another TensorRT or another GPU;
* vLLM's KV-cache memory shortfall ("No available memory for the cache blocks", "max seq len ... larger than ...
  KV cache", "# GPU blocks: 0") is ``gpu-out-of-memory`` with vLLM's own fix first.

The held-back parts (heldout/logs20f, heldout/logs20f-3, -4 and -5, split by `scripts/split_log_batch.py logs20f 20260526 0.4` before any rule) are scored by heldout/logs20d/score.py,
never asserted here."""

import json
import os
import re
import subprocess
import sys

import pytest

from envcheck.engine.rules import extension_build_differs
from envcheck.explain import explain_text
from envcheck.explain.kb import load_kb
from envcheck.matrix.fixes import COMMANDS, render_fix

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_log_batch, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "logs20f")
HELD = os.path.join(ROOT, "heldout", "logs20f")
DEV_ROWS = log_readme_rows(DEV)
NEW = ("host-compiler-unsupported", "extension-abi-mismatch", "tensorrt-engine-mismatch")


def _read(name):
    with open(os.path.join(DEV, name), encoding="utf-8") as fh:
        return fh.read()


def _top(text):
    ms = explain_text(text)
    return ms[0] if ms else None


def test_every_log_is_listed_sourced_labelled_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV, HELD, min_dev=30, min_none=3, min_held=20, one_log_per_thread=False)
    for label in NEW:  # every new family is on both sides of the split
        assert any(r[1] == label for r in DEV_ROWS) and any(r[1] == label for r in held), label


def test_the_new_ids_are_in_the_contract_and_the_docs():
    with open(os.path.join(ROOT, "docs", "contract.md"), encoding="utf-8") as fh:
        contract = fh.read()
    with open(os.path.join(ROOT, "docs", "explain.md"), encoding="utf-8") as fh:
        docs = fh.read()
    for cid in NEW:
        assert re.search(rf"^\| `{cid}` \| \S", contract, re.M), cid
        assert f"`{cid}`" in docs, cid
        assert cid in load_kb().causes


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top_match_is_the_root_cause(name, label, source):
    matches = explain_text(_read(name))
    if label == "none":
        assert matches == [], [(m.id, m.evidence) for m in matches]
        return
    assert matches and matches[0].id == label, [(m.id, m.score, m.evidence) for m in matches]
    assert matches[0].fixes and matches[0].title
    assert not any("[fix not shown" in t for t in matches[0].fixes + matches[0].dead_ends)


# -- host-compiler-unsupported ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name,key,value", [
    ("xmr-stak-2751-gcc-9.4-later-than-8.log", "gcc_max", "8"),
    ("llamacpp-9205-debian-gcc14-later-than-13.log", "gcc_max", "13"),
    ("niftyreg-42-cuda-9.0-gcc-later-than-6.log", "gcc_max", "6"),
    ("espresso-4574-pyrit-clang-less-than-13-nvcc-11.4.log", "clang_below", "13"),
    ("brushedit-17-msvc-2017-2022-cuda-11.8.log", "msvc_to", "2022"),
    ("gprmax-312-msvc-2017-2019-cuda-11.2-pycuda.log", "msvc_to", "2019"),
    ("lbann-105-nvcc-fatal-host-compiler-clang-40000.log", "host_compiler", "clang"),
])
def test_host_compiler_limit_is_read_from_the_message(name, key, value):
    m = _top(_read(name))
    assert m.id == "host-compiler-unsupported" and m.captures.get(key) == value, (m.id, m.captures)


def test_cuda_9s_list_wording_of_visual_studio_is_the_same_cause_without_a_range():
    m = _top(_read("dlib-1560-cuda-9.0-msvc-2012-2017-list.log"))
    assert m.id == "host-compiler-unsupported" and "msvc_to" not in m.captures


@pytest.mark.parametrize("line", [
    # the override given, clang only warns that nvcc's flag went unused (STEllAR-GROUP/octotiger#384)
    "clang-12: warning: argument unused during compilation: '-allow-unsupported-compiler' "
    "[-Wunused-command-line-argument]",
    # a host compiler that nvcc accepts, named in a build log
    "-- The CUDA host compiler identification is GNU 11.4.0",
])
def test_a_host_compiler_named_without_nvccs_refusal_says_nothing(line):
    assert explain_text(line) == []


def test_the_fix_states_the_installed_toolkits_own_gcc_limit():
    """The fix text's CUDA 13.0 limits, checked against the header of a CUDA 13.0 toolkit where one is installed
    (the primary source: crt/host_config.h), never against envcheck's own text."""
    header = "/usr/local/cuda/include/crt/host_config.h"
    cuda_h = "/usr/local/cuda/include/cuda.h"
    if not (os.path.exists(header) and os.path.exists(cuda_h)):
        pytest.skip("no CUDA toolkit header here")
    with open(cuda_h, encoding="utf-8", errors="replace") as fh:
        ver = re.search(r"#define CUDA_VERSION (\d+)", fh.read())
    if not ver or ver.group(1) != "13000":
        pytest.skip("the installed toolkit is not CUDA 13.0")
    with open(header, encoding="utf-8") as fh:
        src = fh.read()
    gcc = re.search(r"#if __GNUC__ > (\d+)\s*\n[^\n]*\n#error -- unsupported GNU version", src)
    clang = re.search(r"unsupported clang version! clang version must be less than (\d+)", src)
    msvc = re.search(r"Only the versions between (\d{4}) and (\d{4})", src)
    assert gcc and clang and msvc
    fix = load_kb().causes["host-compiler-unsupported"].fixes[0][0]
    assert f"gcc {gcc.group(1)}," in fix and f"clang {int(clang.group(1)) - 1}," in fix
    assert f"Visual Studio {msvc.group(1)} to {msvc.group(2)}" in fix


def test_the_fix_names_a_command_to_see_the_compiler_and_no_shell_option_in_prose():
    m = _top(_read("tkdnn-134-gcc-later-than-8-cmake.log"))
    assert "gcc --version" in m.fixes[0] and COMMANDS["gcc-version"] == "gcc --version"
    assert any("allow-unsupported-compiler" in d for d in m.dead_ends)


# -- extension-abi-mismatch ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,symbol_start", [
    ("flash-attn-1832-torch-2.6-flash-attn-2.6.3.log", "_ZN3c105Error"),
    ("vllm-5501-c-abi3-torch-library-optional.log", "_ZN5torch7Library"),
    ("bevfusion-420-mmcv-ext-at-slice.log", "_ZN2at5slice"),
    ("asff-52-torchvision-c-so-c10-error.log", "_ZN3c105Error"),
])
def test_undefined_torch_symbol_names_the_symbol(name, symbol_start):
    m = _top(_read(name))
    assert m.id == "extension-abi-mismatch" and m.captures["symbol"].startswith(symbol_start)


@pytest.mark.parametrize("line,want", [
    # a CUDA library's own symbol missing: two copies of cuDNN mixed, not a torch extension (tests/data/logs README)
    ("libcudnn_cnn_infer.so.8: undefined symbol: _ZN5cudnn3cnn34raiseInvalidCuDNNVersionErrorEv, version "
     "libcudnn_ops_infer.so.8", "cudnn-version-mismatch"),
    # a symbol of another C++ library in an extension: nothing of torch's ABI is shown
    ("ImportError: /opt/x/_ext.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN5boost6system16generic_categoryEv",
     None),
])
def test_other_undefined_symbols_are_not_an_extension_built_for_another_torch(line, want):
    ids = [m.id for m in explain_text(line)]
    assert "extension-abi-mismatch" not in ids
    if want:
        assert ids and ids[0] == want, ids


@pytest.mark.parametrize("line,module", [
    # torchaudio's own extension library built for another torch: an extension, though its name starts with lib
    ("OSError: /env/site-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
     "libtorchaudio.so"),
    ("ImportError: /code/lib/model/_C.cpython-36m-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC1ENS_14SourceLocationERKSs",
     "_C.cpython-36m-x86_64-linux-gnu.so"),
])
def test_the_module_that_asks_for_the_torch_symbol_is_named(line, module):
    m = _top(line)
    assert m.id == "extension-abi-mismatch" and m.captures["module"] == module


@pytest.mark.parametrize("line", [
    # torch's own libraries mixed (two torch installs), not an extension built for another torch
    "ImportError: /env/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: _ZN3c104cuda20CUDACachingAllocator9allocatorE",
    "OSError: /env/site-packages/torch/lib/libtorch.so: undefined symbol: _ZN2at4_ops5zeros4callE",
    "OSError: /env/torch/lib/LIBC10_CUDA.SO: undefined symbol: _ZN3c1021throwNullDataPtrErrorEv",
])
def test_torchs_own_libraries_are_not_an_extension(line):
    assert "extension-abi-mismatch" not in [m.id for m in explain_text(line)]


XFORMERS = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch {built} with CUDA {code} (you have {have})\n"
            "    Python  3.10.17 (you have 3.10.17)\n")


def test_xformers_report_of_the_same_build_says_nothing():
    # facebookresearch/xformers#1250: built for 2.6.0+cu118 (CUDA 1107), 2.6.0+cu118 in use: no mismatch is shown
    assert explain_text(XFORMERS.format(built="2.6.0+cu118", code="1107", have="2.6.0+cu118")) == []


@pytest.mark.parametrize("built,code,have,cause,built_cuda", [
    ("2.3.0+cu121", "1201", "2.1.0+cu121", "extension-abi-mismatch", "12.1"),
    ("2.1.0+cu121", "1201", "2.1.0+cu118", "extension-abi-mismatch", "12.1"),
    ("2.5.1+cu124", "1204", "2.5.1", "extension-abi-mismatch", "12.4"),  # a PyPI torch prints no local tag
    ("2.1.2+cu121", "1201", "2.1.2+cpu", "framework-cpu-only", "12.1"),
])
def test_xformers_report_names_the_cause_and_reads_its_versions(built, code, have, cause, built_cuda):
    m = _top(XFORMERS.format(built=built, code=code, have=have))
    assert m.id == cause and m.captures["torch"] == have and m.captures["built_cuda"] == built_cuda
    if cause == "extension-abi-mismatch":
        assert m.captures["built_torch"] == built and "xformers" in m.fixes[0]


@pytest.mark.parametrize("a,b,want", [
    ("2.1.0+cu121", "2.1.0+cu118", True), ("2.3.0+cu121", "2.1.0+cu121", True), ("2.5.1+cu121", "2.5.1", True),
    ("2.6.0+cu118", "2.6.0+cu118", False), ("2.6.0+CU118", "2.6.0+cu118 ", False), ("2.6", "2.6.0", False),
    (None, "2.1.0", None), ("2.1.0", "", None), ("abc", "2.1.0", None),
])
def test_extension_build_differs(a, b, want):
    assert extension_build_differs(a, b) is want


def test_torchvision_operator_missing_is_torchvision_built_for_another_torch():
    m = _top(_read("hallo-98-colab-torchvision-nms-does-not-exist.log"))
    assert m.id == "extension-abi-mismatch" and m.captures.get("op") == "nms"
    assert "torchvision" in m.fixes[0] and "index-url https://download.pytorch.org/whl/cu124" in m.fixes[0]
    m = _top("RuntimeError: No such operator torchvision::roi_align")
    assert m.id == "extension-abi-mismatch" and m.captures.get("op2") == "roi_align"


def test_the_fix_prints_the_three_things_an_extension_must_match():
    m = _top(_read("sglang-851-flash-attn-zeros-a100-torch231.log"))
    assert "torch._C._GLIBCXX_USE_CXX11_ABI" in " ".join(m.fixes) and "torch.version.cuda" in " ".join(m.fixes)


# -- tensorrt-engine-mismatch ----------------------------------------------------------------------------------
def test_tensorrt_plan_of_another_version_reads_both_versions():
    m = _top(_read("insightface-rest-84-trt-plan-8.2.3-got-8.2.1.log"))
    assert m.id == "tensorrt-engine-mismatch"
    assert (m.captures["tensorrt"], m.captures["engine_tensorrt"]) == ("8.2.3", "8.2.1")


def test_tensorrt_plan_of_another_gpu_reads_both_compute_capabilities():
    # the device form, as NVIDIA/TensorRT#2176 quotes it (that thread is held back: the line is TensorRT's own)
    m = _top("The engine plan file is generated on an incompatible device, expecting compute 8.9 got compute 8.6, "
             "please rebuild.")
    assert m.id == "tensorrt-engine-mismatch" and (m.captures["cc"], m.captures["engine_cc"]) == ("8.9", "8.6")


def test_tensorrt_libnvinfer_missing_is_named_with_tensorrts_own_fix():
    # logs20m: TensorRT's own library not loadable is cuda-runtime-missing with TensorRT's fix (signature
    # tensorrt-library-not-loadable; kb.library still routes libnvinfer to nothing: its .so.N is TensorRT's major, so
    # the CUDA-major reading of the [[library]] rows must not apply to it)
    ms = explain_text("ImportError: libnvinfer.so.8: cannot open shared object file: No such file or directory")
    assert [m.id for m in ms] == ["cuda-runtime-missing"] and ms[0].fixes[0].startswith("TensorRT's runtime library")


# -- facts -----------------------------------------------------------------------------------------------------
def test_xformers_report_gives_the_torch_and_python_in_use_as_facts():
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect",
                        os.path.join(DEV, "xformers-800-built-for-cu121-you-have-cu118.log")],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["matches"][0]["id"] == "extension-abi-mismatch"
    facts = doc["facts"]
    assert facts["frameworks"]["torch"]["version"] == "2.1.0+cu118"
    assert facts["frameworks"]["torch"]["cuda"] == "11.8"
    assert facts["python"]["version"] == "3.8.5"  # the one in use, not the 3.8.18 xformers was built for


def test_a_cpu_torch_in_xformers_report_is_a_fact_with_no_cuda():
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect",
                        os.path.join(DEV, "xformers-971-xformers-info-you-have-2.1.0-cpu.log")],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    doc = json.loads(r.stdout)
    assert doc["matches"][0]["id"] == "framework-cpu-only"
    assert doc["facts"]["frameworks"]["torch"] == {"version": "2.1.0+cpu", "cuda": None, "cudnn": None}
    assert doc["facts"]["python"]["version"] == "3.9.13"


def test_fixes_render_their_commands():
    for cid in NEW:
        c = load_kb().causes[cid]
        for text, _, _ in c.fixes:
            assert "[fix not shown" not in render_fix(text)


# -- vLLM's KV-cache shortfall ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name,caps", [
    ("rl-swarm-118-4060ti-no-cache-blocks.log", {}),
    ("qanything-289-max-seq-len-4096-kv-cache-3792-4090.log", {"max_model_len": "4096", "kv_cache_tokens": "3792"}),
    ("qanything-302-vllm-gpu-blocks-0-rtx3090.log", {}),
])
def test_vllm_kv_cache_shortfall_is_out_of_memory_with_vllms_fix(name, caps):
    m = _top(_read(name))
    assert m.id == "gpu-out-of-memory" and "gpu_memory_utilization" in m.fixes[0]
    for k, v in caps.items():
        assert m.captures[k] == v


@pytest.mark.parametrize("line", [
    "INFO 01-30 03:19:14 kv_cache_utils.py:395] # GPU blocks: 1381",
    "INFO 12-13 02:10:29 distributed_gpu_executor.py:58] # GPU blocks: 189945, # CPU blocks: 21845",
    "Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB kv_cache_size=3.81GiB "
    "gpu_memory_utilization=0.90",
])
def test_vllms_normal_kv_cache_lines_say_nothing(line):
    assert explain_text(line) == []


# -- torch's own compiler check, torchvision's own CUDA check -----------------------------------------------------
@pytest.mark.parametrize("name,caps", [
    ("gptq-33-gxx-12.2.1-cuda-11.7-max-11.5.log",
     {"host_compiler": "g++", "host_compiler_version": "12.2.1", "toolkit": "11.7", "compiler_range": ">=6.0.0, <=11.5.0"}),
    ("icg-net-3-conda-cxx-11.2-cuda-11.3.log",
     {"host_compiler_version": "11.2.0", "toolkit": "11.3", "compiler_range": ">=5.0.0, <=10.0.0"}),
])
def test_torch_extension_compiler_check_reads_compiler_toolkit_and_range(name, caps):
    m = _top(_read(name))
    assert m.id == "host-compiler-unsupported" and "CXX" in m.fixes[0]
    for k, v in caps.items():
        assert m.captures[k] == v, (k, m.captures)


def test_torch_extension_compiler_too_old_is_the_same_cause():
    # torch's other branch of the same check (cpp_extension._check_cuda_version)
    m = _top("RuntimeError: The current installed version of g++ (4.8.5) is less than the minimum required version by "
             "CUDA 11.8 (6.0.0). Please make sure to use an adequate version of g++ (>=6.0.0, <=11.5.0).")
    assert m.id == "host-compiler-unsupported" and m.captures["host_compiler_version"] == "4.8.5"


def test_a_garbled_compiler_check_without_versions_says_nothing():
    # conda-forge/pytorch-cpu-feedstock#507: the message lost its versions (and was torch's own mistake)
    assert explain_text(_read("conda-forge-pytorch-507-garbled-check-gcc14-cuda12.9.log")) == []


@pytest.mark.parametrize("line,torch_cuda,pkg_cuda", [
    ("RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions. PyTorch has "
     "CUDA Version=13.0 and torchvision has CUDA Version=12.8. Please reinstall the torchvision that matches your "
     "PyTorch install.", "13.0", "12.8"),
    # torchaudio's wording (torchaudio/_extension/utils.py)
    ("RuntimeError: Detected that PyTorch and TorchAudio were compiled with different CUDA versions. PyTorch has CUDA "
     "version 12.8 whereas TorchAudio has CUDA version 12.9. Please install the TorchAudio version that matches your "
     "PyTorch version.", "12.8", "12.9"),
])
def test_torchvision_and_torchaudio_cuda_check(line, torch_cuda, pkg_cuda):
    m = _top(line)
    assert m.id == "extension-abi-mismatch"
    assert (m.captures["torch_cuda"], m.captures["package_cuda"]) == (torch_cuda, pkg_cuda)


def test_torchvision_check_hard_wrapped_is_still_the_cause():
    m = _top(_read("sd-easy-mode-18-torchvision-11.7-vs-11.8-wrapped.log"))
    assert m.id == "extension-abi-mismatch" and m.captures["package"] == "torchvision"


# -- TensorRT's serialization check ------------------------------------------------------------------------------
@pytest.mark.parametrize("name,caps", [
    ("tensorrt-2072-windows-version-tag-213-vs-205.log", {"serialization_version": "213", "engine_serialization_version": "205"}),
    ("tensorrt-2195-safe-version-tag-0-vs-96.log", {"serialization_version": "0", "engine_serialization_version": "96"}),
    ("yolox-ros-40-ocr-mangled-version-tag-232-vs-205.log", {}),  # an OCR'd paste: the cause, no numbers
])
def test_tensorrt_version_tag_is_the_engine_of_another_tensorrt(name, caps):
    m = _top(_read(name))
    assert m.id == "tensorrt-engine-mismatch"
    for k, v in caps.items():
        assert m.captures[k] == v
    if not caps:
        assert "serialization_version" not in m.captures


def test_tensorrt_magic_tag_is_no_version_mismatch():
    # NVIDIA/TensorRT#1384: the file was no engine at all (a .trt model), the TensorRT the same
    assert explain_text(_read("tensorrt-1384-magic-tag-not-an-engine.log")) == []


def test_tensorflows_dso_line_keeps_its_own_cause():
    # the prefilter literal "does not match" is shared with TensorFlow's kernel/DSO line (driver-library-mismatch)
    ms = explain_text("kernel version 535.54.3 does not match DSO version 545.23.6 -- cannot find working devices "
                      "in this configuration")
    assert ms and ms[0].id == "driver-library-mismatch"


@pytest.mark.parametrize("line,key,value", [
    ("#error -- unsupported GNU version! gcc versions later than 4.9 are not supported!", "gcc_max", "4.9"),
    ("/usr/local/cuda-5.5//bin/..//include/host_config.h:82:2: error: #error -- unsupported GNU version! gcc 4.9 and "
     "up are not supported!", "gcc_from", "4.9"),
])
def test_cudas_oldest_gcc_wordings(line, key, value):
    m = _top(line)
    assert m.id == "host-compiler-unsupported" and m.captures[key] == value
