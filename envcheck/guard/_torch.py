"""The PyTorch side of :mod:`envcheck.guard` (``envcheck.guard.install(torch_module)``).

``install`` wraps the ``forward`` of each convolution (``Conv1d/2d/3d``, ``ConvTranspose1d/2d/3d``
and their lazy forms), normalisation (``BatchNorm1d/2d/3d``, ``SyncBatchNorm``, ``InstanceNorm1d/2d/3d``)
and recurrent layer (``RNN``, ``LSTM``, ``GRU``) of the model *on the instance*: ``layer.forward``
becomes the bound method ``_Checker.forward`` of that layer's checker, which checks the input the
way the layer will use it, raises :class:`GuardError` (a ``ValueError``) naming the layer's
qualified name in the model, the offending value and the fix, and otherwise calls the forward that
was there (the class's, or one the instance already had). The class is untouched. Torch calls an
instance's ``forward`` on its fast path (``Module._call_impl`` without hooks); a forward pre-hook,
the mechanism before, sends every call through torch's hook branch, which cost 4.4-4.8% of a small
CNN's forward on the development machine (``benchmarks/README.md``, guard25). What else this
keeps (each tested in ``tests/test_guard_forward.py``):

* ``handle.remove()`` puts back exactly what was there (no instance ``forward``, or the one the
  layer had); a wrapper someone put on top of the guard's since is left in place, and the guard's
  then only passes calls through.
* the user's own hooks run as before, in their order: pre-hooks before the check (so the guard
  sees the input the layer's ``forward`` gets), forward hooks after.
* a layer already guarded is not guarded again (``handle.layers`` of a second ``install`` lists
  only the layers it guarded).
* ``copy.deepcopy`` and pickling (``torch.save`` of a whole model) give a copy guarded on its own
  layers, with its own checker: never one that calls the original's layers; ``state_dict()`` is
  unchanged. A ``DataParallel`` replica gets a checker of its own too (``_replicate_for_data_parallel``
  is wrapped on the instance the same way). A shallow ``copy.copy`` of a layer shares the
  original's instance ``__dict__``, the guard's ``forward`` included: it runs the original layer.
* ``torch.compile`` traces the check (shapes are static while tracing; no graph break, a new shape
  is checked when it is traced, a refused one raises ``GuardError``), ``torch.fx`` keeps the
  layers as calls of the guarded modules, ``torch.jit.trace`` and ``torch.export`` run the check while
  they record.
  ``torch.jit.script`` compiles a guarded model's layers from their classes (``forward`` here is
  marked ``torch.jit.ignore``): the scripted copy is unguarded and saves, the model stays guarded;
  a guarded layer scripted by itself raises, saying to remove the guard first.

The checks (their ids in ``GuardError.check``, and in ``install(..., skip=...)``):

``rank``        the input has the wrong number of dimensions for the layer
``dtype``       the input is not a floating-point (or complex, for convolutions) tensor
``empty``       a dimension of the input is 0 (an empty batch, an empty sequence, a 0-sized
                spatial dimension: cuDNN rejects empty tensors, pytorch/pytorch#19599, #31425)
``channels``    the input's channel count (``RNN``: feature size) differs from the layer's
``kernel``      the padded spatial size is smaller than the dilated kernel (no output position);
                also reflect/circular padding wider than the input
``eps``         a normalisation layer with ``eps <= 0`` (cuDNN refuses epsilon below
                ``CUDNN_BN_MIN_EPSILON``; in any implementation a zero-variance channel then
                divides by zero)
``batch-stats`` batch norm in training mode with one value per channel (no variance to compute)
``numel``       a tensor too large for cuDNN's 32-bit indexing: for a convolution one *sample*
                of the input or output above 2**31 - 1 elements (PyTorch splits larger batches
                itself); for batch norm and RNNs the whole input (pytorch/pytorch#51776)

The checks run on every device, so that a CPU test run already catches what would break
cuDNN on the GPU. The module imports nothing heavy; torch is imported by :func:`install`.

Cost: the full check runs once per distinct key of a layer: the input's (shape, dtype), and for a norm layer also
(training mode, eps);
later calls with the same key only look the key up (the layer's other settings - kernel, padding,
channels - are read on that first call, so change them before ``install``, or re-install). The
cache holds at most :data:`CACHE_SIZE` keys per layer and starts again when full. A call whose input is a
plain ``torch.Tensor`` with the key of the layer's last call that passed compares that one tuple and goes on
(``_Checker.last``, replaced whole). A layer whose class's forward is torch's ``forward(self, input)``
(convolutions, norm layers) gets a wrapper of that one parameter (``forward_input``, ``forward_input_eps``: no
``*args`` / ``**kwargs`` packed and unpacked per call; chosen at install by ``_entry``); the others the general
``forward(*args, **kwargs)``. Timed alone the small CNN's six wrappers cost 1.4-1.5 us a forward, 3.4-3.7 before
speed26 (``benchmarks/README.md``).
"""

from __future__ import annotations

import copy
import importlib
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from envcheck.guard import INT32_MAX, GuardError

__all__ = ["install", "CACHE_SIZE"]

#: at most this many input keys are remembered per layer as already checked
CACHE_SIZE = 64


def _shape(t: Any) -> str:
    return "(" + ", ".join(str(int(s)) for s in t.shape) + ")"


def _tup(v: Any, n: int) -> Tuple[Any, ...]:
    if isinstance(v, (tuple, list)):
        return tuple(v) if len(v) == n else tuple(v) + (v[-1],) * (n - len(v))
    return (v,) * n


def _prod(xs: Sequence[int]) -> int:
    p = 1
    for x in xs:
        p *= int(x)
    return p


_EMPTY_FIX = ("skip empty batches before the forward pass (e.g. `if x.shape[0] == 0: continue`); empty "
              "tensors come from filtering, an empty last batch or a detector without proposals")


class _Checker:
    """One guarded layer: its checks, and the ``forward`` that :func:`install` puts on the instance.

    :meth:`forward` (bound to this checker, it is the layer's instance ``forward``) runs :meth:`check`
    and then the forward that was there before. The full check runs for each new key (input shape,
    dtype and, for norm layers, training mode and ``eps``); a key that passed once is remembered, so the
    common path is a few attribute reads and a comparison with the last key that passed.
    """

    # class-level defaults: a checker pickled by an envcheck before these were set (torch.save of a whole model)
    # loads with them and takes the general path
    last: Any = None
    exact: Any = None
    entry = "forward"

    def __init__(self, name: str, module: Any, kind: str, skip: Sequence[str], torch: Any):
        self.name = name
        self.module = module
        self.kind = kind
        self.norm = kind == "norm"
        self.type = type(module).__name__
        self.skip = frozenset(skip)
        self.passed: Set[Any] = set()
        # the key of the last call that passed (one tuple, replaced whole: threads calling the layer at once never
        # leave a mix of two keys in it); the entry forwards compare it first
        self.last: Any = None
        # torch's classes the checks need, kept (classes pickle and deep-copy by reference; torch itself, a module,
        # would not) rather than looked up per call, which torch.compile would have to trace (a graph break)
        self.tensor: Any = torch.Tensor
        self.exact: Any = torch.Tensor  # the entry forwards' fast path takes this class only (a subclass: check())
        self.packed: Any = torch.nn.utils.rnn.PackedSequence
        self.instance, self.ranks = _norm_layout(torch, module) if kind == "norm" else (False, ())
        self.active = True
        own = vars(module)
        # what was on the instance before the guard (None: nothing, the class's method is used)
        self.inner: Optional[Callable[..., Any]] = own.get("forward")
        self.inner_replicate: Optional[Callable[..., Any]] = own.get("_replicate_for_data_parallel")
        self.full: Callable[[Any, Any], None] = {
            "conv": self.check_conv, "norm": self.check_norm, "rnn": self.check_rnn}[kind]
        self.entry = _entry(module, kind, self.inner)

    # -- the layer's forward, and where it is put ------------------------------------------------
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The guarded layer's ``forward`` (an instance attribute): check, then the forward that was there."""
        try:
            m = self.module
        except AttributeError:  # torch.jit.script of a guarded layer itself: this ran on the ScriptModule
            raise _scripted_alone() from None
        # the common case inline (a plain tensor with the key of the last call that passed): the full path is check(),
        # which looks the key up among those that passed before (and returns at once once removed: exact is None then)
        x: Any = args[0] if args else None
        if type(x) is not self.exact or (
                (x.shape, x.dtype, m.training, m.eps) if self.norm else (x.shape, x.dtype)) != self.last:
            self.check(m, args, kwargs)
        inner = self.inner
        if inner is None:
            return type(m).forward(m, *args, **kwargs)
        return inner(*args, **kwargs)

    # The two below are the same as forward for a layer whose class's forward is ``forward(self, input)`` (the
    # convolutions and norm layers) and that had no instance forward before: one parameter of that name, so a
    # call torch accepts (``layer(x)``, ``layer(input=x)``) is accepted the same, and no ``*args`` / ``**kwargs``
    # to pack and unpack on each call (install chooses, per layer: _entry).
    def forward_input(self, input: Any) -> Any:
        """``forward`` of a convolution (its key: the input's shape and dtype)."""
        try:
            m = self.module
        except AttributeError:
            raise _scripted_alone() from None
        if type(input) is not self.exact or (input.shape, input.dtype) != self.last:
            self.check(m, (input,))
        return type(m).forward(m, input)

    def forward_input_eps(self, input: Any) -> Any:
        """``forward`` of a norm layer (its key: the input's shape and dtype, the training mode, eps)."""
        try:
            m = self.module
        except AttributeError:
            raise _scripted_alone() from None
        if type(input) is not self.exact or (input.shape, input.dtype, m.training, m.eps) != self.last:
            self.check(m, (input,))
        return type(m).forward(m, input)

    def replicate(self) -> Any:
        """``_replicate_for_data_parallel`` on the instance: ``DataParallel``'s replica is a shallow copy of the layer
        (its ``__dict__`` copied), so without this it would carry this checker, bound to the original layer; the
        replica gets a checker of its own (sharing the cache of checked keys)."""
        m = self.module
        inner = self.inner_replicate
        replica = type(m)._replicate_for_data_parallel(m) if inner is None else inner()
        own = vars(replica)
        if getattr(own.get("forward"), "__self__", None) is self:
            twin = copy.copy(self)
            twin.module = replica
            twin.full = {"conv": twin.check_conv, "norm": twin.check_norm, "rnn": twin.check_rnn}[self.kind]
            own["forward"] = getattr(twin, twin.entry)
            own["_replicate_for_data_parallel"] = twin.replicate
        return replica

    def attach(self) -> None:
        own = vars(self.module)
        own["forward"] = getattr(self, self.entry)
        own["_replicate_for_data_parallel"] = self.replicate

    def remove(self) -> None:
        """Put back what was on the instance; where something else has wrapped the guard's ``forward`` since (it is
        no longer the instance's), leave it and only stop checking."""
        self.active = False
        self.exact = None  # the forwards' fast path no longer passes: each call goes to check(), which returns
        own = vars(self.module)
        for attr, before in (("forward", self.inner), ("_replicate_for_data_parallel", self.inner_replicate)):
            if getattr(own.get(attr), "__self__", None) is not self:
                continue
            if before is None:
                del own[attr]
            else:
                own[attr] = before

    # -- the check -------------------------------------------------------------------------------
    def check(self, module: Any, args: Tuple[Any, ...], kwargs: Optional[Dict[str, Any]] = None) -> None:
        if not self.active:  # removed, under a wrapper put on top since: calls pass through
            return None
        if args:
            x = args[0]
        elif kwargs:
            x = kwargs.get("input", kwargs.get("x"))
        else:
            return None
        if not isinstance(x, self.tensor):  # a PackedSequence, None, a torch.fx Proxy...: checked every time
            self.full(module, x)
            return None
        # the key: what the verdict depends on besides the layer's settings (read on the first call): the input's
        # shape and dtype; for a norm layer also the training mode (batch-stats) and eps (no check of a convolution
        # or a recurrent layer reads the training mode)
        key = (x.shape, x.dtype, module.training, module.eps) if self.norm else (x.shape, x.dtype)
        if key not in self.passed:
            self.full(module, x)
            if len(self.passed) >= CACHE_SIZE:
                self.passed.clear()
            self.passed.add(key)
        self.last = key
        return None

    def fail(self, check: str, problem: str, value: str, fix: str) -> None:
        raise GuardError(self.name, type(self.module).__name__, check, problem, value, fix)

    # -- shared ----------------------------------------------------------------------------------
    def check_dtype(self, x: Any, allow_complex: bool) -> None:
        if "dtype" in self.skip:
            return
        if x.is_floating_point() or (allow_complex and x.is_complex()):
            return
        self.fail("dtype", "cuDNN layers need a floating-point input", f"dtype {x.dtype}",
                  "convert the input first, e.g. `x = x.float()` (images loaded as uint8: "
                  "`x.float() / 255`), or `x.half()` / `x.bfloat16()` for mixed precision")

    def check_empty(self, x: Any, names: Sequence[str]) -> None:
        if "empty" in self.skip:
            return
        for i, s in enumerate(x.shape):
            if int(s) == 0:
                what = names[i] if i < len(names) else f"dimension {i}"
                fix = _EMPTY_FIX if i == 0 and what.startswith("batch") else (
                    f"the {what} must be at least 1: check the preprocessing (a crop or resize to 0) "
                    "or the layer before")
                self.fail("empty", f"the input's {what} is 0 (cuDNN rejects empty tensors)",
                          f"input shape {_shape(x)}", fix)

    # -- convolutions ----------------------------------------------------------------------------
    def check_conv(self, m: Any, x: Any) -> None:
        if not isinstance(x, self.tensor):
            return
        d = len(m.kernel_size)
        if "rank" not in self.skip and x.dim() not in (d + 1, d + 2):
            letters = ("L",) if d == 1 else ("H", "W") if d == 2 else ("D", "H", "W")
            self.fail("rank", f"a {d}-D convolution needs a {d + 2}-D input (N, C, {', '.join(letters)}) "
                              f"or an unbatched {d + 1}-D one",
                      f"a {x.dim()}-D input of shape {_shape(x)}",
                      "reshape the input: add the batch dimension with `x.unsqueeze(0)`, or check the "
                      "flatten/view before this layer")
        batched = x.dim() == d + 2
        off = 1 if batched else 0
        self.check_dtype(x, allow_complex=True)
        names = (["batch size (N)"] if batched else []) + ["channel count (C)"] + [
            f"spatial size {i}" for i in range(d)]
        self.check_empty(x, names)
        c = int(x.shape[off])
        in_ch = int(getattr(m, "in_channels", 0) or 0)
        if "channels" not in self.skip and in_ch and c != in_ch:
            self.fail("channels", f"the layer expects {in_ch} input channels (dimension {off})",
                      f"{c} channels in input shape {_shape(x)}",
                      f"build the layer with in_channels={c}, or make the layer before it produce {in_ch} "
                      "channels; channels-last data (N, H, W, C) must be permuted with "
                      "`x.permute(0, 3, 1, 2)`")
        spatial = [int(s) for s in x.shape[off + 1:]]
        k = [int(v) for v in _tup(m.kernel_size, d)]
        dil = [int(v) for v in _tup(m.dilation, d)]
        stride = [int(v) for v in _tup(m.stride, d)]
        dilated = [dil[i] * (k[i] - 1) + 1 for i in range(d)]
        transposed = bool(getattr(m, "transposed", False))
        out_spatial: List[int] = []
        if transposed:
            pad = [int(v) for v in _tup(m.padding, d)]
            opad = [int(v) for v in _tup(getattr(m, "output_padding", 0), d)]
            out_spatial = [(spatial[i] - 1) * stride[i] - 2 * pad[i] + dil[i] * (k[i] - 1) + opad[i] + 1
                           for i in range(d)]
            if "kernel" not in self.skip and any(o <= 0 for o in out_spatial):
                self.fail("kernel", "the padding removes more than the transposed convolution produces "
                                    "(output size would be <= 0)",
                          f"input spatial size {tuple(spatial)}, padding {tuple(pad)}, kernel {tuple(k)}, "
                          f"stride {tuple(stride)} -> output {tuple(out_spatial)}",
                          "reduce `padding` or feed a larger input")
        else:
            total = self.conv_total_padding(m, d, k, dil, spatial)
            padded = [spatial[i] + total[i] for i in range(d)]
            if "kernel" not in self.skip and any(padded[i] - dilated[i] < 0 for i in range(d)):
                need = [max(0, dilated[i] - total[i]) for i in range(d)]
                self.fail("kernel", "the padded input is smaller than the dilated kernel, so the "
                                    "convolution has no output position",
                          f"input spatial size {tuple(spatial)} + padding {tuple(total)} < dilated kernel "
                          f"{tuple(dilated)} (kernel {tuple(k)}, dilation {tuple(dil)})",
                          f"feed inputs of at least {tuple(need)} here, add padding (e.g. padding='same'), or "
                          "remove a downsampling step earlier in the model (each stride-2 layer halves the size)")
            out_spatial = [(padded[i] - dilated[i]) // stride[i] + 1 for i in range(d)]
        if "numel" not in self.skip:
            n = int(x.shape[0]) if batched else 1
            per_in = int(x.numel()) // max(n, 1)
            per_out = int(getattr(m, "out_channels", 0) or 0) * _prod(out_spatial)
            big = max(per_in, per_out)
            if big > INT32_MAX:
                self.fail("numel", "one sample is larger than cuDNN's 32-bit indexing allows "
                                   f"({INT32_MAX} elements), and splitting the batch cannot help",
                          f"{per_in} input / {per_out} output elements per sample, input shape {_shape(x)}",
                          "process the input in tiles (crop the spatial dimensions) or reduce the channels; "
                          "or run this layer without cuDNN (`torch.backends.cudnn.flags(enabled=False)`)")

    def conv_total_padding(self, m: Any, d: int, k: List[int], dil: List[int],
                           spatial: List[int]) -> List[int]:
        """The total (both sides) padding per spatial dimension, computed like torch does."""
        mode = getattr(m, "padding_mode", "zeros")
        if mode != "zeros":
            rev = list(getattr(m, "_reversed_padding_repeated_twice", [])) or [0] * (2 * d)
            # [last-dim left, last-dim right, ..., first-dim left, first-dim right]
            pairs = [(int(rev[2 * j]), int(rev[2 * j + 1])) for j in range(d)][::-1]
            if "kernel" not in self.skip:
                for i, (lo, hi) in enumerate(pairs):
                    worst = max(lo, hi)
                    if (mode == "reflect" and worst >= spatial[i]) or (mode == "circular" and worst > spatial[i]):
                        rule = "smaller than" if mode == "reflect" else "at most"
                        self.fail("kernel", f"{mode} padding must be {rule} the input size",
                                  f"padding {worst} on spatial size {spatial[i]} (dimension {i})",
                                  "use padding_mode='zeros' or 'replicate', less padding, or a larger input")
            return [lo + hi for lo, hi in pairs]
        if isinstance(m.padding, str):
            if m.padding == "same":
                return [dil[i] * (k[i] - 1) for i in range(d)]
            return [0] * d  # 'valid'
        return [2 * int(p) for p in _tup(m.padding, d)]

    # -- batch / instance norm -------------------------------------------------------------------
    def check_norm(self, m: Any, x: Any) -> None:
        if "eps" not in self.skip:
            eps = getattr(m, "eps", None)
            if eps is not None and not (float(eps) > 0):
                self.fail("eps", "eps must be > 0: cuDNN refuses an epsilon below CUDNN_BN_MIN_EPSILON, and "
                                 "any implementation divides by sqrt(var + eps), which is 0 or NaN for a "
                                 "channel with zero variance", f"eps={eps!r}",
                          "use a small positive eps, e.g. the default eps=1e-05")
        if not isinstance(x, self.tensor):
            return
        ranks = self.ranks
        if "rank" not in self.skip and ranks and x.dim() not in ranks:
            self.fail("rank", f"{self.type} needs a {' or '.join(f'{r}-D' for r in ranks)} input",
                      f"a {x.dim()}-D input of shape {_shape(x)}",
                      "pick the layer that matches the data (BatchNorm1d: (N, C) or (N, C, L); BatchNorm2d: "
                      "(N, C, H, W); BatchNorm3d: (N, C, D, H, W)) or reshape the input")
        self.check_dtype(x, allow_complex=False)
        unbatched = self.instance and bool(ranks) and x.dim() == ranks[0]
        names = ([] if unbatched else ["batch size (N)"]) + ["channel count (C)"] + [
            f"spatial size {i}" for i in range(max(0, x.dim() - 2))]
        self.check_empty(x, names)
        c_dim = 0 if unbatched else 1
        nf = int(getattr(m, "num_features", 0) or 0)
        has_params = bool(getattr(m, "affine", False) or getattr(m, "track_running_stats", False))
        if "channels" not in self.skip and x.dim() > c_dim and nf and has_params and int(x.shape[c_dim]) != nf:
            self.fail("channels", f"the layer normalises {nf} channels (dimension {c_dim})",
                      f"{int(x.shape[c_dim])} channels in input shape {_shape(x)}",
                      f"build the layer with num_features={int(x.shape[c_dim])}, or fix the layer before it")
        is_instance = self.instance
        if ("batch-stats" not in self.skip and not is_instance and m.training and x.dim() >= 2
                and x.numel() and int(x.numel()) // max(int(x.shape[1]), 1) == 1):
            self.fail("batch-stats", "batch norm in training mode needs more than one value per channel",
                      f"input shape {_shape(x)}",
                      "use a batch of at least 2 (DataLoader(drop_last=True) avoids a last batch of 1), "
                      "or call model.eval() for single-sample inference")
        if "numel" not in self.skip and not is_instance and int(x.numel()) > INT32_MAX:
            self.fail("numel", f"the input has more elements than cuDNN's 32-bit indexing allows ({INT32_MAX}); "
                               "cuDNN batch norm then fails (e.g. CUDNN_STATUS_NOT_SUPPORTED, pytorch/pytorch#51776)",
                      f"{int(x.numel())} elements, input shape {_shape(x)}",
                      "use a smaller batch (and gradient accumulation), or run the layer without cuDNN: "
                      "`with torch.backends.cudnn.flags(enabled=False): ...`")

    # -- recurrent layers ------------------------------------------------------------------------
    def check_rnn(self, m: Any, x: Any) -> None:
        if isinstance(x, self.packed):
            data = x.data
            self.check_dtype(data, allow_complex=False)
            self.check_empty(data, ["total sequence length", "feature size"])
            if "channels" not in self.skip and data.dim() == 2 and int(data.shape[1]) != int(m.input_size):
                self.fail("channels", f"the layer expects input_size={m.input_size} features",
                          f"{int(data.shape[1])} features in packed data of shape {_shape(data)}",
                          f"build the layer with input_size={int(data.shape[1])}, or fix the features")
            return
        if not isinstance(x, self.tensor):
            return
        if "rank" not in self.skip and x.dim() not in (2, 3):
            layout = "(N, L, H_in)" if m.batch_first else "(L, N, H_in)"
            self.fail("rank", f"{self.type} needs a 3-D input {layout} or an unbatched 2-D (L, H_in)",
                      f"a {x.dim()}-D input of shape {_shape(x)}",
                      "reshape the input; for images, flatten the spatial dimensions into the sequence first")
        self.check_dtype(x, allow_complex=False)
        if x.dim() == 3:
            names = (["batch size (N)", "sequence length (L)"] if m.batch_first
                     else ["sequence length (L)", "batch size (N)"]) + ["feature size (H_in)"]
        else:
            names = ["sequence length (L)", "feature size (H_in)"]
        self.check_empty(x, names)
        h_in = int(x.shape[-1])
        if "channels" not in self.skip and h_in != int(m.input_size):
            self.fail("channels", f"the layer expects input_size={m.input_size} features in the last dimension",
                      f"{h_in} features in input shape {_shape(x)}",
                      f"build the layer with input_size={h_in}; if the data is (N, L, H) pass batch_first=True")
        if "numel" not in self.skip and int(x.numel()) > INT32_MAX:
            self.fail("numel", f"the input has more elements than cuDNN's 32-bit indexing allows ({INT32_MAX})",
                      f"{int(x.numel())} elements, input shape {_shape(x)}",
                      "use shorter sequences (truncated BPTT) or a smaller batch")



def _kind(torch: Any, module: Any) -> Optional[str]:
    nn = torch.nn
    if isinstance(module, nn.modules.conv._ConvNd):
        return "conv"
    norm_bases = tuple(c for c in (getattr(nn.modules.batchnorm, "_BatchNorm", None),
                                   getattr(nn.modules.instancenorm, "_InstanceNorm", None)) if c is not None)
    if norm_bases and isinstance(module, norm_bases):
        return "norm"
    if isinstance(module, nn.RNNBase):
        return "rnn"
    return None


def _norm_layout(torch: Any, module: Any) -> Tuple[bool, Tuple[int, ...]]:
    """(instance norm?, the input ranks it takes: () for any) of a norm layer; a lazy layer's from the class it
    becomes (it has become it before its forward runs: torch materialises it in a pre-hook)."""
    nn = torch.nn
    cls = getattr(module, "cls_to_become", None) or type(module)
    inst = getattr(nn.modules.instancenorm, "_InstanceNorm", None)
    if inst is not None and issubclass(cls, inst):
        for base, d in ((nn.InstanceNorm1d, 1), (nn.InstanceNorm2d, 2), (nn.InstanceNorm3d, 3)):
            if issubclass(cls, base):
                return True, (d + 1, d + 2)
        return True, ()
    for base, ranks in ((nn.BatchNorm1d, (2, 3)), (nn.BatchNorm2d, (4,)), (nn.BatchNorm3d, (5,))):
        if issubclass(cls, base):
            return False, ranks
    return False, ()  # SyncBatchNorm and others: any rank >= 2 (torch checks)


_ENTRIES = ("forward", "forward_input", "forward_input_eps")


def _scripted_alone() -> RuntimeError:
    return RuntimeError("envcheck.guard: a guarded layer scripted by itself has no forward; call handle.remove() "
                        "before torch.jit.script (a guarded model containing it scripts)")


def _entry(module: Any, kind: str, inner: Any) -> str:
    """Which of the checker's forwards goes on ``module``: ``forward_input`` / ``forward_input_eps`` where the class's
    forward is exactly ``forward(self, input)`` (a plain function: two positional-or-keyword parameters, no default,
    no ``*args`` / ``**kwargs``, no keyword-only one) and the instance had no forward of its own; the general
    ``forward(*args, **kwargs)`` otherwise (recurrent layers: ``forward(self, input, hx=None)``; a subclass's own
    signature; a wrapper put on the instance before)."""
    if inner is not None or kind == "rnn":
        return "forward"
    fn = getattr(type(module), "forward", None)
    code = getattr(fn, "__code__", None)
    if (code is None or getattr(fn, "__defaults__", None) or getattr(fn, "__kwdefaults__", None)
            or code.co_argcount != 2 or code.co_kwonlyargcount or code.co_posonlyargcount
            or code.co_flags & (_CO_VARARGS | _CO_VARKEYWORDS) or code.co_varnames[1] != "input"):
        return "forward"
    return "forward_input_eps" if kind == "norm" else "forward_input"


_CO_VARARGS, _CO_VARKEYWORDS = 0x04, 0x08  # inspect.CO_VARARGS, CO_VARKEYWORDS (the flags of a code object)


def _guarded(module: Any) -> bool:
    """Whether ``module`` already carries a guard's ``forward`` (a second ``install`` leaves it to that one)."""
    return isinstance(getattr(vars(module).get("forward"), "__self__", None), _Checker)


def install(model: Any, skip: Sequence[str]) -> Tuple[List[Any], List[str]]:
    """Wrap the ``forward`` of every cuDNN-backed layer of ``model`` on the instance; return (checkers, names)."""
    torch = importlib.import_module("torch")
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"envcheck.guard.install needs a torch.nn.Module, got {type(model).__name__}")
    # torch.jit.script leaves an ignored forward out: a guarded layer inside a scripted model is compiled from its
    # class (the scripted copy is unguarded, the model itself stays guarded), not refused for the *args here
    for entry in _ENTRIES:
        torch.jit.ignore(getattr(_Checker, entry))
    hooks: List[Any] = []
    layers: List[str] = []
    for name, module in model.named_modules():
        kind = _kind(torch, module)
        if kind is None or _guarded(module):
            continue
        qualified = name or type(model).__name__
        checker = _Checker(qualified, module, kind, skip, torch)
        checker.attach()
        hooks.append(checker)
        layers.append(qualified)
    return hooks, layers
