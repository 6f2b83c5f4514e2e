"""envcheck.guard with real torch layers on the CPU (contract §6)."""

import itertools
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_import_does_not_import_torch():
    code = ("import sys, envcheck.guard as g\n"
            "assert hasattr(g, 'install') and issubclass(g.GuardError, ValueError)\n"
            "print('torch' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT), timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


torch = pytest.importorskip("torch")
nn = torch.nn
import envcheck.guard as guard  # noqa: E402


def hooks_left(model):
    """The layers of ``model`` that carry a guard's ``forward`` (an instance attribute), and no pre-hook anywhere."""
    assert not any(m._forward_pre_hooks for m in model.modules())
    return sum("forward" in vars(m) for m in model.modules())


def raises(model, x, check, layer, *value_parts, **kw):
    with pytest.raises(guard.GuardError) as ei:
        model(x, **kw) if not isinstance(x, dict) else model(**x)
    err = ei.value
    assert isinstance(err, ValueError)
    assert err.check == check, str(err)
    assert err.layer == layer
    msg = str(err)
    assert f"layer '{layer}'" in msg and "Fix: " in msg and err.fix in msg
    for part in value_parts:
        assert part in msg, msg
    return err


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(Block(), nn.Conv2d(8, 8, 3, padding=1))
        self.rnn = nn.LSTM(8, 16, batch_first=True)

    def forward(self, x):
        y = self.encoder(x)
        seq = y.flatten(2).transpose(1, 2)
        return self.rnn(seq)[0]


def test_install_names_nested_layers_and_remove_takes_every_hook_off():
    net = Net()
    h = guard.install(net)
    assert h.layers == ["encoder.0.conv", "encoder.0.bn", "encoder.1", "rnn"]
    assert hooks_left(net) == 4 and h.active
    h.remove()
    assert hooks_left(net) == 0 and not h.active
    h.remove()  # idempotent
    # after remove(), an empty batch reaches torch again (the CPU kernels accept it)
    assert net.encoder(torch.randn(0, 3, 8, 8)).shape == (0, 8, 6, 6)


def test_valid_input_gives_the_same_output_as_unguarded():
    torch.manual_seed(0)
    net = Net().eval()
    x = torch.randn(2, 3, 10, 10)
    want = net(x)
    with guard.guarded(net) as h:
        assert hooks_left(net) == len(h.layers) == 4
        got = net(x)
    assert torch.equal(got, want)
    assert hooks_left(net) == 0


def test_empty_batch_names_the_nested_layer():
    net = Net()
    guard.install(net)
    err = raises(net, torch.randn(0, 3, 8, 8), "empty", "encoder.0.conv", "(0, 3, 8, 8)", "batch size (N) is 0")
    assert err.layer_type == "Conv2d"


def test_zero_sized_spatial_dimension_is_caught():
    # pytorch/pytorch#31425: Conv2d(32, 32, 2, padding=1) on a (2, 32, 0, 5) input
    conv = nn.Conv2d(32, 32, 2, bias=False, padding=1)
    guard.install(conv)
    raises(conv, torch.randn(2, 32, 0, 5), "empty", "Conv2d", "spatial size 0 is 0")


def test_spatial_input_smaller_than_kernel():
    net = Net()
    guard.install(net)
    err = raises(net, torch.randn(2, 3, 2, 2), "kernel", "encoder.0.conv", "(2, 2)", "dilated kernel (3, 3)")
    assert "padding" in err.fix


def test_dilation_and_padding_are_taken_into_account():
    conv = nn.Conv2d(1, 1, 3, dilation=3)  # dilated kernel 7
    guard.install(conv)
    raises(conv, torch.randn(1, 1, 6, 7), "kernel", "Conv2d", "dilated kernel (7, 7)")
    assert conv(torch.randn(1, 1, 7, 7)).shape == (1, 1, 1, 1)
    padded = nn.Conv1d(1, 1, 5, padding=2)
    guard.install(padded)
    assert padded(torch.randn(1, 1, 1)).shape == (1, 1, 1)  # 1 + 4 >= 5
    same = nn.Conv2d(1, 1, 5, padding="same", dilation=2)
    guard.install(same)
    assert same(torch.randn(1, 1, 1, 1)).shape == (1, 1, 1, 1)
    valid = nn.Conv2d(1, 1, 5, padding="valid")
    guard.install(valid)
    raises(valid, torch.randn(1, 1, 4, 9), "kernel", "Conv2d", "(4, 9)")


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_guard_agrees_with_torch_on_which_sizes_work(mode):
    """Over a grid of sizes and layer settings, the guard refuses exactly the inputs torch refuses."""
    checked = 0
    for size, k, pad, dil, stride in itertools.product(range(1, 7), (1, 2, 3, 5), (0, 1, 2, "same", "valid"),
                                                       (1, 2), (1, 2)):
        if isinstance(pad, str) and (stride != 1 or mode != "zeros" and pad == "same"):
            continue
        conv = nn.Conv1d(2, 2, k, padding=pad, dilation=dil, stride=stride, padding_mode=mode)
        x = torch.randn(1, 2, size)
        try:
            conv(x)
            torch_ok = True
        except RuntimeError:
            torch_ok = False
        h = guard.install(conv)
        try:
            conv(x)
            guard_ok = True
        except guard.GuardError as exc:
            guard_ok = False
            assert exc.check == "kernel"
        except RuntimeError:
            guard_ok = True  # torch's own error after the guard let it through
        h.remove()
        assert guard_ok == torch_ok, (size, k, pad, dil, stride, mode)
        checked += 1
    assert checked > 250


def test_transposed_convolution_with_too_much_padding():
    deconv = nn.ConvTranspose2d(4, 2, 3, padding=2)  # output = (1-1) - 4 + 2 + 1 = -1
    guard.install(deconv)
    raises(deconv, torch.randn(1, 4, 1, 1), "kernel", "ConvTranspose2d", "output (-1, -1)")
    assert deconv(torch.randn(1, 4, 3, 3)).shape == (1, 2, 1, 1)


def test_non_floating_input():
    net = Net()
    guard.install(net)
    err = raises(net, torch.zeros(2, 3, 8, 8, dtype=torch.uint8), "dtype", "encoder.0.conv", "torch.uint8")
    assert "x.float()" in err.fix
    lstm = nn.LSTM(4, 4)
    guard.install(lstm)
    raises(lstm, torch.zeros(3, 2, 4, dtype=torch.int64), "dtype", "LSTM", "torch.int64")


def test_channel_mismatch_with_groups():
    conv = nn.Conv2d(4, 8, 3, groups=2)
    guard.install(conv)
    assert conv(torch.randn(1, 4, 5, 5)).shape == (1, 8, 3, 3)
    raises(conv, torch.randn(1, 2, 5, 5), "channels", "Conv2d", "2 channels", "expects 4 input channels")
    # channels-last images
    img = nn.Conv2d(3, 8, 3)
    guard.install(img)
    err = raises(img, torch.randn(2, 32, 32, 3), "channels", "Conv2d", "32 channels")
    assert "permute" in err.fix


def test_rnn_input_size_and_layout():
    net = Net()
    guard.install(net)
    rnn = net.rnn
    raises(rnn, torch.randn(2, 5, 7), "channels", "rnn", "7 features", "input_size=8")
    raises(rnn, torch.randn(2, 0, 8), "empty", "rnn", "sequence length (L) is 0")
    raises(rnn, torch.randn(0, 5, 8), "empty", "rnn", "batch size (N) is 0")
    raises(rnn, torch.randn(2, 5, 8, 1), "rank", "rnn", "4-D")
    assert rnn(torch.randn(2, 5, 8))[0].shape == (2, 5, 16)
    gru = nn.GRU(3, 4)
    guard.install(gru)
    packed = nn.utils.rnn.pack_padded_sequence(torch.randn(5, 2, 6), [5, 3])
    raises(gru, packed, "channels", "GRU", "6 features")


def test_batch_norm_eps_checked_at_call_time():
    net = Net()
    guard.install(net)
    net(torch.randn(2, 3, 8, 8))
    net.encoder[0].bn.eps = 0.0
    err = raises(net, torch.randn(2, 3, 8, 8), "eps", "encoder.0.bn", "eps=0.0")
    assert "1e-05" in err.fix
    bad = nn.BatchNorm1d(4, eps=-1e-5)
    guard.install(bad)
    raises(bad, torch.randn(3, 4), "eps", "BatchNorm1d", "eps=-1e-05")


def test_batch_norm_rank_channels_and_single_value():
    bn = nn.BatchNorm2d(8)
    guard.install(bn)
    raises(bn, torch.randn(8, 6, 6), "rank", "BatchNorm2d", "3-D")
    raises(bn, torch.randn(2, 4, 6, 6), "channels", "BatchNorm2d", "4 channels")
    bn1 = nn.BatchNorm1d(5)
    guard.install(bn1)
    raises(bn1, torch.randn(1, 5), "batch-stats", "BatchNorm1d", "(1, 5)")
    bn1.eval()
    assert bn1(torch.randn(1, 5)).shape == (1, 5)  # fine in eval mode
    inst = nn.InstanceNorm2d(3)
    guard.install(inst)
    assert inst(torch.randn(3, 4, 4)).shape == (3, 4, 4)  # unbatched (C, H, W) is valid
    raises(inst, torch.randn(2, 3, 0, 4), "empty", "InstanceNorm2d")


def test_wrong_rank_for_convolution():
    net = Net()
    guard.install(net)
    err = raises(net, torch.randn(3, 8), "rank", "encoder.0.conv", "2-D input of shape (3, 8)")
    assert "unsqueeze" in err.fix
    conv = nn.Conv2d(3, 8, 3)
    guard.install(conv)
    assert conv(torch.randn(3, 8, 8)).shape == (8, 6, 6)  # an unbatched input is valid for a convolution


def test_numel_over_int32_without_allocating():
    # expand() gives a huge shape over one element: no memory is used, and the guard refuses
    # before torch would try to compute anything.
    conv = nn.Conv2d(3, 8, 3)
    guard.install(conv)
    x = torch.empty(1).expand(1, 3, 30000, 30000)  # 2.7e9 elements in one sample
    raises(conv, x, "numel", "Conv2d", "2700000000 input")
    # a big batch of small samples is fine for a convolution: torch splits the batch
    big_batch = torch.empty(1).expand(100000, 3, 100, 100)  # 3e9 elements in total
    checker = conv.forward.__self__  # call the check alone: the convolution itself would take minutes
    assert checker.check(conv, (big_batch,), {}) is None
    bn = nn.BatchNorm3d(32)
    guard.install(bn)
    # pytorch/pytorch#51776: (70, 32, 100, 100, 100) fails in cuDNN batch norm
    raises(bn, torch.empty(1).expand(70, 32, 100, 100, 100), "numel", "BatchNorm3d", "2240000000 elements")
    meta = torch.empty(70, 32, 100, 100, 100, device="meta")
    raises(bn, meta, "numel", "BatchNorm3d")
    assert big_batch.numel() > guard.INT32_MAX


def test_keyword_input_is_checked():
    conv = nn.Conv2d(3, 8, 3)
    guard.install(conv)
    raises(conv, {"input": torch.randn(0, 3, 8, 8)}, "empty", "Conv2d")


def test_skip_and_unknown_checks():
    conv = nn.Conv2d(3, 8, 3)
    guard.install(conv, skip=("empty",))
    assert conv(torch.randn(0, 3, 8, 8)).shape == (0, 8, 6, 6)
    with pytest.raises(ValueError, match="unknown guard check"):
        guard.install(conv, skip=("nope",))
    with pytest.raises(TypeError):
        guard.install(object())


def test_lazy_layers_are_checked_after_they_materialise():
    lazy = nn.LazyConv2d(8, 3)
    guard.install(lazy)
    assert lazy(torch.randn(1, 4, 5, 5)).shape == (1, 8, 3, 3)
    raises(lazy, torch.randn(1, 3, 5, 5), "channels", "LazyConv2d", "3 channels")


def test_a_guarded_model_deep_copies_and_saves_whole():
    """EMA / teacher models (`copy.deepcopy`, `torch.optim.swa_utils.AveragedModel`) and a whole-model `torch.save`
    of a guarded model worked without the guard and must work with it; the copy is guarded too, on its own layers."""
    import copy
    import io

    net = Net()
    h = guard.install(net)
    good = torch.randn(2, 3, 8, 8)
    net(good)  # a key is remembered before the copy
    twin = copy.deepcopy(net)
    assert torch.equal(twin(good), net(good))
    raises(twin, torch.randn(0, 3, 8, 8), "empty", "encoder.0.conv")
    assert hooks_left(twin) == 4
    ema = torch.optim.swa_utils.AveragedModel(net)
    raises(ema, torch.randn(2, 4, 8, 8), "channels", "encoder.0.conv")
    buf = io.BytesIO()
    torch.save(net, buf)
    buf.seek(0)
    loaded = torch.load(buf, weights_only=False)
    assert torch.equal(loaded(good), net(good))
    raises(loaded, torch.randn(0, 3, 8, 8), "empty", "encoder.0.conv")
    h.remove()  # the original's handle takes the original's hooks off, not the copies'
    assert hooks_left(net) == 0 and hooks_left(twin) == 4
