"""envcheck.guard on Keras 3 and tf.keras 2.x (tf_keras) models, against TensorFlow's own behaviour on the CPU.

For every case the guard must fire exactly where TensorFlow itself fails on the CPU, or where the
GPU path fails in cuDNN (the issue showing that failure is cited next to the case), and stay
silent on valid models. TensorFlow is installed by .ci/run; without it these tests skip.
"""

import functools
import itertools
import os
import pickle
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def test_import_and_install_import_only_the_models_framework():
    pytest.importorskip("tensorflow")
    code = ("import sys, envcheck.guard as g\n"
            "heavy = lambda: sorted(m for m in ('torch', 'tensorflow', 'keras', 'tf_keras') if m in sys.modules)\n"
            "print(heavy())\n"
            "import keras\n"
            "m = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(2, 3)])\n"
            "h = g.install(m)\n"
            "print(h.framework, h.layers, 'torch' in sys.modules)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="3"))
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.strip().splitlines()
    assert lines[0] == "[]"
    assert lines[-1].startswith("keras [") and lines[-1].endswith("False"), lines


tf = pytest.importorskip("tensorflow")
np = pytest.importorskip("numpy")
import envcheck.guard as guard  # noqa: E402

FLAVOURS = []
try:
    import keras as _k3

    if int(_k3.__version__.split(".")[0]) >= 3:
        FLAVOURS.append("keras3")
except ImportError:  # pragma: no cover - Keras 3 comes with TensorFlow >= 2.16
    pass
try:
    import tf_keras  # noqa: F401

    FLAVOURS.append("tf_keras")
except ImportError:
    pass
if not FLAVOURS:  # pragma: no cover
    pytest.skip("neither Keras 3 nor tf_keras is installed", allow_module_level=True)


@pytest.fixture(params=FLAVOURS)
def K(request):
    if request.param == "keras3":
        import keras
    else:
        import tf_keras as keras
    keras.utils.set_random_seed(0)
    return keras


def tf_outcome(layer, x, **kw):
    """What TensorFlow itself does with ``layer(x, **kw)`` on the CPU: ``"raises"``; ``"empty"`` (an
    output with a 0-sized dimension: cuDNN refuses those); ``"wrong"`` (the eager output's shape is
    not the one TensorFlow's own shape inference gives for that input: oneDNN's CPU convolution
    hands back its input when there is no output position); or ``"ok"``. Returns (outcome, output)."""
    try:
        out = layer(x, **kw)
    except guard.GuardError:
        raise
    except Exception:
        return "raises", None
    shape = tuple(np.shape(out[0] if isinstance(out, (list, tuple)) else out))
    if 0 in shape:
        return "empty", out
    try:
        spec = tf.TensorSpec(np.shape(x), tf.as_dtype(getattr(x, "dtype", "float32")))
        traced = tf.function(lambda t: layer(t, **kw)).get_concrete_function(spec).structured_outputs
    except guard.GuardError:
        raise
    except Exception:
        return "raises", None
    want = tuple((traced[0] if isinstance(traced, (list, tuple)) else traced).shape)
    if any(w is not None and w != s for w, s in zip(want, shape)):
        return "wrong", out
    return "ok", out


def guard_raises(fn, check, layer, *parts):
    with pytest.raises(guard.GuardError) as ei:
        fn()
    err = ei.value
    assert isinstance(err, ValueError)
    assert err.check == check, str(err)
    assert err.layer == layer, str(err)
    msg = str(err)
    assert f"layer '{layer}'" in msg and "Fix: " in msg and err.fix in msg
    for p in parts:
        assert p in msg, msg
    return err


def f32(*shape):
    return np.random.default_rng(0).standard_normal(shape).astype("float32")


def build(layer, shape):
    """Build ``layer`` for inputs like ``shape`` with the batch and spatial sizes left open."""
    layer.build((None,) * (len(shape) - 1) + (shape[-1],))
    return layer


# -- install / remove --------------------------------------------------------------------------

def small_net(K):
    L = K.layers
    inp = K.Input((16, 16, 3))
    x = L.Conv2D(4, 3, name="conv_a")(inp)
    x = L.BatchNormalization(name="bn_a")(x)
    x = L.MaxPooling2D(2, name="pool_a")(x)
    inner = K.Sequential([L.Conv2D(4, 3, name="conv_b"), L.GlobalAveragePooling2D()], name="head")
    x = inner(x)
    return K.Model(inp, L.Dense(2, name="out")(x), name="net")


def test_install_names_layers_by_path_and_remove_restores_the_instances(K):
    net = small_net(K)
    x = f32(2, 16, 16, 3)
    want = np.asarray(net(x))
    h = guard.install(net)
    assert h.framework == "keras" and h.active
    assert h.layers == ["conv_a", "bn_a", "pool_a", "head/conv_b"]
    conv_b = net.get_layer("head").layers[0]
    assert "call" in vars(conv_b)
    np.testing.assert_array_equal(np.asarray(net(x)), want)  # same output with the guard on
    guard_raises(lambda: net(f32(0, 16, 16, 3)), "empty", "conv_a", "batch size is 0", "(0, 16, 16, 3)")
    h.remove()
    assert not h.active and all("call" not in vars(net.get_layer(n)) for n in ("conv_a", "bn_a", "pool_a"))
    assert "call" not in vars(conv_b)
    h.remove()  # idempotent
    assert guard.install(net).layers == h.layers  # installable again after remove()


def test_installing_twice_does_not_wrap_twice(K):
    conv = build(K.layers.Conv2D(2, 3, name="c"), (None, 8, 8, 3))
    h1 = guard.install(conv)
    h2 = guard.install(conv)
    assert h1.layers == ["c"] and h2.layers == []
    h1.remove()
    assert "call" not in vars(conv)


def test_guard_error_survives_keras_reraise_and_pickles(K):
    conv = build(K.layers.Conv2D(2, 3, name="c"), (None, 8, 8, 3))
    guard.install(conv)
    err = guard_raises(lambda: conv(f32(0, 8, 8, 3)), "empty", "c")
    assert err.layer_type == "Conv2D"
    back = pickle.loads(pickle.dumps(err))
    assert isinstance(back, guard.GuardError) and str(back) == str(err) and back.check == "empty"


# -- the cases users hit: TensorFlow's behaviour on the CPU, then the guard --------------------

def test_empty_batch_reaching_convolutions(K):
    # GPU: tensorflow/tensorflow#14962 (a conv model crashes on a zero-size batch), #14657 (cuDNN
    # refuses a descriptor with a 0 dimension: cudnnSetTensorNdDescriptor -> CUDNN_STATUS_BAD_PARAM)
    L = K.layers
    for layer, shape in ((L.Conv1D(2, 3, name="c1"), (0, 9, 3)), (L.Conv2D(2, 3, name="c2"), (0, 9, 9, 3)),
                         (L.Conv3D(2, 3, name="c3"), (0, 5, 5, 5, 3)),
                         (L.Conv2DTranspose(2, 3, name="ct"), (0, 4, 4, 3)),
                         (L.SeparableConv2D(2, 3, name="sep"), (0, 9, 9, 3)),
                         (L.DepthwiseConv2D(3, name="dw"), (0, 9, 9, 3))):
        build(layer, shape)
        x = f32(*shape)
        outcome, _ = tf_outcome(layer, x)
        assert outcome in ("raises", "empty", "wrong")
        guard.install(layer)
        guard_raises(functools.partial(layer, x), "empty", layer.name, "batch size is 0")


def test_input_smaller_than_the_kernel(K):
    L = K.layers
    for layer, shape, need in ((L.Conv2D(2, 3, name="c"), (1, 2, 9, 3), "(3, 3)"),
                               (L.Conv1D(2, 3, dilation_rate=2, name="dil"), (1, 4, 3), "(5)"),
                               (L.SeparableConv2D(2, 3, name="sep"), (1, 2, 2, 3), "(3, 3)"),
                               (L.DepthwiseConv2D(5, name="dw"), (1, 4, 9, 3), "(5, 5)")):
        build(layer, shape)
        x = f32(*shape)
        outcome, _ = tf_outcome(layer, x)
        assert outcome in ("raises", "empty", "wrong"), layer.name
        guard.install(layer)
        err = guard_raises(functools.partial(layer, x), "kernel", layer.name, need)
        assert "padding='same'" in err.fix


def test_integer_and_bool_inputs_to_a_convolution(K):
    for dtype in ("int32", "uint8", "bool"):
        conv = build(K.layers.Conv2D(2, 3, name="c"), (None, 8, 8, 3))
        x = tf.zeros((1, 8, 8, 3), dtype)
        assert tf_outcome(conv, x)[0] == "raises"  # TensorFlow refuses it on every device
        guard.install(conv)
        err = guard_raises(functools.partial(conv, x), "dtype", "c", dtype)
        assert "tf.cast" in err.fix


def test_batch_norm_over_zero_channels(K):
    # GPU: tensorpack/tensorpack#713 (TensorFlow batch norm, feature_map_count 0 -> CUDNN_STATUS_BAD_PARAM)
    bn = build(K.layers.BatchNormalization(name="bn"), (None, 4, 4, 0))
    x = f32(2, 4, 4, 0)
    assert tf_outcome(bn, x, training=True)[0] in ("raises", "empty", "wrong")
    guard.install(bn)
    err = guard_raises(lambda: bn(x, training=True), "empty", "bn", "channel count is 0")
    assert "0 channels" in err.fix


@pytest.mark.parametrize("eps", [0.0, -1e-3])
def test_batch_norm_with_non_positive_epsilon(K, eps):
    # cuDNN refuses epsilon < CUDNN_BN_MIN_EPSILON (tensorflow/tensorflow#8090); on the CPU the output of
    # a zero-variance channel is then inf/NaN
    bn = build(K.layers.BatchNormalization(epsilon=eps, name="bn"), (None, 4, 4, 3)) if eps else None
    if bn is None:
        bn = build(K.layers.BatchNormalization(name="bn"), (None, 4, 4, 3))
        bn.epsilon = eps  # set after construction (tf.keras refuses epsilon=0 in some versions)
    x = np.ones((2, 4, 4, 3), "float32")
    outcome, out = tf_outcome(bn, x, training=True)
    assert outcome == "raises" or not np.isfinite(np.asarray(out)).all()
    guard.install(bn)
    guard_raises(lambda: bn(x, training=True), "eps", "bn", f"epsilon={eps!r}")


def test_pooling_input_smaller_than_the_window_and_empty_batch(K):
    pool = K.layers.MaxPooling2D(3, name="pool")
    x = f32(1, 2, 2, 3)
    assert tf_outcome(pool, x)[0] in ("raises", "empty", "wrong")
    guard.install(pool)
    guard_raises(lambda: pool(x), "kernel", "pool", "pool window (3, 3)")
    assert pool(f32(1, 3, 3, 3)).shape == (1, 1, 1, 3)
    avg = K.layers.AveragePooling1D(2, name="avg")
    guard.install(avg)
    guard_raises(lambda: avg(f32(0, 6, 3)), "empty", "avg", "batch size is 0")


def test_recurrent_layers_with_an_empty_batch_or_sequence(K):
    # GPU: cudnnSetRNNDataDescriptor refuses a batch or sequence of 0 (tensorflow/tensorflow#43103)
    for cls in (K.layers.LSTM, K.layers.GRU):
        rnn = cls(4, name="rnn")
        rnn(f32(2, 5, 3))
        for shape, what in (((0, 5, 3), "batch size is 0"), ((2, 0, 3), "sequence length is 0")):
            x = f32(*shape)
            h = None
            assert tf_outcome(rnn, x)[0] in ("raises", "empty", "wrong")
            h = guard.install(rnn)
            guard_raises(functools.partial(rnn, x), "empty", "rnn", what)
            h.remove()


def test_bidirectional_lstm_is_guarded_inside(K):
    L = K.layers
    model = K.Sequential([K.Input((None, 3)), L.Bidirectional(L.LSTM(4, name="fw"), name="bi")], name="s")
    h = guard.install(model)
    assert [p for p in h.layers if p.startswith("bi/")], h.layers
    with pytest.raises(guard.GuardError) as ei:
        model(f32(2, 0, 3))
    assert ei.value.layer.startswith("bi/") and ei.value.check == "empty"


def keras3_only(K):
    if K.__name__ != "keras":
        pytest.skip("tf.keras 2.x falls back to its own kernel for such masks (no cuDNN call)")


def test_fully_masked_sequence_on_the_cudnn_path(K):
    # GPU: tensorflow/tensorflow#43103: a fully masked row -> CUDNN_STATUS_BAD_PARAM (cudnnSetRNNDataDescriptor);
    # the CPU computes it without complaint
    keras3_only(K)
    lstm = K.layers.LSTM(4, name="lstm")
    x = f32(3, 5, 2)
    mask = np.array([[1, 1, 1, 0, 0], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]], bool)
    assert tf_outcome(lstm, x, mask=mask)[0] == "ok"
    h = guard.install(lstm)
    guard_raises(lambda: lstm(x, mask=mask), "mask", "lstm", "sample 1", "no unmasked step")
    # left padding: Keras 3 asserts right padding before its cuDNN kernel
    left = np.array([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 0, 0, 0]], bool)
    err = guard_raises(lambda: lstm(x, mask=left), "mask", "lstm", "not right-padded", "sample 0")
    assert "padding='post'" in err.fix
    assert lstm(x, mask=np.array([[1, 1, 0, 0, 0], [1, 0, 0, 0, 0], [1] * 5], bool)).shape == (3, 4)
    h.remove()
    # a layer that cannot use cuDNN (recurrent_dropout, or use_cudnn=False) is left alone
    plain = K.layers.LSTM(4, use_cudnn=False, name="plain")
    guard.install(plain)
    assert plain(x, mask=mask).shape == (3, 4)


def test_skip_leaves_a_check_out(K):
    conv = build(K.layers.Conv2D(2, 3, name="c"), (None, 8, 8, 3))
    guard.install(conv, skip=("empty",))
    assert tf_outcome(conv, f32(0, 8, 8, 3))[0] in ("raises", "empty", "wrong")  # TensorFlow's own result
    with pytest.raises(ValueError, match="unknown guard check"):
        guard.install(conv, skip=("nope",))
    with pytest.raises(TypeError):
        guard.install(object())


# -- the sweep: the guard refuses exactly what TensorFlow cannot compute ------------------------

def sweep(K, make, shapes):
    checked = refused = 0
    for settings, shape in shapes:
        layer = build(make(K, **settings), shape)  # built for open sizes: Keras' build-time check is not the point
        x = f32(*shape)
        outcome, _ = tf_outcome(layer, x)
        h = guard.install(layer)
        try:
            layer(x)
            guard_says = "ok"
        except guard.GuardError as exc:
            guard_says = "refused"
            assert exc.check in ("kernel", "empty"), str(exc)
        except Exception:
            guard_says = "ok"  # TensorFlow's own error, after the guard let it through
        h.remove()
        assert guard_says == ("ok" if outcome == "ok" else "refused"), (settings, shape, outcome)
        checked += 1
        refused += guard_says == "refused"
    return checked, refused


def test_sweep_conv1d_agrees_with_tensorflow(K):
    def make(K, k, s, d, pad):
        return K.layers.Conv1D(2, k, strides=s, dilation_rate=d, padding=pad)

    cases = [(dict(k=k, s=s, d=d, pad=pad), (1, n, 2))
             for n, k, s, d, pad in itertools.product(range(1, 7), (1, 2, 3, 5), (1, 2), (1, 2), ("valid", "same"))
             if not (s > 1 and d > 1)]  # Keras refuses strides > 1 with dilation > 1 itself
    checked, refused = sweep(K, make, cases)
    assert checked > 100 and refused > 20


def test_sweep_conv2d_agrees_with_tensorflow(K):
    def conv(K, k, s, pad):
        return K.layers.Conv2D(2, k, strides=s, padding=pad)

    checked, refused = sweep(K, conv, POOL_CASES)
    assert checked == len(POOL_CASES) and refused > 10


POOL_CASES = [(dict(k=k, s=s, pad=pad), (1, h, w, 2))
              for h, w, k, s, pad in itertools.product((0, 1, 2, 4), (1, 3), (1, 2, 3), (1, 2), ("valid", "same"))]

# TensorFlow's oneDNN CPU max-pooling kills the process (SIGFPE) on some of these inputs (e.g. a 1x1
# input and a 2x2 window), so TensorFlow's own answer is taken in a child process, with its reference
# (non-oneDNN) CPU kernels.
_POOL_CHILD = """
import json, sys
import numpy as np
import {module} as K
out = []
for k, s, pad, shape in json.loads(sys.argv[1]):
    layer = K.layers.MaxPooling2D(k, strides=s, padding=pad)
    try:
        y = np.asarray(layer(np.zeros(shape, "float32")))
        out.append("empty" if 0 in y.shape else "ok")
    except Exception:
        out.append("raises")
print(json.dumps(out))
"""


def test_sweep_pooling_agrees_with_tensorflow(K):
    import json

    cases = [[c["k"], c["s"], c["pad"], list(shape)] for c, shape in POOL_CASES]
    r = subprocess.run([sys.executable, "-c", _POOL_CHILD.format(module=K.__name__), json.dumps(cases)],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, TF_ENABLE_ONEDNN_OPTS="0", TF_CPP_MIN_LOG_LEVEL="3"))
    assert r.returncode == 0, r.stderr[-2000:]
    outcomes = json.loads(r.stdout.strip().splitlines()[-1])
    refused = 0
    for (settings, shape), outcome in zip(POOL_CASES, outcomes):
        pool = K.layers.MaxPooling2D(settings["k"], strides=settings["s"], padding=settings["pad"])
        guard.install(pool)
        try:
            pool(f32(*shape))  # only reached when the guard lets it through
            guard_says = "ok"
        except guard.GuardError as exc:
            assert exc.check in ("kernel", "empty")
            guard_says = "refused"
        assert guard_says == ("ok" if outcome == "ok" else "refused"), (settings, shape, outcome)
        refused += guard_says == "refused"
    assert refused > 10


def test_pooling_window_larger_than_the_input_is_refused_before_tensorflow_crashes(K):
    code = ("import numpy as np, envcheck.guard as g, {m} as K\n"
            "p = K.layers.MaxPooling2D(2, strides=1)\n"
            "if len(__import__('sys').argv) > 1: g.install(p)\n"
            "try:\n    y = p(np.zeros((1, 1, 1, 2), 'float32')); print('shape', tuple(y.shape))\n"
            "except g.GuardError as e:\n    print('guard', e.check)\n"
            "except Exception as e:\n    print('tf', type(e).__name__)\n").format(m=K.__name__)
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="3")
    plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    # TensorFlow alone: a crash (SIGFPE with oneDNN), an error, or an empty output; never a real result
    assert plain.returncode != 0 or "tf " in plain.stdout or "shape (1, 0, 0, 2)" in plain.stdout, plain.stdout
    guarded = subprocess.run([sys.executable, "-c", code, "guard"], capture_output=True, text=True, timeout=300,
                             env=env)
    assert guarded.returncode == 0 and guarded.stdout.strip() == "guard kernel", guarded.stdout + guarded.stderr[-500:]


# -- tracing: tf.function, model.fit ------------------------------------------------------------

def test_fit_on_valid_data_is_silent_and_lists_what_it_could_not_check(K):
    net = small_net(K)
    net.compile(optimizer="sgd", loss="mse")
    h = guard.install(net)
    hist = net.fit(f32(10, 16, 16, 3), np.zeros((10, 2), "float32"), batch_size=4, epochs=1, verbose=0)
    assert len(hist.history["loss"]) == 1
    # the batch size is unknown while fit traces its step: said, not guessed
    assert ("conv_a", "empty") in {(layer, check) for layer, check, _ in h.unchecked}
    net.predict(f32(3, 16, 16, 3), verbose=0)


def test_fit_refuses_a_statically_known_bad_shape_while_tracing(K):
    L = K.layers
    # built for any image size; fit on 5x5 images: 5 -> 3 -> 1, and c2's 3x3 kernel does not fit
    model = K.Sequential([K.Input((None, None, 3)), L.Conv2D(4, 3, name="c1"), L.MaxPooling2D(2, name="p"),
                          L.Conv2D(4, 3, name="c2"), L.GlobalAveragePooling2D()], name="s")
    model.compile(optimizer="sgd", loss="mse")
    guard.install(model)
    with pytest.raises(guard.GuardError) as ei:
        model.fit(f32(4, 5, 5, 3), np.zeros((4, 4), "float32"), epochs=1, verbose=0)
    assert ei.value.layer == "c2" and ei.value.check == "kernel"


def test_tf_function_with_static_shapes_is_checked_when_traced(K):
    conv = build(K.layers.Conv2D(2, 3, name="c"), (None, 8, 8, 3))
    guard.install(conv)

    @tf.function
    def step(x):
        return conv(x)

    assert step(f32(2, 8, 8, 3)).shape == (2, 6, 6, 2)
    with pytest.raises(guard.GuardError) as ei:
        step(tf.zeros((0, 8, 8, 3)))
    assert ei.value.check == "empty"
    # with an unknown batch size the traced function is left alone: nothing is added to the graph
    loose = tf.function(lambda x: conv(x), input_signature=[tf.TensorSpec((None, 8, 8, 3), tf.float32)])
    assert loose(f32(1, 8, 8, 3)).shape == (1, 6, 6, 2)
