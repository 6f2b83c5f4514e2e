"""The Keras side of :mod:`envcheck.guard` (Keras 3, and tf.keras 2.x / tf_keras / Keras 2).

``install`` wraps the ``call`` of each guarded layer *on the instance* (the class is untouched;
``remove()`` restores the instance as it was). Keras runs its own input-spec checks (rank,
channel count) before ``call``, so the guard adds what Keras lets through to cuDNN:

``dtype``   an integer or bool input to a convolution (TensorFlow refuses it on every device;
            the guard says which layer and to cast)
``empty``   a 0-sized dimension reaching a convolution, pooling, batch normalization, LSTM or GRU:
            an empty last batch, an empty sequence, a 0-sized image, a batch norm over 0 channels.
            cuDNN's tensor descriptors refuse a dimension <= 0 (``cudnnSetTensorNdDescriptor``,
            quoted in tensorflow/tensorflow#14657); on the GPU: tensorflow/tensorflow#14962 (a
            conv model with a zero-size batch), #14657 (fused batch norm, batch 0),
            tensorpack/tensorpack#713 (TensorFlow batch norm over 0 channels).
``kernel``  ``padding="valid"``: a spatial size smaller than the dilated kernel (convolution) or
            the pool window (pooling), so there is no complete output position. TensorFlow on
            the CPU then raises or returns an empty output; cuDNN refuses the empty output.
``eps``     a batch normalization with ``epsilon <= 0`` (cuDNN refuses an epsilon below
            ``CUDNN_BN_MIN_EPSILON``, tensorflow/tensorflow#8090; otherwise a zero-variance
            channel divides by zero)
``mask``    Keras 3 ``LSTM``/``GRU`` that would run on cuDNN with a mask that has a fully
            masked sequence (``CUDNN_STATUS_BAD_PARAM`` in ``cudnnSetRNNDataDescriptor``,
            tensorflow/tensorflow#43103) or is not right-padded (Keras 3 asserts this on the GPU);
            checked on concrete (eager) masks only. tf.keras 2.x falls back to its non-cuDNN
            kernel for such masks by itself, so this check is Keras 3 only.

Shapes are read statically: every dimension in an eager call, the dimensions known while tracing
inside ``tf.function`` / ``model.fit`` / ``predict`` (there the batch size is usually unknown, and
a check that needs it is skipped and recorded in ``GuardHandle.unchecked``; nothing is inserted
into the graph, so a traced step costs nothing at run time). A check that passed once for an input
shape and dtype is not repeated for it. The checks run on every device, so a CPU run catches what
would break cuDNN on the GPU. Only the framework the model belongs to is imported, by ``install``.
"""

from __future__ import annotations

import functools
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from envcheck.guard import GuardError

__all__ = ["CACHE_SIZE", "install"]

#: at most this many input keys are remembered per layer as already checked
CACHE_SIZE = 64

# Classes recognised by name anywhere in a layer's MRO, provided the class comes from Keras
# (keras.*, tf_keras.*, tensorflow.python.keras.*): Keras 3 names first, then tf.keras 2.x names.
_KINDS: Dict[str, str] = {
    "BaseConv": "conv", "BaseSeparableConv": "conv", "BaseDepthwiseConv": "conv",
    "BaseConvTranspose": "conv", "Conv": "conv",
    "BasePooling": "pool", "Pooling1D": "pool", "Pooling2D": "pool", "Pooling3D": "pool",
    "BatchNormalization": "bn", "BatchNormalizationBase": "bn",
    "LSTM": "rnn", "GRU": "rnn",
}

_EMPTY_FIX = ("skip empty batches before calling the model (e.g. `if tf.shape(x)[0] == 0: continue`, "
              "or `dataset.filter(lambda x, y: tf.shape(x)[0] > 0)`); empty tensors come from filtering, "
              "an empty last batch or a per-replica split of a small batch")


def _is_keras_class(cls: type) -> bool:
    mod = getattr(cls, "__module__", "") or ""
    return mod.startswith(("keras.", "tf_keras.", "tensorflow.python.keras."))


def _kind(layer: Any) -> Optional[str]:
    for cls in type(layer).__mro__:
        kind = _KINDS.get(cls.__name__)
        if kind is not None and _is_keras_class(cls):
            return kind
    return None


def _transposed(layer: Any) -> bool:
    return any("Transpose" in cls.__name__ for cls in type(layer).__mro__ if _is_keras_class(cls))


def _dims(x: Any) -> Optional[Tuple[Optional[int], ...]]:
    """The static shape as a tuple of ints and None (unknown), or None without a known rank."""
    shape = getattr(x, "shape", None)
    if shape is None:
        return None
    try:
        return tuple(None if d is None else int(d) for d in shape)
    except (TypeError, ValueError):  # a TensorShape of unknown rank
        return None


def _dtype_name(x: Any) -> str:
    dt = getattr(x, "dtype", None)
    name = getattr(dt, "name", None)
    return str(name if isinstance(name, str) else dt).replace("torch.", "")


def _fmt(dims: Sequence[Optional[int]]) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ")"


def _tup(v: Any, n: int) -> Tuple[int, ...]:
    if isinstance(v, (tuple, list)):
        vals = tuple(int(i) for i in v)
        return vals if len(vals) == n else vals + (vals[-1],) * (n - len(vals))
    return (int(v),) * n


class _Checker:
    """The checks of one layer; ``check(args, kwargs)`` runs before the layer's ``call``."""

    def __init__(self, path: str, layer: Any, kind: str, skip: Sequence[str], keras3: bool,
                 unchecked: Set[Tuple[str, str, str]]):
        self.path = path
        self.layer = layer
        self.kind = kind
        self.type = type(layer).__name__
        self.skip = frozenset(skip)
        self.keras3 = keras3
        self.unchecked = unchecked
        self.passed: Set[Any] = set()

    def fail(self, check: str, problem: str, value: str, fix: str) -> None:
        raise GuardError(self.path, self.type, check, problem, value, fix)

    def not_checked(self, check: str, why: str) -> None:
        self.unchecked.add((self.path, check, why))

    # -- entry point -----------------------------------------------------------------------------
    def check(self, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> None:
        if args:
            x = args[0]
        else:
            x = next((kwargs[k] for k in ("inputs", "sequences", "x") if k in kwargs), None)
        if x is None:
            return
        layer = self.layer
        if self.kind == "bn":
            self.check_eps(layer)
        mask = kwargs.get("mask") if self.kind == "rnn" else None
        dims = _dims(x)
        if dims is None:
            return
        key = (dims, _dtype_name(x))
        if mask is None and key in self.passed:
            return
        complete = True
        if self.kind in ("conv", "pool"):
            complete = self.check_spatial(layer, x, dims)
        elif self.kind == "bn":
            complete = self.check_empty(dims, ["batch size"] + [f"dimension {i}" for i in range(1, len(dims))],
                                        channel_axes=self.bn_axes(layer, len(dims)))
        else:
            complete = self.check_rnn(layer, dims, mask)
        if complete:
            if len(self.passed) >= CACHE_SIZE:
                self.passed.clear()
            self.passed.add(key)

    # -- shared ----------------------------------------------------------------------------------
    def check_empty(self, dims: Sequence[Optional[int]], names: Sequence[str],
                    channel_axes: Sequence[int] = ()) -> bool:
        """Refuse a 0-sized dimension; False when some dimension is unknown (not checked)."""
        if "empty" in self.skip:
            return True
        for i, d in enumerate(dims):
            if d == 0:
                what = "channel count" if i in channel_axes else names[i] if i < len(names) else f"dimension {i}"
                fix = _EMPTY_FIX if i == 0 else (
                    "batch normalization over 0 channels: the layer before produces no features; check "
                    "its filters/units or the slicing before this layer" if i in channel_axes else
                    f"the {what} must be at least 1: check the preprocessing (a crop or resize to 0) "
                    "or the layer before")
                self.fail("empty", f"the input's {what} is 0 (cuDNN refuses empty tensors)",
                          f"input shape {_fmt(dims)}", fix)
        if None in dims:
            unknown = [names[i] if i < len(names) else f"dimension {i}" for i, d in enumerate(dims) if d is None]
            self.not_checked("empty", f"{', '.join(unknown)} unknown while tracing (tf.function / model.fit): "
                                      "only eager calls are checked for it")
            return False
        return True

    # -- convolution and pooling -----------------------------------------------------------------
    def check_spatial(self, layer: Any, x: Any, dims: Tuple[Optional[int], ...]) -> bool:
        window_attr = "kernel_size" if self.kind == "conv" else "pool_size"
        window = getattr(layer, window_attr, None)
        if window is None:
            return True
        rank = len(window) if isinstance(window, (tuple, list)) else max(len(dims) - 2, 1)
        if len(dims) != rank + 2:
            return True  # Keras' input spec refuses the rank itself
        channels_first = getattr(layer, "data_format", "channels_last") == "channels_first"
        c_axis = 1 if channels_first else len(dims) - 1
        spatial_axes = list(range(2, len(dims))) if channels_first else list(range(1, len(dims) - 1))
        if self.kind == "conv" and "dtype" not in self.skip:
            name = _dtype_name(x)
            if not ("float" in name or name in ("half", "double")):
                self.fail("dtype", "convolutions need a floating-point input", f"dtype {name}",
                          "cast the input first, e.g. `x = tf.cast(x, 'float32')` (images loaded as uint8: "
                          "`tf.cast(x, 'float32') / 255`, or a `keras.layers.Rescaling(1 / 255)` layer "
                          "first)")
        names = ["batch size"] + ["dimension %d" % i for i in range(1, len(dims))]
        names[c_axis] = "channel count"
        for j, ax in enumerate(spatial_axes):
            names[ax] = f"spatial size {j}"
        complete = self.check_empty(dims, names)
        padding = str(getattr(layer, "padding", "valid")).lower()
        if "kernel" in self.skip or padding != "valid" or (self.kind == "conv" and _transposed(layer)):
            return complete
        k = _tup(window, rank)
        dil = _tup(getattr(layer, "dilation_rate", 1), rank) if self.kind == "conv" else (1,) * rank
        need = tuple(dil[i] * (k[i] - 1) + 1 for i in range(rank))
        spatial = [dims[ax] for ax in spatial_axes]
        for i, s in enumerate(spatial):
            if s is None:
                self.not_checked("kernel", f"spatial size {i} unknown while tracing: only eager calls are "
                                           "checked for it")
                complete = False
            elif s < need[i]:
                what = "dilated kernel" if self.kind == "conv" else "pool window"
                fix = ("use padding='same', feed larger inputs, or remove a downsampling step earlier in the "
                       "model (each stride-2 convolution or pooling halves the size)")
                self.fail("kernel", f"padding='valid' and the input is smaller than the {what}, so there is "
                                    "no complete output position (an empty output, which cuDNN refuses)",
                          f"spatial size {_fmt(spatial)} < {what} {_fmt(need)} (input shape {_fmt(dims)})",
                          f"feed inputs of at least {_fmt(need)} here; or {fix}")
        return complete

    # -- batch normalization ---------------------------------------------------------------------
    def check_eps(self, layer: Any) -> None:
        if "eps" in self.skip:
            return
        eps = getattr(layer, "epsilon", None)
        if eps is not None and not (float(eps) > 0):
            self.fail("eps", "epsilon must be > 0: cuDNN refuses an epsilon below CUDNN_BN_MIN_EPSILON, and "
                             "any implementation divides by sqrt(variance + epsilon), which is 0 or NaN for "
                             "a channel with zero variance", f"epsilon={eps!r}",
                      "use a small positive epsilon, e.g. the default epsilon=0.001")

    @staticmethod
    def bn_axes(layer: Any, ndim: int) -> List[int]:
        axis = getattr(layer, "axis", -1)
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        return [a % ndim for a in axes if isinstance(a, int) and ndim]

    # -- LSTM / GRU ------------------------------------------------------------------------------
    def check_rnn(self, layer: Any, dims: Tuple[Optional[int], ...], mask: Any) -> bool:
        if len(dims) != 3:
            return True  # Keras' input spec refuses the rank itself
        time_major = bool(getattr(layer, "time_major", False))
        names = ["sequence length", "batch size", "feature size"] if time_major else [
            "batch size", "sequence length", "feature size"]
        complete = self.check_empty(dims, names)
        if mask is not None and "mask" not in self.skip and self.keras3 and self.cudnn_capable(layer):
            complete = self.check_mask(mask, time_major) and complete
        return complete

    @staticmethod
    def cudnn_capable(layer: Any) -> bool:
        """Keras 3's own conditions for its cuDNN LSTM/GRU kernel (keras/src/backend/tensorflow/rnn.py)."""
        def fname(f: Any) -> str:
            return str(getattr(f, "__name__", ""))

        return (getattr(layer, "use_cudnn", "auto") in ("auto", True)
                and fname(getattr(layer, "activation", None)) == "tanh"
                and fname(getattr(layer, "recurrent_activation", None)) == "sigmoid"
                and not getattr(layer, "unroll", False) and bool(getattr(layer, "use_bias", True))
                and not getattr(layer, "recurrent_dropout", 0)
                and bool(getattr(layer, "reset_after", True)))

    def check_mask(self, mask: Any, time_major: bool) -> bool:
        try:
            import numpy as np

            m = np.asarray(mask).astype(bool)
        except Exception:  # a symbolic mask (tracing): its values are not known
            self.not_checked("mask", "mask values unknown while tracing: only eager calls are checked")
            return False
        if m.ndim != 2:
            return True
        if time_major:
            m = m.T
        lengths = m.sum(axis=1)
        if (lengths == 0).any():
            row = int(np.argmax(lengths == 0))
            self.fail("mask", "a sequence in the batch is fully masked; cuDNN's RNN kernel refuses a sequence "
                              "of length 0 (CUDNN_STATUS_BAD_PARAM in cudnnSetRNNDataDescriptor)",
                      f"sample {row} of mask shape {_fmt(m.shape)} has no unmasked step",
                      "drop empty sequences before batching, or build the layer with use_cudnn=False")
        right_padded = (m[:, :-1] >= m[:, 1:]).all() if m.shape[1] > 1 else True
        if not right_padded:
            row = int(np.argmax(~(m[:, :-1] >= m[:, 1:]).all(axis=1)))
            self.fail("mask", "the mask is not right-padded (True steps first, then only False); the cuDNN "
                              "kernel supports only right padding",
                      f"sample {row} of mask shape {_fmt(m.shape)}: {m[row].astype(int).tolist()[:20]}",
                      "pad sequences at the end (`pad_sequences(..., padding='post')`), or build the layer "
                      "with use_cudnn=False")
        return False  # masks differ from call to call: never cached


class _Wrapped:
    """One layer's ``call`` replaced on the instance; ``remove()`` puts the instance back."""

    def __init__(self, layer: Any, checker: _Checker):
        self.layer = layer
        own = vars(layer)
        self.had_own = "call" in own
        self.own = own.get("call")
        original = layer.call
        check = checker.check

        @functools.wraps(original)
        def call(*args: Any, **kwargs: Any) -> Any:
            check(args, kwargs)
            return original(*args, **kwargs)

        # AutoGraph leaves functions with this attribute alone (its "autograph artifact" mark): the
        # check is plain Python on static shapes and must not be converted into graph code.
        call.autograph_info__ = {}  # type: ignore[attr-defined]
        call.__envcheck_guard__ = checker  # type: ignore[attr-defined]
        self.call = call
        own["call"] = call

    def remove(self) -> None:
        own = vars(self.layer)
        if own.get("call") is self.call:
            if self.had_own:
                own["call"] = self.own
            else:
                del own["call"]


def _children(layer: Any) -> List[Any]:
    flatten = getattr(layer, "_flatten_layers", None)
    if flatten is not None:
        try:
            return list(flatten(include_self=False, recursive=False))
        except TypeError:
            pass
    return list(getattr(layer, "layers", []) or [])


def install(model: Any, skip: Sequence[str], unchecked: Set[Tuple[str, str, str]]) -> Tuple[List[Any], List[str]]:
    """Wrap the ``call`` of every cuDNN-backed layer of ``model``; return (removers, layer paths)."""
    if not callable(getattr(model, "call", None)):
        raise TypeError("envcheck.guard.install needs a Keras model or layer, got "
                        f"{type(model).__module__}.{type(model).__name__}")
    keras3 = type(model).__module__.startswith("keras.src.") or any(
        (getattr(c, "__module__", "") or "").startswith("keras.src.") for c in type(model).__mro__)
    hooks: List[Any] = []
    paths: List[str] = []
    seen: Set[int] = set()
    stack: List[Tuple[str, Any]] = [("", model)]
    while stack:
        prefix, layer = stack.pop(0)
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        name = str(getattr(layer, "name", type(layer).__name__))
        path = f"{prefix}/{name}" if prefix else name
        child_prefix = "" if layer is model else path  # paths are relative to the model
        kind = _kind(layer)
        if kind is not None and not hasattr(vars(layer).get("call"), "__envcheck_guard__"):
            checker = _Checker(path, layer, kind, skip, keras3, unchecked)
            hooks.append(_Wrapped(layer, checker))
            paths.append(path)
        stack.extend((child_prefix, child) for child in _children(layer))
    return hooks, paths

