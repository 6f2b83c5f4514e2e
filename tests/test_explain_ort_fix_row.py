"""framework-cpu-only's ONNX Runtime fix ("the onnxruntime package is its CPU build ... onnxruntime-gpu") shows only
where the text shows ONNX Runtime (its ``when = "onnxruntime"``): a fact of scope "fix" read off ONNX Runtime's own
lines (errors.toml), or a pasted package list's onnxruntime (explain/machine.py env_facts). Before, it was a fix of
every framework-cpu-only, a torch "not compiled with CUDA enabled" on a machine with no ONNX Runtime included."""

from __future__ import annotations

import json
import os

import pytest

import envcheck.explain.machine as machine
from envcheck.explain.document import explain_text_document

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ORT_ROW = "For ONNX Runtime (roop, facefusion, insightface, rembg)"


def _doc(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as fh:
        return explain_text_document(fh.read(), detect=False)


def _cpu_only(doc):
    ms = [m for m in doc["matches"] if m["id"] == "framework-cpu-only"]
    assert ms, [m["id"] for m in doc["matches"]]
    return ms[0]


@pytest.mark.parametrize("rel", [
    # a torch CPU build on Windows with an RTX GPU: nothing of ONNX Runtime in it
    "tests/data/pastes/pastes20d/sdxl-turbo-1-windows11-rtx-not-compiled-with-cuda-traceback.txt",
    # torch.onnx's exporter on a Jetson: ONNX, not ONNX Runtime
    "tests/data/logs/vlogs21r/jetson-orin-nano-torch-not-compiled-cuda-onnx-export-1848.log",
])
def test_no_onnx_runtime_row_where_the_text_shows_none(rel):
    m = _cpu_only(_doc(rel))
    assert not any(f.startswith(_ORT_ROW) for f in m["fixes"]), m["fixes"]


@pytest.mark.parametrize("rel", [
    "tests/data/logs/ort-cuda-provider-not-available-cpu-package.log",  # ORT's own "not in available provider names"
    "tests/data/pastes/pastes21c/facefusion-48-execution-providers-invalid-choice-cuda-only-cpu.txt",  # its choices
])
def test_the_row_where_the_text_shows_onnx_runtime(rel):
    doc = _doc(rel)
    m = _cpu_only(doc)
    assert any(f.startswith(_ORT_ROW) for f in m["fixes"]), m["fixes"]
    assert "onnxruntime" not in json.dumps(doc.get("facts", {})).lower()  # scope "fix": no reported fact


def test_a_pasted_package_lists_onnxruntime_is_a_fact_for_the_fixes(monkeypatch):
    # pytorch#121067's collect_env lists "[pip3] onnxruntime==1.19.2": the report's Environment says ONNX Runtime
    seen = []
    real = machine.env_facts
    monkeypatch.setattr(machine, "env_facts", lambda env: seen.append(real(env)) or seen[-1])
    with open(os.path.join(ROOT, "tests/data/pastes/pastes20f/pytorch-121067-collect-env-macos-14.5-x86-torch-2.2.2-"
                                 "no-cuda.txt"), encoding="utf-8") as fh:
        explain_text_document(fh.read())
    assert seen and seen[-1].get("onnxruntime") == "1.19.2"
