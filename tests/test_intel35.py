"""intel35 (session 22): Intel's oneAPI runtime and Level Zero runtime not loadable, as users bring them in 2024-2026.

Real threads in tests/data/intel35 (README: file, label, source); a third of the collection was held back in
heldout/intel35-held/pastes before any rule was written (scored by scripts/score_pastes.py, never asserted here). What
the rules read (all data, compat_matrix/errors.toml's ``# ---- intel35 ----`` block and one resolutions.toml row):

* the oneAPI runtime's remaining Windows and plugin names in the library table (libmmd.dll, svml_dispmd.dll, the SYCL
  runtime's proxy loaders and Level Zero / OpenCL plugins);
* a oneAPI or Level Zero library "cannot open shared object file" without the loader's colon (a title's wording);
* "missing ze_loader.dll" (the DLL named after "missing");
* the Windows DLLs of the SYCL runtime as a sign of Intel's XPU stack (the ``xpu`` fact), so that torch's first DLL
  failing in such a text reads as the oneAPI runtime missing;
* a thread whose fix was to (re)install oneAPI ("I re-installed oneAPI and IPEX-LLM for Linux and now it works again",
  intel/ipex-llm#12471: acceptance24's miss).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_dev_sample, check_split_listing, explain_cli_matches, sample_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "intel35")
HELD = os.path.join(ROOT, "heldout", "intel35-held", "pastes")

#: the one sample the rules leave unread, on purpose (see test_an_unversioned_mkl_name_names_no_oneapi_runtime)
_UNREAD = "ipex-llm-12150-ollama-cannot-load-libmkl-core-so-source-setvars.txt"
DEV_ROWS = [r for r in sample_rows(DEV, ".txt") if r[0] != _UNREAD]


def test_listing():
    check_split_listing(DEV, HELD, ".txt", min_dev=14, min_held=7, min_none=5)


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0][:60] for r in DEV_ROWS])
def test_dev_thread(name, label, source):
    check_dev_sample(os.path.join(DEV, name), label)


def test_spent_ipex_llm_ollama_exit_127_fixed_by_reinstalling_oneapi():
    # acceptance24's miss: no log line at all, only "exit status 127" and the reporter's fix
    path = os.path.join(ROOT, "heldout", "acceptance24", "pastes",
                        "ipex-llm-12471-ollama-ipexllm-exit-status-127-windows-ubuntu-after-system-update-fixed-"
                        "reinstalling-oneapi.txt")
    ms = explain_cli_matches("--no-detect", path)
    assert [m["id"] for m in ms] == ["oneapi-runtime-missing"]
    assert "re-installed oneAPI" in ms[0]["evidence"] and ms[0]["fixes"]


def test_spent_ipex_632_fixed_by_the_compiler_vars_bat():
    # acceptance13's miss: IPEX 2.1.30+xpu on Windows, "I had to also run the compiler vars.bat ..."
    path = os.path.join(ROOT, "heldout", "acceptance13", "pastes",
                        "ipex-632-windows-ipex-2.1.30-xpu-dpcpproot-wrong-oneapi-dll-load.txt")
    ms = explain_cli_matches("--no-detect", path)
    assert [m["id"] for m in ms] == ["oneapi-runtime-missing"] and "vars.bat" in ms[0]["evidence"]


# -- the resolution row (compat_matrix/resolutions.toml) ------------------------------------------------------------------
@pytest.mark.parametrize("sentence", [
    "Anyway, I re-installed oneAPI and IPEX-LLM for Linux and now it works again.",  # intel/ipex-llm#12471
    "I reinstalled the Intel oneAPI Base Toolkit and it works.",
    "After installing Intel® oneAPI 2025.0 the error went away.",
    "I ran the mkl vars.bat as well and now it works.",
])
def test_oneapi_reinstalled_is_its_fix(sentence):
    from envcheck.engine.resolution import causes_of
    from envcheck.matrix import load_matrix

    assert [c for c, _ in causes_of(load_matrix(), sentence)] == ["oneapi-runtime-missing"]


def test_oneapi_installed_beside_a_driver_update_is_not_read_as_oneapi():
    # intel/ipex-llm#11591 (intel33's held-back set, label driver-too-old): "After upgrade MTL iGPU driver to 5762 and
    # install OneAPI 2024.2, it work." - the driver and oneAPI both changed; the thread is not read as oneAPI's
    path = os.path.join(ROOT, "heldout", "intel33-held", "pastes",
                        "ipex-llm-11591-mtl-ollama-exit-status-1-fixed-by-igpu-driver-5762.txt")
    assert "oneapi-runtime-missing" not in [m["id"] for m in explain_cli_matches("--no-detect", path)]


# -- the library table -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lib,cause", [
    ("libmmd.dll", "oneapi-runtime-missing"),
    ("svml_dispmd.dll", "oneapi-runtime-missing"),
    ("pi_win_proxy_loader.dll", "oneapi-runtime-missing"),
    ("ur_win_proxy_loader.dll", "oneapi-runtime-missing"),
    ("pi_level_zero.dll", "oneapi-runtime-missing"),
    ("libpi_opencl.so", "oneapi-runtime-missing"),
    ("libur_adapter_opencl.so.0", "oneapi-runtime-missing"),
    # the rows of earlier sessions keep their names
    ("libsycl.so.9", "oneapi-runtime-missing"),
    ("ze_loader.dll", "xpu-level-zero-missing"),
    ("libze_intel_gpu.so.1", "xpu-level-zero-missing"),
    # another vendor's UR adapters are optional (ur-loader-other-vendor-adapter-info), and a name merely like "mmd"
    ("libur_adapter_cuda.so.0", None),
    ("libur_adapter_hip.so.0", None),
    ("mmdet.dll", None),
    ("libmkl_core.so", None),
])
def test_library_rows(lib, cause):
    from envcheck.explain.kb import load_kb

    assert load_kb().route_library(lib) == cause


# -- the wordings, on real lines ---------------------------------------------------------------------------------------------
def _ids(text):
    from envcheck.explain import explain_text

    return [(m.id, m.captures.get("lib")) for m in explain_text(text)]


@pytest.mark.parametrize("line,lib,cause", [
    # intel/llm-scaler#665 (a title)
    ("# vllm 0.26.b1 // Qwen 3.8 OSError: libsycl.so.9 cannot open shared object file", "libsycl.so.9",
     "oneapi-runtime-missing"),
    ('ImportError: "libze_loader.so.1" cannot open shared object file', "libze_loader.so.1", "xpu-level-zero-missing"),
    # oneapi-src/level-zero#142
    ("I can compile and link with ze_loader.lib, but execution fails - at least - because I am missing ze_loader.dll.",
     "ze_loader.dll", "xpu-level-zero-missing"),
    ("The program says it is missing `sycl8.dll`", "sycl8.dll", "oneapi-runtime-missing"),
    # post-hoc (from heldout/intel35-held's misses): intel/ipex-llm#12784, vladmandic/sdnext#3553
    ("Then it reports miss library **sycl8.dll, mkl_sycl_blas.5.dll, ur_win_proxy_loader.dll**", "sycl8.dll",
     "oneapi-runtime-missing"),
    ("# [Issue]: Installtion haulted: The specified module could not be found. c10_xpu.dll", "c10_xpu.dll",
     "oneapi-runtime-missing"),
])
def test_wordings_name_the_runtime(line, lib, cause):
    assert (cause, lib) in _ids(line)


@pytest.mark.parametrize("line", [
    # an unversioned oneMKL name says no oneAPI major: nothing (intel/ipex-llm#12150's title, CPU-only MKL threads)
    "libmkl_core.so cannot open shared object file",
    # not Intel's: another signature's (or none)
    "I am missing cudart64_12.dll",
    "missing ze_loader.lib",
    # the Level Zero loader's name in a healthy listing
    "ze_loader.dll 1.19.2 C:\\Windows\\System32",
    # a DLL of no GPU stack after Windows' error text
    "The specified module could not be found. python311.dll",
])
def test_wordings_stay_silent(line):
    assert not [i for i in _ids(line) if i[0] in ("oneapi-runtime-missing", "xpu-level-zero-missing")]


def test_an_unversioned_mkl_name_names_no_oneapi_runtime():
    # intel/ipex-llm#12150: the title "Cannot load shared library libmkl_core.so" and a maintainer's advice to source
    # setvars.sh; an MKL name without oneAPI's .so.2 is also CPU-only numpy's, and advice is no fix: left unread
    assert explain_cli_matches("--no-detect", os.path.join(DEV, _UNREAD)) == []


# -- the xpu fact of the SYCL runtime's DLLs ---------------------------------------------------------------------------------
@pytest.mark.parametrize("line,want", [
    ("directly place the files (sycl7.dll;pi_level_zero.dll;pi_win_proxy_loader.dll;mkl_core.2.dll) in bin", True),
    ("Then it reports miss library mkl_sycl_blas.5.dll", True),
    ("Error loading cudart64_12.dll", False),
    ("C:\\Windows\\System32\\DriverStore\\FileRepository\\iigd_dch.inf_amd64\\igdrcl64.dll", False),
    ("mysycl7.dll", False),
])
def test_sycl_runtime_dlls_show_intels_stack(line, want):
    from envcheck.explain.kb import load_kb

    rows = [f for f in load_kb().facts if f.name == "xpu" and not f.veto]
    got = [m.group("value") for f in rows if any(x in line.lower() for x in f.literals)
           for m in [f.regex.search(line)] if m]
    assert bool(got) is want, got


def test_backend_with_compiler_dll_beside_oneapi_dlls_reads_as_the_oneapi_runtime():
    # oobabooga/textgen#5123 (title and answer): torch's first DLL is kept where the text shows Intel's stack
    ms = explain_cli_matches("--no-detect", os.path.join(DEV, "textgen-5123-arc-windows-backend-with-compiler-dll-"
                                                                "oneapi-dlls.txt"))
    assert ms[0]["id"] == "oneapi-runtime-missing" and "backend_with_compiler.dll" in ms[0]["evidence"]
    # the same title alone (no Intel DLL named) says nothing: a CUDA or CPU torch fails on that DLL too
    title = ('# Arc Installation - OSError: [WinError 126] The specified module could not be found. Error loading '
             '"backend_with_compiler.dll" or one of its dependencies.\n')
    assert explain_cli_matches("--no-detect", "-", text=title) == []


# -- a pasted sycl-ls whose Intel GPU only OpenCL lists (engine/report.py: the warning is the report's cause there) ---------
_SYCL_LS = os.path.join(HERE, "data", "vendors", "sycl-ls")


@pytest.mark.parametrize("path", [
    # intel/compute-runtime#764: "After installing oneAPI 2024.2.0, sycl-ls does not show the level-zero device"
    os.path.join(HERE, "data", "forms26", "sycl-ls-opencl-gpu-only-a770-764.txt"),
    # intel/llvm#17535: a CI machine's A750 on OpenCL only ("Failing to register level zero GPU")
    os.path.join(_SYCL_LS, "opencl-gpu-no-level-zero-a750-llvm17535.txt"),
])
def test_sycl_ls_opencl_only_names_level_zero_missing(path):
    ms = explain_cli_matches("--no-detect", path)
    assert ms and ms[0]["id"] == "xpu-level-zero-missing" and "not to Level Zero" in ms[0]["evidence"], ms


def test_sycl_ls_with_level_zero_or_beside_nvidia_says_nothing_of_level_zero():
    with open(os.path.join(HERE, "data", "forms26", "sycl-ls-opencl-gpu-only-a770-764.txt"), encoding="utf-8") as fh:
        intel = fh.read()
    with open(os.path.join(_SYCL_LS, "v21n-cuda-a100-sxm4-80gb-and-epyc-opencl-cpu.txt"), encoding="utf-8") as fh:
        cuda_line = fh.readline()
    # an NVIDIA GPU beside the Intel one: the Intel GPU's OpenCL line is no report's failure
    ids = [m["id"] for m in explain_cli_matches("--no-detect", "-", text=cuda_line + intel)]
    assert "xpu-level-zero-missing" not in ids
    # Level Zero lists the GPU (intel/llvm#14647's CI run): nothing of Level Zero
    ids = [m["id"] for m in explain_cli_matches("--no-detect", os.path.join(
        _SYCL_LS, "verbose-2024.18-a750-level-zero-ci-timestamps-llvm14647.txt"))]
    assert "xpu-level-zero-missing" not in ids
