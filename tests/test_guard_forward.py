"""envcheck.guard on torch wraps each guarded layer's ``forward`` on the instance (no forward pre-hook): what that
mechanism must keep. Each test here fails on a wrapper that is wrong in one way: one that is not removed exactly, one
that a copy shares with the original (a closure over the original layer), one torch's tools cannot get through, one
that changes what the user's hooks see or the exceptions a forward raises. No timing is asserted (the cost is
measured by benchmarks/guard_overhead.py)."""

import copy
import functools
import io
import pickle

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
import envcheck.guard as guard  # noqa: E402


def guarded_layers(model):
    """Paths of the layers of ``model`` whose instance carries a ``forward`` (the guard's or another)."""
    return [name for name, m in model.named_modules() if "forward" in vars(m)]


def net():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Conv2d(4, 2, 1)).eval()


X = torch.randn(2, 3, 8, 8)
EMPTY = torch.randn(0, 3, 8, 8)


def checker_of(layer):
    return vars(layer)["forward"].__self__


def test_no_pre_hook_and_the_class_is_untouched():
    m = net()
    want = m(X)
    with guard.guarded(m) as h:
        assert h.layers == ["0", "1", "3"] and guarded_layers(m) == h.layers
        assert not any(mod._forward_pre_hooks or mod._forward_hooks for mod in m.modules())
        assert type(m[0]) is nn.Conv2d and type(m[1]) is nn.BatchNorm2d  # no subclass swap
        assert repr(m[0]) == "Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1))"
        assert torch.equal(m(X), want)
    assert guarded_layers(m) == [] and not any("_replicate_for_data_parallel" in vars(mod) for mod in m.modules())


def test_remove_puts_back_an_instance_forward_the_layer_already_had():
    """A forward set on the instance before the guard (accelerate's hooks do this: a functools.partial) is what the
    guard calls, and exactly what remove() puts back."""
    conv = nn.Conv2d(3, 4, 3)
    calls = []

    def outer(module, x):
        calls.append(x.shape)
        return type(module).forward(module, x)

    before = functools.partial(outer, conv)
    conv.forward = before
    h = guard.install(conv)
    assert vars(conv)["forward"] is not before
    conv(X)
    assert calls == [X.shape]
    with pytest.raises(guard.GuardError):
        conv(EMPTY)
    assert len(calls) == 1  # refused before the user's forward ran
    h.remove()
    assert vars(conv)["forward"] is before
    assert conv(EMPTY).shape == (0, 4, 6, 6) and len(calls) == 2


def test_a_wrapper_put_on_top_of_the_guard_stays_and_the_guard_stops_checking():
    conv = nn.Conv2d(3, 4, 3)
    h = guard.install(conv)
    inner = conv.forward
    seen = []

    def on_top(*args, **kwargs):
        seen.append(1)
        return inner(*args, **kwargs)

    conv.forward = on_top
    with pytest.raises(guard.GuardError):
        conv(EMPTY)
    h.remove()
    assert vars(conv)["forward"] is on_top  # not torn out from under the other wrapper
    assert conv(EMPTY).shape == (0, 4, 6, 6) and len(seen) == 2  # passes through, unchecked
    assert not h.active


def test_installing_twice_checks_once_and_a_nested_block_leaves_the_outer_guard():
    m = net()
    outer = guard.install(m)
    checker = checker_of(m[0])
    second = guard.install(m)
    assert second.layers == [] and checker_of(m[0]) is checker and checker.inner is None
    full_checks = []
    real = checker.full
    checker.full = lambda mod, x: (full_checks.append(x.shape), real(mod, x))[1]
    m(torch.randn(1, 3, 9, 9))
    assert full_checks == [(1, 3, 9, 9)]  # one check for one call, not one per install
    with guard.guarded(m) as inner:
        assert inner.layers == []
    with pytest.raises(guard.GuardError):
        m(EMPTY)  # the outer guard is still on
    sub = nn.Sequential(m, nn.Conv2d(2, 2, 1))
    third = guard.install(sub)
    assert third.layers == ["1"]  # only the layer no guard had
    outer.remove()
    assert guarded_layers(m) == []


def test_deepcopy_is_guarded_on_its_own_layers_with_its_own_weights():
    m = net()
    h = guard.install(m)
    m(X)
    twin = copy.deepcopy(m)
    for a, b in zip(m, twin):
        if "forward" in vars(a):
            assert checker_of(b).module is b and checker_of(b) is not checker_of(a)
    with torch.no_grad():
        twin[3].weight.zero_()
        twin[3].bias.fill_(1.0)
    assert torch.equal(twin(X), torch.ones(2, 2, 6, 6))  # the copy's weights, not the original's
    assert not torch.equal(m(X), twin(X))
    with pytest.raises(guard.GuardError) as ei:
        twin(EMPTY)
    assert ei.value.layer == "0"
    twin.train()
    with pytest.raises(guard.GuardError) as ei:  # the copy's training flag is the one read
        twin(torch.randn(1, 3, 3, 3))
    assert ei.value.check == "batch-stats" and ei.value.layer == "1"
    assert m(torch.randn(1, 3, 3, 3)).shape == (1, 2, 1, 1)  # the original is still in eval mode
    h.remove()
    assert guarded_layers(m) == [] and guarded_layers(twin) == ["0", "1", "3"]


def test_pickle_round_trip_is_guarded_on_its_own_layers():
    m = net()
    guard.install(m)
    back = pickle.loads(pickle.dumps(m))
    assert guarded_layers(back) == ["0", "1", "3"] and checker_of(back[0]).module is back[0]
    assert torch.equal(back(X), m(X))
    with pytest.raises(guard.GuardError):
        back(EMPTY)
    buf = io.BytesIO()
    torch.save(m, buf)
    buf.seek(0)
    loaded = torch.load(buf, weights_only=False)
    with torch.no_grad():
        loaded[0].weight.add_(1.0)
    assert not torch.equal(loaded(X), m(X))


def test_state_dict_is_unchanged():
    m = net()
    plain = m.state_dict()
    with guard.guarded(m):
        sd = m.state_dict()
        assert list(sd) == list(plain) and all(torch.equal(sd[k], plain[k]) for k in sd)
        m.load_state_dict(plain)  # strict: no extra or missing key


def test_a_data_parallel_replica_gets_a_checker_of_its_own():
    """DataParallel builds each replica as a shallow copy of the layer (``_replicate_for_data_parallel``: its
    ``__dict__`` copied, then its parameters set on it); a replica whose forward still ran the original layer would
    compute with the original's weights on another device. Built here the way torch.nn.parallel.replicate does."""
    conv = nn.Conv2d(3, 4, 3)
    h = guard.install(conv)
    replica = conv._replicate_for_data_parallel()
    replica.weight = torch.zeros_like(conv.weight)  # replicate() sets the device copies as plain attributes
    replica.bias = torch.ones_like(conv.bias)
    assert checker_of(replica).module is replica and checker_of(conv).module is conv
    assert torch.equal(replica(X), torch.ones(2, 4, 6, 6))
    with pytest.raises(guard.GuardError) as ei:
        replica(EMPTY)
    assert ei.value.layer == "Conv2d"
    assert checker_of(replica._replicate_for_data_parallel()).module is not replica  # replicas of replicas too
    h.remove()
    assert "forward" not in vars(conv) and "_replicate_for_data_parallel" not in vars(conv)
    plain = conv._replicate_for_data_parallel()
    assert "forward" not in vars(plain)


def test_user_hooks_run_in_their_order_and_the_guard_checks_what_forward_gets():
    conv = nn.Conv2d(3, 4, 3)
    order = []
    conv.register_forward_pre_hook(lambda mod, args: order.append("pre-before"))
    conv.register_forward_hook(lambda mod, args, out: order.append("post"))
    h = guard.install(conv)
    # a pre-hook registered after install that fixes channels-last input: the guard sees the input forward gets
    conv.register_forward_pre_hook(lambda mod, args: (order.append("pre-after"),
                                                      (args[0].permute(0, 3, 1, 2),))[1])
    assert conv(X.permute(0, 2, 3, 1)).shape == (2, 4, 6, 6)
    assert order == ["pre-before", "pre-after", "post"]
    order.clear()
    with pytest.raises(guard.GuardError) as ei:
        conv(EMPTY.permute(0, 2, 3, 1))
    assert ei.value.check == "empty" and order == ["pre-before", "pre-after"]  # refused inside forward
    h.remove()
    order.clear()
    conv(X.permute(0, 2, 3, 1))
    assert order == ["pre-before", "pre-after", "post"]


def test_errors_pass_through_unchanged():
    """The guard's own error reaches the caller as GuardError with its message; an error of the layer itself (the
    guard let the input through) is the very exception torch raises unguarded: same type, same message."""
    conv = nn.Conv2d(3, 4, 5)
    small = torch.randn(1, 3, 2, 2)
    with pytest.raises(RuntimeError) as plain:
        conv(small)
    h = guard.install(conv, skip=("kernel",))
    with pytest.raises(RuntimeError) as through:
        conv(small)
    assert type(through.value) is type(plain.value) and str(through.value) == str(plain.value)
    h.remove()
    guard.install(conv)
    with pytest.raises(guard.GuardError) as ei:
        conv(small)
    assert type(ei.value) is guard.GuardError and ei.value.check == "kernel"
    assert str(ei.value).startswith("layer 'Conv2d' (Conv2d): the padded input is smaller than the dilated kernel")


def test_keyword_arguments_reach_the_layer():
    conv = nn.Conv2d(3, 4, 3)
    want = conv(input=X)
    guard.install(conv)
    assert torch.equal(conv(input=X), want)
    with pytest.raises(guard.GuardError):
        conv(input=EMPTY)
    torch.manual_seed(1)
    lstm = nn.LSTM(5, 6, batch_first=True)
    seq, h0, c0 = torch.randn(2, 4, 5), torch.randn(1, 2, 6), torch.randn(1, 2, 6)
    out, (hn, cn) = lstm(seq, hx=(h0, c0))
    guard.install(lstm)
    g_out, (g_hn, g_cn) = lstm(seq, hx=(h0, c0))
    assert torch.equal(g_out, out) and torch.equal(g_hn, hn) and torch.equal(g_cn, cn)
    assert not torch.equal(lstm(seq)[0], out)  # hx was used, not dropped
    with pytest.raises(guard.GuardError) as ei:
        lstm(input=torch.randn(2, 4, 7), hx=(h0, c0))
    assert ei.value.check == "channels"


def test_torch_jit_trace_and_fx_keep_the_guarded_layers():
    m = net()
    guard.install(m)
    with pytest.raises(guard.GuardError):
        torch.jit.trace(m, EMPTY)
    traced = torch.jit.trace(m, X)
    assert torch.equal(traced(X), m(X))
    gm = torch.fx.symbolic_trace(m)
    assert [n.op for n in gm.graph.nodes].count("call_module") == 4  # no node added by the guard
    assert torch.equal(gm(X), m(X))
    with pytest.raises(guard.GuardError) as ei:
        gm(EMPTY)  # the graph calls the guarded layers themselves
    assert ei.value.layer == "0"


def test_torch_jit_script_compiles_the_layers_from_their_classes():
    """A scripted copy of a guarded model is compiled from the layers' classes (unguarded, and it saves); the model
    itself stays guarded. A guarded layer scripted by itself says to remove the guard."""
    m = net()
    h = guard.install(m)
    scripted = torch.jit.script(m)
    assert torch.equal(scripted(X), m(X))
    assert scripted(EMPTY).shape == (0, 2, 6, 6)
    buf = io.BytesIO()
    torch.jit.save(scripted, buf)
    buf.seek(0)
    assert torch.equal(torch.jit.load(buf)(X), m(X))
    assert guarded_layers(m) == h.layers
    with pytest.raises(guard.GuardError):
        m(EMPTY)
    conv = nn.Conv2d(3, 4, 3)
    ch = guard.install(conv)
    with pytest.raises(RuntimeError, match=r"handle\.remove\(\)"):
        torch.jit.script(conv)(X)
    ch.remove()
    assert torch.jit.script(conv)(X).shape == (2, 4, 6, 6)


def test_torch_compile_traces_the_check():
    """torch.compile (the eager backend: no compiler needed) runs the check while tracing, with no graph break, and
    a new input shape that the guard refuses raises GuardError."""
    dynamo = pytest.importorskip("torch._dynamo")
    m = net()
    guard.install(m)
    dynamo.reset()
    explained = dynamo.explain(m)(X)
    assert explained.graph_break_count == 0 and explained.graph_count == 1
    compiled = torch.compile(m, backend="eager")
    assert torch.equal(compiled(X), m(X))
    with pytest.raises(guard.GuardError) as ei:
        compiled(torch.randn(2, 5, 8, 8))
    assert ei.value.check == "channels" and ei.value.layer == "0"
    dynamo.reset()


def test_torch_export_runs_the_check_and_exports_the_layers():
    m = net()
    guard.install(m)
    with pytest.raises(guard.GuardError) as ei:
        torch.export.export(m, (EMPTY,))
    assert ei.value.check == "empty"
    exported = torch.export.export(m, (X,))
    assert torch.equal(exported.module()(X), m(X))
