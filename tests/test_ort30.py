"""ort30: an onnxruntime-gpu release's CUDA / cuDNN needs judged against the machine's majors
(engine.onnxruntime.majors_verdict / majors_finding, engine.claims.ort_majors_finding), ONNX Runtime's GPU package in a
sentence (paste/readers/prose_facts.py), and the real threads of tests/data/pastes/ort30 (README there)."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from envcheck.cli import cli
from envcheck.engine.onnxruntime import majors_finding, majors_verdict, ort_needs
from envcheck.matrix import load_matrix
from envcheck.paste.readers.prose_facts import line_facts
from helpers import readme_rows

HERE = os.path.dirname(os.path.abspath(__file__))
SET = os.path.join(HERE, "data", "pastes", "ort30")
# ONNX Runtime's own Windows line (microsoft/onnxruntime#22491, #20049): error 126 names no library
E126 = ('2024-10-26 20:47:00.5657450 [E:onnxruntime:Default, provider_bridge_ort.cc:1992 onnxruntime::TryGetProviderInfo_CUDA] '
        'D:\\a\\_work\\1\\s\\onnxruntime\\core\\session\\provider_bridge_ort.cc:1637 onnxruntime::ProviderLibrary::Get '
        '[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" when trying to load '
        '"C:\\Work\\SD-ComfyUI\\python_embeded\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll"')
NVCC = ["nvcc: NVIDIA (R) Cuda compiler driver", "Cuda compilation tools, release {v}, V{v}.66"]


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def _explain(text: str):
    r = CliRunner().invoke(cli, ["explain", "-", "--no-detect", "--json"], input=text)
    return json.loads(r.output)


def _pasted(ort: str, cuda: str, cudnn_sentence: str = "") -> str:
    lines = [E126, f"onnxruntime-gpu        {ort}"] + ([cudnn_sentence] if cudnn_sentence else [])
    return "\n".join(lines + [x.format(v=cuda) for x in NVCC]) + "\n"


# -- the rule -----------------------------------------------------------------------------------------------------

def test_cudnn_major_differs_from_every_build_of_the_machines_cuda(matrix):
    # 1.19.x: PyPI's CUDA 12 build needs cuDNN 9; the cuda-11 feed's build is CUDA 11.8 (not the machine's CUDA 12)
    cause, which = majors_verdict(ort_needs(matrix, "1.19.2"), 12, 8)
    assert cause == "cudnn-missing"
    assert [(n.feed, n.cudnn_major) for n in which] == [("pypi", 9)]


def test_cuda_major_of_no_build(matrix):
    # 1.16.x: only CUDA 11.8 builds (the requirements table); a CUDA 12 machine has no runtime they load
    cause, which = majors_verdict(ort_needs(matrix, "1.16.3"), 12, None)
    assert cause == "cuda-runtime-missing" and which


def test_a_fitting_build_or_nothing_known_says_nothing(matrix):
    assert majors_verdict(ort_needs(matrix, "1.16.3"), 11, 8) == (None, [])  # the table's row
    assert majors_verdict(ort_needs(matrix, "1.19.2"), None, None) == (None, [])  # unknown is unknown
    # 1.18.0 on CUDA 12 with cuDNN unknown: the cuda-12 feed's build fits the CUDA; nothing can be said
    assert majors_verdict(ort_needs(matrix, "1.18.0"), 12, None) == (None, [])
    assert majors_verdict([], 12, 9) == (None, [])  # a release the matrix does not know


def test_fix_names_the_missing_major_and_releases_of_the_machines_majors(matrix):
    cause, msg, fix = majors_finding(matrix, "1.17.1", "12.2", "9.1")
    assert cause == "cudnn-missing"
    assert "cuDNN 8.x" in msg and "cuDNN 9.1" in msg
    # cuDNN 8 for CUDA 12, or a release built for CUDA 12 and cuDNN 9: PyPI's from 1.19, the cuda-12 feed's 1.18.1
    assert "Install cuDNN 8.x for CUDA 12" in fix
    assert "1.19" in fix and "(PyPI)" in fix and "1.18.1 (the onnxruntime-cuda-12 feed)" in fix


# -- explain on a pasted report -----------------------------------------------------------------------------------

def test_error_126_with_ort_cudnn9_release_and_cudnn8_machine_is_cudnn_missing():
    doc = _explain(_pasted("1.19.2", "12.1", "I have cuDNN 8.9.7"))
    top = doc["matches"][0]
    assert top["id"] == "cudnn-missing"
    assert "cuDNN 9.x" in top["fixes"][0] and "1.17 to 1.18.0 (the onnxruntime-cuda-12 feed)" in top["fixes"][0]


def test_error_126_with_a_matching_release_stays_as_it_was():
    # 1.16.3 is a CUDA 11.8 / cuDNN 8 build; CUDA 11.8 and cuDNN 8.9.7 fit it: no majors finding
    doc = _explain(_pasted("1.16.3", "11.8", "I have cuDNN 8.9.7"))
    assert not any("does not load cuDNN" in f or "no build of that release" in f
                   for m in doc["matches"] for f in m["fixes"])


def test_working_provider_list_with_a_gpu_package_is_silent():
    text = "onnxruntime-gpu        1.16.3\n['CUDAExecutionProvider', 'CPUExecutionProvider']\n"
    assert _explain(text)["matches"] == []


# -- the sentence reader ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("s, want", [
    ("i am using cuda 11.8, onnxruntime-gpu 1.16.3 and python 3.10.0.", "1.16.3"),  # Deep-Live-Cam#948
    ("I have onnxruntime-gpu 1.18.0 and CUDA 12.1", "1.18.0"),
    ("try onnxruntime-gpu 1.18.0", None),  # advice, not the reporter's
    ("I tried onnxruntime-gpu 1.17.1 and onnxruntime-gpu 1.18.0", None),  # two of them
])
def test_gpu_package_in_a_sentence(s, want):
    got = {f.field: f.value for f in line_facts(s, s.lower())}
    assert got.get("ort.version") == want
    assert (got.get("ort.package") == "onnxruntime-gpu") == (want is not None)


def test_the_cpu_package_in_a_sentence_is_not_read():
    # "onnxruntime 1.18.1" (QwenAudio/SenseVoice#76) is said loosely of the GPU package as often as of the CPU one
    s = "I'm using onnxruntime 1.18.1"
    assert "ort.version" not in {f.field for f in line_facts(s, s.lower())}


# -- the real threads ---------------------------------------------------------------------------------------------

def _rows():
    return [r[:2] for r in readme_rows(SET)]


@pytest.mark.parametrize("name, label", [r for r in _rows() if r[1] == "none"])
def test_controls_stay_silent(name, label):
    with open(os.path.join(SET, name), encoding="utf-8") as fh:
        assert _explain(fh.read())["matches"] == []


@pytest.mark.parametrize("name", ["comfyui-instantid-151-zh-ort-gpu-1.18.0-cuda-12.1-cuda-path-set.txt",
                                  "sd-webui-reactor-483-colab-libcublaslt-so-11-missing.txt"])
def test_threads_read_right(name):
    want = dict(_rows())[name]
    with open(os.path.join(SET, name), encoding="utf-8") as fh:
        assert _explain(fh.read())["matches"][0]["id"] == want
