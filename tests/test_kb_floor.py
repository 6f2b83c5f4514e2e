"""A signature's ``floor`` (compat_matrix/errors.toml): "gpu-generation" says its wording is a kernel library's own floor
for a GPU generation (FlashAttention 2's Ampere, Triton's capability 7.0, unsloth's 7.0), which no framework build
lifts, so explain offers no build that has the GPU's architecture. The rule lives in the knowledge base, not in a list
of signature names in envcheck/explain/machine.py: these tests take the attribute out of a copy of the knowledge base
and see the behaviour follow it."""

from __future__ import annotations

import copy
import io
from typing import Any, Dict, Iterator

import pytest

import envcheck.explain.kb as kbm
from envcheck.explain import explain_stream
from envcheck.matrix import load_matrix

# FlashAttention 2's own check (Dao-AILab/flash-attention#762) after TensorFlow's device line of a T4 (capability 7.5:
# torch builds with sm_75 exist, so only the floor keeps the "a build that includes 7.5" advice out)
_T4_FLASH = (
    "2023-10-01 10:00:00.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1639] Created device "
    "/job:localhost/replica:0/task:0/device:GPU:0 with 14626 MB memory:  -> device: 0, name: Tesla T4, pci bus id: "
    "0000:00:04.0, compute capability: 7.5\n"
    "torch 2.1.0+cu118\n"
    "RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n")


def _signatures(data: Dict[str, Any]) -> Iterator[Dict[str, Any]]:
    yield from data.get("signature", [])
    for c in data.get("cause", []):
        yield from c.get("signature", [])


def _explain(text: str, kb: Any, monkeypatch) -> Any:
    monkeypatch.setattr(kbm, "load_kb", lambda matrix=None: kb)
    return explain_stream(io.BytesIO(text.encode()), matrix=load_matrix())


def test_the_floor_is_an_attribute_of_the_three_signatures():
    data = load_matrix().table("errors")
    floors = {s["name"] for s in _signatures(data) if s.get("floor") == "gpu-generation"}
    assert floors == {"flash-attention-needs-ampere", "triton-gpu-too-old", "unsloth-gpu-too-old"}
    kb = kbm.compile_kb(data)
    assert {s.name for s in kb.signatures if s.floor == "gpu-generation"} == floors
    assert all(s.floor == "" for s in kb.signatures if s.name not in floors)


def test_the_attribute_drives_the_advice(monkeypatch):
    data = load_matrix().table("errors")
    with_floor = _explain(_T4_FLASH, kbm.compile_kb(data), monkeypatch)
    top = with_floor.matches[0]
    assert (top.id, top.signature, top.floor) == ("gpu-arch-unsupported", "flash-attention-needs-ampere",
                                                  "gpu-generation")
    assert top.fixes[0].startswith("FlashAttention 2 has kernels only for Ampere")  # the wording's own fix first
    assert not any("includes compute capability 7.5" in f for f in top.fixes)
    # the same knowledge base without the attribute: the machine's build advice comes back (a signature without it is
    # an architecture a build can add)
    bare = copy.deepcopy(data)
    for s in _signatures(bare):
        s.pop("floor", None)
    without = _explain(_T4_FLASH, kbm.compile_kb(bare), monkeypatch)
    top = without.matches[0]
    assert (top.id, top.signature, top.floor) == ("gpu-arch-unsupported", "flash-attention-needs-ampere", "")
    assert any("includes compute capability 7.5" in f for f in top.fixes), top.fixes


@pytest.mark.parametrize("value", ["generation", "yes", ""])
def test_an_unknown_floor_is_refused(value):
    data = copy.deepcopy(load_matrix().table("errors"))
    sig = next(s for s in _signatures(data) if s["name"] == "flash-attention-needs-ampere")
    sig["floor"] = value
    assert any("floor must be one of" in p for p in kbm.validate_kb(data, compile_check=False))
