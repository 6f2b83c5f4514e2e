"""Catch the inputs that make cuDNN answer ``CUDNN_STATUS_BAD_PARAM`` before cuDNN sees them.

```python
import envcheck.guard
handle = envcheck.guard.install(model)   # a torch.nn.Module, or a Keras 3 / tf.keras model or layer
...                                      # every call of a cuDNN-backed layer is checked
handle.remove()                          # every layer as it was: zero overhead again
```

or ``with envcheck.guard.guarded(model): ...``.

The framework is told from the model's class (its module), so ``import envcheck.guard`` imports
neither torch nor TensorFlow/Keras, and ``install`` imports only the framework the model belongs to.
Each guarded layer is checked before it runs; a violation raises :class:`GuardError` (a
``ValueError``) naming the layer (its path in the model), the offending value and the fix.

* PyTorch (:mod:`envcheck.guard._torch`): each convolution, batch/instance norm and recurrent
  layer's ``forward`` is wrapped on the instance (restored by ``remove()``; no forward pre-hook, so
  torch keeps its fast call path).
* Keras 3 and tf.keras 2.x (:mod:`envcheck.guard._keras`): each convolution, pooling, batch
  normalization, ``LSTM`` and ``GRU`` layer's ``call`` is wrapped on the instance (restored by
  ``remove()``). Shapes are checked where they are known: in eager calls always, inside
  ``tf.function`` / ``model.fit`` while tracing, on the dimensions known then (usually all but the
  batch size); what could not be checked is listed in ``handle.unchecked``.

The check ids (``GuardError.check``; ``install(..., skip=...)`` leaves some out) are in
:data:`CHECKS`; each framework module's docstring says which apply there.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Optional, Sequence, Set, Tuple

__all__ = ["GuardError", "GuardHandle", "install", "guarded", "CHECKS", "INT32_MAX"]

#: cuDNN describes tensors with 32-bit ints (cudnnSetTensorNdDescriptor takes int dims and strides).
INT32_MAX = 2 ** 31 - 1

CHECKS = ("rank", "dtype", "empty", "channels", "kernel", "eps", "batch-stats", "numel", "mask")


class GuardError(ValueError):
    """An input or layer setting that cuDNN would reject (or compute garbage from).

    ``layer`` is the layer's path in the model (torch: ``"encoder.conv2"``, Keras:
    ``"encoder/conv2d_1"``; for the model itself its class name, or its name in Keras),
    ``layer_type`` its class, ``check`` one of :data:`CHECKS`, ``value`` the offending value as
    text and ``fix`` what to change.
    """

    def __init__(self, layer: str, layer_type: str, check: str, problem: str, value: str, fix: str):
        self.layer = layer
        self.layer_type = layer_type
        self.check = check
        self.problem = problem
        self.value = value
        self.fix = fix
        super().__init__(f"layer '{layer}' ({layer_type}): {problem} (got {value}). Fix: {fix}")
        # Keras re-raises an exception from a layer's call() as a new one of the same class built
        # from the message alone (RuntimeError when that fails), and AutoGraph (tf.function) as a
        # StagingError; these two marks, the frameworks' own, make both pass this GuardError through
        # unchanged, attributes and all.
        self._keras_call_info_injected = True
        self.ag_pass_through = True

    def __reduce__(self) -> Any:
        return (GuardError, (self.layer, self.layer_type, self.check, self.problem, self.value, self.fix))


class GuardHandle:
    """What :func:`install` returns: ``remove()`` restores every guarded layer again (idempotent).

    ``layers`` lists the paths of the guarded layers, ``framework`` is ``"torch"`` or ``"keras"``.
    ``unchecked`` (Keras) collects ``(layer, check, why)`` for checks that could not be made
    because a dimension was unknown while tracing a ``tf.function`` (``model.fit``, ``predict``):
    those inputs were not checked, and nothing is claimed about them. Usable as a context manager.
    """

    def __init__(self, hooks: List[Any], layers: List[str], framework: str = "torch",
                 unchecked: Optional[Set[Tuple[str, str, str]]] = None):
        self._hooks = hooks
        self.layers = layers
        self.framework = framework
        self.unchecked: Set[Tuple[str, str, str]] = unchecked if unchecked is not None else set()

    @property
    def active(self) -> bool:
        return bool(self._hooks)

    def remove(self) -> None:
        while self._hooks:
            self._hooks.pop().remove()

    def __enter__(self) -> "GuardHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()

    def __repr__(self) -> str:
        return (f"<envcheck.guard handle ({self.framework}): {len(self._hooks)} wrapper(s) on "
                f"{len(self.layers)} layer(s)>")


_KERAS_ROOTS = ("keras", "tf_keras", "tensorflow")


def _framework(model: Any) -> str:
    """``"torch"`` or ``"keras"``, from the modules of the model's classes; nothing is imported."""
    for cls in type(model).__mro__:
        root = (getattr(cls, "__module__", "") or "").split(".", 1)[0]
        if root == "torch":
            return "torch"
        if root in _KERAS_ROOTS:
            return "keras"
    raise TypeError("envcheck.guard.install needs a torch.nn.Module or a Keras (Keras 3 or tf.keras) "
                    f"model or layer, got {type(model).__module__}.{type(model).__name__}")


def install(model: Any, *, skip: Sequence[str] = ()) -> GuardHandle:
    """Guard every cuDNN-backed layer of ``model`` (the model itself included).

    ``model`` is a ``torch.nn.Module`` or a Keras 3 / tf.keras ``Model`` or ``Layer``. ``skip``
    names checks (see :data:`CHECKS`) to leave out. Returns a :class:`GuardHandle`;
    ``handle.remove()`` restores every guarded layer again. A layer that is already guarded (an
    earlier ``install`` not yet removed) is left to that guard and not listed in ``handle.layers``.
    """
    unknown = [s for s in skip if s not in CHECKS]
    if unknown:
        raise ValueError(f"unknown guard check(s) {unknown}; known: {', '.join(CHECKS)}")
    if _framework(model) == "torch":
        from envcheck.guard import _torch

        hooks, layers = _torch.install(model, skip)
        return GuardHandle(hooks, layers, "torch")
    from envcheck.guard import _keras

    unchecked: Set[Tuple[str, str, str]] = set()
    hooks, layers = _keras.install(model, skip, unchecked)
    return GuardHandle(hooks, layers, "keras", unchecked)


@contextlib.contextmanager
def guarded(model: Any, *, skip: Sequence[str] = ()) -> Iterator[GuardHandle]:
    """``with envcheck.guard.guarded(model): ...`` - the guard is on inside the block only."""
    handle = install(model, skip=skip)
    try:
        yield handle
    finally:
        handle.remove()
