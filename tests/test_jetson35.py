"""Helper jetson35 of issue 20: Jetson - ONNX Runtime without a Jetson CUDA build (the released packages; ORT's older
"is unavailable. Available providers" wording; a thread saying there is no prebuilt build for Jetson) is
framework-cpu-only; NVIDIA's wheels tied to one JetPack's Python (compat_matrix/jetson.toml [[wheel_python]]) make a
newer Python named on that JetPack python-unsupported; Jetson-only libraries not loadable (libnvdla_compiler,
libnvdla_runtime, libcudla, libnvmedia; ld's "needed by ..., not found") are cuda-runtime-missing.

Real texts: tests/data/jetson35/logs and tests/data/jetson35/pastes (README: file, label, source, note); the held-back
part heldout/jetson35-held (logs/, pastes/) is scored with scripts/score_explain.py / score_pastes.py only, never
asserted here.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import (check_dev_log, check_every_file_listed, check_paste_top_is_label,  # noqa: E402
                     check_section_literals, log_readme_rows, paste_readme_rows, top_match)

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV_LOGS = os.path.join(HERE, "data", "jetson35", "logs")
DEV_PASTES = os.path.join(HERE, "data", "jetson35", "pastes")
HELD = os.path.join(ROOT, "heldout", "jetson35-held")
LOG_ROWS = log_readme_rows(DEV_LOGS)
PASTE_ROWS = paste_readme_rows(DEV_PASTES)
SECTION = "# ---- jetson35 ----"
SIGNATURES = {"ld-needed-library-not-found", "ort-cuda-provider-unavailable-old-wording",
              "no-prebuilt-build-for-jetson-said", "jetson-library-said-not-found"}
#: the anchors this section adds to the prefilter's cover (the brief's bound: at most 1; none was needed)
NEW_ANCHORS: set = set()


def test_the_batch_is_real_and_apart():
    held_logs = log_readme_rows(os.path.join(HELD, "logs"))
    held_pastes = paste_readme_rows(os.path.join(HELD, "pastes"))
    assert len(LOG_ROWS) >= 5 and len(PASTE_ROWS) >= 9 and len(held_logs) + len(held_pastes) >= 6
    urls = [r[2] for r in LOG_ROWS + held_logs] + [v[1] for v in list(PASTE_ROWS.values()) + list(held_pastes.values())]
    assert len(urls) == len(set(urls))  # each thread once, in one part only
    labels = [r[1] for r in LOG_ROWS + held_logs] + [v[0] for v in list(PASTE_ROWS.values()) + list(held_pastes.values())]
    assert labels.count("framework-cpu-only") >= 3 and labels.count("python-unsupported") >= 5
    assert labels.count("cuda-runtime-missing") >= 7 and labels.count("none") >= 4
    for folder, names in ((DEV_LOGS, [r[0] for r in LOG_ROWS]), (DEV_PASTES, list(PASTE_ROWS))):
        check_every_file_listed(folder, names)


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in LOG_ROWS])
def test_dev_log(name, label):
    check_dev_log(DEV_LOGS, name, label, {})


@pytest.mark.parametrize("name,label", [(k, v[0]) for k, v in sorted(PASTE_ROWS.items())])
def test_dev_paste(name, label):
    check_paste_top_is_label(DEV_PASTES, name, label, {})


#: the spent sets' texts of this family (acceptance24's misses before this branch; labels as their READMEs give them)
SPENT_PASTES = {
    "onnxruntime-24159-jetson-orin-nano-released-package-1.20.1-aarch64-cpu-only-gpu-package-question-source-build-"
    "cuda-12.txt": "framework-cpu-only",
    "pytorch-78067-jetson-agx-xavier-jetpack-4.4-source-build-because-official-wheel-py3.6-only-py3.8-wheels-need-"
    "jetpack-5.txt": "python-unsupported",
}
SPENT_LOGS = {
    "inference-pr-2306-jetson-6.x-onnx-trt-ep-libnvdla-compiler-so-cannot-open-falling-back-to-cpu-wrong-copy-path.log":
        "cuda-runtime-missing",
}


@pytest.mark.parametrize("name,label", sorted(SPENT_PASTES.items()))
def test_spent_pastes_of_the_family(name, label):
    check_paste_top_is_label(os.path.join(ROOT, "heldout", "acceptance24", "pastes"), name, label, {})


@pytest.mark.parametrize("name,label", sorted(SPENT_LOGS.items()))
def test_spent_logs_of_the_family(name, label):
    check_dev_log(os.path.join(ROOT, "heldout", "acceptance24", "logs"), name, label, {})


def _top(text):
    m = top_match(text)
    return (m.id, m.signature) if m else None


# -- Jetson-only libraries ------------------------------------------------------------------------------------

#: meta-tegra#1281's and jetson-inference#1653's / balena-jetson-orin#519's lines
_NVDLA_IMPORT = "ImportError: libnvdla_compiler.so: cannot open shared object file: No such file or directory"
_LD_CUDLA = ('"/usr/bin/ld: warning: libcudla.so.1, needed by /usr/lib/gcc/aarch64-linux-gnu/7/../../../aarch64-linux-gnu/'
             'libnvinfer.so, not found (try using -rpath or -rpath-link)"')
_LD_NVDLA = ("/usr/bin/ld: warning: libnvdla_compiler.so, needed by /usr/lib/aarch64-linux-gnu/libnvinfer.so, not found "
             "(try using -rpath or -rpath-link)")


@pytest.mark.parametrize("line", [_NVDLA_IMPORT, _LD_CUDLA, _LD_NVDLA])
def test_jetson_only_libraries_route_to_cuda_runtime_missing(line):
    m = top_match(line)
    assert m is not None and m.id == "cuda-runtime-missing"


def test_a_jetson_library_said_not_found():
    # jetson-inference#1920's title: the library named as not found, without the loader's line
    title = "# Unable to run examples on Jetson AGX Orin due to `libnvdla_compiler.so` not found"
    assert _top(title) == ("cuda-runtime-missing", "jetson-library-said-not-found")
    # another library said not found is not this reading
    m = top_match(title.replace("libnvdla_compiler.so", "libgstreamer-1.0.so"))
    assert m is None or m.signature != "jetson-library-said-not-found"


def test_the_linker_warning_is_decided_by_the_library():
    # the same warning for cuDNN routes by the library table to cudnn-missing, not to the generic CUDA runtime
    m = top_match(_LD_NVDLA.replace("libnvdla_compiler.so,", "libcudnn.so.8,"))
    assert m is not None and m.id == "cudnn-missing"
    # a library no [[library]] row names (the C runtime's OpenMP) is no GPU library missing: silent
    assert top_match(_LD_NVDLA.replace("libnvdla_compiler.so,", "libgomp.so.1,")) is None


def test_the_library_table_row_names_only_the_jetson_libraries():
    from envcheck.engine.vendors import library_cause
    from envcheck.matrix import load_matrix

    matrix = load_matrix()
    for lib in ("libnvdla_compiler.so", "libnvdla_runtime.so", "libcudla.so.1", "libnvmedia.so", "libnvmedia_tensor.so"):
        assert library_cause(matrix, lib) == "cuda-runtime-missing", lib
    assert library_cause(matrix, "libnvdsbufferpool.so.1.0.0") != "cuda-runtime-missing"


# -- ONNX Runtime without a Jetson CUDA build -----------------------------------------------------------------

_OLD_WORDING = ("ValueError: Specified provider 'CUDAExecutionProvider' is unavailable. Available providers: "
                "'CPUExecutionProvider'")


def test_ort_old_wording_with_only_cpu_providers():
    assert _top(_OLD_WORDING) == ("framework-cpu-only", "ort-cuda-provider-unavailable-old-wording")
    m = top_match(_OLD_WORDING)
    assert "Jetson Zoo" in m.fixes[0] and "onnxruntime-gpu" in m.fixes[0]
    # a list that holds the CUDA provider is not the CPU build's
    cuda_listed = _OLD_WORDING.replace("'CPUExecutionProvider'", "'CUDAExecutionProvider, CPUExecutionProvider'")
    assert (top_match(cuda_listed) or _Nothing).signature != "ort-cuda-provider-unavailable-old-wording"


class _Nothing:
    signature = None
    id = None


@pytest.mark.parametrize("line", [
    "We don't have prebuilt packages for jetson. See https://github.com/microsoft/onnxruntime/blob/master/dockerfiles/"
    "Dockerfile.jetson and https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#samples.",
    "Microsoft doesn't provide prebuilt binaries for Jetson with CUDA, so you'll have to build ONNX Runtime from source.",
])
def test_no_prebuilt_build_for_jetson_said(line):
    assert _top(line) == ("framework-cpu-only", "no-prebuilt-build-for-jetson-said")


@pytest.mark.parametrize("line", [
    # a pointer to the Jetson build (microsoft/onnxruntime#21232's answer): nothing is missing
    "Yes, please follow installation guide to download and install pre-built onnxruntime-gpu for Jetpack users at "
    "Jetson Zoo.",
    # the Jetson Zoo's wheel named (mit-han-lab/temporal-shift-module#183)
    "If any body is getting problem with installing onnxruntime on Jetson devices, Nvidia has uploaded whl file in its "
    "Jetson_Zoo",
])
def test_a_jetson_build_pointed_to_stays_silent(line):
    assert top_match(line) is None


_FORM = ("### ONNX Runtime Installation\n\nReleased Package\n\n### ONNX Runtime Version or Commit ID\n\n1.20.1\n\n"
         "### Architecture\n\nARM64\n\n### Execution Provider\n\nCUDA\n")


def _paste_top(text):
    from envcheck.explain.document import explain_text_document

    doc = explain_text_document(text)
    ms = doc.get("matches") or []
    return ms[0]["id"] if ms else None


def test_ort_released_package_with_a_gpu_provider_on_a_jetson():
    on_orin = "I have a Jetson Orin Nano, I have a simple onnx model (matmul).\n\n" + _FORM
    assert _paste_top(on_orin) == "framework-cpu-only"
    tegra = ("### OS Version\n\nLinux server 5.15.148-tegra #1 SMP PREEMPT Tue Jan 7 17:14:38 PST 2025 aarch64 aarch64 "
             "aarch64 GNU/Linux\n\n" + _FORM)
    assert _paste_top(tegra) == "framework-cpu-only"


def test_ort_released_package_elsewhere_or_built_names_nothing_of_jetson():
    # no Jetson in the text: the released GPU package has CUDA on x86-64 (nothing said of its build here)
    assert _paste_top(_FORM) != "framework-cpu-only"
    # the CPU provider wanted on a Jetson: no GPU build was asked for
    assert _paste_top("Jetson Orin Nano\n\n" + _FORM.replace("\n\nCUDA\n", "\n\nDefault CPU\n")) != "framework-cpu-only"
    # the Jetson Zoo's wheel named as the origin (microsoft/onnxruntime#22809's sentence): the form's "Released
    # Package" is NVIDIA's Jetson build there
    zoo = ("I install the onnxruntime-gpu 1.19.0 by downloading it from Jetson zoo btw.\n\nJetson Orin Nano\n\n"
           + _FORM)
    assert _paste_top(zoo) != "framework-cpu-only"
    # built on the board from source: not Microsoft's package
    built = "Jetson Orin Nano\n\n" + _FORM.replace("Released Package", "Built from Source")
    assert _paste_top(built) != "framework-cpu-only"


# -- NVIDIA's wheels tied to one JetPack's Python ---------------------------------------------------------------

def test_the_wheel_python_rows_are_sourced():
    from envcheck.matrix import load_matrix

    rows = load_matrix().rows("jetson", "wheel_python")
    assert {(r["jetpack"], r["python"]) for r in rows} == {("4", "3.6"), ("5", "3.8"), ("6", "3.10")}
    for r in rows:
        assert r.get("source", "").startswith("https://forums.developer.nvidia.com/") and r.get("derived")


def test_jetson_prose_reader_on_real_lines():
    from envcheck.paste.readers.jetson_prose import line_facts

    def got(s):
        return {f.field: str(f.value).split(" | ")[0] for f in line_facts(s, s.lower())}

    assert got("- JetPack : 4.4")["seen:jetpack-named"] == "jetpack|4.4"
    assert got("@dusty-nv Hi, I need Python 3.8 in Jetpack4.6.1 l4t-pytorch docker.") == {
        "seen:jetson-named": "@dusty-nv Hi, I need Python 3.8 in Jetpack4.6.1 l4t-pytorch docker.",
        "seen:jetpack-named": "jetpack|4.6.1",
        "seen:python-named-3.8": "@dusty-nv Hi, I need Python 3.8 in Jetpack4.6.1 l4t-pytorch docker."}
    assert got("$ sudo docker run --rm --runtime nvidia -it nvcr.io/nvidia/l4t-pytorch:r32.6.1-pth1.9-py3")[
        "seen:jetpack-named"] == "l4t|32.6.1"
    assert got("JETSON_JETPACK=4.6")["seen:jetpack-named"] == "jetpack|4.6"
    assert "seen:jetson-named" in got("Linux server 5.15.148-tegra #1 SMP PREEMPT Tue Jan 7 17:14:38 PST 2025 aarch64")
    # a JetPack's CUDA is no JetPack release; a wheel's cp tag is not a Python named
    assert "seen:jetpack-named" not in got("JetPack for CUDA 11.4.1")
    assert not any(k.startswith("seen:python-named") for k in got("torch-1.10.0-cp36-cp36m-linux_aarch64.whl"))


def test_a_newer_python_on_jetpack_4_is_python_unsupported():
    m = top_match("Unfortunately, the JetPack v4.6 was still using Python3.6; hence, I manually installed `Python3.8` "
                  "to try.")
    assert m is None or m.id != "python-unsupported"  # a log line alone: the prose rules are the paste's
    text = ("# JetPack 4.6 - Python 3.8 - TensorRT works or not?\n\n"
            "Unfortunately, the JetPack v4.6 was still using Python3.6; hence, I manually installed `Python3.8` to try.\n")
    assert _paste_top(text) == "python-unsupported"
    # the L4T release names the JetPack (R32 is JetPack 4 in jetson.toml)
    l4t = ("$ sudo docker run --rm --runtime nvidia -it nvcr.io/nvidia/l4t-pytorch:r32.6.1-pth1.9-py3\n"
           "I need Python 3.8 for this project.\n")
    assert _paste_top(l4t) == "python-unsupported"


@pytest.mark.parametrize("text", [
    # the JetPack's own Python: the wheels fit
    "Environment: Xavier NX, JetPack 4.6, Python 3.6.9, torch 1.10.0\n",
    "Jetson AGX Orin, JetPack 5.1.1, Python 3.8, torch-2.0.0+nv23.05-cp38-cp38-linux_aarch64.whl installed fine\n",
    # an older Python than the JetPack's is not what this reads
    "JetPack 6.0 on an Orin; the old Python 3.6 scripts were ported\n",
    # no JetPack named: nothing to compare
    "I need Python 3.8 for this project.\n",
])
def test_the_jetpacks_own_python_stays_silent(text):
    assert _paste_top(text) != "python-unsupported"


# -- the controls and the section ---------------------------------------------------------------------------------

def test_controls_stay_silent():
    for name, (label, _url) in PASTE_ROWS.items():
        if label == "none":
            check_paste_top_is_label(DEV_PASTES, name, "none", {})


def test_section_literals_and_cover():
    assert check_section_literals(SECTION, SIGNATURES, NEW_ANCHORS, (DEV_LOGS, DEV_PASTES)) == SIGNATURES
    from envcheck.explain.kb import load_kb
    from helpers import COVER_BOUND

    # no anchor of this block's own (check_section_literals: NEW_ANCHORS), and the whole cover within its bound
    assert len(load_kb().cover) <= COVER_BOUND
