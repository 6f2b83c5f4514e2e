"""Triton's "Triton Error [CUDA]: device kernel image is invalid" (CUDA_ERROR_INVALID_IMAGE) reads as driver-too-old
where the driver is not shown or is below the floor of the CUDA in play (Triton 2.1+ compiles with the CUDA 12.x ptxas
it bundles: triton-lang/triton#2971, #3001). Where the text shows a driver new enough for that CUDA (the matrix's
minor-version floor), a driver too old is not what the text shows: no driver-too-old match, and a top-level
``not-checked:`` note says what is known (an image the driver could not load: a ptxas of a newer CUDA, a Triton cache
of another CUDA or GPU) and what is not (engine.rules.invalid_image_driver_note)."""

from __future__ import annotations

import os

from envcheck.explain.document import explain_text_document

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_TRITON_2971 = os.path.join(ROOT, "tests", "data", "logs", "logs20s", "triton-2971-nightly-load-binary-driver-470.log")
# the nvidia-smi header a lorax#237 commenter pasted (https://github.com/predibase/lorax/issues/237): driver 535
_SMI_535 = ("| NVIDIA-SMI 535.54.03              Driver Version: 535.54.03    CUDA Version: 12.2     |")


def _text(smi_line=None):
    with open(_TRITON_2971, encoding="utf-8") as fh:
        text = fh.read()
    if smi_line is not None:  # composed for the test: triton#2971's traceback beside lorax#237's driver 535 header
        text = text.replace("NVIDIA-SMI 470.182.03   Driver Version: 470.182.03   CUDA Version: 11.4", smi_line)
        assert smi_line in text
    return text


def test_beside_driver_470_it_is_still_driver_too_old():
    doc = explain_text_document(_text())
    assert [m["id"] for m in doc["matches"]][:1] == ["driver-too-old"]
    assert doc["matches"][0]["signature"] == "triton-cuda-invalid-kernel-image"
    assert not any("device kernel image is invalid" in n for n in doc.get("notes") or [])


def test_beside_driver_535_driver_too_old_is_not_said_and_the_note_says_what_is_known():
    doc = explain_text_document(_text(_SMI_535))
    assert all(m["id"] != "driver-too-old" for m in doc["matches"]), doc["matches"]
    notes = [n for n in doc.get("notes") or [] if "device kernel image is invalid" in n]
    assert len(notes) == 1, doc.get("notes")
    note = notes[0]
    assert note.startswith("not-checked: ") and "driver 535.54.03" in note and "525.60.13" in note
    assert "ptxas" in note and "cache" in note and "Not known" in note


def test_a_torch_build_of_a_newer_cuda_raises_the_floor():
    # driver 535 (CUDA 12.2) beside a torch built with CUDA 13.0 (the line of tests/data/real/h100-580.159.04-torch2.11-
    # cu130's collect_env): the CUDA in play is 13.x, whose floor (580) the driver is below: the driver reading stands
    text = _text(_SMI_535) + "PyTorch version: 2.11.0+cu130\n"
    doc = explain_text_document(text)
    assert [m["id"] for m in doc["matches"]][:1] == ["driver-too-old"], doc["matches"]


# -- the CUDA major of the bundled ptxas is data (errors.toml ``ptxas_cuda_major`` with its ``ptxas_source``), not a
# constant or a signature name in engine code: the behaviour follows the attribute of a copy of the knowledge base

def _signatures(data):
    yield from data.get("signature", [])
    for c in data.get("cause", []):
        yield from c.get("signature", [])


def _doc_with(data, text, monkeypatch):
    import envcheck.explain.kb as kbm

    kb = kbm.compile_kb(data)
    monkeypatch.setattr(kbm, "load_kb", lambda matrix=None: kb)
    return explain_text_document(text)


def _errors():
    import copy

    from envcheck.matrix import load_matrix

    return copy.deepcopy(load_matrix().table("errors"))


def test_the_ptxas_major_is_an_attribute_of_the_triton_signature_only():
    import envcheck.explain.kb as kbm

    data = _errors()
    having = {s["name"]: (s["ptxas_cuda_major"], s["ptxas_source"]) for s in _signatures(data) if "ptxas_cuda_major" in s}
    assert having == {"triton-cuda-invalid-kernel-image": (12, "https://github.com/pytorch/pytorch/issues/119054")}
    kb = kbm.compile_kb(data)
    assert {s.name: s.ptxas_cuda_major for s in kb.signatures if s.ptxas_cuda_major} == \
        {"triton-cuda-invalid-kernel-image": 12}


def test_without_the_attribute_the_driver_reading_stands(monkeypatch):
    data = _errors()
    for s in _signatures(data):
        s.pop("ptxas_cuda_major", None)
        s.pop("ptxas_source", None)
    doc = _doc_with(data, _text(_SMI_535), monkeypatch)
    assert [m["id"] for m in doc["matches"]][:1] == ["driver-too-old"], doc["matches"]
    assert not any("device kernel image is invalid" in n for n in doc.get("notes") or [])


def test_the_attribute_value_is_the_cuda_whose_floor_is_read(monkeypatch):
    # a ptxas of CUDA 13 (floor 580 in cuda.toml's minor_compat) beside driver 535: below it, the driver reading stands
    data = _errors()
    sig = next(s for s in _signatures(data) if s["name"] == "triton-cuda-invalid-kernel-image")
    sig["ptxas_cuda_major"] = 13
    doc = _doc_with(data, _text(_SMI_535), monkeypatch)
    assert [m["id"] for m in doc["matches"]][:1] == ["driver-too-old"], doc["matches"]


def test_the_attribute_needs_its_source_and_an_integer():
    import envcheck.explain.kb as kbm

    data = _errors()
    sig = next(s for s in _signatures(data) if s["name"] == "triton-cuda-invalid-kernel-image")
    assert not [p for p in kbm.validate_kb(data, compile_check=False) if "ptxas" in p]
    sig.pop("ptxas_source")
    assert any("needs ptxas_source" in p for p in kbm.validate_kb(data, compile_check=False))
    sig["ptxas_source"], sig["ptxas_cuda_major"] = "https://github.com/pytorch/pytorch/issues/119054", "12"
    assert any("must be a CUDA major" in p for p in kbm.validate_kb(data, compile_check=False))


def test_no_signature_name_or_ptxas_constant_in_the_engine_rule():
    import inspect

    from envcheck.engine import rules

    src = inspect.getsource(rules)
    assert "triton-cuda-invalid-kernel-image" not in src and "_TRITON_PTXAS_MAJOR" not in src
