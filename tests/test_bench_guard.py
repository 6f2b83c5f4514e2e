"""benchmarks/guard_overhead.py's side-by-side method (``--versus``, speed26) and run_all.py's reading of it: both
guards and a plain copy in one process, each guard on its own copy and taken off after, and the figures the script
prints are the ones run_all.py reports. Nothing here times anything against a bar (no timing assertions)."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import os

import pytest

torch = pytest.importorskip("torch")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _script(name):
    spec = importlib.util.spec_from_file_location(f"{name}_under_test", os.path.join(ROOT, "benchmarks", f"{name}.py"))
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_versus_runs_both_guards_and_run_all_reads_its_lines():
    bench = _script("guard_overhead")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert bench.main(["--versus", ROOT, "--pairs", "12", "--resnet-runs", "0"]) == 0
    text = out.getvalue()
    for model in ("small CNN", "LSTM"):
        for what in ("this guard", "versus guard", "this minus versus"):
            assert any(line.startswith(model) and what in line for line in text.splitlines()), (model, what, text)
    run_all = _script("run_all")
    run_all.child = lambda argv, env=None, cwd=ROOT: text  # the script's own output, as run_all reads a child's
    rows = []
    run_all.guard_versus_part(argparse.Namespace(before=ROOT, rounds=1), rows)
    labels = [label for label, *_ in rows]
    assert labels == ["guard, small CNN, interleaved triples: this checkout",
                      "guard, small CNN, interleaved triples: --before",
                      "guard, small CNN, interleaved triples: this minus --before"]
    assert all(fig.endswith(")") and "%" in fig for _, fig, _, _ in rows)


def test_versus_leaves_no_guard_on_the_models_copies():
    bench = _script("guard_overhead")
    bench.guard = importlib.import_module("envcheck.guard")
    model, shape = bench.torch_models(torch)["small CNN (3 conv + 3 BN, 8x3x32x32)"]
    model = model.eval()
    other = bench.load_other_guard(ROOT)
    assert other.__name__ == "envcheck_guard_torch_versus" and other._Checker is not importlib.import_module(
        "envcheck.guard._torch")._Checker  # a module of its own: a layer it guards is not "already guarded" here
    with torch.no_grad():
        plain, med, quarters = bench.versus(torch, model, torch.randn(*shape), 6, other, lambda: None)
    assert plain > 0 and set(med) == set(quarters) == {"this", "other", "this-other"}
    assert not any("forward" in vars(m) for m in model.modules())


def test_the_own_cost_goes_through_each_layers_entry():
    bench = _script("guard_overhead")
    bench.guard = importlib.import_module("envcheck.guard")
    model, shape = bench.torch_models(torch)["small CNN (3 conv + 3 BN, 8x3x32x32)"]
    with torch.no_grad():
        calls, own, dispatch, mech = bench.direct_cost(torch, model.eval(), torch.randn(*shape), repeat=1, number=5)
    assert (calls, mech, dispatch) == (6, "wrapper", 0.0) and own >= 0.0
    assert not any("forward" in vars(m) for m in model.modules())
