"""envcheck.guard on torch (speed26): the one-parameter entries a convolution or norm layer gets (``forward_input``,
``forward_input_eps``: no ``*args`` / ``**kwargs`` to pack on each call) and the last key that passed, compared before
the set of keys. Each test fails on an entry that checks less than the general path: one chosen for a layer whose
forward takes other parameters, one that skips the check on a change of shape, dtype, training mode or eps after a
passing call, one that remembers a refused input, one that lets a tensor subclass through unchecked. No timing is
asserted (benchmarks/guard_overhead.py measures the cost)."""

import functools
import pickle

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
import envcheck.guard as guard  # noqa: E402

X = torch.randn(2, 3, 8, 8)
EMPTY = torch.randn(0, 3, 8, 8)


def entry_of(layer):
    return vars(layer)["forward"].__name__


def checker_of(layer):
    return vars(layer)["forward"].__self__


class XConv(nn.Conv2d):
    """A subclass whose forward names its parameter ``x``: ``layer(x=...)`` must keep working guarded."""

    def forward(self, x):
        return super().forward(x)


class ScaledConv(nn.Conv2d):
    """A subclass whose forward takes one more parameter."""

    def forward(self, input, scale=1.0):
        return super().forward(input) * scale


def refused(layer, x, check):
    with pytest.raises(guard.GuardError) as ei:
        layer(x)
    assert ei.value.check == check, str(ei.value)


def test_each_layer_gets_the_entry_its_forward_allows():
    layers = {"conv": nn.Conv2d(3, 4, 3), "tconv": nn.ConvTranspose2d(3, 4, 3), "bn": nn.BatchNorm2d(3),
              "inorm": nn.InstanceNorm2d(3, affine=True), "lazy": nn.LazyConv2d(4, 3), "lstm": nn.LSTM(3, 4),
              "xconv": XConv(3, 4, 3), "scaled": ScaledConv(3, 4, 3)}
    for layer in layers.values():
        guard.install(layer)
    got = {name: entry_of(layer) for name, layer in layers.items()}
    assert got == {"conv": "forward_input", "tconv": "forward", "bn": "forward_input_eps",
                   "inorm": "forward_input_eps", "lazy": "forward_input", "lstm": "forward", "xconv": "forward",
                   "scaled": "forward"}
    # (ConvTranspose2d's forward takes output_size=None: the general entry)
    before = nn.Conv2d(3, 4, 3)
    before.forward = functools.partial(type(before).forward, before)  # an instance forward: the general entry
    guard.install(before)
    assert entry_of(before) == "forward"


def test_a_subclass_with_its_own_signature_keeps_its_parameters():
    torch.manual_seed(0)
    xconv, scaled = XConv(3, 4, 3), ScaledConv(3, 4, 3)
    want_x, want_s = xconv(x=X), scaled(X, scale=2.0)
    guard.install(xconv)
    guard.install(scaled)
    assert torch.equal(xconv(x=X), want_x) and torch.equal(scaled(X, scale=2.0), want_s)
    with pytest.raises(guard.GuardError):
        xconv(x=EMPTY)
    with pytest.raises(guard.GuardError):
        scaled(EMPTY, scale=2.0)


def test_calls_torch_refuses_are_refused_guarded_too_and_input_by_name_is_checked():
    conv = nn.Conv2d(3, 4, 3)
    for bad in ((X, X), ()):
        with pytest.raises(TypeError):
            conv(*bad)
    with pytest.raises(TypeError):
        conv(inp=X)
    guard.install(conv)
    assert entry_of(conv) == "forward_input"
    for bad in ((X, X), ()):
        with pytest.raises(TypeError):
            conv(*bad)
    with pytest.raises(TypeError):
        conv(inp=X)
    assert conv(input=X).shape == (2, 4, 6, 6)
    with pytest.raises(guard.GuardError):
        conv(input=EMPTY)


def test_every_change_of_key_after_a_passing_call_is_checked_again():
    conv = nn.Conv2d(3, 4, 3)
    guard.install(conv)
    for bad, check in ((EMPTY, "empty"), (X.int(), "dtype"), (torch.randn(2, 5, 8, 8), "channels"),
                       (torch.randn(2, 3, 2, 2), "kernel"), (torch.randn(3, 8), "rank")):
        assert conv(X).shape == (2, 4, 6, 6)  # the last key that passed is X's
        refused(conv, bad, check)
        refused(conv, bad, check)  # a refused input is never remembered as passed
    assert conv(X.double().float()).shape == (2, 4, 6, 6)

    bn = nn.BatchNorm2d(4).eval()
    guard.install(bn)
    one = torch.randn(1, 4, 1, 1)
    assert bn(one).shape == (1, 4, 1, 1)  # eval mode: the running statistics, no batch statistics needed
    bn.train()
    refused(bn, one, "batch-stats")  # the same input, training mode changed
    bn.eval()
    assert bn(one).shape == (1, 4, 1, 1)
    bn.eps = 0.0
    refused(bn, one, "eps")  # the same input, eps changed
    bn.eps = 1e-5
    assert bn(one).shape == (1, 4, 1, 1)

    lstm = nn.LSTM(5, 6)
    guard.install(lstm)
    seq = torch.randn(4, 2, 5)
    assert lstm(seq)[0].shape == (4, 2, 6)
    refused(lstm, torch.randn(4, 2, 7), "channels")
    assert lstm(seq)[0].shape == (4, 2, 6)
    refused(lstm, torch.randn(0, 2, 5), "empty")


def test_the_full_check_runs_once_per_key_whatever_the_order():
    conv = nn.Conv2d(3, 4, 3)
    guard.install(conv)
    checker = checker_of(conv)
    seen = []
    real = checker.full
    checker.full = lambda mod, x: (seen.append(tuple(x.shape)), real(mod, x))[1]
    y = torch.randn(1, 3, 9, 9)
    for x in (X, X, y, X, y, y, X):
        conv(x)
    assert seen == [(2, 3, 8, 8), (1, 3, 9, 9)]
    conv.eval()  # no check of a convolution reads the training mode: not part of its key
    conv(X)
    conv.train()
    conv(y)
    assert seen == [(2, 3, 8, 8), (1, 3, 9, 9)]
    bn = nn.BatchNorm2d(3)
    guard.install(bn)
    checker = checker_of(bn)
    seen.clear()
    real_bn = checker.full
    checker.full = lambda mod, x: (seen.append((tuple(x.shape), mod.training, mod.eps)), real_bn(mod, x))[1]
    for train, eps in ((True, 1e-5), (False, 1e-5), (True, 1e-5), (True, 1e-3), (False, 1e-5)):
        bn.train(train)
        bn.eps = eps
        bn(X)
    assert seen == [((2, 3, 8, 8), True, 1e-5), ((2, 3, 8, 8), False, 1e-5), ((2, 3, 8, 8), True, 1e-3)]


def test_a_removed_guard_under_a_wrapper_passes_every_call_through():
    conv, bn = nn.Conv2d(3, 4, 3), nn.BatchNorm2d(3)
    for layer in (conv, bn):
        h = guard.install(layer)
        entry = layer.forward
        layer.forward = lambda *a, entry=entry, **k: entry(*a, **k)  # a wrapper on top of the guard's
        h.remove()
    assert conv(EMPTY).shape == (0, 4, 6, 6)  # a key never seen: not checked
    bn.eval()
    bn.eps = 0.0
    assert bn(torch.randn(2, 3, 4, 4)).shape == (2, 3, 4, 4)  # eps refused while guarded, not now


def test_a_tensor_subclass_is_checked_on_the_general_path():
    class Tagged(torch.Tensor):
        pass

    conv, bn = nn.Conv2d(3, 4, 3), nn.BatchNorm2d(3)
    guard.install(conv)
    guard.install(bn)
    assert conv(X.as_subclass(Tagged)).shape == (2, 4, 6, 6)
    refused(conv, EMPTY.as_subclass(Tagged), "empty")
    refused(bn, torch.randn(2, 5, 4, 4).as_subclass(Tagged), "channels")
    assert bn(X.as_subclass(Tagged)).shape == X.shape


def test_a_checker_pickled_before_speed26_loads_and_checks():
    """A whole model saved guarded by an envcheck before these entries (its checkers have no ``last``, ``exact`` or
    ``entry``) loads with the class's defaults and still checks every call."""
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)).eval()
    guard.install(m)
    m(X)
    for layer in m:
        for attr in ("last", "exact", "entry"):
            del vars(checker_of(layer))[attr]
    back = pickle.loads(pickle.dumps(m))
    assert back(X).shape == (2, 4, 6, 6)
    with pytest.raises(guard.GuardError):
        back(EMPTY)
    assert back(X).shape == (2, 4, 6, 6)
