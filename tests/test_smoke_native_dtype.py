"""The compute capability where native float16 / bfloat16 arithmetic starts is matrix data (compat_matrix/cuda.toml
``[[native_dtype]]``, a source per row), not a constant in the smoke child: the runner hands the matrix's floors to the
child (``--native-floor DTYPE=X.Y``), which skips its fp16 / bf16 step below them with a note, and runs the step
ungated where the matrix has no floor for the dtype (unknown gates nothing).

Expected values, read from the sources (not from the code): torch 2.13.0's torch/cuda/__init__.py is_bf16_supported()
('if torch.cuda.get_device_properties(device).major >= 8: return True', emulation below it); the CUDA C Programming
Guide's native arithmetic throughput table as quoted on NVIDIA's forum ('16-bit floating-point add, multiply,
multiply-add': N/A for 5.0 / 5.2, listed from 5.3)."""

from __future__ import annotations

import inspect
from typing import Any, Dict, List

import pytest

from envcheck.engine.rules import native_dtype_floors
from envcheck.matrix import load_matrix
from envcheck.smoke import _child
from envcheck.smoke import runner


def test_the_rows_and_their_sources():
    rows = {r["dtype"]: r for r in load_matrix().rows("cuda", "native_dtype")}
    assert {k: r["min_compute_capability"] for k, r in rows.items()} == {"float16": "5.3", "bfloat16": "8.0"}
    assert rows["bfloat16"]["source"].startswith("pytorch/pytorch@")
    assert "is_bf16_supported" in rows["bfloat16"]["derived"]
    assert rows["float16"]["source"].startswith("https://")
    assert native_dtype_floors(load_matrix()) == {"float16": "5.3", "bfloat16": "8.0"}
    assert native_dtype_floors(None) == {}


def test_the_runner_hands_the_matrix_floors_to_the_child(monkeypatch):
    assert runner.native_floor_args() == (["--native-floor", "bfloat16=8.0", "--native-floor", "float16=5.3"], None)

    class NoRows:
        def rows(self, *a: Any) -> List[Dict[str, Any]]:
            return []

    import envcheck.matrix as matrix_pkg

    monkeypatch.setattr(matrix_pkg, "load_matrix", lambda *a, **k: NoRows())
    assert runner.native_floor_args() == ([], None)  # no row: unknown, nothing gated and nothing to say

    def broken(*a: Any, **k: Any) -> Any:
        from envcheck.errors import MatrixError

        raise MatrixError("cuda.toml: bad row")

    monkeypatch.setattr(matrix_pkg, "load_matrix", broken)
    args, note = runner.native_floor_args()
    assert args == [] and note is not None and "could not be read" in note and "bad row" in note


def test_the_child_reads_the_floors_from_its_arguments():
    argv = ["torch", "--device", "cuda", "--native-floor", "bfloat16=8.0", "--native-floor", "float16=5.3",
            "--native-floor", "int8=6.1", "--native-floor", "float16=x"]
    assert _child.native_floors(argv) == {"bfloat16": (8, 0), "float16": (5, 3)}
    assert _child.native_floors(["torch"]) == {}


def _gated(floors, cc, monkeypatch):
    notes: List[str] = []
    monkeypatch.setattr(_child, "info", lambda **kw: notes.append(kw.get("note", "")))
    steps = [("matmul", lambda st: "ok", False), ("fp16", lambda st: "ok", False), ("bf16", lambda st: "ok", False)]
    out = _child._gate_low_precision(steps, floors)
    st = {"dev": "cuda:0", "cc": cc}
    ran = {name: (fn.pre(st) if hasattr(fn, "pre") else True) for name, fn, _ in out}
    return ran, notes


def test_a_t4_runs_fp16_and_skips_bf16_with_the_matrix_floors(monkeypatch):
    ran, notes = _gated({"bfloat16": (8, 0), "float16": (5, 3)}, (7, 5), monkeypatch)
    assert ran == {"matmul": True, "fp16": True, "bf16": False}
    assert notes == ["bf16 not run: the GPU's compute capability 7.5 is below 8.0, where native bfloat16 arithmetic "
                     "starts"]


def test_a_maxwell_gpu_skips_fp16_below_5_3(monkeypatch):
    ran, _ = _gated({"bfloat16": (8, 0), "float16": (5, 3)}, (5, 2), monkeypatch)
    assert ran == {"matmul": True, "fp16": False, "bf16": False}


def test_without_a_floor_the_step_is_not_gated_by_the_gpu(monkeypatch):
    ran, notes = _gated({}, (7, 5), monkeypatch)
    assert ran == {"matmul": True, "fp16": True, "bf16": True} and notes == []


@pytest.mark.parametrize("literal", ["(8, 0)", "(5, 3)"])
def test_no_floor_is_written_in_the_child(literal):
    assert literal not in inspect.getsource(_child)
