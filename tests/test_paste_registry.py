"""Issue 20's promise for the paste readers, checked: "readers by content, one per form; adding a form touches one
new module and its tests". Every module of envcheck/paste/readers is a registered reader (READERS) or a named helper;
every registered reader has ``NAME``, ``detect`` and ``read`` (tests/test_paste_forms20b.py checks the partials they
return) and is named by a test file; and each reader that no other test named (12 of the 59 before this file) reads a real
sample of its form here
(the samples are tests/data files, cited in that folder's README, or the cited texts of the tests imported below).
Function complexity (<= 20 in paste/, parse/, explain/ and the rest of envcheck) is tests/test_code_rules.py's
``test_every_function_stays_simple``."""

from __future__ import annotations

import importlib
import os
import re
import sys

import pytest

from envcheck.paste.readers import READERS
from envcheck.paste.readers.base import view

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(HERE, "data")
READERS_DIR = os.path.join(ROOT, "envcheck", "paste", "readers")
sys.path.insert(0, HERE)

#: modules of envcheck/paste/readers that are no reader of their own, each with what it is
HELPERS = {
    "base": "Fact, Partial, Line and the readers' shared text helpers",
    "build_kill": "a Killed line beside a compile step of a build: a compiler's RAM, not the GPU's (evidence; sections, whole "
                  "text)",
    "ollama_amd": "a thread about Ollama leaving an AMD GPU unused: the GPU's gfx target / model, the Ollama release, the "
                  "platform, the thread's date (evidence; sections, whole text)",
    "cublas_mem": "cuBLAS failing to initialise and a sentence blaming GPU memory for it (evidence; observe)",
    "py_bits": "a 32-bit Python shown or said, pip finding no build of a framework (evidence; observe)",
    "tf_gpu": "a sentence saying a TensorFlow release does not work on the GPU (evidence; observe)",
    "cuda_used": "the CUDA a build / image / environment is made with, a GPU said too new for it (evidence; observe)",
    "cuda_unreached": "a line saying the framework did not reach CUDA (autocast's warning, 'not compiled with CUDA'; evidence, observe)",
    "gpu_unused": "a sentence saying the GPU goes unused (or a GPU run is slow) and an answer advising PyTorch with CUDA "
                  "(evidence; observe)",
    "fields": "key: value fields shared by several report families (collect_env, sglang_env, tf_template ...)",
    "jetson_prose": "a Jetson's JetPack / L4T release, the Pythons a text names, NVIDIA's Jetson builds named (evidence; "
                    "observe)",
    "jetson_mem": "TensorRT's allocation failures, memory said to run short, a crash and a way to use less memory: a "
                  "Jetson's shared RAM running out (evidence; observe)",
    "jetson_mounts": "CUDA / cuDNN / TensorRT libraries shown empty (ldconfig, file too short, ls -l) or said lacking in an "
                     "image, a container named (evidence; observe)",
    "jetson_image": "a Jetson container image's L4T release from its tag, the host's release, a failure line (evidence; "
                    "observe)",
    "kv_keys": "the key table of key_value (which key, in which language, names which fact)",
    "linux_kernel": "the Linux kernel release and an Intel GPU a line names, for the kernel-floor rule (observe, collect_env)",
    "observe": "facts a text shows outside any report (sections.partials asks it on every line)",
    "prose_cause": "what a report's sentences say about a CPU-only build, an old driver, an untargeted GPU (observe)",
    "prose_facts": "versions and GPUs a sentence states about the reporter's machine (observe, log_facts)",
    "prose_join": "joins a sentence wrapped over lines before the prose readers read it (sections.partials)",
    "prose_pins": "the CUDA / cuDNN each framework needs, said in a sentence or pip's conflict lines (observe)",
    "prose_lib": "a CUDA / cuDNN library named as the error without the loader's line (a title ending in 'ImportError: "
                 "libcudart.so.10.0', 'it uses libcudnn.so.8'), called by observe",
    "prose_cudnn": "what a thread's sentences say of the machine's cuDNN against the build's: compiled with one, run "
                   "with another; too old; not installed or configured (observe)",
    "prose_vendor": "what a thread's sentences say of a non-NVIDIA machine's cause: an AMD GPU said unsupported, an "
                    "x86_64 Python on Apple silicon, a CUDA-only package (observe)",
    "resolution": "the sentence of a thread's resolution, what fixed it (observe; engine.resolution judges it)",
    "vendor_fields": "a non-NVIDIA machine's fields, shared by collect_env and macos",
}


def _module(reader) -> str:
    return reader.__name__.rsplit(".", 1)[-1]


def test_every_reader_module_is_registered_or_a_named_helper():
    modules = {f[:-3] for f in os.listdir(READERS_DIR) if f.endswith(".py") and f != "__init__.py"}
    registered = {_module(r) for r in READERS}
    assert modules - registered == set(HELPERS), sorted((modules - registered) ^ set(HELPERS))
    assert not registered & set(HELPERS)
    for name in HELPERS:  # a helper that reads a form on its own would be an unregistered reader
        mod = importlib.import_module(f"envcheck.paste.readers.{name}")
        assert not (callable(getattr(mod, "detect", None)) and callable(getattr(mod, "read", None))), name


def test_every_registered_reader_has_name_detect_and_read():
    assert len({_module(r) for r in READERS}) == len(READERS)  # one module, one place in the order
    for r in READERS:
        assert isinstance(r.NAME, str) and r.NAME and callable(r.detect) and callable(r.read), _module(r)


def _tests_text() -> str:
    out = []
    for f in sorted(os.listdir(HERE)):
        if f.startswith("test_") and f.endswith(".py"):
            with open(os.path.join(HERE, f), encoding="utf-8") as fh:
                out.append(fh.read())
    return "\n".join(out)


def test_every_reader_is_named_by_a_test_file():
    """A reader is named by its module (``readers.smi_q``, ``smi_q.read``) or its quoted NAME (``p.reader ==
    "nvidia-smi -q"``) in some test file (this one's SAMPLES below name the readers no other test named)."""
    text = _tests_text()
    unnamed = []
    for r in READERS:
        word = re.compile(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(_module(r)))
        if not word.search(text) and f'"{r.NAME}"' not in text and f"'{r.NAME}'" not in text:
            unnamed.append(_module(r))
    assert unnamed == []


# -- the readers no other test named: each reads a real sample of its form ---------------------------------------------
def _file(*parts: str) -> str:
    with open(os.path.join(DATA, *parts), encoding="utf-8") as fh:
        return fh.read()


def _lightning() -> str:
    from test_paste_pastes20n import PL_2022  # requirements/collect_env_details.py's 2022 layout (cited there)

    return PL_2022


def _tf_build_info() -> str:
    from test_paste_pastes20n import TF_BUILD_INFO_PP  # conda-forge/tensorflow-feedstock#157 (cited there)

    return TF_BUILD_INFO_PP


def _rocm_check() -> str:
    from test_acceptance11_after import _ROCM_CHECK  # invoke-ai/InvokeAI#3967 (cited there)

    return _ROCM_CHECK


def _lines_from(text: str, first: str) -> list:
    lines = text.splitlines()
    return lines[next(i for i, ln in enumerate(lines) if first in ln):]


#: module -> (the real text, the line its form starts with, a (field, value) the reader reads from it)
SAMPLES = {
    "lightning_env": (_lightning, "* CUDA:", ("torch.version", "1.12.0+cu113")),
    "torch_build": (lambda: _file("logs", "logs20d", "bevfusion-283-rtx3090-torch-cu101-no-kernel-image.log"),
                    "torch==1.8.1+cu101", ("torch.version", "1.8.1+cu101")),
    "vendor_tools": (lambda: _file("logs", "vlogs24", "llamacpp-sycl-a770-ubuntu-no-kernel-named-bin-bcast-sycl-20338.log"),
                     "[level_zero:gpu]", ("vgpu", (0, "Intel(R) Arc(TM) A770 Graphics", "intel", None, "sycl-ls"))),
    "vendor_smi": (lambda: _file("captures-lead31", "clinfo-macos-apple-m1-hashcat-2976.txt"), "Number of platforms",
                   None),
    "rocm_check_script": (_rocm_check, "Everything fine!", None),
    "xformers_info": (lambda: _file("logs", "logs20f", "healthy-xformers-678-info-all-available-3090.log"),
                      "pytorch.version:", ("torch.version", "1.13.1+cu117")),
    "conda_info": (lambda: _file("pastes", "pastes20d", "torch-41227-conda-cudatoolkit-10.2-1080ti-not-compiled-conda-info.txt"),
                   "active environment", None),
    "torch_config": (lambda: _file("logs", "logs20e", "detectron2-570-rtx2080ti-d2-cuda-compiler-8.0.log"),
                     "PyTorch built with:", ("torch.cuda", "10.1")),
    "sglang_env": (lambda: _file("logs", "logs20j", "sglang-8373-sgl-kernel-undefined-c10-setdevice.log"), "Python: 3.10",
                   ("torch.version", "2.9.0.dev20250722+cu128")),
    "smi_error": (lambda: _file("nvidia-smi", "error-no-devices.txt"), "No devices were found", ("smi_failed", True)),
    "driver_files": (lambda: _file("captures20k", "cuda-version-txt-8.0.61-conda-prompt.txt"), "CUDA Version 8.0.61",
                     ("format", "cuda version.txt")),
    "tf_build_info": (_tf_build_info, "OrderedDict([('cpu_compiler'", ("tf.build.cuda_version", "11.2")),
}


@pytest.mark.parametrize("module", sorted(SAMPLES))
def test_the_reader_reads_a_real_sample_of_its_form(module):
    reader = importlib.import_module(f"envcheck.paste.readers.{module}")
    assert reader in READERS
    load, first, fact = SAMPLES[module]
    lines = _lines_from(load(), first)
    k = reader.detect(view(lines, 0))
    assert 0 < k <= len(lines), module
    facts = reader.read(lines[:k]).facts
    assert facts, module
    if fact is not None:
        assert fact in [(f.field, f.value) for f in facts], [(f.field, f.value) for f in facts]
